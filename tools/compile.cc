// `dfc compile`: compiles a graph for a device, ahead of time, into a plan (runtime/plan.h):
// DIR/plan.json says what runs where (clusters, their kernels, arguments, launch sizes, size
// variables, host ops), DIR/kernels/*.cl holds the OpenCL C of each cluster, and `dfc run DIR`
// runs it. The device need not be present.
#include <filesystem>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "codegen/device_profile.h"
#include "graph/loader.h"
#include "runtime/device_executor.h"
#include "runtime/opencl/device.h"
#include "runtime/plan.h"
#include "tools/cli.h"

namespace dfc::cli {
namespace {

namespace fs = std::filesystem;

constexpr char kUsage[] =
    "usage: dfc compile GRAPH --device D -o DIR [--fetch T[,T...]] [--target NODE]...\n"
    "                   [--init NODE]... [--shape NAME=[d,...]]...\n"
    "  --device  amd|nvidia|intel|arm|cpu (a profile: no such device needs to be present), or\n"
    "            auto|gpu for the OpenCL device present\n"
    "  -o, --out the directory to write plan.json, kernels/*.cl and a copy of the graph to\n"
    "  --fetch   the tensors to compile for; with no --fetch and no --target, everything the\n"
    "            graph computes, its initialisers (the `init` of a training graph) apart\n"
    "  --target  a node every run runs for its effect (a train op); repeatable\n"
    "  --init    a node run once when the plan is opened (an initialiser); repeatable\n"
    "  --shape   a shape for a placeholder declared without one, e.g. --shape 'x=[?,784]'\n";

absl::StatusOr<codegen::DeviceProfile> ProfileFor(const std::string& device) {
  if (device == "auto" || device == "gpu") {
    DFC_ASSIGN_OR_RETURN(cl::DeviceInfo info, cl::SelectDevice(device));
    return ProfileOf(info);
  }
  return codegen::NamedProfile(device);
}

}  // namespace

int Compile(const std::vector<std::string>& argv_in) {
  std::vector<std::string> argv = argv_in;
  for (std::string& a : argv) {
    if (a == "-o") a = "--out";
  }
  absl::StatusOr<Args> args = ParseArgs(argv, {{"device", true},
                                               {"out", true},
                                               {"fetch", true, true},
                                               {"target", true, true},
                                               {"init", true, true},
                                               {"shape", true, true}});
  if (!args.ok()) return ReportUsage(std::string(args.status().message()), kUsage);
  if (args->positional.size() != 1) return ReportUsage("expected one GRAPH", kUsage);
  if (!args->Has("out")) return ReportUsage("give the output directory with -o DIR", kUsage);
  const std::string device = args->Get("device", "auto");
  absl::StatusOr<codegen::DeviceProfile> profile = ProfileFor(device);
  if (!profile.ok()) return ReportError(profile.status());

  const std::string& path = args->positional[0];
  absl::StatusOr<Graph> graph = LoadGraph(path);
  if (!graph.ok()) return ReportError(graph.status());
  PlanSpec spec{.targets = args->All("target"), .init = args->All("init"), .profile = *profile};
  for (const std::string& list : args->All("fetch")) {
    for (absl::string_view name : absl::StrSplit(list, ',', absl::SkipEmpty())) {
      absl::StatusOr<TensorId> id = TensorId::Parse(name);
      if (!id.ok()) return ReportUsage(std::string(id.status().message()), kUsage);
      spec.fetches.push_back(*id);
    }
  }
  if (spec.fetches.empty() && spec.targets.empty()) {
    DefaultFetches(*graph, spec.fetches, spec.targets);
    for (std::string& node : SplitInitialisers(*graph, spec.targets)) {
      spec.init.push_back(std::move(node));
    }
  }
  for (const std::string& shape : args->All("shape")) {
    absl::StatusOr<absl::flat_hash_map<std::string, PartialShape>> parsed = ParseShapes(shape);
    if (!parsed.ok()) return ReportUsage(std::string(parsed.status().message()), kUsage);
    for (auto& [name, s] : *parsed) spec.placeholder_shapes[name] = s;
  }
  absl::StatusOr<Plan> plan =
      CompilePlan(std::make_shared<const Graph>(*std::move(graph)), std::move(spec));
  if (!plan.ok()) return ReportError(plan.status());
  const fs::path out = args->Get("out");
  if (absl::Status written = WritePlan(*plan, path, out); !written.ok()) {
    return ReportError(written);
  }
  int host_ops = 0;
  for (const ExecutionUnit& unit : plan->lowered.partition.schedule) host_ops += unit.node >= 0;
  std::cout << "compiled " << path << " for " << profile->name << ": " << plan->kernels.size()
            << " clusters, " << host_ops << " host ops; wrote " << (out / "plan.json").string()
            << " and " << plan->kernels.size() << " kernel files\n";
  if (!plan->spec.init.empty()) {
    std::cout << "initialisers, run when the plan is opened: "
              << absl::StrJoin(plan->spec.init, ", ") << "\n";
  }
  return kExitOk;
}

}  // namespace dfc::cli
