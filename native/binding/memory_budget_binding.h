// NativeMemoryBudget: the JavaScript class over strata::MemoryBudget, handed to each store's
// open() as `memoryBudget` so every store of the process shares one cache and memtable limit.
#pragma once

#include <napi.h>

#include <memory>

#include "strata/memory_budget.h"

namespace strata::binding {

/// NativeMemoryBudget.
class MemoryBudgetBinding : public Napi::ObjectWrap<MemoryBudgetBinding> {
 public:
  /// Defines the class on `exports`.
  static void Init(Napi::Env env, Napi::Object exports);
  /// The budget a `memoryBudget` option holds; throws a TypeError for anything else.
  static std::shared_ptr<MemoryBudget> From(const Napi::Value& value);

  /// new NativeMemoryBudget({blockCacheBytes, writeBufferBytes}).
  explicit MemoryBudgetBinding(const Napi::CallbackInfo& info);

 private:
  /// usage(): {blockCacheBytes, blockCachePinnedBytes, memtableBytes, blockCacheCapacity, writeBufferCapacity}.
  Napi::Value Usage(const Napi::CallbackInfo& info);

  std::shared_ptr<MemoryBudget> budget_;
};

}  // namespace strata::binding
