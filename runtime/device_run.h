// One run of a DeviceExecutor (device_executor.h): the values computed so far, on the device,
// the host or both, the variables written and random streams drawn (made the state's only when
// the whole run succeeds), and the error flags of the kernels not yet read. Its members live in
// device_run.cc (execution units, host ops, clusters, fetches), device_run_calls.cc (control
// flow and function calls), variable_writes.cc (Assign and the updates of variables) and
// launch.cc (a cluster's kernels launched; CLBlast's GEMM).
#ifndef DFC_RUNTIME_DEVICE_RUN_H_
#define DFC_RUNTIME_DEVICE_RUN_H_

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/ops.h"
#include "graph/tensor_list.h"
#include "runtime/control_flow.h"
#include "runtime/device_executor.h"
#include "runtime/opencl/cl_error.h"
#include "runtime/opencl/handles.h"
#include "runtime/profiler/profiler.h"
#include "runtime/size_bindings.h"

namespace dfc {

// The op table's entry for `node`'s op (an empty one for an op outside it).
inline const OpDef& DefOf(const Node& node) {
  static const OpDef kUnknown;
  const OpDef* def = FindOpDef(node.op);
  return def != nullptr ? *def : kUnknown;
}

// A value that lives on the host until a kernel reads it.
inline std::shared_ptr<DeviceTensor> OnHost(Tensor t) {
  return std::make_shared<DeviceTensor>(
      DeviceTensor{.dtype = t.dtype(), .shape = t.shape(), .host = std::move(t)});
}

// A TensorArray or TensorList into which a device run wrote device values: `elements` has each
// such element's dtype and shape only (Tensor::ShapeOnly), and `on_device` its value, so that a
// loop's writes and reads of elements copy nothing between host and device. A host op that
// reads the array gets it with its elements downloaded (ActiveRun::Host).
struct DeviceArrayValue : TensorArrayValue {
  std::vector<std::shared_ptr<DeviceTensor>> on_device;  // by index; null: elements[k] is whole
  // The host kernels of array ops copy an array by Clone: the new value keeps where each
  // element is.
  std::shared_ptr<TensorArrayValue> Clone() const override {
    return std::make_shared<DeviceArrayValue>(*this);
  }
};

// Sets the kernel arguments in order: buffers, then scalars of any type.
class ArgSetter {
 public:
  explicit ArgSetter(cl_kernel kernel) : kernel_(kernel) {}
  absl::Status Buffer(const cl::ClBuffer& b) {
    cl_mem mem = b.get();
    DFC_CL_RETURN_IF_ERROR(clSetKernelArg(kernel_, index_++, sizeof(cl_mem), &mem));
    return absl::OkStatus();
  }
  template <typename T>
  absl::Status Scalar(const T& value) {
    DFC_CL_RETURN_IF_ERROR(clSetKernelArg(kernel_, index_++, sizeof(T), &value));
    return absl::OkStatus();
  }

 private:
  cl_kernel kernel_;
  cl_uint index_ = 0;
};

class DeviceExecutor::ActiveRun {
 public:
  // `sizes`: the run's size variables, bound from its feeds; they outlive the ActiveRun.
  // `library`: where While and If nodes find their functions (the top graph's).
  ActiveRun(DeviceExecutor& executor, const Graph& graph, const ir::TranslatedGraph& translated,
            const SizeBindings& sizes, State* state, const FunctionLibrary* library, int depth = 0)
      : ex_(executor),
        graph_(graph),
        translated_(translated),
        binds_when_run_(BindsSizesWhenRun(translated)),
        run_sizes_(binds_when_run_ ? sizes : SizeBindings()),
        sizes_(binds_when_run_ ? run_sizes_ : sizes),
        state_(state ? state : &own_state_),
        library_(library),
        depth_(depth) {
    // A loop makes two runs an iteration: their tables of values are sized once, not grown.
    values_.reserve(static_cast<size_t>(graph.num_nodes()));
  }
  ActiveRun(const ActiveRun&) = delete;
  ActiveRun& operator=(const ActiveRun&) = delete;
  ~ActiveRun() { DescribeKernels(); }

