// Translations of the tail table's special functions (OPS.md: "elementwise ... ops run on the
// device"): Lgamma Digamma Igamma Igammac Betainc Zeta Polygamma, each a UserFun mapped over its
// operands with NumPy broadcasting where the reference broadcasts
// (runtime/reference/special_math.cc). guarded_math.cc has the tail's other elementwise ops.
//
// The special functions are computed in double and rounded once to the input's dtype, as the
// reference computes them: each UserFun takes and returns double, between two Casts. Its host
// twin is the reference's own function (graph/special_functions.h) and its OpenCL C body
// follows the same steps, so the three oracles differ only by the device's libm (lgamma, pow,
// exp). A device without cl_khr_fp64 fails to build such a kernel and its cluster falls back to
// the host.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "base/check.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "graph/special_functions.h"
#include "ir/from_tf/broadcast.h"
#include "ir/from_tf/elementwise_internal.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/size_unifier.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir {
namespace elementwise {

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

absl::StatusOr<ExprPtr> BroadcastCall(const TranslateContext& ctx, std::vector<ExprPtr> operands,
                                      const ScalarsFn& f) {
  absl::StatusOr<ExprPtr> result = BroadcastScalars(std::move(operands), f);
  if (!result.ok()) return ctx.node().Annotate(result.status());
  return result;
}

}  // namespace elementwise

namespace {

using elementwise::BroadcastCall;
using elementwise::CommonDType;
using elementwise::kFloatDouble;
using elementwise::kHalfFloatDouble;

constexpr double kEpsilon = std::numeric_limits<double>::epsilon();

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
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(op.arity));
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
}  // namespace

void RegisterSpecialMathTranslations(TranslationTable& table) {
  for (const SpecialOp& op : kSpecialOps) {
    table.push_back({std::string(op.op), {TranslateSpecial, {}, UnifyBroadcast}});
  }
  elementwise::RegisterGuardedMathTranslations(table);
}

}  // namespace dfc::ir
