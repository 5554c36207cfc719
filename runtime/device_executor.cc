// Running lowered graphs with generated kernels, values kept on the device (see
// device_executor.h).
#include "runtime/device_executor.h"

#include <clblast.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "graph/ops.h"
#include "ir/value.h"
#include "runtime/compile.h"
#include "runtime/interpreted.h"
#include "runtime/opencl/cl_error.h"
#include "runtime/profiler/profiler.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/session.h"
#include "runtime/work_estimate.h"

namespace dfc {

size_t LocalSizeForPrivateArrays(int64_t private_bytes, size_t max_work_group_size) {
  if (private_bytes <= 0) return 0;
  size_t local = 1;
  while (local * 2 <= max_work_group_size &&
         static_cast<int64_t>(local * 2) * private_bytes <= kPrivateBytesPerWorkGroup) {
    local *= 2;
  }
  return local;
}

namespace {

const OpDef& DefOf(const Node& node) {
  static const OpDef kUnknown;
  const OpDef* def = FindOpDef(node.op);
  return def != nullptr ? *def : kUnknown;
}

std::shared_ptr<DeviceTensor> OnHost(Tensor t) {
  return std::make_shared<DeviceTensor>(
      DeviceTensor{.dtype = t.dtype(), .shape = t.shape(), .host = std::move(t)});
}

// The variable updates that run on the device: var + factor * delta in the variable's own
// type, rounded as the reference executor rounds it (no contraction to fma).
bool UpdatesOnDevice(DType dtype) { return dtype == DType::kFloat || dtype == DType::kDouble; }

std::string UpdateSource(DType dtype) {
  const std::string t = codegen::StorageType(dtype);
  return absl::StrCat(
      dtype == DType::kDouble ? "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" : "",
      "#pragma OPENCL FP_CONTRACT OFF\n",
      "// A variable's update, out = var + factor * delta: AssignAdd (factor 1), AssignSub (-1),\n"
      "// ApplyGradientDescent (-alpha).\n",
      "__kernel void dfc_update(__global const ", t, "* restrict var, __global const ", t,
      "* restrict delta,\n                         __global ", t, "* restrict out, const ", t,
      " factor, const long n) {\n", "  const long i = get_global_id(0);\n",
      "  if (i < n) out[i] = var[i] + factor * delta[i];\n", "}\n");
}

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

}  // namespace

std::vector<std::string> ClusterNodeNames(const Graph& graph, const Cluster& cluster) {
  std::vector<std::string> names;
  for (int n : cluster.nodes) {
    names.push_back(absl::StrCat(graph.node(n).name, " (", graph.node(n).op, ")"));
  }
  return names;
}

codegen::DeviceProfile ProfileOf(const cl::DeviceInfo& device) {
  const bool gpu = (device.type & CL_DEVICE_TYPE_GPU) != 0;
  // The SIMD width is not an OpenCL 1.2 query: the vendor's is the best guess.
  std::string vendor =
      absl::AsciiStrToLower(absl::StrCat(device.vendor, " ", device.platform_name));
  int simd = gpu ? 32 : 8;
  if (gpu && (absl::StrContains(vendor, "amd") || absl::StrContains(vendor, "advanced micro"))) {
    simd = 64;
  } else if (gpu && (absl::StrContains(vendor, "intel") || absl::StrContains(vendor, "arm"))) {
    simd = 16;
  }
  return codegen::DeviceProfile{
      .name = "auto",
      .description = device.Describe(),
      .simd_width = simd,
      .compute_units = device.compute_units,
      .local_memory_bytes = static_cast<int64_t>(device.local_mem_size),
      .local_memory_is_real = device.local_mem_is_real,
      .preferred_vector_width = std::max(1, device.preferred_vector_width_float),
      .max_work_group_size = static_cast<int>(device.max_work_group_size),
      .is_gpu = gpu,
      .prefetch_bytes = gpu ? 0 : codegen::NamedProfile("cpu")->prefetch_bytes,
  };
}

// One run: the values computed so far (on the device, the host or both), and the error flags
// of the kernels launched whose flag has not been read yet.
class DeviceExecutor::Run_ {
 public:
  Run_(DeviceExecutor& executor, const Graph& graph, const ir::LoweredGraph& lowered, State* state)
      : ex_(executor), graph_(graph), lowered_(lowered), state_(state ? state : &own_state_) {}

  void Feed(const TensorId& id, const Tensor& value) {
    fed_.insert(id);
    values_[id] = OnHost(value);
  }

  absl::Status RunUnit(const ExecutionUnit& unit, const SizeBindings& sizes) {
    // The profiler's second level: each execution unit of the run.
    std::optional<profiler::RecordEvent> span;
    if (profiler::GetState() != profiler::State::kDisabled) {
      span.emplace(unit.cluster >= 0 ? absl::StrCat("cluster ", unit.cluster)
                                     : absl::StrCat("host ", graph_.node(unit.node).op, " ",
                                                    graph_.node(unit.node).name));
    }
    if (unit.cluster >= 0) return RunCluster(unit.cluster, sizes);
    const Node& node = graph_.node(unit.node);
    const OpDef& def = DefOf(node);
    if (AllOutputsFed(unit.node) || def.variable) return absl::OkStatus();
    if (def.variable_ref_input && !node.inputs.empty() && IsVariableRead(node.inputs[0])) {
      return RunVariableWrite(node);
    }
    return RunHostNode(node, def);
  }

