// Reference kernels along one axis: the arg-reductions (ArgMax ArgMin) and the scans (Cumsum
// Cumprod). Registered by RegisterReductionKernels (reduction.cc).
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"
#include "runtime/reference/reduction_util.h"

namespace dfc::reference {
namespace {

// The index along the line of the extreme element, as TensorFlow's ArgMax (Eigen's
// ArgMaxPairReducer) finds it: the first strict maximum, starting from the dtype's lowest
// value at index 0. So ties give the first index, NaN never wins, and a line with nothing
// above the lowest value (all NaN, all -inf) gives 0.
template <bool is_max, typename T>
int64_t ArgExtreme(const T* in, int64_t base, int64_t stride, int64_t n) {
  using C = ComputeType<T>;
  // The storage type's limits: for half, +-65504 rather than float's.
  C best = is_max ? std::numeric_limits<C>::lowest() : std::numeric_limits<C>::max();
  if constexpr (std::is_same_v<T, Half>) best = is_max ? -65504.0f : 65504.0f;
  int64_t best_index = 0;
  for (int64_t i = 0; i < n; ++i) {
    const C x = static_cast<C>(in[base + i * stride]);
    if (is_max ? x > best : x < best) {
      best = x;
      best_index = i;
    }
  }
  return best_index;
}

template <bool is_max>
absl::Status ArgKernel(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(
      CheckDType(ctx, 0,
                 {DType::kHalf, DType::kFloat, DType::kDouble, DType::kInt8, DType::kInt16,
                  DType::kInt32, DType::kInt64, DType::kUInt8, DType::kBool}));
  DFC_ASSIGN_OR_RETURN(DType output_type, ctx.node().GetType("output_type", DType::kInt64));
  if (output_type != DType::kInt32 && output_type != DType::kInt64) {
    return ctx.Error(
        absl::StrCat("output_type must be int32 or int64, got ", DTypeName(output_type)));
  }
  DFC_ASSIGN_OR_RETURN(int64_t dimension, ReadIndexScalar(ctx, 1, "dimension"));
  const Tensor& x = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, dimension, x.rank()));
  const int64_t n = x.dim(axis);
  if (n == 0) {
    return ctx.Error(absl::StrCat("cannot take the arg", is_max ? "max" : "min",
                                  " of an empty axis: dimension ", axis, " of ", x.DebugType(),
                                  " has size 0"));
  }
  if (output_type == DType::kInt32 && n > std::numeric_limits<int32_t>::max()) {
    return ctx.Error(
        absl::StrCat("dimension ", axis, " of ", x.DebugType(), " is too long for int32 indices"));
  }

  Shape out_shape;
  std::vector<int> kept_dims;
  for (int d = 0; d < x.rank(); ++d) {
    if (d == axis) continue;
    kept_dims.push_back(d);
    out_shape.push_back(x.dim(d));
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, output_type, out_shape));
  if (out.num_elements() > 0) {
    const std::vector<int64_t> lines = OffsetsOver(x.shape(), kept_dims);
    const int64_t stride = Strides(x.shape())[axis];
    DispatchDType(x.dtype(), [&]<typename T>() {
      for (size_t k = 0; k < lines.size(); ++k) {
        const int64_t index = ArgExtreme<is_max, T>(x.data<T>(), lines[k], stride, n);
        if (output_type == DType::kInt32) {
          out.mutable_data<int32_t>()[k] = static_cast<int32_t>(index);
        } else {
          out.mutable_data<int64_t>()[k] = index;
        }
      }
    });
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// One line of a scan: out[i] = x[0] op ... op x[i] (inclusive) or op of x[0..i) (exclusive),
// from the other end when reversed. Floating values accumulate in double and each output is
// rounded once; integers wrap.
template <bool is_prod, typename T>
void ScanLine(const T* in, T* out, int64_t base, int64_t stride, int64_t n, bool exclusive,
              bool reverse) {
  using Acc = std::conditional_t<IsFloatingStorage<T>, double, uint64_t>;
  Acc acc = is_prod ? Acc(1) : Acc(0);
  for (int64_t step = 0; step < n; ++step) {
    const int64_t offset = base + (reverse ? n - 1 - step : step) * stride;
    Acc x;
    if constexpr (IsFloatingStorage<T>) {
      x = ToDouble(in[offset]);
    } else {
      x = static_cast<uint64_t>(in[offset]);
    }
    if (!exclusive) acc = is_prod ? acc * x : acc + x;
    if constexpr (IsFloatingStorage<T>) {
      out[offset] = FromDouble<T>(acc);
    } else {
      out[offset] = static_cast<T>(acc);
    }
    if (exclusive) acc = is_prod ? acc * x : acc + x;
  }
}

template <bool is_prod>
absl::Status ScanKernel(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckNumeric(ctx, 0));
  DFC_ASSIGN_OR_RETURN(bool exclusive, ctx.node().GetBool("exclusive", false));
  DFC_ASSIGN_OR_RETURN(bool reverse, ctx.node().GetBool("reverse", false));
  DFC_ASSIGN_OR_RETURN(int64_t axis_value, ReadIndexScalar(ctx, 1, "axis"));
  const Tensor& x = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, axis_value, x.rank()));

  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, x.dtype(), x.shape()));
  if (x.num_elements() > 0) {
    std::vector<int> other_dims;
    for (int d = 0; d < x.rank(); ++d) {
      if (d != axis) other_dims.push_back(d);
    }
    const std::vector<int64_t> lines = OffsetsOver(x.shape(), other_dims);
    const int64_t stride = Strides(x.shape())[axis];
    DispatchDType(x.dtype(), [&]<typename T>() {
      if constexpr (!std::is_same_v<T, bool>) {
        for (int64_t base : lines) {
          ScanLine<is_prod, T>(x.data<T>(), out.mutable_data<T>(), base, stride, x.dim(axis),
                               exclusive, reverse);
        }
      }
    });
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterScanKernels(KernelRegistry& registry) {
  registry.Register("ArgMax", ArgKernel<true>);
  registry.Register("ArgMin", ArgKernel<false>);
  registry.Register("Cumsum", ScanKernel<false>);
  registry.Register("Cumprod", ScanKernel<true>);
}

}  // namespace dfc::reference
