// The value a TensorArray's flow or a TensorList carries (dtype variant): its elements, each
// written once (a TensorArray) or set any number of times (a TensorList). Ops never change one:
// a write makes a new value, so that a value read earlier stays as it was and a loop carries
// the array as it carries any variable (runtime/reference/tensor_array.cc and tensor_list.cc run the ops).
#ifndef DFC_GRAPH_TENSOR_LIST_H_
#define DFC_GRAPH_TENSOR_LIST_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
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
  // A copy of the value as what it is (a device run's array keeps where its elements are), for
  // an op that makes the next value from it.
  virtual std::shared_ptr<TensorArrayValue> Clone() const {
    return std::make_shared<TensorArrayValue>(*this);
  }
};

// What a TensorArray's handle names. A forward array's elements travel in its flow; its handle
// keeps the size and element shape its flow last showed, and the array's gradient arrays, one
// per gradient computation (`source`). A gradient array is state, as in TensorFlow: its elements
// live here, writes to one element add up (each read of a forward element sends a gradient
// back), and its flow is only a token that orders the ops.
struct TensorArrayResource : Resource {
  explicit TensorArrayResource(bool is_grad) : is_grad(is_grad) {}

  // Keeps what a forward array's new value shows: its size, and its elements' one shape.
  void Show(const TensorArrayValue& value) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu);
  std::string DebugString() const override;

  const bool is_grad;
  mutable absl::Mutex mu;
  // A gradient array's dtype, element shape and elements; a forward array's dtype and
  // element shape only (its flow holds its elements).
  TensorArrayValue array ABSL_GUARDED_BY(mu);
  int64_t size ABSL_GUARDED_BY(mu) = 0;  // a forward array's, as last shown
  absl::flat_hash_map<std::string, std::shared_ptr<TensorArrayResource>> grads ABSL_GUARDED_BY(mu);
};

// The TensorArray value a variant tensor holds, or null.
inline const TensorArrayValue* AsTensorArray(const Tensor& t) {
  return dynamic_cast<const TensorArrayValue*>(t.variant());
}

}  // namespace dfc

#endif  // DFC_GRAPH_TENSOR_LIST_H_
