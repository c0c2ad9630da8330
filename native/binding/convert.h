// Conversions between JavaScript values and the storage core's types, shared by the
// binding classes. Every malformed argument becomes a JS error with code
// STRATA_INVALID_ARGUMENT and a message naming the argument.
#pragma once

#include <napi.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "strata/status.h"

namespace strata::binding {

/// A JS Error carrying `code` = "STRATA_<NAME>".
Napi::Error MakeError(Napi::Env env, ErrorCode code, const std::string& message);
inline Napi::Error MakeError(Napi::Env env, const Error& error) { return MakeError(env, error.code(), error.what()); }
[[noreturn]] inline void ThrowInvalid(Napi::Env env, const std::string& message) {
  throw MakeError(env, ErrorCode::kInvalidArgument, message);
}

/// A version from a non-negative safe-integer number or a bigint in [0, 2^64 - 1].
uint64_t ToVersion(const Napi::Value& value, const char* what);
/// A number when it is a safe integer, a bigint otherwise.
Napi::Value FromVersion(Napi::Env env, uint64_t version);

/// The bytes of a Uint8Array (Buffer included), without copying.
std::string_view ToBytes(const Napi::Value& value, const char* what);
/// A JS string argument as UTF-8.
std::string ToUtf8(const Napi::Value& value, const char* what);

/// A short JS string argument decoded into a stack buffer (store names on hot paths).
class Utf8Arg {
 public:
  Utf8Arg(const Napi::Value& value, const char* what);
  std::string_view view() const { return view_; }

 private:
  char small_[128];
  std::string large_;
  std::string_view view_;
};
/// The fields of an optional JS options object (undefined or null: no fields), each checked
/// for its type so a wrong one is a STRATA_INVALID_ARGUMENT error naming the field.
class OptionFields {
 public:
  /// `what` names the object in the error when `value` is none, e.g. "store options".
  OptionFields(const Napi::Value& value, const char* what);
  /// The field when the object has it, even when it is undefined.
  std::optional<Napi::Value> Field(const char* name) const;
  /// The field when the object has it and it is not undefined.
  std::optional<Napi::Value> Defined(const char* name) const;
  /// An integer field that is a safe integer >= `min`.
  std::optional<int64_t> Integer(const char* name, int64_t min) const;
  /// Sets `*out` from a boolean field, when there is one.
  void Flag(const char* name, bool* out) const;

 private:
  Napi::Env env_;
  std::optional<Napi::Object> object_;
};

/// A copy of `bytes` in a new Buffer.
inline Napi::Buffer<char> ToBuffer(Napi::Env env, std::string_view bytes) {
  return Napi::Buffer<char>::Copy(env, bytes.data(), bytes.size());
}

/// Runs `fn`, turning a strata::Error into the matching JS error.
template <typename Fn>
auto Translate(Napi::Env env, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const Error& e) {
    throw MakeError(env, e);
  }
}

/// Runs `work` on the libuv pool and settles a promise with `resolve`'s value.
class PromiseWorker : public Napi::AsyncWorker {
 public:
  using Work = std::function<void()>;
  using Resolve = std::function<Napi::Value(Napi::Env)>;
  /// `keep_alive` (e.g. the owning JS object) stays referenced until the work is done.
  PromiseWorker(Napi::Env env, Napi::Object keep_alive, Work work, Resolve resolve);
  static Napi::Promise Queue(Napi::Env env, Napi::Object keep_alive, Work work, Resolve resolve);
  /// Queue for work whose promise resolves to undefined.
  static Napi::Promise Queue(Napi::Env env, Napi::Object keep_alive, Work work);

 protected:
  void Execute() override;
  void OnOK() override;
  void OnError(const Napi::Error& error) override;

 private:
  Napi::Promise::Deferred deferred_;
  Napi::ObjectReference keep_alive_;
  Work work_;
  Resolve resolve_;
  ErrorCode code_ = ErrorCode::kIo;
};

/// A promise settled from any thread through a thread-safe function; used for writes
/// completed by the store's writer threads. The pending call keeps the event loop alive.
class CrossThreadPromise {
 public:
  /// Returns the promise and a callback that settles it (callable once, from any thread).
  static std::pair<Napi::Promise, std::function<void(const Error*)>> Create(Napi::Env env, const char* name);
  /// Calls `start` with the settling callback (it hands it to a writer thread) and returns
  /// the promise; a strata::Error thrown by `start` itself rejects the promise instead.
  static Napi::Promise Run(Napi::Env env, const char* name,
                           const std::function<void(std::function<void(const Error*)>)>& start);
};

}  // namespace strata::binding
