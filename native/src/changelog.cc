#include "changelog.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "encoding.h"
#include "strata/changelog_entry.h"
#include "strata/status.h"

namespace fs = std::filesystem;

namespace strata {

namespace {

constexpr size_t kFrameHeader = 8;
constexpr size_t kMinPayload = 12;  // version + changeset count

uint32_t Crc(std::string_view data) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths; feed large payloads in pieces.
  while (!data.empty()) {
    uInt n = static_cast<uInt>(std::min<size_t>(data.size(), 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data.data()), n);
    data.remove_prefix(n);
  }
  return static_cast<uint32_t>(crc);
}

std::string SegmentName(uint64_t first_index) {
  char name[32];
  snprintf(name, sizeof(name), "%020llu", static_cast<unsigned long long>(first_index));
  return name;
}

[[noreturn]] void ThrowErrno(const std::string& what) {
  throw Error(ErrorCode::kIo, what + ": " + std::strerror(errno));
}

void WriteAll(int fd, const char* data, size_t n, const std::string& path) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      ThrowErrno("changelog write to " + path + " failed");
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
}

enum class FrameState { kGood, kTorn, kDamaged };

// Size of the complete entry that starts at `payload`, read from its own structure (not from
// the frame's length field); nullopt when `payload` holds no complete entry: it ends inside
// one, or its bytes are not an entry at all.
std::optional<size_t> CompleteEntrySize(std::string_view payload) {
  size_t pos = 0;
  auto take = [&](size_t n) {
    if (payload.size() - pos < n) return false;
    pos += n;
    return true;
  };
  auto u32 = [&](uint32_t* out) {
    if (payload.size() - pos < 4) return false;
    *out = encoding::DecodeFixed32LE(payload.data() + pos);
    pos += 4;
    return true;
  };
  uint32_t changesets = 0;
  if (!take(8) || !u32(&changesets)) return std::nullopt;
  for (uint32_t c = 0; c < changesets; ++c) {
    uint32_t name_len = 0;
    uint32_t pairs = 0;
    if (!u32(&name_len) || !take(name_len) || !u32(&pairs)) return std::nullopt;
    for (uint32_t p = 0; p < pairs; ++p) {
      if (pos == payload.size()) return std::nullopt;
      const auto kind = static_cast<uint8_t>(payload[pos++]);
      if (kind > 1) return std::nullopt;
      uint32_t n = 0;
      if (!u32(&n) || !take(n)) return std::nullopt;
      if (kind == 0 && (!u32(&n) || !take(n))) return std::nullopt;
    }
  }
  return pos;
}

// Checks the frame at `pos`. A crash mid-append (the header and payload are written in that
// order) leaves the file ending inside the last frame: fewer bytes than the entry needs. A
// filesystem that grew the file before its data landed (power loss) leaves zeros. Both are a
// torn tail: the entry was never synced, so never acknowledged. Bytes that do hold a complete
// entry and still fail the check were written, synced and acknowledged, then damaged: a
// checksum mismatch over the full length, or a length field that disagrees with the complete
// entry behind it (proved by the entry's own structure ending inside the file and its bytes
// matching the stored checksum).
FrameState CheckFrame(std::string_view data, size_t pos, uint32_t* len_out) {
  const size_t rest = data.size() - pos;
  if (rest < kFrameHeader) return FrameState::kTorn;
  const uint32_t len = encoding::DecodeFixed32LE(data.data() + pos);
  const uint32_t crc = encoding::DecodeFixed32LE(data.data() + pos + 4);
  const std::string_view present = data.substr(pos + kFrameHeader);
  *len_out = len;
  if (len >= kMinPayload && present.size() >= len && crc == Crc(present.substr(0, len))) return FrameState::kGood;
  if (std::all_of(data.begin() + static_cast<std::ptrdiff_t>(pos), data.end(), [](char c) { return c == 0; })) {
    return FrameState::kTorn;
  }
  if (present.size() >= len) return FrameState::kDamaged;
  const std::optional<size_t> complete = CompleteEntrySize(present);
  if (complete && crc == Crc(present.substr(0, *complete))) return FrameState::kDamaged;
  return FrameState::kTorn;
}

}  // namespace

