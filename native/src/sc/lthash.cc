#include "sc/lthash.h"

#include <limits>

#include "strata/status.h"

namespace strata::sc {
namespace {

void AppendLittleEndian32(uint32_t v, std::string& out) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
}

// The length prefix is 32 bits wide; a longer field could not be encoded unambiguously.
uint32_t LengthPrefix(std::string_view field) {
  if (field.size() > std::numeric_limits<uint32_t>::max()) {
    throw Error(ErrorCode::kInvalidArgument, "LtHash entry field longer than 2^32-1 bytes");
  }
  return static_cast<uint32_t>(field.size());
}

}  // namespace

std::string SerializeKv(std::string_view key, std::string_view value) {
  std::string out;
  out.reserve(8 + key.size() + value.size());
  AppendLittleEndian32(LengthPrefix(key), out);
  out.append(key);
  AppendLittleEndian32(LengthPrefix(value), out);
  out.append(value);
  return out;
}

LtHash EntryHash(std::string_view key, std::string_view value) {
  // Digest §9.2: sei hashes no entry with an empty key or value, so such entries add nothing.
  if (key.empty() || value.empty()) return LtHash();
  return LtHash::Deserialize(Blake3Xof(SerializeKv(key, value), kLtHashBytes));
}

void LtHash::MixIn(std::string_view key, std::string_view value) { Add(EntryHash(key, value)); }

void LtHash::MixOut(std::string_view key, std::string_view value) {
  Subtract(EntryHash(key, value));
}

// uint16_t arithmetic promotes to int; the cast back truncates, which is exactly mod 2^16.
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
  for (size_t i = 0; i < kLtHashLimbs; ++i) {
    out[2 * i] = static_cast<char>(limbs_[i] & 0xff);
    out[2 * i + 1] = static_cast<char>(limbs_[i] >> 8);
  }
  return out;
}

LtHash LtHash::Deserialize(std::string_view bytes) {
  if (bytes.size() != kLtHashBytes) {
    throw Error(ErrorCode::kInvalidArgument,
                "LtHash needs " + std::to_string(kLtHashBytes) + " bytes, got " +
                    std::to_string(bytes.size()));
  }
  LtHash hash;
  for (size_t i = 0; i < kLtHashLimbs; ++i) {
    auto lo = static_cast<uint8_t>(bytes[2 * i]);
    auto hi = static_cast<uint8_t>(bytes[2 * i + 1]);
    hash.limbs_[i] = static_cast<uint16_t>(lo | hi << 8);
  }
  return hash;
}

Blake3Digest LtHash::Checksum() const { return Blake3Of(Serialize()); }

bool LtHash::IsZero() const {
  for (uint16_t limb : limbs_) {
    if (limb != 0) return false;
  }
  return true;
}

}  // namespace strata::sc
