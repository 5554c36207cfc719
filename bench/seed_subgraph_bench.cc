// The thesis' subgraph (models/seed_subgraph.pbtxt: MatMul, Add, Softmax, Log, Mul, Sum,
// Reshape) and a second one of other sizes and ops (models/relu_subgraph.pbtxt: 512 features,
// 7 classes, Relu, a row sum), each as the unfused chain (one kernel per op, the MatMul through
// CLBlast's GEMM) and as dfc runs it — under the default strategy, and as the variant the
// explorer picks (runtime/tune.h, tuned once at N = 4096 before the timings) —
// against the bandwidth floor measured in the same run: the bytes the subgraph must move over
// the device's read bandwidth (runtime/bandwidth.h). Times are OpenCL event times of the
// kernels (feeds are uploaded outside them), reported as Google Benchmark's manual time.
//
//   build/seed_subgraph_bench --benchmark_counters_tabular=true
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "graph/loader.h"
#include "runtime/bandwidth.h"
#include "runtime/device_executor.h"
#include "runtime/plan.h"
#include "runtime/tune.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

struct Workload {
  std::string graph;                  // under models/
  int64_t features, classes;          // in2 [N, features], in3 [features, classes]
  double bytes_per_row, bytes_fixed;  // what the subgraph must move: rows * N + fixed
};

// Seed: in1, in2, out per row ((10 + 784 + 10) * 4 bytes), in3 and in4 once.
const Workload kSeed = {"seed_subgraph.pbtxt", 784, 10, 3216, 31400};
// Relu: in1, in2 and one output per row ((7 + 512 + 1) * 4), in3 and in4 once.
const Workload kRelu = {"relu_subgraph.pbtxt", 512, 7, 2080, 14364};

std::vector<std::pair<std::string, Tensor>> Feeds(const Workload& w, int64_t n) {
  return {{"in1", testing::UniformFloats({n, w.classes}, 1, -1.0f, 1.0f)},
          {"in2", testing::UniformFloats({n, w.features}, 2, -1.0f, 1.0f)},
          {"in3", testing::UniformFloats({w.features, w.classes}, 3, -0.05f, 0.05f)},
          {"in4", testing::UniformFloats({w.classes}, 4, -0.1f, 0.1f)}};
}

// One executor for every benchmark (and one that runs MatMuls through CLBlast, for the unfused
// chain), and each workload's plans.
struct Fixture {
  std::unique_ptr<DeviceExecutor> executor;
  std::unique_ptr<DeviceExecutor> blas_executor;
  std::map<std::string, std::unique_ptr<Plan>> plans;  // "graph/default", "graph/tuned/N"
  std::string error;
};

Fixture& Shared() {
  static Fixture* fixture = [] {
    auto* f = new Fixture;
    absl::StatusOr<std::unique_ptr<DeviceExecutor>> executor =
        DeviceExecutor::Open("auto", -1, {.time_kernels = true});
    if (!executor.ok()) {
      f->error = std::string(executor.status().message());
      return f;
    }
    f->executor = *std::move(executor);
    executor = DeviceExecutor::Open("auto", -1, {.time_kernels = true, .blas_matmul = true});
    if (!executor.ok()) {
      f->error = std::string(executor.status().message());
      return f;
    }
    f->blas_executor = *std::move(executor);
    return f;
  }();
  return *fixture;
}

