// Move-only owners of OpenCL objects, after CLBlast's clpp11.hpp: each holds one reference to
// the raw handle and releases it when destroyed, so no early return leaks a context or buffer.
#ifndef DFC_RUNTIME_OPENCL_HANDLES_H_
#define DFC_RUNTIME_OPENCL_HANDLES_H_

#include <CL/cl.h>

#include <utility>

namespace dfc::cl {

// Owns one reference to `handle`. `Release` is the matching clReleaseX; its result is ignored
// because a destructor cannot report it and the only failure is an already-invalid handle.
template <typename T, auto Release>
class ClHandle {
 public:
  ClHandle() = default;
  // Takes over a reference the caller already holds (from clCreateX or clRetainX).
  explicit ClHandle(T handle) : handle_(handle) {}
  ~ClHandle() { Reset(); }

  ClHandle(const ClHandle&) = delete;
  ClHandle& operator=(const ClHandle&) = delete;
  ClHandle(ClHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  ClHandle& operator=(ClHandle&& other) noexcept {
    if (this != &other) {
      Reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }

  T get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }
  // Gives up ownership without releasing.
  T release() { return std::exchange(handle_, nullptr); }

 private:
  void Reset() {
    if (handle_ != nullptr) (void)Release(handle_);
    handle_ = nullptr;
  }

  T handle_ = nullptr;
};

using ClContextHandle = ClHandle<cl_context, clReleaseContext>;
using ClQueue = ClHandle<cl_command_queue, clReleaseCommandQueue>;
using ClProgram = ClHandle<cl_program, clReleaseProgram>;
using ClKernel = ClHandle<cl_kernel, clReleaseKernel>;
using ClMem = ClHandle<cl_mem, clReleaseMemObject>;
using ClEvent = ClHandle<cl_event, clReleaseEvent>;

}  // namespace dfc::cl

#endif  // DFC_RUNTIME_OPENCL_HANDLES_H_
