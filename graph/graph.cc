// Graph construction, validation, ordering and pruning.
#include "graph/graph.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "graph/decode.h"
#include "graph/ops.h"

namespace dfc {
namespace {

absl::StatusOr<Node> DecodeNode(const tf::NodeDef& def) {
  Node node;
  node.name = def.name();
  node.op = def.op();
  node.device = def.device();
  if (node.name.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("a node of op \"", node.op, "\" has no name"));
  }
  if (node.op.empty()) return node.Error("the node has no op");
  for (const std::string& input : def.input()) {
    if (!input.empty() && input[0] == '^') {
      if (input.size() == 1) return node.Error("control input \"^\" names no node");
      node.control_inputs.push_back(input.substr(1));
      continue;
    }
    if (!node.control_inputs.empty()) {
      return node.Error(absl::StrCat("data input \"", input,
                                     "\" comes after a control input (control inputs go last)"));
    }
    absl::StatusOr<TensorId> id = TensorId::Parse(input);
    if (!id.ok()) return node.Annotate(id.status());
    node.inputs.push_back(*std::move(id));
  }
  // Attributes in sorted order so that the first error found does not depend on map order.
  std::vector<const std::string*> keys;
  for (const auto& [key, value] : def.attr()) keys.push_back(&key);
  std::sort(keys.begin(), keys.end(), [](auto* a, auto* b) { return *a < *b; });
  for (const std::string* key : keys) {
    absl::StatusOr<AttrValue> value = DecodeAttr(def.attr().at(*key));
    if (!value.ok()) {
      return node.Error(absl::StrCat("attribute \"", *key, "\": ", value.status().message()));
    }
    node.attrs.emplace(*key, *std::move(value));
  }
  return node;
}

}  // namespace

