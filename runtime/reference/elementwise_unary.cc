// Reference kernels: unary elementwise ops (the functions of graph/op_semantics/unary.h,
// LeakyRelu, Cast, and the pass-through ops Identity/StopGradient/Snapshot/PreventGradient).
//
// float16 is computed in float and rounded once; float and double in their own type. Integer
// arithmetic wraps modulo 2^bits like TensorFlow's CPU kernels (Abs/Neg of INT_MIN give
// INT_MIN) but is written without signed overflow.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "graph/half.h"
#include "graph/op_semantics/unary.h"
#include "graph/scalar_math.h"
#include "runtime/reference/elementwise_util.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {
namespace {

// --- kernels --------------------------------------------------------------------------------

// out[i] = f(x[i]) for an op of graph/op_semantics/unary.h: the input's dtype, or bool for a
// predicate. An element the function refuses is an error naming it.
template <typename F>
absl::Status MapUnary(KernelContext& ctx, const F& f) {
  constexpr unsigned kClasses = F::kClassesOf;
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kClasses));
  const Tensor& x = ctx.input(0);
  return DispatchDType(x.dtype(), [&]<typename T>() -> absl::Status {
    if constexpr (InClass<T>(kClasses)) {
      using R = std::conditional_t<F::kPredicate, bool, T>;
      DFC_ASSIGN_OR_RETURN(
          Tensor out, AllocateOutput(ctx, F::kPredicate ? DType::kBool : x.dtype(), x.shape()));
      const T* in = x.data<T>();
      R* o = out.mutable_data<R>();
      for (int64_t i = 0; i < x.num_elements(); ++i) {
        const auto r = f.fn(Up(in[i]));
        if constexpr (IsStatusOr<std::remove_const_t<decltype(r)>>::value) {
          if (!r.ok()) {
            return ctx.Error(
                absl::StrCat(r.status().message(), ": element ", i, " of ", x.DebugType()));
          }
          o[i] = Down<T>(*r);
        } else if constexpr (F::kPredicate) {
          o[i] = r;
        } else {
          o[i] = Down<T>(r);
        }
      }
      ctx.set_output(0, std::move(out));
      return absl::OkStatus();
    } else {
      return absl::InternalError("unreachable dtype");
    }
  });
}

// Identity and friends return their input tensor itself: tensors are immutable values.
absl::Status PassThrough(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  ctx.set_output(0, ctx.input(0));
  return absl::OkStatus();
}

