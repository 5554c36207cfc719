// Translations of the forward convolutions (OPS.md's nn table): Conv2D, Conv3D and
// DepthwiseConv2dNative, as Lift writes a convolution: the input's windows (windows.h: Pad,
// Slide, Reindex views), each folded with the filter,
//
//   Map^(k+1)(λ(w) => Map(λ(f) => Reduce(add, 0) o Map(mult) $ Zip(Join w, f)) $ filters)
//     $ windows(x)
//
// filters being the filter's output channels, each its taps joined in the window's order; as
// the thesis' form is written, each output channel folds the whole window alone. Instead each
// window is folded once into a sum per output channel (RowTimesMatrix: Lift's
// mapReduceInterchange), in groups of channels a work-item keeps in registers. A window of one
// tap at stride 1 without padding (a pointwise convolution) is a matrix product of the pixels by
// the filter, translated as MatMul is. A depthwise convolution folds each tap's row of channels
// with the filter's row of multipliers, every channel at once (ColumnDotProducts).
// The fold runs from the first tap to the last, as MatMul's dot product (contraction.h).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
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

// Whether every spatial dimension's window is one tap at stride 1 with no padding: each output
// pixel is then its input pixel's channels times the filter's [C][M] matrix.
bool Pointwise(const Filter& filter, const WindowedInput& in) {
  for (size_t d = 0; d < in.dims.size(); ++d) {
    if (filter.taps[d] != 1 || in.dims[d].stride != 1 || in.sizes[d].pad_before != 0 ||
        in.sizes[d].pad_after != 0) {
      return false;
    }
  }
  return true;
}

