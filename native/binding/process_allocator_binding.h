// limitMallocArenas, mallocUsage, mallocArenas and trimMalloc: the functions over strata/process_allocator.h.
#pragma once

#include <napi.h>

namespace strata::binding {

/// Defines limitMallocArenas(max), mallocUsage(), mallocArenas() and trimMalloc() on `exports`.
void InitProcessAllocator(Napi::Env env, Napi::Object exports);

}  // namespace strata::binding
