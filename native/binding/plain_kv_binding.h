// NativePlainKv: the JavaScript class over strata::PlainKv (the block store's RocksDB).
#pragma once

#include <napi.h>

#include <memory>

#include "binding_base.h"
#include "strata/plain_kv.h"

namespace strata::binding {

/// NativePlainKv.
class PlainKvBinding : public StoreBinding<PlainKvBinding, PlainKv> {
 public:
  /// Defines the class on `exports`.
  static void Init(Napi::Env env, Napi::Object exports);

  static constexpr StoreKind kKind{"NativePlainKv", "plain KV store",
                                   "NativePlainKv is created by NativePlainKv.open(dir, options)",
                                   &AddonData::plain_kv_constructor};

  /// Constructed only by NativePlainKv.open, with the opened store as an External.
  explicit PlainKvBinding(const Napi::CallbackInfo& info) : StoreBinding(info) {}

 private:
  /// open(dir, {createIfMissing, readOnly, blockCacheBytes}): Promise of a NativePlainKv.
  static Napi::Value Open(const Napi::CallbackInfo& info);
  /// get(key): Buffer or undefined.
  Napi::Value Get(const Napi::CallbackInfo& info);
  /// getMany(keys[]): (Buffer | undefined)[].
  Napi::Value GetMany(const Napi::CallbackInfo& info);
  /// write(keys[], values[] (null = delete), sync): Promise<void>.
  Napi::Value Write(const Napi::CallbackInfo& info);
  /// writePacked(packed, sync): write's ops from one buffer (see ParsePackedOps): Promise<void>.
  Napi::Value WritePacked(const Napi::CallbackInfo& info);
  /// range(start | null, end | null, reverse, limit): [key0, value0, key1, value1, ...].
  Napi::Value Range(const Napi::CallbackInfo& info);
};

}  // namespace strata::binding
