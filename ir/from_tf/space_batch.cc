// Translations of the ops that move blocks of space into the batch or the depth dimension and
// back (runtime/reference/space_batch.cc): SpaceToBatchND, BatchToSpaceND, SpaceToBatch,
// BatchToSpace, DepthToSpace and SpaceToDepth. They only move elements, so each is a view:
//
//   SpaceToBatchND: Join^M o Transpose o Map^(1+i)(Split(b_i)) o Map^(1+i)(Pad(before_i, after_i))
//   BatchToSpaceND: Map^(1+i)(crop) o Map^(1+i)(Join) o Transpose o Split(b..) o Split(batch)
//
// the batch tensor's index being (k, n) with the block offset k (row-major over the block) the
// outer part, as TensorFlow orders it. DepthToSpace and SpaceToDepth are the same split,
// transpose and join with the block's two offsets moved into the depth instead of the batch.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "graph/dtype_class.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir {
namespace {

using Outputs = absl::StatusOr<std::vector<ExprPtr>>;

// Map^depth(f) $ t.
absl::StatusOr<ExprPtr> ApplyAt(const ExprPtr& t, int depth, const FunPtr& f) {
  return MapAtDepth(t, depth, [&](ExprPtr x) { return Call(f, {x}); });
}

// "float32[2,N,3]", as Tensor::DebugType writes a tensor.
std::string DebugType(const ExprPtr& t) {
  return absl::StrCat(DTypeName(BaseDType(t->type)), ShapeToString(ShapeOfExpr(t)));
}

// A zero of x's dtype, what SpaceToBatchND pads with.
Scalar Zero(const ExprPtr& x) {
  const DType d = BaseDType(x->type);
  return IsFloating(d) ? Scalar::Float(d, 0) : Scalar::Int(d, 0);
}

absl::Status CheckClass(const TranslateContext& ctx, const ExprPtr& x, unsigned classes) {
  const DType d = BaseDType(x->type);
  if (DTypeInClass(d, classes)) return absl::OkStatus();
  return ctx.Error(absl::StrCat(ctx.node().op, " is not defined for dtype ", DTypeName(d),
                                classes == kNumbers ? " (expected a number type)" : ""));
}

// The block size attribute of the v1 ops and of DepthToSpace/SpaceToDepth: more than 1, and an
// int32 as TensorFlow's attribute is (which keeps b * b and the scaled sides from overflowing).
absl::StatusOr<int64_t> ReadBlockSize(const TranslateContext& ctx) {
  DFC_ASSIGN_OR_RETURN(int64_t b, ctx.node().GetInt("block_size"));
  if (b < 2 || b > std::numeric_limits<int32_t>::max()) {
    return ctx.Error(absl::StrCat("block_size must be > 1 and fit int32, got ", b));
  }
  return b;
}

// --- SpaceToBatchND / BatchToSpaceND --------------------------------------------------------

// M block dimensions after the batch, each with its block size and the amount padded (or
// cropped) before and after it.
struct BlockGeometry {
  std::vector<int64_t> block;
  std::vector<int64_t> before;
  std::vector<int64_t> after;
  int64_t block_count = 1;  // the product of `block`
};

// Reads block_shape (input `block_input`, a vector of M; -1 for the v1 ops, whose block is
// `block_size` in both dimensions) and the [M, 2] paddings or crops, with the reference's checks.
absl::StatusOr<BlockGeometry> ReadBlockGeometry(const TranslateContext& ctx, const ExprPtr& x,
                                                int block_input, int64_t block_size,
                                                int amounts_input, const char* amounts_name) {
  BlockGeometry g;
  if (block_input >= 0) {
    DFC_ASSIGN_OR_RETURN(DType dtype, ctx.InputDType(block_input));
    DFC_ASSIGN_OR_RETURN(SymbolicShape shape, ctx.InputShape(block_input));
    if (shape.size() != 1 || (dtype != DType::kInt32 && dtype != DType::kInt64)) {
      return ctx.Error(absl::StrCat("block_shape must be an int32 or int64 vector, got ",
                                    DTypeName(dtype), ShapeToString(shape)));
    }
    DFC_ASSIGN_OR_RETURN(g.block, ctx.StaticInts(block_input));
  } else {
    g.block = {block_size, block_size};
  }
  const int m = static_cast<int>(g.block.size());
  if (Rank(x) < 1 + m) {
    return ctx.Error(absl::StrCat("input must have rank >= ", 1 + m, " (a batch dimension and ", m,
                                  " block dimensions), got ", DebugType(x)));
  }
  DFC_ASSIGN_OR_RETURN(DType amounts_dtype, ctx.InputDType(amounts_input));
  DFC_ASSIGN_OR_RETURN(SymbolicShape amounts_shape, ctx.InputShape(amounts_input));
  if ((amounts_dtype != DType::kInt32 && amounts_dtype != DType::kInt64) ||
      amounts_shape != ToSymbolic({m, 2})) {
    return ctx.Error(absl::StrCat(amounts_name, " must be an int32 or int64 matrix [", m,
                                  ", 2], got ", DTypeName(amounts_dtype),
                                  ShapeToString(amounts_shape)));
  }
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> amounts, ctx.StaticInts(amounts_input));
  for (int i = 0; i < m; ++i) {
    if (g.block[i] < 1) {
      return ctx.Error(
          absl::StrCat("block_shape must be positive, got [", absl::StrJoin(g.block, ","), "]"));
    }
    if (__builtin_mul_overflow(g.block_count, g.block[i], &g.block_count)) {
      return ctx.Error(absl::StrCat("the product of block_shape [", absl::StrJoin(g.block, ","),
                                    "] overflows int64"));
    }
    g.before.push_back(amounts[2 * i]);
    g.after.push_back(amounts[2 * i + 1]);
    if (g.before[i] < 0 || g.after[i] < 0) {
      return ctx.Error(absl::StrCat(amounts_name, " must be non-negative, got [",
                                    absl::StrJoin(amounts, ","), "]"));
    }
  }
  return g;
}

