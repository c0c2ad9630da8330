#include "sc/flatkv/block_changes.h"

#include <limits>

#include "sc/flatkv/row_format.h"
#include "strata/changelog_entry.h"
#include "strata/status.h"

namespace strata::sc::flatkv {

void CheckLogicalChange(std::string_view key, const std::optional<std::string_view>& value) {
  if (key.empty()) {
    throw Error(ErrorCode::kInvalidArgument, "FlatKV key is empty: evm keys are at least one byte long");
  }
  if (!value) return;
  LogicalKind kind = ClassifyLogicalKey(key);
  if (kind == LogicalKind::kNonce && value->size() != kNonceBytes) {
    throw Error(ErrorCode::kInvalidArgument, "FlatKV nonce value has " + std::to_string(value->size()) +
                                                 " bytes; a nonce is 8 bytes, big-endian");
  }
  if (kind == LogicalKind::kCodeHash && value->size() != kCodeHashBytes) {
    throw Error(ErrorCode::kInvalidArgument,
                "FlatKV code hash value has " + std::to_string(value->size()) + " bytes; a code hash is 32 bytes");
  }
}

std::string EncodeBlockEntry(int64_t version, const BlockChanges& changes) {
  size_t bytes = 0;
  for (const auto& c : changes) bytes += 9 + c.key.size() + (c.value ? c.value->size() : 0);
  if (changes.size() > std::numeric_limits<uint32_t>::max()) {
    throw Error(ErrorCode::kInvalidArgument, "FlatKV block has more than 2^32-1 changes; split it");
  }
  ChangelogEntryEncoder encoder(static_cast<uint64_t>(version), bytes + 16);
  encoder.BeginChangeset(kEvmChangesetName, static_cast<uint32_t>(changes.size()));
  for (const auto& c : changes) {
    encoder.AddPair(c.key, c.value ? std::optional<std::string_view>(*c.value) : std::nullopt);
  }
  return encoder.Finish();
}

DecodedBlock DecodeBlockEntry(std::string_view entry, uint64_t index) {
  const std::string where = "FlatKV changelog entry " + std::to_string(index);
  auto damaged = [&](const std::string& why) {
    return Error(ErrorCode::kCorruption, where + " " + why +
                                             "; move the changelog aside and restore the store from a snapshot "
                                             "or a state-sync snapshot");
  };
  DecodedBlock block;
  std::vector<std::string> changeset_names;
  uint64_t version = 0;
  try {
    version = VisitChangelogEntry(
        entry, {
                   [&](std::string_view name, uint32_t pair_count) {
                     changeset_names.emplace_back(name);
                     block.changes.reserve(block.changes.size() + pair_count);
                   },
                   [&](std::string_view key, std::optional<std::string_view> value) {
                     block.changes.push_back({std::string(key), value ? std::optional<std::string>(*value) : std::nullopt});
                   },
               });
  } catch (const Error& e) {
    throw damaged(std::string("does not parse (") + e.what() + ")");
  }
  const size_t changesets = changeset_names.size();
  if (changesets == 1 && changeset_names[0] != kEvmChangesetName) {
    throw damaged("holds a changeset named \"" + changeset_names[0] + "\" instead of \"evm\"");
  }
  if (changesets != 1) throw damaged("holds " + std::to_string(changesets) + " changesets instead of one");
  if (version == 0 || version > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    throw damaged("has version " + std::to_string(version));
  }
  for (size_t i = 0; i < block.changes.size(); ++i) {
    const auto& c = block.changes[i];
    if (i > 0 && !(block.changes[i - 1].key < c.key)) throw damaged("has keys out of order");
    try {
      CheckLogicalChange(c.key, c.value ? std::optional<std::string_view>(*c.value) : std::nullopt);
    } catch (const Error& e) {
      throw damaged(std::string("holds an invalid change (") + e.what() + ")");
    }
  }
  block.version = static_cast<int64_t>(version);
  return block;
}

}  // namespace strata::sc::flatkv
