// FlatKV: row mapping and formats, the lattice hash against a from-scratch recomputation,
// durability (changelog replay, kill -9), snapshots, rollback and export/import.
//
// Expected rows come from a small reference model written here from the documented format
// (digest §9.1), not from the store's own encoders.
#include "sc/flatkv/flatkv_store.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "changelog.h"
#include "encoding.h"
#include "sc/flatkv/block_changes.h"
#include "sc/flatkv/row_format.h"
#include "sc/flatkv/row_import.h"
#include "sc/flatkv/snapshot_files.h"
#include "sc/lthash.h"
#include "strata/changelog_entry.h"
#include "test_util.h"

namespace strata::sc {
namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;
using test::TempDir;
using Rows = std::map<std::string, std::string>;

// ---- logical keys and values -----------------------------------------------------------------

std::string Addr(int n) {
  std::string a(20, '\0');
  a[0] = static_cast<char>(0xa0);
  a[18] = static_cast<char>(n >> 8);
  a[19] = static_cast<char>(n);
  return a;
}
std::string Slot(int n) {
  std::string s(32, '\0');
  s[31] = static_cast<char>(n);
  s[0] = static_cast<char>(0x50);
  return s;
}
std::string NonceKey(int a) { return "\x0a"s + Addr(a); }
std::string CodeHashKey(int a) { return "\x08"s + Addr(a); }
std::string CodeKey(int a) { return "\x07"s + Addr(a); }
std::string CodeSizeKey(int a) { return "\x09"s + Addr(a); }
std::string StorageKey(int a, int slot) { return "\x03"s + Addr(a) + Slot(slot); }
std::string Be64(uint64_t v) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[7 - i] = static_cast<char>(v >> (8 * i));
  return out;
}
std::string Hash32(int n) { return std::string(31, '\x11') + static_cast<char>(n); }
using encoding::Hex;

// ---- reference model -------------------------------------------------------------------------

// One staged operation: a set when value is present, else a delete.
struct Op {
  std::string key;
  std::optional<std::string> value;
};

// The rows FlatKV must hold, derived from the logical history by the documented rules.
class ReferenceModel {
 public:
  void Apply(int64_t version, const std::vector<Op>& ops) {
    std::map<std::string, std::optional<std::string>> net;
    for (const auto& op : ops) net[op.key] = op.value;
    std::set<std::string> touched_accounts;
    for (const auto& [key, value] : net) {
      if (value) {
        logical_[key] = *value;
      } else {
        logical_.erase(key);
      }
      if (IsAccountField(key)) {
        touched_accounts.insert(key.substr(1));
        continue;
      }
      if (value) {
        rows_["evm/" + key] = Header(version) + *value;
      } else {
        rows_.erase("evm/" + key);
      }
    }
    for (const auto& addr : touched_accounts) {
      auto nonce = logical_.find("\x0a"s + addr);
      auto hash = logical_.find("\x08"s + addr);
      std::string nonce_bytes = nonce != logical_.end() ? nonce->second : std::string(8, '\0');
      bool has_hash = hash != logical_.end() && hash->second != std::string(32, '\0');
      const std::string row_key = "evm/\x0a"s + addr;
      if (nonce_bytes == std::string(8, '\0') && !has_hash) {
        rows_.erase(row_key);
        continue;
      }
      rows_[row_key] = Header(version) + std::string(32, '\0') + nonce_bytes + (has_hash ? hash->second : "");
    }
  }

  const Rows& rows() const { return rows_; }

  static bool IsAccountField(const std::string& key) {
    return key.size() == 21 && (key[0] == '\x0a' || key[0] == '\x08');
  }

 private:
  static std::string Header(int64_t version) { return "\x00"s + Be64(static_cast<uint64_t>(version)); }

  std::map<std::string, std::string> logical_;
  Rows rows_;
};

// ---- store helpers ---------------------------------------------------------------------------

std::vector<std::pair<std::string, std::string>> ExportList(const FlatKvStore& store) {
  std::vector<std::pair<std::string, std::string>> rows;
  store.ExportRows([&](std::string_view k, std::string_view v) { rows.emplace_back(std::string(k), std::string(v)); });
  return rows;
}

Rows ExportMap(const FlatKvStore& store) {
  Rows rows;
  for (auto& [k, v] : ExportList(store)) rows.emplace(k, v);
  return rows;
}

std::string ChecksumOf(const LtHash& hash) {
  Blake3Digest d = hash.Checksum();
  return std::string(reinterpret_cast<const char*>(d.data()), d.size());
}

// The root hash recomputed from nothing but the exported rows.
std::string FromScratchHash(const FlatKvStore& store) {
  LtHash hash;
  store.ExportRows([&](std::string_view k, std::string_view v) { hash.MixIn(k, v); });
  return ChecksumOf(hash);
}

std::string EmptyHash() { return ChecksumOf(LtHash()); }

void Stage(FlatKvStore& store, const std::vector<Op>& ops) {
  for (const auto& op : ops) {
    if (op.value) {
      store.Set(op.key, *op.value);
    } else {
      store.Delete(op.key);
    }
  }
}

FlatKvOptions Options(int64_t snapshot_interval = 0, int keep_recent = 1) {
  FlatKvOptions o;
  o.snapshot_interval = snapshot_interval;
  o.keep_recent = keep_recent;
  o.block_cache_bytes = 8 << 20;
  return o;
}

// A random block over a small key space, so that keys are overwritten and deleted often.
std::vector<Op> RandomBlock(std::mt19937_64& rng, int max_ops) {
  std::uniform_int_distribution<int> count(0, max_ops), addr(0, 15), slot(0, 7), kind(0, 9), coin(0, 3), byte(0, 255);
  std::vector<Op> ops;
  int n = count(rng);
  for (int i = 0; i < n; ++i) {
    int a = addr(rng);
    bool del = coin(rng) == 0;
    std::string value;
    Op op;
    switch (kind(rng)) {
      case 0:
      case 1:
        // Nonce 0 sometimes, which deletes a row that has no code hash.
        op = {NonceKey(a), Be64(coin(rng) == 0 ? 0 : static_cast<uint64_t>(byte(rng)))};
        break;
      case 2:
        op = {CodeHashKey(a), coin(rng) == 0 ? std::string(32, '\0') : Hash32(byte(rng))};
        break;
      case 3:
        op = {CodeKey(a), std::string(1 + byte(rng) % 40, static_cast<char>(byte(rng)))};
        break;
      case 4:
      case 5:
      case 6:
        op = {StorageKey(a, slot(rng)), std::string(32, static_cast<char>(byte(rng)))};
        break;
      case 7:
        op = {CodeSizeKey(a), Be64(static_cast<uint64_t>(byte(rng)))};
        break;
      case 8:
        // Nonce prefix with the wrong length: misc.
        op = {"\x0a"s + Addr(a).substr(0, 19), "m" + std::to_string(byte(rng))};
        break;
      default:
        op = {"\x03"s + Addr(a) + Slot(slot(rng)).substr(1), "short-storage"};
        break;
    }
    if (del) op.value.reset();
    ops.push_back(std::move(op));
  }
  return ops;
}

// The deterministic block the kill -9 child commits at `version` (the parent replays it).
std::vector<Op> CrashBlock(int64_t version) {
  std::mt19937_64 rng(static_cast<uint64_t>(version) * 7919);
  std::vector<Op> ops = RandomBlock(rng, 40);
  // Large enough that some blocks are still being written when the kill lands.
  for (int i = 0; i < 200; ++i) ops.push_back({StorageKey(100 + i % 50, i % 4), Be64(static_cast<uint64_t>(version))});
  return ops;
}

std::vector<std::string> TmpEntries(const std::string& dir) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (name.size() >= 4 && (name.substr(name.size() - 4) == "-tmp" || name.substr(name.size() - 4) == ".tmp")) {
      found.push_back(name);
    }
  }
  return found;
}

void ExpectSnapshotsVerify(const std::string& dir, const std::vector<int64_t>& versions) {
  for (int64_t v : versions) {
    EXPECT_NO_THROW(flatkv::VerifySnapshot((fs::path(dir) / flatkv::SnapshotDirName(v)).string())) << v;
  }
}

std::string FirstSstIn(const std::string& dir) {
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".sst") return e.path().string();
  }
  return "";
}

// Flips one byte of `path` in a fresh copy of the file, so a hard link elsewhere (the
// working DB shares SST inodes with its checkpoints) keeps the intact bytes.
void FlipByteInCopy(const std::string& path, size_t offset) {
  std::string data;
  {
    std::ifstream in(path, std::ios::binary);
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_LT(offset, data.size());
  data[offset] = static_cast<char>(data[offset] ^ 0x5a);
  std::string tmp = path + ".flip";
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
  }
  fs::rename(tmp, path);
}

// ---- mapping and row formats -----------------------------------------------------------------

