// The thesis' subgraph (models/seed_subgraph.pbtxt: MatMul, Add, Softmax, Log, Mul, Sum,
// Reshape) and a second one of other sizes and ops (models/relu_subgraph.pbtxt: 512 features,
// 7 classes, Relu, a row sum), described in tests/workloads.h, each as the unfused chain (one
// kernel per op, the MatMul through CLBlast's GEMM) and as dfc runs it — under the default
// strategy, and as the variant the explorer picks at each N (runtime/tune.h) — against the
// bandwidth floor measured in the same run: the bytes the subgraph must move over the
// device's read bandwidth (runtime/bandwidth.h). Times are OpenCL event times of the kernels
// (feeds are uploaded outside them), reported as Google Benchmark's manual time.
//
// Beside them, a hand-written fused kernel for the seed: what the issue's targets were set
// from (rows to work-items, 16-wide vector loads, the weights read transposed), with the two
// things the rules do not yet make — two rows a work-item (each weight vector loaded once for
// both) and the softmax's ten exps as one float16 padded with -inf — timed twice: reading
// every row (`seed/hand`), and reading the first 64 rows over and over
// (`seed/hand_rows_cached`), which leaves the arithmetic alone and so bounds from below what
// any kernel of this shape can reach on the device. A third timing, `seed/hand_logits`, runs
// the same kernel cut to the seed's MatMul and bias (node "add": no labels, softmax, log or
// product), reading every row: the contraction alone, beside the memory traffic. It moves 40
// bytes a row fewer than the seed and is judged against the seed's floor all the same, so its
// floor fraction flatters it. Each answer is checked against the reference executor's (of
// "out", or of "add") before it is timed.
//
//   DFC_CACHE_DIR=build/program-cache build/seed_subgraph_bench --benchmark_counters_tabular=true
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "bench/bench_util.h"
#include "runtime/opencl/cl_error.h"
#include "runtime/opencl/program_cache.h"

namespace dfc::bench {
namespace {

using workloads::Workload;

// The seed's hand-written fused kernel (see the top of this file), for FEATURES a multiple of
// 16 and CLASSES at most 16. Work-item g computes rows ROWS * g onwards; row i of x is read
// from row i % x_rows (x_rows = n reads every row once). `wt` is the weights transposed, as
// storeTransposed leaves them.
constexpr char kSeedHandKernel[] = R"cl(
#if defined(__clang__)
#define PREFETCH(p) __builtin_prefetch(p, 0, 3)
#else
#define PREFETCH(p)
#endif
#define ROWS 2
#define PREFETCH_FLOATS 4096
// The sum of v's 16 lanes, by halves.
float sum16(const float16 v) {
  const float8 h8 = v.lo + v.hi;
  const float4 h4 = h8.lo + h8.hi;
  const float2 h2 = h4.lo + h4.hi;
  return h2.x + h2.y;
}
__kernel void seed_hand(__global const float* restrict x, __global const float* restrict wt,
                        __global const float* restrict bias,
                        __global const float* restrict labels, __global float* restrict out,
                        const long n, const long x_rows) {
  const long first = get_global_id(0) * ROWS;
  if (first >= n) return;
  __global const float* row[ROWS];
  float16 acc[ROWS][CLASSES];
  #pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    row[r] = x + (min(first + r, n - 1) % x_rows) * FEATURES;
    #pragma unroll
    for (int c = 0; c < CLASSES; ++c) acc[r][c] = 0.0f;
  }
  for (int k = 0; k < FEATURES; k += 16) {
    float16 xv[ROWS];
    #pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      PREFETCH(row[r] + k + PREFETCH_FLOATS);
      xv[r] = vload16(0, row[r] + k);
    }
    #pragma unroll
    for (int c = 0; c < CLASSES; ++c) {
      const float16 wv = vload16(0, wt + c * FEATURES + k);
      #pragma unroll
      for (int r = 0; r < ROWS; ++r) acc[r][c] = fma(xv[r], wv, acc[r][c]);
    }
  }
  #pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const long i = first + r;
    if (i >= n) break;
#ifdef LOGITS_ONLY
    #pragma unroll
    for (int c = 0; c < CLASSES; ++c) out[i * CLASSES + c] = sum16(acc[r][c]) + bias[c];
#else
    float logits[16];
    float m = -INFINITY;
    #pragma unroll
    for (int c = 0; c < 16; ++c) {
      if (c < CLASSES) {
        logits[c] = sum16(acc[r][c]) + bias[c];
        m = fmax(m, logits[c]);
      } else {
        logits[c] = -INFINITY;  // exp(-inf - m) = 0
      }
    }
    const float log_sum = log(sum16(exp(vload16(0, logits) - m)));
    #pragma unroll
    for (int c = 0; c < CLASSES; ++c) {
      out[i * CLASSES + c] = labels[i * CLASSES + c] * ((logits[c] - m) - log_sum);
    }
#endif
  }
}
)cl";
constexpr int kHandRowsPerWorkItem = 2;  // ROWS above
constexpr int64_t kHandCachedRows = 64;  // hand_rows_cached: 200 KB of rows, in L2
constexpr size_t kHandWorkGroup = 64;

