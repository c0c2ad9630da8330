#include "mvcc_comparator.h"

#include <gtest/gtest.h>
#include <rocksdb/comparator.h>
#include <rocksdb/slice.h>
#include <rocksdb/slice_transform.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "encoding.h"

namespace strata {
namespace {

using namespace std::string_literals;

const std::vector<uint64_t> kVersions = {0, 1, 2, 255, 256, 1000000, UINT64_MAX - 1, UINT64_MAX};

std::string Key(std::string_view user_key, uint64_t version) {
  std::string out;
  encoding::AppendMvccKey(&out, user_key, version);
  return out;
}

int Cmp(const std::string& a, const std::string& b) { return MvccComparator()->Compare(a, b); }

int Sign(int v) { return (v > 0) - (v < 0); }

// The order the comparator promises for well-formed keys: user key bytewise, then the
// version-0 form, then versions newest first.
std::tuple<std::string, bool, uint64_t> ExpectedRank(std::string_view user_key, uint64_t version) {
  return {std::string(user_key), version != 0, UINT64_MAX - version};
}

TEST(MvccComparator, NameIsStable) {
  // The name is stored in the MANIFEST; changing it makes existing stores unopenable.
  EXPECT_STREQ(MvccComparator()->Name(), "ss_pebbledb_comparator");
  EXPECT_EQ(MvccComparator(), MvccComparator());
}

TEST(MvccComparator, UserKeyOrderBeatsVersionForPrefixKeys) {
  // Bytewise on the encoded form, "a" at an old version would sort after "a\x00" (its
  // separator byte is followed by 0xff..), so this is where a naive comparator goes wrong.
  const std::vector<std::string> ordered_user_keys = {""s, "\x00"s, "a"s, "a\x00"s, "a\x00\x00"s, "a\x01"s,
                                                      "ab"s, "a\xff"s, "b"s, "\xff"s, "\xff\xff"s};
  for (size_t i = 0; i < ordered_user_keys.size(); ++i) {
    for (size_t j = i + 1; j < ordered_user_keys.size(); ++j) {
      for (uint64_t vi : kVersions) {
        for (uint64_t vj : kVersions) {
          std::string lo = Key(ordered_user_keys[i], vi), hi = Key(ordered_user_keys[j], vj);
          ASSERT_LT(Cmp(lo, hi), 0) << testing::PrintToString(ordered_user_keys[i]) << "@" << vi << " vs "
                                    << testing::PrintToString(ordered_user_keys[j]) << "@" << vj;
          ASSERT_GT(Cmp(hi, lo), 0);
        }
      }
    }
  }
}

TEST(MvccComparator, NewerVersionsFirstAfterTheVersionZeroForm) {
  for (const std::string& user_key : {""s, "a"s, "a\x00"s, "\xff"s}) {
    EXPECT_LT(Cmp(Key(user_key, 0), Key(user_key, UINT64_MAX)), 0);
    EXPECT_LT(Cmp(Key(user_key, 0), Key(user_key, 1)), 0);
    EXPECT_LT(Cmp(Key(user_key, UINT64_MAX), Key(user_key, UINT64_MAX - 1)), 0);
    EXPECT_LT(Cmp(Key(user_key, 256), Key(user_key, 255)), 0);
    EXPECT_LT(Cmp(Key(user_key, 2), Key(user_key, 1)), 0);
    EXPECT_EQ(Cmp(Key(user_key, 5), Key(user_key, 5)), 0);
  }
}

TEST(MvccComparator, AntisymmetricAndConsistentWithEqual) {
  std::vector<std::string> keys;
  for (const std::string& user_key : {""s, "\x00"s, "a"s, "a\x00"s, "ab"s, "\xff"s}) {
    for (uint64_t v : kVersions) keys.push_back(Key(user_key, v));
  }
  // Malformed keys must still be ordered consistently, even if not meaningfully.
  keys.push_back("abc");
  keys.push_back("\x09"s);
  keys.push_back("ab\x05"s);
  const rocksdb::Comparator* cmp = MvccComparator();
  for (const auto& a : keys) {
    for (const auto& b : keys) {
      int ab = cmp->Compare(a, b), ba = cmp->Compare(b, a);
      EXPECT_EQ(Sign(ab), -Sign(ba)) << testing::PrintToString(a) << " vs " << testing::PrintToString(b);
      EXPECT_EQ(ab == 0, cmp->Equal(a, b)) << testing::PrintToString(a) << " vs " << testing::PrintToString(b);
      EXPECT_EQ(ab == 0, a == b);
    }
  }
}

TEST(MvccComparator, RandomKeysSortIntoTheDocumentedTotalOrder) {
  // A small alphabet with the boundary bytes makes prefix relations between user keys common.
  const std::string alphabet = "\x00\x01\x09\x61\xfe\xff"s;
  std::mt19937_64 rng(20240611);
  std::uniform_int_distribution<size_t> len_dist(0, 5), byte_dist(0, alphabet.size() - 1), version_pick(0, 9);
  struct Item {
    std::string encoded;
    std::tuple<std::string, bool, uint64_t> rank;
  };
  std::vector<Item> items;
  for (int i = 0; i < 3000; ++i) {
    std::string user_key;
    for (size_t n = len_dist(rng); n > 0; --n) user_key.push_back(alphabet[byte_dist(rng)]);
    size_t pick = version_pick(rng);
    uint64_t version = pick < kVersions.size() ? kVersions[pick] : rng();
    items.push_back({Key(user_key, version), ExpectedRank(user_key, version)});
  }

  std::vector<Item> by_comparator = items;
  std::sort(by_comparator.begin(), by_comparator.end(),
            [](const Item& a, const Item& b) { return Cmp(a.encoded, b.encoded) < 0; });
  std::vector<Item> by_rank = items;
  std::sort(by_rank.begin(), by_rank.end(), [](const Item& a, const Item& b) { return a.rank < b.rank; });
  for (size_t i = 0; i < items.size(); ++i) {
    ASSERT_EQ(by_comparator[i].rank, by_rank[i].rank) << "position " << i;
  }

  // Transitivity directly, on random triples.
  std::uniform_int_distribution<size_t> idx(0, items.size() - 1);
  for (int i = 0; i < 20000; ++i) {
    const auto& a = items[idx(rng)].encoded;
    const auto& b = items[idx(rng)].encoded;
    const auto& c = items[idx(rng)].encoded;
    if (Cmp(a, b) <= 0 && Cmp(b, c) <= 0) {
      ASSERT_LE(Cmp(a, c), 0);
    }
  }
}

TEST(MvccComparator, ShorteningHooksNeverProduceAnOutOfRangeSeparator) {
  const rocksdb::Comparator* cmp = MvccComparator();
  std::string start = Key("a", 5);
  const std::string limit = Key("a\x00"s, 9);
  cmp->FindShortestSeparator(&start, limit);
  EXPECT_GE(cmp->Compare(start, Key("a", 5)), 0);
  EXPECT_LT(cmp->Compare(start, limit), 0);

  std::string successor = Key("a", 5);
  cmp->FindShortSuccessor(&successor);
  EXPECT_GE(cmp->Compare(successor, Key("a", 5)), 0);
}

TEST(MvccUserKeyExtractor, ReturnsTheUserKey) {
  auto extractor = NewMvccUserKeyExtractor();
  for (const std::string& user_key : {""s, "s/k:bank/a"s, "a\x00"s, "\xff\x09"s}) {
    for (uint64_t v : kVersions) {
      std::string key = Key(user_key, v);
      ASSERT_TRUE(extractor->InDomain(key));
      rocksdb::Slice prefix = extractor->Transform(key);
      EXPECT_EQ(prefix.ToString(), user_key) << "version " << v;
    }
  }
}

}  // namespace
}  // namespace strata
