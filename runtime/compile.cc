// A cluster's kernel, assembled in one place (see compile.h).
#include "runtime/compile.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status.h"
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
  DFC_ASSIGN_OR_RETURN(codegen::KernelSource source, codegen::GenerateKernel(rewritten, options));
  return ClusterKernel{.source = std::move(source), .variant = VariantHash(rewritten.lambda->body)};
}

}  // namespace dfc
