#include "sc/iavl_tree.h"

#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sc/iavl_hash.h"
#include "sc_reference_iavl_tree.h"
#include "sc_published_vectors.h"
#include "sc_test_util.h"

namespace strata::sc {
namespace {

using test::Hex;
using test::Change;
using test::ReferenceIavlTree;

void Apply(IavlTree* tree, const std::vector<Change>& changes) {
  for (const Change& change : changes) {
    if (change.remove) {
      tree->Remove(change.key);
    } else {
      tree->Set(change.key, change.value);
    }
  }
}

// Source: cronos memiavl/tree_test.go (init + TestRootHashes), hard-coded again in
// sei-chain sei-db/state_db/sc/memiavl/tree_test.go; the same sequence as
// IavlHash.RootHashesOfCosmosIavlChangeSets, which checks the reference tree.
TEST(IavlTree, ReproducesPublishedRootHashes) {
  const std::vector<std::vector<Change>> versions = test::PublishedChangeSets();
  const std::vector<std::string>& kRootHashes = test::kPublishedRootHashes;

  IavlTree tree;
  for (size_t i = 0; i < versions.size(); ++i) {
    Apply(&tree, versions[i]);
    // RootHash of the working tree is what SaveVersion then returns.
    EXPECT_EQ(Hex(tree.RootHash()), kRootHashes[i]) << "version " << i + 1;
    IavlTree::SavedVersion saved = tree.SaveVersion();
    EXPECT_EQ(saved.version, static_cast<int64_t>(i + 1));
    EXPECT_EQ(Hex(saved.root_hash), kRootHashes[i]) << "version " << i + 1;
  }
  // What survives: the keys set in versions 2 and 3 that no later change set removed.
  std::string keys;
  tree.ForEachLeaf([&](std::string_view key, std::string_view, int64_t) {
    keys += std::string(key) + " ";
  });
  EXPECT_EQ(keys, "hello1 hello2 hello3 ");
}

// ---- randomized differential test -------------------------------------------------------

using Model = std::map<std::string, std::string>;

// Keys from a small space so sets overwrite and removes hit; lengths vary (including long
// keys that leave std::string's inline buffer).
std::string RandomKey(std::mt19937_64& rng, int key_space) {
  const uint64_t n = rng() % key_space;
  std::string key = "k" + std::to_string(n);
  if (n % 7 == 0) key += std::string(20 + n % 13, static_cast<char>('a' + n % 26));
  if (n % 11 == 0) key = std::string(1, static_cast<char>(n % 256)) + key;  // any byte order
  return key;
}

std::string RandomValue(std::mt19937_64& rng) {
  const size_t size = rng() % 5 == 0 ? 0 : rng() % 40;  // empty values are legal
  std::string value(size, '\0');
  for (char& c : value) c = static_cast<char>(rng());
  return value;
}

std::vector<std::pair<std::string, std::string>> Expected(const Model& model,
                                                          const std::optional<std::string>& start,
                                                          const std::optional<std::string>& end,
                                                          bool ascending) {
  auto first = start ? model.lower_bound(*start) : model.begin();
  auto last = end ? model.lower_bound(*end) : model.end();
  std::vector<std::pair<std::string, std::string>> out;
  if (start && end && *start > *end) return out;
  for (auto it = first; it != last; ++it) out.emplace_back(it->first, it->second);
  if (!ascending) std::reverse(out.begin(), out.end());
  return out;
}

std::vector<std::pair<std::string, std::string>> Collect(const IavlTree& tree,
                                                         const std::optional<std::string>& start,
                                                         const std::optional<std::string>& end,
                                                         bool ascending) {
  std::optional<std::string_view> s, e;
  if (start) s = *start;
  if (end) e = *end;
  std::vector<std::pair<std::string, std::string>> out;
  for (auto it = tree.NewIterator(s, e, ascending); it.Valid(); it.Next()) {
    out.emplace_back(std::string(it.Key()), std::string(it.Value()));
  }
  return out;
}

void CheckIteration(const IavlTree& tree, const Model& model, std::mt19937_64& rng,
                    int key_space) {
  for (int round = 0; round < 8; ++round) {
    std::optional<std::string> start, end;
    if (rng() % 4 != 0) start = RandomKey(rng, key_space);
    if (rng() % 4 != 0) end = RandomKey(rng, key_space);
    if (rng() % 3 == 0 && start) start->push_back('\0');  // a bound between two keys
    for (bool ascending : {true, false}) {
      ASSERT_EQ(Collect(tree, start, end, ascending), Expected(model, start, end, ascending))
          << "start=" << (start ? Hex(*start) : "-") << " end=" << (end ? Hex(*end) : "-")
          << " ascending=" << ascending;
    }
  }
}

void RunDifferential(uint64_t seed, int key_space, int versions, int max_writes) {
  std::mt19937_64 rng(seed);
  IavlTree tree;
  ReferenceIavlTree reference;
  Model model;
  for (int v = 1; v <= versions; ++v) {
    const int writes = 1 + static_cast<int>(rng() % max_writes);
    for (int w = 0; w < writes; ++w) {
      const std::string key = RandomKey(rng, key_space);
      if (rng() % 3 == 0) {
        const bool existed = model.erase(key) > 0;
        ASSERT_EQ(tree.Remove(key), existed);
        reference.Remove(key);
      } else {
        const std::string value = RandomValue(rng);
        tree.Set(key, value);
        reference.Set(key, value);
        model[key] = value;
      }
    }
    const IavlTree::SavedVersion saved = tree.SaveVersion();
    ASSERT_EQ(saved.version, v);
    ASSERT_EQ(Hex(saved.root_hash), Hex(reference.SaveVersion())) << "seed " << seed << " v" << v;
    ASSERT_EQ(tree.Size(), static_cast<int64_t>(model.size()));
    for (int probe = 0; probe < 20; ++probe) {
      const std::string key = RandomKey(rng, key_space);
      auto it = model.find(key);
      ASSERT_EQ(tree.Get(key), it == model.end() ? std::nullopt : std::optional(it->second));
      ASSERT_EQ(tree.Has(key), it != model.end());
    }
    CheckIteration(tree, model, rng, key_space);
  }
  // Every key, via the leaf walk.
  std::vector<std::pair<std::string, std::string>> walked;
  tree.ForEachLeaf([&](std::string_view key, std::string_view value, int64_t version) {
    EXPECT_GE(version, 1);
    EXPECT_LE(version, tree.Version());
    walked.emplace_back(std::string(key), std::string(value));
  });
  EXPECT_EQ(walked, Expected(model, std::nullopt, std::nullopt, true));
}

TEST(IavlTree, MatchesReferenceTreeSmallKeySpace) {
  for (uint64_t seed = 1; seed <= 6; ++seed) RunDifferential(seed, 40, 150, 12);
}

TEST(IavlTree, MatchesReferenceTreeLargerKeySpace) {
  for (uint64_t seed = 100; seed <= 102; ++seed) RunDifferential(seed, 2000, 60, 200);
}

// ---- edge cases ---------------------------------------------------------------------------

TEST(IavlTree, EmptyTree) {
  IavlTree tree;
  EXPECT_EQ(tree.RootHash(), EmptyTreeHash());
  EXPECT_EQ(tree.Size(), 0);
  EXPECT_FALSE(tree.Get("x").has_value());
  EXPECT_FALSE(tree.Has(""));
  EXPECT_FALSE(tree.NewIterator(std::nullopt, std::nullopt, true).Valid());
  EXPECT_FALSE(tree.NewIterator(std::nullopt, std::nullopt, false).Valid());
  const IavlTree::SavedVersion saved = tree.SaveVersion();
  EXPECT_EQ(saved.version, 1);
  EXPECT_EQ(saved.root_hash, EmptyTreeHash());
}

TEST(IavlTree, RemovingAnAbsentKeyChangesNothing) {
  IavlTree tree;
  EXPECT_FALSE(tree.Remove("absent"));  // on an empty tree
  tree.Set("a", "1");
  tree.Set("c", "3");
  const Sha256Digest v1 = tree.SaveVersion().root_hash;
  // Absent on either side of the routing key: no node is stamped with version 2.
  EXPECT_FALSE(tree.Remove("b"));
  EXPECT_FALSE(tree.Remove("d"));
  EXPECT_FALSE(tree.Remove(""));
  EXPECT_EQ(tree.SaveVersion().root_hash, v1);
}

// memiavl's setRecursive (and cosmos/iavl v0.19's recursiveSet) make a new leaf for an
// existing key without comparing values, so rewriting the same value stamps the leaf (and
// its path) with the working version and changes the root hash.
TEST(IavlTree, OverwriteWithSameValueBumpsLeafVersion) {
  IavlTree tree;
  ReferenceIavlTree reference;
  tree.Set("hello", "world");
  reference.Set("hello", "world");
  EXPECT_EQ(tree.SaveVersion().root_hash, reference.SaveVersion());
  tree.Set("hello", "world");
  reference.Set("hello", "world");
  const Sha256Digest v2 = tree.SaveVersion().root_hash;
  EXPECT_EQ(v2, reference.SaveVersion());
  EXPECT_EQ(v2, LeafHash("hello", "world", 2));
  EXPECT_NE(v2, LeafHash("hello", "world", 1));
}

// Leaves keep the version they were last written at; the walk reports it.
TEST(IavlTree, LeafVersionsAreLastWriteVersions) {
  IavlTree tree;
  tree.Set("a", "1");
  tree.Set("b", "1");
  tree.SaveVersion();
  tree.Set("b", "2");
  tree.Set("c", "2");
  tree.SaveVersion();
  std::vector<std::tuple<std::string, std::string, int64_t>> leaves;
  tree.ForEachLeaf([&](std::string_view k, std::string_view v, int64_t version) {
    leaves.emplace_back(std::string(k), std::string(v), version);
  });
  const std::vector<std::tuple<std::string, std::string, int64_t>> expected = {
      {"a", "1", 1}, {"b", "2", 2}, {"c", "2", 2}};
  EXPECT_EQ(leaves, expected);
}

// Source: sei-chain sei-db/state_db/sc/memiavl/db_test.go, TestInitialVersion (one store,
// hello → world, then hello → world1). With initial version 100 the first save is version
// 100 but its leaf is stamped 1 (memiavl stamps `version + 1`); the next is stamped 101.
TEST(IavlTree, InitialVersionFollowsMemiavl) {
  for (int64_t initial : {0, 1, 100}) {
    IavlTree::Options options;
    options.initial_version = initial;
    IavlTree tree(options);
    tree.Set("hello", "world");
    IavlTree::SavedVersion first = tree.SaveVersion();
    EXPECT_EQ(first.version, initial <= 1 ? 1 : initial);
    EXPECT_EQ(Hex(first.root_hash),
              "6032661ab0d201132db7a8fa1da6a0afe427e6278bd122c301197680ab79ca02");
    tree.Set("hello", "world1");
    IavlTree::SavedVersion second = tree.SaveVersion();
    if (initial <= 1) {
      EXPECT_EQ(second.version, 2);
      EXPECT_EQ(Hex(second.root_hash),
                "ef0530f9bf1af56c19a3bac32a3ec4f76a6fefaacb2efd4027a2cf37240f60bb");
    } else {
      EXPECT_EQ(second.version, initial + 1);
      EXPECT_EQ(Hex(second.root_hash),
                "a719e7d699d42ea8e5637ec84675a2c28f14a00a71fb518f20aa2c395673a3b8");
    }
  }
}

TEST(IavlTree, SetInitialVersionOnlyAffectsFirstSave) {
  IavlTree tree;
  tree.SetInitialVersion(10);
  EXPECT_EQ(tree.NextVersion(), 10);
  EXPECT_EQ(tree.SaveVersion().version, 10);
  EXPECT_EQ(tree.NextVersion(), 11);
  EXPECT_EQ(tree.WorkingVersion(), 11);
}

TEST(IavlTree, IteratorBounds) {
  IavlTree tree;
  for (const char* key : {"b", "d", "f"}) tree.Set(key, key);
  auto keys = [&](std::optional<std::string_view> s, std::optional<std::string_view> e,
                  bool ascending) {
    std::string out;
    for (auto it = tree.NewIterator(s, e, ascending); it.Valid(); it.Next()) out += it.Key();
    return out;
  };
  EXPECT_EQ(keys(std::nullopt, std::nullopt, true), "bdf");
  EXPECT_EQ(keys(std::nullopt, std::nullopt, false), "fdb");
  EXPECT_EQ(keys("b", "f", true), "bd");  // start inclusive, end exclusive
  EXPECT_EQ(keys("b", "f", false), "db");
  EXPECT_EQ(keys("c", "e", true), "d");
  EXPECT_EQ(keys("c", "e", false), "d");
  EXPECT_EQ(keys("g", std::nullopt, true), "");
  EXPECT_EQ(keys(std::nullopt, "a", false), "");
  EXPECT_EQ(keys("e", "c", true), "");  // inverted range
  EXPECT_EQ(keys("e", "c", false), "");
  EXPECT_EQ(keys("d", "d", true), "");  // empty range
}

TEST(IavlTree, RemovingEveryKeyEmptiesTheTree) {
  IavlTree tree;
  for (int i = 0; i < 100; ++i) tree.Set("key" + std::to_string(i), "v");
  tree.SaveVersion();
  for (int i = 99; i >= 0; --i) EXPECT_TRUE(tree.Remove("key" + std::to_string(i)));
  EXPECT_EQ(tree.Size(), 0);
  EXPECT_EQ(tree.SaveVersion().root_hash, EmptyTreeHash());
  tree.Set("again", "v");  // the pool's recycled nodes are reused cleanly
  EXPECT_EQ(tree.RootHash(), LeafHash("again", "v", 3));
}

// MemoryBytes counts node storage and the keys and values too long to sit inside a node,
// and recycled nodes do not count twice.
TEST(IavlTree, MemoryBytesCountsNodesAndLongBytes) {
  IavlTree empty;
  EXPECT_EQ(empty.MemoryBytes(), 0u);
  IavlTree short_keys, long_keys;
  const std::string pad(300, 'x');  // longer than a recycled node keeps
  for (int i = 0; i < 1000; ++i) {
    short_keys.Set("key" + std::to_string(i), "v");
    long_keys.Set("key" + std::to_string(i) + pad, "v");
  }
  EXPECT_GT(short_keys.MemoryBytes(), 1000u * 64);  // 1,999 nodes of more than 64 bytes each
  // Every leaf holds its long key, and every inner node the key it routes by.
  EXPECT_GE(long_keys.MemoryBytes() - short_keys.MemoryBytes(), 1999u * 300);
  const uint64_t before = long_keys.MemoryBytes();
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < 1000; ++i) long_keys.Set("key" + std::to_string(i) + pad, "w" + std::to_string(round));
    long_keys.SaveVersion();
  }
  EXPECT_EQ(long_keys.MemoryBytes(), before) << "rewriting values reuses the same nodes";
  for (int i = 0; i < 1000; ++i) long_keys.Remove("key" + std::to_string(i) + pad);
  EXPECT_LE(long_keys.MemoryBytes(), short_keys.MemoryBytes()) << "removed nodes give up their long keys";
}

