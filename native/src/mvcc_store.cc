#include "strata/mvcc_store.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <thread>

#include "changelog.h"
#include "layout_engine.h"
#include "strata/changelog_entry.h"

namespace fs = std::filesystem;

namespace strata {

namespace {

constexpr char kLayoutFile[] = "STRATA_LAYOUT";
constexpr uint64_t kMinChangelogEntries = 1000;
// Appends between two attempts to drop old changelog segments.
constexpr int kTruncateEvery = 32;

// Genesis writes arrive at version 0; version 0 is reserved for metadata, so they go to 1.
uint64_t StoredVersion(uint64_t version) { return version == 0 ? 1 : version; }

// The lowest raw entry version that is stored at `version` or above (0 and 1 both map to 1).
uint64_t MinRawVersion(uint64_t version) { return version <= 1 ? 0 : version; }

Error ClosedError() {
  return Error(ErrorCode::kClosed, "the state store is closed; open it again before using it");
}

Error ReadOnlyError() {
  return Error(ErrorCode::kNotSupported, "the state store was opened read-only; open it read-write to change it");
}

// Checks the layout marker of `dir` against `layout`, writing it for a new store.
void CheckLayoutMarker(const std::string& dir, Layout layout, bool create_if_missing) {
  fs::path marker = fs::path(dir) / kLayoutFile;
  std::error_code ec;
  bool has_db = fs::exists(fs::path(dir) / "CURRENT", ec);
  std::string found;
  if (fs::exists(marker, ec)) {
    std::ifstream in(marker);
    std::getline(in, found);
  }
  // An empty marker beside no database is what an older crash mid-write left: a fresh store.
  if (!found.empty() || has_db) {
    if (found.empty()) {
      throw Error(ErrorCode::kLayoutMismatch,
                  "state store directory " + dir + " holds a RocksDB database without a " + kLayoutFile +
                      " marker, so its layout is unknown; point the store at an empty directory or restore the marker");
    }
    if (found != LayoutName(layout)) {
      throw Error(ErrorCode::kLayoutMismatch,
                  "state store directory " + dir + " was written with ss-backend \"" + found +
                      "\" but ss-backend is \"" + LayoutName(layout) + "\"; set ss-backend = \"" + found +
                      "\" in app.toml, or state sync into an empty directory to change backend");
    }
    return;
  }
  if (!create_if_missing) {
    throw Error(ErrorCode::kInvalidArgument, "no state store in " + dir + "; check the path (e.g. <home>/data/pebbledb)");
  }
  fs::create_directories(dir, ec);
  if (ec) throw Error(ErrorCode::kIo, "cannot create state store directory " + dir + ": " + ec.message());
  // Written aside and renamed, so a crash never leaves a half-written marker.
  fs::path temp = fs::path(dir) / (std::string(kLayoutFile) + ".tmp");
  {
    std::ofstream out(temp, std::ios::trunc);
    out << LayoutName(layout) << "\n";
    if (!out) throw Error(ErrorCode::kIo, "cannot write " + temp.string());
  }
  fs::rename(temp, marker, ec);
  if (ec) throw Error(ErrorCode::kIo, "cannot write " + marker.string() + ": " + ec.message());
}

// Something MvccStore::Close must release before the DB goes away.
class StoreResource {
 public:
  virtual ~StoreResource() = default;
  virtual void ReleaseFromStore() = 0;
};

}  // namespace

Layout ParseLayout(std::string_view name) {
  if (name == "pebbledb") return Layout::kPebble;
  if (name == "rocksdb") return Layout::kRocksdb;
  throw Error(ErrorCode::kInvalidArgument,
              "unknown ss-backend \"" + std::string(name) + "\"; use \"pebbledb\" or \"rocksdb\"");
}

const char* LayoutName(Layout layout) { return layout == Layout::kPebble ? "pebbledb" : "rocksdb"; }

class MvccStoreImpl {
 public:
  MvccStoreImpl(std::string dir, const StoreOptions& options) : dir_(std::move(dir)), options_(options) {
    CheckLayoutMarker(dir_, options_.layout, options_.create_if_missing && !options_.read_only);
    engine_ = options_.layout == Layout::kPebble ? OpenPebbleLayout(dir_, options_) : OpenRocksdbLayout(dir_, options_);
    latest_ = engine_->ReadMarker(LayoutEngine::Marker::kLatest);
    earliest_ = engine_->ReadMarker(LayoutEngine::Marker::kEarliest);
    submitted_version_ = latest_;
    keep_entries_ = options_.changelog_keep_entries > 0
                        ? options_.changelog_keep_entries
                        : std::max<uint64_t>(kMinChangelogEntries, std::max(options_.async_write_buffer, 0) + 1);
    if (!options_.read_only && !options_.defer_recovery) Recover();
  }

