// BLAKE3 (the published specification, "BLAKE3: one function, fast everywhere", 2020),
// unkeyed hash mode only: FlatKV's LtHash needs both the 32-byte digest and the extendable
// output. Portable and self-contained for the same reason as sha256.h: the storage core
// links no crypto library. No SIMD; LtHash inputs are short, so one chunk at a time suffices.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace strata::sc {

inline constexpr size_t kBlake3Size = 32;

/// A default-length BLAKE3 digest: 32 raw bytes.
using Blake3Digest = std::array<uint8_t, kBlake3Size>;

/// Incremental BLAKE3: feed bytes with Update, read any amount of output with Finalize.
class Blake3 {
 public:
  Blake3();

  /// Hashes `data` after everything fed so far.
  void Update(std::string_view data);

  /// Writes the first `out_len` bytes of the extendable output of everything fed so far.
  /// Does not change the hasher, so more input may follow.
  void Finalize(uint8_t* out, size_t out_len) const;

  /// Returns the 32-byte digest of everything fed so far.
  Blake3Digest Finalize() const;

  static constexpr size_t kBlockSize = 64;
  static constexpr size_t kChunkSize = 1024;

 private:
  using Words8 = std::array<uint32_t, 8>;

  // The input chunk being absorbed: its running chaining value and a partial block.
  struct ChunkState {
    Words8 cv;
    uint64_t counter = 0;  // index of this chunk in the input
    std::array<uint8_t, kBlockSize> block{};
    size_t block_len = 0;
    size_t blocks_compressed = 0;

    size_t Length() const { return blocks_compressed * kBlockSize + block_len; }
  };

  // Everything needed to compress a tree node's last block, possibly with ROOT set.
  struct Output {
    Words8 cv;
    std::array<uint32_t, 16> block_words;
    uint64_t counter;
    uint32_t block_len;
    uint32_t flags;

    Words8 ChainingValue() const;
    void RootBytes(uint8_t* out, size_t out_len) const;
  };

  void StartChunk(uint64_t counter);
  void AbsorbIntoChunk(std::string_view& data);
  Output ChunkOutput() const;
  void PushChunkCv(Words8 cv, uint64_t total_chunks);

  ChunkState chunk_;
  // Chaining values of completed subtrees, largest first; merged as the tree grows.
  std::vector<Words8> cv_stack_;
};

/// BLAKE3-256 of `data`.
Blake3Digest Blake3Of(std::string_view data);

/// The first `out_len` bytes of BLAKE3's extendable output for `data`.
std::string Blake3Xof(std::string_view data, size_t out_len);

}  // namespace strata::sc
