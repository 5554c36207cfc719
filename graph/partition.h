// The partitioner: groups the nodes that can run as generated code into device clusters (one
// fused kernel each) and orders clusters and host nodes into a schedule.
//
// Clusters are maximal: connected through data edges between clusterable nodes, and grown
// until any further merge would make the graph of execution units cyclic (a cluster that
// feeds a host node that feeds the same cluster could never be launched).
#ifndef DFC_GRAPH_PARTITION_H_
#define DFC_GRAPH_PARTITION_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "graph/node.h"

namespace dfc {

struct Cluster {
  std::vector<int> nodes;  // topological order
  // Distinct tensors produced outside the cluster and read inside, each once (the thesis'
  // combineArguments), in first-use order.
  std::vector<TensorId> inputs;
  // Tensors produced inside and read outside (by a node or as a fetch), in node order, each
  // node's by output index.
  std::vector<TensorId> outputs;
};

// The node of `cluster` that reads `id` first, or nullptr: what messages about an input name.
const Node* FirstReader(const Graph& graph, const Cluster& cluster, const TensorId& id);

// One step of the schedule: a host node or a cluster; exactly one is >= 0.
// How PartitionGraph groups clusterable nodes into clusters (kernels).
enum class Fusion {
  kAll,   // maximal clusters
  kNone,  // every node a cluster of its own: the unfused chain, one kernel per op
  // Maximal clusters, except that every contraction (OPS.md's family: MatMul, BatchMatMul) is
  // a cluster of its own: the thesis' "Lift Separated", a GEMM kernel beside the fused rest.
  kSeparateContractions,
};

struct ExecutionUnit {
  int node = -1;
  int cluster = -1;
};

struct Partition {
  std::vector<Cluster> clusters;  // ordered as they first appear in the schedule
  std::vector<int> cluster_of;    // per graph node: cluster index or -1
  // Host nodes and clusters in an order that respects every data and control edge.
  std::vector<ExecutionUnit> schedule;
};

// `nodes`: the nodes to run, topological (edges from nodes outside it are ignored: fed
// tensors). `clusterable(i)`: node i may go in a cluster (the caller decides: a device or
// layout op, not folded, with a translation). `fetches`: tensors the caller reads (they become
// cluster outputs). Errors: a node index out of range or repeated, `nodes` not topological,
// a fetch that names no tensor. `compile_time(i, j)`: input j of clusterable node i is read
// when compiling (an axis, a shape), not at run time: its edge neither joins nor orders units,
// so a Reshape to Shape(x) can share a cluster with what computes x. `fusion` says how far
// clusters grow (benchmarks compare the three).
// The most nodes a cluster takes. Fusing more saves nothing measurable (a cluster's
// intermediate values are already in registers; what crosses between two clusters is one
// tensor), while the kernel's source, its build time and the code generator's recursion grow
// with it: a chain of 100,000 elementwise ops nests that deep and overflowed the stack.
inline constexpr size_t kMaxClusterNodes = 1024;

absl::StatusOr<Partition> PartitionGraph(
    const Graph& graph, const std::vector<int>& nodes, const std::function<bool(int)>& clusterable,
    const std::vector<TensorId>& fetches,
    const std::function<bool(int node, int input)>& compile_time = nullptr,
    Fusion fusion = Fusion::kAll);

}  // namespace dfc

#endif  // DFC_GRAPH_PARTITION_H_
