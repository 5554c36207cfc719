// Translations of the unary elementwise ops (OPS.md row 1): one Map per dimension down to the
// scalars, applying a UserFun (the thesis' method). The UserFuns mirror the reference kernels
// of runtime/reference/elementwise_unary.cc: the same dtypes accepted, float16 computed in
// float, integers wrapping modulo 2^bits, NaN kept where the reference keeps it. Invert and
// PopulationCount, the tail's unary bitwise ops, mirror runtime/reference/bitwise.cc.
#include "graph/op_semantics/unary.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "base/check.h"
#include "base/status.h"
#include "graph/bitwise_math.h"
#include "graph/dtype.h"
#include "graph/dtype_class.h"
#include "graph/half.h"
#include "graph/scalar_math.h"
#include "ir/expr.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir {
namespace {

// --- dtype classes, as the reference kernels name them -------------------------------------

// The reference's refusal, as a translation error naming the node.
absl::Status CheckClass(const TranslateContext& ctx, DType d, unsigned classes) {
  if (DTypeInClass(d, classes)) return absl::OkStatus();
  const std::string names = DTypeClassNames(classes);
  return ctx.Error(absl::StrCat(ctx.node().op, " is not defined for dtype ", DTypeName(d),
                                " (expected one of ", names, ")"));
}

absl::Status CheckOneInput(const TranslateContext& ctx) {
  if (ctx.num_inputs() == 1) return absl::OkStatus();
  return ctx.Error(absl::StrCat("expected 1 input, got ", ctx.num_inputs()));
}

// --- one op: which dtypes, and its UserFun for each ------------------------------------------

// Bodies by dtype kind, in which $0 is the OpenCL C compute type and $1 the unsigned type
// integer arithmetic wraps in. An empty `uints` means `ints`.
struct Bodies {
  std::string floats;
  std::string ints = {};
  std::string uints = {};
  std::string bools = {};
};

using BodyText = std::function<std::string(DType)>;

BodyText ByKind(Bodies b) {
  return [b = std::move(b)](DType d) {
    const std::string& text = IsFloating(d)                      ? b.floats
                              : d == DType::kBool                ? b.bools
                              : !IsSigned(d) && !b.uints.empty() ? b.uints
                                                                 : b.ints;
    DFC_CHECK(!text.empty());
    return absl::Substitute(text, OpenCLType(d), WideUnsignedType(d));
  };
}

struct UnaryOp {
  unsigned classes = 0;
  std::function<FunPtr(DType)> make;  // the UserFun for an accepted dtype
};

// The UserFun of `f`, an op of graph/op_semantics/unary.h, named `name` with OpenCL body
// `body`, for each dtype `f` accepts.
template <typename F>
UnaryOp MakeOp(std::string name, BodyText body, const F& f) {
  UnaryOp result;
  result.classes = F::kClassesOf;
  result.make = [name = std::move(name), body = std::move(body), f](DType d) -> FunPtr {
    UserFun::HostFn host = DispatchDType(d, [&]<typename T>() -> UserFun::HostFn {
      if constexpr (InClass<T>(F::kClassesOf)) {
        return [f](std::span<const Scalar> args) -> absl::StatusOr<Scalar> {
          auto r = f.fn(ScalarAs<T>(args[0]));
          if constexpr (IsStatusOr<decltype(r)>::value) {
            if (!r.ok()) return r.status();
            return ScalarOf<T>(*r);
          } else if constexpr (F::kPredicate) {
            return Scalar::Bool(r);
          } else {
            return ScalarOf<T>(static_cast<ComputeType<T>>(r));
          }
        };
      } else {
        return nullptr;
      }
    });
    DFC_CHECK(host != nullptr);
    return MakeUserFun(absl::StrCat(name, "_", DTypeName(d)), {"x"}, body(d), {d},
                       F::kPredicate ? DType::kBool : d, std::move(host));
  };
  return result;
}

// Erfinv as graph/op_semantics/unary.h computes it: Giles' estimate, which is float's answer,
// refined in double by the same Newton steps.
std::string ErfinvBody(DType d) {
  const auto polynomial = [d](const std::array<double, 9>& c) {
    std::string p = absl::StrCat("p = ", FloatLiteral(d, c[0]), ";");
    for (size_t k = 1; k < c.size(); ++k) {
      absl::StrAppend(&p, " p = ", FloatLiteral(d, c[k]), " + p * w;");
    }
    return p;
  };
  std::string text = absl::StrCat(
      "$0 a = fabs(x);\n"
      "if (!(a < 1)) return a == 1 ? copysign(($0)INFINITY, x) : ($0)NAN;\n"
      "$0 w = -log((1 - a) * (1 + a));\n"
      "$0 p;\n"
      "if (w < 5) {\n  w -= 2.5;\n  ",
      polynomial(kErfinvCentral), "\n} else {\n  w = sqrt(w) - 3;\n  ", polynomial(kErfinvTail),
      "\n}\n$0 r = p * a;\n");
  if (d == DType::kDouble) {
    absl::StrAppend(&text, "for (int k = 0; k < ", kErfinvNewtonSteps,
                    "; ++k) {\n"
                    "  const double slope = ",
                    FloatLiteral(DType::kDouble, kErfSlopeAtZero),
                    " * exp(-r * r);\n"
                    "  if (a <= 0.5) {\n    r -= (erf(r) - a) / slope;\n  } else {\n"
                    "    const double tail = erfc(r);\n"
                    "    r += (log(tail) - log1p(-a)) * tail / slope;\n  }\n}\n");
  }
  absl::StrAppend(&text, "return copysign(r, x);");
  return absl::Substitute(text, OpenCLType(d));
}

// Each op's UserFun name and OpenCL body: what the translation adds to the op's function.
struct Body {
  std::string name;
  BodyText text;
};

const absl::flat_hash_map<std::string, Body>& OpenCLBodies() {
  static const auto* bodies = [] {
    auto* m = new absl::flat_hash_map<std::string, Body>;
    const auto math = [m](const char* op, const char* fn) {
      (*m)[op] = {absl::AsciiStrToLower(op), ByKind({absl::StrCat("return ", fn, "(x);")})};
    };
    (*m)["Abs"] = {"abs", ByKind({"return fabs(x);", "return x < 0 ? ($0)(($1)0 - ($1)x) : x;"})};
    (*m)["Neg"] = {"neg", ByKind({"return -x;", "return ($0)(($1)0 - ($1)x);"})};
    (*m)["Sign"] = {"sign", ByKind({"return isnan(x) ? x : ($0)((0 < x) - (x < 0));",
                                    "return ($0)((0 < x) - (x < 0));", "return x > 0 ? 1 : 0;"})};
    (*m)["Square"] = {"square", ByKind({"return x * x;", "return ($0)(($1)x * ($1)x);"})};
    // Integer 1/x: the host function refuses 1/0, which a device cannot report (it gives 0).
    const Body reciprocal = {"reciprocal",
                             ByKind({"return 1 / x;", "return x == 1 ? 1 : (x == -1 ? -1 : 0);",
                                     "return x == 1 ? 1 : 0;"})};
    (*m)["Reciprocal"] = reciprocal;
    (*m)["Inv"] = reciprocal;

    // Round and Rint are rint (half to even in the default rounding mode; OpenCL's round() is
    // half away from zero).
    math("Floor", "floor");
    math("Ceil", "ceil");
    (*m)["Round"] = {"round", ByKind({"return rint(x);", "return x;"})};
    math("Rint", "rint");

    // OpenCL's built-ins of the same names.
    for (const char* op :
         {"Exp", "Expm1", "Log", "Log1p", "Sqrt", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan",
          "Sinh", "Cosh", "Tanh", "Asinh", "Acosh", "Atanh", "Erf", "Erfc"}) {
      math(op, absl::AsciiStrToLower(op).c_str());
    }
    (*m)["Erfinv"] = {"erfinv", ErfinvBody};
    (*m)["Rsqrt"] = {"rsqrt", ByKind({"return 1 / sqrt(x);"})};

    (*m)["Sigmoid"] = {"sigmoid", ByKind({"if (x >= 0) return 1 / (1 + exp(-x));\n"
                                          "$0 e = exp(x);\n"
                                          "return e / (1 + e);"})};
    (*m)["Relu"] = {"relu",
                    ByKind({"return x < 0 ? 0 : x;", "return x < 0 ? 0 : x;", "return x;"})};
    // No local: the body runs lane-wise on vectors too (rewrite::VectorRefusal).
    (*m)["Relu6"] = {"relu6", ByKind({"return (x < 0 ? 0 : x) > 6 ? 6 : (x < 0 ? 0 : x);",
                                      "return (x < 0 ? 0 : x) > 6 ? 6 : (x < 0 ? 0 : x);",
                                      "return x > 6 ? 6 : x;"})};
    (*m)["Elu"] = {"elu", ByKind({"return x < 0 ? expm1(x) : x;"})};
    (*m)["Selu"] = {"selu", [](DType d) {
                      return absl::Substitute("return x < 0 ? $0 * expm1(x) : $1 * x;",
                                              FloatLiteral(d, kSeluScaleAlpha),
                                              FloatLiteral(d, kSeluScale));
                    }};
    (*m)["Softplus"] = {"softplus", ByKind({"return (x < 0 ? 0 : x) + log1p(exp(-fabs(x)));"})};
    (*m)["Softsign"] = {"softsign", ByKind({"return x / (1 + fabs(x));"})};

    (*m)["IsNan"] = {"is_nan", ByKind({"return isnan(x) ? 1 : 0;"})};
    (*m)["IsInf"] = {"is_inf", ByKind({"return isinf(x) ? 1 : 0;"})};
    (*m)["IsFinite"] = {"is_finite", ByKind({"return isfinite(x) ? 1 : 0;"})};
    (*m)["LogicalNot"] = {"logical_not", ByKind({.floats = "", .bools = "return x ? 0 : 1;"})};
    // A char's ~x is an int, returned as char: the same bits (and on vectors, where nothing
    // promotes, the body is lane-wise as it stands).
    (*m)["Invert"] = {"invert", ByKind({.floats = "", .ints = "return ~x;"})};
    return m;
  }();
  return *bodies;
}

// The ops that are one UserFun applied to every element: graph/op_semantics/unary.h's, each
// with its OpenCL body.
const absl::flat_hash_map<std::string, UnaryOp>& ElementwiseOps() {
  static const auto* ops = [] {
    auto* m = new absl::flat_hash_map<std::string, UnaryOp>;
    ForEachUnaryOp([m](const char* op, const auto& f) {
      const auto body = OpenCLBodies().find(op);
      DFC_CHECK(body != OpenCLBodies().end());
      (*m)[op] = MakeOp(body->second.name, body->second.text, f);
    });
    DFC_CHECK(m->size() == OpenCLBodies().size());
    return m;
  }();
  return *ops;
}

absl::StatusOr<std::vector<ExprPtr>> One(absl::StatusOr<ExprPtr> e) {
  if (!e.ok()) return e.status();
  return std::vector<ExprPtr>{*std::move(e)};
}

// Map^rank(λ(x) => f(x, extra...)) $ input.
absl::StatusOr<std::vector<ExprPtr>> MapFun(const TranslateContext& ctx, const FunPtr& f,
                                            std::vector<ExprPtr> extra = {}) {
  DFC_ASSIGN_OR_RETURN(ExprPtr input, ctx.Input(0));
  absl::StatusOr<ExprPtr> out = MapScalars(input, [&](ExprPtr x) {
    std::vector<ExprPtr> args = {std::move(x)};
    args.insert(args.end(), extra.begin(), extra.end());
    return Apply(f, std::move(args));
  });
  if (!out.ok()) return ctx.node().Annotate(out.status());
  return One(std::move(out));
}

absl::StatusOr<std::vector<ExprPtr>> TranslateElementwise(const TranslateContext& ctx) {
  const auto it = ElementwiseOps().find(ctx.node().op);
  DFC_CHECK(it != ElementwiseOps().end());
  DFC_RETURN_IF_ERROR(CheckOneInput(ctx));
  DFC_ASSIGN_OR_RETURN(DType dtype, ctx.InputDType(0));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, dtype, it->second.classes));
  return MapFun(ctx, it->second.make(dtype));
}