  void Feed(const TensorId& id, const Tensor& value) { Feed(id, OnHost(value)); }
  // A value already on the device (a loop variable) is fed as it is.
  void Feed(const TensorId& id, std::shared_ptr<DeviceTensor> value) {
    const Slot slot = SlotOf(id);
    fed_.insert(slot);
    liveness_.Feed(id);
    values_[slot] = std::move(value);
  }

  absl::Status RunUnit(const ExecutionUnit& unit);

  // The fetches on the host, read back with every kernel's error flag in one wait: none is
  // returned if a kernel found an index out of range.
  absl::StatusOr<std::vector<Tensor>> Fetch(const std::vector<TensorId>& fetches);

  // Reads every pending error flag and downloads `values` (those on the device only: each
  // takes its `host`), all with one wait for the queue; then an error if a kernel found an
  // index out of range. A value is given its host copy only when every read succeeded.
  absl::Status Download(std::span<DeviceTensor* const> values);
  absl::Status Download(DeviceTensor& value) {
    DeviceTensor* const one[] = {&value};
    return Download(one);
  }

  // "cluster 2 (matmul, add, softmax)": how errors and warnings name a cluster.
  std::string ClusterLabel(int index) const {
    return absl::StrCat(
        "cluster ", index, " (",
        absl::StrJoin(ClusterNodeNames(graph_, translated_.partition.clusters[index]), ", "), ")");
  }

  // The tensors a unit of the schedule computes.
  std::vector<TensorId> UnitOutputs(const ExecutionUnit& unit) const;

  // The value of `id` where it is (a function's result stays on the device).
  absl::StatusOr<std::shared_ptr<DeviceTensor>> Result(const TensorId& id) {
    return Value(id, nullptr);
  }

  // Makes the run's variable writes and random draws the state's. Called only when the whole
  // run succeeded: a run that fails anywhere (a device fault, an index out of range) leaves
  // every variable as it was, as a failed TensorFlow step does, and every random op's stream
  // where it was, so that the step run again draws what it would have.
  void Commit() {
    for (auto& [name, value] : written_) state_->variables[name] = std::move(value);
    written_.clear();
    for (auto& [name, rng] : rngs_) state_->rngs[name] = rng;
    rngs_.clear();
  }

 private:
  struct PendingError {
    int cluster;
    std::shared_ptr<cl::ClBuffer> flag;
  };

  // A kernel launched while the profiler records kernels: its events, and what it is without
  // the work estimates DescribeKernels adds.
  struct LaunchedKernel {
    cl::ClEvent event;
    cl::ClEvent since;
    profiler::DeviceEventInfo info;
    // The generated kernel's stage (its counted operations), kept by the executor; null for a
    // library's kernel (CLBlast).
    const codegen::KernelStage* stage = nullptr;
  };

  // Gives the profiler the kernels launched. Their descriptions are computed only now, after
  // the run has waited for them, because on a device that shares the host's cores (PoCL's CPU
  // device) host work during a kernel lengthens it.
  void DescribeKernels();
  // A kernel's graph nodes and their estimated work (flops and output bytes), by which the
  // report shares its time, and the bytes its cluster reads and writes; for a generated
  // kernel (`stage`), the operations of its graph nodes and those its code performs.
  void DescribeWork(profiler::DeviceEventInfo& info, const codegen::KernelStage* stage) const;

  // A tensor of the run's graph by its node, which keys the run's tables without copying
  // names (a loop makes two runs an iteration); the node is null for a name the graph lacks.
  using Slot = std::pair<const Node*, int>;
  Slot SlotOf(const TensorId& id) const { return {graph_.FindNode(id.node), id.index}; }

  bool AllOutputsFed(int node) const {
    const int n = graph_.num_outputs(node);
    if (n <= 0) return false;
    for (int k = 0; k < n; ++k) {
      if (!fed_.contains(Slot{&graph_.node(node), k})) return false;
    }
    return true;
  }

  // A variable's value as this run sees it: what the run wrote, else what the state holds;
  // null if neither has one.
  std::shared_ptr<DeviceTensor> Variable(const std::string& name) const {
    if (auto it = written_.find(name); it != written_.end()) return it->second;
    if (auto it = state_->variables.find(name); it != state_->variables.end()) return it->second;
    return nullptr;
  }

