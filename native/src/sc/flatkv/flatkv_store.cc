#include "sc/flatkv/flatkv_store.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <future>
#include <limits>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "changelog.h"
#include "sc/flatkv/block_changes.h"
#include "sc/flatkv/block_plan.h"
#include "sc/flatkv/changelog_replay.h"
#include "sc/flatkv/file_util.h"
#include "sc/flatkv/flatkv_db.h"
#include "sc/flatkv/row_format.h"
#include "sc/flatkv/row_import.h"
#include "sc/flatkv/snapshot_files.h"
#include "sc/flatkv/store_layout.h"
#include "sc/flatkv/store_meta.h"
#include "sc/memiavl/memiavl_db.h"
#include "strata/changelog_entry.h"
#include "strata/status.h"

namespace strata::sc {

using namespace flatkv;

namespace {

std::string ChecksumBytes(const LtHash& hash) {
  Blake3Digest digest = hash.Checksum();
  return std::string(reinterpret_cast<const char*>(digest.data()), digest.size());
}

// The first 8 bytes of `key` as a big-endian integer, zero-padded: where two heads differ,
// they order the keys as a bytewise comparison does.
uint64_t KeyHead(std::string_view key) {
  uint64_t head = 0;
  for (size_t i = 0; i < 8; ++i) head = head << 8 | (i < key.size() ? static_cast<uint8_t>(key[i]) : 0);
  return head;
}

void CheckOptions(const FlatKvOptions& options) {
  if (options.snapshot_interval < 0 || options.keep_recent < 0 || options.hash_threads < 1 ||
      options.changelog_segment_bytes == 0) {
    throw Error(ErrorCode::kInvalidArgument,
                "FlatKV options out of range: snapshot_interval and keep_recent must be >= 0, hash_threads >= 1 "
                "and changelog_segment_bytes > 0");
  }
}

// The changes staged for the working version, sorted into a block and, once resolved, with
// the hash they lead to. Kept until Commit or the next Set/Delete, so that WorkingHash
// followed by Commit hashes once.
struct PreparedBlock {
  int64_t version = 0;
  uint64_t staged_generation = 0;
  BlockChanges changes;
  std::unique_ptr<BlockPlan> plan;
  bool resolved = false;
  LtHash hash;
};

}  // namespace

class FlatKvStore::Impl {
 public:
  Impl(const std::string& dir, const FlatKvOptions& options) : paths_(dir), options_(options) {}

  ~Impl() {
    try {
      Close();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "StrataDB: closing FlatKV store %s failed: %s\n", paths_.root.c_str(), e.what());
    }
  }

  void OpenReadWrite() {
    bool exists = PathExists(paths_.working) || PathExists(paths_.rollback_ready) || PathExists(paths_.import_ready);
    if (!exists && !options_.create_if_missing) throw NoStore();
    CreateDirectories(paths_.root);
    lock_ = std::make_unique<DirLock>(paths_.root);
    // Import first: a finished import brings the changelog directory with it.
    FinishImport(paths_);
    OpenChangelog();
    FinishRollback(paths_, *changelog_);
    RemoveLeftovers(paths_);
    if (!PathExists(paths_.working)) {
      if (!ListSnapshotVersions(paths_.root).empty() || changelog_->last_index() > 0) {
        throw Error(ErrorCode::kCorruption,
                    "FlatKV store " + paths_.root +
                        " has snapshots or changelog entries but no working database; restore the directory from "
                        "a backup or a state-sync snapshot");
      }
      if (!options_.create_if_missing) throw NoStore();
      CreateEmptyWorkingDb(paths_, options_.memory());
    }
    db_ = FlatKvDb::Open(paths_.working, FlatKvDb::Mode::kOpen, options_.memory());
    committed_ = db_->ReadMeta();
    if (cut_at_.empty() || committed_.changelog_index <= changelog_->last_index()) {
      ReplayChangelog(*db_, *changelog_, &committed_, std::numeric_limits<int64_t>::max(), options_.hash_threads);
    }
  }

