// strata_recovery_bench: native sender recoveries per second (libsecp256k1 recovery + keccak of
// the key) on one thread and on a pool of one thread per core, over a batch of distinct signers.
//
// Usage: strata_recovery_bench [--batch N=20000] [--rounds R=3]
// Output: one JSON object on stdout: {"threads", "batch", "singleThreadPerSec",
// "ecrecoverCeilingTxPerSec"} (best round of each). Exit status 2 on a bad argument.
#include <secp256k1.h>
#include <secp256k1_recovery.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "strata/keccak256.h"
#include "strata/sender_recovery.h"

namespace {

using Clock = std::chrono::steady_clock;

std::vector<uint8_t> SignedItems(size_t count) {
  secp256k1_context* ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
  std::vector<uint8_t> items(count * strata::kRecoveryItemBytes);
  for (size_t i = 0; i < count; ++i) {
    uint8_t key[32] = {};
    uint64_t n = i + 1;
    for (int b = 0; b < 8; ++b) key[31 - b] = static_cast<uint8_t>(n >> (8 * b));
    uint8_t* item = items.data() + i * strata::kRecoveryItemBytes;
    strata::Keccak256(key, 32, item);  // any 32 bytes serve as the signing hash
    secp256k1_ecdsa_recoverable_signature signature;
    secp256k1_ecdsa_sign_recoverable(ctx, &signature, item, key, nullptr, nullptr);
    int recid = 0;
    secp256k1_ecdsa_recoverable_signature_serialize_compact(ctx, item + 32, &recid, &signature);
    item[96] = static_cast<uint8_t>(recid);
  }
  secp256k1_context_destroy(ctx);
  return items;
}

// Best recoveries per second over `rounds` runs of `run`.
template <typename Run>
double Best(int rounds, size_t count, Run run) {
  double best = 0;
  for (int r = 0; r < rounds; ++r) {
    auto start = Clock::now();
    run();
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    best = std::max(best, count / seconds);
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  size_t batch = 20000;
  int rounds = 3;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if ((arg == "--batch" || arg == "--rounds") && i + 1 < argc) {
      long value = std::strtol(argv[++i], nullptr, 10);
      if (value <= 0) {
        std::fprintf(stderr, "strata_recovery_bench: %s takes a positive integer\n", arg.c_str());
        return 2;
      }
      if (arg == "--batch") {
        batch = static_cast<size_t>(value);
      } else {
        rounds = static_cast<int>(value);
      }
    } else {
      std::fprintf(stderr, "usage: strata_recovery_bench [--batch N] [--rounds R]\n");
      return 2;
    }
  }
  std::vector<uint8_t> items = SignedItems(batch);
  std::vector<uint8_t> addresses(batch * strata::kAddressBytes);
  std::vector<uint8_t> ok(batch);
  strata::SenderRecovery one(1);
  strata::SenderRecovery all(0);
  double single = Best(rounds, batch, [&] { one.RecoverHere(items.data(), batch, addresses.data(), ok.data()); });
  double pooled = Best(rounds, batch, [&] { all.Recover(items.data(), batch, addresses.data(), ok.data()); });
  if (std::count(ok.begin(), ok.end(), 1) != static_cast<long>(batch)) {
    std::fprintf(stderr, "strata_recovery_bench: a signature made here did not recover\n");
    return 1;
  }
  std::printf("{\"threads\":%u,\"batch\":%zu,\"singleThreadPerSec\":%.0f,\"ecrecoverCeilingTxPerSec\":%.0f}\n", all.threads(),
              batch, single, pooled);
  return 0;
}
