// Reference kernels for TF2's TensorLists: EmptyTensorList, TensorListReserve,
// TensorListFromTensor, TensorListStack, TensorListGetItem, TensorListSetItem,
// TensorListPushBack, TensorListPopBack, TensorListLength and TensorListElementShape. A list is
// the value a TensorArray is (tensor_array.cc): its flow tensor (kVariant) holds the elements,
// and every op that changes it returns a new flow with a new TensorArrayValue. Registered by
// RegisterTensorArrayKernels (tensor_array.cc).
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/attr.h"
#include "graph/tensor_list.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"
#include "runtime/reference/tensor_array_internal.h"

namespace dfc::reference {
namespace {

using tensor_array::ArrayAt;
using tensor_array::Element;
using tensor_array::Flow;
using tensor_array::Put;
using tensor_array::Row;
using tensor_array::Stack;

// TensorLists (TF2): the same value as a TensorArray, whose element shape is an input (an int
// tensor: -1 for an unknown rank, -1 for an unknown dimension) and whose elements may be set
// again.
absl::StatusOr<PartialShape> ShapeInput(const KernelContext& ctx, int i) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64) {
    return ctx.Error(absl::StrCat("element_shape is ", t.DebugType(), ", expected int32 or int64"));
  }
  if (t.rank() == 0) {
    if (t.ElementAsInt64(0) != -1) return ctx.Error("a scalar element_shape must be -1");
    return PartialShape{.unknown_rank = true, .dims = {}};
  }
  if (t.rank() != 1) return ctx.Error(absl::StrCat("element_shape is ", t.DebugType()));
  PartialShape shape;
  for (int64_t k = 0; k < t.num_elements(); ++k) {
    const int64_t d = t.ElementAsInt64(k);
    if (d < -1) return ctx.Error(absl::StrCat("element_shape has dimension ", d));
    shape.dims.push_back(d);
  }
  return shape;
}

// Two partial shapes' intersection: what both allow.
PartialShape Refine(const PartialShape& a, const PartialShape& b) {
  if (a.unknown_rank) return b;
  if (b.unknown_rank || a.dims.size() != b.dims.size()) return a;
  PartialShape out = a;
  for (size_t d = 0; d < a.dims.size(); ++d) {
    if (out.dims[d] < 0) out.dims[d] = b.dims[d];
  }
  return out;
}

absl::StatusOr<std::shared_ptr<TensorArrayValue>> NewList(const KernelContext& ctx,
                                                          const PartialShape& shape, int64_t n) {
  if (n < 0 || n > (int64_t{1} << 24)) return ctx.Error(absl::StrCat("a list of ", n, " elements"));
  auto list = std::make_shared<TensorArrayValue>();
  DFC_ASSIGN_OR_RETURN(list->dtype, ctx.node().GetType("element_dtype"));
  list->element_shape = shape;
  list->dynamic_size = true;
  list->elements.resize(n);
  return list;
}

absl::Status EmptyTensorList(KernelContext& ctx) {  // element_shape, max_num_elements
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_ASSIGN_OR_RETURN(PartialShape shape, ShapeInput(ctx, 0));
  DFC_ASSIGN_OR_RETURN(std::shared_ptr<TensorArrayValue> list, NewList(ctx, shape, 0));
  ctx.set_output(0, Flow(std::move(list)));
  return absl::OkStatus();
}

absl::Status TensorListReserve(KernelContext& ctx) {  // element_shape, num_elements
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_ASSIGN_OR_RETURN(PartialShape shape, ShapeInput(ctx, 0));
  DFC_ASSIGN_OR_RETURN(int64_t n, ReadIndexScalar(ctx, 1, "num_elements"));
  DFC_ASSIGN_OR_RETURN(std::shared_ptr<TensorArrayValue> list, NewList(ctx, shape, n));
  ctx.set_output(0, Flow(std::move(list)));
  return absl::OkStatus();
}

absl::Status TensorListFromTensor(KernelContext& ctx) {  // tensor, element_shape
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  const Tensor& value = ctx.input(0);
  if (value.rank() == 0) return ctx.Error("makes a list of a scalar (it needs a first dimension)");
  DFC_ASSIGN_OR_RETURN(PartialShape shape, ShapeInput(ctx, 1));
  const Shape rows(value.shape().begin() + 1, value.shape().end());
  if (!shape.IsCompatibleWith(rows)) {
    return ctx.Error(absl::StrCat("rows of ", value.DebugType(), " are not of element shape ",
                                  shape.ToString()));
  }
  DFC_ASSIGN_OR_RETURN(std::shared_ptr<TensorArrayValue> list, NewList(ctx, shape, value.dim(0)));
  if (value.dtype() != list->dtype) {
    return ctx.Error(absl::StrCat("makes a list of ", DTypeName(list->dtype), " from ",
                                  value.DebugType()));
  }
  for (int64_t k = 0; k < value.dim(0); ++k) {
    DFC_ASSIGN_OR_RETURN(Tensor row, Row(value, k));
    list->elements[k] = std::move(row);
  }
  ctx.set_output(0, Flow(std::move(list)));
  return absl::OkStatus();
}

