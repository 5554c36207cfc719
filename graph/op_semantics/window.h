// TensorFlow's sliding windows: the attributes of convolutions and pools (data_format, strides,
// dilations, ksize, padding, explicit_paddings) and the output size and padding they give each
// spatial dimension. The one copy that the reference kernels, the folder and the translation
// all size their windows with.
#ifndef DFC_GRAPH_OP_SEMANTICS_WINDOW_H_
#define DFC_GRAPH_OP_SEMANTICS_WINDOW_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/node.h"

namespace dfc {

enum class Padding { kValid, kSame, kExplicit };

// Where the channels are: NHWC / NDHWC (last) or NCHW / NCDHW (after the batch).
enum class DataFormat { kChannelsLast, kChannelsFirst };

// One spatial dimension of a window.
struct WindowDim {
  int64_t input = 0;   // the input's extent
  int64_t window = 1;  // the window's (filter's or ksize's) extent
  int64_t stride = 1;
  int64_t dilation = 1;         // 1 for pools
  int64_t explicit_before = 0;  // kExplicit only
  int64_t explicit_after = 0;
};

// What the window gives that dimension.
struct WindowSize {
  int64_t output = 0;
  int64_t pad_before = 0;  // the padding TensorFlow puts before the input (SAME: the smaller half)
  int64_t pad_after = 0;
};

// TensorFlow's GetWindowedOutputSize: VALID out = ceil((in - eff + 1) / s), SAME out =
// ceil(in / s) with max((out - 1) s + eff - in, 0) padding split smaller half first, EXPLICIT
// out = (in + before + after - eff) / s + 1, where eff = (window - 1) dilation + 1. An error
// (no node: callers annotate) if a stride, dilation or window is not positive, an explicit pad
// is negative, or the window is larger than the padded input.
absl::StatusOr<WindowSize> ComputeWindow(const WindowDim& dim, Padding padding);

// A window op's attributes, read and checked once; every list holds one entry per dimension of
// the input (batch, spatial..., channels in data_format's order).
struct WindowAttrs {
  DataFormat format = DataFormat::kChannelsLast;
  Padding padding = Padding::kValid;
  std::vector<int64_t> ksize;  // pools only (empty for convolutions)
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;          // all 1 where the op has none
  std::vector<int64_t> explicit_paddings;  // 2 per dimension, kExplicit only

  int spatial_rank() const { return static_cast<int>(strides.size()) - 2; }
  // The input dimension of batch, channels and spatial dimension i (0 ≤ i < spatial_rank()).
  int batch_dim() const { return 0; }
  int channel_dim() const { return format == DataFormat::kChannelsLast ? spatial_rank() + 1 : 1; }
  int spatial_dim(int i) const { return format == DataFormat::kChannelsLast ? 1 + i : 2 + i; }

  // Spatial dimension i of an input whose extent there is `input`, with a window of `window`
  // (the filter's extent; pools pass their ksize).
  WindowDim Dim(int i, int64_t input, int64_t window) const;
};

// What an op's window attributes are called and may hold.
struct WindowOpKind {
  int spatial_rank = 2;          // 2 (NHWC/NCHW) or 3 (NDHWC/NCDHW)
  bool has_ksize = false;        // pools
  bool has_dilations = true;     // convolutions
  bool allows_explicit = false;  // Conv2D and its gradients, DepthwiseConv2dNative
  bool allows_channels_first = true;
  // What the op calls its window and dilation lists (ExtractImagePatches: "ksizes", "rates").
  const char* ksize_attr = "ksize";
  const char* dilations_attr = "dilations";
};

// Reads and checks `node`'s window attributes: data_format is one TensorFlow defines for the
// rank and one dfc supports for the op, strides (and ksize, dilations) have rank + 2 positive
// entries and are 1 on the batch and channel dimensions, padding is VALID or SAME (or EXPLICIT
// with 2 non-negative entries per dimension, zero on batch and channels). Errors name the node.
absl::StatusOr<WindowAttrs> ReadWindowAttrs(const Node& node, const WindowOpKind& kind);

// "NHWC", "NCDHW"...: the format's name for a spatial rank.
std::string DataFormatName(DataFormat format, int spatial_rank);

}  // namespace dfc

#endif  // DFC_GRAPH_OP_SEMANTICS_WINDOW_H_
