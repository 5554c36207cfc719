// Tuning a plan's clusters on the device (see tune.h).
#include "runtime/tune.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
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

namespace {

// Runs a plan on the device and times one cluster's kernels, checking each variant's answer,
// and a training step's variables after the run, against the oracle's: what every stage of
// the tuner asks of a variant.
class VariantTimer {
 public:
  static absl::StatusOr<std::unique_ptr<VariantTimer>> Make(Plan& plan, DeviceExecutor& executor,
                                                            const std::vector<Feed>& feeds,
                                                            const TuneOptions& options) {
    std::unique_ptr<VariantTimer> t(new VariantTimer(plan, executor, feeds, options));
    DFC_ASSIGN_OR_RETURN(SizeBindings sizes, BindSizes(plan.translated, feeds));
    for (const ir::TranslatedCluster& cluster : plan.translated.clusters) {
      t->longest_reduction_ =
          std::max(t->longest_reduction_, LongestReduction(cluster.lambda->body, sizes));
    }
    DFC_ASSIGN_OR_RETURN(t->initial_, VariableStart::Make(plan, executor, t->state_, t->oracle_));
    // The oracle's answer, once: the fetches, then the variables as the run leaves them.
    for (const TensorId& id : plan.spec.fetches) t->fetch_names_.push_back(id.ToString());
    DFC_ASSIGN_OR_RETURN(t->expected_, t->oracle_.Run(feeds, t->fetch_names_, plan.spec.targets));
    if (!t->initial_->names().empty()) {
      DFC_ASSIGN_OR_RETURN(t->expected_variables_, t->oracle_.Run({}, t->initial_->names()));
    }
    return t;
  }

  // Runs the plan with its current kernels: the median time of cluster c, and the answer's
  // largest error against the oracle (an error status if it is outside the tolerance).
  // `times` keeps every timed run of the variant, so that timing it again (a race) adds to
  // its median rather than replacing it. A variant whose run (the warm-up too) takes longer
  // than `cutoff_ms` has lost: its runs stop there, that run its time.
  absl::Status Measure(int c, VariantResult& result, std::vector<double>& times,
                       double cutoff_ms = std::numeric_limits<double>::infinity()) {
    const int64_t fallbacks = executor_.fallbacks();
    for (int run = 0; run < options_.warmup + options_.runs; ++run) {
      initial_->Restore(state_);
      DFC_RETURN_IF_ERROR(timer_.Drop());  // what ran since the last timed run: its checks
      DFC_ASSIGN_OR_RETURN(
          std::vector<Tensor> out,
          executor_.Run(*plan_.graph, plan_.translated, feeds_, plan_.spec.fetches, &state_));
      if (executor_.fallbacks() != fallbacks) {
        return absl::InternalError("its kernel did not build or run (the cluster fell back)");
      }
      DFC_ASSIGN_OR_RETURN(const std::vector<profiler::DeviceEvent> kernels, timer_.Take());
      const double ms = static_cast<double>(KernelNanoseconds(kernels, c)) * 1e-6;
      if (run == 0) {
        DFC_RETURN_IF_ERROR(Check(out, expected_, fetch_names_, "answer for ", result.max_error));
        DFC_ASSIGN_OR_RETURN(std::vector<Tensor> variables, initial_->Read(executor_, state_));
        DFC_RETURN_IF_ERROR(Check(variables, expected_variables_, initial_->names(),
                                  "value after the run of variable ", result.max_error));
      }
      if (ms > cutoff_ms) {
        times.push_back(ms);
        break;
      }
      if (run >= options_.warmup) times.push_back(ms);
    }
    std::vector<double> sorted = times;
    std::ranges::sort(sorted);
    result.median_ms = sorted[sorted.size() / 2];
    if (result.median_ms <= 0) {
      return absl::InternalError("the profiler recorded no time for the cluster's kernels");
    }
    return absl::OkStatus();
  }

 private:
  VariantTimer(Plan& plan, DeviceExecutor& executor, const std::vector<Feed>& feeds,
               const TuneOptions& options)
      : plan_(plan), executor_(executor), feeds_(feeds), options_(options), oracle_(plan.graph) {}

