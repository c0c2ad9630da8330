#include "sc/blake3.h"

#include <algorithm>
#include <cstring>

#include "strata/status.h"

namespace strata::sc {
namespace {

using blake3_detail::kIv;
using blake3_detail::kMessageSchedule;
using blake3_detail::kRounds;
using blake3_detail::Kernels;

// Spec §2.1, Table 3: domain flags.
constexpr uint32_t kChunkStart = 1u << 0;
constexpr uint32_t kChunkEnd = 1u << 1;
constexpr uint32_t kParent = 1u << 2;
constexpr uint32_t kRoot = 1u << 3;

constexpr uint32_t RotateRight(uint32_t x, int bits) { return (x >> bits) | (x << (32 - bits)); }

uint32_t LoadLittleEndian32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

void StoreLittleEndian32(uint32_t v, uint8_t* p) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// ---- portable engine -------------------------------------------------------------------

// The quarter-round G (spec §2.2), mixing message words x and y into one column or diagonal.
inline void Mix(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d, uint32_t x, uint32_t y) {
  a = a + b + x;
  d = RotateRight(d ^ a, 16);
  c = c + d;
  b = RotateRight(b ^ c, 12);
  a = a + b + y;
  d = RotateRight(d ^ a, 8);
  c = c + d;
  b = RotateRight(b ^ c, 7);
}

// The compression function (spec §2.2) with all 16 output words: the first 8 are the next
// chaining value, and all 16 are used when producing root output. The message schedule
// table replaces the per-round permutation, so no round copies the message.
void CompressPortable(const uint32_t* cv, const uint8_t* block, uint32_t block_len,
                      uint64_t counter, uint32_t flags, uint32_t* out) {
  uint32_t m[16];
  for (size_t i = 0; i < 16; ++i) m[i] = LoadLittleEndian32(block + 4 * i);
  uint32_t s[16] = {cv[0],  cv[1],  cv[2],  cv[3],
                    cv[4],  cv[5],  cv[6],  cv[7],
                    kIv[0], kIv[1], kIv[2], kIv[3],
                    static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32),
                    block_len, flags};
  for (size_t r = 0; r < kRounds; ++r) {
    const uint8_t* w = kMessageSchedule.word[r];
    Mix(s[0], s[4], s[8], s[12], m[w[0]], m[w[1]]);
    Mix(s[1], s[5], s[9], s[13], m[w[2]], m[w[3]]);
    Mix(s[2], s[6], s[10], s[14], m[w[4]], m[w[5]]);
    Mix(s[3], s[7], s[11], s[15], m[w[6]], m[w[7]]);
    Mix(s[0], s[5], s[10], s[15], m[w[8]], m[w[9]]);
    Mix(s[1], s[6], s[11], s[12], m[w[10]], m[w[11]]);
    Mix(s[2], s[7], s[8], s[13], m[w[12]], m[w[13]]);
    Mix(s[3], s[4], s[9], s[14], m[w[14]], m[w[15]]);
  }
  for (size_t i = 0; i < 8; ++i) {
    out[i] = s[i] ^ s[i + 8];
    out[i + 8] = s[i + 8] ^ cv[i];
  }
}

void CompressInPlacePortable(uint32_t* cv, const uint8_t* block, uint32_t block_len,
                             uint64_t counter, uint32_t flags) {
  uint32_t out[16];
  CompressPortable(cv, block, block_len, counter, flags, out);
  std::copy(out, out + 8, cv);
}

void RootBlocksPortable(const uint32_t* cv, const uint8_t* block, uint32_t block_len,
                        uint64_t first_counter, uint32_t flags, size_t count, uint8_t* out) {
  for (size_t i = 0; i < count; ++i, out += Blake3::kBlockSize) {
    uint32_t words[16];
    CompressPortable(cv, block, block_len, first_counter + i, flags, words);
    for (size_t j = 0; j < 16; ++j) StoreLittleEndian32(words[j], out + 4 * j);
  }
}

// ---- engine selection ------------------------------------------------------------------

constexpr Kernels kPortableKernels = {CompressInPlacePortable, RootBlocksPortable};
constexpr Kernels kSse41Kernels = {blake3_detail::CompressInPlaceSse41,
                                   blake3_detail::RootBlocksSse41};
constexpr Kernels kAvx2Kernels = {blake3_detail::CompressInPlaceSse41,
                                  blake3_detail::RootBlocksAvx2};
constexpr Kernels kAvx512Kernels = {blake3_detail::CompressInPlaceSse41,
                                    blake3_detail::RootBlocksAvx512};

// CPU features behind the SIMD engines. __builtin_cpu_supports("avx2") and ("avx512f") also
// check that the OS saves the YMM / ZMM registers (XGETBV), so the kernels cannot fault on a
// kernel that does not. Each wider engine hands its leftover blocks to the narrower ones.
bool CpuHas(Blake3Engine engine) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  const bool sse41 = __builtin_cpu_supports("sse4.1");
  const bool avx2 = sse41 && __builtin_cpu_supports("avx2");
  switch (engine) {
    case Blake3Engine::kAvx512:
      return avx2 && __builtin_cpu_supports("avx512f");
    case Blake3Engine::kAvx2:
      return avx2;
    case Blake3Engine::kSse41:
      return sse41;
    case Blake3Engine::kPortable:
      return true;
  }
  return false;
#else
  return engine == Blake3Engine::kPortable;
#endif
}

