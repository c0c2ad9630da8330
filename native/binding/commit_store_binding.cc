#include "commit_store_binding.h"

#include <string>
#include <vector>

#include "convert.h"
#include "memory_budget_binding.h"
#include "packed_reads.h"
#include "strata/dump_iavl.h"
#include "strata/repair_snapshots.h"
#include "strata/state_snapshot.h"

namespace strata::binding {

namespace {

sc::CommitStoreOptions ToCommitOptions(const Napi::Value& value) {
  sc::CommitStoreOptions options;
  const OptionFields fields(value, "commit store options");
  if (auto v = fields.Integer("snapshotInterval", 0)) options.memiavl.snapshot_interval = options.flatkv.snapshot_interval = *v;
  if (auto v = fields.Integer("keepRecent", 0)) options.memiavl.keep_recent = options.flatkv.keep_recent = static_cast<int>(*v);
  if (auto v = fields.Integer("initialVersion", 0)) options.memiavl.initial_version = *v;
  if (auto v = fields.Integer("hashThreads", 1)) options.memiavl.hash_threads = options.flatkv.hash_threads = static_cast<int>(*v);
  if (auto v = fields.Integer("blockCacheBytes", 1 << 20)) options.flatkv.block_cache_bytes = static_cast<uint64_t>(*v);
  if (auto budget = fields.Defined("memoryBudget")) options.flatkv.memory_budget = MemoryBudgetBinding::From(*budget);
  if (auto v = fields.Integer("snapshotWriteRateMbps", 0)) options.memiavl.snapshot_write_rate_mbps = *v;
  fields.Flag("asyncSnapshot", &options.memiavl.async_snapshot);
  fields.Flag("flatkv", &options.flatkv_enabled);
  fields.Flag("cutDamagedChangelog", &options.memiavl.cut_damaged_changelog);
  fields.Flag("createIfMissing", &options.memiavl.create_if_missing);
  options.flatkv.create_if_missing = options.memiavl.create_if_missing;
  return options;
}

Napi::Object ToJs(Napi::Env env, const sc::CommitResult& result) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("version", Napi::Number::New(env, static_cast<double>(result.version)));
  out.Set("appHash", ToBuffer(env, result.app_hash));
  Napi::Array infos = Napi::Array::New(env, result.infos.size());
  for (size_t i = 0; i < result.infos.size(); ++i) {
    Napi::Object info = Napi::Object::New(env);
    info.Set("name", result.infos[i].name);
    info.Set("version", Napi::Number::New(env, static_cast<double>(result.infos[i].version)));
    info.Set("hash", ToBuffer(env, result.infos[i].hash));
    infos.Set(static_cast<uint32_t>(i), info);
  }
  out.Set("storeInfos", infos);
  return out;
}

int64_t ToTargetVersion(const Napi::Value& value, const char* what) {
  const uint64_t v = ToVersion(value, what);
  if (v > static_cast<uint64_t>(INT64_MAX)) ThrowInvalid(value.Env(), std::string(what) + " is too large");
  return static_cast<int64_t>(v);
}

}  // namespace

void CommitStoreBinding::Init(Napi::Env env, Napi::Object exports) {
  Define(env, exports,
         {
             StaticMethod<&CommitStoreBinding::Open>("open"),
             StaticMethod<&CommitStoreBinding::DumpIavl>("dumpIavl"),
             StaticMethod<&CommitStoreBinding::RepairSnapshots>("repairSnapshots"),
             StaticMethod<&CommitStoreBinding::ImportSnapshot>("importSnapshot"),
             InstanceMethod<&CommitStoreBinding::ExportSnapshot>("exportSnapshot"),
             InstanceMethod<&CommitStoreBinding::Apply>("apply"),
             InstanceMethod<&CommitStoreBinding::Working>("working"),
             InstanceMethod<&CommitStoreBinding::Commit>("commit"),
             InstanceMethod<&CommitStoreBinding::Last>("last"),
             InstanceMethod<&CommitStoreBinding::Get>("get"),
             InstanceMethod<&CommitStoreBinding::GetMany>("getMany"),
             InstanceMethod<&CommitStoreBinding::Range>("range"),
             InstanceMethod<&CommitStoreBinding::Rollback>("rollback"),
             InstanceMethod<&CommitStoreBinding::SnapshotVersions>("snapshotVersions"),
             InstanceMethod<&CommitStoreBinding::WaitForSnapshot>("waitForSnapshot"),
             InstanceMethod<&CommitStoreBinding::SnapshotStats>("snapshotStats"),
             InstanceMethod<&CommitStoreBinding::TreeMemory>("treeMemory"),
         });
}

