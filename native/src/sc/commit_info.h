// The app hash: the commitment to every store's root hash at one height, computed as the
// Cosmos SDK's CommitInfo.Hash() does (store/types/commit_info.go + store/internal/maps),
// so Strata's app hash matches the reference node's for the same store hashes.
//
//   leaf(name) = uvarint(len(name)) ‖ name ‖ uvarint(32) ‖ sha256(storeHash)
//   appHash    = SimpleMerkleRoot(leaves sorted by name, bytewise)
//
// Only names and store hashes enter the hash; store versions do not.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "strata/commit_types.h"

namespace strata::sc {

/// Name of the extra entry through which FlatKV's LtHash checksum enters the app hash.
inline constexpr std::string_view kEvmLatticeStoreName = "evm_lattice";

/// Returns `infos` plus {evm_lattice, version, lattice_hash}: what sei's composite SC hashes
/// when FlatKV participates in the app hash (whether it does is the caller's decision).
std::vector<StoreInfo> WithEvmLatticeInfo(std::vector<StoreInfo> infos, int64_t version,
                                          std::string lattice_hash);

/// The Merkle leaf of one store: uvarint(len(name)) ‖ name ‖ uvarint(32) ‖ sha256(store_hash).
std::string CommitInfoLeaf(std::string_view name, std::string_view store_hash);

/// The app hash over `infos`, in any order. Returns 32 bytes, or an empty string when `infos`
/// is empty (the SDK returns nil there). When a name repeats, its last entry counts, as in
/// the SDK's name → hash map. Throws kInvalidArgument for an empty name (the SDK panics).
std::string AppHash(const std::vector<StoreInfo>& infos);

}  // namespace strata::sc
