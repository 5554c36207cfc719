// Reference kernels for TensorFlow's image ops on boxes: non-max suppression (NonMaxSuppression
// V1-V5), CropAndResize and DrawBoundingBoxesV2. The colour conversions and adjustments live in
// image_color.cc, Dilation2D in image_dilation.cc; RegisterImageKernels registers all three
// files.
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
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status.h"
#include "graph/dtype_class.h"
#include "graph/half.h"
#include "runtime/reference/elementwise_util.h"
#include "runtime/reference/image_internal.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"
#include "runtime/reference/reduction_util.h"

namespace dfc::reference {

void RegisterColorKernels(KernelRegistry& registry);     // image_color.cc
void RegisterDilationKernels(KernelRegistry& registry);  // image_dilation.cc

namespace image {

absl::Status CheckScalar(const KernelContext& ctx, int i, absl::string_view what) {
  if (ctx.input(i).rank() == 0) return absl::OkStatus();
  return ctx.Error(absl::StrCat(what, " must be a scalar, got ", ctx.input(i).DebugType()));
}

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

}  // namespace image

namespace {

using image::CheckColorImage;
using image::CheckScalar;

// Element i of a float16, float32 or float64 tensor, as float.
float FloatAt(const Tensor& t, int64_t i) { return static_cast<float>(t.ElementAsDouble(i)); }

// A float tensor of `dtype` (float16, float32 or float64) holding `values`, rounded once.
Tensor FloatTensor(DType dtype, const std::vector<double>& values, Shape shape) {
  Tensor out = Tensor::Zeros(dtype, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) SetFromDouble(out, static_cast<int64_t>(i), values[i]);
  return out;
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
  registry.Register("DrawBoundingBoxesV2", DrawBoundingBoxes);
  RegisterColorKernels(registry);
  RegisterDilationKernels(registry);
}

}  // namespace dfc::reference
