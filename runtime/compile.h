// The one assembly of a cluster's kernel, a pipeline of named stages (rewrite/pipeline.h): its
// body as a variant's rewrite steps made it ("rules"), the default variant's contraction
// schedule ("schedule"), the lowering's stages (rewrite/lower_for_device.h), then printed as
// OpenCL C ("codegen"). `dfc compile` (CompilePlan), `dfc inspect`, the tuner, the executor's
// own generation and the conformance runner all call CompileCluster, so a cluster gets the same
// kernel whoever asks for it.
#ifndef DFC_RUNTIME_COMPILE_H_
#define DFC_RUNTIME_COMPILE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/kernel_gen.h"
#include "ir/from_tf/cluster.h"
#include "rewrite/explore.h"
#include "rewrite/pipeline.h"

namespace dfc {

struct ClusterKernel {
  codegen::KernelSource source;
  std::string variant;  // VariantHash (runtime/tuning_db.h) of the body it was generated from
  // The variant's name and the default schedule's steps, "default (blockRows(6), ...)": the
  // kernel's header comment's "rewritten by".
  std::string rules;
};

// The kernel of `cluster` as `variant` makes it: its body if it has one (a variant the explorer
// made), else its steps replayed on the cluster's translation (none: the default strategy).
// options.rules is the variant's name. A step that no longer applies is an error starting
// "its rewrite steps: "; a construct the code generator refuses is an error naming it. `after`
// sees the body after each stage but codegen, whose product is the kernel returned.
absl::StatusOr<ClusterKernel> CompileCluster(const ir::TranslatedCluster& cluster,
                                             const rewrite::Variant& variant,
                                             codegen::KernelOptions options,
                                             const rewrite::StageObserver& after = {});

// The stages' names, in order, "codegen" last (`dfc inspect --dump-after`).
std::vector<std::string> CompileStageNames();

}  // namespace dfc

#endif  // DFC_RUNTIME_COMPILE_H_
