// The reduction family's steps, lent to the window ops: AvgPool sums each window as Sum and
// Mean fold a line, and divides as Mean does.
#ifndef DFC_IR_FROM_TF_REDUCTION_H_
#define DFC_IR_FROM_TF_REDUCTION_H_

#include "absl/status/statusor.h"
#include "graph/dtype.h"
#include "ir/expr.h"

namespace dfc::ir {

// λ(acc, x) => acc + x, x of dtype `x` converted to the accumulator's dtype `acc`.
FunPtr SumStep(DType acc, DType x);

// acc / n rounded to `out`, for a floating accumulator `acc` (Mean's last step).
FunPtr FloatDivideFun(DType acc, DType out);

}  // namespace dfc::ir

#endif  // DFC_IR_FROM_TF_REDUCTION_H_
