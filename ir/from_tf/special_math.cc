// Translations of the tail table's elementwise math (OPS.md: "elementwise ... ops run on the
// device"): the special functions (Lgamma Digamma Igamma Igammac Betainc Zeta Polygamma), the
// x-guarded Xdivy Xlogy Xlog1py, ApproximateEqual, ClipByValue, Bucketize and the FakeQuant
// ops, each a UserFun mapped over its operands with NumPy broadcasting where the reference
// broadcasts (runtime/reference/special_math.cc).
//
// The special functions are computed in double and rounded once to the input's dtype, as the
// reference computes them: each UserFun takes and returns double, between two Casts. Its host
// twin is the reference's own function (graph/special_functions.h) and its OpenCL C body
// follows the same steps, so the three oracles differ only by the device's libm (lgamma, pow,
// exp). A device without cl_khr_fp64 fails to build such a kernel and its cluster falls back to
// the host. The other ops compute in their compute type, as TensorFlow does.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "base/check.h"
#include "base/status.h"
#include "graph/attr.h"
#include "graph/dtype.h"
#include "graph/dtype_class.h"
#include "graph/special_functions.h"
#include "graph/tensor.h"
#include "ir/from_tf/broadcast.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/size_unifier.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir {
namespace {

constexpr double kEpsilon = std::numeric_limits<double>::epsilon();

// ---- checks, with the reference's refusals -----------------------------------------------------

absl::Status CheckArity(const TranslateContext& ctx, int n) {
  if (ctx.num_inputs() == n) return absl::OkStatus();
  return ctx.Error(absl::StrCat("expects ", n, " inputs, got ", ctx.num_inputs()));
}

// Every input of one dtype, among `dtypes`.
absl::StatusOr<DType> CommonDType(const TranslateContext& ctx, std::span<const DType> dtypes,
                                  int num_inputs) {
  DFC_ASSIGN_OR_RETURN(DType d, ctx.InputDType(0));
  for (int i = 0; i < num_inputs; ++i) {
    DFC_ASSIGN_OR_RETURN(DType di, ctx.InputDType(i));
    if (std::find(dtypes.begin(), dtypes.end(), di) == dtypes.end()) {
      std::vector<std::string> names;
      for (DType a : dtypes) names.emplace_back(DTypeName(a));
      return ctx.Error(absl::StrCat("input ", i, " has dtype ", DTypeName(di), ", expected one of ",
                                    absl::StrJoin(names, ", ")));
    }
    if (di != d) {
      return ctx.Error(absl::StrCat("inputs must have the same dtype: input 0 is ", DTypeName(d),
                                    ", input ", i, " is ", DTypeName(di)));
    }
  }
  return d;
}

constexpr DType kHalfFloatDouble[] = {DType::kHalf, DType::kFloat, DType::kDouble};
constexpr DType kFloatDouble[] = {DType::kFloat, DType::kDouble};

// f broadcast over the operands, a broadcasting error annotated with the node.
absl::StatusOr<ExprPtr> BroadcastCall(const TranslateContext& ctx, std::vector<ExprPtr> operands,
                                      const ScalarsFn& f) {
  absl::StatusOr<ExprPtr> result = BroadcastScalars(std::move(operands), f);
  if (!result.ok()) return ctx.node().Annotate(result.status());
  return result;
}

// A name part that tells UserFuns with different constants in their bodies apart.
template <typename T>
std::string HashPart(const T& value) {
  return absl::StrCat(absl::Hex(absl::HashOf(value)));
}

// ---- the special functions, in double ----------------------------------------------------------

// The OpenCL C steps of graph/special_functions.cc, on double variables; EPS is the double
// epsilon, HALF_EPS half of it and LOG_MAX log(DBL_MAX), each printed to read back exactly.
std::string WithConstants(absl::string_view text) {
  return absl::StrReplaceAll(
      text, {{"HALF_EPS", FloatLiteral(DType::kDouble, kEpsilon / 2)},
             {"EPS", FloatLiteral(DType::kDouble, kEpsilon)},
             {"LOG_MAX", FloatLiteral(DType::kDouble,
                                      std::log(std::numeric_limits<double>::max()))},
             {"PI", FloatLiteral(DType::kDouble, 3.14159265358979323846)}});
}

// Digamma of the variable x (which it changes), returning from the function.
constexpr char kDigammaSteps[] = R"(if (isnan(x) || x == -INFINITY) return NAN;
if (x == INFINITY) return INFINITY;
double reflection = 0.0;
if (x <= 0.0) {
  if (x == floor(x)) return NAN;
  double r = x - round(x);
  reflection = PI / tan(PI * r);
  x = 1.0 - x;
}
double shift = 0.0;
while (x < 10.0) {
  shift += 1.0 / x;
  x += 1.0;
}
double z = 1.0 / (x * x);
double series = z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 -
                z * (1.0 / 132 - z * (691.0 / 32760 - z * (1.0 / 12)))))));
