// keccak256Many(packed, lengths) → Buffer: the keccak256 of each input packed end to end in
// `packed` (input i is lengths[i] bytes, lengths a Uint32Array), 32 bytes each, in order. One
// call instead of one per hash: a hash of a few hundred bytes costs less than the crossings.
#include "keccak_binding.h"

#include <string>
#include <string_view>

#include "convert.h"
#include "strata/keccak256.h"

namespace strata::binding {
namespace {

Napi::Value Keccak256ManyJs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string_view packed = ToBytes(info[0], "packed inputs");
  if (!info[1].IsTypedArray() || info[1].As<Napi::TypedArray>().TypedArrayType() != napi_uint32_array) {
    ThrowInvalid(env, "keccak256Many needs a Uint32Array of input lengths");
  }
  Napi::Uint32Array lengths = info[1].As<Napi::Uint32Array>();
  const size_t count = lengths.ElementLength();
  size_t total = 0;
  for (size_t i = 0; i < count; ++i) total += lengths[i];
  if (total != packed.size()) {
    ThrowInvalid(env, "keccak256Many: the lengths add up to " + std::to_string(total) + " bytes but " +
                          std::to_string(packed.size()) + " are packed");
  }
  Napi::Buffer<uint8_t> out = Napi::Buffer<uint8_t>::New(env, count * kKeccak256Bytes);
  Keccak256Many(reinterpret_cast<const uint8_t*>(packed.data()), lengths.Data(), count, out.Data());
  return out;
}

}  // namespace

void InitKeccak(Napi::Env env, Napi::Object exports) {
  exports.Set("keccak256Many", Napi::Function::New<Keccak256ManyJs>(env, "keccak256Many"));
}

}  // namespace strata::binding
