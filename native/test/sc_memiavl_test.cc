// memiavl on disk: tree snapshots (write, map, lazy load), the database (commit, changelog
// replay, background snapshots, rollback, read-only opens, export/import) and kill -9 safety.
#include <gtest/gtest.h>

#include <cstring>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "sc/iavl_hash.h"
#include "sc/iavl_tree.h"
#include "sc/memiavl/memiavl_db.h"
#include "sc/memiavl/tree_snapshot.h"
#include "sc/memiavl/write_rate_limiter.h"
#include "strata/repair_snapshots.h"
#include "sc_test_util.h"
#include "test_util.h"

namespace fs = std::filesystem;

namespace strata::sc {
namespace {

using test::Hex;

std::string Key(uint32_t i) { return "key-" + std::to_string(i % 100000 * 7919 % 100003); }

// A deterministic block: its writes depend only on the version, so any process can recompute
// the state at a version.
void ApplyBlock(int64_t version, const std::function<void(const std::string&, const std::string&, const std::string*)>& op) {
  std::mt19937_64 rng(static_cast<uint64_t>(version) * 0x9e3779b97f4a7c15ull);
  const int writes = 20 + static_cast<int>(rng() % 40);
  for (int i = 0; i < writes; ++i) {
    const std::string store = rng() % 3 == 0 ? "acc" : "bank";
    const std::string key = Key(static_cast<uint32_t>(rng() % 600));
    if (rng() % 5 == 0) {
      op(store, key, nullptr);
    } else {
      const std::string value = "v" + std::to_string(version) + "-" + std::to_string(rng() % 1000);
      op(store, key, &value);
    }
  }
}

void CommitBlock(MemIavlDb& db, int64_t version) {
  ApplyBlock(version, [&](const std::string& store, const std::string& key, const std::string* value) {
    if (value) {
      db.Set(store, key, *value);
    } else {
      db.Delete(store, key);
    }
  });
  db.Commit();
}

// The store infos after `version` blocks, computed with plain in-memory trees.
std::vector<StoreInfo> ExpectedInfos(int64_t version) {
  std::map<std::string, IavlTree> trees;
  for (int64_t v = 1; v <= version; ++v) {
    ApplyBlock(v, [&](const std::string& store, const std::string& key, const std::string* value) {
      IavlTree::Options options;
      options.initial_version = v;  // as memiavl creates a store first written at v
      IavlTree& tree = trees.try_emplace(store, options).first->second;
      if (value) {
        tree.Set(key, *value);
      } else {
        tree.Remove(key);
      }
    });
    for (auto& [name, tree] : trees) tree.SaveVersion();
  }
  std::vector<StoreInfo> infos;
  for (auto& [name, tree] : trees) {
    const Sha256Digest h = tree.RootHash();
    infos.push_back({name, tree.Version(), std::string(reinterpret_cast<const char*>(h.data()), h.size())});
  }
  return infos;
}

// Writes `tree` as a snapshot directory.
void WriteTree(IavlTree& tree, const std::string& dir) {
  TreeSnapshotWriter writer(dir);
  class Visitor final : public IavlPostOrderVisitor {
   public:
    explicit Visitor(TreeSnapshotWriter& w) : w_(w) {}
    void Leaf(uint32_t, std::string_view k, std::string_view v, int64_t ver, const Sha256Digest& h) override {
      w_.AddLeaf(k, v, ver, h);
    }
    void Branch(uint8_t height, int64_t ver, uint32_t size, uint32_t key_leaf, std::string_view,
                const Sha256Digest& h) override {
      w_.AddBranch(height, ver, size, key_leaf, h);
    }
    TreeSnapshotWriter& w_;
  } visitor(writer);
  tree.WalkPostOrder(visitor);
  writer.Finish(tree.Version());
}

std::vector<std::pair<std::string, std::string>> Contents(const IavlTree& tree) {
  std::vector<std::pair<std::string, std::string>> out;
  tree.ForEachLeaf([&](std::string_view k, std::string_view v, int64_t) { out.emplace_back(k, v); });
  return out;
}

// ---- tree snapshots ---------------------------------------------------------------------------

TEST(TreeSnapshot, LazyTreeMatchesTheInMemoryTreeUnderFurtherWrites) {
  strata::test::TempDir dir;
  std::mt19937_64 rng(7);
  IavlTree original;
  for (int v = 0; v < 20; ++v) {
    for (int i = 0; i < 300; ++i) original.Set(Key(rng() % 5000), std::to_string(rng()));
    for (int i = 0; i < 50; ++i) original.Remove(Key(rng() % 5000));
    original.SaveVersion();
  }
  WriteTree(original, dir.Sub("t1"));
  IavlTree lazy(TreeSnapshot::Open(dir.Sub("t1")), IavlTree::Options{});
  EXPECT_EQ(lazy.Version(), original.Version());
  EXPECT_EQ(Hex(lazy.RootHash()), Hex(original.RootHash()));
  EXPECT_EQ(lazy.Size(), original.Size());
  EXPECT_EQ(lazy.Get(Key(1)), original.Get(Key(1)));

  // Writes through the lazy tree (rotations included) must give the same hashes.
  for (int v = 0; v < 15; ++v) {
    for (int i = 0; i < 200; ++i) {
      const std::string key = Key(rng() % 6000);
      const std::string value = std::to_string(rng());
      original.Set(key, value);
      lazy.Set(key, value);
    }
    for (int i = 0; i < 80; ++i) {
      const std::string key = Key(rng() % 6000);
      EXPECT_EQ(original.Remove(key), lazy.Remove(key));
    }
    ASSERT_EQ(Hex(lazy.SaveVersion().root_hash), Hex(original.SaveVersion().root_hash)) << "version " << v;
  }
  EXPECT_EQ(Contents(lazy), Contents(original));

  // A half-loaded tree writes the same snapshot (untouched subtrees copied from the old one).
  WriteTree(lazy, dir.Sub("t2"));
  IavlTree reloaded(TreeSnapshot::Open(dir.Sub("t2")), IavlTree::Options{});
  EXPECT_EQ(Hex(reloaded.RootHash()), Hex(original.RootHash()));
  EXPECT_EQ(Contents(reloaded), Contents(original));
}

TEST(TreeSnapshot, ReadsTouchOnlyTheirPathAndIterateInBothDirections) {
  strata::test::TempDir dir;
  IavlTree tree;
  for (int i = 0; i < 1000; ++i) tree.Set("k" + std::to_string(1000 + i), "v" + std::to_string(i));
  tree.SaveVersion();
  WriteTree(tree, dir.Sub("t"));
  IavlTree lazy(TreeSnapshot::Open(dir.Sub("t")), IavlTree::Options{});
  EXPECT_EQ(lazy.Get("k1500"), std::optional<std::string>("v500"));
  EXPECT_FALSE(lazy.Has("k0"));
  std::vector<std::string> keys;
  for (auto it = lazy.NewIterator(std::string_view("k1990"), std::nullopt, true); it.Valid(); it.Next()) keys.emplace_back(it.Key());
  EXPECT_EQ(keys.size(), 10u);
  keys.clear();
  for (auto it = lazy.NewIterator(std::nullopt, std::string_view("k1003"), false); it.Valid(); it.Next()) keys.emplace_back(it.Key());
  EXPECT_EQ(keys, (std::vector<std::string>{"k1002", "k1001", "k1000"}));
}

TEST(TreeSnapshot, EmptyAndSingleLeafTrees) {
  strata::test::TempDir dir;
  IavlTree empty;
  empty.SaveVersion();
  WriteTree(empty, dir.Sub("e"));
  IavlTree e(TreeSnapshot::Open(dir.Sub("e")), IavlTree::Options{});
  EXPECT_EQ(e.Size(), 0);
  EXPECT_EQ(Hex(e.RootHash()), Hex(EmptyTreeHash()));

  IavlTree one;
  one.Set("a", "1");
  one.SaveVersion();
  WriteTree(one, dir.Sub("o"));
  IavlTree o(TreeSnapshot::Open(dir.Sub("o")), IavlTree::Options{});
  EXPECT_EQ(Hex(o.RootHash()), Hex(one.RootHash()));
  o.Set("b", "2");
  one.Set("b", "2");
  EXPECT_EQ(Hex(o.SaveVersion().root_hash), Hex(one.SaveVersion().root_hash));
}

TEST(TreeSnapshot, DamagedFilesAreCorruption) {
  strata::test::TempDir dir;
  IavlTree tree;
  for (int i = 0; i < 10; ++i) tree.Set("k" + std::to_string(i), "v");
  tree.SaveVersion();
  WriteTree(tree, dir.Sub("t"));
  fs::resize_file(dir.Sub("t") + "/nodes", 47);
  EXPECT_STRATA_ERROR(TreeSnapshot::Open(dir.Sub("t")), ErrorCode::kCorruption);
  WriteTree(tree, dir.Sub("u"));
  { std::ofstream(dir.Sub("u") + "/metadata", std::ios::trunc) << "garbage!garbage!"; }
  EXPECT_STRATA_ERROR(TreeSnapshot::Open(dir.Sub("u")), ErrorCode::kCorruption);
}

// ---- the database ---------------------------------------------------------------------------

MemIavlOptions SyncSnapshots(int64_t interval, int keep_recent = 1) {
  MemIavlOptions options;
  options.snapshot_interval = interval;
  options.keep_recent = keep_recent;
  options.async_snapshot = false;
  return options;
}

TEST(MemIavlDb, CommitsMatchPlainTreesAndSurviveReopen) {
  strata::test::TempDir dir;
  {
    auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(0));
    EXPECT_EQ(db->Version(), 0);
    for (int64_t v = 1; v <= 12; ++v) CommitBlock(*db, v);
    EXPECT_EQ(db->Version(), 12);
    EXPECT_EQ(db->LastCommitInfo(), ExpectedInfos(12));
  }
  auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(0));
  EXPECT_EQ(db->Version(), 12);
  EXPECT_EQ(db->LastCommitInfo(), ExpectedInfos(12));
  CommitBlock(*db, 13);
  EXPECT_EQ(db->LastCommitInfo(), ExpectedInfos(13));
}

