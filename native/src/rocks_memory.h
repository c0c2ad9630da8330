// How a store's RocksDB options take their memory from a StoreMemory.
#pragma once

#include <rocksdb/options.h>
#include <rocksdb/table.h>

#include "strata/memory_budget.h"

namespace strata {

/// Sets the block cache (shared or the store's own) and, with a budget, the shared memtable
/// limit and the caching of index and filter blocks.
void ApplyStoreMemory(const StoreMemory& memory, rocksdb::Options* options, rocksdb::BlockBasedTableOptions* table);

}  // namespace strata
