// Translations of the layout ops where each output element comes from one input element through
// a per-dimension index map (runtime/reference/layout_slice.cc): Transpose, Tile, BroadcastTo,
// ReverseV2, Slice, StridedSlice, Pad, PadV2 and MirrorPad. Where the reference computes an
// offset per output index and dimension, the translation applies the same map as a view at that
// dimension's depth: Reindex (slices, strides, reversal), Repeat (tiling, broadcasting), Pad
// (padding), and adjacent Transposes (permutations).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "graph/op_semantics/strided_slice.h"
#include "ir/from_tf/layout_internal.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir::layout {
namespace {

template <typename T>
std::string VectorString(const std::vector<T>& v) {
  std::vector<std::string> parts;
  for (const T& x : v) parts.push_back(ArithExpr(x).ToString());
  return absl::StrCat("[", absl::StrJoin(parts, ","), "]");
}

// A per-dimension index vector (the reference's ReadPerDim): rank 1, one entry per dimension.
absl::StatusOr<std::vector<ArithExpr>> PerDim(const TranslateContext& ctx, int i,
                                              absl::string_view what, int rank) {
  DFC_ASSIGN_OR_RETURN(std::vector<ArithExpr> v, IndexVector(ctx, i, what, /*vector=*/true));
  if (static_cast<int>(v.size()) != rank) {
    return ctx.Error(absl::StrCat(what, " must be a vector with one entry per dimension (", rank,
                                  "), got ", v.size(), " entries"));
  }
  return v;
}

// --- Transpose, Tile, BroadcastTo, ReverseV2 --------------------------------------------------

Outputs TranslateTranspose(const TranslateContext& ctx) {
  DFC_ASSIGN_OR_RETURN(ExprPtr in, ctx.Input(0));
  const int rank = Rank(in);
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> perm, ConstantIndexVector(ctx, 1, "perm", true));
  if (static_cast<int>(perm.size()) != rank) {
    return ctx.Error(absl::StrCat("perm must be a vector with one entry per dimension (", rank,
                                  "), got ", VectorString(perm)));
  }
  std::vector<bool> seen(rank, false);
  std::vector<int> order;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p]) {
      return ctx.Error(absl::StrCat("perm ", VectorString(perm), " is not a permutation of 0..",
                                    rank - 1, " for ", DebugType(in)));
    }
    seen[p] = true;
    order.push_back(static_cast<int>(p));
  }
  return One(ctx, TransposeTensor(in, order));
}

// out[i] = in[i % n] along each dimension is the dimension's rows repeated m times and
// joined: Join $ Repeat(m) at the dimension's depth, with no modulo in the index arithmetic.
Outputs TranslateTile(const TranslateContext& ctx) {
  DFC_ASSIGN_OR_RETURN(ExprPtr in, ctx.Input(0));
  const int rank = Rank(in);
  DFC_ASSIGN_OR_RETURN(std::vector<ArithExpr> multiples, PerDim(ctx, 1, "multiples", rank));
  for (const ArithExpr& m : multiples) {
    if (std::optional<int64_t> c = m.AsConstant(); c && *c < 0) {
      return ctx.Error(
          absl::StrCat("cannot tile ", DebugType(in), " by multiples ", VectorString(multiples)));
    }
  }
  ExprPtr out = in;
  for (int d = 0; d < rank; ++d) {
    const ArithExpr& m = multiples[d];
    if (m == ArithExpr(1)) continue;
    absl::StatusOr<ExprPtr> tiled = MapAtDepth(out, d, [&](ExprPtr x) -> absl::StatusOr<ExprPtr> {
      DFC_ASSIGN_OR_RETURN(ExprPtr repeated, Call1(Repeat(m), x));
      return Call1(Join(), repeated);
    });
    if (!tiled.ok()) return ctx.node().Annotate(tiled.status());
    out = *tiled;
  }
  return std::vector<ExprPtr>{out};
}