  // Repairs and replays the changelog, then starts the writer threads.
  void Recover() {
    std::unique_lock<std::shared_mutex> guard(state_mu_);
    CheckOpen();
    if (options_.read_only) throw ReadOnlyError();
    if (recovered_) return;
    changelog_ = std::make_unique<Changelog>((fs::path(dir_) / "changelog").string());
    auto apply = [this](uint64_t index, std::string_view entry) {
      uint64_t version = StoredVersion(ChangelogEntryVersion(entry));
      uint64_t latest = std::max<uint64_t>(latest_, version);
      logical_bytes_ += engine_->WriteEntry(version, entry, latest, index);
      latest_ = latest;
    };
    // Replay resumes right after the last applied entry, whatever its version: genesis (0)
    // and block 1 share a stored version, so versions alone cannot tell what is applied.
    uint64_t applied = engine_->ReadMarker(LayoutEngine::Marker::kAppliedIndex);
    if (changelog_->last_index() < applied) {
      // Everything logged is applied already (the changelog was removed, or lost a torn tail
      // whose block reached the DB): continue numbering after the applied entry.
      changelog_->SkipTo(applied + 1);
    } else {
      changelog_->ReplayAfterIndex(applied, apply);
    }
    applied_index_ = changelog_->last_index();
    submitted_version_ = latest_;
    logger_ = std::thread([this] { LoggerLoop(); });
    applier_ = std::thread([this] { ApplierLoop(); });
    recovered_ = true;
  }

  void ReadChangelog(uint64_t version, const std::function<void(std::string_view)>& fn) {
    std::shared_lock<std::shared_mutex> guard(state_mu_);
    CheckWritable();
    changelog_->ReplayFrom(MinRawVersion(version), fn);
  }

  ~MvccStoreImpl() {
    try {
      Close();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "StrataDB: closing state store %s failed: %s\n", dir_.c_str(), e.what());
    }
  }

  // ---- writes --------------------------------------------------------------------------

