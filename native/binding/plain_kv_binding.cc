#include "plain_kv_binding.h"

#include <optional>
#include <string>
#include <vector>

#include "convert.h"
#include "memory_budget_binding.h"

namespace strata::binding {

namespace {

constexpr uint32_t kMaxRangeLimit = 1 << 20;

PlainKvOptions ToPlainKvOptions(const Napi::Value& value) {
  PlainKvOptions options;
  const OptionFields fields(value, "plain KV options");
  fields.Flag("createIfMissing", &options.create_if_missing);
  fields.Flag("readOnly", &options.read_only);
  if (auto cache = fields.Defined("blockCacheBytes")) options.block_cache_bytes = ToVersion(*cache, "blockCacheBytes");
  if (auto budget = fields.Defined("memoryBudget")) options.memory_budget = MemoryBudgetBinding::From(*budget);
  return options;
}

// An optional range bound: null or undefined is open.
std::string ToBound(const Napi::Value& value, const char* what) {
  if (value.IsNull() || value.IsUndefined()) return {};
  return std::string(ToBytes(value, what));
}

// Length word of a packed op whose value is a deletion.
constexpr uint32_t kPackedDelete = 0xffffffffu;

uint32_t ReadU32Le(const char* at) {
  const auto* b = reinterpret_cast<const uint8_t*>(at);
  return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}

// Reads the length word at *at, advancing past it; an error text when it runs past the end.
std::optional<std::string> TakeLength(std::string_view packed, const char* what, size_t* at, uint32_t* length) {
  if (packed.size() - *at < 4) return "the " + std::string(what) + " length at offset " + std::to_string(*at) + " runs past the end";
  *length = ReadU32Le(packed.data() + *at);
  *at += 4;
  return std::nullopt;
}

// Copies `length` bytes at *at into *out, advancing past them; an error text when they run past the end.
std::optional<std::string> TakeBytes(std::string_view packed, const char* what, uint32_t length, size_t* at, std::string* out) {
  if (packed.size() - *at < length) {
    return "the " + std::string(what) + " of " + std::to_string(length) + " bytes at offset " + std::to_string(*at) + " runs past the end";
  }
  out->assign(packed.data() + *at, length);
  *at += length;
  return std::nullopt;
}

// The ops of writePacked's buffer: (u32 LE key length, key, u32 LE value length or
// kPackedDelete, value) repeated to its end. Returns an error text for a malformed buffer.
std::optional<std::string> ParsePackedOps(std::string_view packed, std::vector<PlainKvOp>* ops) {
  size_t at = 0;
  uint32_t length = 0;
  while (at < packed.size()) {
    PlainKvOp& op = ops->emplace_back();
    if (auto error = TakeLength(packed, "key", &at, &length)) return error;
    if (auto error = TakeBytes(packed, "key", length, &at, &op.key)) return error;
    if (auto error = TakeLength(packed, "value", &at, &length)) return error;
    if (length == kPackedDelete) continue;
    if (auto error = TakeBytes(packed, "value", length, &at, &op.value.emplace())) return error;
  }
  return std::nullopt;
}

}  // namespace

void PlainKvBinding::Init(Napi::Env env, Napi::Object exports) {
  Define(env, exports,
         {
             StaticMethod<&PlainKvBinding::Open>("open"),
             InstanceMethod<&PlainKvBinding::Get>("get"),
             InstanceMethod<&PlainKvBinding::GetMany>("getMany"),
             InstanceMethod<&PlainKvBinding::Write>("write"),
             InstanceMethod<&PlainKvBinding::WritePacked>("writePacked"),
             InstanceMethod<&PlainKvBinding::Range>("range"),
         });
}

Napi::Value PlainKvBinding::Open(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string dir = ToUtf8(info[0], "plain KV directory");
  if (dir.empty()) ThrowInvalid(env, "plain KV directory is empty; pass <home>/data/blockstore");
  const PlainKvOptions options = Translate(env, [&] { return ToPlainKvOptions(info[1]); });
  return OpenAsync(env, [dir, options] { return PlainKv::Open(dir, options); });
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
  std::shared_ptr<PlainKv> kv = shared_store(env);
  return PromiseWorker::Queue(env, Value(), [kv, ops, sync] { kv->Write(*ops, sync); });
}

Napi::Value PlainKvBinding::WritePacked(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string_view packed = ToBytes(info[0], "packed ops");
  const bool sync = info[1].IsBoolean() && info[1].As<Napi::Boolean>().Value();
  // Parsed (and so copied) here: the JS buffer may change once this call returns.
  auto ops = std::make_shared<std::vector<PlainKvOp>>();
  if (auto error = ParsePackedOps(packed, ops.get())) ThrowInvalid(env, "writePacked: " + *error);
  std::shared_ptr<PlainKv> kv = shared_store(env);
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

}  // namespace strata::binding
