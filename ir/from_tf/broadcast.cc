// NumPy broadcasting in the IR; see broadcast.h.
#include "ir/from_tf/broadcast.h"

#include <algorithm>
#include <span>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status.h"

namespace dfc::ir {
namespace {

bool IsOne(const ArithExpr& d) { return d == ArithExpr(1); }

// `operands` all broadcast to `shape` (their ranks are at most its rank, aligned right).
// Builds the Map for the outermost dimension of `shape` and recurses into its lambda.
absl::StatusOr<ExprPtr> BuildLevel(std::vector<ExprPtr> operands, std::span<const ArithExpr> shape,
                                   const ScalarsFn& f) {
  const int rank = static_cast<int>(shape.size());
  if (rank == 0) return f(operands);  // all scalars

  // noBroadcast: nothing is stretched below this level.
  const bool same_shape = std::all_of(operands.begin(), operands.end(), [&](const ExprPtr& x) {
    const SymbolicShape s = ShapeOfExpr(x);
    return std::equal(s.begin(), s.end(), shape.begin(), shape.end());
  });
  if (same_shape) return ZipScalars(std::move(operands), f);

  // Operands of the full rank run along this dimension (zipped) unless their size here is a
  // 1 that stretches, in which case their one row is taken and captured; lower-rank operands
  // are captured as they are (broadcastLeft / broadcastRight).
  std::vector<int> zipped;
  for (int k = 0; k < static_cast<int>(operands.size()); ++k) {
    if (Rank(operands[k]) < rank) continue;
    const ArithExpr dim = ShapeOfExpr(operands[k])[0];
    if (dim == shape[0]) {
      zipped.push_back(k);
    } else {
      DFC_CHECK(IsOne(dim));
      DFC_ASSIGN_OR_RETURN(operands[k], Call(At(), {operands[k], Lit(DType::kInt32, 0)}));
    }
  }
  // The result's size comes from an operand that has it, so one operand runs along it.
  DFC_CHECK(!zipped.empty());

  const int arity = static_cast<int>(zipped.size());
  ExprPtr source = operands[zipped[0]];
  if (arity > 1) {
    std::vector<ExprPtr> arrays;
    for (int k : zipped) arrays.push_back(operands[k]);
    DFC_ASSIGN_OR_RETURN(source, Call(Zip(arity), std::move(arrays)));
  }
  return MapOver(
      source,
      [&](ExprPtr element) -> absl::StatusOr<ExprPtr> {
        std::vector<ExprPtr> inner = operands;
        if (arity == 1) {
          inner[zipped[0]] = element;
        } else {
          for (int j = 0; j < arity; ++j) {
            DFC_ASSIGN_OR_RETURN(inner[zipped[j]], Call(Get(j), {element}));
          }
        }
        return BuildLevel(std::move(inner), shape.subspan(1), f);
      },
      rank == 1 ? "x" : "row");
}

}  // namespace

absl::StatusOr<SymbolicShape> BroadcastShape(const SymbolicShape& a, const SymbolicShape& b) {
  const size_t rank = std::max(a.size(), b.size());
  SymbolicShape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Position i counted from the right; a missing dimension is 1.
    const ArithExpr da = i < a.size() ? a[a.size() - 1 - i] : ArithExpr(1);
    const ArithExpr db = i < b.size() ? b[b.size() - 1 - i] : ArithExpr(1);
    if (da == db || IsOne(db)) {
      out[rank - 1 - i] = da;
    } else if (IsOne(da)) {
      out[rank - 1 - i] = db;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "incompatible shapes ", ShapeToString(a), " and ", ShapeToString(b), " (dimension ",
          da.ToString(), " against ", db.ToString(), ", expected equal sizes or a 1)"));
    }
  }
  return out;
}

absl::StatusOr<ExprPtr> BroadcastScalars(std::vector<ExprPtr> operands, const ScalarsFn& f) {
  if (operands.empty()) return absl::InvalidArgumentError("broadcasting needs an operand");
  SymbolicShape shape;
  for (size_t k = 0; k < operands.size(); ++k) {
    std::optional<SymbolicShape> s = TensorShape(operands[k]->type);
    if (!s) {
      return absl::InvalidArgumentError(absl::StrCat(
          "operand ", k, " has type ", TypeToString(operands[k]->type), ", expected a tensor"));
    }
    if (k == 0) {
      shape = *s;
    } else {
      DFC_ASSIGN_OR_RETURN(shape, BroadcastShape(shape, *s));
    }
  }
  // A computed operand that is stretched is captured inside the Maps of the others: bind it
  // once outside them, or every element of the result would compute it again.
  for (size_t k = 0; k < operands.size(); ++k) {
    if (operands[k]->kind != Expr::Kind::kFunCall || ShapeOfExpr(operands[k]) == shape) continue;
    return Let(
        operands[k],
        [&](ExprPtr bound) {
          std::vector<ExprPtr> rest = operands;
          rest[k] = bound;
          return BroadcastScalars(std::move(rest), f);
        },
        "b");
  }
  return BuildLevel(std::move(operands), shape, f);
}

}  // namespace dfc::ir
