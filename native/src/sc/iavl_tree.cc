#include "sc/iavl_tree.h"

#include <algorithm>
#include <cstring>
#include <system_error>
#include <thread>

#include "sc/iavl_hash.h"
#include "strata/status.h"
#include "sc/memiavl/tree_snapshot.h"

namespace strata::sc {

namespace {

// Bytes kept inside the node up to kInline, on the heap beyond. Keys and values of module
// stores are mostly 20-32 bytes; keeping them inline spares a cache miss on every comparison
// of a descent and on every leaf hashed.
class SmallBytes {
 public:
  static constexpr size_t kInline = 32;

  void assign(const char* data, size_t size) {
    if (size <= kInline) {
      std::memmove(inline_, data, size);
    } else {
      if (size > capacity_) {
        auto grown = std::make_unique<char[]>(size);
        std::memcpy(grown.get(), data, size);
        heap_ = std::move(grown);
        capacity_ = static_cast<uint32_t>(size);
      } else {
        std::memmove(heap_.get(), data, size);
      }
    }
    size_ = static_cast<uint32_t>(size);
  }
  void assign(std::string_view bytes) { assign(bytes.data(), bytes.size()); }
  std::string_view view() const { return {size_ <= kInline ? inline_ : heap_.get(), size_}; }
  /// Bytes of the heap buffer (0 while the bytes fit inline).
  size_t heap_capacity() const { return capacity_; }
  operator std::string_view() const { return view(); }
  /// Empties the bytes; a large heap buffer is released rather than pinned by a recycled node.
  void Reset(size_t keep_capacity) {
    if (capacity_ > keep_capacity) {
      heap_.reset();
      capacity_ = 0;
    }
    size_ = 0;
  }

 private:
  uint32_t size_ = 0;
  uint32_t capacity_ = 0;
  char inline_[kInline];
  std::unique_ptr<char[]> heap_;
};

}  // namespace

// One node of the tree. Leaves have height 0 and size 1; inner nodes have both children, or,
// when `lazy`, have them still in the snapshot (branch `snap_index`, leaves from `leaf_start`).
// Nodes live in a NodePool and are linked by raw pointers; the pool owns them.
struct IavlTree::Node {
  SmallBytes key;    // leaf: its key; inner: smallest key of the right subtree
  SmallBytes value;  // leaves only
  uint64_t prefix = 0;  // KeyPrefix(key): most routing decisions end here, sparing a
                        // cache miss on the key's heap buffer
  Node* left = nullptr;
  Node* right = nullptr;
  int64_t version = 0;
  uint32_t size = 1;  // leaves below (memiavl also caps sizes at uint32)
  uint8_t height = 0;
  bool hashed = false;  // whether `hash` is current; cleared whenever the node is stamped
  bool lazy = false;    // children not loaded yet (snapshot nodes only; such nodes are hashed)
  uint32_t snap_index = 0;
  uint32_t leaf_start = 0;
  Sha256Digest hash{};

  bool IsLeaf() const { return height == 0; }
};

// Chunked node storage with a free list: a block of 60k writes allocates and frees a few
// hundred thousand nodes, and recycling them avoids one heap round trip per node.
class IavlTree::NodePool {
 public:
  Node* Allocate() {
    if (free_ != nullptr) {
      Node* node = free_;
      free_ = node->left;
      node->left = nullptr;
      return node;
    }
    if (next_ == kChunkNodes) {
      chunks_.push_back(std::make_unique<Node[]>(kChunkNodes));
      next_ = 0;
    }
    return &chunks_.back()[next_++];
  }

  void Release(Node* node) {
    // Keep small buffers for reuse, but do not let a recycled node pin a large one.
    heap_bytes_ -= node->key.heap_capacity() + node->value.heap_capacity();
    node->key.Reset(kKeepCapacity);
    node->value.Reset(kKeepCapacity);
    heap_bytes_ += node->key.heap_capacity() + node->value.heap_capacity();
    node->right = nullptr;
    node->lazy = false;
    node->left = free_;
    free_ = node;
  }

