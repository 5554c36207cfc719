// One OpenCL context and its command queue on a chosen device, and the device buffers that
// tensors live in. Everything a session enqueues goes through one in-order queue at a time:
// the device's, or its inline device's (DeviceInfo::inline_device), which shares the context's
// buffers and runs a small run's commands on the waiting thread.
#ifndef DFC_RUNTIME_OPENCL_CONTEXT_H_
#define DFC_RUNTIME_OPENCL_CONTEXT_H_

#include <CL/cl.h>

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/opencl/buffer_pool.h"
#include "runtime/opencl/device.h"
#include "runtime/opencl/handles.h"
#include "runtime/profiler/profiler.h"

namespace dfc::testing {
class TestHooks;  // tests/test_hooks.h
}  // namespace dfc::testing

namespace dfc::cl {

// A device buffer and the size it was asked for. The cl_mem may be larger (a zero-byte request
// gets one byte, since clCreateBuffer rejects size 0), so reads and writes check `size()`.
// A buffer made by ClContext::Allocate goes back to its context's pool when destroyed.
class ClBuffer {
 public:
  ClBuffer(ClMem mem, size_t size, std::shared_ptr<BufferPool> pool = nullptr,
           std::shared_ptr<const void> host = nullptr)
      : mem_(std::move(mem)), size_(size), pool_(std::move(pool)), host_(std::move(host)) {}
  ~ClBuffer() {
    if (pool_ != nullptr) pool_->Give(std::move(mem_), Capacity(size_));
  }
  ClBuffer(ClBuffer&&) = default;
  ClBuffer& operator=(ClBuffer&&) = default;

  cl_mem get() const { return mem_.get(); }
  size_t size() const { return size_; }

  // The bytes underneath a buffer asked for `size` bytes.
  static size_t Capacity(size_t size) { return size == 0 ? 1 : size; }

 private:
  ClMem mem_;
  size_t size_;
  std::shared_ptr<BufferPool> pool_;
  std::shared_ptr<const void> host_;  // what holds the host memory a borrowed buffer reads
};

// Shared (std::shared_ptr) by the program cache, kernels and buffers' users, so the context
// outlives everything created from it.
class ClContext {
 public:
  static absl::StatusOr<std::shared_ptr<ClContext>> Create(const DeviceInfo& info);

  ClContext(const ClContext&) = delete;
  ClContext& operator=(const ClContext&) = delete;
  // Waits for the queue: a run that fetches nothing returns with its kernels still queued, and
  // they may read host memory this context keeps alive (see Write), or still be compiling on
  // the driver's threads when the process exits.
  ~ClContext();

  cl_context context() const { return context_.get(); }
  // The queue commands go to now (in order; recording times while `profiling()`).
  cl_command_queue queue() const { return inline_ ? inline_queue_.get() : queue_.get(); }
  // The device that queue runs on, for which programs are built (see UseInline).
  const DeviceInfo& target() const { return inline_ ? *info_.inline_device : info_; }
  cl_device_id device() const { return target().device; }
  // The device the context was made for, whose name and limits the generated code follows.
  const DeviceInfo& info() const { return info_; }

  // Sends the commands that follow to the inline device (`on`, where the device has one) or to
  // the device itself. A switch first waits for the queue it leaves, so that commands keep
  // their order across the two.
  absl::Status UseInline(bool on);
  bool has_inline_device() const { return info_.inline_device != nullptr; }
  bool inline_active() const { return inline_; }

