// Tensor storage, size checks and printing.
#include "graph/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"
#include "base/status.h"

namespace dfc {

std::string ShapeToString(const Shape& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ","), "]");
}

absl::StatusOr<int64_t> NumElements(const Shape& shape) {
  bool empty = false;
  for (int64_t d : shape) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape ", ShapeToString(shape), " has a negative dimension"));
    }
    empty |= d == 0;
  }
  // A zero dimension anywhere makes the tensor empty, however large the others are.
  if (empty) return 0;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (n > std::numeric_limits<int64_t>::max() / d) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape ", ShapeToString(shape), " has more than 2^63 elements"));
    }
    n *= d;
  }
  return n;
}

namespace {

// `size` zeroed bytes of dfc's own.
std::shared_ptr<unsigned char> NewBuffer(size_t size) {
  auto buffer = std::make_shared<std::vector<unsigned char>>(size);
  return std::shared_ptr<unsigned char>(buffer, buffer->data());
}

}  // namespace

Tensor::Tensor() : Tensor(DType::kFloat, {}, NewBuffer(4)) {}

Tensor::Tensor(DType dtype, Shape shape, std::shared_ptr<unsigned char> data)
    : dtype_(dtype), shape_(std::move(shape)), data_(std::move(data)) {
  // Every caller passes a shape NumElements accepted; recomputing through it keeps a zero
  // dimension beside huge ones from overflowing on the way.
  absl::StatusOr<int64_t> n = NumElements(shape_);
  DFC_CHECK(n.ok());
  num_elements_ = *n;
}

absl::StatusOr<Tensor> Tensor::ShapeOnly(DType dtype, Shape shape) {
  if (absl::StatusOr<int64_t> n = NumElements(shape); !n.ok()) return n.status();
  return Tensor(dtype, std::move(shape), nullptr);
}

absl::StatusOr<Tensor> Tensor::Create(DType dtype, Shape shape) {
  absl::StatusOr<int64_t> n = NumElements(shape);
  if (!n.ok()) return n.status();
  const int64_t element_size = static_cast<int64_t>(SizeOf(dtype));
  if (element_size != 0 && *n > kMaxTensorBytes / element_size) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "tensor ", DTypeName(dtype), ShapeToString(shape), " needs ", *n, " elements of ",
        element_size, " bytes, over dfc's limit of ", kMaxTensorBytes, " bytes"));
  }
  Tensor t(dtype, std::move(shape), NewBuffer(static_cast<size_t>(*n * element_size)));
  if (dtype == DType::kString) {
    // Strings are host values of a few names and messages; a large count is a corrupt shape.
    constexpr int64_t kMaxStrings = int64_t{1} << 24;
    if (*n > kMaxStrings) {
      return absl::ResourceExhaustedError(absl::StrCat("string tensor ", t.DebugType(),
                                                       " has over ", kMaxStrings, " elements"));
    }
    t.strings_ = std::make_shared<std::vector<std::string>>(static_cast<size_t>(*n));
  }
  return t;
}

absl::StatusOr<Tensor> Tensor::Strings(std::vector<std::string> values, Shape shape) {
  DFC_ASSIGN_OR_RETURN(Tensor t, Create(DType::kString, std::move(shape)));
  if (values.size() != t.strings_->size()) {
    return absl::InvalidArgumentError(absl::StrCat(values.size(), " strings for ", t.DebugType()));
  }
  *t.strings_ = std::move(values);
  return t;
}

absl::StatusOr<Tensor> Tensor::Borrowed(DType dtype, Shape shape, std::shared_ptr<const void> owner,
                                        const void* bytes, size_t size) {
  if (dtype == DType::kString || dtype == DType::kVariant || dtype == DType::kResource) {
    return absl::InvalidArgumentError(
        absl::StrCat("a ", DTypeName(dtype), " tensor cannot borrow its elements"));
  }
  DFC_ASSIGN_OR_RETURN(Tensor t, ShapeOnly(dtype, std::move(shape)));
  if (t.byte_size() != size) {
    return absl::InvalidArgumentError(
        absl::StrCat(t.DebugType(), " needs ", t.byte_size(), " bytes, got ", size));
  }
  // Only the tensor's creator writes through mutable_data(), and nothing creates this one.
  t.data_ = std::shared_ptr<unsigned char>(std::const_pointer_cast<void>(std::move(owner)),
                                           static_cast<unsigned char*>(const_cast<void*>(bytes)));
  return t;
}

Tensor Tensor::OfVariant(std::shared_ptr<const Variant> value) {
  Tensor t = Zeros(DType::kVariant, {});
  t.variant_ = std::move(value);
  return t;
}

Tensor Tensor::OfResource(std::shared_ptr<Resource> value) {
  Tensor t = Zeros(DType::kResource, {});
  t.resource_ = std::move(value);
  return t;
}

Tensor Tensor::Zeros(DType dtype, Shape shape) {
  absl::StatusOr<Tensor> t = Create(dtype, std::move(shape));
  DFC_CHECK_OK(t.status());
  return *std::move(t);
}

