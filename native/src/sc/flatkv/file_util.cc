#include "sc/flatkv/file_util.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "open_error.h"
#include "strata/status.h"

namespace fs = std::filesystem;

namespace strata::sc::flatkv {
namespace {

[[noreturn]] void ThrowErrno(const std::string& what) {
  throw Error(ErrorCode::kIo, what + ": " + std::strerror(errno));
}

[[noreturn]] void ThrowFs(const std::string& what, const std::error_code& ec) {
  throw Error(ErrorCode::kIo, what + ": " + ec.message());
}

std::string ParentOf(const std::string& path) {
  fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

}  // namespace

void FsyncPath(const std::string& path) {
  // Directories can only be opened read-only; fsync works on either kind of descriptor.
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) ThrowErrno("cannot open " + path + " to sync it");
  if (::fsync(fd.get()) != 0) ThrowErrno("cannot sync " + path);
}

void FsyncTree(const std::string& dir) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    FsyncPath(it->path().string());
  }
  if (ec) ThrowFs("cannot list " + dir, ec);
  FsyncPath(dir);
}

void RenameDurably(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) ThrowFs("cannot rename " + from + " to " + to, ec);
  FsyncPath(ParentOf(to));
  if (ParentOf(from) != ParentOf(to)) FsyncPath(ParentOf(from));
}

void RemoveTree(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
  if (ec) ThrowFs("cannot remove " + path, ec);
}

void CreateDirectories(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) ThrowFs("cannot create directory " + dir, ec);
}

std::vector<std::string> ListDirectory(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  if (ec) ThrowFs("cannot list " + dir, ec);
  std::sort(names.begin(), names.end());
  return names;
}

bool PathExists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

uint32_t FileCrc32(const std::string& path, uint64_t* size) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) ThrowErrno("cannot open " + path);
  std::string buf(1 << 20, '\0');
  uLong crc = crc32(0L, Z_NULL, 0);
  uint64_t total = 0;
  for (;;) {
    ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      ThrowErrno("cannot read " + path);
    }
    if (n == 0) break;
    crc = crc32(crc, reinterpret_cast<const Bytef*>(buf.data()), static_cast<uInt>(n));
    total += static_cast<uint64_t>(n);
  }
  *size = total;
  return static_cast<uint32_t>(crc);
}

void WriteFileDurably(const std::string& path, const std::string& contents) {
  const std::string tmp = path + ".writing";
  {
    UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!fd.valid()) ThrowErrno("cannot create " + tmp);
    const char* data = contents.data();
    size_t left = contents.size();
    while (left > 0) {
      ssize_t w = ::write(fd.get(), data, left);
      if (w < 0) {
        if (errno == EINTR) continue;
        ThrowErrno("cannot write " + tmp);
      }
      data += w;
      left -= static_cast<size_t>(w);
    }
    if (::fsync(fd.get()) != 0) ThrowErrno("cannot sync " + tmp);
  }
  RenameDurably(tmp, path);
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) ThrowErrno("cannot read " + path);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) ThrowErrno("cannot read " + path);
  return data;
}

DirLock::DirLock(const std::string& dir) {
  const std::string path = (fs::path(dir) / "LOCK").string();
  fd_ = UniqueFd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd_.valid()) ThrowErrno("cannot open lock file " + path);
  if (::flock(fd_.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      throw InUseError("FlatKV store " + dir, "");
    }
    ThrowErrno("cannot lock " + path);
  }
}

}  // namespace strata::sc::flatkv
