#include "strata/plain_kv.h"

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <shared_mutex>
#include <vector>

#include "open_error.h"
#include "rocks_memory.h"
#include "strata/status.h"

namespace strata {

namespace {

// Runs when the last owner (the store or an iterator outliving Close) lets go. A destructor
// cannot throw, so a failed close is reported on stderr rather than lost.
void CloseAndDelete(rocksdb::DB* db) {
  std::unique_ptr<rocksdb::DB> owned(db);  // DB::Open handed out a raw owning pointer
  rocksdb::Status status = owned->Close();
  if (!status.ok()) std::fprintf(stderr, "StrataDB: closing a plain KV store failed: %s\n", status.ToString().c_str());
}

rocksdb::Options MakeOptions(const PlainKvOptions& options) {
  rocksdb::Options db_options;
  db_options.create_if_missing = options.create_if_missing;
  // Every block store write is synced, so a damaged WAL record is lost data, not a torn
  // tail: RocksDB's default (kPointInTimeRecovery) would stop replaying there and silently
  // drop the synced writes after it. Refuse to open instead.
  db_options.wal_recovery_mode = rocksdb::WALRecoveryMode::kAbsoluteConsistency;
  // Receipts and logs compress well; fall back to none where this RocksDB lacks LZ4.
  db_options.compression = rocksdb::kNoCompression;
  for (rocksdb::CompressionType type : rocksdb::GetSupportedCompressions()) {
    if (type == rocksdb::kLZ4Compression) db_options.compression = type;
  }
  rocksdb::BlockBasedTableOptions table;
  ApplyStoreMemory({options.block_cache_bytes, options.memory_budget}, &db_options, &table);
  // Point lookups by hash dominate (tx index, receipts); a bloom filter skips most SST reads.
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10, false));
  db_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return db_options;
}

// The write-ahead log files of `dir`, as RocksDB names them (<number>.log), oldest first.
std::string WalFilesOf(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".log") == 0 && name != "LOG") names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + (std::filesystem::path(dir) / name).string();
  return out.empty() ? "(no WAL file found)" : out;
}

}  // namespace

class PlainKvIterator::Impl {
 public:
  Impl(std::shared_ptr<rocksdb::DB> db, PlainKvRange range)
      : db_(std::move(db)), range_(std::move(range)), lower_(range_.start), upper_(range_.end) {
    rocksdb::ReadOptions read_options;
    if (!range_.start.empty()) read_options.iterate_lower_bound = &lower_;
    if (!range_.end.empty()) read_options.iterate_upper_bound = &upper_;
    it_.reset(db_->NewIterator(read_options));
    if (range_.reverse) {
      it_->SeekToLast();  // the upper bound makes this the last key below `end`
    } else {
      it_->SeekToFirst();  // the lower bound makes this the first key at or above `start`
    }
    CheckStatus();
  }
  ~Impl() {
    it_.reset();  // the iterator must go before the database it reads
  }

  bool Valid() const { return it_->Valid(); }
  void Next() {
    if (range_.reverse) {
      it_->Prev();
    } else {
      it_->Next();
    }
    CheckStatus();
  }
  std::string_view key() const {
    rocksdb::Slice k = it_->key();
    return {k.data(), k.size()};
  }
  std::string_view value() const {
    rocksdb::Slice v = it_->value();
    return {v.data(), v.size()};
  }

 private:
  void CheckStatus() const {
    if (!it_->Valid()) ThrowIfError(it_->status(), "iterating the plain KV store");
  }

  std::shared_ptr<rocksdb::DB> db_;  // keeps the database open while the iterator lives
  PlainKvRange range_;               // owns the bytes the bounds below point into
  rocksdb::Slice lower_;
  rocksdb::Slice upper_;
  std::unique_ptr<rocksdb::Iterator> it_;
};

PlainKvIterator::PlainKvIterator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PlainKvIterator::~PlainKvIterator() = default;
bool PlainKvIterator::Valid() const { return impl_->Valid(); }
void PlainKvIterator::Next() { impl_->Next(); }
std::string_view PlainKvIterator::key() const { return impl_->key(); }
std::string_view PlainKvIterator::value() const { return impl_->value(); }

class PlainKv::Impl {
 public:
  Impl(std::string dir, std::shared_ptr<rocksdb::DB> db, bool read_only)
      : dir(std::move(dir)), read_only(read_only), db_(std::move(db)) {}

  /// The open database, shared so Close cannot free it under a running call.
  std::shared_ptr<rocksdb::DB> db() const {
    std::shared_lock lock(mutex_);
    if (!db_) throw Error(ErrorCode::kClosed, "the plain KV store at " + dir + " is closed; open it again before using it");
    return db_;
  }
  /// Hands the database over to Close; null once closed.
  std::shared_ptr<rocksdb::DB> Take() {
    std::unique_lock lock(mutex_);
    return std::move(db_);
  }
  bool closed() const {
    std::shared_lock lock(mutex_);
    return db_ == nullptr;
  }

  const std::string dir;
  const bool read_only;

 private:
  mutable std::shared_mutex mutex_;  // guards db_ itself, not the database
  std::shared_ptr<rocksdb::DB> db_;
};

