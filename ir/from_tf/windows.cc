// Sliding windows as views: Pad, Slide and Reindex per spatial dimension (windows.h).
#include "ir/from_tf/windows.h"

#include <numeric>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "graph/dtype_class.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir {
namespace {

// f $ x at depth `depth` of t: Map^depth(f) $ t.
absl::StatusOr<ExprPtr> At(const ExprPtr& t, int depth, const FunPtr& f) {
  return MapAtDepth(t, depth, [&](ExprPtr x) { return Call(f, {x}); });
}

std::string Dims(const SymbolicShape& shape) {
  std::vector<std::string> dims;
  for (const ArithExpr& d : shape) dims.push_back(d.ToString());
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

}  // namespace

absl::StatusOr<WindowedInput> ReadWindowedInput(const TranslateContext& ctx,
                                                const WindowAttrs& attrs,
                                                const std::vector<int64_t>& windows) {
  WindowedInput in{.attrs = attrs};
  DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(0));
  const int k = attrs.spatial_rank();
  const SymbolicShape shape = ShapeOfExpr(x);
  if (static_cast<int>(shape.size()) != k + 2) {
    return ctx.Error(absl::StrCat("input must have rank ", k + 2, " (",
                                  DataFormatName(in.attrs.format, k), "), got ", Dims(shape)));
  }
  if (in.attrs.format == DataFormat::kChannelsFirst) {
    std::vector<int> perm = {0};
    for (int d = 0; d < k; ++d) perm.push_back(2 + d);
    perm.push_back(1);
    DFC_ASSIGN_OR_RETURN(x, TransposeTensor(x, perm));
  }
  in.x = x;
  const SymbolicShape nhwc = ShapeOfExpr(x);
  for (int d = 0; d < k; ++d) {
    const std::optional<int64_t> extent = nhwc[1 + d].AsConstant();
    if (!extent) {
      return ctx.Error(absl::StrCat("the spatial dimensions of input ", Dims(shape),
                                    " must be known when the graph is compiled (only the batch "
                                    "may be a size variable)"));
    }
    WindowDim dim = in.attrs.Dim(d, *extent, windows[d]);
    absl::StatusOr<WindowSize> size = ComputeWindow(dim, in.attrs.padding);
    if (!size.ok()) {
      return ctx.Error(absl::StrCat("input ", Dims(shape), ", spatial dimension ", d, ": ",
                                    size.status().message()));
    }
    in.dims.push_back(dim);
    in.sizes.push_back(*size);
  }
  return in;
}

absl::StatusOr<ExprPtr> WindowsOf(const WindowedInput& in, const Scalar& fill) {
  const int k = static_cast<int>(in.dims.size());
  ExprPtr x = in.x;
  // [N][S1]..[Sk][C] -> [N][O1][K1]..[Ok][Kk][C]: dimension d, at depth 1 + 2d, is padded,
  // slid into windows of its effective extent, and thinned to every dilation-th element.
  for (int d = 0; d < k; ++d) {
    const WindowDim& dim = in.dims[d];
    const WindowSize& size = in.sizes[d];
    const int depth = 1 + 2 * d;
    if (size.pad_before != 0 || size.pad_after != 0) {
      DFC_ASSIGN_OR_RETURN(
          x, At(x, depth, Pad(size.pad_before, size.pad_after, PadMode::kConstant, fill)));
    }
    const int64_t effective = (dim.window - 1) * dim.dilation + 1;
    DFC_ASSIGN_OR_RETURN(x, At(x, depth, Slide(effective, dim.stride)));
    if (dim.dilation != 1) {
      DFC_ASSIGN_OR_RETURN(
          x, At(x, depth + 1, Reindex(dim.window, IndexVar() * ArithExpr(dim.dilation))));
    }
  }
  // Outputs first, then taps: N, O1..Ok, K1..Kk, C.
  std::vector<int> perm = {0};
  for (int d = 0; d < k; ++d) perm.push_back(1 + 2 * d);
  for (int d = 0; d < k; ++d) perm.push_back(2 + 2 * d);
  perm.push_back(1 + 2 * k);
  return TransposeTensor(x, perm);
}

absl::StatusOr<ExprPtr> InBoundsCounts(const WindowedInput& in, DType dtype) {
  std::vector<ExprPtr> counts;  // per dimension, [Od]
  for (size_t d = 0; d < in.dims.size(); ++d) {
    const WindowDim& dim = in.dims[d];
    const WindowSize& size = in.sizes[d];
    // Window o covers [o·s - before, o·s - before + span) of the input [0, n), every
    // dilation-th element of it.
    const int64_t s = dim.stride, before = size.pad_before, n = dim.input;
    if (dim.dilation != 1) {
      return absl::UnimplementedError("in-bounds counts of dilated windows");
    }
    const int64_t window = dim.window;
    const std::string body = absl::StrCat("const long start = (long)o * ", s, " - ", before,
                                          ";\n  return (", OpenCLType(dtype), ")(min(start + ",
                                          window, "L, ", n, "L) - max(start, 0L));");
    FunPtr count =
        MakeUserFun(absl::StrCat("window_count_s", s, "_b", before, "_k", window, "_n", n, "_",
                                 DTypeName(dtype)),
                    {"o"}, body, {DType::kInt32}, dtype,
                    [=](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                      const int64_t start = a[0].i * s - before;
                      const int64_t c = std::min(start + window, n) - std::max<int64_t>(start, 0);
                      return IsFloating(dtype) ? Scalar::Float(dtype, static_cast<double>(c))
                                               : Scalar::Int(dtype, c);
                    });
    DFC_ASSIGN_OR_RETURN(ExprPtr indices, Call(Iota(size.output, DType::kInt32), {}));
    DFC_ASSIGN_OR_RETURN(ExprPtr c,
                         MapOver(
                             indices, [&](ExprPtr o) { return Apply(count, {o}); }, "o"));
    counts.push_back(c);
  }
  FunPtr times = MakeUserFun(absl::StrCat("window_count_mul_", DTypeName(dtype)), {"a", "b"},
                             "return a * b;", {dtype, dtype}, dtype,
                             [dtype](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                               return IsFloating(dtype) ? Scalar::Float(dtype, a[0].f * a[1].f)
                                                        : Scalar::Int(dtype, a[0].i * a[1].i);
                             });
  // The outer product of the counts: Map(λa => Map(λb => a·b) $ c2) $ c1, one level a dimension.
  std::function<absl::StatusOr<ExprPtr>(ExprPtr, size_t)> product =
      [&](ExprPtr so_far, size_t d) -> absl::StatusOr<ExprPtr> {
    if (d == counts.size()) return so_far;
    return MapOver(counts[d], [&](ExprPtr c) -> absl::StatusOr<ExprPtr> {
      DFC_ASSIGN_OR_RETURN(ExprPtr p, Apply(times, {so_far, c}));
      return product(p, d + 1);
    });
  };
  return MapOver(counts[0], [&](ExprPtr c) { return product(c, 1); });
}

absl::StatusOr<ExprPtr> ToDataFormat(const ExprPtr& channels_last, const WindowAttrs& attrs) {
  if (attrs.format == DataFormat::kChannelsLast) return channels_last;
  const int k = attrs.spatial_rank();
  std::vector<int> perm = {0, k + 1};
  for (int d = 0; d < k; ++d) perm.push_back(1 + d);
  return TransposeTensor(channels_last, perm);
}

}  // namespace dfc::ir
