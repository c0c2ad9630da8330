// Go's variable-length integer encodings (encoding/binary), as IAVL node hashes and the
// Cosmos commit-info leaves use them. Byte-exact compatibility is the point: any difference
// changes every hash built on top.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace strata::sc {

/// Appends `value` as Go's binary.PutUvarint does: 7 bits per byte, least significant group
/// first, high bit set on every byte but the last.
inline void PutUvarint(std::string* out, uint64_t value) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

/// Go's zig-zag mapping for signed varints: 0, -1, 1, -2, ... become 0, 1, 2, 3, ...
inline uint64_t ZigZag(int64_t value) {
  uint64_t shifted = static_cast<uint64_t>(value) << 1;
  return value < 0 ? ~shifted : shifted;
}

/// Appends `value` as Go's binary.PutVarint does: zig-zag, then PutUvarint.
inline void PutVarint(std::string* out, int64_t value) { PutUvarint(out, ZigZag(value)); }

/// Appends uvarint(len(bytes)) ‖ bytes: Go's length-prefixed byte slice (iavl EncodeBytes).
inline void PutLengthPrefixed(std::string* out, std::string_view bytes) {
  PutUvarint(out, bytes.size());
  out->append(bytes);
}

}  // namespace strata::sc
