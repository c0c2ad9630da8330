// Helpers shared by the state-commitment (sc_*) tests: hex in and out, so published
// vectors can be written down exactly as their sources print them.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "encoding.h"
#include "sc/sha256.h"

namespace strata::sc::test {

/// Lower-case hex of `bytes`.
inline std::string Hex(std::string_view bytes) { return encoding::Hex(bytes); }

/// Lower-case hex of a digest.
inline std::string Hex(const Sha256Digest& digest) { return Hex(DigestView(digest)); }

/// The bytes spelled by `hex` (either case); throws on odd length or a non-hex character.
inline std::string Unhex(std::string_view hex) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    throw std::invalid_argument("not a hex digit");
  };
  if (hex.size() % 2 != 0) throw std::invalid_argument("odd hex length");
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    out.push_back(static_cast<char>(nibble(hex[i]) << 4 | nibble(hex[i + 1])));
  }
  return out;
}

}  // namespace strata::sc::test
