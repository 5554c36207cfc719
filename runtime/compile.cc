// A cluster's kernel, assembled in one place (see compile.h).
#include "runtime/compile.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "rewrite/schedule.h"
#include "runtime/tuning_db.h"

namespace dfc {

absl::StatusOr<ClusterKernel> CompileCluster(const ir::TranslatedCluster& cluster,
                                             const rewrite::Variant& variant,
                                             codegen::KernelOptions options) {
  ir::TranslatedCluster rewritten = cluster;
  if (variant.body != nullptr) {
    rewritten.lambda = std::make_shared<ir::Lambda>(cluster.lambda->params, variant.body);
  } else if (!variant.steps.empty()) {
    absl::StatusOr<ir::ExprPtr> body = rewrite::Replay(cluster.lambda->body, variant.steps);
    if (!body.ok()) {
      return absl::Status(body.status().code(),
                          absl::StrCat("its rewrite steps: ", body.status().message()));
    }
    rewritten.lambda = std::make_shared<ir::Lambda>(cluster.lambda->params, *std::move(body));
  }
  options.rules = variant.Name();
  // The variant is what its steps made; the schedule below is a function of it.
  const std::string hash = VariantHash(rewritten.lambda->body);
  // The default variant takes the rule-made schedule (its products', then its folds'); a
  // variant with steps is the explorer's, made from the translated body, and is left as its
  // steps made it.
  if (variant.steps.empty()) {
    DFC_ASSIGN_OR_RETURN(rewrite::ContractionSchedule schedule,
                         rewrite::DefaultSchedule(rewritten.lambda->body, options.profile));
    if (!schedule.steps.empty()) {
      rewritten.lambda = std::make_shared<ir::Lambda>(cluster.lambda->params, schedule.body);
      options.rules = absl::StrCat(options.rules, " (", absl::StrJoin(schedule.steps, ", "), ")");
    }
  }
  DFC_ASSIGN_OR_RETURN(codegen::KernelSource source, codegen::GenerateKernel(rewritten, options));
  return ClusterKernel{.source = std::move(source), .variant = hash};
}

}  // namespace dfc
