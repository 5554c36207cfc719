// The stages a cluster's body passes through on its way to the code generator, and the one
// driver that runs them (after XLA's HloPassPipeline): each stage is named, the driver checks
// between stages that a stage kept the body's type, and an observer sees the body after every
// stage (`dfc inspect --dump-after STAGE`, a test's probe).
#ifndef DFC_REWRITE_PIPELINE_H_
#define DFC_REWRITE_PIPELINE_H_

#include <functional>
#include <span>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ir/expr.h"

namespace dfc::rewrite {

struct Stage {
  std::string name;
  // What the stage makes of the body; an error stops the pipeline and is returned unchanged.
  std::function<absl::StatusOr<ir::ExprPtr>(const ir::ExprPtr&)> run;
  // What must hold of the body after this stage (and so at every stage after it); unset: only
  // the driver's own check.
  std::function<absl::Status(const ir::ExprPtr&)> verify;
};

// Sees the body after each stage, by the stage's name.
using StageObserver = std::function<void(absl::string_view stage, const ir::ExprPtr& body)>;

// `body` through `stages` in order. A stage that changes the body's type is an internal error
// naming the stage and both types (every stage rewrites how a value is computed, never what);
// a stage's or its verifier's error is returned unchanged.
absl::StatusOr<ir::ExprPtr> RunStages(std::span<const Stage> stages, ir::ExprPtr body,
                                      const StageObserver& after = {});

}  // namespace dfc::rewrite

#endif  // DFC_REWRITE_PIPELINE_H_