return log(x) - 0.5 / x - series - shift - reflection;
)";

// P(a, x) (lower) or Q(a, x) (upper) of the variables a and x: the power series where it
// converges (its value P), otherwise the continued fraction (its value Q), and 1 minus that
// value where the other one is asked for.
std::string IncompleteGammaSteps(bool upper) {
  std::string guards = upper ? "" : "if (x == 0.0) return 0.0;\n";
  absl::StrAppend(&guards, "if (x < 0.0 || a <= 0.0 || isnan(a) || isnan(x)) return NAN;\n");
  absl::StrAppend(&guards, upper ? "bool fraction = !(x < 1.0 || x < a);\n"
                                 : "bool fraction = x > 1.0 && x > a;\n");
  return absl::StrCat(guards, R"(double value = 0.0;
double log_factor = a * log(x) - x - lgamma(a);
if (!(fraction && isinf(x)) && !isnan(log_factor) && !(log_factor < -LOG_MAX)) {
  double factor = exp(log_factor);
  if (fraction) {
    double b = x + 1.0 - a;
    double c = 1.0 / 1e-300;
    double d = 1.0 / b;
    double h = d;
    for (int i = 1; i < 2000; ++i) {
      double an = -i * (i - a);
      b += 2.0;
      d = an * d + b;
      if (fabs(d) < 1e-300) d = 1e-300;
      c = b + an / c;
      if (fabs(c) < 1e-300) c = 1e-300;
      d = 1.0 / d;
      double delta = d * c;
      h *= delta;
      if (fabs(delta - 1.0) <= HALF_EPS) break;
    }
    value = factor * h;
  } else {
    double term = 1.0;
    double sum = 1.0;
    double r = a;
    for (int i = 0; i < 2000; ++i) {
      r += 1.0;
      term *= x / r;
      sum += term;
      if (term <= HALF_EPS * sum) break;
    }
    value = sum * factor / a;
  }
}
)",
                      upper ? "return fraction ? value : 1.0 - value;\n"
                            : "return fraction ? 1.0 - value : value;\n");
}

constexpr char kBetaincSteps[] = R"(if (a <= 0.0 || b <= 0.0) return NAN;
if (x <= 0.0 || x >= 1.0) {
  if (x == 0.0) return 0.0;
  if (x == 1.0) return 1.0;
  return NAN;
}
if (isnan(a) || isnan(b) || isnan(x)) return NAN;
double log_front = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
// I_x(a, b) = 1 - I_{1-x}(b, a) where the fraction converges for the latter.
bool flip = !(x < (a + 1.0) / (a + b + 2.0));
double fa = flip ? b : a;
double fb = flip ? a : b;
double fx = flip ? 1.0 - x : x;
double qab = fa + fb;
double qap = fa + 1.0;
double qam = fa - 1.0;
double c = 1.0;
double d = 1.0 - qab * fx / qap;
if (fabs(d) < 1e-300) d = 1e-300;
d = 1.0 / d;
double h = d;
for (int m = 1; m <= 1000; ++m) {
  int m2 = 2 * m;
  double an = m * (fb - m) * fx / ((qam + m2) * (fa + m2));
  d = 1.0 + an * d;
  if (fabs(d) < 1e-300) d = 1e-300;
  c = 1.0 + an / c;
  if (fabs(c) < 1e-300) c = 1e-300;
  d = 1.0 / d;
  h *= d * c;
  an = -(fa + m) * (qab + m) * fx / ((fa + m2) * (qap + m2));
  d = 1.0 + an * d;
  if (fabs(d) < 1e-300) d = 1e-300;
  c = 1.0 + an / c;
  if (fabs(c) < 1e-300) c = 1e-300;
  d = 1.0 / d;
  double delta = d * c;
  h *= delta;
  if (fabs(delta - 1.0) <= EPS) break;
}
double v = exp(log_front) * h / fa;
return flip ? 1.0 - v : v;
)";

