// Output shapes of host ops before they run (see host_shapes.h).
#include "graph/host_shapes.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "absl/strings/match.h"
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
  if (node.op == "TopKV2") {  // k as the folder knows it: a constant, or -1
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
// when the op runs. Unique(x) and UniqueWithCounts: y [u], idx like x, count [u]; ListDiff:
// out and idx [d]; Where: [w, rank]; DynamicPartition: output i [n_i, data's dimensions after
// partitions' rank]; the sorted Segment* ops: [the last id + 1, data's dimensions after the
// first]; NonMaxSuppression: selected indices (and V5's scores) [m], the valid count a scalar.
bool DataDependentShapes(const Node& node, Inputs in, Infos& out, const FreshSize& fresh) {
  const absl::string_view op = node.op;
  const DType out_idx = node.GetType("out_idx").value_or(DType::kInt32);
  if (op == "Unique" || op == "UniqueWithCounts") {
    const ArithExpr u = fresh(0, 0);
    out[0].shape = SymbolicShape{u};
    for (size_t k = 1; k < out.size(); ++k) out[k].dtype = out_idx;
    out[1].shape = in[0].shape;
    if (out.size() == 3) out[2].shape = SymbolicShape{u};
    return true;
  }
  if (op == "ListDiff" && out.size() == 2) {
    const ArithExpr d = fresh(0, 0);
    for (TensorInfo& t : out) t.shape = SymbolicShape{d};
    out[1].dtype = out_idx;
    return true;
  }
  if (op == "Where") {
    out[0].dtype = DType::kInt64;
    if (in[0].shape) {
      out[0].shape =
          SymbolicShape{fresh(0, 0), ArithExpr(static_cast<int64_t>(in[0].shape->size()))};
    }
    return true;
  }
  if (op == "DynamicPartition") {
    if (in.size() == 2 && in[0].shape && in[1].shape &&
        in[1].shape->size() <= in[0].shape->size()) {
      for (size_t k = 0; k < out.size(); ++k) {
        SymbolicShape shape{fresh(static_cast<int>(k), 0)};
        shape.insert(shape.end(), in[0].shape->begin() + in[1].shape->size(), in[0].shape->end());
        out[k].shape = std::move(shape);
      }
    }
    return true;
  }
  if (op == "SegmentSum" || op == "SegmentMean" || op == "SegmentProd" || op == "SegmentMax" ||
      op == "SegmentMin") {
    if (in.size() == 2 && in[0].shape && !in[0].shape->empty()) {
      SymbolicShape shape{fresh(0, 0)};
      shape.insert(shape.end(), in[0].shape->begin() + 1, in[0].shape->end());
      out[0].shape = std::move(shape);
    }
    return true;
  }
  if (absl::StartsWith(op, "NonMaxSuppression")) {
    const ArithExpr m = fresh(0, 0);
    out[0] = {.dtype = DType::kInt32, .shape = SymbolicShape{m}};
    const bool scores = op == "NonMaxSuppressionV5";
    if (scores && out.size() >= 2) out[1] = {.dtype = in[1].dtype, .shape = SymbolicShape{m}};
    if ((op == "NonMaxSuppressionV4" || scores) && out.size() >= 2) {
      out.back() = {.dtype = DType::kInt32, .shape = SymbolicShape{}};
    }
    return true;
  }
  return false;
}

// The dtype of output `k` when nothing else is known: its OpDef's OutputDTypeRule.
DType OutputDType(const Node& node, Inputs in, size_t k) {
  const OpDef* def = FindOpDef(node.op);
  const OutputDTypeRule rule = def != nullptr ? def->output_dtype : OutputDTypeRule{};
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

std::optional<Infos> HostOpShapes(const Node& node, Inputs in, Infos out, const FreshSize& fresh) {
  const OpDef* def = FindOpDef(node.op);
  if (def == nullptr || in.empty() || out.empty()) return std::nullopt;
  const absl::string_view op = node.op;
  if (DataDependentShapes(node, in, out, fresh)) return out;
  if (op == "Bitcast") {
    BitcastShape(in, out);
  } else if (op == "MatrixDiag") {
    if (in[0].shape && !in[0].shape->empty()) {  // [..., n] -> [..., n, n]
      SymbolicShape shape = *in[0].shape;
      shape.push_back(shape.back());
      out[0].shape = std::move(shape);
    }
  } else if (op == "MatrixDiagPart") {
    // [..., m, n] -> [..., min(m, n)], which the run tells where the simplifier cannot.
    if (in[0].shape && in[0].shape->size() >= 2) {
      const SymbolicShape& x = *in[0].shape;
      SymbolicShape shape = Leading(x, 2);
      const std::optional<ArithExpr> p = Min(x[x.size() - 2], x.back());
      shape.push_back(p ? *p : fresh(0, static_cast<int>(shape.size())));
      out[0].shape = std::move(shape);
    }
  } else if (op == "LSTMBlockCell" || op == "GRUBlockCell") {
    // Each gate and state has the previous state's shape, [batch, cell].
    if (in.size() >= 2) {
      for (TensorInfo& t : out) t.shape = in[1].shape;
    }
  } else if (op == "BlockLSTM") {
    // Over x [time, batch, input] from cs_prev [batch, cell]: [time, batch, cell].
    if (in.size() >= 3 && in[1].shape && !in[1].shape->empty() && in[2].shape) {
      SymbolicShape shape{in[1].shape->front()};
      shape.insert(shape.end(), in[2].shape->begin(), in[2].shape->end());
      for (TensorInfo& t : out) t.shape = shape;
    }
  } else if (op == "TopK" || op == "TopKV2") {
    TopKShape(node, in, out);
  } else if (op == "GatherNd") {
    GatherNdShape(in, out);
  } else if (op == "ParallelConcat") {
    ParallelConcatShape(in, out);
  } else if (op == "Svd") {
    SvdShape(node, in, out);
  } else {
    switch (def->host_shape) {
      case HostShapeRule::kUnknown:
        return std::nullopt;
      case HostShapeRule::kLikeInput0:
        for (TensorInfo& t : out) t.shape = in[0].shape;
        break;
      case HostShapeRule::kBroadcast: {
        std::optional<SymbolicShape> shape = in[0].shape;
        for (size_t k = 1; k < in.size() && shape; ++k) {
          shape = in[k].shape ? BroadcastShapes(*shape, *in[k].shape) : std::nullopt;
        }
        out[0].shape = std::move(shape);
        break;
      }
    }
  }
  return out;
}

Infos UnknownOutputs(const Node& node, Inputs in, int num_outputs) {
  Infos out(std::max(num_outputs, 0));
  for (size_t k = 0; k < out.size(); ++k) out[k].dtype = OutputDType(node, in, k);
  return out;
}

std::optional<Infos> HostShapes(const Node& node, Inputs in, int num_outputs,
                                const FreshSize& fresh) {
  const absl::string_view op = node.op;
  Infos out = UnknownOutputs(node, in, num_outputs);
  if (op == "Shape" || op == "ShapeN") {
    for (size_t i = 0; i < out.size() && i < in.size(); ++i) {
      if (in[i].shape) out[i].shape = SymbolicShape{static_cast<int64_t>(in[i].shape->size())};
    }
    return out;
  }
  if (op == "Size" || op == "Rank") {
    out[0].shape = SymbolicShape{};
    return out;
  }
  if (op == "Identity" || op == "StopGradient" || op == "Snapshot" || op == "PreventGradient" ||
      op == "IdentityN") {
    for (size_t i = 0; i < out.size() && i < in.size(); ++i) out[i] = ShapeOnly(in[i]);
    return out;
  }
  if (op == "BroadcastArgs") {
    if (in.size() == 2 && in[0].shape && in[1].shape && in[0].shape->size() == 1 &&
        in[1].shape->size() == 1) {
      const std::optional<int64_t> a = (*in[0].shape)[0].AsConstant();
      const std::optional<int64_t> b = (*in[1].shape)[0].AsConstant();
      if (a && b) out[0].shape = SymbolicShape{std::max(*a, *b)};
    }
    return out;
  }
  if (op == "BroadcastGradientArgs") return out;
  if (op == "DynamicStitch") {
    const size_t n = in.size() / 2;
    if (n == 0 || !in[n].shape || !in[0].shape) return out;
    // The largest index + 1: known from constant indices, else only when it runs.
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
    if (k > in[n].shape->size()) return out;
    SymbolicShape shape{constant ? ArithExpr(max_index + 1) : fresh(0, 0)};
    shape.insert(shape.end(), in[n].shape->begin() + k, in[n].shape->end());
    out[0].shape = std::move(shape);
    return out;
  }
  if (op == "Fill") {
    if (in.size() == 2 && IsSymbolicVector(in[0])) {
      out[0].shape = *in[0].symbolic_value;
      return out;
    }
    return std::nullopt;
  }
  if (std::optional<Infos> ruled = HostOpShapes(node, in, out, fresh)) return ruled;
  if (op == "Range") {
    if (in.size() == 3 && IsSymbolicScalar(in[0]) && IsSymbolicScalar(in[1]) &&
        IsSymbolicScalar(in[2])) {
      if (std::optional<ArithExpr> n = RangeLength(
              (*in[0].symbolic_value)[0], (*in[1].symbolic_value)[0], (*in[2].symbolic_value)[0])) {
        out[0].shape = SymbolicShape{*n};
        return out;
      }
    }
    return std::nullopt;
  }
  return std::nullopt;
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
    if (out[0].dtype == DType::kInvalid) out[0].dtype = OutputDType(node, in, 0);
  } else if (!def.any_dtype) {  // not control flow or a TensorArray
    // Random ops: dtype attribute (RandomUniformInt's Tout), shape input.
    out[0].dtype = TypeAttr(node, node.HasAttr("Tout") ? "Tout" : "dtype", DType::kInvalid);
    if (!in.empty() && IsSymbolicVector(in[0])) out[0].shape = *in[0].symbolic_value;
  }
  return out;
}

}  // namespace dfc