template <bool kOne>
absl::Status FillLike(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kAll));
  const Tensor& x = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, x.dtype(), x.shape()));
  if constexpr (kOne) {
    DispatchDType(x.dtype(), [&]<typename T>() {
      for (T& v : out.mutable_flat<T>()) v = Down<T>(ComputeType<T>(1));
    });
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- Cast -----------------------------------------------------------------------------------

// Float to integer the way TensorFlow's CPU Cast does on x86: truncation toward zero through
// cvttss2si/cvttsd2si, which give INT_MIN for NaN and out-of-range values. Types narrower than
// 32 bits go through int32 and keep its low bits, as the compiled static_cast does there
// (300.0 -> int8 44, -1.0 -> uint8 255, NaN -> 0).
template <typename To, typename F>
To FloatToInt(F x) {
  if constexpr (sizeof(To) == 8) {
    constexpr F kLimit = F(9223372036854775808.0);  // 2^63
    if (!(x >= -kLimit && x < kLimit)) return std::numeric_limits<To>::min();
    // Through int64 (cvttsd2si), so that a negative value to uint64 wraps as the compiled
    // cast does on x86, rather than being undefined.
    return static_cast<To>(static_cast<int64_t>(x));
  } else {
    constexpr F kLimit = F(2147483648.0);  // 2^31
    const int32_t i = (x >= -kLimit && x < kLimit) ? static_cast<int32_t>(x)
                                                   : std::numeric_limits<int32_t>::min();
    return static_cast<To>(i);  // modular since C++20
  }
}

template <typename To, typename From>
To ConvertElement(From x) {
  if constexpr (kIsHalf<From>) {
    return ConvertElement<To>(static_cast<float>(x));
  } else if constexpr (kIsBool<To>) {
    return x != From(0);  // NaN is true, as in C
  } else if constexpr (kIsHalf<To>) {
    return Half(static_cast<float>(x));  // double rounds via float, as Eigen::half(double) does
  } else if constexpr (std::is_floating_point_v<To>) {
    return static_cast<To>(x);
  } else if constexpr (std::is_floating_point_v<From>) {
    return FloatToInt<To>(x);
  } else {
    return static_cast<To>(x);  // integer to integer wraps; bool gives 0 or 1
  }
}

// Cast's Truncate=true for a narrowing float conversion: zero the mantissa bits the target
// cannot hold, so the conversion rounds toward zero (TensorFlow's LSBZeroSetter). NaN is kept.
template <typename From>
From DropMantissaBits(From x, int target_mantissa_bits) {
  if (std::isnan(x)) return x;
  using Bits = std::conditional_t<sizeof(From) == 8, uint64_t, uint32_t>;
  const int drop = std::numeric_limits<From>::digits - target_mantissa_bits;
  Bits bits;
  std::memcpy(&bits, &x, sizeof(bits));
  bits &= ~((Bits{1} << drop) - 1);
  std::memcpy(&x, &bits, sizeof(bits));
  return x;
}

absl::Status Cast(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  const Tensor& x = ctx.input(0);
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kAll));
  DFC_ASSIGN_OR_RETURN(DType src, ctx.node().GetType("SrcT", x.dtype()));
  if (src != x.dtype()) {
    return ctx.Error(absl::StrCat("SrcT is ", DTypeName(src), " but the input is ", x.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(DType dst, ctx.node().GetType("DstT"));
  if (!IsSupported(dst) || dst == DType::kString) {
    return ctx.Error(absl::StrCat("cannot cast to DstT ", DTypeName(dst)));
  }
  DFC_ASSIGN_OR_RETURN(bool truncate, ctx.node().GetBool("Truncate", false));
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, dst, x.shape()));
  DispatchDType(x.dtype(), [&]<typename From>() {
    DispatchDType(dst, [&]<typename To>() {
      const From* in = x.data<From>();
      To* o = out.mutable_data<To>();
      for (int64_t i = 0; i < x.num_elements(); ++i) {
        From v = in[i];
        if constexpr (std::is_floating_point_v<From> &&
                      (kIsHalf<To> ||
                       (std::is_floating_point_v<To> && sizeof(To) < sizeof(From)))) {
          if (truncate) v = DropMantissaBits(v, kIsHalf<To> ? 11 : std::numeric_limits<To>::digits);
        }
        o[i] = ConvertElement<To>(v);
      }
    });
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterUnaryKernels(KernelRegistry& registry) {
  ForEachUnaryOp([&registry](const char* op, const auto& f) {
    registry.Register(op, [f](KernelContext& ctx) { return MapUnary(ctx, f); });
  });
  registry.Register("LeakyRelu", [](KernelContext& ctx) -> absl::Status {
    DFC_ASSIGN_OR_RETURN(float alpha, ctx.node().GetFloat("alpha", 0.2f));
    // TensorFlow converts alpha to T before multiplying, so float16 uses alpha rounded to half.
    const float a = ctx.num_inputs() == 1 && ctx.input(0).dtype() == DType::kHalf
                        ? static_cast<float>(Half(alpha))
                        : alpha;
    return MapUnary(ctx, Unary<kFloats>([a]<typename C>(C x) { return LeakyRelu(x, C(a)); }));
  });

  // Conversions and pass-throughs.
  registry.Register("Cast", Cast);
  for (const char* op : {"Identity", "StopGradient", "Snapshot", "PreventGradient"}) {
    registry.Register(op, PassThrough);
  }
  registry.Register("ZerosLike", FillLike<false>);
  registry.Register("OnesLike", FillLike<true>);
}

}  // namespace dfc::reference
