// Translations of the softmax family (OPS.md row 5): Softmax, LogSoftmax,
// SoftmaxCrossEntropyWithLogits and SparseSoftmaxCrossEntropyWithLogits, along the last axis.
//
// Each row is shifted by its maximum before exp, as the reference (runtime/reference/
// softmax.cc) and TensorFlow do, so exp never overflows. The row's maximum m and the sum of
// exp(x - m), s, are each computed once and bound with Let:
//
//   Map(λ(row) => (λ(m) => (λ(s) => Map(λ(x) => exp(x - m) / s) $ row)
//                            $ Reduce(+, 0) $ Map(λ(x) => exp(x - m)) $ row)
//                 $ Reduce(max, -inf) $ row) $ logits
//
// and the operations are those of the reference in its order: shifted = x - m,
// softmax = exp(shifted) / s, log_softmax = shifted - log(s); in the compute type (float for
// float16 and float32, double for float64). The two-output ops compute the per-row (m, s) once,
// as an array both outputs read.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "ir/expr.h"
#include "ir/from_tf/broadcast.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir {
namespace {

DType ComputeDType(DType d) { return d == DType::kHalf ? DType::kFloat : d; }

// fn(C{}) evaluated in the compute type C of `c` (float or double), rounded to `out`.
template <typename Fn>
Scalar InCompute(DType c, DType out, Fn fn) {
  if (c == DType::kDouble) return Scalar::Float(out, fn(0.0));
  const float r = fn(0.0f);
  return Scalar::Float(out, r);
}

// A scalar's value in the compute type of the tag's type.
template <typename C>
C As(const Scalar& s, C) {
  return static_cast<C>(s.f);
}

std::string Suffix(DType a, DType b) { return absl::StrCat("_", DTypeName(a), "_", DTypeName(b)); }

// --- the UserFuns, with T the storage dtype and C its compute dtype ---------------------------

// The running maximum as std::max(acc, x) keeps it: NaN is skipped (it reaches the outputs
// through x - m instead).
FunPtr RowMaxFun(DType t, DType c) {
  return MakeUserFun(absl::StrCat("softmax_row_max", Suffix(c, t)), {"acc", "x"},
                     "return x > acc ? x : acc;", {c, t}, c,
                     [c](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       return a[1].f > a[0].f ? Scalar::Float(c, a[1].f) : a[0];
                     });
}

// exp(x - m), summed by SumFun: the sum's step is a combiner, so that the rewrite rules may
// vectorise the exps (one vector exp is far cheaper than as many scalar ones).
FunPtr ShiftedExpFun(DType t, DType c) {
  return MakeUserFun(absl::StrCat("softmax_exp", Suffix(t, c)), {"x", "m"}, "return exp(x - m);",
                     {t, c}, c, [c](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       return InCompute(
                           c, c, [&](auto z) { return std::exp(As(a[0], z) - As(a[1], z)); });
                     });
}

FunPtr SumFun(DType c) {
  return MakeCombiner(absl::StrCat("softmax_sum_", DTypeName(c)), "return acc + x;", c,
                      [c](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                        return InCompute(c, c, [&](auto z) { return As(a[0], z) + As(a[1], z); });
                      });
}

FunPtr LogFun(DType c) {
  return MakeUserFun(absl::StrCat("softmax_log_sum_", DTypeName(c)), {"s"}, "return log(s);", {c},
                     c, [c](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       return InCompute(c, c, [&](auto z) { return std::log(As(a[0], z)); });
                     });
}

// exp(x - m) / s
FunPtr SoftmaxFun(DType t, DType c) {
  return MakeUserFun(
      absl::StrCat("softmax", Suffix(t, c)), {"x", "m", "s"}, "return exp(x - m) / s;", {t, c, c},
      t, [c, t](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        return InCompute(c, t,
                         [&](auto z) { return std::exp(As(a[0], z) - As(a[1], z)) / As(a[2], z); });
      });
}

// (x - m) - log(s)
FunPtr LogSoftmaxFun(DType t, DType c) {
  return MakeUserFun(
      absl::StrCat("log_softmax", Suffix(t, c)), {"x", "m", "log_s"}, "return (x - m) - log_s;",
      {t, c, c}, t, [c, t](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        return InCompute(c, t, [&](auto z) { return (As(a[0], z) - As(a[1], z)) - As(a[2], z); });
      });
}

// The loss step of SoftmaxCrossEntropyWithLogits: acc + label * -log_softmax(x).
FunPtr CrossEntropyStepFun(DType t, DType c) {
  return MakeUserFun(
      absl::StrCat("cross_entropy_step", Suffix(c, t)), {"acc", "x", "label", "m", "log_s"},
      "return acc + label * -((x - m) - log_s);", {c, t, t, c, c}, c,
      [c](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        return InCompute(c, c, [&](auto z) {
          return As(a[0], z) + As(a[2], z) * -((As(a[1], z) - As(a[3], z)) - As(a[4], z));
        });
      });
}

// The backprop of SoftmaxCrossEntropyWithLogits: softmax(x) - label.
FunPtr CrossEntropyGradFun(DType t, DType c) {
  return MakeUserFun(absl::StrCat("cross_entropy_grad", Suffix(t, c)), {"x", "label", "m", "s"},
                     "return exp(x - m) / s - label;", {t, t, c, c}, t,
                     [c, t](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       return InCompute(c, t, [&](auto z) {
                         return std::exp(As(a[0], z) - As(a[2], z)) / As(a[3], z) - As(a[1], z);
                       });
                     });
}

// Picks x at the label's position j: the accumulator of a Reduce over Zip(row, Iota).
FunPtr PickFun(DType t, DType c, DType index) {
  return MakeUserFun(absl::StrCat("sparse_pick", Suffix(c, t), "_", DTypeName(index)),
                     {"acc", "x", "j", "label"}, "return j == label ? x : acc;",
                     {c, t, index, index}, c,
                     [c](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       return a[2].i == a[3].i ? Scalar::Float(c, a[1].f) : a[0];
                     });
}

// The reference refuses a label outside [0, classes) for the whole op; the host twins do the
// same, and the OpenCL bodies give NaN there (as TensorFlow's GPU kernel does).
absl::Status CheckLabel(const Scalar& label, const Scalar& classes) {
  if (label.i >= 0 && label.i < classes.i) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "label ", label.i, " is outside the valid range of classes [0, ", classes.i, ")"));
}

