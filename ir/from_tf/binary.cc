// Translations of the binary elementwise ops (OPS.md row 2): arithmetic, division and modulo,
// comparisons and logical ops with NumPy broadcasting (broadcast.h), plus BiasAdd, Select,
// SelectV2, AddN and AccumulateNV2, and the tail's bitwise ops (BitwiseAnd, BitwiseOr,
// BitwiseXor, LeftShift, RightShift, and CompareAndBitpack, which folds groups of 8 into bytes;
// runtime/reference/bitwise.cc).
//
// Every scalar function mirrors runtime/reference/elementwise_binary.cc: float16 is computed in
// float and rounded once, float32 in float; integer +, -, * wrap modulo 2^bits (written through
// unsigned arithmetic, so there is no signed overflow in C++ or OpenCL C); INT_MIN / -1 wraps
// to INT_MIN and INT_MIN % -1 is 0. The reference refuses an integer division by zero and a
// negative integer exponent: the host twins return that error. The OpenCL bodies test for
// them too, only so that a device never traps (x86 idiv faults on both), since those elements
// never reach a compared result.
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"
#include "base/status.h"
#include "graph/bitwise_math.h"
#include "graph/dtype.h"
#include "graph/dtype_class.h"
#include "graph/scalar_math.h"
#include "ir/from_tf/broadcast.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir {
namespace {

// ---- dtype classes (graph/dtype_class.h), as the reference checks them
// ----------------------------

std::string DebugType(DType d, const SymbolicShape& shape) {
  return absl::StrCat(DTypeName(d), ShapeToString(shape));
}

absl::StatusOr<std::string> InputDebugType(const TranslateContext& ctx, int i) {
  DFC_ASSIGN_OR_RETURN(DType d, ctx.InputDType(i));
  DFC_ASSIGN_OR_RETURN(SymbolicShape shape, ctx.InputShape(i));
  return DebugType(d, shape);
}

absl::Status CheckSameDType(const TranslateContext& ctx, int a, int b) {
  DFC_ASSIGN_OR_RETURN(DType da, ctx.InputDType(a));
  DFC_ASSIGN_OR_RETURN(DType db, ctx.InputDType(b));
  if (da == db) return absl::OkStatus();
  DFC_ASSIGN_OR_RETURN(std::string ta, InputDebugType(ctx, a));
  DFC_ASSIGN_OR_RETURN(std::string tb, InputDebugType(ctx, b));
  return ctx.Error(
      absl::StrCat("inputs ", a, " and ", b, " must have the same dtype, got ", ta, " and ", tb));
}

absl::Status CheckClass(const TranslateContext& ctx, int input, unsigned classes) {
  DFC_ASSIGN_OR_RETURN(DType d, ctx.InputDType(input));
  if (IsSupported(d) && DTypeInClass(d, classes)) return absl::OkStatus();
  const std::string names = DTypeClassNames(classes);
  DFC_ASSIGN_OR_RETURN(std::string type, InputDebugType(ctx, input));
  return ctx.Error(absl::StrCat(ctx.node().op, " is not defined for dtype ", DTypeName(d),
                                " (input ", input, " is ", type, "; expected one of ", names, ")"));
}

// ---- host arithmetic: graph/scalar_math.h, shared with the reference ------------------------

// What the reference refuses before computing: it checks every element of the second input,
// and every element of it is read when the result has elements, so checking each pair as it
// is computed refuses exactly the same inputs.
enum class Guard { kNone, kNonzeroIntDivisor, kNonnegativeIntExponent };

// The host twin of a binary UserFun on dtype `d`: op(x, y) on the compute type.
template <unsigned kClasses, bool kBoolOut, typename Op>
UserFun::HostFn BinaryHost(DType d, Guard guard, Op op) {
  return DispatchDType(d, [&]<typename T>() -> UserFun::HostFn {
    if constexpr (InClass<T>(kClasses)) {
      return [op, guard](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        const ComputeType<T> x = ScalarAs<T>(a[0]);
        const ComputeType<T> y = ScalarAs<T>(a[1]);
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          if (guard == Guard::kNonzeroIntDivisor && y == 0) {
            return absl::InvalidArgumentError("Integer division by zero");
          }
          // As the reference reads the exponent (a uint64 above INT64_MAX counts as negative).
          if (guard == Guard::kNonnegativeIntExponent && static_cast<int64_t>(y) < 0) {
            return absl::InvalidArgumentError(absl::StrCat(
                "Integers to negative integer powers are not allowed: exponent ", a[1].ToString()));
          }
        }
        if constexpr (kBoolOut) {
          return Scalar::Bool(op(x, y));
        } else {
          return ScalarOf<T>(op(x, y));
        }
      };
    } else {
      DFC_CHECK(false && "the dtype class is checked before a UserFun is made");
      return nullptr;
    }
  });
}

