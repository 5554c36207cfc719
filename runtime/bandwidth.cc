// Measuring the read bandwidth (see bandwidth.h).
#include "runtime/bandwidth.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "codegen/fixed_kernels.h"
#include "runtime/opencl/program_cache.h"

namespace dfc {
namespace {

absl::Status Check(cl_int err, const char* what) {
  if (err == CL_SUCCESS) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat("measuring the read bandwidth: ", what, " failed (", err, ")"));
}

}  // namespace

absl::StatusOr<double> MeasureReadBandwidth(const std::shared_ptr<cl::ClContext>& shared) {
  cl::ClContext& context = *shared;
  DFC_RETURN_IF_ERROR(context.SetProfiling(true));  // the kernels are timed by their events
  // The bandwidth of the device with all its threads, not of a small run's inline device.
  DFC_RETURN_IF_ERROR(context.UseInline(false));
  cl::ProgramCache cache(shared);
  DFC_ASSIGN_OR_RETURN(std::shared_ptr<cl::ClProgram> program,
                       cache.Build(codegen::StreamKernelsSource()));
  const cl_long n = cl_long{64} << 20;  // 256 MiB: more than any cache
  const size_t items = 16 * 1024;
  DFC_ASSIGN_OR_RETURN(cl::ClBuffer in, context.Allocate(n * sizeof(float)));
  DFC_ASSIGN_OR_RETURN(cl::ClBuffer out, context.Allocate(items * sizeof(float)));
  const std::vector<float> ones(n, 1.0f);
  DFC_RETURN_IF_ERROR(context.Write(in, ones.data(), n * sizeof(float)));
  double best = 0;
  for (const std::string name : {"chunked", "interleaved"}) {
    DFC_ASSIGN_OR_RETURN(cl::ClKernel kernel, cl::ProgramCache::CreateKernel(*program, name));
    const cl_long step = name == "chunked" ? (n + items - 1) / items : items;
    cl_mem a = in.get(), b = out.get();
    DFC_RETURN_IF_ERROR(Check(clSetKernelArg(kernel.get(), 0, sizeof(cl_mem), &a), "an argument"));
    DFC_RETURN_IF_ERROR(Check(clSetKernelArg(kernel.get(), 1, sizeof(cl_mem), &b), "an argument"));
    DFC_RETURN_IF_ERROR(Check(clSetKernelArg(kernel.get(), 2, sizeof(cl_long), &n), "an argument"));
    DFC_RETURN_IF_ERROR(
        Check(clSetKernelArg(kernel.get(), 3, sizeof(cl_long), &step), "an argument"));
    for (int run = 0; run < 5; ++run) {
      cl_event event = nullptr;
      DFC_RETURN_IF_ERROR(Check(clEnqueueNDRangeKernel(context.queue(), kernel.get(), 1, nullptr,
                                                       &items, nullptr, 0, nullptr, &event),
                                "a launch"));
      cl::ClEvent owned(event);
      DFC_RETURN_IF_ERROR(Check(clWaitForEvents(1, &event), "waiting"));
      cl_ulong start = 0, end = 0;
      clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr);
      clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr);
      if (end > start) best = std::max(best, n * sizeof(float) / ((end - start) * 1e-9));
    }
  }
  if (best <= 0) return absl::InternalError("measuring the read bandwidth: no time was recorded");
  return best;
}

}  // namespace dfc
