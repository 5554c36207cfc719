// TensorFlow's StridedSlice spec resolved against an input (ValidateStridedSliceOp in
// tensorflow/core/util/strided_slice_op.cc), the one copy that the reference kernel, the
// constant folder and the translation all slice through.
#ifndef DFC_GRAPH_OP_SEMANTICS_STRIDED_SLICE_H_
#define DFC_GRAPH_OP_SEMANTICS_STRIDED_SLICE_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/node.h"
#include "graph/tensor.h"

namespace dfc {

// The five *_mask attributes: bit i applies to entry i of begin, end and strides.
struct StridedSliceMasks {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t ellipsis = 0;
  int64_t new_axis = 0;
  int64_t shrink_axis = 0;
};

// The node's masks, each 0 when the attribute is absent.
absl::StatusOr<StridedSliceMasks> ReadStridedSliceMasks(const Node& node);

// One input dimension of the dense spec, as its entry gives it, before clamping. A dimension
// that no entry reaches takes the whole dimension.
struct DenseSliceDim {
  int64_t begin = 0;
  int64_t end = 0;
  int64_t stride = 1;
  bool begin_masked = true;
  bool end_masked = true;
  bool shrink = false;  // indexed (x[i]): the output drops the dimension
};

// Entries of DenseSliceSpec::output_dims that are not an input dimension kept.
inline constexpr int kNewAxis = -1;     // a dimension of size 1 that the input lacks
inline constexpr int kShrinkAxis = -2;  // an input dimension indexed away

struct DenseSliceSpec {
  std::vector<DenseSliceDim> dims;  // one per input dimension
  // In output order, one per input dimension or new axis: the input dimension kept,
  // kNewAxis or kShrinkAxis.
  std::vector<int> output_dims;
};

// The sparse spec (one entry per element of begin, end and strides, which have one length,
// with at most one ellipsis and any new axes) expanded to one entry per dimension of an input
// of rank `rank`. An implicit trailing ellipsis covers the dimensions no entry names.
absl::StatusOr<DenseSliceSpec> ExpandStridedSlice(std::span<const int64_t> begin,
                                                  std::span<const int64_t> end,
                                                  std::span<const int64_t> strides,
                                                  const StridedSliceMasks& masks, int rank);

// The elements begin, begin + stride, ... (size of them) of one input dimension.
struct SliceDim {
  int64_t begin = 0;
  int64_t stride = 1;
  int64_t size = 0;
};

// Refuses a stride of 0, and a negative stride on a shrunk dimension: what dense dimension
// `index` must satisfy whether or not its size is known.
absl::Status CheckSliceDim(const DenseSliceDim& dim, int index);

// Dense dimension `index` clamped to its size `size`: a shrunk dimension's index must lie in
// the input, other ends wrap once when negative and are clamped to [0, size] (stride > 0) or
// [-1, size - 1] (stride < 0), and masked ends take the whole range in the stride's direction.
absl::StatusOr<SliceDim> ClampSliceDim(const DenseSliceDim& dim, int index, int64_t size);

// A StridedSlice on an input of known shape.
struct StridedSliceResolution {
  std::vector<SliceDim> dims;  // one per input dimension
  Shape processing_shape;      // the sizes of `dims`
  Shape final_shape;           // shrunk dimensions dropped, new axes inserted
};

absl::StatusOr<StridedSliceResolution> ResolveStridedSlice(std::span<const int64_t> begin,
                                                           std::span<const int64_t> end,
                                                           std::span<const int64_t> strides,
                                                           const StridedSliceMasks& masks,
                                                           const Shape& input);

}  // namespace dfc

#endif  // DFC_GRAPH_OP_SEMANTICS_STRIDED_SLICE_H_
