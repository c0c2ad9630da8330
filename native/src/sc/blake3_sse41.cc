// BLAKE3 compression on SSE4.1. Built with -msse4.1 and only called after a CPU check, so
// every helper stays internal to this file: a shared inline function compiled here could
// otherwise be picked by the linker for portable callers.
//
// Two shapes of the same compression function (spec §2.2):
//  - one block, with the 4x4 state held as four row vectors and the diagonal step done by
//    rotating rows (chunk blocks and parent nodes, which depend on each other in sequence);
//  - four blocks that differ only in their counter, with each of the 16 state words held in
//    its own vector, one lane per block (root output blocks, which are independent).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "sc/blake3.h"

namespace strata::sc::blake3_detail {
namespace {

constexpr size_t kLanes = 4;

inline __m128i RotateRight16(__m128i x) {
  return _mm_shuffle_epi8(x, _mm_set_epi8(13, 12, 15, 14, 9, 8, 11, 10, 5, 4, 7, 6, 1, 0, 3, 2));
}

inline __m128i RotateRight8(__m128i x) {
  return _mm_shuffle_epi8(x, _mm_set_epi8(12, 15, 14, 13, 8, 11, 10, 9, 4, 7, 6, 5, 0, 3, 2, 1));
}

inline __m128i RotateRight12(__m128i x) {
  return _mm_or_si128(_mm_srli_epi32(x, 12), _mm_slli_epi32(x, 20));
}

inline __m128i RotateRight7(__m128i x) {
  return _mm_or_si128(_mm_srli_epi32(x, 7), _mm_slli_epi32(x, 25));
}

// The quarter-round G on whole vectors: four independent G's, one per lane.
// a + x is summed first: b, the word the previous step updated last, is still in flight.
inline void Mix(__m128i& a, __m128i& b, __m128i& c, __m128i& d, __m128i x, __m128i y) {
  a = _mm_add_epi32(_mm_add_epi32(a, x), b);
  d = RotateRight16(_mm_xor_si128(d, a));
  c = _mm_add_epi32(c, d);
  b = RotateRight12(_mm_xor_si128(b, c));
  a = _mm_add_epi32(_mm_add_epi32(a, y), b);
  d = RotateRight8(_mm_xor_si128(d, a));
  c = _mm_add_epi32(c, d);
  b = RotateRight7(_mm_xor_si128(b, c));
}

inline __m128i Load(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }

inline void Store(void* p, __m128i v) { _mm_storeu_si128(static_cast<__m128i*>(p), v); }

// ---- one block, row layout -------------------------------------------------------------

// The message of one round as the four vectors the row layout consumes: x and y words of
// the column step, then of the diagonal step. Lane i of `column_x` is the x word of column
// i, i.e. message positions 0, 2, 4, 6; `column_y` holds 1, 3, 5, 7; the diagonal vectors
// hold 8..14 even and 9..15 odd.
struct RoundMessage {
  __m128i column_x, column_y, diagonal_x, diagonal_y;
};

// SHUFFLPS on integer vectors: lanes 0-1 picked from `low`, lanes 2-3 from `high`.
template <int kSelect>
inline __m128i PickWords(__m128i low, __m128i high) {
  return _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(low), _mm_castsi128_ps(high), kSelect));
}

inline RoundMessage FirstRoundMessage(const uint8_t* block) {
  const __m128i words_0_3 = Load(block);
  const __m128i words_4_7 = Load(block + 16);
  const __m128i words_8_11 = Load(block + 32);
  const __m128i words_12_15 = Load(block + 48);
  return {PickWords<_MM_SHUFFLE(2, 0, 2, 0)>(words_0_3, words_4_7),
          PickWords<_MM_SHUFFLE(3, 1, 3, 1)>(words_0_3, words_4_7),
          PickWords<_MM_SHUFFLE(2, 0, 2, 0)>(words_8_11, words_12_15),
          PickWords<_MM_SHUFFLE(3, 1, 3, 1)>(words_8_11, words_12_15)};
}

