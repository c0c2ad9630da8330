#include "sc/flatkv/changelog_replay.h"

#include "sc/flatkv/block_changes.h"
#include "sc/flatkv/block_plan.h"
#include "strata/status.h"

namespace strata::sc::flatkv {
namespace {

Error ChangelogGap(const Changelog& changelog, uint64_t expected, const std::string& found) {
  return Error(ErrorCode::kCorruption,
               "FlatKV changelog has a gap: entry " + std::to_string(expected) + " is needed next but " + found +
                   " (changelog holds entries " + std::to_string(changelog.first_index()) + ".." +
                   std::to_string(changelog.last_index()) +
                   "); restore the store directory from a backup or a state-sync snapshot");
}

}  // namespace

uint64_t ReplayChangelog(FlatKvDb& db, Changelog& changelog, StoreMeta* meta, int64_t max_version, int hash_threads) {
  uint64_t expected = meta->changelog_index + 1;
  if (changelog.last_index() + 1 < expected) {
    throw Error(ErrorCode::kCorruption,
                "FlatKV changelog ends at entry " + std::to_string(changelog.last_index()) +
                    " but the database has applied entry " + std::to_string(meta->changelog_index) +
                    ": changelog entries were lost; restore the store directory from a backup or a state-sync "
                    "snapshot");
  }
  if (changelog.last_index() >= expected && changelog.first_index() > expected) {
    throw ChangelogGap(changelog, expected, "it starts at entry " + std::to_string(changelog.first_index()));
  }
  uint64_t applied = 0;
  bool stopped = false;
  changelog.ReplayAfterIndex(meta->changelog_index, [&](uint64_t index, std::string_view payload) {
    if (stopped) return;
    if (index != expected) throw ChangelogGap(changelog, expected, "entry " + std::to_string(index) + " follows");
    DecodedBlock block = DecodeBlockEntry(payload, index);
    if (block.version > max_version) {
      stopped = true;
      return;
    }
    if (block.version <= meta->version) {
      throw Error(ErrorCode::kCorruption,
                  "FlatKV changelog entry " + std::to_string(index) + " has version " + std::to_string(block.version) +
                      ", not above the database's version " + std::to_string(meta->version) +
                      "; restore the store directory from a backup or a state-sync snapshot");
    }
    BlockPlan plan(block.changes, block.version);
    plan.Resolve(db, hash_threads);
    StoreMeta after = MetaAfter(*meta, plan, index);
    WriteBlock(db, plan, after);
    *meta = after;
    ++expected;
    ++applied;
  });
  return applied;
}

}  // namespace strata::sc::flatkv
