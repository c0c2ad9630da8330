#include "memory_budget_binding.h"

#include "addon_data.h"
#include "convert.h"

namespace strata::binding {

void MemoryBudgetBinding::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, "NativeMemoryBudget", {InstanceMethod<&MemoryBudgetBinding::Usage>("usage")});
  GetAddonData(env).memory_budget_constructor = Napi::Persistent(ctor);
  exports.Set("NativeMemoryBudget", ctor);
}

std::shared_ptr<MemoryBudget> MemoryBudgetBinding::From(const Napi::Value& value) {
  Napi::Env env = value.Env();
  if (!value.IsObject() || !value.As<Napi::Object>().InstanceOf(GetAddonData(env).memory_budget_constructor.Value())) {
    throw Napi::TypeError::New(env, "memoryBudget must be a NativeMemoryBudget");
  }
  return Unwrap(value.As<Napi::Object>())->budget_;
}

MemoryBudgetBinding::MemoryBudgetBinding(const Napi::CallbackInfo& info) : Napi::ObjectWrap<MemoryBudgetBinding>(info) {
  const OptionFields fields(info[0], "memory budget options");
  const auto cache = fields.Integer("blockCacheBytes", 0);
  const auto write_buffers = fields.Integer("writeBufferBytes", 0);
  if (!cache || !write_buffers) {
    throw Napi::TypeError::New(info.Env(), "new NativeMemoryBudget({blockCacheBytes, writeBufferBytes}) needs both sizes");
  }
  budget_ = Translate(info.Env(), [&] {
    return std::make_shared<MemoryBudget>(static_cast<uint64_t>(*cache), static_cast<uint64_t>(*write_buffers));
  });
}

Napi::Value MemoryBudgetBinding::Usage(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const MemoryUsage usage = budget_->Usage();
  Napi::Object out = Napi::Object::New(env);
  out.Set("blockCacheBytes", Napi::Number::New(env, static_cast<double>(usage.block_cache_bytes)));
  out.Set("blockCachePinnedBytes", Napi::Number::New(env, static_cast<double>(usage.block_cache_pinned_bytes)));
  out.Set("memtableBytes", Napi::Number::New(env, static_cast<double>(usage.memtable_bytes)));
  out.Set("blockCacheCapacity", Napi::Number::New(env, static_cast<double>(budget_->block_cache_capacity())));
  out.Set("writeBufferCapacity", Napi::Number::New(env, static_cast<double>(budget_->write_buffer_capacity())));
  return out;
}

}  // namespace strata::binding
