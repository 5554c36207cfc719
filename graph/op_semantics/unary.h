// TensorFlow's unary elementwise ops of one value: each op's dtype classes and its function of
// an element in its compute type (ComputeType<T>: float16 in float, integers wrapping modulo
// 2^bits, NaN kept where TensorFlow keeps it). The one table the reference kernels and the IR
// translation's host functions are made from; the translation adds each op's OpenCL body.
#ifndef DFC_GRAPH_OP_SEMANTICS_UNARY_H_
#define DFC_GRAPH_OP_SEMANTICS_UNARY_H_

#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/bitwise_math.h"
#include "graph/dtype_class.h"
#include "graph/scalar_math.h"

namespace dfc {

// An op's function `fn` of one element, defined for the dtypes of `kClasses`; a predicate
// (`kToBool`) answers a bool. `fn` may answer absl::StatusOr to refuse an element.
template <unsigned kClasses, bool kToBool, typename Fn>
struct UnaryFunction {
  static constexpr unsigned kClassesOf = kClasses;
  static constexpr bool kPredicate = kToBool;
  Fn fn;
};

// Whether a function's answer is an absl::StatusOr (it may refuse an element).
template <typename R>
struct IsStatusOr : std::false_type {};
template <typename R>
struct IsStatusOr<absl::StatusOr<R>> : std::true_type {};

template <unsigned kClasses, bool kToBool = false, typename Fn>
constexpr UnaryFunction<kClasses, kToBool, Fn> Unary(Fn fn) {
  return {fn};
}

// SELU's scale, and scale * alpha rounded once (as TensorFlow does).
inline constexpr double kSeluScale = 1.0507009873554804934193349852946;
inline constexpr double kSeluScaleAlpha = 1.7580993408473768599402175208123;

// LeakyRelu of `x` by its attribute `alpha`, given in x's compute type (float16's rounded to
// half first, as TensorFlow converts alpha to T).
template <typename C>
C LeakyRelu(C x, C alpha) {
  return x > C(0) ? x : x * alpha;
}

// Giles' polynomials for erfinv ("Approximating the erfinv function", GPU Computing Gems, 2011),
// highest power first: of w - 2.5 where w = -log(1 - x^2) < 5, else of sqrt(w) - 3; their
// product with x is within 1.3e-7 of erfinv(x), relatively, wherever 1 - |x| is at least
// float's epsilon.
inline constexpr std::array<double, 9> kErfinvCentral = {
    2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
    -0.00125372503, -0.00417768164, 0.246640727,    1.50140941};
inline constexpr std::array<double, 9> kErfinvTail = {
    -0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
    -0.0076224613,   0.00943887047,  1.00167406,    2.83297682};
// The Newton steps that take Giles' estimate to double's precision everywhere (measured: 1.6e-16
// relative at 1 - |x| = 2^-53, where the estimate is 12% off).
inline constexpr int kErfinvNewtonSteps = 4;
// erf'(x) = kErfSlopeAtZero * e^(-x^2).
inline constexpr double kErfSlopeAtZero = 2 * std::numbers::inv_sqrtpi;

// erfinv(y) in double, however it is rounded after: Giles' estimate refined by Newton's method
// on erf(x) = |y|, or on log(erfc(x)) = log(1 - |y|) past 0.5, where erf has no digits left to
// compare and the logarithm is nearly quadratic in x.
inline double Erfinv(double y) {
  const double a = std::fabs(y);
  if (!(a < 1)) {
    return a == 1 ? std::copysign(std::numeric_limits<double>::infinity(), y)
                  : std::numeric_limits<double>::quiet_NaN();
  }
  double w = -std::log((1 - a) * (1 + a));
  const bool central = w < 5;
  w = central ? w - 2.5 : std::sqrt(w) - 3;
  double p = 0;
  for (double c : central ? kErfinvCentral : kErfinvTail) p = c + p * w;
  double x = p * a;
  for (int k = 0; k < kErfinvNewtonSteps; ++k) {
    const double slope = kErfSlopeAtZero * std::exp(-x * x);
    if (a <= 0.5) {
      x -= (std::erf(x) - a) / slope;
    } else {
      const double tail = std::erfc(x);
      x += (std::log(tail) - std::log1p(-a)) * tail / slope;
    }
  }
  return std::copysign(x, y);
}

// Calls `visit(op, function)` for each op of the table, `function` a UnaryFunction.
template <typename Visit>
void ForEachUnaryOp(Visit&& visit) {
  // Signed magnitudes; integers wrap, so Abs and Neg of INT_MIN give INT_MIN.
  visit("Abs", Unary<kFloats | kSigned>([]<typename C>(C x) -> C {
          if constexpr (std::is_integral_v<C>) {
            return x < 0 ? WrapNeg(x) : x;
          } else {
            return std::fabs(x);
          }
        }));
  visit("Neg", Unary<kFloats | kSigned>([]<typename C>(C x) { return WrapNeg(x); }));
  // Sign of 0 is 0, of NaN is NaN (as NumPy and current TensorFlow give).
  visit("Sign", Unary<kNumbers>([]<typename C>(C x) -> C {
          if constexpr (!std::is_integral_v<C>) {
            if (std::isnan(x)) return x;
          }
          return static_cast<C>((C(0) < x) - (x < C(0)));
        }));
  visit("Square", Unary<kNumbers>([]<typename C>(C x) { return WrapMul(x, x); }));
  // Integer 1/x truncates to 1, -1 or 0; 1/0 is refused (a device cannot report it, and
  // gives 0).
  const auto reciprocal = Unary<kNumbers>([]<typename C>(C x) -> absl::StatusOr<C> {
    if constexpr (std::is_integral_v<C>) {
      if (x == C{0}) return absl::InvalidArgumentError("Integer division by zero");
      if (x == C{1}) return C{1};
      if constexpr (std::is_signed_v<C>) {
        if (x == C{-1}) return C{-1};
      }
      return C{0};
    } else {
      return C{1} / x;
    }
  });
  visit("Reciprocal", reciprocal);
  visit("Inv", reciprocal);

  // Rounding. Round and Rint are half to even (nearbyint in the default rounding mode, which
  // nothing in dfc changes); Round is the identity on integers.
  visit("Floor", Unary<kFloats>([]<typename C>(C x) { return std::floor(x); }));
  visit("Ceil", Unary<kFloats>([]<typename C>(C x) { return std::ceil(x); }));
  visit("Round", Unary<kNumbers>([]<typename C>(C x) -> C {
          if constexpr (std::is_integral_v<C>) {
            return x;
          } else {
            return std::nearbyint(x);
          }
        }));
  visit("Rint", Unary<kFloats>([]<typename C>(C x) { return std::nearbyint(x); }));

  // Exponentials, logarithms, roots, trigonometry.
  visit("Exp", Unary<kFloats>([]<typename C>(C x) { return std::exp(x); }));
  visit("Expm1", Unary<kFloats>([]<typename C>(C x) { return std::expm1(x); }));
  visit("Log", Unary<kFloats>([]<typename C>(C x) { return std::log(x); }));
  visit("Log1p", Unary<kFloats>([]<typename C>(C x) { return std::log1p(x); }));
  visit("Sqrt", Unary<kFloats>([]<typename C>(C x) { return std::sqrt(x); }));
  visit("Rsqrt", Unary<kFloats>([]<typename C>(C x) { return C(1) / std::sqrt(x); }));
  visit("Sin", Unary<kFloats>([]<typename C>(C x) { return std::sin(x); }));
  visit("Cos", Unary<kFloats>([]<typename C>(C x) { return std::cos(x); }));
  visit("Tan", Unary<kFloats>([]<typename C>(C x) { return std::tan(x); }));
  visit("Asin", Unary<kFloats>([]<typename C>(C x) { return std::asin(x); }));
  visit("Acos", Unary<kFloats>([]<typename C>(C x) { return std::acos(x); }));
  visit("Atan", Unary<kFloats>([]<typename C>(C x) { return std::atan(x); }));
  visit("Sinh", Unary<kFloats>([]<typename C>(C x) { return std::sinh(x); }));
  visit("Cosh", Unary<kFloats>([]<typename C>(C x) { return std::cosh(x); }));
  visit("Tanh", Unary<kFloats>([]<typename C>(C x) { return std::tanh(x); }));
  visit("Asinh", Unary<kFloats>([]<typename C>(C x) { return std::asinh(x); }));
  visit("Acosh", Unary<kFloats>([]<typename C>(C x) { return std::acosh(x); }));
  visit("Atanh", Unary<kFloats>([]<typename C>(C x) { return std::atanh(x); }));
  visit("Erf", Unary<kFloats>([]<typename C>(C x) { return std::erf(x); }));
  visit("Erfc", Unary<kFloats>([]<typename C>(C x) { return std::erfc(x); }));
  visit("Erfinv", Unary<kFloats>([]<typename C>(C x) { return static_cast<C>(Erfinv(x)); }));

  // Activations. `x < 0 ? 0 : x` rather than max(), which would turn NaN into 0 (TensorFlow's
  // Relu(NaN) is NaN).
  visit("Sigmoid", Unary<kFloats>([]<typename C>(C x) { return Sigmoid(x); }));
  visit("Relu", Unary<kNumbers>([]<typename C>(C x) { return x < C(0) ? C(0) : x; }));
  visit("Relu6", Unary<kNumbers>([]<typename C>(C x) {
          const C y = x < C(0) ? C(0) : x;
          return y > C(6) ? C(6) : y;
        }));
  visit("Elu", Unary<kFloats>([]<typename C>(C x) { return x < C(0) ? std::expm1(x) : x; }));
  visit("Selu", Unary<kFloats>([]<typename C>(C x) {
          return x < C(0) ? C(kSeluScaleAlpha) * std::expm1(x) : C(kSeluScale) * x;
        }));
  visit("Softplus", Unary<kFloats>([]<typename C>(C x) { return Softplus(x); }));
  visit("Softsign", Unary<kFloats>([]<typename C>(C x) { return x / (C(1) + std::fabs(x)); }));

  // Predicates: float in, bool out.
  visit("IsNan", Unary<kFloats, true>([]<typename C>(C x) { return std::isnan(x); }));
  visit("IsInf", Unary<kFloats, true>([]<typename C>(C x) { return std::isinf(x); }));
  visit("IsFinite", Unary<kFloats, true>([]<typename C>(C x) { return std::isfinite(x); }));
  visit("LogicalNot", Unary<kBools>([](bool x) { return !x; }));

  // Bitwise complement, on integers only.
  visit("Invert", Unary<kInts>([]<typename C>(C x) { return Invert(x); }));
}

}  // namespace dfc

#endif  // DFC_GRAPH_OP_SEMANTICS_UNARY_H_
