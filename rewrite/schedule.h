// The default schedule: what the rules make of a cluster's body without tuning, before the
// device lowering (lower_for_device.h). First its products (contraction_schedule.h: GEMM
// micro-kernels), then its folds into accumulator arrays (a convolution's sums per output
// channel, a depthwise convolution's or a pool's per channel), kept as vectors of the widest
// width the device prefers that divides them (vectorizeAccumulator): each step of the fold
// loads a vector of the filter's row and updates a vector of sums with one FMA. Last, a
// convolution's output positions in blocks (blockPositions(r)): the positions a kernel stores
// (the leading dimensions of [N][H][W][C]) joined into rows, and r rows computed by one
// work-item (blockRows), each tap's filter row loaded once for the block's r sums, as a direct
// convolution's register tile over positions; r as many rows as the vector registers hold
// accumulators for, with one for the filter row and one for a broadcast, from 2 to 8. Then the
// elementwise Maps that read a fold's vector sums as scalars (a batch norm, a bias, a residual
// add, an activation) read them as vectors (vectorizeMaps(w)), lets of such Maps read once
// inlined first: one vector operation a vector of sums, and one vector store.
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

// `body` with the output positions of each convolution a kernel stores in blocks, as above,
// where its fold has enough taps and the device lowering accepts the result; `body` itself,
// with no steps, where none applies or on a GPU profile.
absl::StatusOr<ContractionSchedule> SchedulePositions(const ir::ExprPtr& body,
                                                      const DeviceProfile& profile);

// ScheduleContractions, then ScheduleFolds and SchedulePositions on what it made, then the
// epilogues read as vectors; the steps of all four.
absl::StatusOr<ContractionSchedule> DefaultSchedule(const ir::ExprPtr& body,
                                                    const DeviceProfile& profile);

}  // namespace dfc::rewrite

#endif  // DFC_REWRITE_SCHEDULE_H_
