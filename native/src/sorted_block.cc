#include "sorted_block.h"

#include <algorithm>

#include "encoding.h"
#include "strata/changelog_entry.h"

namespace strata {

SortedBlock::SortedBlock(std::string_view entry, const std::vector<std::string>& skip_stores) {
  // First pass: lay the user keys out in one arena (views into it stay valid once it stops
  // growing), remembering offsets.
  struct Raw {
    size_t key_offset;
    size_t key_size;
    std::optional<std::string_view> value;
  };
  std::vector<Raw> raw;
  keys_.reserve(entry.size());
  std::string prefix;
  bool skipping = false;
  VisitChangelogEntry(entry, {
      [&](std::string_view name, uint32_t pairs) {
        skipping = std::find(skip_stores.begin(), skip_stores.end(), name) != skip_stores.end();
        prefix = encoding::StorePrefix(name);
        if (!skipping) raw.reserve(raw.size() + pairs);
      },
      [&](std::string_view key, std::optional<std::string_view> value) {
        if (skipping) return;
        logical_bytes_ += key.size() + (value ? value->size() : 0);
        size_t offset = keys_.size();
        keys_.append(prefix);
        keys_.append(key);
        raw.push_back({offset, prefix.size() + key.size(), value});
      },
  });
  pairs_.reserve(raw.size());
  for (const Raw& r : raw) pairs_.push_back({std::string_view(keys_).substr(r.key_offset, r.key_size), r.value});
  // Stable, so that among repeats of a key the last write stays last.
  std::stable_sort(pairs_.begin(), pairs_.end(), [](const Pair& a, const Pair& b) { return a.user_key < b.user_key; });
  size_t out = 0;
  for (size_t i = 0; i < pairs_.size(); ++i) {
    if (i + 1 < pairs_.size() && pairs_[i + 1].user_key == pairs_[i].user_key) continue;
    pairs_[out++] = pairs_[i];
  }
  pairs_.resize(out);
  for (const Pair& p : pairs_) payload_bytes_ += p.user_key.size() + (p.value ? p.value->size() : 0);
}

}  // namespace strata
