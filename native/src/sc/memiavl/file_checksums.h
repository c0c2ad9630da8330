// Whole-directory checksums for snapshots: a CHECKSUMS manifest (crc32 and size of every file
// below the directory) written last, and verified before a snapshot is used, so a damaged
// snapshot is reported with its remedy instead of being loaded.
#pragma once

#include <string>

namespace strata::sc {

/// Name of the manifest file inside a checksummed directory.
inline constexpr const char* kChecksumsFile = "CHECKSUMS";

/// Writes `dir`/CHECKSUMS covering every regular file below `dir`, and syncs it.
void WriteDirectoryChecksums(const std::string& dir);

/// Throws strata::Error(kCorruption) naming the file when a file listed in `dir`/CHECKSUMS is
/// missing or differs, or when the manifest itself is missing or malformed; `remedy`, when not
/// empty, is appended to the message.
void VerifyDirectoryChecksums(const std::string& dir, const std::string& remedy);

}  // namespace strata::sc
