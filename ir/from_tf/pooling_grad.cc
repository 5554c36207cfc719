// Translations of the pool gradients and MaxPoolWithArgmax (OPS.md's nn table): MaxPoolGrad,
// MaxPoolGradV2, AvgPoolGrad and MaxPoolWithArgmax, 2-D as TensorFlow defines them.
//
// A pool's input gradient gathers: input position p sums, over the taps t of the windows that
// hold it (InputWindows, convolution_grad.h: views over the pool's output), what window o gives
// its element at tap t. AvgPoolGrad gives every tap grad[o] / count[o] (count: the window's
// in-bounds taps, windows.h's InBoundsCounts). MaxPoolGrad gives all of grad[o] to the window's
// first maximum and nothing to the other taps:
//
//   Map^3(λ(a, g, i) => Map(λ(a_c, g_c, i_c) =>
//                              Reduce(add, 0) o Map(λ(a, g) => a == i_c ? g : 0) $ Zip(a_c, g_c))
//                          $ Zip(channels a, channels g, i))
//     $ Zip(InputWindows(argmax), InputWindows(grad), positions)
//
// where positions are the input's flat positions (Iota) and argmax is the position of each
// window's first maximum, computed where it is read: windows of windows, K² reads of the input
// per element of the gradient, which is what a small pool costs.
//
// The maximum is TensorFlow's (SpatialMaxPoolWithArgMaxHelper; the reference's WindowArgmax):
// a window's first in-bounds element is taken whatever it is and a later one only when larger,
// so the first of equal maxima wins and NaN, once taken, stays. Padding is never an element:
// the windows of the flat positions read -1 there. MaxPoolWithArgmax folds the same way over
// the windows of its input and of its NHWC positions, giving the maximum and where it is.
//
// Sums are in float for float16 and float32, double for float64, and wrap for integers; the
// reference sums in double and rounds once, which agrees to the conformance tolerance.
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/dtype_class.h"
#include "ir/from_tf/convolution_grad.h"
#include "ir/from_tf/reduction.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"
#include "ir/from_tf/windows.h"