// A pointwise convolution as the product of the pixels ([N·S1·..·Sk][C]) by the filter's
// [C][M] matrix (both views), its rows cut back into the image's [N][S1]..[Sk]: as MatMul is
// translated, so that the products' schedule (rewrite/contraction_schedule.h) blocks it in
// registers as a GEMM's micro-kernel.
absl::StatusOr<ExprPtr> PointwiseProduct(const WindowedInput& in, const Filter& filter, int k) {
  DFC_ASSIGN_OR_RETURN(ExprPtr pixels, JoinLeading(in.x, k + 1));
  DFC_ASSIGN_OR_RETURN(ExprPtr matrix, JoinLeading(filter.value, k + 1));
  DFC_ASSIGN_OR_RETURN(ExprPtr out, MatrixProduct(pixels, matrix));
  SymbolicShape shape = ShapeOfExpr(in.x);
  shape.back() = ShapeOfExpr(matrix)[1];
  // An empty image has no rows to cut by its dimension of 0: the reshape makes its empty array.
  if (absl::c_linear_search(shape, ArithExpr(0))) return ReshapeTensor(out, shape);
  for (int d = k; d >= 1; --d) {
    DFC_ASSIGN_OR_RETURN(out, Call(Split(shape[d]), {out}));
  }
  return out;
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
  if (Pointwise(filter, in)) {
    DFC_ASSIGN_OR_RETURN(ExprPtr out, PointwiseProduct(in, filter, kSpatialRank));
    DFC_ASSIGN_OR_RETURN(out, ToDataFormat(out, in.attrs));
    return std::vector<ExprPtr>{out};
  }
  const DType d = BaseDType(in.x->type);
  DFC_ASSIGN_OR_RETURN(ExprPtr windows,
                       WindowsOf(in, d == DType::kInt32 ? Scalar::Int(d, 0) : Scalar::Float(d, 0)));
  DFC_ASSIGN_OR_RETURN(windows, JoinedWindows(windows, kSpatialRank));
  // [K1]..[Kk][C][M] -> [K1·..·Kk·C][M]: a row of output channels per tap, the filter's
  // memory as it is. Each window folded once into a sum per output channel, in groups a
  // work-item keeps in registers.
  DFC_ASSIGN_OR_RETURN(ExprPtr rows, JoinLeading(filter.value, kSpatialRank + 1));
  // [K1]..[Kk][C][M] -> [M][K1]..[Kk][C], each output channel's taps joined as a window's are,
  // for output channels that no group divides: each folds the window alone.
  std::vector<int> perm = {kSpatialRank + 1};
  for (int i = 0; i <= kSpatialRank; ++i) perm.push_back(i);
  DFC_ASSIGN_OR_RETURN(ExprPtr filters, TransposeTensor(filter.value, perm));
  DFC_ASSIGN_OR_RETURN(filters, MapAtDepth(filters, 1, [](ExprPtr f) { return Flatten(f); }));
  DFC_ASSIGN_OR_RETURN(
      ExprPtr out, MapAtDepth(windows, kSpatialRank + 1, [&](ExprPtr w) -> absl::StatusOr<ExprPtr> {
        DFC_ASSIGN_OR_RETURN(
            std::optional<ExprPtr> grouped,
            InAccumulatorGroups({rows}, filter.out_channels, [&](std::span<const ExprPtr> group) {
              return RowTimesMatrix(w, group[0]);
            }));
        if (grouped) return *grouped;
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
  // The filter as a row of C·M multipliers per tap: [K1][K2][C][M] -> [K1·K2][C·M].
  DFC_ASSIGN_OR_RETURN(ExprPtr tap_rows, JoinLeading(filter.value, 2));
  DFC_ASSIGN_OR_RETURN(tap_rows, MapOver(tap_rows, [](ExprPtr r) { return Call(Join(), {r}); }));
  // For channels that no group divides, each channel's multipliers with its taps:
  // [K1][K2][C][M] -> [C][M][K1·K2].
  DFC_ASSIGN_OR_RETURN(ExprPtr filters,
                       TransposeTensor(filter.value, std::vector<int>{2, 3, 0, 1}));
  DFC_ASSIGN_OR_RETURN(filters, MapAtDepth(filters, 2, [](ExprPtr f) { return Flatten(f); }));
  const int64_t multiplier = filter.out_channels;
  DFC_ASSIGN_OR_RETURN(
      ExprPtr out, MapAtDepth(windows, 3, [&](ExprPtr w) -> absl::StatusOr<ExprPtr> {
        // The window's taps as rows of channels, each channel repeated for its multipliers
        // ([K1·K2][C·M]), folded once for every channel: a sum per output channel, in groups
        // a work-item keeps in registers, each over the taps in order as a dot product is.
        DFC_ASSIGN_OR_RETURN(ExprPtr taps, Call(Join(), {w}));
        if (multiplier > 1) {
          DFC_ASSIGN_OR_RETURN(taps, MapOver(taps, [&](ExprPtr row) -> absl::StatusOr<ExprPtr> {
                                 DFC_ASSIGN_OR_RETURN(ExprPtr repeated,
                                                      MapOver(row, [&](ExprPtr c) {
                                                        return Call(Repeat(multiplier), {c});
                                                      }));
                                 return Call(Join(), {repeated});
                               }));
        }
        DFC_ASSIGN_OR_RETURN(std::optional<ExprPtr> grouped,
                             InAccumulatorGroups({taps, tap_rows}, filter.in_channels * multiplier,
                                                 [&](std::span<const ExprPtr> group) {
                                                   return ColumnDotProducts(group[0], group[1]);
                                                 }));
        if (grouped) return *grouped;
        // Each window [K1][K2][C] -> [C][K1·K2]: a channel's taps, folded with each multiplier.
        DFC_ASSIGN_OR_RETURN(ExprPtr by_channel, Call(Transpose(), {taps}));
        if (multiplier > 1) {
          DFC_ASSIGN_OR_RETURN(ExprPtr joined, Call(Join(), {w}));
          DFC_ASSIGN_OR_RETURN(by_channel, Call(Transpose(), {joined}));
        }
        DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {by_channel, filters}));
        DFC_ASSIGN_OR_RETURN(ExprPtr per_channel,
                             MapOver(
                                 pairs,
                                 [&](ExprPtr p) -> absl::StatusOr<ExprPtr> {
                                   DFC_ASSIGN_OR_RETURN(ExprPtr channel_taps, Call(Get(0), {p}));
                                   DFC_ASSIGN_OR_RETURN(ExprPtr fs, Call(Get(1), {p}));
                                   return MapOver(
                                       fs, [&](ExprPtr f) { return DotProduct(channel_taps, f); },
                                       "f");
                                 },
                                 "c"));
        return Call(Join(), {per_channel});
      }));
  DFC_ASSIGN_OR_RETURN(out, ToDataFormat(out, in.attrs));
  return std::vector<ExprPtr>{out};
}

}  // namespace

void RegisterConvolutionTranslations(TranslationTable& table) {
  table.push_back({"Conv2D", {TranslateConv<2>, {}}});
  table.push_back({"Conv3D", {TranslateConv<3>, {}}});
  table.push_back({"DepthwiseConv2dNative", {TranslateDepthwiseConv, {}}});
}

}  // namespace dfc::ir
