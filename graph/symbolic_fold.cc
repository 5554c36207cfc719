// The folder's symbolic layer (see symbolic_fold.h).
#include "graph/symbolic_fold.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "graph/op_semantics/strided_slice.h"

namespace dfc::folding {
namespace {

// The single element of a constant scalar or one-element vector.
std::optional<int64_t> ConstScalar(const TensorInfo& t) {
  std::optional<std::vector<int64_t>> v = ConstInts(t);
  if (!v || v->size() != 1 || t.value->rank() > 1) return std::nullopt;
  return (*v)[0];
}

bool IsSymbolic(const TensorInfo& t) { return t.symbolic_value && t.shape && t.shape->size() <= 1; }

std::optional<Infos> One(std::optional<TensorInfo> info) {
  if (!info) return std::nullopt;
  return Infos{*std::move(info)};
}

// max(a, b) or min(a, b) when one side provably bounds the other; nullopt otherwise (a shape
// holds no kMax or kMin: a plan's sizes are sums, products and quotients).
std::optional<ArithExpr> ProvableExtreme(bool max, const ArithExpr& a, const ArithExpr& b) {
  const ArithExpr r = max ? ArithExpr::Max(a, b) : ArithExpr::Min(a, b);
  if (r.kind() == ArithExpr::Kind::kMax || r.kind() == ArithExpr::Kind::kMin) return std::nullopt;
  return r;
}

std::optional<int64_t> IntAttr(const Node& node, absl::string_view key, int64_t fallback) {
  absl::StatusOr<int64_t> v = node.GetInt(key, fallback);
  return v.ok() ? std::optional<int64_t>(*v) : std::nullopt;
}

// --- The rules (symbolic_fold.h's Rule), by op family -----------------------------------------

std::optional<Infos> FoldShape(const Node& node, Inputs in) {
  const DType out_type = TypeAttr(node, "out_type", DType::kInt32);
  Infos out;
  for (const TensorInfo& t : in) {
    if (!t.shape) return std::nullopt;
    std::optional<TensorInfo> info = SymbolicInfo(out_type, *t.shape, /*scalar=*/false);
    if (!info) return std::nullopt;
    out.push_back(*std::move(info));
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::optional<Infos> FoldSize(const Node& node, Inputs in) {
  if (in.size() != 1 || !in[0].shape) return std::nullopt;
  return One(SymbolicInfo(TypeAttr(node, "out_type", DType::kInt32), {NumElements(*in[0].shape)},
                          /*scalar=*/true));
}

std::optional<Infos> FoldRank(const Node&, Inputs in) {
  if (in.size() != 1 || !in[0].shape) return std::nullopt;
  return One(SymbolicInfo(DType::kInt32, {static_cast<int64_t>(in[0].shape->size())}, true));
}

std::optional<Infos> FoldIdentity(const Node&, Inputs in) {
  if (in.empty()) return std::nullopt;
  for (const TensorInfo& t : in) {
    if (!IsSymbolic(t)) return std::nullopt;
  }
  return Infos(in.begin(), in.end());
}

std::optional<Infos> FoldCast(const Node& node, Inputs in) {
  const DType dst = TypeAttr(node, "DstT", DType::kInvalid);
  if (in.size() != 1 || !IsSymbolic(in[0]) || !IsIndexType(dst)) return std::nullopt;
  return One(SymbolicInfo(dst, *in[0].symbolic_value, in[0].shape->empty()));
}

std::optional<Infos> FoldPack(const Node& node, Inputs in) {
  const std::optional<int64_t> axis = IntAttr(node, "axis", 0);
  if (in.empty() || !axis || (*axis != 0 && *axis != -1)) return std::nullopt;
  SymVec elems;
  for (const TensorInfo& t : in) {
    if (!IsSymbolicScalar(t)) return std::nullopt;
    elems.push_back((*t.symbolic_value)[0]);
  }
  return One(SymbolicInfo(in[0].dtype, std::move(elems), false));
}

// ConcatV2 takes its axis last, Concat first.
std::optional<Infos> FoldConcat(bool axis_last, Inputs in) {
  if (in.size() < 2) return std::nullopt;
  const std::optional<int64_t> axis = ConstScalar(axis_last ? in.back() : in.front());
  if (!axis || (*axis != 0 && *axis != -1)) return std::nullopt;
  const Inputs values = axis_last ? in.subspan(0, in.size() - 1) : in.subspan(1);
  SymVec elems;
  for (const TensorInfo& t : values) {
    if (!IsSymbolicVector(t) || t.dtype != values[0].dtype) return std::nullopt;
    elems.insert(elems.end(), t.symbolic_value->begin(), t.symbolic_value->end());
  }
  return One(SymbolicInfo(values[0].dtype, std::move(elems), false));
}

std::optional<Infos> FoldReshape(const Node&, Inputs in) {
  if (in.size() != 2 || !IsSymbolic(in[0])) return std::nullopt;
  const std::optional<std::vector<int64_t>> shape = ConstInts(in[1]);
  if (!shape || shape->size() > 1) return std::nullopt;
  const int64_t n = static_cast<int64_t>(in[0].symbolic_value->size());
  if (shape->empty() ? n != 1 : ((*shape)[0] != n && (*shape)[0] != -1)) return std::nullopt;
  return One(SymbolicInfo(in[0].dtype, *in[0].symbolic_value, shape->empty()));
}

std::optional<Infos> FoldExpandDims(const Node&, Inputs in) {
  if (in.size() != 2 || !IsSymbolicScalar(in[0])) return std::nullopt;
  const std::optional<int64_t> dim = ConstScalar(in[1]);
  if (!dim || (*dim != 0 && *dim != -1)) return std::nullopt;
  return One(SymbolicInfo(in[0].dtype, *in[0].symbolic_value, false));
}

std::optional<Infos> FoldSqueeze(const Node& node, Inputs in) {
  if (in.size() != 1 || !IsSymbolicVector(in[0]) || in[0].symbolic_value->size() != 1) {
    return std::nullopt;
  }
  if (node.HasAttr("squeeze_dims")) {
    absl::StatusOr<AttrList> dims = node.GetList("squeeze_dims");
    if (!dims.ok()) return std::nullopt;
    for (int64_t d : dims->i) {
      if (d != 0 && d != -1) return std::nullopt;
    }
  }
  return One(SymbolicInfo(in[0].dtype, *in[0].symbolic_value, true));
}

std::optional<Infos> FoldSlice(const Node&, Inputs in) {
  if (in.size() != 3 || !IsSymbolicVector(in[0])) return std::nullopt;
  const std::optional<int64_t> begin = ConstScalar(in[1]);
  std::optional<int64_t> size = ConstScalar(in[2]);
  const SymVec& v = *in[0].symbolic_value;
  const int64_t n = static_cast<int64_t>(v.size());
  if (!begin || !size || *begin < 0 || *begin > n) return std::nullopt;
  if (*size == -1) size = n - *begin;
  if (*size < 0 || *begin + *size > n) return std::nullopt;
  return One(
      SymbolicInfo(in[0].dtype, SymVec(v.begin() + *begin, v.begin() + *begin + *size), false));
}

// A StridedSlice of a symbolic vector, resolved as graph/op_semantics/strided_slice.h
// resolves it; an ellipsis or a new axis would make a result of another rank, left unfolded.
std::optional<Infos> FoldStridedSlice(const Node& node, Inputs in) {
  if (in.size() != 4 || !IsSymbolicVector(in[0])) return std::nullopt;
  const std::optional<int64_t> begin = ConstScalar(in[1]);
  const std::optional<int64_t> end = ConstScalar(in[2]);
  const std::optional<int64_t> stride = ConstScalar(in[3]);
  const absl::StatusOr<StridedSliceMasks> masks = ReadStridedSliceMasks(node);
  if (!begin || !end || !stride || !masks.ok() || masks->ellipsis != 0 || masks->new_axis != 0) {
    return std::nullopt;
  }
  const SymVec& v = *in[0].symbolic_value;
  const int64_t begins[] = {*begin}, ends[] = {*end}, strides[] = {*stride};
  const absl::StatusOr<StridedSliceResolution> slice =
      ResolveStridedSlice(begins, ends, strides, *masks, Shape{static_cast<int64_t>(v.size())});
  if (!slice.ok()) return std::nullopt;
  const SliceDim& dim = slice->dims[0];
  SymVec out;
  for (int64_t i = 0; i < dim.size; ++i) out.push_back(v[dim.begin + i * dim.stride]);
  return One(SymbolicInfo(in[0].dtype, std::move(out), slice->final_shape.empty()));
}

// GatherV2 (`v2`) takes an axis and batch_dims, Gather neither.
std::optional<Infos> FoldGather(bool v2, const Node& node, Inputs in) {
  if (in.size() != (v2 ? 3u : 2u) || !IsSymbolicVector(in[0])) return std::nullopt;
  if (v2) {
    const std::optional<int64_t> axis = ConstScalar(in[2]);
    const std::optional<int64_t> batch_dims = IntAttr(node, "batch_dims", 0);
    if (!axis || (*axis != 0 && *axis != -1) || batch_dims != 0) return std::nullopt;
  }
  const std::optional<std::vector<int64_t>> indices = ConstInts(in[1]);
  if (!indices || in[1].value->rank() > 1) return std::nullopt;
  const SymVec& v = *in[0].symbolic_value;
  SymVec out;
  for (int64_t i : *indices) {
    if (i < 0 || i >= static_cast<int64_t>(v.size())) return std::nullopt;
    out.push_back(v[i]);
  }
  return One(SymbolicInfo(in[0].dtype, std::move(out), in[1].value->rank() == 0));
}

// The shape arithmetic's operations on two values: nullopt where the result is not a size
// expression (a max or min neither side provably bounds, a division by zero, which the kernel
// reports).
enum class SizeOp { kAdd, kSub, kMul, kFloorDiv, kFloorMod, kMax, kMin };

std::optional<ArithExpr> Apply(SizeOp op, const ArithExpr& x, const ArithExpr& y) {
  switch (op) {
    case SizeOp::kAdd:
      return x + y;
    case SizeOp::kSub:
      return x - y;
    case SizeOp::kMul:
      return x * y;
    case SizeOp::kFloorDiv:
    case SizeOp::kFloorMod:
      if (y.AsConstant() == 0) return std::nullopt;
      return op == SizeOp::kFloorDiv ? x / y : x % y;
    case SizeOp::kMax:
    case SizeOp::kMin:
      return ProvableExtreme(op == SizeOp::kMax, x, y);
  }
  return std::nullopt;
}

// Sum, Prod, Max and Min, folding with `op`.
std::optional<Infos> FoldReduce(SizeOp op, const Node& node, Inputs in) {
  if (in.size() != 2 || !IsSymbolic(in[0])) return std::nullopt;
  const std::optional<std::vector<int64_t>> axes = ConstInts(in[1]);
  absl::StatusOr<bool> keep = node.GetBool("keep_dims", false);
  if (!axes || !keep.ok() || in[1].value->rank() > 1) return std::nullopt;
  const int rank = static_cast<int>(in[0].shape->size());
  bool reduce = false;
  for (int64_t a : *axes) {
    if (a < -rank || a >= rank) return std::nullopt;
    reduce = true;  // rank is 0 or 1, so the only valid axis is 0
  }
  if (!reduce) return Infos{in[0]};
  const SymVec& v = *in[0].symbolic_value;
  std::optional<ArithExpr> acc;
  for (const ArithExpr& e : v) {
    acc = acc ? Apply(op, *acc, e) : e;
    if (!acc) return std::nullopt;
  }
  if (!acc && op == SizeOp::kAdd) acc = ArithExpr(0);
  if (!acc && op == SizeOp::kMul) acc = ArithExpr(1);
  if (!acc) return std::nullopt;  // Max/Min of nothing: the dtype's extreme, left to the kernel
  return One(SymbolicInfo(in[0].dtype, {*acc}, !*keep));
}

// Elementwise arithmetic with `op`, broadcasting a scalar.
std::optional<Infos> FoldBinary(SizeOp op, Inputs in) {
  if (in.size() != 2 || !IsSymbolic(in[0]) || !IsSymbolic(in[1]) || in[0].dtype != in[1].dtype) {
    return std::nullopt;
  }
  const SymVec& a = *in[0].symbolic_value;
  const SymVec& b = *in[1].symbolic_value;
  const size_t n = std::max(a.size(), b.size());
  if (a.size() != n && a.size() != 1) return std::nullopt;
  if (b.size() != n && b.size() != 1) return std::nullopt;
  SymVec out;
  for (size_t i = 0; i < n; ++i) {
    std::optional<ArithExpr> r = Apply(op, a[a.size() == 1 ? 0 : i], b[b.size() == 1 ? 0 : i]);
    if (!r) return std::nullopt;
    out.push_back(*r);
  }
  const bool scalar = in[0].shape->empty() && in[1].shape->empty();
  return One(SymbolicInfo(in[0].dtype, std::move(out), scalar));
}

std::optional<Infos> FoldFill(const Node&, Inputs in) {
  if (in.size() != 2 || !IsSymbolicScalar(in[1])) return std::nullopt;
  const std::optional<std::vector<int64_t>> dims = ConstInts(in[0]);
  if (!dims || dims->size() > 1 ||
      (dims->size() == 1 && ((*dims)[0] < 0 || (*dims)[0] > kMaxFoldedElements))) {
    return std::nullopt;
  }
  const int64_t n = dims->empty() ? 1 : (*dims)[0];
  return One(SymbolicInfo(in[1].dtype, SymVec(n, (*in[1].symbolic_value)[0]), dims->empty()));
}

std::optional<Infos> FoldRange(const Node&, Inputs in) {
  if (in.size() != 3 || !IsSymbolicScalar(in[0]) || !IsSymbolicScalar(in[1]) ||
      !IsSymbolicScalar(in[2])) {
    return std::nullopt;
  }
  const ArithExpr& start = (*in[0].symbolic_value)[0];
  const ArithExpr& delta = (*in[2].symbolic_value)[0];
  const std::optional<ArithExpr> length = RangeLength(start, (*in[1].symbolic_value)[0], delta);
  const std::optional<int64_t> n = length ? length->AsConstant() : std::nullopt;
  if (!n || *n > kMaxFoldedElements) return std::nullopt;
  SymVec out;
  for (int64_t i = 0; i < *n; ++i) out.push_back(start + ArithExpr(i) * delta);
  return One(SymbolicInfo(in[0].dtype, std::move(out), false));
}

// TensorFlow's BCast on symbolic shapes: a side is reduced where its dimension is the constant
// 1 (or missing) and the shapes differ. Where the dimensions differ otherwise and the simplifier
// cannot prove them equal, nothing is folded.
struct SymbolicBroadcast {
  SymVec shape;
  std::vector<int64_t> reduce[2];
};

std::optional<SymbolicBroadcast> BroadcastSymbolic(Inputs in) {
  if (in.size() != 2 || !IsSymbolicVector(in[0]) || !IsSymbolicVector(in[1])) {
    return std::nullopt;
  }
  const SymVec& x = *in[0].symbolic_value;
  const SymVec& y = *in[1].symbolic_value;
  SymbolicBroadcast b;
  if (x == y) {
    b.shape = x;
    return b;
  }
  const ArithExpr one(1);
  const int rank = static_cast<int>(std::max(x.size(), y.size()));
  for (int j = 0; j < rank; ++j) {
    const ArithExpr xd = j < static_cast<int>(x.size()) ? x[x.size() - 1 - j] : one;
    const ArithExpr yd = j < static_cast<int>(y.size()) ? y[y.size() - 1 - j] : one;
    const int64_t out_dim = rank - 1 - j;
    if (xd == one) b.reduce[0].push_back(out_dim);
    if (yd == one) b.reduce[1].push_back(out_dim);
    if (xd != one && yd != one && xd != yd) return std::nullopt;
    b.shape.push_back(xd == one ? yd : xd);
  }
  std::reverse(b.shape.begin(), b.shape.end());
  std::reverse(b.reduce[0].begin(), b.reduce[0].end());
  std::reverse(b.reduce[1].begin(), b.reduce[1].end());
  return b;
}

std::optional<Infos> FoldBroadcastArgs(const Node&, Inputs in) {
  std::optional<SymbolicBroadcast> b = BroadcastSymbolic(in);
  if (!b) return std::nullopt;
  return One(SymbolicInfo(in[0].dtype, std::move(b->shape), false));
}

std::optional<Infos> FoldBroadcastGradientArgs(const Node&, Inputs in) {
  std::optional<SymbolicBroadcast> b = BroadcastSymbolic(in);
  if (!b) return std::nullopt;
  Infos out;
  for (const std::vector<int64_t>& r : b->reduce) {
    std::optional<TensorInfo> info =
        SymbolicInfo(in[0].dtype, SymVec(r.begin(), r.end()), /*scalar=*/false);
    if (!info) return std::nullopt;
    out.push_back(*std::move(info));
  }
  return out;
}

// merged[indices[i][j]] = data[i][j] with constant indices: the shape TensorFlow's Sum and
// Mean gradients compute (the input shape with the reduced dimensions set to 1).
std::optional<Infos> FoldDynamicStitch(const Node&, Inputs in) {
  if (in.size() < 2 || in.size() % 2 != 0) return std::nullopt;
  const size_t n = in.size() / 2;
  std::vector<std::pair<int64_t, ArithExpr>> writes;
  int64_t max_index = -1;
  for (size_t i = 0; i < n; ++i) {
    const TensorInfo& data = in[n + i];
    const std::optional<std::vector<int64_t>> indices = ConstInts(in[i]);
    if (!indices || !IsSymbolic(data) || data.dtype != in[n].dtype ||
        static_cast<size_t>(in[i].value->rank()) != data.shape->size() ||
        indices->size() != data.symbolic_value->size()) {
      return std::nullopt;
    }
    for (size_t j = 0; j < indices->size(); ++j) {
      const int64_t index = (*indices)[j];
      if (index < 0 || index >= kMaxFoldedElements) return std::nullopt;
      max_index = std::max(max_index, index);
      writes.emplace_back(index, (*data.symbolic_value)[j]);
    }
  }
  SymVec out(max_index + 1, ArithExpr(0));
  for (const auto& [index, value] : writes) out[index] = value;  // later entries win
  return One(SymbolicInfo(in[n].dtype, std::move(out), false));
}

}  // namespace

const TensorInfo& UnknownInfo() {
  static const TensorInfo* unknown = new TensorInfo;
  return *unknown;
}

bool IsIndexType(DType d) { return d == DType::kInt32 || d == DType::kInt64; }

bool IsSymbolicScalar(const TensorInfo& t) { return IsSymbolic(t) && t.shape->empty(); }
bool IsSymbolicVector(const TensorInfo& t) { return IsSymbolic(t) && t.shape->size() == 1; }

TensorInfo ShapeOnly(const TensorInfo& t) { return {.dtype = t.dtype, .shape = t.shape}; }

std::optional<std::vector<int64_t>> ConstInts(const TensorInfo& t) {
  if (!t.value || !IsIndexType(t.value->dtype())) return std::nullopt;
  std::vector<int64_t> out(t.value->num_elements());
  for (int64_t i = 0; i < t.value->num_elements(); ++i) out[i] = t.value->ElementAsInt64(i);
  return out;
}

std::optional<TensorInfo> SymbolicInfo(DType dtype, SymVec elems, bool scalar) {
  if (!IsIndexType(dtype) || (scalar && elems.size() != 1)) return std::nullopt;
  TensorInfo info{.dtype = dtype};
  info.shape = scalar ? SymbolicShape{} : SymbolicShape{static_cast<int64_t>(elems.size())};
  std::vector<int64_t> constants;
  for (const ArithExpr& e : elems) {
    std::optional<int64_t> c = e.AsConstant();
    if (!c) break;
    if (dtype == DType::kInt32 &&
        (*c < std::numeric_limits<int32_t>::min() || *c > std::numeric_limits<int32_t>::max())) {
      return std::nullopt;
    }
    constants.push_back(*c);
  }
  if (constants.size() == elems.size()) {
    const Shape shape = scalar ? Shape{} : Shape{static_cast<int64_t>(elems.size())};
    if (dtype == DType::kInt32) {
      info.value = Tensor::FromVector<int32_t>(
          std::vector<int32_t>(constants.begin(), constants.end()), shape);
    } else {
      info.value = Tensor::FromVector<int64_t>(constants, shape);
    }
  }
  info.symbolic_value = std::move(elems);
  return info;
}

DType TypeAttr(const Node& node, absl::string_view key, DType fallback) {
  absl::StatusOr<DType> t = node.GetType(key, fallback);
  return t.ok() ? *t : fallback;
}

std::optional<SymbolicShape> FromPartialShape(const PartialShape& p) {
  if (p.unknown_rank) return std::nullopt;
  if (std::any_of(p.dims.begin(), p.dims.end(), [](int64_t d) { return d < 0; })) {
    return std::nullopt;
  }
  return ToSymbolic(p.dims);
}

std::optional<ArithExpr> RangeLength(const ArithExpr& start, const ArithExpr& limit,
                                     const ArithExpr& delta) {
  const std::optional<int64_t> d = delta.AsConstant();
  if (!d || *d == 0) return std::nullopt;
  const ArithExpr span = *d > 0 ? limit - start : start - limit;
  if (!ProvablyNonNegative(span)) return std::nullopt;
  return ArithExpr::CeilDiv(span, ArithExpr(*d > 0 ? *d : -*d));
}

const absl::flat_hash_map<std::string, Rule>& SymbolicRules() {
  static const auto* rules = [] {
    auto* r = new absl::flat_hash_map<std::string, Rule>;
    (*r)["Shape"] = [](const Node& node, Inputs in) {
      return in.size() == 1 ? FoldShape(node, in) : std::nullopt;
    };
    (*r)["ShapeN"] = FoldShape;
    (*r)["Size"] = FoldSize;
    (*r)["Rank"] = FoldRank;
    for (const char* op :
         {"Identity", "StopGradient", "Snapshot", "PreventGradient", "IdentityN"}) {
      (*r)[op] = FoldIdentity;
    }
    (*r)["Cast"] = FoldCast;
    (*r)["Pack"] = FoldPack;
    (*r)["ConcatV2"] = [](const Node&, Inputs in) { return FoldConcat(true, in); };
    (*r)["Concat"] = [](const Node&, Inputs in) { return FoldConcat(false, in); };
    (*r)["Reshape"] = FoldReshape;
    (*r)["ExpandDims"] = FoldExpandDims;
    (*r)["Squeeze"] = FoldSqueeze;
    (*r)["Slice"] = FoldSlice;
    (*r)["StridedSlice"] = FoldStridedSlice;
    for (bool v2 : {false, true}) {
      (*r)[v2 ? "GatherV2" : "Gather"] = [v2](const Node& node, Inputs in) {
        return FoldGather(v2, node, in);
      };
    }
    const std::pair<const char*, SizeOp> reductions[] = {{"Sum", SizeOp::kAdd},
                                                         {"Prod", SizeOp::kMul},
                                                         {"Max", SizeOp::kMax},
                                                         {"Min", SizeOp::kMin}};
    for (const auto& [op, size_op] : reductions) {
      (*r)[op] = [kind = size_op](const Node& node, Inputs in) {
        return FoldReduce(kind, node, in);
      };
    }
    const std::pair<const char*, SizeOp> arithmetic[] = {
        {"Add", SizeOp::kAdd},     {"AddV2", SizeOp::kAdd},         {"Sub", SizeOp::kSub},
        {"Mul", SizeOp::kMul},     {"FloorDiv", SizeOp::kFloorDiv}, {"FloorMod", SizeOp::kFloorMod},
        {"Maximum", SizeOp::kMax}, {"Minimum", SizeOp::kMin}};
    for (const auto& [op, size_op] : arithmetic) {
      (*r)[op] = [kind = size_op](const Node&, Inputs in) { return FoldBinary(kind, in); };
    }
    (*r)["Fill"] = FoldFill;
    (*r)["Range"] = FoldRange;
    (*r)["BroadcastArgs"] = FoldBroadcastArgs;
    (*r)["BroadcastGradientArgs"] = FoldBroadcastGradientArgs;
    (*r)["DynamicStitch"] = FoldDynamicStitch;
    return r;
  }();
  return *rules;
}

}  // namespace dfc::folding