namespace dfc::ir {
namespace {

constexpr int kSpatialRank = 2;  // TensorFlow's pool gradients are 2-D

// float16 is computed in float.
DType PoolGradComputeDType(DType d) { return d == DType::kHalf ? DType::kFloat : d; }

Scalar Zero(DType d) { return IsFloating(d) ? Scalar::Float(d, 0) : Scalar::Int(d, 0); }

// Reads a pool's window attributes. MaxPoolGradV2 takes ksize and strides as int32 inputs
// `window_inputs` and `window_inputs + 1`, known at compile time: they are read as the
// attributes they stand for, as the reference reads them.
absl::StatusOr<WindowAttrs> ReadPoolAttrs(const TranslateContext& ctx, const WindowOpKind& kind,
                                          int window_inputs) {
  if (window_inputs < 0) return ReadWindowAttrs(ctx.node(), kind);
  Node node = ctx.node();
  for (auto [i, name] :
       {std::pair{window_inputs, "ksize"}, std::pair{window_inputs + 1, "strides"}}) {
    DFC_ASSIGN_OR_RETURN(DType d, ctx.InputDType(i));
    if (d != DType::kInt32) {
      return ctx.Error(absl::StrCat(name, " must be int32, got ", DTypeName(d)));
    }
    if (const Tensor* t = ctx.StaticTensor(i); t != nullptr && t->rank() > 1) {
      return ctx.Error(absl::StrCat(name, " must be a scalar or a vector, got ", t->DebugType()));
    }
    DFC_ASSIGN_OR_RETURN(std::vector<int64_t> v, ctx.StaticInts(i));
    AttrList list;
    list.i = std::move(v);
    node.attrs[name] = std::move(list);
  }
  return ReadWindowAttrs(node, kind);
}

std::vector<int64_t> SpatialKsize(const WindowAttrs& attrs) {
  std::vector<int64_t> ksize;
  for (int i = 0; i < attrs.spatial_rank(); ++i) ksize.push_back(attrs.ksize[attrs.spatial_dim(i)]);
  return ksize;
}

// The pool's output shape (data_format order) for an input of shape `x`.
SymbolicShape PoolOutputShape(const WindowAttrs& attrs, SymbolicShape x,
                              const std::vector<WindowSize>& sizes) {
  for (int i = 0; i < attrs.spatial_rank(); ++i) x[attrs.spatial_dim(i)] = sizes[i].output;
  return x;
}

// [N][C][S..] -> [N][S..][C] for channels_first, else `t` itself.
absl::StatusOr<ExprPtr> ChannelsLast(const ExprPtr& t, const WindowAttrs& attrs) {
  if (attrs.format == DataFormat::kChannelsLast) return t;
  std::vector<int> perm = {0};
  for (int d = 0; d < attrs.spatial_rank(); ++d) perm.push_back(2 + d);
  perm.push_back(1);
  return TransposeTensor(t, perm);
}

// The flat NHWC position of each element of an [N][S..][C] tensor, as `dtype`: with the batch
// ((n·H + y)·W + x)·C + c, without (y·W + x)·C + c. Iota, reshaped: views.
absl::StatusOr<ExprPtr> FlatPositions(const SymbolicShape& shape, bool include_batch, DType dtype) {
  if (include_batch) {
    DFC_ASSIGN_OR_RETURN(ExprPtr all, Call(Iota(NumElements(shape), dtype), {}));
    return ReshapeTensor(all, shape);
  }
  const SymbolicShape image(shape.begin() + 1, shape.end());
  DFC_ASSIGN_OR_RETURN(ExprPtr one, Call(Iota(NumElements(image), dtype), {}));
  DFC_ASSIGN_OR_RETURN(one, ReshapeTensor(one, image));
  return Call(Repeat(shape[0]), {one});
}

// The smallest index dtype that numbers the positions of `shape`'s images.
DType PositionDType(const SymbolicShape& shape) {
  const std::optional<int64_t> n =
      NumElements(SymbolicShape(shape.begin() + 1, shape.end())).AsConstant();
  return n && *n <= std::numeric_limits<int32_t>::max() ? DType::kInt32 : DType::kInt64;
}

// The first-maximum fold's test: x at position j (-1: padding) replaces (best, k) when j is in
// bounds and either nothing was taken yet or x is larger.
constexpr char kTakes[] = "(j >= 0 && (k < 0 || x > best))";

bool Takes(const Scalar& best, const Scalar& k, const Scalar& x, const Scalar& j) {
  if (j.i < 0) return false;
  if (k.i < 0) return true;
  if (IsFloating(x.dtype)) return x.f > best.f;
  if (x.dtype == DType::kUInt64) return static_cast<uint64_t>(x.i) > static_cast<uint64_t>(best.i);
  return x.i > best.i;
}

// (best, k) -> best', for values of dtype d computed in v.
FunPtr FirstMaxValueFun(DType v, DType d, DType index) {
  return MakeUserFun(
      absl::StrCat("first_max_value_", DTypeName(v), "_", DTypeName(d), "_", DTypeName(index)),
      {"best", "k", "x", "j"}, absl::StrCat("return ", kTakes, " ? x : best;"),
      {v, index, d, index}, v, [v](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        if (!Takes(a[0], a[1], a[2], a[3])) return a[0];
        return IsFloating(v) ? Scalar::Float(v, a[2].f) : Scalar::Int(v, a[2].i);
      });
}

// (best, k) -> k'.
FunPtr FirstMaxIndexFun(DType v, DType d, DType index) {
  return MakeUserFun(
      absl::StrCat("first_max_index_", DTypeName(v), "_", DTypeName(d), "_", DTypeName(index)),
      {"best", "k", "x", "j"}, absl::StrCat("return ", kTakes, " ? j : k;"), {v, index, d, index},
      index, [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        return Takes(a[0], a[1], a[2], a[3]) ? a[3] : a[1];
      });
}

// Each channel's first maximum in a window: `values` and `positions` [K..][C] (positions -1 in
// the padding) -> [C] of (maximum in the compute type, its position; -1 for a window of
// padding only).
absl::StatusOr<ExprPtr> FirstMaxima(const ExprPtr& values, const ExprPtr& positions, int k) {
  const DType d = BaseDType(values->type);
  const DType v = PoolGradComputeDType(d);
  const DType index = BaseDType(positions->type);
  const FunPtr value_fn = FirstMaxValueFun(v, d, index);
  const FunPtr index_fn = FirstMaxIndexFun(v, d, index);
  DFC_ASSIGN_OR_RETURN(ExprPtr init,
                       Call(Tuple(2), {Lit(v, 0), MakeLiteral(Scalar::Int(index, -1))}));
  DFC_ASSIGN_OR_RETURN(ExprPtr value_lines, ChannelTaps(values, k));
  DFC_ASSIGN_OR_RETURN(ExprPtr position_lines, ChannelTaps(positions, k));
  return ZipAtDepth({value_lines, position_lines}, 1,
                    [&](std::span<const ExprPtr> line) -> absl::StatusOr<ExprPtr> {
                      DFC_ASSIGN_OR_RETURN(ExprPtr taps, Call(Zip(2), {line[0], line[1]}));
                      return ReduceOver(
                          init, taps, [&](ExprPtr acc, ExprPtr tap) -> absl::StatusOr<ExprPtr> {
                            DFC_ASSIGN_OR_RETURN(ExprPtr best, Call(Get(0), {acc}));
                            DFC_ASSIGN_OR_RETURN(ExprPtr at, Call(Get(1), {acc}));
                            DFC_ASSIGN_OR_RETURN(ExprPtr x, Call(Get(0), {tap}));
                            DFC_ASSIGN_OR_RETURN(ExprPtr j, Call(Get(1), {tap}));
                            DFC_ASSIGN_OR_RETURN(ExprPtr best2, Apply(value_fn, {best, at, x, j}));
                            DFC_ASSIGN_OR_RETURN(ExprPtr at2, Apply(index_fn, {best, at, x, j}));
                            return Call(Tuple(2), {best2, at2});
                          });
                    });
}

// The first maxima of every window of `in` ([N][S..][C]) read with `positions`: [N][O..][C]
// of (maximum, position).
absl::StatusOr<ExprPtr> WindowMaxima(const WindowedInput& in, const ExprPtr& positions) {
  const int k = static_cast<int>(in.dims.size());
  const DType d = BaseDType(in.x->type);
  DFC_ASSIGN_OR_RETURN(ExprPtr value_windows, WindowsOf(in, Zero(d)));
  WindowedInput at = in;
  at.x = positions;
  DFC_ASSIGN_OR_RETURN(ExprPtr position_windows,
                       WindowsOf(at, Scalar::Int(BaseDType(positions->type), -1)));
  return ZipAtDepth({value_windows, position_windows}, k + 1,
                    [&](std::span<const ExprPtr> w) { return FirstMaxima(w[0], w[1], k); });
}

// Map(Get(i)) over the elements `depth` levels down, with `then` applied to each.
absl::StatusOr<ExprPtr> Field(const ExprPtr& t, int depth, int i, const FunPtr& then = nullptr) {
  return MapAtDepth(t, depth, [&](ExprPtr pair) -> absl::StatusOr<ExprPtr> {
    DFC_ASSIGN_OR_RETURN(ExprPtr field, Call(Get(i), {pair}));
    if (then == nullptr) return field;
    return Apply(then, {field});
  });
}

// grad at a tap when `position` is the tap's window's maximum there, else 0.
FunPtr PickFun(DType index, DType d) {
  return MakeUserFun(
      absl::StrCat("max_pool_grad_pick_", DTypeName(index), "_", DTypeName(d)),
      {"at", "position", "g"}, absl::StrCat("return at == position ? g : (", OpenCLType(d), ")0;"),
      {index, index, d}, d, [d](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        return a[0].i == a[1].i ? a[2] : Zero(d);
      });
}

// g / n in the compute type: a window's share of its gradient.
FunPtr ShareFun(DType d, DType acc) {
  return MakeUserFun(
      absl::StrCat("avg_pool_grad_share_", DTypeName(d), "_", DTypeName(acc)), {"g", "n"},
      "return g / n;", {d, acc}, acc, [acc](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        if (acc == DType::kDouble) return Scalar::Float(acc, a[0].f / a[1].f);
        return Scalar::Float(acc, static_cast<float>(a[0].f) / static_cast<float>(a[1].f));
      });
}

// Sums a line in `acc` (SumStep: floats in their compute type, integers wrapping) and rounds
// the sum to `d`.
absl::StatusOr<ExprPtr> SumTo(const ExprPtr& line, DType acc, DType d) {
  const DType x = BaseDType(line->type);
  DFC_ASSIGN_OR_RETURN(ExprPtr sum, ReduceOver(Lit(acc, 0), line, [&](ExprPtr a, ExprPtr v) {
                         return Apply(SumStep(acc, x), {a, v});
                       }));
  if (acc == d) return sum;
  return Apply(CastFun(acc, d), {sum});
}

// MaxPoolGrad(orig_input, orig_output, grad) and MaxPoolGradV2(..., ksize, strides).
template <bool kV2>
absl::StatusOr<std::vector<ExprPtr>> TranslateMaxPoolGrad(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(kV2 ? 5 : 3));
  DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr orig_output, ctx.Input(1));
  DFC_ASSIGN_OR_RETURN(ExprPtr grad, ctx.Input(2));
  const DType d = BaseDType(x->type);
  if (!DTypeInClass(d, kNumbers)) {
    return ctx.Error(absl::StrCat(ctx.node().op, " is not defined for dtype ", DTypeName(d),
                                  " (expected a number type)"));
  }
  for (const auto& [t, name] : {std::pair{orig_output, "orig_output"}, std::pair{grad, "grad"}}) {
    if (BaseDType(t->type) != d) {
      return ctx.Error(absl::StrCat(name, " must have orig_input's dtype ", DTypeName(d), ", got ",
                                    DTypeName(BaseDType(t->type))));
    }
  }
  // MaxPoolGradV2, like MaxPoolV2, has no EXPLICIT padding.
  DFC_ASSIGN_OR_RETURN(WindowAttrs attrs, ReadPoolAttrs(ctx,
                                                        {.spatial_rank = kSpatialRank,
                                                         .has_ksize = true,
                                                         .has_dilations = false,
                                                         .allows_explicit = !kV2},
                                                        kV2 ? 3 : -1));
  DFC_ASSIGN_OR_RETURN(WindowedInput in, ReadWindowedInput(ctx, attrs, SpatialKsize(attrs)));
  const SymbolicShape expected = PoolOutputShape(attrs, ShapeOfExpr(x), in.sizes);
  for (const auto& [t, name] : {std::pair{orig_output, "orig_output"}, std::pair{grad, "grad"}}) {
    if (ShapeOfExpr(t) != expected) {
      return ctx.Error(absl::StrCat(name, " must have the pool's output shape ",
                                    ShapeToString(expected), " (from orig_input ",
                                    ShapeToString(ShapeOfExpr(x)), "), got ",
                                    ShapeToString(ShapeOfExpr(t))));
    }
  }
  const int k = kSpatialRank;
  const SymbolicShape shape = ShapeOfExpr(in.x);  // channels last
  const DType index = PositionDType(shape);
  DFC_ASSIGN_OR_RETURN(ExprPtr positions, FlatPositions(shape, false, index));
  // Where each window's maximum is, [N][O..][C]: stored once, since every input position reads
  // the argmax of each of the windows over it, and recomputing it there would search each window
  // once per position it covers.
  DFC_ASSIGN_OR_RETURN(ExprPtr maxima, WindowMaxima(in, positions));
  DFC_ASSIGN_OR_RETURN(ExprPtr argmax, Field(maxima, k + 2, 1));
  DFC_ASSIGN_OR_RETURN(grad, ChannelsLast(grad, attrs));
  const DType acc = PoolGradComputeDType(d);
  const FunPtr pick = PickFun(index, d);
  DFC_ASSIGN_OR_RETURN(
      ExprPtr dx, Let(
                      argmax,
                      [&](ExprPtr stored) -> absl::StatusOr<ExprPtr> {
                        // The windows over each input position, [N][P..][K..][C], and the
                        // positions.
                        DFC_ASSIGN_OR_RETURN(
                            ExprPtr argmax_windows,
                            InputWindows(stored, in.dims, in.sizes, Scalar::Int(index, -1)));
                        DFC_ASSIGN_OR_RETURN(ExprPtr grad_windows,
                                             InputWindows(grad, in.dims, in.sizes, Zero(d)));
                        return ZipAtDepth(
                            {argmax_windows, grad_windows, positions}, k + 1,
                            [&](std::span<const ExprPtr> p) -> absl::StatusOr<ExprPtr> {
                              DFC_ASSIGN_OR_RETURN(ExprPtr argmax_lines, ChannelTaps(p[0], k));
                              DFC_ASSIGN_OR_RETURN(ExprPtr grad_lines, ChannelTaps(p[1], k));
                              return ZipAtDepth(
                                  {argmax_lines, grad_lines, p[2]}, 1,
                                  [&](std::span<const ExprPtr> c) -> absl::StatusOr<ExprPtr> {
                                    DFC_ASSIGN_OR_RETURN(ExprPtr taps, Call(Zip(2), {c[0], c[1]}));
                                    DFC_ASSIGN_OR_RETURN(
                                        ExprPtr picked,
                                        MapOver(
                                            taps,
                                            [&](ExprPtr tap) -> absl::StatusOr<ExprPtr> {
                                              DFC_ASSIGN_OR_RETURN(ExprPtr at, Call(Get(0), {tap}));
                                              DFC_ASSIGN_OR_RETURN(ExprPtr g, Call(Get(1), {tap}));
                                              return Apply(pick, {at, c[2], g});
                                            },
                                            "tap"));
                                    return SumTo(picked, acc, d);
                                  });
                            });
                      },
                      "argmax"));
  DFC_ASSIGN_OR_RETURN(dx, ToDataFormat(dx, attrs));
  return std::vector<ExprPtr>{dx};
}

