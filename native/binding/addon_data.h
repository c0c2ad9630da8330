// Per-environment state of the addon: class constructors and the stores still open, which
// are closed when the environment shuts down so RocksDB never outlives the process's cleanup.
#pragma once

#include <napi.h>

#include <memory>
#include <set>

namespace strata::binding {

class OpenBinding;

/// Stores still open in one environment; shared with the environment's cleanup hook,
/// which may run after the instance data is gone.
struct OpenStores {
  std::set<OpenBinding*> bindings;
};

/// The addon's per-environment instance data.
struct AddonData {
  Napi::FunctionReference store_constructor;
  Napi::FunctionReference iterator_constructor;
  Napi::FunctionReference commit_store_constructor;
  Napi::FunctionReference plain_kv_constructor;
  Napi::FunctionReference memory_budget_constructor;
  std::shared_ptr<OpenStores> open_stores = std::make_shared<OpenStores>();
};

inline AddonData& GetAddonData(Napi::Env env) { return *env.GetInstanceData<AddonData>(); }

}  // namespace strata::binding
