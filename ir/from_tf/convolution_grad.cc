// Translations of the convolution gradients and ExtractImagePatches (OPS.md's nn table), over
// any number of spatial dimensions as convolution.cc's forward ones:
//
//   input gradient   Conv2DBackpropInput  Conv3DBackpropInputV2
//                    DepthwiseConv2dNativeBackpropInput                (transposed convolutions)
//   filter gradient  Conv2DBackpropFilter  Conv3DBackpropFilterV2
//                    DepthwiseConv2dNativeBackpropFilter
//   ExtractImagePatches
//
// The input gradient is a convolution of out_backprop dilated by the strides: each input
// position's window of dy (InputWindows, views only), its taps in the filter's order, folded
// with each input channel's weights, those of the output channels that read it,
//
//   Map^(k+1)(λ(w) => Join o Map(λ(w_g, f_g) => Map(λ(f) => dot(Join w_g, f)) $ f_g)
//                       $ Zip(groups(w), groups(filter))) $ InputWindows(dy)
//
// With few input channels (kRegisterAccumulators) and no groups, each window's taps are
// folded once into an accumulator per input channel instead (RowTimesMatrix), the same sums.
//
// The filter gradient folds, for each tap and channel pair, the input's windows read at that
// tap (windows.h) over the batch and the outputs with dy's channel: df[t][c][m] =
// dot(x-windows[.., t, c] joined, dy[.., m] joined). Ungrouped with few output channels
// (kRegisterAccumulators), the same sums fold each tap and channel's line once into an
// accumulator per output channel, reading dy's rows as they lie (RowTimesMatrix).
//
// Channels are grouped as the reference groups them: a filter of depth D over C input channels
// is a grouped convolution of G = C / D groups, output channel m of group m / (M / G) reading
// input channels [g·D, g·D + D). A depthwise filter [K..][C][M] is C groups of depth 1, output
// channel c·M + m. An ungrouped convolution is the one group G = 1.
//
// The folds are DotProduct's (contraction.h): from the first term, in float for float16 and
// float32, double for float64, int32 wrapping; the reference sums in double and rounds once, so
// they agree to the conformance tolerance.
//
// ExtractImagePatches is the input's windows, each joined to (row, column, channel): views only.
#include "ir/from_tf/convolution_grad.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
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

// f $ x at depth `depth` of t: Map^depth(f) $ t.
absl::StatusOr<ExprPtr> ConvGradApplyAt(const ExprPtr& t, int depth, const FunPtr& f) {
  return MapAtDepth(t, depth, [&](ExprPtr x) { return Call(f, {x}); });
}

Scalar Zero(DType d) { return IsFloating(d) ? Scalar::Float(d, 0) : Scalar::Int(d, 0); }

// `line`'s element o at o·stride, stride - 1 fills after each: Join o Map(Pad o Repeat(1)).
absl::StatusOr<ExprPtr> Spaced(const ExprPtr& line, int64_t stride, const Scalar& fill) {
  DFC_ASSIGN_OR_RETURN(ExprPtr spaced,
                       MapOver(
                           line,
                           [&](ExprPtr e) -> absl::StatusOr<ExprPtr> {
                             DFC_ASSIGN_OR_RETURN(ExprPtr one, Call(Repeat(1), {e}));
                             return Call(Pad(0, stride - 1, PadMode::kConstant, fill), {one});
                           },
                           "o"));
  return Call(Join(), {spaced});
}

}  // namespace

