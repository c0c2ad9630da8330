// The `pebbledb` layout: Pebble's MVCC key encoding on RocksDB under a custom comparator.
#include <rocksdb/write_batch.h>

#include <mutex>

#include "encoding.h"
#include "layout_engine.h"
#include "mvcc_comparator.h"
#include "sorted_block.h"

namespace strata {

namespace {

using encoding::MvccKey;
using encoding::SplitMvccKey;

std::string_view View(const rocksdb::Slice& s) { return {s.data(), s.size()}; }
rocksdb::Slice ToSlice(std::string_view s) { return {s.data(), s.size()}; }

// Metadata keys are stored at version 0, i.e. with an empty timestamp section.
std::string MarkerKey(LayoutEngine::Marker marker) {
  const char* name = marker == LayoutEngine::Marker::kLatest     ? "s/_latest"
                     : marker == LayoutEngine::Marker::kEarliest ? "s/_earliest"
                                                                 : "s/_changelog_index";
  std::string key;
  encoding::AppendMvccKey(&key, name, 0);
  return key;
}

std::string VersionBytes(uint64_t version) {
  std::string v;
  encoding::PutFixed64LE(&v, version);
  return v;
}

// Number of Next() calls tried before a Seek when skipping the older versions of a key.
constexpr int kNextsBeforeSeek = 4;
// Deletes per prune batch.
constexpr size_t kPruneBatch = 10000;

// A full scan of the store key space that bypasses the block cache, for Prune and RollbackTo.
// The bound strings live here because the ReadOptions (and so the iterator) point at them.
class StoreKeySpaceScan {
 public:
  explicit StoreKeySpaceScan(rocksdb::DB* db)
      : lower_(encoding::kStoreKeySpace),
        upper_(encoding::PrefixEnd(encoding::kStoreKeySpace)),
        lower_slice_(lower_),
        upper_slice_(upper_) {
    rocksdb::ReadOptions ro;
    ro.total_order_seek = true;
    ro.fill_cache = false;
    ro.iterate_lower_bound = &lower_slice_;
    ro.iterate_upper_bound = &upper_slice_;
    it_.reset(db->NewIterator(ro));
  }
  StoreKeySpaceScan(const StoreKeySpaceScan&) = delete;
  StoreKeySpaceScan& operator=(const StoreKeySpaceScan&) = delete;

  rocksdb::Iterator* operator->() const { return it_.get(); }
  const rocksdb::Slice& lower() const { return lower_slice_; }
  const rocksdb::Slice& upper() const { return upper_slice_; }

  // Throws if the scan ended on an error rather than at the upper bound, then drops the
  // iterator so the files it pins can go before a compaction; the bounds stay usable.
  void Finish(const char* action) {
    ThrowIfError(it_->status(), action);
    it_.reset();
  }

 private:
  std::string lower_, upper_;
  rocksdb::Slice lower_slice_, upper_slice_;
  std::unique_ptr<rocksdb::Iterator> it_;
};

class PebbleIterator final : public MvccIterator {
 public:
  PebbleIterator(rocksdb::DB* db, std::string prefix, uint64_t version, std::optional<std::string_view> start,
                 std::optional<std::string_view> end, bool reverse)
      : prefix_(std::move(prefix)), version_(version), reverse_(reverse) {
    lower_ = prefix_;
    if (start) lower_.append(*start);
    encoding::AppendMvccTrailer(&lower_, 0);
    if (end) {
      upper_ = prefix_;
      upper_.append(*end);
    } else {
      upper_ = encoding::PrefixEnd(prefix_);
    }
    encoding::AppendMvccTrailer(&upper_, 0);
    lower_slice_ = ToSlice(lower_);
    upper_slice_ = ToSlice(upper_);
    rocksdb::ReadOptions ro;
    ro.total_order_seek = true;
    ro.iterate_lower_bound = &lower_slice_;
    ro.iterate_upper_bound = &upper_slice_;
    it_.reset(db->NewIterator(ro));
    if (reverse_) {
      it_->SeekToLast();
      FindVisibleReverse();
    } else {
      it_->Seek(lower_slice_);
      FindVisibleForward();
    }
  }