  /// After a cut that removed entries the working DB had applied: the version of the last
  /// entry left, which the store must roll back to. nullopt when nothing needs rolling back.
  std::optional<int64_t> IntactVersionAfterCut() const {
    if (cut_at_.empty() || committed_.changelog_index <= changelog_->last_index()) return std::nullopt;
    const uint64_t last = changelog_->last_index();
    std::optional<int64_t> version;
    if (last >= changelog_->first_index()) {
      changelog_->ReplayAfterIndex(last - 1, [&](uint64_t index, std::string_view payload) {
        if (index == last) version = static_cast<int64_t>(ChangelogEntryVersion(payload));
      });
    }
    if (!version) {
      throw Error(ErrorCode::kCorruption, "FlatKV changelog of " + paths_.root + " is damaged at " + cut_at_ +
                                              ", its first entry, so no intact version is left to roll back to; "
                                              "restore the node from a state-sync snapshot or a backup");
    }
    return version;
  }

  // Opens the changelog. In repair mode (cut_damaged_changelog) every entry is read, and the
  // changelog is cut at the first damaged one: the entries before it are checksummed and
  // intact. Each cut moves the end back, so a few rounds cover damage in an older segment.
  void OpenChangelog() {
    for (int round = 0;; ++round) {
      try {
        changelog_ = std::make_unique<Changelog>(paths_.changelog, options_.changelog_segment_bytes);
        if (options_.cut_damaged_changelog) changelog_->ReplayAfterIndex(0, [](uint64_t, std::string_view) {});
        return;
      } catch (const ChangelogCorruption& e) {
        changelog_.reset();
        if (!options_.cut_damaged_changelog || round >= 8) throw;
        Changelog::CutAt(paths_.changelog, e.path(), e.offset());
        cut_at_ = e.path() + " at byte " + std::to_string(e.offset());
      }
    }
  }

  void OpenReadOnly() {
    if (!PathExists(paths_.working)) throw NoStore();
    if (PathExists(paths_.rollback_ready) || PathExists(paths_.import_ready)) {
      throw Error(ErrorCode::kInvalidArgument, "FlatKV store " + paths_.root +
                                                   " has an interrupted rollback or import; open it read-write "
                                                   "once to finish it, then read-only");
    }
    db_ = FlatKvDb::Open(paths_.working, FlatKvDb::Mode::kReadOnly, options_.memory());
    committed_ = db_->ReadMeta();
  }

  void Set(std::string_view key, std::string_view value) {
    std::lock_guard<std::mutex> lock(mu_);
    CheckWritable();
    CheckLogicalChange(key, value);
    staged_[std::string(key)] = std::string(value);
    ++staged_generation_;
  }

  void Delete(std::string_view key) {
    std::lock_guard<std::mutex> lock(mu_);
    CheckWritable();
    CheckLogicalChange(key, std::nullopt);
    staged_[std::string(key)] = std::nullopt;
    ++staged_generation_;
  }

  std::optional<std::string> Get(std::string_view key) const {
    std::lock_guard<std::mutex> lock(mu_);
    CheckUsable();
    LogicalKind kind = ClassifyLogicalKey(key);
    if (kind == LogicalKind::kNonce || kind == LogicalKind::kCodeHash) {
      return GetAccountField(key, kind, CommittedRow(RowFamily::kAccount, PhysicalKey(key, kind)));
    }
    return GetPlain(key, kind);
  }

  void GetMany(const std::string_view* keys, size_t count, ValueSink& sink) const {
    std::lock_guard<std::mutex> lock(mu_);
    CheckUsable();
    // The committed row of the last account read, by address.
    std::string_view row_address;
    std::optional<std::string> row;
    bool have_row = false;
    for (size_t i = 0; i < count; ++i) {
      const std::string_view key = keys[i];
      const LogicalKind kind = ClassifyLogicalKey(key);
      std::optional<std::string> value;
      if (kind == LogicalKind::kNonce || kind == LogicalKind::kCodeHash) {
        if (!have_row || key.substr(1) != row_address) {
          row = CommittedRow(RowFamily::kAccount, PhysicalKey(key, kind));
          row_address = key.substr(1);
          have_row = true;
        }
        value = GetAccountField(key, kind, row);
      } else {
        value = GetPlain(key, kind);
      }
      if (value) sink.Found(i, *value);
    }
  }

