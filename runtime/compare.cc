// Tensor comparison with tolerances.
#include "runtime/compare.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace dfc {
namespace {

// "[1,2]" for flat index `i` of `shape`.
std::string IndexToString(const Shape& shape, int64_t i) {
  std::vector<int64_t> index(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    index[d] = shape[d] == 0 ? 0 : i % shape[d];
    i = shape[d] == 0 ? 0 : i / shape[d];
  }
  return ShapeToString(index);
}

}  // namespace

Tolerance DefaultTolerance(DType dtype) {
  switch (dtype) {
    case DType::kHalf:
      return {.rtol = 1e-3, .atol = 1e-3};
    case DType::kFloat:
    case DType::kDouble:
      return {.rtol = 1e-6, .atol = 1e-6};
    default:
      return {.rtol = 0, .atol = 0};
  }
}

Tolerance TensorFlowTolerance(const Tensor& expected) {
  Tolerance t = DefaultTolerance(expected.dtype());
  if (expected.dtype() != DType::kFloat && expected.dtype() != DType::kDouble) return t;
  const double u = expected.dtype() == DType::kFloat ? 0x1p-24 : 0x1p-53;
  t.atol = std::max(t.atol, 32 * u * LargestFiniteMagnitude(expected));
  return t;
}

double LargestFiniteMagnitude(const Tensor& t) {
  double largest = 0;
  const auto fold = [&](double v) {
    if (std::isfinite(v)) largest = std::max(largest, std::fabs(v));
  };
  if (t.dtype() == DType::kFloat) {
    for (float v : t.flat<float>()) fold(v);
  } else if (t.dtype() == DType::kDouble) {
    for (double v : t.flat<double>()) fold(v);
  }
  return largest;
}

Comparison CompareTensors(const Tensor& actual, const Tensor& expected) {
  return CompareTensors(actual, expected, DefaultTolerance(expected.dtype()));
}

Comparison CompareTensors(const Tensor& actual, const Tensor& expected, Tolerance tol) {
  Comparison c;
  if (actual.dtype() != expected.dtype()) {
    c.reason = absl::StrCat("dtype ", DTypeName(actual.dtype()), " != expected ",
                            DTypeName(expected.dtype()));
    return c;
  }
  if (actual.shape() != expected.shape()) {
    c.reason = absl::StrCat("shape ", ShapeToString(actual.shape()), " != expected ",
                            ShapeToString(expected.shape()));
    return c;
  }
  if (!IsSupported(expected.dtype())) {
    c.reason = absl::StrCat("cannot compare values of dtype ", DTypeName(expected.dtype()));
    return c;
  }
  const bool floating = IsFloating(expected.dtype());
  int64_t mismatches = 0;
  double worst_excess = -1;
  for (int64_t i = 0; i < expected.num_elements(); ++i) {
    bool ok;
    double error = 0;
    if (floating) {
      const double a = actual.ElementAsDouble(i);
      const double e = expected.ElementAsDouble(i);
      if (std::isnan(e) || std::isnan(a)) {
        ok = std::isnan(e) && std::isnan(a);
      } else if (std::isinf(e) || std::isinf(a)) {
        ok = a == e;
      } else {
        error = std::fabs(a - e);
        ok = error <= tol.atol + tol.rtol * std::fabs(e);
        c.max_error = std::max(c.max_error, error);
      }
      const double excess = ok ? -1 : (std::isfinite(error) && error > 0 ? error : INFINITY);
      if (!ok && excess > worst_excess) {
        worst_excess = excess;
        c.worst_index = i;
      }
    } else {
      const int64_t a = actual.ElementAsInt64(i);
      const int64_t e = expected.ElementAsInt64(i);
      ok = a == e;
      if (!ok) {
        const double diff = std::fabs(static_cast<double>(a) - static_cast<double>(e));
        c.max_error = std::max(c.max_error, diff);
        if (diff > worst_excess) {
          worst_excess = diff;
          c.worst_index = i;
        }
      }
    }
    if (!ok) ++mismatches;
  }
  c.equal = mismatches == 0;
  if (!c.equal) {
    const int64_t w = c.worst_index;
    c.reason = absl::StrFormat(
        "%d of %d elements differ; worst at %s: got %s, expected %s (max error %g, tolerance "
        "rtol=%g atol=%g)",
        mismatches, expected.num_elements(), IndexToString(expected.shape(), w),
        absl::StrCat(actual.ElementAsDouble(w)), absl::StrCat(expected.ElementAsDouble(w)),
        c.max_error, tol.rtol, tol.atol);
  }
  return c;
}

}  // namespace dfc
