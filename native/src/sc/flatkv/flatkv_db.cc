#include "sc/flatkv/flatkv_db.h"

#include <rocksdb/cache.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/utilities/checkpoint.h>

#include <cstdio>

#include "open_error.h"
#include "rocks_memory.h"
#include "strata/status.h"

namespace strata::sc::flatkv {
namespace {

std::string_view View(const rocksdb::Slice& s) { return {s.data(), s.size()}; }
rocksdb::Slice ToSlice(std::string_view s) { return {s.data(), s.size()}; }

// Rows are point-read by MultiGet on every commit, so every family gets a whole-key bloom
// filter; all families share one block cache.
rocksdb::Options DbOptions(const StoreMemory& memory) {
  rocksdb::Options o;
  o.max_open_files = -1;
  o.max_background_jobs = 2;
  o.bytes_per_sync = 1 << 20;
  o.write_buffer_size = 64 << 20;
  o.max_write_buffer_number = 4;
  // Four families share one memtable budget so that flushes stay few and large (a node
  // replaces it with its process-wide budget).
  o.db_write_buffer_size = 256 << 20;
  o.level0_file_num_compaction_trigger = 4;
  o.max_bytes_for_level_base = 256 << 20;
  o.target_file_size_base = 64 << 20;
  o.level_compaction_dynamic_level_bytes = true;
  o.compression = rocksdb::kLZ4Compression;
  o.bottommost_compression = rocksdb::kZSTD;
  // Most rows a block reads are not in the memtables; a memtable bloom filter answers that
  // without a skiplist search per memtable.
  o.memtable_whole_key_filtering = true;
  o.memtable_prefix_bloom_size_ratio = 0.1;
  // A block's rows arrive sorted; the insert hint (per "evm/" prefix) lets each memtable
  // insert continue from the previous one instead of searching from the top.
  o.memtable_insert_with_hint_prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(kEvmModulePrefix.size()));
  // The changelog is the WAL, so a flush must persist all families and the metadata record
  // together (see the header).
  o.atomic_flush = true;

  rocksdb::BlockBasedTableOptions table;
  ApplyStoreMemory(memory, &o, &table);
  table.block_size = 8 << 10;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10, false));
  table.format_version = 5;
  table.whole_key_filtering = true;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  return o;
}

}  // namespace

std::unique_ptr<FlatKvDb> FlatKvDb::Open(const std::string& path, Mode mode, const StoreMemory& memory) {
  auto db = std::make_unique<FlatKvDb>(OpenKey(), path, mode == Mode::kReadOnly);
  db->options_ = DbOptions(memory);
  rocksdb::Options& o = db->options_;
  o.create_if_missing = mode == Mode::kCreate;
  o.error_if_exists = mode == Mode::kCreate;
  o.create_missing_column_families = mode == Mode::kCreate;
  rocksdb::ColumnFamilyOptions family_options(o);
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors = {{rocksdb::kDefaultColumnFamilyName, family_options}};
  for (size_t i = 0; i < kRowFamilyCount; ++i) {
    descriptors.push_back({RowFamilyName(static_cast<RowFamily>(i)), family_options});
  }
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status status = mode == Mode::kReadOnly
                               ? rocksdb::DB::OpenForReadOnly(rocksdb::DBOptions(o), path, descriptors, &handles, &raw)
                               : rocksdb::DB::Open(rocksdb::DBOptions(o), path, descriptors, &handles, &raw);
  ThrowIfOpenFailed(status, "FlatKV database " + path, "open FlatKV database " + path);
  db->db_.reset(raw);
  db->default_ = handles[0];
  for (size_t i = 0; i < kRowFamilyCount; ++i) db->families_[i] = handles[i + 1];
  return db;
}

FlatKvDb::~FlatKvDb() {
  try {
    Close();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "StrataDB: closing FlatKV database %s failed: %s\n", path_.c_str(), e.what());
  }
}

void FlatKvDb::MultiGet(RowFamily family, const rocksdb::Slice* keys, size_t count,
                        std::optional<std::string>* values) const {
  std::vector<rocksdb::PinnableSlice> found(count);
  std::vector<rocksdb::Status> statuses(count);
  db_->MultiGet(rocksdb::ReadOptions(), handle(family), count, keys, found.data(), statuses.data(),
                /*sorted_input=*/true);
  for (size_t i = 0; i < count; ++i) {
    if (statuses[i].IsNotFound()) {
      values[i].reset();
      continue;
    }
    ThrowIfError(statuses[i], std::string("read FlatKV ") + RowFamilyName(family) + " row in " + path_);
    values[i].emplace(found[i].data(), found[i].size());
  }
}

std::optional<std::string> FlatKvDb::Get(RowFamily family, std::string_view key) const {
  rocksdb::PinnableSlice value;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), handle(family), ToSlice(key), &value);
  if (s.IsNotFound()) return std::nullopt;
  ThrowIfError(s, std::string("read FlatKV ") + RowFamilyName(family) + " row in " + path_);
  return std::string(value.data(), value.size());
}

