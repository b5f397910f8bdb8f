// Reservoir sampling (see scope_reservoir.h).
#include "scope_reservoir.h"

#include <algorithm>
#include <cmath>

namespace ljcheck {

std::int64_t Reservoir::percentile(double p) const {
  int n = size();
  if (n == 0) return 0;
  std::array<std::int64_t, kSize> sorted = values_;
  std::sort(sorted.begin(), sorted.begin() + n);
  auto rank = static_cast<int>(std::ceil(p / 100.0 * n));
  return sorted[static_cast<std::size_t>(std::clamp(rank, 1, n) - 1)];
}

}  // namespace ljcheck
