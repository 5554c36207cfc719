// TensorFlow's binary elementwise ops, broadcast over two operands of one dtype: each op's
// dtype classes, what it refuses of its second operand, and its function of two elements in
// their compute type (graph/scalar_math.h, graph/bitwise_math.h). The one table the reference
// kernels and the IR translation's host functions are made from; the translation adds each
// op's OpenCL body.
#ifndef DFC_GRAPH_OP_SEMANTICS_BINARY_H_
#define DFC_GRAPH_OP_SEMANTICS_BINARY_H_

#include <cmath>
#include <cstdint>
#include <optional>

#include "graph/bitwise_math.h"
#include "graph/dtype_class.h"
#include "graph/scalar_math.h"

namespace dfc {

// What an op refuses of its second operand's elements, on integers only (floats give inf or
// NaN): a zero divisor, a negative exponent. The reference checks every element before
// computing and the translation's host function each pair as computed: when the result has
// elements, both read every element of the second operand, so they refuse the same inputs.
enum class BinaryGuard { kNone, kNonzeroIntDivisor, kNonnegativeIntExponent };

// TensorFlow's words for an element `y` (read as int64, so a uint64 above INT64_MAX counts as
// negative) that `guard` refuses; null for one it accepts.
inline const char* GuardRefusal(BinaryGuard guard, int64_t y) {
  if (guard == BinaryGuard::kNonzeroIntDivisor && y == 0) return "Integer division by zero";
  if (guard == BinaryGuard::kNonnegativeIntExponent && y < 0) {
    return "Integers to negative integer powers are not allowed";
  }
  return nullptr;
}

// An op's function `fn` of two elements, defined for the dtypes of `kClasses`; a comparison
// (`kToBool`) answers a bool.
template <unsigned kClasses, bool kToBool, typename Fn>
struct BinaryFunction {
  static constexpr unsigned kClassesOf = kClasses;
  static constexpr bool kPredicate = kToBool;
  Fn fn;
  BinaryGuard guard = BinaryGuard::kNone;
  // Equal and NotEqual with incompatible_shape_error=false: the scalar they answer for operands
  // whose shapes do not broadcast.
  std::optional<bool> if_incompatible_shapes = std::nullopt;
};

template <unsigned kClasses, bool kToBool = false, typename Fn>
constexpr BinaryFunction<kClasses, kToBool, Fn> Binary(Fn fn,
                                                       BinaryGuard guard = BinaryGuard::kNone) {
  return {fn, guard};
}

// Calls `visit(op, function)` for each op of the table, `function` a BinaryFunction.
template <typename Visit>
void ForEachBinaryOp(Visit&& visit) {
  // Arithmetic, wrapping on integers. Add on bool is not defined by TensorFlow.
  const auto add = Binary<kNumbers>([]<typename C>(C a, C b) { return WrapAdd(a, b); });
  visit("Add", add);
  visit("AddV2", add);
  visit("Sub", Binary<kNumbers>([]<typename C>(C a, C b) { return WrapSub(a, b); }));
  visit("Mul", Binary<kNumbers>([]<typename C>(C a, C b) { return WrapMul(a, b); }));
  visit("SquaredDifference",
        Binary<kNumbers>([]<typename C>(C a, C b) { return SquaredDifference(a, b); }));

  // Division and remainders: Div and TruncateDiv truncate integers toward zero, Mod and
  // TruncateMod take the dividend's sign, FloorMod the divisor's.
  constexpr BinaryGuard kDivisor = BinaryGuard::kNonzeroIntDivisor;
  visit("Div", Binary<kNumbers>([]<typename C>(C a, C b) { return Div(a, b); }, kDivisor));
  visit("TruncateDiv",
        Binary<kNumbers>([]<typename C>(C a, C b) { return TruncateDiv(a, b); }, kDivisor));
  visit("RealDiv", Binary<kFloats>([]<typename C>(C a, C b) { return a / b; }));
  visit("DivNoNan", Binary<kFloats>([]<typename C>(C a, C b) { return DivNoNan(a, b); }));
  visit("FloorDiv",
        Binary<kNumbers>([]<typename C>(C a, C b) { return FloorDiv(a, b); }, kDivisor));
  const auto truncate_mod =
      Binary<kNumbers>([]<typename C>(C a, C b) { return TruncateMod(a, b); }, kDivisor);
  visit("Mod", truncate_mod);
  visit("TruncateMod", truncate_mod);
  visit("FloorMod",
        Binary<kNumbers>([]<typename C>(C a, C b) { return FloorMod(a, b); }, kDivisor));

  // Maximum and Minimum propagate a NaN from either side.
  visit("Maximum", Binary<kNumbers>([]<typename C>(C a, C b) { return Maximum(a, b); }));
  visit("Minimum", Binary<kNumbers>([]<typename C>(C a, C b) { return Minimum(a, b); }));
  visit("Pow", Binary<kNumbers>([]<typename C>(C a, C b) { return Pow(a, b); },
                                BinaryGuard::kNonnegativeIntExponent));
  visit("Atan2", Binary<kFloats>([]<typename C>(C y, C x) { return std::atan2(y, x); }));

  // Comparisons answer bool; Equal and NotEqual are also defined on bool.
  visit("Less", Binary<kNumbers, true>([]<typename C>(C a, C b) { return a < b; }));
  visit("LessEqual", Binary<kNumbers, true>([]<typename C>(C a, C b) { return a <= b; }));
  visit("Greater", Binary<kNumbers, true>([]<typename C>(C a, C b) { return a > b; }));
  visit("GreaterEqual", Binary<kNumbers, true>([]<typename C>(C a, C b) { return a >= b; }));
  auto equal = Binary<kAll, true>([]<typename C>(C a, C b) { return a == b; });
  equal.if_incompatible_shapes = false;
  visit("Equal", equal);
  auto not_equal = Binary<kAll, true>([]<typename C>(C a, C b) { return a != b; });
  not_equal.if_incompatible_shapes = true;
  visit("NotEqual", not_equal);
  visit("LogicalAnd", Binary<kBools, true>([](bool a, bool b) { return a && b; }));
  visit("LogicalOr", Binary<kBools, true>([](bool a, bool b) { return a || b; }));

  // Bitwise ops, on integers only; shift amounts clamped into [0, bits), as TensorFlow does.
  visit("BitwiseAnd", Binary<kInts>([]<typename C>(C a, C b) { return BitwiseAnd(a, b); }));
  visit("BitwiseOr", Binary<kInts>([]<typename C>(C a, C b) { return BitwiseOr(a, b); }));
  visit("BitwiseXor", Binary<kInts>([]<typename C>(C a, C b) { return BitwiseXor(a, b); }));
  visit("LeftShift", Binary<kInts>([]<typename C>(C a, C b) { return ShiftLeft(a, b); }));
  visit("RightShift", Binary<kInts>([]<typename C>(C a, C b) { return ShiftRight(a, b); }));
}

}  // namespace dfc

#endif  // DFC_GRAPH_OP_SEMANTICS_BINARY_H_