// One-directional broadcasting: size-1 dimensions read their one row (Reindex with a
// constant index), then the leading dimensions the input lacks are Repeats.
Outputs TranslateBroadcastTo(const TranslateContext& ctx) {
  DFC_ASSIGN_OR_RETURN(ExprPtr in, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(std::vector<ArithExpr> shape, IndexVector(ctx, 1, "shape"));
  const SymbolicShape from = ShapeOfExpr(in);
  const int rank = static_cast<int>(shape.size());
  const int lead = rank - static_cast<int>(from.size());
  bool ok = lead >= 0;
  for (int d = 0; ok && d < rank; ++d) {
    const std::optional<int64_t> c = shape[d].AsConstant();
    ok = !(c && *c < 0) &&
         (d < lead || from[d - lead] == shape[d] || from[d - lead] == ArithExpr(1));
  }
  if (!ok) {
    return ctx.Error(
        absl::StrCat("cannot broadcast ", DebugType(in), " to shape ", VectorString(shape)));
  }
  ExprPtr out = in;
  for (int d = lead; d < rank; ++d) {
    if (from[d - lead] == shape[d]) continue;
    absl::StatusOr<ExprPtr> stretched = ReindexAt(out, d - lead, shape[d], 0);
    if (!stretched.ok()) return ctx.node().Annotate(stretched.status());
    out = *stretched;
  }
  for (int d = lead - 1; d >= 0; --d) {
    absl::StatusOr<ExprPtr> repeated = Call1(Repeat(shape[d]), out);
    if (!repeated.ok()) return ctx.node().Annotate(repeated.status());
    out = *repeated;
  }
  return std::vector<ExprPtr>{out};
}

Outputs TranslateReverseV2(const TranslateContext& ctx) {
  DFC_ASSIGN_OR_RETURN(ExprPtr in, ctx.Input(0));
  const int rank = Rank(in);
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ConstantIndexVector(ctx, 1, "axis"));
  std::vector<bool> reverse(rank, false);
  for (int64_t a : axes) {
    DFC_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, a, rank));
    if (reverse[axis]) {
      return ctx.Error(
          absl::StrCat("axis ", axis, " appears more than once in ", VectorString(axes)));
    }
    reverse[axis] = true;
  }
  const SymbolicShape shape = ShapeOfExpr(in);
  ExprPtr out = in;
  for (int d = 0; d < rank; ++d) {
    const std::optional<int64_t> n = shape[d].AsConstant();
    if (!reverse[d] || (n && *n <= 1)) continue;
    absl::StatusOr<ExprPtr> reversed = ReindexAt(out, d, shape[d], shape[d] - 1 - IndexVar());
    if (!reversed.ok()) return ctx.node().Annotate(reversed.status());
    out = *reversed;
  }
  return std::vector<ExprPtr>{out};
}

// --- Slice, StridedSlice ----------------------------------------------------------------------

// One dimension of a slice: `size` elements, element i at begin + stride * i of the input.
struct DimSlice {
  ArithExpr begin;
  int64_t stride = 1;
  ArithExpr size;
};

// Reindexes every dimension whose slice is not the whole dimension.
absl::StatusOr<ExprPtr> SliceDims(const ExprPtr& in, const std::vector<DimSlice>& slices) {
  const SymbolicShape shape = ShapeOfExpr(in);
  ExprPtr out = in;
  for (int d = 0; d < static_cast<int>(slices.size()); ++d) {
    const DimSlice& s = slices[d];
    if (s.begin == ArithExpr(0) && s.stride == 1 && s.size == shape[d]) continue;
    DFC_ASSIGN_OR_RETURN(out,
                         ReindexAt(out, d, s.size, s.begin + ArithExpr(s.stride) * IndexVar()));
  }
  return out;
}

