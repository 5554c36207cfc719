// Translations of the local response normalisations (OPS.md's nn table), LRN and LRNGrad,
// computing what runtime/reference/normalization.cc computes. LRN folds a window over the
// channels, Slide(2r + 1, 1) $ Pad(r, r, 0) of each pixel's channels, the radius clamped to the
// depth (a wider window adds only padding). The norms are float whatever the input's dtype;
// float16 is computed in float and rounded once. Registered by RegisterNormalizationTranslations
// (normalization.cc).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "ir/expr.h"
#include "ir/from_tf/normalization_internal.h"
#include "ir/from_tf/reduction.h"
#include "ir/from_tf/size_unifier.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir::normalization {
namespace {

// --- scalar functions: every argument read as float, the result rounded to `result` ---------

// acc + x², LRN's sum of squares over a window.
FunPtr SquareSumStepFun(DType t) {
  return FloatFun(Named("lrn_square_sum", t), {"acc", "x"}, "return acc + x * x;", {kF, t}, kF,
                  [](std::span<const float> a) { return a[0] + a[1] * a[1]; });
}

// bias + alpha * sum: the norm of a channel.
FunPtr LrnNormFun() {
  return FloatFun("lrn_norm", {"sum", "bias", "alpha"}, "return bias + alpha * sum;", {kF, kF, kF},
                  kF, [](std::span<const float> a) { return a[1] + a[2] * a[0]; });
}

// x * norm^-beta.
FunPtr LrnFun(DType t) {
  return FloatFun(Named("lrn", t), {"x", "norm", "beta"}, "return x * pow(norm, -beta);",
                  {t, kF, kF}, t,
                  [](std::span<const float> a) { return a[0] * std::pow(a[1], -a[2]); });
}

// dy[j] * out[j] / norm[j]: what channel j gives the gradients of the channels in its window.
FunPtr LrnGradTermFun(DType t) {
  return FloatFun(Named("lrn_grad_term", t), {"dy", "out", "norm"}, "return dy * out / norm;",
                  {t, t, kF}, kF, [](std::span<const float> a) { return a[0] * a[1] / a[2]; });
}

// dy[k] * norm[k]^-beta - 2 alpha beta in[k] * Σ_window terms.
FunPtr LrnGradFun(DType t) {
  return FloatFun(Named("lrn_grad", t), {"dy", "in", "norm", "terms", "alpha", "beta"},
                  "return dy * pow(norm, -beta) - 2 * alpha * beta * in * terms;",
                  {t, t, kF, kF, kF, kF}, t, [](std::span<const float> a) {
                    return a[0] * std::pow(a[2], -a[5]) - 2 * a[4] * a[5] * a[1] * a[3];
                  });
}

// --- LRN and LRNGrad --------------------------------------------------------------------------

struct LrnParams {
  int64_t radius = 5;
  float bias = 1;
  float alpha = 1;
  float beta = 0.5f;
};

absl::StatusOr<LrnParams> ReadLrnParams(const TranslateContext& ctx) {
  LrnParams p;
  DFC_ASSIGN_OR_RETURN(p.radius, ctx.node().GetInt("depth_radius", 5));
  if (p.radius < 0 || p.radius >= std::numeric_limits<int32_t>::max()) {
    return ctx.Error(absl::StrCat("depth_radius must be in [0, 2^31 - 1), got ", p.radius));
  }
  DFC_ASSIGN_OR_RETURN(p.bias, ctx.node().GetFloat("bias", 1.0f));
  DFC_ASSIGN_OR_RETURN(p.alpha, ctx.node().GetFloat("alpha", 1.0f));
  DFC_ASSIGN_OR_RETURN(p.beta, ctx.node().GetFloat("beta", 0.5f));
  return p;
}

// Input `i` (named `what`): float16 or float32 of rank 4, NHWC.
absl::Status CheckLrnInput(const TranslateContext& ctx, int i, absl::string_view what) {
  DFC_RETURN_IF_ERROR(CheckDType(ctx, i, kHalfOrFloat, what));
  DFC_ASSIGN_OR_RETURN(const SymbolicShape shape, ctx.InputShape(i));
  if (shape.size() == 4) return absl::OkStatus();
  DFC_ASSIGN_OR_RETURN(const DType d, ctx.InputDType(i));
  return ctx.Error(
      absl::StrCat(what, " must have rank 4 (NHWC), got ", DTypeName(d), ShapeToString(shape)));
}

// The windows of a row of channels: [D][2r + 1], window d holding channels d - r .. d + r, 0
// outside. A radius beyond the depth only adds padding, so it is clamped to D - 1.
absl::StatusOr<ExprPtr> ChannelWindows(const ExprPtr& row, int64_t radius) {
  const ArithExpr depth = ShapeOfExpr(row)[0];
  if (const std::optional<int64_t> d = depth.AsConstant()) {
    radius = std::max<int64_t>(0, std::min(radius, *d - 1));
  }
  DFC_ASSIGN_OR_RETURN(
      ExprPtr padded,
      Call(Pad(radius, radius, PadMode::kConstant, Scalar::Float(BaseDType(row->type), 0)), {row}));
  return Call(Slide(2 * radius + 1, 1), {padded});
}

// Each channel's norm, bias + alpha * Σ_window x², of a row.
absl::StatusOr<ExprPtr> Norms(const ExprPtr& row, const LrnParams& p) {
  const FunPtr step = SquareSumStepFun(BaseDType(row->type));
  const FunPtr norm = LrnNormFun();
  DFC_ASSIGN_OR_RETURN(ExprPtr windows, ChannelWindows(row, p.radius));
  return MapOver(
      windows,
      [&](ExprPtr w) -> absl::StatusOr<ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ExprPtr sum, ReduceOver(Lit(kF, 0), w, [&](ExprPtr acc, ExprPtr v) {
                               return Apply(step, {acc, v});
                             }));
        return Apply(norm, {sum, Lit(kF, p.bias), Lit(kF, p.alpha)});
      },
      "w");
}