TEST(MemIavlDb, WorkingCommitInfoPredictsTheCommit) {
  strata::test::TempDir dir;
  auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(0));
  CommitBlock(*db, 1);
  db->Set("bank", "x", "1");
  const auto working = db->WorkingCommitInfo();
  EXPECT_EQ(db->Commit(), working);
}

TEST(MemIavlDb, SnapshotsFollowTheIntervalAndKeepRecent) {
  strata::test::TempDir dir;
  {
    auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(5, 1));
    for (int64_t v = 1; v <= 17; ++v) CommitBlock(*db, v);
    EXPECT_EQ(db->SnapshotVersions(), (std::vector<int64_t>{10, 15}));
    EXPECT_EQ(fs::read_symlink(dir.Sub("current")).string(), "snapshot-00000000000000000015");
    EXPECT_GT(db->LastSnapshotStats().first, 0u);
  }
  // Reopen = newest snapshot + the two blocks after it.
  auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(5, 1));
  EXPECT_EQ(db->Version(), 17);
  EXPECT_EQ(db->LastCommitInfo(), ExpectedInfos(17));
}

TEST(MemIavlDb, BackgroundSnapshotsAreAdoptedWithoutChangingHashes) {
  strata::test::TempDir dir;
  MemIavlOptions options;
  options.snapshot_interval = 4;
  options.keep_recent = 0;
  auto db = MemIavlDb::Open(dir.path(), options);
  for (int64_t v = 1; v <= 30; ++v) {
    CommitBlock(*db, v);
    ASSERT_EQ(db->LastCommitInfo(), ExpectedInfos(v)) << "version " << v;
    // Commits go on while a snapshot is written (an interval that falls due meanwhile is
    // skipped); now and then wait, so adoption is also exercised at a known point.
    if (v % 12 == 0) db->WaitForSnapshot();
  }
  db->WaitForSnapshot();
  ASSERT_EQ(db->SnapshotVersions().size(), 1u);
  EXPECT_EQ(db->SnapshotVersions().back() % 4, 0);
  EXPECT_GE(db->SnapshotVersions().back(), 24);
  CommitBlock(*db, 31);
  EXPECT_EQ(db->LastCommitInfo(), ExpectedInfos(31));
}