// zeta(s, q) of the variables s and q, each result r returned as `ret` with $ for r.
std::string ZetaSteps(absl::string_view ret) {
  const auto out = [&](absl::string_view r) {
    return absl::StrReplaceAll(ret, {{"$", absl::StrCat("(", r, ")")}});
  };
  std::vector<std::string> table;
  for (double v : kZetaFactorialOverBernoulli) table.push_back(FloatLiteral(DType::kDouble, v));
  return absl::StrCat("if (s == 1.0) ", out("INFINITY"), "\n",
                      "if (s < 1.0 || isnan(s) || isnan(q)) ", out("NAN"), "\n",
                      "if (q <= 0.0) {\n  if (q == floor(q)) ",
                      out("rint(s / 2) == s / 2 ? INFINITY : NAN"),
                      "\n  if (s != floor(s)) ", out("NAN"), "\n}\n", R"(double sum = pow(q, -s);
double w = q;
double term = 0.0;
bool done = false;
for (int i = 0; i < 9 || w <= 9.0; ++i) {
  w += 1.0;
  term = pow(w, -s);
  sum += term;
  if (fabs(term / sum) < HALF_EPS) {
    done = true;
    break;
  }
}
if (!done && term != 0.0) {
  sum += term * w / (s - 1.0) - term / 2;
  const double divisors[12] = {)",
                      absl::StrJoin(table, ", "), R"(};
  double rising = 1.0;
  double power = term;
  double k = 0.0;
  for (int j = 0; j < 12; ++j) {
    rising *= s + k;
    power /= w;
    double t = rising * power / divisors[j];
    sum += t;
    if (fabs(t / sum) < HALF_EPS) break;
    k += 1.0;
    rising *= s + k;
    power /= w;
    k += 1.0;
  }
}
)",
                      out("sum"), "\n");
}

std::string PolygammaSteps() {
  return absl::StrCat(
      "if (isnan(n) || n < 0.0 || floor(n) != n) return NAN;\n"
      "if (n == 0.0) {\n",
      kDigammaSteps,
      "}\n"
      "double factor = (fmod(n, 2.0) == 0.0 ? -1.0 : 1.0) * tgamma(n + 1.0);\n"
      "double s = n + 1.0;\n"
      "double q = x;\n",
      ZetaSteps("return factor * $;"));
}

// A UserFun on doubles whose host twin is `fn`.
template <typename Fn>
FunPtr DoubleFun(absl::string_view name, std::vector<std::string> params, std::string body,
                 Fn fn) {
  const size_t arity = params.size();
  return MakeUserFun(
      name, std::move(params), WithConstants(body), std::vector<DType>(arity, DType::kDouble),
      DType::kDouble, [fn](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        double r;
        if constexpr (std::is_invocable_v<Fn, double>) {
          r = fn(a[0].AsDouble());
        } else if constexpr (std::is_invocable_v<Fn, double, double>) {
          r = fn(a[0].AsDouble(), a[1].AsDouble());
        } else {
          r = fn(a[0].AsDouble(), a[1].AsDouble(), a[2].AsDouble());
        }
        return Scalar::Float(DType::kDouble, r);
      });
}

struct SpecialOp {
  absl::string_view op;
  int arity;
  std::span<const DType> dtypes;
  FunPtr (*make)();
};

FunPtr LgammaFun() {
  return DoubleFun("lgamma_f64", {"x"}, "return lgamma(x);",
                   [](double x) { return std::lgamma(x); });
}
FunPtr DigammaFun() { return DoubleFun("digamma_f64", {"x"}, kDigammaSteps, Digamma); }
FunPtr IgammaFun() {
  return DoubleFun("igamma_f64", {"a", "x"}, IncompleteGammaSteps(false), Igamma);
}
FunPtr IgammacFun() {
  return DoubleFun("igammac_f64", {"a", "x"}, IncompleteGammaSteps(true), Igammac);
}
FunPtr ZetaFun() { return DoubleFun("zeta_f64", {"s", "q"}, ZetaSteps("return $;"), Zeta); }
FunPtr PolygammaFun() {
  return DoubleFun("polygamma_f64", {"n", "x"}, PolygammaSteps(), Polygamma);
}
FunPtr BetaincFun() { return DoubleFun("betainc_f64", {"a", "b", "x"}, kBetaincSteps, Betainc); }

constexpr SpecialOp kSpecialOps[] = {
    {"Lgamma", 1, kHalfFloatDouble, LgammaFun},   {"Digamma", 1, kHalfFloatDouble, DigammaFun},
    {"Igamma", 2, kFloatDouble, IgammaFun},       {"Igammac", 2, kFloatDouble, IgammacFun},
    {"Zeta", 2, kFloatDouble, ZetaFun},           {"Polygamma", 2, kFloatDouble, PolygammaFun},
    {"Betainc", 3, kFloatDouble, BetaincFun},
};

const SpecialOp& FindSpecialOp(absl::string_view op) {
  for (const SpecialOp& s : kSpecialOps) {
    if (s.op == op) return s;
  }
  DFC_CHECK(false && "only the ops of kSpecialOps are registered to TranslateSpecial");
  return kSpecialOps[0];
}