absl::StatusOr<Tensor> Tensor::Reshaped(Shape shape) const {
  absl::StatusOr<int64_t> n = NumElements(shape);
  if (!n.ok()) return n.status();
  if (*n != num_elements_) {
    return absl::InvalidArgumentError(absl::StrCat("cannot reshape ", DebugType(), " to ",
                                                   ShapeToString(shape), ": ", num_elements_,
                                                   " elements against ", *n));
  }
  Tensor t(dtype_, std::move(shape), data_);
  t.strings_ = strings_;
  t.variant_ = variant_;
  t.resource_ = resource_;
  return t;
}

Tensor Tensor::Clone() const {
  Tensor t(dtype_, shape_, data_ ? NewBuffer(byte_size()) : nullptr);
  if (byte_size() > 0 && data_) std::memcpy(t.data_.get(), data_.get(), byte_size());
  if (strings_) t.strings_ = std::make_shared<std::vector<std::string>>(*strings_);
  t.variant_ = variant_;    // never changed once made
  t.resource_ = resource_;  // a handle's copy names the same state
  return t;
}

namespace {

// A bfloat16 is the upper half of a float32's bits, so widening it is exact.
float BFloat16ToFloat(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof f);
  return f;
}

}  // namespace

double Tensor::ElementAsDouble(int64_t i) const {
  if (dtype_ == DType::kBFloat16) return BFloat16ToFloat(data<uint16_t>()[i]);
  return DispatchDType(dtype_, [&]<typename T>() -> double {
    return static_cast<double>(static_cast<ComputeType<T>>(data<T>()[i]));
  });
}

int64_t Tensor::ElementAsInt64(int64_t i) const {
  if (dtype_ == DType::kBFloat16) {
    // Never an index (bfloat16 is only stored): the guard only keeps the cast defined.
    const double v = ElementAsDouble(i);
    return std::fabs(v) < 0x1p63 ? static_cast<int64_t>(v) : 0;
  }
  return DispatchDType(dtype_, [&]<typename T>() -> int64_t {
    return static_cast<int64_t>(static_cast<ComputeType<T>>(data<T>()[i]));
  });
}

std::string Tensor::DebugType() const {
  return absl::StrCat(DTypeName(dtype_), ShapeToString(shape_));
}

namespace {

std::string FormatElement(const Tensor& t, int64_t i) {
  if (t.dtype() == DType::kString) return absl::StrCat("\"", absl::CEscape(t.strings()[i]), "\"");
  if (t.dtype() == DType::kBool) return t.data<bool>()[i] ? "True" : "False";
  if (IsFloating(t.dtype()) || t.dtype() == DType::kBFloat16) {
    const double v = t.ElementAsDouble(i);
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
  }
  return absl::StrCat(t.ElementAsInt64(i));
}

// Prints the sub-array at `offset` of dimension `axis` onwards, stopping after `budget`
// elements in total.
void PreviewInto(const Tensor& t, int axis, int64_t offset, int64_t& budget, std::string& out) {
  if (axis == t.rank()) {
    out += FormatElement(t, offset);
    --budget;
    return;
  }
  if (t.dim(axis) == 0) {
    // An empty sub-array costs the budget too: [65536,65536,0] is 2^32 of them.
    out += "[]";
    --budget;
    return;
  }
  int64_t stride = 1;
  for (int d = axis + 1; d < t.rank(); ++d) stride *= t.dim(d);
  out += "[";
  for (int64_t i = 0; i < t.dim(axis); ++i) {
    if (i > 0) out += ", ";
    if (budget <= 0) {
      out += "...";
      break;
    }
    PreviewInto(t, axis + 1, offset + i * stride, budget, out);
  }
  out += "]";
}

}  // namespace

std::string Tensor::Preview(int64_t max_elements) const {
  if (variant_ != nullptr) return variant_->DebugString();
  if (resource_ != nullptr) return resource_->DebugString();
  if (!IsSupported(dtype_) && dtype_ != DType::kBFloat16 && strings_ == nullptr) {
    return absl::StrCat("<", DTypeName(dtype_), ">");
  }
  std::string out;
  int64_t budget = max_elements;
  PreviewInto(*this, 0, 0, budget, out);
  return out;
}

bool Tensor::BitwiseEqual(const Tensor& other) const {
  if (dtype_ == DType::kString) {
    return other.dtype_ == DType::kString && shape_ == other.shape_ &&
           std::equal(strings().begin(), strings().end(), other.strings().begin(),
                      other.strings().end());
  }
  if (dtype_ == DType::kVariant) return other.variant_ == variant_;
  if (dtype_ == DType::kResource) return other.dtype_ == dtype_ && other.resource_ == resource_;
  return dtype_ == other.dtype_ && shape_ == other.shape_ &&
         (byte_size() == 0 || std::memcmp(raw_data(), other.raw_data(), byte_size()) == 0);
}

}  // namespace dfc