// The extent of block dimension i (tensor dimension 1 + i), which must be a constant.
absl::StatusOr<int64_t> BlockDimExtent(const TranslateContext& ctx, const ExprPtr& x, int i) {
  const std::optional<int64_t> extent = ShapeOfExpr(x)[1 + i].AsConstant();
  if (!extent) {
    return ctx.Error(absl::StrCat("dimension ", 1 + i, " of input ", DebugType(x),
                                  " must be known when the graph is compiled (only the batch "
                                  "may be a size variable)"));
  }
  return *extent;
}

// [B][s1]..[sM][rest] -> [bc·B][t1]..[tM][rest]: each block dimension padded and split into
// (t_i, k_i), the offsets k_1..k_M moved to the front and joined with the batch, k outermost.
absl::StatusOr<ExprPtr> SpaceToBatchOf(const TranslateContext& ctx, ExprPtr x,
                                       const BlockGeometry& g) {
  const int m = static_cast<int>(g.block.size());
  const int rank = Rank(x);
  if (const std::optional<int64_t> batch = ShapeOfExpr(x)[0].AsConstant()) {
    int64_t out_batch = 0;
    if (__builtin_mul_overflow(*batch, g.block_count, &out_batch)) {
      return ctx.Error(
          absl::StrCat("output batch ", *batch, " * ", g.block_count, " overflows int64"));
    }
  }
  for (int i = 0; i < m; ++i) {
    DFC_ASSIGN_OR_RETURN(int64_t extent, BlockDimExtent(ctx, x, i));
    int64_t padded = 0;
    if (__builtin_add_overflow(extent, g.before[i], &padded) ||
        __builtin_add_overflow(padded, g.after[i], &padded)) {
      return ctx.Error(absl::StrCat("padded size of dimension ", 1 + i, " overflows int64"));
    }
    if (padded % g.block[i] != 0) {
      return ctx.Error(absl::StrCat("padded size of dimension ", 1 + i, " (", extent, " + ",
                                    g.before[i], " + ", g.after[i], " = ", padded,
                                    ") is not divisible by its block size ", g.block[i]));
    }
  }
  const Scalar zero = Zero(x);
  // [B][s1][s2].. -> [B][t1][k1][t2][k2]..: dimension i is at depth 1 + 2i once the earlier
  // ones are split.
  for (int i = 0; i < m; ++i) {
    const int depth = 1 + 2 * i;
    if (g.before[i] != 0 || g.after[i] != 0) {
      DFC_ASSIGN_OR_RETURN(
          x, ApplyAt(x, depth, Pad(g.before[i], g.after[i], PadMode::kConstant, zero)));
    }
    DFC_ASSIGN_OR_RETURN(x, ApplyAt(x, depth, Split(g.block[i])));
  }
  // -> [k1]..[kM][B][t1]..[tM][rest]
  std::vector<int> perm;
  for (int i = 0; i < m; ++i) perm.push_back(2 + 2 * i);
  perm.push_back(0);
  for (int i = 0; i < m; ++i) perm.push_back(1 + 2 * i);
  for (int d = 1 + m; d < rank; ++d) perm.push_back(m + d);
  DFC_ASSIGN_OR_RETURN(x, TransposeTensor(x, perm));
  // k_1..k_M and the batch joined, k_1 outermost: index k·B + n.
  for (int i = 0; i < m; ++i) {
    DFC_ASSIGN_OR_RETURN(x, Call(Join(), {x}));
  }
  return x;
}

