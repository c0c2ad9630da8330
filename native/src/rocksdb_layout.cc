// The `rocksdb` layout: RocksDB user-defined timestamps. Versioned data lives in column family
// `state_storage` under the u64 timestamp comparator; version markers in `default`.
#include <rocksdb/comparator.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

#include "encoding.h"
#include "layout_engine.h"
#include "sorted_block.h"

namespace rocksdb {
// Exported by librocksdb 7.8 but missing from its public headers.
const Comparator* BytewiseComparatorWithU64Ts();
}  // namespace rocksdb

namespace strata {

namespace {

constexpr char kDataFamily[] = "state_storage";
constexpr size_t kTimestampSize = 8;

std::string_view View(const rocksdb::Slice& s) { return {s.data(), s.size()}; }

std::string Timestamp(uint64_t version) {
  std::string ts;
  encoding::PutFixed64LE(&ts, version);
  return ts;
}

const char* MarkerKey(LayoutEngine::Marker marker) {
  return marker == LayoutEngine::Marker::kLatest     ? "s/latest"
         : marker == LayoutEngine::Marker::kEarliest ? "s/earliest"
                                                     : "s/changelog_index";
}

// Set while the store may hold two entries of one key at one version (a block written again at
// a version already written: genesis and block 1 share version 1, and a replayed ingest). Such a
// pair is not two versions, but the compaction that drops the older one counts it as one.
constexpr char kRewriteMarker[] = "s/version_rewritten";
// Present from just before an ingest until its markers are written: a crash in between makes the
// block replay, which ingests the same entries again.
constexpr char kIngestingMarker[] = "s/ingesting";

class UdtIterator final : public MvccIterator {
 public:
  UdtIterator(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, std::string prefix, uint64_t version,
              std::optional<std::string_view> start, std::optional<std::string_view> end, bool reverse)
      : prefix_(std::move(prefix)), reverse_(reverse), ts_(Timestamp(version)) {
    lower_ = prefix_;
    if (start) lower_.append(*start);
    upper_ = end ? prefix_ + std::string(*end) : encoding::PrefixEnd(prefix_);
    ts_slice_ = rocksdb::Slice(ts_);
    lower_slice_ = rocksdb::Slice(lower_);
    upper_slice_ = rocksdb::Slice(upper_);
    rocksdb::ReadOptions ro;
    ro.timestamp = &ts_slice_;
    ro.iterate_lower_bound = &lower_slice_;
    ro.iterate_upper_bound = &upper_slice_;
    it_.reset(db->NewIterator(ro, cf));
    if (reverse_) {
      it_->SeekToLast();
    } else {
      it_->SeekToFirst();
    }
    ThrowIfError(it_->status(), "iterator");
  }

  bool Valid() const override { return it_->Valid(); }
  std::string_view key() const override { return View(it_->key()).substr(prefix_.size()); }
  std::string_view value() const override { return View(it_->value()); }
  void Next() override {
    if (!it_->Valid()) return;  // RocksDB asserts on stepping an exhausted iterator
    if (reverse_) {
      it_->Prev();
    } else {
      it_->Next();
    }
    ThrowIfError(it_->status(), "iterator");
  }

 private:
  std::string prefix_;
  bool reverse_;
  std::string ts_, lower_, upper_;
  rocksdb::Slice ts_slice_, lower_slice_, upper_slice_;
  std::unique_ptr<rocksdb::Iterator> it_;
};

// Walks every version: with iter_start_ts set, RocksDB yields internal keys
// (user key ‖ timestamp ‖ packed sequence and type), deletion markers included.
class UdtRawIterator final : public RawIterator {
 public:
  UdtRawIterator(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf)
      : ts_(Timestamp(UINT64_MAX)), start_ts_(Timestamp(0)), ts_slice_(ts_), start_ts_slice_(start_ts_) {
    rocksdb::ReadOptions ro;
    ro.timestamp = &ts_slice_;
    ro.iter_start_ts = &start_ts_slice_;
    it_.reset(db->NewIterator(ro, cf));
    it_->SeekToFirst();
  }