  // The largest error of `got` against `want` (the values of `names`), or why it is wrong.
  absl::Status Check(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                     const std::vector<std::string>& names, absl::string_view what,
                     double& max_error) const {
    for (size_t i = 0; i < got.size(); ++i) {
      const Comparison cmp =
          CompareTensors(got[i], want[i], VariantTolerance(want[i], longest_reduction_));
      max_error = std::max(max_error, cmp.max_error);
      if (!cmp.equal) {
        return absl::InternalError(absl::StrCat("wrong ", what, names[i], ": ", cmp.reason));
      }
    }
    return absl::OkStatus();
  }

  Plan& plan_;
  DeviceExecutor& executor_;
  const std::vector<Feed>& feeds_;
  const TuneOptions& options_;
  // Kernels are timed by the profiler's device events, recorded from construction on so that
  // the executor's queue records times from its first run (the initialisers') to its last.
  KernelTimer timer_;
  DeviceExecutor::State state_;
  reference::Session oracle_;
  std::optional<VariableStart> initial_;
  int64_t longest_reduction_ = 0;
  std::vector<std::string> fetch_names_;
  std::vector<Tensor> expected_;
  std::vector<Tensor> expected_variables_;
};

// One cluster's tuning: its stages one method each, run in order by Tune.
class ClusterTuner {
 public:
  ClusterTuner(Plan& plan, DeviceExecutor& executor, VariantTimer& timer,
               const TuneOptions& options, size_t c, Clock::time_point start,
               Clock::time_point deadline)
      : plan_(plan),
        executor_(executor),
        timer_(timer),
        options_(options),
        c_(c),
        cluster_(plan.translated.clusters[c]),
        start_(start),
        deadline_(deadline),
        tuning_{.cluster = static_cast<int>(c),
                .nodes = ClusterNodeNames(*plan.graph, plan.translated.partition.clusters[c])},
        work_group_sizes_(WorkGroupSizes(executor.profile())) {
    // The explorer neither counts nor rewrites further a variant the device lowering declines.
    explore_ = options.explore;
    explore_.usable = [&executor](const ir::ExprPtr& body) {
      return rewrite::LowerForDevice(body, executor.profile()).status();
    };
    explore_.work_groups = executor.profile().WorkGroupReductionSize() > 0;
  }

  absl::StatusOr<ClusterTuning> Tune() {
    DFC_RETURN_IF_ERROR(TryAlgorithmicVariants());
    DFC_RETURN_IF_ERROR(Refine());
    DFC_RETURN_IF_ERROR(TryOtherWidths());
    TryWorkGroupSizes();
    if (options_.progress != nullptr && options_.progress_bar) *options_.progress << "\n";
    TakeTheBest();
    return std::move(tuning_);
  }

 private:
  // Stages one and two: the algorithmic variants, each mapped as the profile says.
  absl::Status TryAlgorithmicVariants() {
    DFC_ASSIGN_OR_RETURN(std::vector<rewrite::Variant> variants,
                         rewrite::Enumerate(cluster_.lambda->body, explore_));
    total_ = variants.size() + work_group_sizes_.size();
    for (const rewrite::Variant& variant : variants) {
      TryVariant(variant.body, {.name = variant.Name(), .steps = variant.steps}, variant.usable);
    }
    PickBest();
    Race();
    return absl::OkStatus();
  }

  // The best variant, one step further, while that is faster: a step whose worth shows only
  // after others (vectorising a second reduction once the first is fast) lies past the
  // breadth-first cap. Variants tried before are not tried again.
  absl::Status Refine() {
    for (int round = 0; round < options_.refine_rounds && Best().status.ok(); ++round) {
      const int from = tuning_.best;
      DFC_ASSIGN_OR_RETURN(
          std::vector<rewrite::Variant> next,
          rewrite::Extend({tuning_.variants[from].steps, bodies_[from]}, explore_));
      TryUntried(std::move(next));
      Race();
      if (tuning_.best == from) break;
    }
    return absl::OkStatus();
  }

  // Stage three, parameters: the vector widths of the best variant's steps, one at a time.
  absl::Status TryOtherWidths() {
    if (!Best().status.ok()) return absl::OkStatus();
    DFC_ASSIGN_OR_RETURN(
        std::vector<rewrite::Variant> widths,
        rewrite::OtherWidths(cluster_.lambda->body, {Best().steps, nullptr}, explore_));
    TryUntried(std::move(widths));
    Race();
    return absl::OkStatus();
  }

