// Translations of the matrix products (OPS.md row 3): MatMul, BatchMatMul, BatchMatMulV2. The
// thesis' form: each output element is the dot product of a row of A and a column of B,
//
//   Map(λ(rowA) => Map(λ(colB) => Reduce(add, 0) o Map(mult) $ Zip(rowA, colB)) $ B^T) $ A
//
// with transpose_a / transpose_b (adj_x / adj_y) as Transposes of the operands. Batched
// products Map the same over Zips of the leading dimensions; a batch dimension that
// BatchMatMulV2 broadcasts is stretched with views (At, Repeat), never copied.
//
// The dot product folds from the first term to the last, as the reference kernel
// (runtime/reference/contraction.cc) does, in the compute type: float for float16 (whose
// products are exact in float) and float32, double for float64; integers wrap modulo 2^bits.
#include "ir/from_tf/contraction.h"

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "graph/dtype_class.h"
#include "ir/expr.h"
#include "ir/from_tf/broadcast.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir {
namespace {

// float16 products and sums are computed in float.
DType ComputeDType(DType d) { return d == DType::kHalf ? DType::kFloat : d; }

// `a op b` in the compute type `c`; integers wrap (unsigned arithmetic at least as wide as int).
std::string ArithText(bool mul, DType c, absl::string_view a, absl::string_view b) {
  return WrappingArithText(c, a, mul ? "*" : "+", b);
}

Scalar ArithHost(bool mul, DType c, const Scalar& a, const Scalar& b) {
  if (c == DType::kDouble) return Scalar::Float(c, mul ? a.f * b.f : a.f + b.f);
  if (IsFloating(c)) {
    const float x = static_cast<float>(a.f);
    const float y = static_cast<float>(b.f);
    const float r = mul ? x * y : x + y;
    return Scalar::Float(c, r);
  }
  const uint64_t x = static_cast<uint64_t>(a.i);
  const uint64_t y = static_cast<uint64_t>(b.i);
  return Scalar::Int(c, static_cast<int64_t>(mul ? x * y : x + y));
}

// The fused multiply-add that codegen may make of add(acc, mult(x, y)) (UserFun::arithmetic):
// floating point only, where both are of one compute type.
UserFun::Arithmetic Fusable(DType d, UserFun::Arithmetic a) {
  return IsFloating(d) && d != DType::kHalf ? a : UserFun::Arithmetic::kOther;
}

// mult: (T, T) -> C.
FunPtr MultFun(DType d) {
  const DType c = ComputeDType(d);
  return MakeUserFun(
      absl::StrCat("dot_mult_", DTypeName(d), "_to_", DTypeName(c)), {"x", "y"},
      absl::StrCat("return ", ArithText(true, c, "x", "y"), ";"), {d, d}, c,
      [c](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        return ArithHost(true, c, a[0], a[1]);
      },
      Fusable(d, UserFun::Arithmetic::kMultiply));
}

// add: (C, C) -> C.
FunPtr DotAddFun(DType c) {
  return MakeCombiner(
      absl::StrCat("dot_add_", DTypeName(c)),
      absl::StrCat("return ", ArithText(false, c, "acc", "x"), ";"), c,
      [c](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        return ArithHost(false, c, a[0], a[1]);
      },
      Fusable(c, UserFun::Arithmetic::kAdd));
}

// One product: a is [m, k] ([k, m] if transpose_a), b is [k, n] ([n, k] if transpose_b).
absl::StatusOr<ExprPtr> MatMul2D(ExprPtr a, ExprPtr b, bool transpose_a, bool transpose_b) {
  ExprPtr rows_a = a;
  if (transpose_a) {
    DFC_ASSIGN_OR_RETURN(rows_a, Call(Transpose(), {a}));
  }
  ExprPtr cols_b = b;
  if (!transpose_b) {
    DFC_ASSIGN_OR_RETURN(cols_b, Call(Transpose(), {b}));
  }
  return MapOver(
      rows_a,
      [&](ExprPtr row) {
        return MapOver(
            cols_b, [&](ExprPtr col) { return DotProduct(row, col); }, "colB");
      },
      "rowA");
}

// One product per matrix of the batch: Map over Zip(a, b), one level per batch dimension.
absl::StatusOr<ExprPtr> BatchedMatMul(ExprPtr a, ExprPtr b, int batch_rank, bool transpose_a,
                                      bool transpose_b) {
  if (batch_rank == 0) return MatMul2D(std::move(a), std::move(b), transpose_a, transpose_b);
  DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {a, b}));
  return MapOver(
      pairs,
      [&](ExprPtr p) -> absl::StatusOr<ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ExprPtr x, Call(Get(0), {p}));
        DFC_ASSIGN_OR_RETURN(ExprPtr y, Call(Get(1), {p}));
        return BatchedMatMul(x, y, batch_rank - 1, transpose_a, transpose_b);
      },
      "ab");
}

