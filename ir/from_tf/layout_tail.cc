// Translations of the tail table's data movement (runtime/reference/selection.cc and
// scatter.cc): Roll (a Reindex per rolled dimension: a view), ReverseSequence (each batch
// entry's row read through At at a position computed from its length) and GatherNd (a chain of
// At, one per coordinate of each index tuple). At refuses an index outside [0, limit), so a bad
// index or length is an error at run time, never a read out of bounds.
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "ir/from_tf/layout_internal.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/size_unifier.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir::layout {
namespace {

absl::Status CheckIndexDType(const TranslateContext& ctx, int i, absl::string_view what) {
  DFC_ASSIGN_OR_RETURN(DType d, ctx.InputDType(i));
  if (d == DType::kInt32 || d == DType::kInt64) return absl::OkStatus();
  return ctx.Error(absl::StrCat(what, " must be int32 or int64, got ", DTypeName(d)));
}

// --- Roll ------------------------------------------------------------------------------------

// out[j] = in[(j - total) mod n] along each rolled dimension of size n, the shifts of one axis
// summed. The sizes must be known: the shift is reduced modulo each.
Outputs TranslateRoll(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(3));
  DFC_ASSIGN_OR_RETURN(ExprPtr input, ctx.Input(0));
  const int rank = Rank(input);
  if (rank < 1) return ctx.Error(absl::StrCat("input must be 1-D or higher, got ", DebugType(input)));
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> shift, ConstantIndexVector(ctx, 1, "shift"));
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> axis, ConstantIndexVector(ctx, 2, "axis"));
  const Tensor* shift_tensor = ctx.StaticTensor(1);
  const Tensor* axis_tensor = ctx.StaticTensor(2);
  if (shift_tensor->shape() != axis_tensor->shape()) {
    return ctx.Error(absl::StrCat("shift and axis must have the same size, got ",
                                  shift_tensor->DebugType(), " and ", axis_tensor->DebugType()));
  }
  const SymbolicShape shape = ShapeOfExpr(input);
  std::vector<int64_t> total(rank, 0);
  std::vector<bool> rolled(rank, false);
  for (size_t i = 0; i < axis.size(); ++i) {
    DFC_ASSIGN_OR_RETURN(int d, NormalizeAxis(ctx, axis[i], rank));
    const std::optional<int64_t> n = shape[d].AsConstant();
    if (!n) {
      return ctx.Error(absl::StrCat("rolls dimension ", d, " of ", DebugType(input),
                                    ", whose size must be known when the graph is compiled"));
    }
    if (*n == 0) continue;
    total[d] = (total[d] + (shift[i] % *n + *n) % *n) % *n;
    rolled[d] = true;
  }
  ExprPtr out = input;
  for (int d = 0; d < rank; ++d) {
    if (!rolled[d] || total[d] == 0) continue;
    const ArithExpr n = shape[d];
    DFC_ASSIGN_OR_RETURN(out, ReindexAt(out, d, n, (IndexVar() + (n - total[d])) % n));
  }
  return std::vector<ExprPtr>{out};
}

// --- ReverseSequence -------------------------------------------------------------------------

// The position a row's element p is read from: len - 1 - p within the first len, p after, and
// -1 (refused by At) for a length outside [0, n], which the reference refuses.
FunPtr ReversedPositionFun(DType lengths) {
  UserFun::HostFn host = [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
    const int64_t p = a[0].AsInt64();
    const int64_t len = a[1].AsInt64();
    const int64_t n = a[2].AsInt64();
    const int64_t from = len < 0 || len > n ? -1 : (p < len ? len - 1 - p : p);
    return Scalar::Int(DType::kInt64, from);
  };
  return MakeUserFun(absl::StrCat("reversed_position_", DTypeName(lengths)), {"p", "len", "n"},
                     "return len < 0 || len > n ? -1 : (p < len ? len - 1 - p : p);",
                     {DType::kInt64, lengths, DType::kInt64}, DType::kInt64, std::move(host));
}