// LeakyRelu: x > 0 ? x : x * alpha. alpha is a literal of T, so float16 uses alpha rounded to
// half, as TensorFlow converts it to T before multiplying.
absl::StatusOr<std::vector<ExprPtr>> TranslateLeakyRelu(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckOneInput(ctx));
  DFC_ASSIGN_OR_RETURN(const float alpha, ctx.node().GetFloat("alpha", 0.2f));
  DFC_ASSIGN_OR_RETURN(DType dtype, ctx.InputDType(0));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, dtype, kFloats));
  UserFun::HostFn host = DispatchDType(dtype, [&]<typename T>() -> UserFun::HostFn {
    return [](std::span<const Scalar> args) -> absl::StatusOr<Scalar> {
      using C = ComputeType<T>;
      const C x = ScalarAs<T>(args[0]);
      const C a = ScalarAs<T>(args[1]);
      return ScalarOf<T>(LeakyRelu(x, a));
    };
  });
  const FunPtr f =
      MakeUserFun(absl::StrCat("leaky_relu_", DTypeName(dtype)), {"x", "alpha"},
                  "return x > 0 ? x : x * alpha;", {dtype, dtype}, dtype, std::move(host));
  return MapFun(ctx, f, {Lit(dtype, alpha)});
}

// PopulationCount: the bits set in each element's two's complement pattern, as uint8 whatever
// the integer dtype (OpenCL C's popcount gives x's own type; the count always fits).
absl::StatusOr<std::vector<ExprPtr>> TranslatePopulationCount(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckOneInput(ctx));
  DFC_ASSIGN_OR_RETURN(DType dtype, ctx.InputDType(0));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, dtype, kInts));
  UserFun::HostFn host = DispatchDType(dtype, [&]<typename T>() -> UserFun::HostFn {
    if constexpr (InClass<T>(kInts)) {
      return [](std::span<const Scalar> args) -> absl::StatusOr<Scalar> {
        return ScalarOf<uint8_t>(PopulationCount(ScalarAs<T>(args[0])));
      };
    } else {
      return nullptr;
    }
  });
  DFC_CHECK(host != nullptr);
  const FunPtr f =
      MakeUserFun(absl::StrCat("population_count_", DTypeName(dtype)), {"x"},
                  "return (uchar)popcount(x);", {dtype}, DType::kUInt8, std::move(host));
  return MapFun(ctx, f);
}

