// Running lowered graphs with generated kernels (see device_executor.h).
#include "runtime/device_executor.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "codegen/kernel_gen.h"
#include "graph/check.h"
#include "runtime/interpreted.h"
#include "runtime/opencl/cl_error.h"

namespace dfc {

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
  };
}

DeviceExecutor::DeviceExecutor(std::shared_ptr<cl::ClContext> context,
                               std::shared_ptr<cl::ProgramCache> cache, Options options)
    : context_(std::move(context)),
      cache_(std::move(cache)),
      options_(std::move(options)),
      profile_(ProfileOf(context_->info())) {}

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
    const std::vector<std::pair<TensorId, Tensor>>& feeds, const std::vector<TensorId>& fetches) {
  return RunLowered(graph, lowered, feeds, fetches,
                    [&](int index, std::vector<Tensor> params, const SizeBindings& sizes,
                        const ValueOf& value_of) -> absl::StatusOr<std::vector<Tensor>> {
                      const Cluster& cluster = lowered.partition.clusters[index];
                      absl::StatusOr<std::vector<Tensor>> outputs =
                          RunKernel(graph, cluster, lowered.clusters[index], index, params, sizes);
                      // Only a kernel that could not be made falls back; a kernel that ran and
                      // reported an error (an index out of range) is the run's error, as it is
                      // TensorFlow's.
                      if (outputs.ok() || absl::IsInvalidArgument(outputs.status()) ||
                          absl::IsOutOfRange(outputs.status())) {
                        return outputs;
                      }
                      ++fallbacks_;
                      if (options_.warnings != nullptr) {
                        *options_.warnings
                            << "dfc: warning: cluster " << index << " ("
                            << absl::StrJoin(ClusterNodeNames(graph, cluster), ", ")
                            << ") runs on the reference executor: its kernel failed: "
                            << outputs.status().message() << "\n";
                      }
                      return RunClusterByReference(graph, cluster, value_of);
                    });
}

