// Translations of the reductions along one axis (runtime/reference/scan.cc): the arg-reductions
// ArgMax and ArgMin, a ReduceDims of (value, index) pairs, and the scans Cumsum and Cumprod, each
// output a fold of the elements up to it. Registered by RegisterReductionTranslations
// (reduction.cc).
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "graph/dtype_class.h"
#include "ir/expr.h"
#include "ir/from_tf/reduction_internal.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir::reduction {
namespace {

// The single element of input `i`, read as IndexVector reads it.
absl::StatusOr<int64_t> IndexScalar(const TranslateContext& ctx, int i, absl::string_view what) {
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> v, IndexVector(ctx, i, what));
  if (v.size() != 1) {
    return ctx.Error(absl::StrCat(what, " must have one element, got ", v.size()));
  }
  return v[0];
}

// --- ArgMax ArgMin -----------------------------------------------------------------------------

// The value an arg-reduction starts from: the storage type's lowest (highest) value, +-65504
// for float16, kept in the compute type.
ExprPtr ArgStart(bool is_max, DType d) {
  switch (d) {
    case DType::kHalf:
      return Lit(DType::kFloat, is_max ? -65504.0 : 65504.0);
    case DType::kFloat:
      return Lit(d,
                 is_max ? std::numeric_limits<float>::lowest() : std::numeric_limits<float>::max());
    case DType::kDouble:
      return Lit(
          d, is_max ? std::numeric_limits<double>::lowest() : std::numeric_limits<double>::max());
    default:
      return MakeLiteral(IntLimit(d, !is_max));
  }
}

// The arg-reduction step on the (best, index) accumulator: x at j replaces best only when
// strictly better, so ties keep the first index and NaN never wins (Eigen's ArgMaxPairReducer).
FunPtr ArgBestFun(bool is_max, DType v, DType d) {
  return MakeUserFun(
      absl::StrCat(is_max ? "argmax_value_" : "argmin_value_", DTypeName(v), "_", DTypeName(d)),
      {"best", "x"}, absl::StrCat("return x ", is_max ? ">" : "<", " best ? x : best;"), {v, d}, v,
      [is_max, v](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        if (!Beats(a[1], a[0], is_max)) return a[0];
        return IsFloating(v) ? Scalar::Float(v, a[1].f) : Scalar::Int(v, a[1].i);
      });
}

FunPtr ArgIndexFun(bool is_max, DType v, DType d, DType index) {
  return MakeUserFun(
      absl::StrCat(is_max ? "argmax_index_" : "argmin_index_", DTypeName(v), "_", DTypeName(d), "_",
                   DTypeName(index)),
      {"best", "k", "x", "j"}, absl::StrCat("return x ", is_max ? ">" : "<", " best ? j : k;"),
      {v, index, d, index}, index, [is_max](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        return Beats(a[2], a[0], is_max) ? a[3] : a[1];
      });
}

template <bool is_max>
absl::StatusOr<std::vector<ExprPtr>> TranslateArg(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(2));
  DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(0));
  const DType d = BaseDType(x->type);
  DFC_RETURN_IF_ERROR(
      CheckDType(ctx, d, IsNumeric(d) || d == DType::kBool, "a number type or bool"));
  DFC_ASSIGN_OR_RETURN(DType index, ctx.node().GetType("output_type", DType::kInt64));
  if (index != DType::kInt32 && index != DType::kInt64) {
    return ctx.Error(absl::StrCat("output_type must be int32 or int64, got ", DTypeName(index)));
  }
  DFC_ASSIGN_OR_RETURN(int64_t dimension, IndexScalar(ctx, 1, "dimension"));
  const int rank = Rank(x);
  DFC_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, dimension, rank));
  const ArithExpr n = ShapeOfExpr(x)[axis];
  if (n == ArithExpr(0)) {
    return ctx.Error(absl::StrCat("cannot take the arg", is_max ? "max" : "min",
                                  " of an empty axis: dimension ", axis, " has size 0"));
  }
  const DType v = d == DType::kHalf ? DType::kFloat : d;
  FunPtr best_fn = ArgBestFun(is_max, v, d);
  FunPtr index_fn = ArgIndexFun(is_max, v, d, index);
  DFC_ASSIGN_OR_RETURN(ExprPtr init,
                       Call(Tuple(2), {ArgStart(is_max, d), MakeLiteral(Scalar::Int(index, 0))}));
  std::vector<bool> reduced(rank, false);
  reduced[axis] = true;
  auto line_fn = [&](ExprPtr line, const ArithExpr& len) -> absl::StatusOr<ExprPtr> {
    DFC_ASSIGN_OR_RETURN(ExprPtr iota, Call(Iota(len, index), {}));
    DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {line, iota}));
    DFC_ASSIGN_OR_RETURN(
        ExprPtr acc, ReduceOver(init, pairs, [&](ExprPtr a, ExprPtr p) -> absl::StatusOr<ExprPtr> {
          DFC_ASSIGN_OR_RETURN(ExprPtr best, Call(Get(0), {a}));
          DFC_ASSIGN_OR_RETURN(ExprPtr k, Call(Get(1), {a}));
          DFC_ASSIGN_OR_RETURN(ExprPtr xv, Call(Get(0), {p}));
          DFC_ASSIGN_OR_RETURN(ExprPtr j, Call(Get(1), {p}));
          DFC_ASSIGN_OR_RETURN(ExprPtr new_best, Apply(best_fn, {best, xv}));
          DFC_ASSIGN_OR_RETURN(ExprPtr new_k, Apply(index_fn, {best, k, xv, j}));
          return Call(Tuple(2), {new_best, new_k});
        }));
    return Call(Get(1), {acc});
  };
  DFC_ASSIGN_OR_RETURN(ExprPtr out, ReduceDims(x, reduced, false, line_fn));
  return std::vector<ExprPtr>{out};
}

