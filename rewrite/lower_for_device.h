// The default lowering strategy (Lift's second stage): the lowering family's rules
// (rewrite/lowering.h) applied to a cluster's body for a device profile, making as IR the
// decisions the code generator prints:
// - every tensor the cluster binds at its top level is ToGlobal, a kernel of its own;
// - each kernel's rows are MapGlb(0), or MapWrg(0) with its Reduces by a combiner split across
//   the work-group (ReduceLcl(0)) where the rows are a known number too few to fill the device
//   and the profile reduces in work-groups;
// - every other Map is a MapSeq and every other Reduce a ReduceSeq, computed by the work-item
//   that reads them;
// - an array a work-item binds, computes and reads more than once is ToPrivate if it fits.
// What is left to the generator is named in docs/DESIGN.md, "The lowering".
#ifndef DFC_REWRITE_LOWER_FOR_DEVICE_H_
#define DFC_REWRITE_LOWER_FOR_DEVICE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "rewrite/device_profile.h"
#include "rewrite/pipeline.h"

namespace dfc::rewrite {

// The lowering as stages, in order: vectors-across-maps, global-lets, stored-kernels,
// kernel-rows, sequential, work-item-storage (verified by VerifyLowered). The stages share
// what kernel-rows maps, so a list lowers one body: make a fresh one for each.
std::vector<Stage> LoweringStages(const DeviceProfile& profile);

// Whether `body` is lowered IR, which the code generator prints: nothing a work-item cannot
// hold or compute (Unimplemented, "... cannot be mapped onto the device"), and no Map or Reduce
// left unmapped (an internal error).
absl::Status VerifyLowered(const ir::ExprPtr& body);

// `body` through LoweringStages(profile).
absl::StatusOr<ir::ExprPtr> LowerForDevice(const ir::ExprPtr& body, const DeviceProfile& profile);

}  // namespace dfc::rewrite

#endif  // DFC_REWRITE_LOWER_FOR_DEVICE_H_
