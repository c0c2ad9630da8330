#include "strata/process_allocator.h"

#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string_view>

#include <unistd.h>

namespace strata {

// glibc reports its arenas only in malloc_info's XML: one <heap nr="…"> element each.
uint32_t CountMallocArenas() {
  char* text = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&text, &size);
  if (out == nullptr) return 0;
  const bool written = malloc_info(0, out) == 0;
  std::fclose(out);
  uint32_t arenas = 0;
  if (written) {
    const std::string_view xml(text, size);
    for (size_t at = xml.find("<heap nr="); at != std::string_view::npos; at = xml.find("<heap nr=", at + 1)) ++arenas;
  }
  std::free(text);
  return arenas;
}

MallocUsage ReadMallocUsage() {
  const struct mallinfo2 info = mallinfo2();
  MallocUsage usage;
  usage.arena_bytes = info.arena;
  usage.mmapped_bytes = info.hblkhd;
  usage.in_use_bytes = info.uordblks + info.hblkhd;
  usage.free_bytes = info.fordblks;
  return usage;
}

int LimitMallocArenas(int max) {
  // An operator's MALLOC_ARENA_MAX was applied by glibc at startup; leave it in force.
  if (const char* env = std::getenv("MALLOC_ARENA_MAX"); env != nullptr && *env != '\0') {
    return std::atoi(env);
  }
  if (max < 1) return 0;
  return mallopt(M_ARENA_MAX, max) == 1 ? max : 0;
}

namespace {

// Resident pages from /proc/self/statm (its second field); 0 when it cannot be read.
uint64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0;
  uint64_t resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace

uint64_t TrimMalloc() {
  const uint64_t before = ResidentBytes();
  malloc_trim(0);
  const uint64_t after = ResidentBytes();
  return before > after ? before - after : 0;
}

}  // namespace strata
