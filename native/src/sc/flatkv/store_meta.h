// The metadata record kept in the working DB's `default` column family, written in the same
// WriteBatch as each block's rows, so the rows and the version/hash they add up to never
// disagree after a crash.
//
//   u8 format (1) ‖ u64 version ‖ u64 changelog index ‖ u64 origin version ‖ LtHash (2048)
//   ‖ u32 crc32 of everything before it          (integers little-endian)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sc/lthash.h"

namespace strata::sc::flatkv {

/// Key of the metadata record in the `default` column family.
inline constexpr std::string_view kStoreMetaKey = "flatkv/meta";

/// What the working DB (or a snapshot of it) says about itself.
struct StoreMeta {
  /// The last committed version (0 for an empty store).
  int64_t version = 0;
  /// Changelog index of the last entry applied to these rows; replay resumes after it.
  uint64_t changelog_index = 0;
  /// The version the store's history starts from: 0 when it was created empty, the import
  /// version when it was built by ImportRows (versions before it are unreachable).
  int64_t origin_version = 0;
  /// The LtHash of all rows.
  LtHash hash;
};

/// The record's encoding.
std::string EncodeStoreMeta(const StoreMeta& meta);

/// Parses a record; throws kCorruption naming `where` when it is damaged.
StoreMeta DecodeStoreMeta(std::string_view bytes, const std::string& where);

}  // namespace strata::sc::flatkv