  /// Sets `bytes` (a node's key or value), counting a heap buffer it grows.
  void Assign(SmallBytes& bytes, std::string_view data) {
    const size_t before = bytes.heap_capacity();
    bytes.assign(data);
    heap_bytes_ += bytes.heap_capacity() - before;
  }

  /// Bytes held: every chunk of nodes, free ones included, and the keys and values too long
  /// to sit inline.
  uint64_t MemoryBytes() const { return chunks_.size() * kChunkNodes * sizeof(Node) + heap_bytes_; }

 private:
  static constexpr size_t kChunkNodes = 4096;
  static constexpr size_t kKeepCapacity = 256;

  std::vector<std::unique_ptr<Node[]>> chunks_;
  size_t next_ = kChunkNodes;
  Node* free_ = nullptr;  // linked through `left`
  uint64_t heap_bytes_ = 0;
};

// What Delete hands back one level up.
struct IavlTree::Removal {
  Node* node = nullptr;                // the subtree after the removal
  std::optional<std::string> new_key;  // replacement key for the ancestor that routed right
  bool removed = false;                // false: the key was absent and nothing changed
};

namespace {

// The key's first 8 bytes as a big-endian number, zero-padded: comparing two prefixes
// orders the keys whenever the prefixes differ.
uint64_t KeyPrefix(std::string_view key) {
  uint64_t prefix = 0;
  const size_t n = std::min<size_t>(key.size(), 8);
  for (size_t i = 0; i < n; ++i) prefix |= uint64_t{static_cast<uint8_t>(key[i])} << (56 - 8 * i);
  return prefix;
}

}  // namespace

// A key being looked up, with its prefix computed once for the whole descent.
struct IavlTree::Probe {
  std::string_view bytes;
  uint64_t prefix;

  explicit Probe(std::string_view key) : bytes(key), prefix(KeyPrefix(key)) {}

