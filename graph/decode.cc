// Proto -> dfc value decoding. All sizes are checked before anything is allocated.
#include "graph/decode.h"

#include <algorithm>
#include <cstring>
#include <span>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace dfc {
namespace {

// Fills `out` from a repeated field: all values, or a prefix whose last value repeats.
template <typename T, typename Repeated, typename Convert>
absl::Status FillFromValues(const Repeated& values, Tensor& out, absl::string_view field,
                            Convert convert) {
  const int64_t n = out.num_elements();
  const int64_t count = values.size();
  if (count > n) {
    return absl::InvalidArgumentError(absl::StrCat(field, " has ", count, " values for ",
                                                   out.DebugType(), " of ", n, " elements"));
  }
  if (count == 0) return absl::OkStatus();  // zeros
  T* data = out.mutable_data<T>();
  for (int64_t i = 0; i < n; ++i) data[i] = convert(values.Get(i < count ? i : count - 1));
  return absl::OkStatus();
}

}  // namespace

PartialShape DecodeShape(const tf::TensorShapeProto& proto) {
  PartialShape shape;
  shape.unknown_rank = proto.unknown_rank();
  for (const auto& dim : proto.dim()) shape.dims.push_back(dim.size() < 0 ? -1 : dim.size());
  return shape;
}

absl::StatusOr<Tensor> DecodeTensor(const tf::TensorProto& proto) {
  absl::StatusOr<DType> dtype = DTypeFromTf(proto.dtype());
  if (!dtype.ok()) return dtype.status();
  if (proto.tensor_shape().unknown_rank()) {
    return absl::InvalidArgumentError("a constant tensor cannot have an unknown rank");
  }
  Shape shape;
  for (const auto& dim : proto.tensor_shape().dim()) {
    if (dim.size() < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("a constant tensor has an unknown dimension (", dim.size(), ")"));
    }
    shape.push_back(dim.size());
  }
  absl::StatusOr<Tensor> tensor = Tensor::Create(*dtype, shape);
  if (!tensor.ok()) return tensor.status();
  Tensor& t = *tensor;

  if (*dtype == DType::kString) {
    // File names and assertion messages: moved and printed, never computed with. One value
    // fills the tensor, as TensorFlow repeats the last value of a short list.
    if (proto.string_val_size() > t.num_elements()) {
      return absl::InvalidArgumentError(
          absl::StrCat("string_val has ", proto.string_val_size(), " values for ", t.DebugType()));
    }
    std::span<std::string> out = t.mutable_strings();
    for (size_t i = 0; i < out.size() && proto.string_val_size() > 0; ++i) {
      out[i] = proto.string_val(std::min<int>(static_cast<int>(i), proto.string_val_size() - 1));
    }
    return t;
  }

  if (!proto.tensor_content().empty()) {
    const std::string& content = proto.tensor_content();
    if (content.size() != t.byte_size()) {
      return absl::InvalidArgumentError(absl::StrCat("tensor_content has ", content.size(),
                                                     " bytes, but ", t.DebugType(), " needs ",
                                                     t.byte_size()));
    }
    // GraphDefs are little-endian, as is every host dfc runs on.
    std::memcpy(t.mutable_raw_data(), content.data(), content.size());
    return t;
  }

  absl::Status status;
  switch (*dtype) {
    case DType::kFloat:
      status = FillFromValues<float>(proto.float_val(), t, "float_val", [](float v) { return v; });
      break;
    case DType::kDouble:
      status =
          FillFromValues<double>(proto.double_val(), t, "double_val", [](double v) { return v; });
      break;
    case DType::kInt32:
      status = FillFromValues<int32_t>(proto.int_val(), t, "int_val", [](int32_t v) { return v; });
      break;
    case DType::kInt16:
      status = FillFromValues<int16_t>(proto.int_val(), t, "int_val",
                                       [](int32_t v) { return static_cast<int16_t>(v); });
      break;
    case DType::kInt8:
      status = FillFromValues<int8_t>(proto.int_val(), t, "int_val",
                                      [](int32_t v) { return static_cast<int8_t>(v); });
      break;
    case DType::kUInt8:
      status = FillFromValues<uint8_t>(proto.int_val(), t, "int_val",
                                       [](int32_t v) { return static_cast<uint8_t>(v); });
      break;
    case DType::kInt64:
      status =
          FillFromValues<int64_t>(proto.int64_val(), t, "int64_val", [](int64_t v) { return v; });
      break;
    case DType::kUInt16:
      status = FillFromValues<uint16_t>(proto.int_val(), t, "int_val",
                                        [](int32_t v) { return static_cast<uint16_t>(v); });
      break;
    case DType::kUInt32:
      status = FillFromValues<uint32_t>(proto.uint32_val(), t, "uint32_val",
                                        [](uint32_t v) { return v; });
      break;
    case DType::kUInt64:
      status = FillFromValues<uint64_t>(proto.uint64_val(), t, "uint64_val",
                                        [](uint64_t v) { return v; });
      break;
    case DType::kBool:
      status = FillFromValues<bool>(proto.bool_val(), t, "bool_val", [](bool v) { return v; });
      break;
    case DType::kHalf:
      status = FillFromValues<Half>(proto.half_val(), t, "half_val", [](int32_t v) {
        return Half::FromBits(static_cast<uint16_t>(v));
      });
      break;
    case DType::kBFloat16:
      // TensorFlow stores bfloat16 values, like half ones, as their 16-bit patterns.
      status = FillFromValues<uint16_t>(proto.half_val(), t, "half_val",
                                        [](int32_t v) { return static_cast<uint16_t>(v); });
      break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("cannot decode a constant of dtype ", DTypeName(*dtype)));
  }
  if (!status.ok()) return status;
  return t;
}

