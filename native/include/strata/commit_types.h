// Value types of the state commitment (SC: memiavl for the Cosmos module stores, FlatKV for
// the `evm` store): the options both are opened with, the store infos and results a commit
// reports, and the node stream a state-sync export produces.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "strata/memory_budget.h"

namespace strata::sc {

/// How a memiavl directory is opened and maintained.
struct MemIavlOptions {
  /// Take a snapshot when the committed version is a multiple of this (0 = never).
  int64_t snapshot_interval = 10000;
  /// Snapshots kept besides the newest one.
  int keep_recent = 1;
  /// Version of the first commit when > 1 (a chain starting at a later height).
  int64_t initial_version = 0;
  /// Threads used to hash a large tree.
  int hash_threads = 2;
  /// Create the directory when missing (writers only).
  bool create_if_missing = true;
  /// Open for reading: shared lock, nothing on disk is changed, commits are refused.
  bool read_only = false;
  /// Read-only: open at this version (newest snapshot at or below it, then replay); 0 = latest.
  int64_t target_version = 0;
  /// Write snapshots on a background thread (false: inside Commit, for tools and tests).
  bool async_snapshot = true;
  /// Pace snapshot writing to this many MB/s (`sc-snapshot-write-rate-mbps`; 0 = unlimited).
  int64_t snapshot_write_rate_mbps = 0;
  /// Writers: cut the changelog at a damaged entry instead of refusing to open, so the state
  /// is the last intact version before it (`stratad rollback --to-intact`). Never set by a
  /// running node: a cut discards committed versions, which only a rollback may do.
  bool cut_damaged_changelog = false;
};

/// Options of a FlatKV store.
struct FlatKvOptions {
  /// A snapshot is taken at every version divisible by this; 0 = never.
  int64_t snapshot_interval = 10000;
  /// Snapshots kept besides the newest; older ones (and the changelog entries only they
  /// needed) are deleted.
  int keep_recent = 1;
  /// Create an empty store when `dir` holds none.
  bool create_if_missing = true;
  /// Open without writing anything. The view is the working DB as last flushed (complete
  /// after a clean Close); the changelog is not replayed, and a store whose rollback or
  /// import was interrupted must first be opened read-write once. Mutations throw
  /// kNotSupported.
  bool read_only = false;
  /// RocksDB block cache shared by the four row families, when there is no memory_budget.
  uint64_t block_cache_bytes = 256ull << 20;
  /// Block cache and memtable limit shared with the process's other stores; replaces
  /// block_cache_bytes when set.
  std::shared_ptr<MemoryBudget> memory_budget;
  /// The store's RocksDB memory.
  StoreMemory memory() const { return {block_cache_bytes, memory_budget}; }
  /// Threads that read old rows and hash a block's changes.
  int hash_threads = 2;
  /// Size at which the changelog starts a new segment file; whole segments are what
  /// snapshot pruning can drop.
  uint64_t changelog_segment_bytes = 64ull << 20;
  /// Repair open: cut the changelog at a damaged entry and roll back to the version of the
  /// last entry before it (`stratad rollback --to-intact`; CommitStore sets it with memiavl's
  /// cut_damaged_changelog). Never set by a running node.
  bool cut_damaged_changelog = false;
};

/// Where and how the SC stores are opened.
struct CommitStoreOptions {
  MemIavlOptions memiavl;
  /// Route the `evm` store to FlatKV and add `evm_lattice` to the app hash.
  bool flatkv_enabled = true;
  FlatKvOptions flatkv;
};

/// One store's entry in a commit: its name and CommitID {version, hash}.
struct StoreInfo {
  std::string name;
  int64_t version = 0;
  /// The store's root hash (32 bytes for IAVL and FlatKV); empty for stores that have none,
  /// such as the mem stores the SDK lists for compatibility.
  std::string hash;

  bool operator==(const StoreInfo& other) const {
    return name == other.name && version == other.version && hash == other.hash;
  }
  bool operator!=(const StoreInfo& other) const { return !(*this == other); }
};

/// One committed (or working) state: version, app hash and the entries it was hashed from.
struct CommitResult {
  int64_t version = 0;
  std::string app_hash;
  std::vector<StoreInfo> infos;  // sorted by name; `evm_lattice` included when FlatKV is on
};

/// One node of an export stream (IAVL export order: per store, post-order).
struct MemIavlExportNode {
  std::string_view key;
  std::string_view value;  // empty for inner nodes
  int64_t version;
  uint8_t height;  // 0 for leaves
};

/// Receives an export stream.
class MemIavlExportSink {
 public:
  virtual ~MemIavlExportSink() = default;
  /// Starts the nodes of store `name`.
  virtual void Store(std::string_view name) = 0;
  /// One node of the current store.
  virtual void Node(const MemIavlExportNode& node) = 0;
};

}  // namespace strata::sc
