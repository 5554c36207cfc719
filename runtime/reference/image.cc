// Reference kernels for TensorFlow's image ops: non-max suppression (NonMaxSuppression V1-V5),
// CropAndResize, the colour conversions and adjustments (RGBToHSV, HSVToRGB, AdjustHue,
// AdjustSaturation, AdjustContrastv2), DrawBoundingBoxesV2 and Dilation2D.
//
// Each follows TensorFlow's CPU kernel (core/kernels/image/*.cc), including where it computes
// in float32 whatever the dtype and how it rounds box corners to pixels. float16 images are
// computed in float and rounded once at the end.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <queue>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/dtype_class.h"
#include "graph/half.h"
#include "runtime/reference/elementwise_util.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"
#include "runtime/reference/reduction_util.h"

namespace dfc::reference {
namespace {

// Element i of a float16, float32 or float64 tensor, as float.
float FloatAt(const Tensor& t, int64_t i) { return static_cast<float>(t.ElementAsDouble(i)); }

// A float tensor of `dtype` (float16, float32 or float64) holding `values`, rounded once.
Tensor FloatTensor(DType dtype, const std::vector<double>& values, Shape shape) {
  Tensor out = Tensor::Zeros(dtype, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) SetFromDouble(out, static_cast<int64_t>(i), values[i]);
  return out;
}

// Fails unless input `i` is a scalar; `what` names it.
absl::Status CheckScalar(const KernelContext& ctx, int i, absl::string_view what) {
  if (ctx.input(i).rank() == 0) return absl::OkStatus();
  return ctx.Error(absl::StrCat(what, " must be a scalar, got ", ctx.input(i).DebugType()));
}

// --- NonMaxSuppression -------------------------------------------------------------------------

// Intersection over union of boxes i and j of a [num_boxes, 4] tensor, each box given by two
// opposite corners in either order, computed in float as TensorFlow does.
float BoxIou(const Tensor& boxes, int64_t i, int64_t j) {
  auto corner = [&](int64_t b, int k) { return FloatAt(boxes, b * 4 + k); };
  const float ymin_i = std::min(corner(i, 0), corner(i, 2));
  const float xmin_i = std::min(corner(i, 1), corner(i, 3));
  const float ymax_i = std::max(corner(i, 0), corner(i, 2));
  const float xmax_i = std::max(corner(i, 1), corner(i, 3));
  const float ymin_j = std::min(corner(j, 0), corner(j, 2));
  const float xmin_j = std::min(corner(j, 1), corner(j, 3));
  const float ymax_j = std::max(corner(j, 0), corner(j, 2));
  const float xmax_j = std::max(corner(j, 1), corner(j, 3));
  const float area_i = (ymax_i - ymin_i) * (xmax_i - xmin_i);
  const float area_j = (ymax_j - ymin_j) * (xmax_j - xmin_j);
  if (area_i <= 0 || area_j <= 0) return 0.0f;
  const float inter = std::max(std::min(ymax_i, ymax_j) - std::max(ymin_i, ymin_j), 0.0f) *
                      std::max(std::min(xmax_i, xmax_j) - std::max(xmin_i, xmin_j), 0.0f);
  return inter / (area_i + area_j - inter);
}

struct NmsOptions {
  float iou_threshold = 0.5f;
  float score_threshold = std::numeric_limits<float>::lowest();
  float soft_nms_sigma = 0.0f;
  bool pad_to_max_output_size = false;
};

// TensorFlow's greedy selection (DoNonMaxSuppressionOp): candidates above score_threshold in a
// priority queue by score, ties to the lower index; each is compared with the boxes selected
// since it was last looked at, newest first. Hard NMS drops it at the first IoU above the
// threshold; soft NMS (sigma > 0) scales its score by exp(-0.5 * iou^2 / sigma) and puts it
// back if it is still above score_threshold. Scores are of type T (float or float16: a float16
// product is rounded to float16 as TensorFlow's Eigen::half arithmetic does).
template <typename T>
void SelectBoxes(const Tensor& boxes, const Tensor& scores, int64_t max_output_size,
                 const NmsOptions& o, std::vector<int32_t>& selected,
                 std::vector<float>& selected_scores) {
  auto round = [](float x) {
    if constexpr (std::is_same_v<T, Half>) {
      return static_cast<float>(Half(x));
    } else {
      return x;
    }
  };
  struct Candidate {
    int32_t box;
    float score;
    int64_t suppress_begin;
  };
  auto lower = [](const Candidate& a, const Candidate& b) {
    return (a.score == b.score && a.box > b.box) || a.score < b.score;
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(lower)> queue(lower);
  for (int64_t i = 0; i < scores.num_elements(); ++i) {
    const float s = FloatAt(scores, i);
    if (s > o.score_threshold) queue.push({static_cast<int32_t>(i), s, 0});
  }
  const bool soft = o.soft_nms_sigma > 0.0f;
  const float scale = soft ? round(-0.5f / o.soft_nms_sigma) : 0.0f;
  while (static_cast<int64_t>(selected.size()) < max_output_size && !queue.empty()) {
    Candidate next = queue.top();
    queue.pop();
    const float original = next.score;
    bool hard_suppressed = false;
    for (int64_t j = static_cast<int64_t>(selected.size()) - 1; j >= next.suppress_begin; --j) {
      const float iou = round(BoxIou(boxes, next.box, selected[j]));
      const float weight = round(std::exp(round(round(scale * iou) * iou)));
      next.score = round(next.score * (soft || iou <= o.iou_threshold ? weight : 0.0f));
      if (!soft && iou > o.iou_threshold) {
        hard_suppressed = true;
        break;
      }
      if (next.score <= o.score_threshold) break;
    }
    next.suppress_begin = static_cast<int64_t>(selected.size());
    if (hard_suppressed) continue;
    if (next.score == original) {
      selected.push_back(next.box);
      selected_scores.push_back(next.score);
    } else if (next.score > o.score_threshold) {
      queue.push(next);
    }
  }
}

// The scalar threshold input `i`, a float16 or float32 value read as float.
absl::StatusOr<float> ReadThreshold(const KernelContext& ctx, int i, absl::string_view what) {
  DFC_RETURN_IF_ERROR(CheckScalar(ctx, i, what));
  if (ctx.input(i).dtype() != DType::kHalf && ctx.input(i).dtype() != DType::kFloat) {
    return ctx.Error(
        absl::StrCat(what, " must be float16 or float32, got ", ctx.input(i).DebugType()));
  }
  return FloatAt(ctx.input(i), 0);
}

// NonMaxSuppression (iou_threshold an attribute), V2 (+ iou_threshold input), V3
// (+ score_threshold), V4 (+ pad_to_max_output_size, valid_outputs) and V5 (+ soft_nms_sigma,
// selected_scores).
absl::Status NonMaxSuppression(KernelContext& ctx, int version) {
  static constexpr int kInputs[] = {0, 3, 4, 5, 5, 6};
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, kInputs[version]));
  const Tensor& boxes = ctx.input(0);
  const Tensor& scores = ctx.input(1);
  if (version == 1) {
    DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, {DType::kFloat}));
  } else if (absl::Status s = CheckDType(ctx, 0, {DType::kHalf, DType::kFloat}); !s.ok()) {
    return s;
  }
  if (scores.dtype() != boxes.dtype()) {
    return ctx.Error(absl::StrCat("scores must have the dtype of boxes (", boxes.DebugType(),
                                  "), got ", scores.DebugType()));
  }
  if (boxes.rank() != 2 || boxes.dim(1) != 4) {
    return ctx.Error(absl::StrCat("boxes must be [num_boxes, 4], got ", boxes.DebugType()));
  }
  if (scores.rank() != 1 || scores.dim(0) != boxes.dim(0)) {
    return ctx.Error(absl::StrCat("scores must be [num_boxes] = [", boxes.dim(0), "], got ",
                                  scores.DebugType()));
  }
  if (ctx.input(2).dtype() != DType::kInt32 || ctx.input(2).rank() != 0) {
    return ctx.Error(
        absl::StrCat("max_output_size must be an int32 scalar, got ", ctx.input(2).DebugType()));
  }
  const int64_t max_output_size = ctx.input(2).ElementAsInt64(0);
  if (max_output_size < 0) {
    return ctx.Error(absl::StrCat("max_output_size must be non-negative, got ", max_output_size));
  }
  NmsOptions o;
  if (version == 1) {
    DFC_ASSIGN_OR_RETURN(float iou, ctx.node().GetFloat("iou_threshold", 0.5f));
    o.iou_threshold = iou;
  } else {
    DFC_ASSIGN_OR_RETURN(float iou, ReadThreshold(ctx, 3, "iou_threshold"));
    o.iou_threshold = iou;
  }
  if (!(o.iou_threshold >= 0.0f && o.iou_threshold <= 1.0f)) {
    return ctx.Error(absl::StrCat("iou_threshold must be in [0, 1], got ", o.iou_threshold));
  }
  if (version >= 3) {
    DFC_ASSIGN_OR_RETURN(float score, ReadThreshold(ctx, 4, "score_threshold"));
    o.score_threshold = score;
  }
  if (version == 5) {
    DFC_ASSIGN_OR_RETURN(float sigma, ReadThreshold(ctx, 5, "soft_nms_sigma"));
    if (!(sigma >= 0.0f)) {
      return ctx.Error(absl::StrCat("soft_nms_sigma must be >= 0, got ", sigma));
    }
    o.soft_nms_sigma = sigma;
  }
  if (version >= 4) {
    DFC_ASSIGN_OR_RETURN(bool pad, ctx.node().GetBool("pad_to_max_output_size", false));
    o.pad_to_max_output_size = pad;
  }
  if (boxes.dtype() == DType::kHalf) {
    // TensorFlow converts the thresholds to float16 (and its default score threshold is
    // float16's lowest value).
    auto to_half = [](float x) { return static_cast<float>(Half(x)); };
    o.iou_threshold = to_half(o.iou_threshold);
    o.score_threshold = version >= 3 ? to_half(o.score_threshold) : -65504.0f;
    o.soft_nms_sigma = to_half(o.soft_nms_sigma);
  }
  std::vector<int32_t> selected;
  std::vector<float> selected_scores;
  if (boxes.dtype() == DType::kHalf) {
    SelectBoxes<Half>(boxes, scores, max_output_size, o, selected, selected_scores);
  } else {
    SelectBoxes<float>(boxes, scores, max_output_size, o, selected, selected_scores);
  }
  const int32_t valid = static_cast<int32_t>(selected.size());
  if (o.pad_to_max_output_size) {
    selected.resize(max_output_size, 0);
    selected_scores.resize(max_output_size, 0.0f);
  }
  const int64_t n = static_cast<int64_t>(selected.size());
  ctx.set_output(0, Tensor::FromVector<int32_t>(selected, {n}));
  if (version == 5) {
    ctx.set_output(
        1, FloatTensor(boxes.dtype(),
                       std::vector<double>(selected_scores.begin(), selected_scores.end()), {n}));
    ctx.set_output(2, Tensor::Scalar<int32_t>(valid));
  } else if (version == 4) {
    ctx.set_output(1, Tensor::Scalar<int32_t>(valid));
  }
  return absl::OkStatus();
}