  void Submit(std::string entry, WriteCallback done, bool ack_on_apply) {
    std::shared_lock<std::shared_mutex> guard(state_mu_);
    CheckWritable();
    if (entry.size() > kMaxChangelogEntryBytes) {
      throw Error(ErrorCode::kInvalidArgument, "block entry exceeds the 4 GiB changelog entry limit; split it");
    }
    // A malformed entry must never reach the changelog: replay would then fail on every open.
    uint64_t version = StoredVersion(ValidateChangelogEntry(entry));
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) throw ClosedError();  // the writer may already have exited
    if (failure_) throw *failure_;
    // Import and SetLatestVersion raise latest_ without going through this queue.
    uint64_t floor = std::max<uint64_t>(submitted_version_, latest_);
    if (version < floor) {
      throw Error(ErrorCode::kInvalidArgument,
                  "version " + std::to_string(version) + " is below the last written version " + std::to_string(floor) +
                      "; state store versions must not go backwards");
    }
    submitted_version_ = version;
    ++pending_;
    log_queue_.push_back(Job{Job::kEntry, version, std::move(entry), std::move(done),
                             ack_on_apply || options_.async_write_buffer <= 0});
    log_cv_.notify_one();
  }

  void Drain(WriteCallback done) {
    std::shared_lock<std::shared_mutex> guard(state_mu_);
    CheckWritable();
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) throw ClosedError();
    log_queue_.push_back(Job{Job::kBarrier, 0, {}, std::move(done), true});
    log_cv_.notify_one();
  }

  void Wait(const std::function<void(WriteCallback)>& start) {
    auto promise = std::make_shared<std::promise<void>>();
    auto future = promise->get_future();
    start([promise](const Error* error) {
      if (error) {
        promise->set_exception(std::make_exception_ptr(*error));
      } else {
        promise->set_value();
      }
    });
    future.get();
  }

  // ---- reads ---------------------------------------------------------------------------

  void Read(std::string_view store, uint64_t version, const std::string_view* keys, size_t count,
            ValueSink& sink) {
    std::shared_lock<std::shared_mutex> guard(state_mu_);
    CheckOpen();
    for (size_t i = 0; i < count; ++i) CheckRead(store, keys[i]);
    if (version < earliest_) return;
    engine_->Read(store, version, keys, count, sink);
  }

  std::unique_ptr<MvccIterator> NewIterator(std::string_view store, uint64_t version,
                                            std::optional<std::string_view> start,
                                            std::optional<std::string_view> end, bool reverse);
  std::unique_ptr<RawIterator> NewRawIterator();

  // ---- versions and maintenance --------------------------------------------------------

  uint64_t Latest() {
    std::shared_lock<std::shared_mutex> guard(state_mu_);
    CheckOpen();
    return latest_;
  }

  uint64_t Earliest() {
    std::shared_lock<std::shared_mutex> guard(state_mu_);
    CheckOpen();
    return earliest_;
  }

  void RaiseMarker(LayoutEngine::Marker marker, uint64_t version) {
    std::shared_lock<std::shared_mutex> guard(state_mu_);
    CheckWritable();
    std::lock_guard<std::mutex> lock(marker_mu_);
    std::atomic<uint64_t>& cached = marker == LayoutEngine::Marker::kLatest ? latest_ : earliest_;
    if (version <= cached) return;
    engine_->WriteMarker(marker, version);
    cached = version;
  }

  PruneResult Prune(uint64_t version) {
    std::shared_lock<std::shared_mutex> guard(state_mu_);
    CheckWritable();
    if (version == UINT64_MAX) {
      throw Error(ErrorCode::kInvalidArgument, "cannot prune at the maximum version: nothing would remain readable");
    }
    // Pruning below an earlier prune height prunes at that height again (nothing new to drop).
    if (earliest_ > 0) version = std::max<uint64_t>(version, earliest_ - 1);
    guard.unlock();
    // The floor rises before anything is deleted, so no reader sees a half-pruned version.
    RaiseMarker(LayoutEngine::Marker::kEarliest, version + 1);
    guard.lock();
    CheckOpen();
    return engine_->Prune(version);
  }

  void RollbackTo(uint64_t version) {
    Wait([&](WriteCallback done) { Drain(std::move(done)); });
    std::unique_lock<std::shared_mutex> guard(state_mu_);
    CheckWritable();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (failure_) throw *failure_;
    }
    std::lock_guard<std::mutex> markers(marker_mu_);
    if (version >= latest_) return;
    if (earliest_ > 0 && version < earliest_) {
      throw Error(ErrorCode::kInvalidArgument,
                  "cannot roll state store " + dir_ + " back to version " + std::to_string(version) +
                      ": versions below " + std::to_string(earliest_) +
                      " were pruned; restore the node from a state-sync snapshot instead");
    }
    {
      std::lock_guard<std::mutex> lock(resources_mu_);
      for (StoreResource* r : resources_) r->ReleaseFromStore();
      resources_.clear();
    }
    // The entries kept are those stored at `version` or below; later ones would be replayed.
    uint64_t keep = changelog_->first_index() - 1;
    changelog_->ReplayAfterIndex(keep, [&](uint64_t index, std::string_view entry) {
      if (StoredVersion(ChangelogEntryVersion(entry)) <= version) keep = index;
    });
    changelog_->TruncateAfter(keep);
    engine_->RollbackTo(version);
    // Written last: until then a repeated rollback finds the store where it was and redoes it.
    engine_->WriteMarker(LayoutEngine::Marker::kAppliedIndex, keep);
    engine_->WriteMarker(LayoutEngine::Marker::kLatest, version);
    latest_ = version;
    applied_index_ = keep;
    std::lock_guard<std::mutex> lock(mu_);
    submitted_version_ = version;
  }

  void Import(uint64_t version, const std::vector<ImportItem>& items) {
    std::shared_lock<std::shared_mutex> guard(state_mu_);
    CheckWritable();
    for (const auto& item : items) {
      CheckRead(item.store, item.key);
      logical_bytes_ += item.key.size() + item.value.size();
    }
    std::lock_guard<std::mutex> lock(marker_mu_);
    uint64_t stored = StoredVersion(version);
    uint64_t latest = std::max<uint64_t>(latest_, stored);
    engine_->Import(stored, items, latest);
    latest_ = latest;
  }

  void Compact() {
    std::shared_lock<std::shared_mutex> guard(state_mu_);
    CheckWritable();
    engine_->Compact();
  }

  void WaitForCompactions() {
    for (;;) {
      {
        std::shared_lock<std::shared_mutex> guard(state_mu_);
        CheckOpen();
        if (!engine_->BackgroundWorkPending()) return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  StoreStats Stats() {
    std::shared_lock<std::shared_mutex> guard(state_mu_);
    CheckOpen();
    StoreStats stats;
    stats.logical_bytes_written = logical_bytes_;
    if (auto* st = engine_->statistics()) {
      stats.flush_bytes_written = st->getTickerCount(rocksdb::FLUSH_WRITE_BYTES);
      stats.compaction_bytes_written = st->getTickerCount(rocksdb::COMPACT_WRITE_BYTES);
      stats.compaction_keys_dropped = st->getTickerCount(rocksdb::COMPACTION_KEY_DROP_OBSOLETE) +
                                      st->getTickerCount(rocksdb::COMPACTION_KEY_DROP_NEWER_ENTRY);
    }
    stats.pending_writes = pending_;
    if (changelog_) {
      stats.changelog_first_index = changelog_->first_index();
      stats.changelog_last_index = changelog_->last_index();
    }
    return stats;
  }

  void Close() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      stopping_ = true;
    }
    log_cv_.notify_all();
    if (logger_.joinable()) logger_.join();
    {
      std::lock_guard<std::mutex> lock(mu_);
      logger_done_ = true;
    }
    apply_cv_.notify_all();
    room_cv_.notify_all();
    if (applier_.joinable()) applier_.join();

    std::unique_lock<std::shared_mutex> guard(state_mu_);
    closed_ = true;
    {
      std::lock_guard<std::mutex> lock(resources_mu_);
      for (StoreResource* r : resources_) r->ReleaseFromStore();
      resources_.clear();
    }
    engine_->Close();
  }

  bool closed() {
    std::shared_lock<std::shared_mutex> guard(state_mu_);
    return closed_;
  }

  void Register(StoreResource* r) {
    std::lock_guard<std::mutex> lock(resources_mu_);
    resources_.insert(r);
  }
  void Unregister(StoreResource* r) {
    std::lock_guard<std::mutex> lock(resources_mu_);
    resources_.erase(r);
  }

  Layout layout() const { return options_.layout; }
  const std::string& dir() const { return dir_; }

 private:
  struct Job {
    enum Kind { kEntry, kBarrier } kind;
    uint64_t version;
    std::string entry;
    WriteCallback done;
    bool ack_on_apply;
    uint64_t index = 0;  // changelog index, once logged
  };

  void CheckOpen() const {
    if (closed_) throw ClosedError();
  }

  // Writes need an open, writable store whose changelog has been recovered.
  void CheckWritable() const {
    CheckOpen();
    if (options_.read_only) throw ReadOnlyError();
    if (!recovered_) {
      throw Error(ErrorCode::kInvalidArgument, "state store " + dir_ + " was opened for recovery; call Recover() before writing");
    }
  }

  static void CheckRead(std::string_view store, std::string_view key) {
    CheckStoreName(store);
    CheckKey(key, "key");
  }

  void Fail(const Error& cause) {
    std::lock_guard<std::mutex> lock(mu_);
    if (failure_) return;
    failure_ = std::make_unique<Error>(
        ErrorCode::kWriterFailed,
        std::string("state store writer stopped: ") + cause.what() +
            ". Logged blocks are replayed when the store is reopened; fix the cause, then restart the node");
    room_cv_.notify_all();
  }

  // Waits for the next job of `queue`; false once it is empty and `done` is set.
  bool PopJob(std::deque<Job>& queue, std::condition_variable& cv, const bool& done, Job* job) {
    std::unique_lock<std::mutex> lock(mu_);
    cv.wait(lock, [&] { return done || !queue.empty(); });
    if (queue.empty()) return false;
    *job = std::move(queue.front());
    queue.pop_front();
    return true;
  }

  // Takes entries from the caller, appends them to the changelog, hands them to the applier.
  void LoggerLoop() {
    const size_t capacity = static_cast<size_t>(std::max(options_.async_write_buffer, 1));
    int appends = 0;
    for (;;) {
      Job job;
      if (!PopJob(log_queue_, log_cv_, stopping_, &job)) return;
      if (job.kind == Job::kEntry && !HasFailed()) {
        try {
          job.index = changelog_->Append(job.entry);
          if (++appends % kTruncateEvery == 0) TruncateChangelog();
        } catch (const Error& e) {
          Fail(e);
        }
      }
      WriteCallback ack;
      {
        std::unique_lock<std::mutex> lock(mu_);
        room_cv_.wait(lock, [&] { return apply_queue_.size() < capacity || failure_; });
        if (job.kind == Job::kEntry && !job.ack_on_apply && !failure_) ack = std::move(job.done);
        apply_queue_.push_back(std::move(job));
      }
      apply_cv_.notify_one();
      if (ack) ack(nullptr);
    }
  }

  // Applies logged entries to the DB in order.
  void ApplierLoop() {
    for (;;) {
      Job job;
      if (!PopJob(apply_queue_, apply_cv_, logger_done_, &job)) return;
      room_cv_.notify_one();
      if (job.kind == Job::kEntry) {
        if (!HasFailed()) {
          try {
            std::lock_guard<std::mutex> lock(marker_mu_);
            uint64_t latest = std::max<uint64_t>(latest_, job.version);
            logical_bytes_ += engine_->WriteEntry(job.version, job.entry, latest, job.index);
            latest_ = latest;
            applied_index_ = job.index;
          } catch (const Error& e) {
            Fail(e);
          }
        }
        --pending_;
      }
      if (job.done) {
        std::unique_ptr<Error> failure;
        {
          std::lock_guard<std::mutex> lock(mu_);
          if (failure_) failure = std::make_unique<Error>(*failure_);
        }
        job.done(failure.get());
      }
    }
  }

  bool HasFailed() {
    std::lock_guard<std::mutex> lock(mu_);
    return failure_ != nullptr;
  }

  void TruncateChangelog() {
    uint64_t last = changelog_->last_index();
    uint64_t keep_from = last > keep_entries_ ? last - keep_entries_ + 1 : 1;
    changelog_->TruncateBefore(std::min<uint64_t>(keep_from, applied_index_ + 1));
  }

  std::string dir_;
  StoreOptions options_;
  std::unique_ptr<LayoutEngine> engine_;
  std::unique_ptr<Changelog> changelog_;
  std::atomic<uint64_t> latest_{0}, earliest_{0}, applied_index_{0}, logical_bytes_{0}, pending_{0};
  uint64_t keep_entries_ = kMinChangelogEntries;
  std::mutex marker_mu_;  // serialises marker writes against each other

  // Open/closed state: readers share it, Close takes it exclusively.
  std::shared_mutex state_mu_;
  bool closed_ = false;
  bool recovered_ = false;

  // Writer pipeline.
  std::mutex mu_;
  std::condition_variable log_cv_, apply_cv_, room_cv_;
  std::deque<Job> log_queue_, apply_queue_;
  uint64_t submitted_version_ = 0;
  bool stopping_ = false, logger_done_ = false;
  std::unique_ptr<Error> failure_;
  std::thread logger_, applier_;

  std::mutex resources_mu_;
  std::set<StoreResource*> resources_;

  friend class TrackedIterator;
  friend class TrackedRawIterator;
};

