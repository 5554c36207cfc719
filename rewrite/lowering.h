// The lowering family (Lift's second stage): rules that decide where a value is stored and
// which work-items compute it, leaving what is computed as it is. codegen's LowerForDevice
// applies them by default; the code generator prints what they decided.
#ifndef DFC_REWRITE_LOWERING_H_
#define DFC_REWRITE_LOWERING_H_

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "rewrite/rule.h"

namespace dfc::rewrite {

// toGlobal, for a let evaluated once per kernel (ApplyAtTopLevel):
//   (λ(v) => B) $ x => (λ(v) => B) $ (ToGlobal(Id) $ x)
// for each argument x of tensor type not already ToGlobal. A value bound once for several
// readers is computed once, by a kernel of its own, into a buffer the later kernels read:
// recomputed wherever it is read, a chain of such values (the steps of an unrolled RNN) would
// grow the code exponentially.
Rule ToGlobalLet();

// Whether toGlobal stores `arg` of a let: a tensor (an array of scalars, however nested) that
// is not ToGlobal already. The code generator refuses a top-level let that binds one.
bool IsUnstoredTensor(const ir::ExprPtr& arg);

// `e` with `rule` applied, pre-order, at every place evaluated once per kernel rather than
// once per element: everything outside the functions of its Maps and Reduces (a let's value
// and body, a pattern's arguments). What the rule rewrites is searched again.
absl::StatusOr<ir::ExprPtr> ApplyAtTopLevel(const Rule& rule, const ir::ExprPtr& e);

}  // namespace dfc::rewrite

#endif  // DFC_REWRITE_LOWERING_H_
