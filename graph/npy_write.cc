// .npy writing: the bytes numpy.save writes (see npy.h).
#include <cerrno>
#include <cstddef>
#include <fstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"
#include "graph/npy.h"
#include "graph/npy_internal.h"

namespace dfc {
namespace {

using npy_internal::ByteSwapElements;
using npy_internal::IoError;
using npy_internal::kLittleEndianHost;
using npy_internal::kMagic;

// numpy.lib.format: the data starts at a multiple of ARRAY_ALIGN, and the header leaves room
// for the first axis to grow to GROWTH_AXIS_MAX_DIGITS digits.
constexpr size_t kArrayAlign = 64;
constexpr size_t kGrowthAxisMaxDigits = 21;

// --- Writing -------------------------------------------------------------------------------------

absl::string_view Descr(DType dtype) {
  switch (dtype) {
    case DType::kHalf:
      return "<f2";
    case DType::kBFloat16:
      // NumPy has no bfloat16: numpy.save writes ml_dtypes' bfloat16 as 2-byte voids, which
      // .view(ml_dtypes.bfloat16) turns back.
      return "<V2";
    case DType::kFloat:
      return "<f4";
    case DType::kDouble:
      return "<f8";
    case DType::kInt8:
      return "|i1";
    case DType::kInt16:
      return "<i2";
    case DType::kInt32:
      return "<i4";
    case DType::kInt64:
      return "<i8";
    case DType::kUInt8:
      return "|u1";
    case DType::kUInt16:
      return "<u2";
    case DType::kUInt32:
      return "<u4";
    case DType::kUInt64:
      return "<u8";
    case DType::kBool:
      return "|b1";
    default:
      break;
  }
  DFC_CHECK(false && "SerializeNpy called on a dtype .npy files do not hold");
  return "";
}

// Python's repr of a shape tuple: "()", "(3,)", "(2, 3)".
std::string ShapeRepr(const Shape& shape) {
  if (shape.size() == 1) return absl::StrCat("(", shape[0], ",)");
  return absl::StrCat("(", absl::StrJoin(shape, ", "), ")");
}

// Magic, version, header length, dict, padding and newline, as numpy.lib.format writes them.
std::string SerializeHeader(const Tensor& tensor) {
  std::string dict =
      absl::StrCat("{'descr': '", Descr(tensor.dtype()),
                   "', 'fortran_order': False, 'shape': ", ShapeRepr(tensor.shape()), ", }");
  if (tensor.rank() > 0) {
    const size_t digits = absl::StrCat(tensor.dim(0)).size();
    if (digits < kGrowthAxisMaxDigits) dict.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  const size_t length_with_newline = dict.size() + 1;
  // numpy pads to the next multiple of 64 and adds a whole 64 when already aligned.
  size_t length_bytes = 2;
  size_t padding =
      kArrayAlign - (kMagic.size() + 2 + length_bytes + length_with_newline) % kArrayAlign;
  if (length_with_newline + padding > 0xffff) {
    length_bytes = 4;
    padding = kArrayAlign - (kMagic.size() + 2 + length_bytes + length_with_newline) % kArrayAlign;
  }
  const size_t header_length = length_with_newline + padding;
  std::string out(kMagic);
  out.push_back(static_cast<char>(length_bytes == 2 ? 1 : 2));
  out.push_back('\0');
  for (size_t i = 0; i < length_bytes; ++i) {
    out.push_back(static_cast<char>((header_length >> (8 * i)) & 0xff));
  }
  out += dict;
  out.append(padding, ' ');
  out.push_back('\n');
  return out;
}

}  // namespace

std::string SerializeNpy(const Tensor& tensor) {
  std::string out = SerializeHeader(tensor);
  const size_t header_size = out.size();
  const auto* data = static_cast<const char*>(tensor.raw_data());
  if (tensor.byte_size() > 0) out.append(data, tensor.byte_size());
  if (!kLittleEndianHost) {
    ByteSwapElements(reinterpret_cast<unsigned char*>(out.data() + header_size),
                     SizeOf(tensor.dtype()), tensor.num_elements());
  }
  return out;
}

absl::Status WriteNpy(const Tensor& tensor, const std::string& path) {
  if (!IsSupported(tensor.dtype()) && tensor.dtype() != DType::kBFloat16) {
    return absl::InvalidArgumentError(absl::StrCat("cannot write ", tensor.DebugType(), " to ",
                                                   path,
                                                   ": .npy output holds only numeric and "
                                                   "bool tensors"));
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) {
    return IoError(errno, absl::StrCat("cannot create ", path));
  }
  if (kLittleEndianHost) {
    // The buffer already is the data section; skip SerializeNpy's copy of it.
    const std::string header = SerializeHeader(tensor);
    file.write(header.data(), static_cast<std::streamsize>(header.size()));
    if (tensor.byte_size() > 0) {
      file.write(static_cast<const char*>(tensor.raw_data()),
                 static_cast<std::streamsize>(tensor.byte_size()));
    }
  } else {
    const std::string bytes = SerializeNpy(tensor);
    file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  file.close();
  if (!file) {
    return IoError(errno, absl::StrCat("cannot write ", path));
  }
  return absl::OkStatus();
}

}  // namespace dfc
