// What the folder knows of TensorArrays and TensorLists (see array_shapes.h).
#include "graph/array_shapes.h"

#include <utility>

#include "graph/ops.h"
#include "graph/symbolic_fold.h"

namespace dfc {
namespace {

using folding::ConstInts;
using folding::FromPartialShape;
using folding::IsSymbolicScalar;
using folding::ShapeOnly;
using folding::SymbolicInfo;
using folding::TypeAttr;
using Infos = std::vector<TensorInfo>;
using Inputs = std::span<const TensorInfo>;

// The element shape an array op declares in attribute `attr` or input `input` (a constant
// shape vector), when fully known: every write is checked against it at run time.
std::optional<SymbolicShape> DeclaredElementShape(const Node& node, Inputs in,
                                                  absl::string_view attr, int input) {
  if (!attr.empty()) {
    if (!node.HasAttr(attr)) return std::nullopt;
    absl::StatusOr<PartialShape> shape = node.GetShape(attr);
    return shape.ok() ? FromPartialShape(*shape) : std::nullopt;
  }
  if (input >= static_cast<int>(in.size()) || !in[input].shape || in[input].shape->size() != 1) {
    return std::nullopt;  // a scalar -1 is an unknown rank
  }
  const std::optional<std::vector<int64_t>> dims = ConstInts(in[input]);
  if (!dims) return std::nullopt;
  return FromPartialShape(PartialShape{.dims = *dims});
}

// What is known of `before` after `item` (its info) is written to it: an element shape that
// no check enforces holds only while every write matches it.
ArrayInfo AfterWrite(ArrayInfo before, const TensorInfo& item) {
  if (!before.declared) {
    if (before.fresh) {
      before.element_shape = item.shape;
    } else if (!item.shape || !before.element_shape || *item.shape != *before.element_shape) {
      before.element_shape.reset();
    }
  }
  before.fresh = false;
  return before;
}

}  // namespace

// What is known of the array input `input` of `node` carries: from an earlier node, or, for
// a placeholder, from the loop that runs this body or the caller that feeds it.
std::optional<ArrayInfo> ArrayShapes::At(const Node& node, int input) const {
  if (input >= static_cast<int>(node.inputs.size())) return std::nullopt;
  const TensorId& id = node.inputs[input];
  if (const auto it = arrays_.find(id); it != arrays_.end()) return it->second;
  const Node* producer = graph_.FindNode(id.node);
  if (producer == nullptr || producer->op != "Placeholder") return std::nullopt;
  if (const auto it = arg_arrays_.find(id.node); it != arg_arrays_.end()) return it->second;
  const auto given = element_shapes_.find(id.node);
  if (given == element_shapes_.end()) return std::nullopt;
  return ArrayInfo{.element_shape = ToSymbolic(given->second)};
}

// What TensorArray and TensorList ops make known: the arrays their outputs carry
// (ArrayInfo), the shapes of what they read, and the sizes they report, folded (so that a
// Range up to an array's size after its loop is a constant).
bool ArrayShapes::Apply(const Node& node, Inputs in, Infos& out) {
  const absl::string_view op = node.op;
  bool folded = false;
  auto set_array = [&](int output, std::optional<ArrayInfo> info) {
    if (info) arrays_[TensorId{node.name, output}] = *std::move(info);
  };
  auto set_element = [&](int output, const std::optional<ArrayInfo>& array, DType dtype,
                         const SymbolicShape* leading) {
    if (!array || !array->element_shape || output >= static_cast<int>(out.size())) return;
    SymbolicShape shape;
    if (leading != nullptr) shape = *leading;
    shape.insert(shape.end(), array->element_shape->begin(), array->element_shape->end());
    out[output].dtype = dtype;
    out[output].shape = std::move(shape);
  };
  auto fold_size = [&](const std::optional<ArrayInfo>& array) {
    if (!array || !array->size || out.size() != 1) return;
    std::optional<TensorInfo> size = SymbolicInfo(DType::kInt32, {*array->size}, true);
    if (!size) return;
    out[0] = *std::move(size);
    folded = true;
  };
  if (PassesHostOnlyValue(node)) {
    for (int k = 0; k < static_cast<int>(out.size()); ++k) set_array(k, At(node, k));
    return false;
  }
  if (op == "TensorArrayV3") {
    ArrayInfo array{.element_shape = DeclaredElementShape(node, in, "element_shape", 0),
                    .fresh = true};
    array.declared = array.element_shape.has_value();
    absl::StatusOr<bool> dynamic = node.GetBool("dynamic_size", false);
    if (dynamic.ok() && !*dynamic && !in.empty() && IsSymbolicScalar(in[0])) {
      array.size = (*in[0].symbolic_value)[0];
    }
    set_array(1, array);
  } else if (op == "TensorArrayWriteV3" && in.size() == 4) {
    if (std::optional<ArrayInfo> array = At(node, 3)) set_array(0, AfterWrite(*array, in[2]));
  } else if (op == "TensorArrayScatterV3" && in.size() == 4) {
    if (std::optional<ArrayInfo> array = At(node, 3)) {
      TensorInfo row = ShapeOnly(in[2]);
      if (row.shape && !row.shape->empty()) {
        row.shape->erase(row.shape->begin());
      } else {
        row.shape.reset();
      }
      set_array(0, AfterWrite(*array, row));
    }
  } else if (op == "TensorArraySplitV3") {  // elements of several shapes; the size stays
    if (std::optional<ArrayInfo> array = At(node, 3)) {
      array->element_shape.reset();
      set_array(0, array);
    }
  } else if (op == "TensorArrayReadV3") {
    set_element(0, At(node, 2), TypeAttr(node, "dtype", DType::kInvalid), nullptr);
  } else if (op == "TensorArrayGatherV3" && in.size() == 3 && in[1].shape &&
             in[1].shape->size() == 1) {
    set_element(0, At(node, 2), TypeAttr(node, "dtype", DType::kInvalid), &*in[1].shape);
  } else if (op == "TensorArraySizeV3") {
    fold_size(At(node, 1));
  } else if (op == "EmptyTensorList" || op == "TensorListReserve") {
    ArrayInfo list{.element_shape = DeclaredElementShape(node, in, "", 0), .fresh = true};
    list.declared = list.element_shape.has_value();
    if (op == "EmptyTensorList") {
      list.size = ArithExpr(0);
    } else if (in.size() == 2 && IsSymbolicScalar(in[1])) {
      list.size = (*in[1].symbolic_value)[0];
    }
    set_array(0, list);
  } else if (op == "TensorListFromTensor" && !in.empty() && in[0].shape && !in[0].shape->empty()) {
    ArrayInfo list{.element_shape = DeclaredElementShape(node, in, "", 1),
                   .size = in[0].shape->front()};
    list.declared = list.element_shape.has_value();
    if (!list.declared)
      list.element_shape = SymbolicShape(in[0].shape->begin() + 1, in[0].shape->end());
    set_array(0, list);
  } else if (op == "TensorListSetItem" && in.size() == 3) {
    if (std::optional<ArrayInfo> list = At(node, 0)) {
      absl::StatusOr<bool> resize = node.GetBool("resize_if_index_out_of_bounds", false);
      if (!resize.ok() || *resize) list->size.reset();
      set_array(0, AfterWrite(*list, in[2]));
    }
  } else if (op == "TensorListPushBack" && in.size() == 2) {
    if (std::optional<ArrayInfo> list = At(node, 0)) {
      if (list->size) list->size = *list->size + ArithExpr(1);
      set_array(0, AfterWrite(*list, in[1]));
    }
  } else if (op == "TensorListPopBack") {
    std::optional<ArrayInfo> list = At(node, 0);
    set_element(1, list, TypeAttr(node, "element_dtype", DType::kInvalid), nullptr);
    if (list && list->size) list->size = *list->size - ArithExpr(1);
    set_array(0, list);
  } else if (op == "TensorListGetItem") {
    set_element(0, At(node, 0), TypeAttr(node, "element_dtype", DType::kInvalid), nullptr);
  } else if (op == "TensorListStack") {
    const std::optional<ArrayInfo> list = At(node, 0);
    if (list && list->size) {
      const SymbolicShape leading{*list->size};
      set_element(0, list, TypeAttr(node, "element_dtype", DType::kInvalid), &leading);
    }
  } else if (op == "TensorListLength") {
    fold_size(At(node, 0));
  }
  return folded;
}

}  // namespace dfc
