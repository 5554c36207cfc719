// Finding OpenCL devices: what each platform offers, and choosing one by a user-facing kind
// (--device=auto|cpu|gpu|amd|nvidia|intel|arm).
#ifndef DFC_RUNTIME_OPENCL_DEVICE_H_
#define DFC_RUNTIME_OPENCL_DEVICE_H_

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dfc::cl {

// What the code generator and the program cache need to know about one device.
struct DeviceInfo {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  int platform_index = 0;  // position of `platform` in clGetPlatformIDs' list
  std::string platform_name, device_name, vendor, driver_version, device_version;
  cl_device_type type = 0;
  int compute_units = 0;
  size_t max_work_group_size = 0;
  uint64_t local_mem_size = 0;
  // CL_DEVICE_MAX_MEM_ALLOC_SIZE: the largest buffer the device makes.
  uint64_t max_alloc_size = 0;
  // CL_LOCAL: __local is on-chip scratchpad worth tiling for; CL_GLOBAL (CPUs): it is ordinary
  // memory and staging through it only adds copies.
  bool local_mem_is_real = false;
  // CL_DEVICE_HOST_UNIFIED_MEMORY: the device reads the host's memory where it lies (a CPU), so
  // a buffer over host memory (ClContext::Borrow) costs no copy.
  bool host_unified_memory = false;
  int preferred_vector_width_float = 1;
  bool has_fp16 = false, has_fp64 = false;
  // A device of the same platform and processor that runs its commands on the thread waiting
  // for them (PoCL's basic device beside its pthread device), or null: a run too small to gain
  // from the device's threads goes there, since handing it to them costs more than its kernels.
  std::shared_ptr<const DeviceInfo> inline_device;

  // "pthread-skylake-avx512-AMD EPYC (Portable Computing Language, CPU)", for messages.
  std::string Describe() const;
};

// Every device of every platform. A machine without an OpenCL platform gives an empty list:
// the reference executor still works there, so that is not an error.
//
// PoCL lists its basic device only when $POCL_DEVICES names it: where that variable is unset
// when OpenCL is first asked, it is set to "pthread basic", and the basic device is listed as
// the pthread device's `inline_device`, not as a device of its own. DFC_INLINE_DEVICE=0 leaves
// $POCL_DEVICES alone (so that PoCL lists its default devices, and no inline device).
absl::StatusOr<std::vector<DeviceInfo>> ListDevices();

// Picks a device by kind:
//   auto   - the first GPU, else the first device of any type;
//   cpu    - the first CL_DEVICE_TYPE_CPU device;
//   gpu    - the first CL_DEVICE_TYPE_GPU device;
//   amd, nvidia, intel, arm - the first GPU or accelerator whose vendor or platform name names
//            that vendor (case-insensitive; "Advanced Micro Devices"/"AMD", "NVIDIA", "Intel",
//            "ARM"/"Mali").
// The vendor kinds never pick a CPU device: PoCL names its CPU device after the host processor
// ("pthread-...-AMD EPYC", vendor "AuthenticAMD"), and someone asking for `amd` wants the GPU.
// platform_index >= 0 restricts the search to that platform. An unknown kind, or no device of
// the kind, is NotFound with a message naming the kind and listing the devices present.
absl::StatusOr<DeviceInfo> SelectDevice(absl::string_view kind, int platform_index = -1);

}  // namespace dfc::cl

#endif  // DFC_RUNTIME_OPENCL_DEVICE_H_
