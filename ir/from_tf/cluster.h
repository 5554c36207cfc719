// Translating a whole graph: constant folding, partitioning into device clusters, and one Lambda
// per cluster that combines the translations of its nodes. Inputs read twice are one parameter
// (the thesis' combineArguments); a value read twice is bound once with a let, so it is
// computed once.
#ifndef DFC_IR_FROM_TF_CLUSTER_H_
#define DFC_IR_FROM_TF_CLUSTER_H_

#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "graph/fold.h"
#include "graph/graph.h"
#include "graph/partition.h"
#include "ir/expr.h"

namespace dfc::ir {

struct TranslatedCluster {
  // λ(p0, ..., pk) => the output, or Tuple(k) of the outputs when there are several.
  std::shared_ptr<const Lambda> lambda;
  // The tensor each parameter of `lambda` stands for: the cluster's inputs that some node reads
  // as data (inputs read only at compile time, such as axes, are not parameters).
  std::vector<TensorId> params;
  std::vector<TensorId> outputs;  // Partition's outputs, in the order of the result
  std::vector<TypePtr> output_types;
};

// Translates one cluster. Inputs that are rank-0 compile-time constants become Literals.
absl::StatusOr<TranslatedCluster> TranslateCluster(const Graph& graph, const Cluster& cluster,
                                                   const FoldResult& fold);

// Shapes of a device node's outputs from its translation, for FoldConstants (FoldOracle).
absl::StatusOr<std::vector<TensorInfo>> InferShapesByTranslation(
    const Node& node, std::span<const TensorInfo> inputs);

struct TranslatedGraph {
  FoldResult fold;
  Partition partition;
  std::vector<TranslatedCluster> clusters;  // one per partition.clusters[i]
  // Size variables that unification replaced (N1 -> N when x[N,3] + y[N1,3]).
  absl::flat_hash_map<std::string, ArithExpr> size_substitutions;

  // Counts over the nodes run, for the acceptance report: device-placed nodes (OPS.md
  // "device" or "layout") inside clusters, folded at compile time, and left to the host.
  int device_nodes = 0;
  int clustered = 0;
  int folded = 0;
  int device_on_host = 0;
  std::vector<std::string> host_device_nodes;  // "name (Op): why", for those left to the host
};

// Folds, partitions and translates what `fetches` need (fed tensors cut the graph as in a run).
// A device node whose translation fails where it stands (an input not known at compile time,
// say) runs on the host: the reason is recorded, not an error.
struct TranslateOptions {
  // FoldOptions::fold_only_static: keep device computations on constants in clusters.
  bool fold_only_static = false;
  // FoldOptions::placeholder_shapes: shapes for placeholders declared without one.
  absl::flat_hash_map<std::string, PartialShape> placeholder_shapes;
  // FoldOptions::array_element_shapes: the element shapes of arrays fed to placeholders.
  absl::flat_hash_map<std::string, Shape> array_element_shapes;
  // PartitionGraph's `fusion`: Fusion::kNone translates every device node as a cluster of its own.
  Fusion fusion = Fusion::kAll;
  // Leave to the host the device nodes that compute an integer or bool scalar from scalars (a
  // loop's counter and condition), as TensorFlow keeps int32 in host memory: a loop body's
  // translation, so that an iteration launches no kernel for them and reads none back.
  bool host_integer_scalars = false;
};

// `targets` are nodes run for their effects (a training step's NoOp).
absl::StatusOr<TranslatedGraph> TranslateGraph(const Graph& graph,
                                               const std::vector<TensorId>& fetches,
                                               const std::vector<std::string>& targets,
                                               const std::vector<TensorId>& feeds,
                                               const FoldOracle& oracle,
                                               const TranslateOptions& options = {});

}  // namespace dfc::ir

#endif  // DFC_IR_FROM_TF_CLUSTER_H_
