// Running a translated graph on an OpenCL device: every cluster as one generated kernel
// (codegen/kernel_gen.h), host nodes on the reference executor.
//
// Tensors stay on the device. A cluster's outputs are left in device buffers for the clusters
// that read them; a value crosses to the host only when a host op or a fetch reads it, and to
// the device only when a cluster reads a host value (a feed, a constant, a host op's result),
// each at most once per run. Constants are uploaded once and kept for later runs; variables
// live on the device in a State, and the ops that write them (Assign, AssignAdd, AssignSub,
// ApplyGradientDescent) run there too, as do ApplyAdam and ApplyMomentum (one kernel over the
// variable and its slots); the other optimizers run on the host, and their results become the
// variables' values wherever those are read next. Every buffer is
// written once, by the command that makes it, so a value read earlier in a run (W/read) never
// changes under its readers: an update makes a new buffer and the variable takes it.
//
// Each cluster's kernel is generated and built on its first run and kept: later runs, of any
// batch size, only launch it. A cluster whose kernel cannot be generated or built does not
// bring the run down: a warning names the cluster, its nodes and the reason (once), and its
// nodes run on the reference executor. A runtime index out of range in a kernel is the run's
// error, naming the cluster, as it is TensorFlow's; so is a device fault (memory that runs out,
// a device lost: cl::IsDeviceFault), which the host cannot work around. A run's variable writes
// take effect only when the whole run succeeds: a failed training step leaves every variable
// as it was.
//
// Where the device has an inline device (PoCL's basic device beside its pthread device), a run
// small enough to lose more to the hand-off to the device's threads than it gains from them
// goes there instead, placed by the bound sizes (RunPlacement): the same kernels, built for
// each device on first use there, and the same buffers.
//
// An executor is used from one thread at a time.
#ifndef DFC_RUNTIME_DEVICE_EXECUTOR_H_
#define DFC_RUNTIME_DEVICE_EXECUTOR_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "codegen/kernel_gen.h"
#include "graph/feed.h"
#include "graph/graph.h"
#include "graph/tensor.h"
#include "ir/from_tf/cluster.h"
#include "rewrite/device_profile.h"
#include "runtime/control_flow.h"
#include "runtime/opencl/context.h"
#include "runtime/opencl/program_cache.h"
#include "runtime/reference/philox.h"
#include "runtime/translate_for_feeds.h"

namespace dfc {

namespace testing {
class TestHooks;  // tests/test_hooks.h
}  // namespace testing

// A tensor of a run: in a device buffer, on the host, or both (each copy made once).
struct DeviceTensor {
  DType dtype = DType::kFloat;
  Shape shape;
  std::shared_ptr<cl::ClBuffer> buffer;  // null until the value is on the device
  std::optional<Tensor> host;            // empty until the value is on the host

