#include "sc/commit_store.h"

#include <algorithm>
#include <future>

#include "strata/changelog_entry.h"
#include "strata/status.h"

namespace strata::sc {

std::unique_ptr<CommitStore> CommitStore::Open(const std::string& memiavl_dir, const std::string& flatkv_dir,
                                               const CommitStoreOptions& options) {
  std::unique_ptr<CommitStore> store(new CommitStore());
  store->memiavl_ = MemIavlDb::Open(memiavl_dir, options.memiavl);
  if (!options.flatkv_enabled) return store;
  FlatKvOptions flatkv_options = options.flatkv;
  flatkv_options.read_only = options.memiavl.read_only;
  store->flatkv_ = FlatKvStore::Open(flatkv_dir, flatkv_options);
  const int64_t tree_version = store->memiavl_->Version();
  const int64_t flat_version = store->flatkv_->Version();
  if (flat_version == tree_version || options.memiavl.read_only) return store;
  if (tree_version == flat_version + 1) {
    // Killed between the two commits: the block is not committed until both have it.
    store->memiavl_->Rollback(flat_version);
    return store;
  }
  throw Error(ErrorCode::kCorruption,
              "state commitment is inconsistent: memiavl is at version " + std::to_string(tree_version) +
                  " but FlatKV at " + std::to_string(flat_version) +
                  "; run `stratad rollback` to a version both reach, or restore from a state-sync snapshot");
}

void CommitStore::CheckOpen() const {
  if (closed_) throw Error(ErrorCode::kClosed, "the state-commitment store is closed; reopen it");
}

void CommitStore::JoinFlatKvPrep() {
  if (flatkv_prep_.valid()) flatkv_prep_.get();
}

void CommitStore::Apply(std::string_view store, std::string_view key, std::optional<std::string_view> value) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  if (IsFlatKv(store)) {
    JoinFlatKvPrep();
    if (value) {
      flatkv_->Set(key, *value);
    } else {
      flatkv_->Delete(key);
    }
  } else if (value) {
    memiavl_->Set(store, key, *value);
  } else {
    memiavl_->Delete(store, key);
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
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  bool flatkv_changed = false;
  for (const Changeset& cs : changesets) {
    if (!IsFlatKv(cs.name)) continue;
    JoinFlatKvPrep();
    for (const Change& change : cs.changes) {
      if (change.value) {
        flatkv_->Set(change.key, *change.value);
      } else {
        flatkv_->Delete(change.key);
      }
    }
    flatkv_changed = true;
  }
  if (flatkv_changed) {
    FlatKvStore* flatkv = flatkv_.get();
    flatkv_prep_ = std::async(std::launch::async, [flatkv] { flatkv->WorkingHash(); });
  }
  for (const Changeset& cs : changesets) {
    if (IsFlatKv(cs.name)) continue;
    for (const Change& change : cs.changes) {
      if (change.value) {
        memiavl_->Set(cs.name, change.key, *change.value);
      } else {
        memiavl_->Delete(cs.name, change.key);
      }
    }
  }
}

CommitResult CommitStore::ResultOf(int64_t version, std::vector<StoreInfo> infos, const std::string* lattice) const {
  CommitResult result;
  result.version = version;
  result.infos = lattice ? WithEvmLatticeInfo(std::move(infos), version, *lattice) : std::move(infos);
  result.app_hash = AppHash(result.infos);
  return result;
}

CommitResult CommitStore::Working() {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  const int64_t version = memiavl_->NextVersion();
  if (!flatkv_) return ResultOf(version, memiavl_->WorkingCommitInfo(), nullptr);
  JoinFlatKvPrep();
  std::future<std::string> lattice = std::async(std::launch::async, [&] { return flatkv_->WorkingHash(); });
  std::vector<StoreInfo> infos;
  try {
    infos = memiavl_->WorkingCommitInfo();
  } catch (...) {
    lattice.wait();
    throw;
  }
  const std::string hash = lattice.get();
  return ResultOf(version, std::move(infos), &hash);
}

CommitResult CommitStore::Commit() {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  if (!flatkv_) {
    std::vector<StoreInfo> infos = memiavl_->Commit();
    return ResultOf(memiavl_->Version(), std::move(infos), nullptr);
  }
  // The two stores work in parallel; only FlatKV's durable write waits for memiavl's log,
  // so FlatKV is never ahead after a crash.
  JoinFlatKvPrep();
  const int64_t version = memiavl_->NextVersion();
  std::promise<void> memiavl_logged;
  std::future<void> logged = memiavl_logged.get_future();
  std::future<std::string> lattice = std::async(std::launch::async, [&] {
    flatkv_->WorkingHash();
    logged.get();
    return flatkv_->Commit(version);
  });
  std::vector<StoreInfo> infos;
  try {
    memiavl_->LogStaged();
    memiavl_logged.set_value();
  } catch (...) {
    memiavl_logged.set_exception(std::current_exception());
    lattice.wait();
    throw;
  }
  try {
    infos = memiavl_->Seal();
  } catch (...) {
    lattice.wait();
    throw;
  }
  const std::string hash = lattice.get();
  return ResultOf(version, std::move(infos), &hash);
}

CommitResult CommitStore::Last() const {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  if (!flatkv_) return ResultOf(memiavl_->Version(), memiavl_->LastCommitInfo(), nullptr);
  const_cast<CommitStore*>(this)->JoinFlatKvPrep();
  const std::string lattice = flatkv_->CommittedHash();
  return ResultOf(memiavl_->Version(), memiavl_->LastCommitInfo(), &lattice);
}

std::optional<std::string> CommitStore::Get(std::string_view store, std::string_view key) const {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  if (IsFlatKv(store)) {
    const_cast<CommitStore*>(this)->JoinFlatKvPrep();
    return flatkv_->Get(key);
  }
  const IavlTree* tree = memiavl_->Tree(store);
  return tree == nullptr ? std::nullopt : tree->Get(key);
}

std::vector<std::pair<std::string, std::string>> CommitStore::Range(std::string_view store,
                                                                    std::optional<std::string_view> start,
                                                                    std::optional<std::string_view> end,
                                                                    bool ascending, size_t limit) const {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  if (IsFlatKv(store)) {
    throw Error(ErrorCode::kNotSupported, "FlatKV holds the evm store flat and does not iterate it; iterate the state store (SS) instead");
  }
  std::vector<std::pair<std::string, std::string>> out;
  const IavlTree* tree = memiavl_->Tree(store);
  if (tree == nullptr) return out;
  for (auto it = tree->NewIterator(start, end, ascending); it.Valid() && out.size() < limit; it.Next()) {
    out.emplace_back(std::string(it.Key()), std::string(it.Value()));
  }
  return out;
}

CommitResult CommitStore::Rollback(int64_t target) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  // FlatKV first: if it cannot reach the target, nothing has changed yet.
  std::optional<std::string> lattice;
  if (flatkv_) {
    JoinFlatKvPrep();
    flatkv_->Rollback(target);
    lattice = flatkv_->CommittedHash();
  }
  std::vector<StoreInfo> infos = memiavl_->Rollback(target);
  return ResultOf(target, std::move(infos), lattice ? &*lattice : nullptr);
}

void CommitStore::Export(MemIavlExportSink& sink) {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  memiavl_->Export(sink);
  if (!flatkv_) return;
  JoinFlatKvPrep();
  const int64_t version = memiavl_->Version();
  sink.Store(kFlatKvSection);
  flatkv_->ExportRows([&](std::string_view key, std::string_view value) { sink.Node({key, value, version, 0}); });
}

std::vector<int64_t> CommitStore::SnapshotVersions() const {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  return memiavl_->SnapshotVersions();
}

void CommitStore::WaitForSnapshot() {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  memiavl_->WaitForSnapshot();
}

std::pair<uint64_t, double> CommitStore::LastSnapshotStats() const {
  std::lock_guard<std::mutex> lock(mu_);
  CheckOpen();
  return memiavl_->LastSnapshotStats();
}

void CommitStore::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return;
  closed_ = true;
  if (flatkv_prep_.valid()) flatkv_prep_.wait();
  if (flatkv_) flatkv_->Close();
  memiavl_->Close();
}

}  // namespace strata::sc
