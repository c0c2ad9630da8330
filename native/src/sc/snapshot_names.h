// Names of snapshot directories, shared by memiavl and FlatKV: `snapshot-<version, 20 digits>`.
// A directory ending in `-tmp` is an interrupted write and never parses as a snapshot.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::sc {

/// "snapshot-" + the version as 20 digits.
std::string SnapshotDirName(int64_t version);

/// The version a complete snapshot directory name encodes, or nullopt for any other name.
std::optional<int64_t> ParseSnapshotDirName(std::string_view name);

/// Versions of the complete snapshot directories in `dir`, ascending.
std::vector<int64_t> ListSnapshotVersions(const std::string& dir);

}  // namespace strata::sc