TEST(FlatKvRows, ClassifiesLogicalKeysByFirstByteAndExactLength) {
  using flatkv::ClassifyLogicalKey;
  using flatkv::LogicalKind;
  EXPECT_EQ(ClassifyLogicalKey(NonceKey(1)), LogicalKind::kNonce);
  EXPECT_EQ(ClassifyLogicalKey(CodeHashKey(1)), LogicalKind::kCodeHash);
  EXPECT_EQ(ClassifyLogicalKey(CodeKey(1)), LogicalKind::kCode);
  EXPECT_EQ(ClassifyLogicalKey(StorageKey(1, 2)), LogicalKind::kStorage);
  EXPECT_EQ(ClassifyLogicalKey(CodeSizeKey(1)), LogicalKind::kMisc);
  EXPECT_EQ(ClassifyLogicalKey(NonceKey(1) + "x"), LogicalKind::kMisc);
  EXPECT_EQ(ClassifyLogicalKey(NonceKey(1).substr(0, 20)), LogicalKind::kMisc);
  EXPECT_EQ(ClassifyLogicalKey(StorageKey(1, 2).substr(0, 52)), LogicalKind::kMisc);
  EXPECT_EQ(ClassifyLogicalKey("\x07"s + Addr(1) + Slot(1)), LogicalKind::kMisc);
  EXPECT_EQ(ClassifyLogicalKey("\x0a"), LogicalKind::kMisc);

  using flatkv::FamilyOfPhysicalKey;
  using flatkv::RowFamily;
  EXPECT_EQ(FamilyOfPhysicalKey("evm/" + NonceKey(1)), RowFamily::kAccount);
  EXPECT_EQ(FamilyOfPhysicalKey("evm/" + CodeKey(1)), RowFamily::kCode);
  EXPECT_EQ(FamilyOfPhysicalKey("evm/" + StorageKey(1, 1)), RowFamily::kStorage);
  EXPECT_EQ(FamilyOfPhysicalKey("evm/" + CodeSizeKey(1)), RowFamily::kMisc);
  EXPECT_EQ(FamilyOfPhysicalKey("evm/" + CodeHashKey(1)), RowFamily::kMisc);
  // Only the evm module has typed rows.
  EXPECT_EQ(FamilyOfPhysicalKey("bank/" + NonceKey(1)), RowFamily::kMisc);
  EXPECT_STRATA_ERROR(FamilyOfPhysicalKey("no-module"), ErrorCode::kInvalidArgument);
  EXPECT_STRATA_ERROR(FamilyOfPhysicalKey("/x"), ErrorCode::kInvalidArgument);
  EXPECT_STRATA_ERROR(FamilyOfPhysicalKey("evm/"), ErrorCode::kInvalidArgument);
}

TEST(FlatKvRows, AccountRowMergesNonceAndCodeHash) {
  TempDir dir;
  auto store = FlatKvStore::Open(dir.path(), Options());
  const std::string row_key = "evm/" + NonceKey(1);
  const std::string zeros32(32, '\0');

  store->Set(NonceKey(1), Be64(5));
  store->Commit(1);
  Rows rows = ExportMap(*store);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(Hex(rows.at(row_key)), Hex("\x00"s + Be64(1) + zeros32 + Be64(5)));
  EXPECT_EQ(rows.at(row_key).size(), 49u);

  // A code hash joins the same row (81 bytes) and keeps the nonce; the height moves on.
  store->Set(CodeHashKey(1), Hash32(7));
  store->Commit(2);
  rows = ExportMap(*store);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(Hex(rows.at(row_key)), Hex("\x00"s + Be64(2) + zeros32 + Be64(5) + Hash32(7)));
  EXPECT_EQ(rows.at(row_key).size(), 81u);

  // Deleting the nonce clears that field only.
  store->Delete(NonceKey(1));
  store->Commit(3);
  EXPECT_EQ(Hex(ExportMap(*store).at(row_key)), Hex("\x00"s + Be64(3) + zeros32 + Be64(0) + Hash32(7)));
  EXPECT_EQ(store->Get(NonceKey(1)), Be64(0));
  EXPECT_EQ(store->Get(CodeHashKey(1)), Hash32(7));

  // Nonce and code hash in one block; an all-zero code hash is stored as none (49 bytes).
  store->Set(NonceKey(1), Be64(9));
  store->Set(CodeHashKey(1), zeros32);
  store->Commit(4);
  EXPECT_EQ(Hex(ExportMap(*store).at(row_key)), Hex("\x00"s + Be64(4) + zeros32 + Be64(9)));
  EXPECT_EQ(store->Get(CodeHashKey(1)), std::nullopt);

  // Nonce 0 and no code hash: the row goes.
  store->Set(NonceKey(1), Be64(0));
  store->Commit(5);
  EXPECT_TRUE(ExportMap(*store).empty());
  EXPECT_EQ(store->Get(NonceKey(1)), std::nullopt);
  EXPECT_EQ(store->CommittedHash(), EmptyHash());

  // A code hash alone creates an 81-byte row with nonce 0; deleting it removes the row.
  store->Set(CodeHashKey(2), Hash32(1));
  store->Commit(6);
  EXPECT_EQ(Hex(ExportMap(*store).at("evm/" + NonceKey(2))), Hex("\x00"s + Be64(6) + zeros32 + Be64(0) + Hash32(1)));
  store->Delete(CodeHashKey(2));
  store->Commit(7);
  EXPECT_TRUE(ExportMap(*store).empty());
}

TEST(FlatKvRows, CodeStorageAndMiscRowsCarryHeightAndPayload) {
  TempDir dir;
  auto store = FlatKvStore::Open(dir.path(), Options());
  const std::string short_nonce = "\x0a"s + Addr(1).substr(0, 19);
  const std::string short_storage = StorageKey(1, 1).substr(0, 52);
  store->Set(CodeKey(1), "\x60\x80");
  store->Set(StorageKey(1, 3), std::string(32, '\x42'));
  store->Set(CodeSizeKey(1), Be64(2));
  store->Set(short_nonce, "n");
  store->Set(short_storage, "s");
  store->Commit(42);
  auto rows = ExportList(*store);
  const std::string h = "\x00"s + Be64(42);
  // Families in export order: code, storage, misc (no account rows here); keys ascending within.
  std::vector<std::pair<std::string, std::string>> expected = {
      {"evm/" + CodeKey(1), h + "\x60\x80"},
      {"evm/" + StorageKey(1, 3), h + std::string(32, '\x42')},
      {"evm/" + short_storage, h + "s"},
      {"evm/" + CodeSizeKey(1), h + Be64(2)},
      {"evm/" + short_nonce, h + "n"},
  };
  ASSERT_EQ(rows.size(), expected.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(Hex(rows[i].first), Hex(expected[i].first)) << i;
    EXPECT_EQ(Hex(rows[i].second), Hex(expected[i].second)) << i;
  }
  EXPECT_EQ(store->Get(CodeKey(1)), "\x60\x80"s);
  EXPECT_EQ(store->Get(short_storage), "s");
  store->Delete(CodeKey(1));
  store->Delete(short_nonce);
  store->Commit(43);
  EXPECT_EQ(ExportMap(*store).count("evm/" + CodeKey(1)), 0u);
  EXPECT_EQ(ExportMap(*store).count("evm/" + short_nonce), 0u);
  EXPECT_EQ(ExportMap(*store).size(), 3u);
}

TEST(FlatKvStore, GetReadsCommittedStateWithStagedOverlay) {
  TempDir dir;
  auto store = FlatKvStore::Open(dir.path(), Options());
  EXPECT_EQ(store->Get(StorageKey(1, 1)), std::nullopt);
  store->Set(StorageKey(1, 1), "a");
  store->Set(NonceKey(1), Be64(3));
  EXPECT_EQ(store->Get(StorageKey(1, 1)), "a");
  EXPECT_EQ(store->Get(NonceKey(1)), Be64(3));
  EXPECT_EQ(store->Get(CodeHashKey(1)), std::nullopt);
  store->Commit(1);
  EXPECT_EQ(store->Get(StorageKey(1, 1)), "a");
  EXPECT_EQ(store->Get(NonceKey(1)), Be64(3));

  store->Set(StorageKey(1, 1), "b");
  store->Delete(NonceKey(1));
  store->Set(CodeHashKey(2), Hash32(2));
  EXPECT_EQ(store->Get(StorageKey(1, 1)), "b");
  EXPECT_EQ(store->Get(NonceKey(1)), std::nullopt);  // the staged delete empties the row
  EXPECT_EQ(store->Get(NonceKey(2)), Be64(0));        // the staged code hash creates one
  EXPECT_EQ(store->Get(CodeHashKey(2)), Hash32(2));
  store->Delete(StorageKey(1, 1));
  EXPECT_EQ(store->Get(StorageKey(1, 1)), std::nullopt);
  store->Commit(2);
  EXPECT_EQ(store->Get(StorageKey(1, 1)), std::nullopt);
  EXPECT_EQ(store->Get(NonceKey(1)), std::nullopt);
  EXPECT_EQ(store->Get(NonceKey(2)), Be64(0));
  EXPECT_EQ(store->Get(CodeHashKey(2)), Hash32(2));
}

