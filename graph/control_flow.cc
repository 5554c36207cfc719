// Retyping TensorArray flows and instantiating the functions of While and If nodes; the TF1 loops
// themselves become While nodes in control_flow_loops.cc (control_flow.h).
#include "graph/control_flow.h"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status.h"
#include "graph/control_flow_internal.h"
#include "graph/functions.h"
#include "graph/node.h"

namespace dfc {
namespace {

constexpr int kDtVariant = 21;

bool IsOp(const tf::NodeDef& node, std::initializer_list<absl::string_view> ops) {
  return std::find(ops.begin(), ops.end(), node.op()) != ops.end();
}

}  // namespace

namespace control_flow_internal {

absl::Status NodeError(const tf::NodeDef& node, absl::string_view message) {
  return absl::InvalidArgumentError(
      absl::StrCat("node \"", node.name(), "\" (", node.op(), "): ", message));
}

bool IsEnter(const tf::NodeDef& n) { return IsOp(n, {"Enter", "RefEnter"}); }
bool IsExit(const tf::NodeDef& n) { return IsOp(n, {"Exit", "RefExit"}); }
bool IsMerge(const tf::NodeDef& n) { return IsOp(n, {"Merge", "RefMerge"}); }
bool IsSwitch(const tf::NodeDef& n) { return IsOp(n, {"Switch", "RefSwitch"}); }
bool IsNextIteration(const tf::NodeDef& n) {
  return IsOp(n, {"NextIteration", "RefNextIteration"});
}

const tf::AttrValue* FindAttr(const tf::NodeDef& node, absl::string_view key) {
  const auto it = node.attr().find(std::string(key));
  return it == node.attr().end() ? nullptr : &it->second;
}

tf::NodeDef Placeholder(const std::string& name, const tf::AttrValue& type) {
  tf::NodeDef p;
  p.set_name(name);
  p.set_op("Placeholder");
  (*p.mutable_attr())["dtype"] = type;
  return p;
}

}  // namespace control_flow_internal

namespace {

using control_flow_internal::FindAttr;
using control_flow_internal::FunctionalizeLoops;
using control_flow_internal::IsEnter;
using control_flow_internal::IsExit;
using control_flow_internal::IsMerge;
using control_flow_internal::IsNextIteration;
using control_flow_internal::IsSwitch;
using control_flow_internal::NodeError;
using control_flow_internal::Placeholder;

bool PassesOn(const tf::NodeDef& n) {
  return IsEnter(n) || IsExit(n) || IsMerge(n) || IsSwitch(n) || IsNextIteration(n) ||
         IsOp(n, {"Identity", "RefIdentity"});
}

// TensorArrays as values: every tensor that threads a TensorArray's flow from op to op, and
// every Identity, Enter, Merge, Switch, NextIteration and Exit that passes one on, becomes a
// variant, so that the loops carry the array where TensorFlow carried a float token. A gradient
// array's flow stays a float token: the array is state its handle names (graph/tensor_list.h),
// and the gradients of loops add its flows up as TensorFlow's do.
void RetypeTensorArrayFlows(tf::GraphDef& def) {
  absl::flat_hash_map<std::string, int> index;
  for (int i = 0; i < def.node_size(); ++i) index[def.node(i).name()] = i;
  // Whether node i's input 0 is a gradient array's handle, through the nodes that pass it on.
  const auto writes_gradient = [&](int i) {
    absl::flat_hash_set<int> seen;
    for (int n = i; def.node(n).input_size() > 0 && seen.insert(n).second;) {
      const NodeInput in = ParseNodeInput(def.node(n).input(0));
      const auto p = index.find(in.tensor.node);
      if (in.control || p == index.end()) return false;
      n = p->second;
      if (IsOp(def.node(n), {"TensorArrayGradV3"})) return true;
      if (!PassesOn(def.node(n))) return false;
    }
    return false;
  };
  absl::flat_hash_set<std::pair<int, int>> flows;  // (node, output)
  for (int i = 0; i < def.node_size(); ++i) {
    const tf::NodeDef& n = def.node(i);
    if (IsOp(n, {"TensorArrayV3"})) flows.insert({i, 1});
    if (IsOp(n, {"TensorArrayWriteV3", "TensorArrayScatterV3", "TensorArraySplitV3"}) &&
        !writes_gradient(i)) {
      flows.insert({i, 0});
    }
  }
  if (flows.empty()) return;
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < def.node_size(); ++i) {
      tf::NodeDef& n = *def.mutable_node(i);
      if (!PassesOn(n) || flows.contains({i, 0})) continue;
      for (const std::string& text : n.input()) {
        const NodeInput in = ParseNodeInput(text);
        const auto p = index.find(in.tensor.node);
        if (in.control || p == index.end() || !flows.contains({p->second, in.tensor.index}))
          continue;
        (*n.mutable_attr())["T"].set_type(static_cast<tf::DataType>(kDtVariant));
        flows.insert({i, 0});
        if (IsSwitch(n)) flows.insert({i, 1});
        changed = true;
        break;
      }
    }
  }
}

