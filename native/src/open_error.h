// How every store reports a directory it cannot open, so a node already running on the same
// home gets the same advice whichever store (SS, FlatKV, plain KV) trips over it first.
#pragma once

#include <string>

#include "strata/status.h"

namespace strata {

/// The kIo error for `store` (e.g. "state store <dir>") whose lock another process holds;
/// `detail`, when not empty, is the lock failure as the OS or RocksDB reported it.
Error InUseError(const std::string& store, const std::string& detail);

/// Throws for a failed open of `store`: InUseError when RocksDB could not take its lock,
/// otherwise ThrowIfError(status, action). Returns for an OK status.
void ThrowIfOpenFailed(const rocksdb::Status& status, const std::string& store, const std::string& action);

}  // namespace strata