absl::StatusOr<ExprPtr> InputWindows(const ExprPtr& y, const std::vector<WindowDim>& dims,
                                     const std::vector<WindowSize>& sizes, const Scalar& fill) {
  const int k = static_cast<int>(dims.size());
  ExprPtr x = y;
  // [N][O1]..[Ok][C..] -> [N][P1][K1]..[Pk][Kk][C..]: dimension d, at depth 1 + 2d.
  for (int d = 0; d < k; ++d) {
    const WindowDim& dim = dims[d];
    const int64_t span = (dim.window - 1) * dim.dilation;  // a window's extent, less one
    const int depth = 1 + 2 * d;
    int64_t length = sizes[d].output;
    if (dim.stride > 1) {
      DFC_ASSIGN_OR_RETURN(
          x, MapAtDepth(x, depth, [&](ExprPtr line) { return Spaced(line, dim.stride, fill); }));
      length *= dim.stride;
    }
    // Input position p reads the dilated dy from p + pad_before - span (its last tap) to
    // p + pad_before (its first): all p together, [first, first + reach), padded with `fill`
    // or cut to that.
    const int64_t first = sizes[d].pad_before - span;
    const int64_t reach = dim.input + span;
    const int64_t before = std::max<int64_t>(0, -first);
    const int64_t after = std::max<int64_t>(0, first + reach - length);
    if (before != 0 || after != 0) {
      DFC_ASSIGN_OR_RETURN(x,
                           ConvGradApplyAt(x, depth, Pad(before, after, PadMode::kConstant, fill)));
    }
    const int64_t start = first + before;
    if (start != 0 || length + before + after != reach) {
      DFC_ASSIGN_OR_RETURN(
          x, ConvGradApplyAt(x, depth, Reindex(reach, IndexVar() + ArithExpr(start))));
    }
    DFC_ASSIGN_OR_RETURN(x, ConvGradApplyAt(x, depth, Slide(span + 1, 1)));
    if (dim.window > 1) {
      // Tap t at p + pad_before - t·dilation: the window read backwards, every dilation-th.
      DFC_ASSIGN_OR_RETURN(
          x, ConvGradApplyAt(x, depth + 1,
                             Reindex(dim.window, (ArithExpr(dim.window - 1) - IndexVar()) *
                                                     ArithExpr(dim.dilation))));
    }
  }
  // Positions first, then taps: N, P1..Pk, K1..Kk, then the element's dimensions (C).
  std::vector<int> perm = {0};
  for (int d = 0; d < k; ++d) perm.push_back(1 + 2 * d);
  for (int d = 0; d < k; ++d) perm.push_back(2 + 2 * d);
  for (int d = 1 + 2 * k; d < Rank(x); ++d) perm.push_back(d);
  return TransposeTensor(x, perm);
}