// A Slice whose begin is known only at run time (random_crop's offsets): dimension by
// dimension, a gather of Range(begin[d], begin[d] + size[d]). At refuses an index outside the
// input, as the reference refuses such a slice, except that an empty dimension reads no index, so
// its begin is not checked; size must be known (not -1, "to the end").
Outputs SliceAtRunTime(const TranslateContext& ctx, const ExprPtr& in,
                       const std::vector<ArithExpr>& size) {
  DFC_ASSIGN_OR_RETURN(ExprPtr begin, ctx.Input(1));
  const DType index = BaseDType(begin->type);
  const int rank = Rank(in);
  if ((index != DType::kInt32 && index != DType::kInt64) || Rank(begin) != 1 ||
      ShapeOfExpr(begin)[0] != ArithExpr(rank)) {
    return ctx.Error(
        absl::StrCat("begin is ", DebugType(begin), ", expected int32 or int64 [", rank, "]"));
  }
  for (int d = 0; d < rank; ++d) {
    const std::optional<int64_t> s = size[d].AsConstant();
    if (s && *s < 0) {
      return ctx.Error(
          absl::StrCat("size ", VectorString(size),
                       *s == -1 ? " runs to the end of dimension " : " is negative at dimension ",
                       d, " from a begin known only at run time"));
    }
  }
  const auto slice = [&](ExprPtr b) -> absl::StatusOr<ExprPtr> {
    ExprPtr out = in;
    const ExprPtr one = MakeLiteral(Scalar::Int(index, 1));
    for (int d = 0; d < rank; ++d) {
      DFC_ASSIGN_OR_RETURN(ExprPtr at, Call(At(), {b, MakeLiteral(Scalar::Int(DType::kInt64, d))}));
      DFC_ASSIGN_OR_RETURN(ExprPtr iota, Call(Iota(size[d], DType::kInt64), {}));
      const auto element = [&](ExprPtr i) { return Call(IndexRangeFun(index), {i, at, one}); };
      DFC_ASSIGN_OR_RETURN(ExprPtr indices, MapOver(iota, element, "i"));
      DFC_ASSIGN_OR_RETURN(out, GatherAt(out, indices, d));
    }
    return out;
  };
  return One(ctx, Bind(begin, slice, "begin"));
}

// begin and size per dimension; size -1 is "to the end". Bounds that involve a size variable
// cannot be checked here and are trusted.
Outputs TranslateSlice(const TranslateContext& ctx) {
  DFC_ASSIGN_OR_RETURN(ExprPtr in, ctx.Input(0));
  const int rank = Rank(in);
  DFC_ASSIGN_OR_RETURN(std::vector<ArithExpr> size, PerDim(ctx, 2, "size", rank));
  if (ctx.Input(1).ok()) return SliceAtRunTime(ctx, in, size);
  DFC_ASSIGN_OR_RETURN(std::vector<ArithExpr> begin, PerDim(ctx, 1, "begin", rank));
  const SymbolicShape shape = ShapeOfExpr(in);
  std::vector<DimSlice> slices;
  for (int d = 0; d < rank; ++d) {
    const std::optional<int64_t> b = begin[d].AsConstant();
    const std::optional<int64_t> s = size[d].AsConstant();
    const std::optional<int64_t> n = shape[d].AsConstant();
    bool bad = (b && *b < 0) || (s && *s < -1);
    if (b && s && n) bad = bad || *b > *n || (*s != -1 && *s > *n - *b);
    if (bad) {
      return ctx.Error(absl::StrCat("slice begin ", VectorString(begin), " size ",
                                    VectorString(size), " is out of bounds for ", DebugType(in),
                                    " at dimension ", d));
    }
    const bool to_end = s && *s == -1;
    slices.push_back({begin[d], 1, to_end ? shape[d] - begin[d] : size[d]});
  }
  return One(ctx, SliceDims(in, slices));
}

