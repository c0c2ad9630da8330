// Builds a FlatKV store from exported rows (state sync): the rows are written as one sorted
// SST file per family and ingested, their LtHash is summed over threads, and the result is
// a complete store directory at the import version: working DB, snapshot, empty changelog.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "strata/memory_budget.h"

namespace strata::sc::flatkv {

/// Pulls the next exported row into `physical_key` and `value`; false at the end.
using RowSource = std::function<bool(std::string* physical_key, std::string* value)>;

/// Builds a complete store in `dir` (which must not exist) at `version` from the rows of
/// `next`. Within each family, rows must come in ascending key order, as ExportRows emits
/// them; otherwise (or for a malformed row) throws kInvalidArgument.
void BuildImportedStore(const std::string& dir, int64_t version, const StoreMemory& memory, int hash_threads,
                        const RowSource& next);

}  // namespace strata::sc::flatkv
