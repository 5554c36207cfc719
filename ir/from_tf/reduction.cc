// Translations of the reductions (OPS.md row 4): Sum Mean Max Min Prod All Any, L2Loss and
// BiasAddGrad. Following the thesis, the reduced dimensions are moved innermost with adjacent
// Transposes (TransposeTensor), joined into one, and folded by a Reduce; keep_dims puts the
// size-1 dimensions back as Repeat(1) views. The arg-reductions and scans (ArgMax ArgMin, Cumsum
// Cumprod) live in scan.cc; RegisterReductionTranslations registers both files.
//
// The reference kernels (runtime/reference/reduction.cc, scan.cc) fold from the first element
// to the last; so do these Reduces, in the compute type (float for float16 and float32, double
// for float64). Integer sums and products wrap modulo 2^bits, as the reference's do.
#include "ir/from_tf/reduction.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "base/check.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "graph/dtype_class.h"
#include "ir/expr.h"
#include "ir/from_tf/reduction_internal.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir {
namespace reduction {

absl::Status CheckDType(const TranslateContext& ctx, DType d, bool ok, absl::string_view expected) {
  if (ok) return absl::OkStatus();
  return ctx.Error(absl::StrCat(ctx.node().op, " is not defined for dtype ", DTypeName(d),
                                " (expected ", expected, ")"));
}

Scalar IntLimit(DType d, bool highest) {
  return DispatchDType(d, [&]<typename T>() {
    if constexpr (std::is_integral_v<T>) {
      return Scalar::Int(d, static_cast<int64_t>(highest ? std::numeric_limits<T>::max()
                                                         : std::numeric_limits<T>::lowest()));
    } else {
      DFC_CHECK(false && "IntLimit of a floating dtype");
      return Scalar{};
    }
  });
}

DType AccumulatorDType(DType d) { return d == DType::kHalf ? DType::kFloat : d; }

const char* ArithName(Arith op) {
  switch (op) {
    case Arith::kAdd:
      return "add";
    case Arith::kMul:
      return "mul";
    case Arith::kAddSquare:
      return "add_square";
  }
  return "";
}

std::string ArithText(Arith op, DType acc) {
  if (IsFloating(acc)) {
    switch (op) {
      case Arith::kAdd:
        return "acc + x";
      case Arith::kMul:
        return "acc * x";
      case Arith::kAddSquare:
        return "acc + x * x";
    }
  }
  return WrappingArithText(acc, "acc", op == Arith::kMul ? "*" : "+", "x");
}

Scalar ArithHost(Arith op, DType acc_dtype, const Scalar& acc, const Scalar& x) {
  if (acc_dtype == DType::kDouble) {
    const double a = acc.f;
    const double v = x.f;
    return Scalar::Float(acc_dtype, op == Arith::kAdd   ? a + v
                                    : op == Arith::kMul ? a * v
                                                        : a + v * v);
  }
  if (IsFloating(acc_dtype)) {
    const float a = static_cast<float>(acc.f);
    const float v = static_cast<float>(x.f);
    const float r = op == Arith::kAdd ? a + v : op == Arith::kMul ? a * v : a + v * v;
    return Scalar::Float(acc_dtype, r);
  }
  // Integers: x.i holds the sign-extended value, as static_cast<uint64_t> in the reference.
  const uint64_t a = static_cast<uint64_t>(acc.i);
  const uint64_t v = static_cast<uint64_t>(x.i);
  return Scalar::Int(acc_dtype, static_cast<int64_t>(op == Arith::kMul ? a * v : a + v));
}

bool Beats(const Scalar& x, const Scalar& best, bool is_max) {
  if (IsFloating(x.dtype)) return is_max ? x.f > best.f : x.f < best.f;
  return is_max ? x.i > best.i : x.i < best.i;
}

absl::StatusOr<ExprPtr> ReduceDims(const ExprPtr& x, const std::vector<bool>& reduced,
                                   bool keep_dims, const LineFn& reduce_line) {
  const SymbolicShape shape = ShapeOfExpr(x);
  std::vector<int> perm;
  ArithExpr n = 1;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    if (!reduced[d]) perm.push_back(d);
  }
  const int kept = static_cast<int>(perm.size());
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    if (reduced[d]) {
      perm.push_back(d);
      n = n * shape[d];
    }
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr moved, TransposeTensor(x, perm));
  DFC_ASSIGN_OR_RETURN(ExprPtr out,
                       MapAtDepth(moved, kept, [&](ExprPtr block) -> absl::StatusOr<ExprPtr> {
                         DFC_ASSIGN_OR_RETURN(ExprPtr line, Flatten(block));
                         return reduce_line(line, n);
                       }));
  if (keep_dims) {
    for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
      if (!reduced[d]) continue;
      DFC_ASSIGN_OR_RETURN(out, MapAtDepth(out, d, [](ExprPtr e) { return Call(Repeat(1), {e}); }));
    }
  }
  return out;
}

