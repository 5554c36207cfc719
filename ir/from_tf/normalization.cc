// Translations of the batch normalisations (OPS.md's nn table): FusedBatchNorm, FusedBatchNormV2
// and FusedBatchNormV3 (inference and training) and their gradients FusedBatchNormGrad{,V2,V3},
// computing what runtime/reference/normalization.cc computes. LRN and LRNGrad live in lrn.cc;
// RegisterNormalizationTranslations registers both files.
//
// Batch norm works per channel. The per-channel vectors (scale, offset, mean, variance, the
// statistics) are zipped with each pixel's channels, channels last, or with each image's
// channel planes, channels first, so x is read in place in either data format:
//
//   Map^(rank-1)(λ(px) => Map(λ(x, m, v, s, o) => (x - m) * (s / sqrt(v + ε)) + o)
//                           $ Zip(px, mean, variance, scale, offset)) $ x      (NHWC)
//
// Training statistics fold each channel's line of elements (a transposed, joined view of x):
// the mean, then the biased variance around it, both Reduces by an add combiner,
//
//   (λ(m) => (λ(v) => y(m, v)) $ Map(λ(line, mc) => Σ (x - mc)² / n) $ Zip(lines, m))
//     $ Map(λ(line) => Σ x / n) $ lines
//
// each bound with a Let around y, so that a kernel of its own computes it once and y's kernel
// reads it. Statistics are float (U) whatever x's dtype; float16 is computed in float and
// rounded once.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "ir/expr.h"
#include "ir/from_tf/normalization_internal.h"
#include "ir/from_tf/reduction.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/size_unifier.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir {
namespace normalization {

FunPtr FloatFun(absl::string_view name, std::vector<std::string> params, absl::string_view body,
                std::vector<DType> types, DType result, FloatHost fn) {
  return MakeUserFun(name, std::move(params), body, std::move(types), result,
                     [result, fn](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       std::vector<float> v;
                       for (const Scalar& s : a) v.push_back(static_cast<float>(s.f));
                       return Scalar::Float(result, fn(v));
                     });
}

std::string Named(absl::string_view name, DType t) { return absl::StrCat(name, "_", DTypeName(t)); }

absl::Status CheckDType(const TranslateContext& ctx, int i, std::span<const DType> allowed,
                        absl::string_view what) {
  DFC_ASSIGN_OR_RETURN(const DType d, ctx.InputDType(i));
  if (std::find(allowed.begin(), allowed.end(), d) != allowed.end()) return absl::OkStatus();
  std::string names;
  for (DType a : allowed) absl::StrAppend(&names, names.empty() ? "" : " or ", DTypeName(a));
  return ctx.Error(absl::StrCat(what, " must be ", names, ", got ", DTypeName(d)));
}

bool UnifyShapes(std::span<const SymbolicShape> shapes, size_t first, size_t count,
                 SizeUnifier& unifier) {
  bool changed = false;
  for (size_t i = first + 1; i < first + count && i < shapes.size(); ++i) {
    if (shapes[i].size() != shapes[first].size()) continue;
    for (size_t k = 0; k < shapes[i].size(); ++k) {
      changed = unifier.Unify(shapes[first][k], shapes[i][k]) || changed;
    }
  }
  return changed;
}

}  // namespace normalization

