// FlatKvDb: one RocksDB database with FlatKV's four row families plus the metadata record.
//
// Rows are written with the RocksDB WAL disabled: the FlatKV changelog is the write-ahead
// log. atomic_flush keeps the families' flushed state consistent with each other and with
// the metadata record, so after a crash the DB is exactly some earlier committed version and
// the changelog replays the rest.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sc/flatkv/row_format.h"
#include "strata/memory_budget.h"
#include "sc/flatkv/store_meta.h"

namespace strata::sc::flatkv {

class FlatKvDb {
  // Only Open can make the key, so only Open constructs (through std::make_unique).
  struct OpenKey {
    explicit OpenKey() = default;
  };

 public:
  /// kCreate makes a new DB (the directory must not hold one); kOpen opens an existing DB
  /// read-write; kReadOnly opens it without writing anything.
  enum class Mode { kCreate, kOpen, kReadOnly };

  /// Opens the DB at `path`; throws kIo (with what to do) when it is missing or locked.
  static std::unique_ptr<FlatKvDb> Open(const std::string& path, Mode mode, const StoreMemory& memory);

  /// Use Open.
  FlatKvDb(OpenKey, std::string path, bool read_only) : path_(std::move(path)), read_only_(read_only) {}

  /// Closes the DB; failures are logged to stderr (call Close to see them as errors).
  ~FlatKvDb();
  FlatKvDb(const FlatKvDb&) = delete;
  FlatKvDb& operator=(const FlatKvDb&) = delete;

  /// Looks up `count` keys (ascending) of `family` in one MultiGet; `values[i]` receives the
  /// row or nullopt when absent.
  void MultiGet(RowFamily family, const rocksdb::Slice* keys, size_t count,
                std::optional<std::string>* values) const;

  /// One row of `family`, or nullopt.
  std::optional<std::string> Get(RowFamily family, std::string_view key) const;

  /// The metadata record; throws kCorruption when it is missing or damaged.
  StoreMeta ReadMeta() const;

  /// Adds the metadata record to `batch`.
  void PutMeta(rocksdb::WriteBatch* batch, const StoreMeta& meta) const;

  /// Adds a row write (or a delete when `row` is nullopt) to `batch`.
  void PutRow(rocksdb::WriteBatch* batch, RowFamily family, std::string_view key,
              const std::optional<std::string>& row) const;

  /// Applies `batch` atomically (without the RocksDB WAL; see the file comment).
  void Write(rocksdb::WriteBatch* batch);

  /// Flushes all families to SST files together.
  void Flush();

  /// Creates a RocksDB checkpoint of the current state in `dir` (which must not exist).
  void CreateCheckpoint(const std::string& dir);

  /// Calls `sink` for every row of `family` in key order, from a consistent point-in-time view.
  void ForEachRow(RowFamily family, const std::function<void(std::string_view key, std::string_view row)>& sink) const;

  /// Moves the SST file at `path` (sorted rows of `family`) into the DB.
  void IngestFile(RowFamily family, const std::string& path);

  /// The options SST files for this DB must be written with.
  const rocksdb::Options& options() const { return options_; }

  /// The column family handle of `family`.
  rocksdb::ColumnFamilyHandle* handle(RowFamily family) const { return families_[static_cast<size_t>(family)]; }

  /// Flushes (unless read-only) and closes; idempotent.
  void Close();

 private:
  rocksdb::Status ReleaseHandles();

  std::string path_;
  bool read_only_;
  rocksdb::Options options_;
  std::unique_ptr<rocksdb::DB> db_;
  // Owned by db_; released through DestroyColumnFamilyHandle before it closes.
  rocksdb::ColumnFamilyHandle* default_ = nullptr;
  std::array<rocksdb::ColumnFamilyHandle*, kRowFamilyCount> families_{};
};

}  // namespace strata::sc::flatkv
