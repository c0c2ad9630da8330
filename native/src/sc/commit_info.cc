#include "sc/commit_info.h"

#include <map>
#include <utility>

#include "sc/sha256.h"
#include "sc/simple_merkle.h"
#include "sc/varint.h"
#include "strata/status.h"

namespace strata::sc {
namespace {

// name → store hash, ordered bytewise like Go's bytes.Compare (std::string_view compares
// through char_traits<char>, i.e. as unsigned bytes). Later entries replace earlier ones,
// as assigning into the SDK's Go map does.
std::map<std::string_view, std::string_view> StoreHashesByName(const std::vector<StoreInfo>& infos) {
  std::map<std::string_view, std::string_view> by_name;
  for (const StoreInfo& info : infos) {
    if (info.name.empty()) throw Error(ErrorCode::kInvalidArgument, "a store info needs a name");
    by_name[info.name] = info.hash;
  }
  return by_name;
}

}  // namespace

std::vector<StoreInfo> WithEvmLatticeInfo(std::vector<StoreInfo> infos, int64_t version,
                                          std::string lattice_hash) {
  infos.push_back(StoreInfo{std::string(kEvmLatticeStoreName), version, std::move(lattice_hash)});
  return infos;
}

std::string CommitInfoLeaf(std::string_view name, std::string_view store_hash) {
  std::string leaf;
  PutLengthPrefixed(&leaf, name);
  PutLengthPrefixed(&leaf, DigestView(Sha256Of(store_hash)));
  return leaf;
}

std::string AppHash(const std::vector<StoreInfo>& infos) {
  if (infos.empty()) return {};
  std::vector<std::string> leaves;
  for (const auto& [name, store_hash] : StoreHashesByName(infos)) {
    leaves.push_back(CommitInfoLeaf(name, store_hash));
  }
  return DigestBytes(SimpleMerkleRoot(leaves));
}

}  // namespace strata::sc
