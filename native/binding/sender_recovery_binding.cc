// NativeSenderRecovery(threads?): recover(items) → Promise<Buffer>, recoverSync(items) → Buffer,
// recoverMessages(packed, lengths) → Promise<Buffer>.
// `items` packs kRecoveryItemBytes per transaction; the answer packs 21 bytes per item: a status
// byte (1 recovered, 0 not) then the 20-byte address. recoverMessages takes per transaction
// recovery id (1 byte) ‖ r ‖ s ‖ signing message ‖ raw bytes, with the message and raw lengths
// in `lengths` (two per transaction), and answers 53 bytes per item: status, address, tx hash.
#include "sender_recovery_binding.h"

#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "convert.h"
#include "strata/sender_recovery.h"

namespace strata::binding {
namespace {

constexpr size_t kAnswerBytes = 1 + kAddressBytes;

// The answer layout from Recover's two outputs.
void Interleave(const std::vector<uint8_t>& addresses, const std::vector<uint8_t>& ok, uint8_t* out) {
  for (size_t i = 0; i < ok.size(); ++i) {
    out[i * kAnswerBytes] = ok[i];
    std::memcpy(out + i * kAnswerBytes + 1, addresses.data() + i * kAddressBytes, kAddressBytes);
  }
}

std::string_view ItemsArg(const Napi::CallbackInfo& info) {
  std::string_view items = ToBytes(info[0], "recovery items");
  if (items.size() % kRecoveryItemBytes != 0) {
    ThrowInvalid(info.Env(), "recovery items must pack 97 bytes per transaction (hash, r, s, recovery id); got " +
                                 std::to_string(items.size()) + " bytes");
  }
  return items;
}

constexpr size_t kMessageAnswerBytes = kAnswerBytes + kTxHashBytes;
constexpr size_t kMessageHeadBytes = 1 + kCompactSignatureBytes;

// Refuses lengths that do not tile `packed_size` bytes exactly.
void CheckMessageLengths(Napi::Env env, size_t packed_size, const Napi::Int32Array& lengths) {
  size_t at = 0;
  for (size_t i = 0; i < lengths.ElementLength() / 2; ++i) {
    int32_t message_size = lengths[2 * i];
    int32_t raw_size = lengths[2 * i + 1];
    if (message_size < 0 || raw_size < 0 ||
        packed_size - at < kMessageHeadBytes + static_cast<size_t>(message_size) + static_cast<size_t>(raw_size)) {
      ThrowInvalid(env, "recoverMessages: item " + std::to_string(i) + "'s lengths run past the packed bytes");
    }
    at += kMessageHeadBytes + static_cast<size_t>(message_size) + static_cast<size_t>(raw_size);
  }
  if (at != packed_size) ThrowInvalid(env, "recoverMessages: the packed bytes are longer than their lengths say");
}

// recoverMessages: a copy of the packed batch (lengths checked), and each item's place in it.
class MessagesWorker : public Napi::AsyncWorker {
 public:
  MessagesWorker(Napi::Env env, std::shared_ptr<SenderRecovery> recovery, std::string_view packed,
                 const Napi::Int32Array& lengths)
      : Napi::AsyncWorker(env),
        deferred_(Napi::Promise::Deferred::New(env)),
        recovery_(std::move(recovery)),
        packed_(packed.begin(), packed.end()) {
    size_t count = lengths.ElementLength() / 2;
    const auto* base = reinterpret_cast<const uint8_t*>(packed_.data());
    size_t at = 0;
    items_.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      SignedMessage item{};
      item.recovery_id = base[at];
      item.signature = base + at + 1;
      item.message = base + at + kMessageHeadBytes;
      item.message_size = static_cast<size_t>(lengths[2 * i]);
      item.raw = item.message + item.message_size;
      item.raw_size = static_cast<size_t>(lengths[2 * i + 1]);
      items_.push_back(item);
      at += kMessageHeadBytes + item.message_size + item.raw_size;
    }
    addresses_.resize(count * kAddressBytes);
    ok_.resize(count);
    hashes_.resize(count * kTxHashBytes);
  }

  Napi::Promise Promise() const { return deferred_.Promise(); }

