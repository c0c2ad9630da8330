#include "sc/blake3.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "sc_test_util.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace strata::sc {

// Failure messages name the engine instead of dumping its bytes. Declared in the engine's
// namespace so gtest finds it by argument-dependent lookup.
void PrintTo(Blake3Engine engine, std::ostream* os) { *os << Blake3EngineName(engine); }

namespace {

using test::Hex;

std::string HexOf(const Blake3Digest& digest) {
  return Hex(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

// The official test input: bytes 0, 1, ..., 250 repeating.
std::string TestInput(size_t len) {
  std::string input(len, '\0');
  for (size_t i = 0; i < len; ++i) input[i] = static_cast<char>(i % 251);
  return input;
}

struct Vector {
  size_t input_len;
  const char* hash;  // 131 bytes of extended output, hex
};

// Source: the official BLAKE3 test vectors, test_vectors/test_vectors.json in the public
// BLAKE3-team/BLAKE3 repository (stored copy at commit
// 2f6f56f3477321c9e4742f1c863e45f2cfcbfb5e), field "hash" of every case. Per that file's
// comment, the first 32 bytes of each extended output are also the default-length digest.
const std::vector<Vector>& OfficialVectors() {
  static const std::vector<Vector> kVectors = {
      {0, "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262e00f03e7b69af26b7faaf09fcd333050338ddfe085b8cc869ca98b206c08243a26f5487789e8f660afe6c99ef9e0c52b92e7393024a80459cf91f476f9ffdbda7001c22e159b402631f277ca96f2defdf1078282314e763699a31c5363165421cce14d"},
      {1, "2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213c3a6cb8bf623e20cdb535f8d1a5ffb86342d9c0b64aca3bce1d31f60adfa137b358ad4d79f97b47c3d5e79f179df87a3b9776ef8325f8329886ba42f07fb138bb502f4081cbcec3195c5871e6c23e2cc97d3c69a613eba131e5f1351f3f1da786545e5"},
      {1023, "10108970eeda3eb932baac1428c7a2163b0e924c9a9e25b35bba72b28f70bd11a182d27a591b05592b15607500e1e8dd56bc6c7fc063715b7a1d737df5bad3339c56778957d870eb9717b57ea3d9fb68d1b55127bba6a906a4a24bbd5acb2d123a37b28f9e9a81bbaae360d58f85e5fc9d75f7c370a0cc09b6522d9c8d822f2f28f485"},
      {1024, "42214739f095a406f3fc83deb889744ac00df831c10daa55189b5d121c855af71cf8107265ecdaf8505b95d8fcec83a98a6a96ea5109d2c179c47a387ffbb404756f6eeae7883b446b70ebb144527c2075ab8ab204c0086bb22b7c93d465efc57f8d917f0b385c6df265e77003b85102967486ed57db5c5ca170ba441427ed9afa684e"},
      {1025, "d00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444f4c4a22b4b399155358a994e52bf255de60035742ec71bd08ac275a1b51cc6bfe332b0ef84b409108cda080e6269ed4b3e2c3f7d722aa4cdc98d16deb554e5627be8f955c98e1d5f9565a9194cad0c4285f93700062d9595adb992ae68ff12800ab67a"},
      {2048, "e776b6028c7cd22a4d0ba182a8bf62205d2ef576467e838ed6f2529b85fba24a9a60bf80001410ec9eea6698cd537939fad4749edd484cb541aced55cd9bf54764d063f23f6f1e32e12958ba5cfeb1bf618ad094266d4fc3c968c2088f677454c288c67ba0dba337b9d91c7e1ba586dc9a5bc2d5e90c14f53a8863ac75655461cea8f9"},
      {2049, "5f4d72f40d7a5f82b15ca2b2e44b1de3c2ef86c426c95c1af0b687952256303096de31d71d74103403822a2e0bc1eb193e7aecc9643a76b7bbc0c9f9c52e8783aae98764ca468962b5c2ec92f0c74eb5448d519713e09413719431c802f948dd5d90425a4ecdadece9eb178d80f26efccae630734dff63340285adec2aed3b51073ad3"},
      {3072, "b98cb0ff3623be03326b373de6b9095218513e64f1ee2edd2525c7ad1e5cffd29a3f6b0b978d6608335c09dc94ccf682f9951cdfc501bfe47b9c9189a6fc7b404d120258506341a6d802857322fbd20d3e5dae05b95c88793fa83db1cb08e7d8008d1599b6209d78336e24839724c191b2a52a80448306e0daa84a3fdb566661a37e11"},
      {3073, "7124b49501012f81cc7f11ca069ec9226cecb8a2c850cfe644e327d22d3e1cd39a27ae3b79d68d89da9bf25bc27139ae65a324918a5f9b7828181e52cf373c84f35b639b7fccbb985b6f2fa56aea0c18f531203497b8bbd3a07ceb5926f1cab74d14bd66486d9a91eba99059a98bd1cd25876b2af5a76c3e9eed554ed72ea952b603bf"},
      {4096, "015094013f57a5277b59d8475c0501042c0b642e531b0a1c8f58d2163229e9690289e9409ddb1b99768eafe1623da896faf7e1114bebeadc1be30829b6f8af707d85c298f4f0ff4d9438aef948335612ae921e76d411c3a9111df62d27eaf871959ae0062b5492a0feb98ef3ed4af277f5395172dbe5c311918ea0074ce0036454f620"},
      {4097, "9b4052b38f1c5fc8b1f9ff7ac7b27cd242487b3d890d15c96a1c25b8aa0fb99505f91b0b5600a11251652eacfa9497b31cd3c409ce2e45cfe6c0a016967316c426bd26f619eab5d70af9a418b845c608840390f361630bd497b1ab44019316357c61dbe091ce72fc16dc340ac3d6e009e050b3adac4b5b2c92e722cffdc46501531956"},
      {5120, "9cadc15fed8b5d854562b26a9536d9707cadeda9b143978f319ab34230535833acc61c8fdc114a2010ce8038c853e121e1544985133fccdd0a2d507e8e615e611e9a0ba4f47915f49e53d721816a9198e8b30f12d20ec3689989175f1bf7a300eee0d9321fad8da232ece6efb8e9fd81b42ad161f6b9550a069e66b11b40487a5f5059"},
      {5121, "628bd2cb2004694adaab7bbd778a25df25c47b9d4155a55f8fbd79f2fe154cff96adaab0613a6146cdaabe498c3a94e529d3fc1da2bd08edf54ed64d40dcd6777647eac51d8277d70219a9694334a68bc8f0f23e20b0ff70ada6f844542dfa32cd4204ca1846ef76d811cdb296f65e260227f477aa7aa008bac878f72257484f2b6c95"},
      {6144, "3e2e5b74e048f3add6d21faab3f83aa44d3b2278afb83b80b3c35164ebeca2054d742022da6fdda444ebc384b04a54c3ac5839b49da7d39f6d8a9db03deab32aade156c1c0311e9b3435cde0ddba0dce7b26a376cad121294b689193508dd63151603c6ddb866ad16c2ee41585d1633a2cea093bea714f4c5d6b903522045b20395c83"},
      {6145, "f1323a8631446cc50536a9f705ee5cb619424d46887f3c376c695b70e0f0507f18a2cfdd73c6e39dd75ce7c1c6e3ef238fd54465f053b25d21044ccb2093beb015015532b108313b5829c3621ce324b8e14229091b7c93f32db2e4e63126a377d2a63a3597997d4f1cba59309cb4af240ba70cebff9a23d5e3ff0cdae2cfd54e070022"},
      {7168, "61da957ec2499a95d6b8023e2b0e604ec7f6b50e80a9678b89d2628e99ada77a5707c321c83361793b9af62a40f43b523df1c8633cecb4cd14d00bdc79c78fca5165b863893f6d38b02ff7236c5a9a8ad2dba87d24c547cab046c29fc5bc1ed142e1de4763613bb162a5a538e6ef05ed05199d751f9eb58d332791b8d73fb74e4fce95"},
      {7169, "a003fc7a51754a9b3c7fae0367ab3d782dccf28855a03d435f8cfe74605e781798a8b20534be1ca9eb2ae2df3fae2ea60e48c6fb0b850b1385b5de0fe460dbe9d9f9b0d8db4435da75c601156df9d047f4ede008732eb17adc05d96180f8a73548522840779e6062d643b79478a6e8dbce68927f36ebf676ffa7d72d5f68f050b119c8"},
      {8192, "aae792484c8efe4f19e2ca7d371d8c467ffb10748d8a5a1ae579948f718a2a635fe51a27db045a567c1ad51be5aa34c01c6651c4d9b5b5ac5d0fd58cf18dd61a47778566b797a8c67df7b1d60b97b19288d2d877bb2df417ace009dcb0241ca1257d62712b6a4043b4ff33f690d849da91ea3bf711ed583cb7b7a7da2839ba71309bbf"},
      {8193, "bab6c09cb8ce8cf459261398d2e7aef35700bf488116ceb94a36d0f5f1b7bc3bb2282aa69be089359ea1154b9a9286c4a56af4de975a9aa4a5c497654914d279bea60bb6d2cf7225a2fa0ff5ef56bbe4b149f3ed15860f78b4e2ad04e158e375c1e0c0b551cd7dfc82f1b155c11b6b3ed51ec9edb30d133653bb5709d1dbd55f4e1ff6"},
      {16384, "f875d6646de28985646f34ee13be9a576fd515f76b5b0a26bb324735041ddde49d764c270176e53e97bdffa58d549073f2c660be0e81293767ed4e4929f9ad34bbb39a529334c57c4a381ffd2a6d4bfdbf1482651b172aa883cc13408fa67758a3e47503f93f87720a3177325f7823251b85275f64636a8f1d599c2e49722f42e93893"},
      {31744, "62b6960e1a44bcc1eb1a611a8d6235b6b4b78f32e7abc4fb4c6cdcce94895c47860cc51f2b0c28a7b77304bd55fe73af663c02d3f52ea053ba43431ca5bab7bfea2f5e9d7121770d88f70ae9649ea713087d1914f7f312147e247f87eb2d4ffef0ac978bf7b6579d57d533355aa20b8b77b13fd09748728a5cc327a8ec470f4013226f"},
      {102400, "bc3e3d41a1146b069abffad3c0d44860cf664390afce4d9661f7902e7943e085e01c59dab908c04c3342b816941a26d69c2605ebee5ec5291cc55e15b76146e6745f0601156c3596cb75065a9c57f35585a52e1ac70f69131c23d611ce11ee4ab1ec2c009012d236648e77be9295dd0426f29b764d65de58eb7d01dd42248204f45f8e"},
  };
  return kVectors;
}

constexpr size_t kExtendedSize = 131;

TEST(Blake3, VectorTableIsComplete) {
  ASSERT_EQ(OfficialVectors().size(), 22u);
  for (const Vector& v : OfficialVectors()) {
    EXPECT_EQ(std::string_view(v.hash).size(), 2 * kExtendedSize) << "input_len " << v.input_len;
  }
}

TEST(Blake3, OfficialVectorsDefaultLength) {
  for (const Vector& v : OfficialVectors()) {
    SCOPED_TRACE("input_len " + std::to_string(v.input_len));
    EXPECT_EQ(HexOf(Blake3Of(TestInput(v.input_len))), std::string(v.hash).substr(0, 64));
  }
}

TEST(Blake3, OfficialVectorsExtendedOutput) {
  for (const Vector& v : OfficialVectors()) {
    SCOPED_TRACE("input_len " + std::to_string(v.input_len));
    EXPECT_EQ(Hex(Blake3Xof(TestInput(v.input_len), kExtendedSize)), v.hash);
  }
}

// Every shorter output is a prefix of a longer one: XOF output does not depend on its length.
TEST(Blake3, ShorterOutputIsPrefix) {
  for (const Vector& v : OfficialVectors()) {
    SCOPED_TRACE("input_len " + std::to_string(v.input_len));
    std::string input = TestInput(v.input_len);
    for (size_t len : {0, 1, 31, 33, 63, 64, 65, 128}) {
      EXPECT_EQ(Hex(Blake3Xof(input, len)), std::string(v.hash).substr(0, 2 * len));
    }
  }
}

// Splitting the input at awkward points (inside blocks, on block and chunk boundaries) must
// not change the result.
TEST(Blake3, IncrementalUpdatesMatchOneShot) {
  for (const Vector& v : OfficialVectors()) {
    for (size_t piece : {1, 7, 63, 64, 65, 1023, 1024, 1025, 4096}) {
      SCOPED_TRACE("input_len " + std::to_string(v.input_len) + " piece " + std::to_string(piece));
      std::string input = TestInput(v.input_len);
      Blake3 hasher;
      for (size_t at = 0; at < input.size(); at += piece) {
        hasher.Update(std::string_view(input).substr(at, piece));
      }
      std::string out(kExtendedSize, '\0');
      hasher.Finalize(reinterpret_cast<uint8_t*>(out.data()), out.size());
      EXPECT_EQ(Hex(out), v.hash);
    }
  }
}

// Finalize leaves the hasher usable: hashing more afterwards equals hashing all at once.
TEST(Blake3, FinalizeDoesNotConsumeState) {
  std::string input = TestInput(3073);
  Blake3 hasher;
  hasher.Update(std::string_view(input).substr(0, 2049));
  EXPECT_EQ(hasher.Finalize(), Blake3Of(std::string_view(input).substr(0, 2049)));
  hasher.Update(std::string_view(input).substr(2049));
  EXPECT_EQ(hasher.Finalize(), Blake3Of(input));
}

// A long output crosses many 64-byte root blocks; check it against the output counter rule by
// comparing overlapping reads of different lengths.
TEST(Blake3, LongOutputIsConsistent) {
  std::string long_out = Blake3Xof("lthash", 2048);
  ASSERT_EQ(long_out.size(), 2048u);
  EXPECT_EQ(Blake3Xof("lthash", 1000), long_out.substr(0, 1000));
  EXPECT_NE(long_out.substr(0, 64), long_out.substr(64, 64));
}

// ---- engines: every engine this CPU runs must give the portable engine's output ----

std::vector<Blake3Engine> SupportedEngines() {
  std::vector<Blake3Engine> engines;
  for (Blake3Engine engine : {Blake3Engine::kPortable, Blake3Engine::kSse41, Blake3Engine::kAvx2,
                              Blake3Engine::kAvx512}) {
    if (Blake3EngineSupported(engine)) engines.push_back(engine);
  }
  return engines;
}

std::string RandomBytes(std::mt19937_64& rng, size_t len) {
  std::string out(len, '\0');
  for (char& c : out) c = static_cast<char>(rng());
  return out;
}

std::string XofOn(Blake3Engine engine, std::string_view input, size_t out_len) {
  std::string out(out_len, '\0');
  Blake3XofInto(input, reinterpret_cast<uint8_t*>(out.data()), out_len, engine);
  return out;
}

// The XOF of `input` fed to a hasher on `engine` in 1 to 5 pieces cut at random points.
std::string StreamedXofOn(Blake3Engine engine, std::string_view input, size_t out_len,
                          std::mt19937_64& rng) {
  const size_t pieces = 1 + rng() % 5;
  std::vector<size_t> cuts = {0, input.size()};
  for (size_t i = 1; i < pieces; ++i) cuts.push_back(rng() % (input.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  Blake3 hasher(engine);
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    hasher.Update(input.substr(cuts[i], cuts[i + 1] - cuts[i]));
  }
  std::string out(out_len, '\0');
  hasher.Finalize(reinterpret_cast<uint8_t*>(out.data()), out_len);
  return out;
}

class Blake3EngineTest : public ::testing::TestWithParam<Blake3Engine> {};

TEST_P(Blake3EngineTest, OfficialVectors) {
  const Blake3Engine engine = GetParam();
  for (const Vector& v : OfficialVectors()) {
    SCOPED_TRACE("input_len " + std::to_string(v.input_len));
    const std::string input = TestInput(v.input_len);
    EXPECT_EQ(Hex(XofOn(engine, input, kExtendedSize)), v.hash);
    for (size_t piece : {1, 63, 64, 65, 1024, 1025}) {
      Blake3 hasher(engine);
      for (size_t at = 0; at < input.size(); at += piece) {
        hasher.Update(std::string_view(input).substr(at, piece));
      }
      EXPECT_EQ(HexOf(hasher.Finalize()), std::string(v.hash).substr(0, 64)) << "piece " << piece;
    }
  }
}

// Thousands of random inputs of 0..300 bytes (the LtHash entry sizes), each read at 2048
// bytes (LtHash's 32 output blocks) or a random length (partial last block, and block counts
// that are not multiples of the SIMD widths): one-shot and randomly split streaming output
// on the engine equal the portable engine's.
TEST_P(Blake3EngineTest, MatchesPortableOnRandomInputs) {
  const Blake3Engine engine = GetParam();
  std::mt19937_64 rng(0xb1a4e3 + static_cast<uint64_t>(engine));
  constexpr int kInputs = 3000;
  for (int i = 0; i < kInputs; ++i) {
    const std::string input = RandomBytes(rng, rng() % 301);
    const size_t out_len = i % 2 == 0 ? 2048 : rng() % 2200;
    SCOPED_TRACE("input " + std::to_string(i) + ", length " + std::to_string(input.size()) +
                 ", output " + std::to_string(out_len));
    const std::string expected = XofOn(Blake3Engine::kPortable, input, out_len);
    ASSERT_EQ(XofOn(engine, input, out_len), expected);
    ASSERT_EQ(StreamedXofOn(engine, input, out_len, rng), expected);
  }
}

// Inputs of several chunks exercise parent-node compression on the engine.
TEST_P(Blake3EngineTest, MatchesPortableOnMultiChunkInputs) {
  const Blake3Engine engine = GetParam();
  std::mt19937_64 rng(0xc4f1 + static_cast<uint64_t>(engine));
  for (int i = 0; i < 150; ++i) {
    const std::string input = RandomBytes(rng, 1025 + rng() % 8000);
    const size_t out_len = rng() % 700;
    SCOPED_TRACE("input " + std::to_string(i) + ", length " + std::to_string(input.size()));
    const std::string expected = XofOn(Blake3Engine::kPortable, input, out_len);
    ASSERT_EQ(XofOn(engine, input, out_len), expected);
    ASSERT_EQ(StreamedXofOn(engine, input, out_len, rng), expected);
  }
}

// The kernels themselves on random nodes: runs of output blocks of every length up to 40
// (any mix of 16-, 8-, 4- and 1-block steps), starting at counters whose low word wraps inside
// the run, so each lane's carry into the counter's high word is checked.
TEST_P(Blake3EngineTest, KernelsMatchPortableAcrossCounterCarry) {
  const blake3_detail::Kernels& kernels = blake3_detail::KernelsFor(GetParam());
  const blake3_detail::Kernels& portable = blake3_detail::KernelsFor(Blake3Engine::kPortable);
  std::mt19937_64 rng(0x0c0ffee);
  const uint64_t kFirstCounters[] = {0, 1, 7, 0xfffffff0ull, 0xfffffffdull, 0x1fffffffbull};
  for (uint64_t first_counter : kFirstCounters) {
    for (size_t count = 0; count <= 40; ++count) {
      SCOPED_TRACE("first_counter " + std::to_string(first_counter) + ", count " +
                   std::to_string(count));
      uint32_t cv[8];
      for (uint32_t& word : cv) word = static_cast<uint32_t>(rng());
      const auto block_len = static_cast<uint32_t>(1 + rng() % 64);
      uint8_t block[64] = {};
      for (uint32_t i = 0; i < block_len; ++i) block[i] = static_cast<uint8_t>(rng());
      const auto flags = static_cast<uint32_t>(rng() % 16);

      std::vector<uint8_t> expected(64 * count), actual(64 * count);
      portable.root_blocks(cv, block, block_len, first_counter, flags, count, expected.data());
      kernels.root_blocks(cv, block, block_len, first_counter, flags, count, actual.data());
      ASSERT_EQ(actual, expected);

      uint32_t expected_cv[8], actual_cv[8];
      std::copy(cv, cv + 8, expected_cv);
      std::copy(cv, cv + 8, actual_cv);
      portable.compress_in_place(expected_cv, block, block_len, first_counter + count, flags);
      kernels.compress_in_place(actual_cv, block, block_len, first_counter + count, flags);
      ASSERT_TRUE(std::equal(actual_cv, actual_cv + 8, expected_cv));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SupportedEngines, Blake3EngineTest,
                         ::testing::ValuesIn(SupportedEngines()),
                         [](const ::testing::TestParamInfo<Blake3Engine>& info) {
                           switch (info.param) {
                             case Blake3Engine::kAvx512:
                               return std::string("Avx512");
                             case Blake3Engine::kAvx2:
                               return std::string("Avx2");
                             case Blake3Engine::kSse41:
                               return std::string("Sse41");
                             case Blake3Engine::kPortable:
                               break;
                           }
                           return std::string("Portable");
                         });

TEST(Blake3Engine, PortableIsAlwaysSupported) {
  EXPECT_TRUE(Blake3EngineSupported(Blake3Engine::kPortable));
  EXPECT_STREQ(Blake3EngineName(Blake3Engine::kPortable), "portable");
  EXPECT_STREQ(Blake3EngineName(Blake3Engine::kSse41), "sse4.1");
  EXPECT_STREQ(Blake3EngineName(Blake3Engine::kAvx2), "avx2");
  EXPECT_STREQ(Blake3EngineName(Blake3Engine::kAvx512), "avx512");
}

// The default is the widest engine the CPU runs, so production code never takes a slower
// path on a machine that could do better.
TEST(Blake3Engine, DefaultIsFastestSupported) {
  Blake3Engine expected = Blake3Engine::kPortable;
  if (Blake3EngineSupported(Blake3Engine::kSse41)) expected = Blake3Engine::kSse41;
  if (Blake3EngineSupported(Blake3Engine::kAvx2)) expected = Blake3Engine::kAvx2;
  if (Blake3EngineSupported(Blake3Engine::kAvx512)) expected = Blake3Engine::kAvx512;
  EXPECT_EQ(DefaultBlake3Engine(), expected);
}

// The engine-less entry points (what LtHash and the tree code call) agree with portable.
TEST(Blake3Engine, DefaultFunctionsMatchPortable) {
  for (size_t len : {0, 1, 64, 65, 200, 1024, 1025, 3000}) {
    SCOPED_TRACE("input_len " + std::to_string(len));
    const std::string input = TestInput(len);
    EXPECT_EQ(Blake3Xof(input, 2048), XofOn(Blake3Engine::kPortable, input, 2048));
    Blake3 portable(Blake3Engine::kPortable);
    portable.Update(input);
    EXPECT_EQ(Blake3Of(input), portable.Finalize());
    Blake3 default_engine;
    default_engine.Update(input);
    EXPECT_EQ(default_engine.Finalize(), portable.Finalize());
  }
}

#if defined(__x86_64__) || defined(__i386__)
// Detection agrees with CPUID: SSE4.1 is leaf 1 ECX bit 19; AVX2 and AVX-512F are leaf 7
// EBX bits 5 and 16, usable only when the OS saves their registers (OSXSAVE, then XCR0
// bits 1-2 for YMM and also 5-7 for ZMM). So a machine with these units really runs the
// SIMD tests above.
TEST(Blake3Engine, DetectsSimdFromCpuid) {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  ASSERT_NE(__get_cpuid(1, &eax, &ebx, &ecx, &edx), 0);
  const bool sse41 = (ecx & (1u << 19)) != 0;
  const bool osxsave = (ecx & (1u << 27)) != 0;
  unsigned xcr0 = 0;
  if (osxsave) {
    unsigned xcr0_hi = 0;
    __asm__("xgetbv" : "=a"(xcr0), "=d"(xcr0_hi) : "c"(0));
  }
  const bool ymm_saved = (xcr0 & 0x06) == 0x06;
  const bool zmm_saved = (xcr0 & 0xe6) == 0xe6;
  unsigned ebx7 = 0;
  const bool has_leaf7 = __get_cpuid_count(7, 0, &eax, &ebx7, &ecx, &edx) != 0;
  const bool avx2 = has_leaf7 && (ebx7 & (1u << 5)) != 0 && ymm_saved;
  const bool avx512f = has_leaf7 && (ebx7 & (1u << 16)) != 0 && zmm_saved;
  EXPECT_EQ(Blake3EngineSupported(Blake3Engine::kSse41), sse41);
  EXPECT_EQ(Blake3EngineSupported(Blake3Engine::kAvx2), sse41 && avx2);
  EXPECT_EQ(Blake3EngineSupported(Blake3Engine::kAvx512), sse41 && avx2 && avx512f);
}
#endif

}  // namespace
}  // namespace strata::sc
