// Output shapes of the nodes the folder (graph/fold.cc) does not fold, from their OpDef's
// HostShapeRule: so the device ops after a host op compile and fuse instead of waiting on the
// host for a shape.
#ifndef DFC_GRAPH_HOST_SHAPES_H_
#define DFC_GRAPH_HOST_SHAPES_H_

#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "graph/fold.h"
#include "graph/node.h"
#include "graph/ops.h"

namespace dfc {

// A new size variable for dimension `dim` of output `output` of the node being shaped, whose
// size only running it tells (Unique's number of distinct values); the run binds it then.
using FreshSize = std::function<ArithExpr(int output, int dim)>;

// The outputs of `node` with the dtypes its attributes say (or its first input's) and unknown
// shapes; IdentityN's each its input's.
std::vector<TensorInfo> UnknownOutputs(const Node& node, std::span<const TensorInfo> in,
                                       int num_outputs);

// The output shapes of a node the folder does not fold, by its OpDef's HostShapeRule: host
// plumbing, the identity family, the layout ops whose shape is a symbolic value (Fill, Range),
// host ops whose shape follows their inputs and attributes. A shape that cannot be worked out
// stays unknown: never an error. Nullopt where the rule says nothing: ask the oracle (device
// ops) or leave unknown (host ops).
std::optional<std::vector<TensorInfo>> HostShapes(const Node& node, std::span<const TensorInfo> in,
                                                  int num_outputs, const FreshSize& fresh);

// A TF1 cond's Switch passes its value's shape to both outputs; its Merge gives the shape both
// branches agree on, and the index of the one taken.
void BranchShapes(const Node& node, std::span<const TensorInfo> in, std::vector<TensorInfo>& out);

// Stateful nodes (`def` is the node's): never folded; their shapes where they are easy.
std::vector<TensorInfo> StatefulShapes(const Node& node, const OpDef& def,
                                       std::span<const TensorInfo> in, int num_outputs);

// TensorFlow's broadcast of two symbolic shapes, where the simplifier can tell: a dimension
// that is the constant 1 gives way to the other; two that differ otherwise give nullopt.
std::optional<SymbolicShape> BroadcastShapes(const SymbolicShape& x, const SymbolicShape& y);

}  // namespace dfc

#endif  // DFC_GRAPH_HOST_SHAPES_H_