// Records GetMany's answers by key position.
class MapSink final : public ValueSink {
 public:
  void Found(size_t index, std::string_view value) override { found[index] = std::string(value); }
  std::map<size_t, std::string> found;
};

TEST(FlatKvStore, GetManyAnswersAsGetDoesForEveryKey) {
  TempDir dir;
  auto store = FlatKvStore::Open(dir.path(), Options());
  store->Set(NonceKey(1), Be64(3));
  store->Set(CodeHashKey(1), Hash32(1));
  store->Set(NonceKey(2), Be64(9));
  store->Set(StorageKey(1, 1), "a");
  store->Set(CodeKey(1), "\x60\x80");
  store->Commit(1);
  // Staged over the committed rows: account 1 loses its code hash, account 3 appears.
  store->Delete(CodeHashKey(1));
  store->Set(CodeHashKey(3), Hash32(3));
  store->Set(StorageKey(1, 2), "b");
  // Account fields next to each other (one row read), apart, repeated, absent, and other rows.
  const std::vector<std::string> keys = {NonceKey(1),      CodeHashKey(1), NonceKey(2),      StorageKey(1, 1),
                                         CodeHashKey(2),   NonceKey(3),    CodeHashKey(3),   NonceKey(4),
                                         CodeHashKey(4),   NonceKey(1),    StorageKey(1, 2), StorageKey(1, 3),
                                         CodeKey(1),       CodeKey(2),     CodeHashKey(1),   NonceKey(2)};
  std::vector<std::string_view> views(keys.begin(), keys.end());
  MapSink sink;
  store->GetMany(views.data(), views.size(), sink);
  size_t present = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::optional<std::string> expected = store->Get(keys[i]);
    auto found = sink.found.find(i);
    ASSERT_EQ(found != sink.found.end(), expected.has_value()) << "key " << i;
    if (expected) {
      EXPECT_EQ(found->second, *expected) << "key " << i;
      ++present;
    }
  }
  EXPECT_GE(present, 6u);
  EXPECT_LT(present, keys.size());
  store->Close();
  MapSink closed;
  EXPECT_STRATA_ERROR(store->GetMany(views.data(), 1, closed), ErrorCode::kClosed);
}

TEST(FlatKvStore, ReadsRightAfterACommitSeeItsRowsWhileTheyAreWritten) {
  // Each block's rows reach RocksDB in the background; a read issued the moment Commit
  // returns must already see them (from the block's plan) and every row the block left alone.
  TempDir dir;
  auto store = FlatKvStore::Open(dir.path(), Options());
  std::map<std::string, std::string> model;  // logical key -> value
  std::vector<std::string> keys;
  for (int a = 1; a <= 12; ++a) {
    keys.push_back(NonceKey(a));
    keys.push_back(CodeHashKey(a));
    keys.push_back(StorageKey(a, a % 3));
    keys.push_back(CodeKey(a));
  }
  std::mt19937 rng(1127);
  for (int64_t version = 1; version <= 40; ++version) {
    for (int change = 0; change < 10; ++change) {
      const std::string& key = keys[rng() % keys.size()];
      if (rng() % 4 == 0) {
        store->Delete(key);
        model.erase(key);
        continue;
      }
      const int n = static_cast<int>(rng() % 200) + 1;
      std::string value = key[0] == '\x0a' ? Be64(static_cast<uint64_t>(n)) : key[0] == '\x08' ? Hash32(n) : std::string(n % 7 + 1, static_cast<char>('a' + n % 26));
      store->Set(key, value);
      model[key] = value;
    }
    store->Commit(version);
    std::vector<std::string_view> views(keys.begin(), keys.end());
    MapSink sink;
    store->GetMany(views.data(), views.size(), sink);
    for (size_t i = 0; i < keys.size(); ++i) {
      const std::optional<std::string> got = store->Get(keys[i]);
      auto found = sink.found.find(i);
      // The expected answer: account fields from the merged row (a nonce of 0 with no code
      // hash is no row at all), anything else as set.
      std::optional<std::string> want;
      if (keys[i][0] == '\x0a' || keys[i][0] == '\x08') {
        const std::string address = keys[i].substr(1);
        auto nonce = model.find("\x0a" + address);
        auto code_hash = model.find("\x08" + address);
        const std::string nonce_value = nonce != model.end() ? nonce->second : Be64(0);
        const bool row = nonce_value != Be64(0) || code_hash != model.end();
        if (keys[i][0] == '\x0a' && row) want = nonce_value;
        if (keys[i][0] == '\x08' && code_hash != model.end()) want = code_hash->second;
      } else if (auto it = model.find(keys[i]); it != model.end()) {
        want = it->second;
      }
      ASSERT_EQ(got, want) << "version " << version << " key " << i;
      ASSERT_EQ(found != sink.found.end(), want.has_value()) << "version " << version << " key " << i;
      if (want) ASSERT_EQ(found->second, *want) << "version " << version << " key " << i;
    }
  }
  // The same answers once every write has landed and the store is reopened.
  std::map<std::string, std::optional<std::string>> before;
  for (const std::string& key : keys) before[key] = store->Get(key);
  store->Close();
  auto reopened = FlatKvStore::Open(dir.path(), Options());
  for (const std::string& key : keys) EXPECT_EQ(reopened->Get(key), before[key]);
}

TEST(FlatKvStore, RejectsMalformedChangesAndNonIncreasingVersions) {
  TempDir dir;
  auto store = FlatKvStore::Open(dir.path(), Options());
  EXPECT_STRATA_ERROR(store->Set(NonceKey(1), "1234567"), ErrorCode::kInvalidArgument);
  EXPECT_STRATA_ERROR(store->Set(CodeHashKey(1), std::string(31, 'h')), ErrorCode::kInvalidArgument);
  EXPECT_STRATA_ERROR(store->Set("", "v"), ErrorCode::kInvalidArgument);
  EXPECT_STRATA_ERROR(store->Delete(""), ErrorCode::kInvalidArgument);
  store->Set(NonceKey(1), Be64(1));
  store->Commit(5);
  EXPECT_STRATA_ERROR(store->Commit(5), ErrorCode::kInvalidArgument);
  EXPECT_STRATA_ERROR(store->Commit(4), ErrorCode::kInvalidArgument);
  EXPECT_EQ(store->Version(), 5);
  // Versions may skip.
  store->Commit(9);
  EXPECT_EQ(store->Version(), 9);
}

TEST(FlatKvStore, CloseIsIdempotentAndLaterCallsThrowClosed) {
  TempDir dir;
  auto store = FlatKvStore::Open(dir.path(), Options());
  store->Close();
  store->Close();
  EXPECT_STRATA_ERROR(store->Version(), ErrorCode::kClosed);
  EXPECT_STRATA_ERROR(store->Get(NonceKey(1)), ErrorCode::kClosed);
  EXPECT_STRATA_ERROR(store->Set(NonceKey(1), Be64(1)), ErrorCode::kClosed);
  EXPECT_STRATA_ERROR(store->Commit(1), ErrorCode::kClosed);
  EXPECT_STRATA_ERROR(store->CommittedHash(), ErrorCode::kClosed);
  EXPECT_STRATA_ERROR(store->Rollback(0), ErrorCode::kClosed);
  EXPECT_STRATA_ERROR(store->ExportRows([](std::string_view, std::string_view) {}), ErrorCode::kClosed);
}

TEST(FlatKvStore, SecondWriterIsRefusedWhileOpen) {
  TempDir dir;
  auto store = FlatKvStore::Open(dir.path(), Options());
  EXPECT_STRATA_ERROR(FlatKvStore::Open(dir.path(), Options()), ErrorCode::kIo);
  store->Close();
  EXPECT_NO_THROW(FlatKvStore::Open(dir.path(), Options())->Close());
}

TEST(FlatKvStore, MissingStoreWithoutCreateIfMissingIsRejected) {
  TempDir dir;
  FlatKvOptions o = Options();
  o.create_if_missing = false;
  EXPECT_STRATA_ERROR(FlatKvStore::Open(dir.Sub("absent"), o), ErrorCode::kInvalidArgument);
  EXPECT_FALSE(fs::exists(dir.Sub("absent")));
  o.read_only = true;
  EXPECT_STRATA_ERROR(FlatKvStore::Open(dir.Sub("absent"), o), ErrorCode::kInvalidArgument);
}

