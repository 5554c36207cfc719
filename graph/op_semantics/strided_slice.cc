// StridedSlice's spec, expanded and clamped as TensorFlow's ValidateStridedSliceOp does it.
#include "graph/op_semantics/strided_slice.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status.h"

namespace dfc {
namespace {

bool Bit(int64_t mask, int i) {
  return i >= 0 && i < 64 && ((static_cast<uint64_t>(mask) >> i) & 1) != 0;
}

}  // namespace

absl::StatusOr<StridedSliceMasks> ReadStridedSliceMasks(const Node& node) {
  StridedSliceMasks masks;
  DFC_ASSIGN_OR_RETURN(masks.begin, node.GetInt("begin_mask", 0));
  DFC_ASSIGN_OR_RETURN(masks.end, node.GetInt("end_mask", 0));
  DFC_ASSIGN_OR_RETURN(masks.ellipsis, node.GetInt("ellipsis_mask", 0));
  DFC_ASSIGN_OR_RETURN(masks.new_axis, node.GetInt("new_axis_mask", 0));
  DFC_ASSIGN_OR_RETURN(masks.shrink_axis, node.GetInt("shrink_axis_mask", 0));
  return masks;
}

absl::StatusOr<DenseSliceSpec> ExpandStridedSlice(std::span<const int64_t> begin,
                                                  std::span<const int64_t> end,
                                                  std::span<const int64_t> strides,
                                                  const StridedSliceMasks& masks, int rank) {
  DFC_CHECK(begin.size() == end.size() && begin.size() == strides.size());
  int64_t ellipsis_mask = masks.ellipsis;
  const uint64_t ellipsis_bits = static_cast<uint64_t>(ellipsis_mask);
  if ((ellipsis_bits & (ellipsis_bits - 1)) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("ellipsis_mask ", ellipsis_mask, " marks more than one ellipsis"));
  }
  int sparse_dims = static_cast<int>(begin.size());
  if (sparse_dims >= 63) {
    return absl::InvalidArgumentError("begin, end and strides have more than 62 entries");
  }

  bool ellipsis_seen = false;
  int new_axes_after_ellipsis = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    if (ellipsis_seen && Bit(masks.new_axis, i)) ++new_axes_after_ellipsis;
    if (Bit(ellipsis_mask, i)) ellipsis_seen = true;
  }
  if (!ellipsis_seen) {  // an implicit trailing ellipsis covers the unmentioned dimensions
    ellipsis_mask |= int64_t{1} << sparse_dims;
    ++sparse_dims;
  }

  DenseSliceSpec spec;
  spec.dims.resize(rank);
  int full = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    if (Bit(ellipsis_mask, i)) {
      const int next = std::min(rank - (sparse_dims - i) + 1 + new_axes_after_ellipsis, rank);
      for (; full < next; ++full) spec.output_dims.push_back(full);
    } else if (Bit(masks.new_axis, i)) {
      spec.output_dims.push_back(kNewAxis);
    } else {
      if (full == rank) {
        return absl::InvalidArgumentError(
            absl::StrCat("slice spec has more index entries than the input's rank ", rank));
      }
      spec.dims[full] = {.begin = begin[i],
                         .end = end[i],
                         .stride = strides[i],
                         .begin_masked = Bit(masks.begin, i),
                         .end_masked = Bit(masks.end, i),
                         .shrink = Bit(masks.shrink_axis, i)};
      spec.output_dims.push_back(spec.dims[full].shrink ? kShrinkAxis : full);
      ++full;
    }
  }
  return spec;
}

absl::Status CheckSliceDim(const DenseSliceDim& dim, int index) {
  if (dim.stride == 0) return absl::InvalidArgumentError(absl::StrCat("strides[", index, "] is 0"));
  if (dim.shrink && dim.stride < 0) {
    return absl::InvalidArgumentError("only stride 1 is allowed on a shrunk (indexed) dimension");
  }
  return absl::OkStatus();
}

absl::StatusOr<SliceDim> ClampSliceDim(const DenseSliceDim& dim, int index, int64_t size) {
  DFC_RETURN_IF_ERROR(CheckSliceDim(dim, index));
  const int64_t s = dim.stride;
  int64_t b = dim.begin, e = dim.end;
  if (dim.shrink) {
    // The end of a shrunk dimension is ignored: foo[-1] comes as begin -1, end 0.
    const int64_t forward = b < 0 ? size + b : b;
    if (forward < 0 || forward >= size) {
      return absl::InvalidArgumentError(absl::StrCat("slice index ", b, " of dimension ", index,
                                                     " is out of bounds for size ", size));
    }
    b = forward;
    e = forward + 1;
  } else {
    const int64_t lo = s > 0 ? 0 : -1;
    const int64_t hi = s > 0 ? size : size - 1;
    auto canonical = [&](int64_t x, bool masked, bool is_begin) {
      if (masked) return (s > 0) == is_begin ? lo : hi;
      const int64_t forward = x < 0 ? size + x : x;
      return std::clamp(forward, lo, hi);
    };
    b = canonical(b, dim.begin_masked, true);
    e = canonical(e, dim.end_masked, false);
  }
  const int64_t interval = e - b;
  int64_t count = 0;
  if (interval != 0 && (interval < 0) == (s < 0)) {
    count = interval / s + (interval % s != 0 ? 1 : 0);
  }
  return SliceDim{.begin = b, .stride = s, .size = count};
}

absl::StatusOr<StridedSliceResolution> ResolveStridedSlice(std::span<const int64_t> begin,
                                                           std::span<const int64_t> end,
                                                           std::span<const int64_t> strides,
                                                           const StridedSliceMasks& masks,
                                                           const Shape& input) {
  const int rank = static_cast<int>(input.size());
  DFC_ASSIGN_OR_RETURN(DenseSliceSpec dense, ExpandStridedSlice(begin, end, strides, masks, rank));
  StridedSliceResolution resolution;
  for (int i = 0; i < rank; ++i) {
    DFC_ASSIGN_OR_RETURN(SliceDim dim, ClampSliceDim(dense.dims[i], i, input[i]));
    resolution.dims.push_back(dim);
    resolution.processing_shape.push_back(dim.size);
  }
  for (int d : dense.output_dims) {
    if (d >= 0) resolution.final_shape.push_back(resolution.processing_shape[d]);
    if (d == kNewAxis) resolution.final_shape.push_back(1);
  }
  return resolution;
}

}  // namespace dfc
