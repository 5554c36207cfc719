// What the constant folder (graph/fold.cc) knows of the TensorArrays and TensorLists of a graph
// as it compiles it: each one's element shape and size where the ops that make and write it
// say, so that the reads after a loop have shapes and its size folds.
#ifndef DFC_GRAPH_ARRAY_SHAPES_H_
#define DFC_GRAPH_ARRAY_SHAPES_H_

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "graph/fold.h"
#include "graph/graph.h"

namespace dfc {

// What is known of a TensorArray or TensorList (the variant its flow carries) when the graph is
// compiled.
struct ArrayInfo {
  // The shape of every element: declared by the op that made the array (and then checked on
  // every write at run time), or else that of every element written so far.
  std::optional<SymbolicShape> element_shape;
  bool declared = false;
  // No element has been written yet: the first write says what the elements' shape is.
  bool fresh = false;
  // How many elements it has (a TensorArray that cannot grow, a list's length).
  std::optional<ArithExpr> size;

  bool operator==(const ArrayInfo&) const = default;
};

// The arrays of one graph, by the tensor that carries each (its flow).
class ArrayShapes {
 public:
  // `element_shapes`: FoldOptions::array_element_shapes, the element shapes of arrays fed.
  ArrayShapes(const Graph& graph, const absl::flat_hash_map<std::string, Shape>& element_shapes)
      : graph_(graph), element_shapes_(element_shapes) {}

  // What is known of the array input `input` of `node` carries: from an earlier node, or, for
  // a placeholder, from the loop that runs this body or the caller that feeds it.
  std::optional<ArrayInfo> At(const Node& node, int input) const;

  // What TensorArray and TensorList op `node` makes known: the arrays its outputs carry, the
  // shapes of what it reads (in `out`), and the size it reports, folded (so that a Range up to
  // an array's size after its loop is a constant). True when out[0] is that folded size.
  bool Apply(const Node& node, std::span<const TensorInfo> in, std::vector<TensorInfo>& out);

  // The array each output carries, by tensor.
  absl::flat_hash_map<TensorId, ArrayInfo>& carried() { return arrays_; }
  // A loop body's arguments as they enter the loop, by placeholder (the folder's LoopShapes).
  absl::flat_hash_map<std::string, ArrayInfo>& arguments() { return arg_arrays_; }

 private:
  const Graph& graph_;
  const absl::flat_hash_map<std::string, Shape>& element_shapes_;
  absl::flat_hash_map<TensorId, ArrayInfo> arrays_;
  absl::flat_hash_map<std::string, ArrayInfo> arg_arrays_;
};

}  // namespace dfc

#endif  // DFC_GRAPH_ARRAY_SHAPES_H_
