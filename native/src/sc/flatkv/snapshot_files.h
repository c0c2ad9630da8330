// FlatKV snapshots on disk: `snapshot-<version, 20 digits>/` holds a RocksDB checkpoint of
// the working DB plus a CHECKSUMS manifest:
//
//   flatkv-snapshot 1
//   version <v>
//   changelog-index <index of the changelog entry the checkpoint includes last>
//   <crc32, 8 hex digits> <size> <file name>        (one line per file, sorted by name)
//
// A snapshot is built as `snapshot-<v>-tmp/`, gets its manifest, and is renamed into place
// only when complete; a directory still ending in `-tmp` is never used. A snapshot is
// verified against its manifest before it is used.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sc/snapshot_names.h"

namespace strata::sc::flatkv {

/// Name of the manifest file inside a snapshot.
inline constexpr std::string_view kChecksumsFileName = "CHECKSUMS";

// Snapshot directory names are shared with memiavl (sc/snapshot_names.h).
using sc::ListSnapshotVersions;
using sc::ParseSnapshotDirName;
using sc::SnapshotDirName;

/// What a snapshot's manifest says about it.
struct SnapshotManifest {
  int64_t version = 0;
  uint64_t changelog_index = 0;
};

/// Checksums every file in the checkpoint at `snapshot_dir`, writes CHECKSUMS and fsyncs the
/// whole directory.
void WriteSnapshotManifest(const std::string& snapshot_dir, const SnapshotManifest& manifest);

/// Reads a manifest's header without checking the files; throws kCorruption.
SnapshotManifest ReadSnapshotManifest(const std::string& snapshot_dir);

/// Checks every file of the snapshot against its manifest (present, same size and CRC-32,
/// nothing unlisted); throws kCorruption naming the snapshot and the file and saying what
/// to do. Returns the manifest.
SnapshotManifest VerifySnapshot(const std::string& snapshot_dir);

/// Makes `dest` (which must not exist) a RocksDB database equal to the snapshot's: SST
/// files, which RocksDB never modifies, are hard-linked; the others are copied.
void CopySnapshotDatabase(const std::string& snapshot_dir, const std::string& dest);

/// Removes snapshot `version` of `store_dir` so that a crash midway leaves only a `-tmp`
/// leftover, never a partial snapshot under a valid name.
void DeleteSnapshot(const std::string& store_dir, int64_t version);

}  // namespace strata::sc::flatkv