// StridedSlice as graph/op_semantics/strided_slice.h resolves it, dimension by dimension so
// that a dimension of symbolic size can be taken too: whole (both ends masked, or a begin of 0
// with a masked end) or indexed, since clamping needs its value.
Outputs TranslateStridedSlice(const TranslateContext& ctx) {
  if (ctx.num_inputs() != 4) {
    return ctx.Error(absl::StrCat("expects 4 inputs, got ", ctx.num_inputs()));
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr in, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> begin_in, ConstantIndexVector(ctx, 1, "begin", true));
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> end_in, ConstantIndexVector(ctx, 2, "end", true));
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> stride_in,
                       ConstantIndexVector(ctx, 3, "strides", true));
  if (begin_in.size() != end_in.size() || begin_in.size() != stride_in.size()) {
    return ctx.Error(absl::StrCat("begin, end and strides must be vectors of one length, got ",
                                  begin_in.size(), ", ", end_in.size(), " and ", stride_in.size(),
                                  " entries"));
  }
  const SymbolicShape input = ShapeOfExpr(in);
  const int rank = static_cast<int>(input.size());
  if (rank >= 63) return ctx.Error(absl::StrCat("input rank ", rank, " is too large"));
  DFC_ASSIGN_OR_RETURN(StridedSliceMasks masks, ReadStridedSliceMasks(ctx.node()));
  absl::StatusOr<DenseSliceSpec> dense =
      ExpandStridedSlice(begin_in, end_in, stride_in, masks, rank);
  if (!dense.ok()) return ctx.node().Annotate(dense.status());

  std::vector<DimSlice> slices;
  for (int i = 0; i < rank; ++i) {
    const DenseSliceDim& d = dense->dims[i];
    const int64_t s = d.stride;
    const std::optional<int64_t> dim = input[i].AsConstant();
    if (!dim) {
      if (absl::Status checked = CheckSliceDim(d, i); !checked.ok()) {
        return ctx.node().Annotate(checked);
      }
      // An index into a dimension of unknown size n (x[0], x[-1]) is trusted to be in range,
      // as Slice's bounds are: a run where it is not reads outside the input.
      if (d.shrink) {
        slices.push_back({d.begin < 0 ? input[i] + d.begin : ArithExpr(d.begin), s, 1});
        continue;
      }
      // Otherwise only the whole dimension, in either direction: clamping needs n's value.
      const bool whole = d.end_masked && (d.begin_masked || (s > 0 && d.begin == 0));
      if (!whole) {
        return ctx.Error(absl::StrCat("dimension ", i, " of ", DebugType(in),
                                      " has a symbolic size: StridedSlice can only take it "
                                      "whole or index it"));
      }
      const int64_t step = s > 0 ? s : -s;
      const ArithExpr size = step == 1 ? input[i] : ArithExpr::CeilDiv(input[i], step);
      slices.push_back({s > 0 ? ArithExpr(0) : input[i] - 1, s, size});
      continue;
    }
    absl::StatusOr<SliceDim> clamped = ClampSliceDim(d, i, *dim);
    if (!clamped.ok()) return ctx.node().Annotate(clamped.status());
    // An empty slice reads nothing: begin 0 keeps its index function inside the input.
    slices.push_back({clamped->size == 0 ? 0 : clamped->begin, s, clamped->size});
  }

  absl::StatusOr<ExprPtr> processed = SliceDims(in, slices);
  if (!processed.ok()) return ctx.node().Annotate(processed.status());
  SymbolicShape final_shape;
  for (int g : dense->output_dims) {
    if (g >= 0) final_shape.push_back(slices[g].size);
    if (g == kNewAxis) final_shape.push_back(1);
  }
  // The final shape, dimension by dimension: new axes are Repeat(1), shrunk ones At 0.
  ExprPtr out = *processed;
  int depth = 0;
  for (int g : dense->output_dims) {
    absl::StatusOr<ExprPtr> step = out;
    if (g == kNewAxis) {
      step = InsertUnitDim(out, depth++);
    } else if (g == kShrinkAxis) {
      step = RemoveUnitDim(out, depth);
    } else {
      ++depth;
    }
    if (!step.ok()) return ctx.node().Annotate(step.status());
    out = *step;
  }
  if (ShapeOfExpr(out) != final_shape) return One(ctx, Reshape(*processed, final_shape));
  return std::vector<ExprPtr>{out};
}

// --- Pad, PadV2, MirrorPad --------------------------------------------------------------------