ChangelogCorruption::ChangelogCorruption(std::string path, uint64_t offset, uint64_t index)
    : Error(ErrorCode::kCorruption, "changelog segment " + path + " has a damaged entry (index " + std::to_string(index) +
                                        ") at byte " + std::to_string(offset) +
                                        "; move the changelog directory aside and restore the store from a snapshot"),
      path_(std::move(path)),
      offset_(offset),
      index_(index) {}

std::optional<uint64_t> Changelog::FirstIndex(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return std::nullopt;
  const std::vector<Segment> segments = ListSegments(dir);
  if (segments.empty()) return std::nullopt;
  return segments.front().first_index;
}

void Changelog::CutAt(const std::string& dir, const std::string& path, uint64_t offset) {
  const std::vector<Segment> segments = ListSegments(dir);
  if (std::none_of(segments.begin(), segments.end(), [&](const Segment& s) { return s.path == path; })) throw Error(ErrorCode::kInvalidArgument, "changelog segment " + path + " is not in " + dir);
  // Later segments first: a crash midway leaves a shorter changelog, never a gap.
  for (auto it = segments.rbegin(); it != segments.rend() && it->path != path; ++it) {
    std::error_code ec;
    fs::remove(it->path, ec);
    if (ec) throw Error(ErrorCode::kIo, "cannot remove changelog segment " + it->path + ": " + ec.message());
  }
  if (::truncate(path.c_str(), static_cast<off_t>(offset)) != 0) ThrowErrno("cannot cut changelog segment " + path);
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid() || ::fsync(fd.get()) != 0) ThrowErrno("cannot sync changelog segment " + path);
  UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir_fd.valid() || ::fsync(dir_fd.get()) != 0) ThrowErrno("cannot sync changelog directory " + dir);
}

std::optional<uint64_t> Changelog::FirstEntryVersion(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return std::nullopt;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (name.size() == 20 && std::all_of(name.begin(), name.end(), ::isdigit)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    std::ifstream in((fs::path(dir) / name).string(), std::ios::binary);
    char head[kFrameHeader + 8];
    if (in.read(head, sizeof(head))) return encoding::DecodeFixed64LE(head + kFrameHeader);
  }
  return std::nullopt;
}

Changelog::Changelog(std::string dir, uint64_t segment_bytes)
    : dir_(std::move(dir)), segment_bytes_(segment_bytes) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw Error(ErrorCode::kIo, "cannot create changelog directory " + dir_ + ": " + ec.message());
  segments_ = ListSegments(dir_);
  OpenTail();
}

std::vector<std::string> Changelog::ReadFrames(const Segment& segment, bool repair_tail) {
  const std::string& path = segment.path;
  std::ifstream in(path, std::ios::binary);
  if (!in) ThrowErrno("cannot read changelog segment " + path);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> frames;
  size_t pos = 0;
  while (pos < data.size()) {
    uint32_t len = 0;
    const FrameState state = CheckFrame(data, pos, &len);
    if (state == FrameState::kGood) {
      frames.emplace_back(data, pos + kFrameHeader, len);
      pos += kFrameHeader + len;
      continue;
    }
    if (!repair_tail || state == FrameState::kDamaged) throw ChangelogCorruption(path, pos, segment.first_index + frames.size());
    repaired_bytes_ += data.size() - pos;
    repaired_at_ = path + " at byte " + std::to_string(pos);
    if (::truncate(path.c_str(), static_cast<off_t>(pos)) != 0) ThrowErrno("cannot truncate torn changelog tail of " + path);
    break;
  }
  return frames;
}

