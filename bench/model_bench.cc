// Whole graphs of ../shared/models and an elementwise chain, described in tests/workloads.h:
//
// - the MNIST softmax regression's training step (the loss and GradientDescent's update) and
//   the frozen MLPs, at batch 1, 64 and 8192, each as the unfused chain (one kernel per op,
//   MatMuls through CLBlast's GEMM: how TensorFlow runs them), dfc's default strategy, dfc
//   with every MatMul a kernel of its own beside the fused rest (the thesis' "Lift
//   Separated") and dfc's tuned variants (not for the training step: TunePlan refuses a plan
//   whose variables change every run);
// - the 18 elementwise ops of dl4j_transform_0 on 1M to 16M elements, against a copy of the
//   same bytes measured in the same run (`chain/copy`): the bandwidth an elementwise kernel
//   can reach at best.
//
// Times are OpenCL event times of the kernels (feeds are uploaded outside them).
//
//   DFC_CACHE_DIR=build/program-cache build/model_bench --benchmark_counters_tabular=true
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/bench_util.h"
#include "runtime/opencl/cl_error.h"
#include "runtime/opencl/program_cache.h"

namespace dfc::bench {
namespace {

using workloads::Workload;

// Each work-item copies its own contiguous chunk with 16-wide vector loads and stores: what
// the CPU device streams best (runtime/bandwidth.cc reads the same way).
constexpr char kCopyKernel[] = R"cl(
__kernel void copy(__global const float* restrict in, __global float* restrict out,
                   const long n, const long chunk) {
  const long begin = get_global_id(0) * chunk, end = min(n, begin + chunk);
  long i = begin;
  for (; i + 16 <= end; i += 16) vstore16(vload16(0, in + i), 0, out + i);
  for (; i < end; ++i) out[i] = in[i];
}
)cl";

// A copy of `floats` floats from one buffer to another: it reads and writes 8 bytes an element.
class CopyKernel {
 public:
  static absl::StatusOr<CopyKernel> Make(int64_t floats) {
    CopyKernel copy;
    copy.context_ = Shared().executor->context();
    DFC_RETURN_IF_ERROR(copy.context_->SetProfiling(true));
    cl::ProgramCache cache(copy.context_);
    DFC_ASSIGN_OR_RETURN(std::shared_ptr<cl::ClProgram> program, cache.Build(kCopyKernel));
    DFC_ASSIGN_OR_RETURN(copy.kernel_, cl::ProgramCache::CreateKernel(*program, "copy"));
    const std::vector<float> ones(floats, 1.0f);
    for (cl_uint b = 0; b < 2; ++b) {
      DFC_ASSIGN_OR_RETURN(cl::ClBuffer buffer, copy.context_->Allocate(floats * sizeof(float)));
      DFC_RETURN_IF_ERROR(copy.context_->Write(buffer, ones.data(), floats * sizeof(float)));
      cl_mem mem = buffer.get();
      DFC_CL_RETURN_IF_ERROR(clSetKernelArg(copy.kernel_.get(), b, sizeof(cl_mem), &mem));
      copy.buffers_.push_back(std::move(buffer));
    }
    const cl_long n = floats, chunk = (floats + kItems - 1) / kItems;
    DFC_CL_RETURN_IF_ERROR(clSetKernelArg(copy.kernel_.get(), 2, sizeof(cl_long), &n));
    DFC_CL_RETURN_IF_ERROR(clSetKernelArg(copy.kernel_.get(), 3, sizeof(cl_long), &chunk));
    return copy;
  }

  // One launch; its event time in seconds.
  absl::StatusOr<double> Run() { return LaunchAndTime(*context_, kernel_.get(), kItems, nullptr); }

 private:
  static constexpr size_t kItems = 4096;
  std::shared_ptr<cl::ClContext> context_;
  cl::ClKernel kernel_;
  std::vector<cl::ClBuffer> buffers_;  // in, out
};

// Copies as many bytes as the workload moves (half of them read, half written), reporting
// the same counters as the workload's own variants: its GB/s is the copy bandwidth.
void BM_Copy(benchmark::State& state, const Workload& w) {
  Fixture& f = Shared();
  if (!f.error.empty()) {
    state.SkipWithError(f.error.c_str());
    return;
  }
  absl::StatusOr<CopyKernel> copy = CopyKernel::Make(static_cast<int64_t>(w.bytes / 8));
  if (!copy.ok()) {
    state.SkipWithError(std::string(copy.status().message()).c_str());
    return;
  }
  TimeLaunches(state, w, [&] { return copy->Run(); });
}

void RegisterAll() {
  for (const int64_t elements : {int64_t{1} << 20, int64_t{1} << 22, int64_t{1} << 24}) {
    const Workload chain = workloads::Chain(elements);
    RegisterVariant(chain, "copy", [chain](benchmark::State& state) { BM_Copy(state, chain); });
    RegisterStrategies(chain);
  }
  for (const int64_t batch : {1, 64, 8192}) {
    for (const Workload& model : workloads::Models(batch)) {
      RegisterStrategies(model, "unfused", /*split=*/true);
    }
  }
}

}  // namespace
}  // namespace dfc::bench

int main(int argc, char** argv) { return dfc::bench::Main(argc, argv, dfc::bench::RegisterAll); }