  // A key outside the account rows: staged value, else the committed row's payload.
  std::optional<std::string> GetPlain(std::string_view key, LogicalKind kind) const {
    if (auto staged = staged_.find(std::string(key)); staged != staged_.end()) return staged->second;
    std::optional<std::string> row = CommittedRow(FamilyOf(kind), PhysicalKey(key, kind));
    if (!row) return std::nullopt;
    return std::string(PlainRowPayload(*row));
  }

  // A committed row, without waiting for the last block's rows to reach RocksDB: a row that
  // block wrote comes from its plan; any other row is the same in RocksDB before and after
  // the batch, so it is read there while the batch is written.
  std::optional<std::string> CommittedRow(RowFamily family, const std::string& key) const {
    if (pending_block_) {
      if (const std::optional<std::string>* row = pending_block_->plan->RowAfter(family, key)) return *row;
    }
    return db_->Get(family, key);
  }

  std::string WorkingHash() {
    std::lock_guard<std::mutex> lock(mu_);
    CheckUsable();
    if (options_.read_only) return ChecksumBytes(committed_.hash);
    PreparedBlock& block = Prepare(committed_.version + 1);
    FinishPendingWrite();
    Resolve(block);
    return ChecksumBytes(block.hash);
  }

  std::string CommittedHash() const {
    std::lock_guard<std::mutex> lock(mu_);
    CheckUsable();
    return ChecksumBytes(committed_.hash);
  }

  int64_t Version() const {
    std::lock_guard<std::mutex> lock(mu_);
    CheckUsable();
    return committed_.version;
  }

  std::string Commit(int64_t version) {
    std::lock_guard<std::mutex> lock(mu_);
    CheckWritable();
    if (version <= committed_.version) {
      throw Error(ErrorCode::kInvalidArgument, "FlatKV commit version " + std::to_string(version) +
                                                   " is not above the committed version " +
                                                   std::to_string(committed_.version));
    }
    RethrowSnapshotError();
    PreparedBlock& block = Prepare(version);
    const std::string entry = EncodeBlockEntry(version, block.changes);
    StoreMeta after;
    try {
      // The changelog write and fsync overlap with reading and hashing the rows.
      std::future<uint64_t> logged = std::async(std::launch::async, [this, &entry] {
        uint64_t index = changelog_->Append(entry);
        changelog_->Sync();
        return index;
      });
      // The old rows are read only once the previous block's rows are in RocksDB.
      FinishPendingWrite();
      Resolve(block);
      after = MetaAfter(committed_, *block.plan, logged.get());
    } catch (const std::exception& e) {
      failure_ = "commit of version " + std::to_string(version) + " failed: " + e.what();
      throw;
    }
    // The block is durable now (a crash replays it from the changelog), so its rows go to
    // RocksDB in the background, overlapping with the app's next block; meanwhile reads take
    // the block's rows from its plan (CommittedRow), and the next commit waits for the batch.
    pending_write_version_ = version;
    try {
      std::shared_ptr<const PreparedBlock> written(std::move(prepared_));
      pending_write_ = std::async(std::launch::async, [this, written, after] { WriteBlock(*db_, *written->plan, after); });
      pending_block_ = std::move(written);
    } catch (const std::exception& e) {
      failure_ = "cannot start writing version " + std::to_string(version) + ": " + e.what();
      throw;
    }
    committed_ = after;
    staged_.clear();
    StartSnapshotIfDue(version);
    return ChecksumBytes(committed_.hash);
  }

