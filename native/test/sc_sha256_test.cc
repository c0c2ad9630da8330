#include "sc/sha256.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "sc_test_util.h"

namespace strata::sc {
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

}  // namespace
}  // namespace strata::sc
