// Writes to variables in a run: Assign takes its value's buffer, AssignAdd, AssignSub and
// ApplyGradientDescent of float and double variables run as an update kernel on the device, so
// do ApplyAdam and ApplyMomentum (one kernel over var and its slots), and the rest (the other
// optimizers, other dtypes, errors to word) runs the reference kernel on the host (see
// device_run.h).
#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/status.h"
#include "codegen/fixed_kernels.h"
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

// Launches `kernel` (named `name`, for graph node `node`) with one work-item an element of n,
// and records its event for the profiler with the bytes it moves and the flops it does.
absl::Status LaunchOverElements(cl::ClContext& context, cl_kernel kernel, cl_long n,
                                const char* name, const std::string& node, int64_t bytes,
                                double flops) {
  const size_t global = static_cast<size_t>(std::max<cl_long>(n, 1));
  const bool timed = profiler::KernelsEnabled();
  std::optional<profiler::RecordEvent> launch;
  if (profiler::DeviceEnabled()) launch.emplace(absl::StrCat("launch ", name));
  cl_event event = nullptr;
  DFC_RETURN_IF_ERROR(context.Launch(kernel, global, nullptr, timed ? &event : nullptr));
  if (timed) {
    profiler::RecordDeviceEvent(event, context.queue(),
                                {.kind = profiler::DeviceEventKind::kKernel,
                                 .name = name,
                                 .nodes = {node},
                                 .dims = 1,
                                 .global = {global, 1, 1},
                                 .bytes = bytes,
                                 .flops = flops,
                                 .launch = launch ? launch->id() : 0});
    clReleaseEvent(event);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> DeviceExecutor::ActiveRun::RunOptimizerOnDevice(const Node& node) {
  const codegen::DeviceOptimizer* o = codegen::FindDeviceOptimizer(node.op);
  const int variables = DefOf(node).num_ref_inputs;
  // The kernel computes in double, as the reference does: a device without it updates on the
  // host.
  if (o == nullptr || o->grad >= static_cast<int>(node.inputs.size()) || variables < 1 ||
      !ex_.context_->info().has_fp64) {
    return false;
  }
  std::vector<std::shared_ptr<DeviceTensor>> vars;
  for (int k = 0; k < variables; ++k) {
    if (!IsVariableRead(node.inputs[k])) return false;
    std::shared_ptr<DeviceTensor> v = Variable(node.inputs[k].node);
    if (v == nullptr || !UpdatesOnDevice(v->dtype) ||
        (k > 0 && (v->dtype != vars[0]->dtype || v->shape != vars[0]->shape))) {
      return false;
    }
    vars.push_back(std::move(v));
  }
  const DeviceTensor& var = *vars[0];
  DFC_ASSIGN_OR_RETURN(std::shared_ptr<DeviceTensor> grad, Value(node.inputs[o->grad], &node));
  if (grad->dtype != var.dtype || grad->shape != var.shape) return false;
  std::vector<double> scalars;
  for (int k = variables; k < static_cast<int>(node.inputs.size()); ++k) {
    if (k == o->grad) continue;
    DFC_ASSIGN_OR_RETURN(Tensor c, Host(node.inputs[k], &node));
    if (c.dtype() != var.dtype || c.num_elements() != 1) return false;
    scalars.push_back(var.dtype == DType::kFloat ? static_cast<double>(c.data<float>()[0])
                                                 : c.data<double>()[0]);
  }
  DFC_ASSIGN_OR_RETURN(const bool nesterov, node.GetBool("use_nesterov", false));
  std::vector<std::shared_ptr<cl::ClBuffer>> held;
  std::vector<const cl::ClBuffer*> in;
  for (const std::shared_ptr<DeviceTensor>& v : vars) {
    DFC_ASSIGN_OR_RETURN(held.emplace_back(), Buffer(*v));
    in.push_back(held.back().get());
  }
  DFC_ASSIGN_OR_RETURN(held.emplace_back(), Buffer(*grad));
  in.push_back(held.back().get());
  const std::string source = codegen::OptimizerSource(*o, var.dtype, variables,
                                                      static_cast<int>(scalars.size()), nesterov);
  absl::StatusOr<std::vector<std::shared_ptr<DeviceTensor>>> updated =
      ex_.RunOptimizer(node.name, source, var, in, variables, scalars);
  if (!updated.ok()) {
    return absl::Status(updated.status().code(),
                        absl::StrCat("node \"", node.name, "\" (", node.op,
                                     "): the device failed: ", updated.status().message()));
  }
  for (int k = 0; k < variables; ++k) written_[node.inputs[k].node] = (*updated)[k];
  values_[Slot{&node, 0}] = (*updated)[0];
  return true;
}

absl::Status DeviceExecutor::ActiveRun::RunVariableWrite(const Node& node) {
  const std::string& name = node.inputs[0].node;
  const std::shared_ptr<DeviceTensor> current = Variable(name);
  const Slot out{&node, 0};
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
  DFC_ASSIGN_OR_RETURN(const bool on_device, RunOptimizerOnDevice(node));
  if (on_device) return absl::OkStatus();
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
  const std::pair<DType, bool> key(var.dtype, context_->inline_active());
  auto found = updates_.find(key);
  if (found == updates_.end()) {
    DFC_ASSIGN_OR_RETURN(std::shared_ptr<cl::ClProgram> program,
                         cache_->Build(codegen::VariableUpdateSource(var.dtype)));
    DFC_ASSIGN_OR_RETURN(cl::ClKernel kernel,
                         cl::ProgramCache::CreateKernel(*program, "dfc_update"));
    found = updates_.emplace(key, std::make_pair(std::move(program), std::move(kernel))).first;
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
  // Reads the variable and the delta, writes the new value: two flops an element.
  DFC_RETURN_IF_ERROR(LaunchOverElements(*context_, kernel, n, "dfc_update", node,
                                         static_cast<int64_t>(3 * var.byte_size()),
                                         2.0 * static_cast<double>(n)));
  return out;
}

absl::StatusOr<std::vector<std::shared_ptr<DeviceTensor>>> DeviceExecutor::RunOptimizer(
    const std::string& node, const std::string& source, const DeviceTensor& var,
    std::span<const cl::ClBuffer* const> in, int num_variables, std::span<const double> scalars) {
  std::pair<std::string, bool> key(source, context_->inline_active());
  auto found = optimizers_.find(key);
  if (found == optimizers_.end()) {
    DFC_ASSIGN_OR_RETURN(std::shared_ptr<cl::ClProgram> program, cache_->Build(source));
    DFC_ASSIGN_OR_RETURN(cl::ClKernel kernel,
                         cl::ProgramCache::CreateKernel(*program, "dfc_apply"));
    found =
        optimizers_.emplace(std::move(key), std::make_pair(std::move(program), std::move(kernel)))
            .first;
  }
  cl_kernel kernel = found->second.second.get();
  std::vector<std::shared_ptr<DeviceTensor>> out;
  ArgSetter args(kernel);
  for (const cl::ClBuffer* b : in) DFC_RETURN_IF_ERROR(args.Buffer(*b));
  for (int k = 0; k < num_variables; ++k) {
    auto t = std::make_shared<DeviceTensor>(DeviceTensor{.dtype = var.dtype, .shape = var.shape});
    DFC_ASSIGN_OR_RETURN(cl::ClBuffer b, context_->Allocate(t->byte_size()));
    t->buffer = std::make_shared<cl::ClBuffer>(std::move(b));
    DFC_RETURN_IF_ERROR(args.Buffer(*t->buffer));
    out.push_back(std::move(t));
  }
  for (const double c : scalars) DFC_RETURN_IF_ERROR(args.Scalar(static_cast<cl_double>(c)));
  const cl_long n = static_cast<cl_long>(var.byte_size() / SizeOf(var.dtype));
  DFC_RETURN_IF_ERROR(args.Scalar(n));
  // Reads the variables and the gradient, writes the variables.
  DFC_RETURN_IF_ERROR(
      LaunchOverElements(*context_, kernel, n, "dfc_apply", node,
                         static_cast<int64_t>((2 * num_variables + 1) * var.byte_size()),
                         10.0 * static_cast<double>(n)));
  return out;
}

}  // namespace dfc
