// The gradients' windows, lent by the convolution gradients (convolution_grad.cc) to the pool
// gradients (pooling_grad.cc). A forward window op reads input position p at tap t of output
// o when p = o·stride - pad_before + t·dilation; its input gradient gathers, for each p and
// each tap t, the output o that read p there, if there is one: a transposed convolution read
// as a convolution over the output, dilated by the strides.
#ifndef DFC_IR_FROM_TF_CONVOLUTION_GRAD_H_
#define DFC_IR_FROM_TF_CONVOLUTION_GRAD_H_

#include <vector>

#include "absl/status/statusor.h"
#include "graph/op_semantics/window.h"
#include "ir/expr.h"

namespace dfc::ir {

// `y` [N][O1]..[Ok][C..] (any number of trailing dimensions C..), the outputs of a window op whose
// spatial dimensions have the geometry `dims` and `sizes` (window.h: the input extents P, windows
// K, strides, dilations; the output extents O and pad_before), as [N][P1]..[Pk][K1]..[Kk][C..]:
// element (p, t) is y at the o with o·stride = p + pad_before - t·dilation in each dimension,
// `fill` where there is no such o in [0, O). Views only: each dimension is dilated by its stride
// (Repeat(1), Pad, Join), cut or padded to the taps' reach (Pad, Reindex), slid (Slide) and read
// tap by tap (Reindex).
absl::StatusOr<ExprPtr> InputWindows(const ExprPtr& y, const std::vector<WindowDim>& dims,
                                     const std::vector<WindowSize>& sizes, const Scalar& fill);

}  // namespace dfc::ir

#endif  // DFC_IR_FROM_TF_CONVOLUTION_GRAD_H_