  bool Valid() const override { return valid_; }
  std::string_view key() const override { return std::string_view(user_key_).substr(prefix_.size()); }
  std::string_view value() const override { return value_; }

  void Next() override {
    if (!valid_) return;
    if (reverse_) {
      SeekBeforeUserKey(user_key_);
      FindVisibleReverse();
    } else {
      SkipUserKeyForward(user_key_);
      FindVisibleForward();
    }
  }

 private:
  // Emits the entry under the iterator if it is live; returns whether it did.
  bool EmitIfLive(std::string_view user_key) {
    std::string_view raw;
    if (!encoding::UnwrapValue(View(it_->value()), &raw)) return false;
    user_key_.assign(user_key);
    value_.assign(raw);
    valid_ = true;
    return true;
  }

  void FindVisibleForward() {
    valid_ = false;
    while (it_->Valid()) {
      MvccKey k = SplitMvccKey(View(it_->key()));
      if (k.timestamp.empty()) {  // not a data key
        it_->Next();
        continue;
      }
      if (k.version() > version_) {
        std::string user_key(k.user_key);
        seek_ = user_key;
        encoding::AppendMvccTrailer(&seek_, version_);
        it_->Seek(seek_);
        if (!it_->Valid()) break;
        k = SplitMvccKey(View(it_->key()));
        if (k.user_key != user_key) continue;  // no version at or below the target
        // Version 0 seeks with an empty timestamp, which sorts before every stored version.
        if (k.version() > version_) {
          SkipUserKeyForward(user_key);
          continue;
        }
      }
      if (EmitIfLive(k.user_key)) return;
      SkipUserKeyForward(std::string(k.user_key));
    }
    ThrowIfError(it_->status(), "iterator");
  }

  // Moves to the first entry of the next user key after `user_key`.
  void SkipUserKeyForward(const std::string& user_key) {
    for (int i = 0; i < kNextsBeforeSeek; ++i) {
      it_->Next();
      if (!it_->Valid() || SplitMvccKey(View(it_->key())).user_key != user_key) return;
    }
    // uk ‖ 0x00 with an empty timestamp is the smallest key above every version of uk.
    seek_ = user_key;
    seek_.push_back('\0');
    encoding::AppendMvccTrailer(&seek_, 0);
    it_->Seek(seek_);
  }

  // Moves to the last entry whose user key is below `user_key`.
  void SeekBeforeUserKey(const std::string& user_key) {
    seek_ = user_key;
    encoding::AppendMvccTrailer(&seek_, 0);
    it_->SeekForPrev(seek_);
  }

  void FindVisibleReverse() {
    valid_ = false;
    while (it_->Valid()) {
      MvccKey k = SplitMvccKey(View(it_->key()));
      std::string user_key(k.user_key);
      if (!k.timestamp.empty()) {
        seek_ = user_key;
        encoding::AppendMvccTrailer(&seek_, version_);
        it_->Seek(seek_);
        if (it_->Valid()) {
          MvccKey found = SplitMvccKey(View(it_->key()));
          if (found.user_key == user_key && !found.timestamp.empty() && found.version() <= version_ &&
              EmitIfLive(user_key)) {
            return;
          }
        }
      }
      SeekBeforeUserKey(user_key);
    }
    ThrowIfError(it_->status(), "reverse iterator");
  }

  std::string prefix_;
  uint64_t version_;
  bool reverse_;
  std::string lower_, upper_;
  rocksdb::Slice lower_slice_, upper_slice_;
  std::unique_ptr<rocksdb::Iterator> it_;
  std::string seek_;
  bool valid_ = false;
  std::string user_key_;  // full user key of the current entry, store prefix included
  std::string value_;
};

class PebbleRawIterator final : public RawIterator {
 public:
  explicit PebbleRawIterator(rocksdb::DB* db) {
    rocksdb::ReadOptions ro;
    ro.total_order_seek = true;
    it_.reset(db->NewIterator(ro));
    it_->SeekToFirst();
  }

