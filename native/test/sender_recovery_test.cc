// SenderRecovery and Keccak256 against published vectors (the keccak256 of "" and "abc", the
// EIP-155 example transaction, the address of private key 1) and against signatures made here
// with libsecp256k1's signer: a bad signature, an empty batch and a large batch on the pool.
#include "strata/keccak256.h"
#include "strata/sender_recovery.h"

#include <gtest/gtest.h>
#include <secp256k1.h>
#include <secp256k1_recovery.h>

#include <array>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace strata {
namespace {

std::vector<uint8_t> FromHex(const std::string& hex) {
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return out;
}

std::string ToHex(const uint8_t* data, size_t size) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < size; ++i) {
    out += digits[data[i] >> 4];
    out += digits[data[i] & 15];
  }
  return out;
}

std::string KeccakHex(const std::string& text) {
  uint8_t digest[32];
  Keccak256(reinterpret_cast<const uint8_t*>(text.data()), text.size(), digest);
  return ToHex(digest, 32);
}

// One packed item from a hash, r ‖ s and a recovery id.
void PutItem(std::vector<uint8_t>& items, const std::vector<uint8_t>& hash, const std::vector<uint8_t>& rs, uint8_t recid) {
  items.insert(items.end(), hash.begin(), hash.end());
  items.insert(items.end(), rs.begin(), rs.end());
  items.push_back(recid);
}

// The private key whose last 8 bytes are `n` (big-endian), the rest zero.
std::array<uint8_t, 32> KeyOf(uint64_t n) {
  std::array<uint8_t, 32> key{};
  for (int i = 0; i < 8; ++i) key[31 - i] = static_cast<uint8_t>(n >> (8 * i));
  return key;
}

// Signs `hash` with `key`, appending the packed item; returns the signer's address.
std::string SignInto(secp256k1_context* ctx, const std::array<uint8_t, 32>& key, const std::vector<uint8_t>& hash,
                     std::vector<uint8_t>& items) {
  secp256k1_ecdsa_recoverable_signature signature;
  EXPECT_TRUE(secp256k1_ecdsa_sign_recoverable(ctx, &signature, hash.data(), key.data(), nullptr, nullptr));
  std::vector<uint8_t> rs(64);
  int recid = 0;
  secp256k1_ecdsa_recoverable_signature_serialize_compact(ctx, rs.data(), &recid, &signature);
  PutItem(items, hash, rs, static_cast<uint8_t>(recid));
  secp256k1_pubkey pub;
  EXPECT_TRUE(secp256k1_ec_pubkey_create(ctx, &pub, key.data()));
  uint8_t serialized[65];
  size_t length = sizeof(serialized);
  secp256k1_ec_pubkey_serialize(ctx, serialized, &length, &pub, SECP256K1_EC_UNCOMPRESSED);
  uint8_t digest[32];
  Keccak256(serialized + 1, 64, digest);
  return ToHex(digest + 12, 20);
}

// The address the one item in `items` recovers to, on a pool of `threads` or (`here`) on the
// calling thread; "" when it does not recover.
std::string RecoverOne(const std::vector<uint8_t>& items, int threads, bool here) {
  SenderRecovery recovery(threads);
  uint8_t address[20];
  uint8_t ok = 9;
  if (here) {
    recovery.RecoverHere(items.data(), 1, address, &ok);
  } else {
    recovery.Recover(items.data(), 1, address, &ok);
  }
  return ok == 1 ? ToHex(address, 20) : "";
}