namespace {

using normalization::CheckDType;
using normalization::FloatFun;
using normalization::kF;
using normalization::kHalfOrFloat;
using normalization::Named;
using normalization::UnifyShapes;

// --- scalar functions: every argument read as float, the result rounded to `result` ---------

// (x - mean) * (scale / sqrt(variance + epsilon)) + offset, as the reference writes it.
FunPtr NormalizeFun(DType t) {
  return FloatFun(Named("batch_norm", t), {"x", "mean", "variance", "scale", "offset", "epsilon"},
                  "return (x - mean) * (scale / sqrt(variance + epsilon)) + offset;",
                  {t, kF, kF, kF, kF, kF}, t, [](std::span<const float> a) {
                    return (a[0] - a[1]) * (a[3] / std::sqrt(a[2] + a[5])) + a[4];
                  });
}

// (x - mean)², summed for the biased variance.
FunPtr CentredSquareFun(DType t) {
  return FloatFun(Named("batch_norm_centred_square", t), {"x", "mean"},
                  "float d = x - mean;\nreturn d * d;", {t, kF}, kF, [](std::span<const float> a) {
                    const float d = a[0] - a[1];
                    return d * d;
                  });
}

// n / (n - 1), Bessel's correction (n / 1 for a single element, as TensorFlow does).
constexpr char kAdjust[] = "float adjust = n / (n > 1 ? n - 1 : 1);\n";
float Adjust(float n) { return n / (n > 1 ? n - 1 : 1); }

FunPtr UnbiasedVarianceFun() {
  return FloatFun("batch_norm_unbiased_variance", {"variance", "n"},
                  absl::StrCat(kAdjust, "return variance * adjust;"), {kF, kF}, kF,
                  [](std::span<const float> a) { return a[0] * Adjust(a[1]); });
}

// The running statistics with exponential_avg_factor f: (1 - f) old + f new.
FunPtr RunningMeanFun() {
  return FloatFun("batch_norm_running_mean", {"old", "mean", "f"},
                  "return (1 - f) * old + f * mean;", {kF, kF, kF}, kF,
                  [](std::span<const float> a) { return (1 - a[2]) * a[0] + a[2] * a[1]; });
}
FunPtr RunningVarianceFun() {
  return FloatFun(
      "batch_norm_running_variance", {"old", "variance", "n", "f"},
      absl::StrCat(kAdjust, "return (1 - f) * old + f * adjust * variance;"), {kF, kF, kF, kF}, kF,
      [](std::span<const float> a) { return (1 - a[3]) * a[0] + a[3] * Adjust(a[2]) * a[1]; });
}

// NaN where x has no elements (n == 0): the statistics of an empty batch.
FunPtr NanIfEmptyFun() {
  return FloatFun("batch_norm_nan_if_empty", {"v", "n"}, "return n == 0 ? NAN : v;", {kF, kF}, kF,
                  [](std::span<const float> a) {
                    return a[1] == 0 ? std::numeric_limits<float>::quiet_NaN() : a[0];
                  });
}

// dy * (x - mean), summed for scale_backprop.
FunPtr DyTimesCentredFun(DType t) {
  return FloatFun(Named("batch_norm_dy_xc", t), {"dy", "x", "mean"}, "return dy * (x - mean);",
                  {t, t, kF}, kF, [](std::span<const float> a) { return a[0] * (a[1] - a[2]); });
}

// x_backprop in training: scale * r * (dy - mean(dy) - xc * r² * mean(dy * xc)).
FunPtr TrainingBackpropFun(DType t) {
  return FloatFun(Named("batch_norm_grad_training", t),
                  {"dy", "x", "scale", "mean", "variance", "sum_dy", "sum_dy_xc", "n", "epsilon"},
                  "float r = 1 / sqrt(variance + epsilon);\n"
                  "float xc = x - mean;\n"
                  "float mean_dy = sum_dy / n;\n"
                  "float mean_dy_xc = sum_dy_xc / n;\n"
                  "return scale * r * (dy - mean_dy - xc * r * r * mean_dy_xc);",
                  {t, t, kF, kF, kF, kF, kF, kF, kF}, t, [](std::span<const float> a) {
                    const float r = 1 / std::sqrt(a[4] + a[8]);
                    const float xc = a[1] - a[3];
                    const float mean_dy = a[5] / a[7];
                    const float mean_dy_xc = a[6] / a[7];
                    return a[2] * r * (a[0] - mean_dy - xc * r * r * mean_dy_xc);
                  });
}

// x_backprop in inference: dy * scale * r.
FunPtr InferenceBackpropFun(DType t) {
  return FloatFun(Named("batch_norm_grad_inference", t), {"dy", "scale", "variance", "epsilon"},
                  "float r = 1 / sqrt(variance + epsilon);\nreturn dy * scale * r;",
                  {t, kF, kF, kF}, t, [](std::span<const float> a) {
                    const float r = 1 / std::sqrt(a[2] + a[3]);
                    return a[0] * a[1] * r;
                  });
}

// scale_backprop: sum(dy * xc) * r, 0 for an empty x.
FunPtr ScaleBackpropFun() {
  return FloatFun("batch_norm_grad_scale", {"sum_dy_xc", "variance", "n", "epsilon"},
                  "return n == 0 ? 0 : sum_dy_xc * (1 / sqrt(variance + epsilon));",
                  {kF, kF, kF, kF}, kF, [](std::span<const float> a) {
                    return a[2] == 0 ? 0.0f : a[0] * (1 / std::sqrt(a[1] + a[3]));
                  });
}

// --- building blocks --------------------------------------------------------------------------

// Reduce(add, 0) $ line, in float (a float16 line converted element by element first, so the
// step stays a combiner the rewrite rules may split across work-items).
absl::StatusOr<ExprPtr> FloatSum(ExprPtr line) {
  if (BaseDType(line->type) != kF) {
    FunPtr cast = CastFun(BaseDType(line->type), kF);
    DFC_ASSIGN_OR_RETURN(line, MapOver(line, [&](ExprPtr x) { return Apply(cast, {x}); }));
  }
  FunPtr add = SumStep(kF, kF);
  return ReduceOver(Lit(kF, 0), line, [&](ExprPtr acc, ExprPtr x) { return Apply(add, {acc, x}); });
}

// Where a batch-norm operand's channels are.
struct ChannelLayout {
  int rank = 0;
  int channel_dim = 0;  // 1 for NCHW and NCDHW, the last for NHWC and NDHWC
  ArithExpr channels;
  ArithExpr count;  // elements per channel: the product of the other dimensions
};

// x (input `i`, named `what`) as the reference reads it: rank 4 or 5, channels last for NHWC and
// NDHWC, after the batch for NCHW and NCDHW.
absl::StatusOr<ChannelLayout> ReadChannelLayout(const TranslateContext& ctx, int i,
                                                absl::string_view what) {
  DFC_ASSIGN_OR_RETURN(const std::string format, ctx.node().GetString("data_format", "NHWC"));
  const bool last = format == "NHWC" || format == "NDHWC";
  const bool first = format == "NCHW" || format == "NCDHW";
  if (!last && !first) {
    return ctx.Error(absl::StrCat("data_format \"", format,
                                  "\" is not supported, expected NHWC, NCHW, NDHWC or NCDHW"));
  }
  DFC_ASSIGN_OR_RETURN(const SymbolicShape shape, ctx.InputShape(i));
  DFC_ASSIGN_OR_RETURN(const DType dtype, ctx.InputDType(i));
  if (shape.size() != 4 && shape.size() != 5) {
    return ctx.Error(
        absl::StrCat(what, " must have rank 4 or 5, got ", DTypeName(dtype), ShapeToString(shape)));
  }
  ChannelLayout layout{.rank = static_cast<int>(shape.size())};
  layout.channel_dim = first ? 1 : layout.rank - 1;
  layout.channels = shape[layout.channel_dim];
  layout.count = ArithExpr(1);
  for (int d = 0; d < layout.rank; ++d) {
    if (d != layout.channel_dim) layout.count = layout.count * shape[d];
  }
  return layout;
}

// Fails unless input `i` (named `what`) is a vector, of one element per channel if `per_channel`.
absl::Status CheckChannelVector(const TranslateContext& ctx, int i, absl::string_view what,
                                const ChannelLayout& layout, bool per_channel,
                                absl::string_view when = "") {
  DFC_ASSIGN_OR_RETURN(const SymbolicShape shape, ctx.InputShape(i));
  DFC_ASSIGN_OR_RETURN(const DType dtype, ctx.InputDType(i));
  if (shape.size() != 1) {
    return ctx.Error(
        absl::StrCat(what, " must be a vector, got ", DTypeName(dtype), ShapeToString(shape)));
  }
  if (per_channel && !(shape[0] == layout.channels)) {
    return ctx.Error(absl::StrCat(when, what, " must have one element per channel of x (",
                                  layout.channels.ToString(), "), got ", DTypeName(dtype),
                                  ShapeToString(shape)));
  }
  return absl::OkStatus();
}

constexpr DType kFloatOnly[] = {DType::kFloat};

// FusedBatchNorm and FusedBatchNormGrad take float x only, V2 and V3 float16 too.
std::span<const DType> XTypes(int version) {
  if (version == 1) return kFloatOnly;
  return kHalfOrFloat;
}

using ChannelFn = std::function<absl::StatusOr<ExprPtr>(std::span<const ExprPtr> xs,
                                                        std::span<const ExprPtr> cs)>;

// f(elements of `tensors`, elements of `vectors`) for every element, each element with its
// channel's vector elements: the tensors zipped down to the channel dimension, each channel
// (a scalar channels last, a plane channels first) zipped with the vectors, the plane's
// scalars mapped. No transposes: x is read in its own layout.
absl::StatusOr<ExprPtr> PerChannel(std::vector<ExprPtr> tensors, const ChannelLayout& layout,
                                   std::vector<ExprPtr> vectors, const ChannelFn& f) {
  const int n = static_cast<int>(tensors.size());
  return ZipAtDepth(tensors, layout.channel_dim, [&](std::span<const ExprPtr> rows) {
    std::vector<ExprPtr> all(rows.begin(), rows.end());
    all.insert(all.end(), vectors.begin(), vectors.end());
    return ZipAtDepth(all, 1, [&](std::span<const ExprPtr> channel) {
      std::vector<ExprPtr> planes(channel.begin(), channel.begin() + n);
      std::vector<ExprPtr> cs(channel.begin() + n, channel.end());
      return ZipScalars(planes, [&](std::span<const ExprPtr> xs) { return f(xs, cs); });
    });
  });
}

// [C][count]: each channel's elements, a view of x (its channel dimension moved first, the
// others joined).
absl::StatusOr<ExprPtr> ChannelLines(const ExprPtr& x, const ChannelLayout& layout) {
  std::vector<int> perm = {layout.channel_dim};
  for (int d = 0; d < layout.rank; ++d) {
    if (d != layout.channel_dim) perm.push_back(d);
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr channel_major, TransposeTensor(x, perm));
  return MapOver(
      channel_major, [](ExprPtr c) { return Flatten(c); }, "c");
}

// f applied to the elements of vectors of one length, and to `scalars` as they are.
absl::StatusOr<ExprPtr> MapVectors(std::vector<ExprPtr> vectors, std::vector<ExprPtr> scalars,
                                   const FunPtr& f) {
  return ZipScalars(std::move(vectors), [&](std::span<const ExprPtr> v) {
    std::vector<ExprPtr> args(v.begin(), v.end());
    args.insert(args.end(), scalars.begin(), scalars.end());
    return Apply(f, std::move(args));
  });
}

// --- FusedBatchNorm ---------------------------------------------------------------------------

// FusedBatchNorm{,V2,V3}(x, scale, offset, mean, variance) -> (y, batch_mean, batch_variance,
// reserve_space_1, reserve_space_2[, reserve_space_3]), the reference's outputs: see
// runtime/reference/normalization.cc for what each holds.
template <int kVersion>
absl::StatusOr<std::vector<ExprPtr>> TranslateFusedBatchNorm(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(5));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, XTypes(kVersion), "x"));
  const char* const names[] = {"x", "scale", "offset", "mean", "variance"};
  for (int i = 1; i < 5; ++i) DFC_RETURN_IF_ERROR(CheckDType(ctx, i, kFloatOnly, names[i]));
  DFC_ASSIGN_OR_RETURN(const float epsilon, ctx.node().GetFloat("epsilon", 0.0001f));
  DFC_ASSIGN_OR_RETURN(const float factor, ctx.node().GetFloat("exponential_avg_factor", 1.0f));
  DFC_ASSIGN_OR_RETURN(const bool training, ctx.node().GetBool("is_training", true));
  DFC_ASSIGN_OR_RETURN(const ChannelLayout layout, ReadChannelLayout(ctx, 0, "x"));
  for (int i : {1, 2}) DFC_RETURN_IF_ERROR(CheckChannelVector(ctx, i, names[i], layout, true));
  // Training with f == 1 never reads the running statistics, so they may have any length.
  const bool reads_running = !training || factor != 1.0f;
  const char* const when = training ? "with exponential_avg_factor != 1, " : "in inference, ";
  for (int i : {3, 4}) {
    DFC_RETURN_IF_ERROR(CheckChannelVector(ctx, i, names[i], layout, reads_running, when));
  }
  std::vector<ExprPtr> in(5);
  for (int i = 0; i < 5; ++i) {
    DFC_ASSIGN_OR_RETURN(in[i], ctx.Input(i));
  }
  const ExprPtr& x = in[0];
  const ExprPtr &scale = in[1], &offset = in[2], &old_mean = in[3], &old_variance = in[4];
  const DType t = BaseDType(x->type);
  const ExprPtr eps = Lit(kF, epsilon);
  DFC_ASSIGN_OR_RETURN(const ExprPtr n, SizeAsScalar(layout.count, kF));
  const FunPtr normalize = NormalizeFun(t);
  // y from per-channel (mean, variance) vectors.
  const auto normalized = [&](ExprPtr mean, ExprPtr variance) {
    return PerChannel({x}, layout, {mean, variance, scale, offset},
                      [&](std::span<const ExprPtr> xs, std::span<const ExprPtr> c) {
                        return Apply(normalize, {xs[0], c[0], c[1], c[2], c[3], eps});
                      });
  };

  std::vector<ExprPtr> out;
  if (!training) {
    DFC_ASSIGN_OR_RETURN(ExprPtr y, normalized(old_mean, old_variance));
    // The statistics repeat the given ones, NaN for an empty x.
    ExprPtr mean = old_mean, variance = old_variance;
    const std::optional<int64_t> count = layout.count.AsConstant();
    if (!count || *count == 0) {
      DFC_ASSIGN_OR_RETURN(mean, MapVectors({old_mean}, {n}, NanIfEmptyFun()));
      DFC_ASSIGN_OR_RETURN(variance, MapVectors({old_variance}, {n}, NanIfEmptyFun()));
    }
    out = {y, mean, variance, mean, variance};
  } else {
    // Each channel's mean, then its biased variance around it: arrays of scalars, so that the
    // Lets around y store each once, by a kernel of its own, for y's kernel to read.
    const FunPtr divide = FloatDivideFun(kF, kF);
    const FunPtr centred_square = CentredSquareFun(t);
    DFC_ASSIGN_OR_RETURN(ExprPtr lines, ChannelLines(x, layout));
    DFC_ASSIGN_OR_RETURN(ExprPtr mean, MapOver(
                                           lines,
                                           [&](ExprPtr line) -> absl::StatusOr<ExprPtr> {
                                             DFC_ASSIGN_OR_RETURN(ExprPtr sum, FloatSum(line));
                                             return Apply(divide, {sum, n});
                                           },
                                           "line"));
    const auto variance_around = [&](ExprPtr means) -> absl::StatusOr<ExprPtr> {
      DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {lines, means}));
      return MapOver(
          pairs,
          [&](ExprPtr p) -> absl::StatusOr<ExprPtr> {
            DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> lm, Fields(p));
            DFC_ASSIGN_OR_RETURN(ExprPtr squares, MapOver(lm[0], [&](ExprPtr v) {
                                   return Apply(centred_square, {v, lm[1]});
                                 }));
            DFC_ASSIGN_OR_RETURN(ExprPtr sum, FloatSum(squares));
            return Apply(divide, {sum, n});
          },
          "p");
    };
    DFC_ASSIGN_OR_RETURN(
        ExprPtr y, Let(
                       mean,
                       [&](ExprPtr m) -> absl::StatusOr<ExprPtr> {
                         DFC_ASSIGN_OR_RETURN(ExprPtr around_m, variance_around(m));
                         return Let(
                             around_m, [&](ExprPtr v) { return normalized(m, v); }, "variance");
                       },
                       "mean"));
    DFC_ASSIGN_OR_RETURN(ExprPtr variance, variance_around(mean));
    ExprPtr batch_mean = mean, batch_variance;
    if (factor == 1.0f) {
      DFC_ASSIGN_OR_RETURN(batch_variance, MapVectors({variance}, {n}, UnbiasedVarianceFun()));
    } else {
      const ExprPtr f = Lit(kF, factor);
      DFC_ASSIGN_OR_RETURN(batch_mean, MapVectors({old_mean, mean}, {f}, RunningMeanFun()));
      DFC_ASSIGN_OR_RETURN(batch_variance,
                           MapVectors({old_variance, variance}, {n, f}, RunningVarianceFun()));
    }
    out = {y, batch_mean, batch_variance, mean, variance};
  }
  if (kVersion == 3) out.push_back(Lit(kF, 0));  // reserve_space_3, as TensorFlow's CPU kernel
  return out;
}

