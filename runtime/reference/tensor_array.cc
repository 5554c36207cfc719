// Reference kernels for TensorArrays (TensorArrayV3 and the ops on it, and its gradient arrays),
// and Assert and ControlTrigger; TF2's TensorLists, the same value, live in tensor_list.cc, and
// RegisterTensorArrayKernels registers both files. A TensorArray is a value: its flow tensor
// (kVariant) holds the elements, and every op that changes it returns a new flow with a new
// TensorArrayValue, so that a value read earlier never changes, and a loop carries the array as
// it carries any variable. A gradient array (TensorArrayGradV3) is state instead, as in
// TensorFlow: several backward ops write into it with no flow between them (graph/tensor_list.h).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "base/check.h"
#include "base/status.h"
#include "graph/attr.h"
#include "graph/tensor_list.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"
#include "runtime/reference/tensor_array_internal.h"

namespace dfc::reference {

void RegisterTensorListKernels(KernelRegistry& registry);  // tensor_list.cc

namespace {

// `a + b`, elementwise, for the dtypes gradients come in.
absl::StatusOr<Tensor> Sum(const KernelContext& ctx, const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) {
    return ctx.Error(absl::StrCat("adds gradients ", b.DebugType(), " to ", a.DebugType(),
                                  " written to the same element"));
  }
  const DType d = a.dtype();
  if (d != DType::kFloat && d != DType::kDouble && d != DType::kInt32 && d != DType::kInt64) {
    return ctx.Error(absl::StrCat("adds two gradients of ", DTypeName(d),
                                  " written to one element, which dfc does not"));
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, d, a.shape()));
  DispatchDType(d, [&]<typename T>() {
    const T* x = a.data<T>();
    const T* y = b.data<T>();
    T* z = out.mutable_data<T>();
    for (int64_t k = 0; k < a.num_elements(); ++k) {
      z[k] = static_cast<T>(static_cast<ComputeType<T>>(x[k]) + static_cast<ComputeType<T>>(y[k]));
    }
  });
  return out;
}

}  // namespace

