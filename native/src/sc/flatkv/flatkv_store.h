// FlatKvStore: the EVM state-commitment store (digest §9). It keeps the latest EVM state
// flat and unversioned in RocksDB and commits to it with a lattice hash (LtHash) that each
// block updates from its changes alone.
//
// Per block the app stages the changes it made to its `evm` module store under their
// logical keys (Set/Delete), then calls Commit(version): the block goes to the changelog
// (fsynced) while its old rows are read and hashed; Commit returns once both are done, and
// the rows plus the new metadata go to RocksDB as one batch in the background (every later
// read waits for that batch). Open replays changelog entries the DB had not absorbed, so a
// crash at any point loses nothing Commit returned for and never leaves half a block. Snapshots (RocksDB checkpoints with
// checksums) taken every `snapshot_interval` versions bound what Rollback has to replay.
// Directory layout and crash recovery: store_layout.h.
//
// Thread safety: every method may be called from any thread; calls are serialised.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/commit_types.h"
#include "strata/store_types.h"

namespace strata::sc {

class FlatKvStore {
 public:
  /// Opens (or creates) the store in `dir`, finishing an interrupted rollback or import and
  /// replaying changelog entries the working DB lacks.
  static std::unique_ptr<FlatKvStore> Open(const std::string& dir, const FlatKvOptions& options);

  /// Builds a fresh store in `dir` (absent or empty) at `version` from rows as ExportRows
  /// emits them (rows of each family in ascending key order; rows are routed to families by
  /// their key). The store gets a snapshot at `version` and a changelog that starts after
  /// it. Crash-safe: an interrupted import is either finished by the next Open or left as
  /// leftovers that the next ImportRows removes.
  static void ImportRows(const std::string& dir, int64_t version, const FlatKvOptions& options,
                         const std::function<bool(std::string* physical_key, std::string* value)>& next);

  /// Closes the store, reporting nothing (use Close to see errors).
  ~FlatKvStore();
  FlatKvStore(const FlatKvStore&) = delete;
  FlatKvStore& operator=(const FlatKvStore&) = delete;

  /// Stages a set of one logical evm key for the working version. A nonce value must be 8
  /// bytes (big-endian), a code hash 32 bytes; throws kInvalidArgument otherwise.
  void Set(std::string_view logical_key, std::string_view value);

  /// Stages a delete of one logical evm key (for a nonce or code hash: clears that field of
  /// the account row, which goes when both are clear).
  void Delete(std::string_view logical_key);

  /// The value of a logical key in the latest committed state with the staged changes
  /// applied, or nullopt. A nonce reads as present (possibly zero) while its account row
  /// exists; an all-zero code hash reads as absent.
  std::optional<std::string> Get(std::string_view logical_key) const;

  /// Get of `count` logical keys; `sink` hears of each key that has a value. A nonce and a
  /// code hash of the same account next to each other share one read of the account row.
  void GetMany(const std::string_view* logical_keys, size_t count, ValueSink& sink) const;

  /// The 32-byte root hash the store will have once the staged changes are committed as
  /// version Version() + 1. Cached, so a following Commit of that version reuses the work.
  std::string WorkingHash();

  /// The 32-byte root hash of the last committed version (BLAKE3-256 of the LtHash).
  std::string CommittedHash() const;

  /// The last committed version; 0 for an empty store.
  int64_t Version() const;

  /// Commits the staged changes as `version` (> Version()) and returns the new root hash.
  /// Durable when it returns. After a failure the store refuses further calls with
  /// kWriterFailed until reopened. A snapshot that failed in the background is reported
  /// (once) by the next Commit, Rollback or Close instead; the committed state is intact and
  /// the call can simply be repeated.
  std::string Commit(int64_t version);

  /// Returns the store to its state at `target` (Version() becomes `target`), discarding
  /// staged changes and every later version, its changelog entries and snapshots. Reachable
  /// targets: from the oldest snapshot (or 0 when no changelog entry has been dropped since
  /// the store was created empty) up to Version(). Throws kInvalidArgument naming the oldest
  /// reachable version otherwise, and kCorruption when the snapshot it needs fails its
  /// checksums.
  void Rollback(int64_t target);

  /// Versions of the complete snapshots, ascending (waits for one being finished).
  std::vector<int64_t> SnapshotVersions() const;

  /// Calls `sink` with every row of the latest committed state: the account, code, storage
  /// and misc families in that order, each in key order. `sink` must not call the store.
  void ExportRows(const std::function<void(std::string_view physical_key, std::string_view value)>& sink) const;

  /// Waits for a snapshot in progress, flushes and closes. Idempotent; any other call
  /// afterwards throws kClosed.
  void Close();

  /// The store's state and machinery (flatkv_store.cc).
  class Impl;

  /// Use Open.
  explicit FlatKvStore(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata::sc
