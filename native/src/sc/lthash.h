// FlatKV's lattice hash (LtHash, Bellare–Micciancio / Lewi et al., as used by sei's FlatKV;
// digest §9.2): a 1024-limb vector of uint16 that commits to a set of key/value entries.
// Each entry maps to a pseudo-random vector (BLAKE3 XOF of the entry); the set's hash is the
// limb-wise sum mod 2^16. Because the sum is commutative and invertible, a commit updates
// the hash from its changes alone (MixOut the old entry, MixIn the new one), in any order
// and split over any number of workers whose partial sums are then added.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "sc/blake3.h"

namespace strata::sc {

inline constexpr size_t kLtHashLimbs = 1024;
inline constexpr size_t kLtHashBytes = kLtHashLimbs * 2;

/// A lattice hash: 1024 uint16 limbs, added and subtracted limb-wise mod 2^16.
class LtHash {
 public:
  /// The zero vector: the hash of the empty set.
  LtHash() = default;

  /// Adds the entry (key, value) to the set: this += EntryHash(key, value).
  void MixIn(std::string_view key, std::string_view value);

  /// Removes the entry (key, value) from the set: this -= EntryHash(key, value).
  void MixOut(std::string_view key, std::string_view value);

  /// this += other, limb-wise mod 2^16.
  void Add(const LtHash& other);

  /// this -= other, limb-wise mod 2^16.
  void Subtract(const LtHash& other);

  /// The 2048-byte encoding: each limb as little-endian uint16, limb 0 first.
  std::string Serialize() const;

  /// Parses Serialize()'s encoding; throws strata::Error(kInvalidArgument) unless 2048 bytes.
  static LtHash Deserialize(std::string_view bytes);

  /// BLAKE3-256 of Serialize(): FlatKV's 32-byte root hash.
  Blake3Digest Checksum() const;

  /// True for the zero vector.
  bool IsZero() const;

  /// Limb `i` (0 ≤ i < 1024).
  uint16_t limb(size_t i) const { return limbs_[i]; }

  bool operator==(const LtHash& other) const { return limbs_ == other.limbs_; }
  bool operator!=(const LtHash& other) const { return !(*this == other); }

 private:
  friend LtHash EntryHash(std::string_view key, std::string_view value, Blake3Engine engine);

  std::array<uint16_t, kLtHashLimbs> limbs_{};
};

/// serializeKV: u32le(len key) ‖ key ‖ u32le(len value) ‖ value.
std::string SerializeKv(std::string_view key, std::string_view value);

/// The vector of one entry: BLAKE3-XOF(SerializeKv(key, value)), 2048 bytes read as LE
/// limbs; the zero vector when key or value is empty, so such entries contribute nothing.
LtHash EntryHash(std::string_view key, std::string_view value);

/// EntryHash with its XOF computed on `engine` (the result is the same on every engine);
/// throws strata::Error(kNotSupported) if this CPU cannot run it.
LtHash EntryHash(std::string_view key, std::string_view value, Blake3Engine engine);

}  // namespace strata::sc
