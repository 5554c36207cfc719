// Measuring the read bandwidth (see bandwidth.h).
#include "runtime/bandwidth.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "runtime/opencl/program_cache.h"

namespace dfc {
namespace {

// `chunked` sums with 16-wide vector loads into four independent accumulators: a scalar
// running sum would wait on each addition (its latency, not the memory, would be measured:
// 12.8 GB/s where the vector loads stream 62 GB/s on the development machine's CPU device).
constexpr char kStreamKernels[] = R"(
__kernel void chunked(__global const float* restrict in, __global float* restrict out,
                      const long n, const long chunk) {
  const long g = get_global_id(0);
  const long begin = g * chunk, end = min(n, begin + chunk);
  float16 a = 0.0f, b = 0.0f, c = 0.0f, d = 0.0f;
  long i = begin;
  for (; i + 64 <= end; i += 64) {
    a += vload16(0, in + i);
    b += vload16(0, in + i + 16);
    c += vload16(0, in + i + 32);
    d += vload16(0, in + i + 48);
  }
  float s = 0.0f;
  for (; i < end; ++i) s += in[i];
  const float16 v = (a + b) + (c + d);
  const float8 h8 = v.lo + v.hi;
  const float4 h4 = h8.lo + h8.hi;
  out[g] = s + h4.x + h4.y + h4.z + h4.w;
}
__kernel void interleaved(__global const float* restrict in, __global float* restrict out,
                          const long n, const long stride) {
  const long g = get_global_id(0);
  float s = 0.0f;
  for (long i = g; i < n; i += stride) s += in[i];
  out[g] = s;
}
)";

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
  DFC_ASSIGN_OR_RETURN(std::shared_ptr<cl::ClProgram> program, cache.Build(kStreamKernels));
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
