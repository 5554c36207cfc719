// Questions asked of IR expressions, and the substitutions rules and codegen build on: how
// often a parameter is read, whether applying a function does arithmetic, which combiner a
// Reduce folds with. Each is one walk of ir/traverse.h.
#ifndef DFC_IR_ANALYSIS_H_
#define DFC_IR_ANALYSIS_H_

#include <functional>

#include "absl/status/statusor.h"
#include "ir/expr.h"

namespace dfc::ir {

// How often evaluating `e` (or applying `f`) reads `param`: 0, 1, or 2 for more than once (a
// read inside the function of a Map or a Reduce happens once per element).
int Reads(const Expr& e, const Param* param);
int Reads(const Fun& f, const Param* param);

// Whether evaluating `e` (or applying `f`) does arithmetic: a UserFun or a Reduce anywhere in
// it. A view (Zip, Split, Transpose...) of parameters does none.
bool Computes(const Expr& e);
bool Computes(const Fun& f);

// `e` with every read of `param` replaced by `value` (of param's type).
absl::StatusOr<ExprPtr> Substitute(const ExprPtr& e, const Param* param, const ExprPtr& value);

// `e` with every subexpression for which `is_target` holds replaced by `value` (of its type);
// subexpressions inside a target are not visited.
absl::StatusOr<ExprPtr> ReplaceWhere(const ExprPtr& e,
                                     const std::function<bool(const ExprPtr&)>& is_target,
                                     const ExprPtr& value);

// The combiner (UserFun::combiner) a Reduce step is: the step itself, or the UserFun that
// λ(a, x) => c(a, x) calls; nullptr for any other step.
FunPtr CombinerOf(const FunPtr& step);

}  // namespace dfc::ir

#endif  // DFC_IR_ANALYSIS_H_