// ---- OpenCL C bodies ----------------------------------------------------------------------------

bool IsUnsignedInt(DType d) { return IsInteger(d) && !IsSigned(d); }

// The unsigned type of d's width (the one integer arithmetic is done in is WideUnsignedType).
std::string UnsignedType(DType d) {
  switch (SizeOf(d)) {
    case 1:
      return "uchar";
    case 2:
      return "ushort";
    case 4:
      return "uint";
    default:
      return "ulong";
  }
}

// `expr`, computed in WideUnsignedType(d), wrapped back to d: `as_int((uint)(expr))`.
std::string WrapTo(DType d, absl::string_view expr) {
  const std::string narrow = absl::StrCat("(", UnsignedType(d), ")(", expr, ")");
  if (IsUnsignedInt(d)) return narrow;
  return absl::StrCat("as_", OpenCLType(d), "(", narrow, ")");
}

// x OP y: plain for floats, wrapping for integers.
std::string ArithBody(DType d, absl::string_view op) {
  if (IsFloating(d)) return absl::StrCat("return x ", op, " y;");
  const std::string w = WideUnsignedType(d);
  return absl::StrCat("return ", WrapTo(d, absl::StrCat("(", w, ")x ", op, " (", w, ")y")), ";");
}

// -x wrapped (INT_MIN stays INT_MIN).
std::string NegX(DType d) { return WrapTo(d, absl::StrCat("0 - (", WideUnsignedType(d), ")x")); }

// Integer division and remainder bodies around C's / and %: the guards for 0 and -1.
std::string IntDivBody(DType d, absl::string_view rest) {
  if (IsUnsignedInt(d)) return absl::StrCat("if (y == 0) return 0; ", rest);
  return absl::StrCat("if (y == 0) return 0; if (y == -1) return ", NegX(d), "; ", rest);
}
std::string IntModBody(DType d, absl::string_view rest) {
  if (IsUnsignedInt(d)) return absl::StrCat("if (y == 0) return 0; ", rest);
  return absl::StrCat("if (y == 0 || y == -1) return 0; ", rest);
}

// ---- the scalar functions -----------------------------------------------------------------------

template <unsigned kClasses, bool kBoolOut = false, typename Op>
FunPtr BinaryFun(DType d, absl::string_view name, absl::string_view body, Op op,
                 Guard guard = Guard::kNone, std::vector<std::string> params = {"x", "y"}) {
  return MakeUserFun(absl::StrCat(name, "_", DTypeName(d)), std::move(params), body, {d, d},
                     kBoolOut ? DType::kBool : d, BinaryHost<kClasses, kBoolOut>(d, guard, op));
}

FunPtr AddFun(DType d) {
  return BinaryFun<kNumbers>(d, "add", ArithBody(d, "+"),
                             []<typename C>(C a, C b) { return WrapAdd(a, b); });
}
FunPtr SubFun(DType d) {
  return BinaryFun<kNumbers>(d, "sub", ArithBody(d, "-"),
                             []<typename C>(C a, C b) { return WrapSub(a, b); });
}
FunPtr MulFun(DType d) {
  return BinaryFun<kNumbers>(d, "mul", ArithBody(d, "*"),
                             []<typename C>(C a, C b) { return WrapMul(a, b); });
}
FunPtr SquaredDifferenceFun(DType d) {
  std::string body;
  if (IsFloating(d)) {
    body = absl::StrCat(OpenCLType(d), " d = x - y; return d * d;");
  } else {
    const std::string w = WideUnsignedType(d);
    body = absl::StrCat(w, " d = (", w, ")x - (", w, ")y; return ", WrapTo(d, "d * d"), ";");
  }
  return BinaryFun<kNumbers>(d, "squared_difference", body,
                             []<typename C>(C a, C b) { return SquaredDifference(a, b); });
}

