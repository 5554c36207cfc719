// `dfc bench GRAPH --variants`: for each cluster of the graph, the variants the rewrite rules
// make, each generated, built, checked against the reference executor and timed on the device
// (runtime/tune.h), at each batch size asked for; a table per cluster, and JSON on request.
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/status.h"
#include "graph/loader.h"
#include "graph/ops.h"
#include "ir/type.h"
#include "runtime/bandwidth.h"
#include "runtime/kernel_timer.h"
#include "runtime/tune.h"
#include "runtime/work_estimate.h"
#include "tools/cli.h"

namespace dfc::cli {
namespace {

constexpr char kBenchUsage[] =
    "usage: dfc bench GRAPH --variants [--fetch T[,T...]] [--batch N[,N...]] [--device D]\n"
    "                 [--budget SECONDS] [--runs K] [--json FILE]\n"
    "  --variants  time every variant the rewrite rules make of each cluster\n"
    "  --fetch     the tensors to compute (default: everything the graph computes, its\n"
    "              initialisers, the `init` of a training graph, run once first)\n"
    "  --batch     the sizes given to each placeholder's unknown dimensions (default 1024)\n"
    "  --budget    seconds of tuning per batch size (default 300)\n"
    "  --runs      timed runs per variant, after one warm-up; the median counts (default 5)\n"
    "  --json      also write the results as JSON\n"
    "GFLOP/s is an estimate: 2*M*N*K for a MatMul, one operation per output element of any\n"
    "other node.\n"
    "Placeholders are fed seeded uniform random values in [-1, 1); float placeholders only.\n";

// The size variables' values at the sizes of `feeds`: bound from the placeholders' dims.
SizeBindings BindSizes(const Plan& plan, const std::vector<Feed>& feeds) {
  SizeBindings sizes;
  for (const auto& [id, value] : feeds) {
    if (plan.graph->FindNode(id.node) == nullptr) continue;
    const TensorInfo& info = plan.translated.fold.Info(*plan.graph, id);
    for (size_t d = 0; info.shape && d < info.shape->size() && d < value.shape().size(); ++d) {
      if ((*info.shape)[d].kind() == ArithExpr::Kind::kVar) {
        sizes[(*info.shape)[d].var_name()] = value.shape()[d];
      }
    }
  }
  return sizes;
}

// The median over `options.runs` runs (after `options.warmup`) of all the plan's kernel times.
absl::StatusOr<double> MedianRunMs(DeviceExecutor& executor, const Plan& plan,
                                   const std::vector<Feed>& feeds, const TuneOptions& options) {
  KernelTimer timer;
  DeviceExecutor::State state;
  DFC_RETURN_IF_ERROR(RunInitialisers(plan, executor, state));
  DFC_RETURN_IF_ERROR(timer.Drop());
  std::vector<double> times;
  for (int run = 0; run < options.warmup + options.runs; ++run) {
    DFC_RETURN_IF_ERROR(
        executor.Run(*plan.graph, plan.translated, feeds, plan.spec.fetches, &state).status());
    DFC_ASSIGN_OR_RETURN(const std::vector<profiler::DeviceEvent> kernels, timer.Take());
    const double ms = static_cast<double>(KernelNanoseconds(kernels)) * 1e-6;
    if (run >= options.warmup) times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int Bench(const std::vector<std::string>& argv) {
  absl::StatusOr<Args> args = ParseArgs(argv, {{"variants"},
                                               {"fetch", true, true},
                                               {"batch", true},
                                               {"device", true},
                                               {"platform", true},
                                               {"budget", true},
                                               {"runs", true},
                                               {"json", true}});
  if (!args.ok()) return ReportUsage(std::string(args.status().message()), kBenchUsage);
  if (args->positional.size() != 1) return ReportUsage("expected one GRAPH", kBenchUsage);
  if (!args->Has("variants")) return ReportUsage("dfc bench needs --variants", kBenchUsage);
  std::vector<int64_t> batches;
  for (absl::string_view b : absl::StrSplit(args->Get("batch", "1024"), ',', absl::SkipEmpty())) {
    int64_t n = 0;
    if (!absl::SimpleAtoi(b, &n) || n < 1)
      return ReportUsage("--batch takes sizes >= 1", kBenchUsage);
    batches.push_back(n);
  }
  TuneOptions tune{.progress = &std::cerr, .progress_bar = isatty(STDERR_FILENO) != 0};
  if (args->Has("budget") && !absl::SimpleAtod(args->Get("budget"), &tune.budget_seconds)) {
    return ReportUsage("--budget takes seconds", kBenchUsage);
  }
  if (args->Has("runs") && (!absl::SimpleAtoi(args->Get("runs"), &tune.runs) || tune.runs < 1)) {
    return ReportUsage("--runs takes a count >= 1", kBenchUsage);
  }

  const std::string& path = args->positional[0];
  absl::StatusOr<Graph> loaded = LoadGraph(path);
  if (!loaded.ok()) return ReportError(loaded.status());
  auto graph = std::make_shared<const Graph>(*std::move(loaded));
  absl::StatusOr<std::unique_ptr<DeviceExecutor>> executor = OpenDeviceExecutor(*args, {});
  if (!executor.ok()) return ReportError(executor.status());
  tune.explore.vector_widths = VectorWidths((*executor)->profile());
  // The unfused chain: one kernel per op, MatMuls through CLBlast (how TensorFlow runs it).
  absl::StatusOr<std::unique_ptr<DeviceExecutor>> blas =
      OpenDeviceExecutor(*args, {.blas_matmul = true});
  if (!blas.ok()) return ReportError(blas.status());
  std::cout << "device: " << (*executor)->device_name() << " (profile "
            << (*executor)->profile().name << ")\n";

  PlanSpec spec{.profile = (*executor)->profile()};
  absl::StatusOr<std::vector<TensorId>> fetches = FetchList(*args);
  if (!fetches.ok()) return ReportUsage(std::string(fetches.status().message()), kBenchUsage);
  spec.fetches = *std::move(fetches);
  if (spec.fetches.empty()) {
    DefaultFetches(*graph, spec.fetches, spec.targets);
    spec.init = SplitInitialisers(*graph, spec.targets);
  }
  nlohmann::json json = {{"device", (*executor)->device_name()},
                         {"batches", nlohmann::json::array()}};
  for (int64_t n : batches) {
    absl::StatusOr<Plan> plan = CompilePlan(graph, spec);
    if (!plan.ok()) return ReportError(plan.status());
    absl::StatusOr<std::vector<Feed>> feeds = RandomFeeds(*graph, n);
    if (!feeds.ok()) return ReportError(feeds.status());
    absl::StatusOr<std::vector<ClusterTuning>> tunings = TunePlan(*plan, **executor, *feeds, tune);
    if (!tunings.ok()) return ReportError(tunings.status());
    PlanSpec unfused_spec = spec;
    unfused_spec.fusion = Fusion::kNone;
    absl::StatusOr<Plan> unfused = CompilePlan(graph, unfused_spec);
    if (!unfused.ok()) return ReportError(unfused.status());
    absl::StatusOr<double> unfused_ms = MedianRunMs(**blas, *unfused, *feeds, tune);
    if (!unfused_ms.ok()) return ReportError(unfused_ms.status());
    // Measured after the batch's kernels ran, for each batch: a shared machine's memory
    // bandwidth drifts (by 2x over minutes on the development VM).
    absl::StatusOr<double> bandwidth = MeasureReadBandwidth((*executor)->context());
    if (!bandwidth.ok()) return ReportError(bandwidth.status());
    double floor_ms = 0;
    nlohmann::json clusters = nlohmann::json::array();
    std::cout << "\nbatch " << n << ": unfused chain (one kernel per op, MatMul through CLBlast) "
              << absl::StrFormat("%.3f ms", *unfused_ms) << "; read bandwidth "
              << absl::StrFormat("%.1f", *bandwidth * 1e-9) << " GB/s\n";
    const SizeBindings sizes = BindSizes(*plan, *feeds);
    for (const ClusterTuning& t : *tunings) {
      const int64_t bytes = ClusterBytes(plan->translated.clusters[t.cluster], sizes);
      const int64_t flops = ClusterFlops(*plan->graph, plan->translated, t.cluster, sizes);
      const double cluster_floor_ms = bytes / *bandwidth * 1e3;
      floor_ms += cluster_floor_ms;
      const VariantResult& base = t.variants[0];
      std::cout << absl::StrFormat("cluster %d (%s): %d bytes, about %d flops, floor %.3f ms\n",
                                   t.cluster, absl::StrJoin(t.nodes, ", "), bytes, flops,
                                   cluster_floor_ms);
      std::cout << absl::StrFormat("  %-4s %10s %8s %8s %8s %9s  %s\n", "", "ms", "GB/s", "GFLOP/s",
                                   "floor x", "speedup", "rules");
      nlohmann::json variants = nlohmann::json::array();
      for (size_t v = 0; v < t.variants.size(); ++v) {
        const VariantResult& r = t.variants[v];
        std::vector<std::string> rules;
        for (const rewrite::Step& s : r.steps) rules.push_back(s.ToString());
        if (r.work_group_size >= 0)
          rules.push_back(absl::StrCat("workGroupSize(", r.work_group_size, ")"));
        if (!r.status.ok()) {
          if (r.status.code() == absl::StatusCode::kDeadlineExceeded) continue;
          std::cout << absl::StrFormat("  %-4s %10s %8s %8s %8s %9s  %s: %s\n", "", "-", "-", "-",
                                       "-", "-", r.name, r.status.message());
          variants.push_back(
              {{"name", r.name}, {"rules", rules}, {"error", std::string(r.status.message())}});
          continue;
        }
        const double gbps = bytes / (r.median_ms * 1e-3) * 1e-9;
        const double gflops = flops / (r.median_ms * 1e-3) * 1e-9;
        const double speedup = base.status.ok() ? base.median_ms / r.median_ms : 0;
        std::cout << absl::StrFormat("  %-4s %10.3f %8.2f %8.2f %8.2f %8.2fx  %s\n",
                                     static_cast<int>(v) == t.best ? "best" : "", r.median_ms, gbps,
                                     gflops, r.median_ms / cluster_floor_ms, speedup, r.name);
        variants.push_back({{"name", r.name},
                            {"rules", rules},
                            {"median_ms", r.median_ms},
                            {"gbps", gbps},
                            {"gflops", gflops},
                            {"floor_fraction", r.median_ms / cluster_floor_ms},
                            {"speedup_vs_default", speedup},
                            {"max_error", r.max_error}});
      }
      // floor_fraction is against the cluster's own floor (the batch's, for one cluster).
      clusters.push_back({{"nodes", t.nodes},
                          {"floor_ms", cluster_floor_ms},
                          {"best", t.variants[t.best].name},
                          {"variants", variants}});
    }
    json["batches"].push_back({{"n", n},
                               {"floor_ms", floor_ms},
                               {"unfused_ms", *unfused_ms},
                               {"read_gbps", *bandwidth * 1e-9},
                               {"clusters", clusters}});
  }
  if (args->Has("json")) {
    std::ofstream out(args->Get("json"));
    out << DumpJson(json) << "\n";
    if (!out) return ReportError(absl::InvalidArgumentError("cannot write " + args->Get("json")));
  }
  return kExitOk;
}

}  // namespace dfc::cli
