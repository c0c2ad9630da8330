// MvccStore: the versioned key/value engine behind the State Store (SS).
//
// A store keeps every version of every key of every module store, in one of two on-disk
// layouts over RocksDB (see Layout). Writes arrive as one changelog entry per block and are
// logged to the store's own changelog before they are applied, so a crash never loses an
// acknowledged block. Reads are synchronous point queries or iterators at a version.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
  /// RocksDB block cache size.
  uint64_t block_cache_bytes = 512ull << 20;
  /// Collect RocksDB statistics (needed for write-amplification figures).
  bool statistics = true;
  /// Create the store if `dir` holds none; otherwise Open throws kInvalidArgument.
  bool create_if_missing = true;
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
  virtual bool Valid() const = 0;
  virtual void Next() = 0;
  /// Key with the store prefix stripped.
  virtual std::string_view key() const = 0;
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

class MvccStoreImpl;

/// A versioned key/value store with its own changelog and background writer.
/// Thread-safe; reads may run on any thread concurrently with writes.
class MvccStore {
 public:
  /// Opens (creating if missing) the store in `dir`, then replays its changelog from the
  /// store's latest version. Throws kLayoutMismatch if `dir` holds the other layout.
  static std::unique_ptr<MvccStore> Open(const std::string& dir, const StoreOptions& options);
  ~MvccStore();
  MvccStore(const MvccStore&) = delete;
  MvccStore& operator=(const MvccStore&) = delete;

  // ---- writes --------------------------------------------------------------------------

  /// Logs then applies one block's changesets at `version` (0 is stored as 1). `done` runs
  /// on a writer thread once the entry is durable in the changelog (async buffer > 0) or
  /// applied (buffer <= 0). An empty changeset list still advances the latest version.
  void ApplyAsync(uint64_t version, std::vector<NamedChangeset> changesets, WriteCallback done);
  /// Same, for an entry already encoded with ChangelogEntryEncoder (its version inside);
  /// saves a copy for bindings. Throws kInvalidArgument for a malformed entry.
  void ApplyEncodedAsync(std::string encoded_entry, WriteCallback done);
  /// Applies and waits (for tests, tools and replay).
  void Apply(uint64_t version, const std::vector<NamedChangeset>& changesets);
  /// Runs `done` once every entry submitted before this call has been applied.
  void Drain(WriteCallback done);
  /// Blocking form of Drain.
  void WaitForPendingWrites();

  // ---- reads ---------------------------------------------------------------------------

  /// Newest value of `key` at or below `version`; nullopt when absent, deleted, or when
  /// `version` is below the earliest retained version.
  std::optional<std::string> Get(std::string_view store, uint64_t version, std::string_view key);
  bool Has(std::string_view store, uint64_t version, std::string_view key);
  /// Point reads of `count` keys at one version without copying: `sink` sees every value
  /// found (absent, deleted and below-floor keys are skipped). Get and GetMany wrap it.
  void Read(std::string_view store, uint64_t version, const std::string_view* keys, size_t count, ValueSink& sink);
  /// Batched Get of many keys at one version; `out` is resized to keys.size().
  void GetMany(std::string_view store, uint64_t version, const std::vector<std::string_view>& keys,
               std::vector<std::optional<std::string>>* out);
  /// Iterator over [start, end) of one store at `version` (nullopt bound = unbounded).
  /// Throws kInvalidArgument for an empty bound or start after end.
  std::unique_ptr<MvccIterator> NewIterator(std::string_view store, uint64_t version,
                                            std::optional<std::string_view> start,
                                            std::optional<std::string_view> end, bool reverse);
  std::unique_ptr<RawIterator> NewRawIterator();

  // ---- versions ------------------------------------------------------------------------

  uint64_t LatestVersion() const;
  uint64_t EarliestVersion() const;
  /// Raises the latest marker (never lowers it).
  void SetLatestVersion(uint64_t version);
  /// Raises the earliest marker (never lowers it).
  void SetEarliestVersion(uint64_t version);

  // ---- maintenance ---------------------------------------------------------------------

  /// Removes every version at or below `version` except the newest one of each key, raises
  /// the earliest version to version + 1, then compacts the affected range.
  PruneResult Prune(uint64_t version);
  /// Writes `items` at `version` in one batch, bypassing the changelog; raises latest.
  void Import(uint64_t version, const std::vector<ImportItem>& items);
  /// Full manual compaction.
  void Compact();
  StoreStats Stats() const;
  Layout layout() const;
  const std::string& dir() const;

  /// Drains the writer, stops its threads and closes the DB. Further calls throw kClosed.
  void Close();
  bool closed() const;

 private:
  explicit MvccStore(std::unique_ptr<MvccStoreImpl> impl);
  std::unique_ptr<MvccStoreImpl> impl_;
};

/// Encodes one changelog entry payload (version + changesets) in the changelog format.
std::string EncodeChangelogEntry(uint64_t version, const std::vector<NamedChangeset>& changesets);

}  // namespace strata
