#include "sc/snapshot_items.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "strata/status.h"

namespace strata::sc {

[[noreturn]] void MalformedSnapshot(const std::string& path, const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, "state snapshot " + path + " is malformed (" + what +
                                               "); fetch the snapshot again from a trusted peer");
}

namespace {
// The read size: large reads keep system calls and buffer shifts rare.
constexpr size_t kReadBlock = 4u << 20;
}  // namespace

SnapshotItemReader::SnapshotItemReader(const std::string& path) : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
  if (!fd_.valid()) throw Error(ErrorCode::kInvalidArgument, "cannot read state snapshot " + path + " (" + std::strerror(errno) + "); check the path");
}

// Makes at least `need` undecoded bytes available; false when the file ends first.
bool SnapshotItemReader::Buffer(size_t need) {
  if (end_ - begin_ >= need) return true;
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (buf_.size() < std::max(need, kReadBlock)) buf_.resize(std::max(need, kReadBlock));
  while (end_ < need && !eof_) {
    const ssize_t n = ::read(fd_.get(), buf_.data() + end_, buf_.size() - end_);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorCode::kIo, "cannot read state snapshot " + path_ + ": " + std::strerror(errno));
    }
    if (n == 0) eof_ = true;
    end_ += static_cast<size_t>(n);
  }
  return end_ >= need;
}

bool SnapshotItemReader::Next(SnapshotItem* item) {
  uint64_t len = 0;
  if (!ReadStreamUvarint(&len)) return false;
  if (len > kMaxSnapshotItemBytes) MalformedSnapshot(path_, "an item of " + std::to_string(len) + " bytes");
  if (!Buffer(len)) MalformedSnapshot(path_, "the stream ends inside an item");
  const std::string_view msg(buf_.data() + begin_, len);
  begin_ += len;
  ++items_;
  bytes_ += len;
  // Cleared field by field: the strings keep their buffers for the next item.
  item->store.reset();
  item->key.clear();
  item->value.clear();
  item->version = 0;
  item->height = 0;
  size_t pos = 0;
  bool seen = false;
  while (pos < msg.size()) {
    const uint64_t tag = Uvarint(msg, &pos);
    if ((tag & 7) != 2) MalformedSnapshot(path_, "an item field that is not a message");
    const std::string_view body = Bytes(msg, &pos);
    if (tag >> 3 == 1) {
      item->store = DecodeStore(body);
    } else if (tag >> 3 == 2) {
      DecodeNode(body, item);
    } else {
      MalformedSnapshot(path_, "an item of unknown kind " + std::to_string(tag >> 3));
    }
    seen = true;
  }
  if (!seen) MalformedSnapshot(path_, "an empty item");
  return true;
}

bool SnapshotItemReader::ReadStreamUvarint(uint64_t* v) {
  *v = 0;
  Buffer(10);  // a varint is at most 10 bytes; fewer remain only at the end of the file
  for (int shift = 0; shift < 64; shift += 7) {
    if (begin_ == end_) {
      if (shift == 0) return false;
      MalformedSnapshot(path_, "the stream ends inside a length");
    }
    const auto c = static_cast<uint8_t>(buf_[begin_++]);
    *v |= static_cast<uint64_t>(c & 0x7f) << shift;
    if ((c & 0x80) == 0) return true;
  }
  MalformedSnapshot(path_, "an overlong length");
}

uint64_t SnapshotItemReader::Uvarint(std::string_view s, size_t* pos) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && *pos < s.size(); shift += 7) {
    const auto c = static_cast<uint8_t>(s[(*pos)++]);
    v |= static_cast<uint64_t>(c & 0x7f) << shift;
    if ((c & 0x80) == 0) return v;
  }
  MalformedSnapshot(path_, "a truncated varint");
}

std::string_view SnapshotItemReader::Bytes(std::string_view s, size_t* pos) {
  const uint64_t len = Uvarint(s, pos);
  if (len > s.size() - *pos) MalformedSnapshot(path_, "a field longer than its item");
  const std::string_view out = s.substr(*pos, len);
  *pos += len;
  return out;
}

std::string SnapshotItemReader::DecodeStore(std::string_view body) {
  std::string name;
  size_t pos = 0;
  while (pos < body.size()) {
    const uint64_t tag = Uvarint(body, &pos);
    if (tag != (1 << 3 | 2)) MalformedSnapshot(path_, "a store item with an unknown field");
    name = std::string(Bytes(body, &pos));
  }
  return name;
}

void SnapshotItemReader::DecodeNode(std::string_view body, SnapshotItem* item) {
  size_t pos = 0;
  while (pos < body.size()) {
    const uint64_t tag = Uvarint(body, &pos);
    switch (tag) {
      case 1 << 3 | 2: item->key.assign(Bytes(body, &pos)); break;
      case 2 << 3 | 2: item->value.assign(Bytes(body, &pos)); break;
      case 3 << 3 | 0: item->version = static_cast<int64_t>(Uvarint(body, &pos)); break;
      case 4 << 3 | 0: item->height = static_cast<int64_t>(Uvarint(body, &pos)); break;
      default: MalformedSnapshot(path_, "a node item with an unknown field");
    }
  }
  if (item->height < 0 || item->height > 127) MalformedSnapshot(path_, "a node height outside 0..127");
}

}  // namespace strata::sc
