// The process's C heap (glibc malloc): how many arenas it may use and what it holds.
#pragma once

#include <cstdint>

namespace strata {

/// What malloc holds, from mallinfo2().
struct MallocUsage {
  /// Bytes of the arenas' heaps (main heap and the other arenas' mmapped heaps).
  uint64_t arena_bytes = 0;
  /// Bytes of chunks malloc mmapped on their own (large allocations).
  uint64_t mmapped_bytes = 0;
  /// Bytes handed out and not yet freed, across all arenas and mmapped chunks.
  uint64_t in_use_bytes = 0;
  /// Bytes free inside the arenas: held by the process, not in use (fragmentation and slack).
  uint64_t free_bytes = 0;
};

/// Reads malloc's statistics (walks every arena; cheap enough for a metrics scrape).
MallocUsage ReadMallocUsage();

/// Arenas malloc has made so far, the main one included (from malloc_info's report).
uint32_t CountMallocArenas();

/// Caps malloc's arenas at `max` (glibc's M_ARENA_MAX), unless the environment sets
/// MALLOC_ARENA_MAX, which wins. Returns the cap in effect afterwards (0: glibc's default of
/// eight per core). Arenas created before the call stay.
int LimitMallocArenas(int max);

/// Hands the pages of free arena memory back to the system (glibc's malloc_trim), which
/// malloc otherwise keeps after a burst of allocations. Returns how much the process's
/// resident size fell meanwhile, in bytes (0 if it did not; other threads keep allocating).
uint64_t TrimMalloc();

}  // namespace strata
