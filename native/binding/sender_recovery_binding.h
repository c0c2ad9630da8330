// NativeSenderRecovery: the JavaScript class over strata::SenderRecovery.
#pragma once

#include <napi.h>

namespace strata::binding {

/// Defines NativeSenderRecovery on `exports`.
void InitSenderRecovery(Napi::Env env, Napi::Object exports);

}  // namespace strata::binding
