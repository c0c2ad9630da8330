#include "strata/changelog_entry.h"

#include "encoding.h"
#include "strata/status.h"

namespace strata {

using encoding::DecodeFixed32LE;
using encoding::DecodeFixed64LE;
using encoding::PutFixed32LE;
using encoding::PutFixed64LE;

namespace {
constexpr size_t kHeaderBytes = 12;  // version + changeset count
constexpr uint8_t kSet = 0;
constexpr uint8_t kDelete = 1;
}  // namespace

ChangelogEntryEncoder::ChangelogEntryEncoder(uint64_t version, size_t reserve_bytes) {
  buf_.reserve(kHeaderBytes + reserve_bytes);
  PutFixed64LE(&buf_, version);
  PutFixed32LE(&buf_, 0);  // changeset count, patched by Finish
}

void ChangelogEntryEncoder::CheckPairCount() const {
  if (changesets_ > 0 && added_pairs_ != expected_pairs_) {
    throw Error(ErrorCode::kInvalidArgument, "changeset announced " + std::to_string(expected_pairs_) +
                                                 " pairs but got " + std::to_string(added_pairs_));
  }
}

void ChangelogEntryEncoder::BeginChangeset(std::string_view name, uint32_t pair_count) {
  CheckPairCount();
  CheckStoreName(name);
  PutFixed32LE(&buf_, static_cast<uint32_t>(name.size()));
  buf_.append(name);
  PutFixed32LE(&buf_, pair_count);
  ++changesets_;
  expected_pairs_ = pair_count;
  added_pairs_ = 0;
}

void ChangelogEntryEncoder::AddPair(std::string_view key, std::optional<std::string_view> value) {
  if (key.empty()) {
    throw Error(ErrorCode::kInvalidArgument, "changeset key is empty: keys must be at least one byte long");
  }
  if (changesets_ == 0) throw Error(ErrorCode::kInvalidArgument, "AddPair before BeginChangeset");
  if (key.size() > kMaxChangelogEntryBytes || (value && value->size() > kMaxChangelogEntryBytes)) {
    throw Error(ErrorCode::kInvalidArgument, "key or value larger than 4 GiB");
  }
  ++added_pairs_;
  buf_.push_back(static_cast<char>(value ? kSet : kDelete));
  PutFixed32LE(&buf_, static_cast<uint32_t>(key.size()));
  buf_.append(key);
  logical_bytes_ += key.size();
  if (value) {
    PutFixed32LE(&buf_, static_cast<uint32_t>(value->size()));
    buf_.append(*value);
    logical_bytes_ += value->size();
  }
}

std::string ChangelogEntryEncoder::Finish() {
  CheckPairCount();
  if (buf_.size() > kMaxChangelogEntryBytes) {
    throw Error(ErrorCode::kInvalidArgument, "block of " + std::to_string(buf_.size()) +
                                                 " bytes exceeds the 4 GiB changelog entry limit; split it");
  }
  std::string count;
  PutFixed32LE(&count, changesets_);
  buf_.replace(8, 4, count);
  return std::move(buf_);
}

void CheckStoreName(std::string_view name) {
  if (name.empty()) {
    throw Error(ErrorCode::kInvalidArgument, "store name is empty: name the module store, e.g. \"bank\"");
  }
  if (name.find('/') != std::string_view::npos) {
    throw Error(ErrorCode::kInvalidArgument,
                "store name \"" + std::string(name) + "\" contains '/': module store names must not contain '/'");
  }
}

uint64_t ValidateChangelogEntry(std::string_view entry) {
  try {
    return VisitChangelogEntry(entry, {
        [](std::string_view name, uint32_t) { CheckStoreName(name); },
        [](std::string_view key, std::optional<std::string_view>) {
          if (key.empty()) throw Error(ErrorCode::kInvalidArgument, "changeset key is empty: keys must be at least one byte long");
        },
    });
  } catch (const Error& e) {
    if (e.code() == ErrorCode::kInvalidArgument) throw;
    throw Error(ErrorCode::kInvalidArgument, std::string("malformed block entry: ") + e.what());
  }
}

uint64_t ChangelogEntryVersion(std::string_view entry) {
  if (entry.size() < kHeaderBytes) {
    throw Error(ErrorCode::kCorruption, "changelog entry is shorter than its header");
  }
  return DecodeFixed64LE(entry.data());
}

namespace {

// Bounds-checked cursor over an encoded entry.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  uint32_t U32() { return DecodeFixed32LE(Take(4).data()); }
  uint8_t U8() { return static_cast<uint8_t>(Take(1)[0]); }
  std::string_view Take(size_t n) {
    if (data_.size() - pos_ < n) {
      throw Error(ErrorCode::kCorruption, "changelog entry is truncated at byte " + std::to_string(pos_));
    }
    std::string_view out = data_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  bool done() const { return pos_ == data_.size(); }

 private:
  std::string_view data_;
  size_t pos_ = kHeaderBytes;
};

}  // namespace

uint64_t VisitChangelogEntry(std::string_view entry, const ChangelogEntryVisitor& visitor) {
  uint64_t version = ChangelogEntryVersion(entry);
  uint32_t changesets = DecodeFixed32LE(entry.data() + 8);
  Reader r(entry);
  for (uint32_t c = 0; c < changesets; ++c) {
    std::string_view name = r.Take(r.U32());
    uint32_t pairs = r.U32();
    if (visitor.on_changeset) visitor.on_changeset(name, pairs);
    for (uint32_t p = 0; p < pairs; ++p) {
      uint8_t kind = r.U8();
      if (kind != kSet && kind != kDelete) {
        throw Error(ErrorCode::kCorruption, "changelog entry has an unknown pair kind " + std::to_string(kind));
      }
      std::string_view key = r.Take(r.U32());
      std::optional<std::string_view> value;
      if (kind == kSet) value = r.Take(r.U32());
      if (visitor.on_pair) visitor.on_pair(key, value);
    }
  }
  if (!r.done()) throw Error(ErrorCode::kCorruption, "changelog entry has trailing bytes");
  return version;
}

}  // namespace strata
