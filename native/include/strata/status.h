// Error model of the Strata storage core.
//
// Every failure leaves the library as a strata::Error carrying a stable code, so the
// Node-API layer can map it to a typed TypeScript error without parsing messages.
#pragma once

#include <stdexcept>
#include <string>

namespace rocksdb {
class Status;
}

namespace strata {

/// Stable error categories; the binding exposes them as `STRATA_<NAME>` codes.
enum class ErrorCode {
  kInvalidArgument,  // caller passed something the engine cannot accept
  kClosed,           // the store (or iterator) was closed
  kLayoutMismatch,   // directory was written with the other ss-backend layout
  kCorruption,       // on-disk data failed a checksum or decoding check
  kIo,               // the filesystem or RocksDB reported an I/O failure
  kNotSupported,     // the operation does not exist for this store kind
  kWriterFailed,     // the background writer stopped after an error
};

/// Returns the code's stable name, e.g. "INVALID_ARGUMENT".
const char* ErrorCodeName(ErrorCode code);

/// The one exception type the library throws.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  /// The error's stable category.
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

/// Throws strata::Error when `status` is not OK; `what` says which operation failed.
void ThrowIfError(const rocksdb::Status& status, const std::string& what);

}  // namespace strata
