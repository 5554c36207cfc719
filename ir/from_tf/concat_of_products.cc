// One product for a Concat of products by slices (see concat_of_products.h).
#include "ir/from_tf/concat_of_products.h"

#include <cstdint>
#include <type_traits>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/arith.h"
#include "graph/op_semantics/strided_slice.h"
#include "graph/ops.h"
#include "ir/from_tf/translate.h"

namespace dfc::ir {
namespace {

// Whether two nodes' attributes are the same scalars (dtypes, flags, strings, numbers); a list,
// shape or tensor attribute is not compared, and makes them differ.
bool SameScalarAttrs(const Node& a, const Node& b) {
  if (a.attrs.size() != b.attrs.size()) return false;
  for (const auto& [key, value] : a.attrs) {
    const auto it = b.attrs.find(key);
    if (it == b.attrs.end() || it->second.index() != value.index()) return false;
    const bool same = std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, std::monostate>) {
            return true;
          } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, int64_t> ||
                               std::is_same_v<T, float> || std::is_same_v<T, bool> ||
                               std::is_same_v<T, DType>) {
            return x == std::get<T>(it->second);
          } else {
            return false;
          }
        },
        value);
    if (!same) return false;
  }
  return true;
}

// Whether tensors x and y hold the same value: one tensor, or the same output of two stateless
// nodes of one op and attributes whose inputs are each one tensor or one compile-time vector
// (Keras reshapes its input once per gate, each time to a shape Const of its own).
bool SameValue(const Graph& graph, const FoldResult& fold, const TensorId& x, const TensorId& y) {
  if (x == y) return true;
  const Node* a = graph.FindNode(x.node);
  const Node* b = graph.FindNode(y.node);
  if (a == nullptr || b == nullptr || x.index != y.index || a->op != b->op ||
      a->inputs.size() != b->inputs.size() || !SameScalarAttrs(*a, *b)) {
    return false;
  }
  const OpDef* def = FindOpDef(a->op);
  if (def == nullptr || def->stateful) return false;
  for (size_t j = 0; j < a->inputs.size(); ++j) {
    if (a->inputs[j] == b->inputs[j]) continue;
    const TensorInfo& p = fold.Info(graph, a->inputs[j]);
    const TensorInfo& q = fold.Info(graph, b->inputs[j]);
    if (!p.symbolic_value || !q.symbolic_value || p.dtype != q.dtype ||
        *p.symbolic_value != *q.symbolic_value) {
      return false;
    }
  }
  return true;
}

// The constant entries of a compile-time integer vector.
std::optional<std::vector<int64_t>> ConstantInts(const TensorInfo& info) {
  return info.symbolic_value ? ConstantShape(*info.symbolic_value) : std::nullopt;
}

// A slice of a whole tensor along one axis: its elements [begin, begin + size) there, every
// element of the other dimensions.
struct AxisSlice {
  TensorId source;
  int64_t begin = 0;
  int64_t size = 0;
};

// `id` as such a slice along `axis` of a tensor of known shape, by a StridedSlice or a Slice
// node inside the cluster with compile-time bounds, or nullopt.
std::optional<AxisSlice> SliceAlong(const Graph& graph, const FoldResult& fold,
                                    const absl::flat_hash_set<std::string>& inside,
                                    const TensorId& id, int axis) {
  const Node* node = graph.FindNode(id.node);
  if (node == nullptr || id.index != 0 || !inside.contains(node->name) || node->inputs.empty()) {
    return std::nullopt;
  }
  const TensorInfo& source = fold.Info(graph, node->inputs[0]);
  if (!source.shape) return std::nullopt;
  const std::optional<Shape> shape = ConstantShape(*source.shape);
  if (!shape || axis >= static_cast<int>(shape->size())) return std::nullopt;
  std::vector<SliceDim> dims;
  if (node->op == "StridedSlice" && node->inputs.size() == 4) {
    const std::optional<std::vector<int64_t>> begin =
        ConstantInts(fold.Info(graph, node->inputs[1]));
    const std::optional<std::vector<int64_t>> end = ConstantInts(fold.Info(graph, node->inputs[2]));
    const std::optional<std::vector<int64_t>> strides =
        ConstantInts(fold.Info(graph, node->inputs[3]));
    const absl::StatusOr<StridedSliceMasks> masks = ReadStridedSliceMasks(*node);
    if (!begin || !end || !strides || !masks.ok()) return std::nullopt;
    absl::StatusOr<StridedSliceResolution> resolved =
        ResolveStridedSlice(*begin, *end, *strides, *masks, *shape);
    // Shrunk or new axes change the rank: not a slice of the whole along one axis.
    if (!resolved.ok() || resolved->final_shape != resolved->processing_shape) return std::nullopt;
    dims = std::move(resolved->dims);
  } else if (node->op == "Slice" && node->inputs.size() == 3) {
    const std::optional<std::vector<int64_t>> begin =
        ConstantInts(fold.Info(graph, node->inputs[1]));
    const std::optional<std::vector<int64_t>> size =
        ConstantInts(fold.Info(graph, node->inputs[2]));
    if (!begin || !size || begin->size() != shape->size() || size->size() != shape->size()) {
      return std::nullopt;
    }
    for (size_t d = 0; d < shape->size(); ++d) {
      const int64_t n = (*size)[d] == -1 ? (*shape)[d] - (*begin)[d] : (*size)[d];
      if ((*begin)[d] < 0 || n < 0 || (*begin)[d] + n > (*shape)[d]) return std::nullopt;
      dims.push_back({.begin = (*begin)[d], .stride = 1, .size = n});
    }
  } else {
    return std::nullopt;
  }
  if (dims.size() != shape->size()) return std::nullopt;
  for (int d = 0; d < static_cast<int>(dims.size()); ++d) {
    if (dims[d].stride != 1) return std::nullopt;
    if (d != axis && (dims[d].begin != 0 || dims[d].size != (*shape)[d])) return std::nullopt;
  }
  return AxisSlice{.source = node->inputs[0], .begin = dims[axis].begin, .size = dims[axis].size};
}