// The spec's message permutation applied to the four vectors. Writing the vectors as
// A = (m0 m2 m4 m6), B = (m1 m3 m5 m7), C = (m8 m10 m12 m14), D = (m9 m11 m13 m15), the
// permuted message m'[i] = m[P[i]] regroups as
//   A' = (A1 B1 B3 A2)   B' = (A3 C1 A0 D2)   C' = (B0 C2 D0 D3)   D' = (D1 B2 C3 C0).
inline RoundMessage NextRoundMessage(const RoundMessage& m) {
  const __m128i a = m.column_x, b = m.column_y, c = m.diagonal_x, d = m.diagonal_y;
  const __m128i a_next = _mm_shuffle_epi32(PickWords<_MM_SHUFFLE(3, 1, 2, 1)>(a, b),
                                           _MM_SHUFFLE(1, 3, 2, 0));
  const __m128i b_next = _mm_blend_epi16(
      _mm_shuffle_epi32(PickWords<_MM_SHUFFLE(1, 1, 0, 3)>(a, c), _MM_SHUFFLE(3, 1, 2, 0)),
      _mm_slli_si128(d, 4), 0xc0);
  const __m128i c_next =
      _mm_blend_epi16(PickWords<_MM_SHUFFLE(3, 0, 0, 0)>(b, d), _mm_srli_si128(c, 4), 0x0c);
  const __m128i d_next =
      _mm_blend_epi16(PickWords<_MM_SHUFFLE(0, 3, 0, 1)>(d, c), _mm_srli_si128(b, 4), 0x0c);
  return {a_next, b_next, c_next, d_next};
}

// The 4x4 state as rows: row0 = s0..s3, row1 = s4..s7, row2 = s8..s11, row3 = s12..s15.
struct Rows {
  __m128i row0, row1, row2, row3;
};

// Rotating rows 1..3 left by 1..3 lanes lines the diagonals (0,5,10,15), (1,6,11,12),
// (2,7,8,13), (3,4,9,14) up as columns, so the diagonal step reuses the column code.
inline void Diagonalize(Rows& s) {
  s.row1 = _mm_shuffle_epi32(s.row1, _MM_SHUFFLE(0, 3, 2, 1));
  s.row2 = _mm_shuffle_epi32(s.row2, _MM_SHUFFLE(1, 0, 3, 2));
  s.row3 = _mm_shuffle_epi32(s.row3, _MM_SHUFFLE(2, 1, 0, 3));
}

inline void Undiagonalize(Rows& s) {
  s.row1 = _mm_shuffle_epi32(s.row1, _MM_SHUFFLE(2, 1, 0, 3));
  s.row2 = _mm_shuffle_epi32(s.row2, _MM_SHUFFLE(1, 0, 3, 2));
  s.row3 = _mm_shuffle_epi32(s.row3, _MM_SHUFFLE(0, 3, 2, 1));
}

// All seven rounds; the caller applies the feed-forward it needs.
inline Rows CompressRows(const uint32_t* cv, const uint8_t* block, uint32_t block_len,
                         uint64_t counter, uint32_t flags) {
  Rows s = {Load(cv), Load(cv + 4), Load(kIv),
            _mm_set_epi32(static_cast<int>(flags), static_cast<int>(block_len),
                          static_cast<int>(counter >> 32), static_cast<int>(counter))};
  RoundMessage m = FirstRoundMessage(block);
  for (size_t r = 0; r < kRounds; ++r) {
    Mix(s.row0, s.row1, s.row2, s.row3, m.column_x, m.column_y);
    Diagonalize(s);
    Mix(s.row0, s.row1, s.row2, s.row3, m.diagonal_x, m.diagonal_y);
    Undiagonalize(s);
    if (r + 1 < kRounds) m = NextRoundMessage(m);
  }
  return s;
}

// One root output block: all 16 output words.
inline void RootBlockRows(const uint32_t* cv, const uint8_t* block, uint32_t block_len,
                          uint64_t counter, uint32_t flags, uint8_t* out) {
  const Rows s = CompressRows(cv, block, block_len, counter, flags);
  Store(out, _mm_xor_si128(s.row0, s.row2));
  Store(out + 16, _mm_xor_si128(s.row1, s.row3));
  Store(out + 32, _mm_xor_si128(s.row2, Load(cv)));
  Store(out + 48, _mm_xor_si128(s.row3, Load(cv + 4)));
}

