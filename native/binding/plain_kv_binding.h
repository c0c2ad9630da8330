// NativePlainKv: the JavaScript class over strata::PlainKv (the block store's RocksDB).
#pragma once

#include <napi.h>

#include <memory>

#include "addon_data.h"
#include "plain_kv.h"

namespace strata::binding {

class PlainKvBinding : public Napi::ObjectWrap<PlainKvBinding> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  /// Closes every plain KV store still open in an environment that is shutting down.
  static void CloseAll(OpenStores& open_stores);

  /// Constructed only by NativePlainKv.open, with the opened store as an External.
  explicit PlainKvBinding(const Napi::CallbackInfo& info);
  ~PlainKvBinding() override;

 private:
  /// open(dir, {createIfMissing, readOnly, blockCacheBytes}): Promise of a NativePlainKv.
  static Napi::Value Open(const Napi::CallbackInfo& info);
  /// get(key): Buffer or undefined.
  Napi::Value Get(const Napi::CallbackInfo& info);
  /// getMany(keys[]): (Buffer | undefined)[].
  Napi::Value GetMany(const Napi::CallbackInfo& info);
  /// write(keys[], values[] (null = delete), sync): Promise<void>.
  Napi::Value Write(const Napi::CallbackInfo& info);
  /// range(start | null, end | null, reverse, limit): [key0, value0, key1, value1, ...].
  Napi::Value Range(const Napi::CallbackInfo& info);
  /// close(): Promise<void>.
  Napi::Value Close(const Napi::CallbackInfo& info);

  PlainKv& store(Napi::Env env);

  std::shared_ptr<PlainKv> store_;
  std::shared_ptr<OpenStores> open_stores_;
  bool closing_ = false;
};

}  // namespace strata::binding
