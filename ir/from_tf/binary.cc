// Translations of the binary elementwise ops (OPS.md row 2): arithmetic, division and modulo,
// comparisons and logical ops with NumPy broadcasting (broadcast.h), and the tail's bitwise ops
// (BitwiseAnd, BitwiseOr, BitwiseXor, LeftShift and RightShift; runtime/reference/bitwise.cc).
// BiasAdd, Select, SelectV2, AddN, AccumulateNV2 and CompareAndBitpack, whose operands follow
// rules of their own, live in binary_shaped.cc; RegisterBinaryTranslations registers both files.
//
// Each op's function of two elements, its dtype classes and what it refuses are
// graph/op_semantics/binary.h's, which the reference's kernels map too; this file adds the
// OpenCL bodies. They compute float16 in float and round once, wrap integer +, -, * modulo
// 2^bits through unsigned arithmetic (no signed overflow in OpenCL C), and give INT_MIN / -1 =
// INT_MIN and INT_MIN % -1 = 0. The host twins refuse an integer division by zero and a
// negative integer exponent; the bodies test for them too, only so that a device never traps
// (x86 idiv faults on both), since those elements never reach a compared result.
#include "graph/op_semantics/binary.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"
#include "base/status.h"
#include "graph/bitwise_math.h"
#include "graph/dtype.h"
#include "graph/dtype_class.h"
#include "graph/scalar_math.h"
#include "ir/from_tf/binary_internal.h"
#include "ir/from_tf/broadcast.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir {
namespace binary {

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

absl::StatusOr<ExprPtr> Broadcast(const TranslateContext& ctx, std::vector<ExprPtr> operands,
                                  const FunPtr& f) {
  absl::StatusOr<ExprPtr> result =
      BroadcastScalars(std::move(operands), [&](std::span<const ExprPtr> s) {
        return Call(f, std::vector<ExprPtr>(s.begin(), s.end()));
      });
  if (!result.ok()) return ctx.node().Annotate(result.status());
  return result;
}

}  // namespace binary