namespace {

// What a convolution gradient op is, as the reference's ConvOp says.
struct ConvGradOp {
  int spatial_rank = 2;
  bool depthwise = false;
  bool allows_explicit = false;     // the Conv2D and depthwise families
  bool allows_int32 = false;        // Conv2DBackpropInput
  bool spatial_only_sizes = false;  // Conv2DBackpropInput: input_sizes may be just [H, W]
};

constexpr ConvGradOp k2D{.spatial_rank = 2, .allows_explicit = true};
constexpr ConvGradOp k2DInput{
    .spatial_rank = 2, .allows_explicit = true, .allows_int32 = true, .spatial_only_sizes = true};
constexpr ConvGradOp kDepthwise{.spatial_rank = 2, .depthwise = true, .allows_explicit = true};
constexpr ConvGradOp k3D{.spatial_rank = 3};

absl::Status CheckConvDType(const TranslateContext& ctx, const ConvGradOp& op, DType d) {
  if (IsFloating(d) || (op.allows_int32 && d == DType::kInt32)) return absl::OkStatus();
  return ctx.Error(absl::StrCat(ctx.node().op, " is not defined for dtype ", DTypeName(d),
                                op.allows_int32 ? " (expected float16, float32, float64 or int32)"
                                                : " (expected float16, float32 or float64)"));
}

absl::Status CheckSameDType(const TranslateContext& ctx, const ExprPtr& a, const ExprPtr& b,
                            absl::string_view name_a, absl::string_view name_b) {
  if (BaseDType(a->type) == BaseDType(b->type)) return absl::OkStatus();
  return ctx.Error(absl::StrCat(name_a, " and ", name_b, " must have the same dtype, got ",
                                DTypeName(BaseDType(a->type)), " and ",
                                DTypeName(BaseDType(b->type))));
}

// Static input `i` (input_sizes, filter_sizes): an int32 or int64 vector of non-negative sizes,
// of which a batch may be a size variable.
absl::StatusOr<std::vector<ArithExpr>> ReadSizes(const TranslateContext& ctx, int i,
                                                 absl::string_view what) {
  DFC_ASSIGN_OR_RETURN(DType d, ctx.InputDType(i));
  if (d != DType::kInt32 && d != DType::kInt64) {
    return ctx.Error(absl::StrCat(what, " must be int32 or int64, got ", DTypeName(d)));
  }
  if (const Tensor* t = ctx.StaticTensor(i); t != nullptr && t->rank() != 1) {
    return ctx.Error(absl::StrCat(what, " must be a vector, got ", t->DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(std::vector<ArithExpr> sizes, ctx.SymbolicInts(i));
  for (const ArithExpr& s : sizes) {
    if (s.AsConstant().value_or(0) < 0) {
      return ctx.Error(absl::StrCat(what, " must not be negative, got ", ShapeToString(sizes)));
    }
  }
  return sizes;
}

// A shape's dimensions as constants, or an error saying which tensor must be known.
absl::StatusOr<std::vector<int64_t>> KnownDims(const TranslateContext& ctx,
                                               const SymbolicShape& shape, absl::string_view what) {
  std::optional<std::vector<int64_t>> dims = ConstantShape(shape);
  if (!dims) {
    return ctx.Error(
        absl::StrCat(what, " ", ShapeToString(shape), " must be known when the graph is compiled"));
  }
  return *dims;
}

// The channels of a convolution whose input has `channels` and whose filter is
// [K..][filter_in][filter_out], checked as the reference checks them.
struct Channels {
  int64_t input = 0;      // C
  int64_t groups = 1;     // G
  int64_t depth = 0;      // D: input channels per group
  int64_t output = 0;     // M
  int64_t per_group = 0;  // M / G
};

absl::StatusOr<Channels> GroupChannels(const TranslateContext& ctx, const ConvGradOp& op,
                                       int64_t channels, int64_t filter_in, int64_t filter_out,
                                       absl::string_view shapes) {
  Channels c{.input = channels};
  if (op.depthwise) {
    if (filter_in != channels) {
      return ctx.Error(absl::StrCat("the filter's in_channels (", filter_in,
                                    ") must equal the input's channels (", channels, ") ", shapes));
    }
    c.groups = channels;
    c.depth = 1;
    c.output = channels * filter_out;
    c.per_group = filter_out;
    return c;
  }
  if (filter_in <= 0 || channels < filter_in || channels % filter_in != 0) {
    return ctx.Error(absl::StrCat("the input's channels (", channels,
                                  ") must be a positive multiple of the filter's in_channels (",
                                  filter_in, ") ", shapes));
  }
  c.groups = channels / filter_in;
  if (filter_out % c.groups != 0) {
    return ctx.Error(absl::StrCat("the filter's out_channels (", filter_out,
                                  ") must be a multiple of the number of groups (", c.groups,
                                  " = input channels / filter in_channels) ", shapes));
  }
  c.depth = filter_in;
  c.output = filter_out;
  c.per_group = filter_out / c.groups;
  return c;
}

// The window geometry of each spatial dimension of an input of shape `x` (data_format order)
// under a filter of extents `taps`.
absl::Status SpatialGeometry(const TranslateContext& ctx, const WindowAttrs& attrs,
                             const std::vector<int64_t>& x, const std::vector<int64_t>& taps,
                             absl::string_view shapes, std::vector<WindowDim>& dims,
                             std::vector<WindowSize>& sizes) {
  for (int i = 0; i < attrs.spatial_rank(); ++i) {
    const WindowDim dim = attrs.Dim(i, x[attrs.spatial_dim(i)], taps[i]);
    absl::StatusOr<WindowSize> size = ComputeWindow(dim, attrs.padding);
    if (!size.ok()) {
      return ctx.Error(
          absl::StrCat("spatial dimension ", i, " ", shapes, ": ", size.status().message()));
    }
    dims.push_back(dim);
    sizes.push_back(*size);
  }
  return absl::OkStatus();
}

// Fails unless out_backprop has the shape the forward op gives its output: x's with the
// spatial extents of `sizes` and `out_channels` channels. With `trust_batch` (x's shape read
// from input_sizes), a batch that is a size variable on one side is trusted to be the other's,
// as TensorFlow's shape inference trusts it: a constant input_sizes serves a symbolic batch.
absl::Status CheckOutBackprop(const TranslateContext& ctx, const WindowAttrs& attrs,
                              const SymbolicShape& x, const std::vector<WindowSize>& sizes,
                              int64_t out_channels, const SymbolicShape& dy, bool trust_batch,
                              absl::string_view shapes) {
  SymbolicShape y = x;
  y[attrs.channel_dim()] = out_channels;
  for (int i = 0; i < attrs.spatial_rank(); ++i) y[attrs.spatial_dim(i)] = sizes[i].output;
  const int b = attrs.batch_dim();
  if (trust_batch && dy.size() == y.size() && (!dy[b].is_constant() || !y[b].is_constant())) {
    y[b] = dy[b];
  }
  if (dy == y) return absl::OkStatus();
  return ctx.Error(absl::StrCat("out_backprop is ", ShapeToString(dy), ", expected ",
                                ShapeToString(y), " (the output in ",
                                DataFormatName(attrs.format, attrs.spatial_rank()), " of ", shapes,
                                " under these strides and padding)"));
}

// A tensor of `shape` filled with zeros of `d`: Repeat views of one literal.
absl::StatusOr<ExprPtr> Zeros(const SymbolicShape& shape, DType d) {
  ExprPtr t = MakeLiteral(Zero(d));
  for (auto it = shape.rbegin(); it != shape.rend(); ++it) {
    DFC_ASSIGN_OR_RETURN(t, Call(Repeat(*it), {t}));
  }
  return t;
}

// [N][C][S1]..[Sk] -> [N][S1]..[Sk][C] for channels_first, else `t` itself.
absl::StatusOr<ExprPtr> ChannelsLast(const ExprPtr& t, const WindowAttrs& attrs) {
  if (attrs.format == DataFormat::kChannelsLast) return t;
  const int k = attrs.spatial_rank();
  std::vector<int> perm = {0};
  for (int d = 0; d < k; ++d) perm.push_back(2 + d);
  perm.push_back(1);
  return TransposeTensor(t, perm);
}

// Conv2DBackpropInput(input_sizes, filter, out_backprop) and its 3-D and depthwise kin.
template <const ConvGradOp& op>
absl::StatusOr<std::vector<ExprPtr>> TranslateInputGrad(const TranslateContext& ctx) {
  const int k = op.spatial_rank;
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(3));
  DFC_ASSIGN_OR_RETURN(
      WindowAttrs attrs,
      ReadWindowAttrs(ctx.node(), {.spatial_rank = k, .allows_explicit = op.allows_explicit}));
  DFC_ASSIGN_OR_RETURN(ExprPtr filter, ctx.Input(1));
  DFC_ASSIGN_OR_RETURN(ExprPtr dy, ctx.Input(2));
  const DType d = BaseDType(filter->type);
  DFC_RETURN_IF_ERROR(CheckConvDType(ctx, op, d));
  DFC_RETURN_IF_ERROR(CheckSameDType(ctx, filter, dy, "filter", "out_backprop"));
  const SymbolicShape filter_shape = ShapeOfExpr(filter);
  const SymbolicShape dy_shape = ShapeOfExpr(dy);
  if (static_cast<int>(filter_shape.size()) != k + 2 ||
      static_cast<int>(dy_shape.size()) != k + 2) {
    return ctx.Error(absl::StrCat("filter and out_backprop must have rank ", k + 2, ", got ",
                                  ShapeToString(filter_shape), " and ", ShapeToString(dy_shape)));
  }
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> f, KnownDims(ctx, filter_shape, "filter"));

  // x's shape: input_sizes, or for Conv2DBackpropInput's [H, W] form the batch of out_backprop
  // and the filter's in_channels.
  DFC_ASSIGN_OR_RETURN(std::vector<ArithExpr> sizes_in, ReadSizes(ctx, 0, "input_sizes"));
  SymbolicShape x_shape(k + 2);
  if (op.spatial_only_sizes && static_cast<int>(sizes_in.size()) == k) {
    x_shape[attrs.batch_dim()] = dy_shape[attrs.batch_dim()];
    x_shape[attrs.channel_dim()] = f[k];
    for (int i = 0; i < k; ++i) x_shape[attrs.spatial_dim(i)] = sizes_in[i];
  } else if (static_cast<int>(sizes_in.size()) == k + 2) {
    x_shape = sizes_in;
  } else {
    return ctx.Error(absl::StrCat("input_sizes must be a vector of ", k + 2, " sizes, got ",
                                  ShapeToString(sizes_in)));
  }
  // Everything but the batch is known: the spatial extents size the windows.
  SymbolicShape x_known = x_shape;
  x_known[attrs.batch_dim()] = 0;
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> x, KnownDims(ctx, x_known, "input_sizes"));
  const std::string shapes =
      absl::StrCat("(input_sizes ", ShapeToString(x_shape), " in ", DataFormatName(attrs.format, k),
                   ", filter ", ShapeToString(filter_shape), ")");
  DFC_ASSIGN_OR_RETURN(Channels c,
                       GroupChannels(ctx, op, x[attrs.channel_dim()], f[k], f[k + 1], shapes));
  std::vector<WindowDim> dims;
  std::vector<WindowSize> sizes;
  DFC_RETURN_IF_ERROR(SpatialGeometry(ctx, attrs, x, f, shapes, dims, sizes));
  DFC_RETURN_IF_ERROR(
      CheckOutBackprop(ctx, attrs, x_shape, sizes, c.output, dy_shape, true, shapes));
  x_shape[attrs.batch_dim()] = dy_shape[attrs.batch_dim()];  // the batch dy has
  if (c.input == 0 || c.output == 0) {
    DFC_ASSIGN_OR_RETURN(ExprPtr zeros, Zeros(x_shape, d));  // nothing to sum
    return std::vector<ExprPtr>{zeros};
  }

  // dy's windows, [N][P..][K..][G][M/G].
  DFC_ASSIGN_OR_RETURN(dy, ChannelsLast(dy, attrs));
  DFC_ASSIGN_OR_RETURN(dy, ConvGradApplyAt(dy, k + 1, Split(c.per_group)));
  DFC_ASSIGN_OR_RETURN(ExprPtr windows, InputWindows(dy, dims, sizes, Zero(d)));
  if (c.groups == 1 && !op.depthwise && c.input <= kRegisterAccumulators) {
    // Few input channels: each window's taps folded once into an accumulator per input
    // channel (RowTimesMatrix), the filter read as rows [K..·M][C]: tap and output channel,
    // in a window's order. Each channel's sum runs over the taps in its dot product's order.
    DFC_ASSIGN_OR_RETURN(ExprPtr rows, SwapAdjacent(filter, k));  // [K..][M][C]
    DFC_ASSIGN_OR_RETURN(rows, JoinLeading(rows, k + 1));
    DFC_ASSIGN_OR_RETURN(ExprPtr dx,
                         MapAtDepth(windows, k + 1, [&](ExprPtr w) -> absl::StatusOr<ExprPtr> {
                           DFC_ASSIGN_OR_RETURN(ExprPtr taps, Flatten(w));
                           return RowTimesMatrix(taps, rows);
                         }));
    DFC_ASSIGN_OR_RETURN(dx, ToDataFormat(dx, attrs));
    return std::vector<ExprPtr>{dx};
  }
  // The filter as [G][D][K..·M/G]: each input channel's weights, in a window's order.
  // A depthwise [K..][C][M] is [K..][1][C][M]; a grouped [K..][D][M] is [K..][D][G][M/G].
  DFC_ASSIGN_OR_RETURN(filter, op.depthwise ? ConvGradApplyAt(filter, k, Split(c.input))
                                            : ConvGradApplyAt(filter, k + 1, Split(c.per_group)));
  std::vector<int> filter_perm = {k + 1, k};
  for (int i = 0; i < k; ++i) filter_perm.push_back(i);
  filter_perm.push_back(k + 2);
  DFC_ASSIGN_OR_RETURN(filter, TransposeTensor(filter, filter_perm));
  DFC_ASSIGN_OR_RETURN(filter, MapAtDepth(filter, 2, [](ExprPtr w) { return Flatten(w); }));
  // A window [K..][G][M/G] as [G][K..·M/G].
  std::vector<int> window_perm = {k};
  for (int i = 0; i < k; ++i) window_perm.push_back(i);
  window_perm.push_back(k + 1);
  DFC_ASSIGN_OR_RETURN(
      ExprPtr dx, MapAtDepth(windows, k + 1, [&](ExprPtr w) -> absl::StatusOr<ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ExprPtr by_group, TransposeTensor(w, window_perm));
        DFC_ASSIGN_OR_RETURN(by_group,
                             MapAtDepth(by_group, 1, [](ExprPtr g) { return Flatten(g); }));
        DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {by_group, filter}));
        DFC_ASSIGN_OR_RETURN(ExprPtr per_group,
                             MapOver(
                                 pairs,
                                 [&](ExprPtr p) -> absl::StatusOr<ExprPtr> {
                                   DFC_ASSIGN_OR_RETURN(ExprPtr taps, Call(Get(0), {p}));
                                   DFC_ASSIGN_OR_RETURN(ExprPtr weights, Call(Get(1), {p}));
                                   return MapOver(
                                       weights, [&](ExprPtr f) { return DotProduct(taps, f); },
                                       "f");
                                 },
                                 "g"));
        return Call(Join(), {per_group});  // [G][D] -> [C]
      }));
  DFC_ASSIGN_OR_RETURN(dx, ToDataFormat(dx, attrs));
  return std::vector<ExprPtr>{dx};
}