// -log_softmax(x)[label] = -((picked - m) - log(s))
FunPtr SparseLossFun(DType t, DType c, DType index) {
  return MakeUserFun(
      absl::StrCat("sparse_cross_entropy", Suffix(t, c), "_", DTypeName(index)),
      {"picked", "m", "log_s", "label", "classes"},
      "return (label < 0 || label >= classes) ? NAN : -((picked - m) - log_s);",
      {c, c, c, index, index}, t, [c, t](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        DFC_RETURN_IF_ERROR(CheckLabel(a[3], a[4]));
        return InCompute(c, t,
                         [&](auto z) { return -((As(a[0], z) - As(a[1], z)) - As(a[2], z)); });
      });
}

// softmax(x)[j] - (j == label)
FunPtr SparseGradFun(DType t, DType c, DType index) {
  return MakeUserFun(
      absl::StrCat("sparse_cross_entropy_grad", Suffix(t, c), "_", DTypeName(index)),
      {"x", "m", "s", "j", "label", "classes"},
      "return (label < 0 || label >= classes) ? NAN : exp(x - m) / s - (j == label ? 1 : 0);",
      {t, c, c, index, index, index}, t,
      [c, t](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        DFC_RETURN_IF_ERROR(CheckLabel(a[4], a[5]));
        return InCompute(c, t, [&](auto z) {
          using C = decltype(z);
          return std::exp(As(a[0], z) - As(a[1], z)) / As(a[2], z) -
                 (a[3].i == a[4].i ? C(1) : C(0));
        });
      });
}

