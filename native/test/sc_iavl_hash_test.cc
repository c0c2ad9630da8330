#include "sc/iavl_hash.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sc_reference_iavl_tree.h"
#include "sc_published_vectors.h"
#include "sc_test_util.h"

namespace strata::sc {
namespace {

using test::Hex;
using test::Change;
using test::ReferenceIavlTree;

// sha256("world"), the value hash inside the hello → world leaf.
constexpr char kWorldHashHex[] = "486ea46224d1bb4fb680f34f7c9ad96a8f24ec88be73ea8e5a6c65260e9cb8a7";

// Source: cosmos/iavl tree_test.go, TestVersionedTreeHash (v0.20 and later), which asserts
// this hash for a tree with nothing saved; memiavl's TestEmptyTree asserts the same.
TEST(IavlHash, EmptyTreeIsSha256OfNothing) {
  EXPECT_EQ(Hex(EmptyTreeHash()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Hex(ReferenceIavlTree().RootHash()), Hex(EmptyTreeHash()));
}

// The layout of cosmos/iavl docs/node/node.md ("Hashes", writeHashBytes): height 0, size 1
// and version as zig-zag varints, then the length-prefixed key and value hash.
TEST(IavlHash, LeafInputLayout) {
  EXPECT_EQ(Hex(LeafHashInput("hello", "world", 1)),
            std::string("00" "02" "02") + "05" + "68656c6c6f" + "20" + kWorldHashHex);
}

// Inner nodes hash height, size, version and the two child hashes; their key is left out.
TEST(IavlHash, InnerInputLayout) {
  const Sha256Digest left = Sha256Of("left"), right = Sha256Of("right");
  EXPECT_EQ(Hex(InnerHashInput(1, 2, 3, left, right)),
            std::string("02" "04" "06") + "20" + Hex(left) + "20" + Hex(right));
  // Multi-byte varints: height 64, size 300 and version 1'000'000 each need more than a byte.
  EXPECT_EQ(Hex(InnerHashInput(64, 300, 1'000'000, left, right)),
            std::string("8001" "d804" "80897a") + "20" + Hex(left) + "20" + Hex(right));
}

TEST(IavlHash, HashIsSha256OfInput) {
  const Sha256Digest left = Sha256Of("l"), right = Sha256Of("r");
  EXPECT_EQ(LeafHash("k", "v", 7), Sha256Of(LeafHashInput("k", "v", 7)));
  EXPECT_EQ(InnerHash(2, 3, 7, left, right), Sha256Of(InnerHashInput(2, 3, 7, left, right)));
}

TEST(IavlHash, LeafHashIsDeterministicAndCoversEveryField) {
  const Sha256Digest base = LeafHash("key", "value", 5);
  EXPECT_EQ(LeafHash("key", "value", 5), base);
  EXPECT_NE(LeafHash("key2", "value", 5), base);
  EXPECT_NE(LeafHash("key", "value2", 5), base);
  EXPECT_NE(LeafHash("key", "value", 6), base);
  // The length prefix keeps the key/value boundary: moving a byte across it changes the hash.
  EXPECT_NE(LeafHash("ke", "yvalue", 5), base);
}

TEST(IavlHash, InnerHashIsDeterministicAndCoversEveryField) {
  const Sha256Digest left = Sha256Of("l"), right = Sha256Of("r");
  const Sha256Digest base = InnerHash(1, 2, 5, left, right);
  EXPECT_EQ(InnerHash(1, 2, 5, left, right), base);
  EXPECT_NE(InnerHash(2, 2, 5, left, right), base);
  EXPECT_NE(InnerHash(1, 3, 5, left, right), base);
  EXPECT_NE(InnerHash(1, 2, 6, left, right), base);
  EXPECT_NE(InnerHash(1, 2, 5, right, left), base);  // children are ordered
}

// Source: sei-protocol/sei-chain sei-db/state_db/sc/memiavl/db_test.go, TestInitialVersion:
// a store holding only hello → world at version 1, then hello → world1 at version 2 (or at
// 101 when the chain starts at 100). A one-leaf tree's root is its leaf, so these are leaf
// hashes; 101 also exercises a two-byte version varint.
TEST(IavlHash, SingleLeafVectorsFromMemiavl) {
  EXPECT_EQ(Hex(LeafHash("hello", "world", 1)),
            "6032661ab0d201132db7a8fa1da6a0afe427e6278bd122c301197680ab79ca02");
  EXPECT_EQ(Hex(LeafHash("hello", "world1", 2)),
            "ef0530f9bf1af56c19a3bac32a3ec4f76a6fefaacb2efd4027a2cf37240f60bb");
  EXPECT_EQ(Hex(LeafHash("hello", "world1", 101)),
            "a719e7d699d42ea8e5637ec84675a2c28f14a00a71fb518f20aa2c395673a3b8");
}

// Two leaves under one inner node, built by hand: the smallest tree with an inner hash.
TEST(IavlHash, TwoLeafTreeByHand) {
  const Sha256Digest expected =
      InnerHash(1, 2, 2, LeafHash("hello", "world1", 2), LeafHash("hello1", "world1", 2));
  ReferenceIavlTree tree;
  tree.Set("hello", "world");
  tree.SaveVersion();
  tree.Set("hello", "world1");
  tree.Set("hello1", "world1");
  EXPECT_EQ(Hex(tree.SaveVersion()), Hex(expected));
}

// Source: crypto-org-chain/cronos memiavl/tree_test.go (init + TestRootHashes) applies these
// change sets, one version each, to a cosmos/iavl v0.19 MutableTree (go.mod: cosmos/iavl
// v0.19.5 via the yihuang/iavl fork) and records its root hashes as the reference;
// sei-protocol/sei-chain sei-db/state_db/sc/memiavl/tree_test.go (TestRootHashes) hard-codes
// the resulting hashes. They cover leaf splits, overwrites, a removal of a missing key,
// rotations in both directions and removals that move inner-node keys.
TEST(IavlHash, RootHashesOfCosmosIavlChangeSets) {
  const std::vector<std::vector<Change>> versions = test::PublishedChangeSets();
  const std::vector<std::string>& kRootHashes = test::kPublishedRootHashes;

  ReferenceIavlTree tree;
  for (size_t i = 0; i < versions.size(); ++i) {
    for (const Change& change : versions[i]) {
      if (change.remove) {
        tree.Remove(change.key);
      } else {
        tree.Set(change.key, change.value);
      }
    }
    EXPECT_EQ(Hex(tree.SaveVersion()), kRootHashes[i]) << "version " << i + 1;
  }
}

// Source: crypto-org-chain/cronos memiavl/tree_test.go, TestNewKey: the root's key is the
// smallest key of its right half, and removing that key moves the next one up. Checks the
// reference tree's key handling, on which every later insert's routing depends.
TEST(ReferenceIavlTree, RootKeyIsSmallestKeyOfRightHalf) {
  ReferenceIavlTree tree;
  for (int i = 0; i < 4; ++i) tree.Set("key-" + std::to_string(i), "\x01");
  tree.SaveVersion();
  EXPECT_EQ(tree.RootKey(), "key-2");
  tree.Remove("key-2");
  EXPECT_EQ(tree.RootKey(), "key-3");
}

TEST(ReferenceIavlTree, RemovingTheLastKeyEmptiesTheTree) {
  ReferenceIavlTree tree;
  tree.Set("only", "value");
  tree.SaveVersion();
  tree.Remove("only");
  EXPECT_EQ(Hex(tree.SaveVersion()), Hex(EmptyTreeHash()));
}

}  // namespace
}  // namespace strata::sc
