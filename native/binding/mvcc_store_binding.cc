#include "mvcc_store_binding.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "convert.h"
#include "mvcc_iterator_binding.h"

namespace strata::binding {

namespace {

StoreOptions ToStoreOptions(const Napi::Value& value) {
  StoreOptions options;
  if (value.IsUndefined() || value.IsNull()) return options;
  if (!value.IsObject()) ThrowInvalid(value.Env(), "store options must be an object");
  Napi::Object o = value.As<Napi::Object>();
  Napi::Env env = value.Env();
  if (o.Has("backend")) options.layout = ParseLayout(ToUtf8(o.Get("backend"), "backend"));
  auto integer = [&](const char* name, int64_t min) -> std::optional<int64_t> {
    if (!o.Has(name) || o.Get(name).IsUndefined()) return std::nullopt;
    Napi::Value v = o.Get(name);
    double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1e300;
    if (d < static_cast<double>(min) || d != static_cast<double>(static_cast<int64_t>(d)) || d > 9007199254740991.0) {
      ThrowInvalid(env, std::string(name) + " must be an integer >= " + std::to_string(min));
    }
    return static_cast<int64_t>(d);
  };
  if (auto v = integer("asyncWriteBuffer", INT32_MIN)) {
    options.async_write_buffer = static_cast<int>(std::max<int64_t>(*v, INT32_MIN));
  }
  if (auto v = integer("changelogKeepEntries", 0)) options.changelog_keep_entries = static_cast<uint64_t>(*v);
  if (auto v = integer("blockCacheBytes", 1 << 20)) options.block_cache_bytes = static_cast<uint64_t>(*v);
  auto flag = [&](const char* name, bool* out) {
    if (!o.Has(name) || o.Get(name).IsUndefined()) return;
    if (!o.Get(name).IsBoolean()) ThrowInvalid(env, std::string(name) + " must be a boolean");
    *out = o.Get(name).As<Napi::Boolean>().Value();
  };
  flag("statistics", &options.statistics);
  flag("createIfMissing", &options.create_if_missing);
  return options;
}

std::optional<std::string_view> OptionalBytes(const Napi::Value& value, const char* what) {
  if (value.IsUndefined() || value.IsNull()) return std::nullopt;
  return ToBytes(value, what);
}

}  // namespace

void MvccStoreBinding::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(
      env, "NativeMvccStore",
      {
          StaticMethod<&MvccStoreBinding::Open>("open"),
          InstanceMethod<&MvccStoreBinding::Get>("get"),
          InstanceMethod<&MvccStoreBinding::SetScratch>("setScratch"),
          InstanceMethod<&MvccStoreBinding::Has>("has"),
          InstanceMethod<&MvccStoreBinding::GetMany>("getMany"),
          InstanceMethod<&MvccStoreBinding::Apply>("apply"),
          InstanceMethod<&MvccStoreBinding::Drain>("drain"),
          InstanceMethod<&MvccStoreBinding::LatestVersion>("latestVersion"),
          InstanceMethod<&MvccStoreBinding::EarliestVersion>("earliestVersion"),
          InstanceMethod<&MvccStoreBinding::SetLatestVersion>("setLatestVersion"),
          InstanceMethod<&MvccStoreBinding::SetEarliestVersion>("setEarliestVersion"),
          InstanceMethod<&MvccStoreBinding::Prune>("prune"),
          InstanceMethod<&MvccStoreBinding::Import>("import"),
          InstanceMethod<&MvccStoreBinding::Compact>("compact"),
          InstanceMethod<&MvccStoreBinding::Stats>("stats"),
          InstanceMethod<&MvccStoreBinding::Iterator>("iterator"),
          InstanceMethod<&MvccStoreBinding::RawIterator>("rawIterator"),
          InstanceMethod<&MvccStoreBinding::Close>("close"),
      });
  GetAddonData(env).store_constructor = Napi::Persistent(ctor);
  exports.Set("NativeMvccStore", ctor);
}

void MvccStoreBinding::CloseAll(OpenStores& open_stores) {
  for (MvccStoreBinding* binding : open_stores.stores) {
    binding->closing_ = true;
    try {
      binding->store_->Close();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "StrataDB: closing state store at exit failed: %s\n", e.what());
    }
  }
  open_stores.stores.clear();
}

