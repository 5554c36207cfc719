// What the benchmark programs share: one device executor (and one that runs MatMuls through
// CLBlast), the plans a workload (tests/workloads.h) is timed under, timing a plan by the
// OpenCL event times of its kernels, and the counters every benchmark reports against a floor
// measured in the same run.
#ifndef DFC_BENCH_BENCH_UTIL_H_
#define DFC_BENCH_BENCH_UTIL_H_

#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "graph/check.h"
#include "runtime/bandwidth.h"
#include "runtime/device_executor.h"
#include "runtime/plan.h"
#include "runtime/tune.h"
#include "tests/workloads.h"

namespace dfc::bench {

struct Fixture {
  std::unique_ptr<DeviceExecutor> executor;
  std::unique_ptr<DeviceExecutor> blas_executor;       // MatMul clusters through CLBlast's GEMM
  std::map<std::string, std::unique_ptr<Plan>> plans;  // by workload name and strategy
  std::string error;                                   // why there is no device
};

inline Fixture& Shared() {
  static Fixture* fixture = [] {
    auto* f = new Fixture;
    for (const bool blas : {false, true}) {
      absl::StatusOr<std::unique_ptr<DeviceExecutor>> executor =
          DeviceExecutor::Open("auto", -1, {.time_kernels = true, .blas_matmul = blas});
      if (!executor.ok()) {
        f->error = std::string(executor.status().message());
        return f;
      }
      (blas ? f->blas_executor : f->executor) = *std::move(executor);
    }
    return f;
  }();
  return *fixture;
}

// The strategies a workload is timed under.
enum class Strategy {
  kDefault,  // dfc's default strategy
  kTuned,    // the variant the explorer picks at the size it is timed at (runtime/tune.h)
  kUnfused,  // one kernel per op, MatMuls through CLBlast: how TensorFlow runs it; for a lone
             // MatMul, CLBlast's GEMM alone
};

inline const char* StrategyName(Strategy s) {
  switch (s) {
    case Strategy::kDefault:
      return "default";
    case Strategy::kTuned:
      return "tuned";
    case Strategy::kUnfused:
      return "unfused";
  }
  return "?";
}

inline DeviceExecutor& ExecutorFor(Strategy s) {
  return s == Strategy::kUnfused ? *Shared().blas_executor : *Shared().executor;
}

// The plan for `w` under `s`, made on first use. A tuned plan is tuned at the workload's own
// size, as `dfc compile --tune --batch N` would: which variant wins depends on whether the
// inputs fit in the caches.
inline absl::StatusOr<Plan*> GetPlan(const workloads::Workload& w, Strategy s) {
  Fixture& f = Shared();
  std::unique_ptr<Plan>& slot = f.plans[absl::StrCat(w.name, "/", StrategyName(s))];
  if (slot != nullptr) return slot.get();
  DFC_ASSIGN_OR_RETURN(Graph graph, w.graph());
  PlanSpec spec{.profile = f.executor->profile(), .fuse = s != Strategy::kUnfused};
  for (const std::string& fetch : w.fetches) spec.fetches.push_back({fetch, 0});
  DFC_ASSIGN_OR_RETURN(
      Plan plan, CompilePlan(std::make_shared<const Graph>(std::move(graph)), std::move(spec)));
  if (s == Strategy::kTuned) {
    TuneOptions options;
    options.explore.vector_widths = VectorWidths(f.executor->profile());
    DFC_ASSIGN_OR_RETURN(std::vector<ClusterTuning> tunings,
                         TunePlan(plan, *f.executor, w.feeds(), options));
    for (const ClusterTuning& t : tunings) {
      std::cerr << w.name << ", cluster " << t.cluster << ": tuned variant "
                << t.variants[t.best].name << "\n";
    }
  }
  slot = std::make_unique<Plan>(std::move(plan));
  return slot.get();
}

// Sets the counters of a benchmark whose kernels took `total_seconds` over its iterations:
// GB/s and GFLOP/s of the workload's bytes and flops, and the floor — its bytes over the read
// bandwidth, measured right after the kernels ran (a shared machine's bandwidth drifts, by 2x
// over minutes on the development VM) — with the fraction of it the kernels took.
inline void ReportFloor(benchmark::State& state, const workloads::Workload& w,
                        double total_seconds) {
  Fixture& f = Shared();
  absl::StatusOr<double> bandwidth = MeasureReadBandwidth(f.executor->context());
  if (!bandwidth.ok()) {
    state.SkipWithError(std::string(bandwidth.status().message()).c_str());
    return;
  }
  const double floor_seconds = w.bytes / *bandwidth;
  state.counters["GB/s"] =
      benchmark::Counter(w.bytes, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["GFLOP/s"] =
      benchmark::Counter(w.flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["floor_ms"] = floor_seconds * 1e3;
  // 1 is as fast as reading the inputs once allows.
  state.counters["floor_fraction"] =
      total_seconds / static_cast<double>(state.iterations()) / floor_seconds;
  state.counters["read_GB/s"] = *bandwidth * 1e-9;
  state.SetLabel(f.executor->device_name());
}

// Times `w` under `s`: each iteration one run of its plan, its time the sum of the run's
// kernels' OpenCL event times (the feeds' uploads are not in it).
inline void TimeWorkload(benchmark::State& state, const workloads::Workload& w, Strategy s) {
  Fixture& f = Shared();
  if (!f.error.empty()) {
    state.SkipWithError(f.error.c_str());
    return;
  }
  absl::StatusOr<Plan*> plan = GetPlan(w, s);
  if (!plan.ok()) {
    state.SkipWithError(std::string(plan.status().message()).c_str());
    return;
  }
  DeviceExecutor& executor = ExecutorFor(s);
  for (size_t c = 0; c < (*plan)->lowered.clusters.size(); ++c) {
    executor.UseKernel((*plan)->lowered.clusters[c], (*plan)->kernels[c]);
  }
  std::vector<std::pair<TensorId, Tensor>> feeds;
  for (auto& [name, value] : w.feeds()) feeds.push_back({{name, 0}, std::move(value)});
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
  ReportFloor(state, w, total_seconds);
}

// Registers `fn` as "<family>/<variant>/<size>" (e.g. "seed/tuned/N:65536"), timed manually
// in milliseconds.
template <typename Fn>
void RegisterVariant(const workloads::Workload& w, const std::string& variant, Fn fn) {
  const std::string size = w.name.substr(w.family.size());  // "/N:65536"
  benchmark::RegisterBenchmark(absl::StrCat(w.family, "/", variant, size).c_str(), std::move(fn))
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond);
}

// Registers `w` under each strategy; "unfused" is named `unfused_name` (for a graph of one
// MatMul it is CLBlast's GEMM alone).
inline void RegisterStrategies(const workloads::Workload& w,
                               const std::string& unfused_name = "unfused") {
  for (const Strategy s : {Strategy::kUnfused, Strategy::kDefault, Strategy::kTuned}) {
    RegisterVariant(w, s == Strategy::kUnfused ? unfused_name : StrategyName(s),
                    [w, s](benchmark::State& state) { TimeWorkload(state, w, s); });
  }
}

// The main of a benchmark program whose benchmarks `register_all` registers.
inline int Main(int argc, char** argv, void (*register_all)()) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace dfc::bench

#endif  // DFC_BENCH_BENCH_UTIL_H_
