// The store benchmark workload: the one definition of every key, value, version and random
// draw that `strata_store_bench` (C++) and `npm run bench:store` (TypeScript) both run.
//
// The two drivers must produce byte-identical blocks and identical read sequences, so that
// each TypeScript figure can be divided by the native one. Change this file only together
// with the TypeScript workload, and keep it free of timing or store calls.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "strata/changelog_entry.h"

namespace strata::bench {

// ---- random numbers --------------------------------------------------------------------

/// splitmix64: tiny, fast, and trivial to reproduce exactly with BigInt in TypeScript.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    state_ += 0x9E3779B97F4A7C15ull;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  /// Integer in [0, n). Plain modulo: the slight bias is irrelevant here, and it is the
  /// cheapest rule for both languages to agree on.
  uint64_t Uniform(uint64_t n) { return Next() % n; }

 private:
  uint64_t state_;
};

/// One splitmix64 step from state `x`: a stateless hash used to derive addresses.
inline uint64_t Mix(uint64_t x) { return SplitMix64(x).Next(); }

/// Each phase draws from its own generator, so running a subset of phases (--only) does not
/// shift the sequences of the others.
enum class RandomStream : uint64_t { kGet = 1, kGetMany = 2, kIngest = 3, kErc20 = 4 };
inline uint64_t StreamSeed(uint64_t seed, RandomStream stream) { return seed + static_cast<uint64_t>(stream); }

// ---- byte helpers ----------------------------------------------------------------------

inline void PutLittleEndian(char* out, uint64_t v, size_t bytes) {
  for (size_t k = 0; k < bytes; ++k) out[k] = static_cast<char>(v >> (8 * k));
}

inline void PutBigEndian64(char* out, uint64_t v) {
  for (size_t k = 0; k < 8; ++k) out[k] = static_cast<char>(v >> (8 * (7 - k)));
}

template <size_t N>
std::string_view View(const std::array<char, N>& bytes) {
  return {bytes.data(), N};
}

// ---- accounts and keys -----------------------------------------------------------------

constexpr size_t kAddressBytes = 20;
using Address = std::array<char, kAddressBytes>;

/// Accounts 0..N-1 are users; these two indexes are reserved, so N must stay below them.
constexpr uint64_t kFeeCollectorAccount = 0xFFFFFFFE;
constexpr uint64_t kTokenAccount = 0xFFFFFFFF;
constexpr uint64_t kMaxAccounts = kFeeCollectorAccount;

/// Address of account i: mix(i) ‖ mix(i + 2^32) ‖ low 4 bytes of mix(i + 2^33), each
/// little-endian. Random-looking, so keys spread over the key space like real addresses.
inline Address AccountAddress(uint64_t i) {
  Address a{};
  PutLittleEndian(a.data(), Mix(i), 8);
  PutLittleEndian(a.data() + 8, Mix(i + 0x100000000ull), 8);
  PutLittleEndian(a.data() + 16, Mix(i + 0x200000000ull), 4);
  return a;
}

constexpr std::string_view kBankStore = "bank";
constexpr std::string_view kEvmStore = "evm";

constexpr char kBalancePrefix = 0x02;  // bank: 0x02 ‖ address
constexpr char kNoncePrefix = 0x0a;    // evm: 0x0a ‖ address
constexpr char kStoragePrefix = 0x03;  // evm: 0x03 ‖ contract ‖ slot(32)

using AccountKey = std::array<char, 1 + kAddressBytes>;               // 21 bytes
using StorageKey = std::array<char, 1 + kAddressBytes + 32>;          // 53 bytes
using Word = std::array<char, 32>;                                     // EVM word
using NonceValue = std::array<char, 8>;

inline AccountKey PrefixedAddress(char prefix, uint64_t account) {
  AccountKey key{};
  key[0] = prefix;
  Address a = AccountAddress(account);
  std::copy(a.begin(), a.end(), key.begin() + 1);
  return key;
}

/// bank store: balance of `account`.
inline AccountKey BalanceKey(uint64_t account) { return PrefixedAddress(kBalancePrefix, account); }
/// evm store: nonce of `account`.
inline AccountKey NonceKey(uint64_t account) { return PrefixedAddress(kNoncePrefix, account); }

/// evm store: slot `slot` of the token contract (the address of kTokenAccount).
inline StorageKey TokenStorageKey(const std::array<char, 32>& slot) {
  StorageKey key{};
  key[0] = kStoragePrefix;
  Address token = AccountAddress(kTokenAccount);
  std::copy(token.begin(), token.end(), key.begin() + 1);
  std::copy(slot.begin(), slot.end(), key.begin() + 1 + kAddressBytes);
  return key;
}

