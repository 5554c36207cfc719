// Constant folding and shape inference over a Graph (see fold.h). Three layers, tried in
// order for each node: concrete evaluation through the oracle when every input is a constant;
// symbolic evaluation of the int32/int64 shape arithmetic TensorFlow's gradients emit; and
// otherwise shapes only (host plumbing by graph/host_shapes.h, device ops through the oracle).
// The symbolic layer's rules are graph/symbolic_fold.h's.
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
#include "graph/array_shapes.h"
#include "graph/control_flow.h"
#include "graph/host_shapes.h"
#include "graph/ops.h"
#include "graph/symbolic_fold.h"

namespace dfc {
namespace {

using folding::ConstInts;
using folding::FromPartialShape;
using folding::Infos;
using folding::Inputs;
using folding::IsIndexType;
using folding::IsSymbolicScalar;
using folding::ShapeOnly;
using folding::SymbolicInfo;
using folding::SymbolicRules;
using folding::SymVec;
using folding::TypeAttr;
using folding::UnknownInfo;

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

class Folder {
 public:
  // `depth`: how many loop bodies enclose `graph` (LoopShapes folds them).
  Folder(const Graph& graph, const FoldOracle& oracle, const FoldOptions& options, int depth = 0)
      : graph_(graph),
        oracle_(oracle),
        options_(options),
        depth_(depth),
        arrays_(graph, options.array_element_shapes) {
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
      ApplyArrays(i, in, out);
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
      } else if (TryFoldSymbolic(i, *def, in, num_outputs)) {
        return absl::OkStatus();
      }
    }
    out = InferShapes(node, *def, in, num_outputs);
    ApplyArrays(i, in, out);
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
      arrays[k] = arrays_.At(node, static_cast<int>(k));
      if (arrays[k]) folder.arrays_.arguments()[body.args[k]] = *arrays[k];
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
      const auto passed = folder.arrays_.carried().find(body.results[k]);
      if (passed == folder.arrays_.carried().end()) continue;
      const ArrayInfo& written = passed->second;
      const bool first_writes =
          arrays[k]->fresh && invariant && !written.fresh && written.size == arrays[k]->size;
      if (written == *arrays[k] || first_writes) {
        arrays_.carried()[TensorId{node.name, static_cast<int>(k)}] = written;
      }
    }
  }

  // The arrays node i makes known (ArrayShapes::Apply); a size it folds is pure.
  void ApplyArrays(int i, const Infos& in, Infos& out) {
    if (arrays_.Apply(graph_.node(i), in, out)) {
      result_.folded[i] = true;
      pure_[i] = true;
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

  bool TryFoldSymbolic(int i, const OpDef& def, const Infos& in, int num_outputs) {
    const Node& node = graph_.node(i);
    const auto& rules = SymbolicRules();
    auto rule = rules.find(node.op);
    if (rule == rules.end()) return false;
    // Shape and its kin read only their inputs' shapes; the others fold known values only.
    if (!def.reads_only_shapes) {
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
  // What is known of each TensorArray or TensorList.
  ArrayShapes arrays_;
  // A loop body's arguments' shapes as they enter the loop, by placeholder (LoopShapes), in the
  // enclosing graph's size variables.
  absl::flat_hash_map<std::string, SymbolicShape> arg_shapes_;
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
