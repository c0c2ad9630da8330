// Comparator and prefix extractor of the `pebbledb` layout.
//
// Keys are compared by user key first (bytewise), then by the timestamp section: an empty
// timestamp (version-0 metadata) first, then bytewise, which with ^version puts newer
// versions first. The prefix extractor returns the user key so bloom filters work per key.
#pragma once

#include <memory>

namespace rocksdb {
class Comparator;
class SliceTransform;
}  // namespace rocksdb

namespace strata {

/// The comparator registered as "ss_pebbledb_comparator"; a process-wide singleton.
const rocksdb::Comparator* MvccComparator();
/// A new prefix extractor returning the user-key part of an MVCC key.
std::shared_ptr<const rocksdb::SliceTransform> NewMvccUserKeyExtractor();

}  // namespace strata