  // And the best variant's MapGlb kernels with the work-group sizes the profile suggests.
  void TryWorkGroupSizes() {
    const int algorithmic_best = tuning_.best;
    if (!tuning_.variants[algorithmic_best].status.ok()) return;
    for (int size : work_group_sizes_) {
      const VariantResult& base = tuning_.variants[algorithmic_best];
      TryVariant(bodies_[algorithmic_best],
                 {.name = absl::StrCat(base.name, " ; workGroupSize(", size, ")"),
                  .steps = base.steps,
                  .work_group_size = size});
    }
    Race();
  }

  // The plan takes the fastest variant, if it is not the default, and the executor its kernel.
  void TakeTheBest() {
    if (Best().status.ok() && tuning_.best > 0) {
      plan_.kernels[c_] = kernels_[tuning_.best];
      // (A plan built without CompilePlan, as conformance builds its own, keeps no hashes.)
      if (c_ < plan_.variants.size()) plan_.variants[c_] = Best().variant;
      plan_.spec.steps[c_] = Best().steps;
      plan_.spec.work_group_sizes[c_] = Best().work_group_size;
    }
    executor_.UseKernel(cluster_, plan_.kernels[c_]);
  }

  const VariantResult& Best() const { return tuning_.variants[tuning_.best]; }

  // The kernels of the cluster with `body`, named by `steps`, its MapGlb kernels in
  // work-groups of `work_group_size` (-1: the profile's).
  absl::StatusOr<codegen::KernelSource> Generate(const ir::ExprPtr& body,
                                                 const std::vector<rewrite::Step>& steps,
                                                 int work_group_size) const {
    DFC_ASSIGN_OR_RETURN(ClusterKernel kernel,
                         CompileCluster(cluster_, {.steps = steps, .body = body},
                                        {.name = absl::StrCat("dfc_cluster_", c_),
                                         .nodes = tuning_.nodes,
                                         .profile = executor_.profile(),
                                         .work_group_size = work_group_size}));
    return std::move(kernel.source);
  }

  // Generates, runs and times `body` as the variant `result` describes (its steps name it;
  // its work_group_size, -1 for the profile's, sizes the MapGlb kernels). `usable`: why the
  // generator refused it when the explorer asked (nothing is generated then).
  void TryVariant(const ir::ExprPtr& body, VariantResult result,
                  const absl::Status& usable = absl::OkStatus()) {
    result.variant = VariantHash(body);
    codegen::KernelSource source;
    std::vector<double> times;
    if (!usable.ok()) {
      result.status = usable;
    } else if (!tuning_.variants.empty() && Clock::now() > deadline_) {
      result.status = absl::DeadlineExceededError("not tried: the tuning budget was spent");
    } else {
      absl::StatusOr<codegen::KernelSource> kernel =
          Generate(body, result.steps, result.work_group_size);
      if (kernel.ok()) {
        source = *kernel;
        executor_.UseKernel(cluster_, *std::move(kernel));
        // A variant this much slower than the fastest so far is not timed further: on a
        // large shape a slow variant's runs took most of the budget (the 1024 square's
        // default runs 2.6 s, the good variants 0.1).
        constexpr double kLosingFactor = 3;
        double best_ms = std::numeric_limits<double>::infinity();
        for (const VariantResult& r : tuning_.variants) {
          if (r.status.ok()) best_ms = std::min(best_ms, r.median_ms);
        }
        result.status =
            timer_.Measure(static_cast<int>(c_), result, times, kLosingFactor * best_ms);
      } else {
        result.status = kernel.status();
      }
    }
    ReportProgress(result);
    tuning_.variants.push_back(std::move(result));
    kernels_.push_back(std::move(source));
    bodies_.push_back(body);
    timings_.push_back(std::move(times));
  }

  // The variants not structurally equal to one tried before, each tried.
  void TryUntried(std::vector<rewrite::Variant> candidates) {
    std::erase_if(candidates, [&](const rewrite::Variant& v) {
      return std::ranges::any_of(bodies_,
                                 [&](const ir::ExprPtr& b) { return ir::ExprEquals(b, v.body); });
    });
    total_ += candidates.size();
    for (const rewrite::Variant& variant : candidates) {
      TryVariant(variant.body, {.name = variant.Name(), .steps = variant.steps}, variant.usable);
    }
  }

