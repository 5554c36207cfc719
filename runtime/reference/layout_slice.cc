// Reference kernels for layout ops where each output element comes from one input element
// through a per-dimension index map: Transpose, Tile, BroadcastTo, ReverseV2, Slice,
// StridedSlice, Pad, PadV2 and MirrorPad. Each kernel only says, per output dimension, which
// input offset an output index reads (or "padding"); MapCopy does the copying for all of them.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "graph/op_semantics/strided_slice.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {
namespace {

// offset(d, i) is the input element offset contributed by output index i of dimension d, or
// kPad when that output index lies in padding. It is a function rather than a table so that
// no bookkeeping grows with the output (a 1-D int8 output would need 8 bytes of table per
// element).
constexpr int64_t kPad = -1;

template <typename T, typename OffsetFn>
void MapCopyInto(const T* in, const Shape& shape, const std::vector<int64_t>& block,
                 const OffsetFn& offset, T fill, int d, int64_t base, T*& out) {
  const bool innermost = d + 1 == static_cast<int>(shape.size());
  for (int64_t i = 0; i < shape[d]; ++i) {
    const int64_t off = offset(d, i);
    if (off == kPad) {
      out = std::fill_n(out, block[d + 1], fill);
    } else if (innermost) {
      *out++ = in[base + off];
    } else {
      MapCopyInto(in, shape, block, offset, fill, d + 1, base + off, out);
    }
  }
}

// Allocates the output of `shape` and fills out[i...] = in[sum_d offset(d, i_d)], or `fill`
// (a scalar of in's dtype, or nullptr for zero) where any offset is kPad.
template <typename OffsetFn>
absl::StatusOr<Tensor> MapCopy(const KernelContext& ctx, const Tensor& in, const Shape& shape,
                               const Tensor* fill, const OffsetFn& offset) {
  absl::StatusOr<Tensor> out = AllocateOutput(ctx, in.dtype(), shape);
  if (!out.ok() || out->num_elements() == 0) return out;
  std::vector<int64_t> block(shape.size() + 1, 1);
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) block[d] = block[d + 1] * shape[d];
  DispatchDType(in.dtype(), [&]<typename T>() {
    T* dst = out->template mutable_data<T>();
    const T fill_value = fill != nullptr ? fill->data<T>()[0] : T{};
    if (shape.empty()) {
      *dst = in.data<T>()[0];
    } else {
      MapCopyInto(in.data<T>(), shape, block, offset, fill_value, 0, 0, dst);
    }
  });
  return out;
}

// Row-major strides of `t`, or zeros when it is empty: then no offset is ever read, and the
// products of its other dimensions could overflow.
std::vector<int64_t> InputStrides(const Tensor& t) {
  return t.num_elements() > 0 ? Strides(t.shape()) : std::vector<int64_t>(t.rank(), 0);
}

std::string VectorString(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ","), "]");
}

// Reads an index vector input that must have one entry per dimension of a rank-`rank` tensor.
absl::StatusOr<std::vector<int64_t>> ReadPerDim(const KernelContext& ctx, int i,
                                                absl::string_view what, int rank) {
  absl::StatusOr<std::vector<int64_t>> v = ReadIndexVector(ctx, i, what);
  DFC_RETURN_IF_ERROR(v.status());
  if (static_cast<int>(v->size()) != rank || ctx.input(i).rank() != 1) {
    return ctx.Error(absl::StrCat(what, " must be a vector with one entry per dimension (", rank,
                                  "), got ", ctx.input(i).DebugType()));
  }
  return v;
}

absl::Status Finish(KernelContext& ctx, absl::StatusOr<Tensor> out) {
  DFC_RETURN_IF_ERROR(out.status());
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

absl::Status Transpose(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  const Tensor& in = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> perm, ReadPerDim(ctx, 1, "perm", in.rank()));
  std::vector<bool> seen(in.rank(), false);
  Shape shape(in.rank());
  for (int d = 0; d < in.rank(); ++d) {
    const int64_t p = perm[d];
    if (p < 0 || p >= in.rank() || seen[p]) {
      return ctx.Error(absl::StrCat("perm ", VectorString(perm), " is not a permutation of 0..",
                                    in.rank() - 1, " for ", in.DebugType()));
    }
    seen[p] = true;
    shape[d] = in.dim(static_cast<int>(p));
  }
  const std::vector<int64_t> strides = InputStrides(in);
  return Finish(ctx, MapCopy(ctx, in, shape, nullptr,
                             [&](int d, int64_t i) { return i * strides[perm[d]]; }));
}

