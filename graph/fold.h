// Compile-time knowledge of every tensor of a graph: dtypes, shapes (static or symbolic in
// size variables such as the batch `N`), values folded from constants, and the shape
// arithmetic of gradient graphs folded symbolically (Shape -> Prod -> FloorDiv gives `N`).
//
// graph/ cannot run ops or translate them, so the caller supplies both as a FoldOracle: the
// reference executor evaluates nodes on constants and the IR translation infers device shapes.
#ifndef DFC_GRAPH_FOLD_H_
#define DFC_GRAPH_FOLD_H_

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "graph/arith.h"
#include "graph/attr.h"
#include "graph/dtype.h"
#include "graph/graph.h"
#include "graph/node.h"
#include "graph/tensor.h"

namespace dfc {

// What is known at compile time about one tensor.
struct TensorInfo {
  DType dtype = DType::kInvalid;       // kInvalid: unknown
  std::optional<SymbolicShape> shape;  // nullopt: unknown rank
  std::optional<Tensor> value;         // the value, known at compile time
  // For int32/int64 tensors of rank 0 or 1: each element as an ArithExpr (the Shape of an
  // [N,10] tensor is {N, 10}). Set whenever `value` is set too (constants as ArithExprs).
  std::optional<std::vector<ArithExpr>> symbolic_value;

  bool is_constant() const { return value.has_value(); }
  // Known up to the values of size variables.
  bool is_symbolic_constant() const { return symbolic_value.has_value(); }

  // "int32[2] = {N, 784}", "float32[N,10]", "?<unknown rank>".
  std::string ToString() const;
};

// Everything known about a constant: dtype, shape, value, and for int vectors and scalars
// the symbolic value.
TensorInfo ConstantInfo(const Tensor& value);

class FoldOracle {
 public:
  virtual ~FoldOracle() = default;
  // Evaluates a stateless node on concrete inputs (the caller passes the reference executor).
  virtual absl::StatusOr<std::vector<Tensor>> Evaluate(const Node& node,
                                                       std::span<const Tensor> inputs) const = 0;
  // Output dtypes and shapes of a device-placed node that could not be folded (the caller
  // passes the IR translation). An error means "unknown"; it is not fatal to folding.
  virtual absl::StatusOr<std::vector<TensorInfo>> InferShapes(
      const Node& node, std::span<const TensorInfo> inputs) const = 0;
  // True when the device node's translation reads input `input` only at compile time (an axis,
  // a shape): its producer must then be folded. Used by FoldOptions::fold_only_static.
  virtual bool ReadsStatically(const Node& node, int input) const {
    (void)node;
    (void)input;
    return false;
  }
};

struct FoldOptions {
  // Placeholder dimensions are size variables; unification (two of them that an op forces to
  // be equal, or one forced to equal a constant) replaces some by these expressions.
  absl::flat_hash_map<std::string, ArithExpr> size_substitutions;
  // Fold device and layout nodes only where their value is needed when the graph is compiled
  // (read statically by a translation, directly or through other nodes). The rest stays in
  // clusters: `dfc conformance --interpret` uses this so that the IR computes what the
  // cases test rather than the folder. Host nodes are always folded where they can be.
  bool fold_only_static = false;
  // Shapes for placeholders, by name, in place of their declared shapes (which must admit
  // them): a placeholder of unknown rank (`keep_prob`) can only be compiled once a caller says
  // what will be fed. -1 dimensions still become size variables.
  absl::flat_hash_map<std::string, PartialShape> placeholder_shapes;
  // For placeholders fed TensorArrays or TensorLists (a loop body's arguments), by name: the
  // shape every element read from them has (TensorArrayValue::UniformElementShape), so that
  // what a body computes from its reads has known shapes and fuses.
  absl::flat_hash_map<std::string, Shape> array_element_shapes;
};

// Where a size variable comes from: dimension `dim` of the placeholder `placeholder`, so a
// run binds it from the fed tensor's shape. Every unknown placeholder dimension starts as its
// own variable (`N`, `N1`... for dimension 0, `x_d1` for others); after unification several
// dimensions may share one, and each is listed.
//
// A host op whose output's size depends on its values (Where, Unique, DynamicPartition) gives
// each such dimension a variable of its own (`unique_o0_d0`), bound when the op runs:
// `placeholder` is then that op, `output` its output, and `when_run` is set.
struct SizeVariable {
  std::string name;
  std::string placeholder;
  int dim = 0;
  int output = 0;
  bool when_run = false;
};

struct FoldResult {
  // info[node][output], for every node of the graph; nodes that were not visited have an empty
  // vector.
  std::vector<std::vector<TensorInfo>> info;
  // Node i's outputs are all known at compile time (value or symbolic_value) and it is not a
  // Const, Placeholder or stateful node: it needs no kernel.
  std::vector<bool> folded;
  // Where each size variable comes from, for binding from feeds.
  std::vector<SizeVariable> size_variables;

  // The info of tensor `id`; an unknown TensorInfo if its node was not visited.
  const TensorInfo& Info(const Graph& g, const TensorId& id) const;
};

// Outputs above this many elements are left to a kernel rather than folded, for device and
// layout ops (a folded Fill of [N*1000, 1000] would be a huge constant in the plan).
inline constexpr int64_t kMaxFoldedElements = int64_t{1} << 20;

// Walks `nodes` (a topological order, e.g. from NeededNodes or graph.topological_order()) and
// records what is known about every output. A placeholder that `nodes` leaves out because it
// is fed is still described (its shape is what feeds must have). Nodes with a control input
// from a node that may have effects (anything but constants, placeholders and folded nodes)
// are not folded, so the ordering they ask for survives. An error from evaluating a node on
// constant inputs is returned, naming the node: the graph would fail the same way at run time.
absl::StatusOr<FoldResult> FoldConstants(const Graph& graph, const std::vector<int>& nodes,
                                         const FoldOracle& oracle, const FoldOptions& options = {});

}  // namespace dfc

#endif  // DFC_GRAPH_FOLD_H_
