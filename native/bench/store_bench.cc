// strata_store_bench: the store benchmark run directly on the C++ storage core.
//
// `npm run bench:store` runs the same workload (workload.h) through Node-API and spawns this
// driver, so each TypeScript figure can be read as a fraction of what the engine itself does.
// To measure the engine and nothing else, every block and every read request is generated
// before its phase's clock starts; the clock covers only store calls (and the cheap check of
// each answer).
//
// Output: a human-readable table on stderr, one JSON object on stdout (nothing else).
// Exit status: 0 on success, 1 if the store fails or a read returns a wrong value, 2 on bad
// arguments.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "encoding.h"
#include "strata/mvcc_store.h"
#include "strata/status.h"
#include "workload.h"

namespace strata::bench {
namespace {

namespace fs = std::filesystem;

constexpr char kUsage[] =
    "usage: strata_store_bench --dir <empty dir> [--layout pebbledb|rocksdb] [--accounts N=1000000]\n"
    "         [--versions V=3] [--reads R=500000] [--batches B=2000] [--blocks K=10]\n"
    "         [--block-txs T=60000] [--seed S=42] [--async-write-buffer 100]\n"
    "         [--only load,get,getmany,ingest,erc20,prune] [--reuse]\n"
    "--reuse runs on a store already loaded with the same --accounts/--versions/--seed (e.g. by the\n"
    "Node-API side of npm run bench:store), so both read the very same files; it excludes load.\n"
    "Prints a table on stderr and one JSON object on stdout.\n";

/// Bad command line: exit status 2 with the usage text.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A read returned something other than what the workload wrote: exit status 1.
class WrongReadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---- command line --------------------------------------------------------------------

enum PhaseId { kLoad, kGet, kGetMany, kIngest, kErc20, kPrune, kPhaseCount };
constexpr const char* kPhaseNames[kPhaseCount] = {"load", "get", "getmany", "ingest", "erc20", "prune"};

struct Options {
  std::string dir;
  Layout layout = Layout::kPebble;
  Shape shape{1000000, 3, 10, 60000};
  uint64_t reads = 500000;
  uint64_t batches = 2000;
  uint64_t seed = 42;
  int async_write_buffer = 100;
  bool run[kPhaseCount] = {true, true, true, true, true, true};
  bool reuse = false;  // read a store loaded earlier instead of loading a fresh one
};

uint64_t ParseUnsigned(const std::string& flag, const std::string& text, uint64_t min, uint64_t max) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  // strtoull alone would accept " 7", "+7" and even "-7" (wrapped); insist on plain digits.
  bool digits = !text.empty() && std::isdigit(static_cast<unsigned char>(text[0]));
  if (!digits || *end != '\0' || errno == ERANGE || v < min || v > max) {
    throw UsageError(flag + " needs an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                     "], got \"" + text + "\"");
  }
  return v;
}

int ParseSigned(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < INT32_MIN || v > INT32_MAX) {
    throw UsageError(flag + " needs an integer, got \"" + text + "\"");
  }
  return static_cast<int>(v);
}

// --only: a comma-separated subset of the phase names; they still run in the fixed order.
void ParsePhases(const std::string& text, bool (&run)[kPhaseCount]) {
  std::fill(std::begin(run), std::end(run), false);
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = std::min(text.find(',', pos), text.size());
    std::string name = text.substr(pos, comma - pos);
    int found = -1;
    for (int p = 0; p < kPhaseCount; ++p) {
      if (name == kPhaseNames[p]) found = p;
    }
    if (found < 0) throw UsageError("--only: unknown phase \"" + name + "\"; use load,get,getmany,ingest,erc20,prune");
    run[found] = true;
    pos = comma + 1;
  }
}

Layout ParseLayoutFlag(const std::string& text) {
  try {
    return ParseLayout(text);
  } catch (const Error& e) {
    throw UsageError(std::string("--layout: ") + e.what());
  }
}

