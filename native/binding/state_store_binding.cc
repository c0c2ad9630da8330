#include "state_store_binding.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "convert.h"
#include "memory_budget_binding.h"
#include "strata/evm_state_store.h"
#include "strata/mvcc_store.h"
#include "strata/state_snapshot.h"
#include "mvcc_iterator_binding.h"
#include "packed_reads.h"

namespace strata::binding {

namespace {

StoreOptions ToStoreOptions(const Napi::Value& value) {
  StoreOptions options;
  const OptionFields fields(value, "store options");
  if (auto v = fields.Field("backend")) options.layout = ParseLayout(ToUtf8(*v, "backend"));
  if (auto v = fields.Integer("asyncWriteBuffer", INT32_MIN)) {
    options.async_write_buffer = static_cast<int>(std::max<int64_t>(*v, INT32_MIN));
  }
  if (auto v = fields.Integer("changelogKeepEntries", 0)) options.changelog_keep_entries = static_cast<uint64_t>(*v);
  if (auto v = fields.Integer("blockCacheBytes", 1 << 20)) options.block_cache_bytes = static_cast<uint64_t>(*v);
  if (auto budget = fields.Defined("memoryBudget")) options.memory_budget = MemoryBudgetBinding::From(*budget);
  if (auto v = fields.Defined("logOnlyStores")) {
    if (!v->IsArray()) ThrowInvalid(value.Env(), "logOnlyStores must be an array of store names");
    Napi::Array names = v->As<Napi::Array>();
    for (uint32_t i = 0; i < names.Length(); ++i) options.log_only_stores.push_back(ToUtf8(names.Get(i), "logOnlyStores entry"));
  }
  fields.Flag("statistics", &options.statistics);
  fields.Flag("createIfMissing", &options.create_if_missing);
  fields.Flag("readOnly", &options.read_only);
  fields.Flag("deferRecovery", &options.defer_recovery);
  return options;
}

std::optional<std::string_view> OptionalBytes(const Napi::Value& value, const char* what) {
  if (value.IsUndefined() || value.IsNull()) return std::nullopt;
  return ToBytes(value, what);
}

}  // namespace

void StateStoreBinding::Init(Napi::Env env, Napi::Object exports) {
  Define(env, exports,
         {
             StaticMethod<&StateStoreBinding::Open>("open"),
             InstanceMethod<&StateStoreBinding::Get>("get"),
             InstanceMethod<&StateStoreBinding::SetScratch>("setScratch"),
             InstanceMethod<&StateStoreBinding::Has>("has"),
             InstanceMethod<&StateStoreBinding::GetMany>("getMany"),
             InstanceMethod<&StateStoreBinding::Apply>("apply"),
             InstanceMethod<&StateStoreBinding::ApplyBlock>("applyBlock"),
             InstanceMethod<&StateStoreBinding::Drain>("drain"),
             InstanceMethod<&StateStoreBinding::Recover>("recover"),
             InstanceMethod<&StateStoreBinding::CatchUpFrom>("catchUpFrom"),
             InstanceMethod<&StateStoreBinding::LatestVersion>("latestVersion"),
             InstanceMethod<&StateStoreBinding::EarliestVersion>("earliestVersion"),
             InstanceMethod<&StateStoreBinding::SetLatestVersion>("setLatestVersion"),
             InstanceMethod<&StateStoreBinding::SetEarliestVersion>("setEarliestVersion"),
             InstanceMethod<&StateStoreBinding::Prune>("prune"),
             InstanceMethod<&StateStoreBinding::Rollback>("rollback"),
             InstanceMethod<&StateStoreBinding::Import>("import"),
             InstanceMethod<&StateStoreBinding::ImportSnapshotLeaves>("importSnapshotLeaves"),
             InstanceMethod<&StateStoreBinding::Compact>("compact"),
             InstanceMethod<&StateStoreBinding::Stats>("stats"),
             InstanceMethod<&StateStoreBinding::WaitForCompactions>("waitForCompactions"),
             InstanceMethod<&StateStoreBinding::FirstLoggedVersion>("firstLoggedVersion"),
             InstanceMethod<&StateStoreBinding::Iterator>("iterator"),
             InstanceMethod<&StateStoreBinding::RawIterator>("rawIterator"),
         });
}

MvccStore& StateStoreBinding::mvcc(Napi::Env env, const char* what) {
  auto* s = dynamic_cast<MvccStore*>(&store(env));
  if (s == nullptr) throw MakeError(env, ErrorCode::kNotSupported, what);
  return *s;
}

Napi::Value StateStoreBinding::Open(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string kind = ToUtf8(info[0], "store kind");
  if (kind != "mvcc" && kind != "evm") ThrowInvalid(env, "store kind must be \"mvcc\" or \"evm\"");
  std::string dir = ToUtf8(info[1], "store directory");
  if (dir.empty()) ThrowInvalid(env, "store directory is empty; pass the state store's directory, e.g. <home>/data/pebbledb");
  StoreOptions options = Translate(env, [&] { return ToStoreOptions(info[2]); });
  bool separate_dbs = info[2].IsObject() && info[2].As<Napi::Object>().Get("separateDbs").ToBoolean().Value();
  return OpenAsync(env, [kind, dir, options, separate_dbs]() -> std::unique_ptr<VersionedStore> {
    if (kind == "evm") return EvmStateStore::Open(dir, EvmStoreOptions{options, separate_dbs});
    return MvccStore::Open(dir, options);
  });
}

namespace {

// Copies the value found for a single key into the caller's scratch buffer and reports its
// length; a value too large for the scratch becomes a Buffer of its own. Making the result
// Buffer in JavaScript from the scratch is several times cheaper than napi_create_buffer_copy.
class ScratchSink final : public ValueSink {
 public:
  ScratchSink(Napi::Env env, char* scratch, size_t capacity)
      : env_(env), scratch_(scratch), capacity_(capacity), result_(Napi::Number::New(env, -1)) {}
  void Found(size_t, std::string_view value) override {
    if (value.size() <= capacity_) {
      std::memcpy(scratch_, value.data(), value.size());
      result_ = Napi::Number::New(env_, static_cast<double>(value.size()));
    } else {
      result_ = ToBuffer(env_, value);
    }
  }
  Napi::Value result() const { return result_; }

