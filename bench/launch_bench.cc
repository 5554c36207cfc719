// What a kernel launch costs on the device, apart from its work: kLaunches launches of a
// one-FMA-per-item kernel enqueued in turn and one wait, on the device's queue and on its
// inline device's (DeviceInfo::inline_device), each way twice: launched one by one (what a run
// does), and recorded once as a cl_khr_command_buffer and replayed with one call where the
// device has the extension (what a run could do). The "per_launch" counter is a run's time over
// its launches; narrow kernels (64 items) measure the hand-off, wide ones (1 Mi items) what the
// device's threads then gain. DFC_DEVICE picks the device (default auto).
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "bench/bench_main.h"
#include "benchmark/benchmark.h"
#include "runtime/opencl/cl_error.h"
#include "runtime/opencl/context.h"
#include "runtime/opencl/device.h"
#include "runtime/opencl/handles.h"

namespace dfc::bench {
namespace {

constexpr int kLaunches = 20;
constexpr char kSource[] =
    "__kernel void advance(__global const float* in, __global float* out) {\n"
    "  const size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * 0.5f + 1.0f;\n"
    "}\n";

// The device, its program's kernel and two buffers the launches ping-pong between.
struct Launcher {
  std::shared_ptr<cl::ClContext> context;
  cl::ClProgram program;
  cl::ClKernel kernel;
  cl::ClMem a, b;
  size_t items = 0;

  static absl::StatusOr<std::unique_ptr<Launcher>> Open(size_t items) {
    const char* kind = std::getenv("DFC_DEVICE");
    DFC_ASSIGN_OR_RETURN(cl::DeviceInfo info, cl::SelectDevice(kind != nullptr ? kind : "auto"));
    auto l = std::make_unique<Launcher>();
    l->items = items;
    DFC_ASSIGN_OR_RETURN(l->context, cl::ClContext::Create(info));
    cl_int err = CL_SUCCESS;
    const char* source = kSource;
    l->program =
        cl::ClProgram(clCreateProgramWithSource(l->context->context(), 1, &source, nullptr, &err));
    DFC_RETURN_IF_ERROR(cl::ClStatus(err, "clCreateProgramWithSource"));
    // Built for the context's devices: the inline device shares it.
    DFC_RETURN_IF_ERROR(cl::ClStatus(
        clBuildProgram(l->program.get(), 0, nullptr, "", nullptr, nullptr), "clBuildProgram"));
    l->kernel = cl::ClKernel(clCreateKernel(l->program.get(), "advance", &err));
    DFC_RETURN_IF_ERROR(cl::ClStatus(err, "clCreateKernel"));
    for (cl::ClMem* m : {&l->a, &l->b}) {
      *m = cl::ClMem(clCreateBuffer(l->context->context(), CL_MEM_READ_WRITE, items * sizeof(float),
                                    nullptr, &err));
      DFC_RETURN_IF_ERROR(cl::ClStatus(err, "clCreateBuffer"));
    }
    return l;
  }

  // Launch k's arguments: from a to b, then back.
  absl::Status SetArguments(int k) {
    cl_mem from = k % 2 == 0 ? a.get() : b.get(), to = k % 2 == 0 ? b.get() : a.get();
    DFC_RETURN_IF_ERROR(
        cl::ClStatus(clSetKernelArg(kernel.get(), 0, sizeof(cl_mem), &from), "clSetKernelArg"));
    return cl::ClStatus(clSetKernelArg(kernel.get(), 1, sizeof(cl_mem), &to), "clSetKernelArg");
  }
};

// The extension's entry points, where the device has it.
struct CommandBufferApi {
  clCreateCommandBufferKHR_fn create = nullptr;
  clCommandNDRangeKernelKHR_fn ndrange = nullptr;
  clFinalizeCommandBufferKHR_fn finalize = nullptr;
  clEnqueueCommandBufferKHR_fn enqueue = nullptr;
  clReleaseCommandBufferKHR_fn release = nullptr;

