// Filesystem steps FlatKV's crash safety is built from: fsync of files and directories,
// renames that survive power loss, file checksums, and the directory lock that keeps two
// processes from running recovery on the same store.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "unique_fd.h"

namespace strata::sc::flatkv {

/// fsyncs one file or directory; throws kIo.
void FsyncPath(const std::string& path);

/// fsyncs every file and directory under `dir`, then `dir` itself.
void FsyncTree(const std::string& dir);

/// Renames `from` to `to` and fsyncs the parent directory, so the rename survives a crash.
void RenameDurably(const std::string& from, const std::string& to);

/// Removes `path` and everything below it (nothing if absent); throws kIo.
void RemoveTree(const std::string& path);

/// Creates `dir` and any missing parents; throws kIo.
void CreateDirectories(const std::string& dir);

/// Names of the entries of `dir`, sorted; throws kIo.
std::vector<std::string> ListDirectory(const std::string& dir);

/// True if `path` names an existing file or directory.
bool PathExists(const std::string& path);

/// The zlib CRC-32 of a whole file and its size; throws kIo when it cannot be read.
uint32_t FileCrc32(const std::string& path, uint64_t* size);

/// Writes `contents` to `path` through a temporary file that is fsynced and renamed over it.
void WriteFileDurably(const std::string& path, const std::string& contents);

/// Reads a whole file; throws kIo when it cannot be read.
std::string ReadWholeFile(const std::string& path);

/// An exclusive advisory lock (flock) on `<dir>/LOCK`, held for the object's lifetime.
class DirLock {
 public:
  /// Takes the lock; throws kIo naming the directory when another process holds it.
  explicit DirLock(const std::string& dir);

 private:
  UniqueFd fd_;
};

}  // namespace strata::sc::flatkv
