// strata_flatkv_bench: commit time of FlatKV blocks of nonce updates over a large account set.
//
// Loads `--accounts` accounts (one nonce row each), then commits `--blocks` blocks that each
// update the nonce of `--updates` distinct random accounts, and reports per block:
//   stage         the Set calls;
//   commit        Commit until it returns: changelog append + fsync (overlapped), old-row
//                 reads, LtHash of the old and new rows; the block is durable then;
//   commit+write  until the block's RocksDB batch, written in the background after Commit
//                 returns, is done (a Get waits for it). A node hides that part behind the
//                 execution of its next block; back-to-back commits pay it.
// A last block is committed as WorkingHash + Commit to show the split between reading and
// hashing the rows and the rest.
//
// Output: a human-readable table on stderr, one JSON object on stdout. Exit status: 0 on
// success, 1 if the store fails, 2 on bad arguments.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "sc/flatkv/flatkv_store.h"
#include "strata/status.h"

namespace strata::bench {
namespace {

constexpr char kUsage[] =
    "usage: strata_flatkv_bench --dir <empty dir> [--accounts N=1000000] [--updates U=60000]\n"
    "         [--blocks B=5] [--hash-threads T=2] [--seed S=42]\n"
    "Prints a table on stderr and one JSON object on stdout.\n";

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Args {
  std::string dir;
  int64_t accounts = 1000000;
  int64_t updates = 60000;
  int blocks = 5;
  int hash_threads = 2;
  uint64_t seed = 42;
};

Args ParseArgs(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) throw UsageError("missing value for " + flag);
    std::string value = argv[++i];
    try {
      if (flag == "--dir") {
        args.dir = value;
      } else if (flag == "--accounts") {
        args.accounts = std::stoll(value);
      } else if (flag == "--updates") {
        args.updates = std::stoll(value);
      } else if (flag == "--blocks") {
        args.blocks = std::stoi(value);
      } else if (flag == "--hash-threads") {
        args.hash_threads = std::stoi(value);
      } else if (flag == "--seed") {
        args.seed = std::stoull(value);
      } else {
        throw UsageError("unknown flag " + flag);
      }
    } catch (const std::logic_error&) {
      throw UsageError("bad value for " + flag + ": " + value);
    }
  }
  if (args.dir.empty()) throw UsageError("--dir is required");
  if (args.accounts < 1 || args.updates < 1 || args.updates > args.accounts || args.blocks < 1 ||
      args.hash_threads < 1) {
    throw UsageError("need accounts >= updates >= 1, blocks >= 1, hash-threads >= 1");
  }
  return args;
}

// A 20-byte address derived from the account number (splitmix64), so addresses spread
// over the key space as real ones do.
std::string Address(uint64_t n) {
  std::string addr;
  uint64_t x = n;
  while (addr.size() < 20) {
    x += 0x9e3779b97f4a7c15ull;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    for (int i = 0; i < 8 && addr.size() < 20; ++i) addr.push_back(static_cast<char>(z >> (8 * i)));
  }
  return addr;
}

std::string NonceKey(uint64_t account) { return std::string(1, '\x0a') + Address(account); }

std::string NonceValue(uint64_t nonce) {
  std::string v(8, '\0');
  for (int i = 0; i < 8; ++i) v[7 - i] = static_cast<char>(nonce >> (8 * i));
  return v;
}

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