// Betainc's rule: each input a scalar or of one common shape.
absl::Status CheckScalarsOrOneShape(const TranslateContext& ctx) {
  const SymbolicShape* common = nullptr;
  std::vector<SymbolicShape> shapes;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    DFC_ASSIGN_OR_RETURN(SymbolicShape s, ctx.InputShape(i));
    shapes.push_back(std::move(s));
  }
  for (const SymbolicShape& s : shapes) {
    if (s.empty()) continue;
    if (common != nullptr && s != *common) {
      std::vector<std::string> names;
      for (const SymbolicShape& t : shapes) names.push_back(ShapeToString(t));
      return ctx.Error(absl::StrCat("inputs must be scalars or have one common shape, got ",
                                    absl::StrJoin(names, ", ")));
    }
    common = &s;
  }
  return absl::OkStatus();
}

// out = Cast(f(Cast(x, double)...), T) over the broadcast shape.
absl::StatusOr<std::vector<ExprPtr>> TranslateSpecial(const TranslateContext& ctx) {
  const SpecialOp& op = FindSpecialOp(ctx.node().op);
  DFC_RETURN_IF_ERROR(CheckArity(ctx, op.arity));
  DFC_ASSIGN_OR_RETURN(DType d, CommonDType(ctx, op.dtypes, op.arity));
  if (op.arity == 3) DFC_RETURN_IF_ERROR(CheckScalarsOrOneShape(ctx));
  std::vector<ExprPtr> operands;
  for (int i = 0; i < op.arity; ++i) {
    DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(i));
    operands.push_back(std::move(x));
  }
  const FunPtr f = op.make();
  DFC_ASSIGN_OR_RETURN(
      ExprPtr out,
      BroadcastCall(ctx, std::move(operands),
                    [&](std::span<const ExprPtr> s) -> absl::StatusOr<ExprPtr> {
                      std::vector<ExprPtr> args;
                      for (const ExprPtr& x : s) {
                        if (d == DType::kDouble) {
                          args.push_back(x);
                        } else {
                          DFC_ASSIGN_OR_RETURN(ExprPtr widened,
                                               Call(CastFun(d, DType::kDouble), {x}));
                          args.push_back(std::move(widened));
                        }
                      }
                      DFC_ASSIGN_OR_RETURN(ExprPtr r, Call(f, std::move(args)));
                      if (d == DType::kDouble) return r;
                      return Call(CastFun(DType::kDouble, d), {r});
                    }));
  return std::vector<ExprPtr>{out};
}

// ---- Xdivy, Xlogy, Xlog1py: 0 where x is 0, whatever y is ---------------------------------------

template <typename Op>
FunPtr GuardedFun(DType d, absl::string_view name, absl::string_view expr, Op op) {
  const std::string zero = FloatLiteral(d, 0);
  UserFun::HostFn host = DispatchDType(d, [&]<typename T>() -> UserFun::HostFn {
    if constexpr (InClass<T>(kFloats)) {
      return [op](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        using C = ComputeType<T>;
        const C x = ScalarAs<T>(a[0]);
        const C y = ScalarAs<T>(a[1]);
        return ScalarOf<T>(x == C(0) ? C(0) : op(x, y));
      };
    } else {
      DFC_CHECK(false && "the dtype is checked before the UserFun is made");
      return nullptr;
    }
  });
  return MakeUserFun(absl::StrCat(name, "_", DTypeName(d)), {"x", "y"},
                     absl::StrCat("return x == ", zero, " ? ", zero, " : ", expr, ";"), {d, d}, d,
                     std::move(host));
}

absl::StatusOr<std::vector<ExprPtr>> TranslateGuarded(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckArity(ctx, 2));
  DFC_ASSIGN_OR_RETURN(DType d, CommonDType(ctx, kHalfFloatDouble, 2));
  const absl::string_view op = ctx.node().op;
  FunPtr f;
  if (op == "Xdivy") {
    f = GuardedFun(d, "xdivy", "x / y", []<typename C>(C x, C y) { return x / y; });
  } else if (op == "Xlogy") {
    f = GuardedFun(d, "xlogy", "x * log(y)", []<typename C>(C x, C y) { return x * std::log(y); });
  } else {
    f = GuardedFun(d, "xlog1py", "x * log1p(y)",
                   []<typename C>(C x, C y) { return x * std::log1p(y); });
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr y, ctx.Input(1));
  DFC_ASSIGN_OR_RETURN(ExprPtr out,
                       BroadcastCall(ctx, {x, y}, [&](std::span<const ExprPtr> s) {
                         return Call(f, {s[0], s[1]});
                       }));
  return std::vector<ExprPtr>{out};
}

// ---- ApproximateEqual ---------------------------------------------------------------------------