/// Token balance slot of `account`: 12 zero bytes ‖ its address.
inline StorageKey TokenBalanceKey(uint64_t account) {
  std::array<char, 32> slot{};
  Address a = AccountAddress(account);
  std::copy(a.begin(), a.end(), slot.begin() + 12);
  return TokenStorageKey(slot);
}

/// The token's `totalTransfers` counter: slot 1 (31 zero bytes ‖ 0x01).
inline StorageKey TokenTotalTransfersKey() {
  std::array<char, 32> slot{};
  slot[31] = 0x01;
  return TokenStorageKey(slot);
}

// ---- values ----------------------------------------------------------------------------

/// A 32-byte word holding `n` big-endian in its last 8 bytes (24 zero bytes first).
inline Word WordOf(uint64_t n) {
  Word w{};
  PutBigEndian64(w.data() + 24, n);
  return w;
}

/// Bank balance of `account` written at `version`; unique per (account, version), so a read
/// proves it found the right version of the right key. Wraps mod 2^64.
inline Word BalanceValue(uint64_t account, uint64_t version) { return WordOf(account * 1000003ull + version); }

/// Nonce written at `version`: 8 bytes, big-endian.
inline NonceValue NonceValueAt(uint64_t version) {
  NonceValue v{};
  PutBigEndian64(v.data(), version);
  return v;
}

/// Token balance slot value of `account` written at `version`.
inline Word TokenBalanceValue(uint64_t account, uint64_t version) { return WordOf(account * 7ull + version); }

/// `totalTransfers` value: the number of ERC-20 transfers so far, this one included
/// (1-based, counted across all blocks of the phase).
inline Word TokenTotalTransfersValue(uint64_t transfers) { return WordOf(transfers); }

// ---- versions --------------------------------------------------------------------------

/// Parameters that shape the data (not the amount of timed work).
struct Shape {
  uint64_t accounts;   // N
  uint64_t versions;   // V: load versions
  uint64_t blocks;     // K: blocks per ingest phase
  uint64_t block_txs;  // T: transactions per block
};

constexpr uint64_t kLoadVersionStep = 100;

/// Load version k (0-based): 100, 200, ..., V*100.
inline uint64_t LoadVersion(uint64_t k) { return (k + 1) * kLoadVersionStep; }
inline uint64_t LastLoadVersion(const Shape& s) { return s.versions * kLoadVersionStep; }

/// The load version a read at `version` must see: the newest one at or below it.
inline uint64_t VisibleLoadVersion(const Shape& s, uint64_t version) {
  return std::min(version / kLoadVersionStep * kLoadVersionStep, LastLoadVersion(s));
}

/// Transfer block k (0-based) follows the load: V*100 + 1 + k.
inline uint64_t IngestVersion(const Shape& s, uint64_t k) { return LastLoadVersion(s) + 1 + k; }
/// ERC-20 block k (0-based) follows the transfer blocks.
inline uint64_t Erc20Version(const Shape& s, uint64_t k) { return LastLoadVersion(s) + s.blocks + 1 + k; }

/// Prune point: between the last two load versions. Each account keeps the newest load
/// version at or below it and loses the older ones (V-2 each); later versions all stay.
inline uint64_t PruneVersion(const Shape& s) { return (s.versions - 1) * kLoadVersionStep + 50; }

// ---- read draws --------------------------------------------------------------------------

constexpr size_t kGetManyBatchKeys = 256;

/// Read version: uniform in [100, V*100 + 100), so every load version (and the gaps between
/// them) is read, and the newest one as often as the others.
inline uint64_t DrawReadVersion(SplitMix64& rng, const Shape& s) {
  return kLoadVersionStep + rng.Uniform(s.versions * kLoadVersionStep);
}

inline uint64_t DrawAccount(SplitMix64& rng, const Shape& s) { return rng.Uniform(s.accounts); }

/// One get: account first, then version.
struct PointRead {
  uint64_t account;
  uint64_t version;
};
inline PointRead DrawPointRead(SplitMix64& rng, const Shape& s) {
  PointRead r{};
  r.account = DrawAccount(rng, s);
  r.version = DrawReadVersion(rng, s);
  return r;
}

// ---- blocks ----------------------------------------------------------------------------

