// Layout rules: the order in which a kernel's input sits in memory, chosen before the run. A
// matrix read by columns (the weights of a MatMul, read as Transpose $ W) is written out
// transposed once, so that the kernel reads it contiguously (and with vector loads).
#ifndef DFC_REWRITE_DATA_LAYOUT_H_
#define DFC_REWRITE_DATA_LAYOUT_H_

#include "rewrite/rule.h"

namespace dfc::rewrite {

// storeTransposed, for the body of a cluster (apply at the root only):
//   body[Transpose $ w] => (λ(wt) => body[wt]) $ (Transpose $ w)
// for a parameter w that the body does not bind (a cluster input). The code generator
// computes a value that the cluster's top level binds with a let by a kernel of its own, into
// a buffer: the transpose is stored once per run, before the kernel that reads it.
Rule StoreTransposed();

}  // namespace dfc::rewrite

#endif  // DFC_REWRITE_DATA_LAYOUT_H_