// Cast: SrcT must be the input's dtype; DstT any computable dtype.
absl::StatusOr<std::vector<ExprPtr>> TranslateCast(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckOneInput(ctx));
  DFC_ASSIGN_OR_RETURN(DType from, ctx.InputDType(0));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, from, kAll));
  DFC_ASSIGN_OR_RETURN(DType src, ctx.node().GetType("SrcT", from));
  if (src != from) {
    return ctx.Error(
        absl::StrCat("SrcT is ", DTypeName(src), " but the input is ", DTypeName(from)));
  }
  DFC_ASSIGN_OR_RETURN(DType to, ctx.node().GetType("DstT"));
  if (!IsSupported(to) || to == DType::kString) {
    return ctx.Error(absl::StrCat("cannot cast to DstT ", DTypeName(to)));
  }
  DFC_ASSIGN_OR_RETURN(const bool truncate, ctx.node().GetBool("Truncate", false));
  // A cast to the same dtype changes no value.
  if (from == to) return One(ctx.Input(0));
  return MapFun(ctx, CastFun(from, to, truncate));
}

// Identity, StopGradient, Snapshot, PreventGradient: the input expression itself.
absl::StatusOr<std::vector<ExprPtr>> TranslatePassThrough(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckOneInput(ctx));
  return One(ctx.Input(0));
}

