// The one assembly of a cluster's kernel: its body as a variant's rewrite steps made it, then
// mapped onto the device and printed as OpenCL C. `dfc compile` (CompilePlan), the tuner, the
// executor's own generation and the conformance runner all call CompileCluster, so a cluster
// gets the same kernel whoever asks for it.
#ifndef DFC_RUNTIME_COMPILE_H_
#define DFC_RUNTIME_COMPILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "codegen/kernel_gen.h"
#include "ir/from_tf/cluster.h"
#include "rewrite/explore.h"

namespace dfc {

struct ClusterKernel {
  codegen::KernelSource source;
  std::string variant;  // VariantHash (runtime/tuning_db.h) of the body it was generated from
};

// The kernel of `cluster` as `variant` makes it: its body if it has one (a variant the explorer
// made), else its steps replayed on the cluster's translation (none: the default strategy).
// options.rules is the variant's name. A step that no longer applies is an error starting
// "its rewrite steps: "; a construct the code generator refuses is an error naming it.
absl::StatusOr<ClusterKernel> CompileCluster(const ir::TranslatedCluster& cluster,
                                             const rewrite::Variant& variant,
                                             codegen::KernelOptions options);

}  // namespace dfc

#endif  // DFC_RUNTIME_COMPILE_H_
