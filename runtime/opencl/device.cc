// Device discovery and selection (see device.h).
#include "runtime/opencl/device.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "runtime/opencl/cl_error.h"

namespace dfc::cl {
namespace {

// The ICD loader returns this from clGetPlatformIDs when no platform is installed; cl_ext.h
// has it as CL_PLATFORM_NOT_FOUND_KHR, spelled out here to keep the extension header out.
constexpr cl_int kPlatformNotFoundKhr = -1001;

// String queries return a NUL-terminated buffer; some drivers pad it with trailing spaces.
absl::StatusOr<std::string> PlatformString(cl_platform_id platform, cl_platform_info param) {
  size_t size = 0;
  DFC_CL_RETURN_IF_ERROR(clGetPlatformInfo(platform, param, 0, nullptr, &size));
  std::string value(size, '\0');
  DFC_CL_RETURN_IF_ERROR(clGetPlatformInfo(platform, param, size, value.data(), nullptr));
  return std::string(absl::StripAsciiWhitespace(value.c_str()));
}

absl::StatusOr<std::string> DeviceString(cl_device_id device, cl_device_info param) {
  size_t size = 0;
  DFC_CL_RETURN_IF_ERROR(clGetDeviceInfo(device, param, 0, nullptr, &size));
  std::string value(size, '\0');
  DFC_CL_RETURN_IF_ERROR(clGetDeviceInfo(device, param, size, value.data(), nullptr));
  return std::string(absl::StripAsciiWhitespace(value.c_str()));
}

template <typename T>
absl::StatusOr<T> DeviceValue(cl_device_id device, cl_device_info param) {
  T value{};
  DFC_CL_RETURN_IF_ERROR(clGetDeviceInfo(device, param, sizeof(T), &value, nullptr));
  return value;
}

absl::StatusOr<DeviceInfo> QueryDevice(cl_platform_id platform, int platform_index,
                                       const std::string& platform_name, cl_device_id device) {
  DeviceInfo info{.platform = platform, .device = device, .platform_index = platform_index};
  info.platform_name = platform_name;
  DFC_ASSIGN_OR_RETURN(info.device_name, DeviceString(device, CL_DEVICE_NAME));
  DFC_ASSIGN_OR_RETURN(info.vendor, DeviceString(device, CL_DEVICE_VENDOR));
  DFC_ASSIGN_OR_RETURN(info.driver_version, DeviceString(device, CL_DRIVER_VERSION));
  DFC_ASSIGN_OR_RETURN(info.device_version, DeviceString(device, CL_DEVICE_VERSION));
  DFC_ASSIGN_OR_RETURN(info.type, DeviceValue<cl_device_type>(device, CL_DEVICE_TYPE));
  DFC_ASSIGN_OR_RETURN(cl_uint units, DeviceValue<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS));
  info.compute_units = static_cast<int>(units);
  DFC_ASSIGN_OR_RETURN(info.max_work_group_size,
                       DeviceValue<size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE));
  DFC_ASSIGN_OR_RETURN(info.local_mem_size,
                       DeviceValue<cl_ulong>(device, CL_DEVICE_LOCAL_MEM_SIZE));
  DFC_ASSIGN_OR_RETURN(info.max_alloc_size,
                       DeviceValue<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE));
  DFC_ASSIGN_OR_RETURN(cl_device_local_mem_type local_type,
                       DeviceValue<cl_device_local_mem_type>(device, CL_DEVICE_LOCAL_MEM_TYPE));
  info.local_mem_is_real = local_type == CL_LOCAL;
  DFC_ASSIGN_OR_RETURN(const cl_bool unified,
                       DeviceValue<cl_bool>(device, CL_DEVICE_HOST_UNIFIED_MEMORY));
  info.host_unified_memory = unified == CL_TRUE;
  DFC_ASSIGN_OR_RETURN(cl_uint width,
                       DeviceValue<cl_uint>(device, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT));
  info.preferred_vector_width_float = std::max<int>(1, static_cast<int>(width));
  DFC_ASSIGN_OR_RETURN(std::string extensions, DeviceString(device, CL_DEVICE_EXTENSIONS));
  // Padded with spaces so that "cl_khr_fp16" cannot match a prefix of a longer name.
  const std::string padded = absl::StrCat(" ", extensions, " ");
  info.has_fp16 = absl::StrContains(padded, " cl_khr_fp16 ");
  info.has_fp64 = absl::StrContains(padded, " cl_khr_fp64 ");
  return info;
}

std::string TypeName(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

// The vendor kinds match substrings of the device vendor or the platform name.
std::vector<absl::string_view> VendorNeedles(absl::string_view kind) {
  if (kind == "amd") return {"advanced micro devices", "amd"};
  if (kind == "nvidia") return {"nvidia"};
  if (kind == "intel") return {"intel"};
  if (kind == "arm") return {"arm", "mali"};
  return {};
}

bool Matches(const DeviceInfo& info, absl::string_view kind) {
  if (kind == "cpu") return (info.type & CL_DEVICE_TYPE_CPU) != 0;
  if (kind == "gpu") return (info.type & CL_DEVICE_TYPE_GPU) != 0;
  if ((info.type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)) == 0) return false;
  const std::string vendor = absl::AsciiStrToLower(info.vendor);
  const std::string platform = absl::AsciiStrToLower(info.platform_name);
  for (absl::string_view needle : VendorNeedles(kind)) {
    if (absl::StrContains(vendor, needle) || absl::StrContains(platform, needle)) return true;
  }
  return false;
}

