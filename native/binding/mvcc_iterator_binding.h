// NativeMvccIterator: the JavaScript class over an MvccIterator (key/value pairs of one store
// at one version) or a RawIterator (every stored version, for dump tools).
#pragma once

#include <napi.h>

#include <memory>

#include "strata/mvcc_store.h"

namespace strata::binding {

class StateStoreBinding;

class MvccIteratorBinding : public Napi::ObjectWrap<MvccIteratorBinding> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  /// Wraps an iterator of `owner` (whose JS object is `owner_object`) in a JS object.
  static Napi::Object Wrap(Napi::Env env, Napi::Object owner_object, StateStoreBinding* owner,
                           std::unique_ptr<MvccIterator> it);
  static Napi::Object Wrap(Napi::Env env, Napi::Object owner_object, StateStoreBinding* owner,
                           std::unique_ptr<RawIterator> it);

  explicit MvccIteratorBinding(const Napi::CallbackInfo& info);

 private:
  /// nextBatch(max): a flat array [key, value, ...] (raw: [store, key, value, version, ...]);
  /// empty at the end.
  Napi::Value NextBatch(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);
  void CheckUsable(Napi::Env env);

  Napi::ObjectReference owner_object_;  // keeps the store alive while this iterator lives
  StateStoreBinding* owner_ = nullptr;
  std::unique_ptr<MvccIterator> mvcc_;
  std::unique_ptr<RawIterator> raw_;
};

}  // namespace strata::binding
