// CommitStore: the state-commitment layer as the node sees it: memiavl for the Cosmos module
// stores and, when enabled, FlatKV for the `evm` store, committed together into one app hash
// (memiavl's store infos plus `evm_lattice` carrying FlatKV's hash).
//
// Crash order: memiavl's changelog is synced before FlatKV's, and FlatKV never gets ahead, so
// after a kill between the two, Open rolls memiavl back by that one version and the store is
// at the last version both committed.
//
// Thread safety: every call takes the store's mutex, so reads from one thread wait while a
// commit runs on another.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "strata/commit_types.h"
#include "strata/store_types.h"

namespace strata::sc {

/// memiavl + FlatKV behind one commit.
class CommitStore {
 public:
  /// Name of the store FlatKV holds when enabled.
  static constexpr std::string_view kEvmStore = "evm";
  /// Name of the export section holding FlatKV's rows.
  static constexpr std::string_view kFlatKvSection = "flatkv";

  /// Opens both stores (FlatKV only when enabled) and reconciles a commit cut in half.
  static std::unique_ptr<CommitStore> Open(const std::string& memiavl_dir, const std::string& flatkv_dir,
                                           const CommitStoreOptions& options);
  /// Closes both stores, reporting nothing (use Close to see errors).
  ~CommitStore();
  CommitStore(const CommitStore&) = delete;
  CommitStore& operator=(const CommitStore&) = delete;

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
  /// Get of `count` keys of one store under one lock; `sink` hears of each key that has a value.
  void GetMany(std::string_view store, const std::string_view* keys, size_t count, ValueSink& sink) const;
  /// Up to `limit` pairs of a Cosmos store in [start, end), ascending or descending.
  std::vector<std::pair<std::string, std::string>> Range(std::string_view store, std::optional<std::string_view> start,
                                                         std::optional<std::string_view> end, bool ascending,
                                                         size_t limit) const;
  /// Rolls both stores back to `target` and returns that version's commit; 0 is the empty
  /// state before the first version, allowed only while that first version alone is committed.
  CommitResult Rollback(int64_t target);
  /// Streams the committed state for state sync: memiavl's stores in IAVL export order, then
  /// (with FlatKV) a `flatkv` store of leaf nodes carrying FlatKV's physical rows, each at
  /// the committed version and height 0.
  void Export(MemIavlExportSink& sink);
  /// memiavl's snapshot versions.
  std::vector<int64_t> SnapshotVersions() const;
  /// Waits for a background snapshot; rethrows its failure.
  void WaitForSnapshot();
  /// Bytes and seconds of memiavl's last finished snapshot.
  std::pair<uint64_t, double> LastSnapshotStats() const;
  /// Bytes of memiavl tree nodes held in memory per store: written since the last snapshot or
  /// loaded from it on first touch, until the next snapshot replaces the trees.
  std::vector<std::pair<std::string, uint64_t>> TreeMemoryBytes() const;
  /// Closes both stores; idempotent.
  void Close();

  /// The two stores and the commit machinery (commit_store.cc).
  class Impl;
  /// Use Open.
  explicit CommitStore(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata::sc