  // The machine's speed drifts between variants timed minutes apart (on a shared host, by
  // more than the gain of one rule), so the fastest kRaced are timed again, in turn, for
  // kRaceRounds rounds, and compared by the median of all their runs.
  void Race() {
    constexpr size_t kRaced = 4;
    constexpr int kRaceRounds = 2;
    std::vector<size_t> order;
    for (size_t v = 0; v < tuning_.variants.size(); ++v) {
      if (tuning_.variants[v].status.ok()) order.push_back(v);
    }
    std::ranges::sort(order, {}, [&](size_t v) { return tuning_.variants[v].median_ms; });
    if (order.size() > kRaced) order.resize(kRaced);
    for (int round = 0; round < kRaceRounds && Clock::now() <= deadline_; ++round) {
      for (size_t v : order) {
        executor_.UseKernel(cluster_, kernels_[v]);
        VariantResult& result = tuning_.variants[v];
        result.status = timer_.Measure(static_cast<int>(c_), result, timings_[v]);
      }
    }
    PickBest();
  }

  void PickBest() {
    for (size_t v = 0; v < tuning_.variants.size(); ++v) {
      const VariantResult& r = tuning_.variants[v];
      if (r.status.ok() && (!Best().status.ok() || r.median_ms < Best().median_ms)) {
        tuning_.best = static_cast<int>(v);
      }
    }
  }

  // One line a variant, or the bar redrawn, as TuneOptions::progress asks.
  void ReportProgress(const VariantResult& result) const {
    if (options_.progress == nullptr) return;
    const size_t tried = tuning_.variants.size() + 1;
    if (options_.progress_bar) {
      constexpr int kWidth = 30;
      const int done = static_cast<int>(tried * kWidth / total_);
      const double spent = std::chrono::duration<double>(Clock::now() - start_).count();
      *options_.progress << absl::StrFormat("\rcluster %d/%d [%s%s] %d/%d variants, %.0f of %.0f s",
                                            c_ + 1, plan_.translated.clusters.size(),
                                            std::string(done, '#'), std::string(kWidth - done, '.'),
                                            tried, total_, spent, options_.budget_seconds);
      options_.progress->flush();
    } else {
      *options_.progress << absl::StrFormat(
          "cluster %d variant %d/%d %-60s %s\n", c_, tried, total_, result.name,
          result.status.ok() ? absl::StrFormat("%.3f ms", result.median_ms)
                             : std::string(result.status.message()));
    }
  }

  Plan& plan_;
  DeviceExecutor& executor_;
  VariantTimer& timer_;
  const TuneOptions& options_;
  const size_t c_;
  const ir::TranslatedCluster& cluster_;
  const Clock::time_point start_;     // of the plan's tuning
  const Clock::time_point deadline_;  // of this cluster's
  rewrite::ExploreOptions explore_;
  ClusterTuning tuning_;
  const std::vector<int> work_group_sizes_;
  size_t total_ = 0;  // the variants to try, as far as known
  // Of tuning_.variants, in order: kernels, bodies and every timed run.
  std::vector<codegen::KernelSource> kernels_;
  std::vector<ir::ExprPtr> bodies_;
  std::vector<std::vector<double>> timings_;
};

}  // namespace

absl::StatusOr<std::vector<ClusterTuning>> TunePlan(Plan& plan, DeviceExecutor& executor,
                                                    const std::vector<Feed>& feeds,
                                                    const TuneOptions& options) {
  if (options.runs < 1) return absl::InvalidArgumentError("tuning needs at least one timed run");
  DFC_ASSIGN_OR_RETURN(std::unique_ptr<VariantTimer> timer,
                       VariantTimer::Make(plan, executor, feeds, options));
  const size_t n = plan.translated.clusters.size();
  plan.spec.steps.resize(n);
  plan.spec.work_group_sizes.resize(n, -1);
  for (size_t c = 0; c < n; ++c) executor.UseKernel(plan.translated.clusters[c], plan.kernels[c]);
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline =
      start + std::chrono::duration_cast<Clock::duration>(
                  std::chrono::duration<double>(options.budget_seconds));
  std::vector<ClusterTuning> tunings;
  for (size_t c = 0; c < n; ++c) {
    const Clock::time_point now = Clock::now();
    ClusterTuner tuner(plan, executor, *timer, options, c, start,
                       now + ClusterShare(deadline - now, n - c));
    DFC_ASSIGN_OR_RETURN(ClusterTuning tuning, tuner.Tune());
    tunings.push_back(std::move(tuning));
  }
  return tunings;
}

}  // namespace dfc
