// The contraction family's dot products, lent to the convolutions: each output of a convolution
// is the dot product of a window with a filter, folded as MatMul folds a row with a column.
#ifndef DFC_IR_FROM_TF_CONTRACTION_H_
#define DFC_IR_FROM_TF_CONTRACTION_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"

namespace dfc::ir {

// Reduce(add, 0) o Map(mult) $ Zip(a, b) for two arrays of one numeric dtype and length, in
// the compute type (float for float16, whose products are exact in float), folded from the
// first term and rounded back to the dtype once.
absl::StatusOr<ExprPtr> DotProduct(const ExprPtr& a, const ExprPtr& b);

// The product of matrices `a` ([n][k]) and `b` ([k][m]) in the thesis' form,
//   Map(λ(rowA) => Map(λ(colB) => DotProduct(rowA, colB)) $ Transpose $ b) $ a,
// which the products' schedule (rewrite/contraction_schedule.h) blocks where b is stored.
absl::StatusOr<ExprPtr> MatrixProduct(const ExprPtr& a, const ExprPtr& b);

// The dot products of `row` ([T]) with each column of `matrix` ([T][M]), folded row by row
// into M accumulators (Lift's mapReduceInterchange of Map(λcol => DotProduct(row, col))):
//   Reduce(λ(acc, p) => Map(λq => add(Get(0) q, mult(Get(0) p, Get(1) q))) $ Zip(acc, Get(1) p))
//     (Repeat(M) $ 0, Zip(row, matrix))
// Each element of the row is read once for all M columns, and each column's sum runs from the
// first term as DotProduct's does: the results are equal.
absl::StatusOr<ExprPtr> RowTimesMatrix(const ExprPtr& row, const ExprPtr& matrix);

// The sums down the columns of `a` times `b` elementwise ([T][n] each: n dot products of
// columns), folded row by row into n accumulators, each from the first row as DotProduct folds:
//   Reduce(λ(acc, p) => Map(λq => add(Get(0) q, mult(Get(1) q, Get(2) q)))
//              $ Zip(acc, Get(0) p, Get(1) p))(Repeat(n) $ 0, Zip(a, b))
// A depthwise convolution's taps (each a row of channels) folded once for all its channels.
absl::StatusOr<ExprPtr> ColumnDotProducts(const ExprPtr& a, const ExprPtr& b);

// The n results of `per_group`, which computes G of them from each group's columns of
// `columns` ([T][n] arrays, cut into n / G groups of G columns, [T][G] each), joined: n
// accumulators in groups a work-item keeps in registers (at most kRegisterAccumulators, a
// multiple of the widest vector that divides n where there is one). nullopt where n has no
// such divisor above 1 (the caller folds each column alone).
using GroupFn = std::function<absl::StatusOr<ExprPtr>(std::span<const ExprPtr> group_columns)>;
absl::StatusOr<std::optional<ExprPtr>> InAccumulatorGroups(std::vector<ExprPtr> columns, int64_t n,
                                                           const GroupFn& per_group);

}  // namespace dfc::ir

#endif  // DFC_IR_FROM_TF_CONTRACTION_H_