// Whether `slices` are their common source's elements along `axis` in order, each once.
bool Reassemble(const Graph& graph, const FoldResult& fold,
                const std::vector<std::optional<AxisSlice>>& slices, int axis) {
  int64_t next = 0;
  for (const std::optional<AxisSlice>& s : slices) {
    if (!s || s->source != slices.front()->source || s->begin != next) return false;
    next += s->size;
  }
  const std::optional<Shape> shape = ConstantShape(*fold.Info(graph, slices.front()->source).shape);
  return shape && next == (*shape)[axis];
}

// The node that makes `id`, when it is output 0 of a node inside the cluster with op `op`
// that nothing but its one reader reads.
const Node* OnlyReadProducer(const Graph& graph, const absl::flat_hash_set<std::string>& inside,
                             const absl::flat_hash_map<TensorId, int>& uses, const TensorId& id,
                             absl::string_view op) {
  if (id.index != 0 || !inside.contains(id.node)) return nullptr;
  const auto read = uses.find(id);
  if (read == uses.end() || read->second != 1) return nullptr;
  const Node* node = graph.FindNode(id.node);
  return node != nullptr && node->op == op ? node : nullptr;
}

}  // namespace

std::optional<ConcatOfProducts> MatchConcatOfProducts(
    const Graph& graph, const Node& concat, const FoldResult& fold,
    const absl::flat_hash_set<std::string>& inside,
    const absl::flat_hash_map<TensorId, int>& uses) {
  if (concat.op != "ConcatV2" || concat.inputs.size() < 3) return std::nullopt;
  const int n = static_cast<int>(concat.inputs.size()) - 1;
  const TensorInfo& out = fold.Info(graph, TensorId{concat.name, 0});
  const std::optional<std::vector<int64_t>> axis =
      ConstantInts(fold.Info(graph, concat.inputs.back()));
  if (!out.shape || out.shape->empty() || !axis || axis->size() != 1) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(out.shape->size());
  if ((*axis)[0] != -1 && (*axis)[0] != rank - 1) return std::nullopt;

  ConcatOfProducts match;  // its MatMul and BiasAdd the first operand's, which the others match
  std::vector<TensorId> lefts, rights, biases;
  for (int k = 0; k < n; ++k) {
    TensorId value = concat.inputs[k];
    const Node* reshape = OnlyReadProducer(graph, inside, uses, value, "Reshape");
    if (k == 0) {
      match.reshaped = reshape != nullptr;
    } else if ((reshape != nullptr) != match.reshaped) {
      return std::nullopt;
    }
    if (reshape != nullptr) {
      // Only a Reshape that keeps the columns: the Concat's rows are then the product's.
      const TensorInfo& in = fold.Info(graph, reshape->inputs[0]);
      const TensorInfo& reshaped = fold.Info(graph, value);
      if (!in.shape || in.shape->size() != 2 || !reshaped.shape ||
          reshaped.shape->back() != in.shape->back()) {
        return std::nullopt;
      }
      value = reshape->inputs[0];
    }
    const Node* bias_add = OnlyReadProducer(graph, inside, uses, value, "BiasAdd");
    if (k == 0) {
      match.bias_add = bias_add;
    } else if ((bias_add != nullptr) != (match.bias_add != nullptr) ||
               (bias_add != nullptr && !SameScalarAttrs(*bias_add, *match.bias_add))) {
      return std::nullopt;
    }
    if (bias_add != nullptr) {
      biases.push_back(bias_add->inputs[1]);
      value = bias_add->inputs[0];
    }
    const Node* matmul = OnlyReadProducer(graph, inside, uses, value, "MatMul");
    if (matmul == nullptr || (k > 0 && !SameScalarAttrs(*matmul, *match.matmul))) {
      return std::nullopt;
    }
    if (k == 0) match.matmul = matmul;
    lefts.push_back(matmul->inputs[0]);
    rights.push_back(matmul->inputs[1]);
  }
  // Without Reshapes the operands are the products themselves, matrices.
  if (!match.reshaped && rank != 2) return std::nullopt;
  for (const TensorId& a : lefts) {
    if (!SameValue(graph, fold, a, lefts.front())) return std::nullopt;
  }
  // The product's columns are W's columns, or its rows where the MatMul transposes it.
  const absl::StatusOr<bool> transpose_b = match.matmul->GetBool("transpose_b", false);
  if (!transpose_b.ok()) return std::nullopt;
  std::vector<std::optional<AxisSlice>> w_slices, b_slices;
  for (const TensorId& w : rights)
    w_slices.push_back(SliceAlong(graph, fold, inside, w, *transpose_b ? 0 : 1));
  for (const TensorId& b : biases) b_slices.push_back(SliceAlong(graph, fold, inside, b, 0));
  if (!Reassemble(graph, fold, w_slices, *transpose_b ? 0 : 1)) return std::nullopt;
  if (!b_slices.empty() && !Reassemble(graph, fold, b_slices, 0)) return std::nullopt;

  match.a = lefts.front();
  match.w = w_slices.front()->source;
  if (!b_slices.empty()) match.b = b_slices.front()->source;
  return match;
}