  // The fetches, copied to the host after every kernel's error flag has been read.
  absl::StatusOr<std::vector<Tensor>> Fetch(const std::vector<TensorId>& fetches) {
    std::vector<Tensor> out;
    for (const TensorId& id : fetches) {
      DFC_ASSIGN_OR_RETURN(Tensor t, Host(id, nullptr));
      out.push_back(std::move(t));
    }
    return out;
  }

  // The device times of the kernels launched, once they have finished.
  absl::StatusOr<std::vector<KernelTime>> KernelTimes() {
    std::vector<KernelTime> times;
    for (const Launch_& launch : launches_) {
      cl_event event = launch.event.get();
      DFC_CL_RETURN_IF_ERROR(clWaitForEvents(1, &event));
      cl_ulong start = 0, end = 0;
      DFC_CL_RETURN_IF_ERROR(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START,
                                                     sizeof(start), &start, nullptr));
      DFC_CL_RETURN_IF_ERROR(
          clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr));
      if (cl_event since = launch.since.get(); since != nullptr) {
        cl_ulong marker_end = 0;
        DFC_CL_RETURN_IF_ERROR(clGetEventProfilingInfo(since, CL_PROFILING_COMMAND_END,
                                                       sizeof(marker_end), &marker_end, nullptr));
        start = std::min(start, marker_end);  // never less than the last kernel's own time
      }
      times.push_back({launch.cluster, launch.kernel, static_cast<int64_t>(end - start)});
    }
    return times;
  }

  absl::Status CheckErrors() {
    std::vector<PendingError> pending = std::move(pending_);
    pending_.clear();
    for (const PendingError& p : pending) {
      cl_int error = 0;
      DFC_RETURN_IF_ERROR(ex_.context_->Read(*p.flag, &error, sizeof(error)));
      if (error != 0) {
        return absl::OutOfRangeError(
            absl::StrCat(ClusterLabel(p.cluster),
                         ": an index read at run time is out of range (a GatherV2 index, say)"));
      }
    }
    return absl::OkStatus();
  }

  // "cluster 2 (matmul, add, softmax)": how errors and warnings name a cluster.
  std::string ClusterLabel(int index) const {
    return absl::StrCat(
        "cluster ", index, " (",
        absl::StrJoin(ClusterNodeNames(graph_, lowered_.partition.clusters[index]), ", "), ")");
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
  struct Launch_ {
    int cluster;
    std::string kernel;
    cl::ClEvent event;
    // For a library call that enqueues several kernels and ties `event` to its last only
    // (CLBlast's indirect GEMM pads and transposes first): a marker enqueued just before the
    // call. The launch is timed from the marker's end, when the call's first kernel may start.
    cl::ClEvent since;
  };
  std::vector<Launch_> launches_;

  bool AllOutputsFed(int node) const {
    const int n = graph_.num_outputs(node);
    if (n <= 0) return false;
    for (int k = 0; k < n; ++k) {
      if (!fed_.contains(TensorId{graph_.node(node).name, k})) return false;
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
    return producer != nullptr && DefOf(*producer).variable && !fed_.contains(id);
  }

  // The value of `id` as `consumer` (nullptr for a fetch) reads it now: a variable's current
  // value, else what the run fed or computed.
  absl::StatusOr<std::shared_ptr<DeviceTensor>> Value(const TensorId& id, const Node* consumer) {
    if (IsVariableRead(id)) {
      std::shared_ptr<DeviceTensor> current = Variable(id.node);
      if (current == nullptr) {
        return reference::UninitializedVariableError(
            consumer != nullptr ? *consumer : *graph_.FindNode(id.node), id.node);
      }
      return current;
    }
    auto it = values_.find(id);
    if (it == values_.end()) {
      return absl::InternalError(absl::StrCat("tensor \"", id.ToString(), "\" was not computed"));
    }
    return it->second;
  }

  absl::StatusOr<Tensor> Host(const TensorId& id, const Node* consumer) {
    DFC_ASSIGN_OR_RETURN(std::shared_ptr<DeviceTensor> value, Value(id, consumer));
    if (!value->host) {
      // Values a kernel computed: its index errors come before anything reads them.
      DFC_RETURN_IF_ERROR(CheckErrors());
      DFC_RETURN_IF_ERROR(ex_.Download(*value));
    }
    return *value->host;
  }

  absl::StatusOr<std::shared_ptr<cl::ClBuffer>> Buffer(DeviceTensor& value) {
    if (!value.buffer) {
      DFC_ASSIGN_OR_RETURN(value.buffer, ex_.Upload(*value.host));
    }
    return value.buffer;
  }

  absl::Status RunHostNode(const Node& node, const OpDef& def) {
    // A constant is made, and uploaded when a cluster reads it, once for all runs.
    const bool constant = node.op == "Const";
    if (constant) {
      auto it = state_->constants.find(TensorId{node.name, 0});
      if (it != state_->constants.end()) {
        values_[it->first] = it->second;
        return absl::OkStatus();
      }
    }
    std::vector<Tensor> inputs;
    for (const TensorId& id : node.inputs) {
      DFC_ASSIGN_OR_RETURN(std::shared_ptr<DeviceTensor> value, Value(id, &node));
      if (def.reads_only_shapes && !value->host) {  // Shape(x) copies nothing of x
        DFC_ASSIGN_OR_RETURN(Tensor t, Tensor::ShapeOnly(value->dtype, value->shape));
        inputs.push_back(std::move(t));
        continue;
      }
      DFC_ASSIGN_OR_RETURN(Tensor t, Host(id, &node));
      inputs.push_back(std::move(t));
    }
    reference::NodeState node_state;
    if (def.stateful) {
      // The run draws from its own copy of the node's stream; Commit keeps where it ended.
      auto [rng, inserted] = rngs_.try_emplace(node.name);
      if (inserted) {
        const auto kept = state_->rngs.find(node.name);
        if (kept != state_->rngs.end()) {
          rng->second = kept->second;
        } else {
          rng->second.seed(reference::RandomSeed(node));
        }
      }
      node_state.rng = &rng->second;
    }
    DFC_ASSIGN_OR_RETURN(std::vector<Tensor> outputs,
                         reference::EvaluateNode(node, inputs, node_state));
    for (int k = 0; k < static_cast<int>(outputs.size()); ++k) {
      std::shared_ptr<DeviceTensor> value = OnHost(std::move(outputs[k]));
      if (constant) state_->constants[TensorId{node.name, k}] = value;
      values_[TensorId{node.name, k}] = std::move(value);
    }
    return absl::OkStatus();
  }

  // Assign, AssignAdd, AssignSub, ApplyGradientDescent on a variable. Assign takes the value's
  // buffer as the variable's; an update of a float or double variable runs on the device into
  // a new buffer; anything else (another dtype, a mismatch to report) runs the reference kernel.
  absl::Status RunVariableWrite(const Node& node) {
    const std::string& name = node.inputs[0].node;
    const std::shared_ptr<DeviceTensor> current = Variable(name);
    const TensorId out{node.name, 0};
    if (node.op == "Assign" && node.inputs.size() == 2) {
      DFC_ASSIGN_OR_RETURN(std::shared_ptr<DeviceTensor> value, Value(node.inputs[1], &node));
      const bool validate = node.GetBool("validate_shape", true).value_or(true);
      const bool fits = current == nullptr || (current->dtype == value->dtype &&
                                               (!validate || current->shape == value->shape));
      if (fits) {
        written_[name] = value;
        values_[out] = value;
        return absl::OkStatus();
      }
    }
    const int delta_input = node.op == "ApplyGradientDescent" ? 2 : 1;
    if (current != nullptr && UpdatesOnDevice(current->dtype) &&
        static_cast<int>(node.inputs.size()) == delta_input + 1 &&
        (node.op == "AssignAdd" || node.op == "AssignSub" || node.op == "ApplyGradientDescent")) {
      DFC_ASSIGN_OR_RETURN(std::shared_ptr<DeviceTensor> delta,
                           Value(node.inputs[delta_input], &node));
      std::optional<Tensor> alpha;
      if (node.op == "ApplyGradientDescent") {
        DFC_ASSIGN_OR_RETURN(alpha, Host(node.inputs[1], &node));
      }
      const DeviceTensor& var = *current;
      if (delta->dtype == var.dtype && delta->shape == var.shape &&
          (!alpha || (alpha->dtype() == var.dtype && alpha->num_elements() == 1))) {
        double factor = node.op == "AssignAdd" ? 1.0 : -1.0;
        if (alpha) {
          factor *= var.dtype == DType::kFloat ? static_cast<double>(alpha->data<float>()[0])
                                               : alpha->data<double>()[0];
        }
        DFC_ASSIGN_OR_RETURN(std::shared_ptr<cl::ClBuffer> var_buffer, Buffer(*current));
        DFC_ASSIGN_OR_RETURN(std::shared_ptr<cl::ClBuffer> delta_buffer, Buffer(*delta));
        absl::StatusOr<std::shared_ptr<DeviceTensor>> updated =
            ex_.Update(node.name, var, *var_buffer, *delta_buffer, factor);
        if (!updated.ok()) {
          return absl::Status(updated.status().code(),
                              absl::StrCat("node \"", node.name, "\" (", node.op,
                                           "): the device failed: ", updated.status().message()));
        }
        written_[name] = *updated;
        values_[out] = *std::move(updated);
        return absl::OkStatus();
      }
    }
    // The reference kernel, on the host copies: it also words every error.
    reference::KernelContext::VariableSlot slot;
    if (current != nullptr) {
      DFC_ASSIGN_OR_RETURN(slot.value, Host(node.inputs[0], &node));
      slot.initialized = true;
    }
    std::vector<Tensor> inputs = {slot.value};
    for (size_t k = 1; k < node.inputs.size(); ++k) {
      DFC_ASSIGN_OR_RETURN(Tensor t, Host(node.inputs[k], &node));
      inputs.push_back(std::move(t));
    }
    std::vector<reference::KernelContext::VariableSlot*> refs(node.inputs.size(), nullptr);
    refs[0] = &slot;
    DFC_ASSIGN_OR_RETURN(std::vector<Tensor> outputs,
                         reference::EvaluateNode(node, inputs, {.ref_inputs = refs}));
    std::shared_ptr<DeviceTensor> value = OnHost(slot.value);
    written_[name] = value;
    values_[out] = std::move(value);
    return absl::OkStatus();
  }

  // The node of `cluster` that reads `id` first (messages name it).
  const Node* ReaderOf(const Cluster& cluster, const TensorId& id) const {
    for (int n : cluster.nodes) {
      const Node& node = graph_.node(n);
      if (std::find(node.inputs.begin(), node.inputs.end(), id) != node.inputs.end()) return &node;
    }
    return nullptr;
  }

  absl::Status RunCluster(int index, const SizeBindings& sizes) {
    const Cluster& cluster = lowered_.partition.clusters[index];
    const ir::LoweredCluster& lowered = lowered_.clusters[index];
    const auto& lambda = *lowered.lambda;
    std::vector<std::shared_ptr<DeviceTensor>> params;
    for (size_t k = 0; k < lowered.params.size(); ++k) {
      DFC_ASSIGN_OR_RETURN(std::shared_ptr<DeviceTensor> value,
                           Value(lowered.params[k], ReaderOf(cluster, lowered.params[k])));
      const ir::TypePtr& type = lambda.params[k]->type;
      absl::StatusOr<Shape> shape = ir::ShapeUnder(type, sizes);
      if (!shape.ok() || *shape != value->shape || ir::BaseDType(type) != value->dtype) {
        return absl::InvalidArgumentError(
            absl::StrCat("tensor \"", lowered.params[k].ToString(), "\" is ", value->DebugType(),
                         ", but the compiled cluster expects ", ir::TypeToString(type)));
      }
      params.push_back(std::move(value));
    }
    if (ex_.options_.blas_matmul && cluster.nodes.size() == 1 &&
        graph_.node(cluster.nodes[0]).op == "MatMul" && params.size() == 2 &&
        params[0]->dtype == DType::kFloat && params[1]->dtype == DType::kFloat) {
      return BlasMatMul(index, graph_.node(cluster.nodes[0]), lowered, params, sizes);
    }
    CompiledCluster& compiled = ex_.Compile(graph_, cluster, lowered, index);
    absl::Status launched = compiled.status;
    if (launched.ok()) launched = Launch(index, compiled, lowered, params, sizes);
    if (launched.ok()) {
      ++ex_.kernels_run_;
      return absl::OkStatus();
    }
    if (absl::IsInvalidArgument(launched) || absl::IsOutOfRange(launched)) return launched;
    if (absl::IsUnavailable(launched)) {
      // Out of memory or the device lost: the host cannot take over (the cluster's inputs are
      // on the device), so the run ends here, naming the cluster, and its variables are left
      // as they were (see Commit).
      return absl::UnavailableError(
          absl::StrCat(ClusterLabel(index), ": the device failed: ", launched.message()));
    }
    // Only a kernel that could not be made or launched falls back.
    ++ex_.fallbacks_;
    if (ex_.options_.warnings != nullptr && !compiled.warned) {
      compiled.warned = true;
      *ex_.options_.warnings << "dfc: warning: " << ClusterLabel(index)
                             << " runs on the reference executor: its kernel failed: "
                             << launched.message() << "\n";
    }
    DFC_ASSIGN_OR_RETURN(
        std::vector<Tensor> outputs,
        RunClusterByReference(graph_, cluster, lowered_.fold, sizes,
                              [&](const TensorId& id) { return Host(id, ReaderOf(cluster, id)); }));
    for (size_t k = 0; k < outputs.size(); ++k) {
      values_[lowered.outputs[k]] = OnHost(std::move(outputs[k]));
    }
    return absl::OkStatus();
  }

  // Gives the profiler a kernel of cluster `index`: the graph nodes it computes, each with its
  // estimated work (flops and output bytes) by which the report shares the kernel's time.
  void RecordKernel(cl_event event, int index, const std::string& name, int dims,
                    std::vector<size_t> global, std::vector<size_t> local, uint64_t launch,
                    const SizeBindings& sizes, cl_event since = nullptr) {
    profiler::DeviceEventInfo info{.kind = profiler::DeviceEventKind::kKernel,
                                   .name = name,
                                   .dims = dims,
                                   .bytes = ClusterBytes(lowered_.clusters[index], sizes),
                                   .launch = launch};
    for (int k = 0; k < dims; ++k) {
      info.global[k] = global[k];
      info.local[k] = local[k];
    }
    for (int n : lowered_.partition.clusters[index].nodes) {
      const Node& node = graph_.node(n);
      const auto flops = static_cast<double>(NodeFlops(graph_, lowered_, node, sizes));
      info.flops += flops;
      info.nodes.push_back(node.name);
      info.node_work.push_back(flops +
                               static_cast<double>(NodeOutputBytes(graph_, lowered_, node, sizes)));
    }
    profiler::RecordDeviceEvent(event, ex_.context_->queue(), std::move(info), since);
  }

  // A cluster of one float32 MatMul through CLBlast's GEMM (Options::blas_matmul).
  absl::Status BlasMatMul(int index, const Node& node, const ir::LoweredCluster& lowered,
                          const std::vector<std::shared_ptr<DeviceTensor>>& params,
                          const SizeBindings& sizes) {
    const bool ta = node.GetBool("transpose_a", false).value_or(false);
    const bool tb = node.GetBool("transpose_b", false).value_or(false);
    const Shape& a = params[0]->shape;
    const Shape& b = params[1]->shape;
    if (a.size() != 2 || b.size() != 2 || lowered.params[0] != node.inputs[0] ||
        lowered.params[1] != node.inputs[1]) {
      return absl::InvalidArgumentError(absl::StrCat("MatMul ", node.name,
                                                     " is not A x B of two "
                                                     "matrices: CLBlast cannot run it"));
    }
    const size_t m = ta ? a[1] : a[0], k = ta ? a[0] : a[1], n = tb ? b[0] : b[1];
    DFC_ASSIGN_OR_RETURN(std::shared_ptr<cl::ClBuffer> a_buffer, Buffer(*params[0]));
    DFC_ASSIGN_OR_RETURN(std::shared_ptr<cl::ClBuffer> b_buffer, Buffer(*params[1]));
    auto out = std::make_shared<DeviceTensor>(DeviceTensor{
        .dtype = DType::kFloat, .shape = {static_cast<int64_t>(m), static_cast<int64_t>(n)}});
    DFC_ASSIGN_OR_RETURN(cl::ClBuffer c, ex_.context_->Allocate(std::max<size_t>(m * n, 1) * 4));
    out->buffer = std::make_shared<cl::ClBuffer>(std::move(c));
    cl_command_queue queue = ex_.context_->queue();
    cl_event event = nullptr;
    std::optional<profiler::RecordEvent> launch;
    if (profiler::DeviceEnabled()) launch.emplace("launch clblast_sgemm");
    // GEMM enqueues several kernels and returns the last one's event: its time starts at a
    // marker enqueued before it (Launch_::since, and the profiler's device event).
    cl_event before = nullptr;
    if (ex_.options_.time_kernels || launch) {
      DFC_CL_RETURN_IF_ERROR(clEnqueueMarkerWithWaitList(queue, 0, nullptr, &before));
    }
    cl::ClEvent since(before);
    const clblast::StatusCode status = clblast::Gemm<float>(
        clblast::Layout::kRowMajor, ta ? clblast::Transpose::kYes : clblast::Transpose::kNo,
        tb ? clblast::Transpose::kYes : clblast::Transpose::kNo, m, n, k, 1.0f, a_buffer->get(), 0,
        a[1], b_buffer->get(), 0, b[1], 0.0f, out->buffer->get(), 0, n, &queue, &event);
    if (status != clblast::StatusCode::kSuccess) {
      return absl::InternalError(absl::StrCat("CLBlast's GEMM for MatMul ", node.name,
                                              " failed with status ", static_cast<int>(status)));
    }
    if (launch) {
      RecordKernel(event, index, "clblast_sgemm", 2, {m, n}, {0, 0}, launch->id(), sizes,
                   since.get());
    }
    if (ex_.options_.time_kernels && event != nullptr) {
      launches_.push_back({index, "clblast_sgemm", cl::ClEvent(event), std::move(since)});
    } else if (event != nullptr) {
      clReleaseEvent(event);
    }
    ++ex_.kernels_run_;
    // A MatMul nothing reads (run for a control edge: a training step's gradient with respect
    // to its input, grouped with the one it uses) has no output to keep.
    if (!lowered.outputs.empty()) values_[lowered.outputs[0]] = std::move(out);
    return absl::OkStatus();
  }

  // InvalidArgument (the run's error, no fallback: the reference could not hold it either) if
  // `value`'s size overflows 64 bits or exceeds the largest buffer the device makes.
  absl::Status CheckDeviceSize(int index, const DeviceTensor& value) const {
    auto refuse = [&](absl::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrCat(ClusterLabel(index), ": a value of ", value.DebugType(), " ", why));
    };
    absl::StatusOr<int64_t> elements = NumElements(value.shape);
    if (!elements.ok()) return refuse("has more than 2^63 elements");
    const uint64_t limit = ex_.context_->info().max_alloc_size;
    if (static_cast<uint64_t>(*elements) > limit / SizeOf(value.dtype)) {
      return refuse(absl::StrCat("needs ", *elements, " elements of ", SizeOf(value.dtype),
                                 " bytes, more than the device's largest buffer (", limit,
                                 " bytes)"));
    }
    return absl::OkStatus();
  }

  // Enqueues every stage of the cluster's kernel; its outputs stay on the device.
  absl::Status Launch(int index, const CompiledCluster& compiled, const ir::LoweredCluster& lowered,
                      const std::vector<std::shared_ptr<DeviceTensor>>& params,
                      const SizeBindings& sizes) {
    const codegen::KernelSource& kernel = compiled.kernel;
    // Every temporary's and output's size first, so that a size the feeds make too large
    // (past 2^63 elements, or more than the device's largest buffer) is refused before anything
    // is allocated or launched.
    std::vector<std::shared_ptr<DeviceTensor>> made;
    for (const auto* types : {&kernel.temporaries, &lowered.output_types}) {
      for (const ir::TypePtr& type : *types) {
        DFC_ASSIGN_OR_RETURN(Shape shape, ir::ShapeUnder(type, sizes));
        auto value = std::make_shared<DeviceTensor>(
            DeviceTensor{.dtype = ir::BaseDType(type), .shape = std::move(shape)});
        DFC_RETURN_IF_ERROR(CheckDeviceSize(index, *value));
        made.push_back(std::move(value));
      }
    }
    // Buffers in the kernels' argument order: parameters, temporaries, outputs.
    std::vector<std::shared_ptr<cl::ClBuffer>> buffers;
    for (const std::shared_ptr<DeviceTensor>& p : params) {
      DFC_ASSIGN_OR_RETURN(std::shared_ptr<cl::ClBuffer> b, Buffer(*p));
      buffers.push_back(std::move(b));
    }
    for (const std::shared_ptr<DeviceTensor>& value : made) {
      DFC_ASSIGN_OR_RETURN(cl::ClBuffer b, ex_.context_->Allocate(value->byte_size()));
      value->buffer = std::make_shared<cl::ClBuffer>(std::move(b));
      buffers.push_back(value->buffer);
    }
    const std::vector<std::shared_ptr<DeviceTensor>> outputs(
        made.begin() + static_cast<std::ptrdiff_t>(kernel.temporaries.size()), made.end());
    DFC_ASSIGN_OR_RETURN(cl::ClBuffer flag_buffer, ex_.context_->Allocate(sizeof(cl_int)));
    auto flag = std::make_shared<cl::ClBuffer>(std::move(flag_buffer));
    static constexpr cl_int kNoError = 0;
    DFC_RETURN_IF_ERROR(
        ex_.context_->Write(*flag, &kNoError, sizeof(kNoError), /*blocking=*/false));
    std::vector<cl_long> size_values;
    for (const std::string& var : kernel.size_args) {
      auto it = sizes.find(var);
      if (it == sizes.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("size variable ", var, " of cluster ", index, " is not bound by a feed"));
      }
      size_values.push_back(it->second);
    }
    for (size_t s = 0; s < kernel.stages.size(); ++s) {
      const codegen::KernelStage& stage = kernel.stages[s];
      ArgSetter args(compiled.stages[s].get());
      for (const std::shared_ptr<cl::ClBuffer>& b : buffers) DFC_RETURN_IF_ERROR(args.Buffer(*b));
      DFC_RETURN_IF_ERROR(args.Buffer(*flag));
      for (const cl_long& value : size_values) DFC_RETURN_IF_ERROR(args.Scalar(value));
      int64_t rows = 1;
      for (const ArithExpr& r : stage.rows) {
        DFC_ASSIGN_OR_RETURN(int64_t v, r.Evaluate(sizes));
        rows = std::max(rows, v);
      }
      // MapGlb kernels do not depend on the work-group size: a plan written for a device
      // that allows more than this one gets this one's limit. MapWrg/MapLcl kernels require
      // theirs (a device that cannot run it fails the launch, and the cluster falls back).
      size_t local = static_cast<size_t>(stage.work_group_size);
      if (!stage.work_group_per_row) {
        local = std::min(local, ex_.context_->info().max_work_group_size);
      }
      if (local == 0 && !stage.work_group_per_row && stage.private_bytes > 0) {
        local = LocalSizeForPrivateArrays(stage.private_bytes,
                                          ex_.context_->info().max_work_group_size);
      }
      const size_t global = stage.work_group_per_row ? static_cast<size_t>(rows) * local
                            : local == 0             ? static_cast<size_t>(rows)
                                         : (static_cast<size_t>(rows) + local - 1) / local * local;
      cl_event event = nullptr;
      // The profiler's third level: the launch on the host, linked to its kernel on the device.
      std::optional<profiler::RecordEvent> launch;
      if (profiler::DeviceEnabled()) launch.emplace(absl::StrCat("launch ", stage.name));
      DFC_RETURN_IF_ERROR(
          ex_.context_->Launch(compiled.stages[s].get(), global, local == 0 ? nullptr : &local,
                               ex_.options_.time_kernels || launch ? &event : nullptr));
      if (launch) {
        RecordKernel(event, index, stage.name, 1, {global}, {local}, launch->id(), sizes);
      }
      if (event == nullptr) continue;
      if (ex_.options_.time_kernels) {
        launches_.push_back({index, stage.name, cl::ClEvent(event), cl::ClEvent()});
      } else {
        clReleaseEvent(event);
      }
    }
    pending_.push_back({index, std::move(flag)});
    for (size_t k = 0; k < outputs.size(); ++k) values_[lowered.outputs[k]] = outputs[k];
    return absl::OkStatus();
  }

  DeviceExecutor& ex_;
  const Graph& graph_;
  const ir::LoweredGraph& lowered_;
  State own_state_;
  State* state_;
  absl::flat_hash_set<TensorId> fed_;
  absl::flat_hash_map<TensorId, std::shared_ptr<DeviceTensor>> values_;
  // The variables this run wrote and the random streams it drew from, made the state's by
  // Commit.
  absl::flat_hash_map<std::string, std::shared_ptr<DeviceTensor>> written_;
  absl::flat_hash_map<std::string, std::mt19937_64> rngs_;
  std::vector<PendingError> pending_;
};

