// Tendermint's "simple" Merkle tree (crypto/merkle HashFromByteSlices), which follows
// RFC 6962 §2.1: leaves and inner nodes get different one-byte prefixes, so a leaf can never
// be passed off as an inner node, and n leaves split at the largest power of two below n.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sc/sha256.h"

namespace strata::sc {

/// RFC 6962 leaf hash: sha256(0x00 ‖ leaf).
Sha256Digest MerkleLeafHash(std::string_view leaf);

/// RFC 6962 inner hash: sha256(0x01 ‖ left ‖ right).
Sha256Digest MerkleInnerHash(const Sha256Digest& left, const Sha256Digest& right);

/// Where a tree of `count` leaves splits: the largest power of two strictly below `count`
/// (0 for a single leaf). Throws kInvalidArgument for `count` == 0.
size_t MerkleSplitPoint(size_t count);

/// Root of the simple Merkle tree over `leaves` in the given order; sha256("") when empty.
Sha256Digest SimpleMerkleRoot(const std::vector<std::string>& leaves);

}  // namespace strata::sc
