// NumPy broadcasting in the IR, following the thesis' translation of binary ops: the shape of a
// broadcast result, and any number of tensors combined scalar by scalar over that shape with
// no copies (the stretched operands are read through views and closures, never expanded).
#ifndef DFC_IR_FROM_TF_BROADCAST_H_
#define DFC_IR_FROM_TF_BROADCAST_H_

#include <vector>

#include "absl/status/statusor.h"
#include "graph/arith.h"
#include "ir/expr.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir {

// The shape NumPy gives a + b, as runtime/reference/broadcast.h computes it: ranks aligned
// from the right, a missing dimension counting as 1, and in each position sizes that are
// provably equal (ArithExpr ==) or of which one is the constant 1 (a 1 stretches, so 1 against
// 0 gives 0). Anything else is an error naming both shapes, without a node prefix:
// "incompatible shapes [2,3] and [4] (dimension 3 against 4, expected equal sizes or a 1)".
// Two symbolic sizes the simplifier cannot prove equal (N against M, N against 5) are
// incompatible here: dfc compiles one kernel for every binding, so it must know.
absl::StatusOr<SymbolicShape> BroadcastShape(const SymbolicShape& a, const SymbolicShape& b);

// f applied to the scalars of `operands` broadcast together (NumPy rules, folded from the left
// with BroadcastShape); f receives one scalar per operand, in operand order. The result has
// the broadcast shape, and is built level by level from the outermost output dimension:
//
//  - noBroadcast: every operand has the result's shape: ZipScalars(operands, f), nested
//    Map(λ(t) => ...) $ Zip(a, b) down to the scalars.
//  - broadcastLeft / broadcastRight: the left (resp. right) operand has the lower rank. It is
//    not zipped over the leading dimensions the other one has in addition, but captured by
//    the lambda of the Maps over them: `Map(λ(row) => <row with b>) $ a` for b's rank one
//    less than a's, one Map per missing dimension.
//  - size 1: an operand whose dimension is 1 where the result's is not (a [3,1] against a
//    [1,4]) has its single element taken with `At $ (x, 0)` (a view) at that level, and that
//    element is then captured like a lower-rank operand.
//
// Operands are tensor-typed expressions of any dtypes (Select mixes bool and T). They are
// referenced, not bound: a captured operand appears inside the Maps' lambdas, so a caller whose
// operand is an expensive computation rather than a view binds it with Let first.
absl::StatusOr<ExprPtr> BroadcastScalars(std::vector<ExprPtr> operands, const ScalarsFn& f);

}  // namespace dfc::ir

#endif  // DFC_IR_FROM_TF_BROADCAST_H_
