// State-sync snapshots of the state commitment, in the Cosmos SDK's item format: a stream of
// length-delimited protobuf `SnapshotItem`s (uvarint length ‖ message), each either
//   store = SnapshotStoreItem{name = 1}                                      (field 1), or
//   iavl  = SnapshotIAVLItem{key = 1, value = 2, version = 3, height = 4}     (field 2).
// memiavl's stores come first in IAVL export order, then FlatKV's rows under `flatkv`.
// Compression and chunking belong to the snapshot store above this layer.
#pragma once

#include <cstdint>
#include <string>

#include "strata/commit_store.h"
#include "strata/versioned_store.h"

namespace strata::sc {

/// What an export or import moved.
struct StateSnapshotStats {
  int64_t version = 0;
  uint64_t items = 0;
  uint64_t bytes = 0;
};

/// Writes `store`'s committed state to `path` (created; must not exist).
StateSnapshotStats ExportStateSnapshot(CommitStore& store, const std::string& path);

/// Builds fresh SC directories (both absent or empty) at `version` from the stream in `path`.
/// Sections named `evm` or the legacy `evm_flatkv` carry the evm store's logical keys; with
/// FlatKV enabled they are committed into FlatKV at `version`, otherwise into memiavl.
/// Throws kInvalidArgument for a malformed stream, naming what is wrong.
StateSnapshotStats ImportStateSnapshot(const std::string& memiavl_dir, const std::string& flatkv_dir, int64_t version,
                                       const CommitStoreOptions& options, const std::string& path);

/// Writes the leaves of the stream in `path` into state stores at `version`, as the SS holds
/// them: each section's leaves under its store name (the legacy `evm_flatkv` is `evm`), and
/// FlatKV's rows turned back into the logical keys they stand for. Items of the `evm` store go
/// to `evm` when it is given, every other item to `cosmos`. Returns the items written; throws
/// kInvalidArgument for a malformed stream, naming what is wrong.
uint64_t ImportSnapshotLeaves(const std::string& path, uint64_t version, VersionedStore& cosmos, VersionedStore* evm);

}  // namespace strata::sc