StoreMeta FlatKvDb::ReadMeta() const {
  rocksdb::PinnableSlice value;
  rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), default_, ToSlice(kStoreMetaKey), &value);
  if (s.IsNotFound()) {
    throw Error(ErrorCode::kCorruption, "FlatKV database " + path_ +
                                            " has no metadata record; it was not written by FlatKV or is "
                                            "damaged: roll the store back to a snapshot or restore it from a "
                                            "state-sync snapshot");
  }
  ThrowIfError(s, "read FlatKV metadata of " + path_);
  return DecodeStoreMeta(View(value), path_);
}

void FlatKvDb::PutMeta(rocksdb::WriteBatch* batch, const StoreMeta& meta) const {
  ThrowIfError(batch->Put(default_, ToSlice(kStoreMetaKey), EncodeStoreMeta(meta)), "batch put");
}

void FlatKvDb::PutRow(rocksdb::WriteBatch* batch, RowFamily family, std::string_view key,
                      const std::optional<std::string>& row) const {
  if (row) {
    ThrowIfError(batch->Put(handle(family), ToSlice(key), *row), "batch put");
  } else {
    ThrowIfError(batch->Delete(handle(family), ToSlice(key)), "batch delete");
  }
}

void FlatKvDb::Write(rocksdb::WriteBatch* batch) {
  rocksdb::WriteOptions wo;
  wo.disableWAL = true;
  ThrowIfError(db_->Write(wo, batch), "write FlatKV block to " + path_);
}

void FlatKvDb::Flush() {
  std::vector<rocksdb::ColumnFamilyHandle*> all = {default_};
  all.insert(all.end(), families_.begin(), families_.end());
  ThrowIfError(db_->Flush(rocksdb::FlushOptions(), all), "flush FlatKV database " + path_);
}

void FlatKvDb::CreateCheckpoint(const std::string& dir) {
  rocksdb::Checkpoint* raw = nullptr;
  ThrowIfError(rocksdb::Checkpoint::Create(db_.get(), &raw), "prepare checkpoint of " + path_);
  std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  // log_size_for_flush = 0: always flush first, so the checkpoint needs no WAL (there is none).
  ThrowIfError(checkpoint->CreateCheckpoint(dir, /*log_size_for_flush=*/0), "create checkpoint " + dir);
}

void FlatKvDb::ForEachRow(RowFamily family,
                          const std::function<void(std::string_view key, std::string_view row)>& sink) const {
  const rocksdb::Snapshot* snapshot = db_->GetSnapshot();
  // Releases the snapshot however the walk ends.
  std::unique_ptr<const rocksdb::Snapshot, std::function<void(const rocksdb::Snapshot*)>> guard(
      snapshot, [this](const rocksdb::Snapshot* s) { db_->ReleaseSnapshot(s); });
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot;
  ro.fill_cache = false;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, handle(family)));
  for (it->SeekToFirst(); it->Valid(); it->Next()) sink(View(it->key()), View(it->value()));
  ThrowIfError(it->status(), std::string("iterate FlatKV ") + RowFamilyName(family) + " rows of " + path_);
}

void FlatKvDb::IngestFile(RowFamily family, const std::string& path) {
  rocksdb::IngestExternalFileOptions ingest;
  ingest.move_files = true;
  ThrowIfError(db_->IngestExternalFile(handle(family), {path}, ingest), "ingest " + path + " into " + path_);
}

rocksdb::Status FlatKvDb::ReleaseHandles() {
  rocksdb::Status result;
  std::vector<rocksdb::ColumnFamilyHandle**> all = {&default_};
  for (auto& h : families_) all.push_back(&h);
  for (auto** h : all) {
    if (*h == nullptr) continue;
    rocksdb::Status s = db_->DestroyColumnFamilyHandle(*h);
    if (result.ok()) result = s;
    *h = nullptr;
  }
  return result;
}

void FlatKvDb::Close() {
  if (!db_) return;
  // Without a WAL, unflushed rows would only come back through changelog replay; flushing
  // here makes a clean close need none.
  rocksdb::Status flushed;
  if (!read_only_) {
    std::vector<rocksdb::ColumnFamilyHandle*> all = {default_};
    all.insert(all.end(), families_.begin(), families_.end());
    flushed = db_->Flush(rocksdb::FlushOptions(), all);
  }
  rocksdb::Status released = ReleaseHandles();
  rocksdb::Status closed = db_->Close();
  db_.reset();
  ThrowIfError(flushed, "flush FlatKV database " + path_);
  ThrowIfError(released, "release column families of " + path_);
  ThrowIfError(closed, "close FlatKV database " + path_);
}

}  // namespace strata::sc::flatkv
