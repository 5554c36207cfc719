// What the benchmark programs share: one device executor (and one that runs MatMuls through
// CLBlast), the plans a workload (tests/workloads.h) is timed under, timing a plan by the
// OpenCL event times of its kernels (the profiler's device events: runtime/kernel_timer.h),
// and the counters every benchmark reports against a floor measured in the same run.
#ifndef DFC_BENCH_BENCH_UTIL_H_
#define DFC_BENCH_BENCH_UTIL_H_

#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "bench/bench_main.h"
#include "benchmark/benchmark.h"
#include "runtime/bandwidth.h"
#include "runtime/compare.h"
#include "runtime/device_executor.h"
#include "runtime/kernel_timer.h"
#include "runtime/opencl/cl_error.h"
#include "runtime/plan.h"
#include "runtime/size_bindings.h"
#include "runtime/tune.h"
#include "runtime/tuning_db.h"
#include "runtime/work_estimate.h"
#include "tests/workloads.h"

namespace dfc::bench {

struct Fixture {
  std::unique_ptr<DeviceExecutor> executor;
  std::unique_ptr<DeviceExecutor> blas_executor;          // MatMul clusters through CLBlast's GEMM
  std::map<std::string, std::unique_ptr<Plan>> plans;     // by workload name and strategy
  std::map<std::string, std::pair<double, double>> work;  // a model's bytes and flops, by name
  std::string error;                                      // why there is no device
  // Google Benchmark's --benchmark_min_time: it calls a benchmark with more iterations until
  // they take this long, and reports only that last call.
  double min_time_seconds = 0.5;
};

// The executors run on the device DFC_DEVICE names (auto|cpu|gpu|amd|nvidia|intel|arm; default
// auto).
inline Fixture& Shared() {
  static Fixture* fixture = [] {
    auto* f = new Fixture;
    const char* device = std::getenv("DFC_DEVICE");
    for (const bool blas : {false, true}) {
      absl::StatusOr<std::unique_ptr<DeviceExecutor>> executor =
          DeviceExecutor::Open(device != nullptr ? device : "auto", -1, {.blas_matmul = blas});
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
  kSplit,    // every MatMul a dfc kernel of its own beside the fused rest: the thesis' "Lift
             // Separated" (Fusion::kSeparateContractions)
};

inline const char* StrategyName(Strategy s) {
  switch (s) {
    case Strategy::kDefault:
      return "default";
    case Strategy::kTuned:
      return "tuned";
    case Strategy::kUnfused:
      return "unfused";
    case Strategy::kSplit:
      return "split";
  }
  return "?";
}

inline DeviceExecutor& ExecutorFor(Strategy s) {
  return s == Strategy::kUnfused ? *Shared().blas_executor : *Shared().executor;
}

// Takes the variants the tuning database records for every cluster of `plan` on this device
// at `size`'s bucket; false (and `plan` unchanged) when some cluster has none, or has one whose
// steps no longer make the variant it recorded (runtime/tuning_db.h's CheckReplays). An entry
// from before variants were recorded is given the hash of the variant its steps make now, and
// the database saved.
inline absl::StatusOr<bool> TakeRecordedTuning(Plan& plan, TuningDb& db, int64_t size) {
  const std::string device = Shared().executor->device_name();
  PlanSpec spec = plan.spec;
  spec.steps.assign(plan.translated.clusters.size(), {});
  spec.work_group_sizes.assign(plan.translated.clusters.size(), -1);
  std::vector<TuningEntry> stamped;
  for (size_t c = 0; c < plan.translated.clusters.size(); ++c) {
    const ir::TranslatedCluster& cluster = plan.translated.clusters[c];
    std::optional<TuningEntry> entry = db.Find(ClusterHash(cluster), device, SizeBucket(size));
    if (!entry || entry->bucket != SizeBucket(size)) return false;
    if (absl::Status replays = CheckReplays(*entry, cluster); !replays.ok()) {
      std::cerr << db.path() << ": cluster " << c << ": " << replays.message()
                << "; tuning it again\n";
      return false;
    }
    if (entry->variant.empty()) {
      const auto& lambda = *cluster.lambda;
      DFC_ASSIGN_OR_RETURN(const ir::ExprPtr body, rewrite::Replay(lambda.body, entry->steps));
      entry->variant = VariantHash(body);
      stamped.push_back(*entry);
    }
    spec.steps[c] = entry->steps;
    spec.work_group_sizes[c] = entry->work_group_size;
  }
  DFC_ASSIGN_OR_RETURN(plan, CompilePlan(plan.graph, std::move(spec)));
  if (!stamped.empty()) {
    for (TuningEntry& entry : stamped) db.Record(std::move(entry));
    DFC_RETURN_IF_ERROR(db.Save());
  }
  return true;
}

// Tunes `plan` at `w`'s size, as `dfc compile --tune --batch N` would (which variant wins
// depends on whether the inputs fit in the caches), within DFC_TUNE_BUDGET seconds (default
// 300), and records the choices in the tuning database (DFC_TUNING_DB, else tuning.json in the
// program cache's directory). A rerun takes them from there rather than tuning again.
inline absl::Status Tune(Plan& plan, const workloads::Workload& w) {
  Fixture& f = Shared();
  DFC_ASSIGN_OR_RETURN(TuningDb db, TuningDb::Load(DefaultTuningDbPath()));
  DFC_ASSIGN_OR_RETURN(const bool recorded, TakeRecordedTuning(plan, db, w.size));
  if (recorded) {
    std::cerr << w.name << ": tuned variants from " << db.path() << "\n";
    return absl::OkStatus();
  }
  TuneOptions options;
  options.explore.vector_widths = VectorWidths(f.executor->profile());
  if (const char* budget = std::getenv("DFC_TUNE_BUDGET"); budget != nullptr) {
    options.budget_seconds = std::atof(budget);
  }
  // No time to tune is no tuning: timing only the default and recording it as every cluster's
  // choice overwrote the database's tuned entries of clusters that had one.
  if (options.budget_seconds <= 0) {
    std::cerr << w.name << ": no recorded variant for every cluster and DFC_TUNE_BUDGET <= 0: "
              << "the default strategy, nothing recorded\n";
    return absl::OkStatus();
  }
  DFC_ASSIGN_OR_RETURN(std::vector<ClusterTuning> tunings,
                       TunePlan(plan, *f.executor, w.feeds(), options));
  for (const ClusterTuning& t : tunings) {
    std::cerr << w.name << ", cluster " << t.cluster << ": tuned variant "
              << t.variants[t.best].name << "\n";
    db.Record(RecordedChoice(plan, t, f.executor->device_name(), SizeBucket(w.size)));
  }
  return db.Save();
}

// The plan for `w` under `s`, made on first use.
inline absl::StatusOr<Plan*> GetPlan(const workloads::Workload& w, Strategy s) {
  Fixture& f = Shared();
  std::unique_ptr<Plan>& slot = f.plans[absl::StrCat(w.name, "/", StrategyName(s))];
  if (slot != nullptr) return slot.get();
  DFC_ASSIGN_OR_RETURN(Graph graph, w.graph());
  PlanSpec spec{.targets = w.targets, .init = w.init, .profile = f.executor->profile()};
  spec.fusion = s == Strategy::kUnfused ? Fusion::kNone
                : s == Strategy::kSplit ? Fusion::kSeparateContractions
                                        : Fusion::kAll;
  for (const std::string& fetch : w.fetches) spec.fetches.push_back({fetch, 0});
  DFC_ASSIGN_OR_RETURN(
      Plan plan, CompilePlan(std::make_shared<const Graph>(std::move(graph)), std::move(spec)));
  if (s == Strategy::kTuned) DFC_RETURN_IF_ERROR(Tune(plan, w));
  slot = std::make_unique<Plan>(std::move(plan));
  return slot.get();
}

// The workload's bytes and flops: its own, or for a model (which has none) those of its fused
// plan's clusters — each reading its inputs once and writing its outputs once — at its feeds.
inline absl::StatusOr<std::pair<double, double>> WorkOf(const workloads::Workload& w) {
  if (w.bytes > 0) return std::pair(w.bytes, w.flops);
  Fixture& f = Shared();
  if (auto it = f.work.find(w.name); it != f.work.end()) return it->second;
  DFC_ASSIGN_OR_RETURN(Plan * plan, GetPlan(w, Strategy::kDefault));
  DFC_ASSIGN_OR_RETURN(SizeBindings sizes, BindSizes(plan->translated, w.feeds()));
  std::pair<double, double> work{0, 0};
  for (size_t c = 0; c < plan->translated.clusters.size(); ++c) {
    work.first += ClusterBytes(plan->translated.clusters[c], sizes);
    work.second += ClusterFlops(*plan->graph, plan->translated, static_cast<int>(c), sizes);
  }
  f.work[w.name] = work;
  return work;
}

// Sets the counters of a benchmark whose kernels took `total_seconds` over its iterations:
// GB/s and GFLOP/s of the workload's bytes and flops, and the floor — its bytes over the read
// bandwidth, measured right after the kernels ran (a shared machine's bandwidth drifts, by 2x
// over minutes on the development VM) — with the fraction of it the kernels took.
inline void ReportFloor(benchmark::State& state, const workloads::Workload& w,
                        double total_seconds) {
  Fixture& f = Shared();
  // A call too short to be reported is followed by a longer one: measuring the bandwidth (a
  // second) after each would take most of the run.
  if (total_seconds < f.min_time_seconds) return;
  absl::StatusOr<double> bandwidth = MeasureReadBandwidth(f.executor->context());
  if (!bandwidth.ok()) {
    state.SkipWithError(std::string(bandwidth.status().message()).c_str());
    return;
  }
  absl::StatusOr<std::pair<double, double>> work = WorkOf(w);
  if (!work.ok()) {
    state.SkipWithError(std::string(work.status().message()).c_str());
    return;
  }
  const auto [bytes, flops] = *work;
  const double floor_seconds = bytes / *bandwidth;
  state.counters["GB/s"] =
      benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["floor_ms"] = floor_seconds * 1e3;
  // 1 is as fast as reading the inputs once allows.
  state.counters["floor_fraction"] =
      total_seconds / static_cast<double>(state.iterations()) / floor_seconds;
  state.counters["read_GB/s"] = *bandwidth * 1e-9;
  state.SetLabel(f.executor->device_name());
}

// Times `w` under `s`: each iteration one run of its plan, its time the sum of the run's
// kernels' device events as the profiler records them (the feeds' uploads are not in it).
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
  for (size_t c = 0; c < (*plan)->translated.clusters.size(); ++c) {
    executor.UseKernel((*plan)->translated.clusters[c], (*plan)->kernels[c]);
  }
  const workloads::Feeds feeds = w.feeds();
  // The profiler records from the initialisers on, so that the queue records times throughout.
  KernelTimer timer;
  DeviceExecutor::State run_state;
  absl::Status init = RunInitialisers(**plan, executor, run_state);
  if (init.ok()) init = timer.Drop();
  if (!init.ok()) {
    state.SkipWithError(std::string(init.message()).c_str());
    return;
  }
  double total_seconds = 0;
  for (auto _ : state) {
    absl::StatusOr<std::vector<Tensor>> out = executor.Run(
        *(*plan)->graph, (*plan)->translated, feeds, (*plan)->spec.fetches, &run_state);
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      return;
    }
    absl::StatusOr<std::vector<profiler::DeviceEvent>> kernels = timer.Take();
    if (!kernels.ok()) {
      state.SkipWithError(std::string(kernels.status().message()).c_str());
      return;
    }
    const int64_t ns = KernelNanoseconds(*kernels);
    state.SetIterationTime(ns * 1e-9);
    total_seconds += ns * 1e-9;
  }
  ReportFloor(state, w, total_seconds);
}

// Launches `kernel` over `global` work-items (in work-groups of *local, or of the driver's
// choice) and waits for it: its event time in seconds. For hand-written kernels.
inline absl::StatusOr<double> LaunchAndTime(cl::ClContext& context, cl_kernel kernel, size_t global,
                                            const size_t* local) {
  cl_event event = nullptr;
  DFC_RETURN_IF_ERROR(context.Launch(kernel, global, local, &event));
  cl::ClEvent owned(event);
  DFC_CL_RETURN_IF_ERROR(clWaitForEvents(1, &event));
  cl_ulong start = 0, end = 0;
  clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof(start), &start, nullptr);
  clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr);
  return (end - start) * 1e-9;
}

