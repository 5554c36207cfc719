// UserFun building blocks shared by the translations; see scalar_funs.h.
#include "ir/from_tf/scalar_funs.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/substitute.h"
#include "base/check.h"

namespace dfc::ir {

std::string OpenCLType(DType dtype) {
  switch (dtype) {
    case DType::kHalf:
    case DType::kFloat:
      return "float";
    case DType::kDouble:
      return "double";
    case DType::kInt8:
      return "char";
    case DType::kInt16:
      return "short";
    case DType::kInt32:
      return "int";
    case DType::kInt64:
      return "long";
    case DType::kUInt8:
    case DType::kBool:
      return "uchar";
    case DType::kUInt16:
      return "ushort";
    case DType::kUInt32:
      return "uint";
    case DType::kUInt64:
      return "ulong";
    default:
      break;
  }
  DFC_CHECK(false && "OpenCLType of a dtype that is never computed on");
  return "";
}

std::string WideUnsignedType(DType dtype) { return SizeOf(dtype) == 8 ? "ulong" : "uint"; }

std::string WrappingArithText(DType dtype, absl::string_view a, absl::string_view op,
                              absl::string_view b) {
  if (IsFloating(dtype)) return absl::StrCat(a, " ", op, " ", b);
  return absl::Substitute("($0)(($1)$2 $3 ($1)$4)", OpenCLType(dtype), WideUnsignedType(dtype), a,
                          op, b);
}

std::string FloatLiteral(DType dtype, double value) {
  const bool single = dtype != DType::kDouble;
  if (single) value = static_cast<float>(value);
  if (std::isnan(value)) return "NAN";
  if (std::isinf(value)) return value > 0 ? "INFINITY" : "-INFINITY";
  std::string text = single ? absl::StrFormat("%.9g", value) : absl::StrFormat("%.17g", value);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  if (single) text += "f";
  return text;
}

namespace {

// The number of significand bits (with the implicit one) of a floating dtype.
int MantissaBits(DType dtype) {
  switch (dtype) {
    case DType::kHalf:
      return 11;
    case DType::kFloat:
      return std::numeric_limits<float>::digits;
    default:
      return std::numeric_limits<double>::digits;
  }
}

// Whether Cast's Truncate applies: a float or double source narrowed to a floating type
// (float16 sources never truncate, as in the reference).
bool Truncates(DType from, DType to) {
  if (from != DType::kFloat && from != DType::kDouble) return false;
  return to == DType::kHalf || (IsFloating(to) && SizeOf(to) < SizeOf(from));
}

// Zeroes the low `drop` mantissa bits of a non-NaN value (TensorFlow's LSBZeroSetter).
template <typename F>
F DropMantissaBits(F x, int drop) {
  if (std::isnan(x)) return x;
  using Bits = std::conditional_t<sizeof(F) == 8, uint64_t, uint32_t>;
  Bits bits;
  std::memcpy(&bits, &x, sizeof(bits));
  bits &= ~((Bits{1} << drop) - 1);
  std::memcpy(&x, &bits, sizeof(bits));
  return x;
}

// Float to integer as the reference's FloatToInt: cvttss2si/cvttsd2si truncation; NaN and
// out-of-range values give the target's minimum for 64-bit targets (INT64_MIN, or 0 for
// uint64) and INT32_MIN's low bits for narrower ones. A uint64 target goes through int64, as
// the compiled conversion does on x86 for values below 2^63 (negative ones wrap).
template <typename To, typename F>
To FloatToInt(F x) {
  if constexpr (sizeof(To) == 8) {
    constexpr F kLimit = F(9223372036854775808.0);                             // 2^63
    if (!(x >= -kLimit && x < kLimit)) return std::numeric_limits<To>::min();  // 0 for uint64
    return static_cast<To>(static_cast<int64_t>(x));
  } else {
    constexpr F kLimit = F(2147483648.0);  // 2^31
    const int32_t i = (x >= -kLimit && x < kLimit) ? static_cast<int32_t>(x)
                                                   : std::numeric_limits<int32_t>::min();
    return static_cast<To>(i);
  }
}

// ConvertElement<To> of the reference, on a compute-type value (float for a float16 source);
// the result is ComputeType<To> (float16 targets are rounded through float by ScalarOf).
template <typename To, typename F>
ComputeType<To> Convert(F x) {
  if constexpr (std::is_same_v<To, bool>) {
    return x != F(0);  // NaN is true
  } else if constexpr (std::is_same_v<To, Half>) {
    return static_cast<float>(x);
  } else if constexpr (std::is_floating_point_v<To>) {
    return static_cast<To>(x);
  } else if constexpr (std::is_floating_point_v<F>) {
    return FloatToInt<To>(x);
  } else {
    return static_cast<To>(x);  // integers wrap; bool gives 0 or 1
  }
}

// The OpenCL C statements converting the compute-type value `v` of dtype `from` to `to`.
std::string CastBody(DType from, DType to, const std::string& v) {
  const std::string to_type = OpenCLType(to);
  if (to == DType::kBool) return absl::Substitute("return $0 != 0 ? 1 : 0;", v);
  if (IsFloating(to)) return absl::Substitute("return ($0)$1;", to_type, v);
  if (!IsFloating(from)) return absl::Substitute("return ($0)$1;", to_type, v);
  if (SizeOf(to) == 8) {
    const std::string limit = FloatLiteral(from, 9223372036854775808.0);
    // The reference gives To's minimum out of range: LONG_MIN for int64, 0 for uint64.
    return absl::Substitute("return ($0 >= -$1 && $0 < $1) ? ($2)(long)$0 : $3;", v, limit, to_type,
                            to == DType::kInt64 ? "LONG_MIN" : "0");
  }
  const std::string limit = FloatLiteral(from, 2147483648.0);
  if (to == DType::kInt32) {
    return absl::Substitute("return ($0 >= -$1 && $0 < $1) ? (int)$0 : INT_MIN;", v, limit);
  }
  return absl::Substitute(
      "int i = ($0 >= -$1 && $0 < $1) ? (int)$0 : INT_MIN;\n"
      "return ($2)i;  // the low bits of int32, as the reference",
      v, limit, to_type);
}

}  // namespace

FunPtr CastFun(DType from, DType to, bool truncate) {
  DFC_CHECK(IsSupported(from) && from != DType::kString);
  DFC_CHECK(IsSupported(to) && to != DType::kString);
  truncate = truncate && Truncates(from, to);
  const int drop = truncate ? MantissaBits(from) - MantissaBits(to) : 0;
  std::string body;
  if (truncate) {
    const std::string bits = from == DType::kDouble ? "ulong" : "uint";
    const std::string mask =
        absl::StrCat("0x",
                     absl::Hex(~((uint64_t{1} << drop) - 1) &
                               (from == DType::kDouble ? ~uint64_t{0} : uint64_t{0xffffffff})),
                     from == DType::kDouble ? "ul" : "u");
    // Zeroing the low mantissa bits makes the conversion below round toward zero.
    body = absl::Substitute("$0 y = isnan(x) ? x : as_$0(as_$1(x) & $2);\n", OpenCLType(from), bits,
                            mask);
    body += CastBody(from, to, "y");
  } else {
    body = CastBody(from, to, "x");
  }
  const std::string name =
      absl::StrCat("cast_", DTypeName(from), "_to_", DTypeName(to), truncate ? "_truncate" : "");
  UserFun::HostFn host = DispatchDType(from, [&]<typename From>() -> UserFun::HostFn {
    return DispatchDType(to, [&]<typename To>() -> UserFun::HostFn {
      return [drop](std::span<const Scalar> args) -> absl::StatusOr<Scalar> {
        ComputeType<From> x = ScalarAs<From>(args[0]);
        if constexpr (std::is_floating_point_v<From>) {
          if (drop > 0) x = DropMantissaBits(x, drop);
        }
        return ScalarOf<To>(Convert<To>(x));
      };
    });
  });
  return MakeUserFun(name, {"x"}, body, {from}, to, std::move(host));
}

}  // namespace dfc::ir