  bool Next(RawEntry* entry) override {
    for (; it_->Valid(); it_->Next()) {
      MvccKey k = SplitMvccKey(View(it_->key()));
      if (k.timestamp.empty()) continue;  // metadata
      std::string_view raw;
      if (!encoding::UnwrapValue(View(it_->value()), &raw)) continue;  // tombstone
      std::string_view store, key;
      if (!encoding::SplitStoreKey(k.user_key, &store, &key)) key = k.user_key;
      entry->store.assign(store);
      entry->key.assign(key);
      entry->value.assign(raw);
      entry->version = k.version();
      it_->Next();
      return true;
    }
    ThrowIfError(it_->status(), "raw iterator");
    return false;
  }

 private:
  std::unique_ptr<rocksdb::Iterator> it_;
};

class PebbleLayout final : public LayoutEngine {
 public:
  PebbleLayout(const std::string& dir, const StoreOptions& options)
      : dir_(dir), log_only_stores_(options.log_only_stores) {
    options_ = BaseOptions(options, /*whole_key_filtering=*/false, &statistics_);
    options_.comparator = MvccComparator();
    options_.prefix_extractor = NewMvccUserKeyExtractor();
    rocksdb::DB* raw = nullptr;
    if (options.read_only) {
      ThrowIfStateStoreOpenFailed(rocksdb::DB::OpenForReadOnly(options_, dir, &raw), dir);
    } else {
      ClearIngestLeftovers(dir_);
      ThrowIfStateStoreOpenFailed(rocksdb::DB::Open(options_, dir, &raw), dir);
    }
    db_.reset(raw);
  }

  ~PebbleLayout() override { ReleaseCaches(); }

  uint64_t WriteEntry(uint64_t version, std::string_view entry, uint64_t latest, uint64_t changelog_index) override {
    SortedBlock block(entry, log_only_stores_);
    std::string key, value;
    auto encode = [&](const SortedBlock::Pair& pair) {
      key.assign(pair.user_key);
      encoding::AppendMvccTrailer(&key, version);
      value.clear();
      if (pair.value) {
        encoding::AppendLiveValue(&value, *pair.value);
      } else {
        encoding::AppendTombstoneValue(&value, version);
      }
    };
    if (block.pairs().size() >= kBulkIngestPairs) {
      IngestSortedFile(db_.get(), db_->DefaultColumnFamily(), options_, dir_, "block-" + std::to_string(version), [&](rocksdb::SstFileWriter& w) {
        for (const auto& pair : block.pairs()) {
          encode(pair);
          ThrowIfError(w.Put(key, value), "ingest file put");
        }
      });
      // A crash before these markers only makes the block replay, which rewrites identical data.
      rocksdb::WriteBatch markers;
      ThrowIfError(markers.Put(MarkerKey(Marker::kLatest), VersionBytes(latest)), "batch put");
      ThrowIfError(markers.Put(MarkerKey(Marker::kAppliedIndex), VersionBytes(changelog_index)), "batch put");
      ThrowIfError(db_->Write(rocksdb::WriteOptions(), &markers), "write markers");
      return block.logical_bytes();
    }
    rocksdb::WriteBatch batch(block.payload_bytes() + block.pairs().size() * 24 + 64);
    for (const auto& pair : block.pairs()) {
      encode(pair);
      ThrowIfError(batch.Put(key, value), "batch put");
    }
    ThrowIfError(batch.Put(MarkerKey(Marker::kLatest), VersionBytes(latest)), "batch put");
    ThrowIfError(batch.Put(MarkerKey(Marker::kAppliedIndex), VersionBytes(changelog_index)), "batch put");
    ThrowIfError(db_->Write(rocksdb::WriteOptions(), &batch), "write block at version " + std::to_string(version));
    return block.logical_bytes();
  }

  void Read(std::string_view store, uint64_t version, const std::string_view* keys, size_t count,
            ValueSink& sink) override {
    WithReadIterator([&](rocksdb::Iterator* it, std::string* buf) {
      for (size_t i = 0; i < count; ++i) {
        std::string_view value;
        if (Lookup(it, buf, store, version, keys[i], &value)) sink.Found(i, value);
      }
    });
  }

