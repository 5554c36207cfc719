// Tensor: a dtype, a shape and a contiguous C-order buffer of elements.
#ifndef DFC_GRAPH_TENSOR_H_
#define DFC_GRAPH_TENSOR_H_

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/dtype.h"

namespace dfc {

// Dimensions, outermost first. A scalar has shape {}.
using Shape = std::vector<int64_t>;

std::string ShapeToString(const Shape& shape);  // "[2,3]", "[]" for a scalar

// Element count of `shape`, or an error if a dimension is negative or the count overflows.
absl::StatusOr<int64_t> NumElements(const Shape& shape);

// The largest tensor dfc will allocate, in bytes. Larger requests are refused with an error
// before anything is allocated.
inline constexpr int64_t kMaxTensorBytes = int64_t{8} << 30;

// A value that is no array of numbers: a TensorArray's contents or a TensorList
// (runtime/reference/tensor_list.h). It lives on the host and is never changed once made.
class Variant {
 public:
  virtual ~Variant() = default;
  virtual std::string DebugString() const = 0;
};

// State that a handle (a kResource scalar) names: a TensorArray's gradient arrays, a stack.
// Unlike a Variant it changes as ops run, as TensorFlow's resources do; it lives as long as a
// handle to it, which is one run, as it is made by an op of that run.
class Resource {
 public:
  virtual ~Resource() = default;
  virtual std::string DebugString() const = 0;
};

// Tensors share their buffer on copy: they are values that are never written after they are
// produced, except through mutable_data() by the code that just created them.
class Tensor {
 public:
  Tensor();  // the float32 scalar 0

  // A zero-filled tensor; fails on a negative dimension, overflow or more than
  // kMaxTensorBytes. A kString tensor holds empty strings (strings()); a kVariant one holds
  // no value (variant() is null).
  static absl::StatusOr<Tensor> Create(DType dtype, Shape shape);

  // A tensor with a dtype and a shape and no elements stored, for ops that read only shapes
  // (OpDef::reads_only_shapes) of a value held elsewhere (on a device): data() is null.
  static absl::StatusOr<Tensor> ShapeOnly(DType dtype, Shape shape);

  // Convenience for tests and kernels whose sizes are already checked: aborts on failure.
  static Tensor Zeros(DType dtype, Shape shape);

  // A string tensor of `values` (C order), whose count must match `shape`.
  static absl::StatusOr<Tensor> Strings(std::vector<std::string> values, Shape shape);
  // A tensor over `bytes` (C order, `dtype` and `shape` as given), which `owner` keeps alive: a
  // NumPy array fed from Python, taken without a copy. Like every tensor it is never written,
  // and its owner must not change the bytes while a copy of the tensor lives. Fails on a shape
  // NumElements refuses, a kString, kVariant or kResource dtype, and a size that does not match.
  static absl::StatusOr<Tensor> Borrowed(DType dtype, Shape shape,
                                         std::shared_ptr<const void> owner, const void* bytes,
                                         size_t size);
  // A variant scalar holding `value`.
  static Tensor OfVariant(std::shared_ptr<const Variant> value);
  // A resource scalar: a handle naming `value`.
  static Tensor OfResource(std::shared_ptr<Resource> value);

  template <typename T>
  static Tensor FromVector(const std::vector<T>& values, Shape shape) {
    Tensor t = Zeros(DTypeOf<T>, std::move(shape));
    std::copy(values.begin(), values.end(), t.mutable_data<T>());
    return t;
  }
  template <typename T>
  static Tensor Scalar(T value) {
    return FromVector<T>({value}, {});
  }

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t dim(int i) const { return shape_[i]; }
  int64_t num_elements() const { return num_elements_; }
  size_t byte_size() const { return static_cast<size_t>(num_elements_) * SizeOf(dtype_); }

  const void* raw_data() const { return data_.get(); }
  void* mutable_raw_data() { return data_.get(); }

  template <typename T>
  const T* data() const {
    return static_cast<const T*>(raw_data());
  }
  template <typename T>
  T* mutable_data() {
    return static_cast<T*>(mutable_raw_data());
  }
  template <typename T>
  std::span<const T> flat() const {
    return {data<T>(), static_cast<size_t>(num_elements_)};
  }
  template <typename T>
  std::span<T> mutable_flat() {
    return {mutable_data<T>(), static_cast<size_t>(num_elements_)};
  }

  // A string tensor's elements (empty for every other dtype).
  std::span<const std::string> strings() const {
    return strings_ ? std::span<const std::string>(*strings_) : std::span<const std::string>();
  }
  std::span<std::string> mutable_strings() {
    return strings_ ? std::span<std::string>(*strings_) : std::span<std::string>();
  }
  // A variant scalar's value, or null.
  const Variant* variant() const { return variant_.get(); }
  // The variant of a tensor its caller just made, to finish it (as mutable_data()): null
  // where there is none or another tensor shares it.
  Variant* mutable_variant() {
    // Every variant is made non-const (OfVariant takes it as const only to share it).
    return variant_.use_count() == 1 ? const_cast<Variant*>(variant_.get()) : nullptr;
  }
  // What a resource scalar names, or null (a handle that names nothing dfc keeps).
  Resource* resource() const { return resource_.get(); }

  // Same elements, another shape with the same element count (shares the buffer).
  absl::StatusOr<Tensor> Reshaped(Shape shape) const;

  // A deep copy whose buffer is not shared with this tensor.
  Tensor Clone() const;

  // Element i converted to double / int64, whatever the dtype (for previews and index inputs).
  double ElementAsDouble(int64_t i) const;
  int64_t ElementAsInt64(int64_t i) const;

  // "float32[2,3]".
  std::string DebugType() const;
  // Up to `max_elements` values, NumPy-like: "[[1, 2], [3, 4]]".
  std::string Preview(int64_t max_elements = 16) const;

  // Same dtype, shape and bytes.
  bool BitwiseEqual(const Tensor& other) const;

 private:
  Tensor(DType dtype, Shape shape, std::shared_ptr<unsigned char> data);

  DType dtype_;
  Shape shape_;
  int64_t num_elements_ = 1;
  // The elements: a buffer of dfc's own, or borrowed bytes whose owner the pointer keeps
  // alive (shared_ptr's aliasing constructor). Null for ShapeOnly tensors.
  std::shared_ptr<unsigned char> data_;
  std::shared_ptr<std::vector<std::string>> strings_;  // kString only
  std::shared_ptr<const Variant> variant_;             // kVariant only
  std::shared_ptr<Resource> resource_;                 // kResource only
};

}  // namespace dfc

#endif  // DFC_GRAPH_TENSOR_H_
