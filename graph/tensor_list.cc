// TensorArray values (tensor_list.h).
#include "graph/tensor_list.h"

#include "absl/strings/str_cat.h"

namespace dfc {

std::optional<Shape> TensorArrayValue::UniformElementShape() const {
  std::optional<Shape> shape;
  for (const std::optional<Tensor>& e : elements) {
    if (!e) continue;
    if (shape && *shape != e->shape()) return std::nullopt;
    shape = e->shape();
  }
  if (shape) return element_shape.IsCompatibleWith(*shape) ? shape : std::nullopt;
  if (element_shape.unknown_rank) return std::nullopt;
  for (int64_t d : element_shape.dims) {
    if (d < 0) return std::nullopt;
  }
  return Shape(element_shape.dims);
}

std::string TensorArrayValue::DebugString() const {
  int written = 0;
  for (const auto& e : elements) written += e.has_value();
  return absl::StrCat("TensorArray<", DTypeName(dtype), element_shape.ToString(), ">(",
                      elements.size(), " elements, ", written, " written)");
}

}  // namespace dfc
