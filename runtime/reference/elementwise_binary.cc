// Reference kernels: binary elementwise ops with NumPy broadcasting (arithmetic, division
// and modulo families, comparisons, logical ops), plus BiasAdd, Select/SelectV2 and
// AddN/AccumulateNV2.
//
// float16 is computed in float and rounded once. Integer arithmetic wraps modulo 2^bits as
// TensorFlow's CPU kernels do, written without signed overflow; integer division or modulo by
// zero is an error ("Integer division by zero", as TensorFlow says), and INT_MIN / -1 wraps to
// INT_MIN (INT_MIN % -1 is 0) instead of trapping.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "graph/half.h"
#include "graph/op_semantics/binary.h"
#include "graph/scalar_math.h"
#include "runtime/reference/broadcast.h"
#include "runtime/reference/elementwise_util.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {
namespace {

// --- the broadcasting kernel --------------------------------------------------------------------

// The second operand's elements `guard` refuses, checked before any element is computed (and
// only when the result has elements, as TensorFlow evaluates nothing for an empty result).
absl::Status RunGuard(const KernelContext& ctx, BinaryGuard guard) {
  const Tensor& y = ctx.input(1);
  if (guard == BinaryGuard::kNone || !IsInteger(y.dtype())) return absl::OkStatus();
  const char* operand = guard == BinaryGuard::kNonzeroIntDivisor ? "divisor" : "exponent";
  for (int64_t i = 0; i < y.num_elements(); ++i) {
    const int64_t v = y.ElementAsInt64(i);
    if (const char* refusal = GuardRefusal(guard, v)) {
      return ctx.Error(absl::StrCat(refusal, ": element ", i, " of the ", operand, " ",
                                    y.DebugType(), " is ", v));
    }
  }
  return absl::OkStatus();
}

// out = f(x, y) elementwise over the broadcast shape of x and y, for an op of
// graph/op_semantics/binary.h: the operands' dtype, or bool for a comparison.
template <typename F>
absl::Status MapBinary(KernelContext& ctx, const F& f) {
  constexpr unsigned kClasses = F::kClassesOf;
  constexpr bool kBoolOut = F::kPredicate;
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckSameDType(ctx, 0, 1));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kClasses));
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  absl::StatusOr<Shape> shape = BroadcastShapes(x.shape(), y.shape());
  if (!shape.ok()) return ctx.Error(shape.status().message());
  DFC_ASSIGN_OR_RETURN(Tensor out,
                       AllocateOutput(ctx, kBoolOut ? DType::kBool : x.dtype(), *shape));
  if (out.num_elements() > 0) {
    DFC_RETURN_IF_ERROR(RunGuard(ctx, f.guard));
  }
  const BroadcastIndexer xi(x.shape(), *shape);
  const BroadcastIndexer yi(y.shape(), *shape);
  absl::Status status = DispatchDType(x.dtype(), [&]<typename T>() -> absl::Status {
    if constexpr (InClass<T>(kClasses)) {
      using R = std::conditional_t<kBoolOut, bool, T>;
      const T* a = x.data<T>();
      const T* b = y.data<T>();
      R* o = out.mutable_data<R>();
      for (int64_t i = 0; i < out.num_elements(); ++i) {
        const auto r = f.fn(Up(a[xi.Offset(i)]), Up(b[yi.Offset(i)]));
        if constexpr (kBoolOut) {
          o[i] = r;
        } else {
          o[i] = Down<T>(r);
        }
      }
      return absl::OkStatus();
    } else {
      return absl::InternalError("unreachable dtype");
    }
  });
  if (!status.ok()) return status;
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// Equal/NotEqual: with incompatible_shape_error=false, shapes that do not broadcast give the
// scalar `if_incompatible` instead of an error.
template <typename F>
absl::Status EqualityKernel(KernelContext& ctx, const F& f, bool if_incompatible) {
  DFC_ASSIGN_OR_RETURN(bool strict, ctx.node().GetBool("incompatible_shape_error", true));
  if (!strict && ctx.num_inputs() == 2 &&
      !BroadcastShapes(ctx.input(0).shape(), ctx.input(1).shape()).ok()) {
    ctx.set_output(0, Tensor::Scalar<bool>(if_incompatible));
    return absl::OkStatus();
  }
  return MapBinary(ctx, f);
}

