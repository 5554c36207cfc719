// Control flow as every executor runs it (the reference session, the interpreter, the device):
// TensorFlow's deadness for the branches of TF1 conds, and While and If nodes, whose functions
// (graph/control_flow.h) each executor runs in its own way on its own values: host tensors,
// or device tensors that stay on the device from one iteration to the next.
#ifndef DFC_RUNTIME_CONTROL_FLOW_H_
#define DFC_RUNTIME_CONTROL_FLOW_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/feed.h"
#include "graph/graph.h"
#include "graph/node.h"
#include "graph/ops.h"
#include "graph/partition.h"
#include "graph/tensor.h"

namespace dfc {

// A While loop that runs more iterations than this, unless its executor is told another
// limit, is an error rather than a hang.
inline constexpr int64_t kDefaultMaxLoopIterations = 1'000'000;

// The error of `caller` running a function kMaxFunctionDepth deep.
absl::Status FunctionDepthError(const Node& caller);

// TensorFlow's deadness: a Switch gives its value to one output and the other output is dead;
// a node that reads a dead tensor, or waits (a control input) on a node that did not run, does
// not run, and its outputs are dead; a Merge runs when any input is live and passes the first
// live one on; a ControlTrigger always runs.
class Liveness {
 public:
  // A fed tensor is live, whatever made it.
  void Feed(const TensorId& id) { fed_.insert(id); }
  // Whether `node` runs.
  bool Runs(const Node& node) const;
  // Marks `node` as not run, its outputs dead.
  void Skip(const Graph& graph, int node);
  // The same for a cluster, whose nodes share one branch context (graph/partition.h): all of
  // them run, or none, as its inputs and the control inputs of its nodes say.
  bool Runs(const Cluster& cluster, const Graph& graph) const;
  void Skip(const Graph& graph, const Cluster& cluster);
  bool IsDead(const TensorId& id) const { return dead_.contains(id); }
  // The input Merge `merge` passes on: its first live one.
  absl::StatusOr<int> MergeInput(const Node& merge) const;
  // The output of Switch `node` that `predicate` makes live (1 for true); the other dies.
  absl::StatusOr<int> TakeSwitch(const Node& node, const Tensor& predicate);

 private:
  void Kill(const TensorId& id) {
    if (!fed_.contains(id)) dead_.insert(id);
  }

  absl::flat_hash_set<TensorId> fed_;
  absl::flat_hash_set<TensorId> dead_;
  absl::flat_hash_set<std::string> skipped_;
};

// The error of reading `id`, on a branch not taken: `consumer`'s, or the run's when null.
absl::Status DeadTensorError(const TensorId& id, const Node* consumer);

// The scalar a Switch's predicate or an If's condition holds, as TensorFlow reads it; an error
// naming `node` for anything but one number.
absl::StatusOr<bool> Truth(const Node& node, const Tensor& t, absl::string_view what);

// The function a While or If node names in attribute `key`, from `library` (the top graph's:
// a function's own graph holds none).
absl::StatusOr<const FunctionGraph*> NamedFunction(const Node& node, const FunctionLibrary* library,
                                                   absl::string_view key);

// The error of a loop that ran `limit` iterations without ending.
absl::Status LoopLimitError(const Node& node, int64_t limit);

// Runs While node `node` from `vars`: `run(function, args)` runs a function on an executor's
// values, `truth(value)` reads the condition's one value on the host. Returns the variables'
// final values.
template <typename V>
absl::StatusOr<std::vector<V>> RunWhileLoop(
    const Node& node, const FunctionLibrary* library, std::vector<V> vars, int64_t max_iterations,
    const std::function<absl::StatusOr<std::vector<V>>(const FunctionGraph&, std::vector<V>)>& run,
    const std::function<absl::StatusOr<bool>(const V&)>& truth) {
  DFC_ASSIGN_OR_RETURN(const FunctionGraph* cond, NamedFunction(node, library, "cond"));
  DFC_ASSIGN_OR_RETURN(const FunctionGraph* body, NamedFunction(node, library, "body"));
  if (cond->args.size() != vars.size() || body->args.size() != vars.size() ||
      body->results.size() != vars.size() || cond->results.size() != 1) {
    return node.Error(absl::StrCat("its condition and body must take its ", vars.size(),
                                   " loop variables, its body give as many and its condition one "
                                   "predicate"));
  }
  for (int64_t iteration = 0;; ++iteration) {
    DFC_ASSIGN_OR_RETURN(std::vector<V> c, run(*cond, vars));
    DFC_ASSIGN_OR_RETURN(bool more, truth(c[0]));
    if (!more) return vars;
    if (iteration >= max_iterations) return LoopLimitError(node, max_iterations);
    DFC_ASSIGN_OR_RETURN(vars, run(*body, std::move(vars)));
  }
}

// Runs If node `node`: `inputs` are its condition, then the branch's arguments.
template <typename V>
absl::StatusOr<std::vector<V>> RunIfBranch(
    const Node& node, const FunctionLibrary* library, std::vector<V> inputs,
    const std::function<absl::StatusOr<std::vector<V>>(const FunctionGraph&, std::vector<V>)>& run,
    const std::function<absl::StatusOr<bool>(const V&)>& truth) {
  if (inputs.empty()) return node.Error("has no condition input");
  DFC_ASSIGN_OR_RETURN(bool taken, truth(inputs[0]));
  DFC_ASSIGN_OR_RETURN(const FunctionGraph* branch,
                       NamedFunction(node, library, taken ? "then_branch" : "else_branch"));
  inputs.erase(inputs.begin());
  if (branch->args.size() != inputs.size()) {
    return node.Error(absl::StrCat("gives its branch ", inputs.size(), " arguments, it takes ",
                                   branch->args.size()));
  }
  return run(*branch, std::move(inputs));
}

// Runs While or If node `node` on `inputs` (RunWhileLoop, RunIfBranch); errors carry the node.
template <typename V>
absl::StatusOr<std::vector<V>> RunFunctional(
    const Node& node, const FunctionLibrary* library, std::vector<V> inputs,
    int64_t max_iterations,
    const std::function<absl::StatusOr<std::vector<V>>(const FunctionGraph&, std::vector<V>)>& run,
    const std::function<absl::StatusOr<bool>(const V&)>& truth) {
  absl::StatusOr<std::vector<V>> out =
      IsWhile(node) ? RunWhileLoop<V>(node, library, std::move(inputs), max_iterations, run, truth)
                    : RunIfBranch<V>(node, library, std::move(inputs), run, truth);
  if (!out.ok()) return node.Annotate(out.status());
  return out;
}

// `args` fed to `f`'s argument placeholders, in order.
std::vector<Feed> ArgumentFeeds(const FunctionGraph& f, std::vector<Tensor> args);

}  // namespace dfc

#endif  // DFC_RUNTIME_CONTROL_FLOW_H_