void ApplyFlag(Options* o, const std::string& flag, const std::string& value) {
  // Bound for counts: keeps versions (V*100 + 2K) and op totals far from 2^64.
  constexpr uint64_t kMaxCount = 1ull << 40;
  if (flag == "--dir") {
    o->dir = value;
  } else if (flag == "--layout") {
    o->layout = ParseLayoutFlag(value);
  } else if (flag == "--accounts") {
    o->shape.accounts = ParseUnsigned(flag, value, 1, kMaxAccounts);
  } else if (flag == "--versions") {
    o->shape.versions = ParseUnsigned(flag, value, 1, kMaxCount);
  } else if (flag == "--reads") {
    o->reads = ParseUnsigned(flag, value, 1, kMaxCount);
  } else if (flag == "--batches") {
    o->batches = ParseUnsigned(flag, value, 1, kMaxCount);
  } else if (flag == "--blocks") {
    o->shape.blocks = ParseUnsigned(flag, value, 1, kMaxCount);
  } else if (flag == "--block-txs") {
    o->shape.block_txs = ParseUnsigned(flag, value, 1, UINT32_MAX / 4);  // 4T pairs fit a u32 count
  } else if (flag == "--seed") {
    o->seed = ParseUnsigned(flag, value, 0, UINT64_MAX);
  } else if (flag == "--async-write-buffer") {
    o->async_write_buffer = ParseSigned(flag, value);
  } else if (flag == "--only") {
    ParsePhases(value, o->run);
  } else {
    throw UsageError("unknown option " + flag);
  }
}

// The changelog frames an entry with a u32 length, so no entry may reach 4 GiB.
void CheckEntrySizes(const Shape& s) {
  constexpr uint64_t kMaxEntry = UINT32_MAX;
  uint64_t load = s.accounts * PairBytes(sizeof(AccountKey), sizeof(Word));
  uint64_t erc20 = s.block_txs * (PairBytes(sizeof(AccountKey), sizeof(NonceValue)) +
                                  3 * PairBytes(sizeof(StorageKey), sizeof(Word)));
  if (load >= kMaxEntry) throw UsageError("--accounts: a load entry would be " + std::to_string(load) + " bytes; entries must stay below 4 GiB");
  if (erc20 >= kMaxEntry) throw UsageError("--block-txs: an ERC-20 block would be " + std::to_string(erc20) + " bytes; entries must stay below 4 GiB");
}

void Validate(const Options& o) {
  if (o.dir.empty()) throw UsageError("--dir is required");
  if (o.reuse && o.run[kLoad]) throw UsageError("--reuse reads a store loaded earlier: leave load out of --only");
  // Reads check the loaded values; without the load every read would miss.
  if ((o.run[kGet] || o.run[kGetMany]) && !o.run[kLoad] && !o.reuse) {
    throw UsageError("--only: get and getmany read the loaded balances, so they need load (or --reuse)");
  }
  CheckEntrySizes(o.shape);
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    std::string flag = argv[a];
    if (flag == "--help" || flag == "-h") {
      std::fputs(kUsage, stderr);
      std::exit(0);
    }
    if (flag == "--reuse") {
      o.reuse = true;
      continue;
    }
    if (a + 1 >= argc) throw UsageError(flag + " needs a value");
    ApplyFlag(&o, flag, argv[++a]);
  }
  Validate(o);
  return o;
}

// A leftover store would make versions go backwards or mix runs: insist on a fresh one.
void PrepareEmptyDir(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_empty(dir, ec)) {
    throw UsageError("--dir " + dir + " is not empty; give the benchmark an empty or missing directory");
  }
  fs::create_directories(dir, ec);
  if (ec) throw UsageError("--dir: cannot create " + dir + ": " + ec.message());
}

// ---- timing --------------------------------------------------------------------------

class Stopwatch {
 public:
  double Seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// `ops` units of work done in `seconds`.
struct Timing {
  uint64_t ops = 0;
  double seconds = 0;
  double Rate() const { return seconds > 0 ? static_cast<double>(ops) / seconds : 0; }
};

// ---- writes --------------------------------------------------------------------------

/// An encoded entry and the version it was built for.
struct Block {
  uint64_t version;
  std::string entry;
};

/// First error any asynchronous write reported; shared with the write callbacks.
class WriteErrors {
 public:
  void Record(const Error* error) {
    if (!error) return;
    std::lock_guard<std::mutex> lock(mu_);
    if (!first_) first_ = std::make_unique<Error>(*error);
  }
  void ThrowIfAny() {
    std::lock_guard<std::mutex> lock(mu_);
    if (first_) throw *first_;
  }

