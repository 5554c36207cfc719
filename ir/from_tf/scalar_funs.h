// Small pieces for writing UserFuns that compute what the reference executor computes: the
// OpenCL C type a dtype is computed in, literals printed for it, host conversions between
// Scalar and the compute type, and Cast with TensorFlow's conversion rules (which other
// families need too: Mean divides by a count cast to T, comparisons produce bool...).
#ifndef DFC_IR_FROM_TF_SCALAR_FUNS_H_
#define DFC_IR_FROM_TF_SCALAR_FUNS_H_

#include <cstdint>
#include <string>
#include <type_traits>

#include "absl/strings/string_view.h"
#include "graph/dtype.h"
#include "graph/half.h"
#include "ir/expr.h"
#include "ir/value.h"

namespace dfc::ir {

// The OpenCL C type a UserFun body computes `dtype` in: "float" for float16 (the code
// generator loads half as float and rounds the result back), "uchar" for bool, "char",
// "short", "int", "long", their unsigned forms, "float", "double".
std::string OpenCLType(DType dtype);

// `value` rounded to the compute type of `dtype` (float for float16) and printed as an OpenCL C
// floating literal that reads back exactly: "0.5f", "1.0", "-INFINITY", "NAN".
std::string FloatLiteral(DType dtype, double value);

// The unsigned type integer arithmetic on `dtype` wraps in: "uint", or "ulong" for 64 bits (at
// least 32 bits, so that nothing promotes back to int: ushort * ushort overflows int).
std::string WideUnsignedType(DType dtype);
// `a op b` (op one of + - *) in the compute type of `dtype`: plain for floats, and for integers
// computed in WideUnsignedType and converted back, so that it wraps modulo 2^bits.
std::string WrappingArithText(DType dtype, absl::string_view a, absl::string_view op,
                              absl::string_view b);

// Cast(from -> to) with the reference's rules: float to integer truncates toward zero, and NaN
// or out-of-range values give INT_MIN (narrow types keep int32's low bits; uint64 gives 0,
// its minimum); to bool is x != 0;
// double to float16 rounds through float. `truncate` is Cast's Truncate attribute: a narrowing
// float conversion first zeroes the mantissa bits the target cannot hold.
FunPtr CastFun(DType from, DType to, bool truncate = false);

// Host side: a Scalar of storage type T as its compute type (float for Half, bool, integers),
// and back, rounded like the reference's Down<T> (float16 through Half, integers wrapped).
template <typename T>
ComputeType<T> ScalarAs(const Scalar& s) {
  if constexpr (std::is_same_v<T, Half>) {
    return static_cast<float>(s.f);
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(s.f);
  } else if constexpr (std::is_same_v<T, bool>) {
    return s.i != 0;
  } else {
    return static_cast<T>(s.i);  // uint64 from its bit pattern: modular
  }
}

template <typename T>
Scalar ScalarOf(ComputeType<T> v) {
  if constexpr (std::is_same_v<T, Half>) {
    return Scalar::Float(DType::kHalf, static_cast<float>(Half(v)));
  } else if constexpr (std::is_floating_point_v<T>) {
    return Scalar::Float(DTypeOf<T>, v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return Scalar::Bool(v);
  } else {
    return Scalar::Int(DTypeOf<T>, static_cast<int64_t>(v));  // uint64: its bit pattern
  }
}

}  // namespace dfc::ir

#endif  // DFC_IR_FROM_TF_SCALAR_FUNS_H_
