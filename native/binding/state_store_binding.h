// NativeStateStore: the JavaScript class over a strata::VersionedStore — an MvccStore (the
// Cosmos SS, or the only SS without the split) or an EvmStateStore.
#pragma once

#include <napi.h>

#include <memory>

#include "binding_base.h"
#include "strata/mvcc_store.h"
#include "strata/versioned_store.h"

namespace strata::binding {

/// NativeStateStore.
class StateStoreBinding : public StoreBinding<StateStoreBinding, VersionedStore> {
 public:
  /// Defines the class on `exports`.
  static void Init(Napi::Env env, Napi::Object exports);

  static constexpr StoreKind kKind{"NativeStateStore", "state store",
                                   "NativeStateStore is created by NativeStateStore.open(kind, dir, options)",
                                   &AddonData::store_constructor};

  /// Constructed only by NativeStateStore.open, with the opened store as an External.
  explicit StateStoreBinding(const Napi::CallbackInfo& info) : StoreBinding(info) {}

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
  Napi::Value Rollback(const Napi::CallbackInfo& info);
  Napi::Value Import(const Napi::CallbackInfo& info);
  /// importSnapshotLeaves(version, path, evm?): a restore's SS import straight from the stream
  /// file; this store takes every item but the EVM SS's. Resolves with the items written.
  Napi::Value ImportSnapshotLeaves(const Napi::CallbackInfo& info);
  Napi::Value Compact(const Napi::CallbackInfo& info);
  Napi::Value Stats(const Napi::CallbackInfo& info);
  Napi::Value WaitForCompactions(const Napi::CallbackInfo& info);
  Napi::Value FirstLoggedVersion(const Napi::CallbackInfo& info);
  Napi::Value Iterator(const Napi::CallbackInfo& info);
  Napi::Value RawIterator(const Napi::CallbackInfo& info);
  /// Reads the key named by (store, version, key) arguments into `sink`; `into_scratch`
  /// requires setScratch() to have been called.
  void ReadKey(const Napi::CallbackInfo& info, ValueSink& sink, bool into_scratch);
  /// Reads one of the store's version markers.
  Napi::Value GetVersion(const Napi::CallbackInfo& info, uint64_t (VersionedStore::*get)() const);
  /// setXVersion(version): raises one of the store's version markers.
  Napi::Value SetVersion(const Napi::CallbackInfo& info, void (VersionedStore::*set)(uint64_t));
  /// The store as an MVCC store, or a STRATA_NOT_SUPPORTED error saying `what` needs one.
  MvccStore& mvcc(Napi::Env env, const char* what);

  Napi::ObjectReference scratch_ref_;
  char* scratch_ = nullptr;
  size_t scratch_capacity_ = 0;
};

}  // namespace strata::binding
