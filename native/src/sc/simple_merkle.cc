#include "sc/simple_merkle.h"

#include "strata/status.h"

namespace strata::sc {
namespace {

constexpr char kLeafPrefix = 0x00;
constexpr char kInnerPrefix = 0x01;

// Root over leaves[0, count), count >= 1. Recursion depth is log2(count).
Sha256Digest RootOfRange(const std::string* leaves, size_t count) {
  if (count == 1) return MerkleLeafHash(leaves[0]);
  size_t split = MerkleSplitPoint(count);
  return MerkleInnerHash(RootOfRange(leaves, split), RootOfRange(leaves + split, count - split));
}

}  // namespace

Sha256Digest MerkleLeafHash(std::string_view leaf) {
  Sha256 hasher;
  hasher.Update(std::string_view(&kLeafPrefix, 1));
  hasher.Update(leaf);
  return hasher.Finish();
}

Sha256Digest MerkleInnerHash(const Sha256Digest& left, const Sha256Digest& right) {
  Sha256 hasher;
  hasher.Update(std::string_view(&kInnerPrefix, 1));
  hasher.Update(DigestView(left));
  hasher.Update(DigestView(right));
  return hasher.Finish();
}

size_t MerkleSplitPoint(size_t count) {
  if (count == 0) throw Error(ErrorCode::kInvalidArgument, "a Merkle tree needs at least one leaf");
  if (count == 1) return 0;  // as Tendermint's getSplitPoint: a lone leaf is not split
  size_t power = 1;
  while (power * 2 < count) power *= 2;  // power <= count/2, so this cannot overflow
  return power;
}

Sha256Digest SimpleMerkleRoot(const std::vector<std::string>& leaves) {
  if (leaves.empty()) return Sha256Of({});
  return RootOfRange(leaves.data(), leaves.size());
}

}  // namespace strata::sc