absl::StatusOr<std::vector<int64_t>> IndexVector(const TranslateContext& ctx, int i,
                                                 absl::string_view what) {
  if (const Tensor* t = ctx.StaticTensor(i)) {
    if (t->dtype() != DType::kInt32 && t->dtype() != DType::kInt64) {
      return ctx.Error(absl::StrCat(what, " must be int32 or int64, got ", t->DebugType()));
    }
    if (t->rank() > 1) {
      return ctx.Error(absl::StrCat(what, " must be a scalar or a vector, got ", t->DebugType()));
    }
  }
  return ctx.StaticInts(i);
}

absl::StatusOr<int> NormalizeAxis(const TranslateContext& ctx, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return ctx.Error(absl::StrCat("axis ", axis, " is out of range for rank ", rank, " (expected [",
                                  -rank, ", ", rank, "))"));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

}  // namespace reduction

namespace {

using reduction::AccumulatorDType;
using reduction::Arith;
using reduction::ArithHost;
using reduction::ArithName;
using reduction::ArithText;
using reduction::Beats;
using reduction::CheckDType;
using reduction::IndexVector;
using reduction::IntLimit;
using reduction::LineFn;
using reduction::NormalizeAxis;
using reduction::ReduceDims;

// --- scalar arithmetic: OpenCL C text and its host twin ---------------------------------------

// λ(acc, x) => acc op x, the step of a Sum, Prod or L2Loss.
// A sum or product whose accumulator is its elements' dtype is a combiner; a sum of squares,
// or of float16 in float, is not.
FunPtr ArithFun(Arith op, DType acc, DType x) {
  const std::string name =
      absl::StrCat("reduce_", ArithName(op), "_", DTypeName(acc), "_", DTypeName(x));
  const std::string body = absl::StrCat("return ", ArithText(op, acc), ";");
  auto host = [op, acc](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
    return ArithHost(op, acc, a[0], a[1]);
  };
  if (acc == x && op != Arith::kAddSquare) return MakeCombiner(name, body, acc, host);
  return MakeUserFun(name, {"acc", "x"}, body, {acc, x}, acc, host);
}

// The step of Max / Min: NaN wins and stays (Eigen's PropagateNaN reducers), otherwise the
// larger (smaller) value.
FunPtr ExtremeFun(bool is_max, DType d) {
  const char* cmp = is_max ? ">" : "<";
  const std::string body = IsFloating(d)
                               ? absl::StrCat("return (isnan(x) || x ", cmp, " acc) ? x : acc;")
                               : absl::StrCat("return x ", cmp, " acc ? x : acc;");
  return MakeCombiner(absl::StrCat(is_max ? "reduce_max_" : "reduce_min_", DTypeName(d)), body, d,
                      [is_max](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                        if (IsFloating(a[1].dtype) && std::isnan(a[1].f)) return a[1];
                        return Beats(a[1], a[0], is_max) ? a[1] : a[0];
                      });
}

FunPtr LogicalFun(bool is_all) {
  return MakeCombiner(
      is_all ? "reduce_all_bool" : "reduce_any_bool",
      is_all ? "return (acc && x) ? 1 : 0;" : "return (acc || x) ? 1 : 0;", DType::kBool,
      [is_all](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        return Scalar::Bool(is_all ? (a[0].i != 0 && a[1].i != 0) : (a[0].i != 0 || a[1].i != 0));
      });
}

}  // namespace

// acc / n rounded to `out`, for a floating accumulator (Mean, and L2Loss with n = 2).
FunPtr FloatDivideFun(DType acc, DType out) {
  return MakeUserFun(absl::StrCat("reduce_divide_", DTypeName(acc), "_to_", DTypeName(out)),
                     {"acc", "n"}, "return acc / n;", {acc, acc}, out,
                     [acc, out](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       if (acc == DType::kDouble) return Scalar::Float(out, a[0].f / a[1].f);
                       const float r = static_cast<float>(a[0].f) / static_cast<float>(a[1].f);
                       return Scalar::Float(out, r);
                     });
}

