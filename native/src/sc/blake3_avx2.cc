// BLAKE3 root output on AVX2: eight output blocks of one root node at a time, each of the
// 16 state words in its own vector with one lane per block. Built with -mavx2 and only
// called after a CPU check, so every helper stays internal to this file (a shared inline
// function compiled here could otherwise be picked by the linker for portable callers).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "sc/blake3.h"

namespace strata::sc::blake3_detail {
namespace {

constexpr size_t kLanes = 8;

inline __m256i RotateRight16(__m256i x) {
  const __m256i bytes = _mm256_set_epi8(13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2,  //
                                        13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2);
  return _mm256_shuffle_epi8(x, bytes);
}

inline __m256i RotateRight8(__m256i x) {
  const __m256i bytes = _mm256_set_epi8(12, 15, 14, 13, 8, 11, 10, 9, 4, 7, 6, 5, 0, 3, 2, 1,  //
                                        12, 15, 14, 13, 8, 11, 10, 9, 4, 7, 6, 5, 0, 3, 2, 1);
  return _mm256_shuffle_epi8(x, bytes);
}

inline __m256i RotateRight12(__m256i x) {
  return _mm256_or_si256(_mm256_srli_epi32(x, 12), _mm256_slli_epi32(x, 20));
}

inline __m256i RotateRight7(__m256i x) {
  return _mm256_or_si256(_mm256_srli_epi32(x, 7), _mm256_slli_epi32(x, 25));
}

// The quarter-round G on whole vectors: eight independent G's, one per lane.
// a + x is summed first: b, the word the previous step updated last, is still in flight.
inline void Mix(__m256i& a, __m256i& b, __m256i& c, __m256i& d, __m256i x, __m256i y) {
  a = _mm256_add_epi32(_mm256_add_epi32(a, x), b);
  d = RotateRight16(_mm256_xor_si256(d, a));
  c = _mm256_add_epi32(c, d);
  b = RotateRight12(_mm256_xor_si256(b, c));
  a = _mm256_add_epi32(_mm256_add_epi32(a, y), b);
  d = RotateRight8(_mm256_xor_si256(d, a));
  c = _mm256_add_epi32(c, d);
  b = RotateRight7(_mm256_xor_si256(b, c));
}

inline __m256i Broadcast(uint32_t word) { return _mm256_set1_epi32(static_cast<int>(word)); }

// Rows r[0..7] (row j = word j of blocks 0..7) become columns: r[k] = words 0..7 of block k.
inline void Transpose8x8(__m256i* r) {
  __m256i pairs[8];  // 32-bit interleave of row pairs, per 128-bit half
  for (size_t i = 0; i < 4; ++i) {
    pairs[2 * i] = _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]);
    pairs[2 * i + 1] = _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]);
  }
  // quads[k] / quads[4 + k]: words of rows 0-3 / rows 4-7 for blocks k and k+4.
  __m256i quads[8];
  for (size_t half = 0; half < 2; ++half) {
    const __m256i* p = pairs + 4 * half;
    quads[4 * half + 0] = _mm256_unpacklo_epi64(p[0], p[2]);
    quads[4 * half + 1] = _mm256_unpackhi_epi64(p[0], p[2]);
    quads[4 * half + 2] = _mm256_unpacklo_epi64(p[1], p[3]);
    quads[4 * half + 3] = _mm256_unpackhi_epi64(p[1], p[3]);
  }
  for (size_t k = 0; k < 4; ++k) {
    r[k] = _mm256_permute2x128_si256(quads[k], quads[4 + k], 0x20);
    r[k + 4] = _mm256_permute2x128_si256(quads[k], quads[4 + k], 0x31);
  }
}

// Output blocks counter .. counter+7 of one root node. `message` holds each message word
// broadcast to all lanes, shared by every group of eight.
void RootBlocksX8(const uint32_t* cv, const __m256i* message, uint32_t block_len,
                  uint64_t counter, uint32_t flags, uint8_t* out) {
  alignas(32) uint32_t counter_lo[kLanes], counter_hi[kLanes];
  for (size_t lane = 0; lane < kLanes; ++lane) {
    counter_lo[lane] = static_cast<uint32_t>(counter + lane);
    counter_hi[lane] = static_cast<uint32_t>((counter + lane) >> 32);
  }
  __m256i v[16];
  for (size_t i = 0; i < 8; ++i) v[i] = Broadcast(cv[i]);
  for (size_t i = 0; i < 4; ++i) v[8 + i] = Broadcast(kIv[i]);
  v[12] = _mm256_load_si256(reinterpret_cast<const __m256i*>(counter_lo));
  v[13] = _mm256_load_si256(reinterpret_cast<const __m256i*>(counter_hi));
  v[14] = Broadcast(block_len);
  v[15] = Broadcast(flags);
#pragma GCC unroll 7
  for (size_t r = 0; r < kRounds; ++r) {
    const uint8_t* w = kMessageSchedule.word[r];
    Mix(v[0], v[4], v[8], v[12], message[w[0]], message[w[1]]);
    Mix(v[1], v[5], v[9], v[13], message[w[2]], message[w[3]]);
    Mix(v[2], v[6], v[10], v[14], message[w[4]], message[w[5]]);
    Mix(v[3], v[7], v[11], v[15], message[w[6]], message[w[7]]);
    Mix(v[0], v[5], v[10], v[15], message[w[8]], message[w[9]]);
    Mix(v[1], v[6], v[11], v[12], message[w[10]], message[w[11]]);
    Mix(v[2], v[7], v[8], v[13], message[w[12]], message[w[13]]);
    Mix(v[3], v[4], v[9], v[14], message[w[14]], message[w[15]]);
  }
  for (size_t i = 0; i < 8; ++i) {
    v[i] = _mm256_xor_si256(v[i], v[i + 8]);
    v[i + 8] = _mm256_xor_si256(v[i + 8], Broadcast(cv[i]));
  }
  // v[j] holds output word j of all eight blocks: the first eight words transpose into the
  // first 32 bytes of every block, the last eight into the second 32.
  Transpose8x8(v);
  Transpose8x8(v + 8);
  for (size_t lane = 0; lane < kLanes; ++lane) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 64 * lane), v[lane]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 64 * lane + 32), v[8 + lane]);
  }
}

}  // namespace

void RootBlocksAvx2(const uint32_t* cv, const uint8_t* block, uint32_t block_len,
                    uint64_t first_counter, uint32_t flags, size_t count, uint8_t* out) {
  size_t done = 0;
  if (count >= kLanes) {
    __m256i message[16];
    for (size_t i = 0; i < 16; ++i) {
      const uint32_t word = uint32_t{block[4 * i]} | uint32_t{block[4 * i + 1]} << 8 |
                            uint32_t{block[4 * i + 2]} << 16 | uint32_t{block[4 * i + 3]} << 24;
      message[i] = Broadcast(word);
    }
    for (; count - done >= kLanes; done += kLanes) {
      RootBlocksX8(cv, message, block_len, first_counter + done, flags, out + 64 * done);
    }
  }
  // Fewer than eight left: the SSE4.1 kernel takes them four and then one at a time.
  if (done < count) {
    RootBlocksSse41(cv, block, block_len, first_counter + done, flags, count - done,
                    out + 64 * done);
  }
}

}  // namespace strata::sc::blake3_detail
