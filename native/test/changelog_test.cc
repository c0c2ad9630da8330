// Changelog entries (the payload format) and the Changelog segment files that hold them.
#include "changelog.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "encoding.h"
#include "strata/changelog_entry.h"
#include "strata/mvcc_store.h"
#include "test_util.h"

namespace strata {
namespace {

using namespace std::string_literals;
namespace fs = std::filesystem;

// ---- entry encoding ------------------------------------------------------------------------

// What a visitor saw, flattened so that whole entries compare with one EXPECT_EQ.
struct Visited {
  std::vector<std::pair<std::string, uint32_t>> changesets;
  std::vector<std::pair<std::string, std::optional<std::string>>> pairs;
  bool operator==(const Visited& o) const { return changesets == o.changesets && pairs == o.pairs; }
};

Visited Visit(std::string_view entry, uint64_t* version = nullptr) {
  Visited v;
  uint64_t ver = VisitChangelogEntry(
      entry, {
                 [&](std::string_view name, uint32_t count) { v.changesets.emplace_back(name, count); },
                 [&](std::string_view key, std::optional<std::string_view> value) {
                   v.pairs.emplace_back(std::string(key),
                                        value ? std::optional<std::string>(std::string(*value)) : std::nullopt);
                 },
             });
  if (version) *version = ver;
  return v;
}

std::vector<NamedChangeset> SampleChangesets() {
  return {
      {"bank", {{"alice", "100"s}, {"bob", std::nullopt}, {"empty", ""s}, {"bin\x00\xff"s, "\x00\x01"s}}},
      {"staking", {{"v1", std::nullopt}}},
      {"acc", {}},
  };
}

Visited ExpectedFor(const std::vector<NamedChangeset>& changesets) {
  Visited v;
  for (const auto& cs : changesets) {
    v.changesets.emplace_back(cs.name, static_cast<uint32_t>(cs.pairs.size()));
    for (const auto& p : cs.pairs) v.pairs.emplace_back(p.key, p.value);
  }
  return v;
}

TEST(ChangelogEntry, RoundTripsSetsDeletesAndEmptyValues) {
  auto changesets = SampleChangesets();
  std::string entry = EncodeChangelogEntry(77, changesets);
  uint64_t version = 0;
  Visited seen = Visit(entry, &version);
  EXPECT_EQ(version, 77u);
  EXPECT_EQ(ChangelogEntryVersion(entry), 77u);
  EXPECT_TRUE(seen == ExpectedFor(changesets));
  ASSERT_EQ(seen.pairs.size(), 5u);
  // An empty value is a set, not a delete.
  EXPECT_EQ(seen.pairs[2].second, std::optional<std::string>(""));
  EXPECT_EQ(seen.pairs[1].second, std::nullopt);
}

TEST(ChangelogEntry, EncoderMatchesEncodeChangelogEntry) {
  ChangelogEntryEncoder encoder(5, 64);
  encoder.BeginChangeset("bank", 2);
  encoder.AddPair("k1", std::string_view("value"));
  encoder.AddPair("k2", std::nullopt);
  encoder.BeginChangeset("gov", 1);
  encoder.AddPair("p", std::string_view(""));
  EXPECT_EQ(encoder.logical_bytes(), 2u + 5u + 2u + 1u);
  std::string entry = encoder.Finish();
  EXPECT_EQ(entry, EncodeChangelogEntry(5, {{"bank", {{"k1", "value"s}, {"k2", std::nullopt}}},
                                           {"gov", {{"p", ""s}}}}));
}

TEST(ChangelogEntry, EmptyChangesetListKeepsVersion) {
  for (uint64_t v : std::vector<uint64_t>{0, 1, UINT64_MAX}) {
    std::string entry = EncodeChangelogEntry(v, {});
    EXPECT_EQ(entry.size(), 12u);
    uint64_t version = 1234;
    Visited seen = Visit(entry, &version);
    EXPECT_EQ(version, v);
    EXPECT_TRUE(seen.changesets.empty());
    EXPECT_TRUE(seen.pairs.empty());
  }
}

TEST(ChangelogEntry, DocumentedWireFormat) {
  std::string entry = EncodeChangelogEntry(0x0102, {{"s", {{"k", "v"s}, {"d", std::nullopt}}}});
  std::string expected =
      "\x02\x01\x00\x00\x00\x00\x00\x00"s  // version
      "\x01\x00\x00\x00"s                  // one changeset
      "\x01\x00\x00\x00s"s                 // name
      "\x02\x00\x00\x00"s                  // two pairs
      "\x00\x01\x00\x00\x00k\x01\x00\x00\x00v"s
      "\x01\x01\x00\x00\x00" "d"s;
  EXPECT_EQ(entry, expected);
}

TEST(ChangelogEntry, EmptyKeyIsInvalidArgument) {
  ChangelogEntryEncoder encoder(1);
  encoder.BeginChangeset("bank", 1);
  EXPECT_STRATA_ERROR(encoder.AddPair("", std::string_view("v")), ErrorCode::kInvalidArgument);
  EXPECT_STRATA_ERROR(encoder.AddPair("", std::nullopt), ErrorCode::kInvalidArgument);
  EXPECT_STRATA_ERROR(EncodeChangelogEntry(1, {{"bank", {{"", "v"s}}}}), ErrorCode::kInvalidArgument);
}

TEST(ChangelogEntry, EmptyStoreNameIsInvalidArgument) {
  ChangelogEntryEncoder encoder(1);
  EXPECT_STRATA_ERROR(encoder.BeginChangeset("", 0), ErrorCode::kInvalidArgument);
  EXPECT_STRATA_ERROR(EncodeChangelogEntry(1, {{"", {{"k", "v"s}}}}), ErrorCode::kInvalidArgument);
}

// A changeset whose pair count disagrees with its pairs would decode as garbage; the encoder
// must refuse to produce it.
TEST(ChangelogEntry, PairCountMustMatchTheAnnouncedCount) {
  {
    ChangelogEntryEncoder fewer(1);
    fewer.BeginChangeset("bank", 2);
    fewer.AddPair("k", std::string_view("v"));
    EXPECT_STRATA_ERROR(fewer.Finish(), ErrorCode::kInvalidArgument);
  }
  {
    ChangelogEntryEncoder more(1);
    more.BeginChangeset("bank", 0);
    more.AddPair("k", std::nullopt);
    EXPECT_STRATA_ERROR(more.Finish(), ErrorCode::kInvalidArgument);
  }
  {
    ChangelogEntryEncoder next_too_early(1);
    next_too_early.BeginChangeset("bank", 1);
    EXPECT_STRATA_ERROR(next_too_early.BeginChangeset("gov", 0), ErrorCode::kInvalidArgument);
  }
  ChangelogEntryEncoder exact(1);
  exact.BeginChangeset("bank", 1);
  exact.AddPair("k", std::nullopt);
  exact.BeginChangeset("gov", 0);
  EXPECT_EQ(Visit(exact.Finish()).changesets.size(), 2u);
}

TEST(ChangelogEntry, PairBeforeAnyChangesetIsInvalidArgument) {
  ChangelogEntryEncoder encoder(1);
  EXPECT_STRATA_ERROR(encoder.AddPair("k", std::string_view("v")), ErrorCode::kInvalidArgument);
}

TEST(ChangelogEntry, EveryTruncationIsCorruption) {
  std::string entry = EncodeChangelogEntry(9, SampleChangesets());
  for (size_t len = 0; len < entry.size(); ++len) {
    EXPECT_STRATA_ERROR(Visit(std::string_view(entry).substr(0, len)), ErrorCode::kCorruption) << "length " << len;
  }
  EXPECT_STRATA_ERROR(ChangelogEntryVersion(std::string_view(entry).substr(0, 11)), ErrorCode::kCorruption);
}

TEST(ChangelogEntry, TrailingBytesAreCorruption) {
  std::string entry = EncodeChangelogEntry(9, SampleChangesets()) + "x";
  EXPECT_STRATA_ERROR(Visit(entry), ErrorCode::kCorruption);
}

TEST(ChangelogEntry, UnknownPairKindIsCorruption) {
  std::string entry = EncodeChangelogEntry(3, {{"s", {{"k", "v"s}}}});
  size_t kind_at = 8 + 4 + 4 + 1 + 4;  // header, name length, name, pair count
  ASSERT_EQ(entry[kind_at], '\x00');
  entry[kind_at] = '\x02';
  EXPECT_STRATA_ERROR(Visit(entry), ErrorCode::kCorruption);
}

TEST(ChangelogEntry, HugeCountsAndLengthsAreCorruption) {
  std::string entry;
  encoding::PutFixed64LE(&entry, 1);
  encoding::PutFixed32LE(&entry, UINT32_MAX);  // changesets
  encoding::PutFixed32LE(&entry, UINT32_MAX);  // name length far past the end
  EXPECT_STRATA_ERROR(Visit(entry), ErrorCode::kCorruption);

  std::string pairs;
  encoding::PutFixed64LE(&pairs, 1);
  encoding::PutFixed32LE(&pairs, 1);
  encoding::PutFixed32LE(&pairs, 1);
  pairs += "s";
  encoding::PutFixed32LE(&pairs, UINT32_MAX);  // pair count with no pairs behind it
  EXPECT_STRATA_ERROR(Visit(pairs), ErrorCode::kCorruption);
}

// Whatever the bytes, decoding either succeeds or reports corruption; it never crashes or
// throws anything else (the test binary would die or gtest would report the exception).
TEST(ChangelogEntry, GarbageNeverCrashes) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<size_t> len(0, 64);
  for (int i = 0; i < 5000; ++i) {
    std::string garbage(len(rng), '\0');
    for (char& c : garbage) c = static_cast<char>(byte(rng));
    auto code = test::ErrorCodeOf([&] { Visit(garbage); });
    if (code) EXPECT_EQ(*code, ErrorCode::kCorruption);
  }
  std::string entry = EncodeChangelogEntry(9, SampleChangesets());
  for (size_t i = 8; i < entry.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = entry;
      damaged[i] = static_cast<char>(damaged[i] ^ (1 << bit));
      auto code = test::ErrorCodeOf([&] { Visit(damaged); });
      if (code) EXPECT_EQ(*code, ErrorCode::kCorruption) << "byte " << i << " bit " << bit;
    }
  }
}

