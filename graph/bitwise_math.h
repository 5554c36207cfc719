// TensorFlow's bitwise scalar ops on integers, written without C++'s undefined behaviour: a
// shift amount clamped to [0, bits - 1] (TensorFlow's left_shift_op and right_shift_op clamp
// it, so shifting by the width or more, or by a negative amount, is defined), a left shift done
// on the unsigned pattern, and the population count of the two's complement pattern. The
// reference kernels (runtime/reference/bitwise.cc) and the host twins of the IR's UserFuns
// (ir/from_tf/binary.cc, unary.cc) both compute with these, as with graph/scalar_math.h.
#ifndef DFC_GRAPH_BITWISE_MATH_H_
#define DFC_GRAPH_BITWISE_MATH_H_

#include <bit>
#include <cstdint>
#include <type_traits>

#include "graph/scalar_math.h"

namespace dfc {

template <typename T>
inline constexpr int kBitWidth = static_cast<int>(sizeof(T)) * 8;

// The amount TensorFlow shifts by: y clamped to [0, bits - 1].
template <typename T>
constexpr int ClampedShift(T y) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  if constexpr (std::is_signed_v<T>) {
    if (y < 0) return 0;
  }
  return y > static_cast<T>(kBitWidth<T> - 1) ? kBitWidth<T> - 1 : static_cast<int>(y);
}

// x << y on the unsigned pattern (bits shifted out are lost, the sign bit included).
template <typename T>
constexpr T ShiftLeft(T x, T y) {
  return static_cast<T>(static_cast<Wide<T>>(x) << ClampedShift(y));
}

// x >> y: arithmetic for signed types (the sign fills the vacated bits), logical for unsigned.
template <typename T>
constexpr T ShiftRight(T x, T y) {
  return static_cast<T>(x >> ClampedShift(y));
}

template <typename T>
constexpr T BitwiseAnd(T x, T y) {
  return static_cast<T>(x & y);
}
template <typename T>
constexpr T BitwiseOr(T x, T y) {
  return static_cast<T>(x | y);
}
template <typename T>
constexpr T BitwiseXor(T x, T y) {
  return static_cast<T>(x ^ y);
}
template <typename T>
constexpr T Invert(T x) {
  return static_cast<T>(~x);
}

// The number of bits set in x's two's complement pattern (8 for int8 -1), as PopulationCount's
// uint8 output.
template <typename T>
constexpr uint8_t PopulationCount(T x) {
  return static_cast<uint8_t>(std::popcount(static_cast<std::make_unsigned_t<T>>(x)));
}

}  // namespace dfc

#endif  // DFC_GRAPH_BITWISE_MATH_H_