enum class Batching { kNone, kEqual, kBroadcast };  // MatMul, BatchMatMul, BatchMatMulV2

template <Batching batching>
absl::StatusOr<std::vector<ExprPtr>> TranslateMatMul(const TranslateContext& ctx) {
  constexpr bool kBatched = batching != Batching::kNone;
  const char* const name_a = kBatched ? "x" : "a";
  const char* const name_b = kBatched ? "y" : "b";
  const char* const attr_a = kBatched ? "adj_x" : "transpose_a";
  const char* const attr_b = kBatched ? "adj_y" : "transpose_b";
  if (ctx.num_inputs() != 2) {
    return ctx.Error(absl::StrCat("expects 2 inputs, got ", ctx.num_inputs()));
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr a, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr b, ctx.Input(1));
  const DType d = BaseDType(a->type);
  if (!IsNumeric(d)) {
    return ctx.Error(absl::StrCat(ctx.node().op, " is not defined for dtype ", DTypeName(d),
                                  " (expected a number type)"));
  }
  if (BaseDType(b->type) != d) {
    return ctx.Error(absl::StrCat(name_a, " and ", name_b, " must have the same dtype, got ",
                                  DTypeName(d), " and ", DTypeName(BaseDType(b->type))));
  }
  DFC_ASSIGN_OR_RETURN(bool transpose_a, ctx.node().GetBool(attr_a, false));
  DFC_ASSIGN_OR_RETURN(bool transpose_b, ctx.node().GetBool(attr_b, false));
  const SymbolicShape a_shape = ShapeOfExpr(a);
  const SymbolicShape b_shape = ShapeOfExpr(b);
  for (const SymbolicShape* s : {&a_shape, &b_shape}) {
    const int rank = static_cast<int>(s->size());
    if (kBatched ? rank < 2 : rank != 2) {
      return ctx.Error(absl::StrCat(s == &a_shape ? name_a : name_b, " must have rank ",
                                    kBatched ? ">= 2" : "2", ", got ", ShapeToString(*s)));
    }
  }
  const int ra = static_cast<int>(a_shape.size());
  const int rb = static_cast<int>(b_shape.size());
  const ArithExpr& inner_a = a_shape[transpose_a ? ra - 2 : ra - 1];
  const ArithExpr& inner_b = b_shape[transpose_b ? rb - 1 : rb - 2];
  if (inner_a != inner_b) {
    return ctx.Error(absl::StrCat("inner dimensions differ: ", name_a, " ", ShapeToString(a_shape),
                                  " with ", attr_a, "=", transpose_a, " has ", inner_a.ToString(),
                                  " columns, ", name_b, " ", ShapeToString(b_shape), " with ",
                                  attr_b, "=", transpose_b, " has ", inner_b.ToString(), " rows"));
  }

  const SymbolicShape a_batch(a_shape.begin(), a_shape.end() - 2);
  const SymbolicShape b_batch(b_shape.begin(), b_shape.end() - 2);
  SymbolicShape batch = a_batch;
  if constexpr (batching == Batching::kEqual) {
    if (a_batch != b_batch) {
      return ctx.Error(absl::StrCat("batch dimensions must be equal, got ", ShapeToString(a_shape),
                                    " and ", ShapeToString(b_shape)));
    }
  } else if constexpr (batching == Batching::kBroadcast) {
    absl::StatusOr<SymbolicShape> broadcast = BroadcastShape(a_batch, b_batch);
    if (!broadcast.ok()) {
      return ctx.Error(absl::StrCat("batch dimensions of ", ShapeToString(a_shape), " and ",
                                    ShapeToString(b_shape),
                                    " do not broadcast: ", broadcast.status().message()));
    }
    batch = *std::move(broadcast);
    DFC_ASSIGN_OR_RETURN(a, StretchTensor(a, a_batch, batch));
    DFC_ASSIGN_OR_RETURN(b, StretchTensor(b, b_batch, batch));
  }
  DFC_ASSIGN_OR_RETURN(
      ExprPtr out, BatchedMatMul(a, b, static_cast<int>(batch.size()), transpose_a, transpose_b));
  return std::vector<ExprPtr>{out};
}