TEST(MemIavlDb, ReadOnlyOpensAtAnyCoveredVersionAndChangesNothing) {
  strata::test::TempDir dir;
  auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(5, 3));
  for (int64_t v = 1; v <= 12; ++v) CommitBlock(*db, v);
  // The writer holds the lock: readers are refused with the node's wording.
  MemIavlOptions ro;
  ro.read_only = true;
  try {
    MemIavlDb::Open(dir.path(), ro);
    ADD_FAILURE() << "a reader opened a directory a writer holds";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIo);
    EXPECT_NE(std::string(e.what()).find("resource temporarily unavailable"), std::string::npos);
  }
  db->Close();
  for (int64_t target : {3, 5, 9, 12}) {
    ro.target_version = target;
    auto reader = MemIavlDb::Open(dir.path(), ro);
    EXPECT_EQ(reader->Version(), target);
    EXPECT_EQ(reader->LastCommitInfo(), ExpectedInfos(target));
    EXPECT_STRATA_ERROR(reader->Set("bank", "k", "v"), ErrorCode::kNotSupported);
  }
  ro.target_version = 13;
  EXPECT_STRATA_ERROR(MemIavlDb::Open(dir.path(), ro), ErrorCode::kInvalidArgument);
  // Two readers may share.
  ro.target_version = 0;
  auto r1 = MemIavlDb::Open(dir.path(), ro);
  auto r2 = MemIavlDb::Open(dir.path(), ro);
  EXPECT_EQ(r2->Version(), 12);
}

