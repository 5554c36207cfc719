// The C++ runtime API for embedding dfc: a frozen graph run many times on one OpenCL device,
// each cluster as a generated kernel. A graph is translated once for each combination of fetches
// and fed tensors (and, for placeholders declared without a rank, the fed shapes); batch sizes
// are size variables, so a new batch size reuses the same kernels.
//
//   absl::StatusOr<std::unique_ptr<DeviceSession>> session =
//       DeviceSession::Open("model.pb", {.device = "auto"});
//   absl::StatusOr<std::vector<Tensor>> out = (*session)->Run({{{"input"}, x}}, {"output"});
//
// A plan compiled ahead of time (`dfc compile`, runtime/plan.h) opens with OpenPlan: its
// kernels are built, not generated, and its initialisers run once.
//
// Thread safety: Run may be called from several threads at once; runs share one in-order
// command queue and are serialised by a lock inside the session. For parallel runs, open one
// session per thread (programs are shared through the on-disk cache).
#ifndef DFC_RUNTIME_DEVICE_SESSION_H_
#define DFC_RUNTIME_DEVICE_SESSION_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/feed.h"
#include "graph/graph.h"
#include "graph/tensor.h"
#include "ir/from_tf/cluster.h"
#include "runtime/device_executor.h"
#include "runtime/plan.h"

namespace dfc {

class DeviceSession {
 public:
  struct Options {
    std::string device = "auto";  // auto|cpu|gpu|amd|nvidia|intel|arm
    int platform = -1;            // only devices of this OpenCL platform, if >= 0
    DeviceExecutor::Options executor;
  };

  static absl::StatusOr<std::unique_ptr<DeviceSession>> Open(const std::string& graph_path,
                                                             Options options);
  static absl::StatusOr<std::unique_ptr<DeviceSession>> Create(std::shared_ptr<const Graph> graph,
                                                               Options options);
  // Opens the plan in `dir` and runs its initialisers. A run of the plan's targets that
  // fetches some of the plan's fetches and feeds only placeholders runs the plan's kernels
  // (built for this device, whatever profile they were written for); any other run is translated
  // and generated as in a session made by Create.
  static absl::StatusOr<std::unique_ptr<DeviceSession>> OpenPlan(const std::string& dir,
                                                                 Options options);

  // Computes `fetches` ("node" or "node:1") from `feeds` and runs `targets` (nodes run for
  // their effects: a training step, an initialiser). Variables live on the device from one run
  // to the next. Errors: a feed or fetch naming no tensor, a feed that does not fit its
  // placeholder or a tensor fed twice (CheckFeeds, before anything runs), an op outside OPS.md,
  // a variable read before it is initialised, a runtime index out of range.
  absl::StatusOr<std::vector<Tensor>> Run(const std::vector<Feed>& feeds,
                                          const std::vector<std::string>& fetches,
                                          const std::vector<std::string>& targets = {});

  const DeviceExecutor& executor() const { return *executor_; }
  const std::shared_ptr<const Graph>& graph() const { return graph_; }
  // The plan the session was opened with, or nullptr.
  const Plan* plan() const { return plan_.get(); }

 private:
  friend class ::dfc::testing::TestHooks;
  DeviceSession(std::shared_ptr<const Graph> graph, std::unique_ptr<DeviceExecutor> executor)
      : graph_(std::move(graph)), executor_(std::move(executor)) {}

  std::shared_ptr<const Graph> graph_;
  std::mutex mutex_;
  std::unique_ptr<DeviceExecutor> executor_;
  std::unique_ptr<Plan> plan_;
  std::map<std::string, ir::TranslatedGraph> translated_;  // by fetches, targets and feeds
  DeviceExecutor::State state_;                            // variables and constants
};

}  // namespace dfc

#endif  // DFC_RUNTIME_DEVICE_SESSION_H_