  /// Whether the probe orders before `node`'s key (that is, routes left).
  bool Before(const Node* node) const {
    if (prefix != node->prefix) return prefix < node->prefix;
    return bytes.compare(node->key.view()) < 0;
  }
  /// Whether the probe equals `node`'s key.
  bool Matches(const Node* node) const { return prefix == node->prefix && bytes == node->key.view(); }
};

namespace {

// Below this many leaves a subtree is hashed on the current thread: a thread start costs
// more than hashing a small subtree.
constexpr uint32_t kParallelHashMinLeaves = 1u << 14;

bool Less(std::string_view a, std::string_view b) { return a.compare(b) < 0; }

// Go's binary.PutUvarint into `out`; returns the bytes written (at most 10).
size_t EncodeUvarint(uint8_t* out, uint64_t value) {
  size_t n = 0;
  while (value >= 0x80) {
    out[n++] = static_cast<uint8_t>(value | 0x80);
    value >>= 7;
  }
  out[n++] = static_cast<uint8_t>(value);
  return n;
}

// Go's binary.PutVarint (zig-zag) into `out`.
size_t EncodeVarint(uint8_t* out, int64_t value) {
  const uint64_t zigzag = (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  return EncodeUvarint(out, zigzag);
}

// The varint(height) ‖ varint(size) ‖ varint(version) prefix every node hash starts with.
size_t EncodeHeader(uint8_t* out, uint8_t height, int64_t size, int64_t version) {
  size_t n = EncodeVarint(out, height);
  n += EncodeVarint(out + n, size);
  n += EncodeVarint(out + n, version);
  return n;
}

std::string_view Bytes(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Same bytes as LeafHash() (iavl_hash.cc), written without building a temporary string;
// the tree tests check both agree through the published root-hash vectors.
Sha256Digest HashLeafFast(std::string_view key, std::string_view value, int64_t version) {
  uint8_t buf[40];
  size_t n = EncodeHeader(buf, 0, 1, version);
  n += EncodeUvarint(buf + n, key.size());
  Sha256 hasher;
  hasher.Update(Bytes(buf, n));
  hasher.Update(key);
  const Sha256Digest value_hash = Sha256Of(value);
  uint8_t tail[1 + kSha256Size];
  tail[0] = kSha256Size;
  std::copy(value_hash.begin(), value_hash.end(), tail + 1);
  hasher.Update(Bytes(tail, sizeof tail));
  return hasher.Finish();
}

// Same bytes as InnerHash() (iavl_hash.cc), assembled in one stack buffer.
Sha256Digest HashInnerFast(uint8_t height, int64_t size, int64_t version,
                           const Sha256Digest& left, const Sha256Digest& right) {
  uint8_t buf[30 + 2 * (1 + kSha256Size)];
  size_t n = EncodeHeader(buf, height, size, version);
  buf[n++] = kSha256Size;
  n = std::copy(left.begin(), left.end(), buf + n) - buf;
  buf[n++] = kSha256Size;
  n = std::copy(right.begin(), right.end(), buf + n) - buf;
  Sha256 hasher;
  hasher.Update(Bytes(buf, n));
  return hasher.Finish();
}

// Levels of two-way splits that give each of `threads` threads a subtree.
int SplitDepth(int threads) {
  int depth = 0;
  while ((1 << depth) < threads && depth < 8) ++depth;
  return depth;
}

}  // namespace

void IavlTree::UpdateHeightAndSize(Node* node) {
  node->height = static_cast<uint8_t>(std::max(node->left->height, node->right->height) + 1);
  node->size = node->left->size + node->right->size;
}

int IavlTree::Balance(const Node* node) {
  return int{node->left->height} - int{node->right->height};
}

// ---- snapshot nodes -------------------------------------------------------------------------
// Child links are read through LeftOf/RightOf, which load a snapshot node's children on first
// use. Dirty (unhashed) nodes never have lazy children, so hashing, which may run on several
// threads, follows the raw links and never allocates.

IavlTree::Node* IavlTree::LeftOf(const Node* node) const {
  if (node->lazy) LoadChildren(const_cast<Node*>(node));
  return node->left;
}

IavlTree::Node* IavlTree::RightOf(const Node* node) const {
  if (node->lazy) LoadChildren(const_cast<Node*>(node));
  return node->right;
}

void IavlTree::LoadChildren(Node* node) const {
  const SnapshotBranch branch = snapshot_->Branch(node->snap_index);
  const uint32_t start = node->leaf_start;
  const uint32_t end = start + branch.size;
  const uint32_t key_leaf = branch.key_leaf;
  const uint32_t right_size = end - key_leaf;
  if (key_leaf <= start || key_leaf >= end || right_size > node->snap_index + 1) {
    throw Error(ErrorCode::kCorruption, "memiavl snapshot branch " + std::to_string(node->snap_index) +
                                            " has an impossible key leaf; remove that snapshot and reopen");
  }
  node->right = right_size == 1 ? LoadLeaf(key_leaf) : LoadBranch(node->snap_index - 1, key_leaf);
  node->left = key_leaf - start == 1 ? LoadLeaf(start) : LoadBranch(node->snap_index - right_size, start);
  node->lazy = false;
}

IavlTree::Node* IavlTree::LoadLeaf(uint32_t index) const {
  const SnapshotLeaf rec = snapshot_->Leaf(index);
  Node* leaf = pool_->Allocate();
  pool_->Assign(leaf->key, rec.key);
  leaf->prefix = KeyPrefix(rec.key);
  pool_->Assign(leaf->value, rec.value);
  leaf->left = leaf->right = nullptr;
  leaf->version = rec.version;
  leaf->size = 1;
  leaf->height = 0;
  leaf->hash = rec.hash;
  leaf->hashed = true;
  leaf->lazy = false;
  return leaf;
}

IavlTree::Node* IavlTree::LoadBranch(uint32_t index, uint32_t leaf_start) const {
  const SnapshotBranch rec = snapshot_->Branch(index);
  if (rec.height == 0 || rec.size < 2) {
    throw Error(ErrorCode::kCorruption, "memiavl snapshot branch " + std::to_string(index) +
                                            " has height 0 or size < 2; remove that snapshot and reopen");
  }
  Node* node = pool_->Allocate();
  const std::string_view key = snapshot_->LeafKey(rec.key_leaf);
  pool_->Assign(node->key, key);
  node->prefix = KeyPrefix(key);
  node->left = node->right = nullptr;
  node->version = rec.version;
  node->size = rec.size;
  node->height = rec.height;
  node->hash = rec.hash;
  node->hashed = true;
  node->lazy = true;
  node->snap_index = index;
  node->leaf_start = leaf_start;
  return node;
}

// ---- construction ---------------------------------------------------------------------

IavlTree::IavlTree() : IavlTree(Options{}) {}

IavlTree::IavlTree(const Options& options)
    : pool_(std::make_unique<NodePool>()),
      initial_version_(options.initial_version),
      hash_threads_(std::max(1, options.hash_threads)) {}

IavlTree::IavlTree(std::shared_ptr<const TreeSnapshot> snapshot, const Options& options)
    : IavlTree(options) {
  snapshot_ = std::move(snapshot);
  version_ = snapshot_->version();
  if (snapshot_->leaf_count() == 1) {
    root_ = LoadLeaf(0);
  } else if (snapshot_->leaf_count() > 1) {
    root_ = LoadBranch(snapshot_->branch_count() - 1, 0);
    if (root_->size != snapshot_->leaf_count()) {
      throw Error(ErrorCode::kCorruption, "memiavl snapshot root does not cover every leaf; remove that snapshot and reopen");
    }
  }
}

IavlTree::~IavlTree() = default;

IavlTree::IavlTree(IavlTree&& other) noexcept
    : pool_(std::move(other.pool_)),
      snapshot_(std::move(other.snapshot_)),
      root_(std::exchange(other.root_, nullptr)),
      version_(std::exchange(other.version_, 0)),
      initial_version_(other.initial_version_),
      hash_threads_(other.hash_threads_) {
  // Leave `other` usable as an empty tree.
  other.pool_ = std::make_unique<NodePool>();
}

IavlTree& IavlTree::operator=(IavlTree&& other) noexcept {
  if (this != &other) {
    pool_ = std::exchange(other.pool_, std::make_unique<NodePool>());
    snapshot_ = std::move(other.snapshot_);
    root_ = std::exchange(other.root_, nullptr);
    version_ = std::exchange(other.version_, 0);
    initial_version_ = other.initial_version_;
    hash_threads_ = other.hash_threads_;
  }
  return *this;
}

// ---- node building ----------------------------------------------------------------------

IavlTree::Node* IavlTree::NewLeaf(std::string_view key, std::string_view value) {
  Node* leaf = pool_->Allocate();
  pool_->Assign(leaf->key, key);
  leaf->prefix = KeyPrefix(key);
  pool_->Assign(leaf->value, value);
  leaf->left = leaf->right = nullptr;
  leaf->size = 1;
  leaf->height = 0;
  Touch(leaf);
  return leaf;
}

// A new inner node over two leaves; it routes by its right leaf's key.
IavlTree::Node* IavlTree::NewInner(Node* left, Node* right) {
  Node* inner = pool_->Allocate();
  pool_->Assign(inner->key, right->key.view());
  inner->prefix = right->prefix;
  inner->left = left;
  inner->right = right;
  UpdateHeightAndSize(inner);
  Touch(inner);
  return inner;
}

// Marks a node as rewritten in the working version; its cached hash is stale from now on.
void IavlTree::Touch(Node* node) const {
  node->version = WorkingVersion();
  node->hashed = false;
}

// ---- balancing (cosmos/iavl v0.19 rotateLeft/rotateRight/balance) ------------------------

IavlTree::Node* IavlTree::RotateRight(Node* node) {
  Node* pivot = LeftOf(node);
  node->left = RightOf(pivot);
  Touch(node);
  UpdateHeightAndSize(node);
  pivot->right = node;
  Touch(pivot);
  UpdateHeightAndSize(pivot);
  return pivot;
}

IavlTree::Node* IavlTree::RotateLeft(Node* node) {
  Node* pivot = RightOf(node);
  node->right = LeftOf(pivot);
  Touch(node);
  UpdateHeightAndSize(node);
  pivot->left = node;
  Touch(pivot);
  UpdateHeightAndSize(pivot);
  return pivot;
}

// IAVL's tie rule: a heavy child with balance 0 gets a single rotation, not a double one.
IavlTree::Node* IavlTree::Rebalance(Node* node) {
  const int balance = Balance(node);
  if (balance > 1) {
    Node* left = LeftOf(node);
    LeftOf(left);  // its children take part in the rotation
    if (Balance(left) < 0) node->left = RotateLeft(left);
    return RotateRight(node);
  }
  if (balance < -1) {
    Node* right = RightOf(node);
    LeftOf(right);
    if (Balance(right) > 0) node->right = RotateRight(right);
    return RotateLeft(node);
  }
  return node;
}

// Stamps a node whose subtree changed, recomputes its counts and rebalances it.
IavlTree::Node* IavlTree::Refit(Node* node) {
  Touch(node);
  UpdateHeightAndSize(node);
  return Rebalance(node);
}

// ---- writes -------------------------------------------------------------------------------

void IavlTree::Set(std::string_view key, std::string_view value) {
  if (root_ == nullptr) {
    root_ = NewLeaf(key, value);
    return;
  }
  bool replaced = false;
  root_ = Insert(root_, Probe(key), value, &replaced);
}

IavlTree::Node* IavlTree::Insert(Node* node, const Probe& key, std::string_view value,
                                 bool* replaced) {
  if (node->IsLeaf()) {
    if (key.Matches(node)) {
      // Rewritten in place; equivalent to IAVL's fresh leaf (same key, new value, new version).
      *replaced = true;
      pool_->Assign(node->value, value);
      Touch(node);
      return node;
    }
    Node* leaf = NewLeaf(key.bytes, value);
    return key.Before(node) ? NewInner(leaf, node) : NewInner(node, leaf);
  }
  Touch(node);
  if (key.Before(node)) {
    node->left = Insert(LeftOf(node), key, value, replaced);
  } else {
    node->right = Insert(RightOf(node), key, value, replaced);
  }
  if (*replaced) return node;  // same shape: IAVL neither resizes nor rebalances
  UpdateHeightAndSize(node);
  return Rebalance(node);
}

bool IavlTree::Remove(std::string_view key) {
  if (root_ == nullptr) return false;
  Removal removal = Delete(root_, Probe(key));
  root_ = removal.node;
  return removal.removed;
}

IavlTree::Removal IavlTree::Delete(Node* node, const Probe& key) {
  if (node->IsLeaf()) {
    if (!key.Matches(node)) return {node, std::nullopt, false};
    pool_->Release(node);
    return {nullptr, std::nullopt, true};
  }
  return key.Before(node) ? DeleteLeft(node, key) : DeleteRight(node, key);
}

IavlTree::Removal IavlTree::DeleteLeft(Node* node, const Probe& key) {
  Removal child = Delete(LeftOf(node), key);
  if (!child.removed) return {node, std::nullopt, false};
  if (child.node == nullptr) {
    // The left leaf went away: the right subtree takes this node's place, and this node's
    // key (the smallest key on the right) becomes the key of the ancestor that routed right.
    Node* right = node->right;
    std::optional<std::string> new_key(node->key.view());
    pool_->Release(node);
    return {right, std::move(new_key), true};
  }
  node->left = child.node;
  return {Refit(node), std::move(child.new_key), true};
}

IavlTree::Removal IavlTree::DeleteRight(Node* node, const Probe& key) {
  Removal child = Delete(RightOf(node), key);
  if (!child.removed) return {node, std::nullopt, false};
  if (child.node == nullptr) {
    Node* left = node->left;
    pool_->Release(node);
    return {left, std::nullopt, true};
  }
  node->right = child.node;
  if (child.new_key) {
    pool_->Assign(node->key, *child.new_key);
    node->prefix = KeyPrefix(node->key);
  }
  return {Refit(node), std::nullopt, true};
}

// ---- reads --------------------------------------------------------------------------------

const IavlTree::Node* IavlTree::FindLeaf(std::string_view key) const {
  const Node* node = root_;
  if (node == nullptr) return nullptr;
  const Probe probe(key);
  while (!node->IsLeaf()) node = probe.Before(node) ? LeftOf(node) : RightOf(node);
  return probe.Matches(node) ? node : nullptr;
}

std::optional<std::string> IavlTree::Get(std::string_view key) const {
  const Node* leaf = FindLeaf(key);
  if (leaf == nullptr) return std::nullopt;
  return std::string(leaf->value.view());
}

bool IavlTree::Has(std::string_view key) const { return FindLeaf(key) != nullptr; }

int64_t IavlTree::Size() const { return root_ == nullptr ? 0 : root_->size; }

uint64_t IavlTree::MemoryBytes() const { return pool_->MemoryBytes(); }

int IavlTree::Height() const { return root_ == nullptr ? 0 : root_->height; }

int64_t IavlTree::NextVersion() const {
  // cosmos/iavl PR 660 (memiavl nextVersionU32): the first save jumps to the initial version.
  if (version_ == 0 && initial_version_ > 1) return initial_version_;
  return version_ + 1;
}

// ---- hashing ------------------------------------------------------------------------------

// Hashes every stale node under `node`, children first. While `parallel_depth` > 0, a large
// node whose children are both stale hashes its left child on a second thread.
void IavlTree::HashDirty(Node* node, int parallel_depth) const {
  if (node->hashed) return;
  if (node->IsLeaf()) {
    node->hash = HashLeafFast(node->key, node->value, node->version);
    node->hashed = true;
    return;
  }
  const bool split = parallel_depth > 0 && node->size >= kParallelHashMinLeaves &&
                     !node->left->hashed && !node->right->hashed;
  bool hashed_left = false;
  if (split) {
    try {
      std::thread left([this, node, parallel_depth] { HashDirty(node->left, parallel_depth - 1); });
      HashDirty(node->right, parallel_depth - 1);
      left.join();
      hashed_left = true;
    } catch (const std::system_error&) {
      // No thread available: finish on this thread below (already-hashed nodes are skipped).
    }
  }
  if (!hashed_left) {
    HashDirty(node->left, parallel_depth);
    HashDirty(node->right, parallel_depth);
  }
  node->hash = HashInnerFast(node->height, node->size, node->version, node->left->hash,
                             node->right->hash);
  node->hashed = true;
}

Sha256Digest IavlTree::RootHash() const {
  if (root_ == nullptr) return EmptyTreeHash();
  HashDirty(root_, SplitDepth(hash_threads_));
  return root_->hash;
}

int64_t IavlTree::AdvanceVersion() {
  version_ = NextVersion();
  return version_;
}

void IavlTree::WalkPostOrder(IavlPostOrderVisitor& visitor) const {
  if (root_ == nullptr) return;
  RootHash();
  uint32_t leaves = 0;
  WalkNode(root_, visitor, &leaves);
}

void IavlTree::WalkNode(const Node* node, IavlPostOrderVisitor& visitor, uint32_t* leaves) const {
  if (node->IsLeaf()) {
    visitor.Leaf((*leaves)++, node->key, node->value, node->version, node->hash);
    return;
  }
  if (node->lazy) {
    WalkSnapshotBranch(node->snap_index, node->leaf_start, visitor, leaves);
    return;
  }
  WalkNode(node->left, visitor, leaves);
  const uint32_t key_leaf = *leaves;
  WalkNode(node->right, visitor, leaves);
  visitor.Branch(node->height, node->version, node->size, key_leaf, node->key, node->hash);
}

// Streams an untouched snapshot subtree in the same order, straight from the snapshot records.
void IavlTree::WalkSnapshotBranch(uint32_t index, uint32_t leaf_start, IavlPostOrderVisitor& visitor,
                                  uint32_t* leaves) const {
  const SnapshotBranch branch = snapshot_->Branch(index);
  const uint32_t end = leaf_start + branch.size;
  const uint32_t right_size = end - branch.key_leaf;
  if (branch.key_leaf <= leaf_start || branch.key_leaf >= end || right_size > index + 1) {
    throw Error(ErrorCode::kCorruption, "memiavl snapshot branch " + std::to_string(index) +
                                            " has an impossible key leaf; remove that snapshot and reopen");
  }
  auto walk_leaf = [&](uint32_t i) {
    const SnapshotLeaf leaf = snapshot_->Leaf(i);
    visitor.Leaf((*leaves)++, leaf.key, leaf.value, leaf.version, leaf.hash);
  };
  if (branch.key_leaf - leaf_start == 1) {
    walk_leaf(leaf_start);
  } else {
    WalkSnapshotBranch(index - right_size, leaf_start, visitor, leaves);
  }
  const uint32_t key_leaf = *leaves;
  if (right_size == 1) {
    walk_leaf(branch.key_leaf);
  } else {
    WalkSnapshotBranch(index - 1, branch.key_leaf, visitor, leaves);
  }
  visitor.Branch(branch.height, branch.version, branch.size, key_leaf, snapshot_->LeafKey(branch.key_leaf),
                 branch.hash);
}

IavlTree::SavedVersion IavlTree::SaveVersion() {
  // As in memiavl, the hash covers the nodes stamped with Version() + 1, and only then does
  // the version move (possibly jumping to the initial version).
  const Sha256Digest hash = RootHash();
  version_ = NextVersion();
  return {version_, hash};
}

// ---- iteration ----------------------------------------------------------------------------

IavlTree::Iterator IavlTree::NewIterator(std::optional<std::string_view> start,
                                         std::optional<std::string_view> end,
                                         bool ascending) const {
  return Iterator(this, start, end, ascending);
}

IavlTree::Iterator::Iterator(const IavlTree* tree, std::optional<std::string_view> start,
                             std::optional<std::string_view> end, bool ascending)
    : tree_(tree), ascending_(ascending) {
  if (start) start_.emplace(*start);
  if (end) end_.emplace(*end);
  if (tree->root_ != nullptr) Seek(tree->root_);
}

// Walks down to the leaf nearest the near bound: ascending, the first key >= start;
// descending, the last key < end (or a neighbour of it, fixed up by SettleOnLeaf).
void IavlTree::Iterator::Seek(const Node* root) {
  const Node* node = root;
  while (!node->IsLeaf()) {
    // Every key right of an inner node is >= its key, every key left of it is < its key.
    if (ascending_) {
      const bool need_left = !start_ || Less(*start_, node->key);
      if (need_left) pending_.push_back(node);
      node = need_left ? tree_->LeftOf(node) : tree_->RightOf(node);
    } else {
      const bool need_right = !end_ || Less(node->key, *end_);
      if (need_right) pending_.push_back(node);
      node = need_right ? tree_->RightOf(node) : tree_->LeftOf(node);
    }
  }
  SettleOnLeaf(node);
}

// The seek can land one leaf short of the range (its path ends at the bound's neighbour);
// one step then reaches the first in-range leaf, if any.
void IavlTree::Iterator::SettleOnLeaf(const Node* leaf) {
  const bool before_range = ascending_ ? (start_ && Less(leaf->key, *start_))
                                       : (end_ && !Less(leaf->key, *end_));
  leaf_ = leaf;
  if (before_range) {
    Next();
    return;
  }
  if (!InRange(leaf->key)) leaf_ = nullptr;
}

// Whether `key` has not passed the far bound of the iteration.
bool IavlTree::Iterator::InRange(std::string_view key) const {
  return ascending_ ? (!end_ || Less(key, *end_)) : (!start_ || !Less(key, *start_));
}

// Descends from `node` to the nearest leaf in iteration order, remembering the way back.
void IavlTree::Iterator::Descend(const Node* node) {
  while (!node->IsLeaf()) {
    pending_.push_back(node);
    node = ascending_ ? tree_->LeftOf(node) : tree_->RightOf(node);
  }
  leaf_ = node;
}

void IavlTree::Iterator::Next() {
  if (leaf_ == nullptr) return;
  if (pending_.empty()) {
    leaf_ = nullptr;
    return;
  }
  const Node* parent = pending_.back();
  pending_.pop_back();
  Descend(ascending_ ? tree_->RightOf(parent) : tree_->LeftOf(parent));
  if (!InRange(leaf_->key)) {
    leaf_ = nullptr;
    pending_.clear();
  }
}

std::string_view IavlTree::Iterator::Key() const { return leaf_->key; }

std::string_view IavlTree::Iterator::Value() const { return leaf_->value; }

int64_t IavlTree::Iterator::Version() const { return leaf_->version; }

}  // namespace strata::sc
