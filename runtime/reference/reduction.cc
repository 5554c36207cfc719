// Reference kernels: reductions over a set of axes (Sum Mean Max Min Prod All Any), L2Loss and
// BiasAddGrad. The arg-reductions and scans (ArgMax ArgMin Cumsum Cumprod) live in scan.cc.
//
// Floating-point sums and products are accumulated in double and rounded once to the output
// dtype, so the oracle is closer to the exact result than TensorFlow's own float accumulation.
// Integer sums and products wrap modulo 2^bits, as TensorFlow's do in practice; they are
// computed in uint64_t so that the wrap is defined behaviour.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"
#include "runtime/reference/reduction_util.h"

namespace dfc::reference {

void RegisterScanKernels(KernelRegistry& registry);  // scan.cc

namespace {

enum class Reduce { kSum, kMean, kProd, kMax, kMin, kAll, kAny };

// The value of one output element of `kind` over the elements of `in` at `base + offsets[r]`.
// An empty set gives TensorFlow's identity: 0, 1, the lowest / highest value (-inf / +inf for
// floats), NaN for a floating Mean and 0 for an integer one.
template <Reduce kind, typename T>
T ReduceGroup(const T* in, int64_t base, std::span<const int64_t> offsets) {
  const int64_t n = static_cast<int64_t>(offsets.size());
  if constexpr (std::is_same_v<T, bool>) {
    static_assert(kind == Reduce::kAll || kind == Reduce::kAny);
    for (int64_t r : offsets) {
      if (in[base + r] != (kind == Reduce::kAll)) return kind != Reduce::kAll;
    }
    return kind == Reduce::kAll;
  } else if constexpr (IsFloatingStorage<T>) {
    if constexpr (kind == Reduce::kMax || kind == Reduce::kMin) {
      // Eigen's MaxReducer<T, PropagateNaN>: any NaN makes the result NaN.
      double best = kind == Reduce::kMax ? -std::numeric_limits<double>::infinity()
                                         : std::numeric_limits<double>::infinity();
      for (int64_t r : offsets) {
        const double x = ToDouble(in[base + r]);
        if (std::isnan(x)) return FromDouble<T>(x);
        best = kind == Reduce::kMax ? std::max(best, x) : std::min(best, x);
      }
      return FromDouble<T>(best);
    } else {
      double acc = kind == Reduce::kProd ? 1.0 : 0.0;
      for (int64_t r : offsets) {
        const double x = ToDouble(in[base + r]);
        acc = kind == Reduce::kProd ? acc * x : acc + x;
      }
      if constexpr (kind == Reduce::kMean) {
        if (n == 0) return FromDouble<T>(std::numeric_limits<double>::quiet_NaN());
        acc /= static_cast<double>(n);
      }
      return FromDouble<T>(acc);
    }
  } else {
    if constexpr (kind == Reduce::kMax || kind == Reduce::kMin) {
      T best =
          kind == Reduce::kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
      for (int64_t r : offsets) {
        best = kind == Reduce::kMax ? std::max(best, in[base + r]) : std::min(best, in[base + r]);
      }
      return best;
    } else {
      uint64_t acc = kind == Reduce::kProd ? 1 : 0;
      for (int64_t r : offsets) {
        const uint64_t x = static_cast<uint64_t>(in[base + r]);
        acc = kind == Reduce::kProd ? acc * x : acc + x;
      }
      if constexpr (kind == Reduce::kMean) {
        // TensorFlow sums narrow integers in a 64-bit type, then divides (truncating); the
        // empty mean is the sum reducer's identity, 0.
        if (n == 0) return T(0);
        if constexpr (std::is_signed_v<T>) {
          return static_cast<T>(static_cast<int64_t>(acc) / n);
        } else {
          return static_cast<T>(acc / static_cast<uint64_t>(n));
        }
      }
      return static_cast<T>(acc);
    }
  }
}

template <Reduce kind>
absl::Status ReduceKernel(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  if constexpr (kind == Reduce::kAll || kind == Reduce::kAny) {
    DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, {DType::kBool}));
  } else {
    DFC_RETURN_IF_ERROR(CheckNumeric(ctx, 0));
  }
  DFC_ASSIGN_OR_RETURN(bool keep_dims, ctx.node().GetBool("keep_dims", false));
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ReadIndexVector(ctx, 1, "reduction_indices"));

  const Tensor& x = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(std::vector<bool> reduced, ReducedAxes(ctx, axes, x.rank()));
  // TensorFlow returns the input itself when nothing is reduced, whatever keep_dims says.
  if (axes.empty()) {
    ctx.set_output(0, x);
    return absl::OkStatus();
  }

  Shape out_shape;
  std::vector<int> kept_dims, reduced_dims;
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
  // Offsets are listed only once the output exists: both lists are then no longer than the
  // output or the input, even when a zero dimension elsewhere makes the other one empty.
  if (out.num_elements() > 0) {
    const std::vector<int64_t> kept = OffsetsOver(x.shape(), kept_dims);
    const std::vector<int64_t> group =
        x.num_elements() > 0 ? OffsetsOver(x.shape(), reduced_dims) : std::vector<int64_t>{};
    DispatchDType(x.dtype(), [&]<typename T>() {
      if constexpr (std::is_same_v<T, bool> == (kind == Reduce::kAll || kind == Reduce::kAny)) {
        const T* in = x.data<T>();
        T* o = out.mutable_data<T>();
        for (size_t k = 0; k < kept.size(); ++k) o[k] = ReduceGroup<kind, T>(in, kept[k], group);
      }
    });
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// L2Loss(t) = sum(t^2) / 2, a scalar of t's dtype.
absl::Status L2Loss(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, {DType::kHalf, DType::kFloat, DType::kDouble}));
  const Tensor& t = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, t.dtype(), {}));
  DispatchDType(t.dtype(), [&]<typename T>() {
    if constexpr (IsFloatingStorage<T>) {
      double sum = 0;
      for (const T& v : t.flat<T>()) sum += ToDouble(v) * ToDouble(v);
      out.mutable_data<T>()[0] = FromDouble<T>(sum / 2);
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// BiasAddGrad(out_backprop): the sum over every dimension but the channel one, which is the
// last for NHWC and dimension 1 for NCHW.
absl::Status BiasAddGrad(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckNumeric(ctx, 0));
  DFC_ASSIGN_OR_RETURN(const std::string data_format, ctx.node().GetString("data_format", "NHWC"));
  // Compared through a view: GCC 12 warns of the string's own bytes as maybe uninitialised
  // where this is inlined beside other kernels.
  const absl::string_view format = data_format;
  if (format != "NHWC" && format != "NCHW") {
    return ctx.Error(absl::StrCat("data_format must be NHWC or NCHW, got \"", format, "\""));
  }
  const Tensor& g = ctx.input(0);
  if (g.rank() < 2) {
    return ctx.Error(absl::StrCat("out_backprop must have rank >= 2, got ", g.DebugType()));
  }
  const int channel_dim = format == "NCHW" ? 1 : g.rank() - 1;
  std::vector<int> summed_dims;
  for (int d = 0; d < g.rank(); ++d) {
    if (d != channel_dim) summed_dims.push_back(d);
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, g.dtype(), {g.dim(channel_dim)}));
  if (out.num_elements() > 0) {
    const std::vector<int64_t> channels = OffsetsOver(g.shape(), {channel_dim});
    const std::vector<int64_t> group =
        g.num_elements() > 0 ? OffsetsOver(g.shape(), summed_dims) : std::vector<int64_t>{};
    DispatchDType(g.dtype(), [&]<typename T>() {
      if constexpr (!std::is_same_v<T, bool>) {
        T* o = out.mutable_data<T>();
        for (size_t c = 0; c < channels.size(); ++c) {
          o[c] = ReduceGroup<Reduce::kSum, T>(g.data<T>(), channels[c], group);
        }
      }
    });
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterReductionKernels(KernelRegistry& registry) {
  registry.Register("Sum", ReduceKernel<Reduce::kSum>);
  registry.Register("Mean", ReduceKernel<Reduce::kMean>);
  registry.Register("Prod", ReduceKernel<Reduce::kProd>);
  registry.Register("Max", ReduceKernel<Reduce::kMax>);
  registry.Register("Min", ReduceKernel<Reduce::kMin>);
  registry.Register("All", ReduceKernel<Reduce::kAll>);
  registry.Register("Any", ReduceKernel<Reduce::kAny>);
  registry.Register("L2Loss", L2Loss);
  registry.Register("BiasAddGrad", BiasAddGrad);
  RegisterScanKernels(registry);
}

}  // namespace dfc::reference
