// IAVL node hashing, byte-compatible with cosmos/iavl v0.19/v0.20 and memiavl, so a store
// rebuilt here yields the same root hashes (and thus app hashes) as the reference node.
//
// A node hash is SHA-256 over
//   varint(height) ‖ varint(size) ‖ varint(version) ‖ body
// with body = lp(key) ‖ lp(sha256(value))  for a leaf  (height 0, size 1)
//        body = lp(leftHash) ‖ lp(rightHash) for an inner node (its key is not hashed)
// where varint is Go's zig-zag PutVarint and lp(x) = uvarint(len(x)) ‖ x.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sc/sha256.h"
#include "sc/varint.h"

namespace strata::sc {

/// Root hash of an empty tree: sha256("").
Sha256Digest EmptyTreeHash();

/// The exact bytes hashed for a leaf node (exposed so tests can pin the encoding).
std::string LeafHashInput(std::string_view key, std::string_view value, int64_t version);

/// The exact bytes hashed for an inner node (exposed so tests can pin the encoding).
std::string InnerHashInput(uint8_t height, int64_t size, int64_t version, const Sha256Digest& left,
                           const Sha256Digest& right);

/// Hash of a leaf holding `key` → `value`, last written at `version`.
Sha256Digest LeafHash(std::string_view key, std::string_view value, int64_t version);

/// Hash of an inner node of `height` (>= 1) over `size` leaves, last rewritten at `version`.
Sha256Digest InnerHash(uint8_t height, int64_t size, int64_t version, const Sha256Digest& left,
                       const Sha256Digest& right);

}  // namespace strata::sc
