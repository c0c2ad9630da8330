// Entry point of the strata_native addon.
#include <napi.h>

#include <memory>

#include "addon_data.h"
#include "binding_base.h"
#include "commit_store_binding.h"
#include "keccak_binding.h"
#include "memory_budget_binding.h"
#include "mvcc_iterator_binding.h"
#include "plain_kv_binding.h"
#include "process_allocator_binding.h"
#include "sender_recovery_binding.h"
#include "state_store_binding.h"

namespace strata::binding {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto data = std::make_unique<AddonData>();
  std::shared_ptr<OpenStores> open_stores = data->open_stores;
  env.SetInstanceData(data.release());  // owned and deleted by the environment from here on
  StateStoreBinding::Init(env, exports);
  MvccIteratorBinding::Init(env, exports);
  CommitStoreBinding::Init(env, exports);
  PlainKvBinding::Init(env, exports);
  MemoryBudgetBinding::Init(env, exports);
  InitSenderRecovery(env, exports);
  InitProcessAllocator(env, exports);
  InitKeccak(env, exports);
  env.AddCleanupHook([open_stores] { CloseAll(*open_stores); });
  return exports;
}

}  // namespace strata::binding

static Napi::Object InitAddon(Napi::Env env, Napi::Object exports) { return strata::binding::Init(env, exports); }

NODE_API_MODULE(strata_native, InitAddon)
