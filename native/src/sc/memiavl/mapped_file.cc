#include "sc/memiavl/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "strata/status.h"
#include "unique_fd.h"

namespace strata::sc {

MappedFile::MappedFile(const std::string& path) : path_(path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) throw Error(ErrorCode::kIo, "cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw Error(ErrorCode::kIo, "cannot stat " + path + ": " + std::strerror(errno));
  size_ = static_cast<size_t>(st.st_size);
  if (size_ == 0) return;
  data_ = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd.get(), 0);
  if (data_ == MAP_FAILED) {
    data_ = nullptr;
    throw Error(ErrorCode::kIo, "cannot map " + path + ": " + std::strerror(errno));
  }
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

}  // namespace strata::sc
