#include "strata/memory_budget.h"

#include <rocksdb/cache.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_buffer_manager.h>

#include <algorithm>

#include "rocks_memory.h"
#include "strata/status.h"

namespace strata {

MemoryBudget::MemoryBudget(uint64_t block_cache_bytes, uint64_t write_buffer_bytes)
    : block_cache_bytes_(block_cache_bytes), write_buffer_bytes_(write_buffer_bytes) {
  if (block_cache_bytes < (1u << 20) || write_buffer_bytes < (1u << 20)) {
    throw Error(ErrorCode::kInvalidArgument, "a memory budget needs at least 1 MiB of block cache and 1 MiB of write buffers");
  }
  cache_ = rocksdb::NewLRUCache(block_cache_bytes);
  // Not charged to the cache: the two limits add up, so each stays what the operator set.
  write_buffers_ = std::make_shared<rocksdb::WriteBufferManager>(write_buffer_bytes);
}

MemoryBudget::~MemoryBudget() = default;

MemoryUsage MemoryBudget::Usage() const {
  MemoryUsage usage;
  usage.block_cache_bytes = cache_->GetUsage();
  usage.block_cache_pinned_bytes = cache_->GetPinnedUsage();
  usage.memtable_bytes = write_buffers_->memory_usage();
  return usage;
}

void ApplyStoreMemory(const StoreMemory& memory, rocksdb::Options* options, rocksdb::BlockBasedTableOptions* table) {
  if (!memory.budget) {
    table->block_cache = rocksdb::NewLRUCache(memory.block_cache_bytes);
    return;
  }
  table->block_cache = memory.budget->block_cache();
  options->write_buffer_manager = memory.budget->write_buffer_manager();
  // A memtable reserves arena blocks of write_buffer_size / 8 (and its bloom filter a tenth of
  // write_buffer_size) as soon as it holds a key, so with several databases and families each
  // memtable must be a small share of the limit or the reservations alone would exceed it.
  const uint64_t share = std::max<uint64_t>(memory.budget->write_buffer_capacity() / 8, 64 << 10);
  options->write_buffer_size = std::min<uint64_t>(options->write_buffer_size, share);
  options->arena_block_size = std::min<uint64_t>(options->write_buffer_size / 8, 1 << 20);
  // Index and filter blocks go into the budget too, or they would grow outside it with every
  // new SST file; L0's stay pinned because every read consults them.
  table->cache_index_and_filter_blocks = true;
  table->cache_index_and_filter_blocks_with_high_priority = true;
  table->pin_l0_filter_and_index_blocks_in_cache = true;
}

}  // namespace strata