// --- building blocks ---------------------------------------------------------------------------

using RowBody = std::function<absl::StatusOr<ExprPtr>(ExprPtr m, ExprPtr s)>;

// body(m, s) with the row's maximum m and sum of exp(x - m) s, each bound once with Let.
absl::StatusOr<ExprPtr> WithRowStats(const ExprPtr& row, const RowBody& body) {
  const DType t = BaseDType(row->type);
  const DType c = ComputeDType(t);
  FunPtr max_fn = RowMaxFun(t, c);
  FunPtr exp_fn = ShiftedExpFun(t, c);
  FunPtr sum_fn = SumFun(c);
  DFC_ASSIGN_OR_RETURN(ExprPtr max, ReduceOver(Lit(c, -std::numeric_limits<double>::infinity()),
                                               row, [&](ExprPtr acc, ExprPtr x) {
                                                 return Apply(max_fn, {acc, x});
                                               }));
  return Let(
      max,
      [&](ExprPtr m) -> absl::StatusOr<ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ExprPtr exps, MapOver(row, [&](ExprPtr x) {
                               return Apply(exp_fn, {x, m});
                             }));
        DFC_ASSIGN_OR_RETURN(ExprPtr sum, ReduceOver(Lit(c, 0), exps, [&](ExprPtr acc, ExprPtr x) {
                               return Apply(sum_fn, {acc, x});
                             }));
        return Let(
            sum, [&](ExprPtr s) { return body(m, s); }, "s");
      },
      "m");
}

// The per-row (m, s) of a matrix, as an array of tuples that several outputs read.
absl::StatusOr<ExprPtr> RowStats(const ExprPtr& matrix) {
  return MapOver(
      matrix,
      [](ExprPtr row) {
        return WithRowStats(row, [](ExprPtr m, ExprPtr s) { return Call(Tuple(2), {m, s}); });
      },
      "row");
}

absl::Status CheckFloating(const TranslateContext& ctx, DType d) {
  if (IsFloating(d)) return absl::OkStatus();
  return ctx.Error(absl::StrCat(ctx.node().op, " is not defined for dtype ", DTypeName(d),
                                " (expected float16, float32 or float64)"));
}

// --- the ops -----------------------------------------------------------------------------------

template <bool log>
absl::StatusOr<std::vector<ExprPtr>> TranslateSoftmax(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(1));
  DFC_ASSIGN_OR_RETURN(ExprPtr logits, ctx.Input(0));
  const DType t = BaseDType(logits->type);
  DFC_RETURN_IF_ERROR(CheckFloating(ctx, t));
  const int rank = Rank(logits);
  if (rank < 1) return ctx.Error("logits must have rank >= 1, got a scalar");
  const DType c = ComputeDType(t);
  FunPtr out_fn = log ? LogSoftmaxFun(t, c) : SoftmaxFun(t, c);
  FunPtr log_fn = LogFun(c);
  DFC_ASSIGN_OR_RETURN(
      ExprPtr out, MapAtDepth(logits, rank - 1, [&](ExprPtr row) {
        return WithRowStats(row, [&](ExprPtr m, ExprPtr s) -> absl::StatusOr<ExprPtr> {
          if (!log) return MapOver(row, [&](ExprPtr x) { return Apply(out_fn, {x, m, s}); });
          DFC_ASSIGN_OR_RETURN(ExprPtr log_s, Apply(log_fn, {s}));
          return Let(
              log_s,
              [&](ExprPtr ls) {
                return MapOver(row, [&](ExprPtr x) { return Apply(out_fn, {x, m, ls}); });
              },
              "log_s");
        });
      }));
  return std::vector<ExprPtr>{out};
}

