// Changelog: the store's own write-ahead log of changelog entries.
//
// Segment files in <dir>/ are named by the 20-digit index of their first entry. Each entry is
// framed as u32 length | u32 crc32 | payload (little-endian). Indexes are 1-based and
// contiguous. On open the last segment is scanned and a torn tail (a frame cut short by a
// crash) is truncated at the last good entry. Only the last frame of the last segment can be
// torn, and only when the file ends inside its entry (or the tail is zero-filled): a bad frame
// followed by more data, one in an older segment, and a last frame whose complete entry is in
// the file (a checksum failure over its full length, or a damaged length field) are
// corruption (ChangelogCorruption), because those bytes were written and synced.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/status.h"
#include "unique_fd.h"

namespace strata {

/// A damaged entry with intact data after it: never a torn tail, always corruption. Carries
/// where the damage is, so a store can name the version it breaks at and cut it there.
class ChangelogCorruption : public Error {
 public:
  ChangelogCorruption(std::string path, uint64_t offset, uint64_t index);
  /// The segment file holding the damaged entry.
  const std::string& path() const { return path_; }
  /// Byte offset of the damaged entry's frame in that file.
  uint64_t offset() const { return offset_; }
  /// Index of the damaged entry (the entries before it are intact).
  uint64_t index() const { return index_; }

 private:
  std::string path_;
  uint64_t offset_;
  uint64_t index_;
};

class Changelog {
 public:
  /// Opens or creates the changelog in `dir`, repairing a torn tail.
  explicit Changelog(std::string dir, uint64_t segment_bytes = 64ull << 20);

  /// The version of the oldest entry of the changelog in `dir`, read without changing
  /// anything; nullopt when it holds none.
  static std::optional<uint64_t> FirstEntryVersion(const std::string& dir);

  /// Appends one payload; returns its index.
  uint64_t Append(std::string_view payload);
  /// Calls `fn` for every entry whose version (ChangelogEntryVersion) is at or above
  /// `min_version`, in index order.
  void ReplayFrom(uint64_t min_version, const std::function<void(std::string_view payload)>& fn);
  /// Calls `fn` for the entries with versions in [min_version, max_version], in order, and
  /// reads nothing past the entry at `max_version`: safe while another thread appends.
  void ReplayVersionRange(uint64_t min_version, uint64_t max_version,
                          const std::function<void(std::string_view payload)>& fn);
  /// ReplayVersionRange for a reader of `dir` that changes nothing: a torn tail in the last
  /// segment (a writer killed mid-append) ends the replay instead of being repaired.
  static void ReadOnlyReplay(const std::string& dir, uint64_t min_version, uint64_t max_version,
                             const std::function<void(std::string_view payload)>& fn);
  /// Index of the first entry of the oldest segment in `dir`; nullopt when there is none.
  static std::optional<uint64_t> FirstIndex(const std::string& dir);
  /// Cuts the changelog in `dir` at a damaged entry: truncates `path` at `offset` and removes
  /// every later segment. The entries before it stay; the next entry gets the damaged index.
  static void CutAt(const std::string& dir, const std::string& path, uint64_t offset);

  /// Calls `fn` for every entry whose index is above `index`, in index order.
  void ReplayAfterIndex(uint64_t index, const std::function<void(uint64_t index, std::string_view payload)>& fn);
  /// Makes the next entry get `next_index` when that is ahead (a store whose changelog lost
  /// applied entries — removed, or a torn tail cut — keeps its indexes increasing).
  void SkipTo(uint64_t next_index);
  /// Deletes whole segments whose entries all have an index below `index`.
  void TruncateBefore(uint64_t index);
  /// Discards every entry whose index is above `index` (rollback); the next entry gets
  /// `index + 1`.
  void TruncateAfter(uint64_t index);
  /// Makes every appended entry durable (fdatasync of the tail segment).
  void Sync();

  uint64_t first_index() const;
  uint64_t last_index() const;
  /// Bytes cut from a torn tail when the changelog was opened.
  uint64_t repaired_bytes() const { return repaired_bytes_; }
  /// Where the torn tail was cut ("<segment> at byte <n>"); empty when nothing was cut.
  const std::string& repaired_at() const { return repaired_at_; }

 private:
  struct Segment {
    uint64_t first_index;
    std::string path;
  };
  void OpenTail();
  /// The segment files in `dir`, by first index.
  static std::vector<Segment> ListSegments(const std::string& dir);
  void StartSegment(uint64_t first_index);
  std::vector<std::string> ReadFrames(const Segment& segment, bool repair_tail);
  /// Calls `fn` for each frame of a segment until it returns false; a damaged frame reached
  /// before that is corruption.
  static void ScanFrames(const Segment& segment, const std::function<bool(std::string_view)>& fn,
                         bool tolerate_torn_tail = false);
  static void ReplaySegments(const std::vector<Segment>& segments, uint64_t min_version,
                             uint64_t max_version, bool tolerate_torn_tail,
                             const std::function<void(std::string_view)>& fn);

  std::string dir_;
  uint64_t segment_bytes_;
  mutable std::mutex mu_;
  std::vector<Segment> segments_;
  UniqueFd tail_fd_;
  uint64_t tail_size_ = 0;
  uint64_t next_index_ = 1;
  uint64_t repaired_bytes_ = 0;
  std::string repaired_at_;
};

}  // namespace strata
