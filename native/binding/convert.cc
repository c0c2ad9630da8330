#include "convert.h"

#include <memory>
#include <optional>

namespace strata::binding {

namespace {
constexpr double kMaxSafeInteger = 9007199254740991.0;
}

Napi::Error MakeError(Napi::Env env, ErrorCode code, const std::string& message) {
  Napi::Error error = Napi::Error::New(env, message);
  error.Set("code", Napi::String::New(env, std::string("STRATA_") + ErrorCodeName(code)));
  return error;
}

uint64_t ToVersion(const Napi::Value& value, const char* what) {
  Napi::Env env = value.Env();
  if (value.IsNumber()) {
    double d = value.As<Napi::Number>().DoubleValue();
    if (!(d >= 0) || d > kMaxSafeInteger || d != static_cast<double>(static_cast<uint64_t>(d))) {
      ThrowInvalid(env, std::string(what) + " must be a non-negative integer (pass a bigint above 2^53 - 1), got " +
                            value.ToString().Utf8Value());
    }
    return static_cast<uint64_t>(d);
  }
  if (value.IsBigInt()) {
    bool lossless = false;
    uint64_t v = value.As<Napi::BigInt>().Uint64Value(&lossless);
    if (!lossless) {
      ThrowInvalid(env, std::string(what) + " does not fit in an unsigned 64-bit integer: " +
                            value.ToString().Utf8Value() + "; versions range from 0 to 2^64 - 1");
    }
    return v;
  }
  ThrowInvalid(env, std::string(what) + " must be a number or a bigint");
}

Napi::Value FromVersion(Napi::Env env, uint64_t version) {
  if (static_cast<double>(version) <= kMaxSafeInteger) return Napi::Number::New(env, static_cast<double>(version));
  return Napi::BigInt::New(env, version);
}

std::string_view ToBytes(const Napi::Value& value, const char* what) {
  // One napi_get_typedarray_info call: this runs once per key on every read path.
  napi_typedarray_type type;
  size_t length = 0;
  void* data = nullptr;
  if (napi_get_typedarray_info(value.Env(), value, &type, &length, &data, nullptr, nullptr) != napi_ok ||
      type != napi_uint8_array) {
    ThrowInvalid(value.Env(), std::string(what) + " must be a Uint8Array or Buffer");
  }
  return {static_cast<const char*>(data), length};
}

std::string ToUtf8(const Napi::Value& value, const char* what) {
  if (!value.IsString()) ThrowInvalid(value.Env(), std::string(what) + " must be a string");
  return value.As<Napi::String>().Utf8Value();
}

Utf8Arg::Utf8Arg(const Napi::Value& value, const char* what) {
  if (!value.IsString()) ThrowInvalid(value.Env(), std::string(what) + " must be a string");
  size_t length = 0;
  napi_status status = napi_get_value_string_utf8(value.Env(), value, small_, sizeof(small_), &length);
  NAPI_THROW_IF_FAILED_VOID(value.Env(), status);
  // Node-API stops at a character boundary when the buffer is short, so only a result with
  // room for one more 4-byte character to spare is known to be complete.
  if (length + 5 <= sizeof(small_)) {
    view_ = std::string_view(small_, length);
  } else {
    large_ = value.As<Napi::String>().Utf8Value();
    view_ = large_;
  }
}

OptionFields::OptionFields(const Napi::Value& value, const char* what) : env_(value.Env()) {
  if (value.IsUndefined() || value.IsNull()) return;
  if (!value.IsObject()) ThrowInvalid(env_, std::string(what) + " must be an object");
  object_ = value.As<Napi::Object>();
}

std::optional<Napi::Value> OptionFields::Field(const char* name) const {
  if (!object_ || !object_->Has(name)) return std::nullopt;
  return object_->Get(name);
}

std::optional<Napi::Value> OptionFields::Defined(const char* name) const {
  std::optional<Napi::Value> value = Field(name);
  if (!value || value->IsUndefined()) return std::nullopt;
  return value;
}

std::optional<int64_t> OptionFields::Integer(const char* name, int64_t min) const {
  std::optional<Napi::Value> value = Defined(name);
  if (!value) return std::nullopt;
  const double d = value->IsNumber() ? value->As<Napi::Number>().DoubleValue() : -1e300;
  if (d < static_cast<double>(min) || d != static_cast<double>(static_cast<int64_t>(d)) || d > kMaxSafeInteger) {
    ThrowInvalid(env_, std::string(name) + " must be an integer >= " + std::to_string(min));
  }
  return static_cast<int64_t>(d);
}

void OptionFields::Flag(const char* name, bool* out) const {
  std::optional<Napi::Value> value = Defined(name);
  if (!value) return;
  if (!value->IsBoolean()) ThrowInvalid(env_, std::string(name) + " must be a boolean");
  *out = value->As<Napi::Boolean>().Value();
}

PromiseWorker::PromiseWorker(Napi::Env env, Napi::Object keep_alive, Work work, Resolve resolve)
    : Napi::AsyncWorker(env, "strata.store"),
      deferred_(Napi::Promise::Deferred::New(env)),
      keep_alive_(Napi::Persistent(keep_alive)),
      work_(std::move(work)),
      resolve_(std::move(resolve)) {}

Napi::Promise PromiseWorker::Queue(Napi::Env env, Napi::Object keep_alive, Work work, Resolve resolve) {
  auto* worker = new PromiseWorker(env, keep_alive, std::move(work), std::move(resolve));  // deletes itself
  Napi::Promise promise = worker->deferred_.Promise();
  worker->Napi::AsyncWorker::Queue();
  return promise;
}

Napi::Promise PromiseWorker::Queue(Napi::Env env, Napi::Object keep_alive, Work work) {
  return Queue(env, keep_alive, std::move(work), [](Napi::Env env) -> Napi::Value { return env.Undefined(); });
}

void PromiseWorker::Execute() {
  try {
    work_();
  } catch (const Error& e) {
    code_ = e.code();
    SetError(e.what());
  } catch (const std::exception& e) {
    SetError(e.what());
  }
}

void PromiseWorker::OnOK() {
  Napi::Env env = Env();
  try {
    deferred_.Resolve(resolve_(env));
  } catch (const Napi::Error& e) {
    deferred_.Reject(e.Value());
  }
}

void PromiseWorker::OnError(const Napi::Error& error) {
  deferred_.Reject(MakeError(Env(), code_, error.Message()).Value());
}

namespace {

// What crosses from a writer thread to the JS thread.
struct Settlement {
  Napi::Promise::Deferred deferred;
  std::optional<Error> error;
};

}  // namespace

std::pair<Napi::Promise, std::function<void(const Error*)>> CrossThreadPromise::Create(Napi::Env env,
                                                                                       const char* name) {
  auto deferred = std::make_shared<Napi::Promise::Deferred>(Napi::Promise::Deferred::New(env));
  Napi::Promise promise = deferred->Promise();
  auto tsfn = Napi::ThreadSafeFunction::New(env, Napi::Function(), name, 0, 1);
  auto settle = [tsfn, deferred](const Error* error) mutable {
    auto settlement = std::make_unique<Settlement>(
        Settlement{*deferred, error ? std::optional<Error>(*error) : std::nullopt});
    napi_status status = tsfn.BlockingCall(settlement.get(), [](Napi::Env env, Napi::Function, Settlement* s) {
      std::unique_ptr<Settlement> owned(s);  // ownership came through the queue
      if (owned->error) {
        owned->deferred.Reject(MakeError(env, *owned->error).Value());
      } else {
        owned->deferred.Resolve(env.Undefined());
      }
    });
    if (status == napi_ok) settlement.release();  // otherwise the environment is shutting down
    tsfn.Release();
  };
  return {promise, settle};
}

Napi::Promise CrossThreadPromise::Run(Napi::Env env, const char* name,
                                      const std::function<void(std::function<void(const Error*)>)>& start) {
  auto [promise, settle] = Create(env, name);
  try {
    start(settle);
  } catch (const Error& e) {
    settle(&e);
  }
  return promise;
}

}  // namespace strata::binding