  size_t byte_size() const {
    size_t n = SizeOf(dtype);
    for (int64_t d : shape) n *= static_cast<size_t>(d);
    return n;
  }
  std::string DebugType() const { return absl::StrCat(DTypeName(dtype), ShapeToString(shape)); }
};

// The work-group size of a MapGlb kernel whose size the plan leaves to the driver, when each
// work-item declares `private_bytes` of private arrays: 0 (the driver's choice) without any;
// else the largest power of two, at most `max_work_group_size`, whose work-items' arrays fit in
// kPrivateBytesPerWorkGroup. A CPU driver runs a work-group's items on one thread, keeping
// their private arrays on its stack: PoCL chose 4096 items for a MapGlb kernel of 8192 rows
// with 1 KiB arrays and overflowed it (the process died).
inline constexpr int64_t kPrivateBytesPerWorkGroup = 256 * 1024;

// The smallest tensor a run gives a device that shares the host's memory as it lies rather than
// copied: below it a copy costs less than making a buffer of its own.
inline constexpr size_t kBorrowedBytes = 64 * 1024;
size_t LocalSizeForPrivateArrays(int64_t private_bytes, size_t max_work_group_size);

// How a kernel stage of `rows` rows is launched on a device of `compute_units` units whose
// work-groups hold at most `max_work_group_size` items: a MapGlb stage gets its work-group size
// (or the driver's choice, 0, bounded by its private arrays) and a global size rounded up to it;
// a MapWrg/MapLcl stage gets exactly its work-group size, one group a row. Where private arrays
// bound the size, it is also at most the largest power of two that leaves two groups a unit:
// a CPU driver runs a group on one thread, and the 128 blocks of a 1024-row GEMM in one group of
// 128 ran on one of the two cores (24 ms where two groups took 12).
struct StageLaunch {
  size_t global = 0;
  size_t local = 0;  // 0: the driver's choice
};
StageLaunch StageGeometry(const codegen::KernelStage& stage, int64_t rows,
                          size_t max_work_group_size, int compute_units = 1);

// Where a run goes on a device that has an inline device (cl::DeviceInfo::inline_device, PoCL's
// basic device beside its pthread device), which runs the commands on the thread that waits for
// them: no hand-off to the device's threads and back, but one core.
enum class RunPlacement {
  // Each graph, at each binding of its sizes, is timed on the inline device, and kept there if
  // it runs faster than the device could (below): chosen anew for every binding, so that one
  // plan serves every batch size.
  kMeasured,
  kDevice,  // always the device itself
  kInline,  // always the inline device
};

// A run estimated above this many operations stays on the device, untimed: on one core it takes
// about a millisecond or more, beside which the hand-off it would save is noise.
inline constexpr double kMeasureBelowOps = 1e8;
// The runs that time a binding on the inline device: one untimed (it may build programs), then
// this many timed, whose best is T, launching K kernels. The device takes about T / P + K H (its
// P compute units at best, and a hand-off H, DeviceExecutor::MeasureHandOff, for each kernel:
// the pthread device wakes its threads for each), so the binding stays inline where
// T < K H P / (P - 1), and goes to the device otherwise; where every kernel has fewer rows than
// P (a product at batch 1 computes its one block of rows on one work-item), the device cannot
// share any of T among its units and only adds hand-offs, so the binding stays inline. Timing the
// device itself would need many runs there: PoCL's pthread device ran a graph at 0.51 ms a run for
// its first runs after others ran inline, and at 0.32 ms later.
inline constexpr int kPlacementTrials = 3;
inline constexpr int kPlacementRuns = 1 + kPlacementTrials;

// "measured", "device" or "inline" from $DFC_PLACEMENT; kMeasured where it is unset, and with a
// warning where it is anything else.
RunPlacement DefaultPlacement();

class DeviceExecutor {
 public:
  struct Options {
    // Where fallback warnings go (nullptr: nowhere).
    std::ostream* warnings = nullptr;
    // Generate kernels for this profile rather than the device's: runs another device's
    // strategies (a GPU's MapWrg/MapLcl reductions) on the device present, to check them.
    std::optional<rewrite::DeviceProfile> profile;
    // Run a cluster that is one float32 MatMul through CLBlast's GEMM instead of a generated
    // kernel: the unfused chain's MatMul, as TensorFlow runs it (a vendor BLAS), for benchmarks.
    bool blas_matmul = false;
    // A While loop that runs more iterations is an error.
    int64_t max_loop_iterations = kDefaultMaxLoopIterations;
    // Where runs go where the device has an inline device; unset: DefaultPlacement(). A run
    // that calls functions (a loop, a conditional), whose work is not known before it runs,
    // stays on the device.
    std::optional<RunPlacement> placement;
    // What translations fold: a session's of its graph, and the executor's of the functions and
    // loop bodies a run calls. kStatic where the device must compute what a graph's constants
    // feed (conformance cases).
    Folding folding = Folding::kConstants;
  };

  // What one graph keeps on the device between runs: its variables, the constants its
  // clusters read, and its random ops' streams. Its buffers belong to the executor's context.
  struct State {
    absl::flat_hash_map<std::string, std::shared_ptr<DeviceTensor>> variables;  // initialised
    absl::flat_hash_map<TensorId, std::shared_ptr<DeviceTensor>> constants;
    // The values translations folded, uploaded when first read: by their host memory (which the
    // entry keeps, so no other value takes its address), dtype and shape, since folded values
    // share memory (a Reshape of a constant) and each translation folds its own.
    absl::flat_hash_map<std::tuple<const void*, DType, Shape>, std::shared_ptr<DeviceTensor>>
        folded;
    absl::flat_hash_map<std::string, reference::Philox> rngs;
  };

  DeviceExecutor(std::shared_ptr<cl::ClContext> context, std::shared_ptr<cl::ProgramCache> cache,
                 Options options);

  // An executor on the device cl::SelectDevice(kind, platform) picks, with a program cache in
  // cl::DefaultCacheDir().
  static absl::StatusOr<std::unique_ptr<DeviceExecutor>> Open(absl::string_view kind, int platform,
                                                              Options options);

  // Runs `translated` (made by ir::TranslateGraph for these fetches, targets and feeds) and returns
  // the fetches. The feeds were checked where they entered (CheckFeeds: a session, the command
  // line). `state` holds the graph's variables and constants across runs; without one, a run
  // keeps nothing (and a graph that reads a variable fails naming it).
  absl::StatusOr<std::vector<Tensor>> Run(const Graph& graph, const ir::TranslatedGraph& translated,
                                          const std::vector<Feed>& feeds,
                                          const std::vector<TensorId>& fetches,
                                          State* state = nullptr);

  // Runs `cluster` with `kernel` (from a compiled plan) instead of generating one. The cluster
  // must outlive the executor's use of it.
  void UseKernel(const ir::TranslatedCluster& cluster, codegen::KernelSource kernel);

