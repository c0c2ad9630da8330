#include "sc/flatkv/block_plan.h"

#include <algorithm>
#include <array>
#include <iterator>

#include "sc/flatkv/parallel_hash.h"
#include "strata/status.h"

namespace strata::sc::flatkv {
namespace {

// Keys per MultiGet: large enough to amortise the call, small enough to keep the pinned
// blocks of one batch modest.
constexpr size_t kMultiGetBatch = 2048;

}  // namespace

BlockPlan::BlockPlan(const BlockChanges& changes, int64_t version) : version_(version) {
  // The changes are sorted by logical key, and within each kind the physical key is the
  // logical key behind a fixed prefix, so every kind's rows come out already in key order:
  // only the account rows need a merge of the nonce and code-hash runs (both ordered by
  // address). No sort, no hashing of keys.
  std::array<std::vector<RowEdit>, kRowFamilyCount> by_family;
  std::vector<const LogicalChange*> nonces, code_hashes;
  for (size_t i = 0; i < changes.size(); ++i) {
    const LogicalChange& change = changes[i];
    if (i > 0 && !(changes[i - 1].key < change.key)) {
      throw Error(ErrorCode::kInvalidArgument, "BlockPlan needs changes sorted by key, one per key");
    }
    LogicalKind kind = ClassifyLogicalKey(change.key);
    if (kind == LogicalKind::kNonce) {
      nonces.push_back(&change);
    } else if (kind == LogicalKind::kCodeHash) {
      code_hashes.push_back(&change);
    } else {
      RowFamily family = FamilyOf(kind);
      by_family[static_cast<size_t>(family)].push_back({family, PhysicalKey(change.key, kind), std::nullopt,
                                                        std::nullopt, change.value, std::nullopt, std::nullopt});
    }
  }
  auto address = [](const LogicalChange* c) { return std::string_view(c->key).substr(1); };
  std::vector<RowEdit>& accounts = by_family[static_cast<size_t>(RowFamily::kAccount)];
  accounts.reserve(nonces.size() + code_hashes.size());
  size_t n = 0, h = 0;
  while (n < nonces.size() || h < code_hashes.size()) {
    const LogicalChange* nonce = nullptr;
    const LogicalChange* code_hash = nullptr;
    if (h == code_hashes.size() || (n < nonces.size() && address(nonces[n]) <= address(code_hashes[h]))) {
      nonce = nonces[n++];
    }
    if (h < code_hashes.size() && (nonce == nullptr || address(code_hashes[h]) == address(nonce))) {
      code_hash = code_hashes[h++];
    }
    const LogicalChange* any = nonce ? nonce : code_hash;
    RowEdit edit{RowFamily::kAccount, PhysicalKey(any->key, ClassifyLogicalKey(any->key)),
                 std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
    // Deleting a nonce sets it to 0; deleting a code hash clears it.
    if (nonce) edit.nonce = nonce->value ? DecodeNonce(*nonce->value) : 0;
    if (code_hash) edit.code_hash = code_hash->value ? NormalizeCodeHash(*code_hash->value) : std::string();
    accounts.push_back(std::move(edit));
  }
  size_t total = 0;
  for (const auto& rows : by_family) total += rows.size();
  rows_.reserve(total);
  for (auto& rows : by_family) std::move(rows.begin(), rows.end(), std::back_inserter(rows_));
}

std::optional<std::string> BlockPlan::NewRow(const RowEdit& edit) const {
  if (edit.family != RowFamily::kAccount) {
    if (!edit.payload) return std::nullopt;
    return EncodePlainRow(version_, *edit.payload);
  }
  AccountFields fields = edit.old_row ? DecodeAccountRow(*edit.old_row) : AccountFields();
  if (edit.nonce) fields.nonce = *edit.nonce;
  if (edit.code_hash) fields.code_hash = *edit.code_hash;
  if (fields.IsEmpty()) return std::nullopt;
  return EncodeAccountRow(version_, fields);
}

void BlockPlan::ResolveSlice(const FlatKvDb& db, size_t begin, size_t end, LtHash* partial) {
  std::vector<rocksdb::Slice> keys;
  keys.reserve(std::min(end - begin, kMultiGetBatch));
  size_t i = begin;
  while (i < end) {
    // One MultiGet covers a run of rows of one family.
    RowFamily family = rows_[i].family;
    size_t run_end = i;
    keys.clear();
    while (run_end < end && rows_[run_end].family == family && keys.size() < kMultiGetBatch) {
      keys.emplace_back(rows_[run_end].key);
      ++run_end;
    }
    std::vector<std::optional<std::string>> old_rows(keys.size());
    db.MultiGet(family, keys.data(), keys.size(), old_rows.data());
    for (size_t j = i; j < run_end; ++j) {
      RowEdit& edit = rows_[j];
      edit.old_row = std::move(old_rows[j - i]);
      edit.new_row = NewRow(edit);
      if (edit.old_row) partial->Subtract(EntryHash(edit.key, *edit.old_row));
      if (edit.new_row) partial->Add(EntryHash(edit.key, *edit.new_row));
    }
    i = run_end;
  }
}

void BlockPlan::Resolve(const FlatKvDb& db, int threads) {
  delta_ = ParallelLtHashSum(rows_.size(), threads, [&](size_t begin, size_t end, LtHash* partial) {
    ResolveSlice(db, begin, end, partial);
  });
  resolved_ = true;
}

const std::optional<std::string>* BlockPlan::RowAfter(RowFamily family, std::string_view key) const {
  if (!resolved_) throw Error(ErrorCode::kInvalidArgument, "BlockPlan::RowAfter before Resolve");
  // rows_ is ordered by family, then key (see the constructor).
  auto it = std::lower_bound(rows_.begin(), rows_.end(), std::pair<RowFamily, std::string_view>(family, key),
                             [](const RowEdit& edit, const std::pair<RowFamily, std::string_view>& target) {
                               if (edit.family != target.first) return edit.family < target.first;
                               return std::string_view(edit.key) < target.second;
                             });
  if (it == rows_.end() || it->family != family || it->key != key) return nullptr;
  return &it->new_row;
}

void BlockPlan::AddWrites(const FlatKvDb& db, rocksdb::WriteBatch* batch) const {
  if (!resolved_) throw Error(ErrorCode::kInvalidArgument, "BlockPlan::AddWrites before Resolve");
  for (const auto& edit : rows_) {
    // Deleting a row that does not exist changes nothing.
    if (!edit.old_row && !edit.new_row) continue;
    db.PutRow(batch, edit.family, edit.key, edit.new_row);
  }
}

StoreMeta MetaAfter(const StoreMeta& before, const BlockPlan& plan, uint64_t changelog_index) {
  StoreMeta after = before;
  after.version = plan.version();
  after.changelog_index = changelog_index;
  after.hash.Add(plan.delta());
  return after;
}

void WriteBlock(FlatKvDb& db, const BlockPlan& plan, const StoreMeta& after) {
  rocksdb::WriteBatch batch;
  plan.AddWrites(db, &batch);
  db.PutMeta(&batch, after);
  db.Write(&batch);
}

}  // namespace strata::sc::flatkv
