#include "strata/commit_store.h"

#include <algorithm>
#include <functional>
#include <future>
#include <mutex>

#include "sc/commit_info.h"
#include "sc/flatkv/flatkv_store.h"
#include "sc/memiavl/memiavl_db.h"
#include "strata/changelog_entry.h"
#include "strata/status.h"

namespace strata::sc {

class CommitStore::Impl {
 public:
  void CheckOpen() const {
    if (closed) throw Error(ErrorCode::kClosed, "the state-commitment store is closed; reopen it");
  }
  void JoinFlatKvPrep() {
    if (flatkv_prep.valid()) flatkv_prep.get();
  }
  bool IsFlatKv(std::string_view store) const { return flatkv != nullptr && store == kEvmStore; }
  CommitResult ResultOf(int64_t version, std::vector<StoreInfo> infos, const std::string* lattice) const {
    CommitResult result;
    result.version = version;
    result.infos = lattice ? WithEvmLatticeInfo(std::move(infos), version, *lattice) : std::move(infos);
    result.app_hash = AppHash(result.infos);
    return result;
  }

  /// Runs memiavl's half of a result while `lattice` computes FlatKV's, and combines them.
  /// The lattice task borrows this frame, so it is awaited even when memiavl's half throws.
  CommitResult WithLattice(int64_t version, std::future<std::string>& lattice,
                           const std::function<std::vector<StoreInfo>()>& memiavl_half) const {
    std::vector<StoreInfo> infos;
    try {
      infos = memiavl_half();
    } catch (...) {
      lattice.wait();
      throw;
    }
    const std::string hash = lattice.get();
    return ResultOf(version, std::move(infos), &hash);
  }

  mutable std::mutex mu;
  std::unique_ptr<MemIavlDb> memiavl;
  std::unique_ptr<FlatKvStore> flatkv;
  // FlatKV reads its old rows and hashes a block's changes while memiavl applies them; any
  // later use of FlatKV joins this first (FlatKV serialises its calls itself, so this is for
  // the failure, not for safety).
  std::future<void> flatkv_prep;
  bool closed = false;
};

CommitStore::CommitStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

CommitStore::~CommitStore() = default;

std::unique_ptr<CommitStore> CommitStore::Open(const std::string& memiavl_dir, const std::string& flatkv_dir,
                                               const CommitStoreOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->memiavl = MemIavlDb::Open(memiavl_dir, options.memiavl);
  if (options.flatkv_enabled) {
    FlatKvOptions flatkv_options = options.flatkv;
    flatkv_options.read_only = options.memiavl.read_only;
    flatkv_options.cut_damaged_changelog = options.memiavl.cut_damaged_changelog;
    impl->flatkv = FlatKvStore::Open(flatkv_dir, flatkv_options);
    const int64_t tree_version = impl->memiavl->Version();
    const int64_t flat_version = impl->flatkv->Version();
    if (flat_version != tree_version && !options.memiavl.read_only) {
      if (flat_version > tree_version) {
        // FlatKV commits only after memiavl's changelog entry is synced, so memiavl behind
        // FlatKV means synced entries were lost: a damaged changelog, not a crash.
        if (!options.memiavl.cut_damaged_changelog) {
          const std::string& cut = impl->memiavl->CutChangelogAt();
          throw Error(ErrorCode::kCorruption,
                      "memiavl changelog in " + memiavl_dir + "/changelog is damaged: " +
                          (cut.empty() ? std::string("it ends")
                                       : "a damaged final entry was cut at " + cut + ", so it now ends") +
                          " at version " + std::to_string(tree_version) + " while FlatKV committed version " +
                          std::to_string(flat_version) + ", which it does only after memiavl's entry is synced. "
                          "Stop the node and run `" + RollbackToIntactCommand(memiavl_dir) +
                          "`: it rolls FlatKV back to version " + std::to_string(tree_version) +
                          "; the next start re-executes the later blocks from the block store");
        }
        // The repair the message above names: FlatKV follows memiavl back.
        impl->flatkv->Rollback(tree_version);
      } else if (tree_version != flat_version + 1) {
        if (!options.memiavl.cut_damaged_changelog) {
          throw Error(ErrorCode::kCorruption,
                      "FlatKV in " + flatkv_dir + " ends at version " + std::to_string(flat_version) +
                          " but memiavl committed version " + std::to_string(tree_version) +
                          ", and a crash leaves FlatKV at most one version behind: FlatKV lost committed versions. "
                          "Stop the node and run `" + RollbackToIntactCommand(memiavl_dir) +
                          "`: it rolls memiavl back to version " + std::to_string(flat_version) +
                          "; the next start re-executes the later blocks from the block store");
        }
        impl->memiavl->Rollback(flat_version);
      } else {
        // Killed between the two commits: the block is not committed until both have it.
        impl->memiavl->Rollback(flat_version);
      }
    }
  }
  return std::make_unique<CommitStore>(std::move(impl));
}

void CommitStore::Apply(std::string_view store, std::string_view key, std::optional<std::string_view> value) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->CheckOpen();
  if (impl_->IsFlatKv(store)) {
    impl_->JoinFlatKvPrep();
    if (value) {
      impl_->flatkv->Set(key, *value);
    } else {
      impl_->flatkv->Delete(key);
    }
  } else if (value) {
    impl_->memiavl->Set(store, key, *value);
  } else {
    impl_->memiavl->Delete(store, key);
  }
}

