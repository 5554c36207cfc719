// Reference kernels: image resizing (ResizeBilinear ResizeNearestNeighbor ResizeBicubic
// ResizeArea) on NHWC images [batch, height, width, channels] with an int32 size [2] input.
//
// Which source pixels an output pixel reads, and with what weights, is computed in float
// exactly as TensorFlow's CPU kernels compute it (image_resizer_state.h, resize_*_op.cc):
// the scale, the mapped coordinate and its floor decide indices, and a different rounding
// there would pick a different pixel. Only the weighted sum itself is done in double and
// rounded once. Bilinear, bicubic and area output float32 whatever the input dtype;
// nearest neighbour copies elements and keeps the input dtype.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/dtype_class.h"
#include "runtime/reference/elementwise_util.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {
namespace {

// The shapes and scales of one resize, checked as TensorFlow's ImageResizerState checks them.
struct ResizeGeometry {
  int64_t batch = 0;
  int64_t in_height = 0;
  int64_t in_width = 0;
  int64_t channels = 0;
  int64_t out_height = 0;
  int64_t out_width = 0;
  float height_scale = 0;
  float width_scale = 0;
  bool align_corners = false;
  bool half_pixel_centers = false;
};

// in/out, or (in-1)/(out-1) with align_corners when there is more than one output pixel.
float ResizeScale(int64_t in_size, int64_t out_size, bool align_corners) {
  return align_corners && out_size > 1
             ? static_cast<float>(in_size - 1) / static_cast<float>(out_size - 1)
             : static_cast<float>(in_size) / static_cast<float>(out_size);
}

// Where output pixel x samples the input, in input pixel coordinates.
float LegacyCoordinate(int64_t x, float scale) { return static_cast<float>(x) * scale; }
float HalfPixelCoordinate(int64_t x, float scale) {
  return (static_cast<float>(x) + 0.5f) * scale - 0.5f;
}

absl::StatusOr<ResizeGeometry> ReadGeometry(const KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kNumbers));
  ResizeGeometry g;
  absl::StatusOr<bool> align_corners = ctx.node().GetBool("align_corners", false);
  DFC_RETURN_IF_ERROR(align_corners.status());
  g.align_corners = *align_corners;
  // ResizeArea has no half_pixel_centers attribute; it always centres pixels correctly.
  if (ctx.node().op != "ResizeArea") {
    DFC_ASSIGN_OR_RETURN(bool half_pixel, ctx.node().GetBool("half_pixel_centers", false));
    g.half_pixel_centers = half_pixel;
  }
  if (g.align_corners && g.half_pixel_centers) {
    return ctx.Error("if half_pixel_centers is true, align_corners must be false");
  }
  const Tensor& images = ctx.input(0);
  if (images.rank() != 4) {
    return ctx.Error(absl::StrCat("images must have rank 4 [batch, height, width, channels], got ",
                                  images.DebugType()));
  }
  g.batch = images.dim(0);
  g.in_height = images.dim(1);
  g.in_width = images.dim(2);
  g.channels = images.dim(3);
  if (g.channels <= 0) {
    return ctx.Error(
        absl::StrCat("images must have at least one channel, got ", images.DebugType()));
  }
  if (g.in_height <= 0 || g.in_width <= 0) {
    return ctx.Error(
        absl::StrCat("images must have a non-zero height and width, got ", images.DebugType()));
  }
  constexpr int64_t kMaxSide = std::numeric_limits<int32_t>::max();
  if (g.in_height >= kMaxSide || g.in_width >= kMaxSide) {
    return ctx.Error(
        absl::StrCat("image height and width must be below 2^31-1, got ", images.DebugType()));
  }
  const Tensor& size = ctx.input(1);
  if (size.dtype() != DType::kInt32 || size.shape() != Shape{2}) {
    return ctx.Error(absl::StrCat("size must be an int32 vector [2] (new_height, new_width), got ",
                                  size.DebugType()));
  }
  g.out_height = size.data<int32_t>()[0];
  g.out_width = size.data<int32_t>()[1];
  if (g.out_height <= 0 || g.out_width <= 0) {
    return ctx.Error(
        absl::StrCat("size must be positive, got [", g.out_height, ",", g.out_width, "]"));
  }
  g.height_scale = ResizeScale(g.in_height, g.out_height, g.align_corners);
  g.width_scale = ResizeScale(g.in_width, g.out_width, g.align_corners);
  return g;
}