 private:
  std::mutex mu_;
  std::unique_ptr<Error> first_;
};

/// Submits every block the way the Node-API binding does (ApplyEncodedAsync), then waits
/// until all are applied. The clock runs from the first submit until the wait returns.
double TimeIngest(MvccStore& store, std::vector<Block> blocks) {
  auto errors = std::make_shared<WriteErrors>();
  Stopwatch clock;
  for (Block& b : blocks) {
    store.ApplyEncodedAsync(std::move(b.entry), [errors](const Error* e) { errors->Record(e); });
  }
  store.WaitForPendingWrites();
  double seconds = clock.Seconds();
  errors->ThrowIfAny();
  return seconds;
}

std::vector<Block> BuildLoadBlocks(const Shape& s) {
  std::vector<Block> blocks;
  for (uint64_t k = 0; k < s.versions; ++k) blocks.push_back({LoadVersion(k), EncodeLoadEntry(s, LoadVersion(k))});
  return blocks;
}

std::vector<Block> BuildTransferBlocks(const Shape& s, uint64_t seed) {
  SplitMix64 rng(StreamSeed(seed, RandomStream::kIngest));
  std::vector<Block> blocks;
  for (uint64_t k = 0; k < s.blocks; ++k) {
    uint64_t version = IngestVersion(s, k);
    blocks.push_back({version, EncodeTransferBlock(s, rng, version)});
  }
  return blocks;
}

std::vector<Block> BuildErc20Blocks(const Shape& s, uint64_t seed) {
  SplitMix64 rng(StreamSeed(seed, RandomStream::kErc20));
  uint64_t transfers = 0;
  std::vector<Block> blocks;
  for (uint64_t k = 0; k < s.blocks; ++k) {
    uint64_t version = Erc20Version(s, k);
    blocks.push_back({version, EncodeErc20Block(s, rng, version, &transfers)});
  }
  return blocks;
}

Timing RunLoad(MvccStore& store, const Shape& s) {
  return {s.accounts * s.versions, TimeIngest(store, BuildLoadBlocks(s))};
}

Timing RunTransfers(MvccStore& store, const Options& o) {
  const Shape& s = o.shape;
  return {s.blocks * (3 * s.block_txs + 1), TimeIngest(store, BuildTransferBlocks(s, o.seed))};
}

Timing RunErc20(MvccStore& store, const Options& o) {
  const Shape& s = o.shape;
  return {s.blocks * 4 * s.block_txs, TimeIngest(store, BuildErc20Blocks(s, o.seed))};
}

/// Prune at PruneVersion; ops = versions the store reports deleted.
Timing RunPrune(MvccStore& store, const Shape& s) {
  Stopwatch clock;
  PruneResult r = store.Prune(PruneVersion(s));
  return {r.versions_deleted, clock.Seconds()};
}

// After the load, each account holds V-1 load versions at or below the prune point and keeps
// one, so pruning should delete N*(V-2). A different count is worth a look, not a failure:
// the rocksdb layout counts what compaction dropped, which is an approximation.
void NoteUnexpectedPruneCount(const Shape& s, uint64_t deleted) {
  uint64_t expected = s.versions >= 2 ? s.accounts * (s.versions - 2) : 0;
  if (deleted != expected) {
    std::fprintf(stderr, "note: prune deleted %" PRIu64 " versions; the load implies %" PRIu64 "\n", deleted, expected);
  }
}

// ---- reads ---------------------------------------------------------------------------

/// One balance read with the answer the load phase implies.
struct ExpectedRead {
  uint64_t account;
  uint64_t version;
  AccountKey key;
  Word expected;
};

ExpectedRead ExpectBalance(const Shape& s, uint64_t account, uint64_t version) {
  return {account, version, BalanceKey(account), BalanceValue(account, VisibleLoadVersion(s, version))};
}

/// Answers seen while reading; the first wrong one is described for the error message.
struct ReadTally {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t wrong = 0;  // misses included: every read key was loaded
  std::string first_problem;

  void Check(const ExpectedRead& want, const std::optional<std::string>& got) {
    bool hit = got.has_value();
    hits += hit;
    misses += !hit;
    if (hit && *got == View(want.expected)) return;
    if (wrong++ == 0) first_problem = Describe(want, got);
  }

  /// Throws WrongReadError naming the phase if any answer was wrong.
  void ThrowIfWrong(const char* phase, uint64_t reads) const {
    if (wrong == 0) return;
    throw WrongReadError(std::string(phase) + ": " + std::to_string(wrong) + " of " + std::to_string(reads) +
                         " reads returned a wrong value (" + std::to_string(misses) + " found nothing); first: " +
                         first_problem);
  }

