// Element types dfc knows, with TensorFlow's DataType numbering, and their properties.
#ifndef DFC_GRAPH_DTYPE_H_
#define DFC_GRAPH_DTYPE_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "base/check.h"
#include "base/status.h"
#include "graph/half.h"

namespace dfc {

// Values equal TensorFlow's DataType enum, so conversion from the proto is a cast.
enum class DType : int {
  kInvalid = 0,
  kFloat = 1,
  kDouble = 2,
  kInt32 = 3,
  kUInt8 = 4,
  kInt16 = 5,
  kInt8 = 6,
  kString = 7,  // loaded (Saver graphs carry file names) but never computed on
  kInt64 = 9,
  kBool = 10,
  // Stored only: loaded in constants, moved by Identity and reinterpreted by Bitcast, never
  // computed on (TensorFlow-made graphs bitcast bfloat16 constants).
  kBFloat16 = 14,
  kUInt16 = 17,
  kHalf = 19,
  kResource = 20,  // a handle naming host state: TensorArray gradients, stacks (Tensor::resource)
  kVariant = 21,   // a TensorArray's flow or a TensorList: a host value (Tensor::variant)
  kUInt32 = 22,
  kUInt64 = 23,
};

// True for the dtypes dfc computes with: OPS.md's, plus uint16/32/64 (TensorFlow-made graphs
// cast to them and concatenate them); all of the above but kInvalid, kString, kResource and
// kVariant, which only host ops move (OpDef::any_dtype) or read, and kBFloat16, which only
// constants, pass-throughs and Bitcast hold.
bool IsSupported(DType dtype);
bool IsFloating(DType dtype);  // half, float, double
bool IsInteger(DType dtype);   // signed and unsigned integers, not bool
bool IsSigned(DType dtype);

// Bytes per element (2 for kBFloat16); 0 for kString and kInvalid.
size_t SizeOf(DType dtype);

// "float32", "int64", "bool"... as NumPy names them ("bfloat16" as ml_dtypes does).
absl::string_view DTypeName(DType dtype);

// From TensorFlow's DataType number: reference types (DT_FLOAT_REF = 101) map to their base;
// a number dfc does not know is an error that quotes it.
absl::StatusOr<DType> DTypeFromTf(int tf_type);

// From a NumPy-style name ("float32", "int32", "bool", "float16"...).
absl::StatusOr<DType> DTypeFromName(absl::string_view name);

// C++ storage type of each dtype, for kernels: DTypeOf<float> == kFloat.
template <typename T>
struct DTypeOfT;
template <>
struct DTypeOfT<float> {
  static constexpr DType value = DType::kFloat;
};
template <>
struct DTypeOfT<double> {
  static constexpr DType value = DType::kDouble;
};
template <>
struct DTypeOfT<int32_t> {
  static constexpr DType value = DType::kInt32;
};
template <>
struct DTypeOfT<uint8_t> {
  static constexpr DType value = DType::kUInt8;
};
template <>
struct DTypeOfT<int16_t> {
  static constexpr DType value = DType::kInt16;
};
template <>
struct DTypeOfT<int8_t> {
  static constexpr DType value = DType::kInt8;
};
template <>
struct DTypeOfT<int64_t> {
  static constexpr DType value = DType::kInt64;
};
template <>
struct DTypeOfT<bool> {
  static constexpr DType value = DType::kBool;
};
template <>
struct DTypeOfT<Half> {
  static constexpr DType value = DType::kHalf;
};
template <>
struct DTypeOfT<uint16_t> {
  static constexpr DType value = DType::kUInt16;
};
template <>
struct DTypeOfT<uint32_t> {
  static constexpr DType value = DType::kUInt32;
};
template <>
struct DTypeOfT<uint64_t> {
  static constexpr DType value = DType::kUInt64;
};
template <typename T>
inline constexpr DType DTypeOf = DTypeOfT<T>::value;

// Calls fn.template operator()<T>() with T the storage type of `dtype`, and returns its
// result. `dtype` must be supported: callers check IsSupported (or a narrower set) first.
//   DispatchDType(t.dtype(), [&]<typename T>() { ... });
template <typename Fn>
decltype(auto) DispatchDType(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kFloat:
      return fn.template operator()<float>();
    case DType::kDouble:
      return fn.template operator()<double>();
    case DType::kInt32:
      return fn.template operator()<int32_t>();
    case DType::kUInt8:
      return fn.template operator()<uint8_t>();
    case DType::kInt16:
      return fn.template operator()<int16_t>();
    case DType::kInt8:
      return fn.template operator()<int8_t>();
    case DType::kInt64:
      return fn.template operator()<int64_t>();
    case DType::kBool:
      return fn.template operator()<bool>();
    case DType::kHalf:
      return fn.template operator()<Half>();
    case DType::kUInt16:
      return fn.template operator()<uint16_t>();
    case DType::kUInt32:
      return fn.template operator()<uint32_t>();
    case DType::kUInt64:
      return fn.template operator()<uint64_t>();
    default:
      break;
  }
  // Callers check IsSupported first: reaching here is a dfc bug, never a reinterpretation.
  DFC_CHECK(false && "DispatchDType called with an unsupported dtype");
  return fn.template operator()<float>();
}

// The type arithmetic on T is done in: float for Half, T otherwise.
template <typename T>
struct ComputeTypeT {
  using type = T;
};
template <>
struct ComputeTypeT<Half> {
  using type = float;
};
template <typename T>
using ComputeType = typename ComputeTypeT<T>::type;

}  // namespace dfc

#endif  // DFC_GRAPH_DTYPE_H_
