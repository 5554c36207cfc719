// Device profiles: what code generation needs to know of a device, for the devices dfc
// compiles for ahead of time (`dfc compile --device amd` on a machine without one) and, from
// the OpenCL device present, for `auto`.
#ifndef DFC_REWRITE_DEVICE_PROFILE_H_
#define DFC_REWRITE_DEVICE_PROFILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dfc::rewrite {

struct DeviceProfile {
  std::string name;         // "amd", "nvidia", "intel", "arm", "cpu", or the device's
  std::string description;  // for the kernel header and plan.json
  int simd_width = 1;       // wavefront / warp / sub-group width
  int compute_units = 1;
  int64_t local_memory_bytes = 0;
  bool local_memory_is_real = false;  // dedicated on-chip memory, not emulated in global memory
  int preferred_vector_width = 1;     // for float
  int max_work_group_size = 1;
  bool is_gpu = false;
  // How far ahead a loop that streams a row of the work-item's own from global memory asks for
  // it (software prefetch), in bytes; 0: none. CPUs: their hardware prefetchers fall behind a
  // loop that computes as much as it loads. GPUs hide the latency with other warps instead.
  int prefetch_bytes = 0;
  // The vector registers a work-item's accumulators, loads and broadcasts share, which the
  // default schedule sizes its register tiles by: a CPU core's (32 with AVX-512, 16 with AVX2
  // or SSE); on a GPU the registers are a thread's scalars, and the explorer chooses there.
  int vector_registers = 16;

  // The work-group size kernels are launched with; 0 leaves the choice to the driver (CPUs,
  // where one work-item per core's thread is what PoCL and Intel's runtime do best).
  int WorkGroupSize() const;

  // The work-group size of the MapWrg/MapLcl strategy, in which a work-group computes one row
  // and its work-items split that row's Reduces, combining in local memory: a power of two, or
  // 0 where the strategy does not pay (local memory emulated in global memory, as on CPUs,
  // where a work-group runs on one core and rows are the better unit of parallelism).
  int WorkGroupReductionSize() const;
  // How many work-items the device runs at once (four wavefronts or warps per compute unit):
  // a MapGlb kernel with fewer rows than this leaves the device partly idle.
  int64_t ConcurrentWorkItems() const { return int64_t{4} * compute_units * simd_width; }
};

// The profiles of typical devices of each vendor (a mid-range discrete GPU, an integrated
// Intel GPU, a Mali GPU, a multi-core CPU): "amd", "nvidia", "intel", "arm", "cpu".
absl::StatusOr<DeviceProfile> NamedProfile(absl::string_view name);
std::vector<std::string> NamedProfiles();

}  // namespace dfc::rewrite

#endif  // DFC_REWRITE_DEVICE_PROFILE_H_