// [bc·B][t1]..[tM][rest] -> [B][s1]..[sM][rest], SpaceToBatchOf's inverse with crops for pads.
absl::StatusOr<ExprPtr> BatchToSpaceOf(const TranslateContext& ctx, ExprPtr x,
                                       const BlockGeometry& g) {
  const int m = static_cast<int>(g.block.size());
  const int rank = Rank(x);
  const ArithExpr batch = ShapeOfExpr(x)[0];
  const ArithExpr count(g.block_count);
  if (batch % count != ArithExpr(0)) {
    if (batch.AsConstant()) {
      return ctx.Error(absl::StrCat("input batch ", batch.ToString(),
                                    " is not divisible by the product of the block sizes ",
                                    g.block_count));
    }
    return ctx.Error(absl::StrCat("input batch ", batch.ToString(),
                                  " must be known to be a multiple of the product of the block "
                                  "sizes ",
                                  g.block_count, " when the graph is compiled"));
  }
  std::vector<int64_t> uncropped(m);
  for (int i = 0; i < m; ++i) {
    DFC_ASSIGN_OR_RETURN(int64_t extent, BlockDimExtent(ctx, x, i));
    if (__builtin_mul_overflow(extent, g.block[i], &uncropped[i])) {
      return ctx.Error(absl::StrCat("size of dimension ", 1 + i, " times its block size ",
                                    g.block[i], " overflows int64"));
    }
    if (uncropped[i] - g.before[i] - g.after[i] < 0) {
      return ctx.Error(absl::StrCat("crops of dimension ", 1 + i, " (", g.before[i], " + ",
                                    g.after[i], ") exceed its size ", extent, " * ", g.block[i]));
    }
  }
  if (m == 0) return x;
  // [bc·B] -> [bc][B] -> [k1][k2·..·kM][B] -> .. -> [k1]..[kM][B]. An empty batch cannot be
  // split into chunks of 0: it is padded to one chunk a block offset, and emptied at the end.
  const ArithExpr out_batch = batch / count;
  const bool empty = out_batch == ArithExpr(0);
  if (empty) {
    DFC_ASSIGN_OR_RETURN(x, Call(Pad(0, count, PadMode::kConstant, Zero(x)), {x}));
  }
  DFC_ASSIGN_OR_RETURN(x, Call(Split(empty ? ArithExpr(1) : out_batch), {x}));
  int64_t inner = g.block_count;
  for (int i = 0; i + 1 < m; ++i) {
    inner /= g.block[i];
    DFC_ASSIGN_OR_RETURN(x, ApplyAt(x, i, Split(inner)));
  }
  // -> [B][t1][k1]..[tM][kM][rest]
  std::vector<int> perm = {m};
  for (int i = 0; i < m; ++i) {
    perm.push_back(m + 1 + i);
    perm.push_back(i);
  }
  for (int d = 1 + m; d < rank; ++d) perm.push_back(m + d);
  DFC_ASSIGN_OR_RETURN(x, TransposeTensor(x, perm));
  for (int i = 0; i < m; ++i) {
    const int depth = 1 + i;  // (t_i, k_i) is there once the earlier pairs are joined
    DFC_ASSIGN_OR_RETURN(x, ApplyAt(x, depth, Join()));
    if (g.before[i] != 0 || g.after[i] != 0) {
      const int64_t length = uncropped[i] - g.before[i] - g.after[i];
      DFC_ASSIGN_OR_RETURN(x,
                           ApplyAt(x, depth, Reindex(length, IndexVar() + ArithExpr(g.before[i]))));
    }
  }
  if (empty) {
    DFC_ASSIGN_OR_RETURN(x, Call(Reindex(0, IndexVar()), {x}));
  }
  return x;
}

