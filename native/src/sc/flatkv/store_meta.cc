#include "sc/flatkv/store_meta.h"

#include <zlib.h>

#include "encoding.h"
#include "strata/status.h"

namespace strata::sc::flatkv {
namespace {

constexpr uint8_t kMetaFormat = 1;
constexpr size_t kBodyBytes = 1 + 8 + 8 + 8 + kLtHashBytes;
constexpr size_t kRecordBytes = kBodyBytes + 4;

uint32_t Crc32Of(std::string_view data) {
  return static_cast<uint32_t>(
      crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
}

}  // namespace

std::string EncodeStoreMeta(const StoreMeta& meta) {
  std::string out;
  out.reserve(kRecordBytes);
  out.push_back(static_cast<char>(kMetaFormat));
  encoding::PutFixed64LE(&out, static_cast<uint64_t>(meta.version));
  encoding::PutFixed64LE(&out, meta.changelog_index);
  encoding::PutFixed64LE(&out, static_cast<uint64_t>(meta.origin_version));
  out.append(meta.hash.Serialize());
  encoding::PutFixed32LE(&out, Crc32Of(out));
  return out;
}

StoreMeta DecodeStoreMeta(std::string_view bytes, const std::string& where) {
  auto damaged = [&](const std::string& why) {
    return Error(ErrorCode::kCorruption, "FlatKV metadata of " + where + " is damaged (" + why +
                                             "); roll the store back to a snapshot or restore it from a "
                                             "state-sync snapshot");
  };
  if (bytes.size() != kRecordBytes) {
    throw damaged(std::to_string(bytes.size()) + " bytes instead of " + std::to_string(kRecordBytes));
  }
  if (encoding::DecodeFixed32LE(bytes.data() + kBodyBytes) != Crc32Of(bytes.substr(0, kBodyBytes))) {
    throw damaged("checksum mismatch");
  }
  if (static_cast<uint8_t>(bytes[0]) != kMetaFormat) {
    throw damaged("unknown format " + std::to_string(static_cast<uint8_t>(bytes[0])));
  }
  StoreMeta meta;
  meta.version = static_cast<int64_t>(encoding::DecodeFixed64LE(bytes.data() + 1));
  meta.changelog_index = encoding::DecodeFixed64LE(bytes.data() + 9);
  meta.origin_version = static_cast<int64_t>(encoding::DecodeFixed64LE(bytes.data() + 17));
  meta.hash = LtHash::Deserialize(bytes.substr(25, kLtHashBytes));
  if (meta.version < 0 || meta.origin_version < 0 || meta.origin_version > meta.version) {
    throw damaged("version " + std::to_string(meta.version) + " with origin " + std::to_string(meta.origin_version));
  }
  return meta;
}

}  // namespace strata::sc::flatkv
