#include "sc/flatkv/store_layout.h"

#include <filesystem>

#include "sc/flatkv/file_util.h"
#include "sc/flatkv/flatkv_db.h"
#include "sc/flatkv/snapshot_files.h"
#include "strata/status.h"

namespace fs = std::filesystem;

namespace strata::sc::flatkv {
namespace {

// Reading one metadata record needs next to no cache.
constexpr uint64_t kSmallCacheBytes = 1 << 20;

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string Join(const std::string& root, std::string_view name) { return (fs::path(root) / name).string(); }

}  // namespace

StorePaths::StorePaths(const std::string& root_dir)
    : root(root_dir),
      working(Join(root_dir, "working")),
      changelog(Join(root_dir, "changelog")),
      create_tmp(Join(root_dir, "working-create-tmp")),
      working_old(Join(root_dir, "working-old-tmp")),
      rollback_tmp(Join(root_dir, "rollback-tmp")),
      rollback_ready(Join(root_dir, "rollback-ready")),
      import_tmp(Join(root_dir, "import-tmp")),
      import_ready(Join(root_dir, "import-ready")) {}

std::string StorePaths::Snapshot(int64_t version) const { return Join(root, SnapshotDirName(version)); }

std::string StorePaths::SnapshotTmp(int64_t version) const { return Snapshot(version) + "-tmp"; }

void RemoveLeftovers(const StorePaths& paths) {
  for (const auto& name : ListDirectory(paths.root)) {
    // RocksDB's checkpoint builds `<target>.tmp` before renaming it to the target.
    if (EndsWith(name, "-tmp") || EndsWith(name, ".tmp")) RemoveTree(Join(paths.root, name));
  }
}

void FinishImport(const StorePaths& paths) {
  if (!PathExists(paths.import_ready)) return;
  for (const auto& name : ListDirectory(paths.import_ready)) {
    if (name == "working") continue;
    const std::string target = Join(paths.root, name);
    if (PathExists(target)) {
      throw Error(ErrorCode::kCorruption,
                  "cannot finish the interrupted FlatKV import in " + paths.root + ": both " + target + " and " +
                      Join(paths.import_ready, name) + " exist; delete the store directory and import again");
    }
    RenameDurably(Join(paths.import_ready, name), target);
  }
  // The working DB goes last: a store with working/ in place is complete.
  const std::string imported_working = Join(paths.import_ready, "working");
  if (PathExists(imported_working)) {
    if (PathExists(paths.working)) {
      throw Error(ErrorCode::kCorruption, "cannot finish the interrupted FlatKV import in " + paths.root +
                                              ": a working database already exists; delete the store directory "
                                              "and import again");
    }
    RenameDurably(imported_working, paths.working);
  }
  RemoveTree(paths.import_ready);
  FsyncPath(paths.root);
}

void FinishRollback(const StorePaths& paths, Changelog& changelog) {
  if (!PathExists(paths.rollback_ready)) return;
  StoreMeta meta;
  {
    auto db = FlatKvDb::Open(paths.rollback_ready, FlatKvDb::Mode::kReadOnly, StoreMemory{kSmallCacheBytes, nullptr});
    meta = db->ReadMeta();
    db->Close();
  }
  // Entries above the target would otherwise be replayed onto the rolled-back DB.
  changelog.TruncateAfter(meta.changelog_index);
  for (int64_t v : ListSnapshotVersions(paths.root)) {
    if (v > meta.version) DeleteSnapshot(paths.root, v);
  }
  if (PathExists(paths.working)) {
    RemoveTree(paths.working_old);
    RenameDurably(paths.working, paths.working_old);
  }
  RenameDurably(paths.rollback_ready, paths.working);
  RemoveTree(paths.working_old);
}

void CreateEmptyWorkingDb(const StorePaths& paths, const StoreMemory& memory) {
  RemoveTree(paths.create_tmp);
  {
    auto db = FlatKvDb::Open(paths.create_tmp, FlatKvDb::Mode::kCreate, memory);
    rocksdb::WriteBatch batch;
    db->PutMeta(&batch, StoreMeta());
    db->Write(&batch);
    db->Close();
  }
  FsyncTree(paths.create_tmp);
  RenameDurably(paths.create_tmp, paths.working);
}

}  // namespace strata::sc::flatkv