// Div and TruncateDiv truncate integers toward zero; on floats Div is x / y and TruncateDiv
// trunc(x / y).
FunPtr DivFun(DType d) {
  const std::string body = IsFloating(d) ? "return x / y;" : IntDivBody(d, "return x / y;");
  return BinaryFun<kNumbers>(
      d, "div", body, []<typename C>(C a, C b) { return Div(a, b); }, Guard::kNonzeroIntDivisor);
}
FunPtr TruncateDivFun(DType d) {
  const std::string body = IsFloating(d) ? "return trunc(x / y);" : IntDivBody(d, "return x / y;");
  return BinaryFun<kNumbers>(
      d, "truncate_div", body, []<typename C>(C a, C b) { return TruncateDiv(a, b); },
      Guard::kNonzeroIntDivisor);
}
FunPtr RealDivFun(DType d) {
  return BinaryFun<kFloats>(d, "real_div", "return x / y;",
                            []<typename C>(C a, C b) { return a / b; });
}
FunPtr DivNoNanFun(DType d) {
  const std::string zero = FloatLiteral(d, 0);
  return BinaryFun<kFloats>(d, "div_no_nan",
                            absl::StrCat("return y == ", zero, " ? ", zero, " : x / y;"),
                            []<typename C>(C a, C b) { return DivNoNan(a, b); });
}
// Floor division: floor(x / y) on floats, as TensorFlow computes it.
FunPtr FloorDivFun(DType d) {
  std::string body;
  if (IsFloating(d)) {
    body = "return floor(x / y);";
  } else if (IsUnsignedInt(d)) {
    body = IntDivBody(d, "return x / y;");
  } else {
    const std::string t = OpenCLType(d);
    body = IntDivBody(d, absl::StrCat(t, " q = x / y; ", t,
                                      " r = x % y; return (r != 0 && ((r < 0) != (y < 0))) ? "
                                      "q - 1 : q;"));
  }
  return BinaryFun<kNumbers>(
      d, "floor_div", body, []<typename C>(C a, C b) { return FloorDiv(a, b); },
      Guard::kNonzeroIntDivisor);
}
// Mod and TruncateMod take the dividend's sign (C's % and fmod).
FunPtr TruncateModFun(DType d) {
  const std::string body = IsFloating(d) ? "return fmod(x, y);" : IntModBody(d, "return x % y;");
  return BinaryFun<kNumbers>(
      d, "truncate_mod", body, []<typename C>(C a, C b) { return TruncateMod(a, b); },
      Guard::kNonzeroIntDivisor);
}
// FloorMod takes the divisor's sign (Python's %).
FunPtr FloorModFun(DType d) {
  const std::string t = OpenCLType(d);
  const std::string fix = absl::StrCat(t, " r = ", IsFloating(d) ? "fmod(x, y)" : "x % y",
                                       "; return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;");
  std::string body;
  if (IsFloating(d)) {
    body = fix;
  } else if (IsUnsignedInt(d)) {
    body = IntModBody(d, "return x % y;");
  } else {
    body = IntModBody(d, fix);
  }
  return BinaryFun<kNumbers>(
      d, "floor_mod", body, []<typename C>(C a, C b) { return FloorMod(a, b); },
      Guard::kNonzeroIntDivisor);
}

// Maximum and Minimum propagate a NaN from either side (OpenCL's fmax/fmin would drop it). The
// bodies are conditional expressions, not `if`s, so that they are lane-wise on vectors too.
FunPtr MaximumFun(DType d) {
  const std::string body = IsFloating(d) ? "return isnan(x) ? x : isnan(y) ? y : x < y ? y : x;"
                                         : "return x < y ? y : x;";
  return BinaryFun<kNumbers>(d, "maximum", body,
                             []<typename C>(C a, C b) { return Maximum(a, b); });
}
FunPtr MinimumFun(DType d) {
  const std::string body = IsFloating(d) ? "return isnan(x) ? x : isnan(y) ? y : y < x ? y : x;"
                                         : "return y < x ? y : x;";
  return BinaryFun<kNumbers>(d, "minimum", body,
                             []<typename C>(C a, C b) { return Minimum(a, b); });
}

// Integer pow by squaring, wrapping; a negative exponent is refused (the device loop would
// never end on one, so the body returns 0 there).
FunPtr PowFun(DType d) {
  std::string body;
  if (IsFloating(d)) {
    body = "return pow(x, y);";
  } else {
    const std::string w = WideUnsignedType(d);
    body = absl::StrCat(IsUnsignedInt(d) ? "" : "if (y < 0) return 0; ", w, " r = 1; ", w, " b = (",
                        w, ")x; ", OpenCLType(d),
                        " n = y; while (n != 0) { if (n & 1) r *= b; n >>= 1; "
                        "if (n != 0) b *= b; } return ",
                        WrapTo(d, "r"), ";");
  }
  return BinaryFun<kNumbers>(
      d, "pow", body, []<typename C>(C a, C b) { return Pow(a, b); },
      Guard::kNonnegativeIntExponent);
}
FunPtr Atan2Fun(DType d) {
  return BinaryFun<kFloats>(d, "atan2", "return atan2(y, x);",
                            []<typename C>(C y, C x) { return std::atan2(y, x); }, Guard::kNone,
                            {"y", "x"});
}

