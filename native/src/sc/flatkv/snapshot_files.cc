#include "sc/flatkv/snapshot_files.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "sc/flatkv/file_util.h"
#include "strata/status.h"

namespace fs = std::filesystem;

namespace strata::sc::flatkv {
namespace {

constexpr std::string_view kManifestMagic = "flatkv-snapshot 1";

struct FileSum {
  uint32_t crc = 0;
  uint64_t size = 0;
};

struct ParsedManifest {
  SnapshotManifest header;
  std::map<std::string, FileSum> files;
};

Error SnapshotCorruption(const std::string& snapshot_dir, const std::string& problem) {
  return Error(ErrorCode::kCorruption,
               "FlatKV snapshot " + snapshot_dir + " is damaged: " + problem +
                   ". It was not loaded. Its SST files are hard links shared with data/flatkv/working/ and "
                   "the other snapshots, so a damaged SST is damaged in all of them: deleting the snapshot "
                   "does not repair it; restore data/flatkv from a backup or the node from a state-sync "
                   "snapshot (a damaged manifest or non-SST file alone: delete that snapshot directory)");
}

std::string ManifestPath(const std::string& snapshot_dir) {
  return (fs::path(snapshot_dir) / kChecksumsFileName).string();
}

ParsedManifest ParseManifest(const std::string& snapshot_dir) {
  const std::string path = ManifestPath(snapshot_dir);
  if (!PathExists(path)) throw SnapshotCorruption(snapshot_dir, "file CHECKSUMS is missing");
  std::istringstream in(ReadWholeFile(path));
  ParsedManifest parsed;
  std::string line;
  auto bad = [&](const std::string& why) { return SnapshotCorruption(snapshot_dir, "file CHECKSUMS " + why); };
  if (!std::getline(in, line) || line != kManifestMagic) throw bad("does not start with \"flatkv-snapshot 1\"");
  long long version = -1;
  unsigned long long index = 0;
  char extra = 0;
  if (!std::getline(in, line) || std::sscanf(line.c_str(), "version %lld%c", &version, &extra) != 1 || version < 0) {
    throw bad("has no valid version line");
  }
  if (!std::getline(in, line) || std::sscanf(line.c_str(), "changelog-index %llu%c", &index, &extra) != 1) {
    throw bad("has no valid changelog-index line");
  }
  parsed.header = {static_cast<int64_t>(version), static_cast<uint64_t>(index)};
  while (std::getline(in, line)) {
    unsigned int crc = 0;
    unsigned long long size = 0;
    char name[256] = {0};
    if (std::sscanf(line.c_str(), "%8x %llu %255s%c", &crc, &size, name, &extra) != 3) {
      throw bad("has a malformed line: \"" + line + "\"");
    }
    parsed.files[name] = {crc, size};
  }
  if (parsed.files.empty()) throw bad("lists no files");
  return parsed;
}

}  // namespace

void WriteSnapshotManifest(const std::string& snapshot_dir, const SnapshotManifest& manifest) {
  std::vector<std::string> names = ListDirectory(snapshot_dir);
  for (const auto& name : names) {
    std::error_code ec;
    if (!fs::is_regular_file(fs::path(snapshot_dir) / name, ec)) {
      throw Error(ErrorCode::kIo, "checkpoint " + snapshot_dir + " holds " + name + ", which is not a regular file");
    }
  }
  std::string text = std::string(kManifestMagic) + "\nversion " + std::to_string(manifest.version) +
                     "\nchangelog-index " + std::to_string(manifest.changelog_index) + "\n";
  for (const auto& name : names) {
    uint64_t size = 0;
    uint32_t crc = FileCrc32((fs::path(snapshot_dir) / name).string(), &size);
    char line[320];
    std::snprintf(line, sizeof(line), "%08x %llu %s\n", crc, static_cast<unsigned long long>(size), name.c_str());
    text += line;
  }
  WriteFileDurably(ManifestPath(snapshot_dir), text);
  FsyncTree(snapshot_dir);
}

SnapshotManifest ReadSnapshotManifest(const std::string& snapshot_dir) { return ParseManifest(snapshot_dir).header; }

SnapshotManifest VerifySnapshot(const std::string& snapshot_dir) {
  ParsedManifest parsed = ParseManifest(snapshot_dir);
  auto named = ParseSnapshotDirName(fs::path(snapshot_dir).filename().string());
  if (named && *named != parsed.header.version) {
    throw SnapshotCorruption(snapshot_dir, "its CHECKSUMS says version " + std::to_string(parsed.header.version));
  }
  for (const auto& [name, expected] : parsed.files) {
    const std::string path = (fs::path(snapshot_dir) / name).string();
    if (!PathExists(path)) throw SnapshotCorruption(snapshot_dir, "file " + name + " is missing");
    uint64_t size = 0;
    uint32_t crc = FileCrc32(path, &size);
    if (size != expected.size || crc != expected.crc) {
      throw SnapshotCorruption(snapshot_dir, "file " + name + " does not match its checksum");
    }
  }
  for (const auto& name : ListDirectory(snapshot_dir)) {
    if (name != kChecksumsFileName && parsed.files.count(name) == 0) {
      throw SnapshotCorruption(snapshot_dir, "file " + name + " is not listed in CHECKSUMS");
    }
  }
  return parsed.header;
}

void CopySnapshotDatabase(const std::string& snapshot_dir, const std::string& dest) {
  CreateDirectories(dest);
  for (const auto& name : ListDirectory(snapshot_dir)) {
    if (name == kChecksumsFileName) continue;
    const fs::path source = fs::path(snapshot_dir) / name;
    const fs::path target = fs::path(dest) / name;
    std::error_code ec;
    if (source.extension() == ".sst") {
      fs::create_hard_link(source, target, ec);
      // Another filesystem (or one without hard links) gets a copy instead.
      if (ec) fs::copy_file(source, target, ec);
    } else {
      fs::copy_file(source, target, ec);
    }
    if (ec) throw Error(ErrorCode::kIo, "cannot copy " + source.string() + " to " + target.string() + ": " + ec.message());
  }
  FsyncTree(dest);
}

void DeleteSnapshot(const std::string& store_dir, int64_t version) {
  const std::string path = (fs::path(store_dir) / SnapshotDirName(version)).string();
  if (!PathExists(path)) return;
  const std::string doomed = path + "-deleting-tmp";
  RemoveTree(doomed);
  RenameDurably(path, doomed);
  RemoveTree(doomed);
}

}  // namespace strata::sc::flatkv
