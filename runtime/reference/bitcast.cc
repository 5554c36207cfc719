// Reference kernels that move bytes without computing on them: Bitcast (the same bytes read as
// another dtype), DeepCopy, Empty, and CheckNumerics (its input back, or an error naming the
// NaNs and infinities in it).
//
// Bitcast reads bytes in host order, which is TensorFlow's on every little-endian host dfc runs
// on. It is the one kernel that takes bfloat16 (stored only, graph/dtype.h): it can turn those
// 16-bit patterns into a dtype dfc computes with.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {
namespace {

// TensorFlow's Bitcast types that dfc holds: every number type, not bool (whose bytes are not
// all valid bools) nor strings and handles (which have no bytes).
constexpr DType kBitcastTypes[] = {
    DType::kBFloat16, DType::kHalf,  DType::kFloat, DType::kDouble, DType::kInt8,   DType::kInt16,
    DType::kInt32,    DType::kInt64, DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64,
};

bool IsBitcastType(DType d) {
  for (DType t : kBitcastTypes) {
    if (t == d) return true;
  }
  return false;
}

// Bitcast: equal widths keep the shape; a wider input gains a last dimension of the width
// ratio; a narrower one must end in a dimension equal to the ratio, which is dropped.
absl::Status Bitcast(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, kBitcastTypes));
  DFC_ASSIGN_OR_RETURN(DType to, ctx.node().GetType("type"));
  if (!IsBitcastType(to)) {
    // An attribute keeps TensorFlow's number for a dtype dfc does not know (complex64...).
    const std::string name = DTypeName(to) == "invalid"
                                 ? absl::StrCat("TensorFlow dtype ", static_cast<int>(to))
                                 : absl::StrCat("dtype ", DTypeName(to));
    return ctx.Error(
        absl::StrCat("cannot bitcast to ", name, ": expected a float, integer or bfloat16 type"));
  }
  const Tensor& x = ctx.input(0);
  const int64_t from_size = static_cast<int64_t>(SizeOf(x.dtype()));
  const int64_t to_size = static_cast<int64_t>(SizeOf(to));
  Shape shape = x.shape();
  if (from_size > to_size) {
    shape.push_back(from_size / to_size);
  } else if (from_size < to_size) {
    const int64_t ratio = to_size / from_size;
    if (shape.empty() || shape.back() != ratio) {
      return ctx.Error(absl::StrCat("cannot bitcast ", x.DebugType(), " to ", DTypeName(to),
                                    ": the input's last dimension must be ", ratio,
                                    " (the ratio of the widths)"));
    }
    shape.pop_back();
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, to, std::move(shape)));
  if (x.byte_size() > 0) std::memcpy(out.mutable_raw_data(), x.raw_data(), x.byte_size());
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// DeepCopy: the input in a buffer of its own, as TensorFlow copies it.
absl::Status DeepCopy(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  const Tensor& x = ctx.input(0);
  if (!IsSupported(x.dtype())) {
    return ctx.Error(absl::StrCat("cannot copy a ", DTypeName(x.dtype()),
                                  " tensor: expected a number or bool dtype"));
  }
  ctx.set_output(0, x.Clone());
  return absl::OkStatus();
}

// Empty: a tensor of `dtype` and the shape its int32 vector input gives. TensorFlow leaves the
// elements uninitialised unless `init` is set; dfc always zero-fills, the one defined value
// (TensorFlow-made cases of an uninitialised Empty hold whatever its memory held).
absl::Status Empty(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_ASSIGN_OR_RETURN(DType dtype, ctx.node().GetType("dtype"));
  if (!IsSupported(dtype)) {
    return ctx.Error(absl::StrCat("cannot make an empty ", DTypeName(dtype),
                                  " tensor: expected a number or bool dtype"));
  }
  if (absl::StatusOr<bool> init = ctx.node().GetBool("init", false); !init.ok()) {
    return init.status();
  }
  const Tensor& shape_input = ctx.input(0);
  if (shape_input.dtype() != DType::kInt32 || shape_input.rank() != 1) {
    return ctx.Error(absl::StrCat("shape must be an int32 vector, got ", shape_input.DebugType()));
  }
  Shape shape(shape_input.flat<int32_t>().begin(), shape_input.flat<int32_t>().end());
  for (int64_t d : shape) {
    if (d < 0) {
      return ctx.Error(absl::StrCat("shape ", ShapeToString(shape), " has a negative dimension"));
    }
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, dtype, std::move(shape)));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// CheckNumerics: passes its input through, or fails as TensorFlow does with
// "<message> : Tensor had NaN values" ("Inf", "Inf and NaN").
absl::Status CheckNumerics(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, {DType::kHalf, DType::kFloat, DType::kDouble}));
  DFC_ASSIGN_OR_RETURN(std::string message, ctx.node().GetString("message", ""));
  const Tensor& x = ctx.input(0);
  bool has_inf = false;
  bool has_nan = false;
  DispatchDType(x.dtype(), [&]<typename T>() {
    for (const T& v : x.flat<T>()) {
      const double d = static_cast<double>(static_cast<ComputeType<T>>(v));
      has_inf |= std::isinf(d);
      has_nan |= std::isnan(d);
    }
  });
  if (has_inf || has_nan) {
    const char* what = has_inf && has_nan ? "Inf and NaN" : has_inf ? "Inf" : "NaN";
    return ctx.Error(absl::StrCat(message, " : Tensor had ", what, " values"));
  }
  ctx.set_output(0, x);
  return absl::OkStatus();
}

}  // namespace

void RegisterBitcastKernels(KernelRegistry& registry) {
  registry.Register("Bitcast", Bitcast);
  registry.Register("DeepCopy", DeepCopy);
  registry.Register("Empty", Empty);
  registry.Register("CheckNumerics", CheckNumerics);
}

}  // namespace dfc::reference
