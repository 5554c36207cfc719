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
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "base/env.h"
#include "base/status.h"
#include "graph/ops.h"
#include "ir/value.h"
#include "ir/work.h"
#include "runtime/compile.h"
#include "runtime/device_run.h"
#include "runtime/opencl/cl_error.h"
#include "runtime/profiler/profiler.h"
#include "runtime/reference/kernel.h"
#include "runtime/size_bindings.h"
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

RunPlacement DefaultPlacement() {
  return EnvChoice<RunPlacement>("DFC_PLACEMENT", {{"measured", RunPlacement::kMeasured},
                                                   {"device", RunPlacement::kDevice},
                                                   {"inline", RunPlacement::kInline}});
}

DeviceExecutor::DeviceExecutor(std::shared_ptr<cl::ClContext> context,
                               std::shared_ptr<cl::ProgramCache> cache, Options options)
    : context_(std::move(context)),
      cache_(std::move(cache)),
      options_(std::move(options)),
      placement_(options_.placement ? *options_.placement : DefaultPlacement()),
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
  std::optional<profiler::RecordEvent> span(std::in_place, "run");
  DFC_ASSIGN_OR_RETURN(SizeBindings sizes, BindSizes(translated, feeds));
  PlacementTrials* trials = nullptr;
  DFC_RETURN_IF_ERROR(context_->UseInline(PlaceRun(graph, translated, sizes, &trials)));
  if (context_->inline_active()) ++inline_runs_;
  // A trial that builds a program is not timed.
  const auto programs = [&] { return cache_->builds_from_source() + cache_->loads_from_disk(); };
  const int64_t start_ns = trials != nullptr ? profiler::NowNs() : 0;
  const int64_t built_before = trials != nullptr ? programs() : 0;
  const int64_t launched_before = context_->launches(), narrow_before = narrow_launches_;
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
  if (trials != nullptr) {
    // A trial is timed to the end of its kernels, which a run that fetches nothing leaves queued.
    DFC_RETURN_IF_ERROR(context_->Finish());
    RecordTrial(*trials, profiler::NowNs() - start_ns, context_->launches() - launched_before,
                narrow_launches_ - narrow_before, programs() != built_before);
  }
  // The span ends before the profiler describes the run's kernels (~ActiveRun): that is the
  // profiler's work, not the run's.
  span.reset();
  return out;
}

void DeviceExecutor::UseKernel(const ir::TranslatedCluster& cluster, codegen::KernelSource kernel) {
  CompiledCluster& compiled = compiled_[cluster.lambda.get()];
  compiled = CompiledCluster{.lambda = cluster.lambda, .kernel = std::move(kernel)};
}

bool DeviceExecutor::PlaceRun(const Graph& graph, const ir::TranslatedGraph& translated,
                              const SizeBindings& sizes, PlacementTrials** trials) {
  if (!context_->has_inline_device() || placement_ == RunPlacement::kDevice) return false;
  for (const ExecutionUnit& unit : translated.partition.schedule) {
    if (unit.cluster < 0 && DefOf(graph.node(unit.node)).control) return false;
  }
  if (placement_ == RunPlacement::kInline) return true;
  std::vector<std::pair<std::string, int64_t>> bound(sizes.begin(), sizes.end());
  std::sort(bound.begin(), bound.end());
  auto [it, fresh] = placements_.try_emplace({&translated, std::move(bound)});
  PlacementTrials& placement = it->second;
  if (fresh) {
    double ops = 0;
    for (const ir::TranslatedCluster& cluster : translated.clusters) {
      auto [found, first] = cluster_ops_.try_emplace(cluster.lambda.get());
      if (first) found->second = {cluster.lambda, ir::StrictOps(cluster.lambda->body)};
      absl::StatusOr<int64_t> n = found->second.second.Evaluate(sizes);
      ops += n.ok() ? static_cast<double>(*n) : kMeasureBelowOps;
    }
    if (ops >= kMeasureBelowOps) placement.inline_chosen = false;
  }
  if (placement.inline_chosen) return *placement.inline_chosen;
  *trials = &placement;
  return true;
}

void DeviceExecutor::RecordTrial(PlacementTrials& trials, int64_t ns, int64_t launches,
                                 int64_t narrow, bool built) {
  if (trials.runs++ > 0 && !built) {
    ++trials.timed;
    if (ns < trials.best_ns) {
      trials.best_ns = ns;
      trials.launches = launches;
      trials.narrow = narrow;
    }
  }
  if (trials.timed < kPlacementTrials) return;
  // A hand-off that cannot be measured (the empty kernel did not build) keeps runs on the
  // device, as a device without an inline device runs them.
  if (!hand_off_ns_) hand_off_ns_ = MeasureHandOff().value_or(0);
  // A device of one compute unit is never faster than its inline device.
  const double units = context_->info().compute_units;
  const double hand_offs = static_cast<double>(std::max<int64_t>(trials.launches, 1));
  trials.inline_chosen = units <= 1 || OnlyNarrow(trials.launches, trials.narrow) ||
                         static_cast<double>(trials.best_ns) <
                             hand_offs * static_cast<double>(*hand_off_ns_) * units / (units - 1);
}

