// Writes to variables in a run: Assign takes its value's buffer, AssignAdd, AssignSub and
// ApplyGradientDescent of float and double variables run as an update kernel on the device, and
// the rest (the optimizers that update several variables, such as ApplyAdam, other dtypes,
// errors to word) runs the reference kernel on the host (see device_run.h).
#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "codegen/kernel_gen.h"
#include "runtime/device_run.h"
#include "runtime/opencl/cl_error.h"
#include "runtime/profiler/profiler.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/session.h"

namespace dfc {
namespace {

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

}  // namespace

absl::Status DeviceExecutor::ActiveRun::RunVariableWrite(const Node& node) {
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
  // The reference kernel, on host copies of every variable the node refers to (ApplyAdam's
  // var, m and v): it also words every error. Each updated variable becomes the run's value of
  // that variable, read from the host or uploaded when a cluster next needs it.
  const int num_refs = std::min(DefOf(node).num_ref_inputs, static_cast<int>(node.inputs.size()));
  std::vector<reference::KernelContext::VariableSlot> slots(num_refs);
  std::vector<reference::KernelContext::VariableSlot*> refs(node.inputs.size(), nullptr);
  std::vector<Tensor> inputs;
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    const TensorId& id = node.inputs[k];
    if (static_cast<int>(k) < num_refs && IsVariableRead(id)) {
      if (Variable(id.node) != nullptr) {
        DFC_ASSIGN_OR_RETURN(slots[k].value, Host(id, &node));
        slots[k].initialized = true;
      }
      refs[k] = &slots[k];
      inputs.push_back(slots[k].value);
      continue;
    }
    DFC_ASSIGN_OR_RETURN(Tensor t, Host(id, &node));
    inputs.push_back(std::move(t));
  }
  DFC_ASSIGN_OR_RETURN(std::vector<Tensor> outputs,
                       reference::EvaluateNode(node, inputs, {.ref_inputs = refs}));
  for (int k = 0; k < num_refs; ++k) {
    if (refs[k] != nullptr && slots[k].initialized) {
      written_[node.inputs[k].node] = OnHost(slots[k].value);
    }
  }
  // The output is the updated variable itself (a ref output in TensorFlow).
  if (auto it = written_.find(name); it != written_.end()) values_[out] = it->second;
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
  const bool timed = profiler::KernelsEnabled();
  std::optional<profiler::RecordEvent> launch;
  if (profiler::DeviceEnabled()) launch.emplace("launch dfc_update");
  cl_event event = nullptr;
  DFC_RETURN_IF_ERROR(context_->Launch(kernel, global, nullptr, timed ? &event : nullptr));
  if (timed) {
    // Reads the variable and the delta, writes the new value: two flops an element.
    profiler::RecordDeviceEvent(event, context_->queue(),
                                {.kind = profiler::DeviceEventKind::kKernel,
                                 .name = "dfc_update",
                                 .nodes = {node},
                                 .dims = 1,
                                 .global = {global, 1, 1},
                                 .bytes = static_cast<int64_t>(3 * var.byte_size()),
                                 .flops = 2.0 * static_cast<double>(n),
                                 .launch = launch ? launch->id() : 0});
    clReleaseEvent(event);
  }
  return out;
}

}  // namespace dfc