  bool Next(RawEntry* entry) override {
    for (; it_->Valid(); it_->Next()) {
      std::string_view internal = View(it_->key());
      if (internal.size() < kTimestampSize + 8) {
        throw Error(ErrorCode::kCorruption, "raw iterator returned a key without timestamp and sequence");
      }
      uint8_t type = static_cast<uint8_t>(internal[internal.size() - 8]);
      if (type != kTypeValue) continue;  // deletions and other markers are not data
      std::string_view user_key = internal.substr(0, internal.size() - 8 - kTimestampSize);
      std::string_view store, key;
      if (!encoding::SplitStoreKey(user_key, &store, &key)) key = user_key;
      entry->store.assign(store);
      entry->key.assign(key);
      entry->value.assign(View(it_->value()));
      entry->version = encoding::DecodeFixed64LE(internal.data() + user_key.size());
      it_->Next();
      return true;
    }
    ThrowIfError(it_->status(), "raw iterator");
    return false;
  }

 private:
  static constexpr uint8_t kTypeValue = 0x1;
  std::string ts_, start_ts_;
  rocksdb::Slice ts_slice_, start_ts_slice_;
  std::unique_ptr<rocksdb::Iterator> it_;
};

class RocksdbLayout final : public LayoutEngine {
 public:
  RocksdbLayout(const std::string& dir, const StoreOptions& options)
      : dir_(dir), log_only_stores_(options.log_only_stores) {
    rocksdb::Options o = BaseOptions(options, /*whole_key_filtering=*/true, &statistics_);
    o.create_missing_column_families = true;
    o.memtable_prefix_bloom_size_ratio = 0;
    rocksdb::ColumnFamilyOptions data_options(o);
    data_options.comparator = rocksdb::BytewiseComparatorWithU64Ts();
    data_options.memtable_prefix_bloom_size_ratio = 0.1;
    data_options.memtable_whole_key_filtering = true;
    data_options_ = rocksdb::Options(rocksdb::DBOptions(o), data_options);
    db_options_ = rocksdb::DBOptions(o);
    families_ = {
        {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions(o)},
        {kDataFamily, data_options},
    };
    std::vector<rocksdb::ColumnFamilyDescriptor> families = families_;
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    if (options.read_only) {
      // A crash while the store was first created can leave it without its data family yet:
      // read-only, that is an empty store (a read-write open creates the family).
      std::vector<std::string> existing;
      ThrowIfError(rocksdb::DB::ListColumnFamilies(rocksdb::DBOptions(o), dir, &existing), "list column families of " + dir);
      if (std::find(existing.begin(), existing.end(), kDataFamily) == existing.end()) families.pop_back();
      ThrowIfStateStoreOpenFailed(rocksdb::DB::OpenForReadOnly(rocksdb::DBOptions(o), dir, families, &handles, &raw), dir);
    } else {
      ClearIngestLeftovers(dir_);
      ThrowIfStateStoreOpenFailed(rocksdb::DB::Open(rocksdb::DBOptions(o), dir, families, &handles, &raw), dir);
    }
    db_.reset(raw);
    default_cf_ = handles[0];
    data_cf_ = handles.size() > 1 ? handles[1] : nullptr;
    last_version_ = ReadMarker(Marker::kLatest);
    may_hold_rewrites_ = HasMarker(kRewriteMarker);
    if (!options.read_only && HasMarker(kIngestingMarker)) {
      rocksdb::WriteBatch batch;
      ThrowIfError(batch.Put(default_cf_, kRewriteMarker, ""), "batch put");
      ThrowIfError(batch.Delete(default_cf_, kIngestingMarker), "batch delete");
      ThrowIfError(db_->Write(rocksdb::WriteOptions(), &batch), "record an interrupted ingest");
      may_hold_rewrites_ = true;
    }
  }

  ~RocksdbLayout() override {
    rocksdb::Status s = DestroyHandles();
    if (!s.ok()) std::fprintf(stderr, "StrataDB: releasing column families failed: %s\n", s.ToString().c_str());
  }