TEST(FlatKvStore, ReadOnlyOpenSeesTheClosedStateAndRefusesWrites) {
  TempDir dir;
  std::string hash;
  {
    auto store = FlatKvStore::Open(dir.path(), Options());
    store->Set(StorageKey(1, 1), "v");
    hash = store->Commit(3);
    store->Close();
  }
  FlatKvOptions o = Options();
  o.read_only = true;
  auto reader = FlatKvStore::Open(dir.path(), o);
  EXPECT_EQ(reader->Version(), 3);
  EXPECT_EQ(reader->CommittedHash(), hash);
  EXPECT_EQ(reader->WorkingHash(), hash);
  EXPECT_EQ(reader->Get(StorageKey(1, 1)), "v");
  EXPECT_STRATA_ERROR(reader->Set(StorageKey(1, 1), "w"), ErrorCode::kNotSupported);
  EXPECT_STRATA_ERROR(reader->Commit(4), ErrorCode::kNotSupported);
  EXPECT_STRATA_ERROR(reader->Rollback(0), ErrorCode::kNotSupported);
}

TEST(FlatKvChangelogEntry, RoundTripsOneEvmChangesetAndRejectsOthers) {
  flatkv::BlockChanges changes = {{NonceKey(1), Be64(3)}, {StorageKey(1, 1), std::nullopt}};
  std::sort(changes.begin(), changes.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
  std::string entry = flatkv::EncodeBlockEntry(12, changes);
  flatkv::DecodedBlock decoded = flatkv::DecodeBlockEntry(entry, 1);
  EXPECT_EQ(decoded.version, 12);
  ASSERT_EQ(decoded.changes.size(), 2u);
  for (size_t i = 0; i < changes.size(); ++i) {
    EXPECT_EQ(decoded.changes[i].key, changes[i].key);
    EXPECT_EQ(decoded.changes[i].value, changes[i].value);
  }
  // The same bytes through the generic visitor: one changeset named "evm".
  std::vector<std::string> names;
  VisitChangelogEntry(entry, {[&](std::string_view name, uint32_t) { names.emplace_back(name); },
                              [](std::string_view, std::optional<std::string_view>) {}});
  EXPECT_EQ(names, std::vector<std::string>({"evm"}));

  ChangelogEntryEncoder foreign(3);
  foreign.BeginChangeset("bank", 1);
  foreign.AddPair("k", std::optional<std::string_view>("v"));
  EXPECT_STRATA_ERROR(flatkv::DecodeBlockEntry(foreign.Finish(), 2), ErrorCode::kCorruption);
  ChangelogEntryEncoder bad_nonce(4);
  bad_nonce.BeginChangeset("evm", 1);
  bad_nonce.AddPair(NonceKey(1), std::optional<std::string_view>("short"));
  EXPECT_STRATA_ERROR(flatkv::DecodeBlockEntry(bad_nonce.Finish(), 3), ErrorCode::kCorruption);
  EXPECT_STRATA_ERROR(flatkv::DecodeBlockEntry(entry.substr(0, entry.size() - 3), 4), ErrorCode::kCorruption);
}

// ---- lattice hash ----------------------------------------------------------------------------

TEST(FlatKvHash, EmptyStoreHasTheZeroVectorChecksum) {
  TempDir dir;
  auto store = FlatKvStore::Open(dir.path(), Options());
  EXPECT_EQ(store->CommittedHash(), EmptyHash());
  EXPECT_EQ(store->WorkingHash(), EmptyHash());
  EXPECT_EQ(store->Version(), 0);
  // Deleting absent keys changes nothing.
  store->Delete(StorageKey(1, 1));
  store->Delete(NonceKey(1));
  EXPECT_EQ(store->Commit(1), EmptyHash());
}

TEST(FlatKvHash, CommittedHashEqualsFromScratchHashOverRandomBlocks) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    TempDir dir;
    FlatKvOptions o = Options();
    o.hash_threads = static_cast<int>(seed);  // 1, 2 and 3 threads must agree
    auto store = FlatKvStore::Open(dir.path(), o);
    ReferenceModel model;
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> block_size(0, 120);
    for (int64_t version = 1; version <= 40; ++version) {
      std::vector<Op> ops = RandomBlock(rng, block_size(rng));
      Stage(*store, ops);
      // Sometimes ask for the working hash first: Commit must reuse it, not differ from it.
      std::optional<std::string> working;
      if (version % 3 == 0) working = store->WorkingHash();
      std::string committed = store->Commit(version);
      model.Apply(version, ops);
      if (working) {
        EXPECT_EQ(Hex(*working), Hex(committed)) << "version " << version;
      }
      ASSERT_EQ(Hex(committed), Hex(FromScratchHash(*store))) << "version " << version;
      ASSERT_EQ(committed, store->CommittedHash());
      ASSERT_EQ(ExportMap(*store), model.rows()) << "version " << version;
    }
  }
}

// Blocks large enough to be split over threads hash the same on 1, 2 and 3 threads.
TEST(FlatKvHash, ParallelHashingMatchesOneThread) {
  std::vector<std::string> hashes_by_threads;
  for (int threads : {1, 2, 3}) {
    TempDir dir;
    FlatKvOptions o = Options();
    o.hash_threads = threads;
    auto store = FlatKvStore::Open(dir.path(), o);
    std::string hashes;
    for (int64_t v = 1; v <= 3; ++v) {
      for (int a = 0; a < 1500; ++a) {
        if (v == 3 && a % 4 == 0) {
          store->Delete(NonceKey(a));
        } else {
          store->Set(NonceKey(a), Be64(static_cast<uint64_t>(v * 10 + a % 7)));
        }
        store->Set(StorageKey(a, static_cast<int>(v)), std::string(32, static_cast<char>(a)));
      }
      hashes += store->Commit(v);
      ASSERT_EQ(store->CommittedHash(), FromScratchHash(*store)) << threads << " threads, version " << v;
    }
    hashes_by_threads.push_back(hashes);
  }
  EXPECT_EQ(hashes_by_threads[0], hashes_by_threads[1]);
  EXPECT_EQ(hashes_by_threads[0], hashes_by_threads[2]);
}

TEST(FlatKvHash, WorkingHashFollowsStagedChanges) {
  TempDir dir;
  auto store = FlatKvStore::Open(dir.path(), Options());
  store->Set(StorageKey(1, 1), "a");
  std::string first = store->WorkingHash();
  EXPECT_NE(first, EmptyHash());
  EXPECT_EQ(store->CommittedHash(), EmptyHash());
  store->Set(StorageKey(1, 2), "b");
  std::string second = store->WorkingHash();
  EXPECT_NE(second, first);
  EXPECT_EQ(store->Commit(1), second);
  // With nothing staged the working hash is the committed one.
  EXPECT_EQ(store->WorkingHash(), second);
  // The working version is Version() + 1; committing another version rehashes with its height.
  store->Set(StorageKey(1, 3), "c");
  std::string at_two = store->WorkingHash();
  std::string at_five = store->Commit(5);
  EXPECT_NE(at_two, at_five);
  EXPECT_EQ(at_five, FromScratchHash(*store));
}

// ---- durability ------------------------------------------------------------------------------

TEST(FlatKvDurability, ReopenKeepsVersionHashAndRows) {
  TempDir dir;
  Rows rows;
  std::string hash;
  {
    auto store = FlatKvStore::Open(dir.path(), Options());
    std::mt19937_64 rng(11);
    for (int64_t v = 1; v <= 10; ++v) {
      Stage(*store, RandomBlock(rng, 50));
      hash = store->Commit(v);
    }
    store->Set(StorageKey(9, 9), "staged but never committed");
    rows = ExportMap(*store);
    store->Close();
  }
  auto store = FlatKvStore::Open(dir.path(), Options());
  EXPECT_EQ(store->Version(), 10);
  EXPECT_EQ(store->CommittedHash(), hash);
  EXPECT_EQ(ExportMap(*store), rows);
  EXPECT_EQ(store->Get(StorageKey(9, 9)), std::nullopt);
}

