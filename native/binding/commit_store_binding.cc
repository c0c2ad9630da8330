#include "commit_store_binding.h"

#include <cstdio>
#include <string>
#include <vector>

#include "convert.h"
#include "sc/memiavl/dump_iavl.h"
#include "sc/state_snapshot.h"

namespace strata::binding {

namespace {

sc::CommitStoreOptions ToCommitOptions(const Napi::Value& value) {
  sc::CommitStoreOptions options;
  if (value.IsUndefined() || value.IsNull()) return options;
  if (!value.IsObject()) ThrowInvalid(value.Env(), "commit store options must be an object");
  Napi::Object o = value.As<Napi::Object>();
  Napi::Env env = value.Env();
  auto integer = [&](const char* name, int64_t min) -> std::optional<int64_t> {
    if (!o.Has(name) || o.Get(name).IsUndefined()) return std::nullopt;
    Napi::Value v = o.Get(name);
    const double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1e300;
    if (d < static_cast<double>(min) || d != static_cast<double>(static_cast<int64_t>(d)) || d > 9007199254740991.0) {
      ThrowInvalid(env, std::string(name) + " must be an integer >= " + std::to_string(min));
    }
    return static_cast<int64_t>(d);
  };
  auto flag = [&](const char* name, bool* out) {
    if (!o.Has(name) || o.Get(name).IsUndefined()) return;
    if (!o.Get(name).IsBoolean()) ThrowInvalid(env, std::string(name) + " must be a boolean");
    *out = o.Get(name).As<Napi::Boolean>().Value();
  };
  if (auto v = integer("snapshotInterval", 0)) options.memiavl.snapshot_interval = options.flatkv.snapshot_interval = *v;
  if (auto v = integer("keepRecent", 0)) options.memiavl.keep_recent = options.flatkv.keep_recent = static_cast<int>(*v);
  if (auto v = integer("initialVersion", 0)) options.memiavl.initial_version = *v;
  if (auto v = integer("hashThreads", 1)) options.memiavl.hash_threads = options.flatkv.hash_threads = static_cast<int>(*v);
  if (auto v = integer("blockCacheBytes", 1 << 20)) options.flatkv.block_cache_bytes = static_cast<uint64_t>(*v);
  if (auto v = integer("snapshotWriteRateMbps", 0)) options.memiavl.snapshot_write_rate_mbps = *v;
  flag("asyncSnapshot", &options.memiavl.async_snapshot);
  flag("flatkv", &options.flatkv_enabled);
  flag("createIfMissing", &options.memiavl.create_if_missing);
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
  Napi::Function ctor = DefineClass(env, "NativeCommitStore",
                                    {
                                        StaticMethod<&CommitStoreBinding::Open>("open"),
                                        StaticMethod<&CommitStoreBinding::DumpIavl>("dumpIavl"),
                                        StaticMethod<&CommitStoreBinding::ImportSnapshot>("importSnapshot"),
                                        InstanceMethod<&CommitStoreBinding::ExportSnapshot>("exportSnapshot"),
                                        InstanceMethod<&CommitStoreBinding::Apply>("apply"),
                                        InstanceMethod<&CommitStoreBinding::Working>("working"),
                                        InstanceMethod<&CommitStoreBinding::Commit>("commit"),
                                        InstanceMethod<&CommitStoreBinding::Last>("last"),
                                        InstanceMethod<&CommitStoreBinding::Get>("get"),
                                        InstanceMethod<&CommitStoreBinding::Range>("range"),
                                        InstanceMethod<&CommitStoreBinding::Rollback>("rollback"),
                                        InstanceMethod<&CommitStoreBinding::SnapshotVersions>("snapshotVersions"),
                                        InstanceMethod<&CommitStoreBinding::WaitForSnapshot>("waitForSnapshot"),
                                        InstanceMethod<&CommitStoreBinding::SnapshotStats>("snapshotStats"),
                                        InstanceMethod<&CommitStoreBinding::Close>("close"),
                                    });
  GetAddonData(env).commit_store_constructor = Napi::Persistent(ctor);
  exports.Set("NativeCommitStore", ctor);
}

void CommitStoreBinding::CloseAll(OpenStores& open_stores) {
  for (CommitStoreBinding* binding : open_stores.commit_stores) {
    binding->closing_ = true;
    try {
      binding->store_->Close();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "StrataDB: closing the commit store at exit failed: %s\n", e.what());
    }
  }
  open_stores.commit_stores.clear();
}

CommitStoreBinding::CommitStoreBinding(const Napi::CallbackInfo& info) : Napi::ObjectWrap<CommitStoreBinding>(info) {
  if (info.Length() != 1 || !info[0].IsExternal()) {
    throw Napi::TypeError::New(info.Env(), "NativeCommitStore is created by NativeCommitStore.open(memiavlDir, flatkvDir, options)");
  }
  store_.reset(info[0].As<Napi::External<sc::CommitStore>>().Data());
  open_stores_ = GetAddonData(info.Env()).open_stores;
  open_stores_->commit_stores.insert(this);
}

CommitStoreBinding::~CommitStoreBinding() {
  if (open_stores_) open_stores_->commit_stores.erase(this);
}

sc::CommitStore& CommitStoreBinding::store(Napi::Env env) {
  if (closing_) throw MakeError(env, ErrorCode::kClosed, "the commit store is closed; open it again before using it");
  return *store_;
}

Napi::Value CommitStoreBinding::Open(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string memiavl_dir = ToUtf8(info[0], "memiavl directory");
  const std::string flatkv_dir = ToUtf8(info[1], "FlatKV directory");
  if (memiavl_dir.empty()) ThrowInvalid(env, "memiavl directory is empty; pass <home>/data/committer.db");
  const sc::CommitStoreOptions options = Translate(env, [&] { return ToCommitOptions(info[2]); });
  if (options.flatkv_enabled && flatkv_dir.empty()) ThrowInvalid(env, "FlatKV directory is empty; pass <home>/data/flatkv");
  auto opened = std::make_shared<std::unique_ptr<sc::CommitStore>>();
  return PromiseWorker::Queue(
      env, Napi::Object::New(env), [memiavl_dir, flatkv_dir, options, opened] {
        *opened = sc::CommitStore::Open(memiavl_dir, flatkv_dir, options);
      },
      [opened](Napi::Env env) -> Napi::Value {
        auto external = Napi::External<sc::CommitStore>::New(env, opened->get());
        Napi::Object object = GetAddonData(env).commit_store_constructor.New({external});
        opened->release();  // now owned by the JS object
        return object;
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
  std::shared_ptr<sc::CommitStore> s = store_;
  store(env);
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

Napi::Value CommitStoreBinding::Working(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<sc::CommitStore> s = store_;
  store(env);
  auto result = std::make_shared<sc::CommitResult>();
  return PromiseWorker::Queue(env, Value(), [s, result] { *result = s->Working(); },
                              [result](Napi::Env env) -> Napi::Value { return ToJs(env, *result); });
}

Napi::Value CommitStoreBinding::Commit(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<sc::CommitStore> s = store_;
  store(env);
  auto result = std::make_shared<sc::CommitResult>();
  return PromiseWorker::Queue(env, Value(), [s, result] { *result = s->Commit(); },
                              [result](Napi::Env env) -> Napi::Value { return ToJs(env, *result); });
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
  std::shared_ptr<sc::CommitStore> s = store_;
  store(env);
  const int64_t target = ToTargetVersion(info[0], "rollback target");
  auto result = std::make_shared<sc::CommitResult>();
  return PromiseWorker::Queue(env, Value(), [s, target, result] { *result = s->Rollback(target); },
                              [result](Napi::Env env) -> Napi::Value { return ToJs(env, *result); });
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
  std::shared_ptr<sc::CommitStore> s = store_;
  store(env);
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

Napi::Value CommitStoreBinding::Close(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::shared_ptr<sc::CommitStore> s = store_;
  if (closing_) return PromiseWorker::Queue(env, Value(), [] {});
  closing_ = true;
  open_stores_->commit_stores.erase(this);
  return PromiseWorker::Queue(env, Value(), [s] { s->Close(); });
}

}  // namespace strata::binding