// SoftmaxCrossEntropyWithLogits(features, labels) -> (loss [batch], backprop [batch, classes]),
// the inputs broadcast against each other to a matrix.
absl::StatusOr<std::vector<ExprPtr>> TranslateCrossEntropy(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(2));
  DFC_ASSIGN_OR_RETURN(ExprPtr features, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr labels, ctx.Input(1));
  const DType t = BaseDType(features->type);
  DFC_RETURN_IF_ERROR(CheckFloating(ctx, t));
  if (BaseDType(labels->type) != t) {
    return ctx.Error(absl::StrCat("features and labels must have the same dtype, got ",
                                  DTypeName(t), " and ", DTypeName(BaseDType(labels->type))));
  }
  const SymbolicShape f_shape = ShapeOfExpr(features);
  const SymbolicShape l_shape = ShapeOfExpr(labels);
  absl::StatusOr<SymbolicShape> shape = BroadcastShape(f_shape, l_shape);
  if (!shape.ok()) {
    return ctx.Error(absl::StrCat("features ", ShapeToString(f_shape), " and labels ",
                                  ShapeToString(l_shape),
                                  " must broadcast: ", shape.status().message()));
  }
  if (shape->size() != 2) {
    return ctx.Error(absl::StrCat("features ", ShapeToString(f_shape), " and labels ",
                                  ShapeToString(l_shape), " must be, or broadcast to, matrices"));
  }
  DFC_ASSIGN_OR_RETURN(features, StretchTensor(features, f_shape, *shape));
  DFC_ASSIGN_OR_RETURN(labels, StretchTensor(labels, l_shape, *shape));
  const DType c = ComputeDType(t);
  FunPtr log_fn = LogFun(c);
  FunPtr step_fn = CrossEntropyStepFun(t, c);
  FunPtr grad_fn = CrossEntropyGradFun(t, c);

  DFC_ASSIGN_OR_RETURN(ExprPtr stats, RowStats(features));
  DFC_ASSIGN_OR_RETURN(ExprPtr rows, Call(Zip(3), {features, labels, stats}));
  DFC_ASSIGN_OR_RETURN(
      ExprPtr loss,
      MapOver(
          rows,
          [&](ExprPtr r) -> absl::StatusOr<ExprPtr> {
            DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> row, Fields(r));
            DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> ms, Fields(row[2]));
            DFC_ASSIGN_OR_RETURN(ExprPtr log_s, Apply(log_fn, {ms[1]}));
            return Let(
                log_s,
                [&](ExprPtr ls) -> absl::StatusOr<ExprPtr> {
                  DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {row[0], row[1]}));
                  DFC_ASSIGN_OR_RETURN(
                      ExprPtr sum,
                      ReduceOver(Lit(c, 0), pairs,
                                 [&](ExprPtr acc, ExprPtr p) -> absl::StatusOr<ExprPtr> {
                                   DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> xl, Fields(p));
                                   return Apply(step_fn, {acc, xl[0], xl[1], ms[0], ls});
                                 }));
                  if (c == t) return sum;
                  return Apply(CastFun(c, t), {sum});
                },
                "log_s");
          },
          "r"));
  DFC_ASSIGN_OR_RETURN(ExprPtr backprop,
                       MapOver(
                           rows,
                           [&](ExprPtr r) -> absl::StatusOr<ExprPtr> {
                             DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> row, Fields(r));
                             DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> ms, Fields(row[2]));
                             DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {row[0], row[1]}));
                             return MapOver(
                                 pairs,
                                 [&](ExprPtr p) -> absl::StatusOr<ExprPtr> {
                                   DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> xl, Fields(p));
                                   return Apply(grad_fn, {xl[0], xl[1], ms[0], ms[1]});
                                 },
                                 "p");
                           },
                           "r"));
  return std::vector<ExprPtr>{loss, backprop};
}

