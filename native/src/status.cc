#include "strata/status.h"

#include <rocksdb/status.h>

#include "open_error.h"

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

Error InUseError(const std::string& store, const std::string& detail) {
  return Error(ErrorCode::kIo, store + " is in use by another process" + (detail.empty() ? "" : " (" + detail + ")") +
                                   "; stop that process (e.g. a running node) before opening it");
}

void ThrowIfOpenFailed(const rocksdb::Status& status, const std::string& store, const std::string& action) {
  // RocksDB reports a LOCK file held by another process as a plain IOError; only its text
  // tells it apart from a disk failure. A LOCK file it may not even create (a read-only mount,
  // another owner) names the lock too, but no other process is involved.
  const std::string text = status.ToString();
  if (status.IsIOError() && (text.find("Permission denied") != std::string::npos || text.find("Read-only file system") != std::string::npos)) {
    throw Error(ErrorCode::kIo, store + " cannot be opened for writing (" + text +
                                    "); make its directory writable by the user running the node (check the mount and the owner)");
  }
  if (status.IsIOError() && text.find("lock") != std::string::npos) {
    throw InUseError(store, text);
  }
  ThrowIfError(status, action);
}

}  // namespace strata