  void Rollback(int64_t target) {
    std::lock_guard<std::mutex> lock(mu_);
    CheckWritable();
    FinishPendingWrite();
    RethrowSnapshotError();
    if (target < 0 || target > committed_.version) {
      throw Error(ErrorCode::kInvalidArgument, "cannot roll FlatKV back to version " + std::to_string(target) +
                                                   ": the latest version is " + std::to_string(committed_.version));
    }
    if (target < committed_.version) {
      try {
        BuildRolledBackDb(target);
      } catch (...) {
        // Nothing has changed yet; the half-built directory would also go on the next open.
        std::error_code ec;
        std::filesystem::remove_all(paths_.rollback_tmp, ec);
        throw;
      }
    }
    staged_.clear();
    ++staged_generation_;
    prepared_.reset();
    if (target == committed_.version) return;
    try {
      // The rename to rollback-ready is the commit point: from here on, Open finishes the job.
      RenameDurably(paths_.rollback_tmp, paths_.rollback_ready);
      db_->Close();
      db_.reset();
      FinishRollback(paths_, *changelog_);
      db_ = FlatKvDb::Open(paths_.working, FlatKvDb::Mode::kOpen, options_.memory());
      committed_ = db_->ReadMeta();
    } catch (const std::exception& e) {
      failure_ = "rollback to version " + std::to_string(target) + " did not finish: " + e.what();
      throw;
    }
  }

  std::vector<int64_t> SnapshotVersions() const {
    std::lock_guard<std::mutex> lock(mu_);
    CheckUsable();
    WaitForSnapshotJob();
    return ListSnapshotVersions(paths_.root);
  }