Shape OutputShape(const ResizeGeometry& g) {
  return {g.batch, g.out_height, g.out_width, g.channels};
}

// The input as TensorFlow's kernels read it: each element converted to float (exact for
// float16 and for integers up to 2^24), held as double for the sums.
std::vector<double> InputAsFloat(const Tensor& images) {
  std::vector<double> values(images.num_elements());
  DispatchDType(images.dtype(), [&]<typename T>() {
    if constexpr (!kIsBool<T>) {
      const T* in = images.data<T>();
      for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(in[i]);
    }
  });
  return values;
}

// The element offsets of the first channel of an input and of an output pixel.
struct PixelOffsets {
  const ResizeGeometry& g;
  int64_t In(int64_t b, int64_t y, int64_t x) const {
    return ((b * g.in_height + y) * g.in_width + x) * g.channels;
  }
  int64_t Out(int64_t b, int64_t y, int64_t x) const {
    return ((b * g.out_height + y) * g.out_width + x) * g.channels;
  }
};

// --- bilinear -------------------------------------------------------------------------------

// The two source indices of one output coordinate and the weight of the upper one.
struct LinearTap {
  int64_t lower = 0;
  int64_t upper = 0;
  float lerp = 0;
};

std::vector<LinearTap> LinearTaps(int64_t out_size, int64_t in_size, float scale,
                                  bool half_pixel_centers) {
  std::vector<LinearTap> taps(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    const float in =
        half_pixel_centers ? HalfPixelCoordinate(i, scale) : LegacyCoordinate(i, scale);
    const float in_floor = std::floor(in);
    taps[i].lower = std::max(static_cast<int64_t>(in_floor), int64_t{0});
    taps[i].upper = std::min(static_cast<int64_t>(std::ceil(in)), in_size - 1);
    taps[i].lerp = in - in_floor;
  }
  return taps;
}

