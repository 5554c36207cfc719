// Reference kernels: special functions (Lgamma Digamma Igamma Igammac Betainc Polygamma Zeta),
// the x-guarded binary ops (Xdivy Xlogy Xlog1py), ApproximateEqual, ClipByValue,
// EuclideanNorm, the FakeQuant ops and Bucketize.
//
// The special functions (graph/special_functions.h) are computed in double for every floating
// dtype and rounded once to the output dtype.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "graph/dtype_class.h"
#include "graph/special_functions.h"
#include "runtime/reference/broadcast.h"
#include "runtime/reference/elementwise_util.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"
#include "runtime/reference/reduction_util.h"

namespace dfc::reference {
namespace {

// log|Gamma(x)|: +inf at the poles (0, -1, -2, ...), as C's lgamma, which Eigen calls.
double Lgamma(double x) { return std::lgamma(x); }

// --- elementwise kernels over floating inputs -----------------------------------------------

// Fails unless each input has dtype one of `dtypes`, all the same.
absl::Status CheckSameFloatDTypes(const KernelContext& ctx, std::initializer_list<DType> dtypes) {
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    DFC_RETURN_IF_ERROR(CheckDType(ctx, i, dtypes));
    if (ctx.input(i).dtype() != ctx.input(0).dtype()) {
      return ctx.Error(absl::StrCat("inputs must have the same dtype: input 0 is ",
                                    ctx.input(0).DebugType(), ", input ", i, " is ",
                                    ctx.input(i).DebugType()));
    }
  }
  return absl::OkStatus();
}

// out[i] = fn(inputs at i) with NumPy broadcasting over `arity` inputs of the same floating
// dtype, computed in double and rounded once. `scalars_only` restricts broadcasting to scalars
// against one common shape (Betainc's rule).
template <int kArity, typename Fn>
absl::Status MapFloating(KernelContext& ctx, std::initializer_list<DType> dtypes, Fn fn,
                         bool scalars_only = false) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, kArity));
  DFC_RETURN_IF_ERROR(CheckSameFloatDTypes(ctx, dtypes));
  Shape shape;
  if (scalars_only) {
    bool found = false;
    for (int i = 0; i < kArity; ++i) {
      const Tensor& t = ctx.input(i);
      if (t.rank() == 0) continue;
      if (found && t.shape() != shape) {
        return ctx.Error(absl::StrCat("inputs must be scalars or have one common shape, got ",
                                      ctx.input(0).DebugType(), ", ", ctx.input(1).DebugType(),
                                      " and ", ctx.input(2).DebugType()));
      }
      shape = t.shape();
      found = true;
    }
  } else {
    for (int i = 0; i < kArity; ++i) {
      absl::StatusOr<Shape> s = BroadcastShapes(shape, ctx.input(i).shape());
      if (!s.ok()) return ctx.Error(s.status().message());
      shape = *s;
    }
  }
  const DType dtype = ctx.input(0).dtype();
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, dtype, shape));
  std::vector<BroadcastIndexer> indexers;
  for (int i = 0; i < kArity; ++i) indexers.emplace_back(ctx.input(i).shape(), shape);
  DispatchDType(dtype, [&]<typename T>() {
    if constexpr (IsFloatingStorage<T>) {
      T* o = out.mutable_data<T>();
      double args[kArity];
      for (int64_t e = 0; e < out.num_elements(); ++e) {
        for (int i = 0; i < kArity; ++i) {
          args[i] = ToDouble(ctx.input(i).data<T>()[indexers[i].Offset(e)]);
        }
        if constexpr (kArity == 1) {
          o[e] = FromDouble<T>(fn(args[0]));
        } else if constexpr (kArity == 2) {
          o[e] = FromDouble<T>(fn(args[0], args[1]));
        } else {
          o[e] = FromDouble<T>(fn(args[0], args[1], args[2]));
        }
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

constexpr std::initializer_list<DType> kHalfFloatDouble = {DType::kHalf, DType::kFloat,
                                                           DType::kDouble};
constexpr std::initializer_list<DType> kFloatDouble = {DType::kFloat, DType::kDouble};

// --- ApproximateEqual, ClipByValue ----------------------------------------------------------

// |x - y| < tolerance, computed in the inputs' type; x and y must have the same shape.
absl::Status ApproximateEqual(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, kNumericDTypes));
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  if (x.dtype() != y.dtype() || x.shape() != y.shape()) {
    return ctx.Error(absl::StrCat("x and y must have the same dtype and shape, got ", x.DebugType(),
                                  " and ", y.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(float tolerance, ctx.node().GetFloat("tolerance", 1e-5f));
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, DType::kBool, x.shape()));
  DispatchDType(x.dtype(), [&]<typename T>() {
    bool* o = out.mutable_data<bool>();
    if constexpr (kIsFloat<T>) {
      // In T, as TensorFlow compares: the tolerance and |x - y| rounded to T (float16 is
      // computed in float).
      using C = ComputeType<T>;
      const C tol = Up(Down<T>(static_cast<C>(tolerance)));
      for (int64_t i = 0; i < x.num_elements(); ++i) {
        const C a = Up(x.data<T>()[i]);
        const C b = Up(y.data<T>()[i]);
        o[i] = Up(Down<T>(std::abs(a - b))) < tol;
      }
    } else if constexpr (kIsInt<T>) {
      // TensorFlow casts the tolerance to T, truncating it; the difference is taken without
      // overflow, as an unsigned magnitude.
      const double tol = std::trunc(static_cast<double>(tolerance));
      for (int64_t i = 0; i < x.num_elements(); ++i) {
        const T a = x.data<T>()[i];
        const T b = y.data<T>()[i];
        const uint64_t diff = a > b ? static_cast<uint64_t>(a) - static_cast<uint64_t>(b)
                                    : static_cast<uint64_t>(b) - static_cast<uint64_t>(a);
        o[i] = static_cast<double>(diff) < tol;
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// min(max(t, lo), hi), where lo and hi are scalars or have t's shape. A NaN t stays NaN.
absl::Status ClipByValue(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, kNumericDTypes));
  const Tensor& t = ctx.input(0);
  for (int i = 1; i < 3; ++i) {
    const Tensor& bound = ctx.input(i);
    if (bound.dtype() != t.dtype() || (bound.rank() != 0 && bound.shape() != t.shape())) {
      return ctx.Error(absl::StrCat(i == 1 ? "clip_value_min" : "clip_value_max",
                                    " must be a scalar or have the shape of t ", t.DebugType(),
                                    ", got ", bound.DebugType()));
    }
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, t.dtype(), t.shape()));
  const Tensor& lo = ctx.input(1);
  const Tensor& hi = ctx.input(2);
  DispatchDType(t.dtype(), [&]<typename T>() {
    if constexpr (!kIsBool<T>) {
      T* o = out.mutable_data<T>();
      for (int64_t i = 0; i < t.num_elements(); ++i) {
        auto v = Up(t.data<T>()[i]);
        const auto l = Up(lo.data<T>()[lo.rank() == 0 ? 0 : i]);
        const auto h = Up(hi.data<T>()[hi.rank() == 0 ? 0 : i]);
        if (h < v) v = h;
        if (v < l) v = l;
        o[i] = Down<T>(v);
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- EuclideanNorm --------------------------------------------------------------------------

// sqrt(sum(x^2)) over reduction_indices. Floating sums are taken in double and rounded once;
// integer ones exactly, an error where they leave the dtype's range.
absl::Status EuclideanNorm(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckNumeric(ctx, 0));
  const Tensor& x = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ReadIndexVector(ctx, 1, "reduction_indices"));
  DFC_ASSIGN_OR_RETURN(bool keep_dims, ctx.node().GetBool("keep_dims", false));
  DFC_ASSIGN_OR_RETURN(std::vector<bool> reduced, ReducedAxes(ctx, axes, x.rank()));
  Shape out_shape;
  std::vector<int> kept_dims;
  std::vector<int> reduced_dims;
  for (int d = 0; d < x.rank(); ++d) {
    if (reduced[d]) {
      reduced_dims.push_back(d);
      if (keep_dims) out_shape.push_back(1);
    } else {
      kept_dims.push_back(d);
      out_shape.push_back(x.dim(d));
    }
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, x.dtype(), out_shape));
  if (out.num_elements() == 0) {
    ctx.set_output(0, std::move(out));
    return absl::OkStatus();
  }
  const std::vector<int64_t> outer = OffsetsOver(x.shape(), kept_dims);
  const std::vector<int64_t> inner =
      x.num_elements() == 0 ? std::vector<int64_t>{} : OffsetsOver(x.shape(), reduced_dims);
  absl::Status status = absl::OkStatus();
  DispatchDType(x.dtype(), [&]<typename T>() {
    if constexpr (IsFloatingStorage<T>) {
      T* o = out.mutable_data<T>();
      for (size_t i = 0; i < outer.size(); ++i) {
        double sum = 0;
        for (int64_t offset : inner) {
          const double v = ToDouble(x.data<T>()[outer[i] + offset]);
          sum += v * v;
        }
        o[i] = FromDouble<T>(std::sqrt(sum));
      }
    } else if constexpr (kIsInt<T>) {
      T* o = out.mutable_data<T>();
      for (size_t i = 0; i < outer.size() && status.ok(); ++i) {
        int64_t sum = 0;
        for (int64_t offset : inner) {
          const int64_t v = static_cast<int64_t>(x.data<T>()[outer[i] + offset]);
          int64_t square = 0;
          if (__builtin_mul_overflow(v, v, &square) || __builtin_add_overflow(sum, square, &sum) ||
              sum > static_cast<int64_t>(std::numeric_limits<T>::max())) {
            status = ctx.Error(absl::StrCat("the sum of squares overflows ", DTypeName(x.dtype())));
            break;
          }
        }
        // The integer square root, as TensorFlow's integer sqrt truncates.
        auto root = static_cast<int64_t>(std::sqrt(static_cast<double>(sum)));
        while (root * root > sum) --root;
        while ((root + 1) * (root + 1) <= sum) ++root;
        o[i] = static_cast<T>(root);
      }
    }
  });
  if (!status.ok()) return status;
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- FakeQuant ------------------------------------------------------------------------------

// The num_bits ([2, 16]) and narrow_range attributes.
absl::Status ReadQuantAttrs(const KernelContext& ctx, int* num_bits, bool* narrow_range) {
  DFC_ASSIGN_OR_RETURN(int64_t bits, ctx.node().GetInt("num_bits", 8));
  if (bits < 2 || bits > 16) {
    return ctx.Error(absl::StrCat("num_bits must be between 2 and 16, inclusive, got ", bits));
  }
  DFC_ASSIGN_OR_RETURN(bool narrow, ctx.node().GetBool("narrow_range", false));
  *num_bits = static_cast<int>(bits);
  *narrow_range = narrow;
  return absl::OkStatus();
}

// FakeQuantWithMinMaxArgs (min and max attributes), FakeQuantWithMinMaxVars (scalar inputs)
// and FakeQuantWithMinMaxVarsPerChannel (vectors over the last dimension).
enum class QuantRange { kArgs, kVars, kPerChannel };

template <QuantRange kRange>
absl::Status FakeQuant(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, kRange == QuantRange::kArgs ? 1 : 3));
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    DFC_RETURN_IF_ERROR(CheckDType(ctx, i, {DType::kFloat}));
  }
  int num_bits = 8;
  bool narrow_range = false;
  DFC_RETURN_IF_ERROR(ReadQuantAttrs(ctx, &num_bits, &narrow_range));
  const Tensor& x = ctx.input(0);
  int64_t channels = 1;
  std::vector<float> mins;
  std::vector<float> maxs;
  if constexpr (kRange == QuantRange::kArgs) {
    absl::StatusOr<float> min = ctx.node().GetFloat("min", -6.0f);
    DFC_RETURN_IF_ERROR(min.status());
    absl::StatusOr<float> max = ctx.node().GetFloat("max", 6.0f);
    DFC_RETURN_IF_ERROR(max.status());
    if (!(*min < *max)) {
      return ctx.Error(
          absl::StrCat("min has to be smaller than max, was: min = ", *min, ", max = ", *max));
    }
    mins = {*min};
    maxs = {*max};
  } else {
    if constexpr (kRange == QuantRange::kPerChannel) {
      if (x.rank() < 1) {
        return ctx.Error(absl::StrCat("inputs must have rank >= 1, got ", x.DebugType()));
      }
      channels = x.dim(x.rank() - 1);
    }
    for (int i = 1; i < 3; ++i) {
      const Tensor& bound = ctx.input(i);
      const bool ok =
          kRange == QuantRange::kVars ? bound.rank() == 0 : bound.shape() == Shape{channels};
      if (!ok) {
        return ctx.Error(absl::StrCat(i == 1 ? "min" : "max", " must be ",
                                      kRange == QuantRange::kVars
                                          ? std::string("a scalar")
                                          : absl::StrCat("a vector of ", channels),
                                      ", got ", bound.DebugType()));
      }
    }
    mins.assign(ctx.input(1).data<float>(), ctx.input(1).data<float>() + channels);
    maxs.assign(ctx.input(2).data<float>(), ctx.input(2).data<float>() + channels);
    for (int64_t c = 0; c < channels; ++c) {
      // TensorFlow quantises [0, 0] to zeros; any other empty or reversed range (or a NaN
      // bound) would divide by zero on the way to NaNs.
      if (!(mins[c] < maxs[c]) && !(mins[c] == 0 && maxs[c] == 0)) {
        return ctx.Error(absl::StrCat("min must be < max (or both 0), got min = ", mins[c],
                                      ", max = ", maxs[c], " (channel ", c, ")"));
      }
    }
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, DType::kFloat, x.shape()));
  std::vector<QuantGrid> grids;
  for (int64_t c = 0; c < channels; ++c) {
    grids.push_back(Nudge(mins[c], maxs[c], num_bits, narrow_range));
  }
  const float* in = x.data<float>();
  float* o = out.mutable_data<float>();
  for (int64_t i = 0; i < x.num_elements(); ++i) {
    const int64_t c = i % channels;
    // A range of [0, 0] quantises everything to 0, where the grid would divide by zero.
    o[i] = (kRange != QuantRange::kArgs && mins[c] == 0 && maxs[c] == 0)
               ? 0.0f
               : FakeQuantize(in[i], grids[c]);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- Bucketize ------------------------------------------------------------------------------

// The index of each value's bucket among sorted float boundaries: how many boundaries are <=
// the value (std::upper_bound), compared in the common type of the value and float.
absl::Status Bucketize(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(
      CheckDType(ctx, 0, {DType::kInt32, DType::kInt64, DType::kFloat, DType::kDouble}));
  DFC_ASSIGN_OR_RETURN(AttrList list, ctx.node().GetList("boundaries"));
  const std::vector<float>& boundaries = list.f;
  if (!std::is_sorted(boundaries.begin(), boundaries.end())) {
    return ctx.Error(
        absl::StrCat("Expected sorted boundaries, got [", absl::StrJoin(boundaries, ", "), "]"));
  }
  const Tensor& x = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, DType::kInt32, x.shape()));
  DispatchDType(x.dtype(), [&]<typename T>() {
    if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> ||
                  std::is_same_v<T, float> || std::is_same_v<T, double>) {
      using C = std::common_type_t<T, float>;
      int32_t* o = out.mutable_data<int32_t>();
      for (int64_t i = 0; i < x.num_elements(); ++i) {
        const C v = static_cast<C>(x.data<T>()[i]);
        o[i] = static_cast<int32_t>(
            std::upper_bound(boundaries.begin(), boundaries.end(), v,
                             [](C value, float b) { return value < static_cast<C>(b); }) -
            boundaries.begin());
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterSpecialMathKernels(KernelRegistry& registry) {
  registry.Register(
      "Lgamma", [](KernelContext& ctx) { return MapFloating<1>(ctx, kHalfFloatDouble, Lgamma); });
  registry.Register(
      "Digamma", [](KernelContext& ctx) { return MapFloating<1>(ctx, kHalfFloatDouble, Digamma); });
  registry.Register("Igamma",
                    [](KernelContext& ctx) { return MapFloating<2>(ctx, kFloatDouble, Igamma); });
  registry.Register("Igammac",
                    [](KernelContext& ctx) { return MapFloating<2>(ctx, kFloatDouble, Igammac); });
  registry.Register("Zeta",
                    [](KernelContext& ctx) { return MapFloating<2>(ctx, kFloatDouble, Zeta); });
  registry.Register(
      "Polygamma", [](KernelContext& ctx) { return MapFloating<2>(ctx, kFloatDouble, Polygamma); });
  registry.Register("Betainc", [](KernelContext& ctx) {
    return MapFloating<3>(ctx, kFloatDouble, Betainc, /*scalars_only=*/true);
  });
  // x == 0 gives 0 whatever y is (even NaN or 0), which is what sets these apart from x / y,
  // x log y and x log1p y.
  registry.Register("Xdivy", [](KernelContext& ctx) {
    return MapFloating<2>(ctx, kHalfFloatDouble,
                          [](double x, double y) { return x == 0 ? 0.0 : x / y; });
  });
  registry.Register("Xlogy", [](KernelContext& ctx) {
    return MapFloating<2>(ctx, kHalfFloatDouble,
                          [](double x, double y) { return x == 0 ? 0.0 : x * std::log(y); });
  });
  registry.Register("Xlog1py", [](KernelContext& ctx) {
    return MapFloating<2>(ctx, kHalfFloatDouble,
                          [](double x, double y) { return x == 0 ? 0.0 : x * std::log1p(y); });
  });
  registry.Register("ApproximateEqual", ApproximateEqual);
  registry.Register("ClipByValue", ClipByValue);
  registry.Register("EuclideanNorm", EuclideanNorm);
  registry.Register("FakeQuantWithMinMaxArgs", FakeQuant<QuantRange::kArgs>);
  registry.Register("FakeQuantWithMinMaxVars", FakeQuant<QuantRange::kVars>);
  registry.Register("FakeQuantWithMinMaxVarsPerChannel", FakeQuant<QuantRange::kPerChannel>);
  registry.Register("Bucketize", Bucketize);
}

}  // namespace dfc::reference
