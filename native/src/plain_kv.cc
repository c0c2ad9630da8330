#include "plain_kv.h"

#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <cstdio>

#include "strata/status.h"

namespace strata {

namespace {

// Runs when the last owner (the store or an iterator outliving Close) lets go. A destructor
// cannot throw, so a failed close is reported on stderr rather than lost.
void CloseAndDelete(rocksdb::DB* db) {
  rocksdb::Status status = db->Close();
  if (!status.ok()) std::fprintf(stderr, "StrataDB: closing a plain KV store failed: %s\n", status.ToString().c_str());
  delete db;  // NOLINT: rocksdb::DB::Open hands out a raw owning pointer; this deleter is its owner
}

rocksdb::Options MakeOptions(const PlainKvOptions& options) {
  rocksdb::Options db_options;
  db_options.create_if_missing = options.create_if_missing;
  // Receipts and logs compress well; fall back to none where this RocksDB lacks LZ4.
  db_options.compression = rocksdb::kNoCompression;
  for (rocksdb::CompressionType type : rocksdb::GetSupportedCompressions()) {
    if (type == rocksdb::kLZ4Compression) db_options.compression = type;
  }
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = rocksdb::NewLRUCache(options.block_cache_bytes);
  // Point lookups by hash dominate (tx index, receipts); a bloom filter skips most SST reads.
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10, false));
  db_options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return db_options;
}

}  // namespace

PlainKvIterator::PlainKvIterator(std::shared_ptr<rocksdb::DB> db, PlainKvRange range)
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

PlainKvIterator::~PlainKvIterator() {
  it_.reset();  // the iterator must go before the database it reads
}

bool PlainKvIterator::Valid() const { return it_->Valid(); }

void PlainKvIterator::Next() {
  if (range_.reverse) {
    it_->Prev();
  } else {
    it_->Next();
  }
  CheckStatus();
}

std::string_view PlainKvIterator::key() const {
  rocksdb::Slice k = it_->key();
  return {k.data(), k.size()};
}

std::string_view PlainKvIterator::value() const {
  rocksdb::Slice v = it_->value();
  return {v.data(), v.size()};
}

void PlainKvIterator::CheckStatus() const {
  if (!it_->Valid()) ThrowIfError(it_->status(), "iterating the plain KV store");
}

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
  if (!status.ok()) {
    std::string hint = status.IsIOError() && status.ToString().find("lock") != std::string::npos
                           ? " (another process holds it; stop that node first)"
                           : "";
    if (!options.create_if_missing && status.IsInvalidArgument()) hint = " (it does not exist; initialise the home first)";
    ThrowIfError(status, "opening the plain KV store at " + dir + hint);
  }
  std::shared_ptr<rocksdb::DB> db(raw, CloseAndDelete);
  return std::unique_ptr<PlainKv>(new PlainKv(dir, std::move(db), options.read_only));
}

PlainKv::PlainKv(std::string dir, std::shared_ptr<rocksdb::DB> db, bool read_only)
    : dir_(std::move(dir)), db_(std::move(db)), read_only_(read_only) {}

PlainKv::~PlainKv() {
  try {
    Close();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "StrataDB: closing the plain KV store at %s failed: %s\n", dir_.c_str(), e.what());
  }
}

std::shared_ptr<rocksdb::DB> PlainKv::db() const {
  std::shared_lock lock(mutex_);
  if (!db_) throw Error(ErrorCode::kClosed, "the plain KV store at " + dir_ + " is closed; open it again before using it");
  return db_;
}

bool PlainKv::closed() const {
  std::shared_lock lock(mutex_);
  return db_ == nullptr;
}

std::optional<std::string> PlainKv::Get(std::string_view key) const {
  std::shared_ptr<rocksdb::DB> database = db();
  std::string value;
  rocksdb::Status status = database->Get(rocksdb::ReadOptions(), database->DefaultColumnFamily(),
                                         rocksdb::Slice(key.data(), key.size()), &value);
  if (status.IsNotFound()) return std::nullopt;
  ThrowIfError(status, "reading the plain KV store at " + dir_);
  return value;
}

std::vector<std::optional<std::string>> PlainKv::MultiGet(const std::vector<std::string>& keys) const {
  std::vector<rocksdb::Slice> slices(keys.begin(), keys.end());
  std::vector<std::string> values;
  std::vector<rocksdb::Status> statuses = db()->MultiGet(rocksdb::ReadOptions(), slices, &values);
  std::vector<std::optional<std::string>> out(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    if (statuses[i].IsNotFound()) continue;
    ThrowIfError(statuses[i], "reading the plain KV store at " + dir_);
    out[i] = std::move(values[i]);
  }
  return out;
}

void PlainKv::Write(const std::vector<PlainKvOp>& ops, bool sync) {
  std::shared_ptr<rocksdb::DB> database = db();
  if (read_only_) throw Error(ErrorCode::kNotSupported, "the plain KV store at " + dir_ + " is open read-only; reopen it writable to write");
  rocksdb::WriteBatch batch;
  for (const PlainKvOp& op : ops) {
    if (op.key.empty()) throw Error(ErrorCode::kInvalidArgument, "plain KV keys must not be empty");
    ThrowIfError(op.value ? batch.Put(op.key, *op.value) : batch.Delete(op.key), "building a plain KV write batch");
  }
  rocksdb::WriteOptions write_options;
  write_options.sync = sync;
  ThrowIfError(database->Write(write_options, &batch), "writing the plain KV store at " + dir_);
}

std::unique_ptr<PlainKvIterator> PlainKv::Iterate(const PlainKvRange& range) const {
  std::shared_ptr<rocksdb::DB> database = db();
  if (!range.start.empty() && !range.end.empty() && range.start > range.end) {
    throw Error(ErrorCode::kInvalidArgument, "plain KV range start is after its end; pass start <= end");
  }
  return std::unique_ptr<PlainKvIterator>(new PlainKvIterator(std::move(database), range));
}

void PlainKv::Close() {
  std::shared_ptr<rocksdb::DB> db;
  {
    std::unique_lock lock(mutex_);
    db = std::move(db_);
  }
  if (!db) return;
  // A call still running or an iterator still reading holds its own reference; the last
  // one to let go closes the database through CloseAndDelete.
  if (db.use_count() > 1) return;  // an iterator still reads it; the last one closes it
  if (!read_only_) ThrowIfError(db->FlushWAL(true), "syncing the plain KV store's log at " + dir_);
  ThrowIfError(db->Close(), "closing the plain KV store at " + dir_);
}

}  // namespace strata
