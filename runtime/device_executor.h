// Running a lowered graph on an OpenCL device: every cluster as one generated kernel
// (codegen/kernel_gen.h), host nodes on the reference executor.
//
// A cluster whose kernel cannot be generated or built does not bring the run down: a warning
// names the cluster, its nodes and the reason, and its nodes run on the reference executor.
// An executor is used from one thread at a time.
#ifndef DFC_RUNTIME_DEVICE_EXECUTOR_H_
#define DFC_RUNTIME_DEVICE_EXECUTOR_H_

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "codegen/device_profile.h"
#include "graph/graph.h"
#include "graph/tensor.h"
#include "ir/lower/cluster.h"
#include "runtime/opencl/context.h"
#include "runtime/opencl/program_cache.h"

namespace dfc {

class DeviceExecutor {
 public:
  struct Options {
    // Where fallback warnings go (nullptr: nowhere).
    std::ostream* warnings = nullptr;
    // A test hook: edits each generated source before it is built (to make a build fail).
    std::function<void(std::string& source)> edit_source;
  };

  DeviceExecutor(std::shared_ptr<cl::ClContext> context, std::shared_ptr<cl::ProgramCache> cache,
                 Options options);

  // An executor on the device cl::SelectDevice(kind, platform) picks, with a program cache in
  // cl::DefaultCacheDir().
  static absl::StatusOr<std::unique_ptr<DeviceExecutor>> Open(absl::string_view kind, int platform,
                                                              Options options);

  // Runs `lowered` (made by ir::LowerGraph for these fetches and feeds); returns the fetches.
  absl::StatusOr<std::vector<Tensor>> Run(const Graph& graph, const ir::LoweredGraph& lowered,
                                          const std::vector<std::pair<TensorId, Tensor>>& feeds,
                                          const std::vector<TensorId>& fetches);

  const std::string& device_name() const { return context_->info().device_name; }
  const cl::ProgramCache& program_cache() const { return *cache_; }

  // Clusters run as kernels, and run on the host after their kernel failed, since creation.
  int64_t kernels_run() const { return kernels_run_; }
  int64_t fallbacks() const { return fallbacks_; }

 private:
  absl::StatusOr<std::vector<Tensor>> RunKernel(const Graph& graph, const Cluster& cluster,
                                                const ir::LoweredCluster& lowered, int index,
                                                const std::vector<Tensor>& params,
                                                const SizeBindings& sizes);

  std::shared_ptr<cl::ClContext> context_;
  std::shared_ptr<cl::ProgramCache> cache_;
  Options options_;
  codegen::DeviceProfile profile_;
  int64_t kernels_run_ = 0;
  int64_t fallbacks_ = 0;
};

// The profile code generation uses for a device that is present.
codegen::DeviceProfile ProfileOf(const cl::DeviceInfo& device);

// "name (Op)" for each node of a cluster: kernel comments and messages name them so.
std::vector<std::string> ClusterNodeNames(const Graph& graph, const Cluster& cluster);

}  // namespace dfc

#endif  // DFC_RUNTIME_DEVICE_EXECUTOR_H_