int Run(const Args& args) {
  namespace fs = std::filesystem;
  if (fs::exists(args.dir) && !fs::is_empty(args.dir)) throw UsageError("--dir must be empty or absent");
  sc::FlatKvOptions options;
  options.snapshot_interval = 0;
  options.hash_threads = args.hash_threads;
  auto store = sc::FlatKvStore::Open(args.dir, options);

  // Load: every account gets nonce 1, in blocks of 100k.
  auto load_start = std::chrono::steady_clock::now();
  int64_t version = 0;
  constexpr int64_t kLoadBlock = 100000;
  for (int64_t first = 0; first < args.accounts; first += kLoadBlock) {
    for (int64_t a = first; a < std::min(args.accounts, first + kLoadBlock); ++a) {
      store->Set(NonceKey(static_cast<uint64_t>(a)), NonceValue(1));
    }
    store->Commit(++version);
  }
  double load_ms = MillisSince(load_start);
  std::fprintf(stderr, "loaded %lld accounts in %lld blocks: %.0f ms\n", static_cast<long long>(args.accounts),
               static_cast<long long>(version), load_ms);

  std::mt19937_64 rng(args.seed);
  auto pick_block = [&] {
    std::unordered_set<int64_t> chosen;
    std::uniform_int_distribution<int64_t> any(0, args.accounts - 1);
    while (static_cast<int64_t>(chosen.size()) < args.updates) chosen.insert(any(rng));
    std::vector<std::pair<std::string, std::string>> block;
    block.reserve(chosen.size());
    for (int64_t a : chosen) block.emplace_back(NonceKey(static_cast<uint64_t>(a)), NonceValue(version + 1));
    return block;
  };

  std::vector<double> stage_ms, commit_ms, settled_ms;
  std::fprintf(stderr, "%-8s %12s %12s %18s\n", "block", "stage ms", "commit ms", "commit+write ms");
  for (int b = 0; b < args.blocks; ++b) {
    auto block = pick_block();
    auto t0 = std::chrono::steady_clock::now();
    for (const auto& [key, value] : block) store->Set(key, value);
    stage_ms.push_back(MillisSince(t0));
    auto t1 = std::chrono::steady_clock::now();
    store->Commit(++version);
    commit_ms.push_back(MillisSince(t1));
    // A read waits for the block's rows to reach RocksDB (written in the background).
    store->Get(block.front().first);
    settled_ms.push_back(MillisSince(t1));
    std::fprintf(stderr, "%-8d %12.1f %12.1f %18.1f\n", b + 1, stage_ms.back(), commit_ms.back(), settled_ms.back());
  }

  // One more block, split into WorkingHash (reads + hashing) and the Commit that reuses it.
  auto block = pick_block();
  for (const auto& [key, value] : block) store->Set(key, value);
  auto t2 = std::chrono::steady_clock::now();
  store->WorkingHash();
  double hash_ms = MillisSince(t2);
  auto t3 = std::chrono::steady_clock::now();
  store->Commit(++version);
  double write_ms = MillisSince(t3);
  store->Close();

  std::fprintf(stderr,
               "median: stage %.1f ms, commit %.1f ms, commit+write %.1f ms (%lld nonce updates over %lld accounts, "
               "%d hash threads)\n",
               Median(stage_ms), Median(commit_ms), Median(settled_ms), static_cast<long long>(args.updates),
               static_cast<long long>(args.accounts), args.hash_threads);
  std::fprintf(stderr, "split: WorkingHash %.1f ms, then Commit %.1f ms\n", hash_ms, write_ms);
  std::printf(
      "{\"accounts\":%lld,\"updates\":%lld,\"hash_threads\":%d,\"load_ms\":%.1f,\"stage_ms_median\":%.2f,"
      "\"commit_ms_median\":%.2f,\"commit_and_write_ms_median\":%.2f,\"working_hash_ms\":%.2f,"
      "\"commit_after_hash_ms\":%.2f}\n",
      static_cast<long long>(args.accounts), static_cast<long long>(args.updates), args.hash_threads, load_ms,
      Median(stage_ms), Median(commit_ms), Median(settled_ms), hash_ms, write_ms);
  return 0;
}

}  // namespace
}  // namespace strata::bench

int main(int argc, char** argv) {
  try {
    return strata::bench::Run(strata::bench::ParseArgs(argc, argv));
  } catch (const strata::bench::UsageError& e) {
    std::fprintf(stderr, "%s\n%s", e.what(), strata::bench::kUsage);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "strata_flatkv_bench: %s\n", e.what());
    return 1;
  }
}