// A crash after the changelog entry was synced but before the RocksDB batch: the entry is
// appended to the changelog directly, as Commit's first half would have done.
TEST(FlatKvDurability, ReplaysAChangelogEntryTheDatabaseMissed) {
  TempDir crashed_dir, twin_dir;
  std::vector<Op> block4 = {{NonceKey(1), Be64(44)}, {StorageKey(2, 2), "after crash"}, {StorageKey(1, 1), std::nullopt}};
  auto first_blocks = [](FlatKvStore& store) {
    store.Set(NonceKey(1), Be64(1));
    store.Set(StorageKey(1, 1), "one");
    store.Commit(1);
    store.Set(CodeKey(1), "code");
    store.Commit(2);
    store.Set(StorageKey(3, 3), "three");
    store.Commit(3);
  };
  {
    auto store = FlatKvStore::Open(crashed_dir.path(), Options());
    first_blocks(*store);
    store->Close();
  }
  {
    flatkv::BlockChanges changes;
    for (const auto& op : block4) changes.push_back({op.key, op.value});
    std::sort(changes.begin(), changes.end(), [](const auto& a, const auto& b) { return a.key < b.key; });
    Changelog changelog(crashed_dir.Sub("changelog"));
    changelog.Append(flatkv::EncodeBlockEntry(4, changes));
    changelog.Sync();
  }
  auto twin = FlatKvStore::Open(twin_dir.path(), Options());
  first_blocks(*twin);
  Stage(*twin, block4);
  std::string expected = twin->Commit(4);

  auto store = FlatKvStore::Open(crashed_dir.path(), Options());
  EXPECT_EQ(store->Version(), 4);
  EXPECT_EQ(store->Get(NonceKey(1)), Be64(44));
  EXPECT_EQ(store->Get(StorageKey(2, 2)), "after crash");
  EXPECT_EQ(store->Get(StorageKey(1, 1)), std::nullopt);
  EXPECT_EQ(Hex(store->CommittedHash()), Hex(expected));
  EXPECT_EQ(store->CommittedHash(), FromScratchHash(*store));
  EXPECT_EQ(ExportMap(*store), ExportMap(*twin));
  // The replayed block is durable in the DB: another reopen does not replay it twice.
  store->Close();
  store = FlatKvStore::Open(crashed_dir.path(), Options());
  EXPECT_EQ(store->CommittedHash(), expected);
}

TEST(FlatKvDurability, ChangelogGapIsReportedAsCorruption) {
  TempDir dir;
  FlatKvOptions o = Options();
  o.changelog_segment_bytes = 1;  // one entry per segment file
  {
    auto store = FlatKvStore::Open(dir.path(), o);
    for (int64_t v = 1; v <= 3; ++v) {
      store->Set(StorageKey(1, static_cast<int>(v)), "v");
      store->Commit(v);
    }
    store->Close();
  }
  {
    Changelog changelog(dir.Sub("changelog"), 1);
    for (int64_t v = 4; v <= 6; ++v) {
      changelog.Append(flatkv::EncodeBlockEntry(v, {{StorageKey(2, static_cast<int>(v)), "replayed"s}}));
    }
    changelog.Sync();
  }
  // Entry 5 (version 5) goes missing: replay would jump from 4 to 6.
  ASSERT_TRUE(fs::remove(fs::path(dir.Sub("changelog")) / "00000000000000000005"));
  try {
    FlatKvStore::Open(dir.path(), o);
    ADD_FAILURE() << "open did not report the gap";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorruption);
    EXPECT_NE(std::string(e.what()).find("gap"), std::string::npos) << e.what();
  }
}

TEST(FlatKvDurability, LostChangelogIsReportedAsCorruption) {
  TempDir dir;
  {
    auto store = FlatKvStore::Open(dir.path(), Options());
    store->Set(StorageKey(1, 1), "v");
    store->Commit(1);
    store->Close();
  }
  fs::remove_all(dir.Sub("changelog"));
  EXPECT_STRATA_ERROR(FlatKvStore::Open(dir.path(), Options()), ErrorCode::kCorruption);
}

// A byte flipped in a synced FlatKV changelog entry: the open names the segment and the
// remedy; the remedy's open (cut_damaged_changelog) cuts there and rolls back to the last
// intact entry's version, with the rows and hash that version had; history then goes on.
TEST(FlatKvDurability, DamagedChangelogEntryNamesTheFileAndTheRemedyWhichRollsBackToTheIntactVersion) {
  TempDir dir, twin_dir;
  const std::string root = (fs::path(dir.path()) / "data" / "flatkv").string();
  auto block = [](int64_t v) { return std::vector<Op>{{StorageKey(1, static_cast<int>(v)), "v" + std::to_string(v)}, {NonceKey(2), Be64(static_cast<uint64_t>(v))}}; };
  {
    auto store = FlatKvStore::Open(root, Options(4));
    for (int64_t v = 1; v <= 10; ++v) {
      Stage(*store, block(v));
      store->Commit(v);
    }
    store->Close();
  }
  auto twin = FlatKvStore::Open(twin_dir.path(), Options());
  for (int64_t v = 1; v <= 6; ++v) {
    Stage(*twin, block(v));
    twin->Commit(v);
  }
  // Damage the payload of entry 7 (version 7).
  const std::string segment = (fs::path(root) / "changelog" / "00000000000000000001").string();
  std::string data;
  {
    std::ifstream in(segment, std::ios::binary);
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  size_t pos = 0;
  for (int entry = 1; entry < 7; ++entry) {
    uint32_t len = 0;
    std::memcpy(&len, data.data() + pos, 4);
    pos += 8 + len;
  }
  {
    std::fstream f(segment, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(pos + 20));
    f.put(static_cast<char>(data[pos + 20] ^ 0x10));
  }
  try {
    FlatKvStore::Open(root, Options(4));
    ADD_FAILURE() << "opened past a damaged changelog entry";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorruption);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("FlatKV changelog segment " + segment + " is damaged at byte " + std::to_string(pos)), std::string::npos) << msg;
    EXPECT_NE(msg.find("`stratad rollback --to-intact --home " + fs::absolute(dir.path()).lexically_normal().string() + "`"),
              std::string::npos)
        << msg;
  }
  FlatKvOptions repair = Options(4);
  repair.cut_damaged_changelog = true;
  {
    auto store = FlatKvStore::Open(root, repair);
    EXPECT_EQ(store->Version(), 6);
    EXPECT_EQ(Hex(store->CommittedHash()), Hex(twin->CommittedHash()));
    EXPECT_EQ(ExportMap(*store), ExportMap(*twin));
    Stage(*store, block(7));
    store->Commit(7);
    store->Close();
  }
  Stage(*twin, block(7));
  const std::string seven = twin->Commit(7);
  auto store = FlatKvStore::Open(root, Options(4));
  EXPECT_EQ(store->Version(), 7);
  EXPECT_EQ(Hex(store->CommittedHash()), Hex(seven));
}

TEST(FlatKvDurability, DamagedMetadataIsReportedAsCorruption) {
  TempDir dir;
  {
    auto store = FlatKvStore::Open(dir.path(), Options());
    store->Set(StorageKey(1, 1), "v");
    store->Commit(1);
    store->Close();
  }
  {
    // Overwrite the metadata record with a same-length record whose checksum is wrong.
    rocksdb::Options options;
    std::vector<std::string> names;
    ASSERT_TRUE(rocksdb::DB::ListColumnFamilies(options, dir.Sub("working"), &names).ok());
    std::vector<rocksdb::ColumnFamilyDescriptor> families;
    for (const auto& n : names) families.emplace_back(n, rocksdb::ColumnFamilyOptions());
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(options, dir.Sub("working"), families, &handles, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    std::string meta;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), "flatkv/meta", &meta).ok());
    meta[5] = static_cast<char>(meta[5] ^ 1);
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), "flatkv/meta", meta).ok());
    for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
    ASSERT_TRUE(db->Close().ok());
  }
  try {
    FlatKvStore::Open(dir.path(), Options());
    ADD_FAILURE() << "open accepted damaged metadata";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorruption);
    EXPECT_NE(std::string(e.what()).find("metadata"), std::string::npos) << e.what();
  }
}

// ---- kill -9 ---------------------------------------------------------------------------------

// The child side: set by the parent in the environment of a re-executed test binary.
constexpr char kCrashChildEnv[] = "STRATA_FLATKV_CRASH_CHILD";
constexpr int64_t kCrashSnapshotInterval = 3;

FlatKvOptions CrashOptions() {
  FlatKvOptions o = Options(kCrashSnapshotInterval, 1);
  o.changelog_segment_bytes = 64 << 10;  // segments roll, so pruning truncates the changelog
  return o;
}

// Commits deterministic blocks forever, reporting each committed version on the pipe.
[[noreturn]] void RunCrashChild(const std::string& spec) {
  size_t colon = spec.find(':');
  std::string dir = spec.substr(0, colon);
  int fd = std::stoi(spec.substr(colon + 1));
  try {
    auto store = FlatKvStore::Open(dir, CrashOptions());
    for (;;) {
      int64_t v = store->Version() + 1;
      Stage(*store, CrashBlock(v));
      store->Commit(v);
      if (::write(fd, &v, sizeof(v)) != static_cast<ssize_t>(sizeof(v))) _exit(4);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "crash child failed: %s\n", e.what());
    _exit(3);
  }
}