// Asks PoCL for its basic device beside its default one, before the ICD loader first loads it.
void RequestInlineDevice() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* off = std::getenv("DFC_INLINE_DEVICE");
    if (off != nullptr && std::string(off) == "0") return;
    setenv("POCL_DEVICES", "pthread basic", /*overwrite=*/0);
  });
}

// PoCL names its CPU devices by driver and processor: "basic-haswell-…", "pthread-haswell-…".
bool SameProcessorAs(const DeviceInfo& device, absl::string_view driver, const DeviceInfo& other,
                     absl::string_view other_driver) {
  return absl::StartsWith(device.device_name, absl::StrCat(driver, "-")) &&
         absl::StartsWith(other.device_name, absl::StrCat(other_driver, "-")) &&
         device.device_name.substr(driver.size()) == other.device_name.substr(other_driver.size());
}

// Makes each PoCL basic device the inline device of the pthread device of its platform and
// processor, and takes it off the list.
void PairInlineDevices(std::vector<DeviceInfo>& devices) {
  for (DeviceInfo& pthread : devices) {
    for (const DeviceInfo& basic : devices) {
      if (basic.platform == pthread.platform &&
          SameProcessorAs(basic, "basic", pthread, "pthread")) {
        pthread.inline_device = std::make_shared<const DeviceInfo>(basic);
      }
    }
  }
  std::erase_if(devices, [&](const DeviceInfo& basic) {
    return absl::c_any_of(devices, [&](const DeviceInfo& d) {
      return d.inline_device != nullptr && d.inline_device->device == basic.device;
    });
  });
}

}  // namespace

std::string DeviceInfo::Describe() const {
  return absl::StrCat(device_name, " (", platform_name, ", ", TypeName(type), ")");
}

absl::StatusOr<std::vector<DeviceInfo>> ListDevices() {
  RequestInlineDevice();
  cl_uint num_platforms = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &num_platforms);
  if (err == kPlatformNotFoundKhr || (err == CL_SUCCESS && num_platforms == 0))
    return std::vector<DeviceInfo>();
  DFC_RETURN_IF_ERROR(ClStatus(err, "clGetPlatformIDs(0, nullptr, &num_platforms)"));
  std::vector<cl_platform_id> platforms(num_platforms);
  DFC_CL_RETURN_IF_ERROR(clGetPlatformIDs(num_platforms, platforms.data(), nullptr));

  std::vector<DeviceInfo> devices;
  for (cl_uint p = 0; p < num_platforms; ++p) {
    DFC_ASSIGN_OR_RETURN(std::string platform_name, PlatformString(platforms[p], CL_PLATFORM_NAME));
    cl_uint num_devices = 0;
    err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &num_devices);
    // A platform whose driver finds no hardware (an ICD installed without its GPU) is skipped.
    if (err == CL_DEVICE_NOT_FOUND || num_devices == 0) continue;
    DFC_RETURN_IF_ERROR(ClStatus(err, absl::StrCat("clGetDeviceIDs(", platform_name, ")")));
    std::vector<cl_device_id> ids(num_devices);
    DFC_CL_RETURN_IF_ERROR(
        clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, num_devices, ids.data(), nullptr));
    for (cl_device_id id : ids) {
      DFC_ASSIGN_OR_RETURN(DeviceInfo info,
                           QueryDevice(platforms[p], static_cast<int>(p), platform_name, id));
      devices.push_back(std::move(info));
    }
  }
  PairInlineDevices(devices);
  return devices;
}

absl::StatusOr<DeviceInfo> SelectDevice(absl::string_view kind, int platform_index) {
  DFC_ASSIGN_OR_RETURN(std::vector<DeviceInfo> all, ListDevices());
  std::vector<DeviceInfo> candidates;
  for (DeviceInfo& info : all) {
    if (platform_index < 0 || info.platform_index == platform_index) candidates.push_back(info);
  }
  std::vector<std::string> present;
  for (const DeviceInfo& info : all) {
    present.push_back(info.Describe());
  }
  const std::string present_text =
      present.empty() ? "no OpenCL platform is installed" : absl::StrJoin(present, "; ");
  const std::string where = platform_index < 0 ? "" : absl::StrCat(" on platform ", platform_index);

  const std::string lower = absl::AsciiStrToLower(kind);
  if (lower != "auto" && lower != "cpu" && lower != "gpu" && VendorNeedles(lower).empty()) {
    return absl::NotFoundError(absl::StrCat("unknown OpenCL device kind \"", kind,
                                            "\" (expected auto, cpu, gpu, amd, nvidia, intel "
                                            "or arm); present: ",
                                            present_text));
  }
  if (lower == "auto") {
    for (const DeviceInfo& info : candidates) {
      if (info.type & CL_DEVICE_TYPE_GPU) return info;
    }
    if (!candidates.empty()) return candidates.front();
  } else {
    for (const DeviceInfo& info : candidates) {
      if (Matches(info, lower)) return info;
    }
  }
  return absl::NotFoundError(
      absl::StrCat("no ", kind, " OpenCL device", where, "; present: ", present_text));
}

}  // namespace dfc::cl