// ---- Changelog segments ----------------------------------------------------------------------

// A valid entry whose size does not depend on `version` or `tag` length (tags are padded), so
// frame sizes are predictable for rotation tests.
std::string Entry(uint64_t version, const std::string& tag = "") {
  std::string value = tag;
  value.resize(8, '.');
  return EncodeChangelogEntry(version, {{"s", {{"k", value}}}});
}

constexpr uint64_t kFrameHeader = 8;
const uint64_t kFrameSize = kFrameHeader + Entry(1).size();

std::vector<std::string> ReplayFrom(Changelog& log, uint64_t min_version) {
  std::vector<std::string> out;
  log.ReplayFrom(min_version, [&](std::string_view payload) { out.emplace_back(payload); });
  return out;
}

std::vector<uint64_t> ReplayedVersions(Changelog& log, uint64_t version) {
  std::vector<uint64_t> out;
  for (const auto& p : ReplayFrom(log, version)) out.push_back(ChangelogEntryVersion(p));
  return out;
}

std::vector<std::string> SegmentNames(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string SegmentName(uint64_t first_index) {
  std::string digits = std::to_string(first_index);
  return std::string(20 - digits.size(), '0') + digits;
}

std::string SegmentPath(const std::string& dir, uint64_t first_index) {
  return (fs::path(dir) / SegmentName(first_index)).string();
}

void AppendBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << bytes;
  ASSERT_TRUE(out.good());
}