// Iterators register with the store so that Close can release them before the DB closes;
// afterwards they report kClosed instead of touching freed memory.
class TrackedIterator final : public MvccIterator, public StoreResource {
 public:
  TrackedIterator(MvccStoreImpl* store, std::unique_ptr<MvccIterator> inner) : store_(store), inner_(std::move(inner)) {
    store_->Register(this);
  }
  // Unregisters before taking its own lock: Close holds the registry lock while it takes each
  // iterator's lock, so the opposite order could deadlock.
  ~TrackedIterator() override { store_->Unregister(this); }
  bool Valid() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return Inner()->Valid();
  }
  void Next() override {
    std::lock_guard<std::mutex> lock(mu_);
    Inner()->Next();
  }
  std::string_view key() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return Inner()->key();
  }
  std::string_view value() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return Inner()->value();
  }
  void ReleaseFromStore() override {
    std::lock_guard<std::mutex> lock(mu_);
    inner_.reset();
  }

 private:
  MvccIterator* Inner() const {
    if (!inner_) throw ClosedError();
    return inner_.get();
  }
  MvccStoreImpl* store_;
  mutable std::mutex mu_;
  std::unique_ptr<MvccIterator> inner_;
};

class TrackedRawIterator final : public RawIterator, public StoreResource {
 public:
  TrackedRawIterator(MvccStoreImpl* store, std::unique_ptr<RawIterator> inner) : store_(store), inner_(std::move(inner)) {
    store_->Register(this);
  }
  ~TrackedRawIterator() override { store_->Unregister(this); }
  bool Next(RawEntry* entry) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!inner_) throw ClosedError();
    return inner_->Next(entry);
  }
  void ReleaseFromStore() override {
    std::lock_guard<std::mutex> lock(mu_);
    inner_.reset();
  }

 private:
  MvccStoreImpl* store_;
  std::mutex mu_;
  std::unique_ptr<RawIterator> inner_;
};

