// Reference kernels: unary elementwise ops (math, activations, predicates, Cast, and the
// pass-through ops Identity/StopGradient/Snapshot/PreventGradient).
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
#include "graph/dtype.h"
#include "graph/half.h"
#include "graph/scalar_math.h"
#include "runtime/reference/elementwise_util.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {
namespace {

// --- kernels --------------------------------------------------------------------------------

// out[i] = op(x[i]) with the same dtype; op maps ComputeType<T> to ComputeType<T>.
template <unsigned kClasses, typename Op>
absl::Status MapSameType(KernelContext& ctx, Op op) {
  if (absl::Status s = CheckNumInputs(ctx, 1); !s.ok()) return s;
  if (absl::Status s = CheckClass(ctx, 0, kClasses); !s.ok()) return s;
  const Tensor& x = ctx.input(0);
  return DispatchDType(x.dtype(), [&]<typename T>() -> absl::Status {
    if constexpr (InClass<T>(kClasses)) {
      absl::StatusOr<Tensor> out = AllocateOutput(ctx, x.dtype(), x.shape());
      if (!out.ok()) return out.status();
      const T* in = x.data<T>();
      T* o = out->mutable_data<T>();
      for (int64_t i = 0; i < x.num_elements(); ++i) o[i] = Down<T>(op(Up(in[i])));
      ctx.set_output(0, *std::move(out));
      return absl::OkStatus();
    } else {
      return absl::InternalError("unreachable dtype");
    }
  });
}

// out[i] = pred(x[i]) as bool.
template <unsigned kClasses, typename Pred>
absl::Status MapToBool(KernelContext& ctx, Pred pred) {
  if (absl::Status s = CheckNumInputs(ctx, 1); !s.ok()) return s;
  if (absl::Status s = CheckClass(ctx, 0, kClasses); !s.ok()) return s;
  const Tensor& x = ctx.input(0);
  return DispatchDType(x.dtype(), [&]<typename T>() -> absl::Status {
    if constexpr (InClass<T>(kClasses)) {
      absl::StatusOr<Tensor> out = AllocateOutput(ctx, DType::kBool, x.shape());
      if (!out.ok()) return out.status();
      const T* in = x.data<T>();
      bool* o = out->mutable_data<bool>();
      for (int64_t i = 0; i < x.num_elements(); ++i) o[i] = pred(Up(in[i]));
      ctx.set_output(0, *std::move(out));
      return absl::OkStatus();
    } else {
      return absl::InternalError("unreachable dtype");
    }
  });
}

// Registers op `name` as MapSameType<kClasses>(op).
template <unsigned kClasses, typename Op>
void RegisterMap(KernelRegistry& registry, absl::string_view name, Op op) {
  registry.Register(name, [op](KernelContext& ctx) { return MapSameType<kClasses>(ctx, op); });
}

// Identity and friends return their input tensor itself: tensors are immutable values.
absl::Status PassThrough(KernelContext& ctx) {
  if (absl::Status s = CheckNumInputs(ctx, 1); !s.ok()) return s;
  ctx.set_output(0, ctx.input(0));
  return absl::OkStatus();
}

template <bool kOne>
absl::Status FillLike(KernelContext& ctx) {
  if (absl::Status s = CheckNumInputs(ctx, 1); !s.ok()) return s;
  if (absl::Status s = CheckClass(ctx, 0, kAll); !s.ok()) return s;
  const Tensor& x = ctx.input(0);
  absl::StatusOr<Tensor> out = AllocateOutput(ctx, x.dtype(), x.shape());
  if (!out.ok()) return out.status();
  if constexpr (kOne) {
    DispatchDType(x.dtype(), [&]<typename T>() {
      for (T& v : out->mutable_flat<T>()) v = Down<T>(ComputeType<T>(1));
    });
  }
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

// Integer 1/x truncates (1, -1 or 0); 1/0 is an error rather than a trap.
absl::Status Reciprocal(KernelContext& ctx) {
  if (absl::Status s = CheckNumInputs(ctx, 1); !s.ok()) return s;
  const Tensor& x = ctx.input(0);
  if (IsInteger(x.dtype())) {
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      if (x.ElementAsInt64(i) == 0) {
        return ctx.Error(
            absl::StrCat("Integer division by zero: element ", i, " of ", x.DebugType(), " is 0"));
      }
    }
  }
  return MapSameType<kNumbers>(ctx, []<typename C>(C v) -> C {
    if constexpr (std::is_integral_v<C>) {
      if (v == C{1}) return C{1};
      if constexpr (std::is_signed_v<C>) {
        if (v == C{-1}) return C{-1};
      }
      return C{0};
    } else {
      return C{1} / v;
    }
  });
}

// Round half to even (banker's rounding), as TensorFlow's Round and Rint do: nearbyint in the
// default round-to-nearest-even mode, which nothing in dfc changes. Keeps -0 and NaN.
template <typename C>
C RoundHalfToEven(C x) {
  return std::nearbyint(x);
}

// Maximum/minimum that return x when x is NaN (TensorFlow's Relu(NaN) is NaN).
template <typename C>
C MaxKeepNaN(C x, C bound) {
  return x < bound ? bound : x;
}
template <typename C>
C MinKeepNaN(C x, C bound) {
  return x > bound ? bound : x;
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
  if (absl::Status s = CheckNumInputs(ctx, 1); !s.ok()) return s;
  const Tensor& x = ctx.input(0);
  if (absl::Status s = CheckClass(ctx, 0, kAll); !s.ok()) return s;
  absl::StatusOr<DType> src = ctx.node().GetType("SrcT", x.dtype());
  if (!src.ok()) return src.status();
  if (*src != x.dtype()) {
    return ctx.Error(
        absl::StrCat("SrcT is ", DTypeName(*src), " but the input is ", x.DebugType()));
  }
  absl::StatusOr<DType> dst = ctx.node().GetType("DstT");
  if (!dst.ok()) return dst.status();
  if (!IsSupported(*dst) || *dst == DType::kString) {
    return ctx.Error(absl::StrCat("cannot cast to DstT ", DTypeName(*dst)));
  }
  absl::StatusOr<bool> truncate = ctx.node().GetBool("Truncate", false);
  if (!truncate.ok()) return truncate.status();
  absl::StatusOr<Tensor> out = AllocateOutput(ctx, *dst, x.shape());
  if (!out.ok()) return out.status();
  DispatchDType(x.dtype(), [&]<typename From>() {
    DispatchDType(*dst, [&]<typename To>() {
      const From* in = x.data<From>();
      To* o = out->mutable_data<To>();
      for (int64_t i = 0; i < x.num_elements(); ++i) {
        From v = in[i];
        if constexpr (std::is_floating_point_v<From> &&
                      (kIsHalf<To> ||
                       (std::is_floating_point_v<To> && sizeof(To) < sizeof(From)))) {
          if (*truncate)
            v = DropMantissaBits(v, kIsHalf<To> ? 11 : std::numeric_limits<To>::digits);
        }
        o[i] = ConvertElement<To>(v);
      }
    });
  });
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterUnaryKernels(KernelRegistry& registry) {
  // Signed magnitude ops; INT_MIN maps to itself.
  RegisterMap<kFloats | kSigned>(registry, "Abs", []<typename C>(C x) -> C {
    if constexpr (std::is_integral_v<C>) {
      return x < 0 ? WrapNeg(x) : x;
    } else {
      return std::fabs(x);
    }
  });
  RegisterMap<kFloats | kSigned>(registry, "Neg", []<typename C>(C x) { return WrapNeg(x); });
  // Sign of 0 is 0; sign of NaN is NaN (as NumPy and current TensorFlow give).
  RegisterMap<kNumbers>(registry, "Sign", []<typename C>(C x) -> C {
    if constexpr (!std::is_integral_v<C>) {
      if (std::isnan(x)) return x;
    }
    return static_cast<C>((C(0) < x) - (x < C(0)));
  });
  RegisterMap<kNumbers>(registry, "Square", []<typename C>(C x) { return WrapMul(x, x); });
  registry.Register("Reciprocal", Reciprocal);
  registry.Register("Inv", Reciprocal);

  // Rounding. Round on integers is the identity (TensorFlow defines it for them).
  RegisterMap<kFloats>(registry, "Floor", []<typename C>(C x) { return std::floor(x); });
  RegisterMap<kFloats>(registry, "Ceil", []<typename C>(C x) { return std::ceil(x); });
  RegisterMap<kNumbers>(registry, "Round", []<typename C>(C x) -> C {
    if constexpr (std::is_integral_v<C>) {
      return x;
    } else {
      return RoundHalfToEven(x);
    }
  });
  RegisterMap<kFloats>(registry, "Rint", []<typename C>(C x) { return RoundHalfToEven(x); });

  // Exponentials, logarithms, roots.
  RegisterMap<kFloats>(registry, "Exp", []<typename C>(C x) { return std::exp(x); });
  RegisterMap<kFloats>(registry, "Expm1", []<typename C>(C x) { return std::expm1(x); });
  RegisterMap<kFloats>(registry, "Log", []<typename C>(C x) { return std::log(x); });
  RegisterMap<kFloats>(registry, "Log1p", []<typename C>(C x) { return std::log1p(x); });
  RegisterMap<kFloats>(registry, "Sqrt", []<typename C>(C x) { return std::sqrt(x); });
  RegisterMap<kFloats>(registry, "Rsqrt", []<typename C>(C x) { return C(1) / std::sqrt(x); });

  // Trigonometric and hyperbolic functions.
  RegisterMap<kFloats>(registry, "Sin", []<typename C>(C x) { return std::sin(x); });
  RegisterMap<kFloats>(registry, "Cos", []<typename C>(C x) { return std::cos(x); });
  RegisterMap<kFloats>(registry, "Tan", []<typename C>(C x) { return std::tan(x); });
  RegisterMap<kFloats>(registry, "Asin", []<typename C>(C x) { return std::asin(x); });
  RegisterMap<kFloats>(registry, "Acos", []<typename C>(C x) { return std::acos(x); });
  RegisterMap<kFloats>(registry, "Atan", []<typename C>(C x) { return std::atan(x); });
  RegisterMap<kFloats>(registry, "Sinh", []<typename C>(C x) { return std::sinh(x); });
  RegisterMap<kFloats>(registry, "Cosh", []<typename C>(C x) { return std::cosh(x); });
  RegisterMap<kFloats>(registry, "Tanh", []<typename C>(C x) { return std::tanh(x); });
  RegisterMap<kFloats>(registry, "Asinh", []<typename C>(C x) { return std::asinh(x); });
  RegisterMap<kFloats>(registry, "Acosh", []<typename C>(C x) { return std::acosh(x); });
  RegisterMap<kFloats>(registry, "Atanh", []<typename C>(C x) { return std::atanh(x); });
  RegisterMap<kFloats>(registry, "Erf", []<typename C>(C x) { return std::erf(x); });
  RegisterMap<kFloats>(registry, "Erfc", []<typename C>(C x) { return std::erfc(x); });

  // Activations.
  RegisterMap<kFloats>(registry, "Sigmoid", []<typename C>(C x) { return Sigmoid(x); });
  RegisterMap<kNumbers>(registry, "Relu", []<typename C>(C x) { return MaxKeepNaN(x, C(0)); });
  RegisterMap<kNumbers>(registry, "Relu6",
                        []<typename C>(C x) { return MinKeepNaN(MaxKeepNaN(x, C(0)), C(6)); });
  RegisterMap<kFloats>(registry, "Elu",
                       []<typename C>(C x) { return x < C(0) ? std::expm1(x) : x; });
  RegisterMap<kFloats>(registry, "Selu", []<typename C>(C x) {
    // scale = 1.0507009873554804934193349852946, alpha = 1.6732632423543772848170429916717;
    // the negative side uses their product rounded once, as TensorFlow does.
    const C scale = C(1.0507009873554804934193349852946);
    const C scale_alpha = C(1.7580993408473768599402175208123);
    return x < C(0) ? scale_alpha * std::expm1(x) : scale * x;
  });
  RegisterMap<kFloats>(registry, "Softplus", []<typename C>(C x) { return Softplus(x); });
  RegisterMap<kFloats>(registry, "Softsign",
                       []<typename C>(C x) { return x / (C(1) + std::fabs(x)); });
  registry.Register("LeakyRelu", [](KernelContext& ctx) -> absl::Status {
    absl::StatusOr<float> alpha = ctx.node().GetFloat("alpha", 0.2f);
    if (!alpha.ok()) return alpha.status();
    // TensorFlow converts alpha to T before multiplying, so float16 uses alpha rounded to half.
    const float a = ctx.num_inputs() == 1 && ctx.input(0).dtype() == DType::kHalf
                        ? static_cast<float>(Half(*alpha))
                        : *alpha;
    return MapSameType<kFloats>(ctx, [a]<typename C>(C x) { return x > C(0) ? x : x * C(a); });
  });

  // Predicates.
  registry.Register("IsNan", [](KernelContext& ctx) {
    return MapToBool<kFloats>(ctx, []<typename C>(C x) { return std::isnan(x); });
  });
  registry.Register("IsInf", [](KernelContext& ctx) {
    return MapToBool<kFloats>(ctx, []<typename C>(C x) { return std::isinf(x); });
  });
  registry.Register("IsFinite", [](KernelContext& ctx) {
    return MapToBool<kFloats>(ctx, []<typename C>(C x) { return std::isfinite(x); });
  });
  RegisterMap<kBools>(registry, "LogicalNot", [](bool x) { return !x; });

  // Conversions and pass-throughs.
  registry.Register("Cast", Cast);
  for (const char* op : {"Identity", "StopGradient", "Snapshot", "PreventGradient"}) {
    registry.Register(op, PassThrough);
  }
  registry.Register("ZerosLike", FillLike<false>);
  registry.Register("OnesLike", FillLike<true>);
}

}  // namespace dfc::reference
