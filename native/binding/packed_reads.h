// Many-key reads in one Node-API call: keys arrive packed in one buffer with an Int32Array of
// their lengths, values leave packed in one buffer with [offset, length] slots (length -1 when
// absent). Shared by the state store and commit store bindings.
#pragma once

#include <napi.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "strata/store_types.h"

namespace strata::binding {

/// The keys of getMany(…, packedKeys, keyLengths, …); throws a JS error on malformed arguments.
std::vector<std::string_view> UnpackKeys(Napi::Env env, const Napi::Value& packed, const Napi::Value& lengths);

/// The caller's slot array, checked to hold two slots per key.
int32_t* SlotsFor(Napi::Env env, const Napi::Value& slots, size_t count);

// Packs the values found into one buffer and records each key's [offset, length] (length -1
// when absent): one JS allocation per batch instead of one per key. Values may arrive in any
// order (the EVM SS reads each sub-DB's keys together).
class PackingSink final : public ValueSink {
 public:
  PackingSink(int32_t* slots, size_t count);
  void Found(size_t index, std::string_view value) override;
  const std::string& packed() const { return packed_; }

 private:
  int32_t* slots_;
  std::string packed_;
};

}  // namespace strata::binding
