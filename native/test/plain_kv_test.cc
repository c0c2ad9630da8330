// Tests of PlainKv: the unversioned RocksDB store behind the block store.
#include "strata/plain_kv.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test_util.h"

namespace strata {
namespace {

using test::TempDir;

std::vector<std::string> Keys(PlainKvIterator& it) {
  std::vector<std::string> keys;
  for (; it.Valid(); it.Next()) keys.emplace_back(it.key());
  return keys;
}

TEST(PlainKvTest, PutGetDeleteRoundTrip) {
  TempDir dir;
  auto kv = PlainKv::Open(dir.path(), {});
  kv->Write({{"a", "1"}, {"b", "2"}}, true);
  EXPECT_EQ(kv->Get("a"), std::optional<std::string>("1"));
  EXPECT_EQ(kv->Get("b"), std::optional<std::string>("2"));
  EXPECT_EQ(kv->Get("c"), std::nullopt);
  kv->Write({{"a", std::nullopt}, {"c", "3"}}, false);
  EXPECT_EQ(kv->Get("a"), std::nullopt);
  EXPECT_EQ(kv->Get("c"), std::optional<std::string>("3"));
}

TEST(PlainKvTest, MultiGetKeepsOrderAndReportsAbsentKeys) {
  TempDir dir;
  auto kv = PlainKv::Open(dir.path(), {});
  kv->Write({{"k1", "v1"}, {"k3", "v3"}}, false);
  auto values = kv->MultiGet({"k3", "k2", "k1"});
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[0], std::optional<std::string>("v3"));
  EXPECT_EQ(values[1], std::nullopt);
  EXPECT_EQ(values[2], std::optional<std::string>("v1"));
}

TEST(PlainKvTest, BinaryKeysAndValuesSurvive) {
  TempDir dir;
  auto kv = PlainKv::Open(dir.path(), {});
  const std::string key("\x00\x01\xff", 3);
  const std::string value("\x00\x00\x7f\x80", 4);
  kv->Write({{key, value}}, true);
  EXPECT_EQ(kv->Get(key), std::optional<std::string>(value));
}

TEST(PlainKvTest, IteratesARangeForwardAndReverse) {
  TempDir dir;
  auto kv = PlainKv::Open(dir.path(), {});
  kv->Write({{"a", "x"}, {"b1", "x"}, {"b2", "x"}, {"b3", "x"}, {"c", "x"}}, false);
  auto forward = kv->Iterate({"b", "c", false});
  EXPECT_EQ(Keys(*forward), (std::vector<std::string>{"b1", "b2", "b3"}));
  auto reverse = kv->Iterate({"b", "c", true});
  EXPECT_EQ(Keys(*reverse), (std::vector<std::string>{"b3", "b2", "b1"}));
  auto reverse_to_b2 = kv->Iterate({"b", "b3", true});
  EXPECT_EQ(Keys(*reverse_to_b2), (std::vector<std::string>{"b2", "b1"}));
  auto open_ended = kv->Iterate({"", "", true});
  EXPECT_EQ(Keys(*open_ended), (std::vector<std::string>{"c", "b3", "b2", "b1", "a"}));
}

TEST(PlainKvTest, IteratorSeesTheStoreAsOfItsCreation) {
  TempDir dir;
  auto kv = PlainKv::Open(dir.path(), {});
  kv->Write({{"a", "1"}}, false);
  auto it = kv->Iterate({});
  kv->Write({{"b", "2"}}, false);
  EXPECT_EQ(Keys(*it), (std::vector<std::string>{"a"}));
}

TEST(PlainKvTest, WritesAreAtomicAndRejectEmptyKeys) {
  TempDir dir;
  auto kv = PlainKv::Open(dir.path(), {});
  EXPECT_STRATA_ERROR(kv->Write({{"a", "1"}, {"", "2"}}, true), ErrorCode::kInvalidArgument);
  EXPECT_EQ(kv->Get("a"), std::nullopt);  // the valid op of the rejected batch was not applied
}

TEST(PlainKvTest, DataSurvivesReopen) {
  TempDir dir;
  {
    auto kv = PlainKv::Open(dir.path(), {});
    kv->Write({{"height", "42"}}, true);
    kv->Close();
  }
  auto kv = PlainKv::Open(dir.path(), {});
  EXPECT_EQ(kv->Get("height"), std::optional<std::string>("42"));
}

TEST(PlainKvTest, ClosedStoreThrowsClosed) {
  TempDir dir;
  auto kv = PlainKv::Open(dir.path(), {});
  kv->Close();
  kv->Close();  // idempotent
  EXPECT_TRUE(kv->closed());
  EXPECT_STRATA_ERROR(kv->Get("a"), ErrorCode::kClosed);
  EXPECT_STRATA_ERROR(kv->Write({{"a", "1"}}, false), ErrorCode::kClosed);
  EXPECT_STRATA_ERROR(kv->Iterate({}), ErrorCode::kClosed);
}

TEST(PlainKvTest, IteratorOutlivingCloseKeepsWorkingThenReleasesTheLock) {
  TempDir dir;
  auto kv = PlainKv::Open(dir.path(), {});
  kv->Write({{"a", "1"}, {"b", "2"}}, true);
  auto it = kv->Iterate({});
  kv->Close();
  EXPECT_EQ(Keys(*it), (std::vector<std::string>{"a", "b"}));
  it.reset();
  auto reopened = PlainKv::Open(dir.path(), {});  // would fail on the LOCK file if still open
  EXPECT_EQ(reopened->Get("b"), std::optional<std::string>("2"));
}

TEST(PlainKvTest, SecondWriterIsRefusedWhileOpen) {
  TempDir dir;
  auto kv = PlainKv::Open(dir.path(), {});
  EXPECT_STRATA_ERROR(PlainKv::Open(dir.path(), {}), ErrorCode::kIo);
}

TEST(PlainKvTest, ReadOnlyOpenReadsButRefusesWrites) {
  TempDir dir;
  {
    auto kv = PlainKv::Open(dir.path(), {});
    kv->Write({{"a", "1"}}, true);
  }
  PlainKvOptions options;
  options.read_only = true;
  auto kv = PlainKv::Open(dir.path(), options);
  EXPECT_EQ(kv->Get("a"), std::optional<std::string>("1"));
  EXPECT_STRATA_ERROR(kv->Write({{"b", "2"}}, false), ErrorCode::kNotSupported);
}

TEST(PlainKvTest, MissingDirectoryWithoutCreateIsAnError) {
  TempDir dir;
  PlainKvOptions options;
  options.create_if_missing = false;
  EXPECT_STRATA_ERROR(PlainKv::Open(dir.Sub("absent"), options), ErrorCode::kInvalidArgument);
  EXPECT_STRATA_ERROR(PlainKv::Open("", {}), ErrorCode::kInvalidArgument);
}

TEST(PlainKvTest, RangeWithStartAfterEndIsRejected) {
  TempDir dir;
  auto kv = PlainKv::Open(dir.path(), {});
  EXPECT_STRATA_ERROR(kv->Iterate({"z", "a", false}), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

// A flipped byte in a synced WAL record: the store refuses to open, naming the WAL file and
// the remedy, instead of replaying up to the damage and dropping the synced writes after it.
TEST(PlainKvTest, DamagedWalRecordRefusesToOpenInsteadOfDroppingSyncedWrites) {
  TempDir dir;
  {
    auto kv = PlainKv::Open(dir.path(), {});
    for (int i = 1; i <= 5; ++i) kv->Write({{"block-" + std::to_string(i), std::string(200, 'a' + i)}}, true);
    kv->Close();  // no flush: the five writes live only in the WAL
  }
  std::string wal;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    if (e.path().extension() == ".log") wal = e.path().string();
  }
  ASSERT_FALSE(wal.empty());
  std::string bytes;
  {
    std::ifstream in(wal, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const size_t third = bytes.find("block-3");
  ASSERT_NE(third, std::string::npos);
  {
    std::fstream f(wal, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(static_cast<std::streamoff>(third + 20));
    f.put(static_cast<char>(bytes[third + 20] ^ 0x10));
  }
  try {
    PlainKv::Open(dir.path(), {});
    FAIL() << "opened a store whose WAL is damaged";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kCorruption);
    const std::string message = e.what();
    EXPECT_NE(message.find(wal), std::string::npos) << message;
    EXPECT_NE(message.find("restore data/blockstore from a backup"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace strata
