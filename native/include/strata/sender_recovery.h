// Batched recovery of transaction senders: secp256k1 public-key recovery (libsecp256k1) and
// the Ethereum address of the key, on a pool of native threads the library owns.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

struct secp256k1_context_struct;

namespace strata {

/// Bytes of a signing hash.
constexpr size_t kSigningHashBytes = 32;
/// Bytes of a compact signature, r ‖ s.
constexpr size_t kCompactSignatureBytes = 64;
/// Bytes of one packed batch item: signing hash ‖ r ‖ s ‖ recovery id (0 or 1).
constexpr size_t kRecoveryItemBytes = kSigningHashBytes + kCompactSignatureBytes + 1;
/// Bytes of an Ethereum address.
constexpr size_t kAddressBytes = 20;

/// A transaction to recover from its bytes: the pool also hashes what the signature signs and
/// the transaction itself, so the caller's thread does no hashing.
struct SignedMessage {
  /// What the signature signs; its keccak256 is the signing hash.
  const uint8_t* message;
  size_t message_size;
  /// The transaction's encoding; its keccak256 is the transaction hash.
  const uint8_t* raw;
  size_t raw_size;
  /// r ‖ s, kCompactSignatureBytes.
  const uint8_t* signature;
  /// 0 or 1; anything else recovers no key.
  int recovery_id;
};

/// Bytes of a hash written by RecoverMessages.
constexpr size_t kTxHashBytes = 32;

/// Recovers the senders of batches of signatures; one instance owns its threads.
class SenderRecovery {
 public:
  /// Starts `threads` worker threads (0: one per hardware thread).
  explicit SenderRecovery(unsigned threads = 0);
  /// Lets queued work finish, then joins the threads.
  ~SenderRecovery();
  SenderRecovery(const SenderRecovery&) = delete;
  SenderRecovery& operator=(const SenderRecovery&) = delete;

  /// Number of worker threads.
  unsigned threads() const { return static_cast<unsigned>(workers_.size()); }

  /// Recovers `count` items packed in `items` (kRecoveryItemBytes each) across the pool and
  /// returns when all are done: item i's address goes to `addresses + 20 i` and `ok[i]` is 1,
  /// or `ok[i]` is 0 (and the address zeroed) when its signature recovers no key. Safe to call
  /// from several threads at once; batches share the pool.
  void Recover(const uint8_t* items, size_t count, uint8_t* addresses, uint8_t* ok);

  /// Same result as Recover, computed on the calling thread only (small batches).
  void RecoverHere(const uint8_t* items, size_t count, uint8_t* addresses, uint8_t* ok) const;

  /// Recover for `count` transactions given as signed messages: the sender of item i as
  /// Recover gives it, and keccak256 of its raw bytes at `tx_hashes + 32 i` (written whether
  /// or not a key recovers).
  void RecoverMessages(const SignedMessage* items, size_t count, uint8_t* addresses, uint8_t* ok, uint8_t* tx_hashes);

 private:
  void WorkLoop();
  /// Runs `work(begin, n)` over [0, count) in chunks across the pool and returns when all ran.
  void RunChunks(size_t count, const std::function<void(size_t, size_t)>& work);

  secp256k1_context_struct* ctx_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
};

}  // namespace strata