/// Bytes ChangelogEntryEncoder adds per changeset header and per set-pair (beyond key and
/// value), used to size buffers exactly: u32 name length, u32 pair count; u8 kind, u32 key
/// length, u32 value length.
constexpr size_t kChangesetOverhead = 8;
constexpr size_t kPairOverhead = 9;

inline size_t PairBytes(size_t key, size_t value) { return kPairOverhead + key + value; }

/// Load entry at `version`: one "bank" changeset with the balance of every account, in
/// account order.
inline std::string EncodeLoadEntry(const Shape& s, uint64_t version) {
  size_t bytes = kChangesetOverhead + kBankStore.size() + s.accounts * PairBytes(sizeof(AccountKey), sizeof(Word));
  ChangelogEntryEncoder enc(version, bytes);
  enc.BeginChangeset(kBankStore, static_cast<uint32_t>(s.accounts));
  for (uint64_t i = 0; i < s.accounts; ++i) {
    enc.AddPair(View(BalanceKey(i)), View(BalanceValue(i, version)));
  }
  return enc.Finish();
}

/// Transfer block at `version`: T transfers, each drawing sender then receiver.
///   "bank": balance(sender), balance(receiver) per transfer, then the fee collector (2T+1)
///   "evm":  nonce(sender) per transfer (T)
/// Keys may repeat within the block; every write is kept (the last one wins).
inline std::string EncodeTransferBlock(const Shape& s, SplitMix64& rng, uint64_t version) {
  const uint64_t t = s.block_txs;
  std::vector<uint64_t> senders(t), receivers(t);
  for (uint64_t k = 0; k < t; ++k) {
    senders[k] = DrawAccount(rng, s);
    receivers[k] = DrawAccount(rng, s);
  }
  size_t bytes = 2 * kChangesetOverhead + kBankStore.size() + kEvmStore.size() +
                 (2 * t + 1) * PairBytes(sizeof(AccountKey), sizeof(Word)) +
                 t * PairBytes(sizeof(AccountKey), sizeof(NonceValue));
  ChangelogEntryEncoder enc(version, bytes);
  enc.BeginChangeset(kBankStore, static_cast<uint32_t>(2 * t + 1));
  for (uint64_t k = 0; k < t; ++k) {
    enc.AddPair(View(BalanceKey(senders[k])), View(BalanceValue(senders[k], version)));
    enc.AddPair(View(BalanceKey(receivers[k])), View(BalanceValue(receivers[k], version)));
  }
  enc.AddPair(View(BalanceKey(kFeeCollectorAccount)), View(BalanceValue(kFeeCollectorAccount, version)));
  enc.BeginChangeset(kEvmStore, static_cast<uint32_t>(t));
  NonceValue nonce = NonceValueAt(version);
  for (uint64_t k = 0; k < t; ++k) enc.AddPair(View(NonceKey(senders[k])), View(nonce));
  return enc.Finish();
}

/// ERC-20 block at `version`: T token transfers, each drawing sender then receiver, all in
/// one "evm" changeset: nonce(sender), balance slot(sender), balance slot(receiver),
/// totalTransfers (4T pairs). `transfers` counts transfers across blocks and is advanced.
inline std::string EncodeErc20Block(const Shape& s, SplitMix64& rng, uint64_t version, uint64_t* transfers) {
  const uint64_t t = s.block_txs;
  size_t bytes = kChangesetOverhead + kEvmStore.size() + t * PairBytes(sizeof(AccountKey), sizeof(NonceValue)) +
                 3 * t * PairBytes(sizeof(StorageKey), sizeof(Word));
  ChangelogEntryEncoder enc(version, bytes);
  enc.BeginChangeset(kEvmStore, static_cast<uint32_t>(4 * t));
  NonceValue nonce = NonceValueAt(version);
  StorageKey counter_key = TokenTotalTransfersKey();
  for (uint64_t k = 0; k < t; ++k) {
    uint64_t sender = DrawAccount(rng, s);
    uint64_t receiver = DrawAccount(rng, s);
    enc.AddPair(View(NonceKey(sender)), View(nonce));
    enc.AddPair(View(TokenBalanceKey(sender)), View(TokenBalanceValue(sender, version)));
    enc.AddPair(View(TokenBalanceKey(receiver)), View(TokenBalanceValue(receiver, version)));
    enc.AddPair(View(counter_key), View(TokenTotalTransfersValue(++*transfers)));
  }
  return enc.Finish();
}

}  // namespace strata::bench
