// The default lowering strategy (Lift's second stage): the lowering family's rules
// (rewrite/lowering.h) applied to a cluster's body, making as IR the decisions the code
// generator prints. So far, what is stored: every tensor the cluster binds at its top level is
// ToGlobal, a kernel of its own. The mapping of rows onto work-items, private arrays and the
// rule-specific stores are still the generator's (docs/DESIGN.md, "The stages as they are now").
#ifndef DFC_CODEGEN_LOWER_FOR_DEVICE_H_
#define DFC_CODEGEN_LOWER_FOR_DEVICE_H_

#include "absl/status/statusor.h"
#include "ir/expr.h"

namespace dfc::codegen {

absl::StatusOr<ir::ExprPtr> LowerForDevice(const ir::ExprPtr& body);

}  // namespace dfc::codegen

#endif  // DFC_CODEGEN_LOWER_FOR_DEVICE_H_
