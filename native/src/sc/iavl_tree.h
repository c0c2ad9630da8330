// The in-memory IAVL+ tree of memiavl: a mutable AVL tree whose root hash is byte-compatible
// with cosmos/iavl v0.19/v0.20 and memiavl, so state rebuilt here reproduces the reference
// node's store hashes.
//
// Shape and versions follow memiavl (which follows cosmos/iavl v0.19):
//   - leaves hold key/value; an inner node's key is the smallest key of its right subtree;
//   - every node a write touches (the new or overwritten leaf, the path above it, nodes moved
//     by a rotation) is stamped with the working version, `Version() + 1`; untouched subtrees
//     keep theirs. Overwriting a key with the same value still rewrites the leaf and its path
//     with the working version (memiavl's setRecursive does not compare values), so the root
//     hash changes;
//   - overwriting an existing key neither resizes nor rebalances;
//   - removing an absent key changes nothing (no version stamps);
//   - rebalancing is AVL with IAVL's tie rule (a child of balance 0 takes a single rotation).
//
// Versions follow memiavl's Tree: SaveVersion moves Version() to the next version, which is
// `initial_version` for the first save when that is > 1 (cosmos/iavl PR 660). Like memiavl,
// nodes written before that first save are still stamped `Version() + 1` = 1, not with the
// initial version; only later saves stamp `initial_version + 1`, ... .
//
// Only the working tree is kept: there are no historical versions (memiavl keeps those in
// on-disk snapshots plus its changelog). Hashes are cached per node and recomputed lazily for
// the nodes touched since they were last hashed, so a save after k writes costs O(k log n).
//
// A tree can also start from an on-disk snapshot (memiavl/tree_snapshot.h): its nodes are then
// read from the mapped files on first touch, so opening costs O(1) and a read materialises only
// its path; writes copy the nodes they change into memory as usual.
//
// Not thread-safe: callers serialise all calls, including const ones (RootHash fills caches,
// reads materialise snapshot nodes).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sc/sha256.h"

namespace strata::sc {

class TreeSnapshot;

/// Receives a tree's nodes in post-order (children before parents, leaves in key order).
class IavlPostOrderVisitor {
 public:
  virtual ~IavlPostOrderVisitor() = default;
  /// A leaf; `index` counts leaves from 0 in key order.
  virtual void Leaf(uint32_t index, std::string_view key, std::string_view value, int64_t version,
                    const Sha256Digest& hash) = 0;
  /// A branch after its subtree; `key_leaf` is the index of its right subtree's first leaf and
  /// `key` that leaf's key (the branch's routing key).
  virtual void Branch(uint8_t height, int64_t version, uint32_t size, uint32_t key_leaf,
                      std::string_view key, const Sha256Digest& hash) = 0;
};

class IavlTree {
 public:
  /// Construction options.
  struct Options {
    /// memiavl's initial version: the first SaveVersion yields it when > 1 (0 or 1: yields 1).
    int64_t initial_version = 0;
    /// Threads used to hash large dirty subtrees in SaveVersion/RootHash (1 = caller only).
    int hash_threads = 1;
  };

  /// A saved version and its root hash.
  struct SavedVersion {
    int64_t version;
    Sha256Digest root_hash;
  };

  class Iterator;

  /// An empty tree at version 0.
  IavlTree();
  /// An empty tree at version 0 with `options`.
  explicit IavlTree(const Options& options);
  /// The tree saved in `snapshot`, at the snapshot's version; nodes load on first touch.
  IavlTree(std::shared_ptr<const TreeSnapshot> snapshot, const Options& options);
  ~IavlTree();

  IavlTree(IavlTree&& other) noexcept;
  IavlTree& operator=(IavlTree&& other) noexcept;
  IavlTree(const IavlTree&) = delete;
  IavlTree& operator=(const IavlTree&) = delete;

  /// Sets `key` to `value` in the working tree.
  void Set(std::string_view key, std::string_view value);

  /// Removes `key` from the working tree; returns whether it was present.
  bool Remove(std::string_view key);

  /// The value of `key`, or nullopt when absent.
  std::optional<std::string> Get(std::string_view key) const;

  /// Whether `key` is present.
  bool Has(std::string_view key) const;

  /// The last saved version (0 before the first save).
  int64_t Version() const { return version_; }

  /// The version stamped on nodes written now (memiavl: `Version() + 1`).
  int64_t WorkingVersion() const { return version_ + 1; }

  /// The version the next SaveVersion will return.
  int64_t NextVersion() const;

  /// The configured initial version.
  int64_t InitialVersion() const { return initial_version_; }

