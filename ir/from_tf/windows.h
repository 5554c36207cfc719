// Sliding windows as Lift writes them, shared by the convolutions and the pools: each spatial
// dimension padded (Pad) and cut into windows (Slide), dilated windows thinned (Reindex), all
// views over the input. A convolution folds each window with a filter, a pool folds it alone.
#ifndef DFC_IR_FROM_TF_WINDOWS_H_
#define DFC_IR_FROM_TF_WINDOWS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "graph/op_semantics/window.h"
#include "ir/expr.h"
#include "ir/from_tf/translate.h"

namespace dfc::ir {

// A window op's input read channels last, with each spatial dimension's geometry.
struct WindowedInput {
  ExprPtr x;  // [N][S1]..[Sk][C]: NCHW inputs are transposed (a view)
  WindowAttrs attrs;
  std::vector<WindowDim> dims;    // per spatial dimension
  std::vector<WindowSize> sizes;  // per spatial dimension, from graph/op_semantics/window.h
};

// Reads `ctx`'s input 0 as the input of a window op with attributes `attrs` (ReadWindowAttrs):
// rank k + 2, spatial extents known at compile time (the batch may be a size variable), window
// extents `windows` (the filter's or ksize's, one per spatial dimension). Errors name the node,
// the shapes and the window.
absl::StatusOr<WindowedInput> ReadWindowedInput(const TranslateContext& ctx,
                                                const WindowAttrs& attrs,
                                                const std::vector<int64_t>& windows);

// The windows of `in`: [N][O1]..[Ok][K1]..[Kk][C], window (o, t) holding the input at
// o * stride + t * dilation - pad_before in each dimension, `fill` where that is outside.
absl::StatusOr<ExprPtr> WindowsOf(const WindowedInput& in, const Scalar& fill);

// How many taps of each window fall inside the input: [O1]..[Ok] of `dtype`, the product over
// the spatial dimensions of each one's count (from the window's index, Iota), so AvgPool
// divides by in-bounds counts as TensorFlow does.
absl::StatusOr<ExprPtr> InBoundsCounts(const WindowedInput& in, DType dtype);

// The op's output, computed channels last ([N][O1]..[Ok][C']), in the op's data_format.
absl::StatusOr<ExprPtr> ToDataFormat(const ExprPtr& channels_last, const WindowAttrs& attrs);

}  // namespace dfc::ir

#endif  // DFC_IR_FROM_TF_WINDOWS_H_