// A hand-written kernel's answer to `w`'s feeds (its first fetch), checked against the reference
// executor's with the tolerance every variant of the rules is checked with.
inline absl::Status CheckHandWritten(const workloads::Workload& w, const Tensor& actual) {
  DFC_ASSIGN_OR_RETURN(std::vector<Tensor> expected, workloads::Reference(w, w.feeds()));
  const Comparison c =
      CompareTensors(actual, expected[0], VariantTolerance(expected[0], w.longest_reduction));
  if (!c.equal) return absl::InternalError("the hand-written kernel is wrong: " + c.reason);
  return absl::OkStatus();
}

// Times `w` as done by a hand-written kernel: `launch()` runs it once and returns its event
// time in seconds (absl::StatusOr<double>), each iteration; the counters are ReportFloor's.
template <typename Launch>
void TimeLaunches(benchmark::State& state, const workloads::Workload& w, Launch launch) {
  double total_seconds = 0;
  for (auto _ : state) {
    absl::StatusOr<double> seconds = launch();
    if (!seconds.ok()) {
      state.SkipWithError(std::string(seconds.status().message()).c_str());
      return;
    }
    state.SetIterationTime(*seconds);
    total_seconds += *seconds;
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
// MatMul it is CLBlast's GEMM alone). "split" is registered where `split` says it differs
// from the default (a graph with a MatMul and more).
inline void RegisterStrategies(const workloads::Workload& w,
                               const std::string& unfused_name = "unfused", bool split = false) {
  std::vector<Strategy> strategies = {Strategy::kUnfused, Strategy::kDefault};
  if (split) strategies.push_back(Strategy::kSplit);
  strategies.push_back(Strategy::kTuned);
  for (const Strategy s : strategies) {
    RegisterVariant(w, s == Strategy::kUnfused ? unfused_name : StrategyName(s),
                    [w, s](benchmark::State& state) { TimeWorkload(state, w, s); });
  }
}

// The main of a benchmark program whose benchmarks `register_all` registers.
inline int Main(int argc, char** argv, void (*register_all)()) {
  constexpr std::string_view kMinTime = "--benchmark_min_time=";
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]).starts_with(kMinTime)) {
      Shared().min_time_seconds = std::atof(argv[i] + kMinTime.size());
    }
  }
  return RunBenchmarks(argc, argv, register_all);
}

}  // namespace dfc::bench

#endif  // DFC_BENCH_BENCH_UTIL_H_
