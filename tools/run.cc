// `dfc run`: runs a graph, or a plan `dfc compile` wrote, with feeds from .npy files, prints
// and optionally saves the fetched tensors. Clusters run as OpenCL kernels on the device
// (`--device`): generated for a graph, the plan's for a plan. Host ops run on the reference
// executor, variables live on the device; `--reference` runs everything on the reference
// executor.
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "graph/loader.h"
#include "graph/npy.h"
#include "runtime/device_session.h"
#include "runtime/open_model.h"
#include "runtime/plan.h"
#include "runtime/reference/session.h"
#include "tools/cli.h"

namespace dfc::cli {
namespace {

constexpr char kRunUsage[] =
    "usage: dfc run GRAPH|PLAN_DIR|SAVED_MODEL_DIR --fetch T[,T...] [--feed NAME=FILE.npy]...\n"
    "               [--target NODE]... [--init NODE]... [--init-variables] [--steps K]\n"
    "               [--out DIR] [--signature NAME] [--max-loop-iterations N]\n"
    "               [--device auto|cpu|gpu|amd|nvidia|intel|arm] [--platform N] [--reference]\n"
    "  PLAN_DIR  a plan from `dfc compile`: its kernels run, its initialisers run first, and\n"
    "            its fetches and its targets are the defaults of --fetch and --target\n"
    "  SAVED_MODEL_DIR  a SavedModel (saved_model.pb and variables/): its variables are\n"
    "            restored first, and feeds and fetches may be named by the signature's keys;\n"
    "            its outputs are the default fetches\n"
    "  --signature  the SavedModel's signature (default serving_default)\n"
    "  --fetch   tensors to compute and print (\"node\" or \"node:1\"); repeatable\n"
    "  --feed    a value for a tensor, from a .npy file; repeatable\n"
    "  --target  a node to run for its effect (a train op); repeatable\n"
    "  --init    a node to run once before the first step (an initialiser); repeatable\n"
    "  --init-variables  run every variable's initialiser (VAR/Assign) once first, for a\n"
    "            graph a checkpoint would restore (an exported SavedModel's)\n"
    "  --steps   run K times (training), printing the fetches of each step\n"
    "  --out     write each fetched tensor of the last step to DIR/<tensor>.npy\n"
    "  --device  the OpenCL device that runs the generated kernels (default auto: a GPU if\n"
    "            there is one, else the first device)\n"
    "  --platform  only devices of OpenCL platform N\n"
    "  --reference  run everything on the host reference executor (the oracle)\n"
    "  --max-loop-iterations N  a while loop that runs more iterations is an error\n"
    "            (default 1000000)\n";

// "a/b:1" -> "a__b_1.npy".
std::string OutputFileName(const std::string& tensor) {
  return absl::StrCat(absl::StrReplaceAll(tensor, {{"/", "__"}, {":", "_"}}), ".npy");
}

}  // namespace

int Run(const std::vector<std::string>& argv) {
  absl::StatusOr<Args> args = ParseArgs(argv, {{"fetch", true, true},
                                               {"feed", true, true},
                                               {"target", true, true},
                                               {"init", true, true},
                                               {"init-variables"},
                                               {"steps", true},
                                               {"out", true},
                                               {"device", true},
                                               {"platform", true},
                                               {"signature", true},
                                               {"reference"},
                                               {"max-loop-iterations", true}});
  if (!args.ok()) return ReportUsage(std::string(args.status().message()), kRunUsage);
  if (args->positional.size() != 1) return ReportUsage("expected one GRAPH or PLAN_DIR", kRunUsage);
  std::vector<std::string> fetches;
  for (const std::string& list : args->All("fetch")) {
    for (absl::string_view f : absl::StrSplit(list, ',', absl::SkipEmpty())) {
      fetches.emplace_back(f);
    }
  }
  std::vector<std::string> targets = args->All("target");
  const std::string& source = args->positional[0];
  absl::StatusOr<OpenModel> opened =
      OpenModel::Open(source, args->Get("signature", "serving_default"));
  if (!opened.ok()) return ReportError(opened.status());
  const OpenModel& model = *opened;
  const bool is_plan = model.is_plan();
  const bool saved_model = model.signature() != nullptr;
  if (fetches.empty() && targets.empty() && !is_plan && !saved_model) {
    return ReportUsage("give at least one --fetch or --target", kRunUsage);
  }
  absl::StatusOr<int> steps_flag = CountFlag(*args, "steps", 1, 1);
  if (!steps_flag.ok()) return ReportUsage(std::string(steps_flag.status().message()), kRunUsage);
  const int steps = *steps_flag;
  absl::StatusOr<std::vector<Feed>> read_feeds = ReadFeeds(*args);
  if (!read_feeds.ok()) return ReportFeedsError(read_feeds.status(), kRunUsage);
  std::vector<Feed> feeds = *std::move(read_feeds);
  // What each fetch is called where it is printed and written: a signature's key, if it has one.
  std::vector<std::string> shown;
  if (saved_model) {
    absl::StatusOr<std::vector<TensorId>> ids = FetchList(*args);
    if (!ids.ok()) return ReportUsage(std::string(ids.status().message()), kRunUsage);
    shown = model.UseSignatureNames(feeds, *ids);
    fetches.clear();
    for (const TensorId& id : *ids) fetches.push_back(id.ToString());
  }

  const bool on_device = !args->Has("reference");
  absl::StatusOr<int> max_iterations =
      CountFlag(*args, "max-loop-iterations", kDefaultMaxLoopIterations, 0);
  if (!max_iterations.ok()) {
    return ReportUsage(std::string(max_iterations.status().message()), kRunUsage);
  }
  std::shared_ptr<const Graph> graph;
  std::unique_ptr<DeviceSession> device;
  std::vector<std::string> inits = args->All("init");
  inits.insert(inits.begin(), model.inits().begin(), model.inits().end());
  std::optional<PlanSpec> plan;
  if (on_device) {
    absl::StatusOr<int> platform = PlatformIndex(*args);
    if (!platform.ok()) return ReportUsage(std::string(platform.status().message()), kRunUsage);
    DeviceSession::Options options{
        .device = args->Get("device", "auto"),
        .platform = *platform,
        .executor = {.warnings = &std::cerr, .max_loop_iterations = *max_iterations}};
    // A plan's initialisers run as it opens.
    absl::StatusOr<std::unique_ptr<DeviceSession>> session =
        model.NewDeviceSession(std::move(options));
    if (!session.ok()) return ReportError(session.status());
    device = *std::move(session);
    graph = device->graph();
    if (is_plan) plan = device->plan()->spec;
  } else if (is_plan) {
    absl::StatusOr<Plan> read = ReadPlan(source);
    if (!read.ok()) return ReportError(read.status());
    graph = read->graph;
    plan = read->spec;
    inits.insert(inits.begin(), plan->init.begin(), plan->init.end());
  } else {
    graph = model.graph();
  }
  if (absl::Status added = AddVariableInitialisers(*args, *graph, inits); !added.ok()) {
    return ReportError(added);
  }
  // A plan's fetches and targets are the defaults, each on its own: `--fetch Mean` still runs
  // the plan's training step.
  if (plan && fetches.empty()) {
    for (const TensorId& id : plan->fetches) fetches.push_back(id.ToString());
  }
  if (shown.empty()) shown = fetches;
  if (plan && !args->Has("target")) targets = plan->targets;

  // One step: fused kernels on the device, or the reference executor.
  std::function<absl::StatusOr<std::vector<Tensor>>()> run_step;
  std::function<absl::StatusOr<std::vector<Tensor>>()> run_init;
  reference::Session session(graph, {.max_loop_iterations = *max_iterations});
  if (device != nullptr) {
    run_init = [&] { return device->Run({}, {}, inits); };
    run_step = [&] { return device->Run(feeds, fetches, targets); };
  } else {
    run_init = [&] { return session.Run(feeds, {}, inits); };
    run_step = [&] { return session.Run(feeds, fetches, targets); };
  }
  if (!inits.empty()) {
    absl::StatusOr<std::vector<Tensor>> init = run_init();
    if (!init.ok()) {
      return ReportError(
          absl::Status(init.status().code(), absl::StrCat("--init: ", init.status().message())));
    }
  }

  std::vector<Tensor> results;
  for (int step = 1; step <= steps; ++step) {
    absl::StatusOr<std::vector<Tensor>> run = run_step();
    if (!run.ok()) {
      return ReportError(
          steps == 1 ? run.status()
                     : absl::Status(run.status().code(),
                                    absl::StrCat("step ", step, ": ", run.status().message())));
    }
    results = *std::move(run);
    const std::string prefix = steps > 1 ? absl::StrCat("step ", step, ": ") : "";
    for (size_t i = 0; i < fetches.size(); ++i) {
      std::cout << prefix << shown[i] << ": " << results[i].DebugType() << " "
                << results[i].Preview() << "\n";
    }
  }
  if (device != nullptr) {
    const cl::ProgramCache& cache = device->executor().program_cache();
    std::cerr << "dfc: ran " << device->executor().kernels_run() << " clusters as fused kernels on "
              << device->executor().device_name() << " (programs: " << cache.builds_from_source()
              << " built, " << cache.loads_from_disk() << " loaded from " << cache.cache_dir()
              << "; " << device->executor().kernels_generated() << " kernels generated)\n";
  }

  if (args->Has("out")) {
    const std::filesystem::path dir = args->Get("out");
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) {
      return ReportError(absl::InvalidArgumentError(
          absl::StrCat(dir.string(), ": cannot create the directory: ", error.message())));
    }
    for (size_t i = 0; i < fetches.size(); ++i) {
      const std::string path = (dir / OutputFileName(shown[i])).string();
      if (absl::Status s = WriteNpy(results[i], path); !s.ok()) return ReportError(s);
      std::cout << "wrote " << path << "\n";
    }
  }
  return kExitOk;
}

}  // namespace dfc::cli
