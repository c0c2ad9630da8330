// memiavl: the state commitment of the Cosmos module stores. One IAVL tree per store, kept in
// memory on top of the newest on-disk snapshot (mapped, loaded on touch), with a changelog of
// every block committed since, so a reopen is "newest snapshot + replay".
//
// Directory (`dir`, e.g. data/committer.db):
//   LOCK                       flock: exclusive for a writer, shared for readers
//   current -> snapshot-<v>    symlink to the newest complete snapshot, swapped by rename
//   snapshot-<20-digit v>/     __metadata, CHECKSUMS and one tree_snapshot.h directory per store
//   changelog/                 one entry per committed block (strata::Changelog), synced on commit
//
// Snapshots are taken every `snapshot_interval` versions on a background thread: it rebuilds the
// snapshot's version from the previous snapshot and the changelog (never touching the live
// trees), writes it under `snapshot-<v>-tmp/`, checksums and renames it, then catches up with the
// blocks committed meanwhile; the commit thread switches to the new trees after a later commit.
// Anything named *-tmp is an interrupted write and is removed by the next writer's open.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "changelog.h"
#include "sc/commit_info.h"
#include "sc/iavl_tree.h"
#include "unique_fd.h"
#include "strata/commit_types.h"
#include "strata/repair_snapshots.h"

namespace strata::sc {

/// The command that recovers the node owning `store_dir` (memiavl's `data/committer.db`, or
/// `data/<store_name>` for another SC store) from a damaged changelog
/// (`stratad rollback --to-intact --home <home>`).
std::string RollbackToIntactCommand(const std::string& store_dir, const std::string& store_name = "committer.db");

/// The memiavl database. Calls are serialised by the caller (one writer thread).
class MemIavlDb {
 public:
  /// Opens (or creates) `dir`. Throws kIo when another process holds the lock, kCorruption for
  /// a damaged snapshot or changelog (with the remedy), kInvalidArgument for bad options.
  static std::unique_ptr<MemIavlDb> Open(const std::string& dir, const MemIavlOptions& options);
  ~MemIavlDb();
  MemIavlDb(const MemIavlDb&) = delete;
  MemIavlDb& operator=(const MemIavlDb&) = delete;

  /// Stages `key` = `value` in store `store` for the next commit (creates the store's tree).
  void Set(std::string_view store, std::string_view key, std::string_view value);
  /// Stages the removal of `key` from `store`.
  void Delete(std::string_view store, std::string_view key);

  /// Store infos of the working state (staged changes included), as the next commit will
  /// report them: {name, next version, root hash}, sorted by name.
  std::vector<StoreInfo> WorkingCommitInfo();
  /// Logs the staged changes durably, seals them as the next version and returns that
  /// version's store infos. May start a background snapshot or switch to a finished one.
  /// Same as LogStaged() then Seal().
  std::vector<StoreInfo> Commit();
  /// First half of Commit: makes the staged changes durable in the changelog. From here on
  /// the next version survives a crash; no more changes may be staged before Seal().
  void LogStaged();
  /// Second half of Commit: hashes and seals the logged version.
  std::vector<StoreInfo> Seal();

  /// The last committed version (0 before the first commit).
  int64_t Version() const { return version_; }
  /// The version the next Commit will return.
  int64_t NextVersion() const;
  /// Store infos of the last commit, sorted by name.
  const std::vector<StoreInfo>& LastCommitInfo() const { return last_commit_info_; }
  /// The tree of `store` (working state), or nullptr when no such store exists.
  const IavlTree* Tree(std::string_view store) const;
  /// Names of every store, sorted.
  std::vector<std::string> StoreNames() const;
  /// Bytes each store's live tree holds in memory (IavlTree::MemoryBytes), by name.
  std::vector<std::pair<std::string, uint64_t>> TreeMemoryBytes() const;