 private:
  Napi::Env env_;
  char* scratch_;
  size_t capacity_;
  Napi::Value result_;
};

// Counts the keys found.
class CountingSink final : public ValueSink {
 public:
  void Found(size_t, std::string_view) override { ++found_; }
  size_t found() const { return found_; }

 private:
  size_t found_ = 0;
};

}  // namespace

void StateStoreBinding::ReadKey(const Napi::CallbackInfo& info, ValueSink& sink, bool into_scratch) {
  Napi::Env env = info.Env();
  VersionedStore& s = store(env);
  Utf8Arg name(info[0], "store name");
  uint64_t version = ToVersion(info[1], "version");
  std::string_view key = ToBytes(info[2], "key");
  if (into_scratch && scratch_ == nullptr) ThrowInvalid(env, "call setScratch(buffer) before get");
  Translate(env, [&] { s.Read(name.view(), version, &key, 1, sink); });
}

Napi::Value StateStoreBinding::Get(const Napi::CallbackInfo& info) {
  ScratchSink sink(info.Env(), scratch_, scratch_capacity_);
  ReadKey(info, sink, true);
  return sink.result();
}

Napi::Value StateStoreBinding::SetScratch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string_view bytes = ToBytes(info[0], "scratch buffer");
  scratch_ref_ = Napi::Persistent(info[0].As<Napi::Object>());  // keeps the memory alive
  scratch_ = const_cast<char*>(bytes.data());
  scratch_capacity_ = bytes.size();
  return env.Undefined();
}

Napi::Value StateStoreBinding::Has(const Napi::CallbackInfo& info) {
  CountingSink sink;
  ReadKey(info, sink, false);
  return Napi::Boolean::New(info.Env(), sink.found() > 0);
}

Napi::Value StateStoreBinding::GetMany(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  VersionedStore& s = store(env);
  Utf8Arg name(info[0], "store name");
  uint64_t version = ToVersion(info[1], "version");
  // Keys arrive packed in one buffer with their lengths: one Node-API call for all of them
  // instead of two per key.
  std::vector<std::string_view> keys = UnpackKeys(env, info[2], info[3]);
  PackingSink sink(SlotsFor(env, info[4], keys.size()), keys.size());
  Translate(env, [&] { s.Read(name.view(), version, keys.data(), keys.size(), sink); });
  return ToBuffer(env, sink.packed());
}

Napi::Value StateStoreBinding::Apply(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  VersionedStore& s = store(env);
  std::string entry(ToBytes(info[0], "changelog entry"));
  return CrossThreadPromise::Run(env, "strata.apply", [&](WriteCallback settle) {
    s.ApplyEncodedAsync(std::move(entry), std::move(settle));
  });
}

