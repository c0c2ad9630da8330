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

// Rotation offsets and lane order of the combined rho and pi steps.
constexpr int kRho[24] = {1, 3, 6, 10, 15, 21, 28, 36, 45, 55, 2, 14, 27, 41, 56, 8, 25, 43, 62, 18, 39, 61, 20, 44};
constexpr int kPi[24] = {10, 7, 11, 17, 18, 3, 5, 16, 8, 21, 24, 4, 15, 23, 19, 13, 12, 2, 20, 14, 22, 9, 6, 1};

inline uint64_t Rotl(uint64_t x, int n) { return (x << n) | (x >> (64 - n)); }

void Permute(uint64_t a[25]) {
  for (int round = 0; round < 24; ++round) {
    uint64_t c[5];
    for (int x = 0; x < 5; ++x) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
    for (int x = 0; x < 5; ++x) {
      uint64_t d = c[(x + 4) % 5] ^ Rotl(c[(x + 1) % 5], 1);
      for (int y = 0; y < 25; y += 5) a[y + x] ^= d;
    }
    uint64_t carry = a[1];
    for (int i = 0; i < 24; ++i) {
      uint64_t next = a[kPi[i]];
      a[kPi[i]] = Rotl(carry, kRho[i]);
      carry = next;
    }
    for (int y = 0; y < 25; y += 5) {
      uint64_t row[5];
      for (int x = 0; x < 5; ++x) row[x] = a[y + x];
      for (int x = 0; x < 5; ++x) a[y + x] = row[x] ^ (~row[(x + 1) % 5] & row[(x + 2) % 5]);
    }
    a[0] ^= kRoundConstants[round];
  }
}

// Lanes are little-endian; the byte-wise xor keeps this correct on any host.
void Absorb(uint64_t a[25], const uint8_t* block, size_t size) {
  for (size_t i = 0; i < size; ++i) a[i / 8] ^= static_cast<uint64_t>(block[i]) << (8 * (i % 8));
}

}  // namespace

void Keccak256(const uint8_t* data, size_t size, uint8_t* out) {
  uint64_t a[25] = {};
  while (size >= kRate) {
    Absorb(a, data, kRate);
    Permute(a);
    data += kRate;
    size -= kRate;
  }
  uint8_t last[kRate] = {};
  if (size > 0) std::memcpy(last, data, size);
  last[size] ^= 0x01;
  last[kRate - 1] ^= 0x80;
  Absorb(a, last, kRate);
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
