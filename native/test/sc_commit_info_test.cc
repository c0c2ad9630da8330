#include "sc/commit_info.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "sc/sha256.h"
#include "sc/simple_merkle.h"
#include "sc_test_util.h"
#include "strata/status.h"

namespace strata::sc {
namespace {

using test::Hex;

// A store whose hash is the bytes of `hash`; the version is arbitrary because it is not hashed.
StoreInfo Store(std::string name, std::string hash, int64_t version = 7) {
  return StoreInfo{std::move(name), version, std::move(hash)};
}

// The Merkle leaf hash of one store, composed from the primitives, to build expected roots.
Sha256Digest LeafOf(const std::string& name, const std::string& hash) {
  return MerkleLeafHash(CommitInfoLeaf(name, hash));
}

std::vector<StoreInfo> NamedStores(int count) {
  std::vector<StoreInfo> stores;
  for (int i = 0; i < count; ++i) {
    std::string name = "store" + std::to_string(i);
    stores.push_back(Store(name, DigestBytes(Sha256Of(name))));
  }
  return stores;
}

TEST(CommitInfo, LeafLayout) {
  const std::string store_hash(32, '\x11');
  EXPECT_EQ(Hex(CommitInfoLeaf("bank", store_hash)),
            "04" + Hex("bank") + "20" + Hex(Sha256Of(store_hash)));
}

// Source: cosmos/cosmos-sdk store/internal/maps/maps_test.go, TestMerkleMap and
// TestSimpleMap: the same name → hash map hashing that CommitInfo.Hash() runs, with store
// names "key1".. and store hashes "value1".. (any bytes serve as a store hash).
TEST(CommitInfo, CosmosSdkMerkleMapVectors) {
  EXPECT_EQ(Hex(AppHash({Store("key1", "value1")})),
            "a44d3cc7daba1a4600b00a2434b30f8b970652169810d6dfa9fb1793a2189324");
  EXPECT_EQ(Hex(AppHash({Store("key1", "value2")})),
            "0638e99b3445caec9d95c05e1a3fc1487b4ddec6a952ff337080360b0dcc078c");
  EXPECT_EQ(Hex(AppHash({Store("key1", "value1"), Store("key2", "value2")})),
            "8fd19b19e7bb3f2b3ee0574027d8a5a4cec370464ea2db2fbfa5c7d35bb0cff3");
  EXPECT_EQ(Hex(AppHash({Store("key2", "value2"), Store("key1", "value1")})),
            "8fd19b19e7bb3f2b3ee0574027d8a5a4cec370464ea2db2fbfa5c7d35bb0cff3");
  EXPECT_EQ(Hex(AppHash({Store("key1", "value1"), Store("key2", "value2"), Store("key3", "value3")})),
            "1dd674ec6782a0d586a903c9c63326a41cbe56b3bba33ed6ff5b527af6efb3dc");
  EXPECT_EQ(Hex(AppHash({Store("key1", "value1"), Store("key3", "value3"), Store("key2", "value2")})),
            "1dd674ec6782a0d586a903c9c63326a41cbe56b3bba33ed6ff5b527af6efb3dc");
}

// The SDK's CommitInfo.Hash() special-cases an empty list to nil rather than sha256("").
TEST(CommitInfo, NoStoresGiveAnEmptyHash) { EXPECT_EQ(AppHash({}), ""); }

TEST(CommitInfo, SingleStoreIsItsLeafHash) {
  const std::string hash = DigestBytes(Sha256Of("bank root"));
  EXPECT_EQ(AppHash({Store("bank", hash)}), DigestBytes(LeafOf("bank", hash)));
}

TEST(CommitInfo, PowerOfTwoStoreCountsMakeABalancedTree) {
  const std::vector<StoreInfo> stores = NamedStores(4);
  auto leaf = [&](int i) { return LeafOf(stores[i].name, stores[i].hash); };
  const Sha256Digest expected =
      MerkleInnerHash(MerkleInnerHash(leaf(0), leaf(1)), MerkleInnerHash(leaf(2), leaf(3)));
  EXPECT_EQ(AppHash(stores), DigestBytes(expected));
  EXPECT_EQ(AppHash(NamedStores(8)).size(), kSha256Size);
}

// Five stores split 4 + 1; three split 2 + 1 (names store0.. already sort in index order).
TEST(CommitInfo, OtherStoreCountsSplitAtTheLargestPowerOfTwoBelow) {
  const std::vector<StoreInfo> five = NamedStores(5);
  auto leaf = [&](int i) { return LeafOf(five[i].name, five[i].hash); };
  const Sha256Digest first_four =
      MerkleInnerHash(MerkleInnerHash(leaf(0), leaf(1)), MerkleInnerHash(leaf(2), leaf(3)));
  EXPECT_EQ(AppHash(five), DigestBytes(MerkleInnerHash(first_four, leaf(4))));

  const std::vector<StoreInfo> three(five.begin(), five.begin() + 3);
  EXPECT_EQ(AppHash(three), DigestBytes(MerkleInnerHash(MerkleInnerHash(leaf(0), leaf(1)), leaf(2))));
}

TEST(CommitInfo, OrderOfStoreInfosDoesNotMatter) {
  std::vector<StoreInfo> stores = {Store("acc", "1"), Store("bank", "2"),     Store("evm", "3"),
                                   Store("gov", "4"), Store("staking", "5"), Store("upgrade", "6")};
  const std::string expected = AppHash(stores);
  std::sort(stores.begin(), stores.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  int permutations = 0;
  do {
    EXPECT_EQ(AppHash(stores), expected);
    ++permutations;
  } while (std::next_permutation(stores.begin(), stores.end(),
                                 [](const auto& a, const auto& b) { return a.name < b.name; }));
  EXPECT_EQ(permutations, 720);
}

// Names sort as unsigned bytes (Go's bytes.Compare): 0xc3 comes after every ASCII letter.
TEST(CommitInfo, NamesSortAsUnsignedBytes) {
  const std::string high = "\xc3\xa9t\xc3\xa9", low = "zeta";
  const Sha256Digest expected = MerkleInnerHash(LeafOf(low, "h1"), LeafOf(high, "h2"));
  EXPECT_EQ(AppHash({Store(high, "h2"), Store(low, "h1")}), DigestBytes(expected));
}

TEST(CommitInfo, VersionsAreNotHashed) {
  EXPECT_EQ(AppHash({Store("bank", "h", 1), Store("acc", "g", 1)}),
            AppHash({Store("bank", "h", 99), Store("acc", "g", 12345)}));
}

// Mem stores join with an empty hash; their leaf still carries sha256("").
TEST(CommitInfo, StoresWithoutAHashStillCount) {
  const std::string bank = DigestBytes(Sha256Of("bank"));
  const std::string with_mem = AppHash({Store("bank", bank), Store("mem_capability", "")});
  EXPECT_NE(with_mem, AppHash({Store("bank", bank)}));
  EXPECT_EQ(with_mem, DigestBytes(MerkleInnerHash(LeafOf("bank", bank), LeafOf("mem_capability", ""))));
}

// As in the SDK's name → hash map, a repeated name keeps only its last hash.
TEST(CommitInfo, RepeatedNameKeepsItsLastHash) {
  EXPECT_EQ(AppHash({Store("bank", "old"), Store("acc", "a"), Store("bank", "new")}),
            AppHash({Store("acc", "a"), Store("bank", "new")}));
}

TEST(CommitInfo, EmptyNameIsRejected) {
  try {
    AppHash({Store("bank", "h"), Store("", "h")});
    FAIL() << "expected strata::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
  }
}

// FlatKV joins the app hash as one more store, `evm_lattice`, carrying its LtHash checksum
// at the commit's version (sei-chain sei-db/state_db/sc/composite/store.go,
// appendEvmLatticeHash).
TEST(CommitInfo, EvmLatticeEntryIsAppended) {
  const std::vector<StoreInfo> cosmos = {Store("bank", "b", 42), Store("evm", "e", 42)};
  const std::string lattice = DigestBytes(Sha256Of("lattice checksum"));
  const std::vector<StoreInfo> with_lattice = WithEvmLatticeInfo(cosmos, 42, lattice);

  ASSERT_EQ(with_lattice.size(), 3u);
  EXPECT_EQ(with_lattice.back().name, "evm_lattice");
  EXPECT_EQ(with_lattice.back().version, 42);
  EXPECT_EQ(with_lattice.back().hash, lattice);
  EXPECT_EQ(with_lattice[0].name, "bank");
  EXPECT_EQ(with_lattice[1].name, "evm");
}

// "evm_lattice" sorts between "evm" and "gov", and the lattice hash moves the app hash.
TEST(CommitInfo, EvmLatticeChangesTheAppHash) {
  const std::vector<StoreInfo> cosmos = {Store("bank", "b"), Store("evm", "e"), Store("gov", "g")};
  const std::string lattice = DigestBytes(Sha256Of("lattice checksum"));
  const std::string app_hash = AppHash(WithEvmLatticeInfo(cosmos, 42, lattice));

  EXPECT_NE(app_hash, AppHash(cosmos));
  EXPECT_NE(app_hash, AppHash(WithEvmLatticeInfo(cosmos, 42, DigestBytes(Sha256Of("other")))));
  const Sha256Digest expected =
      MerkleInnerHash(MerkleInnerHash(LeafOf("bank", "b"), LeafOf("evm", "e")),
                      MerkleInnerHash(LeafOf("evm_lattice", lattice), LeafOf("gov", "g")));
  EXPECT_EQ(app_hash, DigestBytes(expected));
}

}  // namespace
}  // namespace strata::sc
