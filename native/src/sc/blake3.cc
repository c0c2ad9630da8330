#include "sc/blake3.h"

#include <algorithm>

namespace strata::sc {
namespace {

// BLAKE3 spec §2.1: the IV is SHA-256's initial hash value.
constexpr std::array<uint32_t, 8> kIv = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

// Spec §2.2: the order in which message words are reused by the next round.
constexpr std::array<size_t, 16> kMessagePermutation = {2, 6,  3,  10, 7, 0,  4,  13,
                                                        1, 11, 12, 5,  9, 14, 15, 8};

// Spec §2.1, Table 3: domain flags.
constexpr uint32_t kChunkStart = 1u << 0;
constexpr uint32_t kChunkEnd = 1u << 1;
constexpr uint32_t kParent = 1u << 2;
constexpr uint32_t kRoot = 1u << 3;

constexpr int kRounds = 7;

constexpr uint32_t RotateRight(uint32_t x, int bits) { return (x >> bits) | (x << (32 - bits)); }

uint32_t LoadLittleEndian32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

void StoreLittleEndian32(uint32_t v, uint8_t* p) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

using State = std::array<uint32_t, 16>;

// The quarter-round G (spec §2.2), mixing message words x and y into one column or diagonal.
void Mix(State& s, size_t a, size_t b, size_t c, size_t d, uint32_t x, uint32_t y) {
  s[a] = s[a] + s[b] + x;
  s[d] = RotateRight(s[d] ^ s[a], 16);
  s[c] = s[c] + s[d];
  s[b] = RotateRight(s[b] ^ s[c], 12);
  s[a] = s[a] + s[b] + y;
  s[d] = RotateRight(s[d] ^ s[a], 8);
  s[c] = s[c] + s[d];
  s[b] = RotateRight(s[b] ^ s[c], 7);
}

// One round: G over the four columns, then over the four diagonals.
void Round(State& s, const State& m) {
  Mix(s, 0, 4, 8, 12, m[0], m[1]);
  Mix(s, 1, 5, 9, 13, m[2], m[3]);
  Mix(s, 2, 6, 10, 14, m[4], m[5]);
  Mix(s, 3, 7, 11, 15, m[6], m[7]);
  Mix(s, 0, 5, 10, 15, m[8], m[9]);
  Mix(s, 1, 6, 11, 12, m[10], m[11]);
  Mix(s, 2, 7, 8, 13, m[12], m[13]);
  Mix(s, 3, 4, 9, 14, m[14], m[15]);
}

State Permute(const State& m) {
  State out;
  for (size_t i = 0; i < 16; ++i) out[i] = m[kMessagePermutation[i]];
  return out;
}

// The compression function (spec §2.2). Returns all 16 output words: the first 8 are the
// next chaining value, and all 16 are used when producing root output.
State Compress(const std::array<uint32_t, 8>& cv, const State& block_words, uint64_t counter,
               uint32_t block_len, uint32_t flags) {
  State s = {cv[0],  cv[1],  cv[2],  cv[3],
             cv[4],  cv[5],  cv[6],  cv[7],
             kIv[0], kIv[1], kIv[2], kIv[3],
             static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), block_len, flags};
  State m = block_words;
  for (int r = 0; r < kRounds; ++r) {
    Round(s, m);
    if (r + 1 < kRounds) m = Permute(m);
  }
  for (size_t i = 0; i < 8; ++i) {
    s[i] ^= s[i + 8];
    s[i + 8] ^= cv[i];
  }
  return s;
}

// Reads up to one block as little-endian words, zero-padding a short final block (spec §2.5).
State LoadBlockWords(const uint8_t* bytes, size_t len) {
  std::array<uint8_t, Blake3::kBlockSize> padded{};
  std::copy(bytes, bytes + len, padded.begin());
  State words;
  for (size_t i = 0; i < 16; ++i) words[i] = LoadLittleEndian32(padded.data() + 4 * i);
  return words;
}

std::array<uint32_t, 8> FirstEight(const State& s) {
  std::array<uint32_t, 8> out;
  std::copy(s.begin(), s.begin() + 8, out.begin());
  return out;
}

}  // namespace

