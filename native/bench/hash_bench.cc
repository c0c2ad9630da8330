// strata_hash_bench: throughput of the state-commitment hash kernels on this machine, per
// engine (portable and every accelerated engine the CPU supports), single-threaded.
//
//   SHA-256 of 60- and 100-byte messages  (IAVL leaf and inner node hashes are this size)
//   LtHash EntryHash of an 80-byte entry   (32-byte key + 48-byte value, 88 bytes serialized,
//                                           2048 bytes of BLAKE3 XOF)
//   LtHash MixIn of the same entry          (default engine: EntryHash added into a sum)
//
// and, from those rates, the single-core time of a block commit's hashing budget (500k
// SHA-256 of ~80-byte messages, 120k entry hashes).
//
// Usage: strata_hash_bench [--seconds S=0.5]   (time spent per measurement)
// Output: a table on stdout. Exit status 2 on a bad argument.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "sc/blake3.h"
#include "sc/lthash.h"
#include "sc/sha256.h"

namespace strata::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kShaMessagesPerCommit = 500'000;
constexpr size_t kEntryHashesPerCommit = 120'000;
constexpr size_t kKeyBytes = 32;
constexpr size_t kValueBytes = 48;

// Keeps results observable so the compiler cannot drop the work being timed.
volatile uint8_t g_sink;

// Calls op(i) for i = 0, 1, ... until about `seconds` have passed; returns calls per second.
template <typename Op>
double CallsPerSecond(double seconds, Op op) {
  constexpr uint64_t kBatch = 256;  // clock reads per call stay negligible
  for (uint64_t i = 0; i < kBatch; ++i) op(i);  // warm caches and branch predictors
  const auto start = Clock::now();
  const auto budget = std::chrono::duration<double>(seconds);
  uint64_t calls = 0;
  std::chrono::duration<double> elapsed{};
  do {
    for (uint64_t i = 0; i < kBatch; ++i) op(calls + i);
    calls += kBatch;
    elapsed = Clock::now() - start;
  } while (elapsed < budget);
  return static_cast<double>(calls) / elapsed.count();
}

// Varies the first eight bytes with `i` so no two timed calls hash the same input.
void Stamp(std::string& bytes, uint64_t i) { std::memcpy(bytes.data(), &i, sizeof i); }

double Sha256Rate(sc::Sha256Engine engine, size_t message_size, double seconds) {
  std::string message(message_size, 'm');
  return CallsPerSecond(seconds, [&](uint64_t i) {
    Stamp(message, i);
    g_sink = g_sink ^ sc::Sha256Of(message, engine)[0];
  });
}

double EntryHashRate(sc::Blake3Engine engine, double seconds) {
  std::string key(kKeyBytes, 'k');
  const std::string value(kValueBytes, 'v');
  return CallsPerSecond(seconds, [&](uint64_t i) {
    Stamp(key, i);
    g_sink = g_sink ^ static_cast<uint8_t>(sc::EntryHash(key, value, engine).limb(0));
  });
}

double MixInRate(double seconds) {
  std::string key(kKeyBytes, 'k');
  const std::string value(kValueBytes, 'v');
  sc::LtHash sum;
  const double rate = CallsPerSecond(seconds, [&](uint64_t i) {
    Stamp(key, i);
    sum.MixIn(key, value);
  });
  g_sink = g_sink ^ static_cast<uint8_t>(sum.limb(0));
  return rate;
}

void PrintRate(const char* what, const char* engine, double per_second) {
  std::printf("  %-34s %-9s %12.0f /s  %8.1f ns each\n", what, engine, per_second,
              1e9 / per_second);
}

double ParseSeconds(int argc, char** argv) {
  double seconds = 0.5;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      char* end = nullptr;
      seconds = std::strtod(argv[++i], &end);
      if (*end != '\0' || !(seconds > 0)) return -1;
    } else {
      return -1;
    }
  }
  return seconds;
}

}  // namespace
}  // namespace strata::bench

int main(int argc, char** argv) {
  using namespace strata;
  using namespace strata::bench;
  const double seconds = ParseSeconds(argc, argv);
  if (seconds < 0) {
    std::fprintf(stderr, "usage: strata_hash_bench [--seconds S=0.5]\n");
    return 2;
  }

  std::vector<sc::Sha256Engine> sha_engines;
  for (auto engine : {sc::Sha256Engine::kPortable, sc::Sha256Engine::kShaNi}) {
    if (sc::Sha256EngineSupported(engine)) sha_engines.push_back(engine);
  }
  std::vector<sc::Blake3Engine> blake3_engines;
  for (auto engine : {sc::Blake3Engine::kPortable, sc::Blake3Engine::kSse41,
                      sc::Blake3Engine::kAvx2, sc::Blake3Engine::kAvx512}) {
    if (sc::Blake3EngineSupported(engine)) blake3_engines.push_back(engine);
  }

  std::printf("single thread, %.2f s per measurement; defaults: sha256=%s blake3=%s\n", seconds,
              sc::Sha256EngineName(sc::DefaultSha256Engine()),
              sc::Blake3EngineName(sc::DefaultBlake3Engine()));
  std::printf("SHA-256 (Sha256Of)\n");
  double sha_default_ns = 0;
  for (auto engine : sha_engines) {
    const double rate60 = Sha256Rate(engine, 60, seconds);
    const double rate100 = Sha256Rate(engine, 100, seconds);
    PrintRate("60-byte message", sc::Sha256EngineName(engine), rate60);
    PrintRate("100-byte message", sc::Sha256EngineName(engine), rate100);
    // A commit's messages are 60-120 bytes: charge each the mean of the two sizes.
    if (engine == sc::DefaultSha256Engine()) sha_default_ns = 0.5e9 / rate60 + 0.5e9 / rate100;
  }

  std::printf("LtHash (80-byte entry: %zu-byte key, %zu-byte value)\n", kKeyBytes, kValueBytes);
  double entry_default_ns = 0;
  for (auto engine : blake3_engines) {
    const double rate = EntryHashRate(engine, seconds);
    PrintRate("EntryHash", sc::Blake3EngineName(engine), rate);
    if (engine == sc::DefaultBlake3Engine()) entry_default_ns = 1e9 / rate;
  }
  PrintRate("MixIn (EntryHash + add)", sc::Blake3EngineName(sc::DefaultBlake3Engine()),
            MixInRate(seconds));

  const double sha_ms = sha_default_ns * kShaMessagesPerCommit / 1e6;
  const double entry_ms = entry_default_ns * kEntryHashesPerCommit / 1e6;
  std::printf("block commit hashing on one core, default engines: %zu SHA-256 %.1f ms + %zu "
              "EntryHash %.1f ms = %.1f ms\n",
              kShaMessagesPerCommit, sha_ms, kEntryHashesPerCommit, entry_ms, sha_ms + entry_ms);
  return 0;
}
