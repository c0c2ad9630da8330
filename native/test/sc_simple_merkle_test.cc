#include "sc/simple_merkle.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "sc_test_util.h"
#include "strata/status.h"

namespace strata::sc {
namespace {

using test::Hex;

// Source: cometbft/cometbft crypto/merkle/rfc6962_test.go, TestRFC6962Hasher (vectors taken
// from google/trillian's RFC 6962 tests).
TEST(SimpleMerkle, Rfc6962EmptyTree) {
  EXPECT_EQ(Hex(SimpleMerkleRoot({})), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(SimpleMerkle, Rfc6962EmptyLeaf) {
  EXPECT_EQ(Hex(SimpleMerkleRoot({""})), "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d");
  EXPECT_EQ(Hex(MerkleLeafHash("")), "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d");
}

TEST(SimpleMerkle, Rfc6962Leaf) {
  EXPECT_EQ(Hex(MerkleLeafHash("L123456")), "395aa064aa4c29f7010acfe3f25db9485bbd4b91897b6ad7ad547639252b4d56");
}

// The RFC 6962 node vector hashes 0x01 ‖ "N123" ‖ "N456" (4-byte children); MerkleInnerHash
// takes 32-byte digests, so the same bytes are fed through Sha256 directly, which pins the
// prefix and order that MerkleInnerHash uses.
TEST(SimpleMerkle, Rfc6962Node) {
  Sha256 hasher;
  hasher.Update(std::string("\x01", 1));
  hasher.Update("N123");
  hasher.Update("N456");
  EXPECT_EQ(Hex(hasher.Finish()), "aa217fe888e47007fa15edab33c2b492a722cb106c64667fc2b044444de66bbb");

  const Sha256Digest left = Sha256Of("a"), right = Sha256Of("b");
  EXPECT_EQ(MerkleInnerHash(left, right),
            Sha256Of(std::string("\x01", 1) + DigestBytes(left) + DigestBytes(right)));
}

// Source: cometbft/cometbft crypto/merkle/tree_test.go, TestHashFromByteSlices.
TEST(SimpleMerkle, CometbftHashFromByteSlices) {
  EXPECT_EQ(Hex(SimpleMerkleRoot({std::string("\x01\x02\x03", 3)})),
            "054edec1d0211f624fed0cbca9d4f9400b0e491c43742af2c5b0abebf0c990d8");
  EXPECT_EQ(Hex(SimpleMerkleRoot({std::string("\x01\x02\x03", 3), std::string("\x04\x05\x06", 3)})),
            "82e6cfce00453804379b53962939eaa7906b39904be0813fcadd31b100773c4b");
  EXPECT_EQ(Hex(SimpleMerkleRoot({std::string("\x01\x02", 2), std::string("\x03\x04", 2),
                                  std::string("\x05\x06", 2), std::string("\x07\x08", 2),
                                  std::string("\x09\x0a", 2)})),
            "f326493eceab4f2d9ffbc78c59432a0a005d6ea98392045c74df5d14a113be18");
}

// Source: cometbft/cometbft crypto/merkle/tree_test.go, Test_getSplitPoint.
TEST(SimpleMerkle, SplitPointIsLargestPowerOfTwoBelowCount) {
  const std::pair<size_t, size_t> kCases[] = {{1, 0},   {2, 1},    {3, 2},    {4, 2},    {5, 4},   {10, 8},
                                              {20, 16}, {100, 64}, {255, 128}, {256, 128}, {257, 256}};
  for (const auto& [count, split] : kCases) EXPECT_EQ(MerkleSplitPoint(count), split) << count;
}

TEST(SimpleMerkle, SplitPointOfNoLeavesIsRejected) {
  try {
    MerkleSplitPoint(0);
    FAIL() << "expected strata::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
  }
}

// Three leaves split 2 + 1: the lone third leaf pairs with the subtree of the first two.
TEST(SimpleMerkle, ThreeLeavesSplitTwoPlusOne) {
  const Sha256Digest a = MerkleLeafHash("a"), b = MerkleLeafHash("b"), c = MerkleLeafHash("c");
  EXPECT_EQ(SimpleMerkleRoot({"a", "b", "c"}), MerkleInnerHash(MerkleInnerHash(a, b), c));
}

TEST(SimpleMerkle, LeafOrderMatters) {
  EXPECT_NE(SimpleMerkleRoot({"a", "b"}), SimpleMerkleRoot({"b", "a"}));
}

}  // namespace
}  // namespace strata::sc
