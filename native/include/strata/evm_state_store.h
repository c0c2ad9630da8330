// EvmStateStore: the dedicated EVM state store (EVM SS) of a node running with evm-ss-split.
//
// It holds only changesets of store "evm", in one MvccStore or, with separate DBs, five
// (nonce, codehash, code, storage, legacy), a key routed by its prefix byte and exact length.
// The full original key is stored in every case. It serves point queries only: asking it for
// an iterator is an error, because EVM reads that need iteration are served by the Cosmos SS.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <string_view>

#include "strata/mvcc_store.h"
#include "strata/versioned_store.h"

namespace strata {

/// Families of EVM keys, by prefix byte and exact length.
enum class EvmKeyKind { kNonce, kCodeHash, kCode, kStorage, kLegacy };
constexpr size_t kEvmKeyKinds = 5;

/// Classifies a key of store "evm": 0x0a/0x08/0x07 + 20-byte address → nonce/codehash/code,
/// 0x03 + 20 + 32 → storage, anything else (malformed lengths included) → legacy.
EvmKeyKind ClassifyEvmKey(std::string_view key);
/// Sub-DB directory name of a kind: nonce, codehash, code, storage, legacy.
const char* EvmKeyKindName(EvmKeyKind kind);

/// Options of the EVM SS: those of its MvccStores, and the sub-DB split.
struct EvmStoreOptions {
  StoreOptions store;
  bool separate_dbs = false;
};

/// The EVM SS. Thread-safe like MvccStore.
class EvmStateStore final : public VersionedStore {
 public:
  /// The only store name it holds.
  static constexpr std::string_view kStoreName = "evm";

  /// Opens the EVM SS in `dir` (one DB at `dir`, or five under it).
  static std::unique_ptr<EvmStateStore> Open(const std::string& dir, const EvmStoreOptions& options);
  ~EvmStateStore();

  /// Replays every DB's own changelog (for options opened with defer_recovery).
  void Recover() override;
  /// Brings the EVM SS up to `cosmos`'s latest version from the whole blocks in its changelog
  /// (the Cosmos SS of a split node logs "evm" changesets without applying them). Covers a
  /// crash between logging a block on the Cosmos side and on the EVM side.
  void CatchUpFrom(MvccStore& cosmos);

  /// Logs then applies an encoded entry whose changesets are all named "evm", routing each pair
  /// to its sub-DB; sub-DBs are written in parallel. `done` runs once every DB acknowledged.
  void ApplyEncodedAsync(std::string entry, WriteCallback done) override;
  /// Same, for a whole block's entry (every store's changesets, as the Cosmos SS logs it):
  /// only its "evm" changesets are kept. Lets a split node encode each block once.
  void ApplyBlockAsync(std::string_view block_entry, WriteCallback done);
  /// Runs `done` once every entry submitted before it has been applied by every DB.
  void Drain(WriteCallback done) override;
  /// Point reads of store "evm" (see MvccStore::Read); other store names are an error.
  void Read(std::string_view store, uint64_t version, const std::string_view* keys, size_t count,
            ValueSink& sink) override;
  /// Always throws kNotSupported: the EVM SS is point-query only.
  std::unique_ptr<MvccIterator> NewIterator(std::string_view store, uint64_t version,
                                            std::optional<std::string_view> start,
                                            std::optional<std::string_view> end, bool reverse) override;

  /// The lowest latest version of its DBs (they advance together unless a crash split them).
  uint64_t LatestVersion() const override;
  /// The highest earliest version of its DBs: the floor every DB can serve.
  uint64_t EarliestVersion() const override;
  /// Raises the latest marker of every DB (never lowers it).
  void SetLatestVersion(uint64_t version) override;
  /// Raises the earliest marker of every DB (never lowers it).
  void SetEarliestVersion(uint64_t version) override;
  /// Prunes every DB (in parallel); versions_deleted is the sum.
  PruneResult Prune(uint64_t version) override;
  /// Rolls every DB back to `version` (in parallel; see MvccStore::RollbackTo).
  void RollbackTo(uint64_t version) override;
  /// Writes "evm" items at one version, routed like ApplyEncodedAsync.
  void Import(uint64_t version, const std::vector<ImportItem>& items) override;
  /// Sums over the DBs.
  StoreStats Stats() const override;
  /// Drains and closes every DB.
  void Close() override;

  /// Whether the store keeps one DB per EVM key kind.
  bool separate_dbs() const { return dbs_.size() > 1; }
  /// The directory the store was opened in.
  const std::string& dir() const { return dir_; }

 private:
  EvmStateStore(std::string dir, std::vector<std::unique_ptr<MvccStore>> dbs);
  MvccStore& DbFor(std::string_view key) const;
  void SubmitParts(std::vector<std::string> parts, WriteCallback done);

  std::string dir_;
  std::vector<std::unique_ptr<MvccStore>> dbs_;  // one, or one per EvmKeyKind in enum order
};

}  // namespace strata