  std::unique_ptr<MvccIterator> NewIterator(std::string_view store, uint64_t version,
                                            std::optional<std::string_view> start, std::optional<std::string_view> end,
                                            bool reverse) override {
    return std::make_unique<PebbleIterator>(db_.get(), encoding::StorePrefix(store), version, start, end, reverse);
  }

  std::unique_ptr<RawIterator> NewRawIterator() override { return std::make_unique<PebbleRawIterator>(db_.get()); }

  uint64_t ReadMarker(Marker marker) override {
    std::string value;
    rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), MarkerKey(marker), &value);
    if (s.IsNotFound()) return 0;
    ThrowIfError(s, "read version marker");
    if (value.size() != 8) throw Error(ErrorCode::kCorruption, "version marker is not 8 bytes long");
    return encoding::DecodeFixed64LE(value.data());
  }

  void WriteMarker(Marker marker, uint64_t version) override {
    ThrowIfError(db_->Put(rocksdb::WriteOptions(), MarkerKey(marker), VersionBytes(version)), "write version marker");
  }

  PruneResult Prune(uint64_t version) override {
    PruneResult result;
    StoreKeySpaceScan scan(db_.get());
    rocksdb::WriteBatch batch;
    std::string current, first_deleted, last_deleted;
    bool kept = false;  // whether the newest version <= `version` of `current` was seen
    for (scan->SeekToFirst(); scan->Valid(); scan->Next()) {
      MvccKey k = SplitMvccKey(View(scan->key()));
      if (k.timestamp.empty()) continue;
      if (k.user_key != current) {
        current.assign(k.user_key);
        kept = false;
      }
      if (k.version() > version) continue;
      if (!kept) {
        kept = true;
        std::string_view raw;
        // A live newest version stays; a tombstone hides everything older, so it goes too.
        if (encoding::UnwrapValue(View(scan->value()), &raw)) continue;
      }
      ThrowIfError(batch.Delete(scan->key()), "batch delete");
      if (first_deleted.empty()) first_deleted.assign(scan->key().data(), scan->key().size());
      last_deleted.assign(scan->key().data(), scan->key().size());
      ++result.versions_deleted;
      if (batch.Count() >= kPruneBatch) {
        ThrowIfError(db_->Write(rocksdb::WriteOptions(), &batch), "prune write");
        batch.Clear();
      }
    }
    scan.Finish("prune scan");
    if (batch.Count() > 0) ThrowIfError(db_->Write(rocksdb::WriteOptions(), &batch), "prune write");
    if (result.versions_deleted > 0) {
      rocksdb::Slice begin(first_deleted), end(last_deleted);
      ThrowIfError(db_->CompactRange(rocksdb::CompactRangeOptions(), &begin, &end), "compact pruned range");
    }
    return result;
  }

  void RollbackTo(uint64_t version) override {
    ReleaseCaches();
    StoreKeySpaceScan scan(db_.get());
    rocksdb::WriteBatch batch;
    bool deleted = false;
    for (scan->SeekToFirst(); scan->Valid(); scan->Next()) {
      MvccKey k = SplitMvccKey(View(scan->key()));
      if (k.timestamp.empty() || k.version() <= version) continue;
      ThrowIfError(batch.Delete(scan->key()), "batch delete");
      deleted = true;
      if (batch.Count() >= kPruneBatch) {
        ThrowIfError(db_->Write(rocksdb::WriteOptions(), &batch), "rollback write");
        batch.Clear();
      }
    }
    scan.Finish("rollback scan");
    if (batch.Count() > 0) ThrowIfError(db_->Write(rocksdb::WriteOptions(), &batch), "rollback write");
    if (deleted) ThrowIfError(db_->CompactRange(rocksdb::CompactRangeOptions(), &scan.lower(), &scan.upper()), "compact rolled-back range");
  }