  static absl::StatusOr<CommandBufferApi> Of(cl_device_id device) {
    size_t size = 0;
    DFC_RETURN_IF_ERROR(cl::ClStatus(
        clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, nullptr, &size), "clGetDeviceInfo"));
    std::string extensions(size, '\0');
    DFC_RETURN_IF_ERROR(cl::ClStatus(
        clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, size, extensions.data(), nullptr),
        "clGetDeviceInfo"));
    if (!absl::StrContains(extensions, "cl_khr_command_buffer")) {
      return absl::UnimplementedError("the device has no cl_khr_command_buffer");
    }
    cl_platform_id platform = nullptr;
    DFC_RETURN_IF_ERROR(cl::ClStatus(
        clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof(platform), &platform, nullptr),
        "clGetDeviceInfo"));
    const auto entry = [&](const char* name) {
      return clGetExtensionFunctionAddressForPlatform(platform, name);
    };
    CommandBufferApi api;
    api.create = reinterpret_cast<clCreateCommandBufferKHR_fn>(entry("clCreateCommandBufferKHR"));
    api.ndrange =
        reinterpret_cast<clCommandNDRangeKernelKHR_fn>(entry("clCommandNDRangeKernelKHR"));
    api.finalize =
        reinterpret_cast<clFinalizeCommandBufferKHR_fn>(entry("clFinalizeCommandBufferKHR"));
    api.enqueue =
        reinterpret_cast<clEnqueueCommandBufferKHR_fn>(entry("clEnqueueCommandBufferKHR"));
    api.release =
        reinterpret_cast<clReleaseCommandBufferKHR_fn>(entry("clReleaseCommandBufferKHR"));
    if (!api.create || !api.ndrange || !api.finalize || !api.enqueue || !api.release) {
      return absl::UnimplementedError("the platform lacks cl_khr_command_buffer's entry points");
    }
    return api;
  }
};

void PerLaunch(benchmark::State& state) {
  state.counters["per_launch"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * kLaunches,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Ends the benchmark with `status`'s message where it is an error.
bool Failed(benchmark::State& state, const absl::Status& status) {
  if (status.ok()) return false;
  state.SkipWithError(std::string(status.message()).c_str());
  return true;
}

// The launcher for `state`'s arguments (items a launch, whether on the inline device), or
// nullptr with the benchmark ended where the device cannot give it.
std::unique_ptr<Launcher> OpenFor(benchmark::State& state) {
  absl::StatusOr<std::unique_ptr<Launcher>> l = Launcher::Open(state.range(0));
  if (Failed(state, l.status())) return nullptr;
  cl::ClContext& context = *(*l)->context;
  if (state.range(1) != 0 && !context.has_inline_device()) {
    state.SkipWithError("the device has no inline device");
    return nullptr;
  }
  if (Failed(state, context.UseInline(state.range(1) != 0))) return nullptr;
  return *std::move(l);
}

// Args: items a launch, whether on the inline device.
void BM_OneByOne(benchmark::State& state) {
  const std::unique_ptr<Launcher> l = OpenFor(state);
  if (l == nullptr) return;
  cl::ClContext& context = *l->context;
  const size_t items = l->items;
  for (auto _ : state) {
    for (int k = 0; k < kLaunches; ++k) {
      if (Failed(state, l->SetArguments(k)) ||
          Failed(state, context.Launch(l->kernel.get(), items, nullptr, nullptr))) {
        return;
      }
    }
    if (Failed(state, context.Finish())) return;
  }
  PerLaunch(state);
}

void BM_Replayed(benchmark::State& state) {
  const std::unique_ptr<Launcher> l = OpenFor(state);
  if (l == nullptr) return;
  cl::ClContext& context = *l->context;
  absl::StatusOr<CommandBufferApi> api = CommandBufferApi::Of(context.device());
  if (Failed(state, api.status())) return;
  cl_command_queue queue = context.queue();
  cl_int err = CL_SUCCESS;
  cl_command_buffer_khr recorded = api->create(1, &queue, nullptr, &err);
  if (Failed(state, cl::ClStatus(err, "clCreateCommandBufferKHR"))) return;
  const size_t items = l->items;
  for (int k = 0; k < kLaunches && err == CL_SUCCESS; ++k) {
    if (Failed(state, l->SetArguments(k))) break;
    err = api->ndrange(recorded, nullptr, nullptr, l->kernel.get(), 1, nullptr, &items, nullptr, 0,
                       nullptr, nullptr, nullptr);
  }
  if (err == CL_SUCCESS) err = api->finalize(recorded);
  if (!Failed(state, cl::ClStatus(err, "recording the command buffer"))) {
    for (auto _ : state) {
      if (Failed(state, cl::ClStatus(api->enqueue(0, nullptr, recorded, 0, nullptr, nullptr),
                                     "clEnqueueCommandBufferKHR")) ||
          Failed(state, context.Finish())) {
        break;
      }
    }
    PerLaunch(state);
  }
  api->release(recorded);
}

void RegisterAll() {
  for (auto* bm : {benchmark::RegisterBenchmark("launches/one_by_one", BM_OneByOne),
                   benchmark::RegisterBenchmark("launches/replayed", BM_Replayed)}) {
    bm->ArgNames({"items", "inline"})
        ->ArgsProduct({{64, 1 << 20}, {0, 1}})
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace
}  // namespace dfc::bench

int main(int argc, char** argv) {
  return dfc::bench::PeerMain(argc, argv, dfc::bench::RegisterAll);
}