// MatMul's inner dimensions, a's columns and b's rows (after the transposes), are one size.
bool UnifyMatMul(const Node& node, std::span<const SymbolicShape> shapes, SizeUnifier& unifier) {
  if (shapes.size() != 2 || shapes[0].size() != 2 || shapes[1].size() != 2) return false;
  const bool ta = node.GetBool("transpose_a", false).value_or(false);
  const bool tb = node.GetBool("transpose_b", false).value_or(false);
  return unifier.Unify(shapes[0][ta ? 0 : 1], shapes[1][tb ? 1 : 0]);
}

}  // namespace

absl::StatusOr<ExprPtr> DotProduct(const ExprPtr& a, const ExprPtr& b) {
  const DType d = BaseDType(a->type);
  const DType c = ComputeDType(d);
  DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {a, b}));
  DFC_ASSIGN_OR_RETURN(ExprPtr products, MapOver(
                                             pairs,
                                             [&](ExprPtr p) -> absl::StatusOr<ExprPtr> {
                                               DFC_ASSIGN_OR_RETURN(ExprPtr x, Call(Get(0), {p}));
                                               DFC_ASSIGN_OR_RETURN(ExprPtr y, Call(Get(1), {p}));
                                               return Apply(MultFun(d), {x, y});
                                             },
                                             "p"));
  DFC_ASSIGN_OR_RETURN(ExprPtr sum, ReduceOver(Lit(c, 0), products, [&](ExprPtr acc, ExprPtr x) {
                         return Apply(DotAddFun(c), {acc, x});
                       }));
  if (c == d) return sum;
  return Apply(CastFun(c, d), {sum});
}

absl::StatusOr<ExprPtr> ColumnDotProducts(const ExprPtr& a, const ExprPtr& b) {
  const DType d = BaseDType(a->type);
  const DType c = ComputeDType(d);
  DFC_ASSIGN_OR_RETURN(ExprPtr zeros, Call(Repeat(a->type->element->length), {Lit(c, 0)}));
  DFC_ASSIGN_OR_RETURN(ExprPtr rows, Call(Zip(2), {a, b}));
  DFC_ASSIGN_OR_RETURN(
      ExprPtr sums, ReduceOver(zeros, rows, [&](ExprPtr acc, ExprPtr p) -> absl::StatusOr<ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ExprPtr x, Call(Get(0), {p}));
        DFC_ASSIGN_OR_RETURN(ExprPtr y, Call(Get(1), {p}));
        DFC_ASSIGN_OR_RETURN(ExprPtr triples, Call(Zip(3), {acc, x, y}));
        return MapOver(
            triples,
            [&](ExprPtr q) -> absl::StatusOr<ExprPtr> {
              DFC_ASSIGN_OR_RETURN(ExprPtr sum, Call(Get(0), {q}));
              DFC_ASSIGN_OR_RETURN(ExprPtr u, Call(Get(1), {q}));
              DFC_ASSIGN_OR_RETURN(ExprPtr v, Call(Get(2), {q}));
              DFC_ASSIGN_OR_RETURN(ExprPtr product, Apply(MultFun(d), {u, v}));
              return Apply(DotAddFun(c), {sum, product});
            },
            "q");
      }));
  if (c == d) return sums;
  return MapOver(sums, [&](ExprPtr s) { return Apply(CastFun(c, d), {s}); });
}

