// NativeCommitStore: the JavaScript class over strata::sc::CommitStore (memiavl + FlatKV),
// plus the dump-iavl tool as a static method.
#pragma once

#include <napi.h>

#include <functional>
#include <memory>

#include "binding_base.h"
#include "strata/commit_store.h"

namespace strata::binding {

/// NativeCommitStore.
class CommitStoreBinding : public StoreBinding<CommitStoreBinding, sc::CommitStore> {
 public:
  /// Defines the class on `exports`.
  static void Init(Napi::Env env, Napi::Object exports);

  static constexpr StoreKind kKind{
      "NativeCommitStore", "commit store",
      "NativeCommitStore is created by NativeCommitStore.open(memiavlDir, flatkvDir, options)",
      &AddonData::commit_store_constructor};

  /// Constructed only by NativeCommitStore.open, with the opened store as an External.
  explicit CommitStoreBinding(const Napi::CallbackInfo& info) : StoreBinding(info) {}

 private:
  static Napi::Value Open(const Napi::CallbackInfo& info);
  static Napi::Value DumpIavl(const Napi::CallbackInfo& info);
  /// repairSnapshots(memiavlDir): Promise of {removed, current, version}.
  static Napi::Value RepairSnapshots(const Napi::CallbackInfo& info);
  /// importSnapshot(memiavlDir, flatkvDir, version, path, options): Promise of the stats.
  static Napi::Value ImportSnapshot(const Napi::CallbackInfo& info);
  /// exportSnapshot(path): Promise of {version, items, bytes}.
  Napi::Value ExportSnapshot(const Napi::CallbackInfo& info);
  /// apply(entry): stages every pair of an encoded changelog entry.
  Napi::Value Apply(const Napi::CallbackInfo& info);
  /// working(): Promise of the result the next commit will have.
  Napi::Value Working(const Napi::CallbackInfo& info);
  /// commit(): Promise of the committed result.
  Napi::Value Commit(const Napi::CallbackInfo& info);
  /// last(): the last committed result.
  Napi::Value Last(const Napi::CallbackInfo& info);
  /// get(store, key): Buffer or undefined.
  Napi::Value Get(const Napi::CallbackInfo& info);
  /// getMany(store, packedKeys, keyLengths, slots): values packed in one Buffer (packed_reads.h).
  Napi::Value GetMany(const Napi::CallbackInfo& info);
  /// range(store, start, end, ascending, limit): [key0, value0, key1, value1, ...].
  Napi::Value Range(const Napi::CallbackInfo& info);
  Napi::Value Rollback(const Napi::CallbackInfo& info);
  Napi::Value SnapshotVersions(const Napi::CallbackInfo& info);
  Napi::Value WaitForSnapshot(const Napi::CallbackInfo& info);
  Napi::Value SnapshotStats(const Napi::CallbackInfo& info);
  /// treeMemory(): { [store]: bytes of its memiavl nodes in memory }.
  Napi::Value TreeMemory(const Napi::CallbackInfo& info);
  /// Runs `fn` on the pool; the promise resolves to the commit result it returns.
  Napi::Value QueueResult(Napi::Env env, std::function<sc::CommitResult(sc::CommitStore&)> fn);
};

}  // namespace strata::binding
