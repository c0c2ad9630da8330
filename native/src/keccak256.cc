// keccak256 (the original Keccak padding 0x01, as Ethereum uses, not SHA3-256's 0x06) over the
// Keccak-f[1600] permutation: rate 136 bytes, 24 rounds.
#include <cstring>

#include "strata/keccak256.h"

namespace strata {
namespace {

constexpr size_t kRate = 136;

constexpr uint64_t kRoundConstants[24] = {
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
    0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL};

// Lane i is (x, y) = (i % 5, i / 5). Rho's rotation of each lane, and the lane pi moves it to:
// (x, y) goes to (y, 2x + 3y mod 5).
constexpr int kRho[25] = {0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8, 18, 2, 61, 56, 14};
constexpr int PiTarget(int i) { return (i / 5) + 5 * ((2 * (i % 5) + 3 * (i / 5)) % 5); }

// Branch-free for n = 0 too (lane 0 is not rotated).
inline uint64_t Rotl(uint64_t x, int n) { return (x << n) | (x >> ((64 - n) & 63)); }

// Each step writes a fresh array from the last, so its 25 lanes are independent of one another
// (a pi done in place is one long chain of loads and stores).
void Permute(uint64_t a[25]) {
  uint64_t b[25];
  for (int round = 0; round < 24; ++round) {
    uint64_t c[5], d[5];
#pragma GCC unroll 5
    for (int x = 0; x < 5; ++x) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
    d[0] = c[4] ^ Rotl(c[1], 1);
    d[1] = c[0] ^ Rotl(c[2], 1);
    d[2] = c[1] ^ Rotl(c[3], 1);
    d[3] = c[2] ^ Rotl(c[4], 1);
    d[4] = c[3] ^ Rotl(c[0], 1);
#pragma GCC unroll 25
    for (int i = 0; i < 25; ++i) b[PiTarget(i)] = Rotl(a[i] ^ d[i % 5], kRho[i]);
#pragma GCC unroll 5
    for (int y = 0; y < 25; y += 5) {
      a[y + 0] = b[y + 0] ^ (~b[y + 1] & b[y + 2]);
      a[y + 1] = b[y + 1] ^ (~b[y + 2] & b[y + 3]);
      a[y + 2] = b[y + 2] ^ (~b[y + 3] & b[y + 4]);
      a[y + 3] = b[y + 3] ^ (~b[y + 4] & b[y + 0]);
      a[y + 4] = b[y + 4] ^ (~b[y + 0] & b[y + 1]);
    }
    a[0] ^= kRoundConstants[round];
  }
}

// Lanes are little-endian: on such a host a lane is one load, elsewhere it is built bytewise.
inline uint64_t LoadLane(const uint8_t* p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t lane;
  std::memcpy(&lane, p, 8);
  return lane;
#else
  uint64_t lane = 0;
  for (int i = 7; i >= 0; --i) lane = (lane << 8) | p[i];
  return lane;
#endif
}

// Absorbs one full block of kRate bytes.
void Absorb(uint64_t a[25], const uint8_t* block) {
  for (size_t i = 0; i < kRate / 8; ++i) a[i] ^= LoadLane(block + 8 * i);
}

}  // namespace

void Keccak256(const uint8_t* data, size_t size, uint8_t* out) {
  uint64_t a[25] = {};
  while (size >= kRate) {
    Absorb(a, data);
    Permute(a);
    data += kRate;
    size -= kRate;
  }
  uint8_t last[kRate] = {};
  if (size > 0) std::memcpy(last, data, size);
  last[size] ^= 0x01;
  last[kRate - 1] ^= 0x80;
  Absorb(a, last);
  Permute(a);
  for (size_t i = 0; i < 32; ++i) out[i] = static_cast<uint8_t>(a[i / 8] >> (8 * (i % 8)));
}

void Keccak256Many(const uint8_t* packed, const uint32_t* lengths, size_t count, uint8_t* out) {
  for (size_t i = 0; i < count; ++i) {
    Keccak256(packed, lengths[i], out + i * kKeccak256Bytes);
    packed += lengths[i];
  }
}

}  // namespace strata