TEST(MemIavlDb, RollbackDiscardsLaterVersionsOnDisk) {
  strata::test::TempDir dir;
  {
    auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(5, 1));
    for (int64_t v = 1; v <= 17; ++v) CommitBlock(*db, v);
    EXPECT_EQ(db->Rollback(16), ExpectedInfos(16));
    EXPECT_EQ(db->Rollback(12), ExpectedInfos(12));  // below the newest snapshot
    EXPECT_EQ(db->SnapshotVersions(), (std::vector<int64_t>{10}));
    EXPECT_STRATA_ERROR(db->Rollback(13), ErrorCode::kInvalidArgument);  // ahead of the state
    EXPECT_STRATA_ERROR(db->Rollback(0), ErrorCode::kInvalidArgument);
    // New history from 13 on.
    db->Set("bank", "fresh", "1");
    db->Commit();
    EXPECT_EQ(db->Version(), 13);
  }
  auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(5, 1));
  EXPECT_EQ(db->Version(), 13);
  EXPECT_EQ(db->Tree("bank")->Get("fresh"), std::optional<std::string>("1"));
}

TEST(MemIavlDb, RollbackWithoutSnapshotsReplaysFromTheStart) {
  strata::test::TempDir dir;
  auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(0));
  for (int64_t v = 1; v <= 6; ++v) CommitBlock(*db, v);
  EXPECT_EQ(db->Rollback(2), ExpectedInfos(2));
  CommitBlock(*db, 3);
  EXPECT_EQ(db->LastCommitInfo(), ExpectedInfos(3));
}

TEST(MemIavlDb, CorruptedSnapshotIsReportedWithTheRemedy) {
  strata::test::TempDir dir;
  {
    auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(5));
    for (int64_t v = 1; v <= 6; ++v) CommitBlock(*db, v);
  }
  const std::string kvs = dir.Sub("snapshot-00000000000000000005/bank/kvs");
  {
    std::fstream f(kvs, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(10);
    f.put('\x7f');
  }
  try {
    MemIavlDb::Open(dir.path(), SyncSnapshots(5));
    ADD_FAILURE() << "a damaged snapshot was loaded";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorruption);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("bank/kvs"), std::string::npos) << msg;
    EXPECT_NE(msg.find("`stratadb repair-snapshots -d " + fs::absolute(dir.path()).lexically_normal().string() + "`"),
              std::string::npos)
        << msg;
  }
}