  void Import(uint64_t version, const std::vector<ImportItem>& items, uint64_t latest) override {
    SortedImport sorted = SortImport(items);
    if (!sorted.order.empty()) {
      const std::string name = "import-" + std::to_string(version) + "-" + std::to_string(import_files_++);
      IngestSortedFile(db_.get(), db_->DefaultColumnFamily(), options_, dir_, name, [&](rocksdb::SstFileWriter& w) {
        std::string key, value;
        for (uint32_t i : sorted.order) {
          key.assign(sorted.keys[i]);
          encoding::AppendMvccTrailer(&key, version);
          value.clear();
          encoding::AppendLiveValue(&value, items[i].value);
          ThrowIfError(w.Put(key, value), "import file put");
        }
      });
    }
    ThrowIfError(db_->Put(ImportWriteOptions(), MarkerKey(Marker::kLatest), VersionBytes(latest)), "import marker");
  }

  void Compact() override {
    ThrowIfError(db_->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr), "compact");
  }

  void ReleaseCaches() override {
    std::lock_guard<std::mutex> lock(cache_mu_);
    cached_.reset();
  }

  void Close() override {
    ReleaseCaches();
    if (db_) ThrowIfError(db_->Close(), "close store");
    db_.reset();
  }

 private:
  // Seeks the newest version of `key` at or below `version`; `value` views the iterator.
  static bool Lookup(rocksdb::Iterator* it, std::string* buf, std::string_view store, uint64_t version,
                     std::string_view key, std::string_view* value) {
    std::string& seek = *buf;
    seek.clear();
    encoding::AppendStoreKey(&seek, store, key);
    size_t user_len = seek.size();
    encoding::AppendMvccTrailer(&seek, version);
    it->Seek(seek);
    if (!it->Valid()) {
      ThrowIfError(it->status(), "get");
      return false;
    }
    MvccKey found = SplitMvccKey(View(it->key()));
    if (found.timestamp.empty() || found.user_key != std::string_view(seek).substr(0, user_len)) return false;
    // Version 0 seeks with an empty timestamp, which sorts before every stored version.
    if (found.version() > version) return false;
    return encoding::UnwrapValue(View(it->value()), value);
  }

  // Runs `fn` with the cached point-read iterator, refreshed if the DB moved on. A caller
  // that finds the cache busy (another thread is reading) gets a private iterator.
  template <typename Fn>
  void WithReadIterator(Fn&& fn) {
    std::unique_lock<std::mutex> lock(cache_mu_, std::try_to_lock);
    if (!lock.owns_lock()) {
      std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions()));
      std::string buf;
      fn(it.get(), &buf);
      return;
    }
    rocksdb::SequenceNumber seq = db_->GetLatestSequenceNumber();
    // Refreshing now and then also unpins memtables and files that flushes and compactions
    // have made obsolete since the iterator was created.
    bool stale = seq != cached_seq_ || ++reads_since_refresh_ >= kReadsBetweenRefreshes;
    if (!cached_) {
      cached_.reset(db_->NewIterator(rocksdb::ReadOptions()));
      reads_since_refresh_ = 0;
    } else if (stale) {
      if (!cached_->Refresh().ok()) cached_.reset(db_->NewIterator(rocksdb::ReadOptions()));
      reads_since_refresh_ = 0;
    }
    cached_seq_ = seq;
    fn(cached_.get(), &lookup_buf_);
  }

  std::string dir_;
  std::vector<std::string> log_only_stores_;
  rocksdb::Options options_;
  uint64_t import_files_ = 0;  // names each imported file apart
  std::mutex cache_mu_;
  std::unique_ptr<rocksdb::Iterator> cached_;
  rocksdb::SequenceNumber cached_seq_ = 0;
  uint32_t reads_since_refresh_ = 0;
  static constexpr uint32_t kReadsBetweenRefreshes = 1 << 16;
  std::string lookup_buf_;
};

}  // namespace

std::unique_ptr<LayoutEngine> OpenPebbleLayout(const std::string& dir, const StoreOptions& options) {
  return std::make_unique<PebbleLayout>(dir, options);
}

}  // namespace strata