// Conv2DBackpropFilter(input, filter_sizes, out_backprop) and its 3-D and depthwise kin.
template <const ConvGradOp& op>
absl::StatusOr<std::vector<ExprPtr>> TranslateFilterGrad(const TranslateContext& ctx) {
  const int k = op.spatial_rank;
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(3));
  DFC_ASSIGN_OR_RETURN(
      WindowAttrs attrs,
      ReadWindowAttrs(ctx.node(), {.spatial_rank = k, .allows_explicit = op.allows_explicit}));
  DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr dy, ctx.Input(2));
  const DType d = BaseDType(x->type);
  DFC_RETURN_IF_ERROR(CheckConvDType(ctx, op, d));
  DFC_RETURN_IF_ERROR(CheckSameDType(ctx, x, dy, "input", "out_backprop"));
  DFC_ASSIGN_OR_RETURN(std::vector<ArithExpr> filter_sizes, ReadSizes(ctx, 1, "filter_sizes"));
  if (static_cast<int>(filter_sizes.size()) != k + 2) {
    return ctx.Error(absl::StrCat("filter_sizes must be a vector of ", k + 2, " sizes, got ",
                                  ShapeToString(filter_sizes)));
  }
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> f, KnownDims(ctx, filter_sizes, "filter_sizes"));
  const SymbolicShape x_shape = ShapeOfExpr(x);
  const SymbolicShape dy_shape = ShapeOfExpr(dy);
  if (static_cast<int>(x_shape.size()) != k + 2) {
    return ctx.Error(absl::StrCat("input must have rank ", k + 2, " (",
                                  DataFormatName(attrs.format, k), "), got ",
                                  ShapeToString(x_shape)));
  }
  const std::string shapes =
      absl::StrCat("(input ", ShapeToString(x_shape), " in ", DataFormatName(attrs.format, k),
                   ", filter_sizes ", ShapeToString(filter_sizes), ")");
  const std::optional<int64_t> channels = x_shape[attrs.channel_dim()].AsConstant();
  if (!channels) {
    return ctx.Error(absl::StrCat("the input's channels must be known ", shapes));
  }
  DFC_ASSIGN_OR_RETURN(Channels c, GroupChannels(ctx, op, *channels, f[k], f[k + 1], shapes));
  const std::vector<int64_t> taps(f.begin(), f.begin() + k);
  DFC_ASSIGN_OR_RETURN(WindowedInput in, ReadWindowedInput(ctx, attrs, taps));
  DFC_RETURN_IF_ERROR(
      CheckOutBackprop(ctx, attrs, x_shape, in.sizes, c.output, dy_shape, false, shapes));
  if (c.input == 0 || c.output == 0) {
    DFC_ASSIGN_OR_RETURN(ExprPtr zeros, Zeros(ToSymbolic(f), d));  // nothing to sum
    return std::vector<ExprPtr>{zeros};
  }

  // The input's windows as [K..][D][G][N·O..]: each tap and input channel, over every output.
  DFC_ASSIGN_OR_RETURN(ExprPtr windows, WindowsOf(in, Zero(d)));  // [N][O..][K..][C]
  std::vector<int> window_perm;
  for (int i = 0; i < k; ++i) window_perm.push_back(k + 1 + i);
  window_perm.push_back(2 * k + 1);
  for (int i = 0; i <= k; ++i) window_perm.push_back(i);
  DFC_ASSIGN_OR_RETURN(windows, TransposeTensor(windows, window_perm));  // [K..][C][N][O..]
  DFC_ASSIGN_OR_RETURN(windows, MapAtDepth(windows, k + 1, [](ExprPtr w) { return Flatten(w); }));
  if (c.groups == 1 && c.output <= kRegisterAccumulators) {
    // Few output channels: each tap and channel's line folded once into an accumulator per
    // output channel, dy read as its memory is, a row of M channels per output position
    // (RowTimesMatrix, as the forward convolution folds its windows). Each channel's sum runs
    // over the positions in the same order as its dot product: they are equal.
    DFC_ASSIGN_OR_RETURN(ExprPtr rows, ChannelsLast(dy, attrs));
    DFC_ASSIGN_OR_RETURN(rows, JoinLeading(rows, k + 1));  // [N·O..][M]
    DFC_ASSIGN_OR_RETURN(ExprPtr df, MapAtDepth(windows, k + 1, [&](ExprPtr xs) {
                           return RowTimesMatrix(xs, rows);
                         }));  // [K..][C][M]
    return std::vector<ExprPtr>{df};
  }
  DFC_ASSIGN_OR_RETURN(windows, ConvGradApplyAt(windows, k, Split(c.depth)));  // [K..][G][D][N·O..]
  DFC_ASSIGN_OR_RETURN(windows, SwapAdjacent(windows, k));  // [K..][D][G][N·O..]
  // dy as [G][M/G][N·O..].
  DFC_ASSIGN_OR_RETURN(dy, ChannelsLast(dy, attrs));
  std::vector<int> dy_perm = {k + 1};
  for (int i = 0; i <= k; ++i) dy_perm.push_back(i);
  DFC_ASSIGN_OR_RETURN(dy, TransposeTensor(dy, dy_perm));
  DFC_ASSIGN_OR_RETURN(dy, MapAtDepth(dy, 1, [](ExprPtr g) { return Flatten(g); }));
  DFC_ASSIGN_OR_RETURN(dy, Call(Split(c.per_group), {dy}));
  DFC_ASSIGN_OR_RETURN(ExprPtr df,
                       MapAtDepth(windows, k + 1, [&](ExprPtr groups) -> absl::StatusOr<ExprPtr> {
                         DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {groups, dy}));
                         return MapOver(
                             pairs,
                             [&](ExprPtr p) -> absl::StatusOr<ExprPtr> {
                               DFC_ASSIGN_OR_RETURN(ExprPtr xs, Call(Get(0), {p}));
                               DFC_ASSIGN_OR_RETURN(ExprPtr dys, Call(Get(1), {p}));
                               return MapOver(
                                   dys, [&](ExprPtr g) { return DotProduct(xs, g); }, "dy");
                             },
                             "g");
                       }));  // [K..][D][G][M/G]
  // Ungrouped and grouped: [K..][D][M]; depthwise (D = 1): [K..][C][M].
  DFC_ASSIGN_OR_RETURN(df, ConvGradApplyAt(df, op.depthwise ? k : k + 1, Join()));
  return std::vector<ExprPtr>{df};
}