 private:
  static std::string Hex(std::string_view bytes) { return encoding::Hex(bytes); }

  static std::string Describe(const ExpectedRead& want, const std::optional<std::string>& got) {
    return "account " + std::to_string(want.account) + " at version " + std::to_string(want.version) +
           " (key " + Hex(View(want.key)) + "): expected " + Hex(View(want.expected)) + ", got " +
           (got ? Hex(*got) : std::string("nothing"));
  }
};

std::vector<ExpectedRead> DrawGets(const Options& o) {
  SplitMix64 rng(StreamSeed(o.seed, RandomStream::kGet));
  std::vector<ExpectedRead> reads;
  reads.reserve(o.reads);
  for (uint64_t r = 0; r < o.reads; ++r) {
    PointRead p = DrawPointRead(rng, o.shape);
    reads.push_back(ExpectBalance(o.shape, p.account, p.version));
  }
  return reads;
}

struct GetOutcome {
  Timing timing;
  ReadTally tally;
};

GetOutcome RunGets(MvccStore& store, const Options& o) {
  std::vector<ExpectedRead> reads = DrawGets(o);
  GetOutcome out;
  // One untimed pass warms the block cache, as on a serving node; the Node-API side does the same.
  for (const ExpectedRead& r : reads) store.Get(kBankStore, r.version, View(r.key));
  Stopwatch clock;
  for (const ExpectedRead& r : reads) out.tally.Check(r, store.Get(kBankStore, r.version, View(r.key)));
  out.timing = {reads.size(), clock.Seconds()};
  out.tally.ThrowIfWrong("get", reads.size());
  return out;
}

/// One GetMany call: kGetManyBatchKeys balances at one version.
struct BatchRead {
  uint64_t version;
  std::vector<ExpectedRead> reads;
  std::vector<std::string_view> keys;  // views of reads[i].key, as GetMany takes them
};

// Draw order per batch: the version, then the accounts.
std::vector<BatchRead> DrawBatches(const Options& o) {
  SplitMix64 rng(StreamSeed(o.seed, RandomStream::kGetMany));
  std::vector<BatchRead> batches(o.batches);
  for (BatchRead& b : batches) {
    b.version = DrawReadVersion(rng, o.shape);
    b.reads.reserve(kGetManyBatchKeys);
    for (size_t k = 0; k < kGetManyBatchKeys; ++k) b.reads.push_back(ExpectBalance(o.shape, DrawAccount(rng, o.shape), b.version));
    for (const ExpectedRead& r : b.reads) b.keys.push_back(View(r.key));
  }
  return batches;
}

Timing RunGetMany(MvccStore& store, const Options& o) {
  std::vector<BatchRead> batches = DrawBatches(o);
  std::vector<std::optional<std::string>> answers;
  ReadTally tally;
  for (const BatchRead& b : batches) store.GetMany(kBankStore, b.version, b.keys, &answers);  // warm-up, untimed
  Stopwatch clock;
  for (const BatchRead& b : batches) {
    store.GetMany(kBankStore, b.version, b.keys, &answers);
    for (size_t k = 0; k < b.reads.size(); ++k) tally.Check(b.reads[k], answers[k]);
  }
  Timing t{batches.size() * kGetManyBatchKeys, clock.Seconds()};
  tally.ThrowIfWrong("getmany", t.ops);
  return t;
}

// ---- report --------------------------------------------------------------------------

struct Report {
  std::optional<Timing> phase[kPhaseCount];
  std::optional<uint64_t> prune_deleted, get_hits, get_misses;
};

constexpr const char* kUnits[kPhaseCount] = {"writes/s", "gets/s", "keys/s", "writes/s", "writes/s", "versions/s"};

void PrintTable(const Options& o, const Report& r, const StoreStats& stats) {
  std::fprintf(stderr, "\nstrata_store_bench  layout=%s accounts=%" PRIu64 " versions=%" PRIu64 " async-write-buffer=%d\n",
               LayoutName(o.layout), o.shape.accounts, o.shape.versions, o.async_write_buffer);
  std::fprintf(stderr, "%-8s %14s %10s %16s\n", "phase", "ops", "seconds", "rate");
  for (int p = 0; p < kPhaseCount; ++p) {
    if (!r.phase[p]) continue;
    const Timing& t = *r.phase[p];
    std::fprintf(stderr, "%-8s %14" PRIu64 " %10.3f %16.0f %s\n", kPhaseNames[p], t.ops, t.seconds, t.Rate(), kUnits[p]);
  }
  // Write amplification context: what RocksDB wrote for the logical bytes handed to it.
  auto mib = [](uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); };
  std::fprintf(stderr, "logical %.1f MiB, flushed %.1f MiB, compacted %.1f MiB\n", mib(stats.logical_bytes_written),
               mib(stats.flush_bytes_written), mib(stats.compaction_bytes_written));
}