absl::StatusOr<ExprPtr> TranslateConcatOfProducts(
    const Node& concat, const ConcatOfProducts& match, const FoldResult& fold, const Graph& graph,
    const absl::flat_hash_map<TensorId, ExprPtr>& values) {
  const auto input = [&](const TensorId& id) -> absl::StatusOr<TranslateInput> {
    const auto it = values.find(id);
    if (it == values.end()) {
      return concat.Error(absl::StrCat("its product's operand \"", id.ToString(),
                                       "\" is not a value of the cluster"));
    }
    return TranslateInput{.value = it->second, .known = &fold.Info(graph, id)};
  };
  // Each step is the op's own translation, of a node under the Concat's name.
  const auto apply = [&](const Node& like, const char* op,
                         std::vector<TranslateInput> inputs) -> absl::StatusOr<ExprPtr> {
    Node node{.name = concat.name, .op = op, .device = concat.device, .attrs = like.attrs};
    node.inputs.resize(inputs.size(), TensorId{concat.name, 0});
    DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> outs, TranslateNode(node, inputs));
    return outs.at(0);
  };
  DFC_ASSIGN_OR_RETURN(TranslateInput a, input(match.a));
  DFC_ASSIGN_OR_RETURN(TranslateInput w, input(match.w));
  DFC_ASSIGN_OR_RETURN(ExprPtr value, apply(*match.matmul, "MatMul", {a, w}));
  if (match.bias_add != nullptr) {
    DFC_ASSIGN_OR_RETURN(TranslateInput b, input(*match.b));
    DFC_ASSIGN_OR_RETURN(value, apply(*match.bias_add, "BiasAdd", {{.value = value}, b}));
  }
  if (!match.reshaped) return value;
  // To the Concat's own shape, the one the reshaped operands share with their columns summed.
  TensorInfo shape;
  shape.dtype = DType::kInt64;
  const SymbolicShape& out = *fold.Info(graph, TensorId{concat.name, 0}).shape;
  shape.shape = SymbolicShape{ArithExpr(static_cast<int64_t>(out.size()))};
  shape.symbolic_value = out;
  Node reshape{.name = concat.name, .op = "Reshape", .attrs = {{"Tshape", DType::kInt64}}};
  if (const auto t = concat.attrs.find("T"); t != concat.attrs.end())
    reshape.attrs["T"] = t->second;
  return apply(reshape, "Reshape", {{.value = value}, {.known = &shape}});
}

}  // namespace dfc::ir