absl::StatusOr<AttrValue> DecodeAttr(const tf::AttrValue& proto) {
  switch (proto.value_case()) {
    case tf::AttrValue::kS:
      return AttrValue(proto.s());
    case tf::AttrValue::kI:
      return AttrValue(static_cast<int64_t>(proto.i()));
    case tf::AttrValue::kF:
      return AttrValue(proto.f());
    case tf::AttrValue::kB:
      return AttrValue(proto.b());
    case tf::AttrValue::kType: {
      // Unsupported types are kept as their number; they are refused only where a node the
      // fetches need uses them.
      const int type = proto.type() > 100 ? proto.type() - 100 : proto.type();
      return AttrValue(static_cast<DType>(type));
    }
    case tf::AttrValue::kShape:
      return AttrValue(DecodeShape(proto.shape()));
    case tf::AttrValue::kTensor: {
      absl::StatusOr<Tensor> t = DecodeTensor(proto.tensor());
      if (!t.ok()) return t.status();
      return AttrValue(*std::move(t));
    }
    case tf::AttrValue::kFunc:
      return AttrValue(FuncRef{proto.func().name()});
    case tf::AttrValue::kPlaceholder:
      return AttrValue(proto.placeholder());
    case tf::AttrValue::kList: {
      const auto& l = proto.list();
      AttrList list;
      list.s.assign(l.s().begin(), l.s().end());
      list.i.assign(l.i().begin(), l.i().end());
      list.f.assign(l.f().begin(), l.f().end());
      list.b.assign(l.b().begin(), l.b().end());
      for (int type : l.type())
        list.type.push_back(static_cast<DType>(type > 100 ? type - 100 : type));
      for (const auto& s : l.shape()) list.shape.push_back(DecodeShape(s));
      for (const auto& tp : l.tensor()) {
        absl::StatusOr<Tensor> t = DecodeTensor(tp);
        if (!t.ok()) return t.status();
        list.tensor.push_back(*std::move(t));
      }
      for (const auto& f : l.func()) list.func.push_back(FuncRef{f.name()});
      return AttrValue(std::move(list));
    }
    case tf::AttrValue::VALUE_NOT_SET:
      break;
  }
  return AttrValue(std::monostate{});
}

}  // namespace dfc