// ExtractImagePatches(images): y[n, o.., (t, c)] = x[n, o·stride - pad + t·rate, c], zero in
// the padding.
absl::StatusOr<std::vector<ExprPtr>> TranslateExtractImagePatches(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(1));
  DFC_ASSIGN_OR_RETURN(DType d, ctx.InputDType(0));
  if (!DTypeInClass(d, kAll)) {
    return ctx.Error(absl::StrCat("ExtractImagePatches is not defined for dtype ", DTypeName(d)));
  }
  for (const char* required : {"ksizes", "rates"}) {
    if (!ctx.node().attrs.contains(required)) {
      return ctx.Error(absl::StrCat("missing attribute \"", required, "\""));
    }
  }
  DFC_ASSIGN_OR_RETURN(WindowAttrs attrs,
                       ReadWindowAttrs(ctx.node(), {.has_ksize = true,
                                                    .allows_channels_first = false,
                                                    .ksize_attr = "ksizes",
                                                    .dilations_attr = "rates"}));
  const int k = attrs.spatial_rank();
  std::vector<int64_t> taps;
  for (int i = 0; i < k; ++i) taps.push_back(attrs.ksize[attrs.spatial_dim(i)]);
  DFC_ASSIGN_OR_RETURN(WindowedInput in, ReadWindowedInput(ctx, attrs, taps));
  DFC_ASSIGN_OR_RETURN(ExprPtr patches, WindowsOf(in, Zero(d)));
  DFC_ASSIGN_OR_RETURN(patches, MapAtDepth(patches, k + 1, [](ExprPtr w) { return Flatten(w); }));
  return std::vector<ExprPtr>{patches};
}