TEST(IavlTree, MoveTransfersTheTree) {
  IavlTree tree;
  tree.Set("a", "1");
  const Sha256Digest hash = tree.SaveVersion().root_hash;
  IavlTree moved(std::move(tree));
  EXPECT_EQ(moved.RootHash(), hash);
  EXPECT_EQ(moved.Version(), 1);
  EXPECT_EQ(*moved.Get("a"), "1");
  IavlTree assigned;
  assigned = std::move(moved);
  EXPECT_EQ(assigned.RootHash(), hash);
}

// Parallel hashing of large subtrees must give the single-threaded hash, also when only
// part of the tree is dirty.
TEST(IavlTree, ParallelHashingMatchesSerial) {
  IavlTree::Options parallel;
  parallel.hash_threads = 4;
  IavlTree serial_tree, parallel_tree(parallel);
  std::mt19937_64 rng(7);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 40000; ++i) {
      const std::string key = "key" + std::to_string(rng() % 100000);
      const std::string value = std::to_string(rng());
      serial_tree.Set(key, value);
      parallel_tree.Set(key, value);
    }
    EXPECT_EQ(serial_tree.SaveVersion().root_hash, parallel_tree.SaveVersion().root_hash);
  }
}

// The published nodes of a balanced tree: the height stays logarithmic under sequential keys.
TEST(IavlTree, StaysBalancedUnderSequentialInserts) {
  IavlTree tree;
  for (int i = 0; i < 1 << 12; ++i) {
    char key[16];
    snprintf(key, sizeof key, "%08d", i);
    tree.Set(key, "v");
  }
  EXPECT_EQ(tree.Size(), 1 << 12);
  EXPECT_LE(tree.Height(), 18);  // AVL bound: 1.44 log2(n) ≈ 17.3
}

}  // namespace
}  // namespace strata::sc