absl::Status Tile(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  const Tensor& in = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> multiples, ReadPerDim(ctx, 1, "multiples", in.rank()));
  Shape shape(in.rank());
  for (int d = 0; d < in.rank(); ++d) {
    const int64_t m = multiples[d];
    if (m < 0 || (m > 0 && in.dim(d) > std::numeric_limits<int64_t>::max() / m)) {
      return ctx.Error(
          absl::StrCat("cannot tile ", in.DebugType(), " by multiples ", VectorString(multiples)));
    }
    shape[d] = in.dim(d) * m;
  }
  const std::vector<int64_t> strides = InputStrides(in);
  return Finish(ctx, MapCopy(ctx, in, shape, nullptr,
                             [&](int d, int64_t i) { return (i % in.dim(d)) * strides[d]; }));
}

// One-directional broadcasting: each input dimension (aligned to the right) must equal the
// target dimension or be 1.
absl::Status BroadcastTo(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  const Tensor& in = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadIndexVector(ctx, 1, "shape"));
  const int rank = static_cast<int>(shape.size());
  const int lead = rank - in.rank();
  bool ok = lead >= 0;
  for (int d = 0; ok && d < rank; ++d) {
    ok = shape[d] >= 0 && (d < lead || in.dim(d - lead) == shape[d] || in.dim(d - lead) == 1);
  }
  if (!ok) {
    return ctx.Error(
        absl::StrCat("cannot broadcast ", in.DebugType(), " to shape ", VectorString(shape)));
  }
  const std::vector<int64_t> strides = InputStrides(in);
  return Finish(ctx, MapCopy(ctx, in, shape, nullptr, [&](int d, int64_t i) -> int64_t {
                  if (d < lead || in.dim(d - lead) == 1) return 0;
                  return i * strides[d - lead];
                }));
}

absl::Status ReverseV2(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  const Tensor& in = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ReadIndexVector(ctx, 1, "axis"));
  std::vector<bool> reverse(in.rank(), false);
  for (int64_t a : axes) {
    DFC_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, a, in.rank()));
    if (reverse[axis]) {
      return ctx.Error(
          absl::StrCat("axis ", axis, " appears more than once in ", VectorString(axes)));
    }
    reverse[axis] = true;
  }
  const std::vector<int64_t> strides = InputStrides(in);
  return Finish(ctx, MapCopy(ctx, in, in.shape(), nullptr, [&](int d, int64_t i) {
                  return (reverse[d] ? in.dim(d) - 1 - i : i) * strides[d];
                }));
}

absl::Status Slice(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  const Tensor& in = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> begin, ReadPerDim(ctx, 1, "begin", in.rank()));
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> size, ReadPerDim(ctx, 2, "size", in.rank()));
  Shape shape(in.rank());
  for (int d = 0; d < in.rank(); ++d) {
    const int64_t b = begin[d];
    const int64_t s = size[d];
    if (b < 0 || b > in.dim(d) || s < -1 || (s != -1 && s > in.dim(d) - b)) {
      return ctx.Error(absl::StrCat("slice begin ", VectorString(begin), " size ",
                                    VectorString(size), " is out of bounds for ", in.DebugType(),
                                    " at dimension ", d));
    }
    shape[d] = s == -1 ? in.dim(d) - b : s;
  }
  const std::vector<int64_t> strides = InputStrides(in);
  return Finish(ctx, MapCopy(ctx, in, shape, nullptr,
                             [&](int d, int64_t i) { return (begin[d] + i) * strides[d]; }));
}

// --- StridedSlice --------------------------------------------------------------------------------
// The spec is resolved by graph/op_semantics/strided_slice.h; the kernel copies what it says.

absl::Status StridedSlice(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 4));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  const Tensor& in = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> begin, ReadIndexVector(ctx, 1, "begin"));
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> end, ReadIndexVector(ctx, 2, "end"));
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ReadIndexVector(ctx, 3, "strides"));
  if (ctx.input(1).rank() != 1 || ctx.input(2).rank() != 1 || ctx.input(3).rank() != 1 ||
      begin.size() != end.size() || begin.size() != strides.size()) {
    return ctx.Error(absl::StrCat("begin, end and strides must be vectors of one length, got ",
                                  ctx.input(1).DebugType(), ", ", ctx.input(2).DebugType(), " and ",
                                  ctx.input(3).DebugType()));
  }
  if (in.rank() >= 63) return ctx.Error(absl::StrCat("input rank ", in.rank(), " is too large"));
  DFC_ASSIGN_OR_RETURN(StridedSliceMasks masks, ReadStridedSliceMasks(ctx.node()));
  absl::StatusOr<StridedSliceResolution> spec =
      ResolveStridedSlice(begin, end, strides, masks, in.shape());
  if (!spec.ok()) return ctx.node().Annotate(spec.status());
  const std::vector<int64_t> in_strides = InputStrides(in);
  absl::StatusOr<Tensor> out =
      MapCopy(ctx, in, spec->processing_shape, nullptr, [&](int d, int64_t i) {
        return (spec->dims[d].begin + i * spec->dims[d].stride) * in_strides[d];
      });
  DFC_RETURN_IF_ERROR(out.status());
  return Finish(ctx, out->Reshaped(spec->final_shape));
}