absl::StatusOr<std::vector<Tensor>> DeviceExecutor::RunKernel(
    const Graph& graph, const Cluster& cluster, const ir::LoweredCluster& lowered, int index,
    const std::vector<Tensor>& params, const SizeBindings& sizes) {
  codegen::KernelOptions options{.name = absl::StrCat("dfc_cluster_", index),
                                 .nodes = ClusterNodeNames(graph, cluster),
                                 .profile = profile_};
  absl::StatusOr<codegen::KernelSource> kernel = codegen::GenerateKernel(lowered, options);
  // Failures to make or build a kernel are Internal here, so that Run falls back on them.
  if (!kernel.ok()) return absl::InternalError(kernel.status().message());
  if (options_.edit_source) options_.edit_source(kernel->source);
  // DFC_DUMP_KERNELS=DIR writes every generated kernel there, as XLA's --xla_dump_to does.
  if (const char* dump = std::getenv("DFC_DUMP_KERNELS"); dump != nullptr && *dump != '\0') {
    std::ofstream(absl::StrCat(dump, "/", options.name, "_",
                               absl::Hex(std::hash<std::string>()(kernel->source)), ".cl"))
        << kernel->source;
  }
  absl::StatusOr<std::shared_ptr<cl::ClProgram>> program = cache_->Build(kernel->source);
  if (!program.ok()) return absl::InternalError(program.status().message());
  // Buffers in the kernels' argument order: parameters, temporaries, outputs.
  std::vector<cl::ClBuffer> buffers;
  for (const Tensor& t : params) {
    DFC_ASSIGN_OR_RETURN(cl::ClBuffer b, context_->Allocate(t.byte_size()));
    if (t.byte_size() > 0) DFC_RETURN_IF_ERROR(context_->Write(b, t.raw_data(), t.byte_size()));
    buffers.push_back(std::move(b));
  }
  auto tensor_of_type = [&](const ir::TypePtr& type) -> absl::StatusOr<Tensor> {
    std::optional<SymbolicShape> symbolic = ir::TensorShape(type);
    if (!symbolic) return absl::InternalError("a cluster output is not a tensor");
    Shape shape;
    for (const ArithExpr& d : *symbolic) {
      DFC_ASSIGN_OR_RETURN(int64_t v, d.Evaluate(sizes));
      shape.push_back(v);
    }
    return Tensor::Create(ir::BaseDType(type), shape);
  };
  for (const ir::TypePtr& type : kernel->temporaries) {
    DFC_ASSIGN_OR_RETURN(Tensor t, tensor_of_type(type));
    DFC_ASSIGN_OR_RETURN(cl::ClBuffer b, context_->Allocate(t.byte_size()));
    buffers.push_back(std::move(b));
  }
  const size_t first_output = buffers.size();
  std::vector<Tensor> outputs;
  for (const ir::TypePtr& type : lowered.output_types) {
    DFC_ASSIGN_OR_RETURN(Tensor t, tensor_of_type(type));
    DFC_ASSIGN_OR_RETURN(cl::ClBuffer b, context_->Allocate(t.byte_size()));
    buffers.push_back(std::move(b));
    outputs.push_back(std::move(t));
  }
  const cl_int no_error = 0;
  DFC_ASSIGN_OR_RETURN(cl::ClBuffer error_flag, context_->Allocate(sizeof(cl_int)));
  DFC_RETURN_IF_ERROR(context_->Write(error_flag, &no_error, sizeof(no_error)));
  std::vector<cl_long> size_values;
  for (const std::string& var : kernel->size_args) {
    auto it = sizes.find(var);
    if (it == sizes.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("size variable ", var, " of cluster ", index, " is not bound by a feed"));
    }
    size_values.push_back(it->second);
  }

  for (const codegen::KernelStage& stage : kernel->stages) {
    DFC_ASSIGN_OR_RETURN(cl::ClKernel k, cl::ProgramCache::CreateKernel(**program, stage.name));
    cl_uint arg = 0;
    for (const cl::ClBuffer& b : buffers) {
      cl_mem mem = b.get();
      DFC_CL_RETURN_IF_ERROR(clSetKernelArg(k.get(), arg++, sizeof(cl_mem), &mem));
    }
    cl_mem error_mem = error_flag.get();
    DFC_CL_RETURN_IF_ERROR(clSetKernelArg(k.get(), arg++, sizeof(cl_mem), &error_mem));
    for (const cl_long& value : size_values) {
      DFC_CL_RETURN_IF_ERROR(clSetKernelArg(k.get(), arg++, sizeof(cl_long), &value));
    }
    int64_t rows = 1;
    for (const ArithExpr& r : stage.rows) {
      DFC_ASSIGN_OR_RETURN(int64_t v, r.Evaluate(sizes));
      rows = std::max(rows, v);
    }
    const size_t local = static_cast<size_t>(stage.work_group_size);
    const size_t global = local == 0 ? static_cast<size_t>(rows)
                                     : (static_cast<size_t>(rows) + local - 1) / local * local;
    DFC_CL_RETURN_IF_ERROR(clEnqueueNDRangeKernel(context_->queue(), k.get(), 1, nullptr, &global,
                                                  local == 0 ? nullptr : &local, 0, nullptr,
                                                  nullptr));
  }
  ++kernels_run_;
  cl_int error = 0;
  DFC_RETURN_IF_ERROR(context_->Read(error_flag, &error, sizeof(error)));
  if (error != 0) {
    return absl::OutOfRangeError(
        absl::StrCat("cluster ", index, " (", absl::StrJoin(options.nodes, ", "),
                     "): an index read at run time is out of range (a GatherV2 index, say)"));
  }
  for (size_t k = 0; k < outputs.size(); ++k) {
    Tensor& t = outputs[k];
    if (t.byte_size() == 0) continue;
    DFC_RETURN_IF_ERROR(
        context_->Read(buffers[first_output + k], t.mutable_raw_data(), t.byte_size()));
  }
  return outputs;
}

}  // namespace dfc