  /// Sets memiavl's initial version; it only matters before the first save.
  void SetInitialVersion(int64_t initial_version) { initial_version_ = initial_version; }

  /// Number of keys in the tree.
  int64_t Size() const;

  /// Height of the root (0 for a single leaf or an empty tree).
  int Height() const;

  /// Bytes of the nodes held in memory: those written since the snapshot and those loaded
  /// from it on first touch, with their keys and values.
  uint64_t MemoryBytes() const;

  /// Root hash of the working tree (EmptyTreeHash() when empty); hashes dirty nodes.
  Sha256Digest RootHash() const;

  /// Hashes the working tree and seals it as the next version.
  SavedVersion SaveVersion();

  /// Seals the working tree as the next version without hashing it; returns that version.
  /// Replaying many versions this way and hashing once at the end gives the same hashes,
  /// since a node's hash depends only on its final contents and version stamp.
  int64_t AdvanceVersion();

  /// Visits every node in post-order (hashing dirty nodes first). Unchanged snapshot subtrees
  /// are read straight from the snapshot without being materialised.
  void WalkPostOrder(IavlPostOrderVisitor& visitor) const;

  /// Iterator over keys in [start, end) (nullopt = unbounded), ascending or descending.
  /// It is invalidated by any Set/Remove.
  Iterator NewIterator(std::optional<std::string_view> start, std::optional<std::string_view> end,
                       bool ascending) const;

  /// Calls `visit(key, value, version)` for every leaf in ascending key order.
  template <typename Visit>
  void ForEachLeaf(Visit&& visit) const;

 private:
  struct Node;
  class NodePool;
  struct Removal;
  struct Probe;

  static void UpdateHeightAndSize(Node* node);
  static int Balance(const Node* node);
  Node* NewLeaf(std::string_view key, std::string_view value);
  Node* NewInner(Node* left, Node* right);
  void Touch(Node* node) const;
  Node* RotateLeft(Node* node);
  Node* RotateRight(Node* node);
  Node* Rebalance(Node* node);
  Node* Refit(Node* node);
  Node* Insert(Node* node, const Probe& key, std::string_view value, bool* replaced);
  Removal Delete(Node* node, const Probe& key);
  Removal DeleteLeft(Node* node, const Probe& key);
  Removal DeleteRight(Node* node, const Probe& key);
  const Node* FindLeaf(std::string_view key) const;
  void HashDirty(Node* node, int parallel_depth) const;
  Node* LeftOf(const Node* node) const;
  Node* RightOf(const Node* node) const;
  void LoadChildren(Node* node) const;
  Node* LoadLeaf(uint32_t index) const;
  Node* LoadBranch(uint32_t index, uint32_t leaf_start) const;
  void WalkNode(const Node* node, IavlPostOrderVisitor& visitor, uint32_t* leaves) const;
  void WalkSnapshotBranch(uint32_t index, uint32_t leaf_start, IavlPostOrderVisitor& visitor,
                          uint32_t* leaves) const;

  std::unique_ptr<NodePool> pool_;
  std::shared_ptr<const TreeSnapshot> snapshot_;
  Node* root_ = nullptr;
  int64_t version_ = 0;
  int64_t initial_version_ = 0;
  int hash_threads_ = 1;
};

/// Ordered cursor over a key range of an IavlTree; see IavlTree::NewIterator.
class IavlTree::Iterator {
 public:
  /// Whether the cursor is on a key inside the range.
  bool Valid() const { return leaf_ != nullptr; }
  /// Moves to the next key in iteration order.
  void Next();
  /// The current key (requires Valid()).
  std::string_view Key() const;
  /// The current value (requires Valid()).
  std::string_view Value() const;
  /// The version the current leaf was last written at (requires Valid()).
  int64_t Version() const;

 private:
  friend class IavlTree;
  Iterator(const IavlTree* tree, std::optional<std::string_view> start,
           std::optional<std::string_view> end, bool ascending);
  void Seek(const Node* root);
  void Descend(const Node* node);
  void SettleOnLeaf(const Node* leaf);
  bool InRange(std::string_view key) const;

  const IavlTree* tree_;
  std::optional<std::string> start_, end_;
  bool ascending_;
  // Inner nodes whose far subtree (right when ascending, left when descending) is still to
  // be visited; at most the tree height deep.
  std::vector<const Node*> pending_;
  const Node* leaf_ = nullptr;
};

template <typename Visit>
void IavlTree::ForEachLeaf(Visit&& visit) const {
  for (Iterator it = NewIterator(std::nullopt, std::nullopt, true); it.Valid(); it.Next()) {
    visit(it.Key(), it.Value(), it.Version());
  }
}

}  // namespace strata::sc