// paddings: an int32/int64 [rank, 2] matrix of non-negative (before, after) pairs, known at
// compile time.
absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> ReadPaddings(const TranslateContext& ctx,
                                                                      const ExprPtr& in) {
  const Tensor* p = ctx.StaticTensor(1);
  if (p == nullptr) return ctx.Error("paddings must be known when the graph is compiled");
  const int rank = Rank(in);
  if ((p->dtype() != DType::kInt32 && p->dtype() != DType::kInt64) || p->rank() != 2 ||
      p->dim(0) != rank || p->dim(1) != 2) {
    return ctx.Error(absl::StrCat("paddings must be an int32 or int64 [", rank, ",2] matrix for ",
                                  DebugType(in), ", got ", p->DebugType()));
  }
  std::vector<std::pair<int64_t, int64_t>> pads;
  const SymbolicShape shape = ShapeOfExpr(in);
  for (int d = 0; d < rank; ++d) {
    const int64_t b = p->ElementAsInt64(2 * d);
    const int64_t a = p->ElementAsInt64(2 * d + 1);
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    const int64_t n = shape[d].AsConstant().value_or(0);
    if (b < 0 || a < 0 || b > kMax - n || a > kMax - n - b) {
      return ctx.Error(absl::StrCat("paddings (", b, ", ", a, ") of dimension ", d,
                                    " must be non-negative and fit in int64"));
    }
    pads.push_back({b, a});
  }
  return pads;
}

// Pad with a constant known at compile time: the Pad pattern at each dimension's depth.
absl::StatusOr<ExprPtr> PadConstant(const ExprPtr& in,
                                    const std::vector<std::pair<int64_t, int64_t>>& pads,
                                    const Scalar& value) {
  ExprPtr out = in;
  for (int d = 0; d < static_cast<int>(pads.size()); ++d) {
    const auto [b, a] = pads[d];
    if (b == 0 && a == 0) continue;
    DFC_ASSIGN_OR_RETURN(out, ApplyAt(out, d, Pad(b, a, PadMode::kConstant, value)));
  }
  return out;
}

// Pad with a value only known at run time (PadV2's constant_values fed, say): the Pad pattern
// holds a constant, so each padded dimension is instead Concat(rows of `value`, x, rows of
// `value`), the rows built from the scalar by Repeats — views still, and no Select.
absl::StatusOr<ExprPtr> PadRuntime(const ExprPtr& in,
                                   const std::vector<std::pair<int64_t, int64_t>>& pads,
                                   const ExprPtr& value) {
  ExprPtr out = in;
  for (int d = 0; d < static_cast<int>(pads.size()); ++d) {
    const auto [b, a] = pads[d];
    if (b == 0 && a == 0) continue;
    DFC_ASSIGN_OR_RETURN(
        out, MapAtDepth(out, d, [&, b = b, a = a](ExprPtr x) -> absl::StatusOr<ExprPtr> {
          SymbolicShape row_shape = ShapeOfExpr(x);
          row_shape.erase(row_shape.begin());
          DFC_ASSIGN_OR_RETURN(ExprPtr row, Filled(value, row_shape));
          std::vector<ExprPtr> parts;
          if (b > 0) {
            DFC_ASSIGN_OR_RETURN(ExprPtr before, Call1(Repeat(b), row));
            parts.push_back(before);
          }
          parts.push_back(x);
          if (a > 0) {
            DFC_ASSIGN_OR_RETURN(ExprPtr after, Call1(Repeat(a), row));
            parts.push_back(after);
          }
          return Call(Concat(static_cast<int>(parts.size())), parts);
        }));
  }
  return out;
}

Outputs TranslatePadImpl(const TranslateContext& ctx, bool has_constant) {
  const int expected = has_constant ? 3 : 2;
  if (ctx.num_inputs() != expected) {
    return ctx.Error(absl::StrCat("expects ", expected, " inputs, got ", ctx.num_inputs()));
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr in, ctx.Input(0));
  const DType dtype = BaseDType(in->type);
  Scalar zero = IsFloating(dtype) ? Scalar::Float(dtype, 0) : Scalar::Int(dtype, 0);
  const Tensor* known_fill = nullptr;
  ExprPtr runtime_fill;
  if (has_constant) {
    DFC_ASSIGN_OR_RETURN(DType fill_dtype, ctx.InputDType(2));
    DFC_ASSIGN_OR_RETURN(SymbolicShape fill_shape, ctx.InputShape(2));
    if (fill_dtype != dtype || NumElements(fill_shape) != ArithExpr(1)) {
      return ctx.Error(absl::StrCat("constant_values must be a ", DTypeName(dtype), " scalar, got ",
                                    DTypeName(fill_dtype), ShapeString(fill_shape)));
    }
    known_fill = ctx.StaticTensor(2);
    if (known_fill == nullptr) {
      DFC_ASSIGN_OR_RETURN(ExprPtr fill, ctx.Input(2));
      absl::StatusOr<ExprPtr> scalar = Reshape(fill, {});
      if (!scalar.ok()) return ctx.node().Annotate(scalar.status());
      runtime_fill = *scalar;
    }
  }
  DFC_ASSIGN_OR_RETURN(auto pads, ReadPaddings(ctx, in));
  if (runtime_fill != nullptr) {
    // The value is read inside the Maps: bound once.
    return One(ctx, Bind(runtime_fill, [&](ExprPtr v) { return PadRuntime(in, pads, v); }));
  }
  return One(ctx, PadConstant(in, pads, known_fill ? Scalar::FromTensor(*known_fill, 0) : zero));
}

