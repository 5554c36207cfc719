// The named device profiles (see device_profile.h). Figures are those the vendors publish for
// a representative part: an RX 6800 (AMD), an RTX 3070 (NVIDIA), Iris Xe (Intel), a Mali-G78
// (ARM), and an 8-core x86 CPU.
#include "rewrite/device_profile.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dfc::rewrite {

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
    return DeviceProfile{.name = "amd",
                         .description = "AMD GPU (64-wide wavefronts, 64 KiB LDS)",
                         .simd_width = 64,
                         .compute_units = 60,
                         .local_memory_bytes = 64 << 10,
                         .local_memory_is_real = true,
                         .preferred_vector_width = 1,
                         .max_work_group_size = 256,
                         .is_gpu = true};
  }
  if (name == "nvidia") {
    return DeviceProfile{.name = "nvidia",
                         .description = "NVIDIA GPU (32-wide warps, 48 KiB shared memory)",
                         .simd_width = 32,
                         .compute_units = 46,
                         .local_memory_bytes = 48 << 10,
                         .local_memory_is_real = true,
                         .preferred_vector_width = 1,
                         .max_work_group_size = 1024,
                         .is_gpu = true};
  }
  if (name == "intel") {
    return DeviceProfile{.name = "intel",
                         .description = "Intel integrated GPU (16-wide sub-groups, 64 KiB SLM)",
                         .simd_width = 16,
                         .compute_units = 96,
                         .local_memory_bytes = 64 << 10,
                         .local_memory_is_real = true,
                         .preferred_vector_width = 1,
                         .max_work_group_size = 512,
                         .is_gpu = true};
  }
  if (name == "arm") {
    return DeviceProfile{.name = "arm",
                         .description = "ARM Mali GPU (local memory in global memory)",
                         .simd_width = 16,
                         .compute_units = 20,
                         .local_memory_bytes = 32 << 10,
                         .local_memory_is_real = false,
                         .preferred_vector_width = 4,
                         .max_work_group_size = 384,
                         .is_gpu = true};
  }
  if (name == "cpu") {
    return DeviceProfile{.name = "cpu",
                         .description = "multi-core CPU (local memory in global memory)",
                         .simd_width = 8,
                         .compute_units = 8,
                         .local_memory_bytes = 512 << 10,
                         .local_memory_is_real = false,
                         .preferred_vector_width = 8,
                         .max_work_group_size = 4096,
                         .is_gpu = false,
                         .prefetch_bytes = kCpuPrefetchBytes};
  }
  return absl::NotFoundError(absl::StrCat("no device profile \"", name, "\" (expected ",
                                          absl::StrJoin(NamedProfiles(), ", "),
                                          ", or auto for the device present)"));
}

}  // namespace dfc::rewrite
