// One IAVL tree's snapshot files, in memiavl's layout (all integers little-endian):
//
//   metadata  12 bytes: magic 0x4C564149 ("IAVL") u32 | format 0 u32 | version u32
//   nodes     branch nodes in post-order, 48 bytes each:
//             height u8 | 0 u8 | 0 u16 | version u32 | size u32 | keyLeaf u32 | hash[32]
//   leaves    leaves in key order, 48 bytes each:
//             version u32 | keyLen u32 | keyOffset u64 (into kvs) | hash[32]
//   kvs       keyLen u32 | key | valueLen u32 | value, per leaf
//
// keyLeaf is the index of the smallest leaf of a branch's right subtree (whose key is the
// branch's key). Child positions are implicit: for branch i covering leaves [s, s+size) with
// keyLeaf k, the right child is leaf k when k+1 == s+size, else branch i-1; the left child is
// leaf s when k == s+1, else branch i-(s+size-k). The root is the last branch (or the only
// leaf). Readers map the files, so a tree is paged in only where it is read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sc/memiavl/mapped_file.h"
#include "sc/memiavl/write_rate_limiter.h"
#include "sc/sha256.h"
#include "unique_fd.h"

namespace strata::sc {

inline constexpr uint32_t kTreeSnapshotMagic = 0x4C564149;
inline constexpr size_t kTreeSnapshotRecordBytes = 48;

/// A branch node as stored in `nodes`.
struct SnapshotBranch {
  uint8_t height;
  uint32_t version;
  uint32_t size;
  uint32_t key_leaf;
  Sha256Digest hash;
};

/// A leaf as stored in `leaves` + `kvs`; key and value point into the mapping.
struct SnapshotLeaf {
  uint32_t version;
  std::string_view key;
  std::string_view value;
  Sha256Digest hash;
};

/// A mapped, read-only tree snapshot. Record accessors check bounds and throw kCorruption.
class TreeSnapshot {
 public:
  /// Maps the four files of `dir`; checks the magic, format and record-file sizes.
  static std::shared_ptr<const TreeSnapshot> Open(const std::string& dir);

  /// The tree version the snapshot holds.
  uint32_t version() const { return version_; }
  /// Number of leaves (= keys).
  uint32_t leaf_count() const { return leaf_count_; }
  /// Number of branch nodes (leaf_count - 1, or 0).
  uint32_t branch_count() const { return branch_count_; }

  /// Branch record `i` (0 ≤ i < branch_count).
  SnapshotBranch Branch(uint32_t i) const;
  /// Leaf record `i` (0 ≤ i < leaf_count) with its key and value.
  SnapshotLeaf Leaf(uint32_t i) const;
  /// Just the key of leaf `i`.
  std::string_view LeafKey(uint32_t i) const;

 private:
  TreeSnapshot(const std::string& dir);
  [[noreturn]] void Corrupt(const std::string& what) const;

  std::string dir_;
  MappedFile nodes_, leaves_, kvs_;
  uint32_t version_ = 0;
  uint32_t leaf_count_ = 0;
  uint32_t branch_count_ = 0;
};

/// Writes a tree snapshot from a post-order stream of nodes into a new directory.
class TreeSnapshotWriter {
 public:
  /// Creates `dir` (which must not exist yet) and its files; writes are paced by `limiter`
  /// when given (it must outlive the writer).
  explicit TreeSnapshotWriter(const std::string& dir, WriteRateLimiter* limiter = nullptr);
  ~TreeSnapshotWriter();
  TreeSnapshotWriter(const TreeSnapshotWriter&) = delete;
  TreeSnapshotWriter& operator=(const TreeSnapshotWriter&) = delete;

  /// Appends the next leaf in key order.
  void AddLeaf(std::string_view key, std::string_view value, int64_t version, const Sha256Digest& hash);
  /// Appends a branch after its whole subtree; `key_leaf` is the index its right subtree's
  /// first leaf got from AddLeaf.
  void AddBranch(uint8_t height, int64_t version, uint32_t size, uint32_t key_leaf, const Sha256Digest& hash);
  /// Leaves added so far.
  uint32_t leaf_count() const { return leaf_count_; }
  /// Bytes written so far.
  uint64_t bytes_written() const { return bytes_written_; }
  /// Writes `metadata` for `version`, flushes and syncs every file.
  void Finish(int64_t version);

 private:
  class Sink;
  std::unique_ptr<Sink> nodes_, leaves_, kvs_;
  std::string dir_;
  uint32_t leaf_count_ = 0;
  uint64_t kv_offset_ = 0;
  uint64_t bytes_written_ = 0;
};

/// Checks that `version` fits the snapshot's u32 field; throws kInvalidArgument otherwise.
uint32_t SnapshotVersion(int64_t version);

}  // namespace strata::sc