// --- Pad, PadV2, MirrorPad -----------------------------------------------------------------------

// Reads paddings, an int32/int64 [rank, 2] matrix of non-negative (before, after) pairs, and
// returns the padded shape.
absl::StatusOr<Shape> ReadPaddings(const KernelContext& ctx, const Tensor& in,
                                   std::vector<int64_t>& before) {
  const Tensor& p = ctx.input(1);
  if ((p.dtype() != DType::kInt32 && p.dtype() != DType::kInt64) || p.rank() != 2 ||
      p.dim(0) != in.rank() || p.dim(1) != 2) {
    return ctx.Error(absl::StrCat("paddings must be an int32 or int64 [", in.rank(),
                                  ",2] matrix for ", in.DebugType(), ", got ", p.DebugType()));
  }
  Shape shape(in.rank());
  before.assign(in.rank(), 0);
  for (int d = 0; d < in.rank(); ++d) {
    const int64_t b = p.ElementAsInt64(2 * d);
    const int64_t a = p.ElementAsInt64(2 * d + 1);
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    if (b < 0 || a < 0 || b > kMax - in.dim(d) || a > kMax - in.dim(d) - b) {
      return ctx.Error(absl::StrCat("paddings (", b, ", ", a, ") of dimension ", d,
                                    " must be non-negative and fit in int64"));
    }
    before[d] = b;
    shape[d] = b + in.dim(d) + a;
  }
  return shape;
}

// Pad (zero) and PadV2 (constant_values).
absl::Status PadImpl(KernelContext& ctx, bool has_constant) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, has_constant ? 3 : 2));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  const Tensor& in = ctx.input(0);
  const Tensor* fill = nullptr;
  if (has_constant) {
    fill = &ctx.input(2);
    if (fill->dtype() != in.dtype() || fill->num_elements() != 1) {
      return ctx.Error(absl::StrCat("constant_values must be a ", DTypeName(in.dtype()),
                                    " scalar, got ", fill->DebugType()));
    }
  }
  std::vector<int64_t> before;
  DFC_ASSIGN_OR_RETURN(Shape shape, ReadPaddings(ctx, in, before));
  const std::vector<int64_t> strides = InputStrides(in);
  return Finish(ctx, MapCopy(ctx, in, shape, fill, [&](int d, int64_t i) {
                  const int64_t j = i - before[d];
                  return j >= 0 && j < in.dim(d) ? j * strides[d] : kPad;
                }));
}

absl::Status Pad(KernelContext& ctx) { return PadImpl(ctx, false); }
absl::Status PadV2(KernelContext& ctx) { return PadImpl(ctx, true); }

// REFLECT mirrors around the edge element ([1,2,3] padded by 2 -> 3,2,[1,2,3],2,1) and so
// allows at most size-1 on each side; SYMMETRIC repeats it (2,1,[1,2,3],3,2) and allows size.
absl::Status MirrorPad(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  const Tensor& in = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(std::string mode, ctx.node().GetString("mode"));
  if (mode != "REFLECT" && mode != "SYMMETRIC") {
    return ctx.Error(absl::StrCat("mode must be REFLECT or SYMMETRIC, got \"", mode, "\""));
  }
  const bool reflect = mode == "REFLECT";
  std::vector<int64_t> before;
  DFC_ASSIGN_OR_RETURN(Shape shape, ReadPaddings(ctx, in, before));
  for (int d = 0; d < in.rank(); ++d) {
    const int64_t limit = in.dim(d) - (reflect ? 1 : 0);
    const int64_t after = shape[d] - in.dim(d) - before[d];
    if (before[d] > limit || after > limit) {
      return ctx.Error(absl::StrCat(mode, " paddings (", before[d], ", ", after, ") of dimension ",
                                    d, " exceed ", limit, " for ", in.DebugType()));
    }
  }
  const std::vector<int64_t> strides = InputStrides(in);
  return Finish(ctx, MapCopy(ctx, in, shape, nullptr, [&](int d, int64_t i) {
                  const int64_t n = in.dim(d);
                  int64_t j = i - before[d];
                  if (j < 0) j = reflect ? -j : -j - 1;
                  if (j >= n) j = reflect ? 2 * n - 2 - j : 2 * n - 1 - j;
                  return j * strides[d];
                }));
}

}  // namespace

void RegisterSliceKernels(KernelRegistry& registry) {
  registry.Register("Transpose", Transpose);
  registry.Register("Tile", Tile);
  registry.Register("BroadcastTo", BroadcastTo);
  registry.Register("ReverseV2", ReverseV2);
  registry.Register("Slice", Slice);
  registry.Register("StridedSlice", StridedSlice);
  registry.Register("Pad", Pad);
  registry.Register("PadV2", PadV2);
  registry.Register("MirrorPad", MirrorPad);
}

}  // namespace dfc::reference
