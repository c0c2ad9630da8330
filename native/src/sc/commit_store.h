// The state-commitment layer as the node sees it: memiavl for the Cosmos module stores and,
// when enabled, FlatKV for the `evm` store, committed together into one app hash
// (commit_info.h: memiavl's store infos plus `evm_lattice` carrying FlatKV's hash).
//
// Crash order: memiavl's changelog is synced before FlatKV's, and FlatKV never gets ahead, so
// after a kill between the two, Open rolls memiavl back by that one version and the store is
// at the last version both committed.
//
// Thread safety: every call takes the store's mutex, so reads from one thread wait while a
// commit runs on another.
#pragma once

#include <cstdint>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sc/commit_info.h"
#include "sc/flatkv/flatkv_store.h"
#include "sc/memiavl/memiavl_db.h"

namespace strata::sc {

/// Where and how the SC stores are opened.
struct CommitStoreOptions {
  MemIavlOptions memiavl;
  /// Route the `evm` store to FlatKV and add `evm_lattice` to the app hash.
  bool flatkv_enabled = true;
  FlatKvOptions flatkv;
};

/// One committed (or working) state: version, app hash and the entries it was hashed from.
struct CommitResult {
  int64_t version = 0;
  std::string app_hash;
  std::vector<StoreInfo> infos;  // sorted by name; `evm_lattice` included when FlatKV is on
};

/// memiavl + FlatKV behind one commit.
class CommitStore {
 public:
  /// Name of the store FlatKV holds when enabled.
  static constexpr std::string_view kEvmStore = "evm";

  /// Opens both stores (FlatKV only when enabled) and reconciles a commit cut in half.
  static std::unique_ptr<CommitStore> Open(const std::string& memiavl_dir, const std::string& flatkv_dir,
                                           const CommitStoreOptions& options);

  /// Stages one change (value nullopt = delete) for the next commit.
  void Apply(std::string_view store, std::string_view key, std::optional<std::string_view> value);
  /// Stages every pair of an encoded changelog entry (changelog_entry.h; its version is
  /// ignored): each changeset in key order, the last write of a repeated key winning.
  void ApplyEntry(std::string_view entry);
  /// The result the next Commit will return for the changes staged so far.
  CommitResult Working();
  /// Commits the staged changes durably as the next version.
  CommitResult Commit();
  /// The last commit.
  CommitResult Last() const;
  /// The latest value of `key` in `store` (staged changes included), or nullopt.
  std::optional<std::string> Get(std::string_view store, std::string_view key) const;
  /// Up to `limit` pairs of a Cosmos store in [start, end), ascending or descending.
  std::vector<std::pair<std::string, std::string>> Range(std::string_view store, std::optional<std::string_view> start,
                                                         std::optional<std::string_view> end, bool ascending,
                                                         size_t limit) const;
  /// Rolls both stores back to `target` and returns that version's commit.
  CommitResult Rollback(int64_t target);
  /// Streams the committed state for state sync: memiavl's stores in IAVL export order, then
  /// (with FlatKV) a `flatkv` store of leaf nodes carrying FlatKV's physical rows, each at
  /// the committed version and height 0.
  void Export(MemIavlExportSink& sink);
  /// Name of the export section holding FlatKV's rows.
  static constexpr std::string_view kFlatKvSection = "flatkv";
  /// memiavl's snapshot versions.
  std::vector<int64_t> SnapshotVersions() const;
  /// Waits for a background snapshot; rethrows its failure.
  void WaitForSnapshot();
  /// Bytes and seconds of memiavl's last finished snapshot.
  std::pair<uint64_t, double> LastSnapshotStats() const;
  /// Closes both stores; idempotent.
  void Close();

 private:
  CommitStore() = default;
  CommitResult ResultOf(int64_t version, std::vector<StoreInfo> infos, const std::string* lattice) const;
  void CheckOpen() const;
  void JoinFlatKvPrep();
  bool IsFlatKv(std::string_view store) const { return flatkv_ != nullptr && store == kEvmStore; }

  mutable std::mutex mu_;
  std::unique_ptr<MemIavlDb> memiavl_;
  std::unique_ptr<FlatKvStore> flatkv_;
  // FlatKV reads its old rows and hashes a block's changes while memiavl applies them; any
  // later use of FlatKV joins this first (FlatKV serialises its calls itself, so this is for
  // the failure, not for safety).
  std::future<void> flatkv_prep_;
  bool closed_ = false;
};

}  // namespace strata::sc
