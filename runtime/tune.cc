// Tuning a plan's clusters on the device (see tune.h).
#include "runtime/tune.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <span>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "codegen/kernel_gen.h"
#include "ir/traverse.h"
#include "rewrite/lower_for_device.h"
#include "runtime/compare.h"
#include "runtime/compile.h"
#include "runtime/kernel_timer.h"
#include "runtime/reference/session.h"
#include "runtime/size_bindings.h"

namespace dfc {
namespace {

using Clock = std::chrono::steady_clock;

// The longest Reduce in `e`, its length evaluated at the fed sizes (a training step's
// gradients sum over the batch N); 0 if none.
int64_t LongestReduction(const ir::ExprPtr& e, const SizeBindings& sizes) {
  int64_t longest = 0;
  ir::Walk(e, [&](const ir::ExprPtr& x) {
    const auto* call =
        x->kind == ir::Expr::Kind::kFunCall ? &static_cast<const ir::FunCall&>(*x) : nullptr;
    if (call != nullptr && ir::IsReduce(call->f->kind)) {
      longest = std::max(longest, call->args[1]->type->length.Evaluate(sizes).value_or(0));
    }
    return true;
  });
  return longest;
}

// A training step's variables change every run. Each run starts from the values its
// initialisers gave them, and the values a run leaves are checked as its fetches are.
class VariableStart {
 public:
  // Runs `plan`'s initialisers on the device into `state` and on `oracle` (a graph that reads
  // variables without writing them needs them too). Keeps nothing for a plan without targets.
  static absl::StatusOr<VariableStart> Make(const Plan& plan, DeviceExecutor& executor,
                                            DeviceExecutor::State& state,
                                            reference::Session& oracle) {
    VariableStart start;
    if (!plan.spec.targets.empty() && plan.spec.init.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "a plan with targets (", absl::StrJoin(plan.spec.targets, ", "),
          ") changes its variables every run: tuning starts each run from their initial values, "
          "so it needs the plan's initialisers (PlanSpec::init, dfc compile --init)"));
    }
    if (!plan.spec.init.empty()) {
      DFC_RETURN_IF_ERROR(RunInitialisers(plan, executor, state));
      DFC_RETURN_IF_ERROR(oracle.Run({}, {}, plan.spec.init).status());
    }
    if (plan.spec.targets.empty()) return start;
    start.values_ = state.variables;
    PlanSpec read{.profile = executor.profile()};
    for (const auto& [name, value] : state.variables) {
      start.names_.push_back(name);
      read.fetches.push_back({name, 0});
    }
    DFC_ASSIGN_OR_RETURN(start.read_, CompilePlan(plan.graph, std::move(read)));
    return start;
  }

  // Gives `state` the initial values again. The executor never writes a buffer after the
  // command that makes it (an update makes a new one), so the values kept are unchanged.
  void Restore(DeviceExecutor::State& state) const {
    if (!names_.empty()) state.variables = values_;
  }

  const std::vector<std::string>& names() const { return names_; }

  // The variables' values in `state`, in names() order.
  absl::StatusOr<std::vector<Tensor>> Read(DeviceExecutor& executor,
                                           DeviceExecutor::State& state) const {
    if (names_.empty()) return std::vector<Tensor>{};
    return executor.Run(*read_->graph, read_->translated, {}, read_->spec.fetches, &state);
  }

 private:
  std::vector<std::string> names_;
  absl::flat_hash_map<std::string, std::shared_ptr<DeviceTensor>> values_;
  std::optional<Plan> read_;  // fetches every variable
};

}  // namespace

absl::Status RunInitialisers(const Plan& plan, DeviceExecutor& executor,
                             DeviceExecutor::State& state) {
  if (plan.spec.init.empty()) return absl::OkStatus();
  DFC_ASSIGN_OR_RETURN(Plan init, CompilePlan(plan.graph, {.targets = plan.spec.init,
                                                           .profile = executor.profile()}));
  return executor.Run(*init.graph, init.translated, {}, {}, &state).status();
}

Tolerance VariantTolerance(const Tensor& expected, int64_t longest_reduction) {
  Tolerance t = DefaultTolerance(expected.dtype());
  if (expected.dtype() != DType::kFloat && expected.dtype() != DType::kDouble) return t;
  const double u = expected.dtype() == DType::kFloat ? 0x1p-24 : 0x1p-53;
  const double bound = 2.0 * static_cast<double>(longest_reduction) * u;
  t.rtol = std::max(t.rtol, bound);
  t.atol = std::max(t.atol, bound * LargestFiniteMagnitude(expected));
  return t;
}