MvccStoreBinding::MvccStoreBinding(const Napi::CallbackInfo& info) : Napi::ObjectWrap<MvccStoreBinding>(info) {
  if (info.Length() != 1 || !info[0].IsExternal()) {
    throw Napi::TypeError::New(info.Env(), "NativeMvccStore is created by NativeMvccStore.open(dir, options)");
  }
  store_.reset(info[0].As<Napi::External<MvccStore>>().Data());
  open_stores_ = GetAddonData(info.Env()).open_stores;
  open_stores_->stores.insert(this);
}

MvccStoreBinding::~MvccStoreBinding() {
  if (open_stores_) open_stores_->stores.erase(this);
}

MvccStore& MvccStoreBinding::store(Napi::Env env) {
  if (closing_) {
    throw MakeError(env, ErrorCode::kClosed, "the state store is closed; open it again before using it");
  }
  return *store_;
}

Napi::Value MvccStoreBinding::Open(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string dir = ToUtf8(info[0], "store directory");
  if (dir.empty()) ThrowInvalid(env, "store directory is empty");
  StoreOptions options = Translate(env, [&] { return ToStoreOptions(info[1]); });
  auto opened = std::make_shared<std::unique_ptr<MvccStore>>();
  return PromiseWorker::Queue(
      env, Napi::Object::New(env), [dir, options, opened] { *opened = MvccStore::Open(dir, options); },
      [opened](Napi::Env env) -> Napi::Value {
        auto external = Napi::External<MvccStore>::New(env, opened->get());
        Napi::Object object = GetAddonData(env).store_constructor.New({external});
        opened->release();  // now owned by the JS object
        return object;
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

// Packs the values found into one buffer and records each key's value length (-1 when
// absent): one JS allocation per batch instead of one per key.
class PackingSink final : public ValueSink {
 public:
  PackingSink(int32_t* lengths, size_t count) : lengths_(lengths) { std::fill(lengths_, lengths_ + count, -1); }
  void Found(size_t index, std::string_view value) override {
    lengths_[index] = static_cast<int32_t>(value.size());
    packed_.append(value);
  }
  const std::string& packed() const { return packed_; }

 private:
  int32_t* lengths_;
  std::string packed_;
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

Napi::Value MvccStoreBinding::Get(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MvccStore& s = store(env);
  Utf8Arg name(info[0], "store name");
  uint64_t version = ToVersion(info[1], "version");
  std::string_view key = ToBytes(info[2], "key");
  if (scratch_ == nullptr) ThrowInvalid(env, "call setScratch(buffer) before get");
  ScratchSink sink(env, scratch_, scratch_capacity_);
  Translate(env, [&] { s.Read(name.view(), version, &key, 1, sink); });
  return sink.result();
}

Napi::Value MvccStoreBinding::SetScratch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string_view bytes = ToBytes(info[0], "scratch buffer");
  scratch_ref_ = Napi::Persistent(info[0].As<Napi::Object>());  // keeps the memory alive
  scratch_ = const_cast<char*>(bytes.data());
  scratch_capacity_ = bytes.size();
  return env.Undefined();
}

Napi::Value MvccStoreBinding::Has(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MvccStore& s = store(env);
  Utf8Arg name(info[0], "store name");
  uint64_t version = ToVersion(info[1], "version");
  std::string_view key = ToBytes(info[2], "key");
  CountingSink sink;
  Translate(env, [&] { s.Read(name.view(), version, &key, 1, sink); });
  return Napi::Boolean::New(env, sink.found() > 0);
}

Napi::Value MvccStoreBinding::GetMany(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MvccStore& s = store(env);
  Utf8Arg name(info[0], "store name");
  uint64_t version = ToVersion(info[1], "version");
  if (!info[2].IsArray()) ThrowInvalid(env, "keys must be an array of Uint8Array");
  Napi::Array keys_array = info[2].As<Napi::Array>();
  std::vector<std::string_view> keys(keys_array.Length());
  for (uint32_t i = 0; i < keys.size(); ++i) keys[i] = ToBytes(keys_array.Get(i), "key");
  if (!info[3].IsTypedArray() || info[3].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array ||
      info[3].As<Napi::Int32Array>().ElementLength() < keys.size()) {
    ThrowInvalid(env, "getMany needs an Int32Array with one slot per key for the value lengths");
  }
  PackingSink sink(info[3].As<Napi::Int32Array>().Data(), keys.size());
  Translate(env, [&] { s.Read(name.view(), version, keys.data(), keys.size(), sink); });
  return ToBuffer(env, sink.packed());
}

Napi::Value MvccStoreBinding::Apply(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MvccStore& s = store(env);
  std::string entry(ToBytes(info[0], "changelog entry"));
  auto [promise, settle] = CrossThreadPromise::Create(env, "strata.apply");
  try {
    s.ApplyEncodedAsync(std::move(entry), settle);
  } catch (const Error& e) {
    settle(&e);
  }
  return promise;
}

Napi::Value MvccStoreBinding::Drain(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MvccStore& s = store(env);
  auto [promise, settle] = CrossThreadPromise::Create(env, "strata.drain");
  try {
    s.Drain(settle);
  } catch (const Error& e) {
    settle(&e);
  }
  return promise;
}

Napi::Value MvccStoreBinding::LatestVersion(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MvccStore& s = store(env);
  return FromVersion(env, Translate(env, [&] { return s.LatestVersion(); }));
}

Napi::Value MvccStoreBinding::EarliestVersion(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MvccStore& s = store(env);
  return FromVersion(env, Translate(env, [&] { return s.EarliestVersion(); }));
}

Napi::Value MvccStoreBinding::SetLatestVersion(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MvccStore& s = store(env);
  uint64_t version = ToVersion(info[0], "version");
  Translate(env, [&] { s.SetLatestVersion(version); });
  return env.Undefined();
}

Napi::Value MvccStoreBinding::SetEarliestVersion(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MvccStore& s = store(env);
  uint64_t version = ToVersion(info[0], "version");
  Translate(env, [&] { s.SetEarliestVersion(version); });
  return env.Undefined();
}

Napi::Value MvccStoreBinding::Prune(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MvccStore* s = &store(env);
  uint64_t version = ToVersion(info[0], "prune version");
  auto result = std::make_shared<PruneResult>();
  return PromiseWorker::Queue(
      env, Value(), [s, version, result] { *result = s->Prune(version); },
      [result](Napi::Env env) -> Napi::Value {
        Napi::Object out = Napi::Object::New(env);
        out.Set("versionsDeleted", Napi::Number::New(env, static_cast<double>(result->versions_deleted)));
        return out;
      });
}

Napi::Value MvccStoreBinding::Import(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MvccStore* s = &store(env);
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
  return PromiseWorker::Queue(
      env, Value(), [s, version, items] { s->Import(version, *items); },
      [](Napi::Env env) -> Napi::Value { return env.Undefined(); });
}

Napi::Value MvccStoreBinding::Compact(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MvccStore* s = &store(env);
  return PromiseWorker::Queue(
      env, Value(), [s] { s->Compact(); }, [](Napi::Env env) -> Napi::Value { return env.Undefined(); });
}

Napi::Value MvccStoreBinding::Stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MvccStore& s = store(env);
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

Napi::Value MvccStoreBinding::Iterator(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MvccStore& s = store(env);
  Utf8Arg name(info[0], "store name");
  uint64_t version = ToVersion(info[1], "version");
  std::optional<std::string_view> start = OptionalBytes(info[2], "iterator start");
  std::optional<std::string_view> end = OptionalBytes(info[3], "iterator end");
  bool reverse = info[4].ToBoolean().Value();
  auto it = Translate(env, [&] { return s.NewIterator(name.view(), version, start, end, reverse); });
  return MvccIteratorBinding::Wrap(env, Value(), this, std::move(it));
}

Napi::Value MvccStoreBinding::RawIterator(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MvccStore& s = store(env);
  auto it = Translate(env, [&] { return s.NewRawIterator(); });
  return MvccIteratorBinding::Wrap(env, Value(), this, std::move(it));
}

Napi::Value MvccStoreBinding::Close(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (closing_) {
    return PromiseWorker::Queue(
        env, Value(), [] {}, [](Napi::Env env) -> Napi::Value { return env.Undefined(); });
  }
  closing_ = true;
  open_stores_->stores.erase(this);
  MvccStore* s = store_.get();
  return PromiseWorker::Queue(
      env, Value(), [s] { s->Close(); }, [](Napi::Env env) -> Napi::Value { return env.Undefined(); });
}

bool MvccStoreBinding::closing() const { return closing_; }

}  // namespace strata::binding
