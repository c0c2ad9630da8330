#include "sc/flatkv/row_import.h"

#include <rocksdb/sst_file_writer.h>

#include <array>
#include <filesystem>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "sc/flatkv/file_util.h"
#include "sc/flatkv/flatkv_db.h"
#include "sc/flatkv/parallel_hash.h"
#include "sc/flatkv/row_format.h"
#include "sc/flatkv/snapshot_files.h"
#include "sc/flatkv/store_layout.h"
#include "strata/status.h"

namespace fs = std::filesystem;

namespace strata::sc::flatkv {
namespace {

// Rows hashed per parallel round.
constexpr size_t kHashChunkRows = 8192;

// One family's sorted SST file, opened on its first row.
class FamilySstFile {
 public:
  FamilySstFile(RowFamily family, std::string path) : family_(family), path_(std::move(path)) {}

  void Add(const FlatKvDb& db, const std::string& key, const std::string& row) {
    if (last_key_ && !(*last_key_ < key)) {
      throw Error(ErrorCode::kInvalidArgument,
                  std::string("FlatKV import rows of the ") + RowFamilyName(family_) +
                      " family are not in ascending key order (or repeat a key); import rows in the order "
                      "ExportRows emits them");
    }
    if (!writer_) {
      writer_ = std::make_unique<rocksdb::SstFileWriter>(rocksdb::EnvOptions(db.options()), db.options(),
                                                         db.handle(family_));
      ThrowIfError(writer_->Open(path_), "open import file " + path_);
    }
    ThrowIfError(writer_->Put(key, row), "write import file " + path_);
    last_key_ = key;
  }

  // Finishes the file and moves it into the DB; nothing for a family without rows.
  void Ingest(FlatKvDb& db) {
    if (!writer_) return;
    ThrowIfError(writer_->Finish(), "finish import file " + path_);
    writer_.reset();
    db.IngestFile(family_, path_);
  }

 private:
  RowFamily family_;
  std::string path_;
  std::unique_ptr<rocksdb::SstFileWriter> writer_;
  std::optional<std::string> last_key_;
};

LtHash HashRows(const std::vector<std::pair<std::string, std::string>>& rows, int threads) {
  return ParallelLtHashSum(rows.size(), threads, [&](size_t begin, size_t end, LtHash* partial) {
    for (size_t i = begin; i < end; ++i) partial->Add(EntryHash(rows[i].first, rows[i].second));
  });
}

}  // namespace

void BuildImportedStore(const std::string& dir, int64_t version, const StoreMemory& memory, int hash_threads,
                        const RowSource& next) {
  if (PathExists(dir)) throw Error(ErrorCode::kInvalidArgument, "import directory " + dir + " already exists");
  CreateDirectories(dir);
  StorePaths layout(dir);
  const std::string ingest_dir = (fs::path(dir) / "ingest-tmp").string();
  CreateDirectories(ingest_dir);

  auto db = FlatKvDb::Open(layout.working, FlatKvDb::Mode::kCreate, memory);
  std::vector<FamilySstFile> files;
  for (size_t i = 0; i < kRowFamilyCount; ++i) {
    auto family = static_cast<RowFamily>(i);
    files.emplace_back(family, (fs::path(ingest_dir) / (std::string(RowFamilyName(family)) + ".sst")).string());
  }

  LtHash hash;
  std::vector<std::pair<std::string, std::string>> chunk;
  chunk.reserve(kHashChunkRows);
  std::string key, row;
  while (next(&key, &row)) {
    RowFamily family = FamilyOfPhysicalKey(key);
    CheckRowValue(family, row);
    files[static_cast<size_t>(family)].Add(*db, key, row);
    chunk.emplace_back(std::move(key), std::move(row));
    if (chunk.size() == kHashChunkRows) {
      hash.Add(HashRows(chunk, hash_threads));
      chunk.clear();
    }
    key.clear();
    row.clear();
  }
  hash.Add(HashRows(chunk, hash_threads));
  for (auto& file : files) file.Ingest(*db);

  StoreMeta meta;
  meta.version = version;
  meta.changelog_index = 0;
  meta.origin_version = version;
  meta.hash = hash;
  rocksdb::WriteBatch batch;
  db->PutMeta(&batch, meta);
  db->Write(&batch);
  db->Flush();
  // The import version is a snapshot, so the store can always roll back to it.
  const std::string snapshot = layout.Snapshot(version);
  db->CreateCheckpoint(snapshot);
  WriteSnapshotManifest(snapshot, {version, 0});
  db->Close();
  RemoveTree(ingest_dir);
  CreateDirectories(layout.changelog);
  FsyncTree(dir);
}

}  // namespace strata::sc::flatkv