// Comparisons produce bool (0 or 1).
FunPtr LessFun(DType d) {
  return BinaryFun<kNumbers, true>(d, "less", "return x < y;",
                                   []<typename C>(C a, C b) { return a < b; });
}
FunPtr LessEqualFun(DType d) {
  return BinaryFun<kNumbers, true>(d, "less_equal", "return x <= y;",
                                   []<typename C>(C a, C b) { return a <= b; });
}
FunPtr GreaterFun(DType d) {
  return BinaryFun<kNumbers, true>(d, "greater", "return x > y;",
                                   []<typename C>(C a, C b) { return a > b; });
}
FunPtr GreaterEqualFun(DType d) {
  return BinaryFun<kNumbers, true>(d, "greater_equal", "return x >= y;",
                                   []<typename C>(C a, C b) { return a >= b; });
}
FunPtr EqualFun(DType d) {
  return BinaryFun<kAll, true>(d, "equal", "return x == y;",
                               []<typename C>(C a, C b) { return a == b; });
}
FunPtr NotEqualFun(DType d) {
  return BinaryFun<kAll, true>(d, "not_equal", "return x != y;",
                               []<typename C>(C a, C b) { return a != b; });
}
FunPtr LogicalAndFun(DType d) {
  return BinaryFun<kBools, true>(d, "logical_and", "return x && y;",
                                 [](bool a, bool b) { return a && b; });
}
FunPtr LogicalOrFun(DType d) {
  return BinaryFun<kBools, true>(d, "logical_or", "return x || y;",
                                 [](bool a, bool b) { return a || b; });
}

// Bitwise ops, on integers only (graph/bitwise_math.h). A shift amount is clamped to
// [0, bits - 1], as TensorFlow clamps it; that also keeps both twins clear of shifting by the
// width or more (undefined in C, reduced modulo the width in OpenCL C).
std::string ClampedShiftText(DType d) {
  const int max = static_cast<int>(SizeOf(d)) * 8 - 1;
  if (IsUnsignedInt(d)) return absl::StrCat("(y > ", max, " ? ", max, " : y)");
  return absl::StrCat("(y < 0 ? 0 : y > ", max, " ? ", max, " : y)");
}
FunPtr BitwiseAndFun(DType d) {
  return BinaryFun<kInts>(d, "bitwise_and", "return x & y;",
                          []<typename C>(C a, C b) { return BitwiseAnd(a, b); });
}
FunPtr BitwiseOrFun(DType d) {
  return BinaryFun<kInts>(d, "bitwise_or", "return x | y;",
                          []<typename C>(C a, C b) { return BitwiseOr(a, b); });
}
FunPtr BitwiseXorFun(DType d) {
  return BinaryFun<kInts>(d, "bitwise_xor", "return x ^ y;",
                          []<typename C>(C a, C b) { return BitwiseXor(a, b); });
}
// Shifted left as the unsigned pattern (a signed left shift that overflows is undefined in C),
// in the wide type, and wrapped back to d.
FunPtr LeftShiftFun(DType d) {
  const std::string shifted = absl::StrCat("(", WideUnsignedType(d), ")x << ", ClampedShiftText(d));
  return BinaryFun<kInts>(d, "left_shift", absl::StrCat("return ", WrapTo(d, shifted), ";"),
                          []<typename C>(C a, C b) { return ShiftLeft(a, b); });
}
// Arithmetic on signed types (OpenCL C fills with the sign bit), logical on unsigned ones.
FunPtr RightShiftFun(DType d) {
  return BinaryFun<kInts>(d, "right_shift", absl::StrCat("return x >> ", ClampedShiftText(d), ";"),
                          []<typename C>(C a, C b) { return ShiftRight(a, b); });
}

// Select's c ? t : e, for any dtype of t and e.
FunPtr SelectFun(DType d) {
  return MakeUserFun(absl::StrCat("select_", DTypeName(d)), {"c", "t", "e"}, "return c ? t : e;",
                     {DType::kBool, d, d}, d,
                     [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       return a[0].AsBool() ? a[1] : a[2];
                     });
}