namespace tensor_array {

absl::StatusOr<const TensorArrayValue*> ArrayAt(const KernelContext& ctx, int i) {
  if (i >= ctx.num_inputs()) return ctx.Error("expected a TensorArray's flow input");
  const TensorArrayValue* array = AsTensorArray(ctx.input(i));
  if (array == nullptr) {
    return ctx.Error(absl::StrCat("input ", i, " (\"", ctx.node().inputs[i].ToString(),
                                  "\") is ", ctx.input(i).DebugType(),
                                  ", expected the flow of a TensorArray"));
  }
  return array;
}

absl::StatusOr<std::vector<int64_t>> Dims(const PartialShape& shape) {
  if (shape.unknown_rank) return absl::FailedPreconditionError("unknown rank");
  for (int64_t d : shape.dims) {
    if (d < 0) return absl::FailedPreconditionError("unknown dimension");
  }
  return shape.dims;
}

absl::StatusOr<Tensor> Element(const KernelContext& ctx, const TensorArrayValue& array,
                               int64_t index, const PartialShape& shape) {
  if (index < 0 || index >= static_cast<int64_t>(array.elements.size())) {
    return ctx.Error(absl::StrCat("index ", index, " is outside the TensorArray's ",
                                  array.elements.size(), " elements"));
  }
  if (array.elements[index]) return *array.elements[index];
  absl::StatusOr<std::vector<int64_t>> dims = Dims(shape);
  if (!dims.ok()) {
    return ctx.Error(absl::StrCat("element ", index,
                                  " of the TensorArray was never written, and its element shape ",
                                  shape.ToString(), " is not fully known"));
  }
  return AllocateOutput(ctx, array.dtype, *dims);
}
absl::StatusOr<Tensor> Element(const KernelContext& ctx, const TensorArrayValue& array,
                               int64_t index) {
  return Element(ctx, array, index, array.element_shape);
}

absl::Status Put(const KernelContext& ctx, TensorArrayValue& array, int64_t index, Tensor value,
                 bool aggregate) {
  if (value.dtype() != array.dtype) {
    return ctx.Error(absl::StrCat("writes ", value.DebugType(), " to a TensorArray of ",
                                  DTypeName(array.dtype)));
  }
  if (!array.element_shape.IsCompatibleWith(value.shape())) {
    return ctx.Error(absl::StrCat("writes ", value.DebugType(), " to a TensorArray of elements ",
                                  array.element_shape.ToString()));
  }
  if (index < 0) return ctx.Error(absl::StrCat("writes at index ", index));
  if (index >= static_cast<int64_t>(array.elements.size())) {
    if (!array.dynamic_size) {
      return ctx.Error(absl::StrCat("writes at index ", index, " of a TensorArray of ",
                                    array.elements.size(), " elements that cannot grow"));
    }
    array.elements.resize(index + 1);
  }
  std::optional<Tensor>& element = array.elements[index];
  if (element && !aggregate) {
    return ctx.Error(absl::StrCat("writes element ", index,
                                  " of a TensorArray a second time (TensorFlow allows one write)"));
  }
  if (element) {
    DFC_ASSIGN_OR_RETURN(value, Sum(ctx, *element, value));
  }
  element = std::move(value);
  return absl::OkStatus();
}

Tensor Flow(std::shared_ptr<TensorArrayValue> array) { return Tensor::OfVariant(std::move(array)); }

Tensor Rows(const Tensor& t, int64_t begin, int64_t end) {
  Shape shape = t.shape();
  shape[0] = end - begin;
  if (t.raw_data() == nullptr && t.byte_size() > 0) {
    absl::StatusOr<Tensor> rows = Tensor::ShapeOnly(t.dtype(), shape);
    DFC_CHECK_OK(rows.status());  // no larger than `t`
    return *std::move(rows);
  }
  Tensor out = Tensor::Zeros(t.dtype(), shape);
  const size_t row = t.dim(0) == 0 ? 0 : t.byte_size() / static_cast<size_t>(t.dim(0));
  if (out.byte_size() > 0) {
    std::memcpy(out.mutable_raw_data(), static_cast<const char*>(t.raw_data()) + begin * row,
                out.byte_size());
  }
  return out;
}

absl::StatusOr<Tensor> Row(const Tensor& t, int64_t k) {
  return Rows(t, k, k + 1).Reshaped(Shape(t.shape().begin() + 1, t.shape().end()));
}

void CopyParts(const std::vector<Tensor>& parts, Tensor& out) {
  char* dst = static_cast<char*>(out.mutable_raw_data());
  for (const Tensor& part : parts) {
    if (part.byte_size() > 0) std::memcpy(dst, part.raw_data(), part.byte_size());
    dst += part.byte_size();
  }
}

absl::StatusOr<Tensor> Stack(const KernelContext& ctx, const std::vector<Tensor>& elements,
                             DType dtype, const PartialShape& element_shape) {
  Shape shape;
  if (elements.empty()) {
    absl::StatusOr<std::vector<int64_t>> dims = Dims(element_shape);
    if (!dims.ok()) {
      return ctx.Error("gathers no element of a TensorArray whose element shape is not known");
    }
    shape = *dims;
  } else {
    shape = elements[0].shape();
  }
  Shape stacked = shape;
  stacked.insert(stacked.begin(), static_cast<int64_t>(elements.size()));
  for (const Tensor& e : elements) {
    if (e.shape() != shape) {
      return ctx.Error(absl::StrCat("stacks elements of shapes ", ShapeToString(shape), " and ",
                                    ShapeToString(e.shape())));
    }
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, dtype, stacked));
  CopyParts(elements, out);
  return out;
}

}  // namespace tensor_array