// --- FusedBatchNormGrad -----------------------------------------------------------------------

// FusedBatchNormGrad{,V2,V3}(y_backprop, x, scale, reserve_space_1, reserve_space_2
// [, reserve_space_3]) -> (x_backprop, scale_backprop, offset_backprop, reserve_space_4,
// reserve_space_5), the reserve spaces 1 and 2 being the mean and variance the forward pass
// used. Each channel's sums of dy and dy * (x - mean) are folded once; in training x_backprop
// reads them from a kernel of their own.
template <int kVersion>
absl::StatusOr<std::vector<ExprPtr>> TranslateFusedBatchNormGrad(const TranslateContext& ctx) {
  const int inputs = kVersion == 3 ? 6 : 5;
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(inputs));
  const char* const names[] = {"y_backprop",     "x", "scale", "reserve_space_1", "reserve_space_2",
                               "reserve_space_3"};
  for (int i : {0, 1}) DFC_RETURN_IF_ERROR(CheckDType(ctx, i, XTypes(kVersion), names[i]));
  for (int i = 2; i < inputs; ++i) DFC_RETURN_IF_ERROR(CheckDType(ctx, i, kFloatOnly, names[i]));
  DFC_ASSIGN_OR_RETURN(const float epsilon, ctx.node().GetFloat("epsilon", 0.0001f));
  DFC_ASSIGN_OR_RETURN(const bool training, ctx.node().GetBool("is_training", true));
  DFC_ASSIGN_OR_RETURN(const ExprPtr dy, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(const ExprPtr x, ctx.Input(1));
  if (BaseDType(dy->type) != BaseDType(x->type) || ShapeOfExpr(dy) != ShapeOfExpr(x)) {
    return ctx.Error(absl::StrCat("y_backprop and x must have the same dtype and shape, got ",
                                  DTypeName(BaseDType(dy->type)), ShapeToString(ShapeOfExpr(dy)),
                                  " and ", DTypeName(BaseDType(x->type)),
                                  ShapeToString(ShapeOfExpr(x))));
  }
  DFC_ASSIGN_OR_RETURN(const ChannelLayout layout, ReadChannelLayout(ctx, 1, "x"));
  for (int i : {2, 3, 4}) DFC_RETURN_IF_ERROR(CheckChannelVector(ctx, i, names[i], layout, true));
  DFC_ASSIGN_OR_RETURN(const ExprPtr scale, ctx.Input(2));
  DFC_ASSIGN_OR_RETURN(const ExprPtr mean, ctx.Input(3));
  DFC_ASSIGN_OR_RETURN(const ExprPtr variance, ctx.Input(4));
  const DType t = BaseDType(x->type);
  const ExprPtr eps = Lit(kF, epsilon);
  DFC_ASSIGN_OR_RETURN(const ExprPtr n, SizeAsScalar(layout.count, kF));

  // Each channel's sum(dy) and sum(dy * (x - mean)), arrays of scalars (see FusedBatchNorm).
  const FunPtr dy_xc = DyTimesCentredFun(t);
  DFC_ASSIGN_OR_RETURN(ExprPtr dy_lines, ChannelLines(dy, layout));
  DFC_ASSIGN_OR_RETURN(ExprPtr x_lines, ChannelLines(x, layout));
  DFC_ASSIGN_OR_RETURN(ExprPtr sum_dy,
                       MapOver(
                           dy_lines, [](ExprPtr line) { return FloatSum(line); }, "line"));
  DFC_ASSIGN_OR_RETURN(ExprPtr per_channel, Call(Zip(3), {dy_lines, x_lines, mean}));
  DFC_ASSIGN_OR_RETURN(ExprPtr sum_dy_xc,
                       MapOver(
                           per_channel,
                           [&](ExprPtr c) -> absl::StatusOr<ExprPtr> {
                             DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> f, Fields(c));
                             DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {f[0], f[1]}));
                             DFC_ASSIGN_OR_RETURN(
                                 ExprPtr products,
                                 MapOver(pairs, [&](ExprPtr p) -> absl::StatusOr<ExprPtr> {
                                   DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> e, Fields(p));
                                   return Apply(dy_xc, {e[0], e[1], f[2]});
                                 }));
                             return FloatSum(products);
                           },
                           "c"));

  ExprPtr x_backprop;
  if (training) {
    // Each sum stored once, by a kernel of its own, for x_backprop's kernel to read.
    const FunPtr backprop = TrainingBackpropFun(t);
    DFC_ASSIGN_OR_RETURN(
        x_backprop, Let(
                        sum_dy,
                        [&](ExprPtr s1) {
                          return Let(
                              sum_dy_xc,
                              [&](ExprPtr s2) {
                                return PerChannel(
                                    {dy, x}, layout, {scale, mean, variance, s1, s2},
                                    [&](std::span<const ExprPtr> e, std::span<const ExprPtr> c) {
                                      return Apply(backprop, {e[0], e[1], c[0], c[1], c[2], c[3],
                                                              c[4], n, eps});
                                    });
                              },
                              "sum_dy_xc");
                        },
                        "sum_dy"));
  } else {
    const FunPtr backprop = InferenceBackpropFun(t);
    DFC_ASSIGN_OR_RETURN(x_backprop,
                         PerChannel({dy}, layout, {scale, variance},
                                    [&](std::span<const ExprPtr> e, std::span<const ExprPtr> c) {
                                      return Apply(backprop, {e[0], c[0], c[1], eps});
                                    }));
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr scale_backprop,
                       MapVectors({sum_dy_xc, variance}, {n, eps}, ScaleBackpropFun()));
  // reserve_space_4 and _5: empty float vectors.
  DFC_ASSIGN_OR_RETURN(ExprPtr empty, Call(Repeat(0), {Lit(kF, 0)}));
  return std::vector<ExprPtr>{x_backprop, scale_backprop, sum_dy, empty, empty};
}

