// The device's read bandwidth, measured: the floor under any kernel's time is the bytes it
// must read divided by it.
#ifndef DFC_RUNTIME_BANDWIDTH_H_
#define DFC_RUNTIME_BANDWIDTH_H_

#include <memory>

#include "absl/status/statusor.h"
#include "runtime/opencl/context.h"

namespace dfc {

// Bytes per second: the faster of two streaming kernels over 256 MiB, best of five runs each —
// one where each work-item reads its own contiguous chunk (what CPUs stream best), one where
// neighbouring work-items read neighbouring elements (what GPUs stream best). Each work-item
// writes its sum, so that the reads cannot be optimised away.
absl::StatusOr<double> MeasureReadBandwidth(const std::shared_ptr<cl::ClContext>& context);

}  // namespace dfc

#endif  // DFC_RUNTIME_BANDWIDTH_H_
