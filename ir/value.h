// Host values for the IR interpreter: scalars of any dtype, and vectors, tuples and arrays of
// values. Conversions to and from Tensor let the interpreter run on what the reference
// executor reads and writes.
#ifndef DFC_IR_VALUE_H_
#define DFC_IR_VALUE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/dtype.h"
#include "graph/tensor.h"
#include "ir/type.h"

namespace dfc::ir {

// One scalar of any dtype. Floating values live in `f`, already rounded to their dtype
// (float32 to float, float16 to half), so `f` is exactly the stored value; integers and bools
// live in `i` (unsigned 64-bit as its bit pattern), already wrapped to their width.
struct Scalar {
  DType dtype = DType::kFloat;
  double f = 0;
  int64_t i = 0;

  // Rounds `v` to `dtype` if floating, or converts with C++ semantics to an integer dtype
  // (callers that need TensorFlow's cast rules apply them first).
  static Scalar Float(DType dtype, double v);
  // Wraps `v` to `dtype`'s width if integer; converts to double if floating; bool is v != 0.
  static Scalar Int(DType dtype, int64_t v);
  static Scalar Bool(bool v) { return Int(DType::kBool, v ? 1 : 0); }
  // The value of an element of a tensor.
  static Scalar FromTensor(const Tensor& t, int64_t index);

  // As double: exact for floating values, rounded for large 64-bit integers.
  double AsDouble() const;
  // As int64 (floating values truncated toward zero, as C does; callers guard the range).
  int64_t AsInt64() const;
  uint64_t AsUInt64() const { return static_cast<uint64_t>(AsInt64()); }
  bool AsBool() const { return IsFloating(dtype) ? f != 0 : i != 0; }

  // Equal dtype and value; NaN equals NaN (it is a value comparison for tests, not IEEE).
  friend bool operator==(const Scalar& a, const Scalar& b);
  std::string ToString() const;
};

// A scalar, or a vector (lanes), tuple (fields) or array (elements) of values.
struct Value {
  enum class Kind { kScalar, kVector, kTuple, kArray };
  Kind kind = Kind::kScalar;
  Scalar scalar;
  std::vector<Value> elements;

  static Value Of(Scalar s) { return Value{Kind::kScalar, s, {}}; }
  static Value Array(std::vector<Value> elements) {
    return Value{Kind::kArray, {}, std::move(elements)};
  }
  static Value Tuple(std::vector<Value> fields) {
    return Value{Kind::kTuple, {}, std::move(fields)};
  }
  static Value Vector(std::vector<Value> lanes) {
    return Value{Kind::kVector, {}, std::move(lanes)};
  }

  friend bool operator==(const Value& a, const Value& b);
  std::string ToString() const;  // for test failures: "[[1, 2], [3, 4]]"
};

// The nested-array value of a tensor (a scalar value for rank 0).
Value ValueFromTensor(const Tensor& tensor);
// The shape of a tensor of type `type` once its size variables are bound; an error for a type
// that is no tensor or a size left unbound.
absl::StatusOr<Shape> ShapeUnder(const TypePtr& type, const SizeBindings& sizes);
// The tensor of a value of tensor type `type`; an error when the value does not have that
// type's structure (a length or dtype that differs), naming what differs.
absl::StatusOr<Tensor> TensorFromValue(const Value& value, const TypePtr& type,
                                       const SizeBindings& sizes);

}  // namespace dfc::ir

#endif  // DFC_IR_VALUE_H_