  void Execute() override {
    recovery_->RecoverMessages(items_.data(), items_.size(), addresses_.data(), ok_.data(), hashes_.data());
  }
  void OnOK() override {
    Napi::Buffer<uint8_t> out = Napi::Buffer<uint8_t>::New(Env(), ok_.size() * kMessageAnswerBytes);
    for (size_t i = 0; i < ok_.size(); ++i) {
      uint8_t* at = out.Data() + i * kMessageAnswerBytes;
      at[0] = ok_[i];
      std::memcpy(at + 1, addresses_.data() + i * kAddressBytes, kAddressBytes);
      std::memcpy(at + kAnswerBytes, hashes_.data() + i * kTxHashBytes, kTxHashBytes);
    }
    deferred_.Resolve(out);
  }
  void OnError(const Napi::Error& error) override { deferred_.Reject(error.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  std::shared_ptr<SenderRecovery> recovery_;
  std::string packed_;
  std::vector<SignedMessage> items_;  // points into packed_
  std::vector<uint8_t> addresses_;
  std::vector<uint8_t> ok_;
  std::vector<uint8_t> hashes_;
};

// Recovers a copy of the batch on the pool, off the JavaScript thread.
class RecoverWorker : public Napi::AsyncWorker {
 public:
  RecoverWorker(Napi::Env env, std::shared_ptr<SenderRecovery> recovery, std::string_view items)
      : Napi::AsyncWorker(env),
        deferred_(Napi::Promise::Deferred::New(env)),
        recovery_(std::move(recovery)),
        items_(items.begin(), items.end()),
        addresses_(items.size() / kRecoveryItemBytes * kAddressBytes),
        ok_(items.size() / kRecoveryItemBytes) {}

  Napi::Promise Promise() const { return deferred_.Promise(); }

  void Execute() override {
    recovery_->Recover(reinterpret_cast<const uint8_t*>(items_.data()), ok_.size(), addresses_.data(), ok_.data());
  }
  void OnOK() override {
    Napi::Buffer<uint8_t> out = Napi::Buffer<uint8_t>::New(Env(), ok_.size() * kAnswerBytes);
    Interleave(addresses_, ok_, out.Data());
    deferred_.Resolve(out);
  }
  void OnError(const Napi::Error& error) override { deferred_.Reject(error.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  std::shared_ptr<SenderRecovery> recovery_;  // keeps the pool alive while the batch runs
  std::string items_;
  std::vector<uint8_t> addresses_;
  std::vector<uint8_t> ok_;
};

class SenderRecoveryBinding : public Napi::ObjectWrap<SenderRecoveryBinding> {
 public:
  explicit SenderRecoveryBinding(const Napi::CallbackInfo& info) : Napi::ObjectWrap<SenderRecoveryBinding>(info) {
    unsigned threads = 0;
    if (!info[0].IsUndefined()) {
      if (!info[0].IsNumber() || info[0].As<Napi::Number>().DoubleValue() < 0 || info[0].As<Napi::Number>().DoubleValue() > 1024) {
        ThrowInvalid(info.Env(), "NativeSenderRecovery takes a thread count from 0 (one per core) to 1024");
      }
      threads = info[0].As<Napi::Number>().Uint32Value();
    }
    recovery_ = std::make_shared<SenderRecovery>(threads);
  }

  Napi::Value Recover(const Napi::CallbackInfo& info) {
    std::string_view items = ItemsArg(info);
    auto* worker = new RecoverWorker(info.Env(), recovery_, items);
    Napi::Promise promise = worker->Promise();
    worker->Queue();  // deleted by Node-API once it completes
    return promise;
  }

  Napi::Value RecoverSync(const Napi::CallbackInfo& info) {
    std::string_view items = ItemsArg(info);
    size_t count = items.size() / kRecoveryItemBytes;
    std::vector<uint8_t> addresses(count * kAddressBytes);
    std::vector<uint8_t> ok(count);
    recovery_->RecoverHere(reinterpret_cast<const uint8_t*>(items.data()), count, addresses.data(), ok.data());
    Napi::Buffer<uint8_t> out = Napi::Buffer<uint8_t>::New(info.Env(), count * kAnswerBytes);
    Interleave(addresses, ok, out.Data());
    return out;
  }

  Napi::Value RecoverMessages(const Napi::CallbackInfo& info) {
    std::string_view packed = ToBytes(info[0], "packed signed messages");
    if (!info[1].IsTypedArray() || info[1].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array ||
        info[1].As<Napi::Int32Array>().ElementLength() % 2 != 0) {
      ThrowInvalid(info.Env(), "recoverMessages needs an Int32Array with a message and a raw length per transaction");
    }
    CheckMessageLengths(info.Env(), packed.size(), info[1].As<Napi::Int32Array>());
    auto* worker = new MessagesWorker(info.Env(), recovery_, packed, info[1].As<Napi::Int32Array>());
    Napi::Promise promise = worker->Promise();
    worker->Queue();  // deleted by Node-API once it completes
    return promise;
  }

  Napi::Value Threads(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), recovery_->threads()); }

 private:
  std::shared_ptr<SenderRecovery> recovery_;
};

}  // namespace

void InitSenderRecovery(Napi::Env env, Napi::Object exports) {
  Napi::Function cls = SenderRecoveryBinding::DefineClass(
      env, "NativeSenderRecovery",
      {
          SenderRecoveryBinding::InstanceMethod<&SenderRecoveryBinding::Recover>("recover"),
          SenderRecoveryBinding::InstanceMethod<&SenderRecoveryBinding::RecoverSync>("recoverSync"),
          SenderRecoveryBinding::InstanceMethod<&SenderRecoveryBinding::RecoverMessages>("recoverMessages"),
          SenderRecoveryBinding::InstanceAccessor<&SenderRecoveryBinding::Threads>("threads"),
      });
  exports.Set("NativeSenderRecovery", cls);
}

}  // namespace strata::binding