// ZerosLike and OnesLike: the constant repeated to the input's shape. The input's values are
// never read, so the kernel does not load them.
template <int kValue>
absl::StatusOr<std::vector<ExprPtr>> TranslateFillLike(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckOneInput(ctx));
  DFC_ASSIGN_OR_RETURN(DType dtype, ctx.InputDType(0));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, dtype, kAll));
  DFC_ASSIGN_OR_RETURN(SymbolicShape shape, ctx.InputShape(0));
  ExprPtr out = Lit(dtype, kValue);
  for (auto dim = shape.rbegin(); dim != shape.rend(); ++dim) {
    absl::StatusOr<ExprPtr> repeated = Call(Repeat(*dim), {out});
    if (!repeated.ok()) return ctx.node().Annotate(repeated.status());
    out = *std::move(repeated);
  }
  return std::vector<ExprPtr>{out};
}

}  // namespace

void RegisterUnaryTranslations(TranslationTable& table) {
  std::vector<std::string> ops;
  for (const auto& entry : ElementwiseOps()) ops.push_back(entry.first);
  std::sort(ops.begin(), ops.end());  // a deterministic table
  for (const std::string& op : ops) table.push_back({op, Translation{&TranslateElementwise, {}}});
  table.push_back({"LeakyRelu", Translation{&TranslateLeakyRelu, {}}});
  table.push_back({"Cast", Translation{&TranslateCast, {}}});
  table.push_back({"PopulationCount", Translation{&TranslatePopulationCount, {}}});
  for (const char* op : {"Identity", "StopGradient", "Snapshot", "PreventGradient"}) {
    table.push_back({op, Translation{&TranslatePassThrough, {}}});
  }
  table.push_back({"ZerosLike", Translation{&TranslateFillLike<0>, {}}});
  table.push_back({"OnesLike", Translation{&TranslateFillLike<1>, {}}});
}

}  // namespace dfc::ir
