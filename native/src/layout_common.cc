#include <rocksdb/cache.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <filesystem>

#include "encoding.h"
#include "layout_engine.h"
#include "rocks_memory.h"
#include "open_error.h"

namespace strata {

rocksdb::Options BaseOptions(const StoreOptions& options, bool whole_key_filtering,
                             std::shared_ptr<rocksdb::Statistics>* statistics) {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.max_open_files = -1;
  o.max_background_jobs = 4;
  o.bytes_per_sync = 1 << 20;
  o.write_buffer_size = 64 << 20;
  o.max_write_buffer_number = 4;
  o.min_write_buffer_number_to_merge = 1;
  o.level0_file_num_compaction_trigger = 4;
  o.level0_slowdown_writes_trigger = 40;
  o.level0_stop_writes_trigger = 64;
  o.max_bytes_for_level_base = 256 << 20;
  o.target_file_size_base = 64 << 20;
  o.level_compaction_dynamic_level_bytes = true;
  o.compression = rocksdb::kLZ4Compression;
  o.bottommost_compression = rocksdb::kZSTD;
  o.memtable_prefix_bloom_size_ratio = 0.1;

  rocksdb::BlockBasedTableOptions table;
  ApplyStoreMemory({options.block_cache_bytes, options.memory_budget}, &o, &table);
  table.block_size = 8 << 10;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10, false));
  table.format_version = 5;
  table.whole_key_filtering = whole_key_filtering;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));

  if (options.statistics) {
    *statistics = rocksdb::CreateDBStatistics();
    // Tickers only: timers and histograms would read the clock on every point read.
    (*statistics)->set_stats_level(rocksdb::StatsLevel::kExceptHistogramOrTimers);
    o.statistics = *statistics;
  }
  return o;
}

bool LayoutEngine::BackgroundWorkPending() const {
  for (const char* property : {"rocksdb.num-running-compactions", "rocksdb.num-running-flushes",
                               "rocksdb.compaction-pending", "rocksdb.mem-table-flush-pending"}) {
    uint64_t value = 0;
    if (db_->GetAggregatedIntProperty(property, &value) && value > 0) return true;
  }
  return false;
}

void ThrowIfStateStoreOpenFailed(const rocksdb::Status& status, const std::string& dir) {
  ThrowIfOpenFailed(status, "state store " + dir, "open state store at " + dir);
}

void CheckKey(std::string_view key, const char* what) {
  if (key.empty()) {
    throw Error(ErrorCode::kInvalidArgument,
                std::string(what) + " is empty: keys must be at least one byte long");
  }
}

void IngestSortedFile(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, const rocksdb::Options& options,
                      const std::string& store_dir, const std::string& name,
                      const std::function<void(rocksdb::SstFileWriter&)>& fill) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(store_dir) / "ingest";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(ErrorCode::kIo, "cannot create " + dir.string() + ": " + ec.message());
  std::string path = (dir / (name + ".sst")).string();
  try {
    rocksdb::SstFileWriter writer(rocksdb::EnvOptions(options), options, cf);
    ThrowIfError(writer.Open(path), "open ingest file " + path);
    fill(writer);
    ThrowIfError(writer.Finish(), "finish ingest file " + path);
    rocksdb::IngestExternalFileOptions ingest;
    ingest.move_files = true;
    ingest.write_global_seqno = false;
    ingest.allow_blocking_flush = true;
    ThrowIfError(db->IngestExternalFile(cf, {path}, ingest), "ingest " + path);
  } catch (...) {
    fs::remove(path, ec);
    throw;
  }
}

void ClearIngestLeftovers(const std::string& store_dir) {
  std::error_code ec;
  std::filesystem::remove_all(std::filesystem::path(store_dir) / "ingest", ec);
  if (ec) throw Error(ErrorCode::kIo, "cannot clear " + store_dir + "/ingest: " + ec.message());
}

SortedImport SortImport(const std::vector<ImportItem>& items) {
  SortedImport sorted;
  sorted.keys.reserve(items.size());
  for (const auto& item : items) {
    std::string key;
    encoding::AppendStoreKey(&key, item.store, item.key);
    sorted.keys.push_back(std::move(key));
  }
  std::vector<uint32_t> order(items.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto& keys = sorted.keys;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
  sorted.order.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    if (i + 1 < order.size() && keys[order[i]] == keys[order[i + 1]]) continue;
    sorted.order.push_back(order[i]);
  }
  return sorted;
}

rocksdb::WriteOptions ImportWriteOptions() {
  rocksdb::WriteOptions options;
  options.disableWAL = true;
  return options;
}

}  // namespace strata
