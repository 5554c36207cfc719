// Simplification rules: a pattern and its inverse cancel (views that undo each other).
#ifndef DFC_REWRITE_SIMPLIFY_H_
#define DFC_REWRITE_SIMPLIFY_H_

#include "rewrite/rule.h"

namespace dfc::rewrite {

// Join o Split(n) => id
Rule JoinSplitId();
// Split(n) o Join => id, when the joined rows have length n
Rule SplitJoinId();
// Transpose o Transpose => id
Rule TransposeTransposeId();
// AsScalar o AsVector(n) => id
Rule AsScalarAsVectorId();
// (λ(x) => body) $ v => body[x := v], when the body reads x at most once (so no work is
// repeated): exposes the patterns a let hides from other rules (a Map over a let-bound Map).
Rule LetInline();

}  // namespace dfc::rewrite

#endif  // DFC_REWRITE_SIMPLIFY_H_