void FlipByte(const std::string& path, uint64_t offset) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.get(c);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(c ^ 0x5a));
  ASSERT_TRUE(f.good());
}

// Appends entries at versions first..last and returns nothing; the log's indexes follow.
void AppendVersions(Changelog& log, uint64_t first, uint64_t last) {
  for (uint64_t v = first; v <= last; ++v) log.Append(Entry(v, "v" + std::to_string(v)));
}

TEST(Changelog, EmptyLogStartsAtIndexOne) {
  test::TempDir dir;
  Changelog log(dir.Sub("log"));
  EXPECT_EQ(log.first_index(), 1u);
  EXPECT_EQ(log.last_index(), 0u);
  EXPECT_TRUE(ReplayFrom(log, 0).empty());
  EXPECT_EQ(SegmentNames(dir.Sub("log")), std::vector<std::string>{SegmentName(1)});
}

TEST(Changelog, AppendReturnsContiguousIndexesAndReplaysInOrder) {
  test::TempDir dir;
  Changelog log(dir.path());
  std::vector<std::string> payloads;
  for (uint64_t v = 1; v <= 5; ++v) {
    payloads.push_back(Entry(v * 10, "p" + std::to_string(v)));
    EXPECT_EQ(log.Append(payloads.back()), v);
  }
  EXPECT_EQ(log.first_index(), 1u);
  EXPECT_EQ(log.last_index(), 5u);
  EXPECT_EQ(ReplayFrom(log, 0), payloads);
}

