// Reading the state-sync item stream (strata/state_snapshot.h describes its format): one
// reader for every consumer of a verified stream, so each checks the stream alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "unique_fd.h"

namespace strata::sc {

/// The SDK's limit on one item when reading.
inline constexpr uint64_t kMaxSnapshotItemBytes = 64'000'000;

/// The name older nodes gave the evm store's section, when memiavl held it; read as `evm`.
inline constexpr std::string_view kLegacyEvmSection = "evm_flatkv";

/// Throws kInvalidArgument: the stream at `path` is malformed in the way `what` says.
[[noreturn]] void MalformedSnapshot(const std::string& path, const std::string& what);

/// One decoded SnapshotItem: a store header (`store` set) or a node.
struct SnapshotItem {
  std::optional<std::string> store;
  std::string key, value;
  int64_t version = 0;
  int64_t height = 0;
};

/// Reads length-delimited SnapshotItems from a file, checking every field it decodes. The file
/// is read in large blocks and items are decoded where they lie in the buffer.
class SnapshotItemReader {
 public:
  /// Throws kInvalidArgument when `path` cannot be read.
  explicit SnapshotItemReader(const std::string& path);
  /// The next item into `item`; false at the end of the stream. Throws for a malformed item.
  bool Next(SnapshotItem* item);
  uint64_t items() const { return items_; }
  uint64_t bytes() const { return bytes_; }
  const std::string& path() const { return path_; }

 private:
  bool Buffer(size_t need);
  bool ReadStreamUvarint(uint64_t* v);
  uint64_t Uvarint(std::string_view s, size_t* pos);
  std::string_view Bytes(std::string_view s, size_t* pos);
  std::string DecodeStore(std::string_view body);
  void DecodeNode(std::string_view body, SnapshotItem* item);

  std::string path_;
  UniqueFd fd_;
  std::string buf_;  // the file's bytes [begin_, end_) not decoded yet
  size_t begin_ = 0;
  size_t end_ = 0;
  bool eof_ = false;
  uint64_t items_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace strata::sc
