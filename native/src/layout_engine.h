// LayoutEngine: what differs between the two on-disk layouts. MvccStore owns one and adds
// the changelog, the writer threads, version floors and the closed state on top.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/statistics.h>

#include <functional>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/mvcc_store.h"

namespace strata {

class LayoutEngine {
 public:
  virtual ~LayoutEngine() = default;

  /// Writes one encoded changelog entry at `version` as one atomic unit that also stamps the
  /// latest marker with `latest` and the applied-index marker with `changelog_index` (the
  /// entry's changelog position). Returns the key + value bytes written.
  virtual uint64_t WriteEntry(uint64_t version, std::string_view encoded_entry, uint64_t latest,
                              uint64_t changelog_index) = 0;
  /// Point reads of `count` keys at `version`; `sink` receives each value found.
  virtual void Read(std::string_view store, uint64_t version, const std::string_view* keys, size_t count,
                    ValueSink& sink) = 0;
  virtual std::unique_ptr<MvccIterator> NewIterator(std::string_view store, uint64_t version,
                                                    std::optional<std::string_view> start,
                                                    std::optional<std::string_view> end, bool reverse) = 0;
  virtual std::unique_ptr<RawIterator> NewRawIterator() = 0;

  /// Markers kept beside the data: latest and earliest versions, and the changelog index of
  /// the last applied entry (replay resumes after it).
  enum class Marker { kLatest, kEarliest, kAppliedIndex };
  virtual uint64_t ReadMarker(Marker marker) = 0;
  virtual void WriteMarker(Marker marker, uint64_t version) = 0;

  /// Prune body; the caller has already raised the earliest marker.
  virtual PruneResult Prune(uint64_t version) = 0;
  /// Deletes every data version above `version` (markers are the caller's); the caller holds
  /// the store exclusively and has released every iterator.
  virtual void RollbackTo(uint64_t version) = 0;
  virtual void Import(uint64_t version, const std::vector<ImportItem>& items, uint64_t latest) = 0;
  virtual void Compact() = 0;
  /// Whether a flush or compaction is running or pending in any column family.
  bool BackgroundWorkPending() const;

  /// Drops cached read state; called before the DB closes.
  virtual void ReleaseCaches() = 0;
  virtual void Close() = 0;

  rocksdb::Statistics* statistics() const { return statistics_.get(); }
  rocksdb::DB* db() const { return db_.get(); }

 protected:
  std::shared_ptr<rocksdb::Statistics> statistics_;
  std::unique_ptr<rocksdb::DB> db_;
};

/// An iterator over nothing (a version below the floor, a store without data yet).
class EmptyIterator final : public MvccIterator {
 public:
  bool Valid() const override { return false; }
  void Next() override {}
  std::string_view key() const override { return {}; }
  std::string_view value() const override { return {}; }
};

/// A raw iterator over nothing.
class EmptyRawIterator final : public RawIterator {
 public:
  bool Next(RawEntry*) override { return false; }
};

/// Opens the `pebbledb` layout in `dir`.
std::unique_ptr<LayoutEngine> OpenPebbleLayout(const std::string& dir, const StoreOptions& options);
/// Opens the `rocksdb` (user-defined timestamp) layout in `dir`.
std::unique_ptr<LayoutEngine> OpenRocksdbLayout(const std::string& dir, const StoreOptions& options);

/// RocksDB options shared by both layouts (cache, filters, compression, parallelism).
/// `whole_key_filtering` is off where a prefix extractor provides the bloom key instead.
rocksdb::Options BaseOptions(const StoreOptions& options, bool whole_key_filtering,
                             std::shared_ptr<rocksdb::Statistics>* statistics);

/// ThrowIfOpenFailed (open_error.h) under the state store's names for `dir`.
void ThrowIfStateStoreOpenFailed(const rocksdb::Status& status, const std::string& dir);

/// Write options of a bulk import: no WAL. The store flushes the imported memtables when it
/// closes, so its next open has no log to replay (with a WAL, every imported item went into
/// the memtable twice: once when written, once more when the log was replayed at the open).
rocksdb::WriteOptions ImportWriteOptions();

/// A bulk import's items in the order a sorted file takes them: `keys` holds each item's store
/// key and `order` the item positions sorted by it. Of equal keys only the last is kept, as a
/// write batch would (a later write wins).
struct SortedImport {
  std::vector<std::string> keys;
  std::vector<uint32_t> order;
};
SortedImport SortImport(const std::vector<ImportItem>& items);

/// Throws kInvalidArgument unless store and key are usable (non-empty key).
void CheckKey(std::string_view key, const char* what);

/// Blocks with at least this many pairs skip the memtable: they are written as one sorted
/// SST file and ingested, which is atomic per file and several times cheaper than inserting
/// each key into the memtable's skiplist.
constexpr size_t kBulkIngestPairs = 32768;

/// Writes one sorted SST `<store dir>/ingest/<name>.sst` with `fill` and ingests it into `cf`.
void IngestSortedFile(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const rocksdb::Options& options,
                      const std::string& store_dir, const std::string& name,
                      const std::function<void(rocksdb::SstFileWriter&)>& fill);

/// Removes SST files left in `<store dir>/ingest/` by a crash before their ingestion.
void ClearIngestLeftovers(const std::string& store_dir);

}  // namespace strata