// Flips a byte inside the payload of the changelog entry of `version`; returns the segment.
std::string DamageChangelogEntry(const std::string& dir, int64_t version) {
  const std::string segment = (fs::path(dir) / "changelog" / "00000000000000000001").string();
  std::string data;
  {
    std::ifstream in(segment, std::ios::binary);
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  size_t pos = 0;
  while (pos + 16 <= data.size()) {
    uint32_t len = 0;
    int64_t v = 0;
    std::memcpy(&len, data.data() + pos, 4);
    std::memcpy(&v, data.data() + pos + 8, 8);
    if (v == version) {
      std::fstream f(segment, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(pos + 8 + len - 1));
      f.put(static_cast<char>(data[pos + 8 + len - 1] ^ 0x01));
      return segment;
    }
    pos += 8 + len;
  }
  ADD_FAILURE() << "no changelog entry of version " << version;
  return segment;
}

TEST(MemIavlDb, DamagedChangelogEntryIsCorruptionNamingTheFileAndTheIntactVersion) {
  strata::test::TempDir dir;
  {
    auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(5, 1));
    for (int64_t v = 1; v <= 14; ++v) CommitBlock(*db, v);
  }
  const std::string segment = DamageChangelogEntry(dir.path(), 12);
  try {
    MemIavlDb::Open(dir.path(), SyncSnapshots(5, 1));
    ADD_FAILURE() << "opened past a damaged changelog entry";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorruption);
    const std::string msg = e.what();
    EXPECT_NE(msg.find(segment), std::string::npos) << msg;
    EXPECT_NE(msg.find("intact only up to version 11"), std::string::npos) << msg;
    EXPECT_NE(msg.find("stratad rollback --to-intact --home"), std::string::npos) << msg;
  }
  // The remedy's open: cut at the damage, state at the last intact version; history goes on.
  MemIavlOptions cut = SyncSnapshots(5, 1);
  cut.cut_damaged_changelog = true;
  {
    auto db = MemIavlDb::Open(dir.path(), cut);
    EXPECT_EQ(db->Version(), 11);
    EXPECT_EQ(db->LastCommitInfo(), ExpectedInfos(11));
    EXPECT_NE(db->CutChangelogAt().find(segment), std::string::npos);
    CommitBlock(*db, 12);
  }
  auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(5, 1));
  EXPECT_EQ(db->Version(), 12);
  EXPECT_EQ(db->LastCommitInfo(), ExpectedInfos(12));
}

// The last entry's length field damaged (here one larger, so the frame seems to run past the
// end of the file as a torn tail does): it was synced and acknowledged, so it is corruption
// naming the segment and the remedy, not an entry to drop silently.
TEST(MemIavlDb, DamagedLengthOfTheLastChangelogEntryIsCorruption) {
  strata::test::TempDir dir;
  {
    auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(5, 1));
    for (int64_t v = 1; v <= 14; ++v) CommitBlock(*db, v);
  }
  const std::string segment = (fs::path(dir.path()) / "changelog" / "00000000000000000001").string();
  std::string data;
  {
    std::ifstream in(segment, std::ios::binary);
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  size_t last = 0;
  for (size_t pos = 0; pos + 8 <= data.size();) {
    uint32_t len = 0;
    std::memcpy(&len, data.data() + pos, 4);
    last = pos;
    pos += 8 + len;
  }
  {
    std::fstream f(segment, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(last));
    f.put(static_cast<char>(data[last] + 1));
  }
  try {
    MemIavlDb::Open(dir.path(), SyncSnapshots(5, 1));
    ADD_FAILURE() << "dropped the last changelog entry as a torn tail";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorruption);
    const std::string msg = e.what();
    EXPECT_NE(msg.find(segment + " is damaged at byte " + std::to_string(last)), std::string::npos) << msg;
    EXPECT_NE(msg.find("intact only up to version 13"), std::string::npos) << msg;
    EXPECT_NE(msg.find("stratad rollback --to-intact --home"), std::string::npos) << msg;
  }
  EXPECT_EQ(fs::file_size(segment), data.size());  // the refused open changed nothing
  MemIavlOptions cut = SyncSnapshots(5, 1);
  cut.cut_damaged_changelog = true;
  {
    auto db = MemIavlDb::Open(dir.path(), cut);
    EXPECT_EQ(db->Version(), 13);
    EXPECT_EQ(db->LastCommitInfo(), ExpectedInfos(13));
  }
}

// A crash mid-append leaves the file ending inside the last entry: never acknowledged, so the
// open drops it without a word and the store is at the version before it.
TEST(MemIavlDb, TornLastChangelogEntryIsDroppedSilently) {
  strata::test::TempDir dir;
  {
    auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(5, 1));
    for (int64_t v = 1; v <= 14; ++v) CommitBlock(*db, v);
  }
  const std::string segment = (fs::path(dir.path()) / "changelog" / "00000000000000000001").string();
  fs::resize_file(segment, fs::file_size(segment) - 5);
  {
    auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(5, 1));
    EXPECT_EQ(db->Version(), 13);
    EXPECT_EQ(db->LastCommitInfo(), ExpectedInfos(13));
    CommitBlock(*db, 14);
  }
  auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(5, 1));
  EXPECT_EQ(db->LastCommitInfo(), ExpectedInfos(14));
}