Napi::Value CommitStoreBinding::Open(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string memiavl_dir = ToUtf8(info[0], "memiavl directory");
  const std::string flatkv_dir = ToUtf8(info[1], "FlatKV directory");
  if (memiavl_dir.empty()) ThrowInvalid(env, "memiavl directory is empty; pass <home>/data/committer.db");
  const sc::CommitStoreOptions options = Translate(env, [&] { return ToCommitOptions(info[2]); });
  if (options.flatkv_enabled && flatkv_dir.empty()) ThrowInvalid(env, "FlatKV directory is empty; pass <home>/data/flatkv");
  return OpenAsync(env, [memiavl_dir, flatkv_dir, options] {
    return sc::CommitStore::Open(memiavl_dir, flatkv_dir, options);
  });
}

Napi::Value CommitStoreBinding::DumpIavl(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string dir = ToUtf8(info[0], "memiavl directory");
  const std::string out_dir = ToUtf8(info[1], "output directory");
  const int64_t height = ToTargetVersion(info[2], "height");
  std::vector<std::string> modules;
  if (info[3].IsArray()) {
    Napi::Array names = info[3].As<Napi::Array>();
    for (uint32_t i = 0; i < names.Length(); ++i) modules.push_back(ToUtf8(names.Get(i), "module"));
  }
  auto dumped = std::make_shared<std::vector<sc::DumpedTree>>();
  return PromiseWorker::Queue(
      env, Napi::Object::New(env), [dir, out_dir, height, modules, dumped] { *dumped = sc::DumpIavl(dir, out_dir, height, modules); },
      [dumped](Napi::Env env) -> Napi::Value {
        Napi::Array out = Napi::Array::New(env, dumped->size());
        for (size_t i = 0; i < dumped->size(); ++i) {
          const sc::DumpedTree& d = (*dumped)[i];
          Napi::Object o = Napi::Object::New(env);
          o.Set("module", d.module);
          o.Set("exists", d.exists);
          o.Set("version", Napi::Number::New(env, static_cast<double>(d.version)));
          o.Set("rootHash", d.root_hash);
          o.Set("leaves", Napi::Number::New(env, static_cast<double>(d.leaves)));
          o.Set("path", d.path);
          out.Set(static_cast<uint32_t>(i), o);
        }
        return out;
      });
}

Napi::Value CommitStoreBinding::RepairSnapshots(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string dir = ToUtf8(info[0], "memiavl directory");
  if (dir.empty()) ThrowInvalid(env, "memiavl directory is empty; pass <home>/data/committer.db");
  auto repair = std::make_shared<sc::SnapshotRepair>();
  return PromiseWorker::Queue(
      env, Napi::Object::New(env), [dir, repair] { *repair = sc::RepairMemIavlSnapshots(dir); },
      [repair](Napi::Env env) -> Napi::Value {
        Napi::Array removed = Napi::Array::New(env, repair->removed.size());
        for (size_t i = 0; i < repair->removed.size(); ++i) {
          Napi::Object o = Napi::Object::New(env);
          o.Set("version", Napi::Number::New(env, static_cast<double>(repair->removed[i].version)));
          o.Set("path", repair->removed[i].path);
          o.Set("reason", repair->removed[i].reason);
          removed.Set(static_cast<uint32_t>(i), o);
        }
        Napi::Object out = Napi::Object::New(env);
        out.Set("removed", removed);
        out.Set("current", repair->current ? Napi::Number::New(env, static_cast<double>(*repair->current)) : env.Null());
        out.Set("version", Napi::Number::New(env, static_cast<double>(repair->version)));
        return out;
      });
}

namespace {

Napi::Object StatsToJs(Napi::Env env, const sc::StateSnapshotStats& stats) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("version", Napi::Number::New(env, static_cast<double>(stats.version)));
  out.Set("items", Napi::Number::New(env, static_cast<double>(stats.items)));
  out.Set("bytes", Napi::Number::New(env, static_cast<double>(stats.bytes)));
  return out;
}

}  // namespace

Napi::Value CommitStoreBinding::ImportSnapshot(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string memiavl_dir = ToUtf8(info[0], "memiavl directory");
  const std::string flatkv_dir = ToUtf8(info[1], "FlatKV directory");
  const int64_t version = ToTargetVersion(info[2], "snapshot version");
  const std::string path = ToUtf8(info[3], "snapshot path");
  const sc::CommitStoreOptions options = Translate(env, [&] { return ToCommitOptions(info[4]); });
  auto stats = std::make_shared<sc::StateSnapshotStats>();
  return PromiseWorker::Queue(
      env, Napi::Object::New(env),
      [memiavl_dir, flatkv_dir, version, path, options, stats] {
        *stats = sc::ImportStateSnapshot(memiavl_dir, flatkv_dir, version, options, path);
      },
      [stats](Napi::Env env) -> Napi::Value { return StatsToJs(env, *stats); });
}

Napi::Value CommitStoreBinding::ExportSnapshot(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<sc::CommitStore> s = shared_store(env);
  const std::string path = ToUtf8(info[0], "snapshot path");
  auto stats = std::make_shared<sc::StateSnapshotStats>();
  return PromiseWorker::Queue(env, Value(), [s, path, stats] { *stats = sc::ExportStateSnapshot(*s, path); },
                              [stats](Napi::Env env) -> Napi::Value { return StatsToJs(env, *stats); });
}

