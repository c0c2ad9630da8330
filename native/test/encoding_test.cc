#include "encoding.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "test_util.h"

namespace strata::encoding {
namespace {

using namespace std::string_literals;

const std::vector<uint64_t> kInterestingU64 = {0, 1, 0xff, 0x100, 0x0102030405060708ull, UINT64_MAX - 1,
                                               UINT64_MAX};

std::string MvccKeyOf(std::string_view user_key, uint64_t version) {
  std::string out;
  AppendMvccKey(&out, user_key, version);
  return out;
}

TEST(Fixed64, LittleEndianRoundTrip) {
  for (uint64_t v : kInterestingU64) {
    std::string buf;
    PutFixed64LE(&buf, v);
    ASSERT_EQ(buf.size(), 8u);
    EXPECT_EQ(DecodeFixed64LE(buf.data()), v) << v;
  }
}

TEST(Fixed64, BigEndianRoundTrip) {
  for (uint64_t v : kInterestingU64) {
    std::string buf;
    PutFixed64BE(&buf, v);
    ASSERT_EQ(buf.size(), 8u);
    EXPECT_EQ(DecodeFixed64BE(buf.data()), v) << v;
  }
}

// The byte order is part of the on-disk format, so pin it down, not only the round trip.
TEST(Fixed64, ByteOrderIsAsDocumented) {
  std::string le, be;
  PutFixed64LE(&le, 0x0102030405060708ull);
  PutFixed64BE(&be, 0x0102030405060708ull);
  EXPECT_EQ(le, "\x08\x07\x06\x05\x04\x03\x02\x01"s);
  EXPECT_EQ(be, "\x01\x02\x03\x04\x05\x06\x07\x08"s);
}

// Big-endian bytes must sort like the numbers, or ^version would not order versions.
TEST(Fixed64, BigEndianSortsNumerically) {
  for (size_t i = 0; i + 1 < kInterestingU64.size(); ++i) {
    std::string a, b;
    PutFixed64BE(&a, kInterestingU64[i]);
    PutFixed64BE(&b, kInterestingU64[i + 1]);
    EXPECT_LT(a, b) << kInterestingU64[i];
  }
}

TEST(Fixed32, LittleEndianRoundTrip) {
  for (uint32_t v : {0u, 1u, 0x01020304u, UINT32_MAX}) {
    std::string buf;
    PutFixed32LE(&buf, v);
    ASSERT_EQ(buf.size(), 4u);
    EXPECT_EQ(DecodeFixed32LE(buf.data()), v);
  }
  std::string buf;
  PutFixed32LE(&buf, 0x01020304u);
  EXPECT_EQ(buf, "\x04\x03\x02\x01"s);
}

TEST(MvccKey, VersionZeroHasNoTimestamp) {
  std::string key = MvccKeyOf("abc", 0);
  EXPECT_EQ(key, "abc\x00"s);
  MvccKey split = SplitMvccKey(key);
  EXPECT_EQ(split.user_key, "abc");
  EXPECT_TRUE(split.timestamp.empty());
  EXPECT_EQ(split.version(), 0u);
}

TEST(MvccKey, VersionedKeyLayout) {
  std::string key = MvccKeyOf("abc", 1);
  // ^1 = 0xff..fe, big-endian, between the separator and the length byte.
  EXPECT_EQ(key, "abc\x00\xff\xff\xff\xff\xff\xff\xff\xfe\x09"s);
  EXPECT_EQ(MvccKeyOf("abc", UINT64_MAX), "abc\x00\x00\x00\x00\x00\x00\x00\x00\x00\x09"s);
}

TEST(MvccKey, RoundTripsAwkwardUserKeysAndVersions) {
  const std::vector<std::string> user_keys = {
      ""s, "a"s, "\x00"s, "\x00\x00"s, "a\x00"s, "a\x00" "b"s, "\xff"s, "\xff\xff\xff"s, "key\x09"s, "k\x00\x09"s,
      // Looks like a complete trailer on its own; the real trailer must still win.
      "u\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09"s,
  };
  for (const auto& user_key : user_keys) {
    for (uint64_t version : kInterestingU64) {
      std::string key = MvccKeyOf(user_key, version);
      MvccKey split = SplitMvccKey(key);
      EXPECT_EQ(split.user_key, user_key) << "version " << version;
      EXPECT_EQ(split.version(), version) << "version " << version;
      EXPECT_EQ(split.timestamp.size(), version == 0 ? 0u : size_t{kMvccTimestampLen});
    }
  }
}

TEST(MvccKey, EmptyInputSplitsToEmptyUserKey) {
  MvccKey split = SplitMvccKey("");
  EXPECT_TRUE(split.user_key.empty());
  EXPECT_TRUE(split.timestamp.empty());
  EXPECT_EQ(split.version(), 0u);
}

// A trailer length byte that claims more bytes than the key holds must not read out of range.
TEST(MvccKey, OversizedTrailerLengthYieldsWholeKey) {
  for (const std::string& key : {"abc"s, "\x09"s, "ab\x05"s, "\x00\x00\x00\x00\x00\x00\x00\x00\x09"s, "\xff"s}) {
    MvccKey split = SplitMvccKey(key);
    EXPECT_EQ(split.user_key, key);
    EXPECT_TRUE(split.timestamp.empty());
    EXPECT_EQ(split.version(), 0u);
  }
}

TEST(MvccKey, TrailerExactlyAsLongAsKeyGivesEmptyUserKey) {
  std::string key = MvccKeyOf("", 7);
  ASSERT_EQ(key.size(), 10u);
  MvccKey split = SplitMvccKey(key);
  EXPECT_TRUE(split.user_key.empty());
  EXPECT_EQ(split.version(), 7u);
}

TEST(PrefixEnd, IncrementsLastByte) { EXPECT_EQ(PrefixEnd("abc"), "abd"); }

TEST(PrefixEnd, CarriesOverTrailingFf) {
  EXPECT_EQ(PrefixEnd("a\xff"s), "b");
  EXPECT_EQ(PrefixEnd("a\xfe\xff\xff"s), "a\xff"s);
  EXPECT_EQ(PrefixEnd("\x00"s), "\x01"s);
}

TEST(PrefixEnd, AllFfHasNoEnd) {
  EXPECT_EQ(PrefixEnd("\xff\xff\xff"s), "");
  EXPECT_EQ(PrefixEnd(""), "");
}

TEST(PrefixEnd, IsAboveEveryKeyWithThePrefix) {
  const std::string prefix = "s/k:bank/";
  const std::string end = PrefixEnd(prefix);
  for (const std::string& suffix : {""s, "\x00"s, "\xff\xff\xff\xff"s, "zzz"s}) {
    EXPECT_LT(prefix + suffix, end);
  }
}

TEST(StoreKey, AppendAndSplitRoundTrip) {
  std::string full;
  AppendStoreKey(&full, "bank", "balance/alice");
  EXPECT_EQ(full, "s/k:bank/balance/alice");
  std::string_view store, key;
  ASSERT_TRUE(SplitStoreKey(full, &store, &key));
  EXPECT_EQ(store, "bank");
  EXPECT_EQ(key, "balance/alice");  // only the first slash separates store and key
}

TEST(StoreKey, BinaryKeyAndEmptyKey) {
  std::string full;
  AppendStoreKey(&full, "acc", "\x00\xff/"s);
  std::string_view store, key;
  ASSERT_TRUE(SplitStoreKey(full, &store, &key));
  EXPECT_EQ(store, "acc");
  EXPECT_EQ(key, "\x00\xff/"s);

  const std::string prefix = StorePrefix("acc");
  ASSERT_TRUE(SplitStoreKey(prefix, &store, &key));
  EXPECT_EQ(store, "acc");
  EXPECT_EQ(key, "");
}

TEST(StoreKey, RejectsKeysOutsideTheStoreSpace) {
  std::string_view store = "untouched", key = "untouched";
  EXPECT_FALSE(SplitStoreKey("s/_latest", &store, &key));
  EXPECT_FALSE(SplitStoreKey("s/k:bank", &store, &key));  // no separator after the store
  EXPECT_FALSE(SplitStoreKey("s/k", &store, &key));
  EXPECT_FALSE(SplitStoreKey("", &store, &key));
  EXPECT_FALSE(SplitStoreKey("x/k:bank/a", &store, &key));
  EXPECT_EQ(store, "untouched");
  EXPECT_EQ(key, "untouched");
}

TEST(StoreKey, PrefixIsStoreKeyWithEmptyKey) { EXPECT_EQ(StorePrefix("bank"), "s/k:bank/"); }

TEST(UnwrapValue, LiveValue) {
  for (const std::string& raw : {""s, "v"s, "\x00"s, "a\x00\x09"s, "ends with nine\x09"s, "TOMBSTONE"s}) {
    std::string stored;
    AppendLiveValue(&stored, raw);
    std::string_view out = "sentinel";
    EXPECT_TRUE(UnwrapValue(stored, &out));
    EXPECT_EQ(out, raw);
  }
}

TEST(UnwrapValue, Tombstone) {
  for (uint64_t version : std::vector<uint64_t>{1, 42, UINT64_MAX}) {
    std::string stored;
    AppendTombstoneValue(&stored, version);
    EXPECT_EQ(stored, MvccKeyOf("TOMBSTONE", version));
    std::string_view out;
    EXPECT_FALSE(UnwrapValue(stored, &out));
  }
}

TEST(UnwrapValue, MalformedValuesAreCorruption) {
  std::string_view out;
  EXPECT_STRATA_ERROR(UnwrapValue("", &out), ErrorCode::kCorruption);
  EXPECT_STRATA_ERROR(UnwrapValue("abc\x05", &out), ErrorCode::kCorruption);
  EXPECT_STRATA_ERROR(UnwrapValue("\xff"s, &out), ErrorCode::kCorruption);
  // The tombstone length byte without the bytes it promises.
  EXPECT_STRATA_ERROR(UnwrapValue("\x09"s, &out), ErrorCode::kCorruption);
  EXPECT_STRATA_ERROR(UnwrapValue("abc\x09"s, &out), ErrorCode::kCorruption);
  EXPECT_STRATA_ERROR(UnwrapValue("\x00\x00\x00\x00\x00\x00\x00\x00\x09"s, &out), ErrorCode::kCorruption);
}

}  // namespace
}  // namespace strata::encoding