// The plan for `w` under `strategy` ("default", "tuned", or "unfused": one kernel per op, the
// MatMul through CLBlast — how TensorFlow runs it), made on first use. The tuned plan is tuned
// at the batch it is timed at, as `dfc compile --tune --batch N` would: which variant wins
// depends on whether the rows fit in the caches (at N = 4096 the seed's inputs are 13 MB).
absl::StatusOr<Plan*> GetPlan(const Workload& w, const std::string& strategy, int64_t n) {
  Fixture& f = Shared();
  std::unique_ptr<Plan>& slot = f.plans[absl::StrCat(
      w.graph, "/", strategy, strategy == "tuned" ? absl::StrCat("/", n) : "")];
  if (slot != nullptr) return slot.get();
  DFC_ASSIGN_OR_RETURN(Graph graph, LoadGraph(std::string(DFC_SOURCE_DIR) + "/models/" + w.graph));
  PlanSpec spec{
      .fetches = {{"out", 0}}, .profile = f.executor->profile(), .fuse = strategy != "unfused"};
  DFC_ASSIGN_OR_RETURN(
      Plan plan, CompilePlan(std::make_shared<const Graph>(std::move(graph)), std::move(spec)));
  if (strategy == "tuned") {
    TuneOptions options;
    options.explore.vector_widths = VectorWidths(f.executor->profile());
    DFC_ASSIGN_OR_RETURN(std::vector<ClusterTuning> tunings,
                         TunePlan(plan, *f.executor, Feeds(w, n), options));
    for (const ClusterTuning& t : tunings) {
      std::cerr << w.graph << " at N = " << n << ", cluster " << t.cluster << ": tuned variant "
                << t.variants[t.best].name << "\n";
    }
  }
  slot = std::make_unique<Plan>(std::move(plan));
  return slot.get();
}

void BM_Subgraph(benchmark::State& state, const Workload& w, const std::string& strategy) {
  const int64_t n = state.range(0);
  Fixture& f = Shared();
  if (!f.error.empty()) {
    state.SkipWithError(f.error.c_str());
    return;
  }
  absl::StatusOr<Plan*> plan = GetPlan(w, strategy, n);
  if (!plan.ok()) {
    state.SkipWithError(std::string(plan.status().message()).c_str());
    return;
  }
  DeviceExecutor& executor = strategy == "unfused" ? *f.blas_executor : *f.executor;
  for (size_t c = 0; c < (*plan)->lowered.clusters.size(); ++c) {
    executor.UseKernel((*plan)->lowered.clusters[c], (*plan)->kernels[c]);
  }
  std::vector<std::pair<TensorId, Tensor>> feeds;
  for (auto& [name, value] : Feeds(w, n)) feeds.push_back({{name, 0}, std::move(value)});
  DeviceExecutor::State run_state;
  double total_seconds = 0;
  for (auto _ : state) {
    absl::StatusOr<std::vector<Tensor>> out =
        executor.Run(*(*plan)->graph, (*plan)->lowered, feeds, (*plan)->spec.fetches, &run_state);
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      return;
    }
    int64_t ns = 0;
    for (const DeviceExecutor::KernelTime& k : executor.kernel_times()) ns += k.nanoseconds;
    state.SetIterationTime(ns * 1e-9);
    total_seconds += ns * 1e-9;
  }
  // The read bandwidth of this machine's memory drifts (by 2x over minutes on the shared
  // development VM), so each benchmark's floor is measured right after its kernels ran.
  absl::StatusOr<double> bandwidth = MeasureReadBandwidth(f.executor->context());
  if (!bandwidth.ok()) {
    state.SkipWithError(std::string(bandwidth.status().message()).c_str());
    return;
  }
  const double bytes = w.bytes_per_row * n + w.bytes_fixed;
  const double floor_seconds = bytes / *bandwidth;
  state.counters["GB/s"] = benchmark::Counter(bytes, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["floor_ms"] = floor_seconds * 1e3;
  // The fraction of the floor: 1 is as fast as the reads alone allow.
  state.counters["floor_fraction"] =
      total_seconds / static_cast<double>(state.iterations()) / floor_seconds;
  state.counters["read_GB/s"] = *bandwidth * 1e-9;
  state.SetLabel(f.executor->device_name());
}

void Sizes(benchmark::internal::Benchmark* b) {
  b->ArgName("N")->Arg(1024)->Arg(4096)->Arg(16384)->Arg(65536);
  b->UseManualTime()->Unit(benchmark::kMillisecond);
}

BENCHMARK_CAPTURE(BM_Subgraph, seed_unfused, kSeed, "unfused")->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Subgraph, seed_default, kSeed, "default")->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Subgraph, seed_tuned, kSeed, "tuned")->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Subgraph, relu_unfused, kRelu, "unfused")->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Subgraph, relu_default, kRelu, "default")->Apply(Sizes);
BENCHMARK_CAPTURE(BM_Subgraph, relu_tuned, kRelu, "tuned")->Apply(Sizes);

}  // namespace
}  // namespace dfc

BENCHMARK_MAIN();