// --- Cumsum Cumprod ------------------------------------------------------------------------------

// The scan step: element x at j joins the output at i when j <= i (j < i if exclusive).
FunPtr ScanStepFun(Arith op, bool exclusive, DType acc, DType d) {
  const char* cmp = exclusive ? "<" : "<=";
  return MakeUserFun(absl::StrCat("scan_", ArithName(op), exclusive ? "_exclusive_" : "_",
                                  DTypeName(acc), "_", DTypeName(d)),
                     {"acc", "x", "j", "i"},
                     absl::StrCat("return j ", cmp, " i ? ", ArithText(op, acc), " : acc;"),
                     {acc, d, DType::kInt64, DType::kInt64}, acc,
                     [op, exclusive, acc](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       const bool joins = exclusive ? a[2].i < a[3].i : a[2].i <= a[3].i;
                       if (!joins) return a[0];
                       return ArithHost(op, acc, a[0], a[1]);
                     });
}

// Reverses a line: a view.
absl::StatusOr<ExprPtr> Reversed(const ExprPtr& line, const ArithExpr& n) {
  return Call(Reindex(n, n - 1 - IndexVar()), {line});
}

template <bool is_prod>
absl::StatusOr<std::vector<ExprPtr>> TranslateScan(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(2));
  DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(0));
  const DType d = BaseDType(x->type);
  DFC_RETURN_IF_ERROR(CheckDType(ctx, d, IsNumeric(d), "a number type"));
  DFC_ASSIGN_OR_RETURN(bool exclusive, ctx.node().GetBool("exclusive", false));
  DFC_ASSIGN_OR_RETURN(bool reverse, ctx.node().GetBool("reverse", false));
  DFC_ASSIGN_OR_RETURN(int64_t axis_value, IndexScalar(ctx, 1, "axis"));
  const int rank = Rank(x);
  DFC_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, axis_value, rank));
  const ArithExpr n = ShapeOfExpr(x)[axis];
  const DType acc = AccumulatorDType(d);
  const Arith op = is_prod ? Arith::kMul : Arith::kAdd;
  FunPtr step = ScanStepFun(op, exclusive, acc, d);
  ExprPtr init = Lit(acc, is_prod ? 1 : 0);

  // Output i folds x[0..i] in order (from the far end when reversed, as the reference does):
  // a Reduce over Zip(x, Iota) per output, O(n^2) but a plain Map of Reduces.
  auto scan_line = [&](ExprPtr line) -> absl::StatusOr<ExprPtr> {
    if (reverse) {
      DFC_ASSIGN_OR_RETURN(line, Reversed(line, n));
    }
    DFC_ASSIGN_OR_RETURN(ExprPtr positions, Call(Iota(n, DType::kInt64), {}));
    DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {line, positions}));
    DFC_ASSIGN_OR_RETURN(
        ExprPtr out,
        MapOver(
            positions,
            [&](ExprPtr i) -> absl::StatusOr<ExprPtr> {
              DFC_ASSIGN_OR_RETURN(
                  ExprPtr a,
                  ReduceOver(init, pairs, [&](ExprPtr a, ExprPtr p) -> absl::StatusOr<ExprPtr> {
                    DFC_ASSIGN_OR_RETURN(ExprPtr xv, Call(Get(0), {p}));
                    DFC_ASSIGN_OR_RETURN(ExprPtr j, Call(Get(1), {p}));
                    return Apply(step, {a, xv, j, i});
                  }));
              if (acc == d) return a;
              return Apply(CastFun(acc, d), {a});
            },
            "i"));
    if (reverse) {
      DFC_ASSIGN_OR_RETURN(out, Reversed(out, n));
    }
    return out;
  };

  // The scanned axis goes innermost and comes back after.
  std::vector<int> perm, inverse(rank);
  for (int k = 0; k < rank; ++k) {
    if (k != axis) perm.push_back(k);
  }
  perm.push_back(axis);
  for (int k = 0; k < rank; ++k) inverse[perm[k]] = k;
  DFC_ASSIGN_OR_RETURN(ExprPtr moved, TransposeTensor(x, perm));
  DFC_ASSIGN_OR_RETURN(ExprPtr scanned, MapAtDepth(moved, rank - 1, scan_line));
  DFC_ASSIGN_OR_RETURN(ExprPtr out, TransposeTensor(scanned, inverse));
  return std::vector<ExprPtr>{out};
}

}  // namespace

void RegisterScanTranslations(TranslationTable& table) {
  table.push_back({"ArgMax", {TranslateArg<true>, {1}}});
  table.push_back({"ArgMin", {TranslateArg<false>, {1}}});
  table.push_back({"Cumsum", {TranslateScan<false>, {1}}});
  table.push_back({"Cumprod", {TranslateScan<true>, {1}}});
}

}  // namespace dfc::ir::reduction
