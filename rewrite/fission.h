// Fission rules: one walk becomes nested walks over chunks, the shape that mapping rules then
// spread over work-groups and work-items (Lift's splitJoin).
#ifndef DFC_REWRITE_FISSION_H_
#define DFC_REWRITE_FISSION_H_

#include "graph/arith.h"
#include "rewrite/rule.h"

namespace dfc::rewrite {

// splitJoin(n): Map(f) => Join o Map(Map(f)) o Split(n), for a high-level Map whose length is
// known to be a multiple of n.
Rule SplitJoin(ArithExpr n);

// partialReduce(n), Lift's partialReduceSplitJoin:
//   Reduce(f)(init, X) => Reduce(f)(init, Map(λc => Reduce(f)(init, c)) $ Split(n) $ X)
// each chunk of n folded on its own (a walk that mapping rules spread over work-items), then
// the partial results folded. It requires f to be a combiner, init a literal that f leaves
// unchanged combined with itself, and the length a known multiple of n.
Rule PartialReduce(ArithExpr n);

}  // namespace dfc::rewrite

#endif  // DFC_REWRITE_FISSION_H_
