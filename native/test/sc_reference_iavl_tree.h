// A minimal in-memory IAVL tree, used only by tests to rebuild published root-hash vectors.
// It applies cosmos/iavl v0.19's mutation rules, which decide the tree's shape and each
// node's version, and so its hash:
//   - an inner node's key is the smallest key of its right subtree (used to route, not hashed);
//   - inserting beside a leaf makes a new inner node (height 1) over the two leaves;
//   - every node a mutation touches (path nodes, rotated nodes, new leaves) takes the version
//     being written; untouched subtrees keep theirs;
//   - overwriting an existing key rewrites the path but does not rebalance;
//   - removing a leaf replaces its parent with the sibling, and when the removed leaf was a
//     left child, the parent's key moves up to the nearest ancestor that routed right;
//   - rebalancing is AVL with IAVL's tie rule (a child of balance 0 takes a single rotation).
// Old versions are not kept: the tree is mutated in place.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "sc/iavl_hash.h"

namespace strata::sc::test {

class ReferenceIavlTree {
 public:
  /// Sets `key` to `value` in the working version.
  void Set(std::string_view key, std::string_view value) {
    bool replaced = false;
    root_ = Insert(std::move(root_), key, value, &replaced);
  }

  /// Removes `key` from the working version; a missing key changes nothing.
  void Remove(std::string_view key) { root_ = Delete(std::move(root_), key).node; }

  /// Seals the working version and returns its root hash.
  Sha256Digest SaveVersion() {
    ++version_;
    return RootHash();
  }

  /// Root hash of the current tree (sha256("") when empty).
  Sha256Digest RootHash() const { return root_ ? HashOf(*root_) : EmptyTreeHash(); }

  /// The last saved version.
  int64_t version() const { return version_; }

  /// The root node's key (empty for an empty tree).
  std::string RootKey() const { return root_ ? root_->key : std::string(); }

 private:
  struct Node;
  using NodePtr = std::unique_ptr<Node>;

  struct Node {
    std::string key;
    std::string value;  // leaves only
    int64_t version = 0;
    uint8_t height = 0;
    int64_t size = 1;
    NodePtr left, right;  // both set for inner nodes, both null for leaves

    bool IsLeaf() const { return left == nullptr; }
  };

  // What Delete hands back to the caller one level up.
  struct Removal {
    NodePtr node;                        // the subtree after the removal
    std::optional<std::string> new_key;  // replacement key for the ancestor that routed right
    bool removed = false;                // false: the key was absent and nothing changed
  };

  int64_t working_version() const { return version_ + 1; }

  static NodePtr Leaf(std::string_view key, std::string_view value, int64_t version) {
    auto leaf = std::make_unique<Node>();
    leaf->key = key;
    leaf->value = value;
    leaf->version = version;
    return leaf;
  }

  static NodePtr Inner(std::string key, NodePtr left, NodePtr right, int64_t version) {
    auto inner = std::make_unique<Node>();
    inner->key = std::move(key);
    inner->version = version;
    inner->left = std::move(left);
    inner->right = std::move(right);
    UpdateHeightAndSize(inner.get());
    return inner;
  }

  static void UpdateHeightAndSize(Node* node) {
    node->height = static_cast<uint8_t>(std::max(node->left->height, node->right->height) + 1);
    node->size = node->left->size + node->right->size;
  }

  static int Balance(const Node& node) { return int{node.left->height} - int{node.right->height}; }

  NodePtr RotateRight(NodePtr node) const {
    NodePtr pivot = std::move(node->left);
    node->left = std::move(pivot->right);
    node->version = working_version();
    UpdateHeightAndSize(node.get());
    pivot->right = std::move(node);
    pivot->version = working_version();
    UpdateHeightAndSize(pivot.get());
    return pivot;
  }

  NodePtr RotateLeft(NodePtr node) const {
    NodePtr pivot = std::move(node->right);
    node->right = std::move(pivot->left);
    node->version = working_version();
    UpdateHeightAndSize(node.get());
    pivot->left = std::move(node);
    pivot->version = working_version();
    UpdateHeightAndSize(pivot.get());
    return pivot;
  }

  NodePtr Rebalance(NodePtr node) const {
    int balance = Balance(*node);
    if (balance > 1) {
      if (Balance(*node->left) < 0) node->left = RotateLeft(std::move(node->left));
      return RotateRight(std::move(node));
    }
    if (balance < -1) {
      if (Balance(*node->right) > 0) node->right = RotateRight(std::move(node->right));
      return RotateLeft(std::move(node));
    }
    return node;
  }

  NodePtr Insert(NodePtr node, std::string_view key, std::string_view value, bool* replaced) {
    const int64_t version = working_version();
    if (!node) return Leaf(key, value, version);
    if (node->IsLeaf()) {
      if (key == node->key) {
        *replaced = true;
        return Leaf(key, value, version);
      }
      // The new inner node takes the key of its right leaf.
      NodePtr new_leaf = Leaf(key, value, version);
      if (key < node->key) {
        std::string right_key = node->key;  // read before `node` is moved into the call
        return Inner(std::move(right_key), std::move(new_leaf), std::move(node), version);
      }
      return Inner(std::string(key), std::move(node), std::move(new_leaf), version);
    }
    node->version = version;
    if (key < node->key) {
      node->left = Insert(std::move(node->left), key, value, replaced);
    } else {
      node->right = Insert(std::move(node->right), key, value, replaced);
    }
    if (*replaced) return node;  // same shape: IAVL neither resizes nor rebalances
    UpdateHeightAndSize(node.get());
    return Rebalance(std::move(node));
  }

  Removal Delete(NodePtr node, std::string_view key) {
    if (!node) return {};
    if (node->IsLeaf()) {
      if (key == node->key) return {nullptr, std::nullopt, true};
      return {std::move(node), std::nullopt, false};
    }
    return key < node->key ? DeleteLeft(std::move(node), key) : DeleteRight(std::move(node), key);
  }

  Removal DeleteLeft(NodePtr node, std::string_view key) {
    Removal child = Delete(std::move(node->left), key);
    if (!child.removed) {
      node->left = std::move(child.node);
      return {std::move(node), std::nullopt, false};
    }
    // The left leaf went away: the right subtree takes this node's place, and this node's
    // key (the smallest key on the right) must become the key of the ancestor above.
    if (!child.node) return {std::move(node->right), std::move(node->key), true};
    node->left = std::move(child.node);
    return {Refit(std::move(node)), std::move(child.new_key), true};
  }

  Removal DeleteRight(NodePtr node, std::string_view key) {
    Removal child = Delete(std::move(node->right), key);
    if (!child.removed) {
      node->right = std::move(child.node);
      return {std::move(node), std::nullopt, false};
    }
    if (!child.node) return {std::move(node->left), std::nullopt, true};
    node->right = std::move(child.node);
    if (child.new_key) node->key = std::move(*child.new_key);
    return {Refit(std::move(node)), std::nullopt, true};
  }

  // Stamps a node whose subtree changed, recomputes its counts and rebalances it.
  NodePtr Refit(NodePtr node) const {
    node->version = working_version();
    UpdateHeightAndSize(node.get());
    return Rebalance(std::move(node));
  }

  static Sha256Digest HashOf(const Node& node) {
    if (node.IsLeaf()) return LeafHash(node.key, node.value, node.version);
    return InnerHash(node.height, node.size, node.version, HashOf(*node.left), HashOf(*node.right));
  }

  NodePtr root_;
  int64_t version_ = 0;
};

}  // namespace strata::sc::test
