// Reference kernels for gathers and generators: GatherV2, Gather, OneHot, Fill and Range.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "graph/op_semantics/range.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {
namespace {

// The element count of shape[from, to). Only called for tensors that have elements, whose
// partial products therefore cannot overflow (a zero dimension can hide an overflowing rest).
int64_t Product(const Shape& shape, int from, int to) {
  int64_t n = 1;
  for (int i = from; i < to; ++i) n *= shape[i];
  return n;
}

// "indices[1,0]" for flat element `flat` of a tensor of `shape`.
std::string IndexName(const Shape& shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return absl::StrCat("indices[", absl::StrJoin(index, ","), "]");
}

// out[b, o, n, :] = params[b, o, indices[b, n], :] with b over the batch dimensions, o over
// the dimensions between them and the axis, n over the remaining index dimensions.
absl::Status GatherImpl(KernelContext& ctx, int64_t axis_value, int64_t batch_dims_value) {
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 1, {DType::kInt32, DType::kInt64}));
  const Tensor& params = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  if (params.rank() == 0) return ctx.Error("params must have rank 1 or more, got a scalar");
  DFC_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, axis_value, params.rank()));
  int64_t batch_dims = batch_dims_value;
  if (batch_dims < -indices.rank() || batch_dims > indices.rank()) {
    return ctx.Error(absl::StrCat("batch_dims ", batch_dims, " is out of range for indices ",
                                  indices.DebugType()));
  }
  if (batch_dims < 0) batch_dims += indices.rank();
  if (batch_dims != 0 && (batch_dims >= params.rank() || batch_dims > axis)) {
    return ctx.Error(absl::StrCat("batch_dims ", batch_dims, " must be less than the rank of ",
                                  params.DebugType(), " and at most axis ", axis));
  }
  const int nb = static_cast<int>(batch_dims);
  for (int d = 0; d < nb; ++d) {
    if (params.dim(d) != indices.dim(d)) {
      return ctx.Error(absl::StrCat("batch dimension ", d, " differs between params ",
                                    params.DebugType(), " and indices ", indices.DebugType()));
    }
  }
  Shape shape(params.shape().begin(), params.shape().begin() + axis);
  shape.insert(shape.end(), indices.shape().begin() + nb, indices.shape().end());
  shape.insert(shape.end(), params.shape().begin() + axis + 1, params.shape().end());
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, params.dtype(), shape));

  const int64_t limit = params.dim(axis);
  // Every index is checked, even when the output is empty, as TensorFlow does.
  for (int64_t k = 0; k < indices.num_elements(); ++k) {
    const int64_t index = indices.ElementAsInt64(k);
    if (index < 0 || index >= limit) {
      return ctx.Error(absl::StrCat(IndexName(indices.shape(), k), " = ", index,
                                    " is out of range [0, ", limit, ") of dimension ", axis,
                                    " of params ", params.DebugType()));
    }
  }
  if (out.num_elements() > 0) {
    const int64_t batch = Product(params.shape(), 0, nb);
    const int64_t outer = Product(params.shape(), nb, axis);
    const int64_t inner = Product(params.shape(), axis + 1, params.rank());
    const int64_t count = Product(indices.shape(), nb, indices.rank());
    const size_t row = static_cast<size_t>(inner) * SizeOf(params.dtype());
    const auto* src = static_cast<const unsigned char*>(params.raw_data());
    auto* dst = static_cast<unsigned char*>(out.mutable_raw_data());
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t n = 0; n < count; ++n) {
          const int64_t index = indices.ElementAsInt64(b * count + n);
          std::memcpy(dst, src + ((b * outer + o) * limit + index) * row, row);
          dst += row;
        }
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status GatherV2(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  DFC_ASSIGN_OR_RETURN(int64_t axis, ReadIndexScalar(ctx, 2, "axis"));
  DFC_ASSIGN_OR_RETURN(int64_t batch_dims, ctx.node().GetInt("batch_dims", 0));
  return GatherImpl(ctx, axis, batch_dims);
}

absl::Status Gather(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  return GatherImpl(ctx, 0, 0);
}

