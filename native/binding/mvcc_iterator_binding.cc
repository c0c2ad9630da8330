#include "mvcc_iterator_binding.h"

#include "addon_data.h"
#include "convert.h"
#include "state_store_binding.h"

namespace strata::binding {

namespace {

// Hands the C++ iterator to the JS constructor without exposing a public factory.
struct PendingIterator {
  StateStoreBinding* owner;
  std::unique_ptr<MvccIterator> mvcc;
  std::unique_ptr<RawIterator> raw;
};

constexpr uint32_t kMaxBatch = 1 << 16;

}  // namespace

void MvccIteratorBinding::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, "NativeMvccIterator",
                                    {
                                        InstanceMethod<&MvccIteratorBinding::NextBatch>("nextBatch"),
                                        InstanceMethod<&MvccIteratorBinding::Close>("close"),
                                    });
  GetAddonData(env).iterator_constructor = Napi::Persistent(ctor);
  exports.Set("NativeMvccIterator", ctor);
}

Napi::Object MvccIteratorBinding::Wrap(Napi::Env env, Napi::Object owner_object, StateStoreBinding* owner,
                                       std::unique_ptr<MvccIterator> it) {
  PendingIterator pending{owner, std::move(it), nullptr};
  return GetAddonData(env).iterator_constructor.New(
      {Napi::External<PendingIterator>::New(env, &pending), owner_object});
}

Napi::Object MvccIteratorBinding::Wrap(Napi::Env env, Napi::Object owner_object, StateStoreBinding* owner,
                                       std::unique_ptr<RawIterator> it) {
  PendingIterator pending{owner, nullptr, std::move(it)};
  return GetAddonData(env).iterator_constructor.New(
      {Napi::External<PendingIterator>::New(env, &pending), owner_object});
}

MvccIteratorBinding::MvccIteratorBinding(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<MvccIteratorBinding>(info) {
  if (info.Length() != 2 || !info[0].IsExternal() || !info[1].IsObject()) {
    throw Napi::TypeError::New(info.Env(), "NativeMvccIterator is created by NativeMvccStore.iterator()");
  }
  PendingIterator* pending = info[0].As<Napi::External<PendingIterator>>().Data();
  owner_ = pending->owner;
  mvcc_ = std::move(pending->mvcc);
  raw_ = std::move(pending->raw);
  owner_object_ = Napi::Persistent(info[1].As<Napi::Object>());
}

void MvccIteratorBinding::CheckUsable(Napi::Env env) {
  if (owner_->closing()) {
    throw MakeError(env, ErrorCode::kClosed, "the state store is closed; this iterator can no longer be used");
  }
  if (!mvcc_ && !raw_) throw MakeError(env, ErrorCode::kClosed, "this iterator was closed");
}

Napi::Value MvccIteratorBinding::NextBatch(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  CheckUsable(env);
  uint32_t max = info[0].IsNumber() ? info[0].As<Napi::Number>().Uint32Value() : 256;
  if (max == 0 || max > kMaxBatch) ThrowInvalid(env, "nextBatch size must be between 1 and 65536");
  Napi::Array out = Napi::Array::New(env);
  uint32_t n = 0;
  Translate(env, [&] {
    if (mvcc_) {
      for (uint32_t i = 0; i < max && mvcc_->Valid(); ++i, mvcc_->Next()) {
        out.Set(n++, ToBuffer(env, mvcc_->key()));
        out.Set(n++, ToBuffer(env, mvcc_->value()));
      }
      return;
    }
    RawEntry entry;
    for (uint32_t i = 0; i < max && raw_->Next(&entry); ++i) {
      out.Set(n++, Napi::String::New(env, entry.store));
      out.Set(n++, ToBuffer(env, entry.key));
      out.Set(n++, ToBuffer(env, entry.value));
      out.Set(n++, FromVersion(env, entry.version));
    }
  });
  return out;
}

Napi::Value MvccIteratorBinding::Close(const Napi::CallbackInfo& info) {
  mvcc_.reset();
  raw_.reset();
  owner_object_.Reset();
  return info.Env().Undefined();
}

}  // namespace strata::binding
