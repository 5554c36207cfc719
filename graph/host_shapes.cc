// Output shapes of host ops before they run (see host_shapes.h).
#include "graph/host_shapes.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "graph/control_flow.h"
#include "graph/dtype.h"
#include "graph/ops.h"
#include "graph/symbolic_fold.h"

namespace dfc {
namespace {

using folding::ConstInts;
using folding::FromPartialShape;
using folding::IsSymbolicScalar;
using folding::IsSymbolicVector;
using folding::RangeLength;
using folding::ShapeOnly;
using folding::TypeAttr;
using Infos = std::vector<TensorInfo>;
using Inputs = std::span<const TensorInfo>;

// The smaller of two dimensions, where the simplifier can tell.
std::optional<ArithExpr> Min(const ArithExpr& a, const ArithExpr& b) {
  if (a == b) return a;
  const std::optional<int64_t> x = a.AsConstant(), y = b.AsConstant();
  if (x && y) return ArithExpr(std::min(*x, *y));
  return std::nullopt;
}

SymbolicShape Leading(const SymbolicShape& shape, size_t drop) {
  return SymbolicShape(shape.begin(), shape.end() - static_cast<std::ptrdiff_t>(drop));
}

// Equal widths keep the shape; a wider input gains a last dimension of the ratio, and a
// narrower one loses its last dimension, which must be the ratio.
void BitcastShape(Inputs in, Infos& out) {
  const size_t from = SizeOf(in[0].dtype), to = SizeOf(out[0].dtype);
  if (!in[0].shape || from == 0 || to == 0) return;
  SymbolicShape shape = *in[0].shape;
  if (from > to) {
    shape.push_back(ArithExpr(static_cast<int64_t>(from / to)));
  } else if (from < to) {
    if (shape.empty() || shape.back() != ArithExpr(static_cast<int64_t>(to / from))) return;
    shape.pop_back();
  }
  out[0].shape = std::move(shape);
}

// TopK (k an attribute) and TopKV2 (k an input): values and indices of [..., k].
void TopKShape(const Node& node, Inputs in, Infos& out) {
  int64_t k = node.GetInt("k", -1).value_or(-1);
  if (!node.HasAttr("k")) {  // TopKV2's k as the folder knows it: a constant, or -1
    const bool known = in.size() == 2 && in[1].symbolic_value && in[1].symbolic_value->size() == 1;
    k = known ? (*in[1].symbolic_value)[0].AsConstant().value_or(-1) : -1;
  }
  if (out.size() == 2) out[1].dtype = node.GetType("index_type").value_or(DType::kInt32);
  if (k < 0 || !in[0].shape || in[0].shape->empty()) return;
  SymbolicShape shape = Leading(*in[0].shape, 1);
  shape.push_back(ArithExpr(k));
  for (TensorInfo& t : out) t.shape = shape;
}

// GatherNd(params, indices): indices' leading dimensions, then params' after the first q, where
// q is indices' last dimension.
void GatherNdShape(Inputs in, Infos& out) {
  if (in.size() != 2 || !in[0].shape || !in[1].shape || in[1].shape->empty()) return;
  const std::optional<int64_t> q = in[1].shape->back().AsConstant();
  if (!q || *q < 0 || *q > static_cast<int64_t>(in[0].shape->size())) return;
  SymbolicShape shape = Leading(*in[1].shape, 1);
  shape.insert(shape.end(), in[0].shape->begin() + *q, in[0].shape->end());
  out[0].shape = std::move(shape);
}

// ParallelConcat of N values of [1, ...]: [N, ...].
void ParallelConcatShape(Inputs in, Infos& out) {
  if (in.empty() || !in[0].shape || in[0].shape->empty()) return;
  SymbolicShape shape = *in[0].shape;
  shape[0] = ArithExpr(static_cast<int64_t>(in.size()));
  out[0].shape = std::move(shape);
}

// Svd of [..., m, n]: s [..., p] with p = min(m, n); u [..., m, m or p], v [..., n, n or p]
// when compute_uv (full_matrices picks the first).
void SvdShape(const Node& node, Inputs in, Infos& out) {
  if (out.size() != 3 || !in[0].shape || in[0].shape->size() < 2) return;
  const SymbolicShape& x = *in[0].shape;
  const ArithExpr& m = x[x.size() - 2];
  const ArithExpr& n = x.back();
  const std::optional<ArithExpr> p = Min(m, n);
  if (!p) return;
  SymbolicShape s = Leading(x, 2);
  s.push_back(*p);
  out[0].shape = s;
  if (!node.GetBool("compute_uv", true).value_or(true)) return;
  const bool full = node.GetBool("full_matrices", false).value_or(false);
  SymbolicShape u = Leading(x, 2), v = Leading(x, 2);
  u.insert(u.end(), {m, full ? m : *p});
  v.insert(v.end(), {n, full ? n : *p});
  out[1].shape = std::move(u);
  out[2].shape = std::move(v);
}

// The ops whose outputs' sizes depend on their values: each such dimension is a variable bound
// when the op runs.

// Unique(x) and UniqueWithCounts: y [u], idx like x, count [u].
void UniqueShapes(const Node& node, Inputs in, Infos& out, const FreshSize& fresh) {
  const ArithExpr u = fresh(0, 0);
  out[0].shape = SymbolicShape{u};
  for (size_t k = 1; k < out.size(); ++k)
    out[k].dtype = node.GetType("out_idx").value_or(DType::kInt32);
  if (out.size() >= 2) out[1].shape = in[0].shape;
  if (out.size() == 3) out[2].shape = SymbolicShape{u};
}

// ListDiff: out and idx [d].
void ListDiffShapes(const Node& node, Infos& out, const FreshSize& fresh) {
  if (out.size() != 2) return;
  const ArithExpr d = fresh(0, 0);
  for (TensorInfo& t : out) t.shape = SymbolicShape{d};
  out[1].dtype = node.GetType("out_idx").value_or(DType::kInt32);
}

// Where: int64 [w, rank].
void WhereShape(Inputs in, Infos& out, const FreshSize& fresh) {
  out[0].dtype = DType::kInt64;
  if (in[0].shape) {
    out[0].shape = SymbolicShape{fresh(0, 0), ArithExpr(static_cast<int64_t>(in[0].shape->size()))};
  }
}

// DynamicPartition: output i [n_i, data's dimensions after partitions' rank].
void DynamicPartitionShapes(Inputs in, Infos& out, const FreshSize& fresh) {
  if (in.size() != 2 || !in[0].shape || !in[1].shape || in[1].shape->size() > in[0].shape->size()) {
    return;
  }
  for (size_t k = 0; k < out.size(); ++k) {
    SymbolicShape shape{fresh(static_cast<int>(k), 0)};
    shape.insert(shape.end(), in[0].shape->begin() + in[1].shape->size(), in[0].shape->end());
    out[k].shape = std::move(shape);
  }
}

// The sorted Segment* ops: [the last id + 1, data's dimensions after the first].
void SortedSegmentShape(Inputs in, Infos& out, const FreshSize& fresh) {
  if (in.size() != 2 || !in[0].shape || in[0].shape->empty()) return;
  SymbolicShape shape{fresh(0, 0)};
  shape.insert(shape.end(), in[0].shape->begin() + 1, in[0].shape->end());
  out[0].shape = std::move(shape);
}

// NonMaxSuppression: the selected indices [m]; V5's scores [m] beside them; V4's and V5's
// valid count, a scalar, last.
void NonMaxSuppressionShapes(Inputs in, Infos& out, const FreshSize& fresh) {
  const ArithExpr m = fresh(0, 0);
  out[0] = {.dtype = DType::kInt32, .shape = SymbolicShape{m}};
  if (out.size() == 3 && in.size() >= 2) out[1] = {.dtype = in[1].dtype, .shape = SymbolicShape{m}};
  if (out.size() >= 2) out.back() = {.dtype = DType::kInt32, .shape = SymbolicShape{}};
}

// The plumbing the folder shapes without folding it.

// Shape and ShapeN: output i is the shape vector of input i, [its rank].
void ShapeVectors(Inputs in, Infos& out) {
  for (size_t i = 0; i < out.size() && i < in.size(); ++i) {
    if (in[i].shape) out[i].shape = SymbolicShape{static_cast<int64_t>(in[i].shape->size())};
  }
}

// BroadcastArgs of two constant-length shape vectors: [the longer length].
void BroadcastArgsShape(Inputs in, Infos& out) {
  if (in.size() != 2 || !in[0].shape || !in[1].shape || in[0].shape->size() != 1 ||
      in[1].shape->size() != 1) {
    return;
  }
  const std::optional<int64_t> a = (*in[0].shape)[0].AsConstant();
  const std::optional<int64_t> b = (*in[1].shape)[0].AsConstant();
  if (a && b) out[0].shape = SymbolicShape{std::max(*a, *b)};
}

// DynamicStitch(indices..., data...): [the largest index + 1, data's dimensions after the
// indices'], the first known from constant indices, else only when it runs.
void DynamicStitchShape(Inputs in, Infos& out, const FreshSize& fresh) {
  const size_t n = in.size() / 2;
  if (n == 0 || !in[n].shape || !in[0].shape) return;
  int64_t max_index = -1;
  bool constant = true;
  for (size_t i = 0; i < n && constant; ++i) {
    const std::optional<std::vector<int64_t>> indices = ConstInts(in[i]);
    constant = indices.has_value();
    for (int64_t index : indices.value_or(std::vector<int64_t>())) {
      max_index = std::max(max_index, index);
    }
  }
  const size_t k = in[0].shape->size();
  if (k > in[n].shape->size()) return;
  SymbolicShape shape{constant ? ArithExpr(max_index + 1) : fresh(0, 0)};
  shape.insert(shape.end(), in[n].shape->begin() + k, in[n].shape->end());
  out[0].shape = std::move(shape);
}

// Fill(dims, value): the shape dims holds, when the folder knows it up to size variables.
bool FillShape(Inputs in, Infos& out) {
  if (in.size() != 2 || !IsSymbolicVector(in[0])) return false;
  out[0].shape = *in[0].symbolic_value;
  return true;
}

// Range(start, limit, delta): [its length], where it is provably non-negative.
bool RangeShape(Inputs in, Infos& out) {
  if (in.size() != 3 || !IsSymbolicScalar(in[0]) || !IsSymbolicScalar(in[1]) ||
      !IsSymbolicScalar(in[2])) {
    return false;
  }
  const std::optional<ArithExpr> n = RangeLength(
      (*in[0].symbolic_value)[0], (*in[1].symbolic_value)[0], (*in[2].symbolic_value)[0]);
  if (!n) return false;
  out[0].shape = SymbolicShape{*n};
  return true;
}

// MatrixDiag: [..., n] -> [..., n, n].
void MatrixDiagShape(Inputs in, Infos& out) {
  if (!in[0].shape || in[0].shape->empty()) return;
  SymbolicShape shape = *in[0].shape;
  shape.push_back(shape.back());
  out[0].shape = std::move(shape);
}

// MatrixDiagPart: [..., m, n] -> [..., min(m, n)], which the run tells where the simplifier
// cannot.
void MatrixDiagPartShape(Inputs in, Infos& out, const FreshSize& fresh) {
  if (!in[0].shape || in[0].shape->size() < 2) return;
  const SymbolicShape& x = *in[0].shape;
  SymbolicShape shape = Leading(x, 2);
  const std::optional<ArithExpr> p = Min(x[x.size() - 2], x.back());
  shape.push_back(p ? *p : fresh(0, static_cast<int>(shape.size())));
  out[0].shape = std::move(shape);
}

// BlockLSTM over x [time, batch, input] from cs_prev [batch, cell]: [time, batch, cell].
void BlockLstmShapes(Inputs in, Infos& out) {
  if (in.size() < 3 || !in[1].shape || in[1].shape->empty() || !in[2].shape) return;
  SymbolicShape shape{in[1].shape->front()};
  shape.insert(shape.end(), in[2].shape->begin(), in[2].shape->end());
  for (TensorInfo& t : out) t.shape = shape;
}

// The dtype of output `k` of `node` when nothing else is known, by its OpDef's `rule`.
DType OutputDType(const Node& node, const OutputDTypeRule& rule, Inputs in, size_t k) {
  if (rule.each_input) return k < in.size() ? in[k].dtype : DType::kInvalid;
  if (rule.input >= 0 && static_cast<size_t>(rule.input) < in.size() &&
      in[rule.input].dtype != DType::kInvalid) {
    return in[rule.input].dtype;
  }
  if (!rule.attr.empty() && node.HasAttr(rule.attr)) {
    return TypeAttr(node, rule.attr, DType::kInvalid);
  }
  if (rule.fixed != DType::kInvalid) return rule.fixed;
  if (node.HasAttr("dtype")) return TypeAttr(node, "dtype", DType::kInvalid);
  if (node.HasAttr("T")) return TypeAttr(node, "T", DType::kInvalid);
  return in.empty() ? DType::kInvalid : in[0].dtype;
}

}  // namespace

std::optional<SymbolicShape> BroadcastShapes(const SymbolicShape& x, const SymbolicShape& y) {
  const ArithExpr one(1);
  const size_t rank = std::max(x.size(), y.size());
  SymbolicShape out(rank, one);
  for (size_t j = 0; j < rank; ++j) {
    const ArithExpr& xd = j < x.size() ? x[x.size() - 1 - j] : one;
    const ArithExpr& yd = j < y.size() ? y[y.size() - 1 - j] : one;
    if (xd != one && yd != one && xd != yd) return std::nullopt;
    out[rank - 1 - j] = xd == one ? yd : xd;
  }
  return out;
}

Infos UnknownOutputs(const Node& node, Inputs in, int num_outputs) {
  const OpDef* def = FindOpDef(node.op);
  const OutputDTypeRule rule = def != nullptr ? def->output_dtype : OutputDTypeRule{};
  Infos out(std::max(num_outputs, 0));
  for (size_t k = 0; k < out.size(); ++k) out[k].dtype = OutputDType(node, rule, in, k);
  return out;
}

std::optional<Infos> HostShapes(const Node& node, Inputs in, int num_outputs,
                                const FreshSize& fresh) {
  const OpDef* def = FindOpDef(node.op);
  Infos out = UnknownOutputs(node, in, num_outputs);
  if (def == nullptr || in.empty() || out.empty()) return std::nullopt;
  using R = HostShapeRule;
  switch (def->host_shape) {
    case R::kUnknown:
      return std::nullopt;
    case R::kLikeInput0:
      for (TensorInfo& t : out) t.shape = in[0].shape;
      break;
    case R::kBroadcast: {
      std::optional<SymbolicShape> shape = in[0].shape;
      for (size_t k = 1; k < in.size() && shape; ++k) {
        shape = in[k].shape ? BroadcastShapes(*shape, *in[k].shape) : std::nullopt;
      }
      out[0].shape = std::move(shape);
      break;
    }
    case R::kEachInput:
      for (size_t i = 0; i < out.size() && i < in.size(); ++i) out[i] = ShapeOnly(in[i]);
      break;
    case R::kShapeVectors:
      ShapeVectors(in, out);
      break;
    case R::kScalar:
      out[0].shape = SymbolicShape{};
      break;
    case R::kBroadcastArgs:
      BroadcastArgsShape(in, out);
      break;
    case R::kDynamicStitch:
      DynamicStitchShape(in, out, fresh);
      break;
    case R::kFill:
      if (!FillShape(in, out)) return std::nullopt;
      break;
    case R::kRange:
      if (!RangeShape(in, out)) return std::nullopt;
      break;
    case R::kBitcast:
      BitcastShape(in, out);
      break;
    case R::kMatrixDiag:
      MatrixDiagShape(in, out);
      break;
    case R::kMatrixDiagPart:
      MatrixDiagPartShape(in, out, fresh);
      break;
    case R::kRnnCell:  // each gate and state has the previous state's shape, [batch, cell]
      if (in.size() >= 2) {
        for (TensorInfo& t : out) t.shape = in[1].shape;
      }
      break;
    case R::kBlockLstm:
      BlockLstmShapes(in, out);
      break;
    case R::kTopK:
      TopKShape(node, in, out);
      break;
    case R::kGatherNd:
      GatherNdShape(in, out);
      break;
    case R::kParallelConcat:
      ParallelConcatShape(in, out);
      break;
    case R::kSvd:
      SvdShape(node, in, out);
      break;
    case R::kUnique:
      UniqueShapes(node, in, out, fresh);
      break;
    case R::kListDiff:
      ListDiffShapes(node, out, fresh);
      break;
    case R::kWhere:
      WhereShape(in, out, fresh);
      break;
    case R::kDynamicPartition:
      DynamicPartitionShapes(in, out, fresh);
      break;
    case R::kSortedSegment:
      SortedSegmentShape(in, out, fresh);
      break;
    case R::kNonMaxSuppression:
      NonMaxSuppressionShapes(in, out, fresh);
      break;
  }
  return out;
}

void BranchShapes(const Node& node, Inputs in, Infos& out) {
  if (IsSwitch(node) && !in.empty()) {
    for (TensorInfo& t : out) t = ShapeOnly(in[0]);
  } else if (IsMerge(node) && !in.empty() && out.size() == 2) {
    const bool agree = std::all_of(in.begin(), in.end(), [&](const TensorInfo& t) {
      return t.dtype == in[0].dtype && t.shape && in[0].shape && *t.shape == *in[0].shape;
    });
    if (agree) out[0] = ShapeOnly(in[0]);
    out[1] = TensorInfo{.dtype = DType::kInt32, .shape = SymbolicShape{}};
  }
}

Infos StatefulShapes(const Node& node, const OpDef& def, Inputs in, int num_outputs) {
  Infos out = UnknownOutputs(node, in, num_outputs);
  if (out.empty()) return out;
  if (def.variable) {
    out[0].dtype = TypeAttr(node, "dtype", DType::kInvalid);
    if (absl::StatusOr<PartialShape> shape = node.GetShape("shape"); shape.ok()) {
      out[0].shape = FromPartialShape(*shape);
    }
  } else if (def.num_ref_inputs > 0) {
    // Assign with validate_shape=false may change the variable's shape: the value's then.
    const bool assign = node.op == "Assign";
    const TensorInfo* source = in.empty() ? nullptr : &in[0];
    absl::StatusOr<bool> validate = node.GetBool("validate_shape", true);
    if (assign && in.size() == 2 && (!in[0].shape || !validate.ok() || !*validate)) {
      source = &in[1];
    }
    if (source != nullptr) out[0] = ShapeOnly(*source);
    if (out[0].dtype == DType::kInvalid) out[0].dtype = OutputDType(node, def.output_dtype, in, 0);
  } else if (!def.any_dtype) {  // not control flow or a TensorArray
    // Random ops: dtype attribute (RandomUniformInt's Tout), shape input.
    out[0].dtype = TypeAttr(node, node.HasAttr("Tout") ? "Tout" : "dtype", DType::kInvalid);
    if (!in.empty() && IsSymbolicVector(in[0])) out[0].shape = *in[0].symbolic_value;
  }
  return out;
}

}  // namespace dfc
