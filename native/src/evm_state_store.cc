#include "strata/evm_state_store.h"

#include <atomic>
#include <filesystem>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include "strata/changelog_entry.h"

namespace fs = std::filesystem;

namespace strata {

namespace {

constexpr size_t kAddressBytes = 20;
constexpr size_t kSlotBytes = 32;
constexpr std::array<EvmKeyKind, kEvmKeyKinds> kKinds = {EvmKeyKind::kNonce, EvmKeyKind::kCodeHash,
                                                         EvmKeyKind::kCode, EvmKeyKind::kStorage,
                                                         EvmKeyKind::kLegacy};

Error WrongStore(std::string_view store) {
  return Error(ErrorCode::kInvalidArgument, "the EVM SS holds only store \"evm\", not \"" + std::string(store) +
                                                "\"; read that store from the Cosmos SS");
}

// Joins the completions of several DBs into one callback with the first error.
class CompletionJoin {
 public:
  CompletionJoin(size_t parts, WriteCallback done) : remaining_(parts), done_(std::move(done)) {}
  void Complete(const Error* error) {
    if (error) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_) error_ = *error;
    }
    if (--remaining_ == 0) done_(error_ ? &*error_ : nullptr);
  }

 private:
  std::atomic<size_t> remaining_;
  std::mutex mu_;
  std::optional<Error> error_;
  WriteCallback done_;
};

// Splits the "evm" changesets of an entry into one entry per kind (an empty entry for a kind
// the block does not touch, so every DB advances to the block's version). Changesets of other
// stores are an error, or skipped when `whole_block` (a block as the Cosmos SS logs it). Two
// passes: the encoder needs each changeset's pair count up front.
std::vector<std::string> SplitByKind(std::string_view entry, size_t kinds, bool whole_block) {
  auto kind_of = [&](std::string_view key) { return kinds == 1 ? size_t{0} : static_cast<size_t>(ClassifyEvmKey(key)); };
  std::array<uint32_t, kEvmKeyKinds> counts{};
  bool in_evm = false;
  auto on_changeset = [&](std::string_view name, uint32_t) {
    in_evm = name == EvmStateStore::kStoreName;
    if (!in_evm && !whole_block) throw WrongStore(name);
  };
  uint64_t version = VisitChangelogEntry(entry, {
      on_changeset,
      [&](std::string_view key, std::optional<std::string_view>) {
        if (in_evm) ++counts[kind_of(key)];
      },
  });
  std::vector<ChangelogEntryEncoder> encoders;
  encoders.reserve(kinds);
  for (size_t k = 0; k < kinds; ++k) {
    encoders.emplace_back(version, counts[k] * 64);
    if (counts[k] > 0) encoders[k].BeginChangeset(EvmStateStore::kStoreName, counts[k]);
  }
  VisitChangelogEntry(entry, {
      on_changeset,
      [&](std::string_view key, std::optional<std::string_view> value) {
        if (in_evm) encoders[kind_of(key)].AddPair(key, value);
      },
  });
  std::vector<std::string> out;
  for (auto& encoder : encoders) out.push_back(encoder.Finish());
  return out;
}

// The "evm" pairs of `kind` (all kinds when nullopt) in a whole block's entry.
std::string EvmPart(std::string_view entry, std::optional<EvmKeyKind> kind) {
  auto parts = SplitByKind(entry, kEvmKeyKinds, /*whole_block=*/true);
  if (kind) return std::move(parts[static_cast<size_t>(*kind)]);
  return SplitByKind(entry, 1, /*whole_block=*/true)[0];
}

// Submits and waits for the entry to be applied.
void ApplyAndWait(MvccStore& db, std::string entry) {
  std::promise<std::optional<Error>> applied;
  auto future = applied.get_future();
  db.ApplyEncodedAsync(std::move(entry), [&](const Error* e) { applied.set_value(e ? std::optional<Error>(*e) : std::nullopt); });
  if (auto error = future.get()) throw *error;
  db.WaitForPendingWrites();
}

