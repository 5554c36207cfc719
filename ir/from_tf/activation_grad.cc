// Translations of the activation gradients (OPS.md's nn table): ReluGrad Relu6Grad
// LeakyReluGrad EluGrad SeluGrad SoftplusGrad SoftsignGrad SigmoidGrad TanhGrad RsqrtGrad
// SqrtGrad ReciprocalGrad InvGrad. Each is elementwise over two inputs of one dtype and shape,
// ZipScalars(a, b) with one UserFun, as runtime/reference/activation_grad.cc computes it:
//
//   Map^rank(λ(t) => grad(Get(0) $ t, Get(1) $ t)) $ Zip(a, b)   (one Zip per level)
//
// The formulas keep the reference's (TensorFlow's) shape and operand order. float16 is computed
// in float and rounded once, float32 in float, float64 in double. The constants TensorFlow
// converts to T first (LeakyRelu's alpha, Selu's scale and scale * alpha) are literals of T,
// so float16 reads them rounded to half, as the reference does. There is no broadcasting: the
// two inputs must have the same dtype and shape, or the translation refuses as the reference
// does.
#include <cmath>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "graph/dtype_class.h"
#include "ir/expr.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/size_unifier.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir {
namespace {

// The names the reference gives the two inputs, for error messages.
struct InputNames {
  const char* first;
  const char* second;
};
constexpr InputNames kGradientsFeatures{"gradients", "features"};
constexpr InputNames kGradientsOutputs{"gradients", "outputs"};
constexpr InputNames kYDy{"y", "dy"};

// One op: the dtypes it takes, its input names, its OpenCL C body (a, b its two inputs, c the
// op's constants when it has some; $0 the compute type) and its host twin, generic over the
// compute type C (float for float16).
struct GradOp {
  const char* name;  // the UserFun's name, before the dtype
  unsigned classes;
  InputNames inputs;
  const char* param_a;
  const char* param_b;
  std::string float_body;
  std::string int_body;  // for ReluGrad and Relu6Grad, which take integers
};

// A host twin: fn(a, b, constants...) in the compute type of T, rounded to T.
template <typename T, typename Fn>
UserFun::HostFn HostTwin(Fn fn) {
  return [fn](std::span<const Scalar> args) -> absl::StatusOr<Scalar> {
    using C = ComputeType<T>;
    std::vector<C> v;
    for (const Scalar& s : args) v.push_back(ScalarAs<T>(s));
    return ScalarOf<T>(static_cast<C>(fn(v)));
  };
}

// The UserFun of `op` on dtype `d`, with `num_constants` extra parameters of dtype d (c0,
// c1...), and its host twin `fn` (over the arguments in the compute type).
template <typename Fn>
FunPtr GradFun(const GradOp& op, DType d, int num_constants, Fn fn) {
  std::vector<std::string> names = {op.param_a, op.param_b};
  std::vector<DType> types = {d, d};
  for (int k = 0; k < num_constants; ++k) {
    names.push_back(absl::StrCat("c", k));
    types.push_back(d);
  }
  const std::string& body = IsFloating(d) ? op.float_body : op.int_body;
  UserFun::HostFn host = DispatchDType(d, [&]<typename T>() -> UserFun::HostFn {
    if constexpr (std::is_same_v<T, bool>) {
      return nullptr;  // no gradient takes bool: the class check refuses it first
    } else {
      return HostTwin<T>(fn);
    }
  });
  return MakeUserFun(absl::StrCat(op.name, "_", DTypeName(d)), std::move(names),
                     absl::Substitute(body, OpenCLType(d)), std::move(types), d, std::move(host));
}

// TensorFlow's SELU constants: scale, and scale * alpha rounded once.
constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluScaleAlpha = 1.7580993408473768599402175208123;

// The mask is multiplied in, not selected, as TensorFlow does: an infinite or NaN gradient
// where the unit is off gives NaN, not 0. On integers the product is g or 0, a select.
const GradOp kReluGrad{"relu_grad",
                       kNumbers,
                       kGradientsFeatures,
                       "g",
                       "f",
                       "return g * (f > 0 ? ($0)1 : ($0)0);",
                       "return f > 0 ? g : ($0)0;"};
const GradOp kRelu6Grad{"relu6_grad",
                        kNumbers,
                        kGradientsFeatures,
                        "g",
                        "f",
                        "return g * ((f > 0 && f < 6) ? ($0)1 : ($0)0);",
                        "return (f > 0 && f < 6) ? g : ($0)0;"};
const GradOp kLeakyReluGrad{"leaky_relu_grad",           kFloats, kGradientsFeatures, "g", "f",
                            "return f > 0 ? g : g * c0;"};
const GradOp kEluGrad{"elu_grad", kFloats, kGradientsOutputs,
                      "g",        "out",   "return out < 0 ? (out + 1) * g : g;"};
const GradOp kSeluGrad{"selu_grad", kFloats, kGradientsOutputs,
                       "g",         "out",   "return out < 0 ? g * (out + c1) : g * c0;"};
const GradOp kSoftplusGrad{
    "softplus_grad", kFloats, kGradientsFeatures, "g", "f", "return g / (exp(-f) + 1);"};
const GradOp kSoftsignGrad{"softsign_grad",
                           kFloats,
                           kGradientsFeatures,
                           "g",
                           "f",
                           "$0 d = 1 + fabs(f);\nreturn g / (d * d);"};
const GradOp kSigmoidGrad{"sigmoid_grad", kFloats, kYDy, "y", "dy", "return dy * y * (1 - y);"};
const GradOp kTanhGrad{"tanh_grad", kFloats, kYDy, "y", "dy", "return dy * (1 - y * y);"};
const GradOp kRsqrtGrad{"rsqrt_grad", kFloats, kYDy, "y", "dy", "return -0.5f * dy * (y * y * y);"};
const GradOp kSqrtGrad{"sqrt_grad", kFloats, kYDy, "y", "dy", "return 0.5f * dy / y;"};
const GradOp kReciprocalGrad{"reciprocal_grad", kFloats, kYDy, "y", "dy", "return -dy * y * y;"};

// Fails unless the node has the two inputs of one dtype (in the op's classes) and one shape.
absl::StatusOr<DType> CheckInputs(const TranslateContext& ctx, const GradOp& op) {
  if (ctx.num_inputs() != 2) {
    return ctx.Error(absl::StrCat("expects 2 inputs (", op.inputs.first, ", ", op.inputs.second,
                                  "), got ", ctx.num_inputs()));
  }
  DFC_ASSIGN_OR_RETURN(DType a, ctx.InputDType(0));
  DFC_ASSIGN_OR_RETURN(DType b, ctx.InputDType(1));
  if (!IsSupported(a) || !DTypeInClass(a, op.classes)) {
    return ctx.Error(absl::StrCat(ctx.node().op, " is not defined for dtype ", DTypeName(a),
                                  " (expected one of ", DTypeClassNames(op.classes), ")"));
  }
  DFC_ASSIGN_OR_RETURN(SymbolicShape sa, ctx.InputShape(0));
  DFC_ASSIGN_OR_RETURN(SymbolicShape sb, ctx.InputShape(1));
  if (a != b || sa != sb) {
    return ctx.Error(absl::StrCat(op.inputs.first, " and ", op.inputs.second,
                                  " must have the same dtype and shape, got ", DTypeName(a),
                                  ShapeToString(sa), " and ", DTypeName(b), ShapeToString(sb)));
  }
  return a;
}

// ZipScalars(a, b) applying f to each pair and the constants.
absl::StatusOr<std::vector<ExprPtr>> ZipWith(const TranslateContext& ctx, const FunPtr& f,
                                             std::vector<ExprPtr> constants = {}) {
  DFC_ASSIGN_OR_RETURN(ExprPtr a, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr b, ctx.Input(1));
  absl::StatusOr<ExprPtr> out = ZipScalars({a, b}, [&](std::span<const ExprPtr> ab) {
    std::vector<ExprPtr> args(ab.begin(), ab.end());
    args.insert(args.end(), constants.begin(), constants.end());
    return Apply(f, std::move(args));
  });
  if (!out.ok()) return ctx.node().Annotate(out.status());
  return std::vector<ExprPtr>{*std::move(out)};
}

// An op without constants: `fn(v)` over its two arguments v[0], v[1] in the compute type.
template <const GradOp& kOp, typename Fn>
absl::StatusOr<std::vector<ExprPtr>> TranslatePlain(const TranslateContext& ctx, Fn fn) {
  DFC_ASSIGN_OR_RETURN(DType d, CheckInputs(ctx, kOp));
  return ZipWith(ctx, GradFun(kOp, d, 0, fn));
}

// The host twins, generic over the compute type C (v holds the arguments).
template <const GradOp& kOp>
absl::StatusOr<std::vector<ExprPtr>> Translate(const TranslateContext& ctx);

template <>
absl::StatusOr<std::vector<ExprPtr>> Translate<kReluGrad>(const TranslateContext& ctx) {
  return TranslatePlain<kReluGrad>(ctx, []<typename C>(const std::vector<C>& v) -> C {
    return static_cast<C>(v[0] * static_cast<C>(v[1] > C(0)));
  });
}

template <>
absl::StatusOr<std::vector<ExprPtr>> Translate<kRelu6Grad>(const TranslateContext& ctx) {
  return TranslatePlain<kRelu6Grad>(ctx, []<typename C>(const std::vector<C>& v) -> C {
    return static_cast<C>(v[0] * static_cast<C>(v[1] > C(0) && v[1] < C(6)));
  });
}

template <>
absl::StatusOr<std::vector<ExprPtr>> Translate<kLeakyReluGrad>(const TranslateContext& ctx) {
  DFC_ASSIGN_OR_RETURN(DType d, CheckInputs(ctx, kLeakyReluGrad));
  DFC_ASSIGN_OR_RETURN(const float alpha, ctx.node().GetFloat("alpha", 0.2f));
  FunPtr f = GradFun(kLeakyReluGrad, d, 1, []<typename C>(const std::vector<C>& v) -> C {
    return v[1] > C(0) ? v[0] : v[0] * v[2];
  });
  return ZipWith(ctx, f, {Lit(d, alpha)});
}

template <>
absl::StatusOr<std::vector<ExprPtr>> Translate<kEluGrad>(const TranslateContext& ctx) {
  return TranslatePlain<kEluGrad>(ctx, []<typename C>(const std::vector<C>& v) -> C {
    return v[1] < C(0) ? (v[1] + C(1)) * v[0] : v[0];
  });
}

template <>
absl::StatusOr<std::vector<ExprPtr>> Translate<kSeluGrad>(const TranslateContext& ctx) {
  DFC_ASSIGN_OR_RETURN(DType d, CheckInputs(ctx, kSeluGrad));
  FunPtr f = GradFun(kSeluGrad, d, 2, []<typename C>(const std::vector<C>& v) -> C {
    return v[1] < C(0) ? v[0] * (v[1] + v[3]) : v[0] * v[2];
  });
  return ZipWith(ctx, f, {Lit(d, kSeluScale), Lit(d, kSeluScaleAlpha)});
}

template <>
absl::StatusOr<std::vector<ExprPtr>> Translate<kSoftplusGrad>(const TranslateContext& ctx) {
  return TranslatePlain<kSoftplusGrad>(ctx, []<typename C>(const std::vector<C>& v) -> C {
    return v[0] / (std::exp(-v[1]) + C(1));
  });
}

template <>
absl::StatusOr<std::vector<ExprPtr>> Translate<kSoftsignGrad>(const TranslateContext& ctx) {
  return TranslatePlain<kSoftsignGrad>(ctx, []<typename C>(const std::vector<C>& v) -> C {
    const C d = C(1) + std::fabs(v[1]);
    return v[0] / (d * d);
  });
}

template <>
absl::StatusOr<std::vector<ExprPtr>> Translate<kSigmoidGrad>(const TranslateContext& ctx) {
  return TranslatePlain<kSigmoidGrad>(
      ctx, []<typename C>(const std::vector<C>& v) -> C { return v[1] * v[0] * (C(1) - v[0]); });
}

template <>
absl::StatusOr<std::vector<ExprPtr>> Translate<kTanhGrad>(const TranslateContext& ctx) {
  return TranslatePlain<kTanhGrad>(
      ctx, []<typename C>(const std::vector<C>& v) -> C { return v[1] * (C(1) - v[0] * v[0]); });
}

template <>
absl::StatusOr<std::vector<ExprPtr>> Translate<kRsqrtGrad>(const TranslateContext& ctx) {
  return TranslatePlain<kRsqrtGrad>(ctx, []<typename C>(const std::vector<C>& v) -> C {
    return C(-0.5) * v[1] * (v[0] * v[0] * v[0]);
  });
}

template <>
absl::StatusOr<std::vector<ExprPtr>> Translate<kSqrtGrad>(const TranslateContext& ctx) {
  return TranslatePlain<kSqrtGrad>(
      ctx, []<typename C>(const std::vector<C>& v) -> C { return C(0.5) * v[1] / v[0]; });
}

template <>
absl::StatusOr<std::vector<ExprPtr>> Translate<kReciprocalGrad>(const TranslateContext& ctx) {
  return TranslatePlain<kReciprocalGrad>(
      ctx, []<typename C>(const std::vector<C>& v) -> C { return -v[1] * v[0] * v[0]; });
}

// The two inputs have one shape: a size variable met against a size is that size.
bool UnifySameShape(const Node&, std::span<const SymbolicShape> shapes, SizeUnifier& unifier) {
  if (shapes.size() != 2 || shapes[0].size() != shapes[1].size()) return false;
  bool changed = false;
  for (size_t k = 0; k < shapes[0].size(); ++k) {
    changed = unifier.Unify(shapes[0][k], shapes[1][k]) || changed;
  }
  return changed;
}

}  // namespace

void RegisterActivationGradTranslations(TranslationTable& table) {
  const auto add = [&](const char* op, TranslateFn fn) {
    table.push_back({op, Translation{fn, {}, UnifySameShape}});
  };
  add("ReluGrad", Translate<kReluGrad>);
  add("Relu6Grad", Translate<kRelu6Grad>);
  add("LeakyReluGrad", Translate<kLeakyReluGrad>);
  add("EluGrad", Translate<kEluGrad>);
  add("SeluGrad", Translate<kSeluGrad>);
  add("SoftplusGrad", Translate<kSoftplusGrad>);
  add("SoftsignGrad", Translate<kSoftsignGrad>);
  add("SigmoidGrad", Translate<kSigmoidGrad>);
  add("TanhGrad", Translate<kTanhGrad>);
  add("RsqrtGrad", Translate<kRsqrtGrad>);
  add("SqrtGrad", Translate<kSqrtGrad>);
  add("ReciprocalGrad", Translate<kReciprocalGrad>);
  add("InvGrad", Translate<kReciprocalGrad>);
}

}  // namespace dfc::ir
