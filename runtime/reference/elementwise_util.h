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
#include "graph/dtype_class.h"
#include "graph/half.h"
#include "graph/scalar_math.h"
#include "runtime/reference/kernel.h"

namespace dfc::reference {

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, Half>;
template <typename T>
inline constexpr bool kIsBool = std::is_same_v<T, bool>;
template <typename T>
inline constexpr bool kIsFloat = std::is_floating_point_v<T> || kIsHalf<T>;
template <typename T>
inline constexpr bool kIsInt = std::is_integral_v<T> && !kIsBool<T>;

// Fails unless input `input` has a dtype in `classes`; the error lists the allowed dtypes.
inline absl::Status CheckClass(const KernelContext& ctx, int input, unsigned classes) {
  const DType d = ctx.input(input).dtype();
  if (DTypeInClass(d, classes)) return absl::OkStatus();
  const std::string names = DTypeClassNames(classes);
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
