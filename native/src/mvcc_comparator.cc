#include "mvcc_comparator.h"

#include <rocksdb/comparator.h>
#include <rocksdb/slice.h>
#include <rocksdb/slice_transform.h>

#include <cstring>
#include <memory>

#include "encoding.h"

namespace strata {

namespace {

std::string_view View(const rocksdb::Slice& s) { return {s.data(), s.size()}; }

int CompareBytes(std::string_view a, std::string_view b) {
  size_t n = a.size() < b.size() ? a.size() : b.size();
  int r = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (r != 0) return r;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

class PebbleMvccComparator final : public rocksdb::Comparator {
 public:
  const char* Name() const override { return "ss_pebbledb_comparator"; }

  int Compare(const rocksdb::Slice& a, const rocksdb::Slice& b) const override {
    encoding::MvccKey ka = encoding::SplitMvccKey(View(a));
    encoding::MvccKey kb = encoding::SplitMvccKey(View(b));
    int r = CompareBytes(ka.user_key, kb.user_key);
    if (r != 0) return r;
    if (ka.timestamp.empty() != kb.timestamp.empty()) return ka.timestamp.empty() ? -1 : 1;
    r = CompareBytes(ka.timestamp, kb.timestamp);
    // Malformed trailers can split two different byte strings alike; keep the order total.
    return r != 0 ? r : CompareBytes(View(a), View(b));
  }

  bool Equal(const rocksdb::Slice& a, const rocksdb::Slice& b) const override { return a == b; }

  // Shortening index keys is optional; keeping them whole is always correct.
  void FindShortestSeparator(std::string*, const rocksdb::Slice&) const override {}
  void FindShortSuccessor(std::string*) const override {}
};

class MvccUserKeyExtractor final : public rocksdb::SliceTransform {
 public:
  const char* Name() const override { return "strata.mvcc_user_key"; }
  rocksdb::Slice Transform(const rocksdb::Slice& key) const override {
    encoding::MvccKey k = encoding::SplitMvccKey(View(key));
    return {k.user_key.data(), k.user_key.size()};
  }
  bool InDomain(const rocksdb::Slice&) const override { return true; }
};

}  // namespace

const rocksdb::Comparator* MvccComparator() {
  static PebbleMvccComparator comparator;
  return &comparator;
}

std::shared_ptr<const rocksdb::SliceTransform> NewMvccUserKeyExtractor() {
  return std::make_shared<MvccUserKeyExtractor>();
}

}  // namespace strata
