// A cluster's kernels launched: the sizes of its temporaries and outputs checked, their buffers
// made, the arguments set and each stage's global and local sizes chosen; and a lone float32
// MatMul through CLBlast's GEMM (see device_run.h).
#include <clblast.h>

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "runtime/device_run.h"
#include "runtime/opencl/cl_error.h"
#include "runtime/profiler/profiler.h"

namespace dfc {

StageLaunch StageGeometry(const codegen::KernelStage& stage, int64_t rows,
                          size_t max_work_group_size, int compute_units) {
  // MapGlb kernels do not depend on the work-group size: a plan written for a device that
  // allows more than this one gets this one's limit. MapWrg/MapLcl kernels require theirs (a
  // device that cannot run it fails the launch, and the cluster falls back).
  size_t local = static_cast<size_t>(stage.work_group_size);
  if (!stage.work_group_per_row) local = std::min(local, max_work_group_size);
  const auto n = static_cast<size_t>(rows);
  if (local == 0 && !stage.work_group_per_row && stage.private_bytes > 0) {
    local = LocalSizeForPrivateArrays(stage.private_bytes, max_work_group_size);
    const size_t per_group = n / (2 * static_cast<size_t>(std::max(compute_units, 1)));
    while (local > 1 && local > per_group) local /= 2;
  }
  const size_t global = stage.work_group_per_row ? n * local
                        : local == 0             ? n
                                                 : (n + local - 1) / local * local;
  return {.global = global, .local = local};
}

size_t LocalSizeForPrivateArrays(int64_t private_bytes, size_t max_work_group_size) {
  if (private_bytes <= 0) return 0;
  size_t local = 1;
  while (local * 2 <= max_work_group_size &&
         static_cast<int64_t>(local * 2) * private_bytes <= kPrivateBytesPerWorkGroup) {
    local *= 2;
  }
  return local;
}

absl::Status DeviceExecutor::ActiveRun::BlasMatMul(
    int index, const Node& node, const ir::TranslatedCluster& translated,
    const std::vector<std::shared_ptr<DeviceTensor>>& params) {
  const bool ta = node.GetBool("transpose_a", false).value_or(false);
  const bool tb = node.GetBool("transpose_b", false).value_or(false);
  const Shape& a = params[0]->shape;
  const Shape& b = params[1]->shape;
  if (a.size() != 2 || b.size() != 2 || translated.params[0] != node.inputs[0] ||
      translated.params[1] != node.inputs[1]) {
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
  const bool timed = profiler::KernelsEnabled();
  std::optional<profiler::RecordEvent> launch;
  if (profiler::DeviceEnabled()) launch.emplace("launch clblast_sgemm");
  // GEMM enqueues several kernels and returns the last one's event: its device event starts at
  // a marker enqueued before it (RecordDeviceEvent's `since`).
  cl_event before = nullptr;
  if (timed) DFC_CL_RETURN_IF_ERROR(clEnqueueMarkerWithWaitList(queue, 0, nullptr, &before));
  cl::ClEvent since(before);
  const clblast::StatusCode status = clblast::Gemm<float>(
      clblast::Layout::kRowMajor, ta ? clblast::Transpose::kYes : clblast::Transpose::kNo,
      tb ? clblast::Transpose::kYes : clblast::Transpose::kNo, m, n, k, 1.0f, a_buffer->get(), 0,
      a[1], b_buffer->get(), 0, b[1], 0.0f, out->buffer->get(), 0, n, &queue, &event);
  cl::ClEvent owned(event);
  if (status != clblast::StatusCode::kSuccess) {
    return absl::InternalError(absl::StrCat("CLBlast's GEMM for MatMul ", node.name,
                                            " failed with status ", static_cast<int>(status)));
  }
  if (timed) {
    RecordKernel(std::move(owned), index, nullptr, "clblast_sgemm", 2, {m, n}, {0, 0},
                 launch ? launch->id() : 0, std::move(since));
  }
  ++ex_.kernels_run_;
  // A MatMul nothing reads (run for a control edge: a training step's gradient with respect
  // to its input, grouped with the one it uses) has no output to keep.
  if (!translated.outputs.empty()) values_[SlotOf(translated.outputs[0])] = std::move(out);
  return absl::OkStatus();
}

absl::Status DeviceExecutor::ActiveRun::CheckDeviceSize(int index,
                                                        const DeviceTensor& value) const {
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

absl::Status DeviceExecutor::ActiveRun::Launch(
    int index, const CompiledCluster& compiled, const ir::TranslatedCluster& translated,
    const std::vector<std::shared_ptr<DeviceTensor>>& params) {
  const codegen::KernelSource& kernel = compiled.kernel;
  // Every temporary's and output's size first, so that a size the feeds make too large
  // (past 2^63 elements, or more than the device's largest buffer) is refused before anything
  // is allocated or launched.
  std::vector<std::shared_ptr<DeviceTensor>> made;
  for (const auto* types : {&kernel.temporaries, &translated.output_types}) {
    for (const ir::TypePtr& type : *types) {
      DFC_ASSIGN_OR_RETURN(Shape shape, ir::ShapeUnder(type, sizes_));
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
  std::shared_ptr<cl::ClBuffer> flag;
  if (kernel.checks_indices) {
    DFC_ASSIGN_OR_RETURN(cl::ClBuffer flag_buffer, ex_.context_->Allocate(sizeof(cl_int)));
    flag = std::make_shared<cl::ClBuffer>(std::move(flag_buffer));
    static constexpr cl_int kNoError = 0;
    DFC_RETURN_IF_ERROR(
        ex_.context_->Write(*flag, &kNoError, sizeof(kNoError), /*blocking=*/false));
  } else {
    DFC_ASSIGN_OR_RETURN(flag, ex_.UnsetFlag());
  }
  std::vector<cl_long> size_values;
  for (const std::string& var : kernel.size_args) {
    auto it = sizes_.find(var);
    if (it == sizes_.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("size variable ", var, " of cluster ", index, " is not bound by a feed"));
    }
    size_values.push_back(it->second);
  }
  const std::vector<cl::ClKernel>& built = compiled.On(*ex_.context_).stages;
  for (size_t s = 0; s < kernel.stages.size(); ++s) {
    const codegen::KernelStage& stage = kernel.stages[s];
    ArgSetter args(built[s].get());
    for (const StageArg& arg : compiled.stage_args[s]) {
      switch (arg.kind) {
        case StageArg::Kind::kBuffer:
          DFC_RETURN_IF_ERROR(args.Buffer(*buffers[arg.index]));
          break;
        case StageArg::Kind::kErrorFlag:
          DFC_RETURN_IF_ERROR(args.Buffer(*flag));
          break;
        case StageArg::Kind::kSize:
          DFC_RETURN_IF_ERROR(args.Scalar(size_values[arg.index]));
          break;
      }
    }
    int64_t rows = 1;
    for (const ArithExpr& r : stage.rows) {
      DFC_ASSIGN_OR_RETURN(int64_t v, r.Evaluate(sizes_));
      rows = std::max(rows, v);
    }
    const auto [global, local] = StageGeometry(
        stage, rows, ex_.context_->info().max_work_group_size, ex_.context_->info().compute_units);
    if (rows < ex_.context_->info().compute_units) ++ex_.narrow_launches_;
    cl_event event = nullptr;
    const bool timed = profiler::KernelsEnabled();
    // The profiler's third level: the launch on the host, linked to its kernel on the device.
    std::optional<profiler::RecordEvent> launch;
    if (profiler::DeviceEnabled()) launch.emplace(absl::StrCat("launch ", stage.name));
    DFC_RETURN_IF_ERROR(ex_.context_->Launch(built[s].get(), global, local == 0 ? nullptr : &local,
                                             timed ? &event : nullptr));
    cl::ClEvent owned(event);
    if (timed) {
      RecordKernel(std::move(owned), index, &stage, stage.name, 1, {global}, {local},
                   launch ? launch->id() : 0);
    }
  }
  if (kernel.checks_indices) pending_.push_back({index, std::move(flag)});
  for (size_t k = 0; k < outputs.size(); ++k) values_[SlotOf(translated.outputs[k])] = outputs[k];
  return absl::OkStatus();
}

}  // namespace dfc
