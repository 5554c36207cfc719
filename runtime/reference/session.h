// The reference executor's session: runs any graph made of OPS.md's ops on the host with
// TensorFlow's semantics, keeping variables between runs. It is the oracle for every other
// way dfc runs a graph.
//
// A Session is used from one thread at a time.
#ifndef DFC_RUNTIME_REFERENCE_SESSION_H_
#define DFC_RUNTIME_REFERENCE_SESSION_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/feed.h"
#include "graph/graph.h"
#include "graph/tensor.h"
#include "runtime/control_flow.h"
#include "runtime/reference/kernel.h"

namespace dfc::reference {

// The error of `consumer` reading variable `variable` before any initialiser ran.
absl::Status UninitializedVariableError(const Node& consumer, absl::string_view variable);

class Session {
 public:
  struct Options {
    // A While loop that runs more iterations than this is an error (a loop that would never
    // end stops instead of hanging the run).
    int64_t max_loop_iterations = kDefaultMaxLoopIterations;
  };

  explicit Session(std::shared_ptr<const Graph> graph) : Session(std::move(graph), Options{}) {}
  Session(std::shared_ptr<const Graph> graph, Options options);

  // Computes `fetches` (tensor names) and runs `targets` (node names) with `feeds`; returns
  // the fetched values in order. Control inputs run first. Errors: a feed or fetch naming no
  // node, a feed whose dtype or shape does not fit its placeholder (CheckFeeds), a
  // placeholder left unfed, an unsupported op or dtype the fetches need (checked before
  // anything runs), and any kernel's error, prefixed with its node.
  //
  // Control flow runs as TensorFlow runs it: a Switch passes its value to one output and the
  // other is dead, as is every node that reads a dead tensor (but a Merge, which passes its
  // first live input on, and a ControlTrigger); fetching a dead tensor is an error. A While
  // node runs its condition and body graphs until the condition is false; an If node one
  // branch.
  absl::StatusOr<std::vector<Tensor>> Run(const std::vector<Feed>& feeds,
                                          const std::vector<std::string>& fetches,
                                          const std::vector<std::string>& targets = {});

  const Graph& graph() const { return *graph_; }

 private:
  struct Plan {
    std::vector<TensorId> fetches;
    std::vector<int> nodes;  // topological order
  };

  absl::StatusOr<const Plan*> GetPlan(const std::vector<TensorId>& feed_ids,
                                      const std::vector<std::string>& fetches,
                                      const std::vector<std::string>& targets);
  bool IsVariable(int node) const;
  Philox& RngFor(int node);

  // Runs function `f` on `args` in a nested session (same options, one level deeper).
  absl::StatusOr<std::vector<Tensor>> RunFunction(const Node& caller, const FunctionGraph& f,
                                                  std::vector<Tensor> args);
  // A While or If node.
  absl::StatusOr<std::vector<Tensor>> RunControl(const Node& node, std::vector<Tensor> inputs);

  Session(std::shared_ptr<const Graph> graph, Options options,
          std::shared_ptr<const FunctionLibrary> library, int depth);

  std::shared_ptr<const Graph> graph_;
  Options options_;
  std::shared_ptr<const FunctionLibrary> library_;  // the top graph's, for nested sessions
  int depth_ = 0;
  absl::flat_hash_map<const Graph*, std::unique_ptr<Session>> function_sessions_;
  absl::flat_hash_map<std::string, std::unique_ptr<Plan>> plans_;
  absl::flat_hash_map<int, KernelContext::VariableSlot> variables_;
  absl::flat_hash_map<int, Philox> rngs_;  // each random node's stream
};

}  // namespace dfc::reference

#endif  // DFC_RUNTIME_REFERENCE_SESSION_H_
