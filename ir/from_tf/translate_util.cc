// Building blocks shared by the translations.
#include "ir/from_tf/translate_util.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"
#include "base/status.h"
#include "ir/from_tf/scalar_funs.h"

namespace dfc::ir {

int Rank(const ExprPtr& tensor) { return ArrayDepth(tensor->type); }

SymbolicShape ShapeOfExpr(const ExprPtr& tensor) {
  std::optional<SymbolicShape> shape = TensorShape(tensor->type);
  DFC_CHECK(shape.has_value());
  return *shape;
}

absl::StatusOr<ExprPtr> MapAtDepth(const ExprPtr& t, int depth, const ScalarFn& f) {
  if (depth == 0) return f(t);
  return MapOver(t, [&](ExprPtr x) { return MapAtDepth(x, depth - 1, f); });
}

absl::StatusOr<ExprPtr> MapScalars(const ExprPtr& t, const ScalarFn& f) {
  return MapAtDepth(t, Rank(t), f);
}

absl::StatusOr<ExprPtr> ZipScalars(std::vector<ExprPtr> tensors, const ScalarsFn& f) {
  DFC_CHECK(!tensors.empty());
  if (Rank(tensors[0]) == 0) return f(tensors);
  if (tensors.size() == 1) {
    return MapOver(tensors[0], [&](ExprPtr x) { return ZipScalars({x}, f); });
  }
  const int arity = static_cast<int>(tensors.size());
  DFC_ASSIGN_OR_RETURN(ExprPtr zipped, Call(Zip(arity), tensors));
  return MapOver(
      zipped,
      [&](ExprPtr tuple) -> absl::StatusOr<ExprPtr> {
        std::vector<ExprPtr> fields;
        for (int k = 0; k < arity; ++k) {
          DFC_ASSIGN_OR_RETURN(ExprPtr field, Call(Get(k), {tuple}));
          fields.push_back(field);
        }
        return ZipScalars(std::move(fields), f);
      },
      "t");
}

absl::StatusOr<ExprPtr> SwapAdjacent(const ExprPtr& t, int d) {
  return MapAtDepth(t, d, [](ExprPtr x) { return Call(Transpose(), {x}); });
}

absl::StatusOr<ExprPtr> TransposeTensor(const ExprPtr& t, std::span<const int> perm) {
  const int rank = Rank(t);
  std::vector<int> sorted(perm.begin(), perm.end());
  std::sort(sorted.begin(), sorted.end());
  for (int k = 0; k < static_cast<int>(sorted.size()); ++k) {
    if (static_cast<int>(sorted.size()) != rank || sorted[k] != k) {
      return absl::InvalidArgumentError(absl::StrCat(
          "[", absl::StrJoin(perm, ","), "] is not a permutation of ", rank, " dimensions"));
    }
  }
  if (perm.empty() && rank != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("[] is not a permutation of ", rank, " dimensions"));
  }
  // Bubble sort the current order towards `perm`, one adjacent Transpose per swap.
  std::vector<int> target_position(rank);
  for (int k = 0; k < rank; ++k) target_position[perm[k]] = k;
  std::vector<int> order(rank);
  for (int k = 0; k < rank; ++k) order[k] = k;
  ExprPtr result = t;
  for (bool swapped = true; swapped;) {
    swapped = false;
    for (int d = 0; d + 1 < rank; ++d) {
      if (target_position[order[d]] > target_position[order[d + 1]]) {
        DFC_ASSIGN_OR_RETURN(result, SwapAdjacent(result, d));
        std::swap(order[d], order[d + 1]);
        swapped = true;
      }
    }
  }
  return result;
}

absl::StatusOr<ExprPtr> StretchTensor(ExprPtr t, const SymbolicShape& from,
                                      const SymbolicShape& shape) {
  const int missing = static_cast<int>(shape.size() - from.size());
  for (int k = 0; k < static_cast<int>(from.size()); ++k) {
    const ArithExpr& target = shape[missing + k];
    if (from[k] == target) continue;
    DFC_ASSIGN_OR_RETURN(
        t, MapAtDepth(t, k, [&](ExprPtr x) -> absl::StatusOr<ExprPtr> {
          DFC_ASSIGN_OR_RETURN(ExprPtr only, Call(At(), {x, Lit(DType::kInt32, 0)}));
          return Call(Repeat(target), {only});
        }));
  }
  for (int k = missing - 1; k >= 0; --k) {
    DFC_ASSIGN_OR_RETURN(t, Call(Repeat(shape[k]), {t}));
  }
  return t;
}

absl::StatusOr<ExprPtr> Flatten(const ExprPtr& t) {
  const int rank = Rank(t);
  if (rank == 0) return Call(Repeat(1), {t});
  ExprPtr result = t;
  for (int k = 1; k < rank; ++k) {
    DFC_ASSIGN_OR_RETURN(result, Call(Join(), {result}));
  }
  return result;
}

absl::StatusOr<ExprPtr> JoinLeading(ExprPtr t, int n) {
  for (int k = 1; k < n; ++k) {
    DFC_ASSIGN_OR_RETURN(t, Call(Join(), {t}));
  }
  return t;
}

absl::StatusOr<ExprPtr> ChannelTaps(const ExprPtr& window, int k) {
  DFC_ASSIGN_OR_RETURN(ExprPtr positions, JoinLeading(window, k));
  return Call(Transpose(), {positions});
}

