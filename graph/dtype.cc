// DType properties and name conversions.
#include "graph/dtype.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace dfc {

bool IsSupported(DType dtype) {
  switch (dtype) {
    case DType::kFloat:
    case DType::kDouble:
    case DType::kInt32:
    case DType::kUInt8:
    case DType::kInt16:
    case DType::kInt8:
    case DType::kInt64:
    case DType::kBool:
    case DType::kHalf:
    case DType::kUInt16:
    case DType::kUInt32:
    case DType::kUInt64:
      return true;
    default:
      return false;
  }
}

bool IsFloating(DType dtype) {
  return dtype == DType::kFloat || dtype == DType::kDouble || dtype == DType::kHalf;
}

bool IsInteger(DType dtype) {
  return IsSigned(dtype) || dtype == DType::kUInt8 || dtype == DType::kUInt16 ||
         dtype == DType::kUInt32 || dtype == DType::kUInt64;
}

bool IsSigned(DType dtype) {
  return dtype == DType::kInt8 || dtype == DType::kInt16 || dtype == DType::kInt32 ||
         dtype == DType::kInt64;
}

size_t SizeOf(DType dtype) {
  switch (dtype) {
    case DType::kFloat:
    case DType::kInt32:
    case DType::kUInt32:
      return 4;
    case DType::kDouble:
    case DType::kInt64:
    case DType::kUInt64:
      return 8;
    case DType::kInt16:
    case DType::kUInt16:
    case DType::kHalf:
    case DType::kBFloat16:
      return 2;
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kBool:
      return 1;
    default:
      return 0;
  }
}

absl::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat:
      return "float32";
    case DType::kDouble:
      return "float64";
    case DType::kInt32:
      return "int32";
    case DType::kUInt8:
      return "uint8";
    case DType::kInt16:
      return "int16";
    case DType::kInt8:
      return "int8";
    case DType::kString:
      return "string";
    case DType::kResource:
      return "resource";
    case DType::kVariant:
      return "variant";
    case DType::kInt64:
      return "int64";
    case DType::kBool:
      return "bool";
    case DType::kHalf:
      return "float16";
    case DType::kBFloat16:
      return "bfloat16";
    case DType::kUInt16:
      return "uint16";
    case DType::kUInt32:
      return "uint32";
    case DType::kUInt64:
      return "uint64";
    case DType::kInvalid:
      break;
  }
  return "invalid";
}

absl::StatusOr<DType> DTypeFromTf(int tf_type) {
  const int base = tf_type > 100 ? tf_type - 100 : tf_type;
  switch (base) {
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
    case 6:
    case 7:
    case 9:
    case 10:
    case 14:
    case 17:
    case 19:
    case 20:
    case 21:
    case 22:
    case 23:
      return static_cast<DType>(base);
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("unsupported dtype ", tf_type,
                       " (dfc supports float16/32/64, int8/16/32/64, uint8/16/32/64, bool, and "
                       "string and bfloat16 constants)"));
  }
}

absl::StatusOr<DType> DTypeFromName(absl::string_view name) {
  for (DType d : {DType::kFloat, DType::kDouble, DType::kInt32, DType::kUInt8, DType::kInt16,
                  DType::kInt8, DType::kString, DType::kInt64, DType::kBool, DType::kHalf,
                  DType::kBFloat16, DType::kUInt16, DType::kUInt32, DType::kUInt64}) {
    if (DTypeName(d) == name) return d;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown dtype name \"", name, "\""));
}

}  // namespace dfc
