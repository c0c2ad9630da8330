// SenderRecovery: splits a batch into chunks that the pool's threads recover; the caller waits
// on a countdown of its own chunks, so concurrent batches never wait for each other's.
#include "strata/sender_recovery.h"

#include <secp256k1.h>
#include <secp256k1_recovery.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "strata/keccak256.h"

namespace strata {
namespace {

// Items per chunk: large enough that queueing costs nothing next to ~30 µs per recovery, small
// enough that a thread slowed by other load does not hold the whole batch back.
constexpr size_t kMinChunk = 16;

// Recovers the signer of `hash`; false when the signature is malformed or recovers no key.
bool RecoverSigner(const secp256k1_context* ctx, const uint8_t* hash, const uint8_t* compact, int recovery_id,
                   uint8_t* address) {
  secp256k1_ecdsa_recoverable_signature signature;
  secp256k1_pubkey key;
  uint8_t serialized[65];
  size_t length = sizeof(serialized);
  if (recovery_id < 0 || recovery_id > 1 ||
      !secp256k1_ecdsa_recoverable_signature_parse_compact(ctx, &signature, compact, recovery_id) ||
      !secp256k1_ecdsa_recover(ctx, &key, &signature, hash) ||
      !secp256k1_ec_pubkey_serialize(ctx, serialized, &length, &key, SECP256K1_EC_UNCOMPRESSED)) {
    std::memset(address, 0, kAddressBytes);
    return false;
  }
  uint8_t digest[32];
  Keccak256(serialized + 1, 64, digest);  // the key without its 0x04 prefix
  std::memcpy(address, digest + 32 - kAddressBytes, kAddressBytes);
  return true;
}

// Recovers one packed item (hash ‖ r ‖ s ‖ recovery id).
bool RecoverOne(const secp256k1_context* ctx, const uint8_t* item, uint8_t* address) {
  return RecoverSigner(ctx, item, item + kSigningHashBytes, item[kSigningHashBytes + kCompactSignatureBytes], address);
}

// Counts a batch's outstanding chunks down to zero.
class Countdown {
 public:
  explicit Countdown(size_t count) : left_(count) {}
  void Done() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--left_ == 0) cv_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return left_ == 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  size_t left_;
};

}  // namespace

SenderRecovery::SenderRecovery(unsigned threads) {
  ctx_ = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
  if (ctx_ == nullptr) throw std::runtime_error("secp256k1_context_create failed");
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  workers_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { WorkLoop(); });
}

SenderRecovery::~SenderRecovery() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
  secp256k1_context_destroy(ctx_);
}

void SenderRecovery::WorkLoop() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and nothing left to finish
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    task();
  }
}

void SenderRecovery::RecoverHere(const uint8_t* items, size_t count, uint8_t* addresses, uint8_t* ok) const {
  for (size_t i = 0; i < count; ++i) {
    ok[i] = RecoverOne(ctx_, items + i * kRecoveryItemBytes, addresses + i * kAddressBytes) ? 1 : 0;
  }
}

void SenderRecovery::RunChunks(size_t count, const std::function<void(size_t, size_t)>& work) {
  if (count == 0) return;
  size_t chunk = std::max(kMinChunk, (count + workers_.size() * 4 - 1) / (workers_.size() * 4));
  size_t chunks = (count + chunk - 1) / chunk;
  if (chunks == 1) {
    work(0, count);
    return;
  }
  Countdown countdown(chunks);
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t begin = 0; begin < count; begin += chunk) {
      size_t n = std::min(chunk, count - begin);
      queue_.emplace_back([&work, &countdown, begin, n] {
        work(begin, n);
        countdown.Done();
      });
    }
  }
  wake_.notify_all();
  countdown.Wait();
}

void SenderRecovery::Recover(const uint8_t* items, size_t count, uint8_t* addresses, uint8_t* ok) {
  RunChunks(count, [&](size_t begin, size_t n) {
    RecoverHere(items + begin * kRecoveryItemBytes, n, addresses + begin * kAddressBytes, ok + begin);
  });
}

void SenderRecovery::RecoverMessages(const SignedMessage* items, size_t count, uint8_t* addresses, uint8_t* ok,
                                     uint8_t* tx_hashes) {
  RunChunks(count, [&](size_t begin, size_t n) {
    for (size_t i = begin; i < begin + n; ++i) {
      const SignedMessage& item = items[i];
      uint8_t hash[kSigningHashBytes];
      Keccak256(item.message, item.message_size, hash);
      ok[i] = RecoverSigner(ctx_, hash, item.signature, item.recovery_id, addresses + i * kAddressBytes) ? 1 : 0;
      Keccak256(item.raw, item.raw_size, tx_hashes + i * kTxHashBytes);
    }
  });
}

}  // namespace strata
