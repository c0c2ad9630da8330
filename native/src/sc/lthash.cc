#include "sc/lthash.h"

#include <cstring>
#include <limits>

#include "strata/status.h"

namespace strata::sc {
namespace {

// On a little-endian host the 2048-byte encoding is the limb array's own memory image, so
// the XOF can write limbs directly and (de)serialization is a copy.
constexpr bool kLittleEndianHost = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

// Serialized entries up to this size (every ordinary FlatKV row) are built on the stack.
constexpr size_t kStackEntryBytes = 512;

constexpr size_t kLengthPrefixSize = 4;

void StoreLittleEndian32(uint32_t v, char* out) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(v >> (8 * i));
}

// The length prefix is 32 bits wide; a longer field could not be encoded unambiguously.
uint32_t LengthPrefix(std::string_view field) {
  if (field.size() > std::numeric_limits<uint32_t>::max()) {
    throw Error(ErrorCode::kInvalidArgument,
                "LtHash entry field longer than 2^32-1 bytes; such an entry cannot be hashed");
  }
  return static_cast<uint32_t>(field.size());
}

size_t SerializedKvSize(std::string_view key, std::string_view value) {
  return 2 * kLengthPrefixSize + key.size() + value.size();
}

// Writes SerializeKv(key, value) to `out`, which has room for SerializedKvSize bytes.
void SerializeKvInto(std::string_view key, std::string_view value, char* out) {
  StoreLittleEndian32(LengthPrefix(key), out);
  out += kLengthPrefixSize;
  if (!key.empty()) std::memcpy(out, key.data(), key.size());
  out += key.size();
  StoreLittleEndian32(LengthPrefix(value), out);
  out += kLengthPrefixSize;
  if (!value.empty()) std::memcpy(out, value.data(), value.size());
}

// The entry's 2048-byte XOF stream, written to `out`.
void EntryXof(std::string_view key, std::string_view value, Blake3Engine engine, uint8_t* out) {
  const size_t size = SerializedKvSize(key, value);
  if (size <= kStackEntryBytes) {
    char entry[kStackEntryBytes];
    SerializeKvInto(key, value, entry);
    Blake3XofInto(std::string_view(entry, size), out, kLtHashBytes, engine);
  } else {
    Blake3XofInto(SerializeKv(key, value), out, kLtHashBytes, engine);
  }
}

uint16_t LoadLittleEndian16(const uint8_t* p) {
  if constexpr (kLittleEndianHost) {
    uint16_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
  } else {
    return static_cast<uint16_t>(p[0] | p[1] << 8);
  }
}

// The limb loops below are plain element-wise uint16 arithmetic over fixed-size arrays,
// which compilers turn into packed 16-bit adds; the uint16_t casts truncate the int
// promotion, which is exactly arithmetic mod 2^16.

void AddEncodedLimbs(uint16_t* limbs, const uint8_t* encoded) {
  for (size_t i = 0; i < kLtHashLimbs; ++i) {
    limbs[i] = static_cast<uint16_t>(limbs[i] + LoadLittleEndian16(encoded + 2 * i));
  }
}

void SubtractEncodedLimbs(uint16_t* limbs, const uint8_t* encoded) {
  for (size_t i = 0; i < kLtHashLimbs; ++i) {
    limbs[i] = static_cast<uint16_t>(limbs[i] - LoadLittleEndian16(encoded + 2 * i));
  }
}

void DecodeLimbs(const uint8_t* encoded, uint16_t* limbs) {
  if constexpr (kLittleEndianHost) {
    std::memcpy(limbs, encoded, kLtHashBytes);
  } else {
    for (size_t i = 0; i < kLtHashLimbs; ++i) limbs[i] = LoadLittleEndian16(encoded + 2 * i);
  }
}

void EncodeLimbs(const uint16_t* limbs, uint8_t* encoded) {
  if constexpr (kLittleEndianHost) {
    std::memcpy(encoded, limbs, kLtHashBytes);
  } else {
    for (size_t i = 0; i < kLtHashLimbs; ++i) {
      encoded[2 * i] = static_cast<uint8_t>(limbs[i] & 0xff);
      encoded[2 * i + 1] = static_cast<uint8_t>(limbs[i] >> 8);
    }
  }
}

bool SkipsEntry(std::string_view key, std::string_view value) {
  // Digest §9.2: sei hashes no entry with an empty key or value, so such entries add nothing.
  return key.empty() || value.empty();
}

}  // namespace

std::string SerializeKv(std::string_view key, std::string_view value) {
  std::string out(SerializedKvSize(key, value), '\0');
  SerializeKvInto(key, value, out.data());
  return out;
}

LtHash EntryHash(std::string_view key, std::string_view value) {
  return EntryHash(key, value, DefaultBlake3Engine());
}

LtHash EntryHash(std::string_view key, std::string_view value, Blake3Engine engine) {
  LtHash entry;
  if (SkipsEntry(key, value)) return entry;
  if constexpr (kLittleEndianHost) {
    EntryXof(key, value, engine, reinterpret_cast<uint8_t*>(entry.limbs_.data()));
  } else {
    alignas(32) uint8_t xof[kLtHashBytes];
    EntryXof(key, value, engine, xof);
    DecodeLimbs(xof, entry.limbs_.data());
  }
  return entry;
}

void LtHash::MixIn(std::string_view key, std::string_view value) {
  if (SkipsEntry(key, value)) return;
  alignas(32) uint8_t xof[kLtHashBytes];
  EntryXof(key, value, DefaultBlake3Engine(), xof);
  AddEncodedLimbs(limbs_.data(), xof);
}

void LtHash::MixOut(std::string_view key, std::string_view value) {
  if (SkipsEntry(key, value)) return;
  alignas(32) uint8_t xof[kLtHashBytes];
  EntryXof(key, value, DefaultBlake3Engine(), xof);
  SubtractEncodedLimbs(limbs_.data(), xof);
}

void LtHash::Add(const LtHash& other) {
  for (size_t i = 0; i < kLtHashLimbs; ++i) {
    limbs_[i] = static_cast<uint16_t>(limbs_[i] + other.limbs_[i]);
  }
}

void LtHash::Subtract(const LtHash& other) {
  for (size_t i = 0; i < kLtHashLimbs; ++i) {
    limbs_[i] = static_cast<uint16_t>(limbs_[i] - other.limbs_[i]);
  }
}

std::string LtHash::Serialize() const {
  std::string out(kLtHashBytes, '\0');
  EncodeLimbs(limbs_.data(), reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

LtHash LtHash::Deserialize(std::string_view bytes) {
  if (bytes.size() != kLtHashBytes) {
    throw Error(ErrorCode::kInvalidArgument,
                "LtHash needs " + std::to_string(kLtHashBytes) + " bytes, got " +
                    std::to_string(bytes.size()) + "; the stored lattice hash is truncated or "
                    "not an LtHash");
  }
  LtHash hash;
  DecodeLimbs(reinterpret_cast<const uint8_t*>(bytes.data()), hash.limbs_.data());
  return hash;
}

Blake3Digest LtHash::Checksum() const {
  uint8_t encoded[kLtHashBytes];
  EncodeLimbs(limbs_.data(), encoded);
  return Blake3Of(std::string_view(reinterpret_cast<const char*>(encoded), kLtHashBytes));
}

bool LtHash::IsZero() const {
  // OR-folding all limbs keeps the loop branch-free, so it vectorises like Add.
  uint16_t any = 0;
  for (uint16_t limb : limbs_) any = static_cast<uint16_t>(any | limb);
  return any == 0;
}

}  // namespace strata::sc