// --- BiasAdd, Select, AddN
// ------------------------------------------------------------------------

absl::Status BiasAdd(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckSameDType(ctx, 0, 1));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kNumbers));
  const Tensor& value = ctx.input(0);
  const Tensor& bias = ctx.input(1);
  DFC_ASSIGN_OR_RETURN(std::string format, ctx.node().GetString("data_format", "NHWC"));
  if (format != "NHWC" && format != "NCHW") {
    return ctx.Error(absl::StrCat("data_format must be NHWC or NCHW, got \"", format, "\""));
  }
  if (value.rank() < 2) {
    return ctx.Error(absl::StrCat("value must have rank at least 2, got ", value.DebugType()));
  }
  if (bias.rank() != 1) {
    return ctx.Error(absl::StrCat("bias must be a vector, got ", bias.DebugType()));
  }
  const int channel_dim = format == "NCHW" ? 1 : value.rank() - 1;
  const int64_t channels = value.dim(channel_dim);
  if (bias.dim(0) != channels) {
    return ctx.Error(absl::StrCat("bias has ", bias.dim(0), " elements but value ",
                                  value.DebugType(), " has ", channels, " channels in dimension ",
                                  channel_dim, " (", format, ")"));
  }
  int64_t inner = 1;  // elements between consecutive channels
  for (int d = channel_dim + 1; d < value.rank(); ++d) inner *= value.dim(d);
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, value.dtype(), value.shape()));
  DispatchDType(value.dtype(), [&]<typename T>() {
    if constexpr (InClass<T>(kNumbers)) {
      const T* v = value.data<T>();
      const T* b = bias.data<T>();
      T* o = out.mutable_data<T>();
      for (int64_t i = 0; i < value.num_elements(); ++i) {
        o[i] = Down<T>(WrapAdd(Up(v[i]), Up(b[(i / inner) % channels])));
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// out[i] = cond[ci(i)] ? t[ti(i)] : e[ei(i)], with each input read through its own index map.
template <typename CondIndex, typename TIndex, typename EIndex>
absl::Status SelectElements(KernelContext& ctx, const Shape& shape, CondIndex ci, TIndex ti,
                            EIndex ei) {
  const Tensor& cond = ctx.input(0);
  const Tensor& t = ctx.input(1);
  const Tensor& e = ctx.input(2);
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, t.dtype(), shape));
  const bool* c = cond.data<bool>();
  DispatchDType(t.dtype(), [&]<typename T>() {
    const T* tv = t.data<T>();
    const T* ev = e.data<T>();
    T* o = out.mutable_data<T>();
    for (int64_t i = 0; i < out.num_elements(); ++i) o[i] = c[ci(i)] ? tv[ti(i)] : ev[ei(i)];
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status CheckSelectInputs(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  if (ctx.input(0).dtype() != DType::kBool) {
    return ctx.Error(absl::StrCat("condition must be bool, got ", ctx.input(0).DebugType()));
  }
  DFC_RETURN_IF_ERROR(CheckSameDType(ctx, 1, 2));
  return CheckClass(ctx, 1, kAll);
}

// Select (v1): t and e have one shape; the condition has that shape, or is a vector over
// t's first dimension (choosing whole rows), or is a scalar (choosing a whole tensor).
absl::Status Select(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckSelectInputs(ctx));
  const Tensor& cond = ctx.input(0);
  const Tensor& t = ctx.input(1);
  const Tensor& e = ctx.input(2);
  if (t.shape() != e.shape()) {
    return ctx.Error(absl::StrCat("t and e must have the same shape, got ", t.DebugType(), " and ",
                                  e.DebugType()));
  }
  auto same = [](int64_t i) { return i; };
  if (cond.shape() == t.shape()) return SelectElements(ctx, t.shape(), same, same, same);
  if (cond.rank() == 0) {
    return SelectElements(
        ctx, t.shape(), [](int64_t) { return int64_t{0}; }, same, same);
  }
  if (cond.rank() == 1 && t.rank() >= 1 && cond.dim(0) == t.dim(0)) {
    const int64_t row = t.dim(0) == 0 ? 1 : t.num_elements() / t.dim(0);
    return SelectElements(
        ctx, t.shape(), [row](int64_t i) { return i / row; }, same, same);
  }
  return ctx.Error(absl::StrCat("condition ", cond.DebugType(),
                                " must be a scalar, have the shape of t ", t.DebugType(),
                                ", or be a vector as long as t's first dimension"));
}

// SelectV2: condition, t and e broadcast together.
absl::Status SelectV2(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckSelectInputs(ctx));
  const Tensor& cond = ctx.input(0);
  const Tensor& t = ctx.input(1);
  const Tensor& e = ctx.input(2);
  absl::StatusOr<Shape> te = BroadcastShapes(t.shape(), e.shape());
  if (!te.ok()) return ctx.Error(absl::StrCat("t and e: ", te.status().message()));
  absl::StatusOr<Shape> shape = BroadcastShapes(cond.shape(), *te);
  if (!shape.ok()) return ctx.Error(absl::StrCat("condition and t/e: ", shape.status().message()));
  const BroadcastIndexer ci(cond.shape(), *shape);
  const BroadcastIndexer ti(t.shape(), *shape);
  const BroadcastIndexer ei(e.shape(), *shape);
  return SelectElements(
      ctx, *shape, [&ci](int64_t i) { return ci.Offset(i); },
      [&ti](int64_t i) { return ti.Offset(i); }, [&ei](int64_t i) { return ei.Offset(i); });
}

// AddN / AccumulateNV2: the sum of N >= 1 tensors of one dtype and one shape, added in input
// order (float16 summed in float and rounded once).
absl::Status AddN(KernelContext& ctx) {
  if (ctx.num_inputs() < 1) return ctx.Error("needs at least one input, got none");
  const Tensor& first = ctx.input(0);
  for (int k = 0; k < ctx.num_inputs(); ++k) {
    DFC_RETURN_IF_ERROR(CheckSameDType(ctx, 0, k));
    if (ctx.input(k).shape() != first.shape()) {
      return ctx.Error(absl::StrCat("all inputs must have the same shape, got ", first.DebugType(),
                                    " (input 0) and ", ctx.input(k).DebugType(), " (input ", k,
                                    ")"));
    }
  }
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kNumbers));
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, first.dtype(), first.shape()));
  DispatchDType(first.dtype(), [&]<typename T>() {
    if constexpr (InClass<T>(kNumbers)) {
      T* o = out.mutable_data<T>();
      for (int64_t i = 0; i < first.num_elements(); ++i) {
        ComputeType<T> sum = Up(first.data<T>()[i]);
        for (int k = 1; k < ctx.num_inputs(); ++k) {
          sum = WrapAdd(sum, Up(ctx.input(k).data<T>()[i]));
        }
        o[i] = Down<T>(sum);
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterBinaryKernels(KernelRegistry& registry) {
  ForEachBinaryOp([&registry](const char* op, const auto& f) {
    if (const std::optional<bool> answer = f.if_incompatible_shapes) {
      registry.Register(
          op, [f, answer](KernelContext& ctx) { return EqualityKernel(ctx, f, *answer); });
    } else {
      registry.Register(op, [f](KernelContext& ctx) { return MapBinary(ctx, f); });
    }
  });
  registry.Register("BiasAdd", BiasAdd);
  registry.Register("Select", Select);
  registry.Register("SelectV2", SelectV2);
  registry.Register("AddN", AddN);
  registry.Register("AccumulateNV2", AddN);
}

}  // namespace dfc::reference