// Resolved once: every hasher on the default engine shares the same kernels.
const Kernels* DefaultKernels() {
  static const Kernels* const kKernels = &blake3_detail::KernelsFor(DefaultBlake3Engine());
  return kKernels;
}

// ---- hashing ---------------------------------------------------------------------------

// Expands a root node into `out_len` bytes: whole 64-byte output blocks straight into `out`,
// and a final partial block through a scratch block.
void WriteRootOutput(const Kernels& kernels, const uint32_t* cv, const uint8_t* block,
                     uint32_t block_len, uint32_t flags, uint8_t* out, size_t out_len) {
  const size_t whole_blocks = out_len / Blake3::kBlockSize;
  if (whole_blocks > 0) {
    kernels.root_blocks(cv, block, block_len, 0, flags | kRoot, whole_blocks, out);
  }
  const size_t tail = out_len % Blake3::kBlockSize;
  if (tail > 0) {
    uint8_t last[Blake3::kBlockSize];
    kernels.root_blocks(cv, block, block_len, whole_blocks, flags | kRoot, 1, last);
    std::memcpy(out + whole_blocks * Blake3::kBlockSize, last, tail);
  }
}

// Input of at most one chunk: the chunk is the root, and its blocks are compressed straight
// from `data` with no hasher state to fill.
void HashOneChunk(const Kernels& kernels, std::string_view data, uint8_t* out, size_t out_len) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  // An empty input still has one (empty) block.
  const size_t block_count =
      std::max<size_t>(1, (data.size() + Blake3::kBlockSize - 1) / Blake3::kBlockSize);
  uint32_t cv[8];
  std::copy(kIv, kIv + 8, cv);
  for (size_t i = 0; i + 1 < block_count; ++i) {
    kernels.compress_in_place(cv, bytes + i * Blake3::kBlockSize, Blake3::kBlockSize, 0,
                              i == 0 ? kChunkStart : 0);
  }
  const size_t last_offset = (block_count - 1) * Blake3::kBlockSize;
  const size_t last_len = data.size() - last_offset;
  uint8_t last[Blake3::kBlockSize] = {};
  if (last_len > 0) std::memcpy(last, bytes + last_offset, last_len);
  const uint32_t flags = kChunkEnd | (block_count == 1 ? kChunkStart : 0);
  WriteRootOutput(kernels, cv, last, static_cast<uint32_t>(last_len), flags, out, out_len);
}

void XofWith(Blake3Engine engine, std::string_view data, uint8_t* out, size_t out_len) {
  if (data.size() <= Blake3::kChunkSize) {
    HashOneChunk(blake3_detail::KernelsFor(engine), data, out, out_len);
    return;
  }
  Blake3 hasher(engine);
  hasher.Update(data);
  hasher.Finalize(out, out_len);
}

}  // namespace

const Kernels& blake3_detail::KernelsFor(Blake3Engine engine) {
  if (!Blake3EngineSupported(engine)) {
    throw Error(ErrorCode::kNotSupported,
                std::string("BLAKE3 engine '") + Blake3EngineName(engine) +
                    "' needs CPU instructions this machine lacks; use the default engine");
  }
  switch (engine) {
    case Blake3Engine::kAvx512:
      return kAvx512Kernels;
    case Blake3Engine::kAvx2:
      return kAvx2Kernels;
    case Blake3Engine::kSse41:
      return kSse41Kernels;
    case Blake3Engine::kPortable:
      break;
  }
  return kPortableKernels;
}

bool Blake3EngineSupported(Blake3Engine engine) {
  static const bool kSupported[] = {CpuHas(Blake3Engine::kPortable), CpuHas(Blake3Engine::kSse41),
                                    CpuHas(Blake3Engine::kAvx2), CpuHas(Blake3Engine::kAvx512)};
  const auto index = static_cast<size_t>(engine);
  return index < std::size(kSupported) && kSupported[index];
}

Blake3Engine DefaultBlake3Engine() {
  if (Blake3EngineSupported(Blake3Engine::kAvx512)) return Blake3Engine::kAvx512;
  if (Blake3EngineSupported(Blake3Engine::kAvx2)) return Blake3Engine::kAvx2;
  if (Blake3EngineSupported(Blake3Engine::kSse41)) return Blake3Engine::kSse41;
  return Blake3Engine::kPortable;
}

const char* Blake3EngineName(Blake3Engine engine) {
  switch (engine) {
    case Blake3Engine::kAvx512:
      return "avx512";
    case Blake3Engine::kAvx2:
      return "avx2";
    case Blake3Engine::kSse41:
      return "sse4.1";
    case Blake3Engine::kPortable:
      return "portable";
  }
  return "unknown";
}

