// The value a TensorArray's flow or a TensorList carries (dtype variant): its elements, each
// written once (a TensorArray) or set any number of times (a TensorList). Ops never change one:
// a write makes a new value, so that a value read earlier stays as it was and a loop carries
// the array as it carries any variable (runtime/reference/tensor_array.cc runs the ops).
#ifndef DFC_GRAPH_TENSOR_LIST_H_
#define DFC_GRAPH_TENSOR_LIST_H_

#include <optional>
#include <string>
#include <vector>

#include "graph/attr.h"
#include "graph/tensor.h"

namespace dfc {

struct TensorArrayValue : Variant {
  DType dtype = DType::kFloat;
  PartialShape element_shape{.unknown_rank = true, .dims = {}};
  bool dynamic_size = false;
  std::vector<std::optional<Tensor>> elements;

  // The shape every element read from it has: the written elements' one shape (the declared
  // element shape must admit it), or the declared shape when nothing is written and it is fully
  // known; nullopt otherwise.
  std::optional<Shape> UniformElementShape() const;
  std::string DebugString() const override;
};

// The TensorArray value a variant tensor holds, or null.
inline const TensorArrayValue* AsTensorArray(const Tensor& t) {
  return dynamic_cast<const TensorArrayValue*>(t.variant());
}

}  // namespace dfc

#endif  // DFC_GRAPH_TENSOR_LIST_H_