// |x - y| < tolerance in T (float16 rounded back to half), or for integers the difference's
// unsigned magnitude against the tolerance truncated, as the reference compares.
FunPtr ApproximateEqualFun(DType d, float tolerance) {
  std::string body;
  UserFun::HostFn host = DispatchDType(d, [&]<typename T>() -> UserFun::HostFn {
    if constexpr (InClass<T>(kFloats)) {
      using C = ComputeType<T>;
      const C tol = ScalarAs<T>(ScalarOf<T>(static_cast<C>(tolerance)));
      const std::string diff =
          d == DType::kHalf ? "dfc_round_half(fabs(x - y))" : "fabs(x - y)";
      body = absl::StrCat("return ", diff, " < ", FloatLiteral(d, tol), ";");
      return [tol](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        const C diff = ScalarAs<T>(ScalarOf<T>(std::abs(ScalarAs<T>(a[0]) - ScalarAs<T>(a[1]))));
        return Scalar::Bool(diff < tol);
      };
    } else if constexpr (InClass<T>(kInts)) {
      // diff < trunc(tol) for a magnitude diff >= 0: never where the bound is at most 0, always
      // where it is past every magnitude, else diff < bound as integers.
      const double bound = std::trunc(static_cast<double>(tolerance));
      const std::string w = SizeOf(d) == 8 ? "ulong" : "uint";
      const std::string diff =
          absl::StrCat("(x > y ? (", w, ")x - (", w, ")y : (", w, ")y - (", w, ")x)");
      if (!(bound > 0)) {
        body = "return 0;";
      } else if (bound >= 0x1p64) {
        body = "return 1;";
      } else {
        body = absl::StrCat("return ", diff, " < ", static_cast<uint64_t>(bound), "UL;");
      }
      return [bound](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        const T x = ScalarAs<T>(a[0]);
        const T y = ScalarAs<T>(a[1]);
        const uint64_t diff = x > y ? static_cast<uint64_t>(x) - static_cast<uint64_t>(y)
                                    : static_cast<uint64_t>(y) - static_cast<uint64_t>(x);
        return Scalar::Bool(static_cast<double>(diff) < bound);
      };
    } else {
      DFC_CHECK(false && "the dtype is checked before the UserFun is made");
      return nullptr;
    }
  });
  return MakeUserFun(absl::StrCat("approximate_equal_", DTypeName(d), "_", HashPart(tolerance)),
                     {"x", "y"}, body, {d, d}, DType::kBool, std::move(host));
}

absl::StatusOr<std::vector<ExprPtr>> TranslateApproximateEqual(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckArity(ctx, 2));
  DFC_ASSIGN_OR_RETURN(DType d, ctx.InputDType(0));
  DFC_ASSIGN_OR_RETURN(DType dy, ctx.InputDType(1));
  DFC_ASSIGN_OR_RETURN(SymbolicShape sx, ctx.InputShape(0));
  DFC_ASSIGN_OR_RETURN(SymbolicShape sy, ctx.InputShape(1));
  if (!IsNumeric(d)) {
    return ctx.Error(absl::StrCat("ApproximateEqual is not defined for dtype ", DTypeName(d)));
  }
  if (d != dy || sx != sy) {
    return ctx.Error(absl::StrCat("x and y must have the same dtype and shape, got ",
                                  DTypeName(d), ShapeToString(sx), " and ", DTypeName(dy),
                                  ShapeToString(sy)));
  }
  DFC_ASSIGN_OR_RETURN(float tolerance, ctx.node().GetFloat("tolerance", 1e-5f));
  const FunPtr f = ApproximateEqualFun(d, tolerance);
  DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr y, ctx.Input(1));
  DFC_ASSIGN_OR_RETURN(ExprPtr out, ZipScalars({x, y}, [&](std::span<const ExprPtr> s) {
                         return Call(f, {s[0], s[1]});
                       }));
  return std::vector<ExprPtr>{out};
}

// ---- ClipByValue --------------------------------------------------------------------------------

// hi where t > hi, then lo where below lo: a NaN t stays NaN, as the reference's comparisons
// leave it.
FunPtr ClipFun(DType d) {
  UserFun::HostFn host = DispatchDType(d, [&]<typename T>() -> UserFun::HostFn {
    if constexpr (InClass<T>(kNumbers)) {
      return [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        auto v = ScalarAs<T>(a[0]);
        const auto lo = ScalarAs<T>(a[1]);
        const auto hi = ScalarAs<T>(a[2]);
        if (hi < v) v = hi;
        if (v < lo) v = lo;
        return ScalarOf<T>(v);
      };
    } else {
      DFC_CHECK(false && "the dtype is checked before the UserFun is made");
      return nullptr;
    }
  });
  return MakeUserFun(absl::StrCat("clip_by_value_", DTypeName(d)), {"t", "lo", "hi"},
                     absl::StrCat(OpenCLType(d), " v = hi < t ? hi : t;\nreturn v < lo ? lo : v;"),
                     {d, d, d}, d, std::move(host));
}