// LRN(input): out = in / norm^beta over the channels of each pixel.
absl::StatusOr<std::vector<ExprPtr>> TranslateLrn(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(1));
  DFC_RETURN_IF_ERROR(CheckLrnInput(ctx, 0, "input"));
  DFC_ASSIGN_OR_RETURN(const LrnParams p, ReadLrnParams(ctx));
  DFC_ASSIGN_OR_RETURN(const ExprPtr x, ctx.Input(0));
  const FunPtr lrn = LrnFun(BaseDType(x->type));
  DFC_ASSIGN_OR_RETURN(ExprPtr out, MapAtDepth(x, 3, [&](ExprPtr row) -> absl::StatusOr<ExprPtr> {
                         DFC_ASSIGN_OR_RETURN(ExprPtr norms, Norms(row, p));
                         return ZipScalars({row, norms}, [&](std::span<const ExprPtr> e) {
                           return Apply(lrn, {e[0], e[1], Lit(kF, p.beta)});
                         });
                       }));
  return std::vector<ExprPtr>{out};
}

// LRNGrad(input_grads, input_image, output_image). Channel j gives channel k of its window
// dy[j] * ([k == j] norm_j^-beta - 2 alpha beta in[k] out[j] / norm_j); the windows are
// symmetric (k is in j's window exactly when j is in k's), so
//   dx[k] = dy[k] norm_k^-beta - 2 alpha beta in[k] Σ_{j in k's window} dy[j] out[j] / norm_j,
// the norms and the terms each computed once a row and bound with a Let.
absl::StatusOr<std::vector<ExprPtr>> TranslateLrnGrad(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(3));
  const char* const names[] = {"input_grads", "input_image", "output_image"};
  for (int i = 0; i < 3; ++i) DFC_RETURN_IF_ERROR(CheckLrnInput(ctx, i, names[i]));
  std::vector<ExprPtr> in(3);
  for (int i = 0; i < 3; ++i) {
    DFC_ASSIGN_OR_RETURN(in[i], ctx.Input(i));
  }
  const DType t = BaseDType(in[0]->type);
  const SymbolicShape shape = ShapeOfExpr(in[0]);
  for (int i : {1, 2}) {
    if (BaseDType(in[i]->type) != t || ShapeOfExpr(in[i]) != shape) {
      return ctx.Error(absl::StrCat(
          names[i], " must have input_grads' dtype and shape ", DTypeName(t), ShapeToString(shape),
          ", got ", DTypeName(BaseDType(in[i]->type)), ShapeToString(ShapeOfExpr(in[i]))));
    }
  }
  DFC_ASSIGN_OR_RETURN(const LrnParams p, ReadLrnParams(ctx));
  const FunPtr term = LrnGradTermFun(t);
  const FunPtr grad = LrnGradFun(t);
  const FunPtr add = SumStep(kF, kF);
  DFC_ASSIGN_OR_RETURN(
      ExprPtr out, ZipAtDepth(in, 3, [&](std::span<const ExprPtr> rows) -> absl::StatusOr<ExprPtr> {
        const ExprPtr &dy = rows[0], &image = rows[1], &output = rows[2];
        DFC_ASSIGN_OR_RETURN(ExprPtr norms, Norms(image, p));
        return Let(
            norms,
            [&](ExprPtr nm) -> absl::StatusOr<ExprPtr> {
              DFC_ASSIGN_OR_RETURN(ExprPtr terms,
                                   ZipScalars({dy, output, nm}, [&](std::span<const ExprPtr> e) {
                                     return Apply(term, {e[0], e[1], e[2]});
                                   }));
              return Let(
                  terms,
                  [&](ExprPtr tm) -> absl::StatusOr<ExprPtr> {
                    DFC_ASSIGN_OR_RETURN(ExprPtr windows, ChannelWindows(tm, p.radius));
                    DFC_ASSIGN_OR_RETURN(ExprPtr sums, MapOver(windows, [&](ExprPtr w) {
                                           return ReduceOver(Lit(kF, 0), w,
                                                             [&](ExprPtr acc, ExprPtr v) {
                                                               return Apply(add, {acc, v});
                                                             });
                                         }));
                    return ZipScalars({dy, image, nm, sums}, [&](std::span<const ExprPtr> e) {
                      return Apply(grad,
                                   {e[0], e[1], e[2], e[3], Lit(kF, p.alpha), Lit(kF, p.beta)});
                    });
                  },
                  "terms");
            },
            "norms");
      }));
  return std::vector<ExprPtr>{out};
}

// --- size unification -------------------------------------------------------------------------

bool UnifyLrnGrad(const Node&, std::span<const SymbolicShape> shapes, SizeUnifier& unifier) {
  return UnifyShapes(shapes, 0, 3, unifier);
}

}  // namespace

void RegisterLrnTranslations(TranslationTable& table) {
  table.push_back({"LRN", {TranslateLrn, {}}});
  table.push_back({"LRNGrad", {TranslateLrnGrad, {}, UnifyLrnGrad}});
}

}  // namespace dfc::ir::normalization