Blake3::Blake3() : kernels_(DefaultKernels()) { StartChunk(0); }

Blake3::Blake3(Blake3Engine engine) : kernels_(&blake3_detail::KernelsFor(engine)) {
  StartChunk(0);
}

void Blake3::StartChunk(uint64_t counter) {
  chunk_ = ChunkState{};
  std::copy(kIv, kIv + 8, chunk_.cv.begin());
  chunk_.counter = counter;
}

// Takes bytes from `data` into the current chunk, up to the chunk's end. A full block is
// compressed only once more input arrives, because the chunk's last block must be compressed
// with CHUNK_END (and possibly ROOT), which is not known until then.
void Blake3::AbsorbIntoChunk(std::string_view& data) {
  while (!data.empty() && chunk_.Length() < kChunkSize) {
    if (chunk_.block_len == kBlockSize) {
      uint32_t flags = chunk_.blocks_compressed == 0 ? kChunkStart : 0;
      kernels_->compress_in_place(chunk_.cv.data(), chunk_.block.data(), kBlockSize,
                                  chunk_.counter, flags);
      ++chunk_.blocks_compressed;
      chunk_.block_len = 0;
    }
    size_t take = std::min(kBlockSize - chunk_.block_len, data.size());
    std::copy(data.begin(), data.begin() + take, chunk_.block.begin() + chunk_.block_len);
    chunk_.block_len += take;
    data.remove_prefix(take);
  }
}

Blake3::Output Blake3::ChunkOutput() const {
  Output node{chunk_.cv, {}, chunk_.counter, static_cast<uint32_t>(chunk_.block_len),
              kChunkEnd | (chunk_.blocks_compressed == 0 ? kChunkStart : 0)};
  std::copy(chunk_.block.begin(), chunk_.block.begin() + chunk_.block_len, node.block.begin());
  return node;
}

// A parent node (spec §2.5): its block is the two children's chaining values.
Blake3::Output Blake3::ParentOutput(const Words8& left, const Words8& right) const {
  Output node{{}, {}, 0, kBlockSize, kParent};
  std::copy(kIv, kIv + 8, node.cv.begin());
  for (size_t i = 0; i < 8; ++i) {
    StoreLittleEndian32(left[i], node.block.data() + 4 * i);
    StoreLittleEndian32(right[i], node.block.data() + 32 + 4 * i);
  }
  return node;
}

Blake3::Words8 Blake3::ChainingValue(const Output& node) const {
  Words8 cv = node.cv;
  kernels_->compress_in_place(cv.data(), node.block.data(), node.block_len, node.counter,
                              node.flags);
  return cv;
}

// Adds a completed chunk's CV. After `total_chunks` chunks, each trailing zero bit of that
// count marks a subtree that is now complete, so its two halves merge into one parent CV.
// This keeps the stack at the left-to-right, largest-first tree shape the spec requires.
void Blake3::PushChunkCv(Words8 cv, uint64_t total_chunks) {
  while ((total_chunks & 1) == 0) {
    cv = ChainingValue(ParentOutput(cv_stack_.back(), cv));
    cv_stack_.pop_back();
    total_chunks >>= 1;
  }
  cv_stack_.push_back(cv);
}

void Blake3::Update(std::string_view data) {
  while (!data.empty()) {
    // Only close a full chunk once more input exists: the last chunk may be the root.
    if (chunk_.Length() == kChunkSize) {
      Words8 cv = ChainingValue(ChunkOutput());
      uint64_t total_chunks = chunk_.counter + 1;
      PushChunkCv(cv, total_chunks);
      StartChunk(total_chunks);
    }
    AbsorbIntoChunk(data);
  }
}

// Folds the pending chunk and the CV stack, right to left, into the root node, whose output
// is then expanded. The stack is read, not consumed, so the hasher stays usable.
void Blake3::Finalize(uint8_t* out, size_t out_len) const {
  Output node = ChunkOutput();
  for (auto it = cv_stack_.rbegin(); it != cv_stack_.rend(); ++it) {
    node = ParentOutput(*it, ChainingValue(node));
  }
  WriteRootOutput(*kernels_, node.cv.data(), node.block.data(), node.block_len, node.flags, out,
                  out_len);
}

Blake3Digest Blake3::Finalize() const {
  Blake3Digest digest;
  Finalize(digest.data(), digest.size());
  return digest;
}

Blake3Digest Blake3Of(std::string_view data) {
  Blake3Digest digest;
  Blake3XofInto(data, digest.data(), digest.size());
  return digest;
}

std::string Blake3Xof(std::string_view data, size_t out_len) {
  std::string out(out_len, '\0');
  Blake3XofInto(data, reinterpret_cast<uint8_t*>(out.data()), out_len);
  return out;
}

void Blake3XofInto(std::string_view data, uint8_t* out, size_t out_len) {
  XofWith(DefaultBlake3Engine(), data, out, out_len);
}

void Blake3XofInto(std::string_view data, uint8_t* out, size_t out_len, Blake3Engine engine) {
  XofWith(engine, data, out, out_len);
}

}  // namespace strata::sc
