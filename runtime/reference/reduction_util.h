// Helpers shared by the reduction, scan, softmax and contraction reference kernels: exact
// conversion between storage types and the double accumulators those kernels use, and the
// element offsets of a reduction.
#ifndef DFC_RUNTIME_REFERENCE_REDUCTION_UTIL_H_
#define DFC_RUNTIME_REFERENCE_REDUCTION_UTIL_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/dtype.h"
#include "graph/dtype_class.h"
#include "graph/half.h"
#include "graph/tensor.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {

// True for the storage types of float16, float32 and float64.
template <typename T>
inline constexpr bool IsFloatingStorage =
    std::is_same_v<T, Half> || std::is_same_v<T, float> || std::is_same_v<T, double>;

// A floating element as double; exact for every floating dtype.
template <typename T>
double ToDouble(T value) {
  if constexpr (std::is_same_v<T, Half>) {
    return static_cast<double>(static_cast<float>(value));
  } else {
    return static_cast<double>(value);
  }
}

// `value` correctly rounded (to nearest, ties to even) to floating storage type T.
template <typename T>
T FromDouble(double value) {
  static_assert(IsFloatingStorage<T>);
  if constexpr (std::is_same_v<T, Half>) {
    // double -> float -> half would round twice and can be off by one half ulp at a tie.
    // Rounding to float with "round to odd" first keeps the information the second rounding
    // needs (float has more than two bits beyond half's precision), so the result is exact.
    float f = static_cast<float>(value);
    if (std::isfinite(f) && static_cast<double>(f) != value) {
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      if ((bits & 1) == 0) {
        f = std::nextafter(f, value > static_cast<double>(f)
                                  ? std::numeric_limits<float>::infinity()
                                  : -std::numeric_limits<float>::infinity());
      }
    }
    return Half(f);
  } else {
    return static_cast<T>(value);
  }
}

// Element i of a float16, float32 or float64 tensor set to `value`, correctly rounded.
inline void SetFromDouble(Tensor& t, int64_t i, double value) {
  DispatchDType(t.dtype(), [&]<typename T>() {
    if constexpr (IsFloatingStorage<T>) t.mutable_data<T>()[i] = FromDouble<T>(value);
  });
}

// Fails unless input `i` is a number type of OPS.md (graph/dtype_class.h's IsNumeric).
inline absl::Status CheckNumeric(const KernelContext& ctx, int i) {
  return CheckDType(ctx, i, kNumericDTypes);
}

// Fails unless input `i` is float16, float32 or float64.
inline absl::Status CheckFloating(const KernelContext& ctx, int i) {
  return CheckDType(ctx, i, {DType::kHalf, DType::kFloat, DType::kDouble});
}

// For each dimension of a rank-`rank` tensor, whether `axes` (each in [-rank, rank), none
// listed twice) names it.
inline absl::StatusOr<std::vector<bool>> ReducedAxes(const KernelContext& ctx,
                                                     const std::vector<int64_t>& axes, int rank) {
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    absl::StatusOr<int> d = NormalizeAxis(ctx, axis, rank);
    if (!d.ok()) return d.status();
    if (reduced[*d]) {
      return ctx.Error(absl::StrCat("reduction axis ", axis, " (dimension ", *d,
                                    ") is listed more than once"));
    }
    reduced[*d] = true;
  }
  return reduced;
}

// The C-order element offsets within a tensor of `shape` of every index combination over
// `dims` (the other indices held at 0), in row-major order of those dims. `dims` ascending.
// The caller makes sure the count is no larger than some existing tensor's.
inline std::vector<int64_t> OffsetsOver(const Shape& shape, const std::vector<int>& dims) {
  const std::vector<int64_t> strides = Strides(shape);
  int64_t count = 1;
  for (int d : dims) count *= shape[d];
  std::vector<int64_t> offsets;
  offsets.reserve(count);
  std::vector<int64_t> index(dims.size(), 0);
  int64_t offset = 0;
  for (int64_t n = 0; n < count; ++n) {
    offsets.push_back(offset);
    // Odometer step: bump the innermost listed dimension, carrying outwards.
    for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
      const int d = dims[k];
      if (++index[k] < shape[d]) {
        offset += strides[d];
        break;
      }
      offset -= (shape[d] - 1) * strides[d];
      index[k] = 0;
    }
  }
  return offsets;
}

}  // namespace dfc::reference

#endif  // DFC_RUNTIME_REFERENCE_REDUCTION_UTIL_H_
