// Range's element count, as TensorFlow's RangeOp checks and computes it.
#include "graph/op_semantics/range.h"

#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace dfc {
namespace {

template <typename T>
absl::StatusOr<int64_t> Size(T start, T limit, T delta) {
  const auto text = [&] {
    return absl::StrCat(" (start ", start, ", limit ", limit, ", delta ", delta, ")");
  };
  if (delta == 0) return absl::InvalidArgumentError(absl::StrCat("delta must not be 0", text()));
  if (delta > 0 ? !(start <= limit) : !(start >= limit)) {
    return absl::InvalidArgumentError(absl::StrCat(delta > 0
                                                       ? "start must be <= limit when delta > 0"
                                                       : "start must be >= limit when delta < 0",
                                                   text()));
  }
  if constexpr (std::is_integral_v<T>) {
    // Differences of int64 values can overflow int64, not uint64.
    const uint64_t span = delta > 0 ? static_cast<uint64_t>(limit) - static_cast<uint64_t>(start)
                                    : static_cast<uint64_t>(start) - static_cast<uint64_t>(limit);
    const uint64_t step =
        delta > 0 ? static_cast<uint64_t>(delta) : uint64_t{0} - static_cast<uint64_t>(delta);
    return static_cast<int64_t>(span / step + (span % step != 0 ? 1 : 0));
  } else {
    const T size = std::ceil(std::abs((limit - start) / delta));
    if (!(size < static_cast<T>(std::numeric_limits<int64_t>::max()))) {
      return absl::InvalidArgumentError(absl::StrCat("range has too many elements", text()));
    }
    return static_cast<int64_t>(size);
  }
}

}  // namespace

absl::StatusOr<int64_t> RangeSize(int32_t start, int32_t limit, int32_t delta) {
  return Size(start, limit, delta);
}
absl::StatusOr<int64_t> RangeSize(int64_t start, int64_t limit, int64_t delta) {
  return Size(start, limit, delta);
}
absl::StatusOr<int64_t> RangeSize(float start, float limit, float delta) {
  return Size(start, limit, delta);
}
absl::StatusOr<int64_t> RangeSize(double start, double limit, double delta) {
  return Size(start, limit, delta);
}

}  // namespace dfc