Outputs TranslatePad(const TranslateContext& ctx) { return TranslatePadImpl(ctx, false); }
Outputs TranslatePadV2(const TranslateContext& ctx) { return TranslatePadImpl(ctx, true); }

// REFLECT mirrors around the edge element and so allows at most size-1 on each side;
// SYMMETRIC repeats it and allows size. The Pad pattern's kReflect and kSymmetric are exactly
// these.
Outputs TranslateMirrorPad(const TranslateContext& ctx) {
  if (ctx.num_inputs() != 2) {
    return ctx.Error(absl::StrCat("expects 2 inputs, got ", ctx.num_inputs()));
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr in, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(std::string mode, ctx.node().GetString("mode"));
  if (mode != "REFLECT" && mode != "SYMMETRIC") {
    return ctx.Error(absl::StrCat("mode must be REFLECT or SYMMETRIC, got \"", mode, "\""));
  }
  const bool reflect = mode == "REFLECT";
  DFC_ASSIGN_OR_RETURN(auto pads, ReadPaddings(ctx, in));
  const SymbolicShape shape = ShapeOfExpr(in);
  ExprPtr out = in;
  for (int d = 0; d < static_cast<int>(pads.size()); ++d) {
    const auto [b, a] = pads[d];
    const std::optional<int64_t> n = shape[d].AsConstant();
    if (!n) {
      if (b == 0 && a == 0) continue;
      return ctx.Error(absl::StrCat(mode, " padding of dimension ", d, " of ", DebugType(in),
                                    " needs a static size"));
    }
    const int64_t limit = *n - (reflect ? 1 : 0);
    if (b > limit || a > limit) {
      return ctx.Error(absl::StrCat(mode, " paddings (", b, ", ", a, ") of dimension ", d,
                                    " exceed ", limit, " for ", DebugType(in)));
    }
    if (b == 0 && a == 0) continue;
    absl::StatusOr<ExprPtr> padded =
        ApplyAt(out, d, Pad(b, a, reflect ? PadMode::kReflect : PadMode::kSymmetric));
    if (!padded.ok()) return ctx.node().Annotate(padded.status());
    out = *padded;
  }
  return std::vector<ExprPtr>{out};
}

}  // namespace

void RegisterSliceTranslations(TranslationTable& table) {
  table.push_back({"Transpose", Translation{&TranslateTranspose, {1}}});
  table.push_back({"Tile", Translation{&TranslateTile, {1}}});
  table.push_back({"BroadcastTo", Translation{&TranslateBroadcastTo, {1}}});
  table.push_back({"ReverseV2", Translation{&TranslateReverseV2, {1}}});
  table.push_back(
      {"Slice", Translation{.fn = &TranslateSlice, .static_inputs = {2}, .static_if_known = {1}}});
  table.push_back({"StridedSlice", Translation{&TranslateStridedSlice, {1, 2, 3}}});
  table.push_back({"Pad", Translation{&TranslatePad, {1}}});
  // constant_values is data: a constant uses the Pad pattern, a fed value Concat + Repeat.
  table.push_back({"PadV2", Translation{&TranslatePadV2, {1}}});
  table.push_back({"MirrorPad", Translation{&TranslateMirrorPad, {1}}});
}

}  // namespace dfc::ir::layout