std::unique_ptr<PlainKv> PlainKv::Open(const std::string& dir, const PlainKvOptions& options) {
  if (dir.empty()) throw Error(ErrorCode::kInvalidArgument, "plain KV directory is empty; pass e.g. <home>/data/blockstore");
  if (options.block_cache_bytes < (1u << 20)) {
    throw Error(ErrorCode::kInvalidArgument, "plain KV block cache must be at least 1 MiB, got " +
                                                 std::to_string(options.block_cache_bytes) + " bytes");
  }
  rocksdb::Options db_options = MakeOptions(options);
  rocksdb::DB* raw = nullptr;
  rocksdb::Status status = options.read_only ? rocksdb::DB::OpenForReadOnly(db_options, dir, &raw)
                                             : rocksdb::DB::Open(db_options, dir, &raw);
  if (status.IsCorruption()) {
    throw Error(ErrorCode::kCorruption,
                "plain KV store " + dir + " cannot be opened: its write-ahead log " + WalFilesOf(dir) +
                    " or a table file is damaged (" + status.ToString() +
                    "). It is opened in RocksDB's absolute-consistency WAL mode, which refuses rather than drop "
                    "the synced writes after the damage. For the block store (data/blockstore) the remedy is to "
                    "stop the node and restore data/blockstore from a backup, or re-create the node from a state "
                    "sync; the state stores cannot rebuild blocks. Keep the damaged directory for inspection");
  }
  const char* hint = !options.create_if_missing && status.IsInvalidArgument()
                         ? " (it does not exist; initialise the home first)"
                         : "";
  ThrowIfOpenFailed(status, "plain KV store " + dir, "opening the plain KV store at " + dir + hint);
  std::shared_ptr<rocksdb::DB> db(raw, CloseAndDelete);
  return std::make_unique<PlainKv>(std::make_unique<Impl>(dir, std::move(db), options.read_only));
}

PlainKv::PlainKv(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

PlainKv::~PlainKv() {
  try {
    Close();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "StrataDB: closing the plain KV store at %s failed: %s\n", impl_->dir.c_str(), e.what());
  }
}

bool PlainKv::closed() const { return impl_->closed(); }

const std::string& PlainKv::dir() const { return impl_->dir; }

std::optional<std::string> PlainKv::Get(std::string_view key) const {
  std::shared_ptr<rocksdb::DB> database = impl_->db();
  std::string value;
  rocksdb::Status status = database->Get(rocksdb::ReadOptions(), database->DefaultColumnFamily(),
                                         rocksdb::Slice(key.data(), key.size()), &value);
  if (status.IsNotFound()) return std::nullopt;
  ThrowIfError(status, "reading the plain KV store at " + impl_->dir);
  return value;
}

std::vector<std::optional<std::string>> PlainKv::MultiGet(const std::vector<std::string>& keys) const {
  std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
  std::vector<std::string> values;
  std::vector<rocksdb::Status> statuses = impl_->db()->MultiGet(rocksdb::ReadOptions(), slices, &values);
  std::vector<std::optional<std::string>> out(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (statuses[i].IsNotFound()) continue;
    ThrowIfError(statuses[i], "reading the plain KV store at " + impl_->dir);
    out[i] = std::move(values[i]);
  }
  return out;
}

void PlainKv::Write(const std::vector<PlainKvOp>& ops, bool sync) {
  std::shared_ptr<rocksdb::DB> database = impl_->db();
  if (impl_->read_only) throw Error(ErrorCode::kNotSupported, "the plain KV store at " + impl_->dir + " is open read-only; reopen it writable to write");
  rocksdb::WriteBatch batch;
  for (const PlainKvOp& op : ops) {
    if (op.key.empty()) throw Error(ErrorCode::kInvalidArgument, "plain KV keys must not be empty");
    ThrowIfError(op.value ? batch.Put(op.key, *op.value) : batch.Delete(op.key), "building a plain KV write batch");
  }
  rocksdb::WriteOptions write_options;
  write_options.sync = sync;
  ThrowIfError(database->Write(write_options, &batch), "writing the plain KV store at " + impl_->dir);
}

std::unique_ptr<PlainKvIterator> PlainKv::Iterate(const PlainKvRange& range) const {
  std::shared_ptr<rocksdb::DB> database = impl_->db();
  if (!range.start.empty() && !range.end.empty() && range.start > range.end) {
    throw Error(ErrorCode::kInvalidArgument, "plain KV range start is after its end; pass start <= end");
  }
  return std::make_unique<PlainKvIterator>(std::make_unique<PlainKvIterator::Impl>(std::move(database), range));
}

void PlainKv::Close() {
  std::shared_ptr<rocksdb::DB> db = impl_->Take();
  if (!db) return;
  // A call still running or an iterator still reading holds its own reference; the last
  // one to let go closes the database through CloseAndDelete.
  if (db.use_count() > 1) return;  // an iterator still reads it; the last one closes it
  if (!impl_->read_only) ThrowIfError(db->FlushWAL(true), "syncing the plain KV store's log at " + impl_->dir);
  ThrowIfError(db->Close(), "closing the plain KV store at " + impl_->dir);
}

}  // namespace strata
