// Which dtypes an op is defined for, as a bit set of classes or a named set: the reference
// kernels refuse the others, and the translations refuse exactly the same ones.
#ifndef DFC_GRAPH_DTYPE_CLASS_H_
#define DFC_GRAPH_DTYPE_CLASS_H_

#include <algorithm>
#include <iterator>
#include <string>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "graph/dtype.h"
#include "graph/half.h"

namespace dfc {

enum DTypeClass : unsigned {
  kFloats = 1,    // float16, float32, float64
  kSigned = 2,    // int8, int16, int32, int64
  kUnsigned = 4,  // uint8, uint16, uint32, uint64
  kBools = 8,
  kInts = kSigned | kUnsigned,
  kNumbers = kFloats | kInts,
  kAll = kNumbers | kBools,
};

// Whether storage type T belongs to one of `classes` (for `if constexpr`).
template <typename T>
constexpr bool InClass(unsigned classes) {
  if constexpr (std::is_same_v<T, Half> || std::is_floating_point_v<T>) {
    return (classes & kFloats) != 0;
  } else if constexpr (std::is_same_v<T, bool>) {
    return (classes & kBools) != 0;
  } else if constexpr (std::is_signed_v<T>) {
    return (classes & kSigned) != 0;
  } else {
    return (classes & kUnsigned) != 0;
  }
}

inline bool DTypeInClass(DType d, unsigned classes) {
  if (IsFloating(d)) return (classes & kFloats) != 0;
  if (d == DType::kBool) return (classes & kBools) != 0;
  if (IsSigned(d)) return (classes & kSigned) != 0;
  if (IsInteger(d)) return (classes & kUnsigned) != 0;
  return false;
}

// The number types of OPS.md, which the reductions, scans and contractions are defined for:
// every supported dtype but bool and uint16, uint32 and uint64 (added later, for graphs that
// cast to them), so unlike kNumbers not a union of classes.
inline constexpr DType kNumericDTypes[] = {DType::kHalf,  DType::kFloat, DType::kDouble,
                                           DType::kInt8,  DType::kInt16, DType::kInt32,
                                           DType::kInt64, DType::kUInt8};

inline bool IsNumeric(DType d) {
  return std::ranges::find(kNumericDTypes, d) != std::end(kNumericDTypes);
}

// "float16, float32, float64": the dtypes of `classes`, for error messages.
inline std::string DTypeClassNames(unsigned classes) {
  std::string names;
  for (DType a : {DType::kHalf, DType::kFloat, DType::kDouble, DType::kInt8, DType::kInt16,
                  DType::kInt32, DType::kInt64, DType::kUInt8, DType::kUInt16, DType::kUInt32,
                  DType::kUInt64, DType::kBool}) {
    if (DTypeInClass(a, classes)) absl::StrAppend(&names, names.empty() ? "" : ", ", DTypeName(a));
  }
  return names;
}

}  // namespace dfc

#endif  // DFC_GRAPH_DTYPE_CLASS_H_
