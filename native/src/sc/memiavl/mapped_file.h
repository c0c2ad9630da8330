// A read-only memory mapping of a whole file (RAII). Snapshot files are read through it, so a
// large tree is paged in on demand instead of being loaded.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace strata::sc {

/// A whole file mapped read-only; unmapped on destruction.
class MappedFile {
 public:
  /// Maps `path`; throws strata::Error(kIo) when it cannot be opened or mapped.
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  /// The file's bytes (empty for an empty file).
  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }
  /// The mapped path.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace strata::sc