void CommitStore::ApplyEntry(std::string_view entry) {
  ValidateChangelogEntry(entry);
  // Each changeset is applied in key order with the last write of a key winning, as a Cosmos
  // app's cache store hands its writes to the commitment at the end of a block. Sorted keys
  // also walk the tree with shared paths, so most of each descent stays in cache.
  struct Change {
    std::string_view key;
    std::optional<std::string_view> value;
    uint32_t order;
  };
  struct Changeset {
    std::string_view name;
    std::vector<Change> changes;
  };
  std::vector<Changeset> changesets;
  ChangelogEntryVisitor visitor;
  visitor.on_changeset = [&](std::string_view name, uint32_t pairs) {
    changesets.push_back({name, {}});
    changesets.back().changes.reserve(pairs);
  };
  visitor.on_pair = [&](std::string_view key, std::optional<std::string_view> value) {
    auto& changes = changesets.back().changes;
    changes.push_back({key, value, static_cast<uint32_t>(changes.size())});
  };
  VisitChangelogEntry(entry, visitor);
  for (Changeset& cs : changesets) {
    std::sort(cs.changes.begin(), cs.changes.end(), [](const Change& a, const Change& b) {
      const int c = a.key.compare(b.key);
      return c != 0 ? c < 0 : a.order > b.order;  // the last write of a key first
    });
    cs.changes.erase(std::unique(cs.changes.begin(), cs.changes.end(),
                                 [](const Change& a, const Change& b) { return a.key == b.key; }),
                     cs.changes.end());
  }
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->CheckOpen();
  bool flatkv_changed = false;
  for (const Changeset& cs : changesets) {
    if (!impl_->IsFlatKv(cs.name)) continue;
    impl_->JoinFlatKvPrep();
    for (const Change& change : cs.changes) {
      if (change.value) {
        impl_->flatkv->Set(change.key, *change.value);
      } else {
        impl_->flatkv->Delete(change.key);
      }
    }
    flatkv_changed = true;
  }
  if (flatkv_changed) {
    FlatKvStore* flatkv = impl_->flatkv.get();
    impl_->flatkv_prep = std::async(std::launch::async, [flatkv] { flatkv->WorkingHash(); });
  }
  for (const Changeset& cs : changesets) {
    if (impl_->IsFlatKv(cs.name)) continue;
    for (const Change& change : cs.changes) {
      if (change.value) {
        impl_->memiavl->Set(cs.name, change.key, *change.value);
      } else {
        impl_->memiavl->Delete(cs.name, change.key);
      }
    }
  }
}

CommitResult CommitStore::Working() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->CheckOpen();
  const int64_t version = impl_->memiavl->NextVersion();
  if (!impl_->flatkv) return impl_->ResultOf(version, impl_->memiavl->WorkingCommitInfo(), nullptr);
  impl_->JoinFlatKvPrep();
  std::future<std::string> lattice = std::async(std::launch::async, [&] { return impl_->flatkv->WorkingHash(); });
  return impl_->WithLattice(version, lattice, [&] { return impl_->memiavl->WorkingCommitInfo(); });
}

CommitResult CommitStore::Commit() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->CheckOpen();
  if (!impl_->flatkv) {
    std::vector<StoreInfo> infos = impl_->memiavl->Commit();
    return impl_->ResultOf(impl_->memiavl->Version(), std::move(infos), nullptr);
  }
  // The two stores work in parallel; only FlatKV's durable write waits for memiavl's log,
  // so FlatKV is never ahead after a crash.
  impl_->JoinFlatKvPrep();
  const int64_t version = impl_->memiavl->NextVersion();
  std::promise<void> memiavl_logged;
  std::future<void> logged = memiavl_logged.get_future();
  std::future<std::string> lattice = std::async(std::launch::async, [&] {
    impl_->flatkv->WorkingHash();
    logged.get();
    return impl_->flatkv->Commit(version);
  });
  return impl_->WithLattice(version, lattice, [&] {
    try {
      impl_->memiavl->LogStaged();
      memiavl_logged.set_value();
    } catch (...) {
      memiavl_logged.set_exception(std::current_exception());
      throw;
    }
    return impl_->memiavl->Seal();
  });
}

