// The lifecycle the store bindings (NativeStateStore, NativeCommitStore, NativePlainKv) share:
// a JS object adopts a store opened on the libuv pool, refuses calls once close() has begun,
// and is closed by the environment's cleanup if JavaScript never closed it, so RocksDB never
// outlives the process's own teardown.
#pragma once

#include <napi.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "addon_data.h"
#include "convert.h"
#include "strata/status.h"

namespace strata::binding {

/// A binding whose store is still open; the environment's cleanup closes it.
class OpenBinding {
 public:
  /// Closes the store now, reporting a failure on stderr (nothing can throw at exit).
  virtual void CloseAtExit() = 0;

 protected:
  ~OpenBinding() = default;
};

/// Closes every store still open in an environment that is shutting down.
inline void CloseAll(OpenStores& open_stores) {
  for (OpenBinding* binding : open_stores.bindings) binding->CloseAtExit();
  open_stores.bindings.clear();
}

/// What differs between the store bindings' lifecycles; each binding has one as kKind.
struct StoreKind {
  /// The JS class name, e.g. "NativeStateStore".
  const char* class_name;
  /// The store as messages name it, e.g. "state store".
  const char* name;
  /// The TypeError for constructing the class other than through its static open().
  const char* usage;
  /// Where the environment keeps the class's constructor, for OpenAsync.
  Napi::FunctionReference AddonData::*constructor;
};

/// The JS class `Derived` over a `Store`, which it owns from construction on. `Derived`
/// provides `static constexpr StoreKind kKind`.
template <typename Derived, typename Store>
class StoreBinding : public Napi::ObjectWrap<Derived>, public OpenBinding {
 public:
  /// The store, or a STRATA_CLOSED error once close() was called.
  Store& store(Napi::Env env) {
    CheckOpen(env);
    return *store_;
  }
  /// Whether close() was called (iterators check it before touching the store).
  bool closing() const { return closing_; }

  void CloseAtExit() override {
    closing_ = true;
    try {
      store_->Close();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "StrataDB: closing the %s at exit failed: %s\n", Derived::kKind.name, e.what());
    }
  }

 protected:
  using Methods = std::vector<Napi::ClassPropertyDescriptor<Derived>>;

  /// Defines the JS class with `methods` plus close() on `exports`, keeping its constructor.
  static void Define(Napi::Env env, Napi::Object exports, Methods methods) {
    methods.push_back(Napi::ObjectWrap<Derived>::InstanceMethod("close", &StoreBinding::Close));
    Napi::Function ctor = Napi::ObjectWrap<Derived>::DefineClass(env, Derived::kKind.class_name, methods);
    GetAddonData(env).*Derived::kKind.constructor = Napi::Persistent(ctor);
    exports.Set(Derived::kKind.class_name, ctor);
  }

  /// Adopts the store that Open passed as the only argument, an External.
  explicit StoreBinding(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Derived>(info) {
    if (info.Length() != 1 || !info[0].IsExternal()) throw Napi::TypeError::New(info.Env(), Derived::kKind.usage);
    store_.reset(info[0].As<Napi::External<Store>>().Data());
    open_stores_ = GetAddonData(info.Env()).open_stores;
    open_stores_->bindings.insert(this);
  }

  // Runs when the JS object is collected; the store's own destructor closes it.
  ~StoreBinding() override {
    if (open_stores_) open_stores_->bindings.erase(this);
  }

  /// The store shared with work queued on the pool, which may outlive a close() call.
  std::shared_ptr<Store> shared_store(Napi::Env env) {
    CheckOpen(env);
    return store_;
  }

  /// Runs `open` on the pool and resolves to a new `Derived`, which then owns the store.
  static Napi::Promise OpenAsync(Napi::Env env, std::function<std::unique_ptr<Store>()> open) {
    auto opened = std::make_shared<std::unique_ptr<Store>>();
    return PromiseWorker::Queue(
        env, Napi::Object::New(env), [open = std::move(open), opened] { *opened = open(); },
        [opened](Napi::Env env) -> Napi::Value {
          auto external = Napi::External<Store>::New(env, opened->get());
          Napi::Object object = (GetAddonData(env).*Derived::kKind.constructor).New({external});
          opened->release();  // now owned by the JS object
          return object;
        });
  }

  /// close(): Promise<void>; the first call closes the store on the pool, later ones resolve.
  Napi::Value Close(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (closing_) return PromiseWorker::Queue(env, this->Value(), [] {});
    closing_ = true;
    open_stores_->bindings.erase(this);
    std::shared_ptr<Store> s = store_;
    return PromiseWorker::Queue(env, this->Value(), [s] { s->Close(); });
  }

 private:
  void CheckOpen(Napi::Env env) const {
    if (closing_) {
      throw MakeError(env, ErrorCode::kClosed,
                      std::string("the ") + Derived::kKind.name + " is closed; open it again before using it");
    }
  }

  std::shared_ptr<Store> store_;
  std::shared_ptr<OpenStores> open_stores_;
  bool closing_ = false;
};

}  // namespace strata::binding
