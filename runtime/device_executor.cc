// Running translated graphs with generated kernels, values kept on the device (see
// device_executor.h).
#include "runtime/device_executor.h"

#include <clblast.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>

#include "absl/cleanup/cleanup.h"
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
#include "runtime/device_run.h"
#include "runtime/interpreted.h"
#include "runtime/opencl/cl_error.h"
#include "runtime/profiler/profiler.h"
#include "runtime/reference/kernel.h"
#include "runtime/work_estimate.h"

namespace dfc {

std::vector<std::string> ClusterNodeNames(const Graph& graph, const Cluster& cluster) {
  std::vector<std::string> names;
  for (int n : cluster.nodes) {
    names.push_back(absl::StrCat(graph.node(n).name, " (", graph.node(n).op, ")"));
  }
  return names;
}

rewrite::DeviceProfile ProfileOf(const cl::DeviceInfo& device) {
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
  return rewrite::DeviceProfile{
      .name = "auto",
      .description = device.Describe(),
      .simd_width = simd,
      .compute_units = device.compute_units,
      .local_memory_bytes = static_cast<int64_t>(device.local_mem_size),
      .local_memory_is_real = device.local_mem_is_real,
      .preferred_vector_width = std::max(1, device.preferred_vector_width_float),
      .max_work_group_size = static_cast<int>(device.max_work_group_size),
      .is_gpu = gpu,
      .prefetch_bytes = gpu ? 0 : rewrite::NamedProfile("cpu")->prefetch_bytes,
      // A CPU preferring 16 float lanes has AVX-512 and its 32 vector registers.
      .vector_registers = !gpu && device.preferred_vector_width_float >= 16 ? 32 : 16,
  };
}

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

absl::StatusOr<std::vector<Tensor>> DeviceExecutor::Run(const Graph& graph,
                                                        const ir::TranslatedGraph& translated,
                                                        const std::vector<Feed>& feeds,
                                                        const std::vector<TensorId>& fetches,
                                                        State* state) {
  // The queue records event times only while the profiler reads them: kernel times come from
  // its device events alone (runtime/kernel_timer.h).
  DFC_RETURN_IF_ERROR(context_->SetProfiling(profiler::KernelsEnabled()));
  // The profiler's first level: the graph run.
  profiler::RecordEvent span("run");
  DFC_ASSIGN_OR_RETURN(SizeBindings sizes, BindSizes(translated, feeds));
  // However the run ends, the feeds are the caller's again when it returns: the uploads of
  // host values do not wait, and a run that fails, or reads nothing back, waits here.
  absl::Cleanup settle = [&] { (void)context_->SettleWrites(); };
  ActiveRun run(*this, graph, translated, sizes, state, graph.functions().get());
  for (const auto& [id, tensor] : feeds) run.Feed(id, tensor);
  for (const ExecutionUnit& unit : translated.partition.schedule) {
    DFC_RETURN_IF_ERROR(run.RunUnit(unit));
  }
  DFC_ASSIGN_OR_RETURN(std::vector<Tensor> out, run.Fetch(fetches));
  DFC_RETURN_IF_ERROR(context_->SettleWrites());
  run.Commit();
  return out;
}

void DeviceExecutor::UseKernel(const ir::TranslatedCluster& cluster, codegen::KernelSource kernel) {
  CompiledCluster& compiled = compiled_[cluster.lambda.get()];
  compiled = CompiledCluster{.lambda = cluster.lambda, .kernel = std::move(kernel)};
}

DeviceExecutor::CompiledCluster& DeviceExecutor::Compile(const Graph& graph, const Cluster& cluster,
                                                         const ir::TranslatedCluster& translated,
                                                         int index, absl::string_view function) {
  CompiledCluster& compiled = compiled_[translated.lambda.get()];
  if (compiled.program != nullptr || !compiled.status.ok()) return compiled;
  std::string name = "dfc_";
  for (char c : function) name.push_back(absl::ascii_isalnum(c) ? c : '_');
  absl::StrAppend(&name, function.empty() ? "" : "_", "cluster_", index);
  // Failures to make or build a kernel are Internal here, so that the run falls back on them.
  auto fail = [&](const absl::Status& status) -> CompiledCluster& {
    compiled.status = absl::InternalError(status.message());
    return compiled;
  };
  if (compiled.lambda == nullptr) {  // not given by a plan
    compiled.lambda = translated.lambda;
    absl::StatusOr<ClusterKernel> kernel = CompileCluster(
        translated, {},
        {.name = name, .nodes = ClusterNodeNames(graph, cluster), .profile = profile_});
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
    // Without waiting: a run waits once, when it reads back (a blocking write of a batch-1
    // feed cost about 40 µs of PoCL's thread wake-ups). A run never changes a host value it
    // has uploaded, and the context keeps a copy of the tensor, which shares its memory, until
    // the queue has read it.
    DFC_RETURN_IF_ERROR(context_->Write(b, tensor.raw_data(), tensor.byte_size(),
                                        /*blocking=*/false, std::make_shared<Tensor>(tensor)));
  }
  bytes_to_device_ += static_cast<int64_t>(tensor.byte_size());
  return std::make_shared<cl::ClBuffer>(std::move(b));
}

absl::StatusOr<std::shared_ptr<cl::ClBuffer>> DeviceExecutor::UnsetFlag() {
  if (unset_flag_ == nullptr) {
    DFC_ASSIGN_OR_RETURN(cl::ClBuffer b, context_->Allocate(sizeof(cl_int)));
    unset_flag_ = std::make_shared<cl::ClBuffer>(std::move(b));
  }
  return unset_flag_;
}

}  // namespace dfc