// The sum of n scalars in input order, in the compute type, rounded once (AddN on float16 is
// not a chain of float16 adds).
FunPtr AddNFun(DType d, int n) {
  std::vector<std::string> params;
  for (int k = 0; k < n; ++k) params.push_back(absl::StrCat("x", k));
  std::string body;
  if (IsFloating(d)) {
    body = absl::StrCat("return ", absl::StrJoin(params, " + "), ";");
  } else {
    const std::string w = absl::StrCat("(", WideUnsignedType(d), ")");
    std::vector<std::string> terms;
    for (const std::string& p : params) terms.push_back(absl::StrCat(w, p));
    body = absl::StrCat("return ", WrapTo(d, absl::StrJoin(terms, " + ")), ";");
  }
  UserFun::HostFn host = DispatchDType(d, [&]<typename T>() -> UserFun::HostFn {
    if constexpr (InClass<T>(kNumbers)) {
      return [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        ComputeType<T> sum = ScalarAs<T>(a[0]);
        for (size_t k = 1; k < a.size(); ++k) sum = WrapAdd(sum, ScalarAs<T>(a[k]));
        return ScalarOf<T>(sum);
      };
    } else {
      DFC_CHECK(false && "AddN's dtype class is checked before its UserFun is made");
      return nullptr;
    }
  });
  return MakeUserFun(absl::StrCat("add_n", n, "_", DTypeName(d)), params, body,
                     std::vector<DType>(n, d), d, std::move(host));
}

// ---- translations -------------------------------------------------------------------------------

struct BinaryOp {
  absl::string_view op;
  unsigned classes;
  FunPtr (*make)(DType);
};

constexpr BinaryOp kBinaryOps[] = {
    {"Add", kNumbers, AddFun},
    {"AddV2", kNumbers, AddFun},
    {"Sub", kNumbers, SubFun},
    {"Mul", kNumbers, MulFun},
    {"SquaredDifference", kNumbers, SquaredDifferenceFun},
    {"Div", kNumbers, DivFun},
    {"TruncateDiv", kNumbers, TruncateDivFun},
    {"RealDiv", kFloats, RealDivFun},
    {"DivNoNan", kFloats, DivNoNanFun},
    {"FloorDiv", kNumbers, FloorDivFun},
    {"Mod", kNumbers, TruncateModFun},
    {"TruncateMod", kNumbers, TruncateModFun},
    {"FloorMod", kNumbers, FloorModFun},
    {"Maximum", kNumbers, MaximumFun},
    {"Minimum", kNumbers, MinimumFun},
    {"Pow", kNumbers, PowFun},
    {"Atan2", kFloats, Atan2Fun},
    {"Less", kNumbers, LessFun},
    {"LessEqual", kNumbers, LessEqualFun},
    {"Greater", kNumbers, GreaterFun},
    {"GreaterEqual", kNumbers, GreaterEqualFun},
    {"Equal", kAll, EqualFun},
    {"NotEqual", kAll, NotEqualFun},
    {"LogicalAnd", kBools, LogicalAndFun},
    {"LogicalOr", kBools, LogicalOrFun},
    {"BitwiseAnd", kInts, BitwiseAndFun},
    {"BitwiseOr", kInts, BitwiseOrFun},
    {"BitwiseXor", kInts, BitwiseXorFun},
    {"LeftShift", kInts, LeftShiftFun},
    {"RightShift", kInts, RightShiftFun},
};

const BinaryOp* FindBinaryOp(absl::string_view op) {
  for (const BinaryOp& b : kBinaryOps) {
    if (b.op == op) return &b;
  }
  return nullptr;
}

// f broadcast over the inputs, a broadcasting error annotated with the node.
absl::StatusOr<ExprPtr> Broadcast(const TranslateContext& ctx, std::vector<ExprPtr> operands,
                                  const FunPtr& f) {
  absl::StatusOr<ExprPtr> result =
      BroadcastScalars(std::move(operands), [&](std::span<const ExprPtr> s) {
        return Call(f, std::vector<ExprPtr>(s.begin(), s.end()));
      });
  if (!result.ok()) return ctx.node().Annotate(result.status());
  return result;
}

// The ops of kBinaryOps: out = f(x, y) over the broadcast shape.
absl::StatusOr<std::vector<ExprPtr>> TranslateBinary(const TranslateContext& ctx) {
  const BinaryOp* op = FindBinaryOp(ctx.node().op);
  DFC_CHECK(op != nullptr);
  // Equal / NotEqual with incompatible_shape_error=false: shapes that do not broadcast give a
  // scalar, before anything else is checked (as the reference does).
  if (op->op == "Equal" || op->op == "NotEqual") {
    DFC_ASSIGN_OR_RETURN(bool strict, ctx.node().GetBool("incompatible_shape_error", true));
    if (!strict && ctx.num_inputs() == 2) {
      DFC_ASSIGN_OR_RETURN(SymbolicShape a, ctx.InputShape(0));
      DFC_ASSIGN_OR_RETURN(SymbolicShape b, ctx.InputShape(1));
      std::optional<std::vector<int64_t>> ca = ConstantShape(a);
      std::optional<std::vector<int64_t>> cb = ConstantShape(b);
      // Only constant shapes are known not to broadcast; symbolic ones that cannot be proved
      // to broadcast are an error below (the answer could depend on the binding).
      if (ca && cb && !BroadcastShape(a, b).ok()) {
        return std::vector<ExprPtr>{MakeLiteral(Scalar::Bool(op->op == "NotEqual"))};
      }
    }
  }
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(2));
  DFC_RETURN_IF_ERROR(CheckSameDType(ctx, 0, 1));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, op->classes));
  DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr y, ctx.Input(1));
  DFC_ASSIGN_OR_RETURN(DType d, ctx.InputDType(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr out, Broadcast(ctx, {x, y}, op->make(d)));
  return std::vector<ExprPtr>{out};
}

