// MemoryBudget: one RocksDB memory budget shared by every store of a process — a block cache
// and a write-buffer manager that bounds the memtables of all of them together — so that a
// node's RocksDB memory is two operator-set numbers however many databases it opens.
#pragma once

#include <cstdint>
#include <memory>

namespace rocksdb {
class Cache;
class WriteBufferManager;
}  // namespace rocksdb

namespace strata {

/// What a budget holds right now, in bytes.
struct MemoryUsage {
  /// Blocks, index and filter blocks in the shared cache (pinned ones included).
  uint64_t block_cache_bytes = 0;
  /// The part of block_cache_bytes that open iterators and pinned L0 blocks hold.
  uint64_t block_cache_pinned_bytes = 0;
  /// Memtables of every store that uses the budget, mutable and immutable.
  uint64_t memtable_bytes = 0;
};

/// A block cache and a memtable limit shared by the stores that are opened with it.
class MemoryBudget {
 public:
  /// A budget of `block_cache_bytes` for cached blocks and `write_buffer_bytes` for memtables.
  MemoryBudget(uint64_t block_cache_bytes, uint64_t write_buffer_bytes);
  ~MemoryBudget();
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  /// The shared block cache.
  const std::shared_ptr<rocksdb::Cache>& block_cache() const { return cache_; }
  /// The shared memtable limit: a store whose write finds it exceeded flushes its memtables.
  const std::shared_ptr<rocksdb::WriteBufferManager>& write_buffer_manager() const { return write_buffers_; }
  uint64_t block_cache_capacity() const { return block_cache_bytes_; }
  uint64_t write_buffer_capacity() const { return write_buffer_bytes_; }
  /// Current usage.
  MemoryUsage Usage() const;

 private:
  uint64_t block_cache_bytes_;
  uint64_t write_buffer_bytes_;
  std::shared_ptr<rocksdb::Cache> cache_;
  std::shared_ptr<rocksdb::WriteBufferManager> write_buffers_;
};

/// The RocksDB memory of one store: a shared budget when one is set, otherwise a block cache
/// of its own of `block_cache_bytes` and the store's default memtable sizes.
struct StoreMemory {
  uint64_t block_cache_bytes = 0;
  std::shared_ptr<MemoryBudget> budget;
};

}  // namespace strata