  // A read of a variable's current value (not a fed tensor that replaces it).
  bool IsVariableRead(const TensorId& id) const {
    const Node* producer = graph_.FindNode(id.node);
    return producer != nullptr && DefOf(*producer).variable &&
           !fed_.contains(Slot{producer, id.index});
  }

  // The value of `id` as `consumer` (nullptr for a fetch) reads it now: a variable's current
  // value, else what the run fed or computed.
  absl::StatusOr<std::shared_ptr<DeviceTensor>> Value(const TensorId& id, const Node* consumer);

  absl::StatusOr<Tensor> Host(const TensorId& id, const Node* consumer);

  absl::StatusOr<std::shared_ptr<cl::ClBuffer>> Buffer(DeviceTensor& value);

  absl::Status RunHostNode(const Node& node, const OpDef& def);
  // Whether the translation folded node i's outputs all to values: it need not run.
  bool FoldedToValues(int i) const;
  // The value the translation folded `slot` to, kept with its upload in State::folded; nullptr
  // if it has none.
  std::shared_ptr<DeviceTensor> Folded(const Slot& slot);
  // Runs without copies to the host what needs none: an Identity of host-only values, a read or
  // write of a TensorArray's or TensorList's element on the device (DeviceArrayValue), a
  // scatter of a device value into one, and a gather of device elements from one.
  // False: the host runs the node.
  absl::StatusOr<bool> RunWithoutCopies(const Node& node);
  // TensorArrayScatterV3 and TensorListFromTensor of a device value: each row copied on the
  // device into a buffer of its own, the new array a DeviceArrayValue.
  absl::StatusOr<bool> ScatterOnDevice(const Node& node);
  // TensorArrayGatherV3 and TensorListStack of elements that are all on the device, of one
  // dtype and shape: each copied on the device into its row of the result.
  absl::StatusOr<bool> GatherOnDevice(const Node& node);
  // Runs the host kernel of `node` on the array `array` (input `array_input`; null for none) as
  // it is, its elements where they are, and on the device value `value` (input `value_input`;
  // -1 for none) by its dtype and shape alone; the other inputs are downloaded.
  absl::StatusOr<std::vector<Tensor>> RunOnShapes(const Node& node, int array_input,
                                                  const DeviceTensor* array, int value_input,
                                                  const DeviceTensor* value);
  // An array op's new value: the flow (or list) tensor, and the array it holds, which its
  // maker finishes.
  struct ChangedArray {
    Tensor flow;
    DeviceArrayValue* array;
  };
  // RunOnShapes of an op that changes an array by a device value: its checks, and the new
  // array, holding the old array's device elements until the caller adds.
  absl::StatusOr<ChangedArray> ChangeOnShapes(const Node& node, int array_input,
                                              const DeviceTensor* array, int value_input,
                                              const DeviceTensor& value);

  // Switch and Merge (passing device values on without copies), While and If.
  absl::Status RunControl(const Node& node);
  // What a loop computes once for all its iterations: the values of its body's units that read
  // nothing but the loop's invariant arguments (those the body returns unchanged) and
  // constants, kept from the first iteration (loop-invariant code motion, at run time).
  struct LoopInvariants {
    absl::flat_hash_set<std::string> args;  // the body's placeholders that never change
    absl::flat_hash_map<TensorId, std::shared_ptr<DeviceTensor>> values;
  };

  // What a function's translation depends on in one argument: its dtype and shape, and an
  // array's elements' one shape (its reads are compiled for it).
  struct ArgumentType {
    DType dtype;
    Shape shape;
    bool array = false;
    std::optional<Shape> elements;

    static ArgumentType Of(const DeviceTensor& a);
    // Whether `a` is of this type, found without copying its shape.
    bool Matches(const DeviceTensor& a) const;
  };
  // A function called with arguments of `types`: its translation and the sizes they bind. A
  // loop keeps its condition's and body's, which iteration after iteration see the same types,
  // so that an iteration neither checks its arguments nor looks its translation up again.
  struct FunctionCall {
    std::vector<ArgumentType> types;
    FunctionTranslation* translation = nullptr;
    SizeBindings sizes;
  };
  // The translation of `f` for arguments of `types` (made on first use) and their sizes.
  absl::StatusOr<FunctionCall> PrepareCall(const Node& caller, const FunctionGraph& f,
                                           const std::vector<std::shared_ptr<DeviceTensor>>& args,
                                           std::vector<ArgumentType> types);