absl::StatusOr<std::vector<ExprPtr>> TranslateClipByValue(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckArity(ctx, 3));
  DFC_ASSIGN_OR_RETURN(DType d, ctx.InputDType(0));
  if (!IsNumeric(d)) {
    return ctx.Error(absl::StrCat("ClipByValue is not defined for dtype ", DTypeName(d)));
  }
  DFC_ASSIGN_OR_RETURN(SymbolicShape shape, ctx.InputShape(0));
  for (int i = 1; i < 3; ++i) {
    DFC_ASSIGN_OR_RETURN(DType di, ctx.InputDType(i));
    DFC_ASSIGN_OR_RETURN(SymbolicShape si, ctx.InputShape(i));
    if (di != d || (!si.empty() && si != shape)) {
      return ctx.Error(absl::StrCat(i == 1 ? "clip_value_min" : "clip_value_max",
                                    " must be a scalar or have the shape of t ", DTypeName(d),
                                    ShapeToString(shape), ", got ", DTypeName(di),
                                    ShapeToString(si)));
    }
  }
  std::vector<ExprPtr> operands;
  for (int i = 0; i < 3; ++i) {
    DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(i));
    operands.push_back(std::move(x));
  }
  const FunPtr f = ClipFun(d);
  DFC_ASSIGN_OR_RETURN(ExprPtr out,
                       BroadcastCall(ctx, std::move(operands), [&](std::span<const ExprPtr> s) {
                         return Call(f, {s[0], s[1], s[2]});
                       }));
  return std::vector<ExprPtr>{out};
}

// ---- Bucketize ----------------------------------------------------------------------------------

// How many of the sorted boundaries are not above the value (std::upper_bound's index),
// compared in the common type of the value and float: float for the integers and float, double
// for double. A NaN is above none of them, so it counts them all, as upper_bound gives.
FunPtr BucketizeFun(DType d, const std::vector<float>& boundaries) {
  const DType compare = d == DType::kDouble ? DType::kDouble : DType::kFloat;
  std::string body;
  if (boundaries.empty()) {
    body = "return 0;";
  } else {
    std::vector<std::string> literals;
    for (float b : boundaries) literals.push_back(FloatLiteral(compare, b));
    const std::string type = OpenCLType(compare);
    body = absl::StrCat("const ", type, " boundaries[", boundaries.size(), "] = {",
                        absl::StrJoin(literals, ", "), "};\n", type, " v = (", type,
                        ")x;\nint n = 0;\nfor (int i = 0; i < ", boundaries.size(),
                        "; ++i) n += v < boundaries[i] ? 0 : 1;\nreturn n;");
  }
  UserFun::HostFn host = DispatchDType(d, [&]<typename T>() -> UserFun::HostFn {
    if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> ||
                  std::is_same_v<T, float> || std::is_same_v<T, double>) {
      return [boundaries](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        using C = std::common_type_t<T, float>;
        const C v = static_cast<C>(ScalarAs<T>(a[0]));
        const auto it = std::upper_bound(boundaries.begin(), boundaries.end(), v,
                                         [](C value, float b) { return value < static_cast<C>(b); });
        return Scalar::Int(DType::kInt32, it - boundaries.begin());
      };
    } else {
      DFC_CHECK(false && "the dtype is checked before the UserFun is made");
      return nullptr;
    }
  });
  return MakeUserFun(absl::StrCat("bucketize_", DTypeName(d), "_", HashPart(boundaries)), {"x"},
                     body, {d}, DType::kInt32, std::move(host));
}

absl::StatusOr<std::vector<ExprPtr>> TranslateBucketize(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckArity(ctx, 1));
  constexpr DType kDTypes[] = {DType::kInt32, DType::kInt64, DType::kFloat, DType::kDouble};
  DFC_ASSIGN_OR_RETURN(DType d, CommonDType(ctx, kDTypes, 1));
  DFC_ASSIGN_OR_RETURN(AttrList list, ctx.node().GetList("boundaries"));
  const std::vector<float>& boundaries = list.f;
  if (!std::is_sorted(boundaries.begin(), boundaries.end())) {
    return ctx.Error(
        absl::StrCat("Expected sorted boundaries, got [", absl::StrJoin(boundaries, ", "), "]"));
  }
  const FunPtr f = BucketizeFun(d, boundaries);
  DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr out, MapScalars(x, [&](ExprPtr s) { return Call(f, {s}); }));
  return std::vector<ExprPtr>{out};
}