void Changelog::OpenTail() {
  if (segments_.empty()) {
    StartSegment(1);
    return;
  }
  Segment& tail = segments_.back();
  auto frames = ReadFrames(tail, /*repair_tail=*/true);
  next_index_ = tail.first_index + frames.size();
  tail_fd_ = UniqueFd(::open(tail.path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
  if (!tail_fd_.valid()) ThrowErrno("cannot open changelog segment " + tail.path);
  struct stat st {};
  if (::fstat(tail_fd_.get(), &st) != 0) ThrowErrno("cannot stat changelog segment " + tail.path);
  tail_size_ = static_cast<uint64_t>(st.st_size);
}

void Changelog::StartSegment(uint64_t first_index) {
  std::string path = (fs::path(dir_) / SegmentName(first_index)).string();
  tail_fd_ = UniqueFd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (!tail_fd_.valid()) ThrowErrno("cannot create changelog segment " + path);
  segments_.push_back({first_index, path});
  tail_size_ = 0;
  next_index_ = first_index;
}

uint64_t Changelog::Append(std::string_view payload) {
  if (payload.size() > kMaxChangelogEntryBytes) {
    throw Error(ErrorCode::kInvalidArgument, "changelog entry of " + std::to_string(payload.size()) +
                                                 " bytes exceeds the 4 GiB frame limit");
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (tail_size_ > 0 && tail_size_ + kFrameHeader + payload.size() > segment_bytes_) StartSegment(next_index_);
  std::string header;
  encoding::PutFixed32LE(&header, static_cast<uint32_t>(payload.size()));
  encoding::PutFixed32LE(&header, Crc(payload));
  const std::string& path = segments_.back().path;
  WriteAll(tail_fd_.get(), header.data(), header.size(), path);
  WriteAll(tail_fd_.get(), payload.data(), payload.size(), path);
  tail_size_ += header.size() + payload.size();
  return next_index_++;
}

void Changelog::ReplayFrom(uint64_t min_version, const std::function<void(std::string_view)>& fn) {
  std::vector<Segment> segments;
  {
    std::lock_guard<std::mutex> lock(mu_);
    segments = segments_;
  }
  // Start at the newest segment whose first entry is below `min_version`: entries at
  // `min_version` may begin in it.
  size_t start = 0;
  for (size_t i = segments.size(); i-- > 0;) {
    auto frames = ReadFrames(segments[i], false);
    if (!frames.empty() && ChangelogEntryVersion(frames.front()) < min_version) {
      start = i;
      break;
    }
  }
  for (size_t i = start; i < segments.size(); ++i) {
    for (const auto& frame : ReadFrames(segments[i], false)) {
      if (ChangelogEntryVersion(frame) >= min_version) fn(frame);
    }
  }
}

void Changelog::ScanFrames(const Segment& segment, const std::function<bool(std::string_view)>& fn,
                           bool tolerate_torn_tail) {
  const std::string& path = segment.path;
  std::ifstream in(path, std::ios::binary);
  if (!in) ThrowErrno("cannot read changelog segment " + path);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t pos = 0;
  uint64_t index = segment.first_index;
  while (pos < data.size()) {
    uint32_t len = 0;
    const FrameState state = CheckFrame(data, pos, &len);
    if (state != FrameState::kGood) {
      if (tolerate_torn_tail && state == FrameState::kTorn) return;
      throw ChangelogCorruption(path, pos, index);
    }
    if (!fn(std::string_view(data).substr(pos + kFrameHeader, len))) return;
    pos += kFrameHeader + len;
    ++index;
  }
}

void Changelog::ReplayVersionRange(uint64_t min_version, uint64_t max_version,
                                   const std::function<void(std::string_view)>& fn) {
  std::vector<Segment> segments;
  {
    std::lock_guard<std::mutex> lock(mu_);
    segments = segments_;
  }
  ReplaySegments(segments, min_version, max_version, false, fn);
}

void Changelog::ReadOnlyReplay(const std::string& dir, uint64_t min_version, uint64_t max_version,
                               const std::function<void(std::string_view)>& fn) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  ReplaySegments(ListSegments(dir), min_version, max_version, true, fn);
}

std::vector<Changelog::Segment> Changelog::ListSegments(const std::string& dir) {
  std::vector<Segment> segments;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (name.size() != 20 || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    segments.push_back({std::stoull(name), e.path().string()});
  }
  std::sort(segments.begin(), segments.end(),
            [](const Segment& a, const Segment& b) { return a.first_index < b.first_index; });
  return segments;
}

void Changelog::ReplaySegments(const std::vector<Segment>& segments, uint64_t min_version,
                               uint64_t max_version, bool tolerate_torn_tail,
                               const std::function<void(std::string_view)>& fn) {
  if (min_version > max_version) return;
  bool done = false;
  for (size_t i = 0; i < segments.size() && !done; ++i) {
    const bool last = i + 1 == segments.size();
    // Skip a segment when the next one starts at or below min_version.
    if (!last) {
      std::optional<uint64_t> next_first;
      ScanFrames(segments[i + 1], [&](std::string_view frame) {
        next_first = ChangelogEntryVersion(frame);
        return false;
      }, tolerate_torn_tail && i + 2 == segments.size());
      if (next_first && *next_first <= min_version) continue;
    }
    ScanFrames(segments[i], [&](std::string_view frame) {
      const uint64_t version = ChangelogEntryVersion(frame);
      if (version > max_version) {
        done = true;
        return false;
      }
      if (version >= min_version) fn(frame);
      if (version == max_version) done = true;
      return !done;
    }, tolerate_torn_tail && last);
  }
}

void Changelog::ReplayAfterIndex(uint64_t index, const std::function<void(uint64_t, std::string_view)>& fn) {
  std::vector<Segment> segments;
  {
    std::lock_guard<std::mutex> lock(mu_);
    segments = segments_;
  }
  size_t start = 0;
  for (size_t i = 0; i < segments.size(); ++i) {
    if (segments[i].first_index <= index + 1) start = i;
  }
  for (size_t i = start; i < segments.size(); ++i) {
    uint64_t next = segments[i].first_index;
    for (const auto& frame : ReadFrames(segments[i], false)) {
      if (next > index) fn(next, frame);
      ++next;
    }
  }
}

void Changelog::SkipTo(uint64_t next_index) {
  std::lock_guard<std::mutex> lock(mu_);
  if (next_index <= next_index_) return;
  // Segments number their entries from their first index on, so the gap starts a new one.
  if (tail_size_ == 0) {
    std::error_code ec;
    fs::remove(segments_.back().path, ec);
    segments_.pop_back();
  }
  StartSegment(next_index);
}

void Changelog::TruncateBefore(uint64_t index) {
  std::lock_guard<std::mutex> lock(mu_);
  // A segment can go when the next one starts at or below `index`; the tail always stays.
  while (segments_.size() > 1 && segments_[1].first_index <= index) {
    std::error_code ec;
    fs::remove(segments_.front().path, ec);
    if (ec) throw Error(ErrorCode::kIo, "cannot remove changelog segment " + segments_.front().path + ": " + ec.message());
    segments_.erase(segments_.begin());
  }
}

void Changelog::TruncateAfter(uint64_t index) {
  std::lock_guard<std::mutex> lock(mu_);
  if (index + 1 >= next_index_) return;
  tail_fd_ = UniqueFd();
  while (!segments_.empty() && segments_.back().first_index > index) {
    std::error_code ec;
    fs::remove(segments_.back().path, ec);
    if (ec) throw Error(ErrorCode::kIo, "cannot remove changelog segment " + segments_.back().path + ": " + ec.message());
    segments_.pop_back();
  }
  if (segments_.empty()) {
    StartSegment(index + 1);
    return;
  }
  // Cut the segment that holds `index` right after that entry's frame.
  Segment& tail = segments_.back();
  const auto frames = ReadFrames(tail, false);
  const uint64_t keep = index + 1 - tail.first_index;
  uint64_t bytes = 0;
  for (uint64_t i = 0; i < keep && i < frames.size(); ++i) bytes += kFrameHeader + frames[i].size();
  if (::truncate(tail.path.c_str(), static_cast<off_t>(bytes)) != 0) ThrowErrno("cannot truncate changelog segment " + tail.path);
  tail_fd_ = UniqueFd(::open(tail.path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
  if (!tail_fd_.valid()) ThrowErrno("cannot open changelog segment " + tail.path);
  tail_size_ = bytes;
  next_index_ = index + 1;
}

void Changelog::Sync() {
  std::lock_guard<std::mutex> lock(mu_);
  if (::fdatasync(tail_fd_.get()) != 0) ThrowErrno("cannot sync changelog segment " + segments_.back().path);
}

uint64_t Changelog::first_index() const {
  std::lock_guard<std::mutex> lock(mu_);
  return segments_.front().first_index;
}

uint64_t Changelog::last_index() const {
  std::lock_guard<std::mutex> lock(mu_);
  return next_index_ - 1;
}

}  // namespace strata
