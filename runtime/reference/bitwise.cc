// Reference kernels: the bitwise ops outside the elementwise tables (BitwiseAnd, BitwiseOr,
// BitwiseXor and the shifts are graph/op_semantics/binary.h's, Invert unary.h's).
// PopulationCount counts each element's bits, for the integer dtypes TensorFlow registers (int8
// to uint64). CompareAndBitpack packs `x > threshold` for 8 consecutive elements of the last
// dimension into one uint8, the first element in the most significant bit.
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/bitwise_math.h"
#include "graph/dtype.h"
#include "graph/dtype_class.h"
#include "runtime/reference/elementwise_util.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {
namespace {

// PopulationCount: the bits set in each element of one integer input, as uint8 whatever the
// input's dtype.
absl::Status CountBits(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kInts));
  const Tensor& x = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, DType::kUInt8, x.shape()));
  DispatchDType(x.dtype(), [&]<typename T>() {
    if constexpr (InClass<T>(kInts)) {
      const T* a = x.data<T>();
      uint8_t* o = out.mutable_data<uint8_t>();
      for (int64_t i = 0; i < x.num_elements(); ++i) o[i] = PopulationCount(a[i]);
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// CompareAndBitpack(input, threshold): input of rank >= 1 whose last dimension is a multiple of
// 8, threshold a scalar of its dtype. Output element j of a row is
//   sum over b in [0, 8) of (row[8j + b] > threshold) << (7 - b).
// For bool TensorFlow packs the elements themselves and never reads the threshold.
absl::Status CompareAndBitpack(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckSameDType(ctx, 0, 1));
  // TensorFlow's op registers bool, the floats and the signed integers (no unsigned ones).
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kFloats | kSigned | kBools));
  const Tensor& input = ctx.input(0);
  const Tensor& threshold = ctx.input(1);
  if (threshold.rank() != 0) {
    return ctx.Error(absl::StrCat("threshold must be a scalar, got ", threshold.DebugType()));
  }
  if (input.rank() < 1) {
    return ctx.Error(absl::StrCat("input must have rank at least 1, got ", input.DebugType()));
  }
  const int last = input.rank() - 1;
  if (input.dim(last) % 8 != 0) {
    return ctx.Error(absl::StrCat("the last dimension of input ", input.DebugType(),
                                  " must be a multiple of 8, got ", input.dim(last)));
  }
  Shape shape = input.shape();
  shape[last] /= 8;
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, DType::kUInt8, shape));
  DispatchDType(input.dtype(), [&]<typename T>() {
    if constexpr (InClass<T>(kFloats | kSigned | kBools)) {
      const T* x = input.data<T>();
      const ComputeType<T> t = Up(threshold.data<T>()[0]);
      uint8_t* o = out.mutable_data<uint8_t>();
      for (int64_t j = 0; j < out.num_elements(); ++j) {
        unsigned packed = 0;
        for (int b = 0; b < 8; ++b) {
          bool bit;
          if constexpr (kIsBool<T>) {
            bit = x[8 * j + b];
          } else {
            bit = Up(x[8 * j + b]) > t;  // NaN compares false
          }
          packed = (packed << 1) | (bit ? 1u : 0u);
        }
        o[j] = static_cast<uint8_t>(packed);
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterBitwiseKernels(KernelRegistry& registry) {
  registry.Register("PopulationCount", CountBits);
  registry.Register("CompareAndBitpack", CompareAndBitpack);
}

}  // namespace dfc::reference
