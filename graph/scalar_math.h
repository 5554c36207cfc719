// TensorFlow's scalar arithmetic where C++ would differ or trap: integer +, -, * and negation
// modulo 2^bits, division and remainder with INT_MIN / -1 defined, Python's floor division,
// integer pow by squaring, and the overflow-free Sigmoid and Softplus. The reference kernels
// and the host twins of the IR's UserFuns both compute with these, so the two oracles agree
// on what an element is by construction and differ only in how the elements are combined.
#ifndef DFC_GRAPH_SCALAR_MATH_H_
#define DFC_GRAPH_SCALAR_MATH_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace dfc {

// Unsigned arithmetic at least as wide as int, so that nothing promotes back to signed int.
template <typename C>
using Wide = std::conditional_t<sizeof(C) <= 4, uint32_t, uint64_t>;

// +, -, * and unary - modulo 2^bits for integers (so -INT_MIN == INT_MIN, as TensorFlow
// gives), plain arithmetic for floating types.
template <typename C>
C WrapAdd(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    return static_cast<C>(static_cast<Wide<C>>(a) + static_cast<Wide<C>>(b));
  } else {
    return a + b;
  }
}
template <typename C>
C WrapSub(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    return static_cast<C>(static_cast<Wide<C>>(a) - static_cast<Wide<C>>(b));
  } else {
    return a - b;
  }
}
template <typename C>
C WrapMul(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    return static_cast<C>(static_cast<Wide<C>>(a) * static_cast<Wide<C>>(b));
  } else {
    return a * b;
  }
}
template <typename C>
C WrapNeg(C x) {
  if constexpr (std::is_integral_v<C>) {
    return WrapSub(C{0}, x);
  } else {
    return -x;
  }
}

// C's x / y and x % y for y != 0, with INT_MIN / -1 == INT_MIN and INT_MIN % -1 == 0.
template <typename C>
C TruncDiv(C x, C y) {
  if constexpr (std::is_signed_v<C>) {
    if (y == C{-1}) return WrapSub(C{0}, x);
  }
  return static_cast<C>(x / y);
}
template <typename C>
C TruncMod(C x, C y) {
  if constexpr (std::is_signed_v<C>) {
    if (y == C{-1}) return C{0};
  }
  return static_cast<C>(x % y);
}

// Floor division and its remainder, which takes the divisor's sign (Python's // and %).
template <typename C>
C FloorDivInt(C x, C y) {
  C q = TruncDiv(x, y);
  if constexpr (std::is_signed_v<C>) {
    // A nonzero remainder means |q| < |x|, so q - 1 cannot overflow.
    const C r = TruncMod(x, y);
    if (r != 0 && ((r < 0) != (y < 0))) q = static_cast<C>(q - 1);
  }
  return q;
}
template <typename C>
C FloorModInt(C x, C y) {
  C r = TruncMod(x, y);
  if constexpr (std::is_signed_v<C>) {
    if (r != 0 && ((r < 0) != (y < 0))) r = static_cast<C>(r + y);
  }
  return r;
}

// x^n for n >= 0 by squaring, wrapping like TensorFlow's integer pow.
template <typename C>
C IntPow(C x, C n) {
  C result = 1;
  while (n != 0) {
    if (n & 1) result = WrapMul(result, x);
    n = static_cast<C>(n >> 1);
    if (n != 0) x = WrapMul(x, x);
  }
  return result;
}

// TensorFlow's binary ops on one element of compute type C (float for float16), each written
// once here so that the reference kernels and the UserFuns' host twins compute the same value.
// The integer divisions expect a nonzero divisor and Pow a non-negative integer exponent: the
// callers refuse the others first.

// Div truncates integers toward zero; TruncateDiv also truncates floats.
template <typename C>
C Div(C x, C y) {
  if constexpr (std::is_integral_v<C>) {
    return TruncDiv(x, y);
  } else {
    return x / y;
  }
}
template <typename C>
C TruncateDiv(C x, C y) {
  if constexpr (std::is_integral_v<C>) {
    return TruncDiv(x, y);
  } else {
    return std::trunc(x / y);
  }
}
// floor(x / y) on floats, as TensorFlow computes it.
template <typename C>
C FloorDiv(C x, C y) {
  if constexpr (std::is_integral_v<C>) {
    return FloorDivInt(x, y);
  } else {
    return std::floor(x / y);
  }
}
// x / y, or 0 wherever y is 0 (floats only).
template <typename C>
C DivNoNan(C x, C y) {
  return y == C(0) ? C(0) : x / y;
}

// Mod and TruncateMod take the dividend's sign (C's % and fmod), FloorMod the divisor's
// (Python's %).
template <typename C>
C TruncateMod(C x, C y) {
  if constexpr (std::is_integral_v<C>) {
    return TruncMod(x, y);
  } else {
    return std::fmod(x, y);
  }
}
template <typename C>
C FloorMod(C x, C y) {
  if constexpr (std::is_integral_v<C>) {
    return FloorModInt(x, y);
  } else {
    const C r = std::fmod(x, y);
    return r != C(0) && ((y < C(0)) != (r < C(0))) ? r + y : r;
  }
}

// (x - y)^2, wrapping for integers.
template <typename C>
C SquaredDifference(C x, C y) {
  const C d = WrapSub(x, y);
  return WrapMul(d, d);
}

// Maximum and Minimum propagate a NaN from either side.
template <typename C>
C Maximum(C x, C y) {
  if constexpr (!std::is_integral_v<C>) {
    if (std::isnan(x)) return x;
    if (std::isnan(y)) return y;
  }
  return x < y ? y : x;
}
template <typename C>
C Minimum(C x, C y) {
  if constexpr (!std::is_integral_v<C>) {
    if (std::isnan(x)) return x;
    if (std::isnan(y)) return y;
  }
  return y < x ? y : x;
}

// Integer pow by squaring, wrapping; std::pow on floats.
template <typename C>
C Pow(C x, C y) {
  if constexpr (std::is_integral_v<C>) {
    return IntPow(x, y);
  } else {
    return std::pow(x, y);
  }
}

// 1 / (1 + exp(-x)) without overflow: exp is only taken of a non-positive number.
template <typename C>
C Sigmoid(C x) {
  if (x >= C(0)) return C(1) / (C(1) + std::exp(-x));
  const C e = std::exp(x);
  return e / (C(1) + e);
}

// log(1 + exp(x)) = max(x, 0) + log1p(exp(-|x|)), which neither overflows nor loses the tail.
template <typename C>
C Softplus(C x) {
  return std::max(x, C(0)) + std::log1p(std::exp(-std::fabs(x)));
}

}  // namespace dfc

#endif  // DFC_GRAPH_SCALAR_MATH_H_
