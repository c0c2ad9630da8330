#include "sc/flatkv/parallel_hash.h"

#include <algorithm>
#include <exception>
#include <future>
#include <vector>

namespace strata::sc::flatkv {
namespace {

// Below this many items per thread, starting a thread costs more than it saves.
constexpr size_t kMinItemsPerThread = 256;

}  // namespace

LtHash ParallelLtHashSum(size_t count, int threads,
                         const std::function<void(size_t begin, size_t end, LtHash* partial)>& fold) {
  size_t slices = static_cast<size_t>(std::max(threads, 1));
  slices = std::max<size_t>(1, std::min(slices, count / kMinItemsPerThread));
  std::vector<LtHash> partials(slices);
  auto bound = [&](size_t i) { return count * i / slices; };
  std::vector<std::future<void>> workers;
  workers.reserve(slices - 1);
  for (size_t i = 1; i < slices; ++i) {
    workers.push_back(std::async(std::launch::async, [&, i] { fold(bound(i), bound(i + 1), &partials[i]); }));
  }
  std::exception_ptr first_error;
  try {
    fold(bound(0), bound(1), &partials[0]);
  } catch (...) {
    first_error = std::current_exception();
  }
  for (auto& w : workers) {
    try {
      w.get();
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  }
  if (first_error) std::rethrow_exception(first_error);
  LtHash sum;
  for (const auto& p : partials) sum.Add(p);
  return sum;
}

}  // namespace strata::sc::flatkv
