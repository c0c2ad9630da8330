// NativeStateStore: the JavaScript class over a strata::VersionedStore — an MvccStore (the
// Cosmos SS, or the only SS without the split) or an EvmStateStore.
#pragma once

#include <napi.h>

#include <memory>

#include "addon_data.h"
#include "strata/versioned_store.h"

namespace strata::binding {

class StateStoreBinding : public Napi::ObjectWrap<StateStoreBinding> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  /// Closes every store still open in an environment that is shutting down.
  static void CloseAll(OpenStores& open_stores);

  /// Constructed only by NativeStateStore.open, with the opened store as an External.
  explicit StateStoreBinding(const Napi::CallbackInfo& info);
  ~StateStoreBinding() override;

  /// The store, or a STRATA_CLOSED error once close() was called.
  VersionedStore& store(Napi::Env env);
  /// Whether close() was called (iterators check it before touching the store).
  bool closing() const;

 private:
  static Napi::Value Open(const Napi::CallbackInfo& info);
  /// get(store, version, key): the value's length in the scratch buffer, -1 when absent, or
  /// a Buffer for a value larger than the scratch.
  Napi::Value Get(const Napi::CallbackInfo& info);
  /// setScratch(buffer): the buffer get() copies values into (owned by the JS side).
  Napi::Value SetScratch(const Napi::CallbackInfo& info);
  Napi::Value Has(const Napi::CallbackInfo& info);
  Napi::Value GetMany(const Napi::CallbackInfo& info);
  Napi::Value Apply(const Napi::CallbackInfo& info);
  /// applyBlock(entry): EVM SS only; keeps the "evm" changesets of a whole block's entry.
  Napi::Value ApplyBlock(const Napi::CallbackInfo& info);
  Napi::Value Drain(const Napi::CallbackInfo& info);
  Napi::Value Recover(const Napi::CallbackInfo& info);
  Napi::Value CatchUpFrom(const Napi::CallbackInfo& info);
  Napi::Value LatestVersion(const Napi::CallbackInfo& info);
  Napi::Value EarliestVersion(const Napi::CallbackInfo& info);
  Napi::Value SetLatestVersion(const Napi::CallbackInfo& info);
  Napi::Value SetEarliestVersion(const Napi::CallbackInfo& info);
  Napi::Value Prune(const Napi::CallbackInfo& info);
  Napi::Value Import(const Napi::CallbackInfo& info);
  Napi::Value Compact(const Napi::CallbackInfo& info);
  Napi::Value Stats(const Napi::CallbackInfo& info);
  Napi::Value WaitForCompactions(const Napi::CallbackInfo& info);
  Napi::Value FirstLoggedVersion(const Napi::CallbackInfo& info);
  Napi::Value Iterator(const Napi::CallbackInfo& info);
  Napi::Value RawIterator(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);

  std::unique_ptr<VersionedStore> store_;
  std::shared_ptr<OpenStores> open_stores_;
  Napi::ObjectReference scratch_ref_;
  char* scratch_ = nullptr;
  size_t scratch_capacity_ = 0;
  bool closing_ = false;
};

}  // namespace strata::binding