// The depth axis is inserted at `axis` (-1: last); an index outside [0, depth) selects no
// position, so its whole row is off_value.
absl::Status OneHot(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 4));
  DFC_RETURN_IF_ERROR(
      CheckDType(ctx, 0, {DType::kUInt8, DType::kInt8, DType::kInt32, DType::kInt64}));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 2));
  const Tensor& indices = ctx.input(0);
  const Tensor& on = ctx.input(2);
  const Tensor& off = ctx.input(3);
  DFC_ASSIGN_OR_RETURN(int64_t depth, ReadIndexScalar(ctx, 1, "depth"));
  if (depth < 0) return ctx.Error(absl::StrCat("depth must be non-negative, got ", depth));
  if (on.num_elements() != 1 || off.num_elements() != 1 || on.rank() > 0 || off.rank() > 0 ||
      on.dtype() != off.dtype()) {
    return ctx.Error(absl::StrCat("on_value and off_value must be scalars of one dtype, got ",
                                  on.DebugType(), " and ", off.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.node().GetInt("axis", -1));
  if (axis_attr < -1 || axis_attr > indices.rank()) {
    return ctx.Error(absl::StrCat("axis ", axis_attr, " is out of range for indices ",
                                  indices.DebugType(), " (expected -1 to ", indices.rank(), ")"));
  }
  const int axis = static_cast<int>(axis_attr == -1 ? indices.rank() : axis_attr);
  Shape shape = indices.shape();
  shape.insert(shape.begin() + axis, depth);
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, on.dtype(), shape));
  // Viewing indices as [outer, inner], the output is [outer, depth, inner].
  DispatchDType(on.dtype(), [&]<typename T>() {
    if (out.num_elements() == 0) return;
    const int64_t outer = Product(indices.shape(), 0, axis);
    const int64_t inner = Product(indices.shape(), axis, indices.rank());
    const T on_value = on.data<T>()[0];
    const T off_value = off.data<T>()[0];
    T* dst = out.template mutable_data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t d = 0; d < depth; ++d) {
        for (int64_t i = 0; i < inner; ++i) {
          *dst++ = indices.ElementAsInt64(o * inner + i) == d ? on_value : off_value;
        }
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status Fill(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 1));
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ReadIndexVector(ctx, 0, "dims"));
  const Tensor& value = ctx.input(1);
  if (ctx.input(0).rank() != 1) {
    return ctx.Error(absl::StrCat("dims must be a vector, got ", ctx.input(0).DebugType()));
  }
  if (value.rank() != 0) {
    return ctx.Error(absl::StrCat("value must be a scalar, got ", value.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, value.dtype(), dims));
  DispatchDType(value.dtype(), [&]<typename T>() {
    std::fill_n(out.template mutable_data<T>(), out.num_elements(), value.data<T>()[0]);
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status Range(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  DType dtype = ctx.input(0).dtype();
  if (ctx.node().HasAttr("Tidx")) {
    DFC_ASSIGN_OR_RETURN(DType tidx, ctx.node().GetType("Tidx"));
    dtype = tidx;
  }
  if (dtype != DType::kInt32 && dtype != DType::kInt64 && dtype != DType::kFloat &&
      dtype != DType::kDouble) {
    return ctx.Error(absl::StrCat("Range is defined for int32, int64, float32 and float64, got ",
                                  DTypeName(dtype)));
  }
  const char* names[3] = {"start", "limit", "delta"};
  for (int i = 0; i < 3; ++i) {
    const Tensor& t = ctx.input(i);
    if (t.dtype() != dtype || t.num_elements() != 1 || t.rank() > 1) {
      return ctx.Error(
          absl::StrCat(names[i], " must be a ", DTypeName(dtype), " scalar, got ", t.DebugType()));
    }
  }
  absl::Status status;
  DispatchDType(dtype, [&]<typename T>() {
    if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> ||
                  std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T start = ctx.input(0).data<T>()[0];
      const T limit = ctx.input(1).data<T>()[0];
      const T delta = ctx.input(2).data<T>()[0];
      absl::StatusOr<int64_t> size = RangeSize(start, limit, delta);
      if (!size.ok()) {
        status = ctx.node().Annotate(size.status());
        return;
      }
      absl::StatusOr<Tensor> out = AllocateOutput(ctx, dtype, {*size});
      if (!out.ok()) {
        status = out.status();
        return;
      }
      T* dst = out->template mutable_data<T>();
      if constexpr (std::is_integral_v<T>) {
        // start + i * delta lies between start and limit, but i * delta alone may not fit
        // int64: unsigned arithmetic wraps back to the right value.
        for (int64_t i = 0; i < *size; ++i) {
          const uint64_t value =
              static_cast<uint64_t>(static_cast<int64_t>(start)) +
              static_cast<uint64_t>(i) * static_cast<uint64_t>(static_cast<int64_t>(delta));
          dst[i] = static_cast<T>(static_cast<int64_t>(value));
        }
      } else {
        // TensorFlow's CPU kernel accumulates (val += delta), so float ranges carry its
        // rounding; start + i * delta would differ in the last bits.
        T value = start;
        for (int64_t i = 0; i < *size; ++i) {
          dst[i] = value;
          value += delta;
        }
      }
      ctx.set_output(0, *std::move(out));
    }
  });
  return status;
}

}  // namespace

void RegisterGatherKernels(KernelRegistry& registry) {
  registry.Register("GatherV2", GatherV2);
  registry.Register("Gather", Gather);
  registry.Register("OneHot", OneHot);
  registry.Register("Fill", Fill);
  registry.Register("Range", Range);
}

}  // namespace dfc::reference