  /// Rolls the committed state back to `target` (Version() ≥ target ≥ the oldest version a
  /// snapshot plus the changelog still covers), discarding later versions on disk: the
  /// changelog after it and the snapshots above it. Returns the store infos at `target`.
  std::vector<StoreInfo> Rollback(int64_t target);
  /// Throws kInvalidArgument unless Rollback can be asked for `target`: a committed version,
  /// or 0 (empty, before the first version) while only the first version is committed.
  void CheckRollbackTarget(int64_t target) const;

  /// Streams the committed state (no staged changes allowed) in IAVL export order.
  void Export(MemIavlExportSink& sink) const;

  /// Versions of the complete snapshots on disk, ascending.
  std::vector<int64_t> SnapshotVersions() const;
  /// Blocks until no background snapshot is running; rethrows its failure, if any.
  void WaitForSnapshot();
  /// What Open cut from the changelog: a torn tail or, with cut_damaged_changelog, the
  /// damaged entry and everything after it ("<segment> at byte <n>"); empty when nothing.
  const std::string& CutChangelogAt() const { return cut_changelog_at_; }

  /// Bytes written by the last finished snapshot and the seconds it took.
  std::pair<uint64_t, double> LastSnapshotStats() const;

  /// Stops the snapshot thread and releases the lock; later calls throw kClosed. Idempotent.
  void Close();

  /// Builds a fresh memiavl directory at `version` from an export stream (`next` fills the
  /// next item and returns false at the end; an item is a store header when `store` is set).
  struct ImportItem {
    std::optional<std::string> store;
    std::string key, value;
    int64_t version = 0;
    uint8_t height = 0;
  };
  static void Import(const std::string& dir, int64_t version, const MemIavlOptions& options,
                     const std::function<bool(ImportItem*)>& next);

  /// RepairMemIavlSnapshots (strata/repair_snapshots.h) with `options`' hash threads.
  static SnapshotRepair RepairSnapshots(const std::string& dir, const MemIavlOptions& options);

 private:
  struct Trees;
  struct SnapshotJob;
  MemIavlDb(std::string dir, const MemIavlOptions& options);

  void CheckOpen() const;
  void CheckWritable() const;
  IavlTree& TreeForWrite(std::string_view store);
  void LoadCommitted(int64_t target);
  void OpenChangelogAndLoad(int64_t target);
  [[noreturn]] void ThrowDamagedChangelog(const ChangelogCorruption& e) const;
  void ReplayInto(Trees& trees, int64_t from_version, int64_t to_version) const;
  std::vector<StoreInfo> InfosOf(Trees& trees) const;
  void StartSnapshot();
  void RunSnapshot(SnapshotJob* job);
  uint64_t WriteSnapshot(Trees& trees, int64_t version) const;
  void PruneSnapshots();
  void AdoptFinishedSnapshot();
  uint64_t IndexOf(int64_t version) const;

  std::string dir_;
  std::string snapshot_remedy_;  // what a damaged snapshot's message tells the operator to do
  MemIavlOptions options_;
  UniqueFd lock_;
  bool closed_ = false;
  std::unique_ptr<Changelog> changelog_;  // writers only
  int64_t index_delta_ = 0;               // changelog index = version - index_delta_
  bool index_delta_known_ = false;
  std::string cut_changelog_at_;

  std::unique_ptr<Trees> trees_;
  int64_t version_ = 0;
  std::vector<StoreInfo> last_commit_info_;
  // Staged changes per store, already in the changelog's pair encoding.
  struct StagedPairs {
    uint32_t count = 0;
    std::string bytes;
  };
  StagedPairs& StagedFor(std::string_view store);
  std::map<std::string, StagedPairs, std::less<>> staged_;
  bool logged_ = false;  // LogStaged ran; Seal is due

  std::unique_ptr<SnapshotJob> job_;
  std::atomic<int64_t> durable_version_{0};  // newest version whose changelog entry is synced
  std::exception_ptr snapshot_error_;         // a failed background snapshot, until reported
  uint64_t last_snapshot_bytes_ = 0;
  double last_snapshot_seconds_ = 0;
};

}  // namespace strata::sc