// Runs `fn` on every DB in parallel threads; rethrows the first error once all are done.
template <typename Fn>
void ForEachInParallel(const std::vector<std::unique_ptr<MvccStore>>& dbs, Fn fn) {
  if (dbs.size() == 1) {
    fn(*dbs[0]);
    return;
  }
  std::vector<std::exception_ptr> errors(dbs.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < dbs.size(); ++i) {
    threads.emplace_back([&, i] {
      try {
        fn(*dbs[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace

EvmKeyKind ClassifyEvmKey(std::string_view key) {
  if (key.empty()) return EvmKeyKind::kLegacy;
  switch (static_cast<uint8_t>(key[0])) {
    case 0x0a: return key.size() == 1 + kAddressBytes ? EvmKeyKind::kNonce : EvmKeyKind::kLegacy;
    case 0x08: return key.size() == 1 + kAddressBytes ? EvmKeyKind::kCodeHash : EvmKeyKind::kLegacy;
    case 0x07: return key.size() == 1 + kAddressBytes ? EvmKeyKind::kCode : EvmKeyKind::kLegacy;
    case 0x03: return key.size() == 1 + kAddressBytes + kSlotBytes ? EvmKeyKind::kStorage : EvmKeyKind::kLegacy;
    default: return EvmKeyKind::kLegacy;
  }
}

const char* EvmKeyKindName(EvmKeyKind kind) {
  switch (kind) {
    case EvmKeyKind::kNonce: return "nonce";
    case EvmKeyKind::kCodeHash: return "codehash";
    case EvmKeyKind::kCode: return "code";
    case EvmKeyKind::kStorage: return "storage";
    case EvmKeyKind::kLegacy: return "legacy";
  }
  return "legacy";
}

std::unique_ptr<EvmStateStore> EvmStateStore::Open(const std::string& dir, const EvmStoreOptions& options) {
  std::vector<std::unique_ptr<MvccStore>> dbs;
  if (!options.separate_dbs) {
    dbs.push_back(MvccStore::Open(dir, options.store));
  } else {
    for (EvmKeyKind kind : kKinds) dbs.push_back(MvccStore::Open((fs::path(dir) / EvmKeyKindName(kind)).string(), options.store));
  }
  return std::unique_ptr<EvmStateStore>(new EvmStateStore(dir, std::move(dbs)));
}

EvmStateStore::EvmStateStore(std::string dir, std::vector<std::unique_ptr<MvccStore>> dbs)
    : dir_(std::move(dir)), dbs_(std::move(dbs)) {}

EvmStateStore::~EvmStateStore() = default;

MvccStore& EvmStateStore::DbFor(std::string_view key) const {
  return separate_dbs() ? *dbs_[static_cast<size_t>(ClassifyEvmKey(key))] : *dbs_[0];
}

void EvmStateStore::Recover() {
  ForEachInParallel(dbs_, [](MvccStore& db) { db.Recover(); });
}

void EvmStateStore::CatchUpFrom(MvccStore& cosmos) {
  uint64_t target = cosmos.LatestVersion();
  uint64_t from = LatestVersion();
  if (from >= target) return;
  std::vector<uint64_t> latest(dbs_.size());
  for (size_t i = 0; i < dbs_.size(); ++i) latest[i] = dbs_[i]->LatestVersion();
  // Each DB takes the blocks from its own latest version on (a crash can leave the DBs of a
  // split EVM SS at different versions); entries at that version are re-applied in order.
  cosmos.ReadChangelog(from, [&](std::string_view entry) {
    uint64_t raw = ChangelogEntryVersion(entry);
    uint64_t version = raw == 0 ? 1 : raw;
    if (version > target) return;
    for (size_t i = 0; i < dbs_.size(); ++i) {
      if (version < latest[i]) continue;
      std::optional<EvmKeyKind> kind;
      if (separate_dbs()) kind = kKinds[i];
      ApplyAndWait(*dbs_[i], EvmPart(entry, kind));
    }
  });
}

void EvmStateStore::ApplyEncodedAsync(std::string entry, WriteCallback done) {
  SubmitParts(SplitByKind(entry, dbs_.size(), /*whole_block=*/false), std::move(done));
}

void EvmStateStore::ApplyBlockAsync(std::string_view block_entry, WriteCallback done) {
  SubmitParts(SplitByKind(block_entry, dbs_.size(), /*whole_block=*/true), std::move(done));
}

void EvmStateStore::SubmitParts(std::vector<std::string> parts, WriteCallback done) {
  auto join = std::make_shared<CompletionJoin>(parts.size(), std::move(done));
  for (size_t i = 0; i < parts.size(); ++i) {
    try {
      dbs_[i]->ApplyEncodedAsync(std::move(parts[i]), [join](const Error* e) { join->Complete(e); });
    } catch (const Error& e) {
      join->Complete(&e);
    }
  }
}

void EvmStateStore::Drain(WriteCallback done) {
  auto join = std::make_shared<CompletionJoin>(dbs_.size(), std::move(done));
  for (auto& db : dbs_) {
    try {
      db->Drain([join](const Error* e) { join->Complete(e); });
    } catch (const Error& e) {
      join->Complete(&e);
    }
  }
}

namespace {
// Maps the positions of one sub-DB's keys back to the caller's positions.
class RemappingSink final : public ValueSink {
 public:
  RemappingSink(ValueSink& inner, const std::vector<size_t>& positions) : inner_(inner), positions_(positions) {}
  void Found(size_t index, std::string_view value) override { inner_.Found(positions_[index], value); }

 private:
  ValueSink& inner_;
  const std::vector<size_t>& positions_;
};
}  // namespace

void EvmStateStore::Read(std::string_view store, uint64_t version, const std::string_view* keys, size_t count,
                         ValueSink& sink) {
  if (store != kStoreName) throw WrongStore(store);
  if (!separate_dbs() || count == 1) {
    if (count > 0) DbFor(keys[0]).Read(store, version, keys, count, sink);
    return;
  }
  std::array<std::vector<std::string_view>, kEvmKeyKinds> grouped;
  std::array<std::vector<size_t>, kEvmKeyKinds> positions;
  for (size_t i = 0; i < count; ++i) {
    size_t k = static_cast<size_t>(ClassifyEvmKey(keys[i]));
    grouped[k].push_back(keys[i]);
    positions[k].push_back(i);
  }
  for (size_t k = 0; k < kEvmKeyKinds; ++k) {
    if (grouped[k].empty()) continue;
    RemappingSink remap(sink, positions[k]);
    dbs_[k]->Read(store, version, grouped[k].data(), grouped[k].size(), remap);
  }
}

std::unique_ptr<MvccIterator> EvmStateStore::NewIterator(std::string_view store, uint64_t,
                                                         std::optional<std::string_view>,
                                                         std::optional<std::string_view>, bool) {
  throw Error(ErrorCode::kNotSupported,
              "the EVM SS is point-query only (get, has): iterating store \"" + std::string(store) +
                  "\" is disabled while evm-ss-split = true; iteration over EVM keys must be served by the Cosmos SS");
}

uint64_t EvmStateStore::LatestVersion() const {
  uint64_t latest = UINT64_MAX;
  for (const auto& db : dbs_) latest = std::min(latest, db->LatestVersion());
  return latest;
}

uint64_t EvmStateStore::EarliestVersion() const {
  uint64_t earliest = 0;
  for (const auto& db : dbs_) earliest = std::max(earliest, db->EarliestVersion());
  return earliest;
}

void EvmStateStore::SetLatestVersion(uint64_t version) {
  for (auto& db : dbs_) db->SetLatestVersion(version);
}

void EvmStateStore::SetEarliestVersion(uint64_t version) {
  for (auto& db : dbs_) db->SetEarliestVersion(version);
}

PruneResult EvmStateStore::Prune(uint64_t version) {
  std::atomic<uint64_t> deleted{0};
  ForEachInParallel(dbs_, [&](MvccStore& db) { deleted += db.Prune(version).versions_deleted; });
  return PruneResult{deleted.load()};
}

void EvmStateStore::RollbackTo(uint64_t version) {
  ForEachInParallel(dbs_, [&](MvccStore& db) { db.RollbackTo(version); });
}

void EvmStateStore::Import(uint64_t version, const std::vector<ImportItem>& items) {
  if (!separate_dbs()) {
    for (const auto& item : items) {
      if (item.store != kStoreName) throw WrongStore(item.store);
    }
    dbs_[0]->Import(version, items);
    return;
  }
  std::array<std::vector<ImportItem>, kEvmKeyKinds> grouped;
  for (const auto& item : items) {
    if (item.store != kStoreName) throw WrongStore(item.store);
    grouped[static_cast<size_t>(ClassifyEvmKey(item.key))].push_back(item);
  }
  for (size_t k = 0; k < kEvmKeyKinds; ++k) dbs_[k]->Import(version, grouped[k]);
}

StoreStats EvmStateStore::Stats() const {
  StoreStats total;
  for (const auto& db : dbs_) {
    StoreStats s = db->Stats();
    total.logical_bytes_written += s.logical_bytes_written;
    total.flush_bytes_written += s.flush_bytes_written;
    total.compaction_bytes_written += s.compaction_bytes_written;
    total.compaction_keys_dropped += s.compaction_keys_dropped;
    total.pending_writes += s.pending_writes;
  }
  return total;
}

void EvmStateStore::Close() {
  std::optional<Error> first;
  for (auto& db : dbs_) {
    try {
      db->Close();
    } catch (const Error& e) {
      if (!first) first = e;
    }
  }
  if (first) throw *first;
}

}  // namespace strata
