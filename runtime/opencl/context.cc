// The OpenCL context, queue and buffers (see context.h).
#include "runtime/opencl/context.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "runtime/opencl/cl_error.h"

namespace dfc::cl {
namespace {

absl::StatusOr<ClQueue> MakeQueue(cl_context context, const DeviceInfo& device, bool profiling) {
  cl_int err = CL_SUCCESS;
  ClQueue queue(clCreateCommandQueue(context, device.device,
                                     profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &err));
  DFC_RETURN_IF_ERROR(ClStatus(err, absl::StrCat("clCreateCommandQueue(", device.Describe(), ")")));
  return queue;
}

}  // namespace

absl::StatusOr<std::shared_ptr<ClContext>> ClContext::Create(const DeviceInfo& info) {
  const cl_context_properties properties[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(info.platform), 0};
  std::vector<cl_device_id> devices = {info.device};
  if (info.inline_device != nullptr) devices.push_back(info.inline_device->device);
  cl_int err = CL_SUCCESS;
  ClContextHandle context(clCreateContext(properties, static_cast<cl_uint>(devices.size()),
                                          devices.data(), nullptr, nullptr, &err));
  DFC_RETURN_IF_ERROR(ClStatus(err, absl::StrCat("clCreateContext(", info.Describe(), ")")));
  DFC_ASSIGN_OR_RETURN(ClQueue queue, MakeQueue(context.get(), info, false));
  ClQueue inline_queue;
  if (info.inline_device != nullptr) {
    DFC_ASSIGN_OR_RETURN(inline_queue, MakeQueue(context.get(), *info.inline_device, false));
  }
  cl_ulong global_mem = 0;
  DFC_CL_RETURN_IF_ERROR(clGetDeviceInfo(info.device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof(global_mem),
                                         &global_mem, nullptr));
  return std::shared_ptr<ClContext>(new ClContext(info, std::move(context), std::move(queue),
                                                  std::move(inline_queue), global_mem / 4));
}

absl::Status ClContext::UseInline(bool on) {
  on = on && has_inline_device();
  if (on == inline_) return absl::OkStatus();
  DFC_RETURN_IF_ERROR(Finish());
  inline_ = on;
  return absl::OkStatus();
}

cl_int ClContext::InjectedFault(FaultKind kind) {
  if (fault_.after < 0 || fault_.kind != kind) return CL_SUCCESS;
  return fault_.after-- == 0 ? fault_.error : CL_SUCCESS;
}

absl::Status ClContext::Launch(cl_kernel kernel, size_t global, const size_t* local,
                               cl_event* event) {
  cl_int err = InjectedFault(FaultKind::kLaunch);
  if (err == CL_SUCCESS) {
    err = clEnqueueNDRangeKernel(queue(), kernel, 1, nullptr, &global, local, 0, nullptr, event);
  }
  if (err == CL_SUCCESS) ++launches_;
  return ClStatus(err, "clEnqueueNDRangeKernel");
}

absl::StatusOr<ClBuffer> ClContext::Allocate(size_t bytes) {
  const size_t capacity = ClBuffer::Capacity(bytes);
  if (const cl_int fault = InjectedFault(FaultKind::kAllocation); fault != CL_SUCCESS) {
    return ClStatus(fault, absl::StrCat("clCreateBuffer(", bytes, " bytes)"));
  }
  ClMem mem = pool_->Take(capacity);
  if (!mem) {
    cl_int err = CL_SUCCESS;
    mem = ClMem(clCreateBuffer(context(), CL_MEM_READ_WRITE, capacity, nullptr, &err));
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
        err == CL_OUT_OF_HOST_MEMORY) {
      // The kept buffers may be what the device lacks: give them back and ask once more.
      pool_->Clear();
      mem = ClMem(clCreateBuffer(context(), CL_MEM_READ_WRITE, capacity, nullptr, &err));
    }
    DFC_RETURN_IF_ERROR(ClStatus(err, absl::StrCat("clCreateBuffer(", bytes, " bytes)")));
  }
  return ClBuffer(std::move(mem), bytes, pool_);
}

absl::StatusOr<ClBuffer> ClContext::Borrow(const void* data, size_t bytes,
                                           std::shared_ptr<const void> owner) {
  if (const cl_int fault = InjectedFault(FaultKind::kAllocation); fault != CL_SUCCESS) {
    return ClStatus(fault, absl::StrCat("clCreateBuffer(", bytes, " bytes of host memory)"));
  }
  cl_int err = CL_SUCCESS;
  // OpenCL's host_ptr is not const; a read-only buffer is never written through it.
  ClMem mem(clCreateBuffer(context(), CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, bytes,
                           const_cast<void*>(data), &err));
  DFC_RETURN_IF_ERROR(
      ClStatus(err, absl::StrCat("clCreateBuffer(", bytes, " bytes of host memory)")));
  if (owner != nullptr) unsettled_.push_back(owner);
  return ClBuffer(std::move(mem), bytes, nullptr, std::move(owner));
}