Napi::Value StateStoreBinding::ApplyBlock(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto* evm = dynamic_cast<EvmStateStore*>(&store(env));
  if (evm == nullptr) ThrowInvalid(env, "applyBlock is a method of the EVM SS");
  std::string_view entry = ToBytes(info[0], "block entry");
  return CrossThreadPromise::Run(env, "strata.apply", [&](WriteCallback settle) {
    evm->ApplyBlockAsync(entry, std::move(settle));
  });
}

Napi::Value StateStoreBinding::Drain(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  VersionedStore& s = store(env);
  return CrossThreadPromise::Run(env, "strata.drain", [&](WriteCallback settle) { s.Drain(std::move(settle)); });
}

Napi::Value StateStoreBinding::Recover(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  VersionedStore* s = &store(env);
  return PromiseWorker::Queue(env, Value(), [s] { s->Recover(); });
}

Napi::Value StateStoreBinding::CatchUpFrom(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  auto* evm = dynamic_cast<EvmStateStore*>(&store(env));
  if (evm == nullptr) ThrowInvalid(env, "catchUpFrom is a method of the EVM SS");
  if (!info[0].IsObject()) ThrowInvalid(env, "catchUpFrom needs the Cosmos SS store object");
  StateStoreBinding* other = StateStoreBinding::Unwrap(info[0].As<Napi::Object>());
  auto* cosmos = dynamic_cast<MvccStore*>(&other->store(env));
  if (cosmos == nullptr) ThrowInvalid(env, "catchUpFrom needs the Cosmos SS (an MVCC store)");
  Napi::Object keep = Napi::Object::New(env);
  keep.Set("self", Value());
  keep.Set("cosmos", info[0]);
  return PromiseWorker::Queue(env, keep, [evm, cosmos] { evm->CatchUpFrom(*cosmos); });
}

Napi::Value StateStoreBinding::GetVersion(const Napi::CallbackInfo& info, uint64_t (VersionedStore::*get)() const) {
  Napi::Env env = info.Env();
  VersionedStore& s = store(env);
  return FromVersion(env, Translate(env, [&] { return (s.*get)(); }));
}

Napi::Value StateStoreBinding::SetVersion(const Napi::CallbackInfo& info, void (VersionedStore::*set)(uint64_t)) {
  Napi::Env env = info.Env();
  VersionedStore& s = store(env);
  uint64_t version = ToVersion(info[0], "version");
  Translate(env, [&] { (s.*set)(version); });
  return env.Undefined();
}

Napi::Value StateStoreBinding::LatestVersion(const Napi::CallbackInfo& info) {
  return GetVersion(info, &VersionedStore::LatestVersion);
}

Napi::Value StateStoreBinding::EarliestVersion(const Napi::CallbackInfo& info) {
  return GetVersion(info, &VersionedStore::EarliestVersion);
}

Napi::Value StateStoreBinding::SetLatestVersion(const Napi::CallbackInfo& info) {
  return SetVersion(info, &VersionedStore::SetLatestVersion);
}

Napi::Value StateStoreBinding::SetEarliestVersion(const Napi::CallbackInfo& info) {
  return SetVersion(info, &VersionedStore::SetEarliestVersion);
}

Napi::Value StateStoreBinding::Prune(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  VersionedStore* s = &store(env);
  uint64_t version = ToVersion(info[0], "prune version");
  auto result = std::make_shared<PruneResult>();
  return PromiseWorker::Queue(env, Value(), [s, version, result] { *result = s->Prune(version); },
      [result](Napi::Env env) -> Napi::Value {
        Napi::Object out = Napi::Object::New(env);
        out.Set("versionsDeleted", Napi::Number::New(env, static_cast<double>(result->versions_deleted)));
        return out;
      });
}

Napi::Value StateStoreBinding::Rollback(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  VersionedStore* s = &store(env);
  uint64_t version = ToVersion(info[0], "rollback version");
  return PromiseWorker::Queue(env, Value(), [s, version] { s->RollbackTo(version); });
}

