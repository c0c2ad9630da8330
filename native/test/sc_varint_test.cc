#include "sc/varint.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "sc_test_util.h"

namespace strata::sc {
namespace {

using test::Hex;

std::string Varint(int64_t v) {
  std::string out;
  PutVarint(&out, v);
  return Hex(out);
}

std::string Uvarint(uint64_t v) {
  std::string out;
  PutUvarint(&out, v);
  return Hex(out);
}

// Expected bytes follow Go's encoding/binary documentation: zig-zag maps 0,-1,1,-2,... to
// 0,1,2,3,..., then 7 bits a byte, low group first, continuation bit on all but the last.
TEST(Varint, SmallSignedValuesFitOneByte) {
  EXPECT_EQ(Varint(0), "00");
  EXPECT_EQ(Varint(1), "02");
  EXPECT_EQ(Varint(-1), "01");
  EXPECT_EQ(Varint(2), "04");
  EXPECT_EQ(Varint(-2), "03");
  EXPECT_EQ(Varint(63), "7e");
  EXPECT_EQ(Varint(-64), "7f");
}

// 64 and -65 are the first values whose zig-zag form (128, 129) needs a second byte.
TEST(Varint, SignedValuesPastOneByteTakeTwo) {
  EXPECT_EQ(Varint(64), "8001");
  EXPECT_EQ(Varint(-65), "8101");
  EXPECT_EQ(Varint(101), "ca01");
  EXPECT_EQ(Varint(8191), "fe7f");
  EXPECT_EQ(Varint(8192), "808001");
}

TEST(Varint, SignedExtremes) {
  EXPECT_EQ(Varint(std::numeric_limits<int64_t>::max()), "feffffffffffffffff01");
  EXPECT_EQ(Varint(std::numeric_limits<int64_t>::min()), "ffffffffffffffffff01");
  EXPECT_EQ(Varint(int64_t{1} << 32), "8080808020");
}

TEST(Varint, ZigZagInterleavesSigns) {
  EXPECT_EQ(ZigZag(0), 0u);
  EXPECT_EQ(ZigZag(-1), 1u);
  EXPECT_EQ(ZigZag(1), 2u);
  EXPECT_EQ(ZigZag(-2), 3u);
  EXPECT_EQ(ZigZag(std::numeric_limits<int64_t>::max()), std::numeric_limits<uint64_t>::max() - 1);
  EXPECT_EQ(ZigZag(std::numeric_limits<int64_t>::min()), std::numeric_limits<uint64_t>::max());
}

TEST(Uvarint, Encodings) {
  EXPECT_EQ(Uvarint(0), "00");
  EXPECT_EQ(Uvarint(1), "01");
  EXPECT_EQ(Uvarint(32), "20");
  EXPECT_EQ(Uvarint(127), "7f");
  EXPECT_EQ(Uvarint(128), "8001");
  EXPECT_EQ(Uvarint(300), "ac02");
  EXPECT_EQ(Uvarint(16384), "808001");
  EXPECT_EQ(Uvarint(std::numeric_limits<uint64_t>::max()), "ffffffffffffffffff01");
}

TEST(LengthPrefixed, PrefixesTheUvarintLength) {
  std::string out;
  PutLengthPrefixed(&out, "hello");
  EXPECT_EQ(out, std::string("\x05hello"));

  std::string empty;
  PutLengthPrefixed(&empty, "");
  EXPECT_EQ(Hex(empty), "00");

  std::string long_value;
  PutLengthPrefixed(&long_value, std::string(200, 'x'));
  EXPECT_EQ(Hex(long_value.substr(0, 2)), "c801");
  EXPECT_EQ(long_value.size(), 202u);
}

}  // namespace
}  // namespace strata::sc
