// BlockPlan: turns one block's logical changes into physical row writes and the LtHash
// delta they cause.
//
// Nonce and code-hash changes of one address merge into a single account-row edit. Resolve
// reads every touched row's old value (batched MultiGets), builds the new rows and folds
// -H(key, old) + H(key, new) into the delta, split over threads: the entry hashes dominate a
// block's commit time.
#pragma once

#include <rocksdb/write_batch.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sc/flatkv/block_changes.h"
#include "sc/flatkv/flatkv_db.h"
#include "sc/flatkv/row_format.h"
#include "sc/flatkv/store_meta.h"
#include "sc/lthash.h"

namespace strata::sc::flatkv {

class BlockPlan {
 public:
  /// Groups `changes` (sorted, one per key, already checked) into row edits for `version`.
  BlockPlan(const BlockChanges& changes, int64_t version);

  /// Reads the old rows from `db`, computes the new rows and the hash delta over up to
  /// `threads` threads. Must be called once before delta() and AddWrites().
  void Resolve(const FlatKvDb& db, int threads);

  /// Sum over changed rows of H(key, new row) − H(key, old row).
  const LtHash& delta() const { return delta_; }

  /// Adds the row writes and deletes to `batch`.
  void AddWrites(const FlatKvDb& db, rocksdb::WriteBatch* batch) const;

  /// The version the plan writes rows at.
  int64_t version() const { return version_; }

  /// The row `key` of `family` holds once the plan is written (nullopt: deleted), or nullptr
  /// when the plan does not touch that row. Only after Resolve.
  const std::optional<std::string>* RowAfter(RowFamily family, std::string_view key) const;

 private:
  // One physical row the block touches.
  struct RowEdit {
    RowFamily family;
    std::string key;
    // Account rows: the fields the block sets; unset ones keep their old value. Deleting a
    // nonce sets it to 0 and deleting a code hash clears it.
    std::optional<uint64_t> nonce;
    std::optional<std::string> code_hash;  // normalised: empty = none
    // Code, storage and misc rows: the new payload, or nullopt for a delete.
    std::optional<std::string> payload;
    // Filled by Resolve.
    std::optional<std::string> old_row;
    std::optional<std::string> new_row;
  };

  // Resolves rows [begin, end) and folds their hash changes into `partial`.
  void ResolveSlice(const FlatKvDb& db, size_t begin, size_t end, LtHash* partial);
  std::optional<std::string> NewRow(const RowEdit& edit) const;

  int64_t version_;
  std::vector<RowEdit> rows_;  // sorted by (family, key)
  LtHash delta_;
  bool resolved_ = false;
};

/// The metadata after applying a resolved plan to the state `before`: the plan's version,
/// `changelog_index`, the same origin and `before`'s hash plus the plan's delta.
StoreMeta MetaAfter(const StoreMeta& before, const BlockPlan& plan, uint64_t changelog_index);

/// Writes a resolved plan's rows and the metadata `after` as one atomic batch.
void WriteBlock(FlatKvDb& db, const BlockPlan& plan, const StoreMeta& after);

}  // namespace strata::sc::flatkv