// ---- FakeQuant ----------------------------------------------------------------------------------

// The num_bits ([2, 16]) and narrow_range attributes.
absl::Status ReadQuantAttrs(const TranslateContext& ctx, int* num_bits, bool* narrow_range) {
  DFC_ASSIGN_OR_RETURN(int64_t bits, ctx.node().GetInt("num_bits", 8));
  if (bits < 2 || bits > 16) {
    return ctx.Error(absl::StrCat("num_bits must be between 2 and 16, inclusive, got ", bits));
  }
  DFC_ASSIGN_OR_RETURN(*narrow_range, ctx.node().GetBool("narrow_range", false));
  *num_bits = static_cast<int>(bits);
  return absl::OkStatus();
}

// x quantised on one grid per channel (the last dimension): FakeQuantize's steps with each
// channel's constants, a range of [0, 0] giving 0. One channel takes no index.
FunPtr FakeQuantFun(const std::vector<QuantGrid>& grids, const std::vector<bool>& zero) {
  const size_t n = grids.size();
  std::vector<std::string> fields[4];
  std::vector<std::string> zeros;
  for (size_t c = 0; c < n; ++c) {
    const QuantGrid& g = grids[c];
    const float values[4] = {g.nudged_min, g.nudged_max, g.scale, g.inv_scale};
    for (int k = 0; k < 4; ++k) fields[k].push_back(FloatLiteral(DType::kFloat, values[k]));
    zeros.push_back(zero[c] ? "1" : "0");
  }
  std::string body;
  const char* names[4] = {"lo", "hi", "scale", "inv_scale"};
  if (n == 1) {
    if (zero[0]) {
      body = "return 0.0f;";
    } else {
      for (int k = 0; k < 4; ++k) absl::StrAppend(&body, "float ", names[k], " = ", fields[k][0], ";\n");
    }
  } else {
    absl::StrAppend(&body, "const uchar zero[", n, "] = {", absl::StrJoin(zeros, ", "),
                    "};\nif (zero[c]) return 0.0f;\n");
    for (int k = 0; k < 4; ++k) {
      absl::StrAppend(&body, "const float ", names[k], "s[", n, "] = {",
                      absl::StrJoin(fields[k], ", "), "};\nfloat ", names[k], " = ", names[k],
                      "s[c];\n");
    }
  }
  if (!(n == 1 && zero[0])) {
    absl::StrAppend(&body,
                    "float v = hi < x ? hi : x;\n"
                    "v = v < lo ? lo : v;\n"
                    "return floor((v - lo) * inv_scale + 0.5f) * scale + lo;");
  }
  std::vector<std::string> params = {"x"};
  std::vector<DType> types = {DType::kFloat};
  if (n > 1) {
    params.push_back("c");
    types.push_back(DType::kInt32);
  }
  std::vector<float> key;
  for (size_t c = 0; c < n; ++c) {
    key.insert(key.end(), {grids[c].nudged_min, grids[c].nudged_max, grids[c].scale,
                           grids[c].inv_scale, zero[c] ? 1.0f : 0.0f});
  }
  return MakeUserFun(absl::StrCat("fake_quant_", n, "_", HashPart(key)), std::move(params), body,
                     std::move(types), DType::kFloat,
                     [grids, zero](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       const size_t c = a.size() > 1 ? static_cast<size_t>(a[1].i) : 0;
                       const float x = ScalarAs<float>(a[0]);
                       return Scalar::Float(DType::kFloat,
                                            zero[c] ? 0.0f : FakeQuantize(x, grids[c]));
                     });
}

