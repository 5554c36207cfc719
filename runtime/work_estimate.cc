// Work estimates (see work_estimate.h).
#include "runtime/work_estimate.h"

#include <optional>

#include "graph/dtype.h"
#include "graph/tensor.h"
#include "ir/type.h"

namespace dfc {
namespace {

// The element count of `shape` under `sizes`; 0 where a size is unbound or the count overflows.
int64_t ElementsUnder(const SymbolicShape& shape, const SizeBindings& sizes) {
  absl::StatusOr<std::vector<int64_t>> dims = EvaluateShape(shape, sizes);
  if (!dims.ok()) return 0;
  absl::StatusOr<int64_t> n = NumElements(*dims);
  return n.ok() ? *n : 0;
}

int64_t Elements(const Graph& graph, const ir::TranslatedGraph& translated, const TensorId& id,
                 const SizeBindings& sizes) {
  const TensorInfo& info = translated.fold.Info(graph, id);
  return info.shape ? ElementsUnder(*info.shape, sizes) : 0;
}

}  // namespace

int64_t ClusterBytes(const ir::TranslatedCluster& cluster, const SizeBindings& sizes) {
  const auto& lambda = *cluster.lambda;
  int64_t bytes = 0;
  auto add = [&](const ir::TypePtr& type) {
    std::optional<SymbolicShape> shape = ir::TensorShape(type);
    if (!shape) return;
    bytes += ElementsUnder(*shape, sizes) * static_cast<int64_t>(SizeOf(ir::BaseDType(type)));
  };
  for (const ir::ParamPtr& p : lambda.params) add(p->type);
  for (const ir::TypePtr& t : cluster.output_types) add(t);
  return bytes;
}

int64_t NodeFlops(const Graph& graph, const ir::TranslatedGraph& translated, const Node& node,
                  const SizeBindings& sizes) {
  const int64_t out = Elements(graph, translated, {node.name, 0}, sizes);
  if (node.op != "MatMul" || node.inputs.empty()) return out;
  const TensorInfo& a = translated.fold.Info(graph, node.inputs[0]);
  const bool ta = node.GetBool("transpose_a", false).value_or(false);
  if (!a.shape || a.shape->size() != 2) return 0;
  absl::StatusOr<int64_t> k = (*a.shape)[ta ? 0 : 1].Evaluate(sizes);
  return k.ok() ? 2 * out * *k : 0;
}

int64_t NodeOutputBytes(const Graph& graph, const ir::TranslatedGraph& translated, const Node& node,
                        const SizeBindings& sizes) {
  const TensorInfo& info = translated.fold.Info(graph, {node.name, 0});
  return Elements(graph, translated, {node.name, 0}, sizes) *
         static_cast<int64_t>(info.dtype == DType::kInvalid ? 0 : SizeOf(info.dtype));
}

int64_t ClusterFlops(const Graph& graph, const ir::TranslatedGraph& translated, int c,
                     const SizeBindings& sizes) {
  int64_t flops = 0;
  for (int i : translated.partition.clusters[c].nodes) {
    flops += NodeFlops(graph, translated, graph.node(i), sizes);
  }
  return flops;
}

}  // namespace dfc
