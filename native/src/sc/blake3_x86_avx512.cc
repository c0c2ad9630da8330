// BLAKE3 root output on AVX-512F: sixteen output blocks of one root node at a time, each of
// the 16 state words in its own 512-bit vector with one lane per block. Compared with the
// AVX2 kernel, the native rotate (VPRORD) replaces the shift/shift/or and byte-shuffle
// rotations and the 32 vector registers hold the whole state, so nothing spills. Built with
// -mavx512f and only called after a CPU check, so every helper stays internal to this file
// (a shared inline function compiled here could otherwise be picked by the linker for
// portable callers).

// GCC 12's AVX-512 intrinsics pass an "undefined" vector as the unused merge source of
// their unmasked forms, which -Wmaybe-uninitialized reports at every use; nothing here
// reads uninitialized data.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "sc/blake3.h"

namespace strata::sc::blake3_detail {
namespace {

constexpr size_t kLanes = 16;

// The quarter-round G on whole vectors: sixteen independent G's, one per lane.
// a + x is summed first: b, the word the previous step updated last, is still in flight.
inline void Mix(__m512i& a, __m512i& b, __m512i& c, __m512i& d, __m512i x, __m512i y) {
  a = _mm512_add_epi32(_mm512_add_epi32(a, x), b);
  d = _mm512_ror_epi32(_mm512_xor_si512(d, a), 16);
  c = _mm512_add_epi32(c, d);
  b = _mm512_ror_epi32(_mm512_xor_si512(b, c), 12);
  a = _mm512_add_epi32(_mm512_add_epi32(a, y), b);
  d = _mm512_ror_epi32(_mm512_xor_si512(d, a), 8);
  c = _mm512_add_epi32(c, d);
  b = _mm512_ror_epi32(_mm512_xor_si512(b, c), 7);
}

inline __m512i Broadcast(uint32_t word) { return _mm512_set1_epi32(static_cast<int>(word)); }

// Rows r[0..15] (row j = word j of blocks 0..15) become columns: r[k] = all 16 words of
// block k, i.e. one output block per vector.
inline void Transpose16x16(__m512i* r) {
  // Within each 128-bit quarter q (blocks 4q..4q+3), a 4x4 transpose of every group of
  // four rows: by_group[4g + k] holds, in quarter q, words 4g..4g+3 of block 4q+k.
  __m512i by_group[16];
  for (size_t g = 0; g < 4; ++g) {
    const __m512i* rows = r + 4 * g;
    const __m512i lo01 = _mm512_unpacklo_epi32(rows[0], rows[1]);
    const __m512i hi01 = _mm512_unpackhi_epi32(rows[0], rows[1]);
    const __m512i lo23 = _mm512_unpacklo_epi32(rows[2], rows[3]);
    const __m512i hi23 = _mm512_unpackhi_epi32(rows[2], rows[3]);
    by_group[4 * g + 0] = _mm512_unpacklo_epi64(lo01, lo23);
    by_group[4 * g + 1] = _mm512_unpackhi_epi64(lo01, lo23);
    by_group[4 * g + 2] = _mm512_unpacklo_epi64(hi01, hi23);
    by_group[4 * g + 3] = _mm512_unpackhi_epi64(hi01, hi23);
  }
  // Block 4q+k takes quarter q of by_group[k], by_group[4+k], by_group[8+k], by_group[12+k]:
  // a 4x4 transpose of 128-bit quarters, done with two rounds of SHUFI32X4.
  for (size_t k = 0; k < 4; ++k) {
    const __m512i g0 = by_group[k], g1 = by_group[4 + k], g2 = by_group[8 + k],
                  g3 = by_group[12 + k];
    const __m512i g01_low = _mm512_shuffle_i32x4(g0, g1, _MM_SHUFFLE(1, 0, 1, 0));
    const __m512i g01_high = _mm512_shuffle_i32x4(g0, g1, _MM_SHUFFLE(3, 2, 3, 2));
    const __m512i g23_low = _mm512_shuffle_i32x4(g2, g3, _MM_SHUFFLE(1, 0, 1, 0));
    const __m512i g23_high = _mm512_shuffle_i32x4(g2, g3, _MM_SHUFFLE(3, 2, 3, 2));
    r[k] = _mm512_shuffle_i32x4(g01_low, g23_low, _MM_SHUFFLE(2, 0, 2, 0));
    r[4 + k] = _mm512_shuffle_i32x4(g01_low, g23_low, _MM_SHUFFLE(3, 1, 3, 1));
    r[8 + k] = _mm512_shuffle_i32x4(g01_high, g23_high, _MM_SHUFFLE(2, 0, 2, 0));
    r[12 + k] = _mm512_shuffle_i32x4(g01_high, g23_high, _MM_SHUFFLE(3, 1, 3, 1));
  }
}

// Output blocks counter .. counter+15 of one root node. `message` holds each message word
// broadcast to all lanes, shared by every group of sixteen.
void RootBlocksX16(const uint32_t* cv, const __m512i* message, uint32_t block_len,
                   uint64_t counter, uint32_t flags, uint8_t* out) {
  alignas(64) uint32_t counter_lo[kLanes], counter_hi[kLanes];
  for (size_t lane = 0; lane < kLanes; ++lane) {
    counter_lo[lane] = static_cast<uint32_t>(counter + lane);
    counter_hi[lane] = static_cast<uint32_t>((counter + lane) >> 32);
  }
  __m512i v[16];
  for (size_t i = 0; i < 8; ++i) v[i] = Broadcast(cv[i]);
  for (size_t i = 0; i < 4; ++i) v[8 + i] = Broadcast(kIv[i]);
  v[12] = _mm512_load_si512(counter_lo);
  v[13] = _mm512_load_si512(counter_hi);
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
    v[i] = _mm512_xor_si512(v[i], v[i + 8]);
    v[i + 8] = _mm512_xor_si512(v[i + 8], Broadcast(cv[i]));
  }
  Transpose16x16(v);
  for (size_t lane = 0; lane < kLanes; ++lane) _mm512_storeu_si512(out + 64 * lane, v[lane]);
}

}  // namespace

void RootBlocksAvx512(const uint32_t* cv, const uint8_t* block, uint32_t block_len,
                      uint64_t first_counter, uint32_t flags, size_t count, uint8_t* out) {
  size_t done = 0;
  if (count >= kLanes) {
    __m512i message[16];
    for (size_t i = 0; i < 16; ++i) {
      const uint32_t word = uint32_t{block[4 * i]} | uint32_t{block[4 * i + 1]} << 8 |
                            uint32_t{block[4 * i + 2]} << 16 | uint32_t{block[4 * i + 3]} << 24;
      message[i] = Broadcast(word);
    }
    for (; count - done >= kLanes; done += kLanes) {
      RootBlocksX16(cv, message, block_len, first_counter + done, flags, out + 64 * done);
    }
  }
  // Fewer than sixteen left: the AVX2 kernel takes them eight, four and one at a time.
  if (done < count) {
    RootBlocksAvx2(cv, block, block_len, first_counter + done, flags, count - done,
                   out + 64 * done);
  }
}

}  // namespace strata::sc::blake3_detail