  // A read-write buffer of `bytes` bytes (at least one underneath, so zero-size tensors work):
  // one of the same size from the pool when there is one (see buffer_pool.h), else a new one.
  absl::StatusOr<ClBuffer> Allocate(size_t bytes);
  // A buffer over `bytes` of host memory at `data`, which the device reads where it lies
  // (CL_MEM_USE_HOST_PTR) on a device with host_unified_memory: no copy, where Allocate and
  // Write would copy. `owner` (what holds `data`) lives as long as the buffer, and until the
  // queue is next waited for; the buffer goes to no pool, and kernels only read it.
  absl::StatusOr<ClBuffer> Borrow(const void* data, size_t bytes,
                                  std::shared_ptr<const void> owner);
  // The buffers kept for reuse: at most a quarter of the device's global memory by default.
  BufferPool& pool() { return *pool_; }
  // Copies between host memory and the start of `buffer`; `bytes` <= buffer.size(). Each is a
  // transfer of the profiler's while it records the device.
  //
  // A write that does not block reads `data` when the queue runs it: `owner` (what holds
  // `data`; null for static data) is kept alive until the queue is next waited for (a blocking
  // read, Finish or SettleWrites), and the caller must not change `data` before then.
  absl::Status Write(ClBuffer& buffer, const void* data, size_t bytes, bool blocking = true,
                     std::shared_ptr<const void> owner = nullptr);
  // A read that does not block must not have `data` touched until the queue has run it (a
  // later blocking read or Finish; the queue runs in order).
  absl::Status Read(const ClBuffer& buffer, void* data, size_t bytes, bool blocking = true);
  // Waits for the queue if a write that did not block may not have run yet, so that its host
  // memory is the caller's again (a run that reads nothing back ends with it).
  absl::Status SettleWrites();
  // Enqueues a copy of `bytes` bytes from `src` at `src_offset` to `dst` at `dst_offset`, on
  // the device (not a host transfer, so not one of the profiler's).
  absl::Status Copy(const ClBuffer& src, size_t src_offset, ClBuffer& dst, size_t dst_offset,
                    size_t bytes);
  // Waits for everything enqueued so far.
  absl::Status Finish();
  // Enqueues a one-dimensional range of `kernel` (local null: the driver picks), with its event
  // in `event` when that is not null.
  absl::Status Launch(cl_kernel kernel, size_t global, const size_t* local, cl_event* event);
  // The kernels Launch has enqueued since the context was made.
  int64_t launches() const { return launches_; }

  // The calls a test may make fail (tests/test_hooks.h), as a driver does when memory runs out
  // or the device is lost.
  enum class FaultKind { kAllocation, kLaunch };

  // Whether the queue records its commands' times (CL_QUEUE_PROFILING_ENABLE), which kernel
  // timing, the bandwidth measurement and the profiler need and nothing else does. A queue's
  // properties are fixed when it is made, so a change waits for the queue and replaces it
  // (buffers and programs belong to the context and stay). Off when the context is made.
  absl::Status SetProfiling(bool on);
  bool profiling() const { return profiling_; }

 private:
  friend class ::dfc::testing::TestHooks;

  void Profile(cl_event event, const char* name, size_t bytes, profiler::Direction direction,
               uint64_t launch);

  ClContext(DeviceInfo info, ClContextHandle context, ClQueue queue, ClQueue inline_queue,
            size_t pool_capacity)
      : info_(std::move(info)),
        context_(std::move(context)),
        queue_(std::move(queue)),
        inline_queue_(std::move(inline_queue)),
        pool_(std::make_shared<BufferPool>(pool_capacity)) {}

  // CL_SUCCESS, or the injected fault's error if this call of `kind` is the one to fail.
  cl_int InjectedFault(FaultKind kind);

  DeviceInfo info_;
  bool profiling_ = false;
  bool inline_ = false;
  int64_t launches_ = 0;
  // The owners of the host memory that writes not yet waited for read (see Write). The
  // context is used by one thread at a time, as its queue is.
  std::vector<std::shared_ptr<const void>> unsettled_;
  // A fault a test injected: the call of `kind` after the next `after` ones returns `error`
  // instead of reaching the driver; `after` < 0 for none.
  struct Fault {
    FaultKind kind;
    int after = -1;
    cl_int error = CL_SUCCESS;
  } fault_{};
  // Declared before queue_ so the queue is released first.
  ClContextHandle context_;
  ClQueue queue_;
  ClQueue inline_queue_;  // null where the device has no inline device
  // Shared with the buffers, which may outlive the context (a cl_mem keeps its context alive).
  std::shared_ptr<BufferPool> pool_;
};

}  // namespace dfc::cl

#endif  // DFC_RUNTIME_OPENCL_CONTEXT_H_
