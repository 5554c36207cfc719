// Reference kernels for TensorFlow's colour ops: the conversions (RGBToHSV, HSVToRGB) and the
// adjustments (AdjustHue, AdjustSaturation, AdjustContrastv2), each following TensorFlow's CPU
// kernel (core/kernels/image/*.cc); float16 images are computed in float and rounded once at the
// end. Registered by RegisterImageKernels (image.cc).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "runtime/reference/elementwise_util.h"
#include "runtime/reference/image_internal.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {
namespace {

using image::CheckColorImage;
using image::CheckScalar;

// RGBToHSV and HSVToRGB with TensorFlow's formulas (colorspace_op.h), in the input's precision
// (float16 in float).
template <typename C>
void RgbToHsv(C r, C g, C b, C* out) {
  const C v = std::max(r, std::max(g, b));
  const C range = v - std::min(r, std::min(g, b));
  const C s = v > C(0) ? range / v : C(0);
  const C norm = (C(1) / range) * (C(1) / C(6));
  C h = r == v ? norm * (g - b)
               : (g == v ? norm * (b - r) + C(2) / C(6) : norm * (r - g) + C(4) / C(6));
  if (!(range > C(0))) h = C(0);
  if (h < C(0)) h = h + C(1);
  out[0] = h;
  out[1] = s;
  out[2] = v;
}

template <typename C>
void HsvToRgb(C h, C s, C v, C* out) {
  const C dh = h * C(6);
  const C dr = std::min(std::max(std::abs(dh - C(3)) - C(1), C(0)), C(1));
  const C dg = std::min(std::max(-std::abs(dh - C(2)) + C(2), C(0)), C(1));
  const C db = std::min(std::max(-std::abs(dh - C(4)) + C(2), C(0)), C(1));
  const C one_s = -s + C(1);
  out[0] = (one_s + s * dr) * v;
  out[1] = (one_s + s * dg) * v;
  out[2] = (one_s + s * db) * v;
}

template <bool kToHsv>
absl::Status ConvertColor(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckColorImage(ctx, 1, 3));
  const Tensor& in = ctx.input(0);
  Tensor out = Tensor::Zeros(in.dtype(), in.shape());
  DispatchDType(in.dtype(), [&]<typename T>() {
    if constexpr (kIsFloat<T>) {
      using C = ComputeType<T>;
      const T* x = in.data<T>();
      T* y = out.mutable_data<T>();
      for (int64_t p = 0; p < in.num_elements() / 3; ++p) {
        C result[3];
        const C a = Up(x[3 * p]), b = Up(x[3 * p + 1]), c = Up(x[3 * p + 2]);
        if constexpr (kToHsv) {
          RgbToHsv<C>(a, b, c, result);
        } else {
          HsvToRgb<C>(a, b, c, result);
        }
        for (int k = 0; k < 3; ++k) y[3 * p + k] = Down<T>(result[k]);
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// AdjustSaturation's float RGB <-> HSV conversions (its own, not RGBToHSV's), hue in [0, 1).
void SaturationRgbToHsv(float r, float g, float b, float* h, float* s, float* v) {
  const float vv = std::max(r, std::max(g, b));
  const float range = vv - std::min(r, std::min(g, b));
  *s = vv > 0 ? range / vv : 0;
  const float norm = 1.0f / (6.0f * range);
  float hh;
  // TensorFlow adds the sector offsets as doubles, then stores the sum as float.
  if (r == vv) {
    hh = norm * (g - b);
  } else if (g == vv) {
    hh = static_cast<float>(norm * (b - r) + 2.0 / 6.0);
  } else {
    hh = static_cast<float>(norm * (r - g) + 4.0 / 6.0);
  }
  if (range <= 0.0f) hh = 0;
  if (hh < 0.0f) hh = hh + 1;
  *v = vv;
  *h = hh;
}

void SaturationHsvToRgb(float h, float s, float v, float* rgb) {
  const float c = s * v;
  const float m = v - c;
  const float dh = h * 6;
  const int sector = static_cast<int>(dh);
  float fmodu = dh;
  while (fmodu <= 0) fmodu += 2.0f;
  while (fmodu >= 2.0f) fmodu -= 2.0f;
  const float x = c * (1 - std::abs(fmodu - 1));
  // (r, g, b) before adding m, by sector of the hue circle.
  const float table[6][3] = {{c, x, 0}, {x, c, 0}, {0, c, x}, {0, x, c}, {x, 0, c}, {c, 0, x}};
  for (int k = 0; k < 3; ++k) rgb[k] = (sector >= 0 && sector < 6 ? table[sector][k] : 0) + m;
}

// AdjustHue's conversions: a hue in [0, 6) (the sector plus the position within it) and the
// smallest and largest channels, which a hue rotation keeps.
void RgbToHueRange(float r, float g, float b, float* h, float* v_min, float* v_max) {
  float v_mid;
  int sector;
  if (r < g) {
    if (b < r) {
      *v_max = g, v_mid = r, *v_min = b, sector = 1;
    } else if (b > g) {
      *v_max = b, v_mid = g, *v_min = r, sector = 3;
    } else {
      *v_max = g, v_mid = b, *v_min = r, sector = 2;
    }
  } else if (b < g) {
    *v_max = r, v_mid = g, *v_min = b, sector = 0;
  } else if (b > r) {
    *v_max = b, v_mid = r, *v_min = g, sector = 4;
  } else {
    *v_max = r, v_mid = b, *v_min = g, sector = 5;
  }
  if (*v_max == *v_min) {
    *h = 0;
    return;
  }
  const float ratio = (v_mid - *v_min) / (*v_max - *v_min);
  // The middle channel rises through even sectors and falls through odd ones.
  *h = static_cast<float>(sector) + (sector % 2 == 0 ? ratio : 1 - ratio);
}

void HueRangeToRgb(float h, float v_min, float v_max, float* rgb) {
  const int sector = static_cast<int>(h);
  float ratio = h - static_cast<float>(sector);
  if (sector % 2 != 0) ratio = 1 - ratio;
  const float v_mid = v_min + ratio * (v_max - v_min);
  const float table[6][3] = {{v_max, v_mid, v_min}, {v_mid, v_max, v_min}, {v_min, v_max, v_mid},
                             {v_min, v_mid, v_max}, {v_mid, v_min, v_max}, {v_max, v_min, v_mid}};
  const int row = sector >= 0 && sector < 5 ? sector : 5;
  for (int k = 0; k < 3; ++k) rgb[k] = table[row][k];
}

// Fails unless input 1 (named `what`) is a float32 scalar. TensorFlow's CPU kernels of the
// adjustments are float32 only, and so is input 0 (CheckAdjustInputs).
absl::Status CheckAdjustInputs(const KernelContext& ctx, int channels, absl::string_view what) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, {DType::kFloat}));
  DFC_RETURN_IF_ERROR(CheckColorImage(ctx, 3, channels));
  DFC_RETURN_IF_ERROR(CheckScalar(ctx, 1, what));
  return CheckDType(ctx, 1, {DType::kFloat});
}

// AdjustHue(images, delta): each pixel's hue turned by delta (a fraction of the circle).
absl::Status AdjustHue(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckAdjustInputs(ctx, 3, "delta"));
  const Tensor& in = ctx.input(0);
  const float delta = ctx.input(1).data<float>()[0];
  Tensor out = Tensor::Zeros(DType::kFloat, in.shape());
  const float* p = in.data<float>();
  float* q = out.mutable_data<float>();
  for (int64_t i = 0; i < in.num_elements() / 3; ++i, p += 3, q += 3) {
    float h, v_min, v_max;
    RgbToHueRange(p[0], p[1], p[2], &h, &v_min, &v_max);
    h += delta * 6;
    while (h < 0) h += 6;
    while (h >= 6) h -= 6;
    HueRangeToRgb(h, v_min, v_max, q);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// AdjustSaturation(images, scale): each pixel's saturation scaled, clamped to [0, 1].
absl::Status AdjustSaturation(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckAdjustInputs(ctx, 3, "scale"));
  const Tensor& in = ctx.input(0);
  const float scale = ctx.input(1).data<float>()[0];
  Tensor out = Tensor::Zeros(DType::kFloat, in.shape());
  const float* p = in.data<float>();
  float* q = out.mutable_data<float>();
  for (int64_t i = 0; i < in.num_elements() / 3; ++i, p += 3, q += 3) {
    float h, s, v;
    SaturationRgbToHsv(p[0], p[1], p[2], &h, &s, &v);
    s = std::min(1.0f, std::max(0.0f, s * scale));
    SaturationHsvToRgb(h, s, v, q);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// AdjustContrastv2(images [..., height, width, channels], contrast_factor): each channel of
// each image moves away from its mean over height x width by contrast_factor. The sum folds
// the image in halves (TensorFlow's order: the upper half added onto the lower, repeatedly),
// the mean is that sum times 1 / (height * width), and out = mean + factor * (in - mean).
absl::Status AdjustContrast(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckAdjustInputs(ctx, 0, "contrast_factor"));
  const Tensor& in = ctx.input(0);
  const float factor = ctx.input(1).data<float>()[0];
  const int r = in.rank();
  const int64_t pixels = in.dim(r - 3) * in.dim(r - 2), channels = in.dim(r - 1);
  Tensor out = Tensor::Zeros(DType::kFloat, in.shape());
  if (in.num_elements() == 0) {
    ctx.set_output(0, std::move(out));
    return absl::OkStatus();
  }
  const int64_t plane = pixels * channels;
  const float* x = in.data<float>();
  float* y = out.mutable_data<float>();
  std::vector<float> sums;
  for (int64_t n = 0; n < in.num_elements() / plane; ++n) {
    const float* xn = x + n * plane;
    sums.assign(xn, xn + plane);
    for (int64_t remaining = pixels; remaining > 1;) {
      const int64_t right = remaining / 2, left = remaining - right;
      for (int64_t k = 0; k < right * channels; ++k) sums[k] += sums[left * channels + k];
      remaining = left;
    }
    const float scaling = 1.0f / static_cast<float>(pixels);
    for (int64_t p = 0; p < pixels; ++p) {
      for (int64_t c = 0; c < channels; ++c) {
        const float mean = sums[c] * scaling;
        y[n * plane + p * channels + c] = mean + factor * (xn[p * channels + c] - mean);
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterColorKernels(KernelRegistry& registry) {
  registry.Register("RGBToHSV", ConvertColor<true>);
  registry.Register("HSVToRGB", ConvertColor<false>);
  registry.Register("AdjustHue", AdjustHue);
  registry.Register("AdjustSaturation", AdjustSaturation);
  registry.Register("AdjustContrastv2", AdjustContrast);
}

}  // namespace dfc::reference
