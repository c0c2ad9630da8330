// Re-applies changelog entries to a working DB: on open (entries the DB had not absorbed
// before a crash) and when a rollback rebuilds the state from a snapshot.
#pragma once

#include <cstdint>

#include "changelog.h"
#include "sc/flatkv/flatkv_db.h"
#include "sc/flatkv/store_meta.h"

namespace strata::sc::flatkv {

/// Applies, in order, every entry of `changelog` after `meta->changelog_index` whose version
/// is at most `max_version` (stopping at the first above it), updating `*meta`. Throws
/// kCorruption when the changelog has a gap after that index, an entry does not parse or a
/// version does not increase. Returns the number of blocks applied.
uint64_t ReplayChangelog(FlatKvDb& db, Changelog& changelog, StoreMeta* meta, int64_t max_version, int hash_threads);

}  // namespace strata::sc::flatkv