TEST(FlatKvCrash, KillNineAtRandomMomentsLosesNothingCommitted) {
  if (const char* spec = std::getenv(kCrashChildEnv)) RunCrashChild(spec);

  TempDir dir;
  std::mt19937_64 rng(20240607);
  int64_t last_reported = 0;
  int kills_during_commit_loop = 0;
  constexpr int kRounds = 24;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    // Everything the child needs is prepared before fork: between fork and exec only
    // async-signal-safe calls are allowed.
    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
    env_strings.push_back(std::string(kCrashChildEnv) + "=" + dir.path() + ":" + std::to_string(fds[1]));
    std::vector<char*> envp;
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string arg0 = "strata_core_tests";
    std::string filter = "--gtest_filter=FlatKvCrash.KillNineAtRandomMomentsLosesNothingCommitted";
    char* argv[] = {arg0.data(), filter.data(), nullptr};
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      int devnull = ::open("/dev/null", O_WRONLY);
      ::dup2(devnull, STDOUT_FILENO);
      ::execve("/proc/self/exe", argv, envp.data());
      _exit(5);
    }
    ::close(fds[1]);
    // Kill after a random number of reported commits (0: while the child is still opening
    // and replaying), plus a random delay into the next commit or snapshot.
    int wait_for = std::uniform_int_distribution<int>(0, 6)(rng);
    int seen = 0;
    int64_t v = 0;
    while (seen < wait_for && ::read(fds[0], &v, sizeof(v)) == static_cast<ssize_t>(sizeof(v))) {
      last_reported = std::max(last_reported, v);
      ++seen;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(std::uniform_int_distribution<int>(0, 4000)(rng)));
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child exited by itself, status " << status;
    if (seen == wait_for && wait_for > 0) ++kills_during_commit_loop;
    // Reports written before the kill count too: Commit had returned for them.
    while (::read(fds[0], &v, sizeof(v)) == static_cast<ssize_t>(sizeof(v))) last_reported = std::max(last_reported, v);
    ::close(fds[0]);

    auto store = FlatKvStore::Open(dir.path(), CrashOptions());
    EXPECT_TRUE(TmpEntries(dir.path()).empty());
    ASSERT_GE(store->Version(), last_reported);
    ASSERT_EQ(Hex(store->CommittedHash()), Hex(FromScratchHash(*store)));
    ReferenceModel model;
    for (int64_t version = 1; version <= store->Version(); ++version) model.Apply(version, CrashBlock(version));
    ASSERT_EQ(ExportMap(*store), model.rows());
    std::vector<int64_t> snapshots = store->SnapshotVersions();
    for (int64_t s : snapshots) EXPECT_EQ(s % kCrashSnapshotInterval, 0);
    ExpectSnapshotsVerify(dir.path(), snapshots);
    last_reported = store->Version();
    store->Close();
  }
  EXPECT_GE(kills_during_commit_loop, kRounds / 2);
  EXPECT_GT(last_reported, 20);
  // The store that survived all that still rolls back through its snapshot and changelog.
  auto store = FlatKvStore::Open(dir.path(), CrashOptions());
  std::vector<int64_t> snapshots = store->SnapshotVersions();
  ASSERT_FALSE(snapshots.empty());
  int64_t target = snapshots.front() + 1;
  store->Rollback(target);
  ReferenceModel model;
  for (int64_t version = 1; version <= target; ++version) model.Apply(version, CrashBlock(version));
  EXPECT_EQ(ExportMap(*store), model.rows());
  EXPECT_EQ(store->CommittedHash(), FromScratchHash(*store));
}

// ---- snapshots -------------------------------------------------------------------------------

TEST(FlatKvSnapshots, TakenAtTheIntervalAndPrunedToKeepRecent) {
  for (int keep_recent : {0, 1, 2}) {
    SCOPED_TRACE("keep_recent " + std::to_string(keep_recent));
    TempDir dir;
    auto store = FlatKvStore::Open(dir.path(), Options(5, keep_recent));
    std::vector<int64_t> expected;
    for (int64_t v = 1; v <= 23; ++v) {
      store->Set(StorageKey(1, static_cast<int>(v)), "v" + std::to_string(v));
      store->Commit(v);
      if (v % 5 == 0) {
        expected.push_back(v);
        if (expected.size() > static_cast<size_t>(1 + keep_recent)) expected.erase(expected.begin());
        EXPECT_EQ(store->SnapshotVersions(), expected) << "after version " << v;
      }
    }
    EXPECT_EQ(store->SnapshotVersions(), expected);
    ExpectSnapshotsVerify(dir.path(), expected);
    EXPECT_TRUE(TmpEntries(dir.path()).empty());
    // Each snapshot is the state at its version.
    auto manifest = flatkv::ReadSnapshotManifest((fs::path(dir.path()) / flatkv::SnapshotDirName(20)).string());
    EXPECT_EQ(manifest.version, 20);
    EXPECT_EQ(manifest.changelog_index, 20u);
  }
}

TEST(FlatKvSnapshots, IntervalZeroTakesNone) {
  TempDir dir;
  auto store = FlatKvStore::Open(dir.path(), Options(0));
  for (int64_t v = 1; v <= 12; ++v) store->Commit(v);
  EXPECT_TRUE(store->SnapshotVersions().empty());
}

TEST(FlatKvSnapshots, LeftoverTmpSnapshotIsRemovedOnOpenAndNeverListed) {
  TempDir dir;
  {
    auto store = FlatKvStore::Open(dir.path(), Options(5));
    for (int64_t v = 1; v <= 5; ++v) store->Commit(v);
    store->Close();
  }
  fs::create_directories(dir.Sub("snapshot-00000000000000000010-tmp"));
  fs::create_directories(dir.Sub("snapshot-00000000000000000010-tmp.tmp"));
  auto store = FlatKvStore::Open(dir.path(), Options(5));
  EXPECT_EQ(store->SnapshotVersions(), std::vector<int64_t>({5}));
  EXPECT_TRUE(TmpEntries(dir.path()).empty());
}

TEST(FlatKvSnapshots, CorruptSnapshotIsDetectedByRollbackAndNotLoaded) {
  TempDir dir;
  auto store = FlatKvStore::Open(dir.path(), Options(10, 5));
  std::mt19937_64 rng(5);
  for (int64_t v = 1; v <= 25; ++v) {
    Stage(*store, RandomBlock(rng, 30));
    store->Commit(v);
  }
  ASSERT_EQ(store->SnapshotVersions(), std::vector<int64_t>({10, 20}));
  const std::string snapshot = dir.Sub(flatkv::SnapshotDirName(20));
  const std::string sst = FirstSstIn(snapshot);
  ASSERT_FALSE(sst.empty());
  FlipByteInCopy(sst, fs::file_size(sst) / 2);
  const std::string hash_before = store->CommittedHash();
  try {
    store->Rollback(22);
    ADD_FAILURE() << "rollback loaded a corrupt snapshot";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorruption);
    std::string what = e.what();
    EXPECT_NE(what.find(flatkv::SnapshotDirName(20)), std::string::npos) << what;
    EXPECT_NE(what.find(fs::path(sst).filename().string()), std::string::npos) << what;
    EXPECT_NE(what.find("delete that snapshot directory"), std::string::npos) << what;
  }
  // Nothing changed.
  EXPECT_EQ(store->Version(), 25);
  EXPECT_EQ(store->CommittedHash(), hash_before);
  EXPECT_FALSE(fs::exists(dir.Sub("rollback-tmp")));

  // A missing file is caught the same way; the intact older snapshot still works.
  fs::remove(sst);
  EXPECT_STRATA_ERROR(store->Rollback(21), ErrorCode::kCorruption);
  store->Rollback(15);
  EXPECT_EQ(store->Version(), 15);
  EXPECT_EQ(store->CommittedHash(), FromScratchHash(*store));
}

TEST(FlatKvSnapshots, MissingChecksumsFileIsCorruption) {
  TempDir dir;
  auto store = FlatKvStore::Open(dir.path(), Options(4, 3));
  for (int64_t v = 1; v <= 9; ++v) {
    store->Set(StorageKey(1, 1), "v" + std::to_string(v));
    store->Commit(v);
  }
  ASSERT_EQ(store->SnapshotVersions(), std::vector<int64_t>({4, 8}));
  fs::remove(fs::path(dir.Sub(flatkv::SnapshotDirName(8))) / "CHECKSUMS");
  EXPECT_STRATA_ERROR(store->Rollback(8), ErrorCode::kCorruption);
  EXPECT_EQ(store->Version(), 9);
}

// ---- rollback --------------------------------------------------------------------------------