// --- size unification -------------------------------------------------------------------------

// x's channel dimension against the per-channel vectors at `vectors` (a vector's length may
// be a size variable: a placeholder of unknown length fed the scale, say).
bool UnifyChannels(const Node& node, std::span<const SymbolicShape> shapes, size_t x,
                   std::initializer_list<size_t> vectors, SizeUnifier& unifier) {
  if (x >= shapes.size() || (shapes[x].size() != 4 && shapes[x].size() != 5)) return false;
  const absl::StatusOr<std::string> format = node.GetString("data_format", "NHWC");
  if (!format.ok()) return false;
  const bool first = *format == "NCHW" || *format == "NCDHW";
  const ArithExpr& channels = shapes[x][first ? 1 : shapes[x].size() - 1];
  bool changed = false;
  for (size_t i : vectors) {
    if (i < shapes.size() && shapes[i].size() == 1) {
      changed = unifier.Unify(channels, shapes[i][0]) || changed;
    }
  }
  return changed;
}

// The scale and offset have one element a channel, and so do the mean and variance where they
// are read (in inference, or with exponential_avg_factor != 1).
bool UnifyBatchNorm(const Node& node, std::span<const SymbolicShape> shapes, SizeUnifier& unifier) {
  const absl::StatusOr<bool> training = node.GetBool("is_training", true);
  const absl::StatusOr<float> factor = node.GetFloat("exponential_avg_factor", 1.0f);
  if (!training.ok() || !factor.ok()) return false;
  if (!*training || *factor != 1.0f) return UnifyChannels(node, shapes, 0, {1, 2, 3, 4}, unifier);
  return UnifyChannels(node, shapes, 0, {1, 2}, unifier);
}