// SparseSoftmaxCrossEntropyWithLogits(features [batch, classes], labels [batch]).
absl::StatusOr<std::vector<ExprPtr>> TranslateSparseCrossEntropy(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(2));
  DFC_ASSIGN_OR_RETURN(ExprPtr features, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr labels, ctx.Input(1));
  const DType t = BaseDType(features->type);
  DFC_RETURN_IF_ERROR(CheckFloating(ctx, t));
  const DType index = BaseDType(labels->type);
  if (index != DType::kInt32 && index != DType::kInt64) {
    return ctx.Error(absl::StrCat("labels must be int32 or int64, got ", DTypeName(index)));
  }
  const SymbolicShape f_shape = ShapeOfExpr(features);
  const SymbolicShape l_shape = ShapeOfExpr(labels);
  if (f_shape.size() != 2 || l_shape.size() != 1 || l_shape[0] != f_shape[0]) {
    return ctx.Error(absl::StrCat("expects features [batch, classes] and labels [batch], got ",
                                  ShapeToString(f_shape), " and ", ShapeToString(l_shape)));
  }
  const ArithExpr classes = f_shape[1];
  const DType c = ComputeDType(t);
  FunPtr log_fn = LogFun(c);
  FunPtr pick_fn = PickFun(t, c, index);
  FunPtr loss_fn = SparseLossFun(t, c, index);
  FunPtr grad_fn = SparseGradFun(t, c, index);
  DFC_ASSIGN_OR_RETURN(ExprPtr num_classes, SizeAsScalar(classes, index));
  DFC_ASSIGN_OR_RETURN(ExprPtr positions, Call(Iota(classes, index), {}));

  DFC_ASSIGN_OR_RETURN(ExprPtr stats, RowStats(features));
  DFC_ASSIGN_OR_RETURN(ExprPtr rows, Call(Zip(3), {features, labels, stats}));
  DFC_ASSIGN_OR_RETURN(
      ExprPtr loss, MapOver(
                        rows,
                        [&](ExprPtr r) -> absl::StatusOr<ExprPtr> {
                          DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> row, Fields(r));
                          DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> ms, Fields(row[2]));
                          DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {row[0], positions}));
                          DFC_ASSIGN_OR_RETURN(
                              ExprPtr picked,
                              ReduceOver(Lit(c, 0), pairs,
                                         [&](ExprPtr acc, ExprPtr p) -> absl::StatusOr<ExprPtr> {
                                           DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> xj, Fields(p));
                                           return Apply(pick_fn, {acc, xj[0], xj[1], row[1]});
                                         }));
                          DFC_ASSIGN_OR_RETURN(ExprPtr log_s, Apply(log_fn, {ms[1]}));
                          return Apply(loss_fn, {picked, ms[0], log_s, row[1], num_classes});
                        },
                        "r"));
  DFC_ASSIGN_OR_RETURN(
      ExprPtr backprop,
      MapOver(
          rows,
          [&](ExprPtr r) -> absl::StatusOr<ExprPtr> {
            DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> row, Fields(r));
            DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> ms, Fields(row[2]));
            DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {row[0], positions}));
            return MapOver(
                pairs,
                [&](ExprPtr p) -> absl::StatusOr<ExprPtr> {
                  DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> xj, Fields(p));
                  return Apply(grad_fn, {xj[0], ms[0], ms[1], xj[1], row[1], num_classes});
                },
                "p");
          },
          "r"));
  return std::vector<ExprPtr>{loss, backprop};
}

// The logits and the labels have one row each per batch element.
bool UnifySparseCrossEntropy(const Node&, std::span<const SymbolicShape> shapes,
                             SizeUnifier& unifier) {
  if (shapes.size() != 2 || shapes[0].empty() || shapes[1].empty()) return false;
  return unifier.Unify(shapes[0][0], shapes[1][0]);
}

}  // namespace

void RegisterSoftmaxTranslations(TranslationTable& table) {
  table.push_back({"Softmax", {TranslateSoftmax<false>, {}}});
  table.push_back({"LogSoftmax", {TranslateSoftmax<true>, {}}});
  table.push_back({"SoftmaxCrossEntropyWithLogits", {TranslateCrossEntropy, {}, UnifyBroadcast}});
  table.push_back({"SparseSoftmaxCrossEntropyWithLogits",
                   {TranslateSparseCrossEntropy, {}, UnifySparseCrossEntropy}});
}

}  // namespace dfc::ir
