// Constant folding and shape inference over a Graph (see fold.h). Three layers, tried in
// order for each node: concrete evaluation through the oracle when every input is a constant;
// symbolic evaluation of the int32/int64 shape arithmetic TensorFlow's gradients emit; and
// otherwise shapes only (host plumbing here, device ops through the oracle).
#include "graph/fold.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/control_flow.h"
#include "graph/host_shapes.h"
#include "graph/op_semantics/strided_slice.h"
#include "graph/ops.h"

namespace dfc {
namespace {

using SymVec = std::vector<ArithExpr>;
using Infos = std::vector<TensorInfo>;
using Inputs = std::span<const TensorInfo>;

const TensorInfo& UnknownInfo() {
  static const TensorInfo* unknown = new TensorInfo;
  return *unknown;
}

bool IsIndexType(DType d) { return d == DType::kInt32 || d == DType::kInt64; }

// Drops what is known about the value, keeping dtype and shape: what a node that runs as a
// kernel offers its consumers.
TensorInfo ShapeOnly(const TensorInfo& t) { return {.dtype = t.dtype, .shape = t.shape}; }

// The int elements of a constant of any rank.
std::optional<std::vector<int64_t>> ConstInts(const TensorInfo& t) {
  if (!t.value || !IsIndexType(t.value->dtype())) return std::nullopt;
  std::vector<int64_t> out(t.value->num_elements());
  for (int64_t i = 0; i < t.value->num_elements(); ++i) out[i] = t.value->ElementAsInt64(i);
  return out;
}

// The single element of a constant scalar or one-element vector.
std::optional<int64_t> ConstScalar(const TensorInfo& t) {
  std::optional<std::vector<int64_t>> v = ConstInts(t);
  if (!v || v->size() != 1 || t.value->rank() > 1) return std::nullopt;
  return (*v)[0];
}

bool IsSymbolic(const TensorInfo& t) { return t.symbolic_value && t.shape && t.shape->size() <= 1; }
bool IsSymbolicScalar(const TensorInfo& t) { return IsSymbolic(t) && t.shape->empty(); }
bool IsSymbolicVector(const TensorInfo& t) { return IsSymbolic(t) && t.shape->size() == 1; }

// The info of an int32/int64 scalar (`scalar`) or vector whose elements are `elems`; the value
// is set too when every element is a constant. Nullopt if a constant does not fit the dtype.
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

// --- Symbolic folding rules -------------------------------------------------------------------
// Each returns the outputs when the node's value is known up to size variables, or nullopt.

using Rule = std::function<std::optional<Infos>(const Node&, Inputs)>;

std::optional<Infos> FoldShape(const Node& node, Inputs in) {
  const DType out_type = TypeAttr(node, "out_type", DType::kInt32);
  Infos out;
  for (const TensorInfo& t : in) {
    if (!t.shape) return std::nullopt;
    std::optional<TensorInfo> info = SymbolicInfo(out_type, *t.shape, /*scalar=*/false);
    if (!info) return std::nullopt;
    out.push_back(*std::move(info));
  }
  if (out.empty() || (node.op == "Shape" && out.size() != 1)) return std::nullopt;
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

std::optional<Infos> FoldConcat(const Node& node, Inputs in) {
  if (in.size() < 2) return std::nullopt;
  const bool v2 = node.op == "ConcatV2";
  const std::optional<int64_t> axis = ConstScalar(v2 ? in.back() : in.front());
  if (!axis || (*axis != 0 && *axis != -1)) return std::nullopt;
  const Inputs values = v2 ? in.subspan(0, in.size() - 1) : in.subspan(1);
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

std::optional<Infos> FoldGather(const Node& node, Inputs in) {
  const bool v2 = node.op == "GatherV2";
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

std::optional<Infos> FoldReduce(const Node& node, Inputs in) {
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
    if (!acc) {
      acc = e;
    } else if (node.op == "Sum") {
      acc = *acc + e;
    } else if (node.op == "Prod") {
      acc = *acc * e;
    } else {
      acc = ProvableExtreme(node.op == "Max", *acc, e);
      if (!acc) return std::nullopt;
    }
  }
  if (!acc) {
    if (node.op == "Sum") acc = ArithExpr(0);
    if (node.op == "Prod") acc = ArithExpr(1);
  }
  if (!acc) return std::nullopt;  // Max/Min of nothing: the dtype's extreme, left to the kernel
  return One(SymbolicInfo(in[0].dtype, {*acc}, !*keep));
}

std::optional<Infos> FoldBinary(const Node& node, Inputs in) {
  if (in.size() != 2 || !IsSymbolic(in[0]) || !IsSymbolic(in[1]) || in[0].dtype != in[1].dtype) {
    return std::nullopt;
  }
  const SymVec& a = *in[0].symbolic_value;
  const SymVec& b = *in[1].symbolic_value;
  const size_t n = std::max(a.size(), b.size());
  if (a.size() != n && a.size() != 1) return std::nullopt;
  if (b.size() != n && b.size() != 1) return std::nullopt;
  const absl::string_view op = node.op;
  SymVec out;
  for (size_t i = 0; i < n; ++i) {
    const ArithExpr& x = a[a.size() == 1 ? 0 : i];
    const ArithExpr& y = b[b.size() == 1 ? 0 : i];
    if (op == "Add" || op == "AddV2") {
      out.push_back(x + y);
    } else if (op == "Sub") {
      out.push_back(x - y);
    } else if (op == "Mul") {
      out.push_back(x * y);
    } else if (op == "FloorDiv" || op == "FloorMod") {
      if (y.AsConstant() == 0) return std::nullopt;  // the kernel reports the division by zero
      out.push_back(op == "FloorDiv" ? x / y : x % y);
    } else {
      std::optional<ArithExpr> r = ProvableExtreme(op == "Maximum", x, y);
      if (!r) return std::nullopt;
      out.push_back(*r);
    }
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

// The length of Range(start, limit, delta) when it is provably non-negative.
std::optional<ArithExpr> RangeLength(const ArithExpr& start, const ArithExpr& limit,
                                     const ArithExpr& delta) {
  const std::optional<int64_t> d = delta.AsConstant();
  if (!d || *d == 0) return std::nullopt;
  const ArithExpr span = *d > 0 ? limit - start : start - limit;
  if (!ProvablyNonNegative(span)) return std::nullopt;
  return ArithExpr::CeilDiv(span, ArithExpr(*d > 0 ? *d : -*d));
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

const absl::flat_hash_map<std::string, Rule>& SymbolicRules() {
  static const auto* rules = [] {
    auto* r = new absl::flat_hash_map<std::string, Rule>;
    for (const char* op : {"Shape", "ShapeN"}) (*r)[op] = FoldShape;
    (*r)["Size"] = FoldSize;
    (*r)["Rank"] = FoldRank;
    for (const char* op :
         {"Identity", "StopGradient", "Snapshot", "PreventGradient", "IdentityN"}) {
      (*r)[op] = FoldIdentity;
    }
    (*r)["Cast"] = FoldCast;
    (*r)["Pack"] = FoldPack;
    for (const char* op : {"ConcatV2", "Concat"}) (*r)[op] = FoldConcat;
    (*r)["Reshape"] = FoldReshape;
    (*r)["ExpandDims"] = FoldExpandDims;
    (*r)["Squeeze"] = FoldSqueeze;
    (*r)["Slice"] = FoldSlice;
    (*r)["StridedSlice"] = FoldStridedSlice;
    for (const char* op : {"GatherV2", "Gather"}) (*r)[op] = FoldGather;
    for (const char* op : {"Prod", "Sum", "Max", "Min"}) (*r)[op] = FoldReduce;
    for (const char* op :
         {"Add", "AddV2", "Sub", "Mul", "FloorDiv", "FloorMod", "Maximum", "Minimum"}) {
      (*r)[op] = FoldBinary;
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

// Ops that need only their inputs' shapes, not their values.
bool NeedsShapesOnly(absl::string_view op) {
  return op == "Shape" || op == "ShapeN" || op == "Size" || op == "Rank";
}

// --- Shapes of nodes that are not folded --------------------------------------------------------

// The output dtypes when nothing else is known, from the attributes TensorFlow's op registry
// uses for them.
DType GuessDType(const Node& node, Inputs in) {
  const absl::string_view op = node.op;
  if (op == "Cast") return TypeAttr(node, "DstT", DType::kInvalid);
  if (op == "ArgMax" || op == "ArgMin") return TypeAttr(node, "output_type", DType::kInt64);
  if (op == "Shape" || op == "ShapeN" || op == "Size") {
    return TypeAttr(node, "out_type", DType::kInt32);
  }
  if (op == "Rank") return DType::kInt32;
  if (op == "Equal" || op == "NotEqual" || op == "Less" || op == "LessEqual" || op == "Greater" ||
      op == "GreaterEqual" || op == "IsNan" || op == "IsInf" || op == "IsFinite") {
    return DType::kBool;
  }
  if (op == "Range") return TypeAttr(node, "Tidx", in.empty() ? DType::kInvalid : in[0].dtype);
  if (op == "Gather" || op == "GatherV2") return TypeAttr(node, "Tparams", DType::kInvalid);
  if (op == "Fill" && in.size() == 2 && in[1].dtype != DType::kInvalid) return in[1].dtype;
  if (op == "Bitcast") return TypeAttr(node, "type", DType::kInvalid);
  if (op == "Bucketize") return DType::kInt32;
  if (op == "ApproximateEqual") return DType::kBool;
  if (node.HasAttr("dtype")) return TypeAttr(node, "dtype", DType::kInvalid);
  if (node.HasAttr("T")) return TypeAttr(node, "T", DType::kInvalid);
  return in.empty() ? DType::kInvalid : in[0].dtype;
}

Infos UnknownOutputs(const Node& node, Inputs in, int num_outputs) {
  Infos out(std::max(num_outputs, 0));
  const DType dtype = GuessDType(node, in);
  for (TensorInfo& t : out) t.dtype = dtype;
  if (node.op == "IdentityN") {
    for (size_t i = 0; i < out.size() && i < in.size(); ++i) out[i].dtype = in[i].dtype;
  }
  return out;
}

// Shapes this file works out itself: host plumbing, the identity family, and the layout ops
// whose shape is a symbolic value (Fill, Range). Nullopt: ask the oracle (device ops) or leave
// unknown (host ops).
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

// A TF1 cond's Switch passes its value's shape to both outputs; its Merge gives the shape both
// branches agree on, and the index of the one taken.
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

// Stateful nodes: never folded; their shapes where they are easy.
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
    if (out[0].dtype == DType::kInvalid) out[0].dtype = GuessDType(node, in);
  } else if (!def.any_dtype) {  // not control flow or a TensorArray
    // Random ops: dtype attribute (RandomUniformInt's Tout), shape input.
    out[0].dtype = TypeAttr(node, node.HasAttr("Tout") ? "Tout" : "dtype", DType::kInvalid);
    if (!in.empty() && IsSymbolicVector(in[0])) out[0].shape = *in[0].symbolic_value;
  }
  return out;
}

std::string SanitizedName(absl::string_view name) {
  std::string out;
  for (char c : name) out.push_back(absl::ascii_isalnum(c) ? c : '_');
  if (out.empty() || absl::ascii_isdigit(out[0])) out.insert(out.begin(), '_');
  return out;
}

// The element count of a result, when all its shapes are constant.
bool TooLargeToFold(const Infos& infos) {
  for (const TensorInfo& t : infos) {
    if (!t.shape) continue;
    const std::optional<int64_t> n = NumElements(*t.shape).AsConstant();
    if (n && *n > kMaxFoldedElements) return true;
  }
  return false;
}

// Output sizes of the layout ops that make large tensors from small constants, computed before
// evaluating them in case the oracle cannot say.
std::optional<int64_t> EstimateElements(const Node& node, Inputs in) {
  auto product = [](const std::optional<std::vector<int64_t>>& v,
                    int64_t start) -> std::optional<int64_t> {
    if (!v) return std::nullopt;
    double p = static_cast<double>(start);
    for (int64_t d : *v) p *= static_cast<double>(std::max<int64_t>(d, 0));
    return p > 1e18 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(p);
  };
  if (node.op == "Fill" && in.size() == 2) return product(ConstInts(in[0]), 1);
  if (node.op == "BroadcastTo" && in.size() == 2) return product(ConstInts(in[1]), 1);
  if (node.op == "Tile" && in.size() == 2 && in[0].value) {
    return product(ConstInts(in[1]), in[0].value->num_elements());
  }
  // A sorted segment reduction has as many rows as its last id names segments.
  if (absl::StartsWith(node.op, "Segment") && in.size() == 2 && in[0].value &&
      in[0].value->rank() >= 1 && in[0].value->dim(0) > 0) {
    const std::optional<std::vector<int64_t>> ids = ConstInts(in[1]);
    if (!ids || ids->empty()) return std::nullopt;
    return product(std::vector<int64_t>{ids->back() + 1},
                   in[0].value->num_elements() / in[0].value->dim(0));
  }
  return std::nullopt;
}

// What is known of a TensorArray or TensorList (the variant its flow carries) when the graph is
// compiled.
struct ArrayInfo {
  // The shape of every element: declared by the op that made the array (and then checked on
  // every write at run time), or else that of every element written so far.
  std::optional<SymbolicShape> element_shape;
  bool declared = false;
  // No element has been written yet: the first write says what the elements' shape is.
  bool fresh = false;
  // How many elements it has (a TensorArray that cannot grow, a list's length).
  std::optional<ArithExpr> size;

  bool operator==(const ArrayInfo&) const = default;
};

class Folder {
 public:
  // `depth`: how many loop bodies enclose `graph` (LoopShapes folds them).
  Folder(const Graph& graph, const FoldOracle& oracle, const FoldOptions& options, int depth = 0)
      : graph_(graph), oracle_(oracle), options_(options), depth_(depth) {
    needed_static_.assign(graph.num_nodes(), false);
    result_.info.resize(graph.num_nodes());
    result_.folded.assign(graph.num_nodes(), false);
    visited_.assign(graph.num_nodes(), false);
    pure_.assign(graph.num_nodes(), false);
  }

  absl::Status Run(const std::vector<int>& nodes) {
    for (int i : nodes) {
      if (i < 0 || i >= graph_.num_nodes()) {
        return absl::InvalidArgumentError(absl::StrCat("node index ", i, " is not in the graph"));
      }
    }
    if (options_.fold_only_static) MarkNeededStatically(nodes);
    for (int i : nodes) {
      if (visited_[i]) continue;
      if (absl::Status s = Visit(i); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  FoldResult Take() { return std::move(result_); }

 private:
  absl::Status Visit(int i) {
    visited_[i] = true;
    const Node& node = graph_.node(i);
    const int num_outputs = graph_.num_outputs(i);
    const OpDef* def = FindOpDef(node.op);
    Infos in = GatherInputs(node);
    std::vector<TensorInfo>& out = result_.info[i];
    if (def == nullptr) {  // unsupported: nothing is known, not even the output count
      out.assign(std::max(num_outputs, 0), TensorInfo{});
      return absl::OkStatus();
    }
    if (node.op == "Const") {
      absl::StatusOr<Tensor> value = node.GetTensor("value");
      if (!value.ok()) return value.status();
      out = {ConstantInfo(*value)};
      pure_[i] = true;
      return absl::OkStatus();
    }
    if (node.op == "Placeholder" || node.op == "PlaceholderWithDefault") {
      out = {PlaceholderInfo(node)};
      pure_[i] = true;
      return absl::OkStatus();
    }
    if (def->stateful) {
      out = StatefulShapes(node, *def, in, num_outputs);
      if (IsWhile(node)) LoopShapes(node, in, out);
      BranchShapes(node, in, out);
      ArrayShapes(i, in, out);
      return absl::OkStatus();
    }
    if (num_outputs <= 0) {  // NoOp: an ordering point, pure if what it waits for is
      pure_[i] = ControlInputsPure(node);
      out.clear();
      return absl::OkStatus();
    }

    const bool may_fold =
        def->placement == Placement::kHost || !options_.fold_only_static || needed_static_[i];
    if (may_fold && ControlInputsPure(node) &&
        std::all_of(in.begin(), in.end(), [](const TensorInfo& t) {
          return t.dtype == DType::kInvalid || IsSupported(t.dtype);
        })) {
      const bool all_constant =
          std::all_of(in.begin(), in.end(), [](const TensorInfo& t) { return t.is_constant(); });
      if (all_constant) {
        absl::StatusOr<bool> folded = TryEvaluate(i, *def, in, num_outputs);
        if (!folded.ok()) return folded.status();
        if (*folded) return absl::OkStatus();
      } else if (TryFoldSymbolic(i, in, num_outputs)) {
        return absl::OkStatus();
      }
    }
    out = InferShapes(node, *def, in, num_outputs);
    ArrayShapes(i, in, out);
    return absl::OkStatus();
  }

  // Backwards from the inputs translations read at compile time: everything such a value is
  // computed from is needed when compiling too.
  void MarkNeededStatically(const std::vector<int>& nodes) {
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      const Node& node = graph_.node(*it);
      const OpDef* def = FindOpDef(node.op);
      const bool device = def != nullptr && def->placement != Placement::kHost;
      // A random op's shape (input 0) sizes the tensor a cluster reads: its shape must be known.
      const bool random_shape = def != nullptr && def->stateful && !def->variable &&
                                def->num_ref_inputs == 0 && !node.inputs.empty();
      for (int j = 0; j < static_cast<int>(node.inputs.size()); ++j) {
        if (needed_static_[*it] || (device && oracle_.ReadsStatically(node, j)) ||
            (random_shape && j == 0)) {
          const int p = graph_.IndexOf(node.inputs[j].node);
          if (p >= 0) needed_static_[p] = true;
        }
      }
    }
  }

  // A While's outputs. The body is folded with each loop variable as it enters the loop (its
  // shape, in this graph's size variables, and what is known of an array it carries). A
  // variable the body gives back with that dtype and shape leaves the loop with them however
  // many times the body ran, as TensorFlow's shape inference has it; one whose shape the body
  // changes (a shape invariant relaxed), or cannot say, stays unknown. The same holds for an
  // array; and an array no element of which was written before the loop has, after it, the
  // shape the body writes, when every loop variable keeps its shape (so every iteration writes
  // that shape).
  void LoopShapes(const Node& node, const Infos& in, Infos& out) {
    const FunctionLibrary* library = graph_.functions().get();
    const auto attr = node.attrs.find("body");
    const FuncRef* ref = attr == node.attrs.end() ? nullptr : std::get_if<FuncRef>(&attr->second);
    if (library == nullptr || ref == nullptr || depth_ >= kMaxFunctionDepth) return;
    const auto found = library->find(ref->name);
    if (found == library->end()) return;
    const FunctionGraph& body = found->second;
    if (body.args.size() != in.size() || body.results.size() != in.size() ||
        out.size() != in.size()) {
      return;
    }
    const FoldOptions options;
    Folder folder(*body.graph, oracle_, options, depth_ + 1);
    std::vector<std::optional<ArrayInfo>> arrays(in.size());
    for (size_t k = 0; k < in.size(); ++k) {
      if (in[k].shape) folder.arg_shapes_[body.args[k]] = *in[k].shape;
      arrays[k] = ArrayAt(node, static_cast<int>(k));
      if (arrays[k]) folder.arg_arrays_[body.args[k]] = *arrays[k];
    }
    if (!folder.Run(body.graph->topological_order()).ok()) return;
    bool invariant = true;
    for (size_t k = 0; k < in.size(); ++k) {
      const TensorInfo& arg = folder.result_.Info(*body.graph, TensorId{body.args[k], 0});
      const TensorInfo& next = folder.result_.Info(*body.graph, body.results[k]);
      if (!in[k].shape || !arg.shape || !next.shape || arg.dtype != next.dtype ||
          *arg.shape != *next.shape ||
          (out[k].dtype != DType::kInvalid && out[k].dtype != arg.dtype)) {
        invariant &= !in[k].shape;
        continue;
      }
      out[k].dtype = in[k].dtype;
      out[k].shape = in[k].shape;
    }
    for (size_t k = 0; k < in.size(); ++k) {
      if (!arrays[k]) continue;
      const auto passed = folder.arrays_.find(body.results[k]);
      if (passed == folder.arrays_.end()) continue;
      const ArrayInfo& written = passed->second;
      const bool first_writes =
          arrays[k]->fresh && invariant && !written.fresh && written.size == arrays[k]->size;
      if (written == *arrays[k] || first_writes) {
        arrays_[TensorId{node.name, static_cast<int>(k)}] = written;
      }
    }
  }

  // What is known of the array input `input` of `node` carries: from an earlier node, or, for
  // a placeholder, from the loop that runs this body or the caller that feeds it.
  std::optional<ArrayInfo> ArrayAt(const Node& node, int input) const {
    if (input >= static_cast<int>(node.inputs.size())) return std::nullopt;
    const TensorId& id = node.inputs[input];
    if (const auto it = arrays_.find(id); it != arrays_.end()) return it->second;
    const Node* producer = graph_.FindNode(id.node);
    if (producer == nullptr || producer->op != "Placeholder") return std::nullopt;
    if (const auto it = arg_arrays_.find(id.node); it != arg_arrays_.end()) return it->second;
    const auto given = options_.array_element_shapes.find(id.node);
    if (given == options_.array_element_shapes.end()) return std::nullopt;
    return ArrayInfo{.element_shape = ToSymbolic(given->second)};
  }

  // The element shape an array op declares in attribute `attr` or input `input` (a constant
  // shape vector), when fully known: every write is checked against it at run time.
  std::optional<SymbolicShape> DeclaredElementShape(const Node& node, const Infos& in,
                                                    absl::string_view attr, int input) const {
    if (!attr.empty()) {
      if (!node.HasAttr(attr)) return std::nullopt;
      absl::StatusOr<PartialShape> shape = node.GetShape(attr);
      return shape.ok() ? FromPartialShape(*shape) : std::nullopt;
    }
    if (input >= static_cast<int>(in.size()) || !in[input].shape || in[input].shape->size() != 1) {
      return std::nullopt;  // a scalar -1 is an unknown rank
    }
    const std::optional<std::vector<int64_t>> dims = ConstInts(in[input]);
    if (!dims) return std::nullopt;
    return FromPartialShape(PartialShape{.dims = *dims});
  }

  // What is known of `before` after `item` (its info) is written to it: an element shape that
  // no check enforces holds only while every write matches it.
  static ArrayInfo AfterWrite(ArrayInfo before, const TensorInfo& item) {
    if (!before.declared) {
      if (before.fresh) {
        before.element_shape = item.shape;
      } else if (!item.shape || !before.element_shape || *item.shape != *before.element_shape) {
        before.element_shape.reset();
      }
    }
    before.fresh = false;
    return before;
  }

  // What TensorArray and TensorList ops make known: the arrays their outputs carry
  // (ArrayInfo), the shapes of what they read, and the sizes they report, folded (so that a
  // Range up to an array's size after its loop is a constant).
  void ArrayShapes(int i, const Infos& in, Infos& out) {
    const Node& node = graph_.node(i);
    const absl::string_view op = node.op;
    auto set_array = [&](int output, std::optional<ArrayInfo> info) {
      if (info) arrays_[TensorId{node.name, output}] = *std::move(info);
    };
    auto set_element = [&](int output, const std::optional<ArrayInfo>& array, DType dtype,
                           const SymbolicShape* leading) {
      if (!array || !array->element_shape || output >= static_cast<int>(out.size())) return;
      SymbolicShape shape;
      if (leading != nullptr) shape = *leading;
      shape.insert(shape.end(), array->element_shape->begin(), array->element_shape->end());
      out[output].dtype = dtype;
      out[output].shape = std::move(shape);
    };
    auto fold_size = [&](const std::optional<ArrayInfo>& array) {
      if (!array || !array->size || out.size() != 1) return;
      std::optional<TensorInfo> size = SymbolicInfo(DType::kInt32, {*array->size}, true);
      if (!size) return;
      out[0] = *std::move(size);
      result_.folded[i] = true;
      pure_[i] = true;
    };
    if (PassesHostOnlyValue(node)) {
      for (int k = 0; k < static_cast<int>(out.size()); ++k) set_array(k, ArrayAt(node, k));
      return;
    }
    if (op == "TensorArrayV3") {
      ArrayInfo array{.element_shape = DeclaredElementShape(node, in, "element_shape", 0),
                      .fresh = true};
      array.declared = array.element_shape.has_value();
      absl::StatusOr<bool> dynamic = node.GetBool("dynamic_size", false);
      if (dynamic.ok() && !*dynamic && !in.empty() && IsSymbolicScalar(in[0])) {
        array.size = (*in[0].symbolic_value)[0];
      }
      set_array(1, array);
    } else if (op == "TensorArrayWriteV3" && in.size() == 4) {
      if (std::optional<ArrayInfo> array = ArrayAt(node, 3))
        set_array(0, AfterWrite(*array, in[2]));
    } else if (op == "TensorArrayScatterV3" && in.size() == 4) {
      if (std::optional<ArrayInfo> array = ArrayAt(node, 3)) {
        TensorInfo row = ShapeOnly(in[2]);
        if (row.shape && !row.shape->empty()) {
          row.shape->erase(row.shape->begin());
        } else {
          row.shape.reset();
        }
        set_array(0, AfterWrite(*array, row));
      }
    } else if (op == "TensorArraySplitV3") {  // elements of several shapes; the size stays
      if (std::optional<ArrayInfo> array = ArrayAt(node, 3)) {
        array->element_shape.reset();
        set_array(0, array);
      }
    } else if (op == "TensorArrayReadV3") {
      set_element(0, ArrayAt(node, 2), TypeAttr(node, "dtype", DType::kInvalid), nullptr);
    } else if (op == "TensorArrayGatherV3" && in.size() == 3 && in[1].shape &&
               in[1].shape->size() == 1) {
      set_element(0, ArrayAt(node, 2), TypeAttr(node, "dtype", DType::kInvalid), &*in[1].shape);
    } else if (op == "TensorArraySizeV3") {
      fold_size(ArrayAt(node, 1));
    } else if (op == "EmptyTensorList" || op == "TensorListReserve") {
      ArrayInfo list{.element_shape = DeclaredElementShape(node, in, "", 0), .fresh = true};
      list.declared = list.element_shape.has_value();
      if (op == "EmptyTensorList") {
        list.size = ArithExpr(0);
      } else if (in.size() == 2 && IsSymbolicScalar(in[1])) {
        list.size = (*in[1].symbolic_value)[0];
      }
      set_array(0, list);
    } else if (op == "TensorListFromTensor" && !in.empty() && in[0].shape &&
               !in[0].shape->empty()) {
      ArrayInfo list{.element_shape = DeclaredElementShape(node, in, "", 1),
                     .size = in[0].shape->front()};
      list.declared = list.element_shape.has_value();
      if (!list.declared)
        list.element_shape = SymbolicShape(in[0].shape->begin() + 1, in[0].shape->end());
      set_array(0, list);
    } else if (op == "TensorListSetItem" && in.size() == 3) {
      if (std::optional<ArrayInfo> list = ArrayAt(node, 0)) {
        absl::StatusOr<bool> resize = node.GetBool("resize_if_index_out_of_bounds", false);
        if (!resize.ok() || *resize) list->size.reset();
        set_array(0, AfterWrite(*list, in[2]));
      }
    } else if (op == "TensorListPushBack" && in.size() == 2) {
      if (std::optional<ArrayInfo> list = ArrayAt(node, 0)) {
        if (list->size) list->size = *list->size + ArithExpr(1);
        set_array(0, AfterWrite(*list, in[1]));
      }
    } else if (op == "TensorListPopBack") {
      std::optional<ArrayInfo> list = ArrayAt(node, 0);
      set_element(1, list, TypeAttr(node, "element_dtype", DType::kInvalid), nullptr);
      if (list && list->size) list->size = *list->size - ArithExpr(1);
      set_array(0, list);
    } else if (op == "TensorListGetItem") {
      set_element(0, ArrayAt(node, 0), TypeAttr(node, "element_dtype", DType::kInvalid), nullptr);
    } else if (op == "TensorListStack") {
      const std::optional<ArrayInfo> list = ArrayAt(node, 0);
      if (list && list->size) {
        const SymbolicShape leading{*list->size};
        set_element(0, list, TypeAttr(node, "element_dtype", DType::kInvalid), &leading);
      }
    } else if (op == "TensorListLength") {
      fold_size(ArrayAt(node, 0));
    }
  }

  Infos GatherInputs(const Node& node) {
    Infos in;
    in.reserve(node.inputs.size());
    for (const TensorId& id : node.inputs) {
      const int p = graph_.IndexOf(id.node);
      if (p >= 0 && !visited_[p]) DescribeFedPlaceholder(p);
      in.push_back(result_.Info(graph_, id));
    }
    return in;
  }

  // A placeholder outside `nodes` is fed: what a feed must look like is still known.
  void DescribeFedPlaceholder(int p) {
    const Node& node = graph_.node(p);
    if (node.op != "Placeholder" && node.op != "PlaceholderWithDefault") return;
    visited_[p] = true;
    pure_[p] = true;
    result_.info[p] = {PlaceholderInfo(node)};
  }

  bool ControlInputsPure(const Node& node) {
    for (const std::string& name : node.control_inputs) {
      const int p = graph_.IndexOf(name);
      if (p < 0) return false;
      if (!visited_[p]) DescribeFedPlaceholder(p);
      if (!pure_[p]) return false;
    }
    return true;
  }

  TensorInfo PlaceholderInfo(const Node& node) {
    TensorInfo info{.dtype = TypeAttr(node, "dtype", DType::kInvalid)};
    if (const auto arg = arg_shapes_.find(node.name); arg != arg_shapes_.end()) {
      info.shape = arg->second;
      return info;
    }
    auto given = options_.placeholder_shapes.find(node.name);
    const PartialShape declared =
        given != options_.placeholder_shapes.end() ? given->second : PlaceholderShape(node);
    if (declared.unknown_rank) return info;
    SymbolicShape shape;
    for (size_t d = 0; d < declared.dims.size(); ++d) {
      if (declared.dims[d] >= 0) {
        shape.push_back(declared.dims[d]);
        continue;
      }
      std::string name = absl::StrCat(SanitizedName(node.name), "_d", d);
      if (d == 0) {  // a batch: N, and N1, N2... for the batches of other placeholders
        name = next_batch_ == 0 ? "N" : absl::StrCat("N", next_batch_);
        ++next_batch_;
      }
      result_.size_variables.push_back(
          {.name = name, .placeholder = node.name, .dim = static_cast<int>(d)});
      ArithExpr dim = ArithExpr::Var(name);
      shape.push_back(dim.Substitute(options_.size_substitutions));
    }
    info.shape = std::move(shape);
    return info;
  }

  // Folds node i from constant inputs. False: the result would be too large to keep as a
  // constant, and node i's shapes are recorded instead.
  absl::StatusOr<bool> TryEvaluate(int i, const OpDef& def, const Infos& in, int num_outputs) {
    const Node& node = graph_.node(i);
    const bool limited = def.placement != Placement::kHost;
    // A host op is folded whatever its size, but for one whose size shows only in its inputs'
    // values (a segment reduction's last id), which runs when the graph does, not at compile time.
    if (!limited) {
      const std::optional<int64_t> estimate = EstimateElements(node, in);
      if (estimate && *estimate > kMaxFoldedElements) {
        result_.info[i] = InferShapes(node, def, in, num_outputs);
        return false;
      }
    }
    if (limited) {
      absl::StatusOr<Infos> shapes = oracle_.InferShapes(node, in);
      if (shapes.ok() && static_cast<int>(shapes->size()) == num_outputs &&
          TooLargeToFold(*shapes)) {
        result_.info[i].clear();
        for (const TensorInfo& t : *shapes) result_.info[i].push_back(ShapeOnly(t));
        return false;
      }
      if (!shapes.ok()) {
        const std::optional<int64_t> estimate = EstimateElements(node, in);
        if (estimate && *estimate > kMaxFoldedElements) {
          result_.info[i] = InferShapes(node, def, in, num_outputs);
          return false;
        }
      }
    }
    std::vector<Tensor> values;
    values.reserve(in.size());
    for (const TensorInfo& t : in) values.push_back(*t.value);
    absl::StatusOr<std::vector<Tensor>> outputs = oracle_.Evaluate(node, values);
    if (!outputs.ok()) return node.Annotate(outputs.status());
    if (static_cast<int>(outputs->size()) != num_outputs) {
      return node.Error(
          absl::StrCat("evaluation gave ", outputs->size(), " outputs, expected ", num_outputs));
    }
    Infos infos;
    for (const Tensor& t : *outputs) infos.push_back(ConstantInfo(t));
    if (limited && TooLargeToFold(infos)) {
      for (TensorInfo& t : infos) t = ShapeOnly(t);
      result_.info[i] = std::move(infos);
      return false;
    }
    result_.info[i] = std::move(infos);
    result_.folded[i] = true;
    pure_[i] = true;
    return true;
  }

  bool TryFoldSymbolic(int i, const Infos& in, int num_outputs) {
    const Node& node = graph_.node(i);
    const auto& rules = SymbolicRules();
    auto rule = rules.find(node.op);
    if (rule == rules.end()) return false;
    if (!NeedsShapesOnly(node.op)) {
      for (const TensorInfo& t : in) {
        if (!t.is_symbolic_constant()) return false;
      }
    }
    std::optional<Infos> out = rule->second(node, in);
    if (!out || static_cast<int>(out->size()) != num_outputs) return false;
    result_.info[i] = *std::move(out);
    result_.folded[i] = true;
    pure_[i] = true;
    return true;
  }

  Infos InferShapes(const Node& node, const OpDef& def, const Infos& in, int num_outputs) {
    // A dimension known only when the node runs: a variable of its own, bound then.
    const FreshSize fresh = [&](int output, int dim) {
      const std::string name = absl::StrCat(SanitizedName(node.name), "_o", output, "_d", dim);
      const bool listed = std::any_of(result_.size_variables.begin(), result_.size_variables.end(),
                                      [&](const SizeVariable& v) { return v.name == name; });
      if (!listed) {
        result_.size_variables.push_back({.name = name,
                                          .placeholder = node.name,
                                          .dim = dim,
                                          .output = output,
                                          .when_run = true});
      }
      return ArithExpr::Var(name).Substitute(options_.size_substitutions);
    };
    if (std::optional<Infos> out = HostShapes(node, in, num_outputs, fresh)) {
      return *std::move(out);
    }
    if (def.placement != Placement::kHost) {
      absl::StatusOr<Infos> out = oracle_.InferShapes(node, in);
      if (out.ok() && static_cast<int>(out->size()) == num_outputs) {
        Infos shapes;
        for (const TensorInfo& t : *out) shapes.push_back(ShapeOnly(t));
        return shapes;
      }
    }
    return UnknownOutputs(node, in, num_outputs);
  }

  const Graph& graph_;
  const FoldOracle& oracle_;
  const FoldOptions& options_;
  const int depth_;
  FoldResult result_;
  int next_batch_ = 0;
  std::vector<bool> needed_static_;
  // What is known of each TensorArray or TensorList, by the tensor that carries it (its flow).
  absl::flat_hash_map<TensorId, ArrayInfo> arrays_;
  // A loop body's arguments as they enter the loop, by placeholder (LoopShapes): their shapes,
  // in the enclosing graph's size variables, and what is known of the arrays they carry.
  absl::flat_hash_map<std::string, SymbolicShape> arg_shapes_;
  absl::flat_hash_map<std::string, ArrayInfo> arg_arrays_;
  std::vector<bool> visited_;
  // The node has no effects and waits on nothing that has: a control edge from it orders
  // nothing that matters, so its consumers may still be folded.
  std::vector<bool> pure_;
};

}  // namespace

std::string TensorInfo::ToString() const {
  std::string out = dtype == DType::kInvalid ? "?" : std::string(DTypeName(dtype));
  absl::StrAppend(&out, shape ? ShapeToString(*shape) : "<unknown rank>");
  if (symbolic_value) {
    std::vector<std::string> parts;
    for (const ArithExpr& e : *symbolic_value) parts.push_back(e.ToString());
    const bool scalar = shape && shape->empty();
    absl::StrAppend(&out, " = ", scalar ? "" : "{", absl::StrJoin(parts, ", "), scalar ? "" : "}");
  } else if (value) {
    absl::StrAppend(&out, " = ", value->Preview());
  }
  return out;
}

TensorInfo ConstantInfo(const Tensor& value) {
  TensorInfo info{.dtype = value.dtype(), .shape = ToSymbolic(value.shape()), .value = value};
  if (IsIndexType(value.dtype()) && value.rank() <= 1) {
    SymVec elems;
    for (int64_t i = 0; i < value.num_elements(); ++i) elems.push_back(value.ElementAsInt64(i));
    info.symbolic_value = std::move(elems);
  }
  return info;
}

const TensorInfo& FoldResult::Info(const Graph& g, const TensorId& id) const {
  const int i = g.IndexOf(id.node);
  if (i < 0 || i >= static_cast<int>(info.size()) || id.index < 0 ||
      id.index >= static_cast<int>(info[i].size())) {
    return UnknownInfo();
  }
  return info[i][id.index];
}

absl::StatusOr<FoldResult> FoldConstants(const Graph& graph, const std::vector<int>& nodes,
                                         const FoldOracle& oracle, const FoldOptions& options) {
  Folder folder(graph, oracle, options);
  if (absl::Status s = folder.Run(nodes); !s.ok()) return s;
  return folder.Take();
}

}  // namespace dfc
