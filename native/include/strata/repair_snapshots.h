// repair-snapshots: brings a stopped node's memiavl directory (data/committer.db) past damaged
// snapshots. Every snapshot is verified against its CHECKSUMS manifest (and its recorded root
// hashes); the damaged ones are removed and `current` is pointed at the newest intact one,
// from which the changelog replays to the latest committed version. When no intact snapshot
// plus the changelog reaches that version (the changelog is truncated behind the oldest kept
// snapshot), nothing is changed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata::sc {

/// One damaged snapshot directory that was removed.
struct RemovedSnapshot {
  int64_t version = 0;
  std::string path;
  std::string reason;  // the failed check, naming the file
};

/// What RepairMemIavlSnapshots did.
struct SnapshotRepair {
  std::vector<RemovedSnapshot> removed;
  /// The snapshot `current` names now; nullopt when no snapshot is left (the changelog
  /// replays from the first version).
  std::optional<int64_t> current;
  /// The latest committed version, which the next open reaches.
  int64_t version = 0;
};

/// Verifies every snapshot of `memiavl_dir`, removes the damaged ones and repoints `current`;
/// throws kCorruption, changing nothing, when the latest version would become unreachable,
/// and kIo while a node holds the directory.
SnapshotRepair RepairMemIavlSnapshots(const std::string& memiavl_dir);

/// The command that runs RepairMemIavlSnapshots on `memiavl_dir`
/// (`stratadb repair-snapshots -d <absolute dir>`).
std::string RepairSnapshotsCommand(const std::string& memiavl_dir);

}  // namespace strata::sc