namespace {

// The integer Mean: the int64 sum divided by the count (truncating), converted to `out`; an
// empty mean is 0, the sum's identity, as in TensorFlow.
FunPtr IntMeanFun(DType out) {
  return MakeUserFun(absl::StrCat("reduce_mean_int64_to_", DTypeName(out)), {"acc", "n"},
                     absl::Substitute("return n == 0 ? ($0)0 : ($0)(acc / n);", OpenCLType(out)),
                     {DType::kInt64, DType::kInt64}, out,
                     [out](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       if (a[1].i == 0) return Scalar::Int(out, 0);
                       return Scalar::Int(out, a[0].i / a[1].i);
                     });
}

// --- the reduction skeleton ----------------------------------------------------------------------

// A fold from `init` by `step`, then `finish` (if any) applied to the result, n the number of
// elements folded (a Mean's count).
struct Folding {
  ExprPtr init;
  FunPtr step;
  std::function<absl::StatusOr<ExprPtr>(ExprPtr acc, const ArithExpr& n)> finish;
};

// The folding of one line.
LineFn Fold(Folding folding) {
  return
      [folding = std::move(folding)](ExprPtr line, const ArithExpr& n) -> absl::StatusOr<ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ExprPtr acc, ReduceOver(folding.init, line, [&](ExprPtr a, ExprPtr x) {
                               return Apply(folding.step, {a, x});
                             }));
        if (!folding.finish) return acc;
        return folding.finish(acc, n);
      };
}

// ReduceDims by a folding. Where the dimensions after the last reduced one are kept and hold
// few elements, and some before it are kept too (a reduction over a batch of images' spatial
// dimensions, keeping each image's channels), each
// position is read once and folded into an accumulator per element of those dimensions
// (kRegisterAccumulators): the dimensions are ordered [kept before][reduced][kept after], and
// under the Maps over the first, Reduce(λ(acc, p) => Map(step) $ Zip(acc, Join p)) $ positions,
// each accumulator finished, and split back into the kept dimensions. Each one folds its
// elements in the same order as its line would: the results are equal.
absl::StatusOr<ExprPtr> ReduceDimsFolding(const ExprPtr& x, const std::vector<bool>& reduced,
                                          bool keep_dims, const Folding& folding) {
  const SymbolicShape shape = ShapeOfExpr(x);
  const int rank = static_cast<int>(shape.size());
  int last = -1;
  for (int d = 0; d < rank; ++d) {
    if (reduced[d]) last = d;
  }
  std::optional<int64_t> trailing = 1;
  for (int d = last + 1; d < rank && trailing; ++d) {
    const std::optional<int64_t> extent = shape[d].AsConstant();
    trailing = extent ? std::optional<int64_t>(*trailing * *extent) : std::nullopt;
  }
  // A kept dimension before the reduced ones (the batch) is what work-items share: without one,
  // the fold would be one work-item's, where each kept element's line is one now.
  bool kept_before = false;
  for (int d = 0; d < last; ++d) kept_before = kept_before || !reduced[d];
  if (last < 0 || last == rank - 1 || !kept_before || !trailing || *trailing <= 1 ||
      *trailing > kRegisterAccumulators) {
    return ReduceDims(x, reduced, keep_dims, Fold(folding));
  }
  std::vector<int> perm;
  for (int d = 0; d < last; ++d) {
    if (!reduced[d]) perm.push_back(d);
  }
  const int before = static_cast<int>(perm.size());
  ArithExpr n = 1;
  SymbolicShape kept_after;
  for (int d = 0; d < rank; ++d) {
    if (reduced[d]) {
      perm.push_back(d);
      n = n * shape[d];
    }
  }
  for (int d = last + 1; d < rank; ++d) {
    perm.push_back(d);
    kept_after.push_back(shape[d]);
  }
  const int num_reduced = static_cast<int>(perm.size()) - before - (rank - 1 - last);
  DFC_ASSIGN_OR_RETURN(ExprPtr moved, TransposeTensor(x, perm));
  DFC_ASSIGN_OR_RETURN(
      ExprPtr out, MapAtDepth(moved, before, [&](ExprPtr block) -> absl::StatusOr<ExprPtr> {
        // [R1]..[Rr][A1]..[Aa] -> [R1·..·Rr][A1·..·Aa]
        DFC_ASSIGN_OR_RETURN(ExprPtr positions, JoinLeading(block, num_reduced));
        DFC_ASSIGN_OR_RETURN(positions, MapOver(positions, [](ExprPtr p) { return Flatten(p); }));
        DFC_ASSIGN_OR_RETURN(ExprPtr accs, FoldRows(folding.init, positions, folding.step));
        if (folding.finish) {
          DFC_ASSIGN_OR_RETURN(accs,
                               MapOver(accs, [&](ExprPtr acc) { return folding.finish(acc, n); }));
        }
        return ReshapeTensor(accs, kept_after);
      }));
  if (keep_dims) {
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) continue;
      DFC_ASSIGN_OR_RETURN(out, MapAtDepth(out, d, [](ExprPtr e) { return Call(Repeat(1), {e}); }));
    }
  }
  return out;
}