// SpaceToBatchND(input, block_shape, paddings), or SpaceToBatch(input, paddings) with the
// block_size attribute when `v1`; BatchToSpace likewise with crops.
template <bool to_batch, bool v1>
Outputs TranslateSpaceBatch(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(v1 ? 2 : 3));
  DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(0));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, x, kNumbers));
  int64_t block_size = 0;
  if constexpr (v1) {
    DFC_ASSIGN_OR_RETURN(block_size, ctx.node().GetInt("block_size"));
    if (block_size < 2) {
      return ctx.Error(absl::StrCat("block_size must be > 1, got ", block_size));
    }
    if (Rank(x) != 4) {
      return ctx.Error(absl::StrCat("input must have rank 4, got ", DebugType(x)));
    }
  }
  DFC_ASSIGN_OR_RETURN(BlockGeometry g,
                       ReadBlockGeometry(ctx, x, v1 ? -1 : 1, block_size, v1 ? 1 : 2,
                                         to_batch ? "paddings" : "crops"));
  absl::StatusOr<ExprPtr> out = to_batch ? SpaceToBatchOf(ctx, x, g) : BatchToSpaceOf(ctx, x, g);
  if (!out.ok()) return ctx.node().Annotate(out.status());
  return std::vector<ExprPtr>{*std::move(out)};
}

// --- DepthToSpace / SpaceToDepth ------------------------------------------------------------

