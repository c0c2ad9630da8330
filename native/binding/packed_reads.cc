#include "packed_reads.h"

#include <algorithm>
#include <climits>

#include "convert.h"

namespace strata::binding {

std::vector<std::string_view> UnpackKeys(Napi::Env env, const Napi::Value& packed, const Napi::Value& lengths) {
  const std::string_view packed_keys = ToBytes(packed, "packed keys");
  if (!lengths.IsTypedArray() || lengths.As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
    ThrowInvalid(env, "getMany needs an Int32Array of key lengths");
  }
  Napi::Int32Array key_lengths = lengths.As<Napi::Int32Array>();
  const size_t count = key_lengths.ElementLength();
  if (count > INT32_MAX / 2) ThrowInvalid(env, "getMany takes at most 2^30 keys per call");
  std::vector<std::string_view> keys(count);
  size_t offset = 0;
  for (size_t i = 0; i < count; ++i) {
    const size_t length = static_cast<size_t>(std::max<int32_t>(key_lengths[i], 0));
    if (offset + length > packed_keys.size()) ThrowInvalid(env, "getMany key lengths exceed the packed keys");
    keys[i] = packed_keys.substr(offset, length);
    offset += length;
  }
  return keys;
}

int32_t* SlotsFor(Napi::Env env, const Napi::Value& slots, size_t count) {
  if (!slots.IsTypedArray() || slots.As<Napi::TypedArray>().TypedArrayType() != napi_int32_array ||
      slots.As<Napi::Int32Array>().ElementLength() < 2 * count) {
    ThrowInvalid(env, "getMany needs an Int32Array with two slots per key for value offsets and lengths");
  }
  return slots.As<Napi::Int32Array>().Data();
}

PackingSink::PackingSink(int32_t* slots, size_t count) : slots_(slots) {
  for (size_t i = 0; i < count; ++i) {
    slots_[2 * i] = 0;
    slots_[2 * i + 1] = -1;
  }
}

void PackingSink::Found(size_t index, std::string_view value) {
  slots_[2 * index] = static_cast<int32_t>(packed_.size());
  slots_[2 * index + 1] = static_cast<int32_t>(value.size());
  packed_.append(value);
}

}  // namespace strata::binding