// --- the reduction axes --------------------------------------------------------------------------

// The reference's ReducedAxes: each axis in range, none named twice.
absl::StatusOr<std::vector<bool>> ReducedAxes(const TranslateContext& ctx,
                                              const std::vector<int64_t>& axes, int rank) {
  std::vector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    DFC_ASSIGN_OR_RETURN(int d, NormalizeAxis(ctx, axis, rank));
    if (reduced[d]) {
      return ctx.Error(
          absl::StrCat("reduction axis ", axis, " (dimension ", d, ") is listed more than once"));
    }
    reduced[d] = true;
  }
  return reduced;
}

// --- Sum Mean Prod Max Min All Any -------------------------------------------------------------

enum class ReduceKind { kSum, kMean, kProd, kMax, kMin, kAll, kAny };

// How `kind` over dtype `d` folds its elements, as the reference's ReduceGroup.
Folding ReducerFor(ReduceKind kind, DType d) {
  const DType acc = AccumulatorDType(d);
  switch (kind) {
    case ReduceKind::kSum:
    case ReduceKind::kProd: {
      const bool sum = kind == ReduceKind::kSum;
      FunPtr step = ArithFun(sum ? Arith::kAdd : Arith::kMul, acc, d);
      ExprPtr init = Lit(acc, sum ? 0 : 1);
      if (acc == d) return {init, step};
      return {init, step,
              [acc, d](ExprPtr a, const ArithExpr&) { return Apply(CastFun(acc, d), {a}); }};
    }
    case ReduceKind::kMean:
      if (IsFloating(d)) {
        return {Lit(acc, 0), ArithFun(Arith::kAdd, acc, d),
                [acc, d](ExprPtr a, const ArithExpr& n) -> absl::StatusOr<ExprPtr> {
                  DFC_ASSIGN_OR_RETURN(ExprPtr count, SizeAsScalar(n, acc));
                  return Apply(FloatDivideFun(acc, d), {a, count});
                }};
      }
      // TensorFlow sums narrow integers in 64 bits, then divides.
      return {Lit(DType::kInt64, 0), ArithFun(Arith::kAdd, DType::kInt64, d),
              [d](ExprPtr a, const ArithExpr& n) -> absl::StatusOr<ExprPtr> {
                DFC_ASSIGN_OR_RETURN(ExprPtr count, SizeAsScalar(n, DType::kInt64));
                return Apply(IntMeanFun(d), {a, count});
              }};
    case ReduceKind::kMax:
    case ReduceKind::kMin: {
      const bool is_max = kind == ReduceKind::kMax;
      ExprPtr init;
      if (IsFloating(d)) {
        init = Lit(d, is_max ? -std::numeric_limits<double>::infinity()
                             : std::numeric_limits<double>::infinity());
      } else {
        init = MakeLiteral(IntLimit(d, !is_max));
      }
      return {init, ExtremeFun(is_max, d)};
    }
    case ReduceKind::kAll:
    case ReduceKind::kAny: {
      const bool is_all = kind == ReduceKind::kAll;
      return {MakeLiteral(Scalar::Bool(is_all)), LogicalFun(is_all)};
    }
  }
  return {};
}

