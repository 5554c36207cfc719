// A run's execution units: host ops on the reference executor, clusters as generated kernels
// (or on the host when their kernel fails), fetches and error flags (see device_run.h).
#include "runtime/device_run.h"

#include <algorithm>
#include <optional>

#include "absl/container/node_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "graph/tensor_list.h"
#include "ir/work.h"
#include "runtime/interpreted.h"
#include "runtime/opencl/cl_error.h"
#include "runtime/profiler/profiler.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/session.h"
#include "runtime/size_bindings.h"
#include "runtime/translate_for_feeds.h"
#include "runtime/work_estimate.h"

namespace dfc {

absl::Status DeviceExecutor::ActiveRun::RunUnit(const ExecutionUnit& unit) {
  // The profiler's second level: each execution unit of the run.
  std::optional<profiler::RecordEvent> span;
  if (profiler::HostEnabled()) {
    span.emplace(
        unit.cluster >= 0
            ? absl::StrCat("cluster ", function_, function_.empty() ? "" : ":", unit.cluster)
            : absl::StrCat("host ", graph_.node(unit.node).op, " ", graph_.node(unit.node).name));
  }
  if (unit.cluster >= 0) {
    const Cluster& cluster = translated_.partition.clusters[unit.cluster];
    if (!liveness_.Runs(cluster, graph_)) {
      liveness_.Skip(graph_, cluster);
      return absl::OkStatus();
    }
    return RunCluster(unit.cluster);
  }
  const Node& node = graph_.node(unit.node);
  const OpDef& def = DefOf(node);
  if (AllOutputsFed(unit.node) || def.variable) return absl::OkStatus();
  if (!liveness_.Runs(node)) {
    liveness_.Skip(graph_, unit.node);
    return absl::OkStatus();
  }
  // A node folded to values does not run: Value finds them in the translation.
  if (translated_.fold.folded[unit.node] && FoldedToValues(unit.node)) return absl::OkStatus();
  if (def.control) return RunControl(node);
  if (def.num_ref_inputs > 0 && !node.inputs.empty() && IsVariableRead(node.inputs[0])) {
    return RunVariableWrite(node);
  }
  DFC_ASSIGN_OR_RETURN(const bool ran, RunWithoutCopies(node));
  if (ran) return absl::OkStatus();
  return RunHostNode(node, def);
}

namespace {

// Where an element op finds its array, index and (for a write) value among its inputs.
struct ElementOp {
  int array;
  int index;
  int value;  // -1 for a read
  const char* dtype_attr;
};

std::optional<ElementOp> ElementOpOf(const Node& node) {
  if (node.op == "TensorArrayReadV3") return ElementOp{2, 1, -1, "dtype"};
  if (node.op == "TensorListGetItem") return ElementOp{0, 1, -1, "element_dtype"};
  if (node.op == "TensorArrayWriteV3") return ElementOp{3, 1, 2, "T"};
  if (node.op == "TensorListSetItem") return ElementOp{0, 1, 2, "element_dtype"};
  return std::nullopt;
}

// The array input of an op that reads only an array's size or element shape; -1 for others.
int SizeReadOf(const Node& node) {
  if (node.op == "TensorArraySizeV3") return 1;
  if (node.op == "TensorListLength" || node.op == "TensorListElementShape") return 0;
  return -1;
}

const DeviceArrayValue* DeviceArrayOf(const DeviceTensor& t) {
  return t.host ? dynamic_cast<const DeviceArrayValue*>(t.host->variant()) : nullptr;
}

// Whether `handle` names a gradient array, whose writes add up on the host.
bool IsGradientArray(const Tensor& handle) {
  const auto* resource = dynamic_cast<const TensorArrayResource*>(handle.resource());
  return resource != nullptr && resource->is_grad;
}

}  // namespace

absl::StatusOr<std::vector<Tensor>> DeviceExecutor::ActiveRun::RunOnShapes(
    const Node& node, int array_input, const DeviceTensor* array, int value_input,
    const DeviceTensor* value) {
  std::vector<Tensor> inputs;
  for (int i = 0; i < static_cast<int>(node.inputs.size()); ++i) {
    if (i == array_input) {
      inputs.push_back(*array->host);
    } else if (i == value_input) {
      DFC_ASSIGN_OR_RETURN(Tensor shape, Tensor::ShapeOnly(value->dtype, value->shape));
      inputs.push_back(std::move(shape));
    } else {
      DFC_ASSIGN_OR_RETURN(Tensor t, Host(node.inputs[i], &node));
      inputs.push_back(std::move(t));
    }
  }
  reference::NodeState no_state;
  return reference::EvaluateNode(node, inputs, no_state);
}

absl::StatusOr<DeviceExecutor::ActiveRun::ChangedArray> DeviceExecutor::ActiveRun::ChangeOnShapes(
    const Node& node, int array_input, const DeviceTensor* array, int value_input,
    const DeviceTensor& value) {
  DFC_ASSIGN_OR_RETURN(std::vector<Tensor> outputs,
                       RunOnShapes(node, array_input, array, value_input, &value));
  const TensorArrayValue* changed = outputs.empty() ? nullptr : AsTensorArray(outputs[0]);
  if (changed == nullptr) return absl::InternalError(absl::StrCat(node.name, " made no array"));
  ChangedArray result;
  // The kernel cloned a device array into a new one with its device elements: finished where
  // it is rather than copied again (a loop's write copied its whole array twice).
  if (auto* d = dynamic_cast<DeviceArrayValue*>(outputs[0].mutable_variant())) {
    result = {.flow = std::move(outputs[0]), .array = d};
  } else {
    auto made = std::make_shared<DeviceArrayValue>();
    static_cast<TensorArrayValue&>(*made) = *changed;
    DeviceArrayValue* array = made.get();
    result = {.flow = Tensor::OfVariant(std::move(made)), .array = array};
  }
  result.array->on_device.resize(result.array->elements.size());
  return result;
}

absl::StatusOr<bool> DeviceExecutor::ActiveRun::RunWithoutCopies(const Node& node) {
  if (PassesHostOnlyValue(node)) {
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      DFC_ASSIGN_OR_RETURN(std::shared_ptr<DeviceTensor> value, Value(node.inputs[k], &node));
      values_[Slot{&node, static_cast<int>(k)}] = std::move(value);
    }
    return true;
  }
  if (node.op == "TensorArrayScatterV3" || node.op == "TensorListFromTensor") {
    return ScatterOnDevice(node);
  }
  if (node.op == "TensorArrayGatherV3" || node.op == "TensorListStack") {
    return GatherOnDevice(node);
  }
  if (const int array_input = SizeReadOf(node); array_input >= 0) {
    // The size or element shape of an array whose elements are on the device: read off the
    // array, none of them downloaded.
    if (array_input >= static_cast<int>(node.inputs.size())) return false;
    DFC_ASSIGN_OR_RETURN(std::shared_ptr<DeviceTensor> array,
                         Value(node.inputs[array_input], &node));
    if (DeviceArrayOf(*array) == nullptr) return false;
    DFC_ASSIGN_OR_RETURN(std::vector<Tensor> outputs,
                         RunOnShapes(node, array_input, array.get(), -1, nullptr));
    for (size_t k = 0; k < outputs.size(); ++k) {
      values_[Slot{&node, static_cast<int>(k)}] = OnHost(std::move(outputs[k]));
    }
    return true;
  }
  const std::optional<ElementOp> op = ElementOpOf(node);
  if (!op || static_cast<int>(node.inputs.size()) <= std::max({op->array, op->index, op->value})) {
    return false;
  }
  DFC_ASSIGN_OR_RETURN(std::shared_ptr<DeviceTensor> array, Value(node.inputs[op->array], &node));
  std::shared_ptr<DeviceTensor> value;
  if (op->value >= 0) {
    DFC_ASSIGN_OR_RETURN(value, Value(node.inputs[op->value], &node));
    // A value on the host, and a gradient array (whose writes add up), go the host's way.
    if (value->host || !array->host || AsTensorArray(*array->host) == nullptr) return false;
    if (node.op == "TensorArrayWriteV3") {
      DFC_ASSIGN_OR_RETURN(Tensor handle, Host(node.inputs[0], &node));
      if (IsGradientArray(handle)) return false;
    }
  } else if (DeviceArrayOf(*array) == nullptr) {
    return false;
  }
  DFC_ASSIGN_OR_RETURN(Tensor index, Host(node.inputs[op->index], &node));
  if (index.num_elements() != 1 ||
      (index.dtype() != DType::kInt32 && index.dtype() != DType::kInt64)) {
    return false;
  }
  const int64_t k = index.ElementAsInt64(0);

