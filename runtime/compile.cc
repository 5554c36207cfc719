// A cluster's kernel, assembled in one place (see compile.h).
#include "runtime/compile.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "rewrite/lower_for_device.h"
#include "rewrite/schedule.h"
#include "runtime/tuning_db.h"

namespace dfc {
namespace {

// The body the variant's own stage makes: its body, or its steps replayed.
absl::StatusOr<ir::ExprPtr> VariantBody(const rewrite::Variant& variant, const ir::ExprPtr& body) {
  if (variant.body != nullptr) return variant.body;
  if (variant.steps.empty()) return body;
  absl::StatusOr<ir::ExprPtr> replayed = rewrite::Replay(body, variant.steps);
  if (!replayed.ok()) {
    return absl::Status(replayed.status().code(),
                        absl::StrCat("its rewrite steps: ", replayed.status().message()));
  }
  return replayed;
}

// The stages before the lowering: the variant's own, which takes `hash` (the variant is what
// its steps made; the schedule and the lowering are functions of it), then the default
// schedule. `rules` collects the header comment's account of them.
std::vector<rewrite::Stage> VariantStages(const rewrite::Variant& variant,
                                          const rewrite::DeviceProfile& profile, std::string& hash,
                                          std::string& rules) {
  const auto replay = [&variant, &hash](const ir::ExprPtr& body) -> absl::StatusOr<ir::ExprPtr> {
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr made, VariantBody(variant, body));
    hash = VariantHash(made);
    return made;
  };
  // The default variant takes the rule-made schedule (its products', then its folds'); a
  // variant with steps is the explorer's, made from the translated body, and is left as its
  // steps made it.
  const auto schedule = [&variant, &profile,
                         &rules](const ir::ExprPtr& body) -> absl::StatusOr<ir::ExprPtr> {
    if (!variant.steps.empty()) return body;
    DFC_ASSIGN_OR_RETURN(rewrite::ContractionSchedule made,
                         rewrite::DefaultSchedule(body, profile));
    if (made.steps.empty()) return body;
    rules = absl::StrCat(rules, " (", absl::StrJoin(made.steps, ", "), ")");
    return made.body;
  };
  return {{.name = "rules", .run = replay}, {.name = "schedule", .run = schedule}};
}

}  // namespace

std::vector<std::string> CompileStageNames() {
  std::vector<std::string> names = {"rules", "schedule"};
  for (const rewrite::Stage& stage : rewrite::LoweringStages(*rewrite::NamedProfile("cpu"))) {
    names.push_back(stage.name);
  }
  names.push_back("codegen");
  return names;
}

absl::StatusOr<ClusterKernel> CompileCluster(const ir::TranslatedCluster& cluster,
                                             const rewrite::Variant& variant,
                                             codegen::KernelOptions options,
                                             const rewrite::StageObserver& after) {
  options.rules = variant.Name();
  std::string hash;
  std::vector<rewrite::Stage> stages = VariantStages(variant, options.profile, hash, options.rules);
  for (rewrite::Stage& stage : rewrite::LoweringStages(options.profile)) {
    stages.push_back(std::move(stage));
  }
  ir::TranslatedCluster lowered = cluster;
  DFC_ASSIGN_OR_RETURN(ir::ExprPtr body, rewrite::RunStages(stages, cluster.lambda->body, after));
  lowered.lambda = std::make_shared<ir::Lambda>(cluster.lambda->params, std::move(body));
  DFC_ASSIGN_OR_RETURN(codegen::KernelSource source, codegen::GenerateKernel(lowered, options));
  return ClusterKernel{
      .source = std::move(source), .variant = std::move(hash), .rules = std::move(options.rules)};
}

}  // namespace dfc
