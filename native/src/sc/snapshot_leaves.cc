// The state store's side of a restore: the stream's leaves, in the logical form the SS keeps.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sc/flatkv/row_format.h"
#include "sc/snapshot_items.h"
#include "strata/state_snapshot.h"

namespace strata::sc {
namespace {

// Items handed to a store per Import call, each call one sorted file: large enough that the
// files are few, bounded (by count and bytes) so memory stays small.
constexpr size_t kImportBatch = 250'000;
constexpr size_t kImportBatchBytes = 48u << 20;
constexpr std::string_view kFlatKvSection = CommitStore::kFlatKvSection;
constexpr std::string_view kEvmStore = CommitStore::kEvmStore;

// Collects items for one store and imports them a batch at a time.
class ImportBatch {
 public:
  ImportBatch(VersionedStore& store, uint64_t version) : store_(store), version_(version) {}

  void Add(std::string_view store, std::string_view key, std::string_view value) {
    items_.push_back(ImportItem{std::string(store), std::string(key), std::string(value)});
    bytes_ += store.size() + key.size() + value.size();
    if (items_.size() >= kImportBatch || bytes_ >= kImportBatchBytes) Flush();
  }
  void Flush() {
    if (items_.empty()) return;
    store_.Import(version_, items_);
    written_ += items_.size();
    items_.clear();
    bytes_ = 0;
  }
  uint64_t written() const { return written_; }

 private:
  VersionedStore& store_;
  uint64_t version_;
  std::vector<ImportItem> items_;
  size_t bytes_ = 0;
  uint64_t written_ = 0;
};

// Routes an item to the EVM SS (when split) or the Cosmos SS.
class Router {
 public:
  Router(VersionedStore& cosmos, VersionedStore* evm, uint64_t version) : cosmos_(cosmos, version) {
    if (evm != nullptr) evm_.emplace(*evm, version);
  }
  void Add(std::string_view store, std::string_view key, std::string_view value) {
    (evm_ && store == kEvmStore ? *evm_ : cosmos_).Add(store, key, value);
  }
  uint64_t Finish() {
    cosmos_.Flush();
    if (evm_) evm_->Flush();
    return cosmos_.written() + (evm_ ? evm_->written() : 0);
  }

 private:
  ImportBatch cosmos_;
  std::optional<ImportBatch> evm_;
};

// The logical items one exported FlatKV row stands for (row_format.h): an evm account row
// gives its nonce and, when it has one, its code hash (balances live in another store); any
// other row gives its payload under the key after the module prefix.
void AddRowItems(const std::string& path, std::string_view physical_key, std::string_view row, Router& router) {
  const size_t slash = physical_key.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == physical_key.size()) {
    MalformedSnapshot(path, "a flatkv row key without a \"<module>/\" prefix");
  }
  const std::string_view module = physical_key.substr(0, slash);
  const std::string_view key = physical_key.substr(slash + 1);
  if (row.size() < flatkv::kRowHeaderBytes) MalformedSnapshot(path, "a flatkv row shorter than its header");
  const std::string_view payload = row.substr(flatkv::kRowHeaderBytes);
  const bool evm = module == kEvmStore;
  if (evm && key[0] == flatkv::kNoncePrefix && key.size() == 1 + flatkv::kAddressBytes) {
    constexpr size_t kNonceAt = flatkv::kBalanceBytes;
    constexpr size_t kCodeHashAt = kNonceAt + flatkv::kNonceBytes;
    if (payload.size() != kCodeHashAt && payload.size() != kCodeHashAt + flatkv::kCodeHashBytes) {
      MalformedSnapshot(path, "a flatkv account row of the wrong size");
    }
    router.Add(kEvmStore, key, payload.substr(kNonceAt, flatkv::kNonceBytes));
    if (payload.size() > kCodeHashAt) {
      std::string code_hash_key(1, flatkv::kCodeHashPrefix);
      code_hash_key.append(key.substr(1));
      router.Add(kEvmStore, code_hash_key, payload.substr(kCodeHashAt));
    }
    return;
  }
  router.Add(module, key, payload);
}

}  // namespace

uint64_t ImportSnapshotLeaves(const std::string& path, uint64_t version, VersionedStore& cosmos, VersionedStore* evm) {
  SnapshotItemReader reader(path);
  Router router(cosmos, evm, version);
  SnapshotItem item;
  std::optional<std::string> section;
  while (reader.Next(&item)) {
    if (item.store) {
      section = std::move(item.store);
      continue;
    }
    if (!section) MalformedSnapshot(path, "a node before any store");
    if (item.height != 0) continue;  // the SS keeps leaves only
    if (*section == kFlatKvSection) {
      AddRowItems(path, item.key, item.value, router);
    } else if (!item.key.empty()) {
      router.Add(*section == kLegacyEvmSection ? kEvmStore : std::string_view(*section), item.key, item.value);
    }
  }
  return router.Finish();
}

}  // namespace strata::sc
