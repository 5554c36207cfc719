// Compiled plans: a graph translated and its kernels generated ahead of time for one device
// profile (`dfc compile`), written to a directory, and opened again to run without generating
// code (`dfc run DIR`, DeviceSession::OpenPlan).
//
//   DIR/plan.json              what runs where: the fetches and targets the plan computes, its
//                              initialisers, the device profile, each cluster's TF nodes,
//                              kernels, arguments, launch sizes and size variables, the host
//                              ops and the schedule
//   DIR/graph.pb | graph.pbtxt a copy of the graph, so that the plan stands on its own
//   DIR/kernels/cluster_K.cl   each cluster's OpenCL C
//
// Opening a plan translates its graph again (translation is deterministic and takes milliseconds;
// the kernels' builds are what costs) and checks that every cluster holds the nodes plan.json says,
// so a plan's kernels never run on a graph they were not made for. The kernel files are used
// as they are: an edited kernel runs if it builds, and otherwise falls back with a warning
// naming its cluster, as any kernel that fails to build does.
#ifndef DFC_RUNTIME_PLAN_H_
#define DFC_RUNTIME_PLAN_H_

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "codegen/kernel_gen.h"
#include "graph/graph.h"
#include "ir/from_tf/cluster.h"
#include "rewrite/device_profile.h"
#include "rewrite/explore.h"
#include "runtime/translate_for_feeds.h"

namespace dfc {

// What a plan is compiled for.
struct PlanSpec {
  std::vector<TensorId> fetches;
  std::vector<std::string> targets;  // run for their effects on every run (a training step)
  std::vector<std::string> init;     // run once when the plan is opened (variable initialisers)
  absl::flat_hash_map<std::string, PartialShape> placeholder_shapes;  // for unknown ranks
  rewrite::DeviceProfile profile;
  // Per cluster, the rewrite steps (rewrite/explore.h) its kernel is generated after, as a
  // tuning chose them; none (or no entry) for the default strategy.
  std::vector<std::vector<rewrite::Step>> steps;
  // Per cluster, the work-group size of its MapGlb kernels as a tuning chose it (0: the
  // driver's choice); -1 (or no entry): the profile's.
  std::vector<int> work_group_sizes;
  // ir::TranslateOptions::fusion: Fusion::kNone makes every device node a cluster (kernel) of its
  // own — the unfused chain benchmarks compare with. Not written to plan.json.
  Fusion fusion = Fusion::kAll;
  // What the translation folds (a session's runs fold the same). Not written to plan.json.
  Folding folding = Folding::kConstants;
};

struct Plan {
  PlanSpec spec;
  std::shared_ptr<const Graph> graph;
  ir::TranslatedGraph
      translated;  // for spec.fetches and spec.targets, placeholders fed at run time
  std::vector<codegen::KernelSource> kernels;  // one per cluster of `translated`
  // Per cluster, VariantHash (runtime/tuning_db.h) of the body its kernel was generated from:
  // plan.json keeps it, so that a plan whose steps now make another variant (the rules changed
  // since it was compiled) is refused rather than run with its old kernels.
  std::vector<std::string> variants;
};

// Translates `graph` as a run that feeds its placeholders does and generates every cluster's
// kernel for spec.profile. A cluster whose kernel cannot be generated is an error naming it.
absl::StatusOr<Plan> CompilePlan(std::shared_ptr<const Graph> graph, PlanSpec spec);

// Writes `plan` to `dir` (created if missing), with a copy of the graph file `graph_path`.
absl::Status WritePlan(const Plan& plan, const std::string& graph_path,
                       const std::filesystem::path& dir);

// Reads the plan in `dir`: compiles its graph again and takes each cluster's kernel source from
// its file. A missing or malformed file, or a plan whose clusters are not its graph's (other
// nodes, or steps that now make another variant than its kernels were made from), is an error
// naming the file.
absl::StatusOr<Plan> ReadPlan(const std::filesystem::path& dir);

// Moves the initialisers out of `targets` and returns them: targets that feed nothing from a
// placeholder and write variables only with Assign (TensorFlow's `init` NoOp). A training step
// reads placeholders and updates its variables, so it stays.
std::vector<std::string> SplitInitialisers(const Graph& graph, std::vector<std::string>& targets);

// Every variable's initialiser, in graph order, as tf.compat.v1.global_variables_initializer
// groups them: the Assign named "<variable>/Assign" that writes the variable (the op TensorFlow
// names Variable.initializer). For a graph whose `init` is empty because a checkpoint restores
// its weights (an exported SavedModel). A variable without one is an error naming it.
absl::StatusOr<std::vector<std::string>> VariableInitialisers(const Graph& graph);

}  // namespace dfc

#endif  // DFC_RUNTIME_PLAN_H_