// BiasAdd: value + bias along the channel dimension, the last (NHWC) or dimension 1 (NCHW).
absl::StatusOr<std::vector<ExprPtr>> TranslateBiasAdd(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(2));
  DFC_RETURN_IF_ERROR(CheckSameDType(ctx, 0, 1));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kNumbers));
  // (Read in place, not copied out: GCC 12 calls a copy maybe-uninitialized here.)
  const absl::StatusOr<std::string> data_format = ctx.node().GetString("data_format", "NHWC");
  if (!data_format.ok()) return data_format.status();
  const absl::string_view format = *data_format;
  if (format != "NHWC" && format != "NCHW") {
    return ctx.Error(absl::StrCat("data_format must be NHWC or NCHW, got \"", format, "\""));
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr value, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr bias, ctx.Input(1));
  const DType d = BaseDType(value->type);
  const SymbolicShape value_shape = ShapeOfExpr(value);
  const SymbolicShape bias_shape = ShapeOfExpr(bias);
  const int rank = static_cast<int>(value_shape.size());
  if (rank < 2) {
    return ctx.Error(
        absl::StrCat("value must have rank at least 2, got ", DebugType(d, value_shape)));
  }
  if (bias_shape.size() != 1) {
    return ctx.Error(absl::StrCat("bias must be a vector, got ", DebugType(d, bias_shape)));
  }
  const int channel_dim = format == "NCHW" ? 1 : rank - 1;
  if (bias_shape[0] != value_shape[channel_dim]) {
    return ctx.Error(absl::StrCat("bias has ", bias_shape[0].ToString(), " elements but value ",
                                  DebugType(d, value_shape), " has ",
                                  value_shape[channel_dim].ToString(), " channels in dimension ",
                                  channel_dim, " (", format, ")"));
  }
  const FunPtr add = AddFun(d);
  // NHWC (or NCHW of rank 2): broadcastRight, the bias zipped with each row.
  if (channel_dim == rank - 1) {
    DFC_ASSIGN_OR_RETURN(ExprPtr out, Broadcast(ctx, {value, bias}, add));
    return std::vector<ExprPtr>{out};
  }
  // NCHW: Map over the batch capturing the bias, zip each image's channels with it, and add
  // each channel's bias (a captured scalar) to every element of that channel's plane.
  DFC_ASSIGN_OR_RETURN(ExprPtr out,
                       MapOver(
                           value,
                           [&](ExprPtr image) -> absl::StatusOr<ExprPtr> {
                             DFC_ASSIGN_OR_RETURN(ExprPtr zipped, Call(Zip(2), {image, bias}));
                             return MapOver(
                                 zipped,
                                 [&](ExprPtr pair) -> absl::StatusOr<ExprPtr> {
                                   DFC_ASSIGN_OR_RETURN(ExprPtr plane, Call(Get(0), {pair}));
                                   DFC_ASSIGN_OR_RETURN(ExprPtr b, Call(Get(1), {pair}));
                                   return Broadcast(ctx, {plane, b}, add);
                                 },
                                 "channel");
                           },
                           "image"));
  return std::vector<ExprPtr>{out};
}

absl::Status CheckSelectInputs(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(3));
  DFC_ASSIGN_OR_RETURN(DType cond, ctx.InputDType(0));
  if (cond != DType::kBool) {
    DFC_ASSIGN_OR_RETURN(std::string type, InputDebugType(ctx, 0));
    return ctx.Error(absl::StrCat("condition must be bool, got ", type));
  }
  DFC_RETURN_IF_ERROR(CheckSameDType(ctx, 1, 2));
  return CheckClass(ctx, 1, kAll);
}