std::vector<int> WorkGroupSizes(const rewrite::DeviceProfile& profile) {
  std::vector<int> sizes;
  if (profile.is_gpu) {
    // One to eight wavefronts or warps.
    for (int k : {1, 2, 4, 8}) {
      const int size = k * profile.simd_width;
      if (size <= profile.max_work_group_size && size != profile.WorkGroupSize()) {
        sizes.push_back(size);
      }
    }
  } else {
    // A CPU driver runs a work-group's items as a loop it may vectorise: one item, a vector's
    // worth, a few vectors' worth (0, the driver's choice, is the profile's).
    for (int size : {1, 16, 64}) {
      if (size <= profile.max_work_group_size && size != profile.WorkGroupSize()) {
        sizes.push_back(size);
      }
    }
  }
  return sizes;
}

absl::StatusOr<int> TakeRecordedVariants(const TuningDb& db, const std::string& device,
                                         std::optional<int64_t> bucket, Plan& plan,
                                         std::ostream* warnings) {
  PlanSpec spec = plan.spec;
  const size_t clusters = plan.translated.clusters.size();
  spec.steps.resize(clusters);
  spec.work_group_sizes.resize(clusters, -1);
  int taken = 0;
  for (size_t c = 0; c < clusters; ++c) {
    const ir::TranslatedCluster& cluster = plan.translated.clusters[c];
    std::optional<TuningEntry> entry = db.Find(ClusterHash(cluster), device, bucket);
    if (!entry || (entry->steps.empty() && entry->work_group_size < 0)) continue;
    if (absl::Status replays = CheckReplays(*entry, cluster); !replays.ok()) {
      if (warnings != nullptr) {
        *warnings << "dfc: warning: cluster " << c << " (" << absl::StrJoin(entry->nodes, ", ")
                  << "): " << db.path() << ": " << replays.message()
                  << "; it takes the default strategy (dfc compile --tune records it anew)\n";
      }
      continue;
    }
    spec.steps[c] = entry->steps;
    spec.work_group_sizes[c] = entry->work_group_size;
    ++taken;
  }
  if (taken > 0) {
    DFC_ASSIGN_OR_RETURN(plan, CompilePlan(plan.graph, std::move(spec)));
  }
  return taken;
}

TuningEntry RecordedChoice(const Plan& plan, const ClusterTuning& t, const std::string& device,
                           int64_t bucket) {
  const VariantResult& best = t.variants[t.best];
  return {.cluster = ClusterHash(plan.translated.clusters[t.cluster]),
          .device = device,
          .bucket = bucket,
          .nodes = t.nodes,
          .steps = best.steps,
          .variant = best.variant,
          .work_group_size = best.work_group_size,
          .median_ms = best.median_ms,
          .default_ms = t.variants[0].median_ms};
}

std::vector<int> VectorWidths(const rewrite::DeviceProfile& profile) {
  std::vector<int> widths;
  for (int w : {4, 8, 16}) {
    if (w <= std::max(4, profile.preferred_vector_width)) widths.push_back(w);
  }
  return widths;
}

std::chrono::nanoseconds ClusterShare(std::chrono::nanoseconds left, size_t clusters_left) {
  if (left <= std::chrono::nanoseconds::zero() || clusters_left == 0) {
    return std::chrono::nanoseconds::zero();
  }
  return left / static_cast<int64_t>(clusters_left);
}

