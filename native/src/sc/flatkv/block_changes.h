// One block's logical changes to the `evm` module store, and their changelog entry: one
// changeset named "evm" holding the changes in key order (strata/changelog_entry.h format).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::sc::flatkv {

/// The changeset name FlatKV's changelog entries use.
inline constexpr std::string_view kEvmChangesetName = "evm";

/// A set (value present) or delete (nullopt) of one logical evm key.
struct LogicalChange {
  std::string key;
  std::optional<std::string> value;
};

/// A block's changes: sorted by key, at most one change per key.
using BlockChanges = std::vector<LogicalChange>;

/// Throws kInvalidArgument unless the change can be stored: a non-empty key, an 8-byte value
/// for a nonce key and a 32-byte value for a code-hash key.
void CheckLogicalChange(std::string_view key, const std::optional<std::string_view>& value);

/// The changelog entry of `changes` at `version`.
std::string EncodeBlockEntry(int64_t version, const BlockChanges& changes);

/// A changelog entry read back.
struct DecodedBlock {
  int64_t version = 0;
  BlockChanges changes;
};

/// Parses an entry; throws kCorruption naming changelog entry `index` when it is not a
/// well-formed FlatKV block.
DecodedBlock DecodeBlockEntry(std::string_view entry, uint64_t index);

}  // namespace strata::sc::flatkv
