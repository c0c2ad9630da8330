// Paces snapshot writes to a byte rate, so a background snapshot does not starve block
// commits and RPC reads of disk bandwidth (`sc-snapshot-write-rate-mbps`).
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <thread>

namespace strata::sc {

/// A token bucket of `bytes_per_second` with a burst allowance; 0 = unlimited.
class WriteRateLimiter {
 public:
  /// `bytes_per_second` 0 disables pacing; `burst_bytes` may be written at once.
  explicit WriteRateLimiter(uint64_t bytes_per_second, uint64_t burst_bytes = 4ull << 20)
      : rate_(bytes_per_second), burst_(burst_bytes), start_(std::chrono::steady_clock::now()) {}

  /// Accounts for `bytes` about to be written, sleeping as long as the rate requires.
  void Acquire(uint64_t bytes) {
    if (rate_ == 0) return;
    std::chrono::duration<double> wait{0};
    {
      std::lock_guard<std::mutex> lock(mu_);
      written_ += bytes;
      const double allowed_at = written_ > burst_ ? static_cast<double>(written_ - burst_) / static_cast<double>(rate_) : 0;
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
      if (allowed_at > elapsed.count()) wait = std::chrono::duration<double>(allowed_at - elapsed.count());
    }
    if (wait.count() > 0) std::this_thread::sleep_for(wait);
  }

 private:
  const uint64_t rate_;
  const uint64_t burst_;
  const std::chrono::steady_clock::time_point start_;
  std::mutex mu_;
  uint64_t written_ = 0;
};

}  // namespace strata::sc