// With b the block size and D the depth of the shallow side, in NHWC terms:
//   deep[n, y, x, (i·b + j)·D + d] = shallow[n, y·b + i, x·b + j, d].
// SpaceToDepth splits the rows and columns into (y, i) and (x, j) and joins (i, j, d); DepthToSpace
// splits the depth into (i, j, d) and joins (y, i) and (x, j). NCHW is read through a transpose.
template <bool to_space>
Outputs TranslateDepthSpace(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(1));
  DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(0));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, x, kAll));
  DFC_ASSIGN_OR_RETURN(const int64_t b, ReadBlockSize(ctx));
  const absl::StatusOr<std::string> format = ctx.node().GetString("data_format", "NHWC");
  if (!format.ok()) return format.status();
  if (*format != "NHWC" && *format != "NCHW") {
    return ctx.Error(
        absl::StrCat("data_format \"", *format, "\" is not supported (expected NHWC or NCHW)"));
  }
  if (Rank(x) != 4) {
    return ctx.Error(absl::StrCat("input must have rank 4, got ", DebugType(x)));
  }
  const bool nchw = *format == "NCHW";
  if (nchw) {
    DFC_ASSIGN_OR_RETURN(x, TransposeTensor(x, std::vector<int>{0, 2, 3, 1}));
  }
  const SymbolicShape shape = ShapeOfExpr(x);  // NHWC
  const ArithExpr block(b);
  // Whether `size` is a multiple of `factor`: an error when it is not, or cannot be known.
  const auto divisible = [&](const ArithExpr& size, const ArithExpr& factor,
                             absl::string_view what) -> absl::Status {
    if (size % factor == ArithExpr(0)) return absl::OkStatus();
    if (size.AsConstant()) {
      return ctx.Error(absl::StrCat("input ", what, " ", size.ToString(), " is not divisible by ",
                                    factor.ToString(), " (block_size ", b, ")"));
    }
    return ctx.Error(absl::StrCat("input ", what, " ", size.ToString(),
                                  " must be known to be divisible by ", factor.ToString(),
                                  " (block_size ", b, ") when the graph is compiled"));
  };
  if constexpr (to_space) {
    DFC_RETURN_IF_ERROR(divisible(shape[3], block * block, "depth"));
    for (int d : {1, 2}) {
      if (std::optional<int64_t> side = shape[d].AsConstant()) {
        int64_t scaled = 0;
        if (__builtin_mul_overflow(*side, b, &scaled)) {
          return ctx.Error(absl::StrCat("output height or width overflows int64 for ", DebugType(x),
                                        " and block_size ", b));
        }
      }
    }
    const ArithExpr depth = shape[3] / (block * block);
    if (depth == ArithExpr(0)) {
      // Nothing to move, and no chunks of 0 to split the depth into: each pixel (an empty
      // array) repeated over its block.
      DFC_ASSIGN_OR_RETURN(x, ApplyAt(x, 1, Reindex(shape[1] * block, IndexVar() / block)));
      DFC_ASSIGN_OR_RETURN(x, ApplyAt(x, 2, Reindex(shape[2] * block, IndexVar() / block)));
    } else {
      // [N][Y][X][b·b·D] -> [N][Y][X][b][b][D] -> [N][Y][b][X][b][D] -> [N][Y·b][X·b][D]
      DFC_ASSIGN_OR_RETURN(x, ApplyAt(x, 3, Split(depth)));
      DFC_ASSIGN_OR_RETURN(x, ApplyAt(x, 3, Split(block)));
      DFC_ASSIGN_OR_RETURN(x, TransposeTensor(x, std::vector<int>{0, 1, 3, 2, 4, 5}));
      DFC_ASSIGN_OR_RETURN(x, ApplyAt(x, 1, Join()));
      DFC_ASSIGN_OR_RETURN(x, ApplyAt(x, 2, Join()));
    }
  } else {
    DFC_RETURN_IF_ERROR(divisible(shape[1], block, "height"));
    DFC_RETURN_IF_ERROR(divisible(shape[2], block, "width"));
    if (std::optional<int64_t> depth = shape[3].AsConstant()) {
      int64_t scaled = 0;
      if (__builtin_mul_overflow(*depth, b * b, &scaled)) {
        return ctx.Error(
            absl::StrCat("output depth overflows int64 for ", DebugType(x), " and block_size ", b));
      }
    }
    // [N][Y·b][X·b][D] -> [N][Y][b][X][b][D] -> [N][Y][X][b][b][D] -> [N][Y][X][b·b·D]
    DFC_ASSIGN_OR_RETURN(x, ApplyAt(x, 1, Split(block)));
    DFC_ASSIGN_OR_RETURN(x, ApplyAt(x, 3, Split(block)));
    DFC_ASSIGN_OR_RETURN(x, TransposeTensor(x, std::vector<int>{0, 1, 3, 2, 4, 5}));
    DFC_ASSIGN_OR_RETURN(x, ApplyAt(x, 3, Join()));
    DFC_ASSIGN_OR_RETURN(x, ApplyAt(x, 3, Join()));
  }
  if (nchw) {
    DFC_ASSIGN_OR_RETURN(x, TransposeTensor(x, std::vector<int>{0, 3, 1, 2}));
  }
  return std::vector<ExprPtr>{x};
}

}  // namespace

void RegisterSpaceBatchTranslations(TranslationTable& table) {
  table.push_back({"SpaceToBatchND", {TranslateSpaceBatch<true, false>, {1, 2}}});
  table.push_back({"BatchToSpaceND", {TranslateSpaceBatch<false, false>, {1, 2}}});
  table.push_back({"SpaceToBatch", {TranslateSpaceBatch<true, true>, {1}}});
  table.push_back({"BatchToSpace", {TranslateSpaceBatch<false, true>, {1}}});
  table.push_back({"DepthToSpace", {TranslateDepthSpace<true>, {}}});
  table.push_back({"SpaceToDepth", {TranslateDepthSpace<false>, {}}});
}

}  // namespace dfc::ir