// The library function `name` as a body, its arguments typed by its signature (and `attrs`
// for an argument typed by an attribute).
absl::StatusOr<FunctionBody> InstantiateFunction(const tf::GraphDef& def,
                                                 const tf::NameAttrList& func,
                                                 const std::vector<tf::OpDef>& op_list) {
  const tf::FunctionDef* f = nullptr;
  for (const tf::FunctionDef& candidate : def.library().function()) {
    if (candidate.signature().name() == func.name()) f = &candidate;
  }
  if (f == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("function \"", func.name(), "\" is not in the graph's library"));
  }
  tf::GraphDef call_graph;
  *call_graph.mutable_library() = def.library();
  FunctionBody body;
  tf::NodeDef call;
  call.set_name(func.name());
  call.set_op("PartitionedCall");
  *(*call.mutable_attr())["f"].mutable_func() = func;
  for (int k = 0; k < f->signature().input_arg_size(); ++k) {
    const tf::OpDef::ArgDef& arg = f->signature().input_arg(k);
    tf::AttrValue type;
    if (!arg.type_attr().empty()) {
      const auto it = func.attr().find(arg.type_attr());
      if (it == func.attr().end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "function \"", func.name(), "\": argument \"", arg.name(), "\" is of type \"",
            arg.type_attr(), "\", which its caller does not set"));
      }
      type = it->second;
    } else {
      type.set_type(arg.type());
    }
    const std::string name = absl::StrCat(func.name(), "/dfc_arg_", k);
    *call_graph.add_node() = Placeholder(name, type);
    body.args.push_back(name);
    call.add_input(name);
  }
  *call_graph.add_node() = std::move(call);
  DFC_ASSIGN_OR_RETURN(tf::GraphDef inlined, InlineFunctionCalls(std::move(call_graph), op_list));
  for (int k = 0; k < f->signature().output_arg_size(); ++k) {
    body.results.push_back(TensorId{func.name(), k}.ToString());
  }
  body.graph = std::move(inlined);
  body.graph.clear_library();
  // The call's node, an IdentityN (or NoOp), runs after the body's control outputs.
  if (f->signature().output_arg_size() == 0) body.targets.push_back(func.name());
  return body;
}

// Instantiates every library function that a While or If node of `nodes` names, and those
// that their bodies name in turn.
absl::Status InstantiateCalled(const tf::GraphDef& def, const tf::GraphDef& nodes,
                               const std::vector<tf::OpDef>& op_list, int depth,
                               FunctionBodies& bodies) {
  for (const tf::NodeDef& n : nodes.node()) {
    if (!RunsFunctions(n.op())) continue;
    for (const absl::string_view key : kFunctionAttrs) {
      const tf::AttrValue* attr = FindAttr(n, key);
      if (attr == nullptr) continue;
      if (!attr->has_func())
        return NodeError(n, absl::StrCat("attribute \"", key, "\" is no function"));
      if (bodies.contains(attr->func().name())) continue;
      if (depth >= kMaxFunctionDepth) {
        return NodeError(n, absl::StrCat("functions nest more than ", kMaxFunctionDepth,
                                         " deep through \"", attr->func().name(),
                                         "\" (a function that runs itself)"));
      }
      absl::StatusOr<FunctionBody> body = InstantiateFunction(def, attr->func(), op_list);
      if (!body.ok()) return NodeError(n, body.status().message());
      const tf::GraphDef graph = body->graph;
      bodies[attr->func().name()] = *std::move(body);
      DFC_RETURN_IF_ERROR(InstantiateCalled(def, graph, op_list, depth + 1, bodies));
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool RunsFunctions(absl::string_view op) {
  return op == "While" || op == "StatelessWhile" || op == "If" || op == "StatelessIf";
}

absl::StatusOr<FunctionBodies> FunctionalizeControlFlow(tf::GraphDef& def,
                                                        const std::vector<tf::OpDef>& op_list) {
  RetypeTensorArrayFlows(def);
  FunctionBodies bodies;
  DFC_RETURN_IF_ERROR(FunctionalizeLoops(def, bodies));
  DFC_RETURN_IF_ERROR(InstantiateCalled(def, def, op_list, 0, bodies));
  return bodies;
}

}  // namespace dfc
