// VersionedStore: what every state store offers — the MVCC store of the Cosmos SS and the
// EVM SS built from one or five of them — so callers and bindings can treat them alike.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/store_types.h"

namespace strata {

/// A state store (MVCC store or EVM SS) as callers and bindings use it.
class VersionedStore {
 public:
  virtual ~VersionedStore() = default;

  /// Replays changelogs and starts writers, for stores opened with defer_recovery.
  virtual void Recover() = 0;
  /// Logs then applies one encoded changelog entry; `done` runs on a writer thread.
  virtual void ApplyEncodedAsync(std::string entry, WriteCallback done) = 0;
  /// Runs `done` once every entry submitted before it has been applied.
  virtual void Drain(WriteCallback done) = 0;
  /// Point reads of `count` keys at `version`; `sink` sees every value found.
  virtual void Read(std::string_view store, uint64_t version, const std::string_view* keys, size_t count,
                    ValueSink& sink) = 0;
  /// Iterator over [start, end) of `store` at `version`; kNotSupported where iteration is off.
  virtual std::unique_ptr<MvccIterator> NewIterator(std::string_view store, uint64_t version,
                                                    std::optional<std::string_view> start,
                                                    std::optional<std::string_view> end, bool reverse) = 0;
  /// The newest version written.
  virtual uint64_t LatestVersion() const = 0;
  /// The oldest version still readable.
  virtual uint64_t EarliestVersion() const = 0;
  /// Raises the latest marker (never lowers it).
  virtual void SetLatestVersion(uint64_t version) = 0;
  /// Raises the earliest marker (never lowers it).
  virtual void SetEarliestVersion(uint64_t version) = 0;
  /// Keeps each key's newest version at or below `version`, deletes older ones.
  virtual PruneResult Prune(uint64_t version) = 0;
  /// Removes every version above `version` — data, changelog entries and the latest marker —
  /// so the store reads and writes on as if those versions never happened (rollback). Drains
  /// first; throws kInvalidArgument when `version` is below the earliest readable version.
  virtual void RollbackTo(uint64_t version) = 0;
  /// Writes items at one version, bypassing the changelog and RocksDB's WAL (a restore's bulk
  /// load): they are durable once the store closes cleanly, which flushes them; a crash before
  /// that loses them, and a restore answers that by starting over.
  virtual void Import(uint64_t version, const std::vector<ImportItem>& items) = 0;
  /// Write and compaction counters, and the changelog's index range.
  virtual StoreStats Stats() const = 0;
  /// Drains, stops writers and closes; later calls throw kClosed.
  virtual void Close() = 0;
};

}  // namespace strata
