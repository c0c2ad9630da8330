// The directory layout of a FlatKV store and the steps that finish or discard an operation
// a crash interrupted.
//
//   working/              RocksDB: latest committed rows + metadata record
//   changelog/            strata::Changelog, one entry per committed block
//   snapshot-<20d>/       RocksDB checkpoints with CHECKSUMS (snapshot_files.h)
//   LOCK                  flock'ed by the process that has the store open read-write
//
// Multi-step operations build their result under a name ending in `-tmp`, which open simply
// deletes, then rename it to a `-ready` name: that rename is the commit point, and open
// completes whatever a `-ready` directory still asks for.
//   rollback-ready/       the rolled-back working DB: open truncates the changelog after its
//                         changelog index, deletes snapshots above its version and swaps it
//                         in (working -> working-old-tmp, rollback-ready -> working)
//   import-ready/         a complete imported store: open moves its entries into place,
//                         working/ last
#pragma once

#include <cstdint>
#include <string>

#include "changelog.h"
#include "strata/memory_budget.h"

namespace strata::sc::flatkv {

/// Paths of one store's parts.
struct StorePaths {
  /// The layout under `root`.
  explicit StorePaths(const std::string& root);

  std::string root;
  std::string working;
  std::string changelog;
  std::string create_tmp;      // a fresh working DB being initialised
  std::string working_old;     // the pre-rollback working DB during the swap
  std::string rollback_tmp;    // a rollback's new working DB being built
  std::string rollback_ready;  // ... once complete
  std::string import_tmp;      // an imported store being built
  std::string import_ready;    // ... once complete

  /// `root/snapshot-<v>`.
  std::string Snapshot(int64_t version) const;
  /// `root/snapshot-<v>-tmp`: a snapshot being written.
  std::string SnapshotTmp(int64_t version) const;
};

/// Deletes every entry of the store directory whose name ends in `-tmp` or `.tmp`.
void RemoveLeftovers(const StorePaths& paths);

/// Completes an interrupted import (an `import-ready/` directory); a no-op without one.
void FinishImport(const StorePaths& paths);

/// Completes an interrupted rollback (a `rollback-ready/` directory): truncates `changelog`
/// and the snapshots to the rolled-back version and swaps the working DB. A no-op without
/// one. The caller must not have the old working DB open.
void FinishRollback(const StorePaths& paths, Changelog& changelog);

/// Creates `paths.working` as an empty store at version 0, crash-safely.
void CreateEmptyWorkingDb(const StorePaths& paths, const StoreMemory& memory);

}  // namespace strata::sc::flatkv