// What the hand-written kernel computes and reads.
enum class HandMode {
  kWhole,       // the seed's "out", every row read once
  kRowsCached,  // "out", the first kHandCachedRows rows read over and over
  kLogitsOnly,  // "add" (MatMul + bias) alone, every row read once
};

// The hand-written kernel set up over the seed's feeds at batch n.
class HandKernel {
 public:
  static absl::StatusOr<HandKernel> Make(int64_t n, HandMode mode);
  // One launch; its event time in seconds.
  absl::StatusOr<double> Run();
  absl::StatusOr<Tensor> Output();

 private:
  std::shared_ptr<cl::ClContext> context_;
  cl::ClKernel kernel_;
  std::vector<cl::ClBuffer> buffers_;  // x, wt, bias, labels, out
  size_t global_ = 0;
  Shape out_shape_;
};

absl::StatusOr<HandKernel> HandKernel::Make(int64_t n, HandMode mode) {
  constexpr int64_t kFeatures = 784, kClasses = 10;
  HandKernel hand;
  hand.context_ = Shared().executor->context();
  DFC_RETURN_IF_ERROR(hand.context_->SetProfiling(true));
  cl::ProgramCache cache(hand.context_);
  DFC_ASSIGN_OR_RETURN(
      std::shared_ptr<cl::ClProgram> program,
      cache.Build(kSeedHandKernel,
                  absl::StrCat("-DFEATURES=", kFeatures, " -DCLASSES=", kClasses,
                               mode == HandMode::kLogitsOnly ? " -DLOGITS_ONLY" : "")));
  DFC_ASSIGN_OR_RETURN(hand.kernel_, cl::ProgramCache::CreateKernel(*program, "seed_hand"));
  const workloads::Feeds feeds = workloads::Seed(n).feeds();
  std::map<std::string, Tensor> by_name;
  for (const Feed& feed : feeds) by_name[feed.id.node] = feed.value;
  // The weights transposed: a constant's layout chosen before the run, as storeTransposed.
  Tensor wt = Tensor::Zeros(DType::kFloat, {kClasses, kFeatures});
  const float* weights = by_name["in3"].data<float>();
  for (int64_t k = 0; k < kFeatures; ++k) {
    for (int64_t c = 0; c < kClasses; ++c) {
      wt.mutable_data<float>()[c * kFeatures + k] = weights[k * kClasses + c];
    }
  }
  hand.out_shape_ = {n, kClasses};
  const Tensor out = Tensor::Zeros(DType::kFloat, hand.out_shape_);
  int arg = 0;
  for (const Tensor* t : std::initializer_list<const Tensor*>{&by_name["in2"], &wt, &by_name["in4"],
                                                              &by_name["in1"], &out}) {
    DFC_ASSIGN_OR_RETURN(cl::ClBuffer buffer, hand.context_->Allocate(t->byte_size()));
    DFC_RETURN_IF_ERROR(hand.context_->Write(buffer, t->raw_data(), t->byte_size()));
    cl_mem mem = buffer.get();
    DFC_CL_RETURN_IF_ERROR(clSetKernelArg(hand.kernel_.get(), arg++, sizeof(cl_mem), &mem));
    hand.buffers_.push_back(std::move(buffer));
  }
  const int64_t x_rows = mode == HandMode::kRowsCached ? std::min(n, kHandCachedRows) : n;
  for (const cl_long size : {cl_long{n}, cl_long{x_rows}}) {
    DFC_CL_RETURN_IF_ERROR(clSetKernelArg(hand.kernel_.get(), arg++, sizeof(cl_long), &size));
  }
  const size_t items = (n + kHandRowsPerWorkItem - 1) / kHandRowsPerWorkItem;
  hand.global_ = (items + kHandWorkGroup - 1) / kHandWorkGroup * kHandWorkGroup;
  return hand;
}