  if (op->value < 0) {  // a read: the element's device value itself
    const DeviceArrayValue& d = *DeviceArrayOf(*array);
    const absl::StatusOr<DType> dtype = node.GetType(op->dtype_attr);
    if (k < 0 || k >= static_cast<int64_t>(d.on_device.size()) || d.on_device[k] == nullptr ||
        !dtype.ok() || *dtype != d.on_device[k]->dtype) {
      return false;
    }
    values_[Slot{&node, 0}] = d.on_device[k];
    return true;
  }
  // A write: the new array keeps the value where it is.
  DFC_ASSIGN_OR_RETURN(ChangedArray result,
                       ChangeOnShapes(node, op->array, array.get(), op->value, *value));
  result.array->on_device[k] = std::move(value);
  values_[Slot{&node, 0}] = OnHost(std::move(result.flow));
  return true;
}

absl::StatusOr<std::vector<Tensor>> DeviceExecutor::ActiveRun::Fetch(
    const std::vector<TensorId>& fetches) {
  // The values on the device, each once (the run's tables and the state hold them).
  std::vector<DeviceTensor*> on_device;
  for (const TensorId& id : fetches) {
    DFC_ASSIGN_OR_RETURN(std::shared_ptr<DeviceTensor> value, Value(id, nullptr));
    if (!value->host &&
        std::find(on_device.begin(), on_device.end(), value.get()) == on_device.end()) {
      on_device.push_back(value.get());
    }
  }
  DFC_RETURN_IF_ERROR(Download(on_device));
  std::vector<Tensor> out;
  for (const TensorId& id : fetches) {
    DFC_ASSIGN_OR_RETURN(Tensor t, Host(id, nullptr));
    out.push_back(std::move(t));
  }
  return out;
}

