// Deadness and the helpers of While and If (control_flow.h).
#include "runtime/control_flow.h"

#include <algorithm>

namespace dfc {

bool Liveness::Runs(const Node& node) const {
  if (node.op == "ControlTrigger") return true;
  for (const std::string& c : node.control_inputs) {
    if (skipped_.contains(c)) return false;
  }
  if (dead_.empty()) return true;
  if (IsMerge(node)) {
    return node.inputs.empty() || std::any_of(node.inputs.begin(), node.inputs.end(),
                                              [&](const TensorId& id) { return !dead_.contains(id); });
  }
  for (const TensorId& id : node.inputs) {
    if (dead_.contains(id)) return false;
  }
  return true;
}

void Liveness::Skip(const Graph& graph, int node) {
  const Node& n = graph.node(node);
  skipped_.insert(n.name);
  for (int k = 0; k < graph.num_outputs(node); ++k) Kill(TensorId{n.name, k});
}

bool Liveness::Runs(const Cluster& cluster, const Graph& graph) const {
  if (dead_.empty() && skipped_.empty()) return true;
  for (const TensorId& id : cluster.inputs) {
    if (dead_.contains(id)) return false;
  }
  // A control input inside the cluster has not run yet, so it is not among the skipped.
  for (int n : cluster.nodes) {
    for (const std::string& c : graph.node(n).control_inputs) {
      if (skipped_.contains(c)) return false;
    }
  }
  return true;
}

void Liveness::Skip(const Graph& graph, const Cluster& cluster) {
  for (int n : cluster.nodes) Skip(graph, n);
}

absl::StatusOr<int> Liveness::MergeInput(const Node& merge) const {
  for (size_t k = 0; k < merge.inputs.size(); ++k) {
    if (!dead_.contains(merge.inputs[k])) return static_cast<int>(k);
  }
  return merge.Error(merge.inputs.empty() ? "a Merge with no input" : "a Merge with no live input");
}

absl::StatusOr<int> Liveness::TakeSwitch(const Node& node, const Tensor& predicate) {
  if (node.inputs.size() != 2) return node.Error("expected a value and a predicate");
  DFC_ASSIGN_OR_RETURN(bool taken, Truth(node, predicate, "its predicate"));
  Kill(TensorId{node.name, taken ? 0 : 1});
  return taken ? 1 : 0;
}

absl::Status DeadTensorError(const TensorId& id, const Node* consumer) {
  const std::string message =
      absl::StrCat("\"", id.ToString(), "\" has no value: it is on a branch not taken");
  return consumer != nullptr ? consumer->Error(message) : absl::InvalidArgumentError(message);
}

absl::Status FunctionDepthError(const Node& caller) {
  return caller.Error(absl::StrCat("functions run each other more than ", kMaxFunctionDepth,
                                   " deep (a function that runs itself)"));
}

std::vector<Feed> ArgumentFeeds(const FunctionGraph& f, std::vector<Tensor> args) {
  std::vector<Feed> feeds;
  feeds.reserve(args.size());
  for (size_t k = 0; k < args.size() && k < f.args.size(); ++k) {
    feeds.push_back(Feed{TensorId{f.args[k], 0}, std::move(args[k])});
  }
  return feeds;
}

absl::StatusOr<bool> Truth(const Node& node, const Tensor& t, absl::string_view what) {
  if (t.num_elements() != 1 || !IsSupported(t.dtype()) || t.raw_data() == nullptr) {
    return node.Error(absl::StrCat(what, " is ", t.DebugType(), ", expected one number"));
  }
  return t.ElementAsDouble(0) != 0;
}

absl::StatusOr<const FunctionGraph*> NamedFunction(const Node& node, const FunctionLibrary* library,
                                                   absl::string_view key) {
  const auto it = node.attrs.find(key);
  const FuncRef* f = it == node.attrs.end() ? nullptr : std::get_if<FuncRef>(&it->second);
  if (f == nullptr) return node.Error(absl::StrCat("has no function attribute \"", key, "\""));
  if (library != nullptr) {
    if (const auto found = library->find(f->name); found != library->end()) return &found->second;
  }
  return node.Error(absl::StrCat("runs function \"", f->name, "\", which the graph lacks"));
}

absl::Status LoopLimitError(const Node& node, int64_t limit) {
  return node.Error(absl::StrCat("the loop ran ", limit,
                                 " iterations without its condition turning false (the limit is "
                                 "--max-loop-iterations)"));
}

}  // namespace dfc