std::unique_ptr<MvccIterator> MvccStoreImpl::NewIterator(std::string_view store, uint64_t version,
                                                         std::optional<std::string_view> start,
                                                         std::optional<std::string_view> end, bool reverse) {
  std::shared_lock<std::shared_mutex> guard(state_mu_);
  CheckOpen();
  CheckStoreName(store);
  if (start) CheckKey(*start, "iterator start key");
  if (end) CheckKey(*end, "iterator end key");
  if (start && end && *start > *end) {
    throw Error(ErrorCode::kInvalidArgument, "iterator start key is after its end key; pass start <= end");
  }
  // Below the floor an iterator is empty, not an error (and RocksDB must not be asked to read
  // below its pruned history).
  if (version < earliest_) return std::make_unique<EmptyIterator>();
  return std::make_unique<TrackedIterator>(this, engine_->NewIterator(store, version, start, end, reverse));
}

// RocksDB's user-defined timestamps collapse a version kept by pruning to timestamp 0 (no
// write is ever stored at 0); such a version is reported at the prune height.
class CollapsedVersionIterator final : public RawIterator {
 public:
  CollapsedVersionIterator(std::unique_ptr<RawIterator> inner, uint64_t prune_height)
      : inner_(std::move(inner)), prune_height_(prune_height) {}
  bool Next(RawEntry* entry) override {
    if (!inner_->Next(entry)) return false;
    if (entry->version == 0) entry->version = prune_height_;
    return true;
  }