absl::Status ResizeBilinear(KernelContext& ctx) {
  DFC_ASSIGN_OR_RETURN(ResizeGeometry g, ReadGeometry(ctx));
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, DType::kFloat, OutputShape(g)));
  const std::vector<LinearTap> ys =
      LinearTaps(g.out_height, g.in_height, g.height_scale, g.half_pixel_centers);
  const std::vector<LinearTap> xs =
      LinearTaps(g.out_width, g.in_width, g.width_scale, g.half_pixel_centers);
  const std::vector<double> in = InputAsFloat(ctx.input(0));
  const PixelOffsets at{g};
  float* o = out.mutable_data<float>();
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t y = 0; y < g.out_height; ++y) {
      const double y_lerp = ys[y].lerp;
      for (int64_t x = 0; x < g.out_width; ++x) {
        const double x_lerp = xs[x].lerp;
        const int64_t top_left = at.In(b, ys[y].lower, xs[x].lower);
        const int64_t top_right = at.In(b, ys[y].lower, xs[x].upper);
        const int64_t bottom_left = at.In(b, ys[y].upper, xs[x].lower);
        const int64_t bottom_right = at.In(b, ys[y].upper, xs[x].upper);
        for (int64_t c = 0; c < g.channels; ++c) {
          const double top = in[top_left + c] + (in[top_right + c] - in[top_left + c]) * x_lerp;
          const double bottom =
              in[bottom_left + c] + (in[bottom_right + c] - in[bottom_left + c]) * x_lerp;
          o[at.Out(b, y, x) + c] = static_cast<float>(top + (bottom - top) * y_lerp);
        }
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- nearest neighbour ----------------------------------------------------------------------

// The source index of each output coordinate: round with align_corners, else floor; with
// half_pixel_centers floor((x + 0.5) * scale), clamped to the image.
std::vector<int64_t> NearestIndices(int64_t out_size, int64_t in_size, float scale,
                                    bool align_corners, bool half_pixel_centers) {
  std::vector<int64_t> indices(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    const float in =
        half_pixel_centers ? (static_cast<float>(i) + 0.5f) * scale : LegacyCoordinate(i, scale);
    int64_t index = static_cast<int64_t>(align_corners ? std::round(in) : std::floor(in));
    index = std::min(index, in_size - 1);
    if (half_pixel_centers) index = std::max(index, int64_t{0});
    indices[i] = index;
  }
  return indices;
}

absl::Status ResizeNearestNeighbor(KernelContext& ctx) {
  DFC_ASSIGN_OR_RETURN(ResizeGeometry g, ReadGeometry(ctx));
  if (g.in_height >= (int64_t{1} << 24) || g.in_width >= (int64_t{1} << 24)) {
    return ctx.Error("nearest neighbour resizing needs an image height and width below 2^24");
  }
  const Tensor& images = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, images.dtype(), OutputShape(g)));
  const std::vector<int64_t> ys = NearestIndices(g.out_height, g.in_height, g.height_scale,
                                                 g.align_corners, g.half_pixel_centers);
  const std::vector<int64_t> xs =
      NearestIndices(g.out_width, g.in_width, g.width_scale, g.align_corners, g.half_pixel_centers);
  const size_t pixel_bytes = static_cast<size_t>(g.channels) * SizeOf(images.dtype());
  const auto* src = static_cast<const unsigned char*>(images.raw_data());
  auto* dst = static_cast<unsigned char*>(out.mutable_raw_data());
  const PixelOffsets at{g};
  const size_t element = SizeOf(images.dtype());
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t y = 0; y < g.out_height; ++y) {
      for (int64_t x = 0; x < g.out_width; ++x) {
        std::memcpy(dst + at.Out(b, y, x) * element, src + at.In(b, ys[y], xs[x]) * element,
                    pixel_bytes);
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- bicubic --------------------------------------------------------------------------------

// TensorFlow samples the cubic kernel at 1024 steps of the fractional offset and rounds the
// offset to the nearest step, so the weights are those of this table, not of the exact
// kernel. Entry 2i is the kernel at i/1024 and entry 2i+1 at 1 + i/1024, in float.
constexpr int64_t kCubicTableSize = 1024;

std::vector<float> CubicTable(double a) {
  std::vector<float> table((kCubicTableSize + 1) * 2);
  for (int64_t i = 0; i <= kCubicTableSize; ++i) {
    float x = static_cast<float>(static_cast<double>(i) * 1.0 / kCubicTableSize);
    table[i * 2] = static_cast<float>(((a + 2) * x - (a + 3)) * x * x + 1);
    x = static_cast<float>(x + 1.0);
    table[i * 2 + 1] = static_cast<float>(((a * x - 5 * a) * x + 8 * a) * x - 4 * a);
  }
  return table;
}

// Keys' cubic kernel: a = -0.5 with half_pixel_centers, else TensorFlow's legacy -0.75.
const std::vector<float>& CubicTableFor(bool half_pixel_centers) {
  static const std::vector<float>* const keys = new std::vector<float>(CubicTable(-0.5));
  static const std::vector<float>* const legacy = new std::vector<float>(CubicTable(-0.75));
  return half_pixel_centers ? *keys : *legacy;
}

// The four source indices of one output coordinate and their weights.
struct CubicTaps {
  std::array<int64_t, 4> index{};
  std::array<float, 4> weight{};
};

int64_t Clamp(int64_t value, int64_t limit) {
  return std::min(limit - 1, std::max(int64_t{0}, value));
}

std::vector<CubicTaps> CubicTapsFor(int64_t out_size, int64_t in_size, float scale,
                                    bool half_pixel_centers) {
  const std::vector<float>& table = CubicTableFor(half_pixel_centers);
  std::vector<CubicTaps> taps(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    const float in =
        half_pixel_centers ? HalfPixelCoordinate(i, scale) : LegacyCoordinate(i, scale);
    const int64_t in_floor = static_cast<int64_t>(std::floor(in));
    const float delta = in - static_cast<float>(in_floor);
    const int64_t offset = std::lrint(delta * static_cast<float>(kCubicTableSize));
    const std::array<float, 4> kernel = {table[offset * 2 + 1], table[offset * 2],
                                         table[(kCubicTableSize - offset) * 2],
                                         table[(kCubicTableSize - offset) * 2 + 1]};
    CubicTaps& t = taps[i];
    for (int k = 0; k < 4; ++k) {
      const int64_t source = in_floor - 1 + k;
      t.index[k] = Clamp(source, in_size);
      // Keys' variant drops taps outside the image (and renormalises below); the legacy one
      // repeats the edge pixel in their place.
      t.weight[k] = !half_pixel_centers || t.index[k] == source ? kernel[k] : 0.0f;
    }
    if (half_pixel_centers) {
      const float sum = t.weight[0] + t.weight[1] + t.weight[2] + t.weight[3];
      if (std::abs(sum) >= 1000.0f * std::numeric_limits<float>::min()) {
        const float inverse = 1.0f / sum;
        for (float& w : t.weight) w *= inverse;
      }
    }
  }
  return taps;
}

absl::Status ResizeBicubic(KernelContext& ctx) {
  DFC_ASSIGN_OR_RETURN(ResizeGeometry g, ReadGeometry(ctx));
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, DType::kFloat, OutputShape(g)));
  const std::vector<CubicTaps> ys =
      CubicTapsFor(g.out_height, g.in_height, g.height_scale, g.half_pixel_centers);
  const std::vector<CubicTaps> xs =
      CubicTapsFor(g.out_width, g.in_width, g.width_scale, g.half_pixel_centers);
  const std::vector<double> in = InputAsFloat(ctx.input(0));
  const PixelOffsets at{g};
  float* o = out.mutable_data<float>();
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t y = 0; y < g.out_height; ++y) {
      for (int64_t x = 0; x < g.out_width; ++x) {
        for (int64_t c = 0; c < g.channels; ++c) {
          double sum = 0;
          for (int i = 0; i < 4; ++i) {
            for (int j = 0; j < 4; ++j) {
              sum += static_cast<double>(ys[y].weight[i]) * xs[x].weight[j] *
                     in[at.In(b, ys[y].index[i], xs[x].index[j]) + c];
            }
          }
          o[at.Out(b, y, x) + c] = static_cast<float>(sum);
        }
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- area -----------------------------------------------------------------------------------

// The source indices an output pixel's box [in, in1) covers and the fraction of each that
// lies inside it (for an input pixel wholly inside, 1). Indices past the image (align_corners
// boxes can overhang it) read the edge pixel.
struct AreaTaps {
  std::vector<int64_t> index;
  std::vector<float> weight;
};

std::vector<AreaTaps> AreaTapsFor(int64_t out_size, int64_t in_size, float scale) {
  std::vector<AreaTaps> taps(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    const float in = static_cast<float>(i) * scale;
    const float in1 = static_cast<float>(i + 1) * scale;
    const int64_t start = static_cast<int64_t>(std::floor(in));
    const int64_t end = static_cast<int64_t>(std::ceil(in1));
    for (int64_t v = start; v < end; ++v) {
      const float vf = static_cast<float>(v);
      const float next = static_cast<float>(v + 1);
      float weight;
      if (vf < in) {
        weight = next > in1 ? scale : next - in;
      } else {
        weight = next > in1 ? in1 - vf : 1.0f;
      }
      taps[i].index.push_back(Clamp(v, in_size));
      taps[i].weight.push_back(weight);
    }
  }
  return taps;
}

absl::Status ResizeArea(KernelContext& ctx) {
  DFC_ASSIGN_OR_RETURN(ResizeGeometry g, ReadGeometry(ctx));
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, DType::kFloat, OutputShape(g)));
  const std::vector<AreaTaps> ys = AreaTapsFor(g.out_height, g.in_height, g.height_scale);
  const std::vector<AreaTaps> xs = AreaTapsFor(g.out_width, g.in_width, g.width_scale);
  // The box's area in input pixels, inverted once in float as TensorFlow does.
  const float inverse_area =
      static_cast<float>(1.0 / static_cast<double>(g.height_scale * g.width_scale));
  const std::vector<double> in = InputAsFloat(ctx.input(0));
  const PixelOffsets at{g};
  float* o = out.mutable_data<float>();
  for (int64_t b = 0; b < g.batch; ++b) {
    for (int64_t y = 0; y < g.out_height; ++y) {
      const AreaTaps& ty = ys[y];
      for (int64_t x = 0; x < g.out_width; ++x) {
        const AreaTaps& tx = xs[x];
        for (int64_t c = 0; c < g.channels; ++c) {
          double sum = 0;
          for (size_t i = 0; i < ty.index.size(); ++i) {
            double row = 0;
            for (size_t j = 0; j < tx.index.size(); ++j) {
              row += in[at.In(b, ty.index[i], tx.index[j]) + c] * tx.weight[j];
            }
            sum += row * ty.weight[i];
          }
          o[at.Out(b, y, x) + c] = static_cast<float>(sum * inverse_area);
        }
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterResizeKernels(KernelRegistry& registry) {
  registry.Register("ResizeBilinear", ResizeBilinear);
  registry.Register("ResizeNearestNeighbor", ResizeNearestNeighbor);
  registry.Register("ResizeBicubic", ResizeBicubic);
  registry.Register("ResizeArea", ResizeArea);
}

}  // namespace dfc::reference