absl::Status TensorListStack(KernelContext& ctx) {  // input_handle, element_shape
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_ASSIGN_OR_RETURN(const TensorArrayValue* list, ArrayAt(ctx, 0));
  DFC_ASSIGN_OR_RETURN(PartialShape given, ShapeInput(ctx, 1));
  const PartialShape shape = Refine(list->element_shape, given);
  std::vector<Tensor> elements;
  for (size_t k = 0; k < list->elements.size(); ++k) {
    DFC_ASSIGN_OR_RETURN(Tensor e, Element(ctx, *list, static_cast<int64_t>(k), shape));
    elements.push_back(std::move(e));
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, Stack(ctx, elements, list->dtype, shape));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status TensorListGetItem(KernelContext& ctx) {  // input_handle, index, element_shape
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  DFC_ASSIGN_OR_RETURN(const TensorArrayValue* list, ArrayAt(ctx, 0));
  DFC_ASSIGN_OR_RETURN(int64_t index, ReadIndexScalar(ctx, 1, "index"));
  DFC_ASSIGN_OR_RETURN(PartialShape given, ShapeInput(ctx, 2));
  DFC_ASSIGN_OR_RETURN(Tensor value,
                       Element(ctx, *list, index, Refine(list->element_shape, given)));
  ctx.set_output(0, std::move(value));
  return absl::OkStatus();
}

absl::Status TensorListSetItem(KernelContext& ctx) {  // input_handle, index, item
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  DFC_ASSIGN_OR_RETURN(const TensorArrayValue* in, ArrayAt(ctx, 0));
  DFC_ASSIGN_OR_RETURN(int64_t index, ReadIndexScalar(ctx, 1, "index"));
  DFC_ASSIGN_OR_RETURN(bool resize, ctx.node().GetBool("resize_if_index_out_of_bounds", false));
  if (!resize && (index < 0 || index >= static_cast<int64_t>(in->elements.size()))) {
    return ctx.Error(absl::StrCat("sets element ", index, " of a list of ", in->elements.size()));
  }
  auto out = in->Clone();
  if (index >= 0 && index < static_cast<int64_t>(out->elements.size())) {
    out->elements[index].reset();  // a list's element may be set again
  }
  DFC_RETURN_IF_ERROR(Put(ctx, *out, index, ctx.input(2), /*aggregate=*/false));
  ctx.set_output(0, Flow(std::move(out)));
  return absl::OkStatus();
}

absl::Status TensorListPushBack(KernelContext& ctx) {  // input_handle, tensor
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_ASSIGN_OR_RETURN(const TensorArrayValue* in, ArrayAt(ctx, 0));
  auto out = in->Clone();
  DFC_RETURN_IF_ERROR(Put(ctx, *out, static_cast<int64_t>(out->elements.size()), ctx.input(1),
                          /*aggregate=*/false));
  ctx.set_output(0, Flow(std::move(out)));
  return absl::OkStatus();
}

absl::Status TensorListPopBack(KernelContext& ctx) {  // input_handle, element_shape
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_ASSIGN_OR_RETURN(const TensorArrayValue* in, ArrayAt(ctx, 0));
  if (in->elements.empty()) return ctx.Error("pops from an empty list");
  DFC_ASSIGN_OR_RETURN(PartialShape given, ShapeInput(ctx, 1));
  DFC_ASSIGN_OR_RETURN(Tensor last, Element(ctx, *in, static_cast<int64_t>(in->elements.size()) - 1,
                                            Refine(in->element_shape, given)));
  auto out = in->Clone();
  out->elements.pop_back();
  ctx.set_output(0, Flow(std::move(out)));
  ctx.set_output(1, std::move(last));
  return absl::OkStatus();
}

absl::Status TensorListLength(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_ASSIGN_OR_RETURN(const TensorArrayValue* in, ArrayAt(ctx, 0));
  ctx.set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(in->elements.size())));
  return absl::OkStatus();
}

absl::Status TensorListElementShape(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_ASSIGN_OR_RETURN(const TensorArrayValue* in, ArrayAt(ctx, 0));
  DFC_ASSIGN_OR_RETURN(DType type, ctx.node().GetType("shape_type", DType::kInt32));
  std::vector<int64_t> dims =
      in->element_shape.unknown_rank ? std::vector<int64_t>{-1} : in->element_shape.dims;
  const Shape shape = in->element_shape.unknown_rank ? Shape{} : Shape{static_cast<int64_t>(dims.size())};
  if (type == DType::kInt64) {
    ctx.set_output(0, Tensor::FromVector<int64_t>(dims, shape));
  } else {
    ctx.set_output(0, Tensor::FromVector<int32_t>(std::vector<int32_t>(dims.begin(), dims.end()), shape));
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterTensorListKernels(KernelRegistry& registry) {
  registry.Register("EmptyTensorList", EmptyTensorList);
  registry.Register("TensorListReserve", TensorListReserve);
  registry.Register("TensorListFromTensor", TensorListFromTensor);
  registry.Register("TensorListStack", TensorListStack);
  registry.Register("TensorListGetItem", TensorListGetItem);
  registry.Register("TensorListSetItem", TensorListSetItem);
  registry.Register("TensorListPushBack", TensorListPushBack);
  registry.Register("TensorListPopBack", TensorListPopBack);
  registry.Register("TensorListLength", TensorListLength);
  registry.Register("TensorListElementShape", TensorListElementShape);
}

}  // namespace dfc::reference
