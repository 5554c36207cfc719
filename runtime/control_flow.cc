// Deadness and the helpers of While and If (control_flow.h).
#include "runtime/control_flow.h"

namespace dfc {

bool IsSwitch(const Node& node) { return node.op == "Switch" || node.op == "RefSwitch"; }
bool IsMerge(const Node& node) { return node.op == "Merge" || node.op == "RefMerge"; }
bool IsWhile(const Node& node) { return node.op == "While" || node.op == "StatelessWhile"; }
bool IsIf(const Node& node) { return node.op == "If" || node.op == "StatelessIf"; }

bool Liveness::Runs(const Node& node) const {
  if (node.op == "ControlTrigger") return true;
  for (const std::string& c : node.control_inputs) {
    if (skipped_.contains(c)) return false;
  }
  if (dead_.empty()) return true;
  if (IsMerge(node)) return node.inputs.empty() || FirstLive(node) >= 0;
  for (const TensorId& id : node.inputs) {
    if (dead_.contains(id)) return false;
  }
  return true;
}

void Liveness::Skip(const Graph& graph, int node) {
  const Node& n = graph.node(node);
  skipped_.insert(n.name);
  for (int k = 0; k < graph.num_outputs(node); ++k) dead_.insert(TensorId{n.name, k});
}

int Liveness::FirstLive(const Node& merge) const {
  for (size_t k = 0; k < merge.inputs.size(); ++k) {
    if (!dead_.contains(merge.inputs[k])) return static_cast<int>(k);
  }
  return -1;
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
