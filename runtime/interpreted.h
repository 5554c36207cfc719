// Running a translated graph: host nodes by the reference executor and each cluster by a
// runner (the device's kernels, or the IR interpreter, which checks the translation of whole
// graphs against the reference, `dfc conformance --interpret`, before any OpenCL exists).
#ifndef DFC_RUNTIME_INTERPRETED_H_
#define DFC_RUNTIME_INTERPRETED_H_

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "graph/feed.h"
#include "graph/fold.h"
#include "graph/graph.h"
#include "graph/tensor.h"
#include "ir/from_tf/cluster.h"

namespace dfc {

// Looks up a tensor computed (or fed) earlier in a run.
using ValueOf = std::function<absl::StatusOr<Tensor>(const TensorId&)>;

// Computes cluster `index` of a translated graph: `params` are the tensors of its Lambda's
// parameters (checked against their types), `sizes` the bound size variables. Returns the
// cluster's outputs in order.
using ClusterRunner = std::function<absl::StatusOr<std::vector<Tensor>>(
    int index, std::vector<Tensor> params, const SizeBindings& sizes, const ValueOf& value_of)>;

// Runs function `f` of the graph's library for While or If node `caller` on `args`.
using FunctionRunner = std::function<absl::StatusOr<std::vector<Tensor>>(
    const Node& caller, const FunctionGraph& f, std::vector<Tensor> args)>;

// Runs `translated` (made by ir::TranslateGraph for these fetches and feeds) and returns the
// fetches: host nodes by the reference executor, clusters by `run_cluster`, the functions of
// While and If nodes by `run_function`, with TF1 conds' deadness (runtime/control_flow.h). The
// feeds were checked where they entered (CheckFeeds). `library`: where the While and If nodes
// find their functions, `graph`'s own when null (a function's graph holds none).
absl::StatusOr<std::vector<Tensor>> RunTranslated(
    const Graph& graph, const ir::TranslatedGraph& translated, const std::vector<Feed>& feeds,
    const std::vector<TensorId>& fetches, const ClusterRunner& run_cluster,
    const FunctionRunner& run_function = {}, const FunctionLibrary* library = nullptr);

// Runs one cluster's nodes one by one on the reference executor (a kernel's fallback). Inputs
// the translations read when compiling (a Reshape's shape) come from `fold`, evaluated with
// `sizes`: their producers need not have run (the partition does not wait for them).
absl::StatusOr<std::vector<Tensor>> RunClusterByReference(const Graph& graph,
                                                          const Cluster& cluster,
                                                          const FoldResult& fold,
                                                          const SizeBindings& sizes,
                                                          const ValueOf& value_of);

// RunTranslated with every cluster run by the IR interpreter.
absl::StatusOr<std::vector<Tensor>> RunInterpreted(const Graph& graph,
                                                   const ir::TranslatedGraph& translated,
                                                   const std::vector<Feed>& feeds,
                                                   const std::vector<TensorId>& fetches);

}  // namespace dfc

#endif  // DFC_RUNTIME_INTERPRETED_H_
