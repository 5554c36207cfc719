// `dfc compile`: compiles a graph for a device, ahead of time: DIR/plan.json says what runs
// where (clusters, their kernels, arguments, launch sizes, size variables, host ops) and
// DIR/kernels/*.cl holds the OpenCL C of each cluster. The device need not be present.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codegen/device_profile.h"
#include "codegen/kernel_gen.h"
#include "graph/loader.h"
#include "ir/lower/cluster.h"
#include "ir/printer.h"
#include "runtime/device_executor.h"
#include "runtime/interpreted.h"
#include "runtime/opencl/device.h"
#include "tools/cli.h"

namespace dfc::cli {
namespace {

namespace fs = std::filesystem;

constexpr char kUsage[] =
    "usage: dfc compile GRAPH --device D -o DIR [--fetch T[,T...]] [--shape NAME=[d,...]]...\n"
    "  --device  amd|nvidia|intel|arm|cpu (a profile: no such device needs to be present), or\n"
    "            auto|gpu for the OpenCL device present\n"
    "  -o, --out the directory to write plan.json and kernels/*.cl to\n"
    "  --fetch   the tensors to compile for (default: everything the graph computes)\n"
    "  --shape   a shape for a placeholder declared without one, e.g. --shape 'x=[?,784]'\n";

absl::StatusOr<codegen::DeviceProfile> ProfileFor(const std::string& device) {
  if (device == "auto" || device == "gpu") {
    DFC_ASSIGN_OR_RETURN(cl::DeviceInfo info, cl::SelectDevice(device));
    return ProfileOf(info);
  }
  return codegen::NamedProfile(device);
}

nlohmann::json TensorJson(const TensorId& id, const ir::TypePtr& type) {
  return {{"tensor", id.ToString()}, {"type", ir::TypeToString(type)}};
}

}  // namespace

int Compile(const std::vector<std::string>& argv_in) {
  std::vector<std::string> argv = argv_in;
  for (std::string& a : argv) {
    if (a == "-o") a = "--out";
  }
  absl::StatusOr<Args> args = ParseArgs(
      argv, {{"device", true}, {"out", true}, {"fetch", true, true}, {"shape", true, true}});
  if (!args.ok()) return ReportUsage(std::string(args.status().message()), kUsage);
  if (args->positional.size() != 1) return ReportUsage("expected one GRAPH", kUsage);
  if (!args->Has("out")) return ReportUsage("give the output directory with -o DIR", kUsage);
  const std::string device = args->Get("device", "auto");
  absl::StatusOr<codegen::DeviceProfile> profile = ProfileFor(device);
  if (!profile.ok()) return ReportError(profile.status());

  const std::string& path = args->positional[0];
  absl::StatusOr<Graph> graph = LoadGraph(path);
  if (!graph.ok()) return ReportError(graph.status());
  std::vector<TensorId> fetches;
  std::vector<std::string> targets;
  for (const std::string& list : args->All("fetch")) {
    for (absl::string_view name : absl::StrSplit(list, ',', absl::SkipEmpty())) {
      absl::StatusOr<TensorId> id = TensorId::Parse(name);
      if (!id.ok()) return ReportUsage(std::string(id.status().message()), kUsage);
      fetches.push_back(*id);
    }
  }
  if (fetches.empty()) DefaultFetches(*graph, fetches, targets);
  // What `dfc run` lowers: folding only what lowerings read statically.
  ir::LowerOptions options{.fold_only_static = true};
  for (const std::string& shape : args->All("shape")) {
    absl::StatusOr<absl::flat_hash_map<std::string, PartialShape>> parsed = ParseShapes(shape);
    if (!parsed.ok()) return ReportUsage(std::string(parsed.status().message()), kUsage);
    for (auto& [name, s] : *parsed) options.placeholder_shapes[name] = s;
  }
  ReferenceFoldOracle oracle;
  absl::StatusOr<ir::LoweredGraph> lowered =
      ir::LowerGraph(*graph, fetches, targets, {}, oracle, options);
  if (!lowered.ok()) return ReportError(lowered.status());

  const fs::path out = args->Get("out");
  std::error_code error;
  fs::create_directories(out / "kernels", error);
  if (error) {
    return ReportError(absl::InvalidArgumentError(
        absl::StrCat(out.string(), ": cannot create the directory: ", error.message())));
  }
  nlohmann::json clusters = nlohmann::json::array();
  for (size_t c = 0; c < lowered->clusters.size(); ++c) {
    const Cluster& cluster = lowered->partition.clusters[c];
    const ir::LoweredCluster& lc = lowered->clusters[c];
    const std::vector<std::string> nodes = ClusterNodeNames(*graph, cluster);
    absl::StatusOr<codegen::KernelSource> kernel = codegen::GenerateKernel(
        lc, {.name = absl::StrCat("dfc_cluster_", c), .nodes = nodes, .profile = *profile});
    if (!kernel.ok()) {
      return ReportError(absl::Status(kernel.status().code(),
                                      absl::StrCat("cluster ", c, " (", absl::StrJoin(nodes, ", "),
                                                   "): ", kernel.status().message())));
    }
    const std::string file = absl::StrCat("kernels/cluster_", c, ".cl");
    std::ofstream((out / file).string()) << kernel->source;
    nlohmann::json inputs = nlohmann::json::array(), outputs = nlohmann::json::array();
    const auto& lambda = static_cast<const ir::Lambda&>(*lc.lambda);
    for (size_t k = 0; k < lc.params.size(); ++k) {
      inputs.push_back(TensorJson(lc.params[k], lambda.params[k]->type));
    }
    for (size_t k = 0; k < lc.outputs.size(); ++k) {
      outputs.push_back(TensorJson(lc.outputs[k], lc.output_types[k]));
    }
    nlohmann::json temporaries = nlohmann::json::array(), stages = nlohmann::json::array();
    for (const ir::TypePtr& t : kernel->temporaries) temporaries.push_back(ir::TypeToString(t));
    for (const codegen::KernelStage& stage : kernel->stages) {
      std::vector<std::string> rows;
      for (const ArithExpr& r : stage.rows) rows.push_back(r.ToString());
      stages.push_back(
          nlohmann::json{{"kernel", stage.name},
                         {"global_size", absl::StrCat("max(1, ", absl::StrJoin(rows, ", "), ")")},
                         {"work_group_size", stage.work_group_size}});
    }
    clusters.push_back(nlohmann::json{{"cluster", c},
                                      {"nodes", nodes},
                                      {"source", file},
                                      {"inputs", inputs},
                                      {"outputs", outputs},
                                      {"temporaries", temporaries},
                                      {"size_arguments", kernel->size_args},
                                      {"kernels", stages}});
  }
  nlohmann::json host = nlohmann::json::array(), schedule = nlohmann::json::array();
  for (const ExecutionUnit& unit : lowered->partition.schedule) {
    if (unit.node >= 0) {
      const Node& node = graph->node(unit.node);
      host.push_back(absl::StrCat(node.name, " (", node.op, ")"));
      schedule.push_back(nlohmann::json{{"host", node.name}});
    } else {
      schedule.push_back(nlohmann::json{{"cluster", unit.cluster}});
    }
  }
  nlohmann::json sizes = nlohmann::json::array();
  for (const SizeVariable& var : lowered->fold.size_variables) {
    sizes.push_back(nlohmann::json{
        {"name", var.name}, {"placeholder", var.placeholder}, {"dimension", var.dim}});
  }
  nlohmann::json fetch_names = nlohmann::json::array();
  for (const TensorId& id : fetches) fetch_names.push_back(id.ToString());
  std::ofstream plan((out / "plan.json").string());
  plan << DumpJson({{"graph", fs::absolute(path).string()},
                    {"device", {{"profile", profile->name}, {"description", profile->description}}},
                    {"fetches", fetch_names},
                    {"targets", targets},
                    {"size_variables", sizes},
                    {"clusters", clusters},
                    {"host_ops", host},
                    {"schedule", schedule}})
       << "\n";
  if (!plan) {
    return ReportError(absl::InvalidArgumentError(
        absl::StrCat((out / "plan.json").string(), ": cannot write the plan")));
  }
  std::cout << "compiled " << path << " for " << profile->name << ": " << lowered->clusters.size()
            << " clusters, " << host.size() << " host ops; wrote " << (out / "plan.json").string()
            << " and " << lowered->clusters.size() << " kernel files\n";
  return kExitOk;
}

}  // namespace dfc::cli