// AvgPoolGrad(orig_input_shape, grad).
absl::StatusOr<std::vector<ExprPtr>> TranslateAvgPoolGrad(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(2));
  DFC_ASSIGN_OR_RETURN(DType shape_dtype, ctx.InputDType(0));
  if (shape_dtype != DType::kInt32) {
    return ctx.Error(absl::StrCat("orig_input_shape must be int32, got ", DTypeName(shape_dtype)));
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr grad, ctx.Input(1));
  const DType d = BaseDType(grad->type);
  if (!IsFloating(d)) {
    return ctx.Error(absl::StrCat("AvgPoolGrad is not defined for dtype ", DTypeName(d),
                                  " (expected float16, float32 or float64)"));
  }
  DFC_ASSIGN_OR_RETURN(WindowAttrs attrs, ReadWindowAttrs(ctx.node(), {.spatial_rank = kSpatialRank,
                                                                       .has_ksize = true,
                                                                       .has_dilations = false}));
  if (const Tensor* t = ctx.StaticTensor(0); t != nullptr && t->rank() != 1) {
    return ctx.Error(absl::StrCat("orig_input_shape must be a vector, got ", t->DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(SymbolicShape shape, ctx.SymbolicInts(0));
  for (const ArithExpr& s : shape) {
    if (s.AsConstant().value_or(0) < 0) {
      return ctx.Error(
          absl::StrCat("orig_input_shape ", ShapeToString(shape), " has a negative dimension"));
    }
  }
  const int k = kSpatialRank;
  if (static_cast<int>(shape.size()) != k + 2) {
    return ctx.Error(absl::StrCat("orig_input_shape must have rank ", k + 2, " (",
                                  DataFormatName(attrs.format, k), "), got shape ",
                                  ShapeToString(shape)));
  }
  // The windows' geometry, as over an input of that shape.
  WindowedInput in{.attrs = attrs};
  const std::vector<int64_t> ksize = SpatialKsize(attrs);
  for (int i = 0; i < k; ++i) {
    const std::optional<int64_t> extent = shape[attrs.spatial_dim(i)].AsConstant();
    if (!extent) {
      return ctx.Error(absl::StrCat("the spatial dimensions of orig_input_shape ",
                                    ShapeToString(shape),
                                    " must be known when the graph is compiled"));
    }
    const WindowDim dim = attrs.Dim(i, *extent, ksize[i]);
    absl::StatusOr<WindowSize> size = ComputeWindow(dim, attrs.padding);
    if (!size.ok()) {
      return ctx.Error(absl::StrCat("orig_input_shape ", ShapeToString(shape),
                                    ", spatial dimension ", i, ": ", size.status().message()));
    }
    in.dims.push_back(dim);
    in.sizes.push_back(*size);
  }
  // A batch that is a size variable on one side is trusted to be the other's: a constant
  // orig_input_shape serves a symbolic batch. The gradient has grad's batch.
  const SymbolicShape grad_shape = ShapeOfExpr(grad);
  SymbolicShape expected = PoolOutputShape(attrs, shape, in.sizes);
  if (grad_shape.size() == expected.size() &&
      (!grad_shape[0].is_constant() || !expected[0].is_constant())) {
    expected[0] = grad_shape[0];
  }
  if (grad_shape != expected) {
    return ctx.Error(absl::StrCat("grad must have the pool's output shape ",
                                  ShapeToString(expected), " (from orig_input_shape ",
                                  ShapeToString(shape), "), got ", ShapeToString(grad_shape)));
  }
  const DType acc = PoolGradComputeDType(d);
  // Each window's share of its gradient, grad[o] / count[o], computed where it is read.
  DFC_ASSIGN_OR_RETURN(ExprPtr counts, InBoundsCounts(in, acc));  // [O..]
  DFC_ASSIGN_OR_RETURN(grad, ChannelsLast(grad, attrs));
  const FunPtr share = ShareFun(d, acc);
  DFC_ASSIGN_OR_RETURN(ExprPtr shares, MapOver(grad, [&](ExprPtr image) {
                         return ZipAtDepth({image, counts}, k, [&](std::span<const ExprPtr> p) {
                           return MapOver(
                               p[0],
                               [&](ExprPtr g) {
                                 return Apply(share, {g, p[1]});
                               },
                               "g");
                         });
                       }));
  DFC_ASSIGN_OR_RETURN(ExprPtr windows, InputWindows(shares, in.dims, in.sizes, Zero(acc)));
  DFC_ASSIGN_OR_RETURN(ExprPtr dx,
                       MapAtDepth(windows, k + 1, [&](ExprPtr w) -> absl::StatusOr<ExprPtr> {
                         DFC_ASSIGN_OR_RETURN(ExprPtr lines, ChannelTaps(w, k));
                         return MapOver(lines, [&](ExprPtr line) { return SumTo(line, acc, d); });
                       }));
  DFC_ASSIGN_OR_RETURN(dx, ToDataFormat(dx, attrs));
  return std::vector<ExprPtr>{dx};
}

// MaxPoolWithArgmax(input) -> (output, argmax), NHWC only.
absl::StatusOr<std::vector<ExprPtr>> TranslateMaxPoolWithArgmax(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(1));
  DFC_ASSIGN_OR_RETURN(DType d, ctx.InputDType(0));
  if (!DTypeInClass(d, kNumbers)) {
    return ctx.Error(absl::StrCat("MaxPoolWithArgmax is not defined for dtype ", DTypeName(d),
                                  " (expected a number type)"));
  }
  DFC_ASSIGN_OR_RETURN(WindowAttrs attrs,
                       ReadWindowAttrs(ctx.node(), {.spatial_rank = kSpatialRank,
                                                    .has_ksize = true,
                                                    .has_dilations = false,
                                                    .allows_channels_first = false}));
  DFC_ASSIGN_OR_RETURN(DType targmax, ctx.node().GetType("Targmax", DType::kInt64));
  if (targmax != DType::kInt32 && targmax != DType::kInt64) {
    return ctx.Error(absl::StrCat("Targmax must be int32 or int64, got ", DTypeName(targmax)));
  }
  DFC_ASSIGN_OR_RETURN(bool include_batch, ctx.node().GetBool("include_batch_in_index", false));
  DFC_ASSIGN_OR_RETURN(WindowedInput in, ReadWindowedInput(ctx, attrs, SpatialKsize(attrs)));
  const int k = kSpatialRank;
  DFC_ASSIGN_OR_RETURN(ExprPtr positions, FlatPositions(ShapeOfExpr(in.x), include_batch, targmax));
  // Each output is its own fold of the windows (two expressions, one per output).
  DFC_ASSIGN_OR_RETURN(ExprPtr maxima, WindowMaxima(in, positions));
  const DType v = PoolGradComputeDType(d);
  DFC_ASSIGN_OR_RETURN(ExprPtr output, Field(maxima, k + 2, 0, v == d ? nullptr : CastFun(v, d)));
  DFC_ASSIGN_OR_RETURN(maxima, WindowMaxima(in, positions));
  DFC_ASSIGN_OR_RETURN(ExprPtr argmax, Field(maxima, k + 2, 1));
  return std::vector<ExprPtr>{output, argmax};
}

// MaxPoolGrad's three tensors share the batch, as TensorFlow's shape inference merges it.
// `shapes` are the data inputs' (orig_input, orig_output, grad; not V2's ksize and strides).
bool UnifyMaxPoolGrad(const Node& /*node*/, std::span<const SymbolicShape> shapes,
                      SizeUnifier& unifier) {
  if (shapes.size() != 3) return false;
  bool changed = false;
  for (int i : {1, 2}) {
    if (!shapes[0].empty() && !shapes[i].empty()) {
      changed |= unifier.Unify(shapes[0][0], shapes[i][0]);
    }
  }
  return changed;
}

}  // namespace

void RegisterPoolingGradTranslations(TranslationTable& table) {
  table.push_back({"MaxPoolGrad", {TranslateMaxPoolGrad<false>, {}, UnifyMaxPoolGrad}});
  table.push_back({"MaxPoolGradV2", {TranslateMaxPoolGrad<true>, {3, 4}, UnifyMaxPoolGrad}});
  table.push_back({"AvgPoolGrad", {TranslateAvgPoolGrad, {0}}});
  table.push_back({"MaxPoolWithArgmax", {TranslateMaxPoolWithArgmax, {}}});
}

}  // namespace dfc::ir
