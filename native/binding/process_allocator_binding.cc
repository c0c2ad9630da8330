#include "process_allocator_binding.h"

#include "strata/process_allocator.h"

#include <memory>

#include "convert.h"

namespace strata::binding {
namespace {

Napi::Value LimitMallocArenasJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsNumber()) throw Napi::TypeError::New(env, "limitMallocArenas(max) needs a number");
  return Napi::Number::New(env, LimitMallocArenas(info[0].As<Napi::Number>().Int32Value()));
}

Napi::Value MallocUsageJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const MallocUsage usage = ReadMallocUsage();
  Napi::Object out = Napi::Object::New(env);
  out.Set("arenaBytes", Napi::Number::New(env, static_cast<double>(usage.arena_bytes)));
  out.Set("mmappedBytes", Napi::Number::New(env, static_cast<double>(usage.mmapped_bytes)));
  out.Set("inUseBytes", Napi::Number::New(env, static_cast<double>(usage.in_use_bytes)));
  out.Set("freeBytes", Napi::Number::New(env, static_cast<double>(usage.free_bytes)));
  return out;
}

Napi::Value MallocArenasJs(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), CountMallocArenas()); }

// Trims on the libuv pool: walking the arenas' free chunks may take milliseconds.
Napi::Value TrimMallocJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto released = std::make_shared<uint64_t>(0);
  return PromiseWorker::Queue(
      env, Napi::Object::New(env), [released] { *released = TrimMalloc(); },
      [released](Napi::Env env) -> Napi::Value { return Napi::Number::New(env, static_cast<double>(*released)); });
}

}  // namespace

void InitProcessAllocator(Napi::Env env, Napi::Object exports) {
  exports.Set("limitMallocArenas", Napi::Function::New<LimitMallocArenasJs>(env, "limitMallocArenas"));
  exports.Set("mallocUsage", Napi::Function::New<MallocUsageJs>(env, "mallocUsage"));
  exports.Set("mallocArenas", Napi::Function::New<MallocArenasJs>(env, "mallocArenas"));
  exports.Set("trimMalloc", Napi::Function::New<TrimMallocJs>(env, "trimMalloc"));
}

}  // namespace strata::binding
