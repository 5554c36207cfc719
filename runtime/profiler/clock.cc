// Clock alignment (see clock.h).
#include "runtime/profiler/clock.h"

#include <cstdio>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"

namespace dfc::profiler {
namespace {

std::string DeviceString(cl_device_id device, cl_device_info what) {
  size_t size = 0;
  if (clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string s(size, '\0');
  if (clGetDeviceInfo(device, what, size, s.data(), nullptr) != CL_SUCCESS) return "";
  s.resize(size - 1);
  return s;
}

// "OpenCL 3.0 PoCL ..." -> 30.
int DeviceVersion(cl_device_id device) {
  int major = 0, minor = 0;
  if (std::sscanf(DeviceString(device, CL_DEVICE_VERSION).c_str(), "OpenCL %d.%d", &major,
                  &minor) != 2) {
    return 0;
  }
  return major * 10 + minor;
}

// The device's and the host's timers read together (OpenCL 2.1), the host's mapped onto NowNs
// by reading it between two NowNs. Fails where the device or driver lacks them.
bool PairedTimers(cl_device_id device, int64_t& offset, int64_t& error) {
  if (DeviceVersion(device) < 21) return false;
  cl_ulong device_ns = 0, host_ns = 0, host_again = 0;
  if (clGetDeviceAndHostTimer(device, &device_ns, &host_ns) != CL_SUCCESS) return false;
  const int64_t before = NowNs();
  if (clGetHostTimer(device, &host_again) != CL_SUCCESS) return false;
  const int64_t after = NowNs();
  // host timer -> NowNs, then device -> host timer.
  const int64_t host_to_now = (before + after) / 2 - static_cast<int64_t>(host_again);
  offset = static_cast<int64_t>(host_ns) - static_cast<int64_t>(device_ns) + host_to_now;
  error = (after - before) / 2;
  return device_ns != 0 && host_ns != 0;
}

// Times a 4-byte blocking write against NowNs a few times; keeps the tightest.
bool TimedWrites(cl_command_queue queue, int64_t& offset, int64_t& error) {
  cl_context context = nullptr;
  if (clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof(context), &context, nullptr) !=
      CL_SUCCESS) {
    return false;
  }
  cl_int err = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 4, nullptr, &err);
  if (err != CL_SUCCESS) return false;
  int64_t best = std::numeric_limits<int64_t>::max();
  const int value = 0;
  for (int k = 0; k < 7; ++k) {
    cl_event event = nullptr;
    const int64_t before = NowNs();
    err = clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, 4, &value, 0, nullptr, &event);
    const int64_t after = NowNs();
    if (err != CL_SUCCESS) break;
    cl_ulong start = 0, end = 0;
    err =
        clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr);
    if (err == CL_SUCCESS) {
      err = clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr);
    }
    clReleaseEvent(event);
    if (err != CL_SUCCESS) break;
    if (after - before < best) {
      best = after - before;
      offset = (before + after) / 2 - static_cast<int64_t>((start + end) / 2);
      error = best / 2;
    }
  }
  clReleaseMemObject(buffer);
  return best != std::numeric_limits<int64_t>::max();
}

}  // namespace

QueueInfo AlignQueueClock(cl_command_queue queue) {
  QueueInfo info;
  cl_device_id device = nullptr;
  if (clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof(device), &device, nullptr) !=
      CL_SUCCESS) {
    info.clock = "unknown device: device times are not aligned";
    return info;
  }
  info.device = DeviceString(device, CL_DEVICE_NAME);
  int64_t offset = 0, error = 0;
  if (PairedTimers(device, offset, error)) {
    info.offset_ns = offset;
    info.clock = absl::StrCat("clGetDeviceAndHostTimer, within ", error, " ns");
  } else if (TimedWrites(queue, offset, error)) {
    info.offset_ns = offset;
    info.clock = absl::StrCat("timed 4-byte writes, within ", error, " ns");
  } else {
    info.clock = "no timer could be read: device times are not aligned";
  }
  return info;
}

}  // namespace dfc::profiler