TEST(MemIavlDb, DamageBelowTheNewestSnapshotIsCutAndLaterIndexesFollowTheVersions) {
  strata::test::TempDir dir;
  {
    auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(5, 1));
    for (int64_t v = 1; v <= 12; ++v) CommitBlock(*db, v);
  }
  DamageChangelogEntry(dir.path(), 7);
  EXPECT_STRATA_ERROR(MemIavlDb::Open(dir.path(), SyncSnapshots(5, 1)), ErrorCode::kCorruption);
  MemIavlOptions cut = SyncSnapshots(5, 1);
  cut.cut_damaged_changelog = true;
  {
    auto db = MemIavlDb::Open(dir.path(), cut);
    EXPECT_EQ(db->Version(), 10);  // snapshot 10 is intact; the entries after the damage are gone
    EXPECT_EQ(db->LastCommitInfo(), ExpectedInfos(10));
    for (int64_t v = 11; v <= 13; ++v) CommitBlock(*db, v);
    EXPECT_EQ(db->Rollback(12), ExpectedInfos(12));
  }
  auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(5, 1));
  EXPECT_EQ(db->Version(), 12);
  EXPECT_EQ(db->LastCommitInfo(), ExpectedInfos(12));
}

TEST(MemIavlDb, InterruptedSnapshotDirectoriesAreRemovedAndNeverUsed) {
  strata::test::TempDir dir;
  {
    auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(0));
    for (int64_t v = 1; v <= 3; ++v) CommitBlock(*db, v);
  }
  fs::create_directories(dir.Sub("snapshot-00000000000000000003-tmp/bank"));
  { std::ofstream(dir.Sub("snapshot-00000000000000000003-tmp/bank/nodes")) << "half"; }
  auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(0));
  EXPECT_FALSE(fs::exists(dir.Sub("snapshot-00000000000000000003-tmp")));
  EXPECT_EQ(db->LastCommitInfo(), ExpectedInfos(3));
}

TEST(MemIavlDb, BadInputIsRejected) {
  strata::test::TempDir dir;
  auto db = MemIavlDb::Open(dir.path(), SyncSnapshots(0));
  EXPECT_STRATA_ERROR(db->Set("bank", "", "v"), ErrorCode::kInvalidArgument);
  EXPECT_STRATA_ERROR(db->Set("a/b", "k", "v"), ErrorCode::kInvalidArgument);
  EXPECT_STRATA_ERROR(db->Set("__metadata", "k", "v"), ErrorCode::kInvalidArgument);
  EXPECT_STRATA_ERROR(db->Set("..", "k", "v"), ErrorCode::kInvalidArgument);
  MemIavlOptions bad;
  bad.hash_threads = 0;
  EXPECT_STRATA_ERROR(MemIavlDb::Open(dir.Sub("x"), bad), ErrorCode::kInvalidArgument);
  db->Close();
  EXPECT_STRATA_ERROR(db->Commit(), ErrorCode::kClosed);
}

class CollectingSink final : public MemIavlExportSink {
 public:
  void Store(std::string_view name) override {
    MemIavlDb::ImportItem item;
    item.store = std::string(name);
    items.push_back(item);
  }
  void Node(const MemIavlExportNode& node) override {
    MemIavlDb::ImportItem item;
    item.key = std::string(node.key);
    item.value = std::string(node.value);
    item.version = node.version;
    item.height = node.height;
    items.push_back(item);
  }
  std::vector<MemIavlDb::ImportItem> items;
};