namespace {

using binary::Broadcast;
using binary::CheckClass;
using binary::CheckSameDType;

// ---- host functions: graph/op_semantics/binary.h, shared with the reference ------------------

// The host twin of op function `f` on dtype `d`, refusing each pair whose second element f's
// guard refuses.
template <typename F>
UserFun::HostFn BinaryHost(DType d, const F& f) {
  return DispatchDType(d, [&]<typename T>() -> UserFun::HostFn {
    if constexpr (InClass<T>(F::kClassesOf)) {
      return [f](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        const ComputeType<T> x = ScalarAs<T>(a[0]);
        const ComputeType<T> y = ScalarAs<T>(a[1]);
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
          if (const char* refusal = GuardRefusal(f.guard, static_cast<int64_t>(y))) {
            return absl::InvalidArgumentError(
                f.guard == BinaryGuard::kNonnegativeIntExponent
                    ? absl::StrCat(refusal, ": exponent ", a[1].ToString())
                    : std::string(refusal));
          }
        }
        if constexpr (F::kPredicate) {
          return Scalar::Bool(f.fn(x, y));
        } else {
          return ScalarOf<T>(f.fn(x, y));
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

// ---- each op's OpenCL body ---------------------------------------------------------------------

std::string SquaredDifferenceBody(DType d) {
  if (IsFloating(d)) return absl::StrCat(OpenCLType(d), " d = x - y; return d * d;");
  const std::string w = WideUnsignedType(d);
  return absl::StrCat(w, " d = (", w, ")x - (", w, ")y; return ", WrapTo(d, "d * d"), ";");
}

// Div and TruncateDiv truncate integers toward zero; on floats Div is x / y and TruncateDiv
// trunc(x / y).
std::string DivBody(DType d) {
  return IsFloating(d) ? "return x / y;" : IntDivBody(d, "return x / y;");
}
std::string TruncateDivBody(DType d) {
  return IsFloating(d) ? "return trunc(x / y);" : IntDivBody(d, "return x / y;");
}
std::string DivNoNanBody(DType d) {
  const std::string zero = FloatLiteral(d, 0);
  return absl::StrCat("return y == ", zero, " ? ", zero, " : x / y;");
}
// Floor division: floor(x / y) on floats, as TensorFlow computes it.
std::string FloorDivBody(DType d) {
  if (IsFloating(d)) return "return floor(x / y);";
  if (IsUnsignedInt(d)) return IntDivBody(d, "return x / y;");
  const std::string t = OpenCLType(d);
  return IntDivBody(d, absl::StrCat(t, " q = x / y; ", t,
                                    " r = x % y; return (r != 0 && ((r < 0) != (y < 0))) ? "
                                    "q - 1 : q;"));
}
// Mod and TruncateMod take the dividend's sign (C's % and fmod).
std::string TruncateModBody(DType d) {
  return IsFloating(d) ? "return fmod(x, y);" : IntModBody(d, "return x % y;");
}
// FloorMod takes the divisor's sign (Python's %).
std::string FloorModBody(DType d) {
  const std::string t = OpenCLType(d);
  const std::string fix = absl::StrCat(t, " r = ", IsFloating(d) ? "fmod(x, y)" : "x % y",
                                       "; return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;");
  if (IsFloating(d)) return fix;
  if (IsUnsignedInt(d)) return IntModBody(d, "return x % y;");
  return IntModBody(d, fix);
}

// Maximum and Minimum propagate a NaN from either side (OpenCL's fmax/fmin would drop it). The
// bodies are conditional expressions, not `if`s, so that they are lane-wise on vectors too.
std::string MaximumBody(DType d) {
  return IsFloating(d) ? "return isnan(x) ? x : isnan(y) ? y : x < y ? y : x;"
                       : "return x < y ? y : x;";
}
std::string MinimumBody(DType d) {
  return IsFloating(d) ? "return isnan(x) ? x : isnan(y) ? y : y < x ? y : x;"
                       : "return y < x ? y : x;";
}

// Integer pow by squaring, wrapping; the host function refuses a negative exponent, on which
// the device loop would never end, so the body returns 0 there.
std::string PowBody(DType d) {
  if (IsFloating(d)) return "return pow(x, y);";
  const std::string w = WideUnsignedType(d);
  return absl::StrCat(IsUnsignedInt(d) ? "" : "if (y < 0) return 0; ", w, " r = 1; ", w, " b = (",
                      w, ")x; ", OpenCLType(d),
                      " n = y; while (n != 0) { if (n & 1) r *= b; n >>= 1; "
                      "if (n != 0) b *= b; } return ",
                      WrapTo(d, "r"), ";");
}

// A shift amount is clamped to [0, bits - 1], as TensorFlow clamps it; that also keeps both
// twins clear of shifting by the width or more (undefined in C, reduced modulo the width in
// OpenCL C).
std::string ClampedShiftText(DType d) {
  const int max = static_cast<int>(SizeOf(d)) * 8 - 1;
  if (IsUnsignedInt(d)) return absl::StrCat("(y > ", max, " ? ", max, " : y)");
  return absl::StrCat("(y < 0 ? 0 : y > ", max, " ? ", max, " : y)");
}
// Shifted left as the unsigned pattern (a signed left shift that overflows is undefined in C),
// in the wide type, and wrapped back to d.
std::string LeftShiftBody(DType d) {
  const std::string shifted = absl::StrCat("(", WideUnsignedType(d), ")x << ", ClampedShiftText(d));
  return absl::StrCat("return ", WrapTo(d, shifted), ";");
}
// Arithmetic on signed types (OpenCL C fills with the sign bit), logical on unsigned ones.
std::string RightShiftBody(DType d) {
  return absl::StrCat("return x >> ", ClampedShiftText(d), ";");
}

// An op's UserFun name, parameters and OpenCL body: what the translation adds to its function.
struct OpenCLBody {
  std::string name;
  std::function<std::string(DType)> text;
  std::vector<std::string> params = {"x", "y"};
};

const absl::flat_hash_map<std::string, OpenCLBody>& OpenCLBodies() {
  static const auto* bodies = [] {
    auto* m = new absl::flat_hash_map<std::string, OpenCLBody>;
    const auto fixed = [](std::string text) {
      return [text = std::move(text)](DType) { return text; };
    };
    const auto arith = [](const char* op) { return [op](DType d) { return ArithBody(d, op); }; };
    const OpenCLBody add = {"add", arith("+")};
    (*m)["Add"] = add;
    (*m)["AddV2"] = add;
    (*m)["Sub"] = {"sub", arith("-")};
    (*m)["Mul"] = {"mul", arith("*")};
    (*m)["SquaredDifference"] = {"squared_difference", SquaredDifferenceBody};
    (*m)["Div"] = {"div", DivBody};
    (*m)["TruncateDiv"] = {"truncate_div", TruncateDivBody};
    (*m)["RealDiv"] = {"real_div", fixed("return x / y;")};
    (*m)["DivNoNan"] = {"div_no_nan", DivNoNanBody};
    (*m)["FloorDiv"] = {"floor_div", FloorDivBody};
    const OpenCLBody truncate_mod = {"truncate_mod", TruncateModBody};
    (*m)["Mod"] = truncate_mod;
    (*m)["TruncateMod"] = truncate_mod;
    (*m)["FloorMod"] = {"floor_mod", FloorModBody};
    (*m)["Maximum"] = {"maximum", MaximumBody};
    (*m)["Minimum"] = {"minimum", MinimumBody};
    (*m)["Pow"] = {"pow", PowBody};
    (*m)["Atan2"] = {"atan2", fixed("return atan2(y, x);"), {"y", "x"}};
    // Comparisons produce bool (0 or 1).
    (*m)["Less"] = {"less", fixed("return x < y;")};
    (*m)["LessEqual"] = {"less_equal", fixed("return x <= y;")};
    (*m)["Greater"] = {"greater", fixed("return x > y;")};
    (*m)["GreaterEqual"] = {"greater_equal", fixed("return x >= y;")};
    (*m)["Equal"] = {"equal", fixed("return x == y;")};
    (*m)["NotEqual"] = {"not_equal", fixed("return x != y;")};
    (*m)["LogicalAnd"] = {"logical_and", fixed("return x && y;")};
    (*m)["LogicalOr"] = {"logical_or", fixed("return x || y;")};
    (*m)["BitwiseAnd"] = {"bitwise_and", fixed("return x & y;")};
    (*m)["BitwiseOr"] = {"bitwise_or", fixed("return x | y;")};
    (*m)["BitwiseXor"] = {"bitwise_xor", fixed("return x ^ y;")};
    (*m)["LeftShift"] = {"left_shift", LeftShiftBody};
    (*m)["RightShift"] = {"right_shift", RightShiftBody};
    return m;
  }();
  return *bodies;
}

// A binary op of graph/op_semantics/binary.h: its dtype classes, its UserFun for an accepted
// dtype, and the scalar Equal and NotEqual answer for shapes that do not broadcast.
struct BinaryOp {
  std::string op;
  unsigned classes = 0;
  std::function<FunPtr(DType)> make;
  std::optional<bool> if_incompatible_shapes;
};

// The table's ops in its order, each with its OpenCL body.
const std::vector<BinaryOp>& BinaryOps() {
  static const auto* ops = [] {
    auto* v = new std::vector<BinaryOp>;
    ForEachBinaryOp([v](const char* op, const auto& f) {
      const auto body = OpenCLBodies().find(op);
      DFC_CHECK(body != OpenCLBodies().end());
      v->push_back({.op = op,
                    .classes = f.kClassesOf,
                    .make =
                        [f, body = body->second](DType d) {
                          return MakeUserFun(absl::StrCat(body.name, "_", DTypeName(d)),
                                             body.params, body.text(d), {d, d},
                                             f.kPredicate ? DType::kBool : d, BinaryHost(d, f));
                        },
                    .if_incompatible_shapes = f.if_incompatible_shapes});
    });
    DFC_CHECK(v->size() == OpenCLBodies().size());
    return v;
  }();
  return *ops;
}

const BinaryOp* FindBinaryOp(absl::string_view op) {
  for (const BinaryOp& b : BinaryOps()) {
    if (b.op == op) return &b;
  }
  return nullptr;
}

}  // namespace

namespace binary {

FunPtr AddFun(DType d) { return FindBinaryOp("Add")->make(d); }

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

}  // namespace binary

namespace {

// ---- translations -------------------------------------------------------------------------------

// The ops of BinaryOps(): out = f(x, y) over the broadcast shape.
absl::StatusOr<std::vector<ExprPtr>> TranslateBinary(const TranslateContext& ctx) {
  const BinaryOp* op = FindBinaryOp(ctx.node().op);
  DFC_CHECK(op != nullptr);
  // Equal / NotEqual with incompatible_shape_error=false: shapes that do not broadcast give a
  // scalar, before anything else is checked (as the reference does).
  if (op->if_incompatible_shapes) {
    DFC_ASSIGN_OR_RETURN(bool strict, ctx.node().GetBool("incompatible_shape_error", true));
    if (!strict && ctx.num_inputs() == 2) {
      DFC_ASSIGN_OR_RETURN(SymbolicShape a, ctx.InputShape(0));
      DFC_ASSIGN_OR_RETURN(SymbolicShape b, ctx.InputShape(1));
      std::optional<std::vector<int64_t>> ca = ConstantShape(a);
      std::optional<std::vector<int64_t>> cb = ConstantShape(b);
      // Only constant shapes are known not to broadcast; symbolic ones that cannot be proved
      // to broadcast are an error below (the answer could depend on the binding).
      if (ca && cb && !BroadcastShape(a, b).ok()) {
        return std::vector<ExprPtr>{MakeLiteral(Scalar::Bool(*op->if_incompatible_shapes))};
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

}  // namespace

void RegisterBinaryTranslations(TranslationTable& table) {
  for (const BinaryOp& op : BinaryOps()) {
    table.push_back({op.op, {TranslateBinary, {}, UnifyBroadcast}});
  }
  binary::RegisterShapedTranslations(table);
}

}  // namespace dfc::ir