namespace {

using tensor_array::ArrayAt;
using tensor_array::CopyParts;
using tensor_array::Dims;
using tensor_array::Element;
using tensor_array::Flow;
using tensor_array::Put;
using tensor_array::Row;
using tensor_array::Rows;
using tensor_array::Stack;

// The resource that input `i`, a TensorArray's handle, names: null for a handle from elsewhere.
TensorArrayResource* HandleAt(const KernelContext& ctx, int i) {
  return dynamic_cast<TensorArrayResource*>(ctx.input(i).resource());
}

// The gradient array that input 0 names, or null for a forward array.
TensorArrayResource* GradientAt(const KernelContext& ctx) {
  TensorArrayResource* r = ctx.num_inputs() > 0 ? HandleAt(ctx, 0) : nullptr;
  return r != nullptr && r->is_grad ? r : nullptr;
}

// A gradient array's flow: a token, as TensorFlow's float flow is.
Tensor Token() { return Tensor::Scalar<float>(0); }

// The array an op reads: the gradient array its handle names (copied into `snapshot`, as later
// ops write it in place), else the one its flow input `flow` carries.
absl::StatusOr<const TensorArrayValue*> ArrayToRead(const KernelContext& ctx, int flow,
                                                    TensorArrayValue& snapshot) {
  if (TensorArrayResource* gradient = GradientAt(ctx)) {
    absl::MutexLock lock(&gradient->mu);
    snapshot = gradient->array;
    return &snapshot;
  }
  return ArrayAt(ctx, flow);
}

// Runs `write` on the array an op changes, and sets output 0 to the flow that follows it. A
// gradient array is changed in place, its writes adding up, and its flow is a token. A forward
// array is copied from its flow input `flow` and the copy is the new flow; its handle learns its
// size and element shape, which its gradient arrays take.
absl::Status Update(KernelContext& ctx, int flow,
                    absl::FunctionRef<absl::Status(TensorArrayValue&, bool aggregate)> write) {
  if (TensorArrayResource* gradient = GradientAt(ctx)) {
    absl::MutexLock lock(&gradient->mu);
    DFC_RETURN_IF_ERROR(write(gradient->array, /*aggregate=*/true));
    ctx.set_output(0, Token());
    return absl::OkStatus();
  }
  DFC_ASSIGN_OR_RETURN(const TensorArrayValue* in, ArrayAt(ctx, flow));
  auto out = in->Clone();
  DFC_RETURN_IF_ERROR(write(*out, /*aggregate=*/false));
  if (TensorArrayResource* forward = HandleAt(ctx, 0)) {
    absl::MutexLock lock(&forward->mu);
    forward->Show(*out);
  }
  ctx.set_output(0, Flow(std::move(out)));
  return absl::OkStatus();
}

absl::Status TensorArrayV3(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_ASSIGN_OR_RETURN(int64_t size, ReadIndexScalar(ctx, 0, "size"));
  if (size < 0) return ctx.Error(absl::StrCat("size ", size, " is negative"));
  if (size > (int64_t{1} << 24)) return ctx.Error(absl::StrCat("size ", size, " is over 2^24"));
  auto array = std::make_shared<TensorArrayValue>();
  DFC_ASSIGN_OR_RETURN(array->dtype, ctx.node().GetType("dtype"));
  if (ctx.node().HasAttr("element_shape")) {
    DFC_ASSIGN_OR_RETURN(array->element_shape, ctx.node().GetShape("element_shape"));
  }
  DFC_ASSIGN_OR_RETURN(array->dynamic_size, ctx.node().GetBool("dynamic_size", false));
  array->elements.resize(size);
  auto handle = std::make_shared<TensorArrayResource>(/*is_grad=*/false);
  {
    absl::MutexLock lock(&handle->mu);
    handle->Show(*array);
  }
  ctx.set_output(0, Tensor::OfResource(std::move(handle)));
  ctx.set_output(1, Flow(std::move(array)));
  return absl::OkStatus();
}

absl::Status TensorArrayWriteV3(KernelContext& ctx) {  // handle, index, value, flow_in
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 4));
  DFC_ASSIGN_OR_RETURN(int64_t index, ReadIndexScalar(ctx, 1, "index"));
  return Update(ctx, 3, [&](TensorArrayValue& array, bool aggregate) {
    return Put(ctx, array, index, ctx.input(2), aggregate);
  });
}

absl::Status TensorArrayReadV3(KernelContext& ctx) {  // handle, index, flow_in
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  TensorArrayValue snapshot;
  DFC_ASSIGN_OR_RETURN(const TensorArrayValue* in, ArrayToRead(ctx, 2, snapshot));
  DFC_ASSIGN_OR_RETURN(int64_t index, ReadIndexScalar(ctx, 1, "index"));
  DFC_ASSIGN_OR_RETURN(Tensor value, Element(ctx, *in, index));
  ctx.set_output(0, std::move(value));
  return absl::OkStatus();
}