std::string JsonRate(const std::optional<Timing>& t) {
  if (!t) return "null";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1f", t->Rate());
  return buf;
}

std::string JsonCount(const std::optional<uint64_t>& n) { return n ? std::to_string(*n) : "null"; }

// Skipped phases report null, so a consumer can tell "not run" from "zero".
void PrintJson(const Options& o, const Report& r) {
  std::printf(
      "{\"layout\":\"%s\",\"accounts\":%" PRIu64 ",\"versions\":%" PRIu64
      ",\"loadWritesPerSec\":%s,\"getPerSec\":%s,\"getManyPerSec\":%s,\"ingestWritesPerSec\":%s"
      ",\"erc20IngestWritesPerSec\":%s,\"pruneVersionsPerSec\":%s,\"pruneVersionsDeleted\":%s"
      ",\"getHits\":%s,\"getMisses\":%s}\n",
      LayoutName(o.layout), o.shape.accounts, o.shape.versions, JsonRate(r.phase[kLoad]).c_str(),
      JsonRate(r.phase[kGet]).c_str(), JsonRate(r.phase[kGetMany]).c_str(), JsonRate(r.phase[kIngest]).c_str(),
      JsonRate(r.phase[kErc20]).c_str(), JsonRate(r.phase[kPrune]).c_str(), JsonCount(r.prune_deleted).c_str(),
      JsonCount(r.get_hits).c_str(), JsonCount(r.get_misses).c_str());
  std::fflush(stdout);
}

// ---- main ----------------------------------------------------------------------------

// Phases run in a fixed order: reads see only the load; prune comes last so it finds
// every load version still in place.
Report RunPhases(MvccStore& store, const Options& o) {
  Report r;
  auto starting = [&](PhaseId p) {
    if (o.run[p]) std::fprintf(stderr, "running %s...\n", kPhaseNames[p]);
    return o.run[p];
  };
  if (starting(kLoad)) r.phase[kLoad] = RunLoad(store, o.shape);
  if (starting(kGet)) {
    GetOutcome g = RunGets(store, o);
    r.phase[kGet] = g.timing;
    r.get_hits = g.tally.hits;
    r.get_misses = g.tally.misses;
  }
  if (starting(kGetMany)) r.phase[kGetMany] = RunGetMany(store, o);
  if (starting(kIngest)) r.phase[kIngest] = RunTransfers(store, o);
  if (starting(kErc20)) r.phase[kErc20] = RunErc20(store, o);
  if (starting(kPrune)) {
    r.phase[kPrune] = RunPrune(store, o.shape);
    r.prune_deleted = r.phase[kPrune]->ops;
    if (o.run[kLoad]) NoteUnexpectedPruneCount(o.shape, *r.prune_deleted);
  }
  return r;
}

std::unique_ptr<MvccStore> OpenStore(const Options& o) {
  if (!o.reuse) PrepareEmptyDir(o.dir);
  StoreOptions so;
  so.layout = o.layout;
  so.async_write_buffer = o.async_write_buffer;
  return MvccStore::Open(o.dir, so);
}

int Main(int argc, char** argv) {
  try {
    Options o = ParseArgs(argc, argv);
    std::unique_ptr<MvccStore> store = OpenStore(o);
    Report r = RunPhases(*store, o);
    PrintTable(o, r, store->Stats());
    store->Close();
    PrintJson(o, r);
    return 0;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "strata_store_bench: %s\n%s", e.what(), kUsage);
    return 2;
  } catch (const WrongReadError& e) {
    std::fprintf(stderr, "strata_store_bench: WRONG READ: %s\n", e.what());
    return 1;
  } catch (const Error& e) {
    std::fprintf(stderr, "strata_store_bench: store error %s: %s\n", ErrorCodeName(e.code()), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "strata_store_bench: %s\n", e.what());
    return 1;
  }
}

}  // namespace
}  // namespace strata::bench

int main(int argc, char** argv) { return strata::bench::Main(argc, argv); }