CommitResult CommitStore::Last() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->CheckOpen();
  if (!impl_->flatkv) return impl_->ResultOf(impl_->memiavl->Version(), impl_->memiavl->LastCommitInfo(), nullptr);
  impl_->JoinFlatKvPrep();
  const std::string lattice = impl_->flatkv->CommittedHash();
  return impl_->ResultOf(impl_->memiavl->Version(), impl_->memiavl->LastCommitInfo(), &lattice);
}

std::optional<std::string> CommitStore::Get(std::string_view store, std::string_view key) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->CheckOpen();
  if (impl_->IsFlatKv(store)) {
    impl_->JoinFlatKvPrep();
    return impl_->flatkv->Get(key);
  }
  const IavlTree* tree = impl_->memiavl->Tree(store);
  return tree == nullptr ? std::nullopt : tree->Get(key);
}

void CommitStore::GetMany(std::string_view store, const std::string_view* keys, size_t count, ValueSink& sink) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->CheckOpen();
  if (impl_->IsFlatKv(store)) {
    impl_->JoinFlatKvPrep();
    impl_->flatkv->GetMany(keys, count, sink);
    return;
  }
  const IavlTree* tree = impl_->memiavl->Tree(store);
  if (tree == nullptr) return;
  for (size_t i = 0; i < count; ++i) {
    if (std::optional<std::string> value = tree->Get(keys[i])) sink.Found(i, *value);
  }
}

std::vector<std::pair<std::string, std::string>> CommitStore::Range(std::string_view store,
                                                                    std::optional<std::string_view> start,
                                                                    std::optional<std::string_view> end,
                                                                    bool ascending, size_t limit) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->CheckOpen();
  if (impl_->IsFlatKv(store)) {
    throw Error(ErrorCode::kNotSupported, "FlatKV holds the evm store flat and does not iterate it; iterate the state store (SS) instead");
  }
  std::vector<std::pair<std::string, std::string>> out;
  const IavlTree* tree = impl_->memiavl->Tree(store);
  if (tree == nullptr) return out;
  for (auto it = tree->NewIterator(start, end, ascending); it.Valid() && out.size() < limit; it.Next()) {
    out.emplace_back(std::string(it.Key()), std::string(it.Value()));
  }
  return out;
}

CommitResult CommitStore::Rollback(int64_t target) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->CheckOpen();
  // FlatKV first: if it cannot reach the target, nothing has changed yet. A target memiavl
  // refuses outright is refused before FlatKV moves.
  impl_->memiavl->CheckRollbackTarget(target);
  std::optional<std::string> lattice;
  if (impl_->flatkv) {
    impl_->JoinFlatKvPrep();
    impl_->flatkv->Rollback(target);
    lattice = impl_->flatkv->CommittedHash();
  }
  std::vector<StoreInfo> infos = impl_->memiavl->Rollback(target);
  return impl_->ResultOf(target, std::move(infos), lattice ? &*lattice : nullptr);
}

void CommitStore::Export(MemIavlExportSink& sink) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->CheckOpen();
  impl_->memiavl->Export(sink);
  if (!impl_->flatkv) return;
  impl_->JoinFlatKvPrep();
  const int64_t version = impl_->memiavl->Version();
  sink.Store(kFlatKvSection);
  impl_->flatkv->ExportRows([&](std::string_view key, std::string_view value) { sink.Node({key, value, version, 0}); });
}

std::vector<int64_t> CommitStore::SnapshotVersions() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->CheckOpen();
  return impl_->memiavl->SnapshotVersions();
}

void CommitStore::WaitForSnapshot() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->CheckOpen();
  impl_->memiavl->WaitForSnapshot();
}

std::pair<uint64_t, double> CommitStore::LastSnapshotStats() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->CheckOpen();
  return impl_->memiavl->LastSnapshotStats();
}

std::vector<std::pair<std::string, uint64_t>> CommitStore::TreeMemoryBytes() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->CheckOpen();
  return impl_->memiavl->TreeMemoryBytes();
}

void CommitStore::Close() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->closed) return;
  impl_->closed = true;
  if (impl_->flatkv_prep.valid()) impl_->flatkv_prep.wait();
  if (impl_->flatkv) impl_->flatkv->Close();
  impl_->memiavl->Close();
}

}  // namespace strata::sc
