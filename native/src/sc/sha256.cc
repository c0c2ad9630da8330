#include "sc/sha256.h"

#include <algorithm>
#include <cstring>

namespace strata::sc {
namespace {

// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the
// first 64 primes.
constexpr std::array<uint32_t, 64> kRoundConstants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

// FIPS 180-4 §5.3.3: the first 32 bits of the fractional parts of the square roots of the
// first 8 primes.
constexpr std::array<uint32_t, 8> kInitialState = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

constexpr uint32_t RotateRight(uint32_t x, int bits) { return (x >> bits) | (x << (32 - bits)); }

uint32_t LoadBigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

void StoreBigEndian32(uint32_t v, uint8_t* p) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}

void StoreBigEndian64(uint64_t v, uint8_t* p) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (56 - 8 * i));
}

// FIPS 180-4 §6.2.2 step 1: expands one 64-byte block into the 64-word message schedule.
std::array<uint32_t, 64> MessageSchedule(const uint8_t* block) {
  std::array<uint32_t, 64> w;
  for (int t = 0; t < 16; ++t) w[t] = LoadBigEndian32(block + 4 * t);
  for (int t = 16; t < 64; ++t) {
    uint32_t s0 = RotateRight(w[t - 15], 7) ^ RotateRight(w[t - 15], 18) ^ (w[t - 15] >> 3);
    uint32_t s1 = RotateRight(w[t - 2], 17) ^ RotateRight(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  return w;
}

}  // namespace

Sha256::Sha256() { Reset(); }

void Sha256::Reset() {
  state_ = kInitialState;
  pending_size_ = 0;
  message_size_ = 0;
}

// FIPS 180-4 §6.2.2 steps 2–4: the 64 rounds over one block, folded into the state.
void Sha256::CompressBlock(const uint8_t* block) {
  const std::array<uint32_t, 64> w = MessageSchedule(block);
  uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
  uint32_t e = state_[4], f = state_[5], g = state_[6], h = state_[7];
  for (int t = 0; t < 64; ++t) {
    uint32_t sigma1 = RotateRight(e, 6) ^ RotateRight(e, 11) ^ RotateRight(e, 25);
    uint32_t choose = (e & f) ^ (~e & g);
    uint32_t t1 = h + sigma1 + choose + kRoundConstants[t] + w[t];
    uint32_t sigma0 = RotateRight(a, 2) ^ RotateRight(a, 13) ^ RotateRight(a, 22);
    uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
    uint32_t t2 = sigma0 + majority;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state_[0] += a;
  state_[1] += b;
  state_[2] += c;
  state_[3] += d;
  state_[4] += e;
  state_[5] += f;
  state_[6] += g;
  state_[7] += h;
}

void Sha256::Update(std::string_view data) {
  if (data.empty()) return;  // an empty view may carry a null pointer, which memcpy must not get
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  size_t remaining = data.size();
  message_size_ += remaining;

  // Top up a partly filled block first, so whole blocks can be compressed in place.
  if (pending_size_ > 0) {
    size_t take = std::min(remaining, kBlockSize - pending_size_);
    std::memcpy(pending_.data() + pending_size_, bytes, take);
    pending_size_ += take;
    bytes += take;
    remaining -= take;
    if (pending_size_ < kBlockSize) return;
    CompressBlock(pending_.data());
    pending_size_ = 0;
  }
  for (; remaining >= kBlockSize; bytes += kBlockSize, remaining -= kBlockSize) CompressBlock(bytes);
  std::memcpy(pending_.data(), bytes, remaining);
  pending_size_ = remaining;
}

// FIPS 180-4 §5.1.1: pad with 0x80, zeros up to 56 mod 64, then the bit length (64-bit BE).
Sha256Digest Sha256::Finish() {
  const uint64_t message_bits = message_size_ * 8;
  uint8_t padding[kBlockSize + 8] = {0x80};
  size_t zeros_end = pending_size_ < 56 ? 56 - pending_size_ : 56 + kBlockSize - pending_size_;
  StoreBigEndian64(message_bits, padding + zeros_end);
  Update(std::string_view(reinterpret_cast<const char*>(padding), zeros_end + 8));

  Sha256Digest digest;
  for (size_t i = 0; i < state_.size(); ++i) StoreBigEndian32(state_[i], digest.data() + 4 * i);
  Reset();
  return digest;
}

Sha256Digest Sha256Of(std::string_view data) {
  Sha256 hasher;
  hasher.Update(data);
  return hasher.Finish();
}

std::string DigestBytes(const Sha256Digest& digest) { return std::string(DigestView(digest)); }

}  // namespace strata::sc
