// Value types shared by the state stores: options, changesets, read sinks, iterators, stats.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/memory_budget.h"
#include "strata/status.h"

namespace strata {

/// On-disk layout, chosen by the `ss-backend` setting.
enum class Layout {
  kPebble,   // `pebbledb`: key ‖ 0x00 ‖ ^version(8, BE) ‖ 0x09 under a custom comparator
  kRocksdb,  // `rocksdb`: RocksDB user-defined u64 timestamps in column family `state_storage`
};

/// Parses "pebbledb" / "rocksdb"; throws kInvalidArgument otherwise.
Layout ParseLayout(std::string_view name);
/// The `ss-backend` name of a layout.
const char* LayoutName(Layout layout);

/// Tuning and behaviour of one store.
struct StoreOptions {
  Layout layout = Layout::kPebble;
  /// Entries that may wait between the changelog and the DB; <= 0 acknowledges after apply.
  int async_write_buffer = 100;
  /// Changelog entries kept after they were applied; 0 means max(1000, buffer + 1).
  uint64_t changelog_keep_entries = 0;
  /// RocksDB block cache size when the store has no memory_budget.
  uint64_t block_cache_bytes = 512ull << 20;
  /// Block cache and memtable limit shared with the process's other stores; replaces
  /// block_cache_bytes when set.
  std::shared_ptr<MemoryBudget> memory_budget;
  /// Collect RocksDB statistics (needed for write-amplification figures).
  bool statistics = true;
  /// Create the store if `dir` holds none; otherwise Open throws kInvalidArgument.
  bool create_if_missing = true;
  /// Open without writing anything to disk (no changelog repair or replay); writes throw
  /// kNotSupported. For inspection and dump tools.
  bool read_only = false;
  /// Leave the changelog untouched until Recover() is called (for checks that must run
  /// after open but before recovery); writes before Recover() throw kInvalidArgument.
  bool defer_recovery = false;
  /// Changesets of these stores are logged with their block but not applied here. The Cosmos
  /// SS of a split node logs whole blocks, so a lagging EVM SS can be caught up from it.
  std::vector<std::string> log_only_stores;
};

/// One key change: a value to set, or std::nullopt to delete.
struct KVPair {
  std::string key;
  std::optional<std::string> value;
};

/// The changes of one module store in one block.
struct NamedChangeset {
  std::string name;
  std::vector<KVPair> pairs;
};

/// One item of a bulk import at a single version.
struct ImportItem {
  std::string store;
  std::string key;
  std::string value;
};

/// One entry seen by RawIterator: a stored version of a key, tombstones excluded.
struct RawEntry {
  std::string store;  // module store name; empty for keys outside the `s/k:` space
  std::string key;    // key with the store prefix stripped
  std::string value;
  uint64_t version;
};

/// Result of a prune pass.
struct PruneResult {
  uint64_t versions_deleted = 0;
};

/// Receives the values found by MvccStore::Read, as views valid only during the call.
class ValueSink {
 public:
  virtual ~ValueSink() = default;
  /// Called for each key that has a value; `index` is the key's position in the request.
  virtual void Found(size_t index, std::string_view value) = 0;
};

/// Completion callback of asynchronous writes; `error` is null on success.
using WriteCallback = std::function<void(const Error* error)>;

/// Iterator over the newest visible version of each key in [start, end) at one version.
class MvccIterator {
 public:
  virtual ~MvccIterator() = default;
  /// True while the iterator is on a key inside its range.
  virtual bool Valid() const = 0;
  /// Moves to the next key in iteration order.
  virtual void Next() = 0;
  /// Key with the store prefix stripped.
  virtual std::string_view key() const = 0;
  /// The value of the current key.
  virtual std::string_view value() const = 0;
};

/// Iterator over every stored version of every key (for dump tools).
class RawIterator {
 public:
  virtual ~RawIterator() = default;
  /// Fills `entry` with the next stored version; false at the end.
  virtual bool Next(RawEntry* entry) = 0;
};

/// Statistics for operators and benchmarks.
struct StoreStats {
  uint64_t logical_bytes_written = 0;     // key + value bytes handed to Apply/Import
  uint64_t flush_bytes_written = 0;       // bytes written by memtable flushes
  uint64_t compaction_bytes_written = 0;  // bytes written by compactions
  uint64_t compaction_keys_dropped = 0;   // superseded or obsolete versions removed by compaction
  uint64_t pending_writes = 0;            // entries logged but not yet applied
  uint64_t changelog_first_index = 0;
  uint64_t changelog_last_index = 0;
};

}  // namespace strata
