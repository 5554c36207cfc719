// Graph: the validated node set of a GraphDef, with edges resolved to node indices, a
// topological order, and pruning to what a set of fetches and targets needs.
#ifndef DFC_GRAPH_GRAPH_H_
#define DFC_GRAPH_GRAPH_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/control_flow.h"
#include "graph/graph_def.pb.h"
#include "graph/node.h"

namespace dfc {

class Graph;

// A function that a While or If node runs (a loop's condition or body, a branch), as a graph:
// its arguments are placeholders, its results tensors of it.
struct FunctionGraph {
  std::shared_ptr<const Graph> graph;
  std::vector<std::string> args;     // placeholder names, in argument order
  std::vector<TensorId> results;     // in result order
  std::vector<std::string> targets;  // nodes run for their effects
};
using FunctionLibrary = absl::flat_hash_map<std::string, FunctionGraph>;

class Graph {
 public:
  // Decodes and validates: unique non-empty names, every input naming an existing node and
  // an output it has, control inputs after data inputs, attribute kinds of supported ops,
  // decodable constant tensors, and no cycle. Errors name the node.
  // `bodies`: the functions its While and If nodes (and theirs) run, as FunctionalizeControlFlow
  // made them; each is validated as a graph, and every function a node names must be there.
  static absl::StatusOr<Graph> FromGraphDef(const tf::GraphDef& def,
                                            const FunctionBodies& bodies = {});

  // The same checks on nodes built in code (tests, transformations).
  static absl::StatusOr<Graph> FromNodes(std::vector<Node> nodes, int producer = 0);

  const std::vector<Node>& nodes() const { return nodes_; }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const Node& node(int i) const { return nodes_[i]; }

  // Index of the node called `name`, or -1.
  int IndexOf(absl::string_view name) const;
  const Node* FindNode(absl::string_view name) const;

  // The number of outputs of node i, or -1 when its op is not supported (not known).
  int num_outputs(int i) const { return num_outputs_[i]; }

  // All node indices, each after its data and control inputs.
  const std::vector<int>& topological_order() const { return topo_order_; }

  // TensorFlow's producer version of the GraphDef (0 if absent).
  int producer() const { return producer_; }

  // The index of the node that produces `id`. `role` ("fetch", "feed") starts the error:
  // NotFound when no node has that name, InvalidArgument when the node lacks that output.
  absl::StatusOr<int> ResolveTensor(const TensorId& id, absl::string_view role) const;

  // Every (node, output) that some data input consumes.
  bool IsConsumed(int node) const { return consumed_[node]; }

  // The functions of this graph's While and If nodes, nested ones included (shared by the
  // graphs of those functions, which hold none themselves); null when there are none.
  const std::shared_ptr<const FunctionLibrary>& functions() const { return functions_; }

 private:
  static absl::StatusOr<Graph> FromGraphDef(
      const google::protobuf::RepeatedPtrField<tf::NodeDef>& node_defs, int producer);
  absl::Status Index();
  absl::Status Sort();

  std::vector<Node> nodes_;
  absl::flat_hash_map<std::string, int> index_;
  std::vector<int> num_outputs_;
  std::vector<int> topo_order_;
  std::vector<bool> consumed_;
  int producer_ = 0;
  std::shared_ptr<const FunctionLibrary> functions_;
};

// The nodes that computing `fetches` and running `targets` needs, in topological order:
// data and control inputs, transitively, stopping at fed tensors (a node whose every needed
// output is fed is not run). Errors for names that are not in the graph.
absl::StatusOr<std::vector<int>> NeededNodes(const Graph& graph,
                                             const std::vector<TensorId>& fetches,
                                             const std::vector<std::string>& targets,
                                             const absl::flat_hash_set<TensorId>& fed);

// Checks each of `nodes` is a supported op (OPS.md) with supported dtypes; the error names
// the op and the node that uses it, and for an op that only feeds others, the fetch that
// needs it.
absl::Status CheckSupported(const Graph& graph, const std::vector<int>& nodes);

}  // namespace dfc

#endif  // DFC_GRAPH_GRAPH_H_
