// Pieces shared by the TensorArray and TensorList reference kernels (tensor_array.cc,
// tensor_list.cc), which both hold a TensorArrayValue in a flow tensor: the array a flow carries,
// reading and writing its elements, and cutting and stacking rows. Private to those two files.
#ifndef DFC_RUNTIME_REFERENCE_TENSOR_ARRAY_INTERNAL_H_
#define DFC_RUNTIME_REFERENCE_TENSOR_ARRAY_INTERNAL_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/attr.h"
#include "graph/dtype.h"
#include "graph/tensor.h"
#include "graph/tensor_list.h"
#include "runtime/reference/kernel.h"

namespace dfc::reference::tensor_array {

// The array that input `i` (a flow) carries.
absl::StatusOr<const TensorArrayValue*> ArrayAt(const KernelContext& ctx, int i);

// The dimensions of `shape`, a FailedPrecondition error unless it is fully known.
absl::StatusOr<std::vector<int64_t>> Dims(const PartialShape& shape);

// An element as a read sees it: the one written, else zeros where the element shape
// (`shape`, the array's own or one a read refines it to) is fully known (TensorFlow's rule),
// else an error.
absl::StatusOr<Tensor> Element(const KernelContext& ctx, const TensorArrayValue& array,
                               int64_t index, const PartialShape& shape);
absl::StatusOr<Tensor> Element(const KernelContext& ctx, const TensorArrayValue& array,
                               int64_t index);

// Writes `value` as element `index` of `array` (a copy of the flow's, or a gradient array).
// A forward array's element is written once; a gradient array's writes to one element add up.
absl::Status Put(const KernelContext& ctx, TensorArrayValue& array, int64_t index, Tensor value,
                 bool aggregate);

// The flow tensor that carries `array`.
Tensor Flow(std::shared_ptr<TensorArrayValue> array);

// Rows [begin, end) of `t` along its first dimension, as a new tensor: dtype and shape only
// where `t` is (Tensor::ShapeOnly, a value a device run keeps in a device buffer).
Tensor Rows(const Tensor& t, int64_t begin, int64_t end);

// Row k of `t` along its first dimension, without that dimension: an element of it.
absl::StatusOr<Tensor> Row(const Tensor& t, int64_t k);

// Copies `parts` one after another into `out`, whose size is theirs together.
void CopyParts(const std::vector<Tensor>& parts, Tensor& out);

// Elements stacked along a new first dimension; all must have one shape.
absl::StatusOr<Tensor> Stack(const KernelContext& ctx, const std::vector<Tensor>& elements,
                             DType dtype, const PartialShape& element_shape);

}  // namespace dfc::reference::tensor_array

#endif  // DFC_RUNTIME_REFERENCE_TENSOR_ARRAY_INTERNAL_H_
