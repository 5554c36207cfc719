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
//   can reach at best. Beside them, a hand-written fused kernel of the chain (16 elements at
//   once, each work-item its own contiguous chunk; checked against the reference executor
//   before it is timed), timed reading every element (`chain/hand`) and reading the first 16 KB
//   of each input over and over (`chain/hand_cached`): the arithmetic without the memory
//   traffic, what bounds from below any kernel of the chain on the device.
//
// Times are OpenCL event times of the kernels (feeds are uploaded outside them).
//
//   DFC_CACHE_DIR=build/program-cache build/model_bench --benchmark_counters_tabular=true
#include <map>
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

// The chain of dl4j_transform_0 (workloads::Chain: its MatMul made a Mul) on 16 elements at
// once, with TensorFlow's semantics: Minimum and Maximum return a NaN operand, Rsqrt is 1/sqrt.
// Work-item g writes elements [g * chunk, (g + 1) * chunk), n and chunk multiples of 16, and
// reads element i of the inputs from element i % cached.
constexpr char kChainHandKernel[] = R"cl(
float16 minimum(float16 x, float16 y) {
  return select(select(select(x, y, y < x), y, isnan(y)), x, isnan(x));
}
float16 maximum(float16 x, float16 y) {
  return select(select(select(x, y, x < y), y, isnan(y)), x, isnan(x));
}
float16 chain(float16 in0, float16 in1) {
  float16 v = maximum(in0 + in1, in1);
  v = acos(fabs(minimum(v, in1)));
  v = maximum(v + in1, in1);
  v = ceil(acos(fabs(minimum(v, in1))));
  v = log(exp(cosh(cos(minimum(v, in1)))));
  return 1 / sqrt(v * in1);
}
__kernel void chain_hand(__global const float* restrict in0, __global const float* restrict in1,
                         __global float* restrict out, const long n, const long chunk,
                         const long cached) {
  const long begin = get_global_id(0) * chunk, end = min(n, begin + chunk);
  for (long i = begin; i < end; i += 16) {
    const long at = i % cached;
    vstore16(chain(vload16(0, in0 + at), vload16(0, in1 + at)), 0, out + i);
  }
}
)cl";
constexpr int64_t kChainCachedFloats = 4096;  // hand_cached: 16 KB of each input, in L1

// The hand-written chain kernel set up over the chain's feeds, reading the first `cached`
// elements of each input over and over (every element when cached is the size).
class ChainHandKernel {
 public:
  static absl::StatusOr<ChainHandKernel> Make(const Workload& w, int64_t cached) {
    if (w.size % 16 != 0 || cached % 16 != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("chain_hand needs multiples of 16 elements, not ", w.size));
    }
    ChainHandKernel hand;
    hand.context_ = Shared().executor->context();
    DFC_RETURN_IF_ERROR(hand.context_->SetProfiling(true));
    cl::ProgramCache cache(hand.context_);
    DFC_ASSIGN_OR_RETURN(std::shared_ptr<cl::ClProgram> program, cache.Build(kChainHandKernel));
    DFC_ASSIGN_OR_RETURN(hand.kernel_, cl::ProgramCache::CreateKernel(*program, "chain_hand"));
    const workloads::Feeds feeds = w.feeds();
    std::map<std::string, Tensor> by_name;
    for (const Feed& feed : feeds) by_name[feed.id.node] = feed.value;
    const Tensor out = Tensor::Zeros(DType::kFloat, by_name["input_0"].shape());
    cl_uint arg = 0;
    for (const Tensor* t :
         std::initializer_list<const Tensor*>{&by_name["input_0"], &by_name["input_1"], &out}) {
      DFC_ASSIGN_OR_RETURN(cl::ClBuffer buffer, hand.context_->Allocate(t->byte_size()));
      DFC_RETURN_IF_ERROR(hand.context_->Write(buffer, t->raw_data(), t->byte_size()));
      cl_mem mem = buffer.get();
      DFC_CL_RETURN_IF_ERROR(clSetKernelArg(hand.kernel_.get(), arg++, sizeof(cl_mem), &mem));
      hand.buffers_.push_back(std::move(buffer));
    }
    const cl_long chunk = (w.size / 16 + kItems - 1) / kItems * 16;
    for (const cl_long value : {cl_long{w.size}, chunk, cl_long{cached}}) {
      DFC_CL_RETURN_IF_ERROR(clSetKernelArg(hand.kernel_.get(), arg++, sizeof(cl_long), &value));
    }
    hand.out_shape_ = out.shape();
    return hand;
  }

  // One launch; its event time in seconds.
  absl::StatusOr<double> Run() { return LaunchAndTime(*context_, kernel_.get(), kItems, nullptr); }

  absl::StatusOr<Tensor> Output() {
    Tensor out = Tensor::Zeros(DType::kFloat, out_shape_);
    DFC_RETURN_IF_ERROR(context_->Read(buffers_.back(), out.mutable_raw_data(), out.byte_size()));
    return out;
  }

 private:
  static constexpr size_t kItems = 4096;
  std::shared_ptr<cl::ClContext> context_;
  cl::ClKernel kernel_;
  std::vector<cl::ClBuffer> buffers_;  // in0, in1, out
  Shape out_shape_;
};

// The hand-written chain reading every element, checked against the reference executor's
// answer with the tolerance every variant of the rules is checked with; then timed reading
// every element or the first kChainCachedFloats over and over.
void BM_ChainHand(benchmark::State& state, const Workload& w, bool cached) {
  Fixture& f = Shared();
  if (!f.error.empty()) {
    state.SkipWithError(f.error.c_str());
    return;
  }
  absl::Status ready = [&]() -> absl::Status {
    DFC_ASSIGN_OR_RETURN(ChainHandKernel full, ChainHandKernel::Make(w, w.size));
    DFC_RETURN_IF_ERROR(full.Run().status());
    DFC_ASSIGN_OR_RETURN(Tensor actual, full.Output());
    return CheckHandWritten(w, actual);
  }();
  if (!ready.ok()) {
    state.SkipWithError(std::string(ready.message()).c_str());
    return;
  }
  absl::StatusOr<ChainHandKernel> hand =
      ChainHandKernel::Make(w, cached ? std::min(w.size, kChainCachedFloats) : w.size);
  if (!hand.ok()) {
    state.SkipWithError(std::string(hand.status().message()).c_str());
    return;
  }
  TimeLaunches(state, w, [&] { return hand->Run(); });
}

void RegisterAll() {
  for (const int64_t elements : {int64_t{1} << 20, int64_t{1} << 22, int64_t{1} << 24}) {
    const Workload chain = workloads::Chain(elements);
    RegisterVariant(chain, "copy", [chain](benchmark::State& state) { BM_Copy(state, chain); });
    RegisterStrategies(chain);
    for (const bool cached : {false, true}) {
      RegisterVariant(
          chain, cached ? "hand_cached" : "hand",
          [chain, cached](benchmark::State& state) { BM_ChainHand(state, chain, cached); });
    }
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
