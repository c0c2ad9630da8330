#include "encoding.h"

#include "strata/status.h"

namespace strata::encoding {

bool UnwrapValue(std::string_view stored, std::string_view* raw) {
  if (stored.empty()) throw Error(ErrorCode::kCorruption, "stored value is empty (missing MVCC trailer)");
  uint8_t ts_len = static_cast<uint8_t>(stored.back());
  if (ts_len == 0) {
    *raw = stored.substr(0, stored.size() - 1);
    return true;
  }
  if (ts_len == kMvccTimestampLen && stored.size() >= kMvccTimestampLen + 1) return false;
  throw Error(ErrorCode::kCorruption,
              "stored value has an invalid MVCC trailer length " + std::to_string(ts_len));
}

}  // namespace strata::encoding