TEST(MemIavlDb, ExportImportRoundTripKeepsEveryHash) {
  strata::test::TempDir dir;
  CollectingSink sink;
  {
    auto db = MemIavlDb::Open(dir.Sub("src"), SyncSnapshots(4));
    for (int64_t v = 1; v <= 9; ++v) CommitBlock(*db, v);
    db->Export(sink);
  }
  size_t at = 0;
  auto next = [&](MemIavlDb::ImportItem* out) {
    if (at == sink.items.size()) return false;
    *out = sink.items[at++];
    return true;
  };
  MemIavlDb::Import(dir.Sub("dst"), 9, SyncSnapshots(4), next);
  auto db = MemIavlDb::Open(dir.Sub("dst"), SyncSnapshots(4));
  EXPECT_EQ(db->Version(), 9);
  EXPECT_EQ(db->LastCommitInfo(), ExpectedInfos(9));
  CommitBlock(*db, 10);
  EXPECT_EQ(db->LastCommitInfo(), ExpectedInfos(10));
  // Nothing before the imported version exists to roll back to.
  EXPECT_STRATA_ERROR(db->Rollback(5), ErrorCode::kInvalidArgument);
  db->Close();
  db = MemIavlDb::Open(dir.Sub("dst"), SyncSnapshots(4));
  EXPECT_EQ(db->LastCommitInfo(), ExpectedInfos(10));

  // A non-empty target and a tampered stream are refused.
  at = 0;
  EXPECT_STRATA_ERROR(MemIavlDb::Import(dir.Sub("dst"), 9, SyncSnapshots(4), next), ErrorCode::kInvalidArgument);
  auto tampered = sink.items;
  std::swap(tampered[1], tampered[2]);
  at = 0;
  auto next_tampered = [&](MemIavlDb::ImportItem* out) {
    if (at == tampered.size()) return false;
    *out = tampered[at++];
    return true;
  };
  EXPECT_STRATA_ERROR(MemIavlDb::Import(dir.Sub("bad"), 9, SyncSnapshots(4), next_tampered), ErrorCode::kInvalidArgument);
}

// Flips one bit of the byte at `offset` of `path`.
void FlipByte(const std::string& path, std::streamoff offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(offset);
  const char c = static_cast<char>(f.get());
  f.seekp(offset);
  f.put(static_cast<char>(c ^ 0x01));
}

// Every file below `dir` with its contents, and every symlink with its target.
std::map<std::string, std::string> DirectoryState(const std::string& dir) {
  std::map<std::string, std::string> state;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const std::string rel = fs::relative(entry.path(), dir).string();
    if (entry.is_symlink()) {
      state[rel] = "-> " + fs::read_symlink(entry.path()).string();
    } else if (entry.is_regular_file()) {
      std::ifstream in(entry.path(), std::ios::binary);
      state[rel] = std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    } else {
      state[rel] = "dir";
    }
  }
  return state;
}

TEST(MemIavlDb, RepairSnapshotsFallsBackToTheNewestIntactSnapshotAndReachesTheLatestVersion) {
  strata::test::TempDir dir;
  std::vector<StoreInfo> reference;
  {
    auto db = MemIavlDb::Open(dir.Sub("reference"), SyncSnapshots(5, 1));
    for (int64_t v = 1; v <= 17; ++v) CommitBlock(*db, v);
    reference = db->LastCommitInfo();
  }
  const std::string damaged = dir.Sub("damaged");
  {
    auto db = MemIavlDb::Open(damaged, SyncSnapshots(5, 1));
    for (int64_t v = 1; v <= 17; ++v) CommitBlock(*db, v);
    ASSERT_EQ(db->SnapshotVersions(), (std::vector<int64_t>{10, 15}));
    // A node holds the directory: the repair refuses like the other tools.
    try {
      RepairMemIavlSnapshots(damaged);
      ADD_FAILURE() << "repaired a directory a node holds";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kIo);
      EXPECT_NE(std::string(e.what()).find("failed to initialize database: resource temporarily unavailable"), std::string::npos);
    }
  }
  const std::string newest = damaged + "/snapshot-00000000000000000015";
  FlipByte(newest + "/bank/nodes", 40);

  std::string message;
  try {
    MemIavlDb::Open(damaged, SyncSnapshots(5, 1));
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorruption);
    message = e.what();
  }
  EXPECT_NE(message.find(newest + "/bank/nodes"), std::string::npos) << message;
  EXPECT_NE(message.find("`" + RepairSnapshotsCommand(damaged) + "`"), std::string::npos) << message;

  const SnapshotRepair repair = RepairMemIavlSnapshots(damaged);
  ASSERT_EQ(repair.removed.size(), 1u);
  EXPECT_EQ(repair.removed[0].version, 15);
  EXPECT_EQ(repair.removed[0].path, newest);
  EXPECT_NE(repair.removed[0].reason.find("bank/nodes fails its checksum"), std::string::npos) << repair.removed[0].reason;
  EXPECT_EQ(repair.current, std::optional<int64_t>(10));
  EXPECT_EQ(repair.version, 17);
  EXPECT_FALSE(fs::exists(newest));
  EXPECT_EQ(fs::read_symlink(damaged + "/current").string(), "snapshot-00000000000000000010");

  auto db = MemIavlDb::Open(damaged, SyncSnapshots(5, 1));
  EXPECT_EQ(db->Version(), 17);
  EXPECT_EQ(db->LastCommitInfo(), reference);
  CommitBlock(*db, 18);
  EXPECT_EQ(db->LastCommitInfo(), ExpectedInfos(18));
  db->Close();

  // A second run finds nothing to do.
  const SnapshotRepair again = RepairMemIavlSnapshots(damaged);
  EXPECT_TRUE(again.removed.empty());
  EXPECT_EQ(again.version, 18);
}