absl::StatusOr<std::vector<ClusterTuning>> TunePlan(Plan& plan, DeviceExecutor& executor,
                                                    const std::vector<Feed>& feeds,
                                                    const TuneOptions& options) {
  if (options.runs < 1) return absl::InvalidArgumentError("tuning needs at least one timed run");
  // Kernels are timed by the profiler's device events, recorded from here on so that the
  // executor's queue records times from its first run (the initialisers') to its last.
  KernelTimer timer;
  const Graph& graph = *plan.graph;
  DFC_ASSIGN_OR_RETURN(SizeBindings sizes, BindSizes(plan.translated, feeds));
  int64_t longest_reduction = 0;
  for (const ir::TranslatedCluster& cluster : plan.translated.clusters) {
    longest_reduction = std::max(longest_reduction, LongestReduction(cluster.lambda->body, sizes));
  }
  DeviceExecutor::State state;
  reference::Session oracle(plan.graph);
  DFC_ASSIGN_OR_RETURN(VariableStart initial, VariableStart::Make(plan, executor, state, oracle));
  // The oracle's answer, once: the fetches, then the variables as the run leaves them.
  std::vector<std::string> fetch_names;
  for (const TensorId& id : plan.spec.fetches) fetch_names.push_back(id.ToString());
  DFC_ASSIGN_OR_RETURN(std::vector<Tensor> expected,
                       oracle.Run(feeds, fetch_names, plan.spec.targets));
  std::vector<Tensor> expected_variables;
  if (!initial.names().empty()) {
    DFC_ASSIGN_OR_RETURN(expected_variables, oracle.Run({}, initial.names()));
  }
  // The largest error of `got` against `want` (the values of `names`), or why it is wrong.
  auto check = [&](const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                   const std::vector<std::string>& names, absl::string_view what,
                   double& max_error) -> absl::Status {
    for (size_t i = 0; i < got.size(); ++i) {
      const Comparison cmp =
          CompareTensors(got[i], want[i], VariantTolerance(want[i], longest_reduction));
      max_error = std::max(max_error, cmp.max_error);
      if (!cmp.equal) {
        return absl::InternalError(absl::StrCat("wrong ", what, names[i], ": ", cmp.reason));
      }
    }
    return absl::OkStatus();
  };

  plan.spec.steps.resize(plan.translated.clusters.size());
  plan.spec.work_group_sizes.resize(plan.translated.clusters.size(), -1);
  for (size_t c = 0; c < plan.translated.clusters.size(); ++c) {
    executor.UseKernel(plan.translated.clusters[c], plan.kernels[c]);
  }
  // Runs the plan with its current kernels: the median time of cluster c, and the answer's
  // largest error against the oracle (an error status if it is outside the tolerance).
  // `times` keeps every timed run of the variant, so that timing it again (a race) adds to
  // its median rather than replacing it. A variant whose run (the warm-up too) takes longer
  // than `cutoff_ms` has lost: its runs stop there, that run its time.
  auto measure = [&](int c, VariantResult& result, std::vector<double>& times,
                     double cutoff_ms = std::numeric_limits<double>::infinity()) -> absl::Status {
    const int64_t fallbacks = executor.fallbacks();
    for (int run = 0; run < options.warmup + options.runs; ++run) {
      initial.Restore(state);
      DFC_RETURN_IF_ERROR(timer.Drop());  // what ran since the last timed run: its checks
      DFC_ASSIGN_OR_RETURN(std::vector<Tensor> out,
                           executor.Run(graph, plan.translated, feeds, plan.spec.fetches, &state));
      if (executor.fallbacks() != fallbacks) {
        return absl::InternalError("its kernel did not build or run (the cluster fell back)");
      }
      DFC_ASSIGN_OR_RETURN(const std::vector<profiler::DeviceEvent> kernels, timer.Take());
      const double ms = static_cast<double>(KernelNanoseconds(kernels, c)) * 1e-6;
      if (run == 0) {
        DFC_RETURN_IF_ERROR(check(out, expected, fetch_names, "answer for ", result.max_error));
        DFC_ASSIGN_OR_RETURN(std::vector<Tensor> variables, initial.Read(executor, state));
        DFC_RETURN_IF_ERROR(check(variables, expected_variables, initial.names(),
                                  "value after the run of variable ", result.max_error));
      }
      if (ms > cutoff_ms) {
        times.push_back(ms);
        break;
      }
      if (run >= options.warmup) times.push_back(ms);
    }
    std::vector<double> sorted = times;
    std::ranges::sort(sorted);
    result.median_ms = sorted[sorted.size() / 2];
    if (result.median_ms <= 0) {
      return absl::InternalError("the profiler recorded no time for the cluster's kernels");
    }
    return absl::OkStatus();
  };

  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline =
      start + std::chrono::duration_cast<Clock::duration>(
                  std::chrono::duration<double>(options.budget_seconds));
  std::vector<ClusterTuning> tunings;
  for (size_t c = 0; c < plan.translated.clusters.size(); ++c) {
    const ir::TranslatedCluster& cluster = plan.translated.clusters[c];
    const Clock::time_point now = Clock::now();
    const Clock::time_point cluster_deadline =
        now + ClusterShare(deadline - now, plan.translated.clusters.size() - c);
    ClusterTuning tuning{.cluster = static_cast<int>(c),
                         .nodes = ClusterNodeNames(graph, plan.translated.partition.clusters[c])};
    const auto& lambda = *cluster.lambda;
    // The kernels of the cluster with `body`, named by `steps`, its MapGlb kernels in
    // work-groups of `work_group_size` (-1: the profile's).
    auto generate = [&](const ir::ExprPtr& body, const std::vector<rewrite::Step>& steps,
                        int work_group_size) -> absl::StatusOr<codegen::KernelSource> {
      DFC_ASSIGN_OR_RETURN(ClusterKernel kernel,
                           CompileCluster(cluster, {.steps = steps, .body = body},
                                          {.name = absl::StrCat("dfc_cluster_", c),
                                           .nodes = tuning.nodes,
                                           .profile = executor.profile(),
                                           .work_group_size = work_group_size}));
      return std::move(kernel.source);
    };
    // The explorer neither counts nor rewrites further a variant the device lowering declines.
    rewrite::ExploreOptions explore = options.explore;
    explore.usable = [&](const ir::ExprPtr& body) {
      return rewrite::LowerForDevice(body, executor.profile()).status();
    };
    explore.work_groups = executor.profile().WorkGroupReductionSize() > 0;
    DFC_ASSIGN_OR_RETURN(std::vector<rewrite::Variant> variants,
                         rewrite::Enumerate(lambda.body, explore));
    const std::vector<int> work_group_sizes = WorkGroupSizes(executor.profile());
    size_t total = variants.size() + work_group_sizes.size();
    std::vector<codegen::KernelSource> kernels;
    std::vector<ir::ExprPtr> bodies;           // of tuning.variants
    std::vector<std::vector<double>> timings;  // of tuning.variants: every timed run
    // Generates, runs and times `body` as the variant `result` describes (its steps name it;
    // its work_group_size, -1 for the profile's, sizes the MapGlb kernels). `usable`: why the
    // generator refused it when the explorer asked (nothing is generated then).
    auto try_variant = [&](const ir::ExprPtr& body, VariantResult result,
                           const absl::Status& usable = absl::OkStatus()) {
      result.variant = VariantHash(body);
      codegen::KernelSource source;
      std::vector<double> times;
      if (!usable.ok()) {
        result.status = usable;
      } else if (!tuning.variants.empty() && Clock::now() > cluster_deadline) {
        result.status = absl::DeadlineExceededError("not tried: the tuning budget was spent");
      } else {
        absl::StatusOr<codegen::KernelSource> kernel =
            generate(body, result.steps, result.work_group_size);
        if (kernel.ok()) {
          source = *kernel;
          executor.UseKernel(cluster, *std::move(kernel));
          // A variant this much slower than the fastest so far is not timed further: on a
          // large shape a slow variant's runs took most of the budget (the 1024 square's
          // default runs 2.6 s, the good variants 0.1).
          constexpr double kLosingFactor = 3;
          double best_ms = std::numeric_limits<double>::infinity();
          for (const VariantResult& r : tuning.variants) {
            if (r.status.ok()) best_ms = std::min(best_ms, r.median_ms);
          }
          result.status = measure(static_cast<int>(c), result, times, kLosingFactor * best_ms);
        } else {
          result.status = kernel.status();
        }
      }
      const size_t tried = tuning.variants.size() + 1;
      if (options.progress != nullptr && options.progress_bar) {
        constexpr int kWidth = 30;
        const int done = static_cast<int>(tried * kWidth / total);
        const double spent = std::chrono::duration<double>(Clock::now() - start).count();
        *options.progress << absl::StrFormat(
            "\rcluster %d/%d [%s%s] %d/%d variants, %.0f of %.0f s", c + 1,
            plan.translated.clusters.size(), std::string(done, '#'),
            std::string(kWidth - done, '.'), tried, total, spent, options.budget_seconds);
        options.progress->flush();
      } else if (options.progress != nullptr) {
        *options.progress << absl::StrFormat(
            "cluster %d variant %d/%d %-60s %s\n", c, tried, total, result.name,
            result.status.ok() ? absl::StrFormat("%.3f ms", result.median_ms)
                               : std::string(result.status.message()));
      }
      tuning.variants.push_back(std::move(result));
      kernels.push_back(std::move(source));
      bodies.push_back(body);
      timings.push_back(std::move(times));
    };
    auto pick_best = [&] {
      for (size_t v = 0; v < tuning.variants.size(); ++v) {
        const VariantResult& r = tuning.variants[v];
        const VariantResult& best = tuning.variants[tuning.best];
        if (r.status.ok() && (!best.status.ok() || r.median_ms < best.median_ms)) {
          tuning.best = static_cast<int>(v);
        }
      }
    };
    // Stages one and two: the algorithmic variants, each mapped as the profile says.
    for (const rewrite::Variant& variant : variants) {
      try_variant(variant.body, {.name = variant.Name(), .steps = variant.steps}, variant.usable);
    }
    pick_best();
    // The variants not structurally equal to one tried before, each tried.
    auto try_untried = [&](std::vector<rewrite::Variant> candidates) {
      std::erase_if(candidates, [&](const rewrite::Variant& v) {
        return std::ranges::any_of(bodies,
                                   [&](const ir::ExprPtr& b) { return ir::ExprEquals(b, v.body); });
      });
      total += candidates.size();
      for (const rewrite::Variant& variant : candidates) {
        try_variant(variant.body, {.name = variant.Name(), .steps = variant.steps}, variant.usable);
      }
    };
    // The machine's speed drifts between variants timed minutes apart (on a shared host, by
    // more than the gain of one rule), so the fastest `kRaced` are timed again, in turn, for
    // kRaceRounds rounds, and compared by the median of all their runs.
    constexpr size_t kRaced = 4;
    constexpr int kRaceRounds = 2;
    auto race = [&] {
      std::vector<size_t> order;
      for (size_t v = 0; v < tuning.variants.size(); ++v) {
        if (tuning.variants[v].status.ok()) order.push_back(v);
      }
      std::ranges::sort(order, {}, [&](size_t v) { return tuning.variants[v].median_ms; });
      if (order.size() > kRaced) order.resize(kRaced);
      for (int round = 0; round < kRaceRounds && Clock::now() <= cluster_deadline; ++round) {
        for (size_t v : order) {
          executor.UseKernel(cluster, kernels[v]);
          VariantResult& result = tuning.variants[v];
          result.status = measure(static_cast<int>(c), result, timings[v]);
        }
      }
      pick_best();
    };
    race();
    // The best variant, one step further, while that is faster: a step whose worth shows only
    // after others (vectorising a second reduction once the first is fast) lies past the
    // breadth-first cap. Variants tried before are not tried again.
    for (int round = 0; round < options.refine_rounds && tuning.variants[tuning.best].status.ok();
         ++round) {
      const int from = tuning.best;
      DFC_ASSIGN_OR_RETURN(std::vector<rewrite::Variant> next,
                           rewrite::Extend({tuning.variants[from].steps, bodies[from]}, explore));
      try_untried(next);
      race();
      if (tuning.best == from) break;
    }
    // Stage three, parameters: the vector widths of the best variant's steps, one at a time.
    if (tuning.variants[tuning.best].status.ok()) {
      DFC_ASSIGN_OR_RETURN(
          std::vector<rewrite::Variant> widths,
          rewrite::OtherWidths(lambda.body, {tuning.variants[tuning.best].steps, nullptr},
                               explore));
      try_untried(widths);
      race();
    }
    // And the best variant's MapGlb kernels with the work-group sizes the profile suggests.
    const int algorithmic_best = tuning.best;
    if (tuning.variants[algorithmic_best].status.ok()) {
      for (int size : work_group_sizes) {
        const VariantResult& base = tuning.variants[algorithmic_best];
        try_variant(bodies[algorithmic_best],
                    {.name = absl::StrCat(base.name, " ; workGroupSize(", size, ")"),
                     .steps = base.steps,
                     .work_group_size = size});
      }
      race();
    }
    if (options.progress != nullptr && options.progress_bar) *options.progress << "\n";
    const VariantResult& best = tuning.variants[tuning.best];
    if (best.status.ok() && tuning.best > 0) {
      plan.kernels[c] = kernels[tuning.best];
      // (A plan built without CompilePlan, as conformance builds its own, keeps no hashes.)
      if (c < plan.variants.size()) plan.variants[c] = best.variant;
      plan.spec.steps[c] = best.steps;
      plan.spec.work_group_sizes[c] = best.work_group_size;
    }
    executor.UseKernel(cluster, plan.kernels[c]);
    tunings.push_back(std::move(tuning));
  }
  return tunings;
}

}  // namespace dfc