absl::Status TensorArrayGatherV3(KernelContext& ctx) {  // handle, indices, flow_in
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  TensorArrayValue snapshot;
  DFC_ASSIGN_OR_RETURN(const TensorArrayValue* in, ArrayToRead(ctx, 2, snapshot));
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> indices, ReadIndexVector(ctx, 1, "indices"));
  std::vector<Tensor> elements;
  for (int64_t i : indices) {
    DFC_ASSIGN_OR_RETURN(Tensor e, Element(ctx, *in, i));
    elements.push_back(std::move(e));
  }
  PartialShape shape = in->element_shape;
  if (ctx.node().HasAttr("element_shape")) {
    DFC_ASSIGN_OR_RETURN(PartialShape given, ctx.node().GetShape("element_shape"));
    if (shape.unknown_rank) shape = given;
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, Stack(ctx, elements, in->dtype, shape));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status TensorArrayScatterV3(KernelContext& ctx) {  // handle, indices, value, flow_in
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 4));
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> indices, ReadIndexVector(ctx, 1, "indices"));
  const Tensor& value = ctx.input(2);
  if (value.rank() == 0 || value.dim(0) != static_cast<int64_t>(indices.size())) {
    return ctx.Error(absl::StrCat("scatters ", value.DebugType(), " to ", indices.size(),
                                  " indices"));
  }
  return Update(ctx, 3, [&](TensorArrayValue& array, bool aggregate) -> absl::Status {
    for (size_t k = 0; k < indices.size(); ++k) {
      DFC_ASSIGN_OR_RETURN(Tensor element, Row(value, static_cast<int64_t>(k)));
      DFC_RETURN_IF_ERROR(Put(ctx, array, indices[k], std::move(element), aggregate));
    }
    return absl::OkStatus();
  });
}

absl::Status TensorArrayConcatV3(KernelContext& ctx) {  // handle, flow_in
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  TensorArrayValue snapshot;
  DFC_ASSIGN_OR_RETURN(const TensorArrayValue* in, ArrayToRead(ctx, 1, snapshot));
  std::vector<Tensor> elements;
  Tensor lengths = Tensor::Zeros(DType::kInt64, {static_cast<int64_t>(in->elements.size())});
  Shape rest;
  bool known_rest = false;
  int64_t rows = 0;
  for (size_t i = 0; i < in->elements.size(); ++i) {
    DFC_ASSIGN_OR_RETURN(Tensor e, Element(ctx, *in, static_cast<int64_t>(i)));
    if (e.rank() == 0) return ctx.Error("concatenates scalars (elements need a first dimension)");
    const Shape tail(e.shape().begin() + 1, e.shape().end());
    if (known_rest && tail != rest) {
      return ctx.Error(absl::StrCat("concatenates elements whose shapes past the first differ: ",
                                    ShapeToString(rest), " and ", ShapeToString(tail)));
    }
    rest = tail;
    known_rest = true;
    lengths.mutable_data<int64_t>()[i] = e.dim(0);
    rows += e.dim(0);
    elements.push_back(std::move(e));
  }
  if (!known_rest) {
    PartialShape except0{.unknown_rank = true, .dims = {}};
    if (ctx.node().HasAttr("element_shape_except0")) {
      DFC_ASSIGN_OR_RETURN(except0, ctx.node().GetShape("element_shape_except0"));
    }
    absl::StatusOr<std::vector<int64_t>> dims = Dims(except0);
    if (!dims.ok()) return ctx.Error("concatenates no element, and the element shape is unknown");
    rest = *dims;
  }
  Shape shape = rest;
  shape.insert(shape.begin(), rows);
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, in->dtype, shape));
  CopyParts(elements, out);
  ctx.set_output(0, std::move(out));
  ctx.set_output(1, std::move(lengths));
  return absl::OkStatus();
}

absl::Status TensorArraySplitV3(KernelContext& ctx) {  // handle, value, lengths, flow_in
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 4));
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> lengths, ReadIndexVector(ctx, 2, "lengths"));
  const Tensor& value = ctx.input(1);
  int64_t total = 0;
  for (int64_t n : lengths) {
    if (n < 0) return ctx.Error(absl::StrCat("a negative length ", n));
    total += n;
  }
  if (value.rank() == 0 || value.dim(0) != total) {
    return ctx.Error(absl::StrCat("splits ", value.DebugType(), " into lengths summing to ", total));
  }
  return Update(ctx, 3, [&](TensorArrayValue& array, bool aggregate) -> absl::Status {
    int64_t offset = 0;
    for (size_t k = 0; k < lengths.size(); ++k) {
      DFC_RETURN_IF_ERROR(Put(ctx, array, static_cast<int64_t>(k),
                              Rows(value, offset, offset + lengths[k]), aggregate));
      offset += lengths[k];
    }
    return absl::OkStatus();
  });
}