absl::StatusOr<double> HandKernel::Run() {
  return LaunchAndTime(*context_, kernel_.get(), global_, &kHandWorkGroup);
}

absl::StatusOr<Tensor> HandKernel::Output() {
  Tensor out = Tensor::Zeros(DType::kFloat, out_shape_);
  DFC_RETURN_IF_ERROR(context_->Read(buffers_.back(), out.mutable_raw_data(), out.byte_size()));
  return out;
}

// The answer of `hand`, a kernel that reads every row, checked against the reference
// executor's: of "add" for the logits alone, of "out" otherwise.
absl::Status CheckHandKernel(HandKernel& hand, int64_t n, HandMode mode) {
  DFC_RETURN_IF_ERROR(hand.Run().status());
  DFC_ASSIGN_OR_RETURN(Tensor actual, hand.Output());
  Workload w = workloads::Seed(n);
  if (mode == HandMode::kLogitsOnly) w.fetches = {"add"};
  return CheckHandWritten(w, actual);
}

void BM_SeedHand(benchmark::State& state, int64_t n, HandMode mode) {
  Fixture& f = Shared();
  if (!f.error.empty()) {
    state.SkipWithError(f.error.c_str());
    return;
  }
  // The kernel that reads every row is checked and then timed; the one reading cached rows is
  // made after its whole twin passed the check.
  const HandMode checked_mode = mode == HandMode::kRowsCached ? HandMode::kWhole : mode;
  absl::StatusOr<HandKernel> hand = HandKernel::Make(n, checked_mode);
  absl::Status status = hand.ok() ? CheckHandKernel(*hand, n, mode) : hand.status();
  if (status.ok() && mode != checked_mode) {
    hand = HandKernel::Make(n, mode);
    status = hand.status();
  }
  if (!status.ok()) {
    state.SkipWithError(std::string(status.message()).c_str());
    return;
  }
  TimeLaunches(state, workloads::Seed(n), [&] { return hand->Run(); });
}

void RegisterAll() {
  for (Workload (*workload)(int64_t) : {workloads::Seed, workloads::Relu}) {
    for (const int64_t n : {1024, 4096, 16384, 65536}) {
      const Workload w = workload(n);
      RegisterStrategies(w, "unfused", /*split=*/true);
      if (w.family != "seed") continue;
      for (const auto& [name, mode] : {std::pair{"hand", HandMode::kWhole},
                                       std::pair{"hand_rows_cached", HandMode::kRowsCached},
                                       std::pair{"hand_logits", HandMode::kLogitsOnly}}) {
        RegisterVariant(w, name,
                        [n, mode](benchmark::State& state) { BM_SeedHand(state, n, mode); });
      }
    }
  }
}

}  // namespace
}  // namespace dfc::bench

int main(int argc, char** argv) { return dfc::bench::Main(argc, argv, dfc::bench::RegisterAll); }