namespace {

// The functions a While or If node names, which `library` must have.
absl::Status CheckFunctionNamed(const Node& node, const FunctionLibrary& library) {
  if (!RunsFunctions(node.op)) return absl::OkStatus();
  for (const absl::string_view key : kFunctionAttrs) {
    const auto it = node.attrs.find(key);
    if (it == node.attrs.end()) continue;
    const FuncRef* f = std::get_if<FuncRef>(&it->second);
    if (f == nullptr) return node.Error(absl::StrCat("attribute \"", key, "\" is no function"));
    if (!library.contains(f->name)) {
      return node.Error(absl::StrCat("runs function \"", f->name, "\", which the graph lacks"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Graph> Graph::FromGraphDef(const tf::GraphDef& def, const FunctionBodies& bodies) {
  DFC_ASSIGN_OR_RETURN(Graph graph, FromGraphDef(def.node(), def.versions().producer()));
  auto library = std::make_shared<FunctionLibrary>();
  for (const auto& [name, body] : bodies) {
    absl::StatusOr<Graph> g = FromGraphDef(body.graph.node(), def.versions().producer());
    if (!g.ok()) {
      return absl::Status(g.status().code(),
                          absl::StrCat("function \"", name, "\": ", g.status().message()));
    }
    FunctionGraph f;
    for (const std::string& arg : body.args) {
      const Node* p = g->FindNode(arg);
      if (p == nullptr || p->op != "Placeholder") {
        return absl::InvalidArgumentError(
            absl::StrCat("function \"", name, "\": argument \"", arg, "\" is no placeholder"));
      }
      f.args.push_back(arg);
    }
    for (const std::string& result : body.results) {
      DFC_ASSIGN_OR_RETURN(TensorId id, TensorId::Parse(result));
      if (absl::StatusOr<int> i = g->ResolveTensor(id, "result"); !i.ok()) {
        return absl::Status(i.status().code(), absl::StrCat("function \"", name, "\": ",
                                                            i.status().message()));
      }
      f.results.push_back(std::move(id));
    }
    f.targets = body.targets;
    f.graph = std::make_shared<const Graph>(*std::move(g));
    (*library)[name] = std::move(f);
  }
  for (const Node& node : graph.nodes_) {
    if (absl::Status s = CheckFunctionNamed(node, *library); !s.ok()) return s;
  }
  for (const auto& [name, f] : *library) {
    for (const Node& node : f.graph->nodes()) {
      if (absl::Status s = CheckFunctionNamed(node, *library); !s.ok()) {
        return absl::Status(s.code(), absl::StrCat("function \"", name, "\": ", s.message()));
      }
    }
  }
  if (!library->empty()) graph.functions_ = std::move(library);
  return graph;
}

absl::StatusOr<Graph> Graph::FromGraphDef(
    const google::protobuf::RepeatedPtrField<tf::NodeDef>& node_defs, int producer) {
  std::vector<Node> nodes;
  nodes.reserve(node_defs.size());
  for (const tf::NodeDef& node_def : node_defs) {
    absl::StatusOr<Node> node = DecodeNode(node_def);
    if (!node.ok()) return node.status();
    // Up to GraphDef version 21 a Placeholder's scalar `shape` meant "any shape": TensorFlow's
    // Placeholder shape function still reads it so for those graphs (Keras wrote them so).
    if (producer <= 21 && (node->op == "Placeholder" || node->op == "PlaceholderWithDefault")) {
      auto it = node->attrs.find("shape");
      if (it != node->attrs.end()) {
        const PartialShape* shape = std::get_if<PartialShape>(&it->second);
        if (shape != nullptr && !shape->unknown_rank && shape->dims.empty()) {
          it->second = PartialShape{.unknown_rank = true, .dims = {}};
        }
      }
    }
    nodes.push_back(*std::move(node));
  }
  return FromNodes(std::move(nodes), producer);
}

absl::StatusOr<Graph> Graph::FromNodes(std::vector<Node> nodes, int producer) {
  Graph graph;
  graph.nodes_ = std::move(nodes);
  graph.producer_ = producer;
  if (absl::Status s = graph.Index(); !s.ok()) return s;
  if (absl::Status s = graph.Sort(); !s.ok()) return s;
  return graph;
}

absl::Status Graph::Index() {
  const int n = num_nodes();
  index_.reserve(n);
  num_outputs_.assign(n, -1);
  consumed_.assign(n, false);
  for (int i = 0; i < n; ++i) {
    const Node& node = nodes_[i];
    if (!index_.emplace(node.name, i).second) {
      return node.Error("duplicate node name (an earlier node has the same name)");
    }
    if (const OpDef* def = FindOpDef(node.op)) {
      if (absl::Status s = CheckAttrKinds(node, *def); !s.ok()) return s;
      absl::StatusOr<int> outputs = NumOutputs(node, *def);
      if (!outputs.ok()) return outputs.status();
      num_outputs_[i] = *outputs;
    }
  }
  for (const Node& node : nodes_) {
    for (const TensorId& input : node.inputs) {
      const int producer = IndexOf(input.node);
      if (producer < 0) {
        return node.Error(absl::StrCat("input \"", input.ToString(), "\" names no node"));
      }
      if (num_outputs_[producer] >= 0 && input.index >= num_outputs_[producer]) {
        return node.Error(absl::StrCat(
            "input \"", input.ToString(), "\" asks for output ", input.index, " of \"", input.node,
            "\" (", nodes_[producer].op, "), which has ", num_outputs_[producer], " output(s)"));
      }
      consumed_[producer] = true;
    }
    for (const std::string& control : node.control_inputs) {
      if (IndexOf(control) < 0) {
        return node.Error(absl::StrCat("control input \"^", control, "\" names no node"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Graph::Sort() {
  // Kahn's algorithm over data and control edges; inputs before their consumers, and among
  // ready nodes the file's order, so the order is stable.
  const int n = num_nodes();
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> consumers(n);
  for (int i = 0; i < n; ++i) {
    auto add_edge = [&](absl::string_view from) {
      const int p = IndexOf(from);
      consumers[p].push_back(i);
      ++pending[i];
    };
    for (const TensorId& input : nodes_[i].inputs) add_edge(input.node);
    for (const std::string& control : nodes_[i].control_inputs) add_edge(control);
  }
  std::vector<int> ready;
  for (int i = n - 1; i >= 0; --i) {
    if (pending[i] == 0) ready.push_back(i);
  }
  topo_order_.clear();
  topo_order_.reserve(n);
  while (!ready.empty()) {
    const int i = ready.back();
    ready.pop_back();
    topo_order_.push_back(i);
    for (int c : consumers[i]) {
      if (--pending[c] == 0) ready.push_back(c);
    }
  }
  if (static_cast<int>(topo_order_.size()) == n) return absl::OkStatus();

  // Some nodes wait on each other: walk back along unfinished inputs until a node repeats.
  int start = 0;
  while (pending[start] == 0) ++start;
  std::vector<int> path;
  std::vector<int> position(n, -1);
  int current = start;
  while (position[current] < 0) {
    position[current] = static_cast<int>(path.size());
    path.push_back(current);
    const Node& node = nodes_[current];
    int next = -1;
    for (const TensorId& input : node.inputs) {
      if (pending[IndexOf(input.node)] > 0) next = IndexOf(input.node);
    }
    for (const std::string& control : node.control_inputs) {
      if (next < 0 && pending[IndexOf(control)] > 0) next = IndexOf(control);
    }
    current = next;
  }
  std::vector<std::string> names;
  for (size_t k = position[current]; k < path.size(); ++k) names.push_back(nodes_[path[k]].name);
  std::reverse(names.begin(), names.end());
  names.push_back(names.front());
  return nodes_[current].Error(
      absl::StrCat("the graph has a cycle: ", absl::StrJoin(names, " -> ")));
}

int Graph::IndexOf(absl::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? -1 : it->second;
}

absl::StatusOr<int> Graph::ResolveTensor(const TensorId& id, absl::string_view role) const {
  const int i = IndexOf(id.node);
  if (i < 0) {
    return absl::NotFoundError(absl::StrCat(role, " \"", id.ToString(), "\" names no node"));
  }
  if (num_outputs_[i] >= 0 && id.index >= num_outputs_[i]) {
    return absl::InvalidArgumentError(absl::StrCat(role, " \"", id.ToString(), "\": node \"",
                                                   id.node, "\" (", nodes_[i].op, ") has ",
                                                   num_outputs_[i], " output(s)"));
  }
  return i;
}

const Node* Graph::FindNode(absl::string_view name) const {
  const int i = IndexOf(name);
  return i < 0 ? nullptr : &nodes_[i];
}

absl::StatusOr<std::vector<int>> NeededNodes(const Graph& graph,
                                             const std::vector<TensorId>& fetches,
                                             const std::vector<std::string>& targets,
                                             const absl::flat_hash_set<TensorId>& fed) {
  std::vector<bool> needed(graph.num_nodes(), false);
  std::vector<int> stack;
  auto need_node = [&](int i) {
    if (!needed[i]) {
      needed[i] = true;
      stack.push_back(i);
    }
  };
  // A tensor is needed: its producer runs unless the tensor is fed.
  auto need_tensor = [&](const TensorId& t) {
    if (!fed.contains(t)) need_node(graph.IndexOf(t.node));
  };
  for (const TensorId& fetch : fetches) {
    if (absl::StatusOr<int> i = graph.ResolveTensor(fetch, "fetch"); !i.ok()) return i.status();
    need_tensor(fetch);
  }
  for (const std::string& target : targets) {
    const int i = graph.IndexOf(target);
    if (i < 0) return absl::NotFoundError(absl::StrCat("target \"", target, "\" names no node"));
    need_node(i);
  }
  while (!stack.empty()) {
    const Node& node = graph.node(stack.back());
    stack.pop_back();
    for (const TensorId& input : node.inputs) need_tensor(input);
    for (const std::string& control : node.control_inputs) need_node(graph.IndexOf(control));
  }
  std::vector<int> order;
  for (int i : graph.topological_order()) {
    if (needed[i]) order.push_back(i);
  }
  return order;
}

namespace {

bool IsStringConstant(const Node& node) {
  absl::StatusOr<DType> dtype = node.GetType("dtype");
  return dtype.ok() && *dtype == DType::kString;
}

// bfloat16 values are only stored: a constant of them may feed Identity and Bitcast, and any
// other reader is refused for its own dtype attribute.
bool IsBFloat16Constant(const Node& node) {
  absl::StatusOr<DType> dtype = node.GetType("dtype");
  return dtype.ok() && *dtype == DType::kBFloat16;
}

}  // namespace

absl::Status CheckSupported(const Graph& graph, const std::vector<int>& nodes) {
  for (int i : nodes) {
    const Node& node = graph.node(i);
    const OpDef* def = FindOpDef(node.op);
    if (def == nullptr) {
      return absl::UnimplementedError(absl::StrCat(
          "op \"", node.op, "\" (used by node \"", node.name,
          "\") is not supported by dfc (see OPS.md), and the requested fetches need it"));
    }
    // A string constant is an assertion's message, which only its readers' dtypes decide.
    const bool moved_only =
        def->any_dtype || PassesHostOnlyValue(node) ||
        (node.op == "Const" && (IsStringConstant(node) || IsBFloat16Constant(node)));
    if (moved_only) continue;
    for (const auto& [key, value] : node.attrs) {
      // A structured binding is captured by name only from C++20 compilers newer than clang 14.
      auto check = [&, &key = key](DType d) -> absl::Status {
        if (IsSupported(d)) return absl::OkStatus();
        return node.Error(absl::StrCat("attribute \"", key, "\" has dtype ",
                                       d == DType::kString || d == DType::kBFloat16
                                           ? std::string(DTypeName(d))
                                           : absl::StrCat(static_cast<int>(d)),
                                       ", which dfc does not compute with"));
      };
      if (const DType* d = std::get_if<DType>(&value)) {
        if (absl::Status s = check(*d); !s.ok()) return s;
      } else if (const AttrList* list = std::get_if<AttrList>(&value)) {
        for (DType d : list->type) {
          if (absl::Status s = check(d); !s.ok()) return s;
        }
      } else if (const Tensor* t = std::get_if<Tensor>(&value)) {
        if (absl::Status s = check(t->dtype()); !s.ok()) return s;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace dfc