DeviceExecutor::DeviceExecutor(std::shared_ptr<cl::ClContext> context,
                               std::shared_ptr<cl::ProgramCache> cache, Options options)
    : context_(std::move(context)),
      cache_(std::move(cache)),
      options_(std::move(options)),
      profile_(options_.profile ? *options_.profile : ProfileOf(context_->info())) {}

absl::StatusOr<std::unique_ptr<DeviceExecutor>> DeviceExecutor::Open(absl::string_view kind,
                                                                     int platform,
                                                                     Options options) {
  DFC_ASSIGN_OR_RETURN(cl::DeviceInfo info, cl::SelectDevice(kind, platform));
  DFC_ASSIGN_OR_RETURN(std::shared_ptr<cl::ClContext> context, cl::ClContext::Create(info));
  auto cache = std::make_shared<cl::ProgramCache>(context);
  return std::make_unique<DeviceExecutor>(std::move(context), std::move(cache), std::move(options));
}

absl::StatusOr<std::vector<Tensor>> DeviceExecutor::Run(
    const Graph& graph, const ir::LoweredGraph& lowered,
    const std::vector<std::pair<TensorId, Tensor>>& feeds, const std::vector<TensorId>& fetches,
    State* state) {
  for (const auto& [id, tensor] : feeds) {
    DFC_RETURN_IF_ERROR(reference::CheckFeed(graph, id, tensor));
  }
  // The queue records event times only while something reads them.
  DFC_RETURN_IF_ERROR(context_->SetProfiling(options_.time_kernels || profiler::DeviceEnabled()));
  // The profiler's first level: the graph run.
  profiler::RecordEvent span("run");
  DFC_ASSIGN_OR_RETURN(SizeBindings sizes, BindSizes(lowered, feeds));
  Run_ run(*this, graph, lowered, state);
  for (const auto& [id, tensor] : feeds) run.Feed(id, tensor);
  for (const ExecutionUnit& unit : lowered.partition.schedule) {
    DFC_RETURN_IF_ERROR(run.RunUnit(unit, sizes));
  }
  DFC_RETURN_IF_ERROR(run.CheckErrors());
  DFC_ASSIGN_OR_RETURN(std::vector<Tensor> out, run.Fetch(fetches));
  if (options_.time_kernels) {
    DFC_ASSIGN_OR_RETURN(kernel_times_, run.KernelTimes());
  }
  run.Commit();
  return out;
}