  void ExportRows(const std::function<void(std::string_view, std::string_view)>& sink) const {
    std::lock_guard<std::mutex> lock(mu_);
    CheckUsable();
    FinishPendingWrite();
    for (size_t i = 0; i < kRowFamilyCount; ++i) db_->ForEachRow(static_cast<RowFamily>(i), sink);
  }

  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    std::exception_ptr close_error;
    try {
      FinishPendingWrite();
    } catch (...) {
      close_error = std::current_exception();
    }
    closed_ = true;
    WaitForSnapshotJob();
    std::exception_ptr snapshot_error = std::exchange(snapshot_error_, nullptr);
    try {
      if (db_) db_->Close();
    } catch (...) {
      if (!close_error) close_error = std::current_exception();
    }
    db_.reset();
    changelog_.reset();
    lock_.reset();
    if (close_error) std::rethrow_exception(close_error);
    if (snapshot_error) RethrowAsSnapshotError(snapshot_error);
  }

 private:
  Error NoStore() const {
    return Error(ErrorCode::kInvalidArgument,
                 "no FlatKV store in " + paths_.root + " (open with create_if_missing to create one)");
  }

  void CheckUsable() const {
    if (closed_) throw Error(ErrorCode::kClosed, "the FlatKV store is closed; open it again before using it");
    if (!failure_.empty()) {
      throw Error(ErrorCode::kWriterFailed, "FlatKV store " + paths_.root + " stopped after a failure (" + failure_ +
                                                "); close and reopen it: it recovers from its changelog");
    }
  }

  // Waits for the background write of the last committed block; a failure stops the store.
  void FinishPendingWrite() const {
    if (!pending_write_.valid()) return;
    try {
      pending_write_.get();
      pending_block_.reset();
    } catch (const std::exception& e) {
      pending_block_.reset();
      failure_ = "writing the rows of version " + std::to_string(pending_write_version_) +
                 " to RocksDB failed: " + e.what();
      CheckUsable();
    }
  }

  void CheckWritable() const {
    CheckUsable();
    if (options_.read_only) {
      throw Error(ErrorCode::kNotSupported, "FlatKV store " + paths_.root + " is open read-only");
    }
  }

  // The merged view of an account row's field: the committed `row` (as read for `key`'s
  // account) plus staged nonce and code hash.
  std::optional<std::string> GetAccountField(std::string_view key, LogicalKind kind,
                                             const std::optional<std::string>& row) const {
    std::string address(key.substr(1));
    auto staged_nonce = staged_.find(kNoncePrefix + address);
    auto staged_hash = staged_.find(kCodeHashPrefix + address);
    bool touched = staged_nonce != staged_.end() || staged_hash != staged_.end();
    if (!row && !touched) return std::nullopt;
    AccountFields fields = row ? DecodeAccountRow(*row) : AccountFields();
    if (staged_nonce != staged_.end()) fields.nonce = staged_nonce->second ? DecodeNonce(*staged_nonce->second) : 0;
    if (staged_hash != staged_.end()) {
      fields.code_hash = staged_hash->second ? NormalizeCodeHash(*staged_hash->second) : std::string();
    }
    // Staged edits that empty the row delete it on commit.
    if (touched && fields.IsEmpty()) return std::nullopt;
    if (kind == LogicalKind::kNonce) return EncodeNonce(fields.nonce);
    if (fields.code_hash.empty()) return std::nullopt;
    return fields.code_hash;
  }

  PreparedBlock& Prepare(int64_t version) {
    if (prepared_ && prepared_->version == version && prepared_->staged_generation == staged_generation_) {
      return *prepared_;
    }
    auto block = std::make_unique<PreparedBlock>();
    block->version = version;
    block->staged_generation = staged_generation_;
    // Sorts (first 8 key bytes, pointer) pairs: most comparisons are decided by the
    // integer, without chasing the pointer into the map's scattered nodes.
    struct SortItem {
      uint64_t head;
      const StagedMap::value_type* entry;
    };
    std::vector<SortItem> order;
    order.reserve(staged_.size());
    for (const auto& entry : staged_) order.push_back({KeyHead(entry.first), &entry});
    std::sort(order.begin(), order.end(), [](const SortItem& a, const SortItem& b) {
      return a.head != b.head ? a.head < b.head : a.entry->first < b.entry->first;
    });
    block->changes.reserve(order.size());
    for (const auto& item : order) block->changes.push_back({item.entry->first, item.entry->second});
    block->plan = std::make_unique<BlockPlan>(block->changes, version);
    prepared_ = std::move(block);
    return *prepared_;
  }

  void Resolve(PreparedBlock& block) {
    if (block.resolved) return;
    block.plan->Resolve(*db_, options_.hash_threads);
    block.hash = committed_.hash;
    block.hash.Add(block.plan->delta());
    block.resolved = true;
  }

  // Builds rollback-tmp: the nearest snapshot at or below `target` (or an empty DB) plus
  // the changelog entries up to `target`.
  void BuildRolledBackDb(int64_t target) {
    std::vector<int64_t> snapshots = ListSnapshotVersions(paths_.root);
    const bool empty_base = committed_.origin_version == 0 && changelog_->first_index() == 1;
    std::optional<int64_t> base;
    for (int64_t v : snapshots) {
      if (v <= target) base = v;
    }
    if (!base && !empty_base) {
      std::string reachable = snapshots.empty() ? "none before the latest version " + std::to_string(committed_.version)
                                                : "the oldest is " + std::to_string(snapshots.front());
      throw Error(ErrorCode::kInvalidArgument, "cannot roll FlatKV back to version " + std::to_string(target) +
                                                   ": no snapshot at or below it and the changelog does not reach "
                                                   "back to the start (reachable versions: " +
                                                   reachable + ")");
    }
    RemoveTree(paths_.rollback_tmp);
    std::unique_ptr<FlatKvDb> db;
    StoreMeta meta;
    if (base) {
      const std::string snapshot = paths_.Snapshot(*base);
      SnapshotManifest manifest = VerifySnapshot(snapshot);
      CopySnapshotDatabase(snapshot, paths_.rollback_tmp);
      db = FlatKvDb::Open(paths_.rollback_tmp, FlatKvDb::Mode::kOpen, options_.memory());
      meta = db->ReadMeta();
      if (meta.version != manifest.version || meta.changelog_index != manifest.changelog_index) {
        throw Error(ErrorCode::kCorruption, "FlatKV snapshot " + snapshot + " holds version " +
                                                std::to_string(meta.version) + " but its CHECKSUMS says " +
                                                std::to_string(manifest.version) +
                                                "; it was not loaded: delete that snapshot directory");
      }
    } else {
      db = FlatKvDb::Open(paths_.rollback_tmp, FlatKvDb::Mode::kCreate, options_.memory());
    }
    ReplayChangelog(*db, *changelog_, &meta, target, options_.hash_threads);
    // The target itself may have no block of its own; the state is the last one below it.
    meta.version = target;
    rocksdb::WriteBatch batch;
    db->PutMeta(&batch, meta);
    db->Write(&batch);
    db->Close();
    FsyncTree(paths_.rollback_tmp);
  }

  // Snapshot of `version`: the checkpoint is taken now (it must not include later blocks);
  // checksumming, publishing and pruning run in the background.
  void StartSnapshotIfDue(int64_t version) {
    if (options_.snapshot_interval == 0 || version % options_.snapshot_interval != 0) return;
    FinishPendingWrite();
    WaitForSnapshotJob();
    const std::string tmp = paths_.SnapshotTmp(version);
    try {
      RemoveTree(tmp);
      RemoveTree(tmp + ".tmp");
      db_->CreateCheckpoint(tmp);
    } catch (...) {
      if (!snapshot_error_) snapshot_error_ = std::current_exception();
      return;
    }
    SnapshotManifest manifest{version, committed_.changelog_index};
    snapshot_job_ = std::async(std::launch::async, [this, tmp, manifest] { PublishSnapshot(tmp, manifest); });
  }

  // Runs on the snapshot thread; touches only snapshot directories and the changelog's
  // own locked truncation.
  void PublishSnapshot(const std::string& tmp, const SnapshotManifest& manifest) {
    WriteSnapshotManifest(tmp, manifest);
    DeleteSnapshot(paths_.root, manifest.version);
    RenameDurably(tmp, paths_.Snapshot(manifest.version));
    std::vector<int64_t> versions = ListSnapshotVersions(paths_.root);
    const size_t keep = 1 + static_cast<size_t>(options_.keep_recent);
    while (versions.size() > keep) {
      DeleteSnapshot(paths_.root, versions.front());
      versions.erase(versions.begin());
    }
    // Entries up to the oldest kept snapshot are covered by it.
    changelog_->TruncateBefore(ReadSnapshotManifest(paths_.Snapshot(versions.front())).changelog_index + 1);
  }

  void WaitForSnapshotJob() const {
    if (!snapshot_job_.valid()) return;
    try {
      snapshot_job_.get();
    } catch (...) {
      if (!snapshot_error_) snapshot_error_ = std::current_exception();
    }
  }

  void RethrowSnapshotError() {
    WaitForSnapshotJob();
    if (snapshot_error_) RethrowAsSnapshotError(std::exchange(snapshot_error_, nullptr));
  }

  [[noreturn]] void RethrowAsSnapshotError(std::exception_ptr error) const {
    const std::string context = "a FlatKV snapshot of " + paths_.root +
                                " failed (committed blocks are intact; the next snapshot is taken at its interval): ";
    try {
      std::rethrow_exception(error);
    } catch (const Error& e) {
      throw Error(e.code(), context + e.what());
    } catch (const std::exception& e) {
      throw Error(ErrorCode::kIo, context + e.what());
    }
  }

  StorePaths paths_;
  FlatKvOptions options_;
  mutable std::mutex mu_;
  std::unique_ptr<DirLock> lock_;
  std::unique_ptr<Changelog> changelog_;
  std::string cut_at_;  // where OpenChangelog cut a damaged changelog; empty when it did not
  std::unique_ptr<FlatKvDb> db_;
  StoreMeta committed_;
  using StagedMap = std::unordered_map<std::string, std::optional<std::string>>;
  StagedMap staged_;
  uint64_t staged_generation_ = 0;
  std::unique_ptr<PreparedBlock> prepared_;
  mutable std::future<void> pending_write_;  // the last committed block's RocksDB batch
  // That block while its batch is written: reads take its rows from here instead of waiting.
  mutable std::shared_ptr<const PreparedBlock> pending_block_;
  int64_t pending_write_version_ = 0;
  mutable std::future<void> snapshot_job_;
  mutable std::exception_ptr snapshot_error_;
  mutable std::string failure_;  // non-empty once a commit, its write or a rollback failed midway
  bool closed_ = false;
};