// Select (v1): t and e of one shape; the condition of that shape, a scalar (choosing a whole
// tensor), or a vector over t's first dimension (choosing whole rows).
absl::StatusOr<std::vector<ExprPtr>> TranslateSelect(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckSelectInputs(ctx));
  DFC_ASSIGN_OR_RETURN(ExprPtr cond, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr t, ctx.Input(1));
  DFC_ASSIGN_OR_RETURN(ExprPtr e, ctx.Input(2));
  const DType d = BaseDType(t->type);
  const SymbolicShape cs = ShapeOfExpr(cond);
  const SymbolicShape ts = ShapeOfExpr(t);
  const SymbolicShape es = ShapeOfExpr(e);
  if (ts != es) {
    return ctx.Error(absl::StrCat("t and e must have the same shape, got ", DebugType(d, ts),
                                  " and ", DebugType(d, es)));
  }
  const FunPtr select = SelectFun(d);
  if (cs == ts || cs.empty()) {
    DFC_ASSIGN_OR_RETURN(ExprPtr out, Broadcast(ctx, {cond, t, e}, select));
    return std::vector<ExprPtr>{out};
  }
  if (cs.size() == 1 && !ts.empty() && cs[0] == ts[0]) {
    // One condition per row: Map over the rows zipped with the condition, which is then a
    // scalar captured for the whole row.
    DFC_ASSIGN_OR_RETURN(ExprPtr zipped, Call(Zip(3), {cond, t, e}));
    DFC_ASSIGN_OR_RETURN(ExprPtr out, MapOver(
                                          zipped,
                                          [&](ExprPtr row) -> absl::StatusOr<ExprPtr> {
                                            std::vector<ExprPtr> fields;
                                            for (int k = 0; k < 3; ++k) {
                                              DFC_ASSIGN_OR_RETURN(ExprPtr field,
                                                                   Call(Get(k), {row}));
                                              fields.push_back(field);
                                            }
                                            return Broadcast(ctx, std::move(fields), select);
                                          },
                                          "row"));
    return std::vector<ExprPtr>{out};
  }
  return ctx.Error(absl::StrCat("condition ", DebugType(DType::kBool, cs),
                                " must be a scalar, have the shape of t ", DebugType(d, ts),
                                ", or be a vector as long as t's first dimension"));
}

// SelectV2: condition, t and e broadcast together.
absl::StatusOr<std::vector<ExprPtr>> TranslateSelectV2(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckSelectInputs(ctx));
  DFC_ASSIGN_OR_RETURN(ExprPtr cond, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr t, ctx.Input(1));
  DFC_ASSIGN_OR_RETURN(ExprPtr e, ctx.Input(2));
  // The reference's messages: t against e first, then the condition against both.
  absl::StatusOr<SymbolicShape> te = BroadcastShape(ShapeOfExpr(t), ShapeOfExpr(e));
  if (!te.ok()) return ctx.Error(absl::StrCat("t and e: ", te.status().message()));
  absl::StatusOr<SymbolicShape> all = BroadcastShape(ShapeOfExpr(cond), *te);
  if (!all.ok()) return ctx.Error(absl::StrCat("condition and t/e: ", all.status().message()));
  DFC_ASSIGN_OR_RETURN(ExprPtr out, Broadcast(ctx, {cond, t, e}, SelectFun(BaseDType(t->type))));
  return std::vector<ExprPtr>{out};
}

// AddN / AccumulateNV2: n >= 1 tensors of one dtype and shape, summed in input order.
absl::StatusOr<std::vector<ExprPtr>> TranslateAddN(const TranslateContext& ctx) {
  const int n = ctx.num_inputs();
  if (n < 1) return ctx.Error("needs at least one input, got none");
  std::vector<ExprPtr> inputs;
  for (int k = 0; k < n; ++k) {
    DFC_RETURN_IF_ERROR(CheckSameDType(ctx, 0, k));
    DFC_ASSIGN_OR_RETURN(ExprPtr input, ctx.Input(k));
    inputs.push_back(input);
    if (ShapeOfExpr(input) != ShapeOfExpr(inputs[0])) {
      DFC_ASSIGN_OR_RETURN(std::string first, InputDebugType(ctx, 0));
      DFC_ASSIGN_OR_RETURN(std::string other, InputDebugType(ctx, k));
      return ctx.Error(absl::StrCat("all inputs must have the same shape, got ", first,
                                    " (input 0) and ", other, " (input ", k, ")"));
    }
  }
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kNumbers));
  const FunPtr sum = AddNFun(BaseDType(inputs[0]->type), n);
  DFC_ASSIGN_OR_RETURN(ExprPtr out, ZipScalars(std::move(inputs), [&](std::span<const ExprPtr> s) {
                         return Call(sum, std::vector<ExprPtr>(s.begin(), s.end()));
                       }));
  return std::vector<ExprPtr>{out};
}

// CompareAndBitpack's dtypes: TensorFlow's op takes bool, the floats and the signed integers.
constexpr unsigned kBitpackClasses = kFloats | kSigned | kBools;

