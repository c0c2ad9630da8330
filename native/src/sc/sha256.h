// SHA-256 (FIPS 180-4). Self-contained so the storage core needs no crypto library: the
// Node addon runs inside a process that already carries its own OpenSSL, and linking a
// second copy into the addon invites symbol clashes for the sake of one hash function.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace strata::sc {

inline constexpr size_t kSha256Size = 32;

/// A SHA-256 digest: 32 raw bytes.
using Sha256Digest = std::array<uint8_t, kSha256Size>;

/// Incremental SHA-256: feed bytes with Update, take the digest with Finish.
class Sha256 {
 public:
  Sha256();

  /// Hashes `data` after everything fed so far.
  void Update(std::string_view data);

  /// Returns the digest of everything fed so far and resets to the empty message.
  Sha256Digest Finish();

 private:
  static constexpr size_t kBlockSize = 64;

  void Reset();
  void CompressBlock(const uint8_t* block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, kBlockSize> pending_;  // bytes not yet compressed
  size_t pending_size_ = 0;
  uint64_t message_size_ = 0;  // bytes fed since the last reset
};

/// SHA-256 of `data`.
Sha256Digest Sha256Of(std::string_view data);

/// The digest's 32 bytes as a string, for APIs that carry hashes as byte strings.
std::string DigestBytes(const Sha256Digest& digest);

/// The digest's bytes viewed as a string_view (valid while `digest` lives).
inline std::string_view DigestView(const Sha256Digest& digest) {
  return {reinterpret_cast<const char*>(digest.data()), digest.size()};
}

}  // namespace strata::sc
