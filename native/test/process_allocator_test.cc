// Tests of the process allocator controls: malloc's usage moves with allocations, and the
// arena cap yields to an operator's MALLOC_ARENA_MAX, and a trim hands free pages back.
#include "strata/process_allocator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace strata {
namespace {

TEST(ProcessAllocator, UsageCountsLiveAllocations) {
  const MallocUsage before = ReadMallocUsage();
  constexpr size_t kBlocks = 1000, kBlockBytes = 16 << 10;  // 16 MB in arena-sized pieces
  auto blocks = std::make_unique<std::unique_ptr<char[]>[]>(kBlocks);
  for (size_t i = 0; i < kBlocks; ++i) {
    blocks[i] = std::make_unique<char[]>(kBlockBytes);
    std::memset(blocks[i].get(), 1, kBlockBytes);
  }
  const MallocUsage during = ReadMallocUsage();
  EXPECT_GE(during.in_use_bytes, before.in_use_bytes + kBlocks * kBlockBytes);
  EXPECT_GE(during.arena_bytes + during.mmapped_bytes, during.in_use_bytes - during.mmapped_bytes);
  blocks.reset();
  EXPECT_LT(ReadMallocUsage().in_use_bytes, during.in_use_bytes - kBlocks * kBlockBytes / 2);
}

TEST(ProcessAllocator, TrimReturnsFreePagesHeldInsideTheHeap) {
  // 32 MB in pieces below the mmap threshold, each followed by a small block that stays, so
  // the freed pieces sit inside the heap, where free() alone never returns them.
  constexpr size_t kBlocks = 512, kBlockBytes = 64 << 10;
  std::vector<std::unique_ptr<char[]>> freed, kept;
  for (size_t i = 0; i < kBlocks; ++i) {
    freed.push_back(std::make_unique<char[]>(kBlockBytes));
    std::memset(freed.back().get(), 1, kBlockBytes);
    kept.push_back(std::make_unique<char[]>(64));
  }
  freed.clear();
  EXPECT_GE(ReadMallocUsage().free_bytes, kBlocks * kBlockBytes) << "freed but still held";
  EXPECT_GE(TrimMalloc(), kBlocks * kBlockBytes / 2) << "most of the freed pages left the resident set";
}

TEST(ProcessAllocator, CountsArenas) {
  EXPECT_GE(CountMallocArenas(), 1u) << "the main arena at least";
}

TEST(ProcessAllocator, ArenaCapYieldsToTheEnvironment) {
  ::unsetenv("MALLOC_ARENA_MAX");
  EXPECT_EQ(LimitMallocArenas(2), 2);
  EXPECT_EQ(LimitMallocArenas(0), 0) << "no cap asked, none set";
  ::setenv("MALLOC_ARENA_MAX", "3", 1);
  EXPECT_EQ(LimitMallocArenas(2), 3) << "the operator's value stays in force";
  ::unsetenv("MALLOC_ARENA_MAX");
}

}  // namespace
}  // namespace strata