// A filter gradient's input and out_backprop share the batch (dimension 0 in every format), as
// TensorFlow's shape inference merges it. `shapes` are the data inputs' (input, out_backprop).
bool UnifyFilterGrad(const Node& /*node*/, std::span<const SymbolicShape> shapes,
                     SizeUnifier& unifier) {
  if (shapes.size() != 2 || shapes[0].empty() || shapes[1].empty()) return false;
  return unifier.Unify(shapes[0][0], shapes[1][0]);
}

}  // namespace

void RegisterConvolutionGradTranslations(TranslationTable& table) {
  table.push_back({"Conv2DBackpropInput", {TranslateInputGrad<k2DInput>, {0}}});
  table.push_back({"Conv2DBackpropFilter", {TranslateFilterGrad<k2D>, {1}, UnifyFilterGrad}});
  table.push_back({"DepthwiseConv2dNativeBackpropInput", {TranslateInputGrad<kDepthwise>, {0}}});
  table.push_back({"DepthwiseConv2dNativeBackpropFilter",
                   {TranslateFilterGrad<kDepthwise>, {1}, UnifyFilterGrad}});
  table.push_back({"Conv3DBackpropInputV2", {TranslateInputGrad<k3D>, {0}}});
  table.push_back({"Conv3DBackpropFilterV2", {TranslateFilterGrad<k3D>, {1}, UnifyFilterGrad}});
  table.push_back({"ExtractImagePatches", {TranslateExtractImagePatches, {}}});
}

}  // namespace dfc::ir