TEST(Changelog, ReopenKeepsEntriesAndContinuesIndexes) {
  test::TempDir dir;
  {
    Changelog log(dir.path());
    AppendVersions(log, 1, 3);
  }
  Changelog log(dir.path());
  EXPECT_EQ(log.repaired_bytes(), 0u);
  EXPECT_EQ(log.last_index(), 3u);
  EXPECT_EQ(ReplayedVersions(log, 0), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(log.Append(Entry(4)), 4u);
  EXPECT_EQ(ReplayedVersions(log, 0), (std::vector<uint64_t>{1, 2, 3, 4}));
}

TEST(Changelog, ReplayFromSkipsEntriesBelowTheVersion) {
  test::TempDir dir;
  Changelog log(dir.path());
  AppendVersions(log, 1, 6);
  EXPECT_EQ(ReplayedVersions(log, 4), (std::vector<uint64_t>{4, 5, 6}));
  EXPECT_EQ(ReplayedVersions(log, 6), (std::vector<uint64_t>{6}));
  EXPECT_TRUE(ReplayedVersions(log, 7).empty());
  EXPECT_TRUE(ReplayedVersions(log, UINT64_MAX).empty());
}

TEST(Changelog, TornTailIsCutAtLastGoodEntry) {
  test::TempDir dir;
  {
    Changelog log(dir.path());
    AppendVersions(log, 1, 3);
  }
  const std::string segment = SegmentPath(dir.path(), 1);
  ASSERT_EQ(fs::file_size(segment), 3 * kFrameSize);
  fs::resize_file(segment, 3 * kFrameSize - 3);

  {
    Changelog log(dir.path());
    EXPECT_EQ(log.repaired_bytes(), kFrameSize - 3);
    EXPECT_EQ(fs::file_size(segment), 2 * kFrameSize);
    EXPECT_EQ(log.last_index(), 2u);
    EXPECT_EQ(ReplayedVersions(log, 0), (std::vector<uint64_t>{1, 2}));
    // The torn entry's index is reused by the next append.
    EXPECT_EQ(log.Append(Entry(3, "again")), 3u);
  }
  Changelog log(dir.path());
  EXPECT_EQ(log.repaired_bytes(), 0u);
  auto replayed = ReplayFrom(log, 0);
  ASSERT_EQ(replayed.size(), 3u);
  EXPECT_EQ(replayed[2], Entry(3, "again"));
}

TEST(Changelog, TornFrameHeaderIsCut) {
  test::TempDir dir;
  {
    Changelog log(dir.path());
    AppendVersions(log, 1, 2);
  }
  AppendBytes(SegmentPath(dir.path(), 1), "\x20\x00\x00"s);  // fewer bytes than a header
  Changelog log(dir.path());
  EXPECT_EQ(log.repaired_bytes(), 3u);
  EXPECT_EQ(log.last_index(), 2u);
  EXPECT_EQ(log.Append(Entry(3)), 3u);
  EXPECT_EQ(ReplayedVersions(log, 0), (std::vector<uint64_t>{1, 2, 3}));
}

TEST(Changelog, AppendedGarbageIsCut) {
  test::TempDir dir;
  {
    Changelog log(dir.path());
    AppendVersions(log, 1, 2);
  }
  const std::string garbage = "this is not a changelog frame, only noise after a crash";
  AppendBytes(SegmentPath(dir.path(), 1), garbage);
  Changelog log(dir.path());
  EXPECT_EQ(log.repaired_bytes(), garbage.size());
  EXPECT_EQ(fs::file_size(SegmentPath(dir.path(), 1)), 2 * kFrameSize);
  EXPECT_EQ(log.Append(Entry(3)), 3u);
  EXPECT_EQ(ReplayedVersions(log, 0), (std::vector<uint64_t>{1, 2, 3}));
}

// The last entry was written in full (and synced, so acknowledged): a byte of it flipped
// afterwards is damage, never a torn tail to drop.
TEST(Changelog, ChecksumMismatchInTheCompleteLastFrameIsCorruption) {
  test::TempDir dir;
  {
    Changelog log(dir.path());
    AppendVersions(log, 1, 3);
  }
  const std::string segment = SegmentPath(dir.path(), 1);
  FlipByte(segment, 2 * kFrameSize + kFrameHeader + 14);
  try {
    Changelog log(dir.path());
    ADD_FAILURE() << "a damaged complete last entry was accepted";
  } catch (const ChangelogCorruption& e) {
    EXPECT_EQ(e.path(), segment);
    EXPECT_EQ(e.offset(), 2 * kFrameSize);
    EXPECT_EQ(e.index(), 3u);
    EXPECT_EQ(e.code(), ErrorCode::kCorruption);
  }
  EXPECT_EQ(fs::file_size(segment), 3 * kFrameSize);  // nothing was cut
}

// A damaged length field of the last entry makes the frame look longer than the file (as a
// torn tail does) or shorter; either way the complete entry behind it proves it was written.
TEST(Changelog, DamagedLengthOfTheLastEntryIsCorruption) {
  for (const uint64_t byte : {0, 1, 2, 3}) {
    for (const int delta : {+1, -1}) {
      test::TempDir dir;
      {
        Changelog log(dir.path());
        AppendVersions(log, 1, 3);
      }
      const std::string segment = SegmentPath(dir.path(), 1);
      {
        std::fstream f(segment, std::ios::binary | std::ios::in | std::ios::out);
        f.seekg(static_cast<std::streamoff>(2 * kFrameSize + byte));
        char c = 0;
        f.get(c);
        f.seekp(static_cast<std::streamoff>(2 * kFrameSize + byte));
        f.put(static_cast<char>(static_cast<unsigned char>(c) + delta));
        ASSERT_TRUE(f.good());
      }
      try {
        Changelog log(dir.path());
        ADD_FAILURE() << "length byte " << byte << " changed by " << delta << " was read as a torn tail";
      } catch (const ChangelogCorruption& e) {
        EXPECT_EQ(e.path(), segment);
        EXPECT_EQ(e.offset(), 2 * kFrameSize);
        EXPECT_EQ(e.index(), 3u);
      }
      EXPECT_EQ(fs::file_size(segment), 3 * kFrameSize);
      // A reader that tolerates a torn tail must not tolerate this either.
      EXPECT_STRATA_ERROR(Changelog::ReadOnlyReplay(dir.path(), 0, UINT64_MAX, [](std::string_view) {}),
                          ErrorCode::kCorruption);
    }
  }
}

// A crash mid-append stops the file anywhere inside the last frame: every such cut is a torn
// tail, repaired silently, whatever entry it cuts.
TEST(Changelog, EveryCutInsideTheLastFrameIsATornTail) {
  const std::string big = EncodeChangelogEntry(4, {{"bank", {{"k1", "v1"}, {"k2", std::nullopt}}}, {"evm", {{"k3", std::string(40, 'x')}}}});
  const uint64_t big_frame = kFrameHeader + big.size();
  for (uint64_t keep = 1; keep < big_frame; ++keep) {
    test::TempDir dir;
    {
      Changelog log(dir.path());
      AppendVersions(log, 1, 3);
      log.Append(big);
    }
    const std::string segment = SegmentPath(dir.path(), 1);
    fs::resize_file(segment, 3 * kFrameSize + keep);
    std::vector<uint64_t> read_only;
    Changelog::ReadOnlyReplay(dir.path(), 0, UINT64_MAX,
                              [&](std::string_view e) { read_only.push_back(ChangelogEntryVersion(e)); });
    EXPECT_EQ(read_only, (std::vector<uint64_t>{1, 2, 3})) << "cut at " << keep;
    Changelog log(dir.path());
    EXPECT_EQ(log.repaired_bytes(), keep) << "cut at " << keep;
    EXPECT_EQ(log.last_index(), 3u);
    EXPECT_EQ(fs::file_size(segment), 3 * kFrameSize);
  }
}

// A filesystem that grew the file before the data reached the disk (power loss) leaves
// zeros: nothing of that entry was written, so it is a torn tail.
TEST(Changelog, ZeroFilledTailIsCut) {
  test::TempDir dir;
  {
    Changelog log(dir.path());
    AppendVersions(log, 1, 2);
  }
  AppendBytes(SegmentPath(dir.path(), 1), std::string(kFrameSize, '\0'));
  Changelog log(dir.path());
  EXPECT_EQ(log.repaired_bytes(), kFrameSize);
  EXPECT_EQ(log.last_index(), 2u);
}

TEST(Changelog, ForeignFilesInTheDirectoryAreIgnored) {
  test::TempDir dir;
  AppendBytes(dir.Sub("README"), "not a segment");
  AppendBytes(dir.Sub("0000000000000000000x"), "not a segment either");
  Changelog log(dir.path());
  EXPECT_EQ(log.Append(Entry(1)), 1u);
  EXPECT_EQ(ReplayedVersions(log, 0), (std::vector<uint64_t>{1}));
}

TEST(Changelog, RotatesSegmentsNamedByFirstIndex) {
  test::TempDir dir;
  const uint64_t two_frames = 2 * kFrameSize + 1;
  {
    Changelog log(dir.path(), two_frames);
    AppendVersions(log, 1, 7);
    EXPECT_EQ(log.first_index(), 1u);
    EXPECT_EQ(log.last_index(), 7u);
    EXPECT_EQ(ReplayedVersions(log, 0), (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(ReplayedVersions(log, 5), (std::vector<uint64_t>{5, 6, 7}));
  }
  EXPECT_EQ(SegmentNames(dir.path()),
            (std::vector<std::string>{SegmentName(1), SegmentName(3), SegmentName(5), SegmentName(7)}));
  EXPECT_EQ(fs::file_size(SegmentPath(dir.path(), 3)), 2 * kFrameSize);

  Changelog log(dir.path(), two_frames);
  EXPECT_EQ(log.last_index(), 7u);
  EXPECT_EQ(log.Append(Entry(8)), 8u);  // fits next to entry 7
  EXPECT_EQ(log.Append(Entry(9)), 9u);  // starts a new segment
  EXPECT_EQ(fs::file_size(SegmentPath(dir.path(), 7)), 2 * kFrameSize);
  EXPECT_EQ(fs::file_size(SegmentPath(dir.path(), 9)), kFrameSize);
  EXPECT_EQ(ReplayedVersions(log, 7), (std::vector<uint64_t>{7, 8, 9}));
}

TEST(Changelog, OversizedEntryStillGetsItsOwnSegment) {
  test::TempDir dir;
  Changelog log(dir.path(), 16);
  EXPECT_EQ(log.Append(Entry(1)), 1u);
  EXPECT_EQ(log.Append(Entry(2)), 2u);
  EXPECT_EQ(SegmentNames(dir.path()), (std::vector<std::string>{SegmentName(1), SegmentName(2)}));
  EXPECT_EQ(ReplayedVersions(log, 0), (std::vector<uint64_t>{1, 2}));
}

TEST(Changelog, TornTailThatEmptiesARotatedSegment) {
  test::TempDir dir;
  const uint64_t two_frames = 2 * kFrameSize + 1;
  {
    Changelog log(dir.path(), two_frames);
    AppendVersions(log, 1, 5);  // segments 1, 3, 5; entry 5 alone in the tail
  }
  fs::resize_file(SegmentPath(dir.path(), 5), kFrameSize - 2);
  Changelog log(dir.path(), two_frames);
  EXPECT_EQ(log.last_index(), 4u);
  EXPECT_EQ(log.Append(Entry(5, "retry")), 5u);
  auto replayed = ReplayFrom(log, 0);
  ASSERT_EQ(replayed.size(), 5u);
  EXPECT_EQ(replayed.back(), Entry(5, "retry"));
}

TEST(Changelog, TruncateBeforeDropsOnlyWholeOlderSegments) {
  test::TempDir dir;
  const uint64_t two_frames = 2 * kFrameSize + 1;
  Changelog log(dir.path(), two_frames);
  AppendVersions(log, 1, 7);  // segments 1-2, 3-4, 5-6, 7

  log.TruncateBefore(1);
  EXPECT_EQ(log.first_index(), 1u);
  log.TruncateBefore(4);  // segment 3-4 still holds index 4
  EXPECT_EQ(log.first_index(), 3u);
  EXPECT_EQ(SegmentNames(dir.path()), (std::vector<std::string>{SegmentName(3), SegmentName(5), SegmentName(7)}));
  EXPECT_EQ(ReplayedVersions(log, 0), (std::vector<uint64_t>{3, 4, 5, 6, 7}));

  log.TruncateBefore(1000);  // the tail segment always stays
  EXPECT_EQ(log.first_index(), 7u);
  EXPECT_EQ(log.last_index(), 7u);
  EXPECT_EQ(SegmentNames(dir.path()), std::vector<std::string>{SegmentName(7)});
  EXPECT_EQ(log.Append(Entry(8)), 8u);
  EXPECT_EQ(ReplayedVersions(log, 0), (std::vector<uint64_t>{7, 8}));
}

TEST(Changelog, TruncatedLogReopensAtItsFirstRemainingSegment) {
  test::TempDir dir;
  const uint64_t two_frames = 2 * kFrameSize + 1;
  {
    Changelog log(dir.path(), two_frames);
    AppendVersions(log, 1, 6);
    log.TruncateBefore(5);
  }
  Changelog log(dir.path(), two_frames);
  EXPECT_EQ(log.first_index(), 5u);
  EXPECT_EQ(log.last_index(), 6u);
  EXPECT_EQ(ReplayedVersions(log, 0), (std::vector<uint64_t>{5, 6}));
}

// Only the tail can be torn by a crash; damage further back means lost entries, so replay must
// refuse rather than silently skip them.
TEST(Changelog, DamageInAnOlderSegmentIsCorruptionOnReplay) {
  test::TempDir dir;
  const uint64_t two_frames = 2 * kFrameSize + 1;
  {
    Changelog log(dir.path(), two_frames);
    AppendVersions(log, 1, 5);
  }
  FlipByte(SegmentPath(dir.path(), 1), kFrameSize + kFrameHeader + 14);
  Changelog log(dir.path(), two_frames);
  EXPECT_EQ(log.last_index(), 5u);
  EXPECT_STRATA_ERROR(ReplayFrom(log, 0), ErrorCode::kCorruption);
  EXPECT_EQ(fs::file_size(SegmentPath(dir.path(), 1)), 2 * kFrameSize);  // not "repaired"
}

TEST(Changelog, TruncateAfterDropsLaterEntriesAcrossSegments) {
  test::TempDir dir;
  const uint64_t two_frames = 2 * kFrameSize + 1;
  {
    Changelog log(dir.path(), two_frames);
    AppendVersions(log, 1, 7);  // segments 1-2, 3-4, 5-6, 7
    log.TruncateAfter(3);
    EXPECT_EQ(log.last_index(), 3u);
    EXPECT_EQ(SegmentNames(dir.path()), (std::vector<std::string>{SegmentName(1), SegmentName(3)}));
    EXPECT_EQ(ReplayedVersions(log, 0), (std::vector<uint64_t>{1, 2, 3}));
    EXPECT_EQ(log.Append(Entry(4, "again")), 4u);
    log.Sync();
    log.TruncateAfter(10);  // nothing above: unchanged
    EXPECT_EQ(log.last_index(), 4u);
  }
  Changelog log(dir.path(), two_frames);
  EXPECT_EQ(log.repaired_bytes(), 0u);
  EXPECT_EQ(log.last_index(), 4u);
  auto replayed = ReplayFrom(log, 0);
  ASSERT_EQ(replayed.size(), 4u);
  EXPECT_EQ(replayed.back(), Entry(4, "again"));
  log.TruncateAfter(0);
  EXPECT_EQ(log.last_index(), 0u);
  EXPECT_TRUE(ReplayFrom(log, 0).empty());
  EXPECT_EQ(log.Append(Entry(1)), 1u);
}

TEST(Changelog, ReplayVersionRangeStopsAtTheLastVersionAndIgnoresATornTail) {
  test::TempDir dir;
  const uint64_t two_frames = 2 * kFrameSize + 1;
  Changelog log(dir.path(), two_frames);
  AppendVersions(log, 1, 7);  // segments 1-2, 3-4, 5-6, 7
  auto range = [&](uint64_t lo, uint64_t hi) {
    std::vector<uint64_t> versions;
    log.ReplayVersionRange(lo, hi, [&](std::string_view e) { versions.push_back(ChangelogEntryVersion(e)); });
    return versions;
  };
  EXPECT_EQ(range(2, 5), (std::vector<uint64_t>{2, 3, 4, 5}));
  EXPECT_EQ(range(5, 5), (std::vector<uint64_t>{5}));
  EXPECT_EQ(range(6, 100), (std::vector<uint64_t>{6, 7}));
  EXPECT_TRUE(range(5, 4).empty());
  // Half a frame being appended after entry 7 must not disturb a replay that ends at 7.
  {
    std::ofstream out(SegmentPath(dir.path(), 7), std::ios::binary | std::ios::app);
    out.write("\x40\x00\x00\x00junk", 8);
  }
  EXPECT_EQ(range(7, 7), (std::vector<uint64_t>{7}));
  EXPECT_STRATA_ERROR(range(7, 8), ErrorCode::kCorruption);
}

}  // namespace
}  // namespace strata