absl::Status TensorArraySizeV3(KernelContext& ctx) {  // handle, flow_in
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  TensorArrayValue snapshot;
  DFC_ASSIGN_OR_RETURN(const TensorArrayValue* in, ArrayToRead(ctx, 1, snapshot));
  ctx.set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(in->elements.size())));
  return absl::OkStatus();
}

// The gradient array of the forward array input 0 names, for the gradient computation `source`
// names: made on first use, then the same array for every op of that computation, as
// TensorFlow's. It takes the forward array's size and element shape, from the flow input where
// that carries the forward array, else as the handle last saw them.
absl::Status TensorArrayGradV3(KernelContext& ctx) {  // handle, flow_in
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  TensorArrayResource* forward = HandleAt(ctx, 0);
  if (forward == nullptr || forward->is_grad) {
    return ctx.Error(
        absl::StrCat("input 0 (\"", ctx.node().inputs[0].ToString(), "\") is ",
                     forward == nullptr ? ctx.input(0).DebugType() : "a gradient array's handle",
                     ", expected the handle of a TensorArray"));
  }
  DFC_ASSIGN_OR_RETURN(std::string source, ctx.node().GetString("source"));
  absl::MutexLock lock(&forward->mu);
  std::shared_ptr<TensorArrayResource>& gradient = forward->grads[source];
  if (gradient == nullptr) {
    gradient = std::make_shared<TensorArrayResource>(/*is_grad=*/true);
    absl::MutexLock gradient_lock(&gradient->mu);
    TensorArrayValue& array = gradient->array;
    array.dtype = forward->array.dtype;
    array.element_shape = forward->array.element_shape;
    int64_t size = forward->size;
    if (const TensorArrayValue* shown = AsTensorArray(ctx.input(1))) {
      size = static_cast<int64_t>(shown->elements.size());
      if (std::optional<Shape> shape = shown->UniformElementShape()) {
        array.element_shape = PartialShape{.unknown_rank = false, .dims = *shape};
      }
    }
    array.elements.resize(size);
  }
  ctx.set_output(0, Tensor::OfResource(gradient));
  ctx.set_output(1, Token());
  return absl::OkStatus();
}

absl::Status Nothing(KernelContext&) { return absl::OkStatus(); }

// A failed assertion is the run's error, with its message and data as TensorFlow prints them.
absl::Status Assert(KernelContext& ctx) {
  if (ctx.num_inputs() < 1) return ctx.Error("expected a condition");
  const Tensor& condition = ctx.input(0);
  if (condition.dtype() != DType::kBool || condition.num_elements() != 1) {
    return ctx.Error(absl::StrCat("condition is ", condition.DebugType(), ", expected a bool scalar"));
  }
  if (condition.data<bool>()[0]) return absl::OkStatus();
  DFC_ASSIGN_OR_RETURN(int64_t summarize, ctx.node().GetInt("summarize", 3));
  std::vector<std::string> parts;
  for (int i = 1; i < ctx.num_inputs(); ++i) {
    const Tensor& t = ctx.input(i);
    if (t.dtype() == DType::kString && t.num_elements() == 1) {
      parts.push_back(t.strings()[0]);
    } else {
      parts.push_back(t.Preview(std::max<int64_t>(summarize, 1)));
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "node \"", ctx.node().name, "\" (Assert): assertion failed: ", absl::StrJoin(parts, " ")));
}

}  // namespace

void RegisterTensorArrayKernels(KernelRegistry& registry) {
  registry.Register("TensorArrayV3", TensorArrayV3);
  registry.Register("TensorArrayWriteV3", TensorArrayWriteV3);
  registry.Register("TensorArrayReadV3", TensorArrayReadV3);
  registry.Register("TensorArrayGatherV3", TensorArrayGatherV3);
  registry.Register("TensorArrayScatterV3", TensorArrayScatterV3);
  registry.Register("TensorArrayConcatV3", TensorArrayConcatV3);
  registry.Register("TensorArraySplitV3", TensorArraySplitV3);
  registry.Register("TensorArraySizeV3", TensorArraySizeV3);
  registry.Register("TensorArrayCloseV3", Nothing);
  registry.Register("TensorArrayGradV3", TensorArrayGradV3);
  RegisterTensorListKernels(registry);
  registry.Register("Assert", Assert);
  registry.Register("ControlTrigger", Nothing);
}

}  // namespace dfc::reference