// y_backprop and x have one shape; scale and the reserve spaces 1 and 2 one element a channel.
bool UnifyBatchNormGrad(const Node& node, std::span<const SymbolicShape> shapes,
                        SizeUnifier& unifier) {
  const bool same = UnifyShapes(shapes, 0, 2, unifier);
  return UnifyChannels(node, shapes, 1, {2, 3, 4}, unifier) || same;
}

}  // namespace

void RegisterNormalizationTranslations(TranslationTable& table) {
  table.push_back({"FusedBatchNorm", {TranslateFusedBatchNorm<1>, {}, UnifyBatchNorm}});
  table.push_back({"FusedBatchNormV2", {TranslateFusedBatchNorm<2>, {}, UnifyBatchNorm}});
  table.push_back({"FusedBatchNormV3", {TranslateFusedBatchNorm<3>, {}, UnifyBatchNorm}});
  table.push_back({"FusedBatchNormGrad", {TranslateFusedBatchNormGrad<1>, {}, UnifyBatchNormGrad}});
  table.push_back(
      {"FusedBatchNormGradV2", {TranslateFusedBatchNormGrad<2>, {}, UnifyBatchNormGrad}});
  table.push_back(
      {"FusedBatchNormGradV3", {TranslateFusedBatchNormGrad<3>, {}, UnifyBatchNormGrad}});
  normalization::RegisterLrnTranslations(table);
}

}  // namespace dfc::ir