absl::StatusOr<std::optional<ExprPtr>> InAccumulatorGroups(std::vector<ExprPtr> columns, int64_t n,
                                                           const GroupFn& per_group) {
  // The largest group of at most kRegisterAccumulators that divides n, a multiple of the
  // widest vector that can be (so that vectorizeAccumulator takes it whole).
  int64_t group = 0;
  for (const int64_t lanes : {16, 8, 4, 1}) {
    for (int64_t g = kRegisterAccumulators; g > 1 && group == 0; --g) {
      if (n % g == 0 && g % lanes == 0) group = g;
    }
    if (group != 0) break;
  }
  if (group == 0) return std::nullopt;
  if (group == n) {
    DFC_ASSIGN_OR_RETURN(ExprPtr whole, per_group(columns));
    return whole;
  }
  // Each [T][n] as [n / G][T][G]: group k's columns, each a view.
  for (ExprPtr& c : columns) {
    DFC_ASSIGN_OR_RETURN(c, MapOver(c, [&](ExprPtr row) { return Call(Split(group), {row}); }));
    DFC_ASSIGN_OR_RETURN(c, Call(Transpose(), {c}));
  }
  ExprPtr groups = columns[0];
  if (columns.size() > 1) {
    DFC_ASSIGN_OR_RETURN(groups, Call(Zip(static_cast<int>(columns.size())), columns));
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr results, MapOver(
                                            groups,
                                            [&](ExprPtr g) -> absl::StatusOr<ExprPtr> {
                                              if (columns.size() == 1) return per_group({&g, 1});
                                              std::vector<ExprPtr> parts;
                                              for (size_t k = 0; k < columns.size(); ++k) {
                                                DFC_ASSIGN_OR_RETURN(
                                                    ExprPtr part,
                                                    Call(Get(static_cast<int>(k)), {g}));
                                                parts.push_back(std::move(part));
                                              }
                                              return per_group(parts);
                                            },
                                            "group"));
  DFC_ASSIGN_OR_RETURN(ExprPtr joined, Call(Join(), {results}));
  return joined;
}

absl::StatusOr<ExprPtr> MatrixProduct(const ExprPtr& a, const ExprPtr& b) {
  return MatMul2D(a, b, /*transpose_a=*/false, /*transpose_b=*/false);
}

absl::StatusOr<ExprPtr> RowTimesMatrix(const ExprPtr& row, const ExprPtr& matrix) {
  const DType d = BaseDType(row->type);
  const DType c = ComputeDType(d);
  const ArithExpr columns = matrix->type->element->length;
  DFC_ASSIGN_OR_RETURN(ExprPtr zeros, Call(Repeat(columns), {Lit(c, 0)}));
  DFC_ASSIGN_OR_RETURN(ExprPtr taps, Call(Zip(2), {row, matrix}));
  DFC_ASSIGN_OR_RETURN(
      ExprPtr sums, ReduceOver(zeros, taps, [&](ExprPtr acc, ExprPtr p) -> absl::StatusOr<ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ExprPtr x, Call(Get(0), {p}));
        DFC_ASSIGN_OR_RETURN(ExprPtr weights, Call(Get(1), {p}));
        DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {acc, weights}));
        return MapOver(
            pairs,
            [&](ExprPtr q) -> absl::StatusOr<ExprPtr> {
              DFC_ASSIGN_OR_RETURN(ExprPtr sum, Call(Get(0), {q}));
              DFC_ASSIGN_OR_RETURN(ExprPtr w, Call(Get(1), {q}));
              DFC_ASSIGN_OR_RETURN(ExprPtr product, Apply(MultFun(d), {x, w}));
              return Apply(DotAddFun(c), {sum, product});
            },
            "q");
      }));
  if (c == d) return sums;
  return MapOver(sums, [&](ExprPtr s) { return Apply(CastFun(c, d), {s}); });
}

void RegisterContractionTranslations(TranslationTable& table) {
  table.push_back({"MatMul", {TranslateMatMul<Batching::kNone>, {}, UnifyMatMul}});
  table.push_back({"BatchMatMul", {TranslateMatMul<Batching::kEqual>, {}}});
  table.push_back({"BatchMatMulV2", {TranslateMatMul<Batching::kBroadcast>, {}}});
}

}  // namespace dfc::ir