std::unique_ptr<FlatKvStore> FlatKvStore::Open(const std::string& dir, const FlatKvOptions& options) {
  CheckOptions(options);
  auto impl = std::make_unique<Impl>(dir, options);
  if (options.read_only) {
    impl->OpenReadOnly();
    return std::make_unique<FlatKvStore>(std::move(impl));
  }
  try {
    impl->OpenReadWrite();
  } catch (const ChangelogCorruption& e) {
    throw Error(ErrorCode::kCorruption,
                "FlatKV changelog segment " + e.path() + " is damaged at byte " + std::to_string(e.offset()) +
                    ": the entry there (index " + std::to_string(e.index()) +
                    ") fails its checks, so FlatKV is intact only up to the entry before it. Stop the node and run `" +
                    RollbackToIntactCommand(dir, "flatkv") +
                    "`: it cuts the changelog at the damaged entry and rolls the state commitment (FlatKV and memiavl) "
                    "back to the last version both reach; the next start re-executes the later blocks from the "
                    "block store");
  }
  const std::optional<int64_t> intact = impl->IntactVersionAfterCut();
  if (intact) impl->Rollback(*intact);
  return std::make_unique<FlatKvStore>(std::move(impl));
}

void FlatKvStore::ImportRows(const std::string& dir, int64_t version, const FlatKvOptions& options,
                             const std::function<bool(std::string*, std::string*)>& next) {
  CheckOptions(options);
  if (version <= 0) {
    throw Error(ErrorCode::kInvalidArgument, "FlatKV import version must be positive, got " + std::to_string(version));
  }
  StorePaths paths(dir);
  CreateDirectories(dir);
  DirLock lock(dir);
  RemoveLeftovers(paths);
  for (const auto& name : ListDirectory(dir)) {
    if (name != "LOCK") {
      throw Error(ErrorCode::kInvalidArgument, "cannot import into " + dir + ": it is not empty (found " + name +
                                                   "); import into a new directory or delete this one first");
    }
  }
  try {
    BuildImportedStore(paths.import_tmp, version, options.memory(), options.hash_threads, next);
  } catch (...) {
    // Leftovers would also go on the next ImportRows or Open; removing them now frees space.
    std::error_code ec;
    std::filesystem::remove_all(paths.import_tmp, ec);
    throw;
  }
  // The rename is the commit point: from here on, Open finishes the import.
  RenameDurably(paths.import_tmp, paths.import_ready);
  FinishImport(paths);
}

