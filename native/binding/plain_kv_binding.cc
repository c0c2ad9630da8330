#include "plain_kv_binding.h"

#include <cstdio>
#include <string>
#include <vector>

#include "convert.h"

namespace strata::binding {

namespace {

constexpr uint32_t kMaxRangeLimit = 1 << 20;

PlainKvOptions ToPlainKvOptions(const Napi::Value& value) {
  PlainKvOptions options;
  if (value.IsUndefined() || value.IsNull()) return options;
  Napi::Env env = value.Env();
  if (!value.IsObject()) ThrowInvalid(env, "plain KV options must be an object");
  Napi::Object o = value.As<Napi::Object>();
  auto flag = [&](const char* name, bool* out) {
    Napi::Value v = o.Get(name);
    if (v.IsUndefined()) return;
    if (!v.IsBoolean()) ThrowInvalid(env, std::string(name) + " must be a boolean");
    *out = v.As<Napi::Boolean>().Value();
  };
  flag("createIfMissing", &options.create_if_missing);
  flag("readOnly", &options.read_only);
  Napi::Value cache = o.Get("blockCacheBytes");
  if (!cache.IsUndefined()) options.block_cache_bytes = ToVersion(cache, "blockCacheBytes");
  return options;
}

// An optional range bound: null or undefined is open.
std::string ToBound(const Napi::Value& value, const char* what) {
  if (value.IsNull() || value.IsUndefined()) return {};
  return std::string(ToBytes(value, what));
}

}  // namespace

void PlainKvBinding::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, "NativePlainKv",
                                    {
                                        StaticMethod<&PlainKvBinding::Open>("open"),
                                        InstanceMethod<&PlainKvBinding::Get>("get"),
                                        InstanceMethod<&PlainKvBinding::GetMany>("getMany"),
                                        InstanceMethod<&PlainKvBinding::Write>("write"),
                                        InstanceMethod<&PlainKvBinding::Range>("range"),
                                        InstanceMethod<&PlainKvBinding::Close>("close"),
                                    });
  GetAddonData(env).plain_kv_constructor = Napi::Persistent(ctor);
  exports.Set("NativePlainKv", ctor);
}

void PlainKvBinding::CloseAll(OpenStores& open_stores) {
  for (PlainKvBinding* binding : open_stores.plain_kvs) {
    binding->closing_ = true;
    try {
      binding->store_->Close();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "StrataDB: closing the plain KV store at exit failed: %s\n", e.what());
    }
  }
  open_stores.plain_kvs.clear();
}

PlainKvBinding::PlainKvBinding(const Napi::CallbackInfo& info) : Napi::ObjectWrap<PlainKvBinding>(info) {
  if (info.Length() != 1 || !info[0].IsExternal()) {
    throw Napi::TypeError::New(info.Env(), "NativePlainKv is created by NativePlainKv.open(dir, options)");
  }
  store_.reset(info[0].As<Napi::External<PlainKv>>().Data());
  open_stores_ = GetAddonData(info.Env()).open_stores;
  open_stores_->plain_kvs.insert(this);
}

PlainKvBinding::~PlainKvBinding() {
  if (open_stores_) open_stores_->plain_kvs.erase(this);
}

PlainKv& PlainKvBinding::store(Napi::Env env) {
  if (closing_) throw MakeError(env, ErrorCode::kClosed, "the plain KV store is closed; open it again before using it");
  return *store_;
}

Napi::Value PlainKvBinding::Open(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string dir = ToUtf8(info[0], "plain KV directory");
  if (dir.empty()) ThrowInvalid(env, "plain KV directory is empty; pass <home>/data/blockstore");
  const PlainKvOptions options = Translate(env, [&] { return ToPlainKvOptions(info[1]); });
  auto opened = std::make_shared<std::unique_ptr<PlainKv>>();
  return PromiseWorker::Queue(
      env, Napi::Object::New(env), [dir, options, opened] { *opened = PlainKv::Open(dir, options); },
      [opened](Napi::Env env) -> Napi::Value {
        auto external = Napi::External<PlainKv>::New(env, opened->get());
        Napi::Object object = GetAddonData(env).plain_kv_constructor.New({external});
        opened->release();  // now owned by the JS object
        return object;
      });
}

