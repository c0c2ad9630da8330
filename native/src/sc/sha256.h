// SHA-256 (FIPS 180-4). Self-contained so the storage core needs no crypto library: the
// Node addon runs inside a process that already carries its own OpenSSL, and linking a
// second copy into the addon invites symbol clashes for the sake of one hash function.
//
// The block compression has two engines: portable C++ and the x86 SHA extensions. The
// fastest one the CPU supports is picked at run time, so one binary runs on any x86-64 and
// still uses SHA-NI where it exists; callers that need a particular engine (the tests that
// compare engines, the benchmark) name it explicitly.
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

/// The implementations of the SHA-256 block compression.
enum class Sha256Engine {
  kPortable,  // plain C++, runs everywhere
  kShaNi,     // x86 SHA extensions (SHA256RNDS2 / SHA256MSG1 / SHA256MSG2)
};

/// True when this CPU can run `engine`.
bool Sha256EngineSupported(Sha256Engine engine);

/// The fastest engine this CPU supports; what Sha256() and Sha256Of(data) use.
Sha256Engine DefaultSha256Engine();

/// A short lower-case name for `engine` ("portable", "sha-ni"), for benchmark output.
const char* Sha256EngineName(Sha256Engine engine);

/// Incremental SHA-256: feed bytes with Update, take the digest with Finish.
class Sha256 {
 public:
  /// A hasher on the default engine.
  Sha256();

  /// A hasher on `engine`; throws strata::Error(kNotSupported) if this CPU cannot run it.
  explicit Sha256(Sha256Engine engine);

  /// Hashes `data` after everything fed so far.
  void Update(std::string_view data);

  /// Returns the digest of everything fed so far and resets to the empty message.
  Sha256Digest Finish();

  static constexpr size_t kBlockSize = 64;

  /// Folds `count` consecutive 64-byte blocks into the eight-word chaining state.
  using CompressFn = void (*)(uint32_t* state, const uint8_t* blocks, size_t count);

 private:
  void Reset();

  CompressFn compress_;
  std::array<uint32_t, 8> state_;
  std::array<uint8_t, kBlockSize> pending_;  // bytes not yet compressed
  size_t pending_size_ = 0;
  uint64_t message_size_ = 0;  // bytes fed since the last reset
};

/// SHA-256 of `data`.
Sha256Digest Sha256Of(std::string_view data);

/// SHA-256 of `data` on `engine`; throws strata::Error(kNotSupported) if the CPU lacks it.
Sha256Digest Sha256Of(std::string_view data, Sha256Engine engine);

/// The digest's 32 bytes as a string, for APIs that carry hashes as byte strings.
std::string DigestBytes(const Sha256Digest& digest);

/// The digest's bytes viewed as a string_view (valid while `digest` lives).
inline std::string_view DigestView(const Sha256Digest& digest) {
  return {reinterpret_cast<const char*>(digest.data()), digest.size()};
}

namespace sha256_detail {

/// FIPS 180-4 §4.2.2 round constants, 16-byte aligned for the SIMD kernels.
extern const uint32_t kRoundConstants[64];

/// The SHA-NI compression (sha256_shani.cc, built with -msha -msse4.1). Call it only when
/// Sha256EngineSupported(Sha256Engine::kShaNi).
void CompressBlocksShaNi(uint32_t* state, const uint8_t* blocks, size_t count);

}  // namespace sha256_detail

}  // namespace strata::sc