void DeviceExecutor::UseKernel(const ir::LoweredCluster& cluster, codegen::KernelSource kernel) {
  CompiledCluster& compiled = compiled_[cluster.lambda.get()];
  compiled = CompiledCluster{.lambda = cluster.lambda, .kernel = std::move(kernel)};
}

DeviceExecutor::CompiledCluster& DeviceExecutor::Compile(const Graph& graph, const Cluster& cluster,
                                                         const ir::LoweredCluster& lowered,
                                                         int index) {
  CompiledCluster& compiled = compiled_[lowered.lambda.get()];
  if (compiled.program != nullptr || !compiled.status.ok()) return compiled;
  const std::string name = absl::StrCat("dfc_cluster_", index);
  // Failures to make or build a kernel are Internal here, so that the run falls back on them.
  auto fail = [&](const absl::Status& status) -> CompiledCluster& {
    compiled.status = absl::InternalError(status.message());
    return compiled;
  };
  if (compiled.lambda == nullptr) {  // not given by a plan
    compiled.lambda = lowered.lambda;
    absl::StatusOr<ClusterKernel> kernel = CompileCluster(
        lowered, {}, {.name = name, .nodes = ClusterNodeNames(graph, cluster), .profile = profile_});
    if (!kernel.ok()) return fail(kernel.status());
    ++kernels_generated_;
    compiled.kernel = std::move(kernel->source);
  }
  if (options_.edit_source) options_.edit_source(compiled.kernel.source);
  // DFC_DUMP_KERNELS=DIR writes every kernel built there, as XLA's --xla_dump_to does.
  if (const char* dump = std::getenv("DFC_DUMP_KERNELS"); dump != nullptr && *dump != '\0') {
    std::ofstream(absl::StrCat(dump, "/", name, "_",
                               absl::Hex(std::hash<std::string>()(compiled.kernel.source)), ".cl"))
        << compiled.kernel.source;
  }
  absl::StatusOr<std::shared_ptr<cl::ClProgram>> program = cache_->Build(compiled.kernel.source);
  if (!program.ok()) return fail(program.status());
  for (const codegen::KernelStage& stage : compiled.kernel.stages) {
    absl::StatusOr<cl::ClKernel> kernel = cl::ProgramCache::CreateKernel(**program, stage.name);
    if (!kernel.ok()) return fail(kernel.status());
    compiled.stages.push_back(*std::move(kernel));
  }
  compiled.program = *std::move(program);
  return compiled;
}

