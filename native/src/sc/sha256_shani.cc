// SHA-256 block compression on the x86 SHA extensions. Built with -msha -msse4.1 and only
// ever called after a CPU check, so nothing here may be reachable from portable code: the
// file defines one entry point and keeps every helper internal (an inline function shared
// with other files could otherwise be linked in its SHA-NI-compiled form).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "sc/sha256.h"

namespace strata::sc::sha256_detail {
namespace {

// SHA256RNDS2 keeps the working variables as two vectors, {A,B,E,F} and {C,D,G,H} (A in the
// top lane), rather than in FIPS order. Packing converts from and unpacking back to the
// state array's {a,b,c,d} {e,f,g,h} order (a in lane 0).
struct RoundState {
  __m128i abef;
  __m128i cdgh;
};

inline RoundState Pack(const uint32_t* state) {
  const __m128i abcd = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state));
  const __m128i efgh = _mm_loadu_si128(reinterpret_cast<const __m128i*>(state + 4));
  const __m128i badc = _mm_shuffle_epi32(abcd, 0xb1);  // lanes b,a,d,c
  const __m128i hgfe = _mm_shuffle_epi32(efgh, 0x1b);  // lanes h,g,f,e
  return {_mm_alignr_epi8(badc, hgfe, 8),               // lanes f,e,b,a
          _mm_blend_epi16(hgfe, badc, 0xf0)};           // lanes h,g,d,c
}

inline void Unpack(const RoundState& s, uint32_t* state) {
  const __m128i abef = _mm_shuffle_epi32(s.abef, 0x1b);  // lanes a,b,e,f
  const __m128i ghcd = _mm_shuffle_epi32(s.cdgh, 0xb1);  // lanes g,h,c,d
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state), _mm_blend_epi16(abef, ghcd, 0xf0));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(state + 4), _mm_alignr_epi8(ghcd, abef, 8));
}

// Message words are big-endian; this PSHUFB mask reverses the bytes of each 32-bit lane.
inline __m128i LoadMessageWords(const uint8_t* p) {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  return _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), byte_swap);
}

// Four rounds: SHA256RNDS2 does two, taking W+K from the low half of its third operand.
inline void FourRounds(RoundState& s, __m128i words, int group) {
  const __m128i wk = _mm_add_epi32(
      words, _mm_load_si128(reinterpret_cast<const __m128i*>(kRoundConstants + 4 * group)));
  s.cdgh = _mm_sha256rnds2_epu32(s.cdgh, s.abef, wk);
  s.abef = _mm_sha256rnds2_epu32(s.abef, s.cdgh, _mm_shuffle_epi32(wk, 0x0e));
}

// W[t..t+3] from the previous sixteen words (FIPS 180-4 §6.2.2 step 1): MSG1 adds σ0 of
// W[t-15..t-12] to W[t-16..t-13], the ALIGNR supplies W[t-7..t-4], and MSG2 adds σ1 of
// W[t-2..t+1], feeding its own first two results into the last two lanes.
inline __m128i NextWords(__m128i w16, __m128i w12, __m128i w8, __m128i w4) {
  const __m128i partial = _mm_add_epi32(_mm_sha256msg1_epu32(w16, w12), _mm_alignr_epi8(w4, w8, 4));
  return _mm_sha256msg2_epu32(partial, w4);
}

inline void CompressBlock(RoundState& s, const uint8_t* block) {
  const RoundState saved = s;
  __m128i w[4];  // w[g % 4] holds schedule words 4g..4g+3
  for (int g = 0; g < 4; ++g) {
    w[g] = LoadMessageWords(block + 16 * g);
    FourRounds(s, w[g], g);
  }
#pragma GCC unroll 12
  for (int g = 4; g < 16; ++g) {
    w[g % 4] = NextWords(w[g % 4], w[(g + 1) % 4], w[(g + 2) % 4], w[(g + 3) % 4]);
    FourRounds(s, w[g % 4], g);
  }
  s.abef = _mm_add_epi32(s.abef, saved.abef);
  s.cdgh = _mm_add_epi32(s.cdgh, saved.cdgh);
}

}  // namespace

void CompressBlocksShaNi(uint32_t* state, const uint8_t* blocks, size_t count) {
  RoundState s = Pack(state);
  for (size_t i = 0; i < count; ++i) CompressBlock(s, blocks + 64 * i);
  Unpack(s, state);
}

}  // namespace strata::sc::sha256_detail