 private:
  std::unique_ptr<RawIterator> inner_;
  uint64_t prune_height_;
};

std::unique_ptr<RawIterator> MvccStoreImpl::NewRawIterator() {
  std::shared_lock<std::shared_mutex> guard(state_mu_);
  CheckOpen();
  uint64_t prune_height = earliest_ > 0 ? earliest_ - 1 : 0;
  return std::make_unique<TrackedRawIterator>(
      this, std::make_unique<CollapsedVersionIterator>(engine_->NewRawIterator(), prune_height));
}

// ---- MvccStore: the public face ----------------------------------------------------------

std::unique_ptr<MvccStore> MvccStore::Open(const std::string& dir, const StoreOptions& options) {
  return std::unique_ptr<MvccStore>(new MvccStore(std::make_unique<MvccStoreImpl>(dir, options)));
}

MvccStore::MvccStore(std::unique_ptr<MvccStoreImpl> impl) : impl_(std::move(impl)) {}
MvccStore::~MvccStore() = default;

void MvccStore::ApplyAsync(uint64_t version, std::vector<NamedChangeset> changesets, WriteCallback done) {
  impl_->Submit(EncodeChangelogEntry(version, changesets), std::move(done), false);
}

void MvccStore::ApplyEncodedAsync(std::string encoded_entry, WriteCallback done) {
  impl_->Submit(std::move(encoded_entry), std::move(done), false);
}