  uint64_t WriteEntry(uint64_t version, std::string_view entry, uint64_t latest, uint64_t changelog_index) override {
    SortedBlock block(entry, log_only_stores_);
    std::string ts = Timestamp(version);
    auto slice = [](std::string_view s) { return rocksdb::Slice(s.data(), s.size()); };
    const bool rewrite = version <= last_version_;
    last_version_ = std::max(last_version_, version);
    if (block.pairs().size() >= kBulkIngestPairs) {
      rocksdb::WriteBatch before;
      ThrowIfError(before.Put(default_cf_, kIngestingMarker, ""), "batch put");
      WriteNotingRewrite(&before, rewrite, "mark ingest at version " + std::to_string(version));
      IngestSortedFile(db_.get(), data_cf_, data_options_, dir_, "block-" + std::to_string(version), [&](rocksdb::SstFileWriter& w) {
        for (const auto& pair : block.pairs()) {
          if (pair.value) {
            ThrowIfError(w.Put(slice(pair.user_key), ts, slice(*pair.value)), "ingest file put");
          } else {
            ThrowIfError(w.Delete(slice(pair.user_key), ts), "ingest file delete");
          }
        }
      });
      // A crash before these markers only makes the block replay, which rewrites identical data.
      rocksdb::WriteBatch markers;
      ThrowIfError(markers.Put(default_cf_, MarkerKey(Marker::kLatest), Timestamp(latest)), "batch put");
      ThrowIfError(markers.Put(default_cf_, MarkerKey(Marker::kAppliedIndex), Timestamp(changelog_index)), "batch put");
      ThrowIfError(markers.Delete(default_cf_, kIngestingMarker), "batch delete");
      ThrowIfError(db_->Write(rocksdb::WriteOptions(), &markers), "write markers");
      return block.logical_bytes();
    }
    rocksdb::WriteBatch batch(block.payload_bytes() + block.pairs().size() * 24 + 64);
    for (const auto& pair : block.pairs()) {
      if (pair.value) {
        ThrowIfError(batch.Put(data_cf_, slice(pair.user_key), ts, slice(*pair.value)), "batch put");
      } else {
        ThrowIfError(batch.Delete(data_cf_, slice(pair.user_key), ts), "batch delete");
      }
    }
    ThrowIfError(batch.Put(default_cf_, MarkerKey(Marker::kLatest), Timestamp(latest)), "batch put");
    ThrowIfError(batch.Put(default_cf_, MarkerKey(Marker::kAppliedIndex), Timestamp(changelog_index)), "batch put");
    WriteNotingRewrite(&batch, rewrite, "write block at version " + std::to_string(version));
    return block.logical_bytes();
  }

  void Read(std::string_view store, uint64_t version, const std::string_view* keys, size_t count,
            ValueSink& sink) override {
    if (data_cf_ == nullptr) return;  // read-only view of a store created without data yet
    std::string ts = Timestamp(version);
    rocksdb::Slice ts_slice(ts);
    rocksdb::ReadOptions ro;
    ro.timestamp = &ts_slice;
    if (count == 1) {
      std::string full;
      encoding::AppendStoreKey(&full, store, keys[0]);
      rocksdb::PinnableSlice value;
      rocksdb::Status s = db_->Get(ro, data_cf_, full, &value);
      if (s.IsNotFound()) return;
      ThrowIfError(s, "get");
      sink.Found(0, View(value));
      return;
    }
    std::vector<std::string> full(count);
    std::vector<rocksdb::Slice> slices(count);
    for (size_t i = 0; i < count; ++i) {
      encoding::AppendStoreKey(&full[i], store, keys[i]);
      slices[i] = full[i];
    }
    std::vector<rocksdb::PinnableSlice> values(count);
    std::vector<rocksdb::Status> statuses(count);
    db_->MultiGet(ro, data_cf_, count, slices.data(), values.data(), statuses.data());
    for (size_t i = 0; i < count; ++i) {
      if (statuses[i].IsNotFound()) continue;
      ThrowIfError(statuses[i], "get many");
      sink.Found(i, View(values[i]));
    }
  }

  std::unique_ptr<MvccIterator> NewIterator(std::string_view store, uint64_t version,
                                            std::optional<std::string_view> start, std::optional<std::string_view> end,
                                            bool reverse) override {
    if (data_cf_ == nullptr) return std::make_unique<EmptyIterator>();
    return std::make_unique<UdtIterator>(db_.get(), data_cf_, encoding::StorePrefix(store), version, start, end,
                                         reverse);
  }

