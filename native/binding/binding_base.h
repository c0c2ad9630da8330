// The lifecycle the store bindings (NativeStateStore, NativeCommitStore, NativePlainKv) share:
// a JS object adopts a store opened on the libuv pool, refuses calls once close() has begun,
// and is closed by the environment's cleanup if JavaScript never closed it, so RocksDB never
// outlives the process's own teardown.
#pragma once

#include <napi.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
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

/// Stores of one type shared between the process's JavaScript environments (worker threads):
/// share() files a store under a token, attach(token) in another environment borrows it. The
/// addon is loaded once per process, so one registry serves every environment.
template <typename Store>
class SharedStores {
 public:
  /// Files `store` under a new token.
  static uint32_t Add(std::shared_ptr<Store> store) {
    std::lock_guard<std::mutex> lock(mu());
    uint32_t token = ++last_token();
    entries().emplace(token, std::move(store));
    return token;
  }
  /// The store filed under `token`, or null once its owner closed it.
  static std::shared_ptr<Store> Find(uint32_t token) {
    std::lock_guard<std::mutex> lock(mu());
    auto it = entries().find(token);
    return it == entries().end() ? nullptr : it->second;
  }
  /// Withdraws `token`; later attach() calls fail, borrowers already attached keep reading
  /// until the store reports itself closed.
  static void Remove(uint32_t token) {
    std::lock_guard<std::mutex> lock(mu());
    entries().erase(token);
  }

 private:
  static std::mutex& mu() {
    static std::mutex m;
    return m;
  }
  static uint32_t& last_token() {
    static uint32_t t = 0;
    return t;
  }
  static std::unordered_map<uint32_t, std::shared_ptr<Store>>& entries() {
    static std::unordered_map<uint32_t, std::shared_ptr<Store>> e;
    return e;
  }
};

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
    Withdraw();
    try {
      store_->Close();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "StrataDB: closing the %s at exit failed: %s\n", Derived::kKind.name, e.what());
    }
  }

 protected:
  using Methods = std::vector<Napi::ClassPropertyDescriptor<Derived>>;

  /// Defines the JS class with `methods` plus close(), share() and the static attach() on
  /// `exports`, keeping its constructor.
  static void Define(Napi::Env env, Napi::Object exports, Methods methods) {
    methods.push_back(Napi::ObjectWrap<Derived>::InstanceMethod("close", &StoreBinding::Close));
    methods.push_back(Napi::ObjectWrap<Derived>::InstanceMethod("share", &StoreBinding::Share));
    methods.push_back(Napi::ObjectWrap<Derived>::StaticMethod("attach", &StoreBinding::Attach));
    Napi::Function ctor = Napi::ObjectWrap<Derived>::DefineClass(env, Derived::kKind.class_name, methods);
    GetAddonData(env).*Derived::kKind.constructor = Napi::Persistent(ctor);
    exports.Set(Derived::kKind.class_name, ctor);
  }

  /// Adopts the store that Open passed as the only argument, an External; or, with a second
  /// argument `true` from attach(), borrows the shared store the External holds.
  explicit StoreBinding(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Derived>(info) {
    if (info.Length() == 2 && info[0].IsExternal() && info[1].IsBoolean()) {
      store_ = *info[0].As<Napi::External<std::shared_ptr<Store>>>().Data();
      borrowed_ = true;
      return;
    }
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

  /// share(): a token another environment of this process passes to attach() to read the
  /// same store. The token is withdrawn when this binding closes.
  Napi::Value Share(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    CheckOpen(env);
    if (borrowed_) throw MakeError(env, ErrorCode::kNotSupported, "a borrowed store cannot be shared again; share the owner");
    if (share_token_ == 0) share_token_ = SharedStores<Store>::Add(store_);
    return Napi::Number::New(env, share_token_);
  }

  /// attach(token): a borrowed binding over the store share() filed under `token`. Closing it
  /// leaves the store open; the owner's close() closes it for every borrower.
  static Napi::Value Attach(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (info.Length() != 1 || !info[0].IsNumber()) throw Napi::TypeError::New(env, "attach(token) takes the number share() returned");
    std::shared_ptr<Store> found = SharedStores<Store>::Find(info[0].As<Napi::Number>().Uint32Value());
    if (!found) {
      throw MakeError(env, ErrorCode::kClosed,
                      std::string("no open ") + Derived::kKind.name + " is shared under that token; its owner closed it");
    }
    auto external = Napi::External<std::shared_ptr<Store>>::New(
        env, new std::shared_ptr<Store>(std::move(found)), [](Napi::Env, std::shared_ptr<Store>* held) { delete held; });
    return (GetAddonData(env).*Derived::kKind.constructor).New({external, Napi::Boolean::New(env, true)});
  }

  /// close(): Promise<void>; the first call closes the store on the pool (a borrowed binding
  /// only lets go of it), later ones resolve.
  Napi::Value Close(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (closing_) return PromiseWorker::Queue(env, this->Value(), [] {});
    closing_ = true;
    if (borrowed_) {
      store_.reset();
      return PromiseWorker::Queue(env, this->Value(), [] {});
    }
    Withdraw();
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

  /// Withdraws this store's share token, if it has one.
  void Withdraw() {
    if (share_token_ != 0) SharedStores<Store>::Remove(share_token_);
    share_token_ = 0;
  }

  std::shared_ptr<Store> store_;
  std::shared_ptr<OpenStores> open_stores_;
  bool closing_ = false;
  /// Attached to another environment's store: never closes it.
  bool borrowed_ = false;
  uint32_t share_token_ = 0;
};

}  // namespace strata::binding
