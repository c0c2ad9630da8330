#include "sc/sha256.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "sc_test_util.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace strata::sc {

// Failure messages name the engine instead of dumping its bytes. Declared in the engine's
// namespace so gtest finds it by argument-dependent lookup.
void PrintTo(Sha256Engine engine, std::ostream* os) { *os << Sha256EngineName(engine); }

namespace {

using test::Hex;

// FIPS 180-4 test vectors, as published by NIST CSRC ("Example Algorithms", SHA256.pdf and
// SHA2_Additional.pdf) and repeated in the NIST CAVP SHA test vectors.
TEST(Sha256, NistEmptyMessage) {
  EXPECT_EQ(Hex(Sha256Of("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, NistAbc) {
  EXPECT_EQ(Hex(Sha256Of("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

// 448 bits: the padding no longer fits the first block, so the digest takes two blocks.
TEST(Sha256, Nist448BitMessage) {
  EXPECT_EQ(Hex(Sha256Of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, Nist896BitMessage) {
  EXPECT_EQ(Hex(Sha256Of("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                         "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
}

TEST(Sha256, NistOneMillionA) {
  EXPECT_EQ(Hex(Sha256Of(std::string(1'000'000, 'a'))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Lengths around the padding boundaries (55/56 bytes: length field fits or not; 63/64/65:
// block edges; 119/120/128: the same one block later). Message byte i is (7i + 3) mod 256.
// Expected digests were computed with Python's hashlib (OpenSSL), an independent
// implementation.
TEST(Sha256, PaddingBoundaryLengths) {
  const std::pair<size_t, const char*> kCases[] = {
      {55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"},
      {56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"},
      {63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"},
      {64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"},
      {65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"},
      {119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e"},
      {120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5"},
      {128, "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6"},
  };
  for (const auto& [length, expected] : kCases) {
    std::string message;
    for (size_t i = 0; i < length; ++i) message.push_back(static_cast<char>((7 * i + 3) & 0xff));
    EXPECT_EQ(Hex(Sha256Of(message)), expected) << "length " << length;
  }
}

// Feeding a message in two pieces, split anywhere, must not change the digest.
TEST(Sha256, IncrementalUpdatesMatchOneShot) {
  std::string message;
  for (int i = 0; i < 200; ++i) message.push_back(static_cast<char>(i * 31));
  const Sha256Digest expected = Sha256Of(message);
  for (size_t split = 0; split <= message.size(); ++split) {
    Sha256 hasher;
    hasher.Update(std::string_view(message).substr(0, split));
    hasher.Update(std::string_view(message).substr(split));
    EXPECT_EQ(hasher.Finish(), expected) << "split at " << split;
  }
}

TEST(Sha256, FinishResetsForTheNextMessage) {
  Sha256 hasher;
  hasher.Update("something else first");
  hasher.Finish();
  hasher.Update("abc");
  EXPECT_EQ(Hex(hasher.Finish()), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, DigestBytesHoldsTheRawDigest) {
  const Sha256Digest digest = Sha256Of("abc");
  const std::string bytes = DigestBytes(digest);
  ASSERT_EQ(bytes.size(), kSha256Size);
  EXPECT_EQ(Hex(bytes), Hex(digest));
}

// ---- engines: every engine this CPU runs must give the portable engine's digests ----

std::vector<Sha256Engine> SupportedEngines() {
  std::vector<Sha256Engine> engines;
  for (Sha256Engine engine : {Sha256Engine::kPortable, Sha256Engine::kShaNi}) {
    if (Sha256EngineSupported(engine)) engines.push_back(engine);
  }
  return engines;
}

std::string RandomBytes(std::mt19937_64& rng, size_t len) {
  std::string out(len, '\0');
  for (char& c : out) c = static_cast<char>(rng());
  return out;
}

// Feeds `message` to `hasher` in 1 to 5 pieces cut at random points; pieces may be empty.
void UpdateInRandomPieces(Sha256& hasher, std::string_view message, std::mt19937_64& rng) {
  const size_t pieces = 1 + rng() % 5;
  std::vector<size_t> cuts = {0, message.size()};
  for (size_t i = 1; i < pieces; ++i) cuts.push_back(rng() % (message.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    hasher.Update(message.substr(cuts[i], cuts[i + 1] - cuts[i]));
  }
}

class Sha256EngineTest : public ::testing::TestWithParam<Sha256Engine> {};

TEST_P(Sha256EngineTest, NistVectors) {
  const Sha256Engine engine = GetParam();
  EXPECT_EQ(Hex(Sha256Of("", engine)),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Hex(Sha256Of("abc", engine)),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Hex(Sha256Of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", engine)),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(Hex(Sha256Of(std::string(1'000'000, 'a'), engine)),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  Sha256 hasher(engine);
  for (int i = 0; i < 1000; ++i) hasher.Update(std::string(1000, 'a'));
  EXPECT_EQ(Hex(hasher.Finish()),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// Thousands of random messages of 0..300 bytes (up to five blocks, so the multi-block path
// and both padding shapes are hit): one-shot and randomly split streaming digests on the
// engine equal the portable engine's one-shot digest.
TEST_P(Sha256EngineTest, MatchesPortableOnRandomInputs) {
  const Sha256Engine engine = GetParam();
  std::mt19937_64 rng(0x5a256 + static_cast<uint64_t>(engine));
  constexpr int kMessages = 4000;
  for (int i = 0; i < kMessages; ++i) {
    const std::string message = RandomBytes(rng, rng() % 301);
    SCOPED_TRACE("message " + std::to_string(i) + ", length " + std::to_string(message.size()));
    const Sha256Digest expected = Sha256Of(message, Sha256Engine::kPortable);
    ASSERT_EQ(Sha256Of(message, engine), expected);
    Sha256 hasher(engine);
    UpdateInRandomPieces(hasher, message, rng);
    ASSERT_EQ(hasher.Finish(), expected);
  }
}

// Every split point of a 300-byte message, so every (pending size, input size) pair the
// block buffering can meet is covered on each engine.
TEST_P(Sha256EngineTest, EverySplitPointMatchesPortable) {
  const Sha256Engine engine = GetParam();
  std::mt19937_64 rng(300);
  const std::string message = RandomBytes(rng, 300);
  const Sha256Digest expected = Sha256Of(message, Sha256Engine::kPortable);
  for (size_t first = 0; first <= message.size(); ++first) {
    for (size_t second = first; second <= message.size(); second += 7) {
      Sha256 hasher(engine);
      hasher.Update(std::string_view(message).substr(0, first));
      hasher.Update(std::string_view(message).substr(first, second - first));
      hasher.Update(std::string_view(message).substr(second));
      ASSERT_EQ(hasher.Finish(), expected) << "splits at " << first << " and " << second;
    }
  }
}

// A hasher reused after Finish starts from the initial state on every engine.
TEST_P(Sha256EngineTest, FinishResets) {
  Sha256 hasher(GetParam());
  hasher.Update(std::string(100, 'x'));
  EXPECT_EQ(hasher.Finish(), Sha256Of(std::string(100, 'x'), Sha256Engine::kPortable));
  hasher.Update("abc");
  EXPECT_EQ(Hex(hasher.Finish()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

INSTANTIATE_TEST_SUITE_P(SupportedEngines, Sha256EngineTest,
                         ::testing::ValuesIn(SupportedEngines()),
                         [](const ::testing::TestParamInfo<Sha256Engine>& info) {
                           return info.param == Sha256Engine::kShaNi ? std::string("ShaNi")
                                                                     : std::string("Portable");
                         });

TEST(Sha256Engine, PortableIsAlwaysSupported) {
  EXPECT_TRUE(Sha256EngineSupported(Sha256Engine::kPortable));
  EXPECT_STREQ(Sha256EngineName(Sha256Engine::kPortable), "portable");
  EXPECT_STREQ(Sha256EngineName(Sha256Engine::kShaNi), "sha-ni");
}

// The default is the accelerated engine whenever the CPU has it, so production code never
// falls back to the slow path on a machine that could do better.
TEST(Sha256Engine, DefaultIsFastestSupported) {
  const Sha256Engine expected = Sha256EngineSupported(Sha256Engine::kShaNi)
                                    ? Sha256Engine::kShaNi
                                    : Sha256Engine::kPortable;
  EXPECT_EQ(DefaultSha256Engine(), expected);
}

#if defined(__x86_64__) || defined(__i386__)
// Detection agrees with what CPUID itself reports (leaf 7, EBX bit 29 = SHA), so a machine
// with SHA-NI really runs the SHA-NI tests above.
TEST(Sha256Engine, DetectsShaExtensionsFromCpuid) {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool has_leaf7 = __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) != 0;
  const bool cpuid_sha = has_leaf7 && (ebx & (1u << 29)) != 0;
  unsigned ecx1 = 0;
  const bool has_leaf1 = __get_cpuid(1, &eax, &ebx, &ecx1, &edx) != 0;
  const bool cpuid_sse41 = has_leaf1 && (ecx1 & (1u << 19)) != 0;
  EXPECT_EQ(Sha256EngineSupported(Sha256Engine::kShaNi), cpuid_sha && cpuid_sse41);
}
#endif

}  // namespace
}  // namespace strata::sc