TEST(MemIavlDb, RepairSnapshotsRefusesAndChangesNothingWhenTheChangelogCannotReachTheLatestVersion) {
  strata::test::TempDir dir;
  CollectingSink sink;
  {
    auto db = MemIavlDb::Open(dir.Sub("src"), SyncSnapshots(0));
    for (int64_t v = 1; v <= 9; ++v) CommitBlock(*db, v);
    db->Export(sink);
  }
  // A state-synced node: its only snapshot is the imported one, its changelog starts after it.
  const std::string synced = dir.Sub("synced");
  size_t at = 0;
  MemIavlDb::Import(synced, 9, SyncSnapshots(0), [&](MemIavlDb::ImportItem* out) {
    if (at == sink.items.size()) return false;
    *out = sink.items[at++];
    return true;
  });
  {
    auto db = MemIavlDb::Open(synced, SyncSnapshots(0));
    for (int64_t v = 10; v <= 12; ++v) CommitBlock(*db, v);
  }
  FlipByte(synced + "/snapshot-00000000000000000009/acc/kvs", 3);
  const auto before = DirectoryState(synced);
  try {
    RepairMemIavlSnapshots(synced);
    ADD_FAILURE() << "repaired without a way to reach the latest version";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorruption);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("latest committed version is 12"), std::string::npos) << msg;
    EXPECT_NE(msg.find("the changelog starts at version 10"), std::string::npos) << msg;
    EXPECT_NE(msg.find("nothing was changed"), std::string::npos) << msg;
  }
  EXPECT_EQ(DirectoryState(synced), before);
}

TEST(WriteRateLimiter, PacesWritesToTheRate) {
  WriteRateLimiter limiter(10'000'000, 1'000'000);  // 10 MB/s after a 1 MB burst
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 4; ++i) limiter.Acquire(500'000);  // 2 MB: 1 MB beyond the burst
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(seconds, 0.095);  // at least (2 MB - 1 MB) / 10 MB/s
}

// ---- kill -9 ----------------------------------------------------------------------------------

// A child commits blocks (snapshots every 3 versions, in the background) and reports each
// committed version through a pipe; the parent kills it at a random moment. The reopened
// database must be at the last reported version or later, with exactly the expected hashes.
TEST(MemIavlDb, SurvivesKillNineDuringCommitsAndSnapshots) {
  strata::test::TempDir dir;
  std::mt19937 rng(2024);
  int64_t reported = 0;
  for (int round = 0; round < 24; ++round) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      try {
        MemIavlOptions options;
        options.snapshot_interval = 3;
        options.keep_recent = 1;
        auto db = MemIavlDb::Open(dir.path(), options);
        for (int64_t v = db->Version() + 1;; ++v) {
          CommitBlock(*db, v);
          if (::write(fds[1], &v, sizeof v) != sizeof v) ::_exit(3);
        }
      } catch (...) {
        ::_exit(2);
      }
    }
    ::close(fds[1]);
    ::usleep(20000 + rng() % 60000);
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited on its own with " << WEXITSTATUS(status);
    int64_t v = 0;
    while (::read(fds[0], &v, sizeof v) == sizeof v) reported = std::max(reported, v);
    ::close(fds[0]);

    MemIavlOptions options;
    options.snapshot_interval = 0;
    auto db = MemIavlDb::Open(dir.path(), options);
    ASSERT_GE(db->Version(), reported) << "round " << round;
    ASSERT_LE(db->Version(), reported + 1) << "round " << round;
    ASSERT_EQ(db->LastCommitInfo(), ExpectedInfos(db->Version())) << "round " << round;
    for (const auto& entry : fs::directory_iterator(dir.path())) {
      ASSERT_EQ(entry.path().filename().string().find("-tmp"), std::string::npos);
    }
    reported = db->Version();
  }
  EXPECT_GT(reported, 24);
}

}  // namespace
}  // namespace strata::sc
