#include "sc/memiavl/file_checksums.h"

#include <fcntl.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "strata/status.h"
#include "unique_fd.h"

namespace fs = std::filesystem;

namespace strata::sc {
namespace {

struct FileSum {
  uint32_t crc = 0;
  uint64_t size = 0;
};

FileSum SumFile(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) throw Error(ErrorCode::kIo, "cannot read " + path + ": " + std::strerror(errno));
  std::vector<unsigned char> buf(1 << 20);
  uLong crc = crc32(0L, Z_NULL, 0);
  FileSum sum;
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorCode::kIo, "cannot read " + path + ": " + std::strerror(errno));
    }
    if (n == 0) break;
    crc = crc32(crc, buf.data(), static_cast<uInt>(n));
    sum.size += static_cast<uint64_t>(n);
  }
  sum.crc = static_cast<uint32_t>(crc);
  return sum;
}

void SyncPath(const std::string& path, int flags) {
  UniqueFd fd(::open(path.c_str(), flags | O_CLOEXEC));
  if (!fd.valid() || ::fsync(fd.get()) != 0) {
    throw Error(ErrorCode::kIo, "cannot sync " + path + ": " + std::strerror(errno));
  }
}

}  // namespace

void WriteDirectoryChecksums(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::string rel = fs::relative(entry.path(), dir).string();
    if (rel != kChecksumsFile) files.push_back(std::move(rel));
  }
  std::sort(files.begin(), files.end());
  std::ostringstream manifest;
  for (const auto& rel : files) {
    const FileSum sum = SumFile((fs::path(dir) / rel).string());
    char line[64];
    std::snprintf(line, sizeof line, "%08x %llu ", sum.crc, static_cast<unsigned long long>(sum.size));
    manifest << line << rel << '\n';
  }
  const std::string path = (fs::path(dir) / kChecksumsFile).string();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << manifest.str();
    if (!out.flush()) throw Error(ErrorCode::kIo, "cannot write " + path);
  }
  SyncPath(path, O_RDONLY);
}

void VerifyDirectoryChecksums(const std::string& dir, const std::string& remedy_text) {
  // A caller that handles the damage itself (snapshot repair) passes no remedy.
  const std::string remedy = remedy_text.empty() ? std::string() : "; " + remedy_text;
  const std::string path = (fs::path(dir) / kChecksumsFile).string();
  std::ifstream in(path);
  if (!in) throw Error(ErrorCode::kCorruption, "snapshot " + dir + " has no " + kChecksumsFile + " manifest" + remedy);
  std::string line;
  size_t count = 0;
  while (std::getline(in, line)) {
    unsigned crc = 0;
    unsigned long long size = 0;
    int consumed = 0;
    if (std::sscanf(line.c_str(), "%8x %llu %n", &crc, &size, &consumed) != 2 || consumed <= 0 ||
        static_cast<size_t>(consumed) >= line.size()) {
      throw Error(ErrorCode::kCorruption, "snapshot " + dir + " has a malformed " + kChecksumsFile + " manifest" + remedy);
    }
    const std::string rel = line.substr(static_cast<size_t>(consumed));
    const std::string file = (fs::path(dir) / rel).string();
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) {
      throw Error(ErrorCode::kCorruption, "snapshot file " + file + " is missing" + remedy);
    }
    const FileSum sum = SumFile(file);
    if (sum.size != size || sum.crc != crc) {
      throw Error(ErrorCode::kCorruption, "snapshot file " + file + " fails its checksum" + remedy);
    }
    ++count;
  }
  if (count == 0) throw Error(ErrorCode::kCorruption, "snapshot " + dir + " has an empty " + kChecksumsFile + " manifest" + remedy);
}

}  // namespace strata::sc