absl::Status DeviceExecutor::ActiveRun::Download(std::span<DeviceTensor* const> values) {
  std::vector<PendingError> pending = std::move(pending_);
  pending_.clear();
  if (pending.empty() && values.empty()) return absl::OkStatus();
  // Every read enqueued without blocking, then one wait: the flags of a loop's hundred kernels
  // each had a blocking read of its own (26 µs apiece on PoCL), and a run's fetches read after
  // its flags waited twice.
  std::vector<cl_int> errors(pending.size(), 0);
  std::vector<Tensor> copies;
  copies.reserve(values.size());
  absl::Status read;
  for (size_t k = 0; k < pending.size() && read.ok(); ++k) {
    read = ex_.context_->Read(*pending[k].flag, &errors[k], sizeof(cl_int), /*blocking=*/false);
  }
  for (size_t k = 0; k < values.size() && read.ok(); ++k) {
    absl::StatusOr<Tensor> t = Tensor::Create(values[k]->dtype, values[k]->shape);
    if (!t.ok()) {
      read = t.status();
      break;
    }
    copies.push_back(*std::move(t));
    read = ex_.context_->Read(*values[k]->buffer, copies.back().mutable_raw_data(),
                              copies.back().byte_size(), /*blocking=*/false);
  }
  // Also when a read failed: those enqueued write into `errors` and `copies`.
  const absl::Status waited = ex_.context_->Finish();
  DFC_RETURN_IF_ERROR(read);
  DFC_RETURN_IF_ERROR(waited);
  for (size_t k = 0; k < values.size(); ++k) {
    ex_.bytes_to_host_ += static_cast<int64_t>(copies[k].byte_size());
    values[k]->host = std::move(copies[k]);
  }
  for (size_t k = 0; k < pending.size(); ++k) {
    if (errors[k] != 0) {
      return absl::OutOfRangeError(
          absl::StrCat(ClusterLabel(pending[k].cluster),
                       ": an index read at run time is out of range (a GatherV2 index, say)"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<DeviceTensor>> DeviceExecutor::ActiveRun::Value(
    const TensorId& id, const Node* consumer) {
  if (liveness_.IsDead(id)) return DeadTensorError(id, consumer);
  if (IsVariableRead(id)) {
    std::shared_ptr<DeviceTensor> current = Variable(id.node);
    if (current == nullptr) {
      return reference::UninitializedVariableError(
          consumer != nullptr ? *consumer : *graph_.FindNode(id.node), id.node);
    }
    return current;
  }
  const Slot slot = SlotOf(id);
  auto it = values_.find(slot);
  if (it != values_.end()) return it->second;
  if (std::shared_ptr<DeviceTensor> folded = Folded(slot)) return folded;
  return absl::InternalError(absl::StrCat("tensor \"", id.ToString(), "\" was not computed"));
}

absl::StatusOr<bool> DeviceExecutor::ActiveRun::ScatterOnDevice(const Node& node) {
  const bool list = node.op == "TensorListFromTensor";  // else TensorArrayScatterV3
  const int value_input = list ? 0 : 2;
  const int array_input = list ? -1 : 3;
  if (static_cast<int>(node.inputs.size()) != (list ? 2 : 4)) return false;
  DFC_ASSIGN_OR_RETURN(std::shared_ptr<DeviceTensor> value, Value(node.inputs[value_input], &node));
  if (value->host || value->buffer == nullptr || value->shape.empty() || value->shape[0] <= 0) {
    return false;
  }
  std::shared_ptr<DeviceTensor> array;
  std::vector<int64_t> element_of_row;
  if (list) {
    for (int64_t r = 0; r < value->shape[0]; ++r) element_of_row.push_back(r);
  } else {
    DFC_ASSIGN_OR_RETURN(Tensor handle, Host(node.inputs[0], &node));
    if (IsGradientArray(handle)) return false;
    DFC_ASSIGN_OR_RETURN(Tensor indices, Host(node.inputs[1], &node));
    if (indices.dtype() != DType::kInt32 && indices.dtype() != DType::kInt64) return false;
    for (int64_t r = 0; r < indices.num_elements(); ++r) {
      element_of_row.push_back(indices.ElementAsInt64(r));
    }
    DFC_ASSIGN_OR_RETURN(array, Value(node.inputs[array_input], &node));
    if (!array->host || AsTensorArray(*array->host) == nullptr) return false;
  }
  // Each row is copied on the device into a buffer of its own.
  DFC_ASSIGN_OR_RETURN(ChangedArray result,
                       ChangeOnShapes(node, array_input, array.get(), value_input, *value));
  const Shape row_shape(value->shape.begin() + 1, value->shape.end());
  const size_t row_bytes = value->byte_size() / static_cast<size_t>(value->shape[0]);
  for (size_t r = 0; r < element_of_row.size(); ++r) {
    auto row =
        std::make_shared<DeviceTensor>(DeviceTensor{.dtype = value->dtype, .shape = row_shape});
    DFC_ASSIGN_OR_RETURN(cl::ClBuffer buffer, ex_.context_->Allocate(row_bytes));
    row->buffer = std::make_shared<cl::ClBuffer>(std::move(buffer));
    DFC_RETURN_IF_ERROR(
        ex_.context_->Copy(*value->buffer, r * row_bytes, *row->buffer, 0, row_bytes));
    result.array->on_device[element_of_row[r]] = std::move(row);
  }
  values_[Slot{&node, 0}] = OnHost(std::move(result.flow));
  return true;
}

absl::StatusOr<bool> DeviceExecutor::ActiveRun::GatherOnDevice(const Node& node) {
  const bool list = node.op == "TensorListStack";  // else TensorArrayGatherV3
  if (static_cast<int>(node.inputs.size()) != (list ? 2 : 3)) return false;
  DFC_ASSIGN_OR_RETURN(std::shared_ptr<DeviceTensor> array,
                       Value(node.inputs[list ? 0 : 2], &node));
  const DeviceArrayValue* d = DeviceArrayOf(*array);
  if (d == nullptr) return false;
  std::vector<int64_t> indices;
  if (list) {
    for (size_t k = 0; k < d->on_device.size(); ++k) indices.push_back(static_cast<int64_t>(k));
  } else {
    DFC_ASSIGN_OR_RETURN(Tensor t, Host(node.inputs[1], &node));
    if (t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64) return false;
    for (int64_t i = 0; i < t.num_elements(); ++i) indices.push_back(t.ElementAsInt64(i));
  }
  // Anything the host kernel would judge (an element not written or on the host, shapes that
  // differ, an element shape given that they do not have) goes the host's way.
  const absl::StatusOr<DType> dtype = node.GetType(list ? "element_dtype" : "dtype");
  if (indices.empty() || !dtype.ok()) return false;
  const DeviceTensor* first = nullptr;
  for (int64_t k : indices) {
    if (k < 0 || k >= static_cast<int64_t>(d->on_device.size()) || d->on_device[k] == nullptr) {
      return false;
    }
    const DeviceTensor& e = *d->on_device[k];
    if (e.host || e.buffer == nullptr || e.dtype != *dtype ||
        (first != nullptr && e.shape != first->shape)) {
      return false;
    }
    if (first == nullptr) first = &e;
  }
  PartialShape given = d->element_shape;
  if (list) {
    DFC_ASSIGN_OR_RETURN(Tensor t, Host(node.inputs[1], &node));
    if (t.rank() != 1) return false;
    given = PartialShape{};
    for (int64_t i = 0; i < t.num_elements(); ++i) given.dims.push_back(t.ElementAsInt64(i));
  } else if (given.unknown_rank && node.HasAttr("element_shape")) {
    DFC_ASSIGN_OR_RETURN(given, node.GetShape("element_shape"));
  }
  if (!given.IsCompatibleWith(first->shape)) return false;

  Shape shape = first->shape;
  shape.insert(shape.begin(), static_cast<int64_t>(indices.size()));
  auto out = std::make_shared<DeviceTensor>(DeviceTensor{.dtype = first->dtype, .shape = shape});
  const size_t row_bytes = first->byte_size();
  DFC_ASSIGN_OR_RETURN(cl::ClBuffer buffer, ex_.context_->Allocate(row_bytes * indices.size()));
  out->buffer = std::make_shared<cl::ClBuffer>(std::move(buffer));
  for (size_t r = 0; r < indices.size(); ++r) {
    DFC_RETURN_IF_ERROR(ex_.context_->Copy(*d->on_device[indices[r]]->buffer, 0, *out->buffer,
                                           r * row_bytes, row_bytes));
  }
  values_[Slot{&node, 0}] = std::move(out);
  return true;
}

absl::StatusOr<Tensor> DeviceExecutor::ActiveRun::Host(const TensorId& id, const Node* consumer) {
  DFC_ASSIGN_OR_RETURN(std::shared_ptr<DeviceTensor> value, Value(id, consumer));
  if (const DeviceArrayValue* d = DeviceArrayOf(*value)) {
    // The array with its elements downloaded, for the host op that reads it.
    auto whole = std::make_shared<TensorArrayValue>(*d);
    std::vector<DeviceTensor*> on_device;
    for (const std::shared_ptr<DeviceTensor>& e : d->on_device) {
      if (e != nullptr && !e->host) on_device.push_back(e.get());
    }
    DFC_RETURN_IF_ERROR(Download(on_device));
    for (size_t k = 0; k < d->on_device.size(); ++k) {
      if (d->on_device[k] != nullptr) whole->elements[k] = *d->on_device[k]->host;
    }
    return Tensor::OfVariant(std::move(whole));
  }
  // Values a kernel computed: its index errors come before anything reads them.
  if (!value->host) DFC_RETURN_IF_ERROR(Download(*value));
  return *value->host;
}

absl::StatusOr<std::shared_ptr<cl::ClBuffer>> DeviceExecutor::ActiveRun::Buffer(
    DeviceTensor& value) {
  if (!value.buffer) {
    DFC_ASSIGN_OR_RETURN(value.buffer, ex_.Upload(*value.host));
  }
  return value.buffer;
}

absl::Status DeviceExecutor::ActiveRun::RunHostNode(const Node& node, const OpDef& def) {
  // A constant is made, and uploaded when a cluster reads it, once for all runs.
  const bool constant = node.op == "Const";
  if (constant) {
    auto it = state_->constants.find(TensorId{node.name, 0});
    if (it != state_->constants.end()) {
      values_[Slot{&node, 0}] = it->second;
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
      rng->second = kept != state_->rngs.end() ? kept->second : reference::NodePhilox(node);
    }
    node_state.rng = &rng->second;
  }
  DFC_ASSIGN_OR_RETURN(std::vector<Tensor> outputs,
                       reference::EvaluateNode(node, inputs, node_state));
  if (binds_when_run_) DFC_RETURN_IF_ERROR(BindRunSizes(translated_, node, outputs, run_sizes_));
  for (int k = 0; k < static_cast<int>(outputs.size()); ++k) {
    std::shared_ptr<DeviceTensor> value = OnHost(std::move(outputs[k]));
    if (constant) state_->constants[TensorId{node.name, k}] = value;
    values_[Slot{&node, k}] = std::move(value);
  }
  return absl::OkStatus();
}

bool DeviceExecutor::ActiveRun::FoldedToValues(int i) const {
  const std::vector<TensorInfo>& info = translated_.fold.info[i];
  return !info.empty() && std::all_of(info.begin(), info.end(),
                                      [](const TensorInfo& t) { return t.value.has_value(); });
}

std::shared_ptr<DeviceTensor> DeviceExecutor::ActiveRun::Folded(const Slot& slot) {
  const auto& [node, output] = slot;
  if (node == nullptr) return nullptr;
  const int i = static_cast<int>(node - graph_.nodes().data());
  if (!translated_.fold.folded[i] || !FoldedToValues(i) ||
      output >= static_cast<int>(translated_.fold.info[i].size())) {
    return nullptr;
  }
  const Tensor& value = *translated_.fold.info[i][output].value;
  if (value.byte_size() == 0 || value.raw_data() == nullptr) return OnHost(value);
  std::shared_ptr<DeviceTensor>& kept =
      state_->folded[{value.raw_data(), value.dtype(), value.shape()}];
  if (kept == nullptr) kept = OnHost(value);
  return kept;
}

absl::Status DeviceExecutor::ActiveRun::RunCluster(int index) {
  const Cluster& cluster = translated_.partition.clusters[index];
  const ir::TranslatedCluster& translated = translated_.clusters[index];
  const auto& lambda = *translated.lambda;
  std::vector<std::shared_ptr<DeviceTensor>> params;
  for (size_t k = 0; k < translated.params.size(); ++k) {
    // The parameter's reader is looked up only for an error that names it.
    absl::StatusOr<std::shared_ptr<DeviceTensor>> found = Value(translated.params[k], nullptr);
    if (!found.ok())
      found = Value(translated.params[k], FirstReader(graph_, cluster, translated.params[k]));
    DFC_ASSIGN_OR_RETURN(std::shared_ptr<DeviceTensor> value, std::move(found));
    const ir::TypePtr& type = lambda.params[k]->type;
    absl::StatusOr<Shape> shape = ir::ShapeUnder(type, sizes_);
    if (!shape.ok() || *shape != value->shape || ir::BaseDType(type) != value->dtype) {
      return absl::InvalidArgumentError(
          absl::StrCat("tensor \"", translated.params[k].ToString(), "\" is ", value->DebugType(),
                       ", but the compiled cluster expects ", ir::TypeToString(type)));
    }
    params.push_back(std::move(value));
  }
  if (ex_.options_.blas_matmul && cluster.nodes.size() == 1 &&
      graph_.node(cluster.nodes[0]).op == "MatMul" && params.size() == 2 &&
      params[0]->dtype == DType::kFloat && params[1]->dtype == DType::kFloat) {
    return BlasMatMul(index, graph_.node(cluster.nodes[0]), translated, params);
  }
  CompiledCluster& compiled = ex_.Compile(graph_, cluster, translated, index, function_);
  absl::Status launched = compiled.status;
  if (launched.ok()) launched = Launch(index, compiled, translated, params);
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
      RunClusterByReference(graph_, cluster, translated_.fold, sizes_, [&](const TensorId& id) {
        return Host(id, FirstReader(graph_, cluster, id));
      }));
  for (size_t k = 0; k < outputs.size(); ++k) {
    values_[SlotOf(translated.outputs[k])] = OnHost(std::move(outputs[k]));
  }
  return absl::OkStatus();
}

void DeviceExecutor::ActiveRun::RecordKernel(cl::ClEvent event, int index,
                                             const codegen::KernelStage* stage, std::string name,
                                             int dims, std::vector<size_t> global,
                                             std::vector<size_t> local, uint64_t launch,
                                             cl::ClEvent since) {
  LaunchedKernel k{.event = std::move(event),
                   .since = std::move(since),
                   .info = {.kind = profiler::DeviceEventKind::kKernel,
                            .name = std::move(name),
                            .cluster = index,
                            .dims = dims,
                            .launch = launch},
                   .stage = stage};
  for (int d = 0; d < dims; ++d) {
    k.info.global[d] = global[d];
    k.info.local[d] = local[d];
  }
  launched_.push_back(std::move(k));
}

void DeviceExecutor::ActiveRun::DescribeKernels() {
  // A timer's record (profiler::State::kKernels) takes no estimates.
  const bool estimated = profiler::DeviceEnabled();
  for (LaunchedKernel& k : launched_) {
    if (estimated) DescribeWork(k.info, k.stage);
    profiler::RecordDeviceEvent(k.event.get(), ex_.context_->queue(), std::move(k.info),
                                k.since.get());
  }
  launched_.clear();
}

void DeviceExecutor::ActiveRun::DescribeWork(profiler::DeviceEventInfo& info,
                                             const codegen::KernelStage* stage) const {
  info.bytes = ClusterBytes(translated_.clusters[info.cluster], sizes_);
  if (stage != nullptr) {
    const absl::StatusOr<int64_t> own = stage->own_ops.Evaluate(sizes_);
    const absl::StatusOr<double> done = stage->ops.Evaluate(sizes_);
    info.flops = own.ok() ? static_cast<double>(*own) : 0;
    info.work = done.ok() ? *done : 0;
    const absl::StatusOr<int64_t> stored = stage->stored_bytes.Evaluate(sizes_);
    info.store_work = stored.ok() ? ir::StoreOpsOfBytes(static_cast<double>(*stored)) : 0;
  }
  for (int n : translated_.partition.clusters[info.cluster].nodes) {
    const Node& node = graph_.node(n);
    const auto flops = static_cast<double>(NodeFlops(graph_, translated_, node, sizes_));
    if (stage == nullptr) info.flops += flops;
    info.nodes.push_back(node.name);
    info.node_work.push_back(
        flops + static_cast<double>(NodeOutputBytes(graph_, translated_, node, sizes_)));
  }
}

}  // namespace dfc
