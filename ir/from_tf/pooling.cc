// Translations of the forward pools (OPS.md's nn table): MaxPool, MaxPoolV2, AvgPool,
// MaxPool3D and AvgPool3D. Each output is its window (windows.h) folded per channel as the
// Sum folds a line (reduction.h), or by TensorFlow's MaxPool step:
//
//   Map^(k+1)(λ(w) => Map(fold) $ Transpose $ Join^(k-1) w) $ windows(x)
//
// or, with few channels (kRegisterAccumulators), each window's positions folded at once into an
// accumulator per channel: Reduce(λ(acc, p) => Map(fold's step) $ Zip(acc, p)) $ Join^(k-1) w.
//
// MaxPool starts from the dtype's lowest finite value and pads with it, so padding is never
// the maximum; AvgPool pads with 0 and divides each sum by its window's in-bounds count, as
// TensorFlow does under SAME padding.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/dtype_class.h"
#include "ir/from_tf/reduction.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"
#include "ir/from_tf/windows.h"

namespace dfc::ir {
namespace {

// The lowest finite value of `d`: where TensorFlow's CPU MaxPool starts each window, so an
// all -infinity window gives it and padding never wins.
Scalar Lowest(DType d) {
  return DispatchDType(d, [&]<typename T>() {
    if constexpr (std::is_same_v<T, Half>) {
      return Scalar::Float(d, -65504.0);
    } else if constexpr (std::is_floating_point_v<T>) {
      return Scalar::Float(d, static_cast<double>(std::numeric_limits<T>::lowest()));
    } else if constexpr (std::is_integral_v<T>) {
      return Scalar::Int(d, static_cast<int64_t>(std::numeric_limits<T>::lowest()));
    } else {
      return Scalar{};
    }
  });
}

// MaxPool's step as TensorFlow's CPU kernel takes it: x replaces the maximum only when larger,
// so NaN never does.
FunPtr PoolMaxFun(DType d) {
  return MakeCombiner(absl::StrCat("pool_max_", DTypeName(d)), "return x > acc ? x : acc;", d,
                      [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                        const bool larger =
                            IsFloating(a[1].dtype) ? a[1].f > a[0].f : a[1].i > a[0].i;
                        return larger ? a[1] : a[0];
                      });
}

enum class PoolKind { kMax, kAvg };

// ksize: the attribute, or for MaxPoolV2 input 1 (strides are input 2, read by
// ReadWindowAttrs from the attribute TensorFlow's V2 lacks: they are checked here).
template <PoolKind kind, int kSpatialRank, bool kV2 = false>
absl::StatusOr<std::vector<ExprPtr>> TranslatePool(const TranslateContext& ctx) {
  const int inputs = kV2 ? 3 : 1;
  if (ctx.num_inputs() != inputs) {
    return ctx.Error(absl::StrCat("expects ", inputs, " input", inputs > 1 ? "s" : "", ", got ",
                                  ctx.num_inputs()));
  }
  WindowOpKind op{.spatial_rank = kSpatialRank,
                  .has_ksize = true,
                  .has_dilations = false,
                  .allows_explicit = kind == PoolKind::kMax && kSpatialRank == 2 && !kV2};
  Node node = ctx.node();  // MaxPoolV2: its ksize and strides inputs as attributes
  if constexpr (kV2) {
    for (auto [i, name] : {std::pair{1, "ksize"}, std::pair{2, "strides"}}) {
      DFC_ASSIGN_OR_RETURN(std::vector<int64_t> v, ctx.StaticInts(i));
      AttrList list;
      list.i = std::move(v);
      node.attrs[name] = std::move(list);
    }
  }
  DFC_ASSIGN_OR_RETURN(WindowAttrs attrs, ReadWindowAttrs(node, op));
  std::vector<int64_t> windows;
  for (int d = 0; d < kSpatialRank; ++d) windows.push_back(attrs.ksize[attrs.spatial_dim(d)]);
  DFC_ASSIGN_OR_RETURN(WindowedInput in, ReadWindowedInput(ctx, attrs, windows));
  const DType d = BaseDType(in.x->type);
  // TensorFlow's registrations: the AvgPools take floating types, MaxPool3D float16 and
  // float32, MaxPool every number type.
  const bool is_max = kind == PoolKind::kMax;
  const bool max3d = is_max && kSpatialRank == 3;
  const bool allowed = max3d                    ? (d == DType::kHalf || d == DType::kFloat)
                       : kind == PoolKind::kAvg ? IsFloating(d)
                                                : IsNumeric(d);
  if (!allowed) {
    return ctx.Error(absl::StrCat(ctx.node().op, " is not defined for dtype ", DTypeName(d),
                                  max3d                    ? " (expected float16 or float32)"
                                  : kind == PoolKind::kAvg ? " (expected a floating type)"
                                                           : " (expected a number type)"));
  }
  const DType acc = d == DType::kHalf ? DType::kFloat : d;  // AvgPool's sums
  DFC_ASSIGN_OR_RETURN(ExprPtr all, WindowsOf(in, is_max ? Lowest(d) : Scalar::Float(d, 0)));
  // Each window's per-channel folds, [C]: with few channels, the window's positions ([P][C])
  // folded once into an accumulator per channel (kRegisterAccumulators), else each channel's line.
  const ExprPtr init = is_max ? MakeLiteral(Lowest(d)) : Lit(acc, 0);
  const FunPtr step = is_max ? PoolMaxFun(d) : SumStep(acc, d);
  const std::optional<int64_t> channels = ShapeOfExpr(in.x).back().AsConstant();
  const auto fold = [&](ExprPtr w) -> absl::StatusOr<ExprPtr> {
    if (channels && *channels <= kRegisterAccumulators) {
      DFC_ASSIGN_OR_RETURN(ExprPtr positions, JoinLeading(w, kSpatialRank));  // [P][C]
      return FoldRows(init, positions, step);
    }
    DFC_ASSIGN_OR_RETURN(ExprPtr lines, ChannelTaps(w, kSpatialRank));
    return MapOver(lines, [&](ExprPtr line) -> absl::StatusOr<ExprPtr> {
      return ReduceOver(init, line, [&](ExprPtr a, ExprPtr x) { return Apply(step, {a, x}); });
    });
  };
  ExprPtr out;
  if (is_max) {
    DFC_ASSIGN_OR_RETURN(out, MapAtDepth(all, kSpatialRank + 1, fold));
  } else {
    // Each window's sums divided by its in-bounds count: the windows of one image zipped
    // with the counts, one level a spatial dimension.
    DFC_ASSIGN_OR_RETURN(ExprPtr counts, InBoundsCounts(in, acc));
    FunPtr divide = FloatDivideFun(acc, d);
    std::function<absl::StatusOr<ExprPtr>(ExprPtr, ExprPtr, int)> zip_down =
        [&](ExprPtr w, ExprPtr c, int depth) -> absl::StatusOr<ExprPtr> {
      if (depth == 0) {
        DFC_ASSIGN_OR_RETURN(ExprPtr sums, fold(w));
        return MapOver(
            sums,
            [&](ExprPtr sum) {
              return Apply(divide, {sum, c});
            },
            "sum");
      }
      DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {w, c}));
      return MapOver(pairs, [&](ExprPtr p) -> absl::StatusOr<ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ExprPtr a, Call(Get(0), {p}));
        DFC_ASSIGN_OR_RETURN(ExprPtr b, Call(Get(1), {p}));
        return zip_down(a, b, depth - 1);
      });
    };
    DFC_ASSIGN_OR_RETURN(
        out, MapOver(all, [&](ExprPtr image) { return zip_down(image, counts, kSpatialRank); }));
  }
  DFC_ASSIGN_OR_RETURN(out, ToDataFormat(out, in.attrs));
  return std::vector<ExprPtr>{out};
}

}  // namespace

void RegisterPoolingTranslations(TranslationTable& table) {
  table.push_back({"MaxPool", {TranslatePool<PoolKind::kMax, 2>, {}}});
  table.push_back({"MaxPoolV2", {TranslatePool<PoolKind::kMax, 2, true>, {1, 2}}});
  table.push_back({"MaxPool3D", {TranslatePool<PoolKind::kMax, 3>, {}}});
  table.push_back({"AvgPool", {TranslatePool<PoolKind::kAvg, 2>, {}}});
  table.push_back({"AvgPool3D", {TranslatePool<PoolKind::kAvg, 3>, {}}});
}

}  // namespace dfc::ir