TEST(FlatKvRollback, ToSeveralTargetsThenCommitAgain) {
  TempDir dir;
  auto store = FlatKvStore::Open(dir.path(), Options(10, 5));
  std::mt19937_64 rng(21);
  std::vector<std::vector<Op>> blocks(1);
  std::map<int64_t, std::string> hashes = {{0, EmptyHash()}};
  for (int64_t v = 1; v <= 35; ++v) {
    blocks.push_back(RandomBlock(rng, 40));
    Stage(*store, blocks.back());
    hashes[v] = store->Commit(v);
  }
  auto model_at = [&](int64_t version) {
    ReferenceModel model;
    for (int64_t v = 1; v <= version; ++v) model.Apply(v, blocks[static_cast<size_t>(v)]);
    return model.rows();
  };
  ASSERT_EQ(store->SnapshotVersions(), std::vector<int64_t>({10, 20, 30}));

  // From a snapshot plus changelog entries above it.
  store->Set(StorageKey(200, 7), "staged changes are discarded");
  store->Rollback(33);
  EXPECT_EQ(store->Version(), 33);
  EXPECT_EQ(store->CommittedHash(), hashes[33]);
  EXPECT_EQ(ExportMap(*store), model_at(33));
  EXPECT_EQ(store->Get(StorageKey(200, 7)), std::nullopt);

  // Exactly at a snapshot; later snapshots go.
  store->Rollback(20);
  EXPECT_EQ(store->CommittedHash(), hashes[20]);
  EXPECT_EQ(ExportMap(*store), model_at(20));
  EXPECT_EQ(store->SnapshotVersions(), std::vector<int64_t>({10, 20}));

  // Committing again after a rollback diverges from the old history; the result survives a
  // reopen, which proves the discarded changelog entries are really gone.
  blocks.resize(21);
  for (int64_t v = 21; v <= 24; ++v) {
    blocks.push_back({{StorageKey(3, static_cast<int>(v)), "new history " + std::to_string(v)}});
    Stage(*store, blocks.back());
    hashes[v] = store->Commit(v);
    EXPECT_EQ(hashes[v], FromScratchHash(*store));
  }
  EXPECT_EQ(ExportMap(*store), model_at(24));
  store->Close();
  store = FlatKvStore::Open(dir.path(), Options(10, 5));
  EXPECT_EQ(store->Version(), 24);
  EXPECT_EQ(store->CommittedHash(), hashes[24]);
  EXPECT_EQ(ExportMap(*store), model_at(24));

  // Below every snapshot: the changelog still reaches back to version 1.
  store->Rollback(4);
  EXPECT_EQ(store->CommittedHash(), hashes[4]);
  EXPECT_EQ(ExportMap(*store), model_at(4));
  EXPECT_TRUE(store->SnapshotVersions().empty());
  store->Rollback(0);
  EXPECT_EQ(store->Version(), 0);
  EXPECT_EQ(store->CommittedHash(), EmptyHash());
  EXPECT_TRUE(ExportMap(*store).empty());
  store->Set(NonceKey(1), Be64(1));
  std::string committed = store->Commit(1);
  EXPECT_EQ(committed, FromScratchHash(*store));
}

TEST(FlatKvRollback, WithoutSnapshotsReplaysFromTheStart) {
  TempDir dir;
  auto store = FlatKvStore::Open(dir.path(), Options(0));
  std::mt19937_64 rng(8);
  std::vector<std::vector<Op>> blocks(1);
  std::map<int64_t, std::string> hashes;
  for (int64_t v = 1; v <= 12; ++v) {
    blocks.push_back(RandomBlock(rng, 40));
    Stage(*store, blocks.back());
    hashes[v] = store->Commit(v);
  }
  store->Rollback(7);
  EXPECT_EQ(store->Version(), 7);
  EXPECT_EQ(store->CommittedHash(), hashes[7]);
  ReferenceModel model;
  for (int64_t v = 1; v <= 7; ++v) model.Apply(v, blocks[static_cast<size_t>(v)]);
  EXPECT_EQ(ExportMap(*store), model.rows());
  // Rolling back to the latest version changes nothing.
  store->Rollback(7);
  EXPECT_EQ(store->CommittedHash(), hashes[7]);
}

TEST(FlatKvRollback, TargetWithoutItsOwnBlockTakesTheStateBelowIt) {
  TempDir dir;
  auto store = FlatKvStore::Open(dir.path(), Options(0));
  store->Set(StorageKey(1, 1), "at 10");
  std::string at10 = store->Commit(10);
  store->Set(StorageKey(1, 1), "at 20");
  store->Commit(20);
  store->Rollback(15);
  EXPECT_EQ(store->Version(), 15);
  EXPECT_EQ(store->CommittedHash(), at10);
  EXPECT_EQ(store->Get(StorageKey(1, 1)), "at 10");
  EXPECT_STRATA_ERROR(store->Commit(15), ErrorCode::kInvalidArgument);
  store->Commit(16);
  EXPECT_EQ(store->Version(), 16);
}

TEST(FlatKvRollback, UnreachableTargetsAreRejectedNamingTheOldest) {
  TempDir dir;
  FlatKvOptions o = Options(5, 0);
  o.changelog_segment_bytes = 1;  // one entry per segment, so pruning drops old entries
  auto store = FlatKvStore::Open(dir.path(), o);
  for (int64_t v = 1; v <= 17; ++v) {
    store->Set(StorageKey(1, 1), "v" + std::to_string(v));
    store->Commit(v);
  }
  ASSERT_EQ(store->SnapshotVersions(), std::vector<int64_t>({15}));
  const std::string hash = store->CommittedHash();
  store->Set(StorageKey(200, 1), "staged");
  EXPECT_STRATA_ERROR(store->Rollback(18), ErrorCode::kInvalidArgument);
  EXPECT_STRATA_ERROR(store->Rollback(-1), ErrorCode::kInvalidArgument);
  try {
    store->Rollback(14);
    ADD_FAILURE() << "rolled back below the oldest snapshot";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("oldest is 15"), std::string::npos) << e.what();
  }
  EXPECT_EQ(store->Version(), 17);
  EXPECT_EQ(store->CommittedHash(), hash);
  // A rejected rollback leaves the staged changes alone.
  EXPECT_EQ(store->Get(StorageKey(200, 1)), "staged");
  store->Rollback(16);
  EXPECT_EQ(store->Get(StorageKey(1, 1)), "v16");
}

// ---- interrupted rollback --------------------------------------------------------------------

