// The thesis' subgraph (models/seed_subgraph.pbtxt: MatMul, Add, Softmax, Log, Mul, Sum,
// Reshape) as dfc runs it, one fused kernel, against the bandwidth floor measured in the same
// run: the bytes the subgraph must move, (3216 N + 31400), over the device's read bandwidth.
// Times are OpenCL event times of the kernels (feeds are uploaded outside them), reported as
// Google Benchmark's manual time.
//
//   build/seed_subgraph_bench --benchmark_counters_tabular=true
#include <algorithm>
#include <memory>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "graph/loader.h"
#include "runtime/device_session.h"
#include "runtime/opencl/context.h"
#include "runtime/opencl/device.h"
#include "runtime/opencl/program_cache.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

// Two ways to stream a buffer: each work-item its own contiguous chunk (what CPUs stream
// best), or neighbouring work-items neighbouring elements (what GPUs stream best). Each
// work-item writes its sum so that the reads cannot be optimised away.
constexpr char kStreamKernels[] = R"(
__kernel void chunked(__global const float* restrict in, __global float* restrict out,
                      const long n, const long chunk) {
  const long g = get_global_id(0);
  float s = 0.0f;
  const long end = min(n, (g + 1) * chunk);
  for (long i = g * chunk; i < end; ++i) s += in[i];
  out[g] = s;
}
__kernel void interleaved(__global const float* restrict in, __global float* restrict out,
                          const long n, const long stride) {
  const long g = get_global_id(0);
  float s = 0.0f;
  for (long i = g; i < n; i += stride) s += in[i];
  out[g] = s;
}
)";

// The device's read bandwidth in bytes per second: the faster of the two streaming kernels
// over 64 MiB, best of five runs each.
double MeasureReadBandwidth() {
  absl::StatusOr<cl::DeviceInfo> info = cl::SelectDevice("auto");
  if (!info.ok()) return 0;
  absl::StatusOr<std::shared_ptr<cl::ClContext>> context = cl::ClContext::Create(*info);
  if (!context.ok()) return 0;
  cl::ProgramCache cache(*context);
  absl::StatusOr<std::shared_ptr<cl::ClProgram>> program = cache.Build(kStreamKernels);
  if (!program.ok()) return 0;
  const cl_long n = cl_long{16} << 20;
  const size_t items = 16 * 1024;
  absl::StatusOr<cl::ClBuffer> in = (*context)->Allocate(n * sizeof(float));
  absl::StatusOr<cl::ClBuffer> out = (*context)->Allocate(items * sizeof(float));
  if (!in.ok() || !out.ok()) return 0;
  std::vector<float> ones(n, 1.0f);
  if (!(*context)->Write(*in, ones.data(), n * sizeof(float)).ok()) return 0;
  double best = 0;
  for (const char* name : {"chunked", "interleaved"}) {
    absl::StatusOr<cl::ClKernel> kernel = cl::ProgramCache::CreateKernel(**program, name);
    if (!kernel.ok()) return 0;
    const cl_long step = std::string(name) == "chunked" ? (n + items - 1) / items : items;
    cl_mem a = in->get(), b = out->get();
    clSetKernelArg(kernel->get(), 0, sizeof(cl_mem), &a);
    clSetKernelArg(kernel->get(), 1, sizeof(cl_mem), &b);
    clSetKernelArg(kernel->get(), 2, sizeof(cl_long), &n);
    clSetKernelArg(kernel->get(), 3, sizeof(cl_long), &step);
    for (int run = 0; run < 5; ++run) {
      cl_event event = nullptr;
      if (clEnqueueNDRangeKernel((*context)->queue(), kernel->get(), 1, nullptr, &items, nullptr, 0,
                                 nullptr, &event) != CL_SUCCESS) {
        return 0;
      }
      cl::ClEvent owned(event);
      clWaitForEvents(1, &event);
      cl_ulong start = 0, end = 0;
      clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr);
      clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr);
      if (end > start) best = std::max(best, n * sizeof(float) / ((end - start) * 1e-9));
    }
  }
  return best;
}

double ReadBandwidth() {
  static const double bandwidth = MeasureReadBandwidth();
  return bandwidth;
}

void BM_SeedSubgraphFused(benchmark::State& state) {
  const int64_t n = state.range(0);
  absl::StatusOr<std::unique_ptr<DeviceSession>> session =
      DeviceSession::Open(std::string(DFC_SOURCE_DIR) + "/models/seed_subgraph.pbtxt",
                          {.device = "auto", .executor = {.time_kernels = true}});
  if (!session.ok()) {
    state.SkipWithError(std::string(session.status().message()).c_str());
    return;
  }
  Tensor y = Tensor::Zeros(DType::kFloat, {n, 10});
  for (int64_t i = 0; i < n; ++i) y.mutable_flat<float>()[i * 10 + i % 10] = -1.0f / n;
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"in1", y},
      {"in2", testing::UniformFloats({n, 784}, 1, 0.0f, 1.0f)},
      {"in3", testing::UniformFloats({784, 10}, 2, -0.05f, 0.05f)},
      {"in4", testing::UniformFloats({10}, 3, -0.1f, 0.1f)}};
  double total_seconds = 0;
  for (auto _ : state) {
    absl::StatusOr<std::vector<Tensor>> out = (*session)->Run(feeds, {"out"});
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      return;
    }
    int64_t ns = 0;
    for (const DeviceExecutor::KernelTime& k : (*session)->executor().kernel_times()) {
      ns += k.nanoseconds;
    }
    state.SetIterationTime(ns * 1e-9);
    total_seconds += ns * 1e-9;
  }
  const double bytes = 3216.0 * n + 31400.0;
  const double floor_seconds = bytes / ReadBandwidth();
  state.counters["GB/s"] = benchmark::Counter(bytes, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["floor_ms"] = floor_seconds * 1e3;
  // The fraction of the floor: 1 is as fast as the reads alone allow.
  state.counters["floor_fraction"] =
      total_seconds / static_cast<double>(state.iterations()) / floor_seconds;
  state.counters["read_GB/s"] = ReadBandwidth() * 1e-9;
  state.SetLabel((*session)->executor().device_name());
}
BENCHMARK(BM_SeedSubgraphFused)
    ->ArgName("N")
    ->Arg(1024)
    ->Arg(4096)
    ->Arg(16384)
    ->Arg(65536)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dfc

BENCHMARK_MAIN();