Napi::Value PlainKvBinding::Get(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string_view key = ToBytes(info[0], "key");
  PlainKv& kv = store(env);
  std::optional<std::string> value = Translate(env, [&] { return kv.Get(key); });
  if (!value) return env.Undefined();
  return ToBuffer(env, *value);
}

Napi::Value PlainKvBinding::GetMany(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsArray()) ThrowInvalid(env, "getMany takes an array of keys");
  Napi::Array keys_in = info[0].As<Napi::Array>();
  std::vector<std::string> keys;
  keys.reserve(keys_in.Length());
  for (uint32_t i = 0; i < keys_in.Length(); ++i) keys.emplace_back(ToBytes(keys_in.Get(i), "key"));
  PlainKv& kv = store(env);
  std::vector<std::optional<std::string>> values = Translate(env, [&] { return kv.MultiGet(keys); });
  Napi::Array out = Napi::Array::New(env, values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    out.Set(static_cast<uint32_t>(i), values[i] ? Napi::Value(ToBuffer(env, *values[i])) : env.Undefined());
  }
  return out;
}

Napi::Value PlainKvBinding::Write(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsArray() || !info[1].IsArray()) ThrowInvalid(env, "write takes an array of keys and an array of values");
  Napi::Array keys = info[0].As<Napi::Array>();
  Napi::Array values = info[1].As<Napi::Array>();
  if (keys.Length() != values.Length()) ThrowInvalid(env, "write needs one value (or null to delete) per key");
  const bool sync = info[2].IsBoolean() && info[2].As<Napi::Boolean>().Value();
  // Copied here: the JS buffers may change once this call returns, before the worker runs.
  auto ops = std::make_shared<std::vector<PlainKvOp>>(keys.Length());
  for (uint32_t i = 0; i < keys.Length(); ++i) {
    (*ops)[i].key = std::string(ToBytes(keys.Get(i), "key"));
    Napi::Value value = values.Get(i);
    if (!value.IsNull() && !value.IsUndefined()) (*ops)[i].value = std::string(ToBytes(value, "value"));
  }
  std::shared_ptr<PlainKv> kv = store_;
  store(env);  // throws when closed
  return PromiseWorker::Queue(env, Value(), [kv, ops, sync] { kv->Write(*ops, sync); });
}

Napi::Value PlainKvBinding::Range(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  PlainKvRange range;
  range.start = ToBound(info[0], "range start");
  range.end = ToBound(info[1], "range end");
  range.reverse = info[2].IsBoolean() && info[2].As<Napi::Boolean>().Value();
  const uint32_t limit = info[3].IsNumber() ? info[3].As<Napi::Number>().Uint32Value() : kMaxRangeLimit;
  if (limit == 0 || limit > kMaxRangeLimit) ThrowInvalid(env, "range limit must be between 1 and 1048576");
  PlainKv& kv = store(env);
  Napi::Array out = Napi::Array::New(env);
  Translate(env, [&] {
    std::unique_ptr<PlainKvIterator> it = kv.Iterate(range);
    uint32_t n = 0;
    for (uint32_t i = 0; i < limit && it->Valid(); ++i, it->Next()) {
      out.Set(n++, ToBuffer(env, it->key()));
      out.Set(n++, ToBuffer(env, it->value()));
    }
  });
  return out;
}

Napi::Value PlainKvBinding::Close(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (closing_) return PromiseWorker::Queue(env, Value(), [] {});
  closing_ = true;
  if (open_stores_) open_stores_->plain_kvs.erase(this);
  std::shared_ptr<PlainKv> kv = store_;
  return PromiseWorker::Queue(env, Value(), [kv] { kv->Close(); });
}

}  // namespace strata::binding
