// Reference kernels: moving blocks of space into the batch or the depth dimension and back
// (SpaceToBatchND BatchToSpaceND SpaceToBatch BatchToSpace DepthToSpace SpaceToDepth).
//
// These only move elements, so they copy bytes. The orderings are TensorFlow's: in
// SpaceToBatchND's output batch the block offset (row-major over block_shape) is the outer
// part and the input batch the inner, and DepthToSpace's output pixel (y, x) of a block reads
// input channel ((y % b) * b + x % b) * output_depth + d.
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "graph/dtype_class.h"
#include "runtime/reference/elementwise_util.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {
namespace {

// --- SpaceToBatchND / BatchToSpaceND --------------------------------------------------------

// The block geometry of one SpaceToBatchND or BatchToSpaceND: M block dimensions after the
// batch, each with a block size and the amount padded (or cropped) before and after.
struct BlockGeometry {
  std::vector<int64_t> block;
  std::vector<int64_t> before;
  std::vector<int64_t> after;
  int64_t block_count = 1;  // the product of `block`
};

// Reads block_shape (a vector of M) and the [M, 2] paddings or crops, as TensorFlow checks
// them. `block_input` is -1 for the v1 ops, whose block is `block_size` in both dimensions.
absl::StatusOr<BlockGeometry> ReadBlockGeometry(const KernelContext& ctx, int block_input,
                                                int64_t block_size, int amounts_input,
                                                const char* amounts_name) {
  BlockGeometry g;
  if (block_input >= 0) {
    const Tensor& block = ctx.input(block_input);
    if (block.rank() != 1) {
      return ctx.Error(absl::StrCat("block_shape must be a vector, got ", block.DebugType()));
    }
    DFC_ASSIGN_OR_RETURN(std::vector<int64_t> values,
                         ReadIndexVector(ctx, block_input, "block_shape"));
    g.block = std::move(values);
  } else {
    g.block = {block_size, block_size};
  }
  const int m = static_cast<int>(g.block.size());
  const Tensor& input = ctx.input(0);
  if (input.rank() < 1 + m) {
    return ctx.Error(absl::StrCat("input must have rank >= ", 1 + m, " (a batch dimension and ", m,
                                  " block dimensions), got ", input.DebugType()));
  }
  const Tensor& amounts = ctx.input(amounts_input);
  if ((amounts.dtype() != DType::kInt32 && amounts.dtype() != DType::kInt64) ||
      amounts.shape() != Shape{m, 2}) {
    return ctx.Error(absl::StrCat(amounts_name, " must be an int32 or int64 matrix [", m,
                                  ", 2], got ", amounts.DebugType()));
  }
  for (int i = 0; i < m; ++i) {
    if (g.block[i] < 1) {
      return ctx.Error(
          absl::StrCat("block_shape must be positive, got [", absl::StrJoin(g.block, ","), "]"));
    }
    if (__builtin_mul_overflow(g.block_count, g.block[i], &g.block_count)) {
      return ctx.Error(absl::StrCat("the product of block_shape [", absl::StrJoin(g.block, ","),
                                    "] overflows int64"));
    }
    g.before.push_back(amounts.ElementAsInt64(2 * i));
    g.after.push_back(amounts.ElementAsInt64(2 * i + 1));
    if (g.before[i] < 0 || g.after[i] < 0) {
      return ctx.Error(
          absl::StrCat(amounts_name, " must be non-negative, got ", amounts.Preview()));
    }
  }
  return g;
}

// Copies between a "space" tensor [batch, s_1..s_M, rest...] and a "batch" tensor
// [block_count * batch, t_1..t_M, rest...], where batch-tensor element
// (k * batch + n, t_1..t_M, r) is space-tensor element (n, t_i * block_i + k_i - before_i, r)
// with k row-major over the block. Space positions outside the space tensor are padding:
// zeros when filling the batch tensor, skipped when filling the space tensor.
void MoveBlocks(const BlockGeometry& g, const Shape& space_shape, const Shape& batch_shape,
                bool to_batch, const Tensor& from, Tensor& to) {
  const int m = static_cast<int>(g.block.size());
  const int64_t batch = space_shape[0];
  int64_t depth = 1;
  for (size_t d = 1 + m; d < space_shape.size(); ++d) depth *= space_shape[d];
  const size_t row_bytes = static_cast<size_t>(depth) * SizeOf(from.dtype());
  const std::vector<int64_t> space_strides = Strides(space_shape);
  int64_t rows = batch_shape[0];
  for (int i = 0; i < m; ++i) rows *= batch_shape[1 + i];
  const auto* src = static_cast<const unsigned char*>(from.raw_data());
  auto* dst = static_cast<unsigned char*>(to.mutable_raw_data());
  const size_t element = SizeOf(from.dtype());
  for (int64_t row = 0; row < rows; ++row) {
    // row enumerates (batch index, t_1..t_M) of the batch tensor, t_M fastest.
    int64_t rest = row;
    std::vector<int64_t> t(m);
    for (int i = m - 1; i >= 0; --i) {
      t[i] = rest % batch_shape[1 + i];
      rest /= batch_shape[1 + i];
    }
    const int64_t batch_index = rest;
    int64_t k = batch_index / batch;
    const int64_t n = batch_index % batch;
    int64_t space_offset = n * space_strides[0];
    bool inside = true;
    for (int i = m - 1; i >= 0; --i) {
      const int64_t k_i = k % g.block[i];
      k /= g.block[i];
      const int64_t s = t[i] * g.block[i] + k_i - g.before[i];
      if (s < 0 || s >= space_shape[1 + i]) inside = false;
      space_offset += s * space_strides[1 + i];
    }
    const int64_t batch_offset = row * depth;
    if (to_batch) {
      // The output was allocated zeroed, so padding needs no writing.
      if (inside)
        std::memcpy(dst + batch_offset * element, src + space_offset * element, row_bytes);
    } else if (inside) {
      std::memcpy(dst + space_offset * element, src + batch_offset * element, row_bytes);
    }
  }
}

// SpaceToBatchND(input, block_shape, paddings), or SpaceToBatch(input, paddings) with the
// block_size attribute when `v1`.
template <bool v1>
absl::Status SpaceToBatch(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, v1 ? 2 : 3));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kNumbers));
  const Tensor& input = ctx.input(0);
  int64_t block_size = 0;
  if constexpr (v1) {
    DFC_ASSIGN_OR_RETURN(int64_t attr, ctx.node().GetInt("block_size"));
    block_size = attr;
    if (block_size < 2) return ctx.Error(absl::StrCat("block_size must be > 1, got ", block_size));
    if (input.rank() != 4) {
      return ctx.Error(absl::StrCat("input must have rank 4, got ", input.DebugType()));
    }
  }
  DFC_ASSIGN_OR_RETURN(BlockGeometry g,
                       ReadBlockGeometry(ctx, v1 ? -1 : 1, block_size, v1 ? 1 : 2, "paddings"));
  Shape out_shape = input.shape();
  if (__builtin_mul_overflow(input.dim(0), g.block_count, &out_shape[0])) {
    return ctx.Error(
        absl::StrCat("output batch ", input.dim(0), " * ", g.block_count, " overflows int64"));
  }
  for (size_t i = 0; i < g.block.size(); ++i) {
    int64_t padded = 0;
    if (__builtin_add_overflow(input.dim(1 + i), g.before[i], &padded) ||
        __builtin_add_overflow(padded, g.after[i], &padded)) {
      return ctx.Error(absl::StrCat("padded size of dimension ", 1 + i, " overflows int64"));
    }
    if (padded % g.block[i] != 0) {
      return ctx.Error(absl::StrCat("padded size of dimension ", 1 + i, " (", input.dim(1 + i),
                                    " + ", g.before[i], " + ", g.after[i], " = ", padded,
                                    ") is not divisible by its block size ", g.block[i]));
    }
    out_shape[1 + i] = padded / g.block[i];
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, input.dtype(), out_shape));
  if (out.num_elements() > 0) {
    MoveBlocks(g, input.shape(), out_shape, /*to_batch=*/true, input, out);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// BatchToSpaceND(input, block_shape, crops), or BatchToSpace(input, crops) with the block_size
// attribute when `v1`.
template <bool v1>
absl::Status BatchToSpace(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, v1 ? 2 : 3));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kNumbers));
  const Tensor& input = ctx.input(0);
  int64_t block_size = 0;
  if constexpr (v1) {
    DFC_ASSIGN_OR_RETURN(int64_t attr, ctx.node().GetInt("block_size"));
    block_size = attr;
    if (block_size < 2) return ctx.Error(absl::StrCat("block_size must be > 1, got ", block_size));
    if (input.rank() != 4) {
      return ctx.Error(absl::StrCat("input must have rank 4, got ", input.DebugType()));
    }
  }
  DFC_ASSIGN_OR_RETURN(BlockGeometry g,
                       ReadBlockGeometry(ctx, v1 ? -1 : 1, block_size, v1 ? 1 : 2, "crops"));
  if (input.dim(0) % g.block_count != 0) {
    return ctx.Error(absl::StrCat("input batch ", input.dim(0),
                                  " is not divisible by the product of the block sizes ",
                                  g.block_count));
  }
  Shape out_shape = input.shape();
  out_shape[0] = input.dim(0) / g.block_count;
  for (size_t i = 0; i < g.block.size(); ++i) {
    int64_t uncropped = 0;
    if (__builtin_mul_overflow(input.dim(1 + i), g.block[i], &uncropped)) {
      return ctx.Error(absl::StrCat("size of dimension ", 1 + i, " times its block size ",
                                    g.block[i], " overflows int64"));
    }
    // Both crops are non-negative, so this cannot overflow.
    const int64_t cropped = uncropped - g.before[i] - g.after[i];
    if (cropped < 0) {
      return ctx.Error(absl::StrCat("crops of dimension ", 1 + i, " (", g.before[i], " + ",
                                    g.after[i], ") exceed its size ", input.dim(1 + i), " * ",
                                    g.block[i]));
    }
    out_shape[1 + i] = cropped;
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, input.dtype(), out_shape));
  if (input.num_elements() > 0) {
    MoveBlocks(g, out_shape, input.shape(), /*to_batch=*/false, input, out);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- DepthToSpace / SpaceToDepth ------------------------------------------------------------

// Where the batch, height, width and channel dimensions of a rank-4 image are.
struct ImageLayout {
  int n = 0, h = 1, w = 2, c = 3;
};

absl::StatusOr<ImageLayout> ReadLayout(const KernelContext& ctx) {
  // Read in place, not moved out: GCC 12 calls a moved-out string maybe-uninitialized here.
  const absl::StatusOr<std::string> format = ctx.node().GetString("data_format", "NHWC");
  DFC_RETURN_IF_ERROR(format.status());
  if (*format == "NHWC") return ImageLayout{0, 1, 2, 3};
  if (*format == "NCHW") return ImageLayout{0, 2, 3, 1};
  return ctx.Error(
      absl::StrCat("data_format \"", *format, "\" is not supported (expected NHWC or NCHW)"));
}

// DepthToSpace when `to_space`, else SpaceToDepth. In NHWC terms, with b the block size and
// D the depth of the deep side: deep[n, y, x, (i * b + j) * D + d] = shallow[n, y * b + i,
// x * b + j, d].
template <bool to_space>
absl::Status DepthSpace(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kAll));
  DFC_ASSIGN_OR_RETURN(int64_t block_attr, ctx.node().GetInt("block_size"));
  const int64_t b = block_attr;
  // TensorFlow's block_size is an int32; keeping to it also keeps b * b and the scaled sides
  // from overflowing.
  if (b < 2 || b > std::numeric_limits<int32_t>::max()) {
    return ctx.Error(absl::StrCat("block_size must be > 1 and fit int32, got ", b));
  }
  DFC_ASSIGN_OR_RETURN(ImageLayout layout, ReadLayout(ctx));
  const Tensor& input = ctx.input(0);
  if (input.rank() != 4) {
    return ctx.Error(absl::StrCat("input must have rank 4, got ", input.DebugType()));
  }
  Shape out_shape = input.shape();
  if constexpr (to_space) {
    if (input.dim(layout.c) % (b * b) != 0) {
      return ctx.Error(absl::StrCat("input depth ", input.dim(layout.c),
                                    " is not divisible by block_size^2 = ", b * b));
    }
    if (__builtin_mul_overflow(out_shape[layout.h], b, &out_shape[layout.h]) ||
        __builtin_mul_overflow(out_shape[layout.w], b, &out_shape[layout.w])) {
      return ctx.Error(absl::StrCat("output height or width overflows int64 for ",
                                    input.DebugType(), " and block_size ", b));
    }
    out_shape[layout.c] /= b * b;
  } else {
    if (input.dim(layout.h) % b != 0 || input.dim(layout.w) % b != 0) {
      return ctx.Error(absl::StrCat("input height ", input.dim(layout.h), " and width ",
                                    input.dim(layout.w), " must be divisible by block_size ", b));
    }
    out_shape[layout.h] /= b;
    out_shape[layout.w] /= b;
    if (__builtin_mul_overflow(out_shape[layout.c], b * b, &out_shape[layout.c])) {
      return ctx.Error(absl::StrCat("output depth overflows int64 for ", input.DebugType(),
                                    " and block_size ", b));
    }
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, input.dtype(), out_shape));
  const Shape& deep_shape = to_space ? input.shape() : out_shape;
  const Shape& shallow_shape = to_space ? out_shape : input.shape();
  const std::vector<int64_t> deep_strides = Strides(deep_shape);
  const std::vector<int64_t> shallow_strides = Strides(shallow_shape);
  const int64_t depth = shallow_shape[layout.c];
  const size_t element = SizeOf(input.dtype());
  const auto* src = static_cast<const unsigned char*>(input.raw_data());
  auto* dst = static_cast<unsigned char*>(out.mutable_raw_data());
  const ImageLayout& l = layout;
  for (int64_t n = 0; n < shallow_shape[l.n]; ++n) {
    for (int64_t y = 0; y < shallow_shape[l.h]; ++y) {
      for (int64_t x = 0; x < shallow_shape[l.w]; ++x) {
        for (int64_t d = 0; d < depth; ++d) {
          const int64_t shallow = n * shallow_strides[l.n] + y * shallow_strides[l.h] +
                                  x * shallow_strides[l.w] + d * shallow_strides[l.c];
          const int64_t deep_channel = ((y % b) * b + x % b) * depth + d;
          const int64_t deep = n * deep_strides[l.n] + (y / b) * deep_strides[l.h] +
                               (x / b) * deep_strides[l.w] + deep_channel * deep_strides[l.c];
          if constexpr (to_space) {
            std::memcpy(dst + shallow * element, src + deep * element, element);
          } else {
            std::memcpy(dst + deep * element, src + shallow * element, element);
          }
        }
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterSpaceBatchKernels(KernelRegistry& registry) {
  registry.Register("SpaceToBatchND", SpaceToBatch<false>);
  registry.Register("SpaceToBatch", SpaceToBatch<true>);
  registry.Register("BatchToSpaceND", BatchToSpace<false>);
  registry.Register("BatchToSpace", BatchToSpace<true>);
  registry.Register("DepthToSpace", DepthSpace<true>);
  registry.Register("SpaceToDepth", DepthSpace<false>);
}

}  // namespace dfc::reference
