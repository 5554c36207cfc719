// Translations of the forward convolutions (OPS.md's nn table): Conv2D, Conv3D and
// DepthwiseConv2dNative, as Lift writes a convolution: the input's windows (windows.h: Pad,
// Slide, Reindex views), each folded with the filter,
//
//   Map^(k+1)(λ(w) => Map(λ(f) => Reduce(add, 0) o Map(mult) $ Zip(Join w, f)) $ filters)
//     $ windows(x)
//
// filters being the filter's output channels, each its taps joined in the window's order; with
// few output channels, each window folded once into a sum per channel (RowTimesMatrix). A
// depthwise convolution folds each input channel's taps with that channel's multipliers only.
// The fold runs from the first tap to the last, as MatMul's dot product (contraction.h).
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/dtype_class.h"
#include "ir/from_tf/contraction.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"
#include "ir/from_tf/windows.h"

namespace dfc::ir {
namespace {

std::string Dims(const SymbolicShape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) absl::StrAppend(&s, i ? "," : "", shape[i].ToString());
  return s + "]";
}

// The filter ([K1]..[Kk][C][M]) with its extents, checked against the input.
struct Filter {
  ExprPtr value;
  std::vector<int64_t> taps;  // K1..Kk
  int64_t in_channels = 0;
  int64_t out_channels = 0;  // M: output channels, or the depthwise multiplier
};

absl::StatusOr<Filter> ReadFilter(const TranslateContext& ctx, int spatial_rank) {
  if (ctx.num_inputs() != 2) {
    return ctx.Error(absl::StrCat("expects 2 inputs (input, filter), got ", ctx.num_inputs()));
  }
  Filter f;
  DFC_ASSIGN_OR_RETURN(f.value, ctx.Input(1));
  const SymbolicShape shape = ShapeOfExpr(f.value);
  if (static_cast<int>(shape.size()) != spatial_rank + 2) {
    return ctx.Error(
        absl::StrCat("filter must have rank ", spatial_rank + 2, ", got ", Dims(shape)));
  }
  std::vector<int64_t> dims;
  for (const ArithExpr& d : shape) {
    const std::optional<int64_t> c = d.AsConstant();
    if (!c) return ctx.Error(absl::StrCat("filter shape ", Dims(shape), " must be known"));
    dims.push_back(*c);
  }
  f.taps.assign(dims.begin(), dims.begin() + spatial_rank);
  f.in_channels = dims[spatial_rank];
  f.out_channels = dims[spatial_rank + 1];
  return f;
}

absl::Status CheckDTypes(const TranslateContext& ctx, const ExprPtr& x, const ExprPtr& filter) {
  const DType d = BaseDType(x->type);
  if (!IsFloating(d) && d != DType::kInt32) {
    return ctx.Error(absl::StrCat(ctx.node().op, " is not defined for dtype ", DTypeName(d),
                                  " (expected float16, float32, float64 or int32)"));
  }
  if (BaseDType(filter->type) != d) {
    return ctx.Error(absl::StrCat("input and filter must have the same dtype, got ", DTypeName(d),
                                  " and ", DTypeName(BaseDType(filter->type))));
  }
  return absl::OkStatus();
}

// Each window [K1]..[Kk][C] joined to one line of K1·..·Kk·C taps.
absl::StatusOr<ExprPtr> JoinedWindows(const ExprPtr& windows, int k) {
  return MapAtDepth(windows, k + 1, [](ExprPtr w) { return Flatten(w); });
}

template <int kSpatialRank>
absl::StatusOr<std::vector<ExprPtr>> TranslateConv(const TranslateContext& ctx) {
  DFC_ASSIGN_OR_RETURN(Filter filter, ReadFilter(ctx, kSpatialRank));
  DFC_ASSIGN_OR_RETURN(WindowAttrs attrs,
                       ReadWindowAttrs(ctx.node(), {.spatial_rank = kSpatialRank,
                                                    .allows_explicit = kSpatialRank == 2}));
  DFC_ASSIGN_OR_RETURN(WindowedInput in, ReadWindowedInput(ctx, attrs, filter.taps));
  DFC_RETURN_IF_ERROR(CheckDTypes(ctx, in.x, filter.value));
  const std::optional<int64_t> channels = ShapeOfExpr(in.x).back().AsConstant();
  if (!channels || *channels != filter.in_channels) {
    return ctx.Error(absl::StrCat("the filter's depth (", filter.in_channels,
                                  ") must equal the input's channels (",
                                  ShapeOfExpr(in.x).back().ToString(), ")"));
  }
  const DType d = BaseDType(in.x->type);
  DFC_ASSIGN_OR_RETURN(ExprPtr windows,
                       WindowsOf(in, d == DType::kInt32 ? Scalar::Int(d, 0) : Scalar::Float(d, 0)));
  DFC_ASSIGN_OR_RETURN(windows, JoinedWindows(windows, kSpatialRank));
  if (filter.out_channels <= kRegisterAccumulators) {
    // [K1]..[Kk][C][M] -> [K1·..·Kk·C][M]: a row of output channels per tap, the filter's
    // memory as it is.
    DFC_ASSIGN_OR_RETURN(ExprPtr rows, JoinLeading(filter.value, kSpatialRank + 1));
    DFC_ASSIGN_OR_RETURN(ExprPtr out, MapAtDepth(windows, kSpatialRank + 1, [&](ExprPtr w) {
                           return RowTimesMatrix(w, rows);
                         }));
    DFC_ASSIGN_OR_RETURN(out, ToDataFormat(out, in.attrs));
    return std::vector<ExprPtr>{out};
  }
  // [K1]..[Kk][C][M] -> [M][K1]..[Kk][C], each output channel's taps joined as a window's are.
  std::vector<int> perm = {kSpatialRank + 1};
  for (int i = 0; i <= kSpatialRank; ++i) perm.push_back(i);
  DFC_ASSIGN_OR_RETURN(ExprPtr filters, TransposeTensor(filter.value, perm));
  DFC_ASSIGN_OR_RETURN(filters, MapAtDepth(filters, 1, [](ExprPtr f) { return Flatten(f); }));
  DFC_ASSIGN_OR_RETURN(ExprPtr out, MapAtDepth(windows, kSpatialRank + 1, [&](ExprPtr w) {
                         return MapOver(
                             filters, [&](ExprPtr f) { return DotProduct(w, f); }, "f");
                       }));
  DFC_ASSIGN_OR_RETURN(out, ToDataFormat(out, in.attrs));
  return std::vector<ExprPtr>{out};
}

// out[.., c·M + m] = Σ_taps x[tap][c] · filter[tap][c][m].
absl::StatusOr<std::vector<ExprPtr>> TranslateDepthwiseConv(const TranslateContext& ctx) {
  DFC_ASSIGN_OR_RETURN(Filter filter, ReadFilter(ctx, 2));
  DFC_ASSIGN_OR_RETURN(WindowAttrs attrs, ReadWindowAttrs(ctx.node(), {.allows_explicit = true}));
  DFC_ASSIGN_OR_RETURN(WindowedInput in, ReadWindowedInput(ctx, attrs, filter.taps));
  DFC_RETURN_IF_ERROR(CheckDTypes(ctx, in.x, filter.value));
  const std::optional<int64_t> channels = ShapeOfExpr(in.x).back().AsConstant();
  if (!channels || *channels != filter.in_channels) {
    return ctx.Error(absl::StrCat("the filter's depth (", filter.in_channels,
                                  ") must equal the input's channels (",
                                  ShapeOfExpr(in.x).back().ToString(), ")"));
  }
  const DType d = BaseDType(in.x->type);
  DFC_ASSIGN_OR_RETURN(ExprPtr windows,
                       WindowsOf(in, d == DType::kInt32 ? Scalar::Int(d, 0) : Scalar::Float(d, 0)));
  // Each window [K1][K2][C] -> [C][K1·K2]: a channel's taps.
  DFC_ASSIGN_OR_RETURN(windows, MapAtDepth(windows, 3, [](ExprPtr w) -> absl::StatusOr<ExprPtr> {
                         DFC_ASSIGN_OR_RETURN(ExprPtr taps, Call(Join(), {w}));  // [K1·K2][C]
                         return Call(Transpose(), {taps});
                       }));
  // [K1][K2][C][M] -> [C][M][K1·K2]: each channel's multipliers, each with its taps.
  DFC_ASSIGN_OR_RETURN(ExprPtr filters,
                       TransposeTensor(filter.value, std::vector<int>{2, 3, 0, 1}));
  DFC_ASSIGN_OR_RETURN(filters, MapAtDepth(filters, 2, [](ExprPtr f) { return Flatten(f); }));
  DFC_ASSIGN_OR_RETURN(
      ExprPtr out, MapAtDepth(windows, 3, [&](ExprPtr w) -> absl::StatusOr<ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {w, filters}));
        DFC_ASSIGN_OR_RETURN(ExprPtr per_channel,
                             MapOver(
                                 pairs,
                                 [&](ExprPtr p) -> absl::StatusOr<ExprPtr> {
                                   DFC_ASSIGN_OR_RETURN(ExprPtr taps, Call(Get(0), {p}));
                                   DFC_ASSIGN_OR_RETURN(ExprPtr fs, Call(Get(1), {p}));
                                   return MapOver(
                                       fs, [&](ExprPtr f) { return DotProduct(taps, f); }, "f");
                                 },
                                 "c"));
        return Call(Join(), {per_channel});
      }));
  DFC_ASSIGN_OR_RETURN(out, ToDataFormat(out, in.attrs));
  return std::vector<ExprPtr>{out};
}

}  // namespace

void RegisterConvolutionTranslations(TranslationTable& table) {
  table.push_back({"Conv2D", {TranslateConv<2>, {}, nullptr, WindowsOverlap}});
  table.push_back({"Conv3D", {TranslateConv<3>, {}, nullptr, WindowsOverlap}});
  table.push_back({"DepthwiseConv2dNative", {TranslateDepthwiseConv, {}, nullptr, WindowsOverlap}});
}

}  // namespace dfc::ir