  const std::string& device_name() const { return context_->info().device_name; }
  const std::shared_ptr<cl::ClContext>& context() const { return context_; }
  const rewrite::DeviceProfile& profile() const { return profile_; }
  const Options& options() const { return options_; }
  const cl::ProgramCache& program_cache() const { return *cache_; }

  // Counts since creation: clusters run as kernels; clusters run on the host because their
  // kernel failed; kernels generated; bytes copied to and from the device; runs sent to the
  // inline device.
  int64_t kernels_run() const { return kernels_run_; }
  int64_t inline_runs() const { return inline_runs_; }
  // Loops on the device whose later iterations went to the inline device (see RunControl).
  int64_t inline_loops() const { return inline_loops_; }
  int64_t fallbacks() const { return fallbacks_; }
  int64_t kernels_generated() const { return kernels_generated_; }
  int64_t bytes_to_device() const { return bytes_to_device_; }
  // Bytes of host tensors the device read where they lie, not copied (see Upload).
  int64_t bytes_borrowed() const { return bytes_borrowed_; }
  int64_t bytes_to_host() const { return bytes_to_host_; }

 private:
  friend class ::dfc::testing::TestHooks;
  class ActiveRun;  // one run's values and pending error flags (device_run.h)

  // What one argument of a stage is: the buffer at `index` of the cluster's parameters,
  // temporaries and outputs in that order, the error flag, or the size KernelSource::size_args
  // names at `index`.
  struct StageArg {
    enum class Kind { kBuffer, kErrorFlag, kSize } kind = Kind::kBuffer;
    int index = 0;
  };

  // A cluster's kernel, made on first use; `status` is why it could not be.
  struct CompiledCluster {
    // A program of the kernel and its stages' kernels, for one device.
    struct Built {
      std::shared_ptr<cl::ClProgram> program;
      std::vector<cl::ClKernel> stages;
    };
    ir::FunPtr lambda;  // keeps the key alive
    absl::Status status;
    codegen::KernelSource kernel;
    bool edited = false;  // edit_source_ has been applied
    // Per stage, its arguments as the source declares them (codegen::KernelParameters).
    std::vector<std::vector<StageArg>> stage_args;
    // Built for the device ([0]) and for its inline device ([1]), each when first run there.
    std::array<Built, 2> built;
    bool warned = false;

    Built& On(const cl::ClContext& context) { return built[context.inline_active() ? 1 : 0]; }
    const Built& On(const cl::ClContext& context) const {
      return built[context.inline_active() ? 1 : 0];
    }
  };

  // How the runs of one translated graph at one binding of its sizes are placed (kMeasured).
  struct PlacementTrials {
    int runs = 0;   // on the inline device, while timing
    int timed = 0;  // of those, the runs timed
    int64_t best_ns = INT64_MAX;
    int64_t launches = 0;               // the kernels of the best timed run
    int64_t narrow = 0;                 // of those, the ones of fewer rows than compute units
    std::optional<bool> inline_chosen;  // once settled
  };
  // Whether a run of `translated` at `sizes` goes to the inline device; `trials` is set to the
  // trials the run is one of, while they are not settled.
  bool PlaceRun(const Graph& graph, const ir::TranslatedGraph& translated,
                const SizeBindings& sizes, PlacementTrials** trials);
  // Counts a trial run that took `ns` and launched `launches` kernels, `narrow` of them of fewer
  // rows than the device has compute units (`built`: it built a program, and is not timed), and
  // settles the placement after the last.
  void RecordTrial(PlacementTrials& trials, int64_t ns, int64_t launches, int64_t narrow,
                   bool built);
  // Whether `launches` kernels, `narrow` of them of fewer rows than the device's compute units,
  // were all such: work no unit but one could share, to which the device adds only hand-offs.
  static bool OnlyNarrow(int64_t launches, int64_t narrow) {
    return launches > 0 && narrow == launches;
  }
  // The median time, over a few tries, of the commands of the smallest run on the device (not
  // its inline device): a write that does not wait, an empty kernel and a read that does. What
  // handing a run to the device's threads and back costs.
  absl::StatusOr<int64_t> MeasureHandOff();

