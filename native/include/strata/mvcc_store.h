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
#include "strata/store_types.h"
#include "strata/versioned_store.h"

namespace strata {

class MvccStoreImpl;

/// A versioned key/value store with its own changelog and background writer.
/// Thread-safe; reads may run on any thread concurrently with writes.
class MvccStore final : public VersionedStore {
 public:
  /// Opens (creating if missing) the store in `dir`, then replays its changelog from the
  /// store's latest version (unless options.defer_recovery). Throws kLayoutMismatch if `dir`
  /// holds the other layout.
  static std::unique_ptr<MvccStore> Open(const std::string& dir, const StoreOptions& options);
  /// Replays the changelog and starts the writer; for stores opened with defer_recovery
  /// (a no-op otherwise).
  void Recover() override;
  /// Calls `fn`, in log order, with every logged entry that would be stored at `version` or
  /// above (used to catch another store up from this one's changelog). Re-applying entries at
  /// a store's latest version, in order, is idempotent. Requires a recovered store.
  void ReadChangelog(uint64_t version, const std::function<void(std::string_view entry)>& fn);
  ~MvccStore();
  MvccStore(const MvccStore&) = delete;
  MvccStore& operator=(const MvccStore&) = delete;

  // ---- writes --------------------------------------------------------------------------

  /// Logs then applies one block's changesets at `version` (0 is stored as 1). `done` runs
  /// on a writer thread once the entry is durable in the changelog (async buffer > 0) or
  /// applied (buffer <= 0). An empty changeset list still advances the latest version.
  void ApplyAsync(uint64_t version, std::vector<NamedChangeset> changesets, WriteCallback done);
  /// Same, for an entry already encoded with ChangelogEntryEncoder (its version inside);
  /// saves a copy for bindings. Throws kInvalidArgument for a malformed entry (see
  /// ValidateChangelogEntry) or a version below the last written one, kClosed once closing.
  void ApplyEncodedAsync(std::string encoded_entry, WriteCallback done) override;
  /// Applies and waits (for tests, tools and replay).
  void Apply(uint64_t version, const std::vector<NamedChangeset>& changesets);
  /// Runs `done` once every entry submitted before this call has been applied.
  void Drain(WriteCallback done) override;
  /// Blocking form of Drain.
  void WaitForPendingWrites();

  // ---- reads ---------------------------------------------------------------------------

  /// Newest value of `key` at or below `version`; nullopt when absent, deleted, or when
  /// `version` is below the earliest retained version.
  std::optional<std::string> Get(std::string_view store, uint64_t version, std::string_view key);
  /// Whether `key` has a live value at or below `version`.
  bool Has(std::string_view store, uint64_t version, std::string_view key);
  /// Point reads of `count` keys at one version without copying: `sink` sees every value
  /// found (absent, deleted and below-floor keys are skipped). Get and GetMany wrap it.
  void Read(std::string_view store, uint64_t version, const std::string_view* keys, size_t count,
            ValueSink& sink) override;
  /// Batched Get of many keys at one version; `out` is resized to keys.size().
  void GetMany(std::string_view store, uint64_t version, const std::vector<std::string_view>& keys,
               std::vector<std::optional<std::string>>* out);
  /// Iterator over [start, end) of one store at `version` (nullopt bound = unbounded).
  /// Throws kInvalidArgument for an empty bound or start after end.
  std::unique_ptr<MvccIterator> NewIterator(std::string_view store, uint64_t version,
                                            std::optional<std::string_view> start,
                                            std::optional<std::string_view> end, bool reverse) override;
  /// Iterator over every stored version of every key (for dump tools).
  std::unique_ptr<RawIterator> NewRawIterator();

  // ---- versions ------------------------------------------------------------------------

  /// The newest version written (the latest marker).
  uint64_t LatestVersion() const override;
  /// The oldest version still readable (the earliest marker).
  uint64_t EarliestVersion() const override;
  /// Raises the latest marker (never lowers it).
  void SetLatestVersion(uint64_t version) override;
  /// Raises the earliest marker (never lowers it).
  void SetEarliestVersion(uint64_t version) override;

  // ---- maintenance ---------------------------------------------------------------------

  /// Removes every version at or below `version` except the newest one of each key, raises
  /// the earliest version to version + 1, then compacts the affected range.
  PruneResult Prune(uint64_t version) override;
  /// Drains, then deletes every stored version above `version`, cuts the changelog after its
  /// last entry at or below it and lowers the latest marker to it (a no-op at or above latest).
  /// Readers and iterators open meanwhile are released (they then report kClosed). Throws
  /// kInvalidArgument below the earliest readable version: pruned history cannot come back.
  void RollbackTo(uint64_t version) override;
  /// Writes `items` at `version` in one batch, bypassing the changelog; raises latest.
  void Import(uint64_t version, const std::vector<ImportItem>& items) override;
  /// Full manual compaction.
  void Compact();
  /// Waits until RocksDB has no flush or compaction running or pending (for measurements).
  void WaitForCompactions();
  /// Version of the oldest entry still in the changelog (nullopt if none); works read-only.
  std::optional<uint64_t> FirstLoggedVersion() const;
  /// Write and compaction counters, and the changelog's index range.
  StoreStats Stats() const override;
  /// The on-disk layout the store was opened with.
  Layout layout() const;
  /// The directory the store was opened in.
  const std::string& dir() const;

  /// Drains the writer, stops its threads and closes the DB. Further calls throw kClosed.
  void Close() override;
  /// Whether Close was called.
  bool closed() const;

 private:
  explicit MvccStore(std::unique_ptr<MvccStoreImpl> impl);
  std::unique_ptr<MvccStoreImpl> impl_;
};

/// Encodes one changelog entry payload (version + changesets) in the changelog format.
std::string EncodeChangelogEntry(uint64_t version, const std::vector<NamedChangeset>& changesets);

}  // namespace strata
