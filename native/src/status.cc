#include "strata/status.h"

#include <rocksdb/status.h>

namespace strata {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return "INVALID_ARGUMENT";
    case ErrorCode::kClosed: return "CLOSED";
    case ErrorCode::kLayoutMismatch: return "LAYOUT_MISMATCH";
    case ErrorCode::kCorruption: return "CORRUPTION";
    case ErrorCode::kIo: return "IO";
    case ErrorCode::kNotSupported: return "NOT_SUPPORTED";
    case ErrorCode::kWriterFailed: return "WRITER_FAILED";
  }
  return "UNKNOWN";
}

void ThrowIfError(const rocksdb::Status& status, const std::string& what) {
  if (status.ok()) return;
  ErrorCode code = ErrorCode::kIo;
  if (status.IsCorruption()) code = ErrorCode::kCorruption;
  if (status.IsInvalidArgument()) code = ErrorCode::kInvalidArgument;
  if (status.IsNotSupported()) code = ErrorCode::kNotSupported;
  throw Error(code, what + ": " + status.ToString());
}

}  // namespace strata
