// Reference kernel for Dilation2D, greyscale morphological dilation, following TensorFlow's CPU
// kernel. Registered by RegisterImageKernels (image.cc).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status.h"
#include "graph/attr.h"
#include "graph/dtype.h"
#include "graph/dtype_class.h"
#include "runtime/reference/elementwise_util.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {
namespace {

// Reads a 4-entry list attribute whose batch and depth entries must be 1.
absl::StatusOr<std::vector<int64_t>> ReadSpatialList(const KernelContext& ctx,
                                                     absl::string_view name) {
  DFC_ASSIGN_OR_RETURN(AttrList list, ctx.node().GetList(name));
  if (list.i.size() != 4 || list.i[0] != 1 || list.i[3] != 1 || list.i[1] < 1 || list.i[2] < 1) {
    return ctx.Error(absl::StrCat(name,
                                  " must be 4 positive entries [1, rows, cols, 1] (only the "
                                  "spatial dimensions may differ from 1)"));
  }
  return list.i;
}

// Dilation2D(input [batch, rows, cols, depth], filter [filter_rows, filter_cols, depth]):
// greyscale morphological dilation, out(b, y, x, d) = max over the window of
// input(b, y * stride + dy * rate - pad_top, x * stride + dx * rate - pad_left, d) +
// filter(dy, dx, d), positions outside the input skipped; SAME or VALID padding over the
// dilated filter, as a convolution's.
absl::Status Dilation2D(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kNumbers));
  const Tensor& input = ctx.input(0);
  const Tensor& filter = ctx.input(1);
  if (filter.dtype() != input.dtype()) {
    return ctx.Error(absl::StrCat("filter must have the input's dtype (", input.DebugType(),
                                  "), got ", filter.DebugType()));
  }
  if (input.rank() != 4) {
    return ctx.Error(
        absl::StrCat("input must be [batch, rows, cols, depth], got ", input.DebugType()));
  }
  if (filter.rank() != 3 || filter.dim(2) != input.dim(3)) {
    return ctx.Error(absl::StrCat("filter must be [filter_rows, filter_cols, ", input.dim(3),
                                  "], got ", filter.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ReadSpatialList(ctx, "strides"));
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> rates, ReadSpatialList(ctx, "rates"));
  DFC_ASSIGN_OR_RETURN(std::string padding, ctx.node().GetString("padding"));
  if (padding != "SAME" && padding != "VALID") {
    return ctx.Error(absl::StrCat("padding must be SAME or VALID, got ", padding));
  }
  const int64_t batch = input.dim(0), depth = input.dim(3);
  int64_t out_size[2], pad[2];
  for (int k = 0; k < 2; ++k) {
    const int64_t in = input.dim(1 + k), f = filter.dim(k), stride = strides[1 + k];
    // The dilated filter: f + (f - 1) * (rate - 1) rows or columns.
    int64_t effective = 0;
    if (f == 0 || __builtin_mul_overflow(f - 1, rates[1 + k] - 1, &effective) ||
        __builtin_add_overflow(effective, f, &effective)) {
      return ctx.Error(
          absl::StrCat("the filter must be non-empty and its dilated size must fit "
                       "int64, got filter ",
                       filter.DebugType(), " and rates [", rates[1], ", ", rates[2], "]"));
    }
    // TensorFlow's GetWindowedOutputSize, arranged so that nothing overflows.
    if (padding == "VALID") {
      if (in < effective) {
        return ctx.Error(absl::StrCat("the dilated filter (", effective,
                                      ") is larger than the input (", in, ") with VALID padding"));
      }
      out_size[k] = (in - effective) / stride + 1;
      pad[k] = 0;
    } else {
      out_size[k] = in == 0 ? 0 : (in - 1) / stride + 1;
      const __int128 needed =
          static_cast<__int128>(out_size[k] - 1) * stride + effective - static_cast<__int128>(in);
      pad[k] = needed > 0 ? static_cast<int64_t>(needed / 2) : 0;
    }
  }
  DFC_ASSIGN_OR_RETURN(
      Tensor out, AllocateOutput(ctx, input.dtype(), {batch, out_size[0], out_size[1], depth}));
  const int64_t rows = input.dim(1), cols = input.dim(2);
  const int64_t f_rows = filter.dim(0), f_cols = filter.dim(1);
  DispatchDType(input.dtype(), [&]<typename T>() {
    if constexpr (!kIsBool<T>) {
      using C = ComputeType<T>;
      const T* x = input.data<T>();
      const T* w = filter.data<T>();
      T* y = out.mutable_data<T>();
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t oy = 0; oy < out_size[0]; ++oy) {
          for (int64_t ox = 0; ox < out_size[1]; ++ox) {
            for (int64_t d = 0; d < depth; ++d) {
              C best = std::numeric_limits<C>::lowest();
              for (int64_t fy = 0; fy < f_rows; ++fy) {
                const int64_t iy = oy * strides[1] + fy * rates[1] - pad[0];
                if (iy < 0 || iy >= rows) continue;
                for (int64_t fx = 0; fx < f_cols; ++fx) {
                  const int64_t ix = ox * strides[2] + fx * rates[2] - pad[1];
                  if (ix < 0 || ix >= cols) continue;
                  const C v = static_cast<C>(Up(x[((b * rows + iy) * cols + ix) * depth + d]) +
                                             Up(w[(fy * f_cols + fx) * depth + d]));
                  best = std::max(best, v);
                }
              }
              y[((b * out_size[0] + oy) * out_size[1] + ox) * depth + d] = Down<T>(best);
            }
          }
        }
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterDilationKernels(KernelRegistry& registry) {
  registry.Register("Dilation2D", Dilation2D);
}

}  // namespace dfc::reference
