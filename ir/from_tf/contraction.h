// The contraction family's dot product, lent to the convolutions: each output of a convolution
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

}  // namespace dfc::ir

#endif  // DFC_IR_FROM_TF_CONTRACTION_H_