absl::StatusOr<std::shared_ptr<cl::ClBuffer>> DeviceExecutor::Upload(const Tensor& tensor) {
  DFC_ASSIGN_OR_RETURN(cl::ClBuffer b, context_->Allocate(tensor.byte_size()));
  if (tensor.byte_size() > 0) {
    DFC_RETURN_IF_ERROR(context_->Write(b, tensor.raw_data(), tensor.byte_size()));
  }
  bytes_to_device_ += static_cast<int64_t>(tensor.byte_size());
  return std::make_shared<cl::ClBuffer>(std::move(b));
}

absl::Status DeviceExecutor::Download(DeviceTensor& value) {
  if (value.host) return absl::OkStatus();
  DFC_ASSIGN_OR_RETURN(Tensor t, Tensor::Create(value.dtype, value.shape));
  if (t.byte_size() > 0) {
    DFC_RETURN_IF_ERROR(context_->Read(*value.buffer, t.mutable_raw_data(), t.byte_size()));
  }
  bytes_to_host_ += static_cast<int64_t>(t.byte_size());
  value.host = std::move(t);
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<DeviceTensor>> DeviceExecutor::Update(const std::string& node,
                                                                     const DeviceTensor& var,
                                                                     const cl::ClBuffer& var_buffer,
                                                                     const cl::ClBuffer& delta,
                                                                     double factor) {
  auto found = updates_.find(var.dtype);
  if (found == updates_.end()) {
    DFC_ASSIGN_OR_RETURN(std::shared_ptr<cl::ClProgram> program,
                         cache_->Build(UpdateSource(var.dtype)));
    DFC_ASSIGN_OR_RETURN(cl::ClKernel kernel,
                         cl::ProgramCache::CreateKernel(*program, "dfc_update"));
    found =
        updates_.emplace(var.dtype, std::make_pair(std::move(program), std::move(kernel))).first;
  }
  cl_kernel kernel = found->second.second.get();
  auto out = std::make_shared<DeviceTensor>(DeviceTensor{.dtype = var.dtype, .shape = var.shape});
  DFC_ASSIGN_OR_RETURN(cl::ClBuffer b, context_->Allocate(out->byte_size()));
  out->buffer = std::make_shared<cl::ClBuffer>(std::move(b));
  const cl_long n = static_cast<cl_long>(var.byte_size() / SizeOf(var.dtype));
  ArgSetter args(kernel);
  DFC_RETURN_IF_ERROR(args.Buffer(var_buffer));
  DFC_RETURN_IF_ERROR(args.Buffer(delta));
  DFC_RETURN_IF_ERROR(args.Buffer(*out->buffer));
  if (var.dtype == DType::kFloat) {
    DFC_RETURN_IF_ERROR(args.Scalar(static_cast<cl_float>(factor)));
  } else {
    DFC_RETURN_IF_ERROR(args.Scalar(static_cast<cl_double>(factor)));
  }
  DFC_RETURN_IF_ERROR(args.Scalar(n));
  const size_t global = static_cast<size_t>(std::max<cl_long>(n, 1));
  std::optional<profiler::RecordEvent> launch;
  if (profiler::DeviceEnabled()) launch.emplace("launch dfc_update");
  cl_event event = nullptr;
  DFC_RETURN_IF_ERROR(context_->Launch(kernel, global, nullptr, launch ? &event : nullptr));
  if (launch) {
    // Reads the variable and the delta, writes the new value: two flops an element.
    profiler::RecordDeviceEvent(event, context_->queue(),
                                {.kind = profiler::DeviceEventKind::kKernel,
                                 .name = "dfc_update",
                                 .nodes = {node},
                                 .dims = 1,
                                 .global = {global, 1, 1},
                                 .bytes = static_cast<int64_t>(3 * var.byte_size()),
                                 .flops = 2.0 * static_cast<double>(n),
                                 .launch = launch->id()});
    clReleaseEvent(event);
  }
  return out;
}

}  // namespace dfc
