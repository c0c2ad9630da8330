#include "strata/state_snapshot.h"

#include <filesystem>
#include <fstream>
#include <future>
#include <vector>

#include "sc/flatkv/flatkv_store.h"
#include "sc/memiavl/memiavl_db.h"
#include "sc/snapshot_items.h"
#include "sc/varint.h"
#include "strata/status.h"

namespace fs = std::filesystem;

namespace strata::sc {
namespace {

void PutBytesField(std::string* out, int field, std::string_view bytes) {
  if (bytes.empty()) return;  // proto3 leaves defaults out
  out->push_back(static_cast<char>(field << 3 | 2));
  PutUvarint(out, bytes.size());
  out->append(bytes.data(), bytes.size());
}

void PutIntField(std::string* out, int field, int64_t v) {
  if (v == 0) return;
  out->push_back(static_cast<char>(field << 3 | 0));
  PutUvarint(out, static_cast<uint64_t>(v));
}

// Encodes export nodes as length-delimited SnapshotItems.
class ItemWriter final : public MemIavlExportSink {
 public:
  explicit ItemWriter(const std::string& path) : path_(path), out_(path, std::ios::binary | std::ios::trunc) {
    if (!out_) throw Error(ErrorCode::kIo, "cannot create " + path);
  }
  void Store(std::string_view name) override {
    std::string inner;
    PutBytesField(&inner, 1, name);
    Emit(1, inner);
  }
  void Node(const MemIavlExportNode& node) override {
    std::string inner;
    PutBytesField(&inner, 1, node.key);
    PutBytesField(&inner, 2, node.value);
    PutIntField(&inner, 3, node.version);
    PutIntField(&inner, 4, node.height);
    Emit(2, inner);
  }
  StateSnapshotStats Finish(int64_t version) {
    out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    bytes_ += buf_.size();
    if (!out_.flush()) throw Error(ErrorCode::kIo, "cannot write " + path_);
    return {version, items_, bytes_};
  }

 private:
  void Emit(int field, const std::string& inner) {
    std::string item;
    item.push_back(static_cast<char>(field << 3 | 2));
    PutUvarint(&item, inner.size());
    item += inner;
    PutUvarint(&buf_, item.size());
    buf_ += item;
    ++items_;
    if (buf_.size() >= (1 << 20)) {
      out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
      bytes_ += buf_.size();
      buf_.clear();
    }
  }
  std::string path_;
  std::ofstream out_;
  std::string buf_;
  uint64_t items_ = 0;
  uint64_t bytes_ = 0;
};

bool IsEvmSection(std::string_view name) { return name == CommitStore::kEvmStore || name == kLegacyEvmSection; }

}  // namespace

StateSnapshotStats ExportStateSnapshot(CommitStore& store, const std::string& path) {
  std::error_code ec;
  if (fs::exists(path, ec)) throw Error(ErrorCode::kInvalidArgument, "state snapshot " + path + " exists; choose a new path");
  ItemWriter writer(path);
  store.Export(writer);
  return writer.Finish(store.Last().version);
}

namespace {

// FlatKV's rows of the stream at `path`, imported on their own thread while memiavl takes the
// rest: a second reader skips to the `flatkv` section, so the rows are neither held in memory
// nor imported only after memiavl. Resolves to whether the stream had rows (a stream without
// them may carry the legacy logical evm keys, which the caller imports instead).
std::future<bool> ImportFlatKvRowsAside(const std::string& flatkv_dir, int64_t version, const FlatKvOptions& options,
                                        const std::string& path) {
  return std::async(std::launch::async, [=] {
    SnapshotItemReader reader(path);
    SnapshotItem item;
    bool in_rows = false;
    auto next_row = [&]() -> bool {
      while (reader.Next(&item)) {
        if (item.store) {
          in_rows = *item.store == CommitStore::kFlatKvSection;
          continue;
        }
        if (in_rows) return true;
      }
      return false;
    };
    if (!next_row()) return false;
    bool pending = true;  // the first row, already read
    FlatKvStore::ImportRows(flatkv_dir, version, options, [&](std::string* key, std::string* value) {
      if (!pending && !next_row()) return false;
      pending = false;
      *key = std::move(item.key);
      *value = std::move(item.value);
      return true;
    });
    return true;
  });
}

}  // namespace

StateSnapshotStats ImportStateSnapshot(const std::string& memiavl_dir, const std::string& flatkv_dir, int64_t version,
                                       const CommitStoreOptions& options, const std::string& path) {
  SnapshotItemReader reader(path);
  std::future<bool> flatkv_rows;
  if (options.flatkv_enabled) flatkv_rows = ImportFlatKvRowsAside(flatkv_dir, version, options.flatkv, path);
  std::vector<std::pair<std::string, std::string>> evm_leaves;
  enum class Section { kNone, kMemiavl, kFlatKvRows, kEvmLogical } section = Section::kNone;
  SnapshotItem item;
  // memiavl consumes the stream; FlatKV's rows are another thread's, legacy evm keys wait.
  auto next = [&](MemIavlDb::ImportItem* out) -> bool {
    while (reader.Next(&item)) {
      if (item.store) {
        const std::string& name = *item.store;
        if (name == CommitStore::kFlatKvSection) {
          if (!options.flatkv_enabled) MalformedSnapshot(path, "a flatkv section, but FlatKV is disabled on this node");
          section = Section::kFlatKvRows;
          continue;
        }
        if (IsEvmSection(name) && options.flatkv_enabled) {
          section = Section::kEvmLogical;
          continue;
        }
        if (name == kLegacyEvmSection) MalformedSnapshot(path, "an evm_flatkv section, but FlatKV is disabled on this node");
        section = Section::kMemiavl;
        out->store = name;
        return true;
      }
      switch (section) {
        case Section::kNone: MalformedSnapshot(path, "a node before any store");
        case Section::kFlatKvRows: continue;
        case Section::kEvmLogical:
          if (item.height == 0) evm_leaves.emplace_back(std::move(item.key), std::move(item.value));
          continue;
        case Section::kMemiavl:
          out->store.reset();
          out->key = std::move(item.key);
          out->value = std::move(item.value);
          out->version = item.version;
          out->height = static_cast<uint8_t>(item.height);
          return true;
      }
    }
    return false;
  };
  try {
    MemIavlDb::Import(memiavl_dir, version, options.memiavl, next);
  } catch (...) {
    if (flatkv_rows.valid()) flatkv_rows.wait();  // its failure, if any, is the lesser news
    throw;
  }
  if (options.flatkv_enabled) {
    const bool had_rows = flatkv_rows.get();
    if (had_rows && !evm_leaves.empty()) MalformedSnapshot(path, "both flatkv rows and evm keys");
    if (!had_rows && evm_leaves.empty()) {
      FlatKvStore::ImportRows(flatkv_dir, version, options.flatkv, [](std::string*, std::string*) { return false; });
    } else if (!had_rows) {
      // An older snapshot carries the evm store's logical keys: FlatKV commits them as one block.
      std::error_code ec;
      if (fs::exists(flatkv_dir, ec) && !fs::is_empty(flatkv_dir, ec)) {
        throw Error(ErrorCode::kInvalidArgument, "cannot import state into " + flatkv_dir + ": it is not empty; move it aside first");
      }
      auto flatkv = FlatKvStore::Open(flatkv_dir, options.flatkv);
      for (const auto& [key, value] : evm_leaves) flatkv->Set(key, value);
      flatkv->Commit(version);
      flatkv->Close();
    }
  }
  return {version, reader.items(), reader.bytes()};
}

}  // namespace strata::sc
