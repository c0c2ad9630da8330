// Splits LtHash work over threads. The lattice hash is a commutative sum, so each thread
// folds its own slice into a partial vector and the partials are added at the end.
#pragma once

#include <cstddef>
#include <functional>

#include "sc/lthash.h"

namespace strata::sc::flatkv {

/// Runs `fold(begin, end, &partial)` over up to `threads` contiguous slices of [0, count),
/// one slice on the calling thread, and returns the sum of the partials. Waits for every
/// slice, then rethrows the first exception any of them threw.
LtHash ParallelLtHashSum(size_t count, int threads,
                         const std::function<void(size_t begin, size_t end, LtHash* partial)>& fold);

}  // namespace strata::sc::flatkv
