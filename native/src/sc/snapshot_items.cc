#include "sc/snapshot_items.h"

#include "strata/status.h"

namespace strata::sc {

[[noreturn]] void MalformedSnapshot(const std::string& path, const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, "state snapshot " + path + " is malformed (" + what +
                                               "); fetch the snapshot again from a trusted peer");
}

SnapshotItemReader::SnapshotItemReader(const std::string& path) : path_(path), in_(path, std::ios::binary) {
  if (!in_) throw Error(ErrorCode::kInvalidArgument, "cannot read state snapshot " + path + "; check the path");
}

bool SnapshotItemReader::Next(SnapshotItem* item) {
  uint64_t len = 0;
  if (!ReadStreamUvarint(&len)) return false;
  if (len > kMaxSnapshotItemBytes) MalformedSnapshot(path_, "an item of " + std::to_string(len) + " bytes");
  msg_.resize(len);
  if (!in_.read(msg_.data(), static_cast<std::streamsize>(len))) MalformedSnapshot(path_, "the stream ends inside an item");
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
  while (pos < msg_.size()) {
    const uint64_t tag = Uvarint(msg_, &pos);
    if ((tag & 7) != 2) MalformedSnapshot(path_, "an item field that is not a message");
    const std::string_view body = Bytes(msg_, &pos);
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
  for (int shift = 0; shift < 64; shift += 7) {
    const int c = in_.get();
    if (c == EOF) {
      if (shift == 0) return false;
      MalformedSnapshot(path_, "the stream ends inside a length");
    }
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
      case 1 << 3 | 2: item->key = std::string(Bytes(body, &pos)); break;
      case 2 << 3 | 2: item->value = std::string(Bytes(body, &pos)); break;
      case 3 << 3 | 0: item->version = static_cast<int64_t>(Uvarint(body, &pos)); break;
      case 4 << 3 | 0: item->height = static_cast<int64_t>(Uvarint(body, &pos)); break;
      default: MalformedSnapshot(path_, "a node item with an unknown field");
    }
  }
  if (item->height < 0 || item->height > 127) MalformedSnapshot(path_, "a node height outside 0..127");
}

}  // namespace strata::sc
