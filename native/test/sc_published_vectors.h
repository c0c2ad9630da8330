// The published memiavl root-hash vectors, shared by the reference-tree test and the library
// tree's test.
//
// Source: crypto-org-chain/cronos memiavl/tree_test.go (init + TestRootHashes) applies these
// change sets, one version each, to a cosmos/iavl v0.19 MutableTree (go.mod: cosmos/iavl
// v0.19.5 via the yihuang/iavl fork) and records its root hashes as the reference;
// sei-protocol/sei-chain sei-db/state_db/sc/memiavl/tree_test.go (TestRootHashes) hard-codes
// the resulting hashes. They cover leaf splits, overwrites, a removal of a missing key,
// rotations in both directions and removals that move inner-node keys.
#pragma once

#include <string>
#include <vector>

namespace strata::sc::test {

/// One write of a change set: a set, or a removal.
struct Change {
  std::string key;
  std::string value;
  bool remove = false;
};

/// `count` changes of keys `<prefix>00`, `<prefix>01`, … (Go's %02d), set to "world1" or removed.
inline std::vector<Change> Numbered(const char* prefix, int count, bool remove) {
  std::vector<Change> changes;
  for (int i = 0; i < count; ++i) {
    std::string key = prefix + std::string(i < 10 ? "0" : "") + std::to_string(i);
    changes.push_back({key, remove ? "" : "world1", remove});
  }
  return changes;
}

/// The change sets, one per version.
inline std::vector<std::vector<Change>> PublishedChangeSets() {
  std::vector<std::vector<Change>> versions = {
      {{"hello", "world"}},
      {{"hello", "world1"}, {"hello1", "world1"}},
      {{"hello2", "world1"}, {"hello3", "world1"}},
      Numbered("hello", 1, /*remove=*/false),
      {{"hello", "", true}, {"hello19", "", true}},
      Numbered("aello", 21, /*remove=*/false),
      Numbered("aello", 21, /*remove=*/true),
  };
  for (const Change& c : Numbered("hello", 19, /*remove=*/true)) versions.back().push_back(c);
  return versions;
}

/// The root hash after each change set.
inline const std::vector<std::string> kPublishedRootHashes = {
    "6032661ab0d201132db7a8fa1da6a0afe427e6278bd122c301197680ab79ca02",
    "457d81f933f53e5cfb90d813b84981aa2604d69939e10c94304d18287ded31f7",
    "c7ab142752add0374992261536e502851ce555d243270d3c3c6b77cf31b7945d",
    "e54da9407cbca3570d04ad5c3296056a0726467cb06272ffd8ef1b4ae87fb99d",
    "8b04490800d6b54fa569715a754b5fafe24fd720f677cab819394cf7ccf8cdec",
    "38abd5268374923e6727b14ac5a9bb6611e591d7e316d0a612904062f244e72f",
    "d91cf6388eeff3204474bb07b853ab0d7d39163912ac1e610e92f9b178c76922",
};

}  // namespace strata::sc::test
