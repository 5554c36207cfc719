// Host values of the IR interpreter, and their conversion to and from tensors.
#include "ir/value.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/half.h"

namespace dfc::ir {
namespace {

// Wraps v to the width and signedness of an integer dtype.
int64_t WrapInt(DType dtype, int64_t v) {
  switch (dtype) {
    case DType::kInt8:
      return static_cast<int8_t>(v);
    case DType::kInt16:
      return static_cast<int16_t>(v);
    case DType::kInt32:
      return static_cast<int32_t>(v);
    case DType::kUInt8:
      return static_cast<uint8_t>(v);
    case DType::kUInt16:
      return static_cast<uint16_t>(v);
    case DType::kUInt32:
      return static_cast<uint32_t>(v);
    case DType::kBool:
      return v != 0 ? 1 : 0;
    default:
      return v;  // int64, uint64 (bit pattern)
  }
}

double RoundTo(DType dtype, double v) {
  switch (dtype) {
    case DType::kFloat:
      return static_cast<float>(v);
    case DType::kHalf:
      return static_cast<float>(Half(static_cast<float>(v)));
    default:
      return v;
  }
}

}  // namespace

Scalar Scalar::Float(DType dtype, double v) {
  Scalar s;
  s.dtype = dtype;
  if (IsFloating(dtype)) {
    s.f = RoundTo(dtype, v);
  } else if (dtype == DType::kBool) {
    s.i = v != 0;
  } else if (dtype == DType::kUInt64) {
    s.i = static_cast<int64_t>(static_cast<uint64_t>(v));
  } else {
    s.i = WrapInt(dtype, static_cast<int64_t>(v));
  }
  return s;
}

Scalar Scalar::Int(DType dtype, int64_t v) {
  Scalar s;
  s.dtype = dtype;
  if (IsFloating(dtype)) {
    s.f = RoundTo(dtype, dtype == DType::kUInt64 ? static_cast<double>(static_cast<uint64_t>(v))
                                                 : static_cast<double>(v));
  } else {
    s.i = WrapInt(dtype, v);
  }
  return s;
}

Scalar Scalar::FromTensor(const Tensor& t, int64_t index) {
  return DispatchDType(t.dtype(), [&]<typename T>() {
    T v = t.data<T>()[index];
    if constexpr (std::is_same_v<T, Half>) {
      return Scalar::Float(DType::kHalf, static_cast<float>(v));
    } else if constexpr (std::is_floating_point_v<T>) {
      return Scalar::Float(DTypeOf<T>, v);
    } else if constexpr (std::is_same_v<T, uint64_t>) {
      return Scalar::Int(DType::kUInt64, static_cast<int64_t>(v));
    } else {
      return Scalar::Int(DTypeOf<T>, static_cast<int64_t>(v));
    }
  });
}

double Scalar::AsDouble() const {
  if (IsFloating(dtype)) return f;
  if (dtype == DType::kUInt64) return static_cast<double>(static_cast<uint64_t>(i));
  return static_cast<double>(i);
}

int64_t Scalar::AsInt64() const {
  if (IsFloating(dtype)) return static_cast<int64_t>(f);
  return i;
}

bool operator==(const Scalar& a, const Scalar& b) {
  if (a.dtype != b.dtype) return false;
  if (IsFloating(a.dtype)) return a.f == b.f || (std::isnan(a.f) && std::isnan(b.f));
  return a.i == b.i;
}

std::string Scalar::ToString() const {
  if (IsFloating(dtype)) return absl::StrCat(f);
  if (dtype == DType::kBool) return i ? "true" : "false";
  if (dtype == DType::kUInt64) return absl::StrCat(static_cast<uint64_t>(i));
  return absl::StrCat(i);
}

bool operator==(const Value& a, const Value& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == Value::Kind::kScalar) return a.scalar == b.scalar;
  return a.elements == b.elements;
}

std::string Value::ToString() const {
  if (kind == Kind::kScalar) return scalar.ToString();
  std::string inner =
      absl::StrJoin(elements, ", ", [](std::string* out, const Value& v) { *out += v.ToString(); });
  switch (kind) {
    case Kind::kTuple:
      return absl::StrCat("(", inner, ")");
    case Kind::kVector:
      return absl::StrCat("<", inner, ">");
    default:
      return absl::StrCat("[", inner, "]");
  }
}

namespace {

Value BuildValue(const Tensor& t, int dim, int64_t& next) {
  if (dim == static_cast<int>(t.shape().size())) return Value::Of(Scalar::FromTensor(t, next++));
  std::vector<Value> elements;
  elements.reserve(t.shape()[dim]);
  for (int64_t k = 0; k < t.shape()[dim]; ++k) elements.push_back(BuildValue(t, dim + 1, next));
  return Value::Array(std::move(elements));
}

// Writes the scalars of `value` into `out` in C order, checking the structure against `type`.
absl::Status Flatten(const Value& value, const TypePtr& type, const SizeBindings& sizes,
                     std::vector<Scalar>& out, const std::string& where) {
  if (type->is_scalar()) {
    if (value.kind != Value::Kind::kScalar) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": expected a scalar, got ", value.ToString().substr(0, 80)));
    }
    if (value.scalar.dtype != type->dtype) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": expected ", DTypeName(type->dtype),
                                                     ", got ", DTypeName(value.scalar.dtype)));
    }
    out.push_back(value.scalar);
    return absl::OkStatus();
  }
  if (!type->is_array() || value.kind != Value::Kind::kArray) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": expected a value of type ", TypeToString(type)));
  }
  auto length = type->length.Evaluate(sizes);
  if (!length.ok()) return length.status();
  if (static_cast<int64_t>(value.elements.size()) != *length) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": expected ", *length, " elements, got ", value.elements.size()));
  }
  for (size_t k = 0; k < value.elements.size(); ++k) {
    auto s =
        Flatten(value.elements[k], type->element, sizes, out, absl::StrCat(where, "[", k, "]"));
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

Value ValueFromTensor(const Tensor& tensor) {
  int64_t next = 0;
  return BuildValue(tensor, 0, next);
}

absl::StatusOr<Shape> ShapeUnder(const TypePtr& type, const SizeBindings& sizes) {
  auto symbolic = TensorShape(type);
  if (!symbolic) {
    return absl::InvalidArgumentError(
        absl::StrCat("type ", TypeToString(type), " is not a tensor type"));
  }
  return EvaluateShape(*symbolic, sizes);
}

absl::StatusOr<Tensor> TensorFromValue(const Value& value, const TypePtr& type,
                                       const SizeBindings& sizes) {
  absl::StatusOr<Shape> shape = ShapeUnder(type, sizes);
  if (!shape.ok()) return shape.status();
  std::vector<Scalar> scalars;
  auto s = Flatten(value, type, sizes, scalars, "value");
  if (!s.ok()) return s;
  auto tensor = Tensor::Create(BaseDType(type), *std::move(shape));
  if (!tensor.ok()) return tensor.status();
  DispatchDType(tensor->dtype(), [&]<typename T>() {
    T* out = tensor->mutable_data<T>();
    for (size_t k = 0; k < scalars.size(); ++k) {
      if constexpr (std::is_same_v<T, Half>) {
        out[k] = Half(static_cast<float>(scalars[k].f));
      } else if constexpr (std::is_floating_point_v<T>) {
        out[k] = static_cast<T>(scalars[k].f);
      } else {
        out[k] = static_cast<T>(scalars[k].i);
      }
    }
  });
  return tensor;
}

}  // namespace dfc::ir
