// The default schedule: what the rules make of a cluster's body without tuning, before the
// device lowering (lower_for_device.h). First its products (contraction_schedule.h: GEMM
// micro-kernels), then its folds into accumulator arrays (a convolution's sums per output
// channel, a depthwise convolution's or a pool's per channel), kept as vectors of the widest
// width the device prefers that divides them (vectorizeAccumulator): each step of the fold
// loads a vector of the filter's row and updates a vector of sums with one FMA.
//
// A GPU profile is left to the explorer: its work-items are not the unit a CPU's vector
// registers are.
#ifndef DFC_REWRITE_SCHEDULE_H_
#define DFC_REWRITE_SCHEDULE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "rewrite/contraction_schedule.h"
#include "rewrite/device_profile.h"

namespace dfc::rewrite {

// `body` with every fold into an accumulator array of a known multiple of a vector width kept
// as vectors (vectorizeAccumulator(w), w the widest of 16, 8, 4 within the profile's preferred
// width that divides it), where the device lowering accepts the result; `body` itself, with no
// steps, where none applies or on a GPU profile.
absl::StatusOr<ContractionSchedule> ScheduleFolds(const ir::ExprPtr& body,
                                                  const DeviceProfile& profile);

// ScheduleContractions, then ScheduleFolds on what it made; the steps of both.
absl::StatusOr<ContractionSchedule> DefaultSchedule(const ir::ExprPtr& body,
                                                    const DeviceProfile& profile);

}  // namespace dfc::rewrite

#endif  // DFC_REWRITE_SCHEDULE_H_