absl::StatusOr<std::vector<ExprPtr>> Fields(const ExprPtr& tuple) {
  std::vector<ExprPtr> fields;
  for (int k = 0; k < static_cast<int>(tuple->type->elements.size()); ++k) {
    DFC_ASSIGN_OR_RETURN(ExprPtr f, Call(Get(k), {tuple}));
    fields.push_back(f);
  }
  return fields;
}

absl::StatusOr<ExprPtr> ZipAtDepth(std::vector<ExprPtr> tensors, int depth, const ScalarsFn& f) {
  if (depth == 0) return f(tensors);
  if (tensors.size() == 1) {
    return MapOver(tensors[0], [&](ExprPtr x) { return ZipAtDepth({x}, depth - 1, f); });
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr zipped, Call(Zip(static_cast<int>(tensors.size())), tensors));
  return MapOver(
      zipped,
      [&](ExprPtr t) -> absl::StatusOr<ExprPtr> {
        DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> fields, Fields(t));
        return ZipAtDepth(std::move(fields), depth - 1, f);
      },
      "t");
}

absl::StatusOr<ExprPtr> FoldRows(const ExprPtr& init, const ExprPtr& rows, const FunPtr& step) {
  DFC_ASSIGN_OR_RETURN(ExprPtr inits, Call(Repeat(rows->type->element->length), {init}));
  return ReduceOver(inits, rows, [&](ExprPtr accs, ExprPtr row) -> absl::StatusOr<ExprPtr> {
    DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {accs, row}));
    return MapOver(pairs, [&](ExprPtr q) -> absl::StatusOr<ExprPtr> {
      DFC_ASSIGN_OR_RETURN(ExprPtr acc, Call(Get(0), {q}));
      DFC_ASSIGN_OR_RETURN(ExprPtr x, Call(Get(1), {q}));
      return Apply(step, {acc, x});
    });
  });
}

absl::StatusOr<ExprPtr> ReshapeTensor(const ExprPtr& t, const SymbolicShape& shape) {
  const SymbolicShape from = ShapeOfExpr(t);
  if (from == shape) return t;
  if (NumElements(from) != NumElements(shape)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot reshape ", ShapeToString(from), " to ",
                                                   ShapeToString(shape),
                                                   ": the element counts differ"));
  }
  const DType dtype = BaseDType(t->type);
  // No elements: the result is an empty array of the right type, its contents never read.
  for (const ArithExpr& d : shape) {
    if (d == ArithExpr(0)) {
      ExprPtr empty = Lit(dtype, 0);
      for (auto it = shape.rbegin(); it != shape.rend(); ++it) {
        DFC_ASSIGN_OR_RETURN(empty, Call(Repeat(*it), {empty}));
      }
      return empty;
    }
  }
  if (shape.empty()) {
    DFC_ASSIGN_OR_RETURN(ExprPtr flat, Flatten(t));
    return Call(At(), {flat, Lit(DType::kInt32, 0)});
  }
  // Split at the first leading dims of equal product: the rest reshapes within each row, so
  // the result keeps the input's rows and a fused producer is made once per row, not per element.
  // Without such dims, all of `from` is one row, flattened, and all of `shape` splits it.
  size_t rows_from = from.size(), rows_to = shape.size();
  ArithExpr leading_from(1);
  for (size_t i = 1; i < from.size() && rows_from == from.size(); ++i) {
    leading_from = leading_from * from[i - 1];
    ArithExpr leading_to(1);
    for (size_t j = 1; j < shape.size(); ++j) {
      leading_to = leading_to * shape[j - 1];
      if (leading_from == leading_to) {
        rows_from = i;
        rows_to = j;
        break;
      }
    }
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr result, rows_from == from.size()
                                           ? Flatten(t)
                                           : JoinLeading(t, static_cast<int>(rows_from)));
  const SymbolicShape inner(shape.begin() + rows_to, shape.end());
  if (SymbolicShape(from.begin() + rows_from, from.end()) != inner) {
    DFC_ASSIGN_OR_RETURN(result,
                         MapOver(result, [&](ExprPtr row) { return ReshapeTensor(row, inner); }));
  }
  for (size_t k = rows_to - 1; k >= 1; --k) {
    DFC_ASSIGN_OR_RETURN(result, Call(Split(shape[k]), {result}));
  }
  if (ShapeOfExpr(result) != shape) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot reshape ", ShapeToString(from), " to ", ShapeToString(shape), ": got ",
        ShapeToString(ShapeOfExpr(result)), ", which the simplifier cannot prove equal"));
  }
  return result;
}

absl::StatusOr<ExprPtr> SizeAsScalar(const ArithExpr& n, DType dtype) {
  if (std::optional<int64_t> c = n.AsConstant()) {
    if (IsFloating(dtype)) return Lit(dtype, static_cast<double>(*c));
    return MakeLiteral(Scalar::Int(dtype, *c));
  }
  if (IsInteger(dtype)) return Call(SizeValue(n, dtype), {});
  DFC_ASSIGN_OR_RETURN(ExprPtr count, Call(SizeValue(n, DType::kInt64), {}));
  return Call(CastFun(DType::kInt64, dtype), {count});
}

ExprPtr Lit(DType dtype, double value) {
  if (IsFloating(dtype)) return MakeLiteral(Scalar::Float(dtype, value));
  return MakeLiteral(Scalar::Int(dtype, static_cast<int64_t>(value)));
}

absl::StatusOr<ExprPtr> Apply(const FunPtr& f, std::vector<ExprPtr> args) {
  return Call(f, std::move(args));
}

}  // namespace dfc::ir