// ---- four blocks, one lane each ----------------------------------------------------------

inline void Transpose4x4(__m128i& r0, __m128i& r1, __m128i& r2, __m128i& r3) {
  const __m128i t0 = _mm_unpacklo_epi32(r0, r1);  // r0[0] r1[0] r0[1] r1[1]
  const __m128i t1 = _mm_unpackhi_epi32(r0, r1);  // r0[2] r1[2] r0[3] r1[3]
  const __m128i t2 = _mm_unpacklo_epi32(r2, r3);
  const __m128i t3 = _mm_unpackhi_epi32(r2, r3);
  r0 = _mm_unpacklo_epi64(t0, t2);
  r1 = _mm_unpackhi_epi64(t0, t2);
  r2 = _mm_unpacklo_epi64(t1, t3);
  r3 = _mm_unpackhi_epi64(t1, t3);
}

// Output blocks counter .. counter+3 of one root node. `message` holds each message word
// broadcast to all lanes, shared by every group of four.
void RootBlocksX4(const uint32_t* cv, const __m128i* message, uint32_t block_len,
                  uint64_t counter, uint32_t flags, uint8_t* out) {
  alignas(16) uint32_t counter_lo[kLanes], counter_hi[kLanes];
  for (size_t lane = 0; lane < kLanes; ++lane) {
    counter_lo[lane] = static_cast<uint32_t>(counter + lane);
    counter_hi[lane] = static_cast<uint32_t>((counter + lane) >> 32);
  }
  __m128i v[16];
  for (size_t i = 0; i < 8; ++i) v[i] = _mm_set1_epi32(static_cast<int>(cv[i]));
  for (size_t i = 0; i < 4; ++i) v[8 + i] = _mm_set1_epi32(static_cast<int>(kIv[i]));
  v[12] = _mm_load_si128(reinterpret_cast<const __m128i*>(counter_lo));
  v[13] = _mm_load_si128(reinterpret_cast<const __m128i*>(counter_hi));
  v[14] = _mm_set1_epi32(static_cast<int>(block_len));
  v[15] = _mm_set1_epi32(static_cast<int>(flags));
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
    v[i] = _mm_xor_si128(v[i], v[i + 8]);
    v[i + 8] = _mm_xor_si128(v[i + 8], _mm_set1_epi32(static_cast<int>(cv[i])));
  }
  // v[j] holds output word j of all four blocks; each group of four words becomes one
  // 16-byte piece of every block.
  for (size_t group = 0; group < 4; ++group) {
    __m128i* words = v + 4 * group;
    Transpose4x4(words[0], words[1], words[2], words[3]);
    for (size_t lane = 0; lane < kLanes; ++lane) Store(out + 64 * lane + 16 * group, words[lane]);
  }
}

}  // namespace

void CompressInPlaceSse41(uint32_t* cv, const uint8_t* block, uint32_t block_len,
                          uint64_t counter, uint32_t flags) {
  const Rows s = CompressRows(cv, block, block_len, counter, flags);
  Store(cv, _mm_xor_si128(s.row0, s.row2));
  Store(cv + 4, _mm_xor_si128(s.row1, s.row3));
}

void RootBlocksSse41(const uint32_t* cv, const uint8_t* block, uint32_t block_len,
                     uint64_t first_counter, uint32_t flags, size_t count, uint8_t* out) {
  size_t done = 0;
  if (count >= kLanes) {
    __m128i message[16];
    for (size_t i = 0; i < 16; ++i) {
      const uint32_t word = uint32_t{block[4 * i]} | uint32_t{block[4 * i + 1]} << 8 |
                            uint32_t{block[4 * i + 2]} << 16 | uint32_t{block[4 * i + 3]} << 24;
      message[i] = _mm_set1_epi32(static_cast<int>(word));
    }
    for (; count - done >= kLanes; done += kLanes) {
      RootBlocksX4(cv, message, block_len, first_counter + done, flags, out + 64 * done);
    }
  }
  for (; done < count; ++done) {
    RootBlockRows(cv, block, block_len, first_counter + done, flags, out + 64 * done);
  }
}

}  // namespace strata::sc::blake3_detail
