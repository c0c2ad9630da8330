#include "sc/snapshot_names.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>

namespace fs = std::filesystem;

namespace strata::sc {
namespace {

constexpr std::string_view kSnapshotPrefix = "snapshot-";
constexpr size_t kVersionDigits = 20;

}  // namespace

std::string SnapshotDirName(int64_t version) {
  char name[48];
  std::snprintf(name, sizeof(name), "snapshot-%020" PRId64, version);
  return name;
}

std::optional<int64_t> ParseSnapshotDirName(std::string_view name) {
  if (name.size() != kSnapshotPrefix.size() + kVersionDigits || name.substr(0, kSnapshotPrefix.size()) != kSnapshotPrefix) {
    return std::nullopt;
  }
  std::string_view digits = name.substr(kSnapshotPrefix.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  // 20 digits can exceed int64; such a name is not one a store writes.
  if (digits > std::string_view("09223372036854775807")) return std::nullopt;
  return static_cast<int64_t>(std::stoull(std::string(digits)));
}

std::vector<int64_t> ListSnapshotVersions(const std::string& dir) {
  std::vector<int64_t> versions;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_directory(ec)) continue;
    if (auto v = ParseSnapshotDirName(entry.path().filename().string())) versions.push_back(*v);
  }
  std::sort(versions.begin(), versions.end());
  return versions;
}

}  // namespace strata::sc
