// NativeCommitStore: the JavaScript class over strata::sc::CommitStore (memiavl + FlatKV),
// plus the dump-iavl tool as a static method.
#pragma once

#include <napi.h>

#include <memory>

#include "addon_data.h"
#include "sc/commit_store.h"

namespace strata::binding {

class CommitStoreBinding : public Napi::ObjectWrap<CommitStoreBinding> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  /// Closes every commit store still open in an environment that is shutting down.
  static void CloseAll(OpenStores& open_stores);

  /// Constructed only by NativeCommitStore.open, with the opened store as an External.
  explicit CommitStoreBinding(const Napi::CallbackInfo& info);
  ~CommitStoreBinding() override;

 private:
  static Napi::Value Open(const Napi::CallbackInfo& info);
  static Napi::Value DumpIavl(const Napi::CallbackInfo& info);
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
  /// range(store, start, end, ascending, limit): [key0, value0, key1, value1, ...].
  Napi::Value Range(const Napi::CallbackInfo& info);
  Napi::Value Rollback(const Napi::CallbackInfo& info);
  Napi::Value SnapshotVersions(const Napi::CallbackInfo& info);
  Napi::Value WaitForSnapshot(const Napi::CallbackInfo& info);
  Napi::Value SnapshotStats(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);

  sc::CommitStore& store(Napi::Env env);

  std::shared_ptr<sc::CommitStore> store_;
  std::shared_ptr<OpenStores> open_stores_;
  bool closing_ = false;
};

}  // namespace strata::binding