void MvccStore::Apply(uint64_t version, const std::vector<NamedChangeset>& changesets) {
  std::string entry = EncodeChangelogEntry(version, changesets);
  impl_->Wait([&](WriteCallback done) { impl_->Submit(std::move(entry), std::move(done), true); });
}

void MvccStore::Drain(WriteCallback done) { impl_->Drain(std::move(done)); }

void MvccStore::Recover() { impl_->Recover(); }

void MvccStore::ReadChangelog(uint64_t version, const std::function<void(std::string_view)>& fn) {
  impl_->ReadChangelog(version, fn);
}

void MvccStore::WaitForPendingWrites() {
  impl_->Wait([&](WriteCallback done) { impl_->Drain(std::move(done)); });
}

void MvccStore::Read(std::string_view store, uint64_t version, const std::string_view* keys, size_t count,
                     ValueSink& sink) {
  impl_->Read(store, version, keys, count, sink);
}

namespace {
// Copies each value found into its slot.
class CollectingSink final : public ValueSink {
 public:
  explicit CollectingSink(std::vector<std::optional<std::string>>* out) : out_(out) {}
  void Found(size_t index, std::string_view value) override { (*out_)[index].emplace(value); }

 private:
  std::vector<std::optional<std::string>>* out_;
};
}  // namespace

std::optional<std::string> MvccStore::Get(std::string_view store, uint64_t version, std::string_view key) {
  std::vector<std::optional<std::string>> out(1);
  CollectingSink sink(&out);
  impl_->Read(store, version, &key, 1, sink);
  return std::move(out[0]);
}

bool MvccStore::Has(std::string_view store, uint64_t version, std::string_view key) {
  return Get(store, version, key).has_value();
}

void MvccStore::GetMany(std::string_view store, uint64_t version, const std::vector<std::string_view>& keys,
                        std::vector<std::optional<std::string>>* out) {
  out->assign(keys.size(), std::nullopt);
  CollectingSink sink(out);
  impl_->Read(store, version, keys.data(), keys.size(), sink);
}

std::unique_ptr<MvccIterator> MvccStore::NewIterator(std::string_view store, uint64_t version,
                                                     std::optional<std::string_view> start,
                                                     std::optional<std::string_view> end, bool reverse) {
  return impl_->NewIterator(store, version, start, end, reverse);
}

std::unique_ptr<RawIterator> MvccStore::NewRawIterator() { return impl_->NewRawIterator(); }

uint64_t MvccStore::LatestVersion() const { return impl_->Latest(); }
uint64_t MvccStore::EarliestVersion() const { return impl_->Earliest(); }
void MvccStore::SetLatestVersion(uint64_t version) { impl_->RaiseMarker(LayoutEngine::Marker::kLatest, version); }
void MvccStore::SetEarliestVersion(uint64_t version) { impl_->RaiseMarker(LayoutEngine::Marker::kEarliest, version); }
PruneResult MvccStore::Prune(uint64_t version) { return impl_->Prune(version); }
void MvccStore::RollbackTo(uint64_t version) { impl_->RollbackTo(version); }
void MvccStore::Import(uint64_t version, const std::vector<ImportItem>& items) { impl_->Import(version, items); }
void MvccStore::Compact() { impl_->Compact(); }
void MvccStore::WaitForCompactions() { impl_->WaitForCompactions(); }
std::optional<uint64_t> MvccStore::FirstLoggedVersion() const {
  return Changelog::FirstEntryVersion((fs::path(impl_->dir()) / "changelog").string());
}
StoreStats MvccStore::Stats() const { return impl_->Stats(); }
Layout MvccStore::layout() const { return impl_->layout(); }
const std::string& MvccStore::dir() const { return impl_->dir(); }
void MvccStore::Close() { impl_->Close(); }
bool MvccStore::closed() const { return impl_->closed(); }

std::string EncodeChangelogEntry(uint64_t version, const std::vector<NamedChangeset>& changesets) {
  ChangelogEntryEncoder encoder(version);
  for (const auto& cs : changesets) {
    encoder.BeginChangeset(cs.name, static_cast<uint32_t>(cs.pairs.size()));
    for (const auto& pair : cs.pairs) {
      encoder.AddPair(pair.key, pair.value ? std::optional<std::string_view>(*pair.value) : std::nullopt);
    }
  }
  return encoder.Finish();
}

}  // namespace strata