Napi::Value StateStoreBinding::Import(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  VersionedStore* s = &store(env);
  uint64_t version = ToVersion(info[0], "import version");
  if (!info[1].IsArray()) ThrowInvalid(env, "import items must be an array of {store, key, value}");
  Napi::Array array = info[1].As<Napi::Array>();
  auto items = std::make_shared<std::vector<ImportItem>>(array.Length());
  for (uint32_t i = 0; i < array.Length(); ++i) {
    Napi::Value v = array.Get(i);
    if (!v.IsObject()) ThrowInvalid(env, "each import item must be an object {store, key, value}");
    Napi::Object o = v.As<Napi::Object>();
    ImportItem& item = (*items)[i];
    item.store = ToUtf8(o.Get("store"), "import item store");
    item.key = std::string(ToBytes(o.Get("key"), "import item key"));
    item.value = std::string(ToBytes(o.Get("value"), "import item value"));
  }
  return PromiseWorker::Queue(env, Value(), [s, version, items] { s->Import(version, *items); });
}

Napi::Value StateStoreBinding::ImportSnapshotLeaves(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  VersionedStore* cosmos = &store(env);
  uint64_t version = ToVersion(info[0], "import version");
  std::string path = ToUtf8(info[1], "snapshot stream path");
  VersionedStore* evm = nullptr;
  Napi::Object keep = Napi::Object::New(env);
  keep.Set("self", Value());
  if (!info[2].IsUndefined() && !info[2].IsNull()) {
    if (!info[2].IsObject()) ThrowInvalid(env, "importSnapshotLeaves takes the EVM SS store object, or nothing without the split");
    evm = &StateStoreBinding::Unwrap(info[2].As<Napi::Object>())->store(env);
    keep.Set("evm", info[2]);
  }
  auto written = std::make_shared<uint64_t>(0);
  return PromiseWorker::Queue(env, keep, [cosmos, evm, version, path, written] { *written = sc::ImportSnapshotLeaves(path, version, *cosmos, evm); },
      [written](Napi::Env env) -> Napi::Value { return Napi::Number::New(env, static_cast<double>(*written)); });
}

Napi::Value StateStoreBinding::Compact(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MvccStore* s = &mvcc(env, "manual compaction is offered by MVCC stores only");
  return PromiseWorker::Queue(env, Value(), [s] { s->Compact(); });
}

Napi::Value StateStoreBinding::WaitForCompactions(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MvccStore* s = &mvcc(env, "waitForCompactions is offered by MVCC stores only");
  return PromiseWorker::Queue(env, Value(), [s] { s->WaitForCompactions(); });
}

Napi::Value StateStoreBinding::FirstLoggedVersion(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MvccStore& s = mvcc(env, "firstLoggedVersion is offered by MVCC stores only");
  std::optional<uint64_t> version = Translate(env, [&] { return s.FirstLoggedVersion(); });
  return version ? FromVersion(env, *version) : env.Undefined();
}

Napi::Value StateStoreBinding::Stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  VersionedStore& s = store(env);
  StoreStats st = Translate(env, [&] { return s.Stats(); });
  Napi::Object out = Napi::Object::New(env);
  auto set = [&](const char* name, uint64_t v) { out.Set(name, Napi::Number::New(env, static_cast<double>(v))); };
  set("logicalBytesWritten", st.logical_bytes_written);
  set("flushBytesWritten", st.flush_bytes_written);
  set("compactionBytesWritten", st.compaction_bytes_written);
  set("compactionKeysDropped", st.compaction_keys_dropped);
  set("pendingWrites", st.pending_writes);
  set("changelogFirstIndex", st.changelog_first_index);
  set("changelogLastIndex", st.changelog_last_index);
  return out;
}

Napi::Value StateStoreBinding::Iterator(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  VersionedStore& s = store(env);
  Utf8Arg name(info[0], "store name");
  uint64_t version = ToVersion(info[1], "version");
  std::optional<std::string_view> start = OptionalBytes(info[2], "iterator start");
  std::optional<std::string_view> end = OptionalBytes(info[3], "iterator end");
  bool reverse = info[4].ToBoolean().Value();
  auto it = Translate(env, [&] { return s.NewIterator(name.view(), version, start, end, reverse); });
  return MvccIteratorBinding::Wrap(env, Value(), this, std::move(it));
}

Napi::Value StateStoreBinding::RawIterator(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MvccStore& s = mvcc(env, "raw iteration is not supported by the EVM SS; dump the Cosmos SS");
  auto it = Translate(env, [&] { return s.NewRawIterator(); });
  return MvccIteratorBinding::Wrap(env, Value(), this, std::move(it));
}

}  // namespace strata::binding
