#include "sc/lthash.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "sc_test_util.h"
#include "strata/status.h"

namespace strata::sc {
namespace {

using test::Hex;

std::string HexOf(const Blake3Digest& digest) {
  return Hex(std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

}  // namespace

// Failure messages show a vector by its checksum and first limbs, not 2048 raw bytes.
// Declared in LtHash's namespace so gtest finds it by argument-dependent lookup.
void PrintTo(const LtHash& hash, std::ostream* os) {
  *os << "LtHash{checksum=" << HexOf(hash.Checksum()) << ", limbs[0..3]=" << hash.limb(0) << ","
      << hash.limb(1) << "," << hash.limb(2) << "," << hash.limb(3) << "}";
}

namespace {

// ---- entry hash and encoding ----

TEST(LtHash, SerializeKvLayout) {
  EXPECT_EQ(SerializeKv("ab", "xyz"), std::string("\x02\0\0\0ab\x03\0\0\0xyz", 13));
  EXPECT_EQ(SerializeKv(std::string(300, 'k'), "v").substr(0, 4), std::string("\x2c\x01\0\0", 4));
}

TEST(LtHash, EntryHashIsXofOfSerializedEntry) {
  std::string xof = Blake3Xof(SerializeKv("key", "value"), kLtHashBytes);
  LtHash entry = EntryHash("key", "value");
  EXPECT_EQ(entry.Serialize(), xof);
  // Limbs are little-endian pairs of the XOF stream.
  EXPECT_EQ(entry.limb(0), static_cast<uint8_t>(xof[0]) | static_cast<uint8_t>(xof[1]) << 8);
  EXPECT_EQ(entry.limb(1023),
            static_cast<uint8_t>(xof[2046]) | static_cast<uint8_t>(xof[2047]) << 8);
}

// The length prefixes keep differently split entries apart.
TEST(LtHash, EntryBoundariesMatter) {
  EXPECT_NE(EntryHash("ab", "c"), EntryHash("a", "bc"));
  EXPECT_NE(EntryHash("k", "v1"), EntryHash("k", "v2"));
}

TEST(LtHash, EmptyKeyOrValueContributesZero) {
  EXPECT_TRUE(EntryHash("", "value").IsZero());
  EXPECT_TRUE(EntryHash("key", "").IsZero());
  EXPECT_TRUE(EntryHash("", "").IsZero());
  LtHash hash;
  hash.MixIn("a", "1");
  LtHash before = hash;
  hash.MixIn("", "value");
  hash.MixIn("key", "");
  hash.MixOut("", "value");
  EXPECT_EQ(hash, before);
}

// ---- algebra ----

TEST(LtHash, DefaultIsZero) {
  LtHash zero;
  EXPECT_TRUE(zero.IsZero());
  EXPECT_EQ(zero.Serialize(), std::string(kLtHashBytes, '\0'));
}

TEST(LtHash, MixInThenOutIsZero) {
  LtHash hash;
  hash.MixIn("key", "value");
  EXPECT_FALSE(hash.IsZero());
  hash.MixOut("key", "value");
  EXPECT_TRUE(hash.IsZero());
}

// MixOut before MixIn is allowed: the intermediate vector is just a difference.
TEST(LtHash, MixOutThenInIsZero) {
  LtHash hash;
  hash.MixOut("key", "value");
  EXPECT_FALSE(hash.IsZero());
  hash.MixIn("key", "value");
  EXPECT_TRUE(hash.IsZero());
}

TEST(LtHash, OrderIndependent) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (int i = 0; i < 50; ++i) entries.emplace_back("k" + std::to_string(i), "v" + std::to_string(i));
  LtHash in_order;
  for (const auto& [k, v] : entries) in_order.MixIn(k, v);
  std::mt19937_64 rng(7);
  std::shuffle(entries.begin(), entries.end(), rng);
  LtHash shuffled;
  for (const auto& [k, v] : entries) shuffled.MixIn(k, v);
  EXPECT_EQ(in_order, shuffled);
  EXPECT_EQ(in_order.Checksum(), shuffled.Checksum());
}

TEST(LtHash, AddAndSubtract) {
  LtHash a = EntryHash("a", "1");
  LtHash b = EntryHash("b", "2");
  LtHash a_plus_b = a;
  a_plus_b.Add(b);
  LtHash b_plus_a = b;
  b_plus_a.Add(a);
  EXPECT_EQ(a_plus_b, b_plus_a);

  LtHash mixed;
  mixed.MixIn("a", "1");
  mixed.MixIn("b", "2");
  EXPECT_EQ(mixed, a_plus_b);

  a_plus_b.Subtract(b);
  EXPECT_EQ(a_plus_b, a);
  a_plus_b.Subtract(a);
  EXPECT_TRUE(a_plus_b.IsZero());
}

// Limbs wrap mod 2^16 in both directions.
TEST(LtHash, LimbsWrapAround) {
  LtHash all_ones = LtHash::Deserialize(std::string(kLtHashBytes, '\xff'));  // every limb 0xffff
  std::string one_bytes(kLtHashBytes, '\0');
  for (size_t i = 0; i < kLtHashBytes; i += 2) one_bytes[i] = 1;
  LtHash ones = LtHash::Deserialize(one_bytes);  // every limb 1

  LtHash sum = all_ones;
  sum.Add(ones);
  EXPECT_TRUE(sum.IsZero());

  LtHash difference;
  difference.Subtract(ones);
  EXPECT_EQ(difference, all_ones);
}

// ---- serialization and checksum ----

TEST(LtHash, SerializeIsLittleEndian) {
  std::string bytes(kLtHashBytes, '\0');
  bytes[0] = '\x34';
  bytes[1] = '\x12';
  bytes[2046] = '\xcd';
  bytes[2047] = '\xab';
  LtHash hash = LtHash::Deserialize(bytes);
  EXPECT_EQ(hash.limb(0), 0x1234);
  EXPECT_EQ(hash.limb(1), 0);
  EXPECT_EQ(hash.limb(1023), 0xabcd);
  EXPECT_EQ(hash.Serialize(), bytes);
}

TEST(LtHash, SerializeRoundTrips) {
  LtHash hash;
  hash.MixIn("alpha", "1");
  hash.MixIn("beta", "2");
  std::string bytes = hash.Serialize();
  ASSERT_EQ(bytes.size(), kLtHashBytes);
  EXPECT_EQ(LtHash::Deserialize(bytes), hash);
}

TEST(LtHash, DeserializeRejectsWrongSize) {
  EXPECT_THROW(LtHash::Deserialize(""), Error);
  EXPECT_THROW(LtHash::Deserialize(std::string(kLtHashBytes - 1, '\0')), Error);
  EXPECT_THROW(LtHash::Deserialize(std::string(kLtHashBytes + 1, '\0')), Error);
}

TEST(LtHash, ChecksumIsBlake3OfSerialization) {
  LtHash hash;
  EXPECT_EQ(hash.Checksum(), Blake3Of(std::string(kLtHashBytes, '\0')));
  hash.MixIn("key", "value");
  EXPECT_EQ(hash.Checksum(), Blake3Of(hash.Serialize()));
  EXPECT_EQ(HexOf(hash.Checksum()).size(), 64u);
}

// ---- property: incremental updates agree with a from-scratch hash ----

// One change to a key: a put, or a delete when `value` is empty (nullopt).
struct Change {
  std::string key;
  std::optional<std::string> value;
};

using State = std::map<std::string, std::string>;

LtHash HashFromScratch(const State& state) {
  LtHash hash;
  for (const auto& [key, value] : state) hash.MixIn(key, value);
  return hash;
}

void ApplyToState(State& state, const Change& change) {
  if (change.value) {
    state[change.key] = *change.value;
  } else {
    state.erase(change.key);
  }
}

std::string RandomBytes(std::mt19937_64& rng, size_t max_len) {
  std::string out(1 + rng() % max_len, '\0');
  for (char& c : out) c = static_cast<char>(rng());
  return out;
}

std::string RandomPresentKey(const State& state, std::mt19937_64& rng) {
  auto it = state.begin();
  std::advance(it, rng() % state.size());
  return it->first;
}

// A change drawn against `state`: fresh puts, overwrites, deletes of present keys, deletes
// of absent keys, and now and then an empty key or value (which must contribute nothing).
Change RandomChange(const State& state, std::mt19937_64& rng) {
  constexpr int kKeySpace = 400;  // small enough that keys recur
  int roll = static_cast<int>(rng() % 100);
  if (roll < 2) return {"", RandomBytes(rng, 16)};
  if (roll < 4) return {"k" + std::to_string(rng() % kKeySpace), std::string()};
  if (state.empty() || roll < 40) {
    return {"k" + std::to_string(rng() % kKeySpace), RandomBytes(rng, 48)};
  }
  if (roll < 65) return {RandomPresentKey(state, rng), RandomBytes(rng, 48)};
  if (roll < 85) return {RandomPresentKey(state, rng), std::nullopt};
  std::string absent = "absent" + std::to_string(rng() % kKeySpace);  // never put
  return {absent, std::nullopt};
}

std::vector<Change> RandomChanges(uint64_t seed, size_t count) {
  std::mt19937_64 rng(seed);
  State state;
  std::vector<Change> changes;
  for (size_t i = 0; i < count; ++i) {
    changes.push_back(RandomChange(state, rng));
    ApplyToState(state, changes.back());
  }
  return changes;
}

// The update rule: MixOut H(key, old) if an old value existed; MixIn H(key, new) unless
// deleted. `outs` and `ins` may be the same vector.
void FoldChange(const State& before, const std::string& key,
                const std::optional<std::string>& value, LtHash& outs, LtHash& ins) {
  auto old = before.find(key);
  if (old != before.end()) outs.MixOut(key, old->second);
  if (value) ins.MixIn(key, *value);
}

// The delta of one batch computed the way sei's commit does: last write per key wins, the
// keys are spread over `workers` partial sums that start at zero, and the partials are added.
// With `split_signs`, removals are accumulated positively and subtracted at the end, which
// exercises Subtract as well.
LtHash BatchDelta(const State& before, const std::vector<Change>& batch, size_t workers,
                  bool split_signs, std::mt19937_64& rng) {
  std::map<std::string, std::optional<std::string>> last_write;
  for (const Change& change : batch) last_write[change.key] = change.value;

  std::vector<LtHash> ins(workers), outs(workers);
  for (const auto& [key, value] : last_write) {
    size_t w = rng() % workers;
    LtHash& out_sum = split_signs ? outs[w] : ins[w];
    if (split_signs) {
      auto old = before.find(key);
      if (old != before.end()) out_sum.MixIn(key, old->second);  // subtracted below
      if (value) ins[w].MixIn(key, *value);
    } else {
      FoldChange(before, key, value, out_sum, ins[w]);
    }
  }
  LtHash delta;
  for (size_t w = 0; w < workers; ++w) {
    delta.Add(ins[w]);
    if (split_signs) delta.Subtract(outs[w]);
  }
  return delta;
}

constexpr size_t kChangesPerRun = 4000;
constexpr uint64_t kSeeds[] = {20240601, 1, 987654321};

TEST(LtHashProperty, OneByOneMatchesFromScratch) {
  for (uint64_t seed : kSeeds) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    State state;
    LtHash hash;
    size_t step = 0;
    for (const Change& change : RandomChanges(seed, kChangesPerRun)) {
      FoldChange(state, change.key, change.value, hash, hash);
      ApplyToState(state, change);
      if (++step % 500 == 0) {
        ASSERT_EQ(hash, HashFromScratch(state)) << "after change " << step;
      }
    }
    ASSERT_EQ(hash, HashFromScratch(state));
    EXPECT_EQ(hash.Checksum(), HashFromScratch(state).Checksum());
  }
}

void RunBatched(uint64_t seed, bool split_signs) {
  SCOPED_TRACE("seed " + std::to_string(seed) + (split_signs ? " split signs" : ""));
  std::vector<Change> changes = RandomChanges(seed, kChangesPerRun);
  std::mt19937_64 rng(seed ^ 0x5eed);
  State state;
  LtHash hash;
  size_t at = 0;
  size_t batches = 0;
  while (at < changes.size()) {
    size_t size = std::min<size_t>(1 + rng() % 64, changes.size() - at);
    std::vector<Change> batch(changes.begin() + at, changes.begin() + at + size);
    size_t workers = 1 + rng() % 8;
    hash.Add(BatchDelta(state, batch, workers, split_signs, rng));
    for (const Change& change : batch) ApplyToState(state, change);
    at += size;
    if (++batches % 10 == 0) {
      ASSERT_EQ(hash, HashFromScratch(state)) << "after batch " << batches << ", change " << at;
    }
  }
  ASSERT_EQ(hash, HashFromScratch(state));
  EXPECT_EQ(hash.Checksum(), HashFromScratch(state).Checksum());
}

TEST(LtHashProperty, RandomBatchesMatchFromScratch) {
  for (uint64_t seed : kSeeds) RunBatched(seed, /*split_signs=*/false);
}

TEST(LtHashProperty, RandomBatchesWithSubtractMatchFromScratch) {
  for (uint64_t seed : kSeeds) RunBatched(seed, /*split_signs=*/true);
}

// Replaying the same changes in different batchings ends at the same hash.
TEST(LtHashProperty, BatchingDoesNotMatter) {
  std::vector<Change> changes = RandomChanges(42, kChangesPerRun);
  State final_state;
  for (const Change& change : changes) ApplyToState(final_state, change);
  EXPECT_FALSE(final_state.empty());
  EXPECT_FALSE(HashFromScratch(final_state).IsZero());

  State state;
  LtHash one_batch;
  std::mt19937_64 rng(42);
  one_batch.Add(BatchDelta(state, changes, 4, false, rng));
  EXPECT_EQ(one_batch, HashFromScratch(final_state));
}

// ---- the fast paths against a reference built from the definitions ----

// A random vector: 2048 random bytes read as limbs.
LtHash RandomVector(std::mt19937_64& rng) {
  std::string bytes(kLtHashBytes, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  return LtHash::Deserialize(bytes);
}

// A random entry: mostly LtHash-sized (entries up to 300 bytes), now and then one too big
// for the stack buffer the entry is serialized into.
std::pair<std::string, std::string> RandomEntry(std::mt19937_64& rng) {
  const size_t key_len = 1 + rng() % 64;
  const size_t value_len = rng() % 20 == 0 ? 500 + rng() % 1500 : 1 + rng() % 236;
  std::string key(key_len, '\0'), value(value_len, '\0');
  for (char& c : key) c = static_cast<char>(rng());
  for (char& c : value) c = static_cast<char>(rng());
  return {key, value};
}

// The entry vector straight from its definition, on the portable BLAKE3 engine.
LtHash ReferenceEntryHash(std::string_view key, std::string_view value) {
  const std::string entry = SerializeKv(key, value);
  std::string xof(kLtHashBytes, '\0');
  Blake3XofInto(entry, reinterpret_cast<uint8_t*>(xof.data()), xof.size(), Blake3Engine::kPortable);
  return LtHash::Deserialize(xof);
}

std::vector<Blake3Engine> SupportedBlake3Engines() {
  std::vector<Blake3Engine> engines;
  for (Blake3Engine engine : {Blake3Engine::kPortable, Blake3Engine::kSse41, Blake3Engine::kAvx2,
                              Blake3Engine::kAvx512}) {
    if (Blake3EngineSupported(engine)) engines.push_back(engine);
  }
  return engines;
}

TEST(LtHashFastPath, EntryHashMatchesReferenceOnEveryEngine) {
  std::mt19937_64 rng(0x17a5);
  for (int i = 0; i < 2000; ++i) {
    const auto [key, value] = RandomEntry(rng);
    SCOPED_TRACE("entry " + std::to_string(i) + ", key " + std::to_string(key.size()) +
                 " bytes, value " + std::to_string(value.size()) + " bytes");
    const LtHash expected = ReferenceEntryHash(key, value);
    ASSERT_EQ(EntryHash(key, value), expected);
    for (Blake3Engine engine : SupportedBlake3Engines()) {
      ASSERT_EQ(EntryHash(key, value, engine), expected) << Blake3EngineName(engine);
    }
  }
}

TEST(LtHashFastPath, MixInAndMixOutAddAndSubtractTheEntryVector) {
  std::mt19937_64 rng(0x313);
  LtHash hash = RandomVector(rng);
  for (int i = 0; i < 1000; ++i) {
    const auto [key, value] = RandomEntry(rng);
    const LtHash entry = ReferenceEntryHash(key, value);
    const LtHash before = hash;
    const bool mix_in = rng() % 2 == 0;
    if (mix_in) {
      hash.MixIn(key, value);
    } else {
      hash.MixOut(key, value);
    }
    for (size_t limb = 0; limb < kLtHashLimbs; ++limb) {
      const int delta = mix_in ? entry.limb(limb) : -entry.limb(limb);
      ASSERT_EQ(hash.limb(limb), static_cast<uint16_t>((before.limb(limb) + delta) & 0xffff))
          << "entry " << i << (mix_in ? " MixIn" : " MixOut") << ", limb " << limb;
    }
  }
}

TEST(LtHashFastPath, AddAndSubtractAreLimbWiseMod2To16) {
  std::mt19937_64 rng(0xadd);
  for (int i = 0; i < 200; ++i) {
    const LtHash a = RandomVector(rng);
    const LtHash b = RandomVector(rng);
    LtHash sum = a;
    sum.Add(b);
    LtHash difference = a;
    difference.Subtract(b);
    for (size_t limb = 0; limb < kLtHashLimbs; ++limb) {
      ASSERT_EQ(sum.limb(limb), static_cast<uint16_t>((a.limb(limb) + b.limb(limb)) & 0xffff));
      ASSERT_EQ(difference.limb(limb),
                static_cast<uint16_t>((a.limb(limb) - b.limb(limb)) & 0xffff));
    }
  }
}

// A single set bit anywhere makes the vector non-zero.
TEST(LtHashFastPath, IsZeroSeesEveryLimbAndBit) {
  for (size_t limb = 0; limb < kLtHashLimbs; ++limb) {
    std::string bytes(kLtHashBytes, '\0');
    const size_t bit = limb % 16;
    bytes[2 * limb + bit / 8] = static_cast<char>(1u << (bit % 8));
    ASSERT_FALSE(LtHash::Deserialize(bytes).IsZero()) << "limb " << limb << ", bit " << bit;
  }
}

TEST(LtHashFastPath, ChecksumMatchesPortableBlake3OfSerialization) {
  std::mt19937_64 rng(0xc5);
  for (int i = 0; i < 50; ++i) {
    const LtHash hash = RandomVector(rng);
    Blake3 portable(Blake3Engine::kPortable);
    portable.Update(hash.Serialize());
    ASSERT_EQ(hash.Checksum(), portable.Finalize());
  }
}

// Deleting a key that is absent changes nothing.
TEST(LtHashProperty, DeletingAbsentKeyIsNoOp) {
  State state = {{"a", "1"}, {"b", "2"}};
  LtHash hash = HashFromScratch(state);
  LtHash before = hash;
  FoldChange(state, "zzz", std::nullopt, hash, hash);
  EXPECT_EQ(hash, before);
}

}  // namespace
}  // namespace strata::sc