// One step of the fold that packs a group of 8: the accumulator shifted up and the next bit,
// x > t, put in at the bottom, so the group's first element ends in the top bit. The bool form
// packs x itself and never reads t, as TensorFlow's bool kernel ignores the threshold.
FunPtr BitpackStepFun(DType d) {
  const bool is_bool = d == DType::kBool;
  const std::string body = is_bool ? "return (uchar)((acc << 1) | (x ? 1 : 0));"
                                   : "return (uchar)((acc << 1) | (x > t ? 1 : 0));";
  UserFun::HostFn host = DispatchDType(d, [&]<typename T>() -> UserFun::HostFn {
    if constexpr (InClass<T>(kBitpackClasses)) {
      return [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        const unsigned acc = ScalarAs<uint8_t>(a[0]);
        bool bit;
        if constexpr (std::is_same_v<T, bool>) {
          bit = ScalarAs<T>(a[1]);
        } else {
          bit = ScalarAs<T>(a[1]) > ScalarAs<T>(a[2]);  // NaN compares false
        }
        return ScalarOf<uint8_t>(static_cast<uint8_t>((acc << 1) | (bit ? 1u : 0u)));
      };
    } else {
      DFC_CHECK(false && "CompareAndBitpack's dtype class is checked before its UserFun is made");
      return nullptr;
    }
  });
  return MakeUserFun(absl::StrCat("bitpack_step_", DTypeName(d)), {"acc", "x", "t"}, body,
                     {DType::kUInt8, d, d}, DType::kUInt8, std::move(host));
}

// CompareAndBitpack(input, threshold): the last dimension (a multiple of 8) in groups of 8, each
// folded into one uint8, the threshold a captured scalar:
//   Map^(rank-1)(λrow => Map(λg => Reduce(step(·, ·, t))(0, g)) $ Split(8) $ row) $ input
absl::StatusOr<std::vector<ExprPtr>> TranslateCompareAndBitpack(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(2));
  DFC_RETURN_IF_ERROR(CheckSameDType(ctx, 0, 1));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kBitpackClasses));
  DFC_ASSIGN_OR_RETURN(ExprPtr input, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr threshold, ctx.Input(1));
  const DType d = BaseDType(input->type);
  const SymbolicShape shape = ShapeOfExpr(input);
  if (!ShapeOfExpr(threshold).empty()) {
    return ctx.Error(
        absl::StrCat("threshold must be a scalar, got ", DebugType(d, ShapeOfExpr(threshold))));
  }
  if (shape.empty()) {
    return ctx.Error(absl::StrCat("input must have rank at least 1, got ", DebugType(d, shape)));
  }
  if ((shape.back() % 8).AsConstant() != std::optional<int64_t>(0)) {
    return ctx.Error(absl::StrCat("the last dimension of input ", DebugType(d, shape),
                                  " must be a multiple of 8, got ", shape.back().ToString()));
  }
  const FunPtr step = BitpackStepFun(d);
  absl::StatusOr<ExprPtr> out = MapAtDepth(
      input, static_cast<int>(shape.size()) - 1, [&](ExprPtr row) -> absl::StatusOr<ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ExprPtr groups, Call(Split(ArithExpr(8)), {row}));
        return MapOver(
            groups,
            [&](ExprPtr group) {
              return ReduceOver(Lit(DType::kUInt8, 0), group, [&](ExprPtr acc, ExprPtr x) {
                return Apply(step, {acc, x, threshold});
              });
            },
            "group");
      });
  if (!out.ok()) return ctx.node().Annotate(out.status());
  return std::vector<ExprPtr>{*std::move(out)};
}

// Select with a vector condition picks rows of the branches, so only operands of one rank
// broadcast; BiasAdd aligns its bias with the channel dimension and has no hook.
bool UnifySelect(const Node& node, std::span<const SymbolicShape> shapes, SizeUnifier& unifier) {
  if (shapes[0].size() != shapes[1].size()) return false;
  return UnifyBroadcast(node, shapes, unifier);
}

}  // namespace

void RegisterBinaryTranslations(TranslationTable& table) {
  for (const BinaryOp& op : kBinaryOps) {
    table.push_back({std::string(op.op), {TranslateBinary, {}, UnifyBroadcast}});
  }
  table.push_back({"BiasAdd", {TranslateBiasAdd, {}}});
  table.push_back({"Select", {TranslateSelect, {}, UnifySelect}});
  table.push_back({"SelectV2", {TranslateSelectV2, {}, UnifyBroadcast}});
  table.push_back({"AddN", {TranslateAddN, {}, UnifyBroadcast}});
  table.push_back({"AccumulateNV2", {TranslateAddN, {}, UnifyBroadcast}});
  table.push_back({"CompareAndBitpack", {TranslateCompareAndBitpack, {}}});
}

}  // namespace dfc::ir
