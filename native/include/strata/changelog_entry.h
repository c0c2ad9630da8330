// The binary form of one changelog entry (one block's changesets at one version).
//
//   u64 version | u32 changeset count | changeset*
//   changeset = u32 name length | name | u32 pair count | pair*
//   pair      = u8 kind (0 set, 1 delete) | u32 key length | key | [u32 value length | value]
//
// All integers are little-endian. The same bytes are written to the changelog and decoded by
// the writer thread, so an entry is copied exactly once on its way from the caller to RocksDB.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace strata {

/// Builds an encoded entry incrementally, without intermediate containers.
class ChangelogEntryEncoder {
 public:
  /// Starts the entry of `version`; `reserve_bytes` sizes the buffer up front.
  explicit ChangelogEntryEncoder(uint64_t version, size_t reserve_bytes = 0);
  /// Starts a changeset; exactly `pair_count` AddPair calls must follow (Finish checks).
  void BeginChangeset(std::string_view name, uint32_t pair_count);
  /// Adds one pair of the open changeset (value nullopt = delete).
  void AddPair(std::string_view key, std::optional<std::string_view> value);
  /// Returns the encoded entry; the encoder must not be used afterwards. Throws
  /// kInvalidArgument if a changeset got fewer or more pairs than it announced.
  std::string Finish();
  /// Total key + value bytes added so far.
  uint64_t logical_bytes() const { return logical_bytes_; }

 private:
  void CheckPairCount() const;

  std::string buf_;
  uint32_t changesets_ = 0;
  uint32_t expected_pairs_ = 0;  // announced by the open changeset
  uint32_t added_pairs_ = 0;     // added to the open changeset
  uint64_t logical_bytes_ = 0;
};

/// Callbacks for walking an encoded entry without copying it.
struct ChangelogEntryVisitor {
  /// One changeset begins: its store name and how many pairs follow.
  std::function<void(std::string_view name, uint32_t pair_count)> on_changeset;
  /// `value` is nullopt for a delete.
  std::function<void(std::string_view key, std::optional<std::string_view> value)> on_pair;
};

/// Reads the version of an encoded entry; throws kCorruption if it is too short.
uint64_t ChangelogEntryVersion(std::string_view entry);

/// Largest encoded entry the changelog frames (its length field is 32 bits).
constexpr uint64_t kMaxChangelogEntryBytes = 0xffffffffull;

/// Throws kInvalidArgument unless `name` can name a module store: non-empty, without '/'
/// (a '/' would let store "a/b" with key "c" alias store "a" with key "b/c").
void CheckStoreName(std::string_view name);

/// Checks an entry before it may be logged: its structure, non-empty keys and valid store
/// names. Throws kInvalidArgument saying what is wrong. Returns the version.
uint64_t ValidateChangelogEntry(std::string_view entry);

/// Walks an encoded entry; throws kCorruption on malformed input. Returns the version.
uint64_t VisitChangelogEntry(std::string_view entry, const ChangelogEntryVisitor& visitor);

}  // namespace strata
