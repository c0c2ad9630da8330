#include "sc/iavl_hash.h"

namespace strata::sc {
namespace {

// Every node hash starts with the same three signed varints; leaves have height 0, size 1.
std::string NodeHeader(uint8_t height, int64_t size, int64_t version) {
  std::string out;
  PutVarint(&out, height);
  PutVarint(&out, size);
  PutVarint(&out, version);
  return out;
}

}  // namespace

Sha256Digest EmptyTreeHash() { return Sha256Of({}); }

std::string LeafHashInput(std::string_view key, std::string_view value, int64_t version) {
  std::string out = NodeHeader(/*height=*/0, /*size=*/1, version);
  PutLengthPrefixed(&out, key);
  // The value enters only through its hash, so proofs can carry the value hash alone.
  PutLengthPrefixed(&out, DigestView(Sha256Of(value)));
  return out;
}

std::string InnerHashInput(uint8_t height, int64_t size, int64_t version, const Sha256Digest& left,
                           const Sha256Digest& right) {
  std::string out = NodeHeader(height, size, version);
  PutLengthPrefixed(&out, DigestView(left));
  PutLengthPrefixed(&out, DigestView(right));
  return out;
}

Sha256Digest LeafHash(std::string_view key, std::string_view value, int64_t version) {
  return Sha256Of(LeafHashInput(key, value, version));
}

Sha256Digest InnerHash(uint8_t height, int64_t size, int64_t version, const Sha256Digest& left,
                       const Sha256Digest& right) {
  return Sha256Of(InnerHashInput(height, size, version, left, right));
}

}  // namespace strata::sc