TEST(Keccak256Test, PublishedVectors) {
  EXPECT_EQ(KeccakHex(""), "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
  EXPECT_EQ(KeccakHex("abc"), "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45");
  // The last byte of a full 136-byte block moves to a second block.
  EXPECT_EQ(KeccakHex(std::string(135, 'a')).size(), 64u);
  EXPECT_NE(KeccakHex(std::string(135, 'a')), KeccakHex(std::string(136, 'a')));
}

TEST(Keccak256Test, ManyHashesEachPackedInputAsOne) {
  // Lengths around the 136-byte rate, an empty input among them.
  const std::vector<std::string> inputs = {"abc", "", std::string(135, 'x'), std::string(136, 'y'), std::string(137, 'z'),
                                           std::string(300, 'w')};
  std::string packed;
  std::vector<uint32_t> lengths;
  for (const auto& input : inputs) {
    packed += input;
    lengths.push_back(static_cast<uint32_t>(input.size()));
  }
  std::vector<uint8_t> out(inputs.size() * kKeccak256Bytes);
  Keccak256Many(reinterpret_cast<const uint8_t*>(packed.data()), lengths.data(), lengths.size(), out.data());
  for (size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(ToHex(out.data() + i * kKeccak256Bytes, kKeccak256Bytes), KeccakHex(inputs[i])) << "input " << i;
  }
}

TEST(SenderRecoveryTest, Eip155ExampleTransaction) {
  // EIP-155's example: nonce 9, gas price 20 gwei, gas 21000, to 0x3535…35, value 1 ether,
  // chain id 1, signed by private key 0x4646…46; v = 37 (recovery id 0).
  std::vector<uint8_t> items;
  PutItem(items, FromHex("daf5a779ae972f972197303d7b574746c7ef83eadac0f2791ad23db92e4c8e53"),
          FromHex("28ef61340bd939bc2195fe537567866003e1a15d3c71ff63e1590620aa636276"
                  "67cbe9d8997f761aecb703304b3800ccf555c9f3dc64214b297fb1966a3b6d83"),
          0);
  EXPECT_EQ(RecoverOne(items, 2, false), "9d8a62f656a8d1615c1294fd71e9cfb3e4855a4f");
}

TEST(SenderRecoveryTest, AddressOfPrivateKeyOne) {
  secp256k1_context* ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
  std::vector<uint8_t> items;
  std::string signer = SignInto(ctx, KeyOf(1), FromHex(KeccakHex("strata")), items);
  secp256k1_context_destroy(ctx);
  EXPECT_EQ(signer, "7e5f4552091a69125d5dfcb7b8c2659029395bdf");
  EXPECT_EQ(RecoverOne(items, 1, true), "7e5f4552091a69125d5dfcb7b8c2659029395bdf");
}

TEST(SenderRecoveryTest, BadSignaturesFailOnlyTheirItem) {
  secp256k1_context* ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
  std::vector<uint8_t> items;
  std::string first = SignInto(ctx, KeyOf(7), FromHex(KeccakHex("one")), items);
  // r = 0: no key recovers.
  PutItem(items, FromHex(KeccakHex("two")), std::vector<uint8_t>(64, 0), 0);
  // r ≥ the group order: the compact signature does not parse.
  PutItem(items, FromHex(KeccakHex("three")), std::vector<uint8_t>(64, 0xff), 1);
  // A recovery id other than 0 or 1.
  std::string fourth = SignInto(ctx, KeyOf(8), FromHex(KeccakHex("four")), items);
  items.back() = 2;
  std::string fifth = SignInto(ctx, KeyOf(9), FromHex(KeccakHex("five")), items);
  secp256k1_context_destroy(ctx);

  SenderRecovery recovery(2);
  std::vector<uint8_t> addresses(5 * 20, 0xaa);
  std::vector<uint8_t> ok(5, 9);
  recovery.Recover(items.data(), 5, addresses.data(), ok.data());
  EXPECT_EQ(ok, (std::vector<uint8_t>{1, 0, 0, 0, 1}));
  EXPECT_EQ(ToHex(addresses.data(), 20), first);
  EXPECT_EQ(ToHex(addresses.data() + 20, 20), std::string(40, '0'));
  EXPECT_EQ(ToHex(addresses.data() + 80, 20), fifth);
}

TEST(SenderRecoveryTest, EmptyBatch) {
  SenderRecovery recovery(2);
  recovery.Recover(nullptr, 0, nullptr, nullptr);
  recovery.RecoverHere(nullptr, 0, nullptr, nullptr);
  EXPECT_EQ(recovery.threads(), 2u);
}

TEST(SenderRecoveryTest, LargeBatchOnThePoolMatchesTheSigners) {
  constexpr size_t kCount = 5000;
  secp256k1_context* ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
  std::vector<uint8_t> items;
  std::vector<std::string> signers;
  for (size_t i = 0; i < kCount; ++i) {
    signers.push_back(SignInto(ctx, KeyOf(1000 + i), FromHex(KeccakHex("tx " + std::to_string(i))), items));
  }
  secp256k1_context_destroy(ctx);
  // One bad signature in the middle.
  std::memset(items.data() + 2500 * kRecoveryItemBytes + kSigningHashBytes, 0, kCompactSignatureBytes);

  SenderRecovery recovery(4);
  std::vector<uint8_t> addresses(kCount * 20);
  std::vector<uint8_t> ok(kCount);
  recovery.Recover(items.data(), kCount, addresses.data(), ok.data());
  for (size_t i = 0; i < kCount; ++i) {
    if (i == 2500) {
      EXPECT_EQ(ok[i], 0);
      continue;
    }
    ASSERT_EQ(ok[i], 1) << "item " << i;
    ASSERT_EQ(ToHex(addresses.data() + i * 20, 20), signers[i]) << "item " << i;
  }
}

TEST(SenderRecoveryTest, ConcurrentBatchesShareThePool) {
  secp256k1_context* ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
  std::vector<uint8_t> items;
  std::vector<std::string> signers;
  for (size_t i = 0; i < 400; ++i) signers.push_back(SignInto(ctx, KeyOf(50 + i), FromHex(KeccakHex(std::to_string(i))), items));
  secp256k1_context_destroy(ctx);
  SenderRecovery recovery(2);
  std::vector<std::thread> callers;
  std::vector<std::vector<uint8_t>> results(4, std::vector<uint8_t>(400 * 20));
  for (int c = 0; c < 4; ++c) {
    callers.emplace_back([&, c] {
      std::vector<uint8_t> ok(400);
      recovery.Recover(items.data(), 400, results[c].data(), ok.data());
    });
  }
  for (std::thread& t : callers) t.join();
  for (int c = 0; c < 4; ++c) {
    for (size_t i = 0; i < 400; ++i) ASSERT_EQ(ToHex(results[c].data() + i * 20, 20), signers[i]);
  }
}

TEST(SenderRecoveryTest, SignedMessagesAreHashedAndRecoveredOnThePool) {
  constexpr size_t kCount = 300;
  secp256k1_context* ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
  std::vector<std::string> messages;
  std::vector<std::string> raws;
  std::vector<std::vector<uint8_t>> signed_items;  // hash ‖ r ‖ s ‖ recovery id, signed here
  std::vector<std::string> signers;
  for (size_t i = 0; i < kCount; ++i) {
    messages.push_back("signing message " + std::to_string(i) + std::string(i % 150, 'm'));
    raws.push_back("raw transaction " + std::to_string(i) + std::string(i % 90, 'r'));
    std::vector<uint8_t> item;
    signers.push_back(SignInto(ctx, KeyOf(300 + i), FromHex(KeccakHex(messages.back())), item));
    signed_items.push_back(item);
  }
  secp256k1_context_destroy(ctx);
  // Item 7 gets an r of zero; item 8 a recovery id of 2: no key, but the tx hash is still written.
  std::memset(signed_items[7].data() + kSigningHashBytes, 0, 32);
  signed_items[8].back() = 2;

  std::vector<SignedMessage> items(kCount);
  for (size_t i = 0; i < kCount; ++i) {
    items[i].message = reinterpret_cast<const uint8_t*>(messages[i].data());
    items[i].message_size = messages[i].size();
    items[i].raw = reinterpret_cast<const uint8_t*>(raws[i].data());
    items[i].raw_size = raws[i].size();
    items[i].signature = signed_items[i].data() + kSigningHashBytes;
    items[i].recovery_id = signed_items[i].back();
  }
  SenderRecovery recovery(2);
  std::vector<uint8_t> addresses(kCount * kAddressBytes);
  std::vector<uint8_t> ok(kCount, 9);
  std::vector<uint8_t> hashes(kCount * kTxHashBytes);
  recovery.RecoverMessages(items.data(), kCount, addresses.data(), ok.data(), hashes.data());
  for (size_t i = 0; i < kCount; ++i) {
    ASSERT_EQ(ToHex(hashes.data() + i * kTxHashBytes, kTxHashBytes), KeccakHex(raws[i])) << "item " << i;
    if (i == 7 || i == 8) {
      EXPECT_EQ(ok[i], 0) << "item " << i;
      continue;
    }
    ASSERT_EQ(ok[i], 1) << "item " << i;
    ASSERT_EQ(ToHex(addresses.data() + i * kAddressBytes, kAddressBytes), signers[i]) << "item " << i;
  }
  recovery.RecoverMessages(nullptr, 0, nullptr, nullptr, nullptr);
}

}  // namespace
}  // namespace strata
