// TensorArray values (tensor_list.h).
#include "graph/tensor_list.h"

#include "absl/strings/str_cat.h"

namespace dfc {

std::optional<Shape> TensorArrayValue::UniformElementShape() const {
  const Shape* shape = nullptr;
  for (const std::optional<Tensor>& e : elements) {
    if (!e) continue;
    if (shape != nullptr && *shape != e->shape()) return std::nullopt;
    shape = &e->shape();
  }
  if (shape != nullptr) {
    return element_shape.IsCompatibleWith(*shape) ? std::optional<Shape>(*shape) : std::nullopt;
  }
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

void TensorArrayResource::Show(const TensorArrayValue& value) {
  array.dtype = value.dtype;
  array.element_shape = value.element_shape;  // the declared one: refining it costs a pass
  size = static_cast<int64_t>(value.elements.size());
}

std::string TensorArrayResource::DebugString() const {
  absl::MutexLock lock(&mu);
  if (is_grad) return absl::StrCat("the gradient ", array.DebugString());
  return absl::StrCat("the handle of a TensorArray<", DTypeName(array.dtype),
                      array.element_shape.ToString(), "> of ", size, " elements");
}

}  // namespace dfc
