// The contraction family's dot products, lent to the convolutions: each output of a convolution
// is the dot product of a window with a filter, folded as MatMul folds a row with a column.
#ifndef DFC_IR_FROM_TF_CONTRACTION_H_
#define DFC_IR_FROM_TF_CONTRACTION_H_

#include "absl/status/statusor.h"
#include "ir/expr.h"

namespace dfc::ir {

// Reduce(add, 0) o Map(mult) $ Zip(a, b) for two arrays of one numeric dtype and length, in
// the compute type (float for float16, whose products are exact in float), folded from the
// first term and rounded back to the dtype once.
absl::StatusOr<ExprPtr> DotProduct(const ExprPtr& a, const ExprPtr& b);

// The dot products of `row` ([T]) with each column of `matrix` ([T][M]), folded row by row
// into M accumulators (Lift's mapReduceInterchange of Map(λcol => DotProduct(row, col))):
//   Reduce(λ(acc, p) => Map(λq => add(Get(0) q, mult(Get(0) p, Get(1) q))) $ Zip(acc, Get(1) p))
//     (Repeat(M) $ 0, Zip(row, matrix))
// Each element of the row is read once for all M columns, and each column's sum runs from the
// first term as DotProduct's does: the results are equal.
absl::StatusOr<ExprPtr> RowTimesMatrix(const ExprPtr& row, const ExprPtr& matrix);

}  // namespace dfc::ir

#endif  // DFC_IR_FROM_TF_CONTRACTION_H_
