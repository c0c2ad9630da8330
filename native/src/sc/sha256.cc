#include "sc/sha256.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "strata/status.h"

namespace strata::sc {
namespace sha256_detail {

// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube roots of the
// first 64 primes.
alignas(16) const uint32_t kRoundConstants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

}  // namespace sha256_detail

namespace {


// FIPS 180-4 §5.3.3: the first 32 bits of the fractional parts of the square roots of the
// first 8 primes.
constexpr std::array<uint32_t, 8> kInitialState = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

// The length field takes the last 8 bytes of the final block (FIPS 180-4 §5.1.1).
constexpr size_t kLengthFieldSize = 8;
constexpr size_t kLastLengthOffset = Sha256::kBlockSize - kLengthFieldSize;

constexpr uint32_t RotateRight(uint32_t x, int bits) { return (x >> bits) | (x << (32 - bits)); }

// Byte order helpers as one load or store plus a byte swap; written byte by byte, the
// digest and length stores cost more than a SHA-NI block compression.
constexpr bool kLittleEndianHost = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

uint32_t LoadBigEndian32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return kLittleEndianHost ? __builtin_bswap32(v) : v;
}

void StoreBigEndian32(uint32_t v, uint8_t* p) {
  const uint32_t big = kLittleEndianHost ? __builtin_bswap32(v) : v;
  std::memcpy(p, &big, sizeof big);
}

void StoreBigEndian64(uint64_t v, uint8_t* p) {
  const uint64_t big = kLittleEndianHost ? __builtin_bswap64(v) : v;
  std::memcpy(p, &big, sizeof big);
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

// FIPS 180-4 §6.2.2 steps 2–4: the 64 rounds over one block, folded into the state.
void CompressBlockPortable(uint32_t* state, const uint8_t* block) {
  const std::array<uint32_t, 64> w = MessageSchedule(block);
  uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
  uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
  for (int t = 0; t < 64; ++t) {
    uint32_t sigma1 = RotateRight(e, 6) ^ RotateRight(e, 11) ^ RotateRight(e, 25);
    uint32_t choose = (e & f) ^ (~e & g);
    uint32_t t1 = h + sigma1 + choose + sha256_detail::kRoundConstants[t] + w[t];
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
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

void CompressBlocksPortable(uint32_t* state, const uint8_t* blocks, size_t count) {
  for (size_t i = 0; i < count; ++i) CompressBlockPortable(state, blocks + i * Sha256::kBlockSize);
}

bool CpuHasShaNi() {
#if defined(__x86_64__) || defined(__i386__)
  // SHA-NI works on XMM registers only, so no OS support check (XGETBV) is needed beyond
  // what SSE already implies. The kernel also uses SSE4.1 (PBLENDW) and SSSE3 (PSHUFB).
  __builtin_cpu_init();
  return __builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1");
#else
  return false;
#endif
}

Sha256::CompressFn CompressFnFor(Sha256Engine engine) {
  if (!Sha256EngineSupported(engine)) {
    throw Error(ErrorCode::kNotSupported,
                std::string("SHA-256 engine '") + Sha256EngineName(engine) +
                    "' needs CPU instructions this machine lacks; use the default engine");
  }
  switch (engine) {
    case Sha256Engine::kShaNi:
      return sha256_detail::CompressBlocksShaNi;
    case Sha256Engine::kPortable:
      break;
  }
  return CompressBlocksPortable;
}

// Resolved once: every hasher on the default engine shares the same function pointer.
Sha256::CompressFn DefaultCompressFn() {
  static const Sha256::CompressFn kCompress = CompressFnFor(DefaultSha256Engine());
  return kCompress;
}

// Appends FIPS 180-4 §5.1.1 padding to the `tail_size` (< 64) unhashed bytes already at the
// start of `tail` (room for two blocks) and returns how many blocks (1 or 2) to compress.
size_t PadFinalBlocks(uint8_t* tail, size_t tail_size, uint64_t message_size) {
  tail[tail_size] = 0x80;
  const size_t blocks = tail_size < kLastLengthOffset ? 1 : 2;
  const size_t length_at = blocks * Sha256::kBlockSize - kLengthFieldSize;
  std::memset(tail + tail_size + 1, 0, length_at - tail_size - 1);
  StoreBigEndian64(message_size * 8, tail + length_at);
  return blocks;
}

Sha256Digest DigestOf(const uint32_t* state) {
  Sha256Digest digest;
  for (size_t i = 0; i < 8; ++i) StoreBigEndian32(state[i], digest.data() + 4 * i);
  return digest;
}

// One-shot hashing: whole blocks straight from `data`, then one padded tail, so a short
// message costs a single call into the compression engine.
Sha256Digest HashWith(Sha256::CompressFn compress, std::string_view data) {
  std::array<uint32_t, 8> state = kInitialState;
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  const size_t whole_blocks = data.size() / Sha256::kBlockSize;
  if (whole_blocks > 0) compress(state.data(), bytes, whole_blocks);

  const size_t tail_size = data.size() % Sha256::kBlockSize;
  uint8_t tail[2 * Sha256::kBlockSize];
  if (tail_size > 0) std::memcpy(tail, bytes + whole_blocks * Sha256::kBlockSize, tail_size);
  compress(state.data(), tail, PadFinalBlocks(tail, tail_size, data.size()));
  return DigestOf(state.data());
}

}  // namespace

bool Sha256EngineSupported(Sha256Engine engine) {
  switch (engine) {
    case Sha256Engine::kShaNi: {
      static const bool kSupported = CpuHasShaNi();
      return kSupported;
    }
    case Sha256Engine::kPortable:
      return true;
  }
  return false;
}

Sha256Engine DefaultSha256Engine() {
  return Sha256EngineSupported(Sha256Engine::kShaNi) ? Sha256Engine::kShaNi
                                                     : Sha256Engine::kPortable;
}

const char* Sha256EngineName(Sha256Engine engine) {
  switch (engine) {
    case Sha256Engine::kShaNi:
      return "sha-ni";
    case Sha256Engine::kPortable:
      return "portable";
  }
  return "unknown";
}

Sha256::Sha256() : compress_(DefaultCompressFn()) { Reset(); }

Sha256::Sha256(Sha256Engine engine) : compress_(CompressFnFor(engine)) { Reset(); }

void Sha256::Reset() {
  state_ = kInitialState;
  pending_size_ = 0;
  message_size_ = 0;
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
    compress_(state_.data(), pending_.data(), 1);
    pending_size_ = 0;
  }
  const size_t whole_blocks = remaining / kBlockSize;
  if (whole_blocks > 0) {
    compress_(state_.data(), bytes, whole_blocks);
    bytes += whole_blocks * kBlockSize;
    remaining -= whole_blocks * kBlockSize;
  }
  std::memcpy(pending_.data(), bytes, remaining);
  pending_size_ = remaining;
}

Sha256Digest Sha256::Finish() {
  uint8_t tail[2 * kBlockSize];
  std::memcpy(tail, pending_.data(), pending_size_);
  compress_(state_.data(), tail, PadFinalBlocks(tail, pending_size_, message_size_));
  const Sha256Digest digest = DigestOf(state_.data());
  Reset();
  return digest;
}

Sha256Digest Sha256Of(std::string_view data) { return HashWith(DefaultCompressFn(), data); }

Sha256Digest Sha256Of(std::string_view data, Sha256Engine engine) {
  return HashWith(CompressFnFor(engine), data);
}

std::string DigestBytes(const Sha256Digest& digest) { return std::string(DigestView(digest)); }

}  // namespace strata::sc