// FakeQuantWithMinMaxArgs (the range in attributes), FakeQuantWithMinMaxVars (scalar inputs,
// read at compile time) and FakeQuantWithMinMaxVarsPerChannel (vectors over the last
// dimension, read at compile time): the reference's checks, then one grid per channel.
absl::StatusOr<std::vector<ExprPtr>> TranslateFakeQuant(const TranslateContext& ctx) {
  const absl::string_view op = ctx.node().op;
  const bool args = op == "FakeQuantWithMinMaxArgs";
  const bool per_channel = op == "FakeQuantWithMinMaxVarsPerChannel";
  DFC_RETURN_IF_ERROR(CheckArity(ctx, args ? 1 : 3));
  DFC_ASSIGN_OR_RETURN(DType d, ctx.InputDType(0));
  if (d != DType::kFloat) {
    return ctx.Error(absl::StrCat("input 0 has dtype ", DTypeName(d), ", expected float32"));
  }
  int num_bits = 8;
  bool narrow_range = false;
  DFC_RETURN_IF_ERROR(ReadQuantAttrs(ctx, &num_bits, &narrow_range));
  DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(0));
  const SymbolicShape shape = ShapeOfExpr(x);
  std::vector<float> mins;
  std::vector<float> maxs;
  if (args) {
    DFC_ASSIGN_OR_RETURN(float min, ctx.node().GetFloat("min", -6.0f));
    DFC_ASSIGN_OR_RETURN(float max, ctx.node().GetFloat("max", 6.0f));
    if (!(min < max)) {
      return ctx.Error(
          absl::StrCat("min has to be smaller than max, was: min = ", min, ", max = ", max));
    }
    mins = {min};
    maxs = {max};
  } else {
    if (per_channel && shape.empty()) {
      return ctx.Error(absl::StrCat("inputs must have rank >= 1, got a scalar"));
    }
    std::optional<int64_t> channels = 1;
    if (per_channel) channels = shape.back().AsConstant();
    if (!channels) {
      return ctx.Error(absl::StrCat("the channel dimension ", shape.back().ToString(),
                                    " must be known when the node is compiled"));
    }
    for (int i = 1; i < 3; ++i) {
      const Tensor* bound = ctx.StaticTensor(i);
      DFC_CHECK(bound != nullptr && "min and max are static inputs");
      const bool ok = bound->dtype() == DType::kFloat &&
                      (per_channel ? bound->shape() == Shape{*channels} : bound->rank() == 0);
      if (!ok) {
        return ctx.Error(absl::StrCat(
            i == 1 ? "min" : "max", " must be ",
            per_channel ? absl::StrCat("a float32 vector of ", *channels) : "a float32 scalar",
            ", got ", bound->DebugType()));
      }
      std::vector<float>& into = i == 1 ? mins : maxs;
      into.assign(bound->data<float>(), bound->data<float>() + *channels);
    }
    for (size_t c = 0; c < mins.size(); ++c) {
      if (!(mins[c] < maxs[c]) && !(mins[c] == 0 && maxs[c] == 0)) {
        return ctx.Error(absl::StrCat("min must be < max (or both 0), got min = ", mins[c],
                                      ", max = ", maxs[c], " (channel ", c, ")"));
      }
    }
  }
  std::vector<QuantGrid> grids;
  std::vector<bool> zero;
  for (size_t c = 0; c < mins.size(); ++c) {
    zero.push_back(!args && mins[c] == 0 && maxs[c] == 0);
    grids.push_back(zero.back() ? QuantGrid{} : Nudge(mins[c], maxs[c], num_bits, narrow_range));
  }
  const FunPtr f = FakeQuantFun(grids, zero);
  absl::StatusOr<ExprPtr> out;
  if (!per_channel || mins.size() == 1) {
    out = MapScalars(x, [&](ExprPtr s) { return Call(f, {s}); });
  } else {
    // Each row of the last dimension zipped with its channel numbers.
    out = MapAtDepth(x, static_cast<int>(shape.size()) - 1,
                     [&](ExprPtr row) -> absl::StatusOr<ExprPtr> {
                       DFC_ASSIGN_OR_RETURN(ExprPtr channel,
                                            Call(Iota(shape.back(), DType::kInt32), {}));
                       DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {row, channel}));
                       return MapOver(
                           pairs,
                           [&](ExprPtr pair) -> absl::StatusOr<ExprPtr> {
                             DFC_ASSIGN_OR_RETURN(ExprPtr v, Call(Get(0), {pair}));
                             DFC_ASSIGN_OR_RETURN(ExprPtr c, Call(Get(1), {pair}));
                             return Call(f, {v, c});
                           },
                           "element");
                     });
  }
  if (!out.ok()) return ctx.node().Annotate(out.status());
  return std::vector<ExprPtr>{*std::move(out)};
}

}  // namespace

void RegisterSpecialMathTranslations(TranslationTable& table) {
  for (const SpecialOp& op : kSpecialOps) {
    table.push_back({std::string(op.op), {TranslateSpecial, {}, UnifyBroadcast}});
  }
  for (const char* op : {"Xdivy", "Xlogy", "Xlog1py"}) {
    table.push_back({op, {TranslateGuarded, {}, UnifyBroadcast}});
  }
  table.push_back({"ApproximateEqual", {TranslateApproximateEqual, {}, UnifyBroadcast}});
  table.push_back({"ClipByValue", {TranslateClipByValue, {}}});
  table.push_back({"Bucketize", {TranslateBucketize, {}}});
  table.push_back({"FakeQuantWithMinMaxArgs", {TranslateFakeQuant, {}}});
  table.push_back({"FakeQuantWithMinMaxVars", {TranslateFakeQuant, {1, 2}}});
  table.push_back({"FakeQuantWithMinMaxVarsPerChannel", {TranslateFakeQuant, {1, 2}}});
}

}  // namespace dfc::ir
