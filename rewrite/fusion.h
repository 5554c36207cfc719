// Fusion rules: two patterns that each walk an array become one walk, so the intermediate
// array is never built (Lift's mapFusion and reduceSeq-mapSeq fusion).
#ifndef DFC_REWRITE_FUSION_H_
#define DFC_REWRITE_FUSION_H_

#include "rewrite/rule.h"

namespace dfc::rewrite {

// Map(f) o Map(g) => Map(f o g): both Maps of one kind (a MapGlb over a MapSeq changes the
// mapping, not only the walk, and is left to the lowering rules).
Rule MapFusion();

// Reduce(f, init) o Map(g) => Reduce(λ(a, x) => f(a, g(x)), init): the fused step is no longer
// a combiner, so a Reduce fused this way is no longer split across work-items (kernel_gen.h);
// whether that pays is the explorer's question.
Rule ReduceMapFusion();

// Zip(Map(f) $ a, Map(g) $ b) => Map(λp => Tuple(f(p.0), g(p.1))) $ Zip(a, b): Maps fused into
// the Zip that pairs their results (two Maps of the high-level kind).
Rule ZipMapFusion();

// Tuple(Reduce(f)(i, X), Reduce(g)(j, X)) => Reduce(λ(a, x) => Tuple(f(a.0, x), g(a.1, x)))(
// Tuple(i, j), X): two Reduces over one array become one walk with a tuple accumulator. Each
// component folds the same elements in the same order: the values are equal.
Rule ReduceFusion();

}  // namespace dfc::rewrite

#endif  // DFC_REWRITE_FUSION_H_