// --- CropAndResize -----------------------------------------------------------------------------

// CropAndResize(image [batch, height, width, depth], boxes [num_boxes, 4], box_ind [num_boxes],
// crop_size [2]) -> float32 [num_boxes, crop_height, crop_width, depth]. Box b samples image
// box_ind[b] at crop_height x crop_width points spread evenly from (y1, x1) to (y2, x2) in
// normalised coordinates (the centre when a crop dimension is 1); points outside the image
// take extrapolation_value.
absl::Status CropAndResize(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 4));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kNumbers));
  DFC_ASSIGN_OR_RETURN(std::string method, ctx.node().GetString("method", "bilinear"));
  if (method != "bilinear" && method != "nearest") {
    return ctx.Error(
        absl::StrCat("method must be \"bilinear\" or \"nearest\", got \"", method, "\""));
  }
  DFC_ASSIGN_OR_RETURN(float extrapolation, ctx.node().GetFloat("extrapolation_value", 0.0f));
  const Tensor& image = ctx.input(0);
  const Tensor& boxes = ctx.input(1);
  const Tensor& box_ind = ctx.input(2);
  if (image.rank() != 4) {
    return ctx.Error(
        absl::StrCat("image must be [batch, height, width, depth], got ", image.DebugType()));
  }
  const int64_t batch = image.dim(0), height = image.dim(1), width = image.dim(2),
                depth = image.dim(3);
  if (height <= 0 || width <= 0) {
    return ctx.Error(absl::StrCat("image dimensions must be positive, got ", image.DebugType()));
  }
  if (boxes.dtype() != DType::kFloat || boxes.rank() != 2 || boxes.dim(1) != 4) {
    return ctx.Error(absl::StrCat("boxes must be float32 [num_boxes, 4], got ", boxes.DebugType()));
  }
  const int64_t num_boxes = boxes.dim(0);
  if (box_ind.dtype() != DType::kInt32 || box_ind.shape() != Shape{num_boxes}) {
    return ctx.Error(
        absl::StrCat("box_ind must be int32 [", num_boxes, "], got ", box_ind.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> crop_size, ReadIndexVector(ctx, 3, "crop_size"));
  if (ctx.input(3).dtype() != DType::kInt32 || crop_size.size() != 2) {
    return ctx.Error(
        absl::StrCat("crop_size must be an int32 vector of 2, got ", ctx.input(3).DebugType()));
  }
  const int64_t crop_h = crop_size[0], crop_w = crop_size[1];
  if (crop_h <= 0 || crop_w <= 0) {
    return ctx.Error(absl::StrCat("crop_size must be positive, got [", crop_h, ", ", crop_w, "]"));
  }
  for (int64_t b = 0; b < num_boxes; ++b) {
    const int64_t k = box_ind.ElementAsInt64(b);
    if (k < 0 || k >= batch) {
      return ctx.Error(absl::StrCat("box_ind[", b, "] = ", k, " is outside [0, ", batch, ")"));
    }
  }
  DFC_ASSIGN_OR_RETURN(Tensor out,
                       AllocateOutput(ctx, DType::kFloat, {num_boxes, crop_h, crop_w, depth}));
  float* crops = out.mutable_data<float>();
  const float* box = boxes.data<float>();
  auto pixel = [&](int64_t n, int64_t y, int64_t x, int64_t d) {
    return static_cast<float>(image.ElementAsDouble(((n * height + y) * width + x) * depth + d));
  };
  const bool bilinear = method == "bilinear";
  for (int64_t b = 0; b < num_boxes; ++b) {
    const float y1 = box[4 * b], x1 = box[4 * b + 1], y2 = box[4 * b + 2], x2 = box[4 * b + 3];
    const int64_t n = box_ind.ElementAsInt64(b);
    const float height_scale =
        crop_h > 1 ? (y2 - y1) * static_cast<float>(height - 1) / static_cast<float>(crop_h - 1)
                   : 0.0f;
    const float width_scale =
        crop_w > 1 ? (x2 - x1) * static_cast<float>(width - 1) / static_cast<float>(crop_w - 1)
                   : 0.0f;
    for (int64_t y = 0; y < crop_h; ++y) {
      // TensorFlow computes a single row's or column's centre in double (its 0.5 literal).
      const float in_y =
          crop_h > 1 ? y1 * static_cast<float>(height - 1) + static_cast<float>(y) * height_scale
                     : static_cast<float>(0.5 * (y1 + y2) * (height - 1));
      for (int64_t x = 0; x < crop_w; ++x) {
        float* cell = crops + ((b * crop_h + y) * crop_w + x) * depth;
        const float in_x =
            crop_w > 1 ? x1 * static_cast<float>(width - 1) + static_cast<float>(x) * width_scale
                       : static_cast<float>(0.5 * (x1 + x2) * (width - 1));
        // Written so that a NaN coordinate extrapolates too.
        if (!(in_y >= 0 && in_y <= static_cast<float>(height - 1) && in_x >= 0 &&
              in_x <= static_cast<float>(width - 1))) {
          std::fill(cell, cell + depth, extrapolation);
          continue;
        }
        if (bilinear) {
          const int64_t top = static_cast<int64_t>(std::floor(in_y));
          const int64_t bottom = static_cast<int64_t>(std::ceil(in_y));
          const int64_t left = static_cast<int64_t>(std::floor(in_x));
          const int64_t right = static_cast<int64_t>(std::ceil(in_x));
          const float y_lerp = in_y - static_cast<float>(top);
          const float x_lerp = in_x - static_cast<float>(left);
          for (int64_t d = 0; d < depth; ++d) {
            const float top_left = pixel(n, top, left, d), top_right = pixel(n, top, right, d);
            const float bottom_left = pixel(n, bottom, left, d);
            const float bottom_right = pixel(n, bottom, right, d);
            const float t = top_left + (top_right - top_left) * x_lerp;
            const float u = bottom_left + (bottom_right - bottom_left) * x_lerp;
            cell[d] = t + (u - t) * y_lerp;
          }
        } else {
          const int64_t cy = static_cast<int64_t>(std::round(in_y));
          const int64_t cx = static_cast<int64_t>(std::round(in_x));
          for (int64_t d = 0; d < depth; ++d) cell[d] = pixel(n, cy, cx, d);
        }
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- Colour ------------------------------------------------------------------------------------

// Fails unless input 0 is a float image whose last dimension holds `channels` channels.
absl::Status CheckColorImage(const KernelContext& ctx, int min_rank, int channels) {
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kFloats));
  const Tensor& image = ctx.input(0);
  if (image.rank() < min_rank) {
    return ctx.Error(
        absl::StrCat("images must have rank >= ", min_rank, ", got ", image.DebugType()));
  }
  if (channels > 0 && image.dim(image.rank() - 1) != channels) {
    return ctx.Error(absl::StrCat("images must have ", channels,
                                  " channels in the last dimension, got ", image.DebugType()));
  }
  return absl::OkStatus();
}

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

// --- DrawBoundingBoxesV2 -----------------------------------------------------------------------

// DrawBoundingBoxesV2(images [batch, height, width, depth], boxes [batch, num_boxes, 4],
// colors [num_colors, >= depth]): each box's outline, one pixel wide, in colour
// box % num_colors (TensorFlow's ten default colours when colors is empty). A corner maps to
// pixel trunc(coordinate * (size - 1)); inverted boxes and boxes wholly outside are skipped,
// and edges outside the image are not drawn.
absl::Status DrawBoundingBoxes(KernelContext& ctx) {
  if (ctx.num_inputs() != 2 && ctx.num_inputs() != 3) {
    return ctx.Error(absl::StrCat("expected 2 or 3 inputs, got ", ctx.num_inputs()));
  }
  DFC_RETURN_IF_ERROR(CheckColorImage(ctx, 4, 0));
  const Tensor& images = ctx.input(0);
  const Tensor& boxes = ctx.input(1);
  if (images.rank() != 4) {
    return ctx.Error(
        absl::StrCat("images must be [batch, height, width, depth], got ", images.DebugType()));
  }
  const int64_t batch = images.dim(0), height = images.dim(1), width = images.dim(2),
                depth = images.dim(3);
  if (depth != 1 && depth != 3 && depth != 4) {
    return ctx.Error(absl::StrCat("images must have 1, 3 or 4 channels, got ", images.DebugType()));
  }
  if (boxes.dtype() != DType::kFloat || boxes.rank() != 3 || boxes.dim(0) != batch ||
      boxes.dim(2) != 4) {
    return ctx.Error(
        absl::StrCat("boxes must be float32 [", batch, ", num_boxes, 4], got ", boxes.DebugType()));
  }
  std::vector<std::vector<float>> colors;
  if (ctx.num_inputs() == 3) {
    const Tensor& table = ctx.input(2);
    if (table.dtype() != DType::kFloat || table.rank() != 2 || table.dim(1) < depth) {
      return ctx.Error(absl::StrCat("colors must be a float32 matrix with at least ", depth,
                                    " columns, got ", table.DebugType()));
    }
    for (int64_t i = 0; i < table.dim(0); ++i) {
      colors.emplace_back(table.data<float>() + i * table.dim(1),
                          table.data<float>() + i * table.dim(1) + depth);
    }
  }
  if (colors.empty()) {
    colors = {{1, 1, 0, 1},     {0, 0, 1, 1},   {1, 0, 0, 1},   {0, 1, 0, 1}, {0.5, 0, 0.5, 1},
              {0.5, 0.5, 0, 1}, {0.5, 0, 0, 1}, {0, 0, 0.5, 1}, {0, 1, 1, 1}, {1, 0, 1, 1}};
    // A grey image gets white boxes.
    if (depth == 1) {
      for (std::vector<float>& c : colors) c[0] = 1;
    }
  }
  Tensor out = images.Clone();
  const int64_t num_boxes = boxes.dim(1);
  DispatchDType(images.dtype(), [&]<typename T>() {
    if constexpr (kIsFloat<T>) {
      T* canvas = out.mutable_data<T>();
      auto paint = [&](int64_t n, int64_t y, int64_t x, const std::vector<float>& color) {
        for (int64_t c = 0; c < depth; ++c) {
          canvas[((n * height + y) * width + x) * depth + c] = Down<T>(color[c]);
        }
      };
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t bb = 0; bb < num_boxes; ++bb) {
          const std::vector<float>& color = colors[bb % colors.size()];
          const float* box = boxes.data<float>() + (n * num_boxes + bb) * 4;
          // A NaN corner draws nothing; a huge one saturates (a plain conversion would be
          // undefined).
          if (std::isnan(box[0]) || std::isnan(box[1]) || std::isnan(box[2]) ||
              std::isnan(box[3])) {
            continue;
          }
          const auto to_pixel = [](float coord, int64_t size) {
            const double v = static_cast<double>(coord * static_cast<float>(size - 1));
            return static_cast<int64_t>(std::clamp(v, -1e18, 1e18));
          };
          const int64_t min_row = to_pixel(box[0], height), max_row = to_pixel(box[2], height);
          const int64_t min_col = to_pixel(box[1], width), max_col = to_pixel(box[3], width);
          if (min_row > max_row || min_col > max_col) continue;
          if (min_row >= height || max_row < 0 || min_col >= width || max_col < 0) continue;
          const int64_t row0 = std::max<int64_t>(min_row, 0);
          const int64_t row1 = std::min<int64_t>(max_row, height - 1);
          const int64_t col0 = std::max<int64_t>(min_col, 0);
          const int64_t col1 = std::min<int64_t>(max_col, width - 1);
          if (min_row >= 0) {
            for (int64_t x = col0; x <= col1; ++x) paint(n, min_row, x, color);
          }
          if (max_row < height) {
            for (int64_t x = col0; x <= col1; ++x) paint(n, max_row, x, color);
          }
          if (min_col >= 0) {
            for (int64_t y = row0; y <= row1; ++y) paint(n, y, min_col, color);
          }
          if (max_col < width) {
            for (int64_t y = row0; y <= row1; ++y) paint(n, y, max_col, color);
          }
        }
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- Dilation2D --------------------------------------------------------------------------------

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

void RegisterImageKernels(KernelRegistry& registry) {
  registry.Register("NonMaxSuppression", [](KernelContext& c) { return NonMaxSuppression(c, 1); });
  registry.Register("NonMaxSuppressionV2",
                    [](KernelContext& c) { return NonMaxSuppression(c, 2); });
  registry.Register("NonMaxSuppressionV3",
                    [](KernelContext& c) { return NonMaxSuppression(c, 3); });
  registry.Register("NonMaxSuppressionV4",
                    [](KernelContext& c) { return NonMaxSuppression(c, 4); });
  registry.Register("NonMaxSuppressionV5",
                    [](KernelContext& c) { return NonMaxSuppression(c, 5); });
  registry.Register("CropAndResize", CropAndResize);
  registry.Register("RGBToHSV", ConvertColor<true>);
  registry.Register("HSVToRGB", ConvertColor<false>);
  registry.Register("AdjustHue", AdjustHue);
  registry.Register("AdjustSaturation", AdjustSaturation);
  registry.Register("AdjustContrastv2", AdjustContrast);
  registry.Register("DrawBoundingBoxesV2", DrawBoundingBoxes);
  registry.Register("Dilation2D", Dilation2D);
}

}  // namespace dfc::reference
