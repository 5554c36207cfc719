// Tuning, in Lift's three stages: for each cluster of a plan, the variants the rewrite rules
// make (rewrite/explore.h, vector widths from the device profile), each mapped to threads and
// memory as the profile says (MapGlb, or MapWrg/MapLcl reductions on GPUs), the best of them
// extended one step at a time while that makes it faster, then the best with the other
// work-group sizes the profile suggests. Each is generated, built and run on the device,
// checked against the reference executor before it may win, and timed by its kernels' device
// events as the profiler records them (runtime/kernel_timer.h; the median of several runs after
// a warm-up); after each stage the fastest few are timed again in turn, so that a drift of the
// machine's speed between variants timed apart does not pick the winner; the fastest correct
// one replaces the cluster's kernel in the plan.
#ifndef DFC_RUNTIME_TUNE_H_
#define DFC_RUNTIME_TUNE_H_

#include <chrono>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/feed.h"
#include "graph/tensor.h"
#include "rewrite/explore.h"
#include "runtime/compare.h"
#include "runtime/device_executor.h"
#include "runtime/plan.h"
#include "runtime/tuning_db.h"

namespace dfc {

struct TuneOptions {
  int warmup = 1;
  int runs = 5;                 // timed runs per variant; the median counts
  double budget_seconds = 300;  // for the whole plan (ClusterShare); variants past it are not tried
  rewrite::ExploreOptions explore;
  // After the breadth-first variants, the best one is extended by one step (each rule at each
  // place, rewrite::Extend) while an extension is faster, at most this many times.
  int refine_rounds = 3;
  // Progress, as one line per variant tried, or (progress_bar, for a terminal) one bar
  // redrawn in place: variants tried of the cluster's, the time spent of the budget.
  std::ostream* progress = nullptr;
  bool progress_bar = false;
};

struct VariantResult {
  std::string name;  // Variant::Name()
  std::vector<rewrite::Step> steps;
  std::string variant;  // VariantHash of the body its steps made
  absl::Status status;  // why it cannot be used: not generated, not built, a wrong answer
  double median_ms = 0;
  double max_error = 0;  // against the reference executor, over the fetches
  // The work-group size of its MapGlb kernels (a parameter of stage three); -1: the profile's.
  int work_group_size = -1;
};

struct ClusterTuning {
  int cluster = 0;
  std::vector<std::string> nodes;       // "name (Op)"
  std::vector<VariantResult> variants;  // variants[0] is the default strategy
  int best = 0;                         // the fastest usable variant
};

// Runs `plan`'s initialisers (spec.init: a training graph's `init`) on `executor` into
// `state`, as a plan opened to run does: nothing for a plan without.
absl::Status RunInitialisers(const Plan& plan, DeviceExecutor& executor,
                             DeviceExecutor::State& state);

// Tunes every cluster of `plan` on `executor`'s device with `feeds`, which fix the sizes
// timed; the oracle (a reference Session) checks them before any of them runs on the device.
// The plan's fetches are compared with the reference executor's, within VariantTolerance.
// `plan.kernels` and `plan.spec.steps` take each cluster's best variant. A plan with targets
// (a training step) changes its variables every run: each run starts from the values the
// plan's initialisers (spec.init, which it must have) give them, and the values a variant's
// run leaves are checked against the oracle's too. It turns the profiler on while it runs and
// takes what it records (KernelTimer): nothing else may profile meanwhile.
absl::StatusOr<std::vector<ClusterTuning>> TunePlan(Plan& plan, DeviceExecutor& executor,
                                                    const std::vector<Feed>& feeds,
                                                    const TuneOptions& options);

// The variants `db` records for `device` (at `bucket`'s size, or at any size without one) taken
// into `plan`, as `dfc compile` takes them: a cluster with an entry whose steps still make the
// variant it recorded is compiled with its steps and work-group size; the others keep the
// default strategy, with a warning on `warnings` (if set) for an entry that no longer replays.
// Returns how many clusters took a recorded variant.
absl::StatusOr<int> TakeRecordedVariants(const TuningDb& db, const std::string& device,
                                         std::optional<int64_t> bucket, Plan& plan,
                                         std::ostream* warnings);

// The tuning database's entry for tuning `t` of `plan`'s cluster on `device` at `bucket`: the
// fastest variant's steps and work-group size, its time and the default's.
TuningEntry RecordedChoice(const Plan& plan, const ClusterTuning& t, const std::string& device,
                           int64_t bucket);

// The tolerance a variant's answer is checked with. A variant differs from the default only
// in the order in which it combines the terms of its reductions (UserFun::combiner), and
// reordering a floating-point sum of n terms changes it by at most 2·γ_n·Σ|terms| ≈
// 2·n·u·Σ|terms| (Higham, "Accuracy and Stability of Numerical Algorithms", §4.2), u the unit
// roundoff. Σ|terms| of a fused output is not known here, so the bound is taken relative to
// the output (rtol) and to its largest magnitude (atol), with n the longest reduction of the
// graph's clusters; never below DefaultTolerance. A wrong variant (a term missed or read
// from the wrong place) errs by a whole term, far beyond it.
Tolerance VariantTolerance(const Tensor& expected, int64_t longest_reduction);

// The work-group sizes worth trying for MapGlb kernels on a device, besides the profile's own:
// one to eight SIMD widths on a GPU; 1, 16 and 64 on a CPU.
std::vector<int> WorkGroupSizes(const rewrite::DeviceProfile& profile);

// How long the next of `clusters_left` clusters may tune when `left` of the plan's budget is
// left: an equal share (none once the budget is spent). A cluster with many variants (a
// training step's forward pass at 8192 rows) would otherwise spend all of it, and the clusters
// after it would keep their defaults; one done early leaves its time to the rest.
std::chrono::nanoseconds ClusterShare(std::chrono::nanoseconds left, size_t clusters_left);

// The vector widths worth trying on a device (its profile's preferred float width and the
// widths below it, at least 4).
std::vector<int> VectorWidths(const rewrite::DeviceProfile& profile);

}  // namespace dfc

#endif  // DFC_RUNTIME_TUNE_H_