Napi::Value CommitStoreBinding::Apply(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  sc::CommitStore& s = store(env);
  const std::string_view entry = ToBytes(info[0], "changelog entry");
  Translate(env, [&] { s.ApplyEntry(entry); });
  return env.Undefined();
}

Napi::Value CommitStoreBinding::QueueResult(Napi::Env env, std::function<sc::CommitResult(sc::CommitStore&)> fn) {
  std::shared_ptr<sc::CommitStore> s = shared_store(env);
  auto result = std::make_shared<sc::CommitResult>();
  return PromiseWorker::Queue(env, Value(), [s, fn = std::move(fn), result] { *result = fn(*s); },
                              [result](Napi::Env env) -> Napi::Value { return ToJs(env, *result); });
}

Napi::Value CommitStoreBinding::Working(const Napi::CallbackInfo& info) {
  return QueueResult(info.Env(), [](sc::CommitStore& s) { return s.Working(); });
}

Napi::Value CommitStoreBinding::Commit(const Napi::CallbackInfo& info) {
  return QueueResult(info.Env(), [](sc::CommitStore& s) { return s.Commit(); });
}

Napi::Value CommitStoreBinding::Last(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  sc::CommitStore& s = store(env);
  return ToJs(env, Translate(env, [&] { return s.Last(); }));
}

Napi::Value CommitStoreBinding::Get(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  sc::CommitStore& s = store(env);
  Utf8Arg name(info[0], "store name");
  const std::string_view key = ToBytes(info[1], "key");
  std::optional<std::string> value = Translate(env, [&] { return s.Get(name.view(), key); });
  if (!value) return env.Undefined();
  return ToBuffer(env, *value);
}

Napi::Value CommitStoreBinding::GetMany(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  sc::CommitStore& s = store(env);
  Utf8Arg name(info[0], "store name");
  std::vector<std::string_view> keys = UnpackKeys(env, info[1], info[2]);
  PackingSink sink(SlotsFor(env, info[3], keys.size()), keys.size());
  Translate(env, [&] { s.GetMany(name.view(), keys.data(), keys.size(), sink); });
  return ToBuffer(env, sink.packed());
}

Napi::Value CommitStoreBinding::Range(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  sc::CommitStore& s = store(env);
  Utf8Arg name(info[0], "store name");
  std::optional<std::string_view> start, end;
  if (!info[1].IsUndefined() && !info[1].IsNull()) start = ToBytes(info[1], "start");
  if (!info[2].IsUndefined() && !info[2].IsNull()) end = ToBytes(info[2], "end");
  const bool ascending = info[3].ToBoolean().Value();
  const uint64_t limit = ToVersion(info[4], "limit");
  auto pairs = Translate(env, [&] { return s.Range(name.view(), start, end, ascending, static_cast<size_t>(limit)); });
  Napi::Array out = Napi::Array::New(env, pairs.size() * 2);
  for (size_t i = 0; i < pairs.size(); ++i) {
    out.Set(static_cast<uint32_t>(2 * i), ToBuffer(env, pairs[i].first));
    out.Set(static_cast<uint32_t>(2 * i + 1), ToBuffer(env, pairs[i].second));
  }
  return out;
}

Napi::Value CommitStoreBinding::Rollback(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  store(env);
  const int64_t target = ToTargetVersion(info[0], "rollback target");
  return QueueResult(env, [target](sc::CommitStore& s) { return s.Rollback(target); });
}

Napi::Value CommitStoreBinding::SnapshotVersions(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  sc::CommitStore& s = store(env);
  const std::vector<int64_t> versions = Translate(env, [&] { return s.SnapshotVersions(); });
  Napi::Array out = Napi::Array::New(env, versions.size());
  for (size_t i = 0; i < versions.size(); ++i) out.Set(static_cast<uint32_t>(i), Napi::Number::New(env, static_cast<double>(versions[i])));
  return out;
}

Napi::Value CommitStoreBinding::WaitForSnapshot(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<sc::CommitStore> s = shared_store(env);
  return PromiseWorker::Queue(env, Value(), [s] { s->WaitForSnapshot(); });
}

Napi::Value CommitStoreBinding::SnapshotStats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  sc::CommitStore& s = store(env);
  const auto [bytes, seconds] = Translate(env, [&] { return s.LastSnapshotStats(); });
  Napi::Object out = Napi::Object::New(env);
  out.Set("bytes", Napi::Number::New(env, static_cast<double>(bytes)));
  out.Set("seconds", Napi::Number::New(env, seconds));
  return out;
}

Napi::Value CommitStoreBinding::TreeMemory(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  sc::CommitStore& s = store(env);
  const auto stores = Translate(env, [&] { return s.TreeMemoryBytes(); });
  Napi::Object out = Napi::Object::New(env);
  for (const auto& [name, bytes] : stores) out.Set(name, Napi::Number::New(env, static_cast<double>(bytes)));
  return out;
}

}  // namespace strata::binding
