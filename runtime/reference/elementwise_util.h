// Helpers shared by the elementwise reference kernels: which dtype classes an op is defined
// for, the storage <-> compute conversions (float16 is computed in float), and integer
// arithmetic that wraps modulo 2^bits without signed overflow.
#ifndef DFC_RUNTIME_REFERENCE_ELEMENTWISE_UTIL_H_
#define DFC_RUNTIME_REFERENCE_ELEMENTWISE_UTIL_H_

#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "graph/dtype.h"
#include "graph/half.h"
#include "graph/scalar_math.h"
#include "runtime/reference/kernel.h"

namespace dfc::reference {

// Which dtypes an op is defined for, as a bit set.
enum DTypeClass : unsigned {
  kFloats = 1,    // float16, float32, float64
  kSigned = 2,    // int8, int16, int32, int64
  kUnsigned = 4,  // uint8, uint16, uint32, uint64
  kBools = 8,
  kInts = kSigned | kUnsigned,
  kNumbers = kFloats | kInts,
  kAll = kNumbers | kBools,
};

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, Half>;
template <typename T>
inline constexpr bool kIsBool = std::is_same_v<T, bool>;
template <typename T>
inline constexpr bool kIsFloat = std::is_floating_point_v<T> || kIsHalf<T>;
template <typename T>
inline constexpr bool kIsInt = std::is_integral_v<T> && !kIsBool<T>;

// Whether storage type T belongs to one of `classes` (for `if constexpr`).
template <typename T>
constexpr bool InClass(unsigned classes) {
  if constexpr (kIsFloat<T>) return (classes & kFloats) != 0;
  if constexpr (kIsBool<T>) return (classes & kBools) != 0;
  if constexpr (std::is_signed_v<T>) return (classes & kSigned) != 0;
  return (classes & kUnsigned) != 0;
}

inline bool DTypeInClass(DType d, unsigned classes) {
  if (IsFloating(d)) return (classes & kFloats) != 0;
  if (d == DType::kBool) return (classes & kBools) != 0;
  if (IsSigned(d)) return (classes & kSigned) != 0;
  if (IsInteger(d)) return (classes & kUnsigned) != 0;
  return false;
}

// Fails unless input `input` has a dtype in `classes`; the error lists the allowed dtypes.
inline absl::Status CheckClass(const KernelContext& ctx, int input, unsigned classes) {
  const DType d = ctx.input(input).dtype();
  if (DTypeInClass(d, classes)) return absl::OkStatus();
  std::string names;
  for (DType a : {DType::kHalf, DType::kFloat, DType::kDouble, DType::kInt8, DType::kInt16,
                  DType::kInt32, DType::kInt64, DType::kUInt8, DType::kUInt16, DType::kUInt32,
                  DType::kUInt64, DType::kBool}) {
    if (DTypeInClass(a, classes)) absl::StrAppend(&names, names.empty() ? "" : ", ", DTypeName(a));
  }
  return ctx.Error(absl::StrCat(ctx.node().op, " is not defined for dtype ", DTypeName(d),
                                " (input ", input, " is ", ctx.input(input).DebugType(),
                                "; expected one of ", names, ")"));
}

// Storage <-> compute type: Half is computed in float, every other type in itself.
template <typename T>
ComputeType<T> Up(T x) {
  return static_cast<ComputeType<T>>(x);
}
template <typename T>
T Down(ComputeType<T> x) {
  if constexpr (kIsHalf<T>) {
    return Half(x);
  } else {
    return static_cast<T>(x);
  }
}

}  // namespace dfc::reference

#endif  // DFC_RUNTIME_REFERENCE_ELEMENTWISE_UTIL_H_