FlatKvStore::FlatKvStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

FlatKvStore::~FlatKvStore() = default;

void FlatKvStore::Set(std::string_view logical_key, std::string_view value) { impl_->Set(logical_key, value); }
void FlatKvStore::Delete(std::string_view logical_key) { impl_->Delete(logical_key); }
std::optional<std::string> FlatKvStore::Get(std::string_view logical_key) const { return impl_->Get(logical_key); }
void FlatKvStore::GetMany(const std::string_view* logical_keys, size_t count, ValueSink& sink) const {
  impl_->GetMany(logical_keys, count, sink);
}
std::string FlatKvStore::WorkingHash() { return impl_->WorkingHash(); }
std::string FlatKvStore::CommittedHash() const { return impl_->CommittedHash(); }
int64_t FlatKvStore::Version() const { return impl_->Version(); }
std::string FlatKvStore::Commit(int64_t version) { return impl_->Commit(version); }
void FlatKvStore::Rollback(int64_t target) { impl_->Rollback(target); }
std::vector<int64_t> FlatKvStore::SnapshotVersions() const { return impl_->SnapshotVersions(); }
void FlatKvStore::ExportRows(const std::function<void(std::string_view, std::string_view)>& sink) const {
  impl_->ExportRows(sink);
}
void FlatKvStore::Close() { impl_->Close(); }

}  // namespace strata::sc