  // Each stage's arguments, from the parameters `kernel.source` declares for it.
  static absl::StatusOr<std::vector<std::vector<StageArg>>> StageArguments(
      const codegen::KernelSource& kernel, const ir::TranslatedCluster& translated);
  // `function`: the function whose cluster it is, "" for the top graph's. Builds the kernel for
  // the device the context targets now.
  CompiledCluster& Compile(const Graph& graph, const Cluster& cluster,
                           const ir::TranslatedCluster& translated, int index,
                           absl::string_view function);
  // A new buffer holding `tensor`, written without waiting (see ClContext::Write); on a device
  // that reads host memory where it lies, one over the tensor's own memory from kBorrowedBytes
  // up (ClContext::Borrow).
  absl::StatusOr<std::shared_ptr<cl::ClBuffer>> Upload(const Tensor& tensor);
  // The dfc_error argument of the kernels that never set it (KernelSource::checks_indices),
  // one buffer for all, made on first use and never read.
  absl::StatusOr<std::shared_ptr<cl::ClBuffer>> UnsetFlag();
  // A new value var + factor * delta of var's dtype and shape, computed on the device from
  // the two buffers (float and double variables), for graph node `node`.
  absl::StatusOr<std::shared_ptr<DeviceTensor>> Update(const std::string& node,
                                                       const DeviceTensor& var,
                                                       const cl::ClBuffer& var_buffer,
                                                       const cl::ClBuffer& delta, double factor);

  std::shared_ptr<cl::ClContext> context_;
  std::shared_ptr<cl::ProgramCache> cache_;
  std::shared_ptr<cl::ClBuffer> unset_flag_;
  Options options_;
  // Edits each kernel's source, generated or given (UseKernel), before it is built: a test's
  // hook (tests/test_hooks.h), to make a build fail or a kernel wrong.
  std::function<void(std::string& source)> edit_source_;
  RunPlacement placement_;  // Options::placement, resolved
  rewrite::DeviceProfile profile_;
  absl::flat_hash_map<const ir::Fun*, CompiledCluster> compiled_;
  // Each cluster's operations evaluated strictly (ir::StrictOps), symbolic in its sizes, by its
  // λ, which the entry keeps alive.
  absl::flat_hash_map<const ir::Fun*, std::pair<ir::FunPtr, ArithExpr>> cluster_ops_;
  std::optional<int64_t> hand_off_ns_;  // measured when first needed
  // By translated graph and its size variables' values in name order. A graph translated anew
  // at the address of a freed one inherits its placement, which costs time, never correctness.
  absl::flat_hash_map<
      std::pair<const ir::TranslatedGraph*, std::vector<std::pair<std::string, int64_t>>>,
      PlacementTrials>
      placements_;
  // The translations of the functions of While and If nodes, by function graph and argument
  // types: a loop's body is translated once, for its first iteration's shapes. Each keeps its
  // graph, whose address is in the key, alive.
  struct FunctionTranslation {
    std::shared_ptr<const Graph> graph;
    ir::TranslatedGraph translated;
    // What the function's kernels and spans are named by, so that a profile tells them from the
    // top graph's and other functions' (whose clusters are numbered from 0 too).
    std::string name;
    // Which units of the schedule read only a loop's invariant arguments `args` (one body's
    // are always the same arguments), computed on first use.
    const std::vector<bool>& InvariantUnits(const Graph& graph,
                                            const absl::flat_hash_set<std::string>& args);
    std::optional<std::vector<bool>> invariant_units;
  };
  absl::flat_hash_map<std::string, std::unique_ptr<FunctionTranslation>> function_translations_;
  // An optimizer's update (variable_writes.cc): the kernel `source` builds, run over the n
  // elements of `in` (the variables, var first, then the gradient), writing a new buffer for
  // each variable, with `scalars` (double) after the buffers.
  absl::StatusOr<std::vector<std::shared_ptr<DeviceTensor>>> RunOptimizer(
      const std::string& node, const std::string& source, const DeviceTensor& var,
      std::span<const cl::ClBuffer* const> in, int num_variables, std::span<const double> scalars);

  // The kernels that update variables, by dtype and whether built for the inline device, each
  // built on first use.
  absl::flat_hash_map<std::pair<DType, bool>,
                      std::pair<std::shared_ptr<cl::ClProgram>, cl::ClKernel>>
      updates_;
  // The optimizers' kernels, by source and device likewise.
  absl::flat_hash_map<std::pair<std::string, bool>,
                      std::pair<std::shared_ptr<cl::ClProgram>, cl::ClKernel>>
      optimizers_;
  int64_t kernels_run_ = 0;
  int64_t inline_runs_ = 0;
  int64_t fallbacks_ = 0;
  int64_t kernels_generated_ = 0;
  int64_t bytes_to_device_ = 0;
  int64_t bytes_borrowed_ = 0;
  int64_t narrow_launches_ = 0;  // launches of fewer rows than the device's compute units
  int64_t inline_loops_ = 0;
  int64_t bytes_to_host_ = 0;
};

// The profile code generation uses for a device that is present.
rewrite::DeviceProfile ProfileOf(const cl::DeviceInfo& device);

// "name (Op)" for each node of a cluster: kernel comments and messages name them so.
std::vector<std::string> ClusterNodeNames(const Graph& graph, const Cluster& cluster);

}  // namespace dfc

#endif  // DFC_RUNTIME_DEVICE_EXECUTOR_H_