absl::Status ClContext::Write(ClBuffer& buffer, const void* data, size_t bytes, bool blocking,
                              std::shared_ptr<const void> owner) {
  if (bytes > buffer.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("writing ", bytes, " bytes into a buffer of ", buffer.size()));
  }
  // Some drivers reject a zero-size transfer as CL_INVALID_VALUE; there is nothing to copy.
  if (bytes == 0) return absl::OkStatus();
  std::optional<profiler::RecordEvent> span;
  if (profiler::DeviceEnabled()) span.emplace("write");
  cl_event event = nullptr;
  DFC_CL_RETURN_IF_ERROR(clEnqueueWriteBuffer(queue(), buffer.get(), blocking ? CL_TRUE : CL_FALSE,
                                              0, bytes, data, 0, nullptr, span ? &event : nullptr));
  if (span) Profile(event, "write", bytes, profiler::Direction::kHostToDevice, span->id());
  if (blocking) {
    unsettled_.clear();  // the in-order queue has run every earlier write too
  } else if (owner != nullptr) {
    unsettled_.push_back(std::move(owner));
  }
  return absl::OkStatus();
}

absl::Status ClContext::Copy(const ClBuffer& src, size_t src_offset, ClBuffer& dst,
                             size_t dst_offset, size_t bytes) {
  if (src_offset > src.size() || bytes > src.size() - src_offset || dst_offset > dst.size() ||
      bytes > dst.size() - dst_offset) {
    return absl::InvalidArgumentError(absl::StrCat("copying ", bytes, " bytes at ", src_offset,
                                                   " of a buffer of ", src.size(), " to ",
                                                   dst_offset, " of one of ", dst.size()));
  }
  if (bytes == 0) return absl::OkStatus();
  DFC_CL_RETURN_IF_ERROR(clEnqueueCopyBuffer(queue(), src.get(), dst.get(), src_offset, dst_offset,
                                             bytes, 0, nullptr, nullptr));
  return absl::OkStatus();
}

absl::Status ClContext::Read(const ClBuffer& buffer, void* data, size_t bytes, bool blocking) {
  if (bytes > buffer.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("reading ", bytes, " bytes from a buffer of ", buffer.size()));
  }
  if (bytes == 0) return absl::OkStatus();
  std::optional<profiler::RecordEvent> span;
  if (profiler::DeviceEnabled()) span.emplace("read");
  cl_event event = nullptr;
  DFC_CL_RETURN_IF_ERROR(clEnqueueReadBuffer(queue(), buffer.get(), blocking ? CL_TRUE : CL_FALSE,
                                             0, bytes, data, 0, nullptr, span ? &event : nullptr));
  if (span) Profile(event, "read", bytes, profiler::Direction::kDeviceToHost, span->id());
  if (blocking) unsettled_.clear();
  return absl::OkStatus();
}

void ClContext::Profile(cl_event event, const char* name, size_t bytes,
                        profiler::Direction direction, uint64_t launch) {
  profiler::RecordDeviceEvent(event, queue(),
                              {.kind = profiler::DeviceEventKind::kTransfer,
                               .name = name,
                               .bytes = static_cast<int64_t>(bytes),
                               .direction = direction,
                               .launch = launch});
  if (event != nullptr) clReleaseEvent(event);
}

absl::Status ClContext::SetProfiling(bool on) {
  if (on == profiling_) return absl::OkStatus();
  DFC_RETURN_IF_ERROR(Finish());
  DFC_ASSIGN_OR_RETURN(queue_, MakeQueue(context(), info_, on));
  if (has_inline_device()) {
    DFC_ASSIGN_OR_RETURN(inline_queue_, MakeQueue(context(), *info_.inline_device, on));
  }
  profiling_ = on;
  return absl::OkStatus();
}

ClContext::~ClContext() {
  // Nothing to report to at destruction: a failed wait means a lost device, whose commands are
  // gone anyway.
  if (queue() != nullptr) clFinish(queue());
}

absl::Status ClContext::Finish() {
  DFC_CL_RETURN_IF_ERROR(clFinish(queue()));
  unsettled_.clear();
  return absl::OkStatus();
}

absl::Status ClContext::SettleWrites() { return unsettled_.empty() ? absl::OkStatus() : Finish(); }

}  // namespace dfc::cl