// With batch_dim and seq_dim moved to the front (a transpose, a view), each batch entry's
// rows are zipped with its length and read back through At at the reversed positions.
Outputs TranslateReverseSequence(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(2));
  DFC_ASSIGN_OR_RETURN(ExprPtr input, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr lengths, ctx.Input(1));
  DFC_RETURN_IF_ERROR(CheckIndexDType(ctx, 1, "seq_lengths"));
  DFC_ASSIGN_OR_RETURN(int64_t seq_dim, ctx.node().GetInt("seq_dim"));
  DFC_ASSIGN_OR_RETURN(int64_t batch_dim, ctx.node().GetInt("batch_dim", 0));
  const int rank = Rank(input);
  if (seq_dim < 0 || seq_dim >= rank || batch_dim < 0 || batch_dim >= rank ||
      seq_dim == batch_dim) {
    return ctx.Error(absl::StrCat("seq_dim ", seq_dim, " and batch_dim ", batch_dim,
                                  " must be different dimensions in [0, ", rank, ") of ",
                                  DebugType(input)));
  }
  const SymbolicShape shape = ShapeOfExpr(input);
  const SymbolicShape lengths_shape = ShapeOfExpr(lengths);
  if (lengths_shape.size() != 1 || lengths_shape[0] != shape[batch_dim]) {
    return ctx.Error(absl::StrCat("seq_lengths must be a vector of ",
                                  shape[batch_dim].ToString(), " (input's batch_dim size), got ",
                                  DebugType(lengths)));
  }
  std::vector<int> perm = {static_cast<int>(batch_dim), static_cast<int>(seq_dim)};
  for (int d = 0; d < rank; ++d) {
    if (d != batch_dim && d != seq_dim) perm.push_back(d);
  }
  std::vector<int> inverse(rank);
  for (int d = 0; d < rank; ++d) inverse[perm[d]] = d;
  const ArithExpr n = shape[seq_dim];
  const FunPtr position = ReversedPositionFun(BaseDType(lengths->type));
  absl::StatusOr<ExprPtr> out = [&]() -> absl::StatusOr<ExprPtr> {
    DFC_ASSIGN_OR_RETURN(ExprPtr moved, TransposeTensor(input, perm));
    DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {moved, lengths}));
    DFC_ASSIGN_OR_RETURN(
        ExprPtr reversed,
        MapOver(
            pairs,
            [&](ExprPtr pair) -> absl::StatusOr<ExprPtr> {
              DFC_ASSIGN_OR_RETURN(ExprPtr rows, Call1(Get(0), pair));
              DFC_ASSIGN_OR_RETURN(ExprPtr len, Call1(Get(1), pair));
              DFC_ASSIGN_OR_RETURN(ExprPtr positions, Call(Iota(n, DType::kInt64), {}));
              DFC_ASSIGN_OR_RETURN(ExprPtr size, Call(SizeValue(n, DType::kInt64), {}));
              return MapOver(
                  positions,
                  [&](ExprPtr p) -> absl::StatusOr<ExprPtr> {
                    DFC_ASSIGN_OR_RETURN(ExprPtr from, Call(position, {p, len, size}));
                    return Call(At(), {rows, from});
                  },
                  "p");
            },
            "b"));
    return TransposeTensor(reversed, inverse);
  }();
  return One(ctx, std::move(out));
}

// --- GatherNd --------------------------------------------------------------------------------

// out[i...] = params[indices[i..., 0], ..., indices[i..., K-1], ...]: each index tuple read
// coordinate by coordinate, each coordinate an At into what the previous one selected.
Outputs TranslateGatherNd(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(2));
  DFC_RETURN_IF_ERROR(CheckIndexDType(ctx, 1, "indices"));
  DFC_ASSIGN_OR_RETURN(ExprPtr params, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr indices, ctx.Input(1));
  const int rank = Rank(params);
  const int index_rank = Rank(indices);
  if (rank < 1 || index_rank < 1) {
    return ctx.Error(absl::StrCat("params and indices must have rank 1 or more, got ",
                                  DebugType(params), " and ", DebugType(indices)));
  }
  const SymbolicShape index_shape = ShapeOfExpr(indices);
  const std::optional<int64_t> depth = index_shape.back().AsConstant();
  if (!depth) {
    return ctx.Error(absl::StrCat("the last dimension of indices ", DebugType(indices),
                                  " must be known when the graph is compiled"));
  }
  if (*depth > rank) {
    return ctx.Error(absl::StrCat("indices ", DebugType(indices), " have ", *depth,
                                  " coordinates, more than params ", DebugType(params),
                                  " has dimensions"));
  }
  if (*depth > 7) return ctx.Error(absl::StrCat("indices.shape[-1] must be at most 7, got ", *depth));
  // Every tuple is out of range of empty params; the reference refuses any, so it is decided
  // here where the counts are known.
  const SymbolicShape batch(index_shape.begin(), index_shape.end() - 1);
  const std::optional<int64_t> count = NumElements(batch).AsConstant();
  const std::optional<int64_t> size = NumElements(ShapeOfExpr(params)).AsConstant();
  if (count && *count > 0 && size && *size == 0) {
    return ctx.Error(
        absl::StrCat("gathers ", *count, " slices from empty params ", DebugType(params)));
  }
  const auto with_params = [&](ExprPtr p) {
    const auto with_indices = [&](ExprPtr i) {
      return MapAtDepth(i, index_rank - 1, [&](ExprPtr tuple) -> absl::StatusOr<ExprPtr> {
        ExprPtr selected = p;
        for (int64_t k = 0; k < *depth; ++k) {
          DFC_ASSIGN_OR_RETURN(ExprPtr coordinate, Call(At(), {tuple, Lit(DType::kInt64, k)}));
          DFC_ASSIGN_OR_RETURN(selected, Call(At(), {selected, coordinate}));
        }
        return selected;
      });
    };
    return Bind(indices, with_indices, "indices");
  };
  return One(ctx, Bind(params, with_params, "params"));
}

// seq_lengths has one entry per batch entry of the input.
bool UnifyReverseSequence(const Node& node, std::span<const SymbolicShape> shapes,
                          SizeUnifier& unifier) {
  const absl::StatusOr<int64_t> batch_dim = node.GetInt("batch_dim", 0);
  if (!batch_dim.ok() || *batch_dim < 0 || *batch_dim >= static_cast<int64_t>(shapes[0].size()) ||
      shapes[1].size() != 1) {
    return false;  // refused by the translation, with its message
  }
  return unifier.Unify(shapes[0][*batch_dim], shapes[1][0]);
}

}  // namespace

void RegisterTailTranslations(TranslationTable& table) {
  table.push_back({"Roll", Translation{&TranslateRoll, {1, 2}}});
  table.push_back(
      {"ReverseSequence", Translation{&TranslateReverseSequence, {}, &UnifyReverseSequence}});
  table.push_back({"GatherNd", Translation{&TranslateGatherNd, {}}});
}

}  // namespace dfc::ir::layout
