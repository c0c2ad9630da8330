// BLAKE3 (the published specification, "BLAKE3: one function, fast everywhere", 2020),
// unkeyed hash mode only: FlatKV's LtHash needs both the 32-byte digest and the extendable
// output. Self-contained for the same reason as sha256.h: the storage core links no crypto
// library.
//
// LtHash inputs are short (one chunk), so chunks are hashed one at a time and the work that
// matters is the extendable output: 2048 bytes per entry, 32 compressions that differ only
// in their output block counter. The SIMD engines run those compressions several at a time
// (4 lanes with SSE4.1, 8 with AVX2, 16 with AVX-512) and compress input blocks with SSE4.1;
// the fastest engine the CPU supports is picked at run time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace strata::sc {

inline constexpr size_t kBlake3Size = 32;

/// A default-length BLAKE3 digest: 32 raw bytes.
using Blake3Digest = std::array<uint8_t, kBlake3Size>;

/// The implementations of the BLAKE3 compression function.
enum class Blake3Engine {
  kPortable,  // plain C++, runs everywhere
  kSse41,     // SSE4.1: one input block at a time, 4 output blocks at a time
  kAvx2,      // SSE4.1 for input blocks, AVX2 for 8 output blocks at a time
  kAvx512,    // SSE4.1 for input blocks, AVX-512F for 16 output blocks at a time
};

/// True when this CPU can run `engine`.
bool Blake3EngineSupported(Blake3Engine engine);

/// The fastest engine this CPU supports; what the functions without an engine argument use.
Blake3Engine DefaultBlake3Engine();

/// A short lower-case name for `engine` ("portable", "sse4.1", "avx2", "avx512"), for
/// benchmark output.
const char* Blake3EngineName(Blake3Engine engine);

namespace blake3_detail {

/// Compresses one 64-byte block into the chaining value `cv` (8 words, updated in place):
/// input blocks of a chunk and parent nodes. `block` is zero-padded past `block_len`.
using CompressInPlaceFn = void (*)(uint32_t* cv, const uint8_t* block, uint32_t block_len,
                                   uint64_t counter, uint32_t flags);

/// Writes `count` consecutive 64-byte blocks of root output (spec §2.6) to `out`: the
/// compressions of one node whose output block counters are first_counter, first_counter+1,
/// and so on. `flags` already include ROOT.
using RootBlocksFn = void (*)(const uint32_t* cv, const uint8_t* block, uint32_t block_len,
                              uint64_t first_counter, uint32_t flags, size_t count,
                              uint8_t* out);

/// The kernels of one engine.
struct Kernels {
  CompressInPlaceFn compress_in_place;
  RootBlocksFn root_blocks;
};

/// The kernels of `engine`; throws strata::Error(kNotSupported) if this CPU cannot run it.
const Kernels& KernelsFor(Blake3Engine engine);

/// Spec §2.1: the IV is SHA-256's initial hash value.
inline constexpr uint32_t kIv[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

inline constexpr size_t kRounds = 7;

/// Which message word each round reads at each position: round 0 reads them in order and
/// each later round applies the spec §2.2 permutation to the previous round's order. A plain
/// array, so the SIMD files (built for other instruction sets) index it without calling any
/// shared inline function.
struct MessageSchedule {
  uint8_t word[kRounds][16];
};

inline constexpr MessageSchedule kMessageSchedule = [] {
  constexpr uint8_t kPermutation[16] = {2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8};
  MessageSchedule schedule{};
  for (uint8_t i = 0; i < 16; ++i) schedule.word[0][i] = i;
  for (size_t r = 1; r < kRounds; ++r) {
    for (size_t i = 0; i < 16; ++i) schedule.word[r][i] = schedule.word[r - 1][kPermutation[i]];
  }
  return schedule;
}();

/// SSE4.1 kernels (blake3_sse41.cc, built with -msse4.1); call only when the CPU has SSE4.1.
void CompressInPlaceSse41(uint32_t* cv, const uint8_t* block, uint32_t block_len,
                          uint64_t counter, uint32_t flags);
void RootBlocksSse41(const uint32_t* cv, const uint8_t* block, uint32_t block_len,
                     uint64_t first_counter, uint32_t flags, size_t count, uint8_t* out);

/// AVX2 kernel (blake3_avx2.cc, built with -mavx2); call only when the CPU has AVX2 and SSE4.1.
void RootBlocksAvx2(const uint32_t* cv, const uint8_t* block, uint32_t block_len,
                    uint64_t first_counter, uint32_t flags, size_t count, uint8_t* out);

/// AVX-512 kernel (blake3_x86_avx512.cc, built with -mavx512f); call only when the CPU has
/// AVX-512F, AVX2 and SSE4.1.
void RootBlocksAvx512(const uint32_t* cv, const uint8_t* block, uint32_t block_len,
                      uint64_t first_counter, uint32_t flags, size_t count, uint8_t* out);

}  // namespace blake3_detail

/// Incremental BLAKE3: feed bytes with Update, read any amount of output with Finalize.
class Blake3 {
 public:
  /// A hasher on the default engine.
  Blake3();

  /// A hasher on `engine`; throws strata::Error(kNotSupported) if this CPU cannot run it.
  explicit Blake3(Blake3Engine engine);

  /// Hashes `data` after everything fed so far.
  void Update(std::string_view data);

  /// Writes the first `out_len` bytes of the extendable output of everything fed so far.
  /// Does not change the hasher, so more input may follow.
  void Finalize(uint8_t* out, size_t out_len) const;

  /// Returns the 32-byte digest of everything fed so far.
  Blake3Digest Finalize() const;

  static constexpr size_t kBlockSize = 64;
  static constexpr size_t kChunkSize = 1024;

 private:
  using Words8 = std::array<uint32_t, 8>;

  // The input chunk being absorbed: its running chaining value and a partial block.
  struct ChunkState {
    Words8 cv;
    uint64_t counter = 0;  // index of this chunk in the input
    std::array<uint8_t, kBlockSize> block{};
    size_t block_len = 0;
    size_t blocks_compressed = 0;

    size_t Length() const { return blocks_compressed * kBlockSize + block_len; }
  };

  // Everything needed to compress a tree node's last block, possibly with ROOT set.
  struct Output {
    Words8 cv;
    std::array<uint8_t, kBlockSize> block;  // zero-padded past block_len
    uint64_t counter;
    uint32_t block_len;
    uint32_t flags;
  };

  void StartChunk(uint64_t counter);
  void AbsorbIntoChunk(std::string_view& data);
  Output ChunkOutput() const;
  Output ParentOutput(const Words8& left, const Words8& right) const;
  Words8 ChainingValue(const Output& node) const;
  void PushChunkCv(Words8 cv, uint64_t total_chunks);

  const blake3_detail::Kernels* kernels_;
  ChunkState chunk_;
  // Chaining values of completed subtrees, largest first; merged as the tree grows.
  std::vector<Words8> cv_stack_;
};

/// BLAKE3-256 of `data`.
Blake3Digest Blake3Of(std::string_view data);

/// The first `out_len` bytes of BLAKE3's extendable output for `data`.
std::string Blake3Xof(std::string_view data, size_t out_len);

/// Writes the first `out_len` bytes of BLAKE3's extendable output for `data` to `out`,
/// with no allocation when `data` fits one chunk (1024 bytes).
void Blake3XofInto(std::string_view data, uint8_t* out, size_t out_len);

/// Blake3XofInto on `engine`; throws strata::Error(kNotSupported) if the CPU lacks it.
void Blake3XofInto(std::string_view data, uint8_t* out, size_t out_len, Blake3Engine engine);

}  // namespace strata::sc