  std::unique_ptr<RawIterator> NewRawIterator() override {
    if (data_cf_ == nullptr) return std::make_unique<EmptyRawIterator>();
    return std::make_unique<UdtRawIterator>(db_.get(), data_cf_);
  }

  uint64_t ReadMarker(Marker marker) override {
    std::string value;
    rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), default_cf_, MarkerKey(marker), &value);
    if (s.IsNotFound()) return 0;
    ThrowIfError(s, "read version marker");
    if (value.size() != 8) throw Error(ErrorCode::kCorruption, "version marker is not 8 bytes long");
    return encoding::DecodeFixed64LE(value.data());
  }

  void WriteMarker(Marker marker, uint64_t version) override {
    ThrowIfError(db_->Put(rocksdb::WriteOptions(), default_cf_, MarkerKey(marker), Timestamp(version)),
                 "write version marker");
  }

  PruneResult Prune(uint64_t version) override {
    // Versions below full_history_ts_low that no read at or above it can see are dropped by
    // compaction; the newest version at or below `version` stays visible at version + 1.
    // Order matters: flushed first and settled (a compaction the flush starts would otherwise
    // hide the bottom level from the forced compaction below), then the floor is raised so
    // every drop happens in a compaction, where RocksDB counts it.
    ThrowIfError(db_->Flush(rocksdb::FlushOptions(), data_cf_), "flush before prune");
    while (BackgroundWorkPending()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    DropRewrittenEntries();
    uint64_t dropped_before = DroppedVersions();
    std::string ts_low = Timestamp(version + 1);
    // RocksDB refuses to lower the mark with InvalidArgument: an earlier, higher prune stands.
    // (GetFullHistoryTsLow is avoided: this RocksDB build asserts when the mark was never set.)
    rocksdb::Status raised = db_->IncreaseFullHistoryTsLow(data_cf_, ts_low);
    if (!raised.IsInvalidArgument()) ThrowIfError(raised, "raise full_history_ts_low");
    rocksdb::Slice ts_low_slice(ts_low);
    rocksdb::CompactRangeOptions options;
    options.full_history_ts_low = &ts_low_slice;
    options.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    ThrowIfError(db_->CompactRange(options, data_cf_, nullptr, nullptr), "compact pruned history");
    PruneResult result;
    result.versions_deleted = DroppedVersions() - dropped_before;
    return result;
  }

  void RollbackTo(uint64_t version) override {
    // Versions cannot be deleted one by one under user-defined timestamps (a deletion at a
    // version hides older ones too), so the DB is reopened with RocksDB's history trim, which
    // compacts away every entry newer than the trim timestamp.
    ThrowIfError(db_->Flush(rocksdb::FlushOptions(), data_cf_), "flush before rollback");
    ThrowIfError(DestroyHandles(), "release column families");
    ThrowIfError(db_->Close(), "close store before rollback");
    db_.reset();
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    rocksdb::Status s = rocksdb::DB::OpenAndTrimHistory(db_options_, dir_, families_, &handles, &raw, Timestamp(version));
    ThrowIfStateStoreOpenFailed(s, dir_);
    db_.reset(raw);
    default_cf_ = handles[0];
    data_cf_ = handles[1];
    last_version_ = std::min(last_version_, version);
  }

  void Import(uint64_t version, const std::vector<ImportItem>& items, uint64_t latest) override {
    SortedImport sorted = SortImport(items);
    if (!sorted.order.empty()) {
      const std::string ts = Timestamp(version);
      const std::string name = "import-" + std::to_string(version) + "-" + std::to_string(import_files_++);
      IngestSortedFile(db_.get(), data_cf_, data_options_, dir_, name, [&](rocksdb::SstFileWriter& w) {
        for (uint32_t i : sorted.order) {
          const std::string& key = sorted.keys[i];
          const std::string& value = items[i].value;
          ThrowIfError(w.Put(rocksdb::Slice(key), ts, rocksdb::Slice(value)), "import file put");
        }
      });
    }
    ThrowIfError(db_->Put(ImportWriteOptions(), default_cf_, MarkerKey(Marker::kLatest), Timestamp(latest)), "import marker");
  }

  void Compact() override {
    ThrowIfError(db_->CompactRange(rocksdb::CompactRangeOptions(), data_cf_, nullptr, nullptr), "compact");
  }

  void ReleaseCaches() override {}

  void Close() override {
    if (!db_) return;
    ThrowIfError(DestroyHandles(), "release column families");
    ThrowIfError(db_->Close(), "close store");
    db_.reset();
  }

 private:
  bool HasMarker(const char* key) {
    std::string value;
    rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), default_cf_, key, &value);
    if (s.IsNotFound()) return false;
    ThrowIfError(s, std::string("read marker ") + key);
    return true;
  }

  /// Writes `batch`, first adding the rewrite marker when it writes a version written before.
  void WriteNotingRewrite(rocksdb::WriteBatch* batch, bool rewrite, const std::string& what) {
    if (!rewrite) {
      ThrowIfError(db_->Write(rocksdb::WriteOptions(), batch), what);
      return;
    }
    std::lock_guard<std::mutex> lock(rewrite_mu_);
    ThrowIfError(batch->Put(default_cf_, kRewriteMarker, ""), "batch put");
    ThrowIfError(db_->Write(rocksdb::WriteOptions(), batch), what);
    may_hold_rewrites_ = true;
    ++rewrite_generation_;
  }

  /// Compacts away the older entry of each key written twice at one version, so that the
  /// counted compaction of a prune drops only versions.
  void DropRewrittenEntries() {
    uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(rewrite_mu_);
      if (!may_hold_rewrites_) return;
      generation = rewrite_generation_;
    }
    rocksdb::CompactRangeOptions options;
    options.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
    ThrowIfError(db_->CompactRange(options, data_cf_, nullptr, nullptr), "compact entries written twice");
    while (BackgroundWorkPending()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::lock_guard<std::mutex> lock(rewrite_mu_);
    if (generation != rewrite_generation_) return;  // written again meanwhile: the next prune compacts
    ThrowIfError(db_->Delete(rocksdb::WriteOptions(), default_cf_, kRewriteMarker), "clear rewrite marker");
    may_hold_rewrites_ = false;
  }

  uint64_t DroppedVersions() const {
    // Versions hidden by a newer one below full_history_ts_low count as "newer entry" drops.
    if (!statistics_) return 0;
    return statistics_->getTickerCount(rocksdb::COMPACTION_KEY_DROP_OBSOLETE) +
           statistics_->getTickerCount(rocksdb::COMPACTION_KEY_DROP_NEWER_ENTRY);
  }

  rocksdb::Status DestroyHandles() {
    rocksdb::Status result;
    if (!db_) return result;
    for (auto** handle : {&default_cf_, &data_cf_}) {
      if (*handle) {
        rocksdb::Status s = db_->DestroyColumnFamilyHandle(*handle);
        if (result.ok()) result = s;
      }
      *handle = nullptr;
    }
    return result;
  }

  std::string dir_;
  std::vector<std::string> log_only_stores_;
  rocksdb::DBOptions db_options_;  // with families_, what RollbackTo reopens the DB with
  std::vector<rocksdb::ColumnFamilyDescriptor> families_;
  rocksdb::Options data_options_;  // options of `state_storage`, for writing ingest files
  // Owned by db_; destroyed through DestroyColumnFamilyHandle before it closes.
  rocksdb::ColumnFamilyHandle* default_cf_ = nullptr;
  rocksdb::ColumnFamilyHandle* data_cf_ = nullptr;
  uint64_t last_version_ = 0;  // highest version written; only the writer thread touches it
  uint64_t import_files_ = 0;  // names each imported file apart
  std::mutex rewrite_mu_;      // the rewrite marker, its flag and generation
  bool may_hold_rewrites_ = false;
  uint64_t rewrite_generation_ = 0;
};

}  // namespace

std::unique_ptr<LayoutEngine> OpenRocksdbLayout(const std::string& dir, const StoreOptions& options) {
  return std::make_unique<RocksdbLayout>(dir, options);
}

}  // namespace strata