  // Runs function `f` for `caller` on `args`, its kernels translated once per argument shapes
  // and its values left on the device. `invariants`: a loop body's, or null. `call`: the
  // function's last call at this site, reused when the types match and replaced otherwise;
  // null for a call made once.
  absl::StatusOr<std::vector<std::shared_ptr<DeviceTensor>>> RunFunction(
      const Node& caller, const FunctionGraph& f, std::vector<std::shared_ptr<DeviceTensor>> args,
      LoopInvariants* invariants = nullptr, FunctionCall* call = nullptr);

  // An op that writes variables (OpDef::num_ref_inputs): Assign, AssignAdd, AssignSub,
  // ApplyGradientDescent, the optimizers. Assign takes the value's buffer as the variable's; an
  // AssignAdd, AssignSub or ApplyGradientDescent of a float or double variable runs on the
  // device into a new buffer, as do the optimizers RunOptimizerOnDevice takes; anything else
  // (another optimizer or dtype, a mismatch to report) runs the reference kernel on host
  // copies, and every variable it updated takes the result.
  absl::Status RunVariableWrite(const Node& node);

  // An optimizer with a device kernel (ApplyAdam, ApplyMomentum) whose variables and gradient
  // are float or double of one shape, and its hyperparameters scalars of that dtype: run as one
  // elementwise kernel on the device, each variable taking a new buffer. False (nothing run)
  // for anything else, which the reference kernel then runs and words.
  absl::StatusOr<bool> RunOptimizerOnDevice(const Node& node);

  absl::Status RunCluster(int index);

  // Keeps a kernel of cluster `index` for the profiler, which learns of it when the run ends
  // (~ActiveRun, DescribeKernels). Its device event is the kernel's only timing
  // (runtime/kernel_timer.h reads it). `since`: for a library call that enqueues several
  // kernels and ties `event` to its last only (CLBlast's indirect GEMM pads and transposes
  // first), a marker enqueued just before the call, from whose end the launch is timed.
  void RecordKernel(cl::ClEvent event, int index, const codegen::KernelStage* stage,
                    std::string name, int dims, std::vector<size_t> global,
                    std::vector<size_t> local, uint64_t launch, cl::ClEvent since = cl::ClEvent());

  // A cluster of one float32 MatMul through CLBlast's GEMM (Options::blas_matmul).
  absl::Status BlasMatMul(int index, const Node& node, const ir::TranslatedCluster& translated,
                          const std::vector<std::shared_ptr<DeviceTensor>>& params);

  // InvalidArgument (the run's error, no fallback: the reference could not hold it either) if
  // `value`'s size overflows 64 bits or exceeds the largest buffer the device makes.
  absl::Status CheckDeviceSize(int index, const DeviceTensor& value) const;

  // Enqueues every stage of the cluster's kernel; its outputs stay on the device.
  absl::Status Launch(int index, const CompiledCluster& compiled,
                      const ir::TranslatedCluster& translated,
                      const std::vector<std::shared_ptr<DeviceTensor>>& params);

  DeviceExecutor& ex_;
  const Graph& graph_;
  const ir::TranslatedGraph& translated_;
  // Whether host ops bind sizes as the run goes (SizeVariable::when_run): then the run reads a
  // copy of the feeds' bindings, which it adds to; else the feeds' own, copied by no iteration.
  const bool binds_when_run_;
  SizeBindings run_sizes_;
  const SizeBindings& sizes_;
  State own_state_;
  State* state_;
  const FunctionLibrary* library_;
  int depth_;
  std::string function_;  // the function this run runs, "" for the top graph
  Liveness liveness_;
  absl::flat_hash_set<Slot> fed_;
  absl::flat_hash_map<Slot, std::shared_ptr<DeviceTensor>> values_;
  // The variables this run wrote and the random streams it drew from, made the state's by
  // Commit.
  absl::flat_hash_map<std::string, std::shared_ptr<DeviceTensor>> written_;
  absl::flat_hash_map<std::string, reference::Philox> rngs_;
  std::vector<PendingError> pending_;
  std::vector<LaunchedKernel> launched_;
};

}  // namespace dfc

#endif  // DFC_RUNTIME_DEVICE_RUN_H_
