// The named device profiles (see device_profile.h). Figures are those the vendors publish for
// a representative part: an RX 6800 (AMD), an RTX 3070 (NVIDIA), Iris Xe (Intel), a Mali-G78
// (ARM), and an 8-core x86 CPU.
#include "codegen/device_profile.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dfc::codegen {

int DeviceProfile::WorkGroupSize() const {
  if (!is_gpu) return 0;
  // Four wavefronts or warps a group: enough to hide latency without starving occupancy.
  return std::min(max_work_group_size, 4 * simd_width);
}

int DeviceProfile::WorkGroupReductionSize() const {
  if (!is_gpu || !local_memory_is_real) return 0;
  int size = 1;
  while (size * 2 <= WorkGroupSize()) size *= 2;
  return size >= 2 ? size : 0;
}

// 4 KiB: on the development machine's PoCL (AMD EPYC, 2 cores) the thesis' subgraph's tuned
// kernel ran its contraction in 8.9 ms at N = 65536 with 4 KiB, 9.0 with 2 KiB, 12.7 with
// 1 KiB, and 14.5 without (standalone harness, median of 5 runs).
constexpr int kCpuPrefetchBytes = 4096;

std::vector<std::string> NamedProfiles() { return {"amd", "nvidia", "intel", "arm", "cpu"}; }

absl::StatusOr<DeviceProfile> NamedProfile(absl::string_view name) {
  if (name == "amd") {
    return DeviceProfile{
        "amd", "AMD GPU (64-wide wavefronts, 64 KiB LDS)", 64, 60, 64 << 10, true, 1, 256, true};
  }
  if (name == "nvidia") {
    return DeviceProfile{"nvidia", "NVIDIA GPU (32-wide warps, 48 KiB shared memory)",
                         32,       46,
                         48 << 10, true,
                         1,        1024,
                         true};
  }
  if (name == "intel") {
    return DeviceProfile{"intel",  "Intel integrated GPU (16-wide sub-groups, 64 KiB SLM)",
                         16,       96,
                         64 << 10, true,
                         1,        512,
                         true};
  }
  if (name == "arm") {
    return DeviceProfile{
        "arm", "ARM Mali GPU (local memory in global memory)", 16, 20, 32 << 10, false, 4, 384,
        true};
  }
  if (name == "cpu") {
    return DeviceProfile{"cpu",     "multi-core CPU (local memory in global memory)",
                         8,         8,
                         512 << 10, false,
                         8,         4096,
                         false,     kCpuPrefetchBytes};
  }
  return absl::NotFoundError(absl::StrCat("no device profile \"", name, "\" (expected ",
                                          absl::StrJoin(NamedProfiles(), ", "),
                                          ", or auto for the device present)"));
}

}  // namespace dfc::codegen
