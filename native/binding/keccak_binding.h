// keccak256Many: many keccak256 hashes in one call from JavaScript.
#pragma once

#include <napi.h>

namespace strata::binding {

/// Defines keccak256Many on `exports`.
void InitKeccak(Napi::Env env, Napi::Object exports);

}  // namespace strata::binding
