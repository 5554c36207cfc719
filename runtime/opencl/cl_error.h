// OpenCL error codes as names and as absl::Status, so that a failing call reports which call
// failed and why ("clBuildProgram(...) failed: CL_BUILD_PROGRAM_FAILURE") instead of a number.
#ifndef DFC_RUNTIME_OPENCL_CL_ERROR_H_
#define DFC_RUNTIME_OPENCL_CL_ERROR_H_

#include <CL/cl.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace dfc::cl {

// The symbolic name of an OpenCL error code ("CL_INVALID_VALUE"); codes that no header
// defines read as "CL_UNKNOWN_ERROR(-9999)", so a vendor's private code still shows its value.
std::string ClErrorName(cl_int code);

// OkStatus for CL_SUCCESS, else "<what> failed: <name>": UnavailableError for a device fault,
// InternalError for anything else.
absl::Status ClStatus(cl_int err, absl::string_view what);

// Whether `err` says the device, not the call, failed: out of device or host memory, out of
// resources, not available. A run cannot go on around such an error (see device_executor.h).
bool IsDeviceFault(cl_int err);

}  // namespace dfc::cl

// Evaluates `call`, an OpenCL call returning cl_int, and returns ClStatus's error carrying the
// call's text and the error name from the enclosing function when it is not CL_SUCCESS.
#define DFC_CL_RETURN_IF_ERROR(call)                                             \
  do {                                                                           \
    const cl_int dfc_cl_err = (call);                                            \
    if (dfc_cl_err != CL_SUCCESS) return ::dfc::cl::ClStatus(dfc_cl_err, #call); \
  } while (false)

#endif  // DFC_RUNTIME_OPENCL_CL_ERROR_H_
