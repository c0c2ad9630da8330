// Tests of MemoryBudget: one block cache and memtable limit shared by several stores.
#include "strata/memory_budget.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "strata/plain_kv.h"
#include "strata/status.h"
#include "test_util.h"

namespace strata {
namespace {

using test::TempDir;

constexpr uint64_t kMiB = 1 << 20;

void WriteMegabytes(PlainKv& kv, const std::string& prefix, int megabytes) {
  const std::string value(1024, 'v');
  for (int mb = 0; mb < megabytes; ++mb) {
    std::vector<PlainKvOp> ops;
    for (int i = 0; i < 1024; ++i) ops.push_back({prefix + std::to_string(mb * 1024 + i), value});
    kv.Write(ops, false);
  }
}

TEST(MemoryBudgetTest, RefusesSizesBelowOneMebibyte) {
  EXPECT_THROW(MemoryBudget(1024, 8 * kMiB), Error);
  EXPECT_THROW(MemoryBudget(8 * kMiB, 0), Error);
}

TEST(MemoryBudgetTest, StoresShareItsMemtableLimit) {
  TempDir a, b;
  auto budget = std::make_shared<MemoryBudget>(4 * kMiB, 2 * kMiB);
  PlainKvOptions options;
  options.memory_budget = budget;
  auto first = PlainKv::Open(a.path(), options);
  auto second = PlainKv::Open(b.path(), options);
  WriteMegabytes(*first, "a", 8);
  WriteMegabytes(*second, "b", 8);
  // Flushes are asynchronous: wait (bounded) for them to bring the memtables under the limit. A
  // flushed memtable is freed once no read holds the version that still lists it, so each round
  // reads from both stores, as a running node's reads do.
  uint64_t memtables = budget->Usage().memtable_bytes;
  // The limit is enforced on writes, so when they stop each store may keep one unflushed
  // memtable of its share (limit / 8) on top of it.
  const uint64_t allowed = 2 * kMiB + 2 * (2 * kMiB / 8);
  for (int i = 0; i < 600 && memtables > allowed; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    first->Get("a0");
    second->Get("b0");
    memtables = budget->Usage().memtable_bytes;
  }
  EXPECT_LE(memtables, allowed) << "16 MB written by two stores through one 2 MiB limit";
  EXPECT_EQ(first->Get("a0"), std::optional<std::string>(std::string(1024, 'v')));
  EXPECT_EQ(second->Get("b8191"), std::optional<std::string>(std::string(1024, 'v')));
  EXPECT_GT(budget->Usage().block_cache_bytes, 0u) << "reads of flushed data go through the shared cache";
  EXPECT_LE(budget->Usage().block_cache_bytes, 4 * kMiB);
}

}  // namespace
}  // namespace strata
