#include "strata/mvcc_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <functional>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "changelog.h"
#include "encoding.h"
#include "layout_engine.h"
#include "strata/changelog_entry.h"
#include "test_util.h"

namespace strata {

// Lets gtest name the layout parameter in failure messages.
void PrintTo(Layout layout, std::ostream* os) { *os << LayoutName(layout); }

namespace {

using namespace std::string_literals;
namespace fs = std::filesystem;
using Rows = std::vector<std::pair<std::string, std::string>>;
using std::nullopt;

// ---- helpers ---------------------------------------------------------------------------------

KVPair Put(std::string key, std::string value) { return {std::move(key), std::move(value)}; }
KVPair Del(std::string key) { return {std::move(key), nullopt}; }
std::vector<NamedChangeset> In(std::string store, std::vector<KVPair> pairs) {
  return {{std::move(store), std::move(pairs)}};
}

Rows ReadAll(MvccIterator& it) {
  Rows rows;
  for (; it.Valid(); it.Next()) rows.emplace_back(std::string(it.key()), std::string(it.value()));
  return rows;
}

std::vector<RawEntry> DrainRaw(RawIterator& it) {
  std::vector<RawEntry> out;
  RawEntry e;
  while (it.Next(&e)) out.push_back(e);
  return out;
}

using RawTuple = std::tuple<std::string, std::string, std::string, uint64_t>;

std::vector<RawTuple> Sorted(const std::vector<RawEntry>& entries) {
  std::vector<RawTuple> out;
  for (const auto& e : entries) out.emplace_back(e.store, e.key, e.value, e.version);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<RawTuple> NewRawEntries(MvccStore& store) { return Sorted(DrainRaw(*store.NewRawIterator())); }

std::optional<std::string> Some(std::string v) { return v; }

/// Calls `submit` with a completion callback and waits for it. Returns the error code the write
/// ended with, whether thrown at once or reported to the callback; nullopt for success.
std::optional<ErrorCode> SubmitAndWait(const std::function<void(WriteCallback)>& submit) {
  auto result = std::make_shared<std::promise<std::optional<ErrorCode>>>();
  auto future = result->get_future();
  auto thrown = test::ErrorCodeOf([&] {
    submit([result](const Error* e) {
      result->set_value(e ? std::optional<ErrorCode>(e->code()) : std::nullopt);
    });
  });
  if (thrown) return thrown;
  return future.get();
}

class StoreTest : public testing::TestWithParam<Layout> {
 protected:
  StoreOptions Options(int async_write_buffer = 100) const {
    StoreOptions o;
    o.layout = GetParam();
    o.async_write_buffer = async_write_buffer;
    o.block_cache_bytes = 8 << 20;
    return o;
  }

  std::unique_ptr<MvccStore> Open(int async_write_buffer = 100) {
    return MvccStore::Open(dir_.path(), Options(async_write_buffer));
  }

  std::unique_ptr<MvccStore> OpenWith(const std::function<void(StoreOptions&)>& tweak) {
    StoreOptions options = Options();
    tweak(options);
    return MvccStore::Open(dir_.path(), options);
  }

  /// Simulates a crash between logging and applying: the entries are appended to the closed
  /// store's changelog but never reach its DB.
  void LogWithoutApplying(const std::vector<std::pair<uint64_t, std::vector<NamedChangeset>>>& entries) {
    Changelog log((fs::path(dir_.path()) / "changelog").string());
    for (const auto& [version, changesets] : entries) log.Append(EncodeChangelogEntry(version, changesets));
  }

  /// Closes `store` and opens the same directory again.
  void Reopen(std::unique_ptr<MvccStore>& store) {
    store->Close();
    store.reset();
    store = Open();
  }

  Rows Scan(MvccStore& store, uint64_t version, std::optional<std::string_view> start = nullopt,
            std::optional<std::string_view> end = nullopt, bool reverse = false, std::string_view name = "bank") {
    auto it = store.NewIterator(name, version, start, end, reverse);
    return ReadAll(*it);
  }

  bool pebble() const { return GetParam() == Layout::kPebble; }

  test::TempDir dir_;
};

std::string LayoutParamName(const testing::TestParamInfo<Layout>& info) {
  return info.param == Layout::kPebble ? "Pebble" : "Rocksdb";
}

// ---- point reads -------------------------------------------------------------------------------

TEST_P(StoreTest, GetReturnsNewestVersionAtOrBelow) {
  auto store = Open();
  store->Apply(1, In("bank", {Put("a", "a1")}));
  store->Apply(3, In("bank", {Put("a", "a3")}));
  store->Apply(5, In("bank", {Put("a", "a5")}));
  EXPECT_EQ(store->Get("bank", 1, "a"), Some("a1"));
  EXPECT_EQ(store->Get("bank", 2, "a"), Some("a1"));
  EXPECT_EQ(store->Get("bank", 3, "a"), Some("a3"));
  EXPECT_EQ(store->Get("bank", 4, "a"), Some("a3"));
  EXPECT_EQ(store->Get("bank", 5, "a"), Some("a5"));
  EXPECT_EQ(store->Get("bank", 1000, "a"), Some("a5"));
  EXPECT_EQ(store->Get("bank", UINT64_MAX, "a"), Some("a5"));
  EXPECT_EQ(store->Get("bank", 5, "b"), nullopt);
  EXPECT_EQ(store->LatestVersion(), 5u);
}

// Nothing is ever stored at version 0 (it is written as 1), so a read at 0 has nothing at or
// below it to return.
TEST_P(StoreTest, GetAtVersionZeroSeesNothing) {
  auto store = Open();
  store->Apply(1, In("bank", {Put("a", "a1")}));
  store->Apply(2, In("bank", {Put("a", "a2")}));
  EXPECT_EQ(store->Get("bank", 0, "a"), nullopt);
  EXPECT_FALSE(store->Has("bank", 0, "a"));
  std::vector<std::optional<std::string>> out;
  store->GetMany("bank", 0, {"a", "a"}, &out);
  EXPECT_EQ(out, (std::vector<std::optional<std::string>>{nullopt, nullopt}));
}

TEST_P(StoreTest, IteratorAtVersionZeroSeesNothing) {
  auto store = Open();
  store->Apply(1, In("bank", {Put("a", "a1"), Put("b", "b1")}));
  store->Apply(2, In("bank", {Put("a", "a2")}));
  EXPECT_EQ(Scan(*store, 0), Rows{});
  EXPECT_EQ(Scan(*store, 0, nullopt, nullopt, /*reverse=*/true), Rows{});
  EXPECT_EQ(Scan(*store, 0, "a", "c"), Rows{});
}

TEST_P(StoreTest, DeleteHidesOlderValuesUntilSetAgain) {
  auto store = Open();
  store->Apply(1, In("bank", {Put("a", "first")}));
  store->Apply(2, In("bank", {Del("a")}));
  store->Apply(4, In("bank", {Put("a", "again")}));
  EXPECT_EQ(store->Get("bank", 1, "a"), Some("first"));
  EXPECT_EQ(store->Get("bank", 2, "a"), nullopt);
  EXPECT_EQ(store->Get("bank", 3, "a"), nullopt);
  EXPECT_FALSE(store->Has("bank", 3, "a"));
  EXPECT_EQ(store->Get("bank", 4, "a"), Some("again"));
  EXPECT_TRUE(store->Has("bank", 4, "a"));
  EXPECT_TRUE(store->Has("bank", 1, "a"));
}

TEST_P(StoreTest, DeletingAnAbsentKeyIsHarmless) {
  auto store = Open();
  store->Apply(1, In("bank", {Del("ghost")}));
  EXPECT_EQ(store->Get("bank", 1, "ghost"), nullopt);
  EXPECT_EQ(Scan(*store, 1), Rows{});
  EXPECT_EQ(store->LatestVersion(), 1u);
}

TEST_P(StoreTest, EmptyAndBinaryValuesRoundTrip) {
  auto store = Open();
  const std::string binary = "\x00\x09TOMBSTONE\x00\xff"s;
  store->Apply(1, In("bank", {Put("empty", ""), Put("bin", binary)}));
  EXPECT_EQ(store->Get("bank", 1, "empty"), Some(""));
  EXPECT_TRUE(store->Has("bank", 1, "empty"));
  EXPECT_EQ(store->Get("bank", 1, "bin"), Some(binary));
}

TEST_P(StoreTest, VersionZeroIsStoredAsOne) {
  auto store = Open();
  store->Apply(0, In("bank", {Put("genesis", "g")}));
  EXPECT_EQ(store->LatestVersion(), 1u);
  EXPECT_EQ(store->Get("bank", 1, "genesis"), Some("g"));
  auto raw = NewRawEntries(*store);
  ASSERT_EQ(raw.size(), 1u);
  EXPECT_EQ(std::get<3>(raw[0]), 1u);
}

TEST_P(StoreTest, GetBelowEarliestVersionReturnsNothing) {
  auto store = Open();
  for (uint64_t v = 1; v <= 5; ++v) store->Apply(v, In("bank", {Put("a", "a" + std::to_string(v))}));
  store->SetEarliestVersion(3);
  EXPECT_EQ(store->EarliestVersion(), 3u);
  EXPECT_EQ(store->Get("bank", 2, "a"), nullopt);
  EXPECT_FALSE(store->Has("bank", 2, "a"));
  std::vector<std::optional<std::string>> out;
  store->GetMany("bank", 2, {"a", "b"}, &out);
  EXPECT_EQ(out, (std::vector<std::optional<std::string>>{nullopt, nullopt}));
  EXPECT_EQ(store->Get("bank", 3, "a"), Some("a3"));
}

TEST_P(StoreTest, GetManyMixesPresentAbsentAndDeletedKeys) {
  auto store = Open();
  store->Apply(1, {{"bank", {Put("a", "1"), Put("b", "2"), Put("c", "3")}}, {"other", {Put("x", "9")}}});
  store->Apply(2, In("bank", {Del("b"), Put("c", "33")}));
  std::vector<std::optional<std::string>> out(7, Some("stale"));  // wrong size and content
  store->GetMany("bank", 2, {"a", "b", "c", "x", "missing", "a"}, &out);
  EXPECT_EQ(out, (std::vector<std::optional<std::string>>{Some("1"), nullopt, Some("33"), nullopt, nullopt,
                                                          Some("1")}));
  store->GetMany("bank", 1, {"b", "c"}, &out);
  EXPECT_EQ(out, (std::vector<std::optional<std::string>>{Some("2"), Some("3")}));
  store->GetMany("bank", 2, {}, &out);
  EXPECT_TRUE(out.empty());
}

// Read is the zero-copy form behind Get and GetMany: only keys with a value reach the sink.
TEST_P(StoreTest, ReadReportsFoundKeysByIndex) {
  auto store = Open();
  store->Apply(1, In("bank", {Put("a", "1"), Put("b", "2"), Put("c", "")}));
  store->Apply(2, In("bank", {Del("b")}));
  struct Recorder : ValueSink {
    std::vector<std::pair<size_t, std::string>> found;
    void Found(size_t index, std::string_view value) override { found.emplace_back(index, value); }
  };
  const std::vector<std::string_view> keys = {"missing", "a", "b", "c", "a"};
  Recorder at2, at1, below_floor;
  store->Read("bank", 2, keys.data(), keys.size(), at2);
  EXPECT_EQ(at2.found, (std::vector<std::pair<size_t, std::string>>{{1, "1"}, {3, ""}, {4, "1"}}));
  store->Read("bank", 1, keys.data(), keys.size(), at1);
  EXPECT_EQ(at1.found, (std::vector<std::pair<size_t, std::string>>{{1, "1"}, {2, "2"}, {3, ""}, {4, "1"}}));
  store->SetEarliestVersion(2);
  store->Read("bank", 1, keys.data(), keys.size(), below_floor);
  EXPECT_TRUE(below_floor.found.empty());
  Recorder none;
  store->Read("bank", 2, keys.data(), 0, none);
  EXPECT_TRUE(none.found.empty());
  EXPECT_STRATA_ERROR(store->Read("", 2, keys.data(), 1, none), ErrorCode::kInvalidArgument);
}

// Keys that are prefixes of each other, in one store and across stores whose names are
// prefixes of each other, must stay apart for point reads and iteration.
TEST_P(StoreTest, PrefixRelatedKeysAndStoresDoNotLeak) {
  auto store = Open();
  store->Apply(1, {{"bank", {Put("a", "bank:a@1"), Put("a\x00"s, "bank:a0@1"), Put("ab", "bank:ab@1")}},
                   {"bank2", {Put("a", "bank2:a@1")}}});
  store->Apply(2, {{"bank", {Put("a\xff"s, "bank:aff@2"), Del("a\x00"s)}}, {"bank2", {Put("b", "bank2:b@2")}}});
  store->Apply(3, In("bank", {Put("a", "bank:a@3")}));

  EXPECT_EQ(store->Get("bank", 3, "a"), Some("bank:a@3"));
  EXPECT_EQ(store->Get("bank", 1, "a\x00"s), Some("bank:a0@1"));
  EXPECT_EQ(store->Get("bank", 3, "a\x00"s), nullopt);
  EXPECT_EQ(store->Get("bank", 3, "ab"), Some("bank:ab@1"));
  EXPECT_EQ(store->Get("bank", 3, "a\xff"s), Some("bank:aff@2"));
  EXPECT_EQ(store->Get("bank", 1, "a\xff"s), nullopt);
  EXPECT_EQ(store->Get("bank", 3, "b"), nullopt);
  EXPECT_EQ(store->Get("bank2", 3, "a"), Some("bank2:a@1"));
  EXPECT_EQ(store->Get("bank2", 3, "ab"), nullopt);
  EXPECT_EQ(store->Get("ban", 3, "k/a"), nullopt);
  EXPECT_EQ(store->Get("bank", 3, "2/a"), nullopt);

  EXPECT_EQ(Scan(*store, 3), (Rows{{"a", "bank:a@3"}, {"ab", "bank:ab@1"}, {"a\xff"s, "bank:aff@2"}}));
  EXPECT_EQ(Scan(*store, 1), (Rows{{"a", "bank:a@1"}, {"a\x00"s, "bank:a0@1"}, {"ab", "bank:ab@1"}}));
  EXPECT_EQ(Scan(*store, 3, nullopt, nullopt, true, "bank2"), (Rows{{"b", "bank2:b@2"}, {"a", "bank2:a@1"}}));
  EXPECT_EQ(Scan(*store, 3, nullopt, nullopt, false, "ban"), Rows{});
}

// ---- iterators ---------------------------------------------------------------------------------

class IteratorTest : public StoreTest {
 protected:
  // a..f with history: b deleted at 3, d set at 2 and changed at 4, f only at 4.
  void SetUp() override {
    store_ = Open();
    store_->Apply(1, In("bank", {Put("a", "a1"), Put("b", "b1"), Put("c", "c1"), Put("e", "e1")}));
    store_->Apply(2, In("bank", {Put("d", "d2")}));
    store_->Apply(3, In("bank", {Del("b")}));
    store_->Apply(4, In("bank", {Put("d", "d4"), Put("f", "f4")}));
    store_->Apply(5, {{"bank2", {Put("a", "other")}}, {"ban", {Put("zzz", "other")}}});
  }
  std::unique_ptr<MvccStore> store_;
};

TEST_P(IteratorTest, ForwardOverHalfOpenRange) {
  EXPECT_EQ(Scan(*store_, 4, "b", "e"), (Rows{{"c", "c1"}, {"d", "d4"}}));
  EXPECT_EQ(Scan(*store_, 2, "b", "e"), (Rows{{"b", "b1"}, {"c", "c1"}, {"d", "d2"}}));
  EXPECT_EQ(Scan(*store_, 1, "b", "e"), (Rows{{"b", "b1"}, {"c", "c1"}}));
}

TEST_P(IteratorTest, ReverseOverHalfOpenRange) {
  EXPECT_EQ(Scan(*store_, 4, "b", "e", true), (Rows{{"d", "d4"}, {"c", "c1"}}));
  EXPECT_EQ(Scan(*store_, 2, "b", "e", true), (Rows{{"d", "d2"}, {"c", "c1"}, {"b", "b1"}}));
}

TEST_P(IteratorTest, UnboundedEnds) {
  const Rows all_at_5 = {{"a", "a1"}, {"c", "c1"}, {"d", "d4"}, {"e", "e1"}, {"f", "f4"}};
  EXPECT_EQ(Scan(*store_, 5), all_at_5);
  Rows reversed(all_at_5.rbegin(), all_at_5.rend());
  EXPECT_EQ(Scan(*store_, 5, nullopt, nullopt, true), reversed);
  EXPECT_EQ(Scan(*store_, 5, "d", nullopt), (Rows{{"d", "d4"}, {"e", "e1"}, {"f", "f4"}}));
  EXPECT_EQ(Scan(*store_, 5, nullopt, "c"), (Rows{{"a", "a1"}}));
  EXPECT_EQ(Scan(*store_, 5, "d", nullopt, true), (Rows{{"f", "f4"}, {"e", "e1"}, {"d", "d4"}}));
  EXPECT_EQ(Scan(*store_, 5, nullopt, "c", true), (Rows{{"a", "a1"}}));
}

TEST_P(IteratorTest, BoundsBetweenKeysAndOutsideTheData) {
  EXPECT_EQ(Scan(*store_, 5, "bb", "dd"), (Rows{{"c", "c1"}, {"d", "d4"}}));
  EXPECT_EQ(Scan(*store_, 5, "bb", "dd", true), (Rows{{"d", "d4"}, {"c", "c1"}}));
  EXPECT_EQ(Scan(*store_, 5, "g", "z"), Rows{});
  EXPECT_EQ(Scan(*store_, 5, "0", "a"), Rows{});
  EXPECT_EQ(Scan(*store_, 5, "c", "c"), Rows{});
  EXPECT_EQ(Scan(*store_, 5, "c", "c", true), Rows{});
  EXPECT_EQ(Scan(*store_, 5, "c", "c\x00"s), (Rows{{"c", "c1"}}));
}

// Next on an exhausted iterator must be a harmless no-op (as the pebbledb layout makes it):
// a stray call from a binding must not take the whole process down.
TEST_P(IteratorTest, NextPastTheEndStaysInvalid) {
  auto it = store_->NewIterator("bank", 5, "f", nullopt, false);
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->key(), "f");
  it->Next();
  EXPECT_FALSE(it->Valid());
  it->Next();
  EXPECT_FALSE(it->Valid());

  auto reverse = store_->NewIterator("bank", 5, nullopt, "b", true);
  ASSERT_TRUE(reverse->Valid());
  EXPECT_EQ(reverse->key(), "a");
  reverse->Next();
  EXPECT_FALSE(reverse->Valid());
  reverse->Next();
  EXPECT_FALSE(reverse->Valid());

  auto empty = store_->NewIterator("bank", 5, "x", "y", false);
  EXPECT_FALSE(empty->Valid());
  empty->Next();
  EXPECT_FALSE(empty->Valid());
}

TEST_P(IteratorTest, SnapshotOfVersionIgnoresLaterWrites) {
  auto it = store_->NewIterator("bank", 5, nullopt, nullopt, false);
  store_->Apply(6, In("bank", {Put("a", "a6"), Put("aa", "new")}));
  EXPECT_EQ(ReadAll(*it), (Rows{{"a", "a1"}, {"c", "c1"}, {"d", "d4"}, {"e", "e1"}, {"f", "f4"}}));
}

TEST_P(IteratorTest, BelowEarliestVersionIsEmpty) {
  store_->SetEarliestVersion(3);
  EXPECT_EQ(Scan(*store_, 2), Rows{});
  EXPECT_EQ(Scan(*store_, 2, "a", "z", true), Rows{});
  EXPECT_EQ(Scan(*store_, 3), (Rows{{"a", "a1"}, {"c", "c1"}, {"d", "d2"}, {"e", "e1"}}));
}

// Many versions of one key, next to a key that extends it by a 0x00 byte, make the iterator
// skip a long run of older versions and land exactly on the following user key.
TEST_P(StoreTest, IteratorSkipsLongVersionHistories) {
  auto store = Open();
  for (uint64_t v = 1; v <= 12; ++v) {
    store->Apply(v, In("bank", {Put("a", "a" + std::to_string(v)), Put("a\x00"s, "z" + std::to_string(v))}));
  }
  store->Apply(13, In("bank", {Put("b", "b13")}));
  EXPECT_EQ(Scan(*store, 6), (Rows{{"a", "a6"}, {"a\x00"s, "z6"}}));
  EXPECT_EQ(Scan(*store, 6, nullopt, nullopt, true), (Rows{{"a\x00"s, "z6"}, {"a", "a6"}}));
  EXPECT_EQ(Scan(*store, 13), (Rows{{"a", "a12"}, {"a\x00"s, "z12"}, {"b", "b13"}}));
  EXPECT_EQ(Scan(*store, 13, nullopt, nullopt, true), (Rows{{"b", "b13"}, {"a\x00"s, "z12"}, {"a", "a12"}}));
  EXPECT_EQ(Scan(*store, 13, "a\x00"s, nullopt), (Rows{{"a\x00"s, "z12"}, {"b", "b13"}}));
}

TEST_P(StoreTest, IteratorHidesKeysDeletedAmongManyVersions) {
  auto store = Open();
  for (uint64_t v = 1; v <= 6; ++v) store->Apply(v, In("bank", {Put("k", "k" + std::to_string(v))}));
  store->Apply(7, In("bank", {Del("k"), Put("m", "m7")}));
  store->Apply(8, In("bank", {Put("j", "j8")}));
  EXPECT_EQ(Scan(*store, 8), (Rows{{"j", "j8"}, {"m", "m7"}}));
  EXPECT_EQ(Scan(*store, 8, nullopt, nullopt, true), (Rows{{"m", "m7"}, {"j", "j8"}}));
  EXPECT_EQ(Scan(*store, 6), (Rows{{"k", "k6"}}));
}

// Data that went through a flush and compaction is read from SST files, where bloom filters
// and block seeks take the place of the memtable.
TEST_P(StoreTest, ReadsAreUnchangedByCompaction) {
  auto store = Open();
  for (uint64_t v = 1; v <= 8; ++v) {
    store->Apply(v, {{"bank", {Put("a", "a" + std::to_string(v)), Put("a\x00"s, "z" + std::to_string(v))}},
                     {"bank2", {Put("a", "other" + std::to_string(v))}}});
  }
  store->Apply(9, In("bank", {Del("a"), Put("c", "c9")}));
  auto read_everything = [&] {
    std::vector<std::string> seen;
    for (uint64_t v : {1, 4, 8, 9}) {
      for (const std::string& key : {"a"s, "a\x00"s, "b"s, "c"s}) {
        seen.push_back(store->Get("bank", v, key).value_or("<none>"));
      }
      std::vector<std::optional<std::string>> many;
      store->GetMany("bank", v, {"a", "zz", "c"}, &many);
      for (const auto& m : many) seen.push_back(m.value_or("<none>"));
      for (bool reverse : {false, true}) {
        for (const auto& [k, val] : Scan(*store, v, nullopt, nullopt, reverse)) seen.push_back(k + "=" + val);
      }
    }
    return seen;
  };
  const auto before = read_everything();
  store->Compact();
  EXPECT_EQ(read_everything(), before);
  Reopen(store);
  EXPECT_EQ(read_everything(), before);
  EXPECT_EQ(store->Get("bank", 4, "a"), Some("a4"));
  EXPECT_EQ(store->Get("bank", 9, "a"), nullopt);
  EXPECT_EQ(store->Get("bank", 9, "b"), nullopt);
  EXPECT_EQ(Scan(*store, 9), (Rows{{"a\x00"s, "z8"}, {"c", "c9"}}));
}

// Readers on other threads must see every version the store reports as written.
TEST_P(StoreTest, ConcurrentReadersSeeEveryReportedVersion) {
  auto store = Open();
  store->Apply(1, In("bank", {Put("k", "1")}));
  std::atomic<bool> done{false};
  std::atomic<int> mismatches{0}, reads{0};
  auto reader = [&] {
    while (!done.load()) {
      uint64_t latest = store->LatestVersion();
      if (store->Get("bank", latest, "k") != Some(std::to_string(latest))) mismatches.fetch_add(1);
      reads.fetch_add(1);
    }
  };
  std::thread r1(reader), r2(reader);
  for (uint64_t v = 2; v <= 300; ++v) store->Apply(v, In("bank", {Put("k", std::to_string(v))}));
  done = true;
  r1.join();
  r2.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_GT(reads.load(), 0);
  EXPECT_EQ(store->Get("bank", 300, "k"), Some("300"));
}

// Blocks of kBulkIngestPairs pairs or more are written as an ingested SST file instead of a
// write batch; readers must not be able to tell the difference.
TEST_P(StoreTest, LargeBlocksReadLikeSmallOnes) {
  auto store = Open();
  auto key = [](size_t i) {
    std::string k = std::to_string(i);
    return "k" + std::string(6 - k.size(), '0') + k;
  };
  store->Apply(1, {{"bank", {Put(key(1), "old"), Put("gone", "old"), Put("stay", "old")}}, {"gov", {Put("g", "1")}}});
  std::vector<KVPair> pairs;
  for (size_t i = 0; i < kBulkIngestPairs; ++i) pairs.push_back(Put(key(i), "v" + std::to_string(i)));
  pairs.push_back(Del("gone"));
  pairs.push_back(Put("dup", "first"));
  pairs.push_back(Put("dup", "last"));  // the last write of a key in a block wins
  store->Apply(2, {{"bank", std::move(pairs)}, {"gov", {Put("g", "2")}}});

  auto check = [&] {
    EXPECT_EQ(store->LatestVersion(), 2u);
    EXPECT_EQ(store->Get("bank", 1, key(1)), Some("old"));
    EXPECT_EQ(store->Get("bank", 2, key(1)), Some("v1"));
    EXPECT_EQ(store->Get("bank", 1, key(2)), nullopt);
    EXPECT_EQ(store->Get("bank", 2, key(kBulkIngestPairs - 1)), Some("v" + std::to_string(kBulkIngestPairs - 1)));
    EXPECT_EQ(store->Get("bank", 1, "gone"), Some("old"));
    EXPECT_EQ(store->Get("bank", 2, "gone"), nullopt);
    EXPECT_EQ(store->Get("bank", 2, "stay"), Some("old"));
    EXPECT_EQ(store->Get("bank", 2, "dup"), Some("last"));
    EXPECT_EQ(store->Get("gov", 2, "g"), Some("2"));
    EXPECT_EQ(Scan(*store, 2, "dup", "k000003"), (Rows{{"dup", "last"}, {key(0), "v0"}, {key(1), "v1"}, {key(2), "v2"}}));
    EXPECT_EQ(Scan(*store, 2, "k032765", nullopt, true).size(), 4u);  // k032765..k032767, stay
    EXPECT_EQ(Scan(*store, 1), (Rows{{"gone", "old"}, {key(1), "old"}, {"stay", "old"}}));
  };
  check();
  Reopen(store);
  check();
  store->Apply(3, In("bank", {Put(key(1), "v1@3")}));
  EXPECT_EQ(store->Get("bank", 3, key(1)), Some("v1@3"));
  EXPECT_EQ(store->Get("bank", 2, key(1)), Some("v1"));
}

// ---- argument checks ---------------------------------------------------------------------------

TEST_P(StoreTest, InvalidArgumentsAreRejected) {
  auto store = Open();
  store->Apply(1, In("bank", {Put("a", "1")}));
  std::vector<std::optional<std::string>> out;
  const auto kInvalid = ErrorCode::kInvalidArgument;

  EXPECT_STRATA_ERROR(store->Get("bank", 1, ""), kInvalid);
  EXPECT_STRATA_ERROR(store->Get("", 1, "a"), kInvalid);
  EXPECT_STRATA_ERROR(store->Has("bank", 1, ""), kInvalid);
  EXPECT_STRATA_ERROR(store->Has("", 1, "a"), kInvalid);
  EXPECT_STRATA_ERROR(store->GetMany("bank", 1, {"a", ""}, &out), kInvalid);
  EXPECT_STRATA_ERROR(store->GetMany("", 1, {"a"}, &out), kInvalid);

  EXPECT_STRATA_ERROR(store->NewIterator("bank", 1, ""s, nullopt, false), kInvalid);
  EXPECT_STRATA_ERROR(store->NewIterator("bank", 1, nullopt, ""s, false), kInvalid);
  EXPECT_STRATA_ERROR(store->NewIterator("bank", 1, "b"s, "a"s, false), kInvalid);
  EXPECT_STRATA_ERROR(store->NewIterator("bank", 1, "b"s, "a"s, true), kInvalid);
  EXPECT_STRATA_ERROR(store->NewIterator("bank", 1, "\xff"s, "\x01"s, false), kInvalid);  // bytes are unsigned
  EXPECT_STRATA_ERROR(store->NewIterator("", 1, nullopt, nullopt, false), kInvalid);

  EXPECT_STRATA_ERROR(store->Apply(2, In("bank", {Put("", "v")})), kInvalid);
  EXPECT_STRATA_ERROR(store->Apply(2, In("bank", {Del("")})), kInvalid);
  EXPECT_STRATA_ERROR(store->Apply(2, In("", {Put("k", "v")})), kInvalid);
  EXPECT_STRATA_ERROR(store->ApplyAsync(2, In("", {Put("k", "v")}), [](const Error*) {}), kInvalid);
  EXPECT_STRATA_ERROR(store->Import(2, {{"bank", "", "v"}}), kInvalid);
  EXPECT_STRATA_ERROR(store->Import(2, {{"", "k", "v"}}), kInvalid);
  EXPECT_STRATA_ERROR(store->Prune(UINT64_MAX), kInvalid);

  // Rejected writes left nothing behind.
  EXPECT_EQ(store->LatestVersion(), 1u);
  EXPECT_EQ(Scan(*store, UINT64_MAX), (Rows{{"a", "1"}}));
}

TEST_P(StoreTest, WritingBelowTheLastVersionIsRejected) {
  auto store = Open();
  store->Apply(5, In("bank", {Put("a", "5")}));
  EXPECT_STRATA_ERROR(store->Apply(4, In("bank", {Put("a", "4")})), ErrorCode::kInvalidArgument);
  EXPECT_STRATA_ERROR(store->ApplyAsync(3, {}, [](const Error*) {}), ErrorCode::kInvalidArgument);
  EXPECT_EQ(store->Get("bank", 5, "a"), Some("5"));
  EXPECT_EQ(store->Get("bank", 4, "a"), nullopt);

  Reopen(store);
  EXPECT_STRATA_ERROR(store->Apply(4, {}), ErrorCode::kInvalidArgument);
  store->Apply(6, In("bank", {Put("a", "6")}));  // the store is still usable
  EXPECT_EQ(store->Get("bank", 6, "a"), Some("6"));
}

// An import is a write too: a block below it would be logged with a version the changelog
// replay skips (it is not above the latest marker), so it must be refused as it is after a reopen.
TEST_P(StoreTest, WritingBelowAnImportedVersionIsRejected) {
  auto store = Open();
  store->Import(5, {{"bank", "a", "imported"}});
  EXPECT_STRATA_ERROR(store->Apply(4, In("bank", {Put("a", "4")})), ErrorCode::kInvalidArgument);
  EXPECT_EQ(store->Get("bank", 5, "a"), Some("imported"));
  Reopen(store);
  EXPECT_STRATA_ERROR(store->Apply(4, In("bank", {Put("a", "4")})), ErrorCode::kInvalidArgument);
}

// ---- version markers ---------------------------------------------------------------------------

TEST_P(StoreTest, EmptyChangesetListAdvancesLatestVersion) {
  auto store = Open();
  EXPECT_EQ(store->LatestVersion(), 0u);
  store->Apply(3, In("bank", {Put("a", "3")}));
  store->Apply(7, {});
  EXPECT_EQ(store->LatestVersion(), 7u);
  EXPECT_EQ(store->Get("bank", 7, "a"), Some("3"));
  Reopen(store);
  EXPECT_EQ(store->LatestVersion(), 7u);
}

TEST_P(StoreTest, VersionMarkersOnlyRise) {
  auto store = Open();
  EXPECT_EQ(store->EarliestVersion(), 0u);
  store->SetLatestVersion(10);
  EXPECT_EQ(store->LatestVersion(), 10u);
  store->SetLatestVersion(5);
  EXPECT_EQ(store->LatestVersion(), 10u);
  store->SetEarliestVersion(4);
  EXPECT_EQ(store->EarliestVersion(), 4u);
  store->SetEarliestVersion(2);
  EXPECT_EQ(store->EarliestVersion(), 4u);
  store->Apply(12, {});
  EXPECT_EQ(store->LatestVersion(), 12u);
  store->SetLatestVersion(11);
  EXPECT_EQ(store->LatestVersion(), 12u);

  Reopen(store);
  EXPECT_EQ(store->LatestVersion(), 12u);
  EXPECT_EQ(store->EarliestVersion(), 4u);
  store->SetEarliestVersion(3);
  EXPECT_EQ(store->EarliestVersion(), 4u);
}

// ---- prune -------------------------------------------------------------------------------------

class PruneTest : public StoreTest {
 protected:
  // a: 1,2,3,6   b: set 1, deleted 3   c: 2   d: 1, deleted 5   e: 4 only after the prune point
  // f: deleted 2, set 6   g in another store: 1, 2
  void SetUp() override {
    store_ = Open();
    store_->Apply(1, {{"bank", {Put("a", "a1"), Put("b", "b1"), Put("d", "d1")}}, {"gov", {Put("g", "g1")}}});
    store_->Apply(2, {{"bank", {Put("a", "a2"), Put("c", "c2"), Del("f")}}, {"gov", {Put("g", "g2")}}});
    store_->Apply(3, In("bank", {Put("a", "a3"), Del("b")}));
    store_->Apply(4, In("bank", {Put("e", "e4")}));
    store_->Apply(5, In("bank", {Del("d")}));
    store_->Apply(6, In("bank", {Put("a", "a6"), Put("f", "f6")}));
  }

  // Everything a reader can observe at `version`, one line per read, for before/after diffs.
  std::vector<std::string> Observe(uint64_t version) {
    std::vector<std::string> seen;
    auto point = [&](const char* store, const char* key) {
      seen.push_back(std::string(store) + "/" + key + " = " + store_->Get(store, version, key).value_or("<none>"));
    };
    for (const char* key : {"a", "b", "c", "d", "e", "f"}) point("bank", key);
    point("gov", "g");
    for (bool reverse : {false, true}) {
      for (const auto& [k, v] : Scan(*store_, version, nullopt, nullopt, reverse)) {
        seen.push_back((reverse ? "reverse " : "forward ") + k + " = " + v);
      }
    }
    return seen;
  }

  std::unique_ptr<MvccStore> store_;
};

TEST_P(PruneTest, KeepsEveryReadAboveThePrunePoint) {
  std::map<uint64_t, std::vector<std::string>> before;
  for (uint64_t v = 5; v <= 7; ++v) before[v] = Observe(v);

  store_->Prune(4);
  EXPECT_EQ(store_->EarliestVersion(), 5u);
  for (uint64_t v = 5; v <= 7; ++v) EXPECT_EQ(Observe(v), before[v]) << "version " << v;
  EXPECT_EQ(store_->Get("bank", 5, "a"), Some("a3"));
  EXPECT_EQ(store_->Get("bank", 5, "c"), Some("c2"));
  EXPECT_EQ(store_->Get("bank", 5, "b"), nullopt);
  EXPECT_EQ(store_->Get("bank", 5, "f"), nullopt);
  EXPECT_EQ(store_->Get("gov", 5, "g"), Some("g2"));
  EXPECT_EQ(store_->Get("bank", 4, "a"), nullopt);  // below the new floor

  Reopen(store_);
  EXPECT_EQ(store_->EarliestVersion(), 5u);
  for (uint64_t v = 5; v <= 7; ++v) EXPECT_EQ(Observe(v), before[v]) << "version " << v << " after reopen";
}

// Below the floor an iterator is empty, not an error, also once pruning has collapsed history.
TEST_P(PruneTest, IteratorBelowThePrunedFloorIsEmpty) {
  store_->Prune(4);
  EXPECT_EQ(Scan(*store_, 4), Rows{});
  EXPECT_EQ(Scan(*store_, 1, "a", "z", /*reverse=*/true), Rows{});
}

TEST_P(PruneTest, WritesAfterPruneAreVisible) {
  store_->Prune(4);
  store_->Apply(7, In("bank", {Put("b", "b7"), Del("a")}));
  EXPECT_EQ(store_->Get("bank", 7, "b"), Some("b7"));
  EXPECT_EQ(store_->Get("bank", 7, "a"), nullopt);
  EXPECT_EQ(store_->Get("bank", 6, "a"), Some("a6"));
  EXPECT_EQ(store_->Get("bank", 5, "a"), Some("a3"));
}

// Rollback: the versions above the target are gone for every reader, survive no reopen (their
// changelog entries go too) and can be written again, any number of times.
TEST_P(PruneTest, RollbackForgetsEveryVersionAboveTheTarget) {
  std::map<uint64_t, std::vector<std::string>> before;
  for (uint64_t v = 1; v <= 3; ++v) before[v] = Observe(v);

  store_->RollbackTo(3);
  EXPECT_EQ(store_->LatestVersion(), 3u);
  for (uint64_t v = 1; v <= 3; ++v) EXPECT_EQ(Observe(v), before[v]) << "version " << v;
  // Above the target every read sees the target's state: e@4, d's delete and a@6 are gone.
  EXPECT_EQ(Observe(6), before[3]);
  for (const auto& [store, key, value, version] : NewRawEntries(*store_)) EXPECT_LE(version, 3u) << store << "/" << key;

  Reopen(store_);
  EXPECT_EQ(store_->LatestVersion(), 3u);
  EXPECT_EQ(Observe(6), before[3]) << "the changelog replayed rolled-back versions";

  // The rolled-back heights are written again with other contents, then rolled back again.
  store_->Apply(4, In("bank", {Put("x", "x4")}));
  EXPECT_EQ(store_->Get("bank", 4, "x"), Some("x4"));
  EXPECT_EQ(store_->Get("bank", 4, "e"), nullopt);
  store_->RollbackTo(1);
  EXPECT_EQ(store_->LatestVersion(), 1u);
  EXPECT_EQ(Observe(5), before[1]);
  Reopen(store_);
  EXPECT_EQ(Observe(5), before[1]);
  store_->Apply(2, In("bank", {Put("y", "y2")}));
  EXPECT_EQ(store_->Get("bank", 2, "y"), Some("y2"));
  EXPECT_EQ(store_->Get("bank", 2, "c"), nullopt);
  store_->RollbackTo(7);  // at or above latest: nothing to do
  EXPECT_EQ(store_->LatestVersion(), 2u);
}

TEST_P(PruneTest, RollbackBelowThePrunedFloorIsRefusedAndChangesNothing) {
  store_->Prune(4);
  EXPECT_STRATA_ERROR(store_->RollbackTo(3), ErrorCode::kInvalidArgument);
  EXPECT_EQ(store_->LatestVersion(), 6u);
  EXPECT_EQ(store_->Get("bank", 6, "a"), Some("a6"));
  store_->RollbackTo(5);
  EXPECT_EQ(store_->Get("bank", 6, "a"), Some("a3"));
  EXPECT_EQ(store_->Get("bank", 6, "d"), nullopt);
}

// The rocksdb layout counts what compaction dropped, which RocksDB does not promise exactly;
// the pebbledb layout deletes versions itself, so its count and leftovers are exact.
class PebblePruneTest : public PruneTest {};

TEST_P(PebblePruneTest, CountsAndRemovesExactlyTheHiddenVersions) {
  // a@1, a@2 (a@3 stays); b@3 tombstone and b@1; d@1 stays (its delete is at 5); f@2 tombstone;
  // g@1 (g@2 stays).
  EXPECT_EQ(store_->Prune(4).versions_deleted, 6u);
  EXPECT_EQ(Sorted(DrainRaw(*store_->NewRawIterator())),
            (std::vector<RawTuple>{{"bank", "a", "a3", 3},
                                   {"bank", "a", "a6", 6},
                                   {"bank", "c", "c2", 2},
                                   {"bank", "d", "d1", 1},
                                   {"bank", "e", "e4", 4},
                                   {"bank", "f", "f6", 6},
                                   {"gov", "g", "g2", 2}}));
  EXPECT_EQ(store_->Prune(4).versions_deleted, 0u);  // nothing left to remove
  // Once d's delete (5) is at or below the prune point, the tombstone and d@1 both go.
  EXPECT_EQ(store_->Prune(5).versions_deleted, 2u);
  EXPECT_EQ(store_->Get("bank", 6, "d"), nullopt);
}

// ---- import and raw iteration ------------------------------------------------------------------

TEST_P(StoreTest, ImportWritesEverythingAtOneVersion) {
  auto store = Open();
  store->Apply(2, In("bank", {Put("a", "old")}));
  store->Import(4, {{"bank", "a", "imported"}, {"bank", "b", "b"}, {"gov", "p", "\x00"s}});
  EXPECT_EQ(store->LatestVersion(), 4u);
  EXPECT_EQ(store->Get("bank", 4, "a"), Some("imported"));
  EXPECT_EQ(store->Get("bank", 3, "a"), Some("old"));
  EXPECT_EQ(store->Get("bank", 3, "b"), nullopt);
  EXPECT_EQ(store->Get("bank", 4, "b"), Some("b"));
  EXPECT_EQ(store->Get("gov", 4, "p"), Some("\x00"s));
  EXPECT_EQ(NewRawEntries(*store), (std::vector<RawTuple>{{"bank", "a", "imported", 4},
                                                          {"bank", "a", "old", 2},
                                                          {"bank", "b", "b", 4},
                                                          {"gov", "p", "\x00"s, 4}}));
  Reopen(store);
  EXPECT_EQ(store->LatestVersion(), 4u);
  EXPECT_EQ(store->Get("bank", 4, "b"), Some("b"));
}

TEST_P(StoreTest, ImportTakesItemsInAnyOrderAndTheLaterOfEqualKeysWins) {
  auto store = Open();
  store->Import(4, {{"gov", "p", "1"}, {"bank", "b", "x"}, {"bank", "a", "first"}, {"bank", "a", "second"}});
  store->Import(4, {{"bank", "b", "later"}});
  store->Import(4, {});
  EXPECT_EQ(store->LatestVersion(), 4u);
  EXPECT_EQ(store->Get("bank", 4, "a"), Some("second"));
  EXPECT_EQ(store->Get("bank", 4, "b"), Some("later"));
  const std::vector<RawTuple> expected{{"bank", "a", "second", 4}, {"bank", "b", "later", 4}, {"gov", "p", "1", 4}};
  EXPECT_EQ(NewRawEntries(*store), expected);
  Reopen(store);
  EXPECT_EQ(NewRawEntries(*store), expected);
  store->Apply(5, In("bank", {Put("a", "after")}));
  EXPECT_EQ(store->Get("bank", 5, "a"), Some("after"));
  EXPECT_EQ(store->Get("bank", 4, "a"), Some("second"));
}

TEST_P(StoreTest, ImportAtVersionZeroIsStoredAsOne) {
  auto store = Open();
  store->Import(0, {{"bank", "a", "g"}});
  EXPECT_EQ(store->LatestVersion(), 1u);
  EXPECT_EQ(store->Get("bank", 1, "a"), Some("g"));
  EXPECT_EQ(NewRawEntries(*store), (std::vector<RawTuple>{{"bank", "a", "g", 1}}));
}

TEST_P(StoreTest, RawIteratorYieldsEveryStoredVersionButTombstones) {
  auto store = Open();
  store->Apply(1, {{"bank", {Put("a", "a1"), Put("b\x00"s, "b1")}}, {"gov", {Put("p", "p1")}}});
  store->Apply(2, In("bank", {Put("a", "a2"), Del("b\x00"s)}));
  store->Apply(3, In("bank", {Put("b\x00"s, "")}));
  store->SetEarliestVersion(2);  // markers are not data
  EXPECT_EQ(NewRawEntries(*store), (std::vector<RawTuple>{{"bank", "a", "a1", 1},
                                                          {"bank", "a", "a2", 2},
                                                          {"bank", "b\x00"s, "", 3},
                                                          {"bank", "b\x00"s, "b1", 1},
                                                          {"gov", "p", "p1", 1}}));
}

TEST_P(StoreTest, RawIteratorOnEmptyStore) {
  auto store = Open();
  store->Apply(1, {});
  RawEntry e;
  auto it = store->NewRawIterator();
  EXPECT_FALSE(it->Next(&e));
  EXPECT_FALSE(it->Next(&e));
}

// ---- lifecycle ---------------------------------------------------------------------------------

TEST_P(StoreTest, ReopenKeepsDataAndMarkers) {
  auto store = Open();
  store->Apply(1, {{"bank", {Put("a", "a1"), Put("b", "b1")}}, {"gov", {Put("g", "g1")}}});
  store->Apply(2, In("bank", {Del("b"), Put("a", "a2")}));
  store->SetEarliestVersion(2);
  store->SetLatestVersion(9);
  Reopen(store);
  EXPECT_EQ(store->LatestVersion(), 9u);
  EXPECT_EQ(store->EarliestVersion(), 2u);
  EXPECT_EQ(store->Get("bank", 2, "a"), Some("a2"));
  EXPECT_EQ(store->Get("bank", 2, "b"), nullopt);
  EXPECT_EQ(store->Get("gov", 9, "g"), Some("g1"));
  EXPECT_EQ(store->Get("bank", 1, "a"), nullopt);  // below earliest
  EXPECT_EQ(store->layout(), GetParam());
  EXPECT_EQ(store->dir(), dir_.path());
}

TEST_P(StoreTest, OpeningWithTheOtherLayoutFails) {
  Open()->Close();
  StoreOptions other = Options();
  other.layout = pebble() ? Layout::kRocksdb : Layout::kPebble;
  EXPECT_STRATA_ERROR(MvccStore::Open(dir_.path(), other), ErrorCode::kLayoutMismatch);
  auto store = Open();  // the failed attempt did not damage the store
  store->Apply(1, In("bank", {Put("a", "1")}));
  EXPECT_EQ(store->Get("bank", 1, "a"), Some("1"));
}

TEST_P(StoreTest, DatabaseWithoutLayoutMarkerIsRejected) {
  Open()->Close();
  fs::remove(fs::path(dir_.path()) / "STRATA_LAYOUT");
  EXPECT_STRATA_ERROR(Open(), ErrorCode::kLayoutMismatch);
}

TEST_P(StoreTest, EveryCallAfterCloseThrowsClosed) {
  auto store = Open();
  store->Apply(1, In("bank", {Put("a", "1"), Put("b", "2")}));
  auto it = store->NewIterator("bank", 1, nullopt, nullopt, false);
  ASSERT_TRUE(it->Valid());
  auto raw = store->NewRawIterator();
  store->Close();
  EXPECT_TRUE(store->closed());
  store->Close();  // closing twice is harmless

  const auto kClosed = ErrorCode::kClosed;
  std::vector<std::optional<std::string>> out;
  RawEntry entry;
  EXPECT_STRATA_ERROR(it->Valid(), kClosed);
  EXPECT_STRATA_ERROR(it->Next(), kClosed);
  EXPECT_STRATA_ERROR(it->key(), kClosed);
  EXPECT_STRATA_ERROR(it->value(), kClosed);
  EXPECT_STRATA_ERROR(raw->Next(&entry), kClosed);
  EXPECT_STRATA_ERROR(store->Apply(2, {}), kClosed);
  EXPECT_STRATA_ERROR(store->ApplyAsync(2, {}, [](const Error*) {}), kClosed);
  EXPECT_STRATA_ERROR(store->ApplyEncodedAsync(EncodeChangelogEntry(2, {}), [](const Error*) {}), kClosed);
  EXPECT_STRATA_ERROR(store->Drain([](const Error*) {}), kClosed);
  EXPECT_STRATA_ERROR(store->WaitForPendingWrites(), kClosed);
  EXPECT_STRATA_ERROR(store->Get("bank", 1, "a"), kClosed);
  EXPECT_STRATA_ERROR(store->Has("bank", 1, "a"), kClosed);
  EXPECT_STRATA_ERROR(store->GetMany("bank", 1, {"a"}, &out), kClosed);
  EXPECT_STRATA_ERROR(store->NewIterator("bank", 1, nullopt, nullopt, false), kClosed);
  EXPECT_STRATA_ERROR(store->NewRawIterator(), kClosed);
  EXPECT_STRATA_ERROR(store->LatestVersion(), kClosed);
  EXPECT_STRATA_ERROR(store->EarliestVersion(), kClosed);
  EXPECT_STRATA_ERROR(store->SetLatestVersion(5), kClosed);
  EXPECT_STRATA_ERROR(store->SetEarliestVersion(5), kClosed);
  EXPECT_STRATA_ERROR(store->Prune(1), kClosed);
  EXPECT_STRATA_ERROR(store->Import(2, {{"bank", "a", "v"}}), kClosed);
  EXPECT_STRATA_ERROR(store->Compact(), kClosed);
  EXPECT_STRATA_ERROR(store->WaitForCompactions(), kClosed);
  EXPECT_STRATA_ERROR(store->Stats(), kClosed);

  it.reset();  // iterators may outlive the store's DB
  raw.reset();
  store.reset();
}

// ---- open modes ----------------------------------------------------------------------------------

TEST_P(StoreTest, CreateIfMissingOffRefusesAnEmptyDirectory) {
  EXPECT_STRATA_ERROR(OpenWith([](StoreOptions& o) { o.create_if_missing = false; }), ErrorCode::kInvalidArgument);
  EXPECT_FALSE(fs::exists(fs::path(dir_.path()) / "CURRENT"));
  Open()->Close();
  auto store = OpenWith([](StoreOptions& o) { o.create_if_missing = false; });
  EXPECT_EQ(store->LatestVersion(), 0u);
}

TEST_P(StoreTest, ReadOnlyStoreReadsButRefusesWrites) {
  {
    auto writer = Open();
    writer->Apply(1, In("bank", {Put("a", "1"), Put("b", "1")}));
    writer->Apply(2, In("bank", {Del("b")}));
    writer->SetEarliestVersion(1);
  }
  auto store = OpenWith([](StoreOptions& o) { o.read_only = true; });
  EXPECT_EQ(store->LatestVersion(), 2u);
  EXPECT_EQ(store->EarliestVersion(), 1u);
  EXPECT_EQ(store->Get("bank", 2, "a"), Some("1"));
  EXPECT_EQ(store->Get("bank", 1, "b"), Some("1"));
  EXPECT_EQ(Scan(*store, 2), (Rows{{"a", "1"}}));
  EXPECT_EQ(NewRawEntries(*store).size(), 2u);

  const auto kNotSupported = ErrorCode::kNotSupported;
  EXPECT_STRATA_ERROR(store->Apply(3, {}), kNotSupported);
  EXPECT_STRATA_ERROR(store->ApplyAsync(3, {}, [](const Error*) {}), kNotSupported);
  EXPECT_STRATA_ERROR(store->ApplyEncodedAsync(EncodeChangelogEntry(3, {}), [](const Error*) {}), kNotSupported);
  EXPECT_STRATA_ERROR(store->Import(3, {{"bank", "a", "x"}}), kNotSupported);
  EXPECT_STRATA_ERROR(store->Prune(1), kNotSupported);
  EXPECT_STRATA_ERROR(store->SetLatestVersion(9), kNotSupported);
  EXPECT_STRATA_ERROR(store->SetEarliestVersion(2), kNotSupported);
  EXPECT_STRATA_ERROR(store->Compact(), kNotSupported);
  EXPECT_STRATA_ERROR(store->Recover(), kNotSupported);
  store->Close();

  store = Open();
  EXPECT_EQ(store->LatestVersion(), 2u);
  EXPECT_EQ(store->EarliestVersion(), 1u);
}

TEST_P(StoreTest, ReadOnlyOpenOfAMissingStoreFails) {
  EXPECT_STRATA_ERROR(OpenWith([](StoreOptions& o) { o.read_only = true; }), ErrorCode::kInvalidArgument);
}

// Inspection must not change what it inspects: no replay, and no repair of a torn tail.
TEST_P(StoreTest, ReadOnlyOpenLeavesTheChangelogAlone) {
  Open()->Apply(1, In("bank", {Put("a", "1")}));
  LogWithoutApplying({{2, In("bank", {Put("a", "2")})}});
  const fs::path segment = fs::path(dir_.path()) / "changelog" / "00000000000000000001";
  { std::ofstream(segment, std::ios::binary | std::ios::app) << "torn"; }
  const auto size = fs::file_size(segment);

  auto store = OpenWith([](StoreOptions& o) { o.read_only = true; });
  EXPECT_EQ(store->LatestVersion(), 1u);
  EXPECT_EQ(store->Get("bank", 2, "a"), Some("1"));
  store->Close();
  EXPECT_EQ(fs::file_size(segment), size);

  store = Open();
  EXPECT_EQ(store->LatestVersion(), 2u);
  EXPECT_EQ(store->Get("bank", 2, "a"), Some("2"));
}

TEST_P(StoreTest, DeferredRecoveryReplaysOnlyWhenAsked) {
  Open()->Apply(1, In("bank", {Put("a", "1")}));
  LogWithoutApplying({{2, In("bank", {Put("a", "2")})}});

  auto store = OpenWith([](StoreOptions& o) { o.defer_recovery = true; });
  EXPECT_EQ(store->LatestVersion(), 1u);
  EXPECT_EQ(store->Get("bank", 2, "a"), Some("1"));
  EXPECT_STRATA_ERROR(store->Apply(3, {}), ErrorCode::kInvalidArgument);
  EXPECT_STRATA_ERROR(store->Import(3, {{"bank", "a", "x"}}), ErrorCode::kInvalidArgument);

  store->Recover();
  EXPECT_EQ(store->LatestVersion(), 2u);
  EXPECT_EQ(store->Get("bank", 2, "a"), Some("2"));
  store->Recover();  // a second call changes nothing
  store->Apply(3, In("bank", {Put("a", "3")}));
  EXPECT_EQ(store->Get("bank", 3, "a"), Some("3"));
  EXPECT_EQ(store->Stats().changelog_last_index, 3u);
}

TEST_P(StoreTest, ClosingWithoutRecoveryIsClean) {
  Open()->Apply(1, In("bank", {Put("a", "1")}));
  LogWithoutApplying({{2, In("bank", {Put("a", "2")})}});
  OpenWith([](StoreOptions& o) { o.defer_recovery = true; })->Close();
  auto store = Open();
  EXPECT_EQ(store->Get("bank", 2, "a"), Some("2"));
}

// A split node's Cosmos SS logs whole blocks, but applies only its own stores; the EVM SS is
// caught up from that log.
TEST_P(StoreTest, LogOnlyStoresAreLoggedButNotApplied) {
  auto log_only = [](StoreOptions& o) { o.log_only_stores = {"evm"}; };
  auto store = OpenWith(log_only);
  store->Apply(1, {{"bank", {Put("a", "1")}}, {"evm", {Put("acct", "1")}}});
  store->Apply(2, In("evm", {Put("acct", "2")}));
  EXPECT_EQ(store->LatestVersion(), 2u);
  EXPECT_EQ(store->Get("bank", 2, "a"), Some("1"));
  EXPECT_EQ(store->Get("evm", 2, "acct"), nullopt);
  EXPECT_EQ(Scan(*store, 2, nullopt, nullopt, false, "evm"), Rows{});
  EXPECT_EQ(NewRawEntries(*store), (std::vector<RawTuple>{{"bank", "a", "1", 1}}));

  auto logged_evm_values = [&](uint64_t from) {
    std::vector<std::string> values;
    store->ReadChangelog(from, [&](std::string_view entry) {
      std::string name;
      VisitChangelogEntry(entry, {[&](std::string_view n, uint32_t) { name = n; },
                                  [&](std::string_view, std::optional<std::string_view> v) {
                                    if (name == "evm") values.emplace_back(v.value_or("<deleted>"));
                                  }});
    });
    return values;
  };
  EXPECT_EQ(logged_evm_values(0), (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(logged_evm_values(2), (std::vector<std::string>{"2"}));
  EXPECT_TRUE(logged_evm_values(3).empty());

  store->Close();
  store = OpenWith(log_only);
  EXPECT_EQ(store->Get("evm", 2, "acct"), nullopt);
  EXPECT_EQ(logged_evm_values(0), (std::vector<std::string>{"1", "2"}));
}

// ---- asynchronous writes -----------------------------------------------------------------------

// Collects write callbacks; each must run exactly once, without an error.
struct Acks {
  std::atomic<int> ok{0}, failed{0};
  WriteCallback Callback() {
    return [this](const Error* e) { (e ? failed : ok).fetch_add(1); };
  }
};

TEST_P(StoreTest, ApplyAsyncWithoutBufferAcknowledgesAfterApply) {
  auto store = Open(/*async_write_buffer=*/0);
  for (uint64_t v = 1; v <= 20; ++v) {
    std::promise<const Error*> acked;
    store->ApplyAsync(v, In("bank", {Put("k", std::to_string(v))}), [&](const Error* e) { acked.set_value(e); });
    ASSERT_EQ(acked.get_future().get(), nullptr);
    // Acknowledged means applied: readable at once, without draining.
    ASSERT_EQ(store->Get("bank", v, "k"), Some(std::to_string(v)));
    ASSERT_EQ(store->LatestVersion(), v);
  }
}

TEST_P(StoreTest, ApplyAsyncWithBufferIsVisibleAfterWaiting) {
  auto store = Open(/*async_write_buffer=*/4);
  Acks acks;
  for (uint64_t v = 1; v <= 50; ++v) {
    store->ApplyAsync(v, In("bank", {Put("k" + std::to_string(v % 7), std::to_string(v))}), acks.Callback());
  }
  store->WaitForPendingWrites();
  EXPECT_EQ(acks.ok.load(), 50);
  EXPECT_EQ(acks.failed.load(), 0);
  EXPECT_EQ(store->LatestVersion(), 50u);
  EXPECT_EQ(store->Stats().pending_writes, 0u);
  EXPECT_EQ(store->Get("bank", 50, "k1"), Some("50"));
  EXPECT_EQ(store->Get("bank", 49, "k0"), Some("49"));
  EXPECT_EQ(store->Get("bank", 10, "k3"), Some("10"));
}

TEST_P(StoreTest, DrainRunsAfterEarlierWrites) {
  auto store = Open(/*async_write_buffer=*/8);
  Acks acks;
  for (uint64_t v = 1; v <= 10; ++v) store->ApplyAsync(v, In("bank", {Put("k", std::to_string(v))}), acks.Callback());
  std::promise<std::optional<std::string>> seen;
  store->Drain([&](const Error* e) { seen.set_value(e ? nullopt : store->Get("bank", 10, "k")); });
  EXPECT_EQ(seen.get_future().get(), Some("10"));
}

TEST_P(StoreTest, ApplyEncodedAsyncUsesTheEntryVersion) {
  auto store = Open(/*async_write_buffer=*/0);
  std::string entry = EncodeChangelogEntry(3, In("bank", {Put("a", "enc")}));
  EXPECT_EQ(SubmitAndWait([&](WriteCallback done) { store->ApplyEncodedAsync(entry, std::move(done)); }), nullopt);
  EXPECT_EQ(store->Get("bank", 3, "a"), Some("enc"));
  EXPECT_EQ(store->LatestVersion(), 3u);
}

// An encoded entry that does not decode must be refused, not logged: once in the changelog it
// would be replayed, and fail, on every later open.
TEST_P(StoreTest, MalformedEncodedEntryDoesNotPoisonTheStore) {
  auto store = Open(/*async_write_buffer=*/0);
  store->Apply(1, In("bank", {Put("a", "1")}));
  std::string garbage = EncodeChangelogEntry(2, In("bank", {Put("a", "2")}));
  garbage.resize(garbage.size() - 3);  // valid header, truncated body

  EXPECT_EQ(SubmitAndWait([&](WriteCallback done) { store->ApplyEncodedAsync(garbage, std::move(done)); }),
            ErrorCode::kInvalidArgument);
  store->Apply(2, In("bank", {Put("b", "2")}));  // the writer carries on
  store->Close();
  store.reset();
  ASSERT_EQ(test::ErrorCodeOf([&] { store = Open(); }), nullopt) << "the store no longer opens";
  EXPECT_EQ(store->Get("bank", 2, "a"), Some("1"));
  EXPECT_EQ(store->Get("bank", 2, "b"), Some("2"));
}

// The header documents kInvalidArgument for a malformed entry; an entry too short to hold a
// version is the simplest malformed entry, and says nothing about the disk.
TEST_P(StoreTest, TooShortEncodedEntryIsInvalidArgument) {
  auto store = Open(/*async_write_buffer=*/0);
  EXPECT_EQ(SubmitAndWait([&](WriteCallback done) { store->ApplyEncodedAsync("short", std::move(done)); }),
            ErrorCode::kInvalidArgument);
}

// Bindings encode blocks themselves, so the store must hold encoded entries to the rules the
// encoder enforces: Get refuses an empty key or store name, so neither may get into the data.
TEST_P(StoreTest, EncodedEntryWithEmptyKeyOrStoreNameIsRejected) {
  auto store = Open(/*async_write_buffer=*/0);
  auto entry_with = [](std::string_view store_name, std::string_view key) {
    std::string e;
    encoding::PutFixed64LE(&e, 2);
    encoding::PutFixed32LE(&e, 1);  // one changeset
    encoding::PutFixed32LE(&e, static_cast<uint32_t>(store_name.size()));
    e.append(store_name);
    encoding::PutFixed32LE(&e, 1);  // one pair
    e.push_back('\0');              // set
    encoding::PutFixed32LE(&e, static_cast<uint32_t>(key.size()));
    e.append(key);
    encoding::PutFixed32LE(&e, 1);
    e.append("v");
    return e;
  };
  ASSERT_EQ(SubmitAndWait([&](WriteCallback done) { store->ApplyEncodedAsync(entry_with("bank", "k"), std::move(done)); }),
            nullopt);  // the hand-made encoding itself is right
  EXPECT_EQ(SubmitAndWait([&](WriteCallback done) { store->ApplyEncodedAsync(entry_with("bank", ""), std::move(done)); }),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(SubmitAndWait([&](WriteCallback done) { store->ApplyEncodedAsync(entry_with("", "k"), std::move(done)); }),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(Scan(*store, 2), (Rows{{"k", "v"}}));
}

// A refused entry was never written, so it must not raise the version later blocks are checked
// against.
TEST_P(StoreTest, RejectedEncodedEntryDoesNotAdvanceTheWrittenVersion) {
  auto store = Open(/*async_write_buffer=*/0);
  store->Apply(1, In("bank", {Put("a", "1")}));
  std::string garbage = EncodeChangelogEntry(1000, In("bank", {Put("a", "x")}));
  garbage.resize(garbage.size() - 1);
  ASSERT_EQ(SubmitAndWait([&](WriteCallback done) { store->ApplyEncodedAsync(garbage, std::move(done)); }),
            ErrorCode::kInvalidArgument);
  EXPECT_EQ(store->LatestVersion(), 1u);
  EXPECT_EQ(test::ErrorCodeOf([&] { store->Apply(2, In("bank", {Put("a", "2")})); }), nullopt);
  EXPECT_EQ(store->Get("bank", 2, "a"), Some("2"));
}

TEST_P(StoreTest, CloseWaitsForBufferedWrites) {
  auto store = Open(/*async_write_buffer=*/16);
  Acks acks;
  for (uint64_t v = 1; v <= 40; ++v) store->ApplyAsync(v, In("bank", {Put("k", std::to_string(v))}), acks.Callback());
  store->Close();
  EXPECT_EQ(acks.ok.load(), 40);
  store = Open();
  EXPECT_EQ(store->LatestVersion(), 40u);
  EXPECT_EQ(store->Get("bank", 40, "k"), Some("40"));
  EXPECT_EQ(store->Get("bank", 17, "k"), Some("17"));
}

TEST_P(StoreTest, StatsCountLogicalBytesAndChangelogEntries) {
  auto store = Open();
  store->Apply(1, In("bank", {Put("ab", "cde"), Del("xyz")}));
  store->Apply(2, {});
  store->Import(3, {{"bank", "k", "vv"}});
  StoreStats stats = store->Stats();
  EXPECT_EQ(stats.logical_bytes_written, 2u + 3u + 3u + 1u + 2u);
  EXPECT_EQ(stats.pending_writes, 0u);
  EXPECT_EQ(stats.changelog_first_index, 1u);
  EXPECT_EQ(stats.changelog_last_index, 2u);  // Import bypasses the changelog
}

// ---- changelog replay --------------------------------------------------------------------------

class ReplayTest : public StoreTest {};

TEST_P(ReplayTest, LoggedEntriesAboveLatestAreAppliedOnOpen) {
  auto store = Open();
  store->Apply(1, In("bank", {Put("a", "a1"), Put("b", "b1")}));
  store->Apply(2, In("bank", {Put("a", "a2")}));
  store->Close();
  store.reset();

  LogWithoutApplying({{3, In("bank", {Put("a", "a3"), Del("b")})}, {4, {}}, {5, In("gov", {Put("g", "g5")})}});
  store = Open();
  EXPECT_EQ(store->LatestVersion(), 5u);
  EXPECT_EQ(store->Get("bank", 2, "a"), Some("a2"));
  EXPECT_EQ(store->Get("bank", 3, "a"), Some("a3"));
  EXPECT_EQ(store->Get("bank", 2, "b"), Some("b1"));
  EXPECT_EQ(store->Get("bank", 3, "b"), nullopt);
  EXPECT_EQ(store->Get("gov", 5, "g"), Some("g5"));
  EXPECT_EQ(store->Get("gov", 4, "g"), nullopt);
  EXPECT_EQ(store->Stats().changelog_last_index, 5u);

  // Replayed entries count as written: older versions are refused, newer ones continue.
  EXPECT_STRATA_ERROR(store->Apply(4, {}), ErrorCode::kInvalidArgument);
  store->Apply(6, In("bank", {Put("a", "a6")}));
  Reopen(store);
  EXPECT_EQ(store->Get("bank", 6, "a"), Some("a6"));
  EXPECT_EQ(store->Get("bank", 5, "a"), Some("a3"));
  EXPECT_EQ(store->Stats().changelog_last_index, 6u);
}

// Replay resumes after the last applied changelog entry, so a store that applied everything
// rewrites nothing when it opens again (a re-applied big block would add a whole file).
TEST_P(ReplayTest, CleanReopenReplaysNothing) {
  auto store = Open();
  store->Apply(0, In("bank", {Put("g", "genesis")}));
  store->Apply(1, In("bank", {Put("a", "a1")}));
  store->Apply(2, In("bank", {Put("a", "a2")}));
  for (int i = 0; i < 2; ++i) {
    Reopen(store);
    EXPECT_EQ(store->Stats().logical_bytes_written, 0u);
    EXPECT_EQ(store->Get("bank", 1, "a"), Some("a1"));
    EXPECT_EQ(store->Get("bank", 2, "g"), Some("genesis"));
  }
}

TEST_P(ReplayTest, ReplayIntoAFreshStore) {
  LogWithoutApplying({{1, In("bank", {Put("a", "a1")})}, {2, In("bank", {Put("a", "a2")})}});
  auto store = Open();
  EXPECT_EQ(store->LatestVersion(), 2u);
  EXPECT_EQ(store->Get("bank", 1, "a"), Some("a1"));
  EXPECT_EQ(store->Get("bank", 2, "a"), Some("a2"));
}

// A genesis block is submitted at version 0 and stored at 1; if the process dies after logging
// it, reopening must still apply it.
TEST_P(ReplayTest, LoggedGenesisEntryAtVersionZeroIsApplied) {
  LogWithoutApplying({{0, In("bank", {Put("genesis", "g")})}});
  auto store = Open();
  EXPECT_EQ(store->LatestVersion(), 1u);
  EXPECT_EQ(store->Get("bank", 1, "genesis"), Some("g"));
}

// Genesis (version 0) and block 1 are both stored at version 1. If block 1 was logged but not
// applied, the latest marker already reads 1 from genesis; block 1 must still be replayed.
TEST_P(ReplayTest, LoggedFirstBlockAfterGenesisIsApplied) {
  auto store = Open();
  store->Apply(0, In("bank", {Put("a", "genesis")}));
  ASSERT_EQ(store->LatestVersion(), 1u);
  store->Close();
  store.reset();
  LogWithoutApplying({{1, In("bank", {Put("a", "block1"), Put("b", "block1")})}});
  store = Open();
  EXPECT_EQ(store->Get("bank", 1, "a"), Some("block1"));
  EXPECT_EQ(store->Get("bank", 1, "b"), Some("block1"));
}

TEST_P(ReplayTest, TornChangelogTailDoesNotBlockOpening) {
  auto store = Open();
  store->Apply(1, In("bank", {Put("a", "a1")}));
  store->Close();
  store.reset();
  LogWithoutApplying({{2, In("bank", {Put("a", "a2")})}});
  {
    std::ofstream tail((fs::path(dir_.path()) / "changelog" / "00000000000000000001").string(),
                       std::ios::binary | std::ios::app);
    tail << "\x40\x00\x00\x00partial"s;
  }
  store = Open();
  EXPECT_EQ(store->LatestVersion(), 2u);
  EXPECT_EQ(store->Get("bank", 2, "a"), Some("a2"));
  store->Apply(3, In("bank", {Put("a", "a3")}));
  Reopen(store);
  EXPECT_EQ(store->Get("bank", 3, "a"), Some("a3"));
}

INSTANTIATE_TEST_SUITE_P(Layouts, StoreTest, testing::Values(Layout::kPebble, Layout::kRocksdb), LayoutParamName);
INSTANTIATE_TEST_SUITE_P(Layouts, IteratorTest, testing::Values(Layout::kPebble, Layout::kRocksdb), LayoutParamName);
INSTANTIATE_TEST_SUITE_P(Layouts, PruneTest, testing::Values(Layout::kPebble, Layout::kRocksdb), LayoutParamName);
INSTANTIATE_TEST_SUITE_P(Layouts, PebblePruneTest, testing::Values(Layout::kPebble), LayoutParamName);
INSTANTIATE_TEST_SUITE_P(Layouts, ReplayTest, testing::Values(Layout::kPebble, Layout::kRocksdb), LayoutParamName);

TEST(LayoutNames, ParseAndName) {
  EXPECT_EQ(ParseLayout("pebbledb"), Layout::kPebble);
  EXPECT_EQ(ParseLayout("rocksdb"), Layout::kRocksdb);
  EXPECT_STREQ(LayoutName(Layout::kPebble), "pebbledb");
  EXPECT_STREQ(LayoutName(Layout::kRocksdb), "rocksdb");
  EXPECT_STRATA_ERROR(ParseLayout("leveldb"), ErrorCode::kInvalidArgument);
  EXPECT_STRATA_ERROR(ParseLayout(""), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace strata