absl::StatusOr<int64_t> DeviceExecutor::MeasureHandOff() {
  DFC_RETURN_IF_ERROR(context_->UseInline(false));
  DFC_ASSIGN_OR_RETURN(std::shared_ptr<cl::ClProgram> program,
                       cache_->Build("kernel void dfc_nothing(global int* x) {}"));
  DFC_ASSIGN_OR_RETURN(cl::ClKernel kernel,
                       cl::ProgramCache::CreateKernel(*program, "dfc_nothing"));
  DFC_ASSIGN_OR_RETURN(cl::ClBuffer buffer, context_->Allocate(sizeof(cl_int)));
  DFC_RETURN_IF_ERROR(ArgSetter(kernel.get()).Buffer(buffer));
  static constexpr cl_int kWritten = 1;
  cl_int read = 0;
  // One work-item a compute unit, so that every thread of the device wakes, as a run's do.
  const auto items = static_cast<size_t>(std::max(context_->info().compute_units, 1));
  const size_t one = 1;
  // The first tries wake the device (hundreds of µs); the rest vary by a factor of five from
  // one to the next, so their median is taken.
  constexpr int kUntimed = 2, kTimed = 9;
  std::vector<int64_t> times;
  for (int k = 0; k < kUntimed + kTimed; ++k) {
    const int64_t start = profiler::NowNs();
    DFC_RETURN_IF_ERROR(context_->Write(buffer, &kWritten, sizeof(kWritten), /*blocking=*/false));
    DFC_RETURN_IF_ERROR(context_->Launch(kernel.get(), items, &one, nullptr));
    DFC_RETURN_IF_ERROR(context_->Read(buffer, &read, sizeof(read)));
    if (k >= kUntimed) times.push_back(profiler::NowNs() - start);
  }
  std::nth_element(times.begin(), times.begin() + kTimed / 2, times.end());
  return times[kTimed / 2];
}

absl::StatusOr<std::vector<std::vector<DeviceExecutor::StageArg>>> DeviceExecutor::StageArguments(
    const codegen::KernelSource& kernel, const ir::TranslatedCluster& translated) {
  const int parameters = static_cast<int>(translated.params.size());
  const int temporaries = static_cast<int>(kernel.temporaries.size());
  const int outputs = static_cast<int>(translated.output_types.size());
  // "in3" is 3 if the name starts with `prefix` and its number is below `count`.
  const auto numbered = [](absl::string_view name, absl::string_view prefix,
                           int count) -> std::optional<int> {
    int k = 0;
    if (!absl::ConsumePrefix(&name, prefix) || !absl::SimpleAtoi(name, &k) || k < 0 || k >= count) {
      return std::nullopt;
    }
    return k;
  };
  std::vector<std::vector<StageArg>> all;
  for (const codegen::KernelStage& stage : kernel.stages) {
    DFC_ASSIGN_OR_RETURN(std::vector<std::string> names,
                         codegen::KernelParameters(kernel.source, stage.name));
    std::vector<StageArg>& args = all.emplace_back();
    for (const std::string& name : names) {
      absl::string_view size = name;
      if (std::optional<int> k = numbered(name, "in", parameters)) {
        args.push_back({.index = *k});
      } else if (std::optional<int> k = numbered(name, "tmp", temporaries)) {
        args.push_back({.index = parameters + *k});
      } else if (std::optional<int> k = numbered(name, "out", outputs)) {
        args.push_back({.index = parameters + temporaries + *k});
      } else if (name == "dfc_error") {
        args.push_back({.kind = StageArg::Kind::kErrorFlag});
      } else if (const auto var = std::find(kernel.size_args.begin(), kernel.size_args.end(),
                                            absl::ConsumePrefix(&size, "size_") ? size : "");
                 var != kernel.size_args.end()) {
        args.push_back({.kind = StageArg::Kind::kSize,
                        .index = static_cast<int>(var - kernel.size_args.begin())});
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("kernel ", stage.name, " takes ", name, ", which the cluster has not"));
      }
    }
  }
  return all;
}

DeviceExecutor::CompiledCluster& DeviceExecutor::Compile(const Graph& graph, const Cluster& cluster,
                                                         const ir::TranslatedCluster& translated,
                                                         int index, absl::string_view function) {
  CompiledCluster& compiled = compiled_[translated.lambda.get()];
  CompiledCluster::Built& built = compiled.On(*context_);
  if (built.program != nullptr || !compiled.status.ok()) return compiled;
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
  if (!compiled.edited) {
    if (edit_source_) edit_source_(compiled.kernel.source);
    compiled.edited = true;
    absl::StatusOr<std::vector<std::vector<StageArg>>> args =
        StageArguments(compiled.kernel, translated);
    if (!args.ok()) return fail(args.status());
    compiled.stage_args = *std::move(args);
  }
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
    built.stages.push_back(*std::move(kernel));
  }
  built.program = *std::move(program);
  return compiled;
}

absl::StatusOr<std::shared_ptr<cl::ClBuffer>> DeviceExecutor::Upload(const Tensor& tensor) {
  if (context_->info().host_unified_memory && tensor.byte_size() >= kBorrowedBytes) {
    // The device reads the tensor where it lies, held by a copy that shares its memory.
    DFC_ASSIGN_OR_RETURN(cl::ClBuffer b, context_->Borrow(tensor.raw_data(), tensor.byte_size(),
                                                          std::make_shared<Tensor>(tensor)));
    bytes_borrowed_ += static_cast<int64_t>(tensor.byte_size());
    return std::make_shared<cl::ClBuffer>(std::move(b));
  }
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
