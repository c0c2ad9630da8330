// SortedBlock: one changelog entry's pairs as full user keys (`s/k:<store>/<key>`), sorted
// and with repeated keys collapsed to their last write.
//
// Every pair of a block shares one version, so byte order of the user keys is the order both
// layouts' comparators give them. Inserting a batch in that order lets RocksDB's memtable
// skiplist reuse its insertion point from one key to the next instead of searching from the
// top for each key, which dominated block ingest.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata {

class SortedBlock {
 public:
  /// Decodes `entry` and sorts its pairs, leaving out changesets of `skip_stores`; throws
  /// kCorruption on a malformed entry.
  SortedBlock(std::string_view entry, const std::vector<std::string>& skip_stores);

  struct Pair {
    std::string_view user_key;              // s/k:<store>/<key>
    std::optional<std::string_view> value;  // nullopt = delete
  };
  const std::vector<Pair>& pairs() const { return pairs_; }
  /// Key + value bytes of the entry as submitted (before collapsing repeats).
  uint64_t logical_bytes() const { return logical_bytes_; }
  /// Total bytes of the sorted user keys and values (to size a write batch).
  uint64_t payload_bytes() const { return payload_bytes_; }

 private:
  std::string keys_;  // arena of user keys; pairs_ point into it and into the entry
  std::vector<Pair> pairs_;
  uint64_t logical_bytes_ = 0;
  uint64_t payload_bytes_ = 0;
};

}  // namespace strata
