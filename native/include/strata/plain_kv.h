// PlainKv: a small unversioned RocksDB key-value store. The chain's block store, tx index,
// receipts and logs live in one of these (data/blockstore); it has no MVCC and no changelog.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "strata/memory_budget.h"

namespace strata {

/// How PlainKv::Open treats the directory.
struct PlainKvOptions {
  bool create_if_missing = true;
  bool read_only = false;
  /// Block cache size when there is no memory_budget.
  uint64_t block_cache_bytes = 32ull << 20;
  /// Block cache and memtable limit shared with the process's other stores.
  std::shared_ptr<MemoryBudget> memory_budget;
};

/// One put (value set) or delete (value empty optional) of a write batch.
struct PlainKvOp {
  std::string key;
  std::optional<std::string> value;
};

/// Range of an iteration: keys in [start, end); an empty bound is open on that side.
struct PlainKvRange {
  std::string start;
  std::string end;
  bool reverse = false;
};

/// Forward or reverse cursor over a key range. It reads the store as it was when created
/// (RocksDB iterators pin an implicit snapshot), so concurrent writes never tear a scan.
class PlainKvIterator {
 public:
  ~PlainKvIterator();
  PlainKvIterator(const PlainKvIterator&) = delete;
  PlainKvIterator& operator=(const PlainKvIterator&) = delete;

  /// True while the cursor is on a key inside the range.
  bool Valid() const;
  /// Moves to the next key in iteration order.
  void Next();
  /// The current key; valid until the next call to Next.
  std::string_view key() const;
  /// The current value; valid until the next call to Next.
  std::string_view value() const;

  /// The cursor's RocksDB state (plain_kv.cc).
  class Impl;
  /// Use PlainKv::Iterate.
  explicit PlainKvIterator(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

/// The store. Every RocksDB failure is thrown as strata::Error; using it after Close throws kClosed.
/// Thread-safe: reads and writes may run concurrently with each other and with Close.
class PlainKv {
 public:
  /// Opens (or creates) the store in `dir`.
  static std::unique_ptr<PlainKv> Open(const std::string& dir, const PlainKvOptions& options);
  /// Closes the store, reporting a failure on stderr (use Close to see errors).
  ~PlainKv();
  PlainKv(const PlainKv&) = delete;
  PlainKv& operator=(const PlainKv&) = delete;

  /// The value of `key`, or nullopt when absent.
  std::optional<std::string> Get(std::string_view key) const;
  /// The values of `keys`, in order; nullopt where absent.
  std::vector<std::optional<std::string>> MultiGet(const std::vector<std::string>& keys) const;
  /// Applies every op atomically; with `sync`, returns only once the write is on disk.
  void Write(const std::vector<PlainKvOp>& ops, bool sync);
  /// A cursor over `range`, positioned on its first key.
  std::unique_ptr<PlainKvIterator> Iterate(const PlainKvRange& range) const;
  /// Flushes and closes the database; idempotent. Open iterators keep it alive until they go.
  void Close();
  /// Whether Close was called.
  bool closed() const;
  /// The directory the store was opened in.
  const std::string& dir() const;

  /// The open database and its guard (plain_kv.cc).
  class Impl;
  /// Use Open.
  explicit PlainKv(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata
