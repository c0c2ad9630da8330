// Byte-level encodings shared by both layouts: fixed-width integers, the `s/k:<store>/`
// key space, and the Pebble-style MVCC key and value wrappers.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace strata::encoding {

/// Appends the hex of `bytes` to `out`, lower case unless `upper_case` (dump-iavl's format).
inline void AppendHex(std::string* out, std::string_view bytes, bool upper_case = false) {
  const char* digits = upper_case ? "0123456789ABCDEF" : "0123456789abcdef";
  for (unsigned char c : bytes) {
    out->push_back(digits[c >> 4]);
    out->push_back(digits[c & 0x0f]);
  }
}

/// The lower-case hex of `bytes`.
inline std::string Hex(std::string_view bytes) {
  std::string out;
  AppendHex(&out, bytes);
  return out;
}

inline void PutFixed64LE(std::string* out, uint64_t v) {
  char buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>(v >> (8 * i));
  out->append(buf, 8);
}

inline uint64_t DecodeFixed64LE(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

inline void PutFixed32LE(std::string* out, uint32_t v) {
  char buf[4];
  for (int i = 0; i < 4; ++i) buf[i] = static_cast<char>(v >> (8 * i));
  out->append(buf, 4);
}

inline uint32_t DecodeFixed32LE(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

inline void PutFixed64BE(std::string* out, uint64_t v) {
  char buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>(v >> (8 * (7 - i)));
  out->append(buf, 8);
}

inline uint64_t DecodeFixed64BE(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

/// "s/k:" — every module-store key lives under this prefix.
constexpr std::string_view kStoreKeySpace = "s/k:";

/// Appends `s/k:<store>/<key>` to `out`.
inline void AppendStoreKey(std::string* out, std::string_view store, std::string_view key) {
  out->append(kStoreKeySpace);
  out->append(store);
  out->push_back('/');
  out->append(key);
}

/// `s/k:<store>/`
inline std::string StorePrefix(std::string_view store) {
  std::string p;
  AppendStoreKey(&p, store, {});
  return p;
}

/// Splits `s/k:<store>/<key>` into store and key; false for keys outside that space.
inline bool SplitStoreKey(std::string_view full, std::string_view* store, std::string_view* key) {
  if (full.substr(0, kStoreKeySpace.size()) != kStoreKeySpace) return false;
  std::string_view rest = full.substr(kStoreKeySpace.size());
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return false;
  *store = rest.substr(0, slash);
  *key = rest.substr(slash + 1);
  return true;
}

/// Smallest key greater than every key starting with `prefix`; empty if none exists
/// (the prefix is all 0xff bytes).
inline std::string PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    auto& last = reinterpret_cast<uint8_t&>(end.back());
    if (last != 0xff) {
      ++last;
      return end;
    }
    end.pop_back();
  }
  return end;
}

// ---- Pebble-style MVCC encoding ----------------------------------------------------------
//
// Key:   user_key ‖ 0x00                              (version 0: metadata)
//        user_key ‖ 0x00 ‖ ^version (8, BE) ‖ 0x09     (version > 0)
// The last byte is the length of the timestamp section that precedes it, so the user key is
// found from the end. ^version makes newer versions sort first within a user key.
// Value: raw ‖ 0x00 for a live value; "TOMBSTONE" ‖ 0x00 ‖ ^version ‖ 0x09 for a delete.

constexpr uint8_t kMvccTimestampLen = 9;  // separator byte + 8 version bytes
constexpr std::string_view kTombstone = "TOMBSTONE";

/// Appends the MVCC trailer of `version` to a user key already in `out`.
inline void AppendMvccTrailer(std::string* out, uint64_t version) {
  out->push_back('\0');
  if (version > 0) {
    PutFixed64BE(out, ~version);
    out->push_back(static_cast<char>(kMvccTimestampLen));
  }
}

inline void AppendMvccKey(std::string* out, std::string_view user_key, uint64_t version) {
  out->append(user_key);
  AppendMvccTrailer(out, version);
}

/// A decoded MVCC key. A key whose trailer does not parse is treated as a bare user key.
struct MvccKey {
  std::string_view user_key;
  std::string_view timestamp;  // separator + version bytes, or empty
  uint64_t version() const {
    return timestamp.size() == kMvccTimestampLen ? ~DecodeFixed64BE(timestamp.data() + 1) : 0;
  }
};

inline MvccKey SplitMvccKey(std::string_view key) {
  if (key.empty()) return {key, {}};
  size_t ts_len = static_cast<uint8_t>(key.back());
  if (ts_len + 1 > key.size()) return {key, {}};
  size_t user_end = key.size() - 1 - ts_len;
  return {key.substr(0, user_end), key.substr(user_end, ts_len)};
}

inline void AppendLiveValue(std::string* out, std::string_view raw) {
  out->append(raw);
  out->push_back('\0');
}

inline void AppendTombstoneValue(std::string* out, uint64_t version) {
  AppendMvccKey(out, kTombstone, version);
}

/// Unwraps a stored value. Returns false for a tombstone; throws kCorruption if malformed.
bool UnwrapValue(std::string_view stored, std::string_view* raw);

}  // namespace strata::encoding