class FlatKvInterruptedRollback : public ::testing::Test {
 protected:
  // `store_dir` at version 10 (snapshots at 4 and 8) and, beside it, the working DB the
  // same store has after Rollback(6): what a rollback had built when it was interrupted.
  void SetUp() override {
    {
      auto store = FlatKvStore::Open(store_dir.path(), Options(4, 5));
      for (int64_t v = 1; v <= 10; ++v) {
        store->Set(StorageKey(1, static_cast<int>(v)), "v" + std::to_string(v));
        hashes[v] = store->Commit(v);
      }
      store->Close();
    }
    fs::copy(store_dir.path(), copy_dir.path(), fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    auto copy = FlatKvStore::Open(copy_dir.path(), Options(4, 5));
    copy->Rollback(6);
    copy->Close();
    fs::copy(copy_dir.Sub("working"), store_dir.Sub("rollback-ready"), fs::copy_options::recursive);
  }

  void ExpectRolledBack() {
    auto store = FlatKvStore::Open(store_dir.path(), Options(4, 5));
    EXPECT_EQ(store->Version(), 6);
    EXPECT_EQ(store->CommittedHash(), hashes[6]);
    EXPECT_EQ(store->SnapshotVersions(), std::vector<int64_t>({4}));
    EXPECT_EQ(store->Get(StorageKey(1, 7)), std::nullopt);
    EXPECT_FALSE(fs::exists(store_dir.Sub("rollback-ready")));
    EXPECT_TRUE(TmpEntries(store_dir.path()).empty());
    store->Close();
    // The changelog was cut too: a second open does not replay versions 7..10.
    store = FlatKvStore::Open(store_dir.path(), Options(4, 5));
    EXPECT_EQ(store->Version(), 6);
    store->Set(StorageKey(2, 2), "x");
    std::string committed = store->Commit(7);
    EXPECT_EQ(committed, FromScratchHash(*store));
  }

  TempDir store_dir, copy_dir;
  std::map<int64_t, std::string> hashes;
};

TEST_F(FlatKvInterruptedRollback, ReadyDirectoryBesideOldWorkingIsFinished) { ExpectRolledBack(); }

TEST_F(FlatKvInterruptedRollback, ReadyDirectoryAfterWorkingWasMovedAsideIsFinished) {
  fs::rename(store_dir.Sub("working"), store_dir.Sub("working-old-tmp"));
  ExpectRolledBack();
}

TEST_F(FlatKvInterruptedRollback, ChangelogAlreadyCutIsFinished) {
  // Interrupted after truncating the changelog and deleting the later snapshot.
  Changelog(store_dir.Sub("changelog")).TruncateAfter(6);
  fs::remove_all(store_dir.Sub(flatkv::SnapshotDirName(8)));
  ExpectRolledBack();
}

TEST_F(FlatKvInterruptedRollback, UnfinishedBuildIsDiscarded) {
  fs::rename(store_dir.Sub("rollback-ready"), store_dir.Sub("rollback-tmp"));
  auto store = FlatKvStore::Open(store_dir.path(), Options(4, 5));
  EXPECT_EQ(store->Version(), 10);
  EXPECT_EQ(store->CommittedHash(), hashes[10]);
  EXPECT_EQ(store->SnapshotVersions(), std::vector<int64_t>({4, 8}));
  EXPECT_FALSE(fs::exists(store_dir.Sub("rollback-tmp")));
}

TEST_F(FlatKvInterruptedRollback, ReadOnlyOpenRefusesUntilFinished) {
  FlatKvOptions o = Options(4, 5);
  o.read_only = true;
  EXPECT_STRATA_ERROR(FlatKvStore::Open(store_dir.path(), o), ErrorCode::kInvalidArgument);
}

// ---- export / import -------------------------------------------------------------------------

// A store with rows in every family at version 30.
std::unique_ptr<FlatKvStore> PopulatedStore(const std::string& dir) {
  auto store = FlatKvStore::Open(dir, Options(0));
  std::mt19937_64 rng(99);
  for (int64_t v = 1; v <= 30; ++v) {
    Stage(*store, RandomBlock(rng, 60));
    store->Commit(v);
  }
  return store;
}

flatkv::RowSource SourceOf(const std::vector<std::pair<std::string, std::string>>& rows) {
  auto pos = std::make_shared<size_t>(0);
  return [&rows, pos](std::string* k, std::string* v) {
    if (*pos == rows.size()) return false;
    *k = rows[*pos].first;
    *v = rows[*pos].second;
    ++*pos;
    return true;
  };
}

TEST(FlatKvImport, ExportImportRoundTripKeepsHashAndRows) {
  TempDir source_dir, target_dir;
  auto source = PopulatedStore(source_dir.path());
  auto rows = ExportList(*source);
  std::set<flatkv::RowFamily> families;
  for (const auto& row : rows) families.insert(flatkv::FamilyOfPhysicalKey(row.first));
  ASSERT_EQ(families.size(), 4u) << "the fixture should cover every family";
  // Export order: families in order, keys ascending within each.
  for (size_t i = 1; i < rows.size(); ++i) {
    auto a = flatkv::FamilyOfPhysicalKey(rows[i - 1].first), b = flatkv::FamilyOfPhysicalKey(rows[i].first);
    ASSERT_TRUE(a < b || (a == b && rows[i - 1].first < rows[i].first)) << i;
  }

  FlatKvStore::ImportRows(target_dir.Sub("imported"), 30, Options(0), SourceOf(rows));
  auto imported = FlatKvStore::Open(target_dir.Sub("imported"), Options(0));
  EXPECT_EQ(imported->Version(), 30);
  EXPECT_EQ(Hex(imported->CommittedHash()), Hex(source->CommittedHash()));
  EXPECT_EQ(ExportList(*imported), rows);
  EXPECT_EQ(imported->SnapshotVersions(), std::vector<int64_t>({30}));
  ExpectSnapshotsVerify(target_dir.Sub("imported"), {30});

  // Both continue identically.
  for (auto* store : {source.get(), imported.get()}) {
    store->Set(NonceKey(3), Be64(77));
    store->Delete(StorageKey(1, 1));
  }
  EXPECT_EQ(imported->Commit(31), source->Commit(31));
  EXPECT_EQ(ExportMap(*imported), ExportMap(*source));

  // The import version is the floor for rollback.
  imported->Rollback(30);
  EXPECT_EQ(Hex(imported->CommittedHash()), Hex(FromScratchHash(*imported)));
  EXPECT_EQ(ExportList(*imported), rows);
  EXPECT_STRATA_ERROR(imported->Rollback(29), ErrorCode::kInvalidArgument);
}

TEST(FlatKvImport, EmptyExportImportsAnEmptyStore) {
  TempDir dir;
  std::vector<std::pair<std::string, std::string>> none;
  FlatKvStore::ImportRows(dir.path(), 5, Options(0), SourceOf(none));
  auto store = FlatKvStore::Open(dir.path(), Options(0));
  EXPECT_EQ(store->Version(), 5);
  EXPECT_EQ(store->CommittedHash(), EmptyHash());
}

TEST(FlatKvImport, NonEmptyDirectoryIsRejected) {
  TempDir source_dir, target_dir;
  auto source = PopulatedStore(source_dir.path());
  auto rows = ExportList(*source);
  source->Close();
  EXPECT_STRATA_ERROR(FlatKvStore::ImportRows(source_dir.path(), 30, Options(0), SourceOf(rows)),
                      ErrorCode::kInvalidArgument);
  fs::create_directories(target_dir.Sub("store"));
  std::ofstream(target_dir.Sub("store/unrelated.txt")) << "x";
  EXPECT_STRATA_ERROR(FlatKvStore::ImportRows(target_dir.Sub("store"), 30, Options(0), SourceOf(rows)),
                      ErrorCode::kInvalidArgument);
  // The source store is untouched.
  auto reopened = FlatKvStore::Open(source_dir.path(), Options(0));
  EXPECT_EQ(ExportList(*reopened), rows);
}

TEST(FlatKvImport, RowsOutOfOrderOrMalformedAreRejectedAndLeaveNothing) {
  TempDir source_dir, target_dir;
  auto source = PopulatedStore(source_dir.path());
  auto rows = ExportList(*source);
  auto swapped = rows;
  std::swap(swapped[0], swapped[1]);  // two account rows
  ASSERT_EQ(flatkv::FamilyOfPhysicalKey(swapped[0].first), flatkv::RowFamily::kAccount);
  ASSERT_EQ(flatkv::FamilyOfPhysicalKey(swapped[1].first), flatkv::RowFamily::kAccount);
  EXPECT_STRATA_ERROR(FlatKvStore::ImportRows(target_dir.Sub("a"), 30, Options(0), SourceOf(swapped)),
                      ErrorCode::kInvalidArgument);
  auto bad_account = rows;
  bad_account[0].second.pop_back();
  EXPECT_STRATA_ERROR(FlatKvStore::ImportRows(target_dir.Sub("b"), 30, Options(0), SourceOf(bad_account)),
                      ErrorCode::kInvalidArgument);
  auto no_module = rows;
  no_module.push_back({"nomodule", "\x00"s + Be64(1)});
  EXPECT_STRATA_ERROR(FlatKvStore::ImportRows(target_dir.Sub("c"), 30, Options(0), SourceOf(no_module)),
                      ErrorCode::kInvalidArgument);
  for (const char* name : {"a", "b", "c"}) {
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(target_dir.Sub(name))) left.push_back(e.path().filename().string());
    EXPECT_EQ(left, std::vector<std::string>({"LOCK"})) << name;
  }
  // A failed import leaves the directory importable.
  FlatKvStore::ImportRows(target_dir.Sub("a"), 30, Options(0), SourceOf(rows));
  EXPECT_EQ(FlatKvStore::Open(target_dir.Sub("a"), Options(0))->CommittedHash(), source->CommittedHash());
}

TEST(FlatKvImport, InterruptedImportIsFinishedOnOpen) {
  TempDir source_dir, done_dir, cut_dir;
  auto source = PopulatedStore(source_dir.path());
  auto rows = ExportList(*source);
  FlatKvStore::ImportRows(done_dir.path(), 30, Options(0), SourceOf(rows));
  // Rebuild the moment after the commit-point rename when the snapshot had been moved into
  // place but the changelog and working DB had not.
  fs::create_directories(cut_dir.Sub("import-ready"));
  fs::copy(done_dir.Sub("working"), cut_dir.Sub("import-ready/working"), fs::copy_options::recursive);
  fs::copy(done_dir.Sub("changelog"), cut_dir.Sub("import-ready/changelog"), fs::copy_options::recursive);
  fs::copy(done_dir.Sub(flatkv::SnapshotDirName(30)), cut_dir.Sub(flatkv::SnapshotDirName(30)),
           fs::copy_options::recursive);
  auto store = FlatKvStore::Open(cut_dir.path(), Options(0));
  EXPECT_EQ(store->Version(), 30);
  EXPECT_EQ(store->CommittedHash(), source->CommittedHash());
  EXPECT_EQ(store->SnapshotVersions(), std::vector<int64_t>({30}));
  EXPECT_FALSE(fs::exists(cut_dir.Sub("import-ready")));

  // An import that never reached its commit point is discarded; the directory stays importable.
  TempDir tmp_dir;
  fs::create_directories(tmp_dir.Sub("import-tmp/working"));
  FlatKvStore::ImportRows(tmp_dir.path(), 30, Options(0), SourceOf(rows));
  EXPECT_EQ(FlatKvStore::Open(tmp_dir.path(), Options(0))->CommittedHash(), source->CommittedHash());
}

}  // namespace
}  // namespace strata::sc