template <ReduceKind kind>
absl::StatusOr<std::vector<ExprPtr>> TranslateReduce(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(2));
  DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(0));
  const DType d = BaseDType(x->type);
  constexpr bool kLogical = kind == ReduceKind::kAll || kind == ReduceKind::kAny;
  if constexpr (kLogical) {
    DFC_RETURN_IF_ERROR(CheckDType(ctx, d, d == DType::kBool, "bool"));
  } else {
    DFC_RETURN_IF_ERROR(CheckDType(ctx, d, IsNumeric(d), "a number type"));
  }
  DFC_ASSIGN_OR_RETURN(bool keep_dims, ctx.node().GetBool("keep_dims", false));
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> axes, IndexVector(ctx, 1, "reduction_indices"));
  DFC_ASSIGN_OR_RETURN(std::vector<bool> reduced, ReducedAxes(ctx, axes, Rank(x)));
  // TensorFlow returns the input itself when nothing is reduced, whatever keep_dims says.
  if (axes.empty()) return std::vector<ExprPtr>{x};
  DFC_ASSIGN_OR_RETURN(ExprPtr out, ReduceDimsFolding(x, reduced, keep_dims, ReducerFor(kind, d)));
  return std::vector<ExprPtr>{out};
}

// L2Loss(t) = sum(t^2) / 2, a scalar.
absl::StatusOr<std::vector<ExprPtr>> TranslateL2Loss(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(1));
  DFC_ASSIGN_OR_RETURN(ExprPtr t, ctx.Input(0));
  const DType d = BaseDType(t->type);
  DFC_RETURN_IF_ERROR(CheckDType(ctx, d, IsFloating(d), "float16, float32 or float64"));
  const DType acc = AccumulatorDType(d);
  DFC_ASSIGN_OR_RETURN(ExprPtr line, Flatten(t));
  DFC_ASSIGN_OR_RETURN(ExprPtr sum, ReduceOver(Lit(acc, 0), line, [&](ExprPtr a, ExprPtr x) {
                         return Apply(ArithFun(Arith::kAddSquare, acc, d), {a, x});
                       }));
  DFC_ASSIGN_OR_RETURN(ExprPtr out, Apply(FloatDivideFun(acc, d), {sum, Lit(acc, 2)}));
  return std::vector<ExprPtr>{out};
}

// BiasAddGrad(out_backprop): the sum over every dimension but the channel one.
absl::StatusOr<std::vector<ExprPtr>> TranslateBiasAddGrad(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(1));
  DFC_ASSIGN_OR_RETURN(ExprPtr g, ctx.Input(0));
  const DType d = BaseDType(g->type);
  DFC_RETURN_IF_ERROR(CheckDType(ctx, d, IsNumeric(d), "a number type"));
  const absl::StatusOr<std::string> format = ctx.node().GetString("data_format", "NHWC");
  if (!format.ok()) return format.status();
  const bool nchw = *format == "NCHW";
  if (!nchw && *format != "NHWC") {
    return ctx.Error(absl::StrCat("data_format must be NHWC or NCHW, got \"", *format, "\""));
  }
  const int rank = Rank(g);
  if (rank < 2) {
    return ctx.Error(absl::StrCat("out_backprop must have rank >= 2, got rank ", rank));
  }
  const int channel = nchw ? 1 : rank - 1;
  std::vector<bool> reduced(rank, true);
  reduced[channel] = false;
  DFC_ASSIGN_OR_RETURN(ExprPtr out,
                       ReduceDimsFolding(g, reduced, false, ReducerFor(ReduceKind::kSum, d)));
  return std::vector<ExprPtr>{out};
}

}  // namespace

FunPtr SumStep(DType acc, DType x) { return ArithFun(Arith::kAdd, acc, x); }

void RegisterReductionTranslations(TranslationTable& table) {
  table.push_back({"Sum", {TranslateReduce<ReduceKind::kSum>, {1}}});
  table.push_back({"Mean", {TranslateReduce<ReduceKind::kMean>, {1}}});
  table.push_back({"Prod", {TranslateReduce<ReduceKind::kProd>, {1}}});
  table.push_back({"Max", {TranslateReduce<ReduceKind::kMax>, {1}}});
  table.push_back({"Min", {TranslateReduce<ReduceKind::kMin>, {1}}});
  table.push_back({"All", {TranslateReduce<ReduceKind::kAll>, {1}}});
  table.push_back({"Any", {TranslateReduce<ReduceKind::kAny>, {1}}});
  table.push_back({"L2Loss", {TranslateL2Loss, {}}});
  table.push_back({"BiasAddGrad", {TranslateBiasAddGrad, {}}});
  reduction::RegisterScanTranslations(table);
}

}  // namespace dfc::ir