Blake3::Words8 Blake3::Output::ChainingValue() const {
  return FirstEight(Compress(cv, block_words, counter, block_len, flags));
}

// Root output (spec §2.6): recompress the root node with ROOT set and an incrementing output
// block counter; each compression yields 64 bytes of the output stream.
void Blake3::Output::RootBytes(uint8_t* out, size_t out_len) const {
  for (uint64_t block_counter = 0; out_len > 0; ++block_counter) {
    State words = Compress(cv, block_words, block_counter, block_len, flags | kRoot);
    std::array<uint8_t, kBlockSize> bytes;
    for (size_t i = 0; i < 16; ++i) StoreLittleEndian32(words[i], bytes.data() + 4 * i);
    size_t take = std::min(out_len, bytes.size());
    std::copy(bytes.begin(), bytes.begin() + take, out);
    out += take;
    out_len -= take;
  }
}

Blake3::Blake3() { StartChunk(0); }

void Blake3::StartChunk(uint64_t counter) {
  chunk_ = ChunkState{};
  chunk_.cv = kIv;
  chunk_.counter = counter;
}

// Takes bytes from `data` into the current chunk, up to the chunk's end. A full block is
// compressed only once more input arrives, because the chunk's last block must be compressed
// with CHUNK_END (and possibly ROOT), which is not known until then.
void Blake3::AbsorbIntoChunk(std::string_view& data) {
  while (!data.empty() && chunk_.Length() < kChunkSize) {
    if (chunk_.block_len == kBlockSize) {
      uint32_t flags = chunk_.blocks_compressed == 0 ? kChunkStart : 0;
      State words = LoadBlockWords(chunk_.block.data(), kBlockSize);
      chunk_.cv = FirstEight(Compress(chunk_.cv, words, chunk_.counter, kBlockSize, flags));
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
  uint32_t flags = kChunkEnd | (chunk_.blocks_compressed == 0 ? kChunkStart : 0);
  return Output{chunk_.cv, LoadBlockWords(chunk_.block.data(), chunk_.block_len), chunk_.counter,
                static_cast<uint32_t>(chunk_.block_len), flags};
}

namespace {

// A parent node's compression input: the two children's chaining values (spec §2.5).
std::array<uint32_t, 16> ParentBlock(const std::array<uint32_t, 8>& left,
                                     const std::array<uint32_t, 8>& right) {
  std::array<uint32_t, 16> block;
  std::copy(left.begin(), left.end(), block.begin());
  std::copy(right.begin(), right.end(), block.begin() + 8);
  return block;
}

}  // namespace

// Adds a completed chunk's CV. After `total_chunks` chunks, each trailing zero bit of that
// count marks a subtree that is now complete, so its two halves merge into one parent CV.
// This keeps the stack at the left-to-right, largest-first tree shape the spec requires.
void Blake3::PushChunkCv(Words8 cv, uint64_t total_chunks) {
  while ((total_chunks & 1) == 0) {
    Output parent{kIv, ParentBlock(cv_stack_.back(), cv), 0, kBlockSize, kParent};
    cv_stack_.pop_back();
    cv = parent.ChainingValue();
    total_chunks >>= 1;
  }
  cv_stack_.push_back(cv);
}

void Blake3::Update(std::string_view data) {
  while (!data.empty()) {
    // Only close a full chunk once more input exists: the last chunk may be the root.
    if (chunk_.Length() == kChunkSize) {
      Words8 cv = ChunkOutput().ChainingValue();
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
    node = Output{kIv, ParentBlock(*it, node.ChainingValue()), 0, kBlockSize, kParent};
  }
  node.RootBytes(out, out_len);
}

Blake3Digest Blake3::Finalize() const {
  Blake3Digest digest;
  Finalize(digest.data(), digest.size());
  return digest;
}

Blake3Digest Blake3Of(std::string_view data) {
  Blake3 hasher;
  hasher.Update(data);
  return hasher.Finalize();
}

std::string Blake3Xof(std::string_view data, size_t out_len) {
  Blake3 hasher;
  hasher.Update(data);
  std::string out(out_len, '\0');
  hasher.Finalize(reinterpret_cast<uint8_t*>(out.data()), out_len);
  return out;
}

}  // namespace strata::sc
