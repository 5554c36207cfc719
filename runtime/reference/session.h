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
#include "runtime/reference/kernel.h"

namespace dfc::reference {

// The error of `consumer` reading variable `variable` before any initialiser ran.
absl::Status UninitializedVariableError(const Node& consumer, absl::string_view variable);

class Session {
 public:
  explicit Session(std::shared_ptr<const Graph> graph);

  // Computes `fetches` (tensor names) and runs `targets` (node names) with `feeds`; returns
  // the fetched values in order. Control inputs run first. Errors: a feed or fetch naming no
  // node, a feed whose dtype or shape does not fit its placeholder (CheckFeeds), a
  // placeholder left unfed, an unsupported op or dtype the fetches need (checked before
  // anything runs), and any kernel's error, prefixed with its node.
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

  std::shared_ptr<const Graph> graph_;
  absl::flat_hash_map<std::string, std::unique_ptr<Plan>> plans_;
  absl::flat_hash_map<int, KernelContext::VariableSlot> variables_;
  absl::flat_hash_map<int, Philox> rngs_;  // each random node's stream
};

}  // namespace dfc::reference

#endif  // DFC_RUNTIME_REFERENCE_SESSION_H_
