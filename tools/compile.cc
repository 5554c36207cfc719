// `dfc compile`: compiles a graph for a device, ahead of time, into a plan (runtime/plan.h):
// DIR/plan.json says what runs where (clusters, their kernels, arguments, launch sizes, size
// variables, host ops), DIR/kernels/*.cl holds the OpenCL C of each cluster, and `dfc run DIR`
// runs it. The device need not be present.
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/status.h"
#include "graph/loader.h"
#include "rewrite/device_profile.h"
#include "runtime/device_executor.h"
#include "runtime/open_model.h"
#include "runtime/opencl/device.h"
#include "runtime/plan.h"
#include "runtime/tune.h"
#include "runtime/tuning_db.h"
#include "tools/cli.h"

namespace dfc::cli {
namespace {

namespace fs = std::filesystem;

constexpr char kCompileUsage[] =
    "usage: dfc compile GRAPH|SAVED_MODEL_DIR --device D -o DIR [--fetch T[,T...]]\n"
    "                   [--target NODE]... [--init NODE]... [--init-variables]\n"
    "                   [--shape NAME=[d,...]]... [--signature NAME]\n"
    "                   [--tune [--batch N] [--budget SECONDS]] [--tuning-db FILE]\n"
    "  SAVED_MODEL_DIR  a SavedModel: the plan restores its variables when it opens, and\n"
    "            compiles the signature's outputs (--fetch and --shape may name its keys)\n"
    "  --device  amd|nvidia|intel|arm|cpu (a profile: no such device needs to be present), or\n"
    "            auto|gpu for the OpenCL device present\n"
    "  -o, --out the directory to write plan.json, kernels/*.cl and a copy of the graph to\n"
    "  --fetch   the tensors to compile for; with no --fetch and no --target, everything the\n"
    "            graph computes, its initialisers (the `init` of a training graph) apart\n"
    "  --target  a node every run runs for its effect (a train op); repeatable\n"
    "  --init    a node run once when the plan is opened (an initialiser); repeatable\n"
    "  --init-variables  every variable's initialiser (VAR/Assign) is one, for a graph a\n"
    "            checkpoint would restore (an exported SavedModel's)\n"
    "  --shape   a shape for a placeholder declared without one, e.g. --shape 'x=[?,784]'\n"
    "  --tune    time the variants the rewrite rules make of each cluster on the device\n"
    "            --device names (one present: auto, gpu, cpu, amd...), with random feeds at\n"
    "            --batch N (default 1024), for at most --budget seconds (default 300); keep\n"
    "            the fastest that agrees with the reference, and record it in the tuning\n"
    "            database (--tuning-db FILE, default DFC_TUNING_DB or the program cache's\n"
    "            tuning.json). Without --tune, a cluster the database knows for a device of\n"
    "            that kind present here takes its recorded variant (at --batch's bucket if\n"
    "            given, else the largest recorded).\n";

absl::StatusOr<rewrite::DeviceProfile> ProfileFor(const std::string& device) {
  if (device == "auto" || device == "gpu") {
    DFC_ASSIGN_OR_RETURN(cl::DeviceInfo info, cl::SelectDevice(device));
    return ProfileOf(info);
  }
  return rewrite::NamedProfile(device);
}

}  // namespace

std::vector<FlagSpec> CompileFlags() {
  return {{"device", true},       {"out", true},        {"fetch", true, true},
          {"target", true, true}, {"init", true, true}, {"init-variables"},
          {"shape", true, true},  {"signature", true},  {"tune"},
          {"batch", true},        {"budget", true},     {"tuning-db", true}};
}

absl::Status CompileWithArgs(const Args& args, std::ostream& out, std::ostream* progress) {
  if (args.positional.size() != 1) return UsageError("expected one GRAPH");
  if (!args.Has("out")) return UsageError("give the output directory with -o DIR");
  const std::string device = args.Get("device", "auto");
  int64_t batch = 1024;
  if (args.Has("batch") && (!absl::SimpleAtoi(args.Get("batch"), &batch) || batch < 1)) {
    return UsageError("--batch takes a size >= 1");
  }
  TuneOptions tune{.progress = progress,
                   .progress_bar = progress == &std::cerr && isatty(STDERR_FILENO) != 0};
  if (args.Has("budget") && !absl::SimpleAtod(args.Get("budget"), &tune.budget_seconds)) {
    return UsageError("--budget takes seconds");
  }
  absl::StatusOr<TuningDb> db = TuningDb::Load(args.Get("tuning-db", DefaultTuningDbPath()));
  if (!db.ok()) return db.status();
  // The device tuning runs on (--tune), or whose recorded variants a compile takes: one of the
  // kind --device names, if one is present.
  std::unique_ptr<DeviceExecutor> executor;
  if (args.Has("tune")) {
    absl::StatusOr<std::unique_ptr<DeviceExecutor>> opened = OpenDeviceExecutor(args, {});
    if (!opened.ok()) return opened.status();
    executor = *std::move(opened);
  }
  std::string tuned_device;
  if (executor != nullptr) {
    tuned_device = executor->device_name();
  } else if (!db->entries().empty()) {
    if (absl::StatusOr<cl::DeviceInfo> present = cl::SelectDevice(device); present.ok()) {
      tuned_device = present->device_name;
    }
  }
  absl::StatusOr<rewrite::DeviceProfile> profile =
      executor != nullptr ? executor->profile() : ProfileFor(device);
  if (!profile.ok()) return profile.status();

  const std::string& path = args.positional[0];
  DFC_ASSIGN_OR_RETURN(const OpenModel model,
                       OpenModel::Open(path, args.Get("signature", "serving_default")));
  if (model.is_plan()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path,
                     " is a directory but no SavedModel: dfc compile takes a GraphDef "
                     "(.pb, .pbtxt) or a SavedModel directory"));
  }
  const std::shared_ptr<const Graph>& graph = model.graph();
  PlanSpec spec{.targets = args.All("target"), .init = args.All("init"), .profile = *profile};
  absl::StatusOr<std::vector<TensorId>> fetches = FetchList(args);
  if (!fetches.ok()) return UsageError(fetches.status().message());
  spec.fetches = *std::move(fetches);
  std::vector<Feed> no_feeds;
  model.UseSignatureNames(no_feeds, spec.fetches);
  spec.init.insert(spec.init.begin(), model.inits().begin(), model.inits().end());
  if (spec.fetches.empty() && spec.targets.empty()) {
    DefaultFetches(*graph, spec.fetches, spec.targets);
    for (std::string& node : SplitInitialisers(*graph, spec.targets)) {
      spec.init.push_back(std::move(node));
    }
  }
  if (absl::Status added = AddVariableInitialisers(args, *graph, spec.init); !added.ok()) {
    return added;
  }
  for (const std::string& shape : args.All("shape")) {
    absl::StatusOr<absl::flat_hash_map<std::string, PartialShape>> parsed = ParseShapes(shape);
    if (!parsed.ok()) return UsageError(parsed.status().message());
    for (auto& [name, s] : *parsed) {
      std::string placeholder = name;
      if (const Signature* signature = model.signature()) {  // a key names its placeholder
        for (const SignatureTensor& in : signature->inputs) {
          if (in.key == name) placeholder = in.tensor.node;
        }
      }
      spec.placeholder_shapes[placeholder] = s;
    }
  }
  absl::StatusOr<Plan> plan = CompilePlan(graph, spec);
  if (!plan.ok()) return plan.status();
  if (executor != nullptr) {
    tune.explore.vector_widths = VectorWidths(executor->profile());
    absl::StatusOr<std::vector<Feed>> feeds =
        RandomFeeds(*graph, batch, {}, spec.placeholder_shapes);
    if (!feeds.ok()) return feeds.status();
    absl::StatusOr<std::vector<ClusterTuning>> tunings = TunePlan(*plan, *executor, *feeds, tune);
    if (!tunings.ok()) return tunings.status();
    for (const ClusterTuning& t : *tunings) {
      const VariantResult& best = t.variants[t.best];
      db->Record(RecordedChoice(*plan, t, tuned_device, SizeBucket(batch)));
      out << "cluster " << t.cluster << ": " << best.name << ", "
          << absl::StrFormat("%.3f ms (default %.3f ms) at batch %d", best.median_ms,
                             t.variants[0].median_ms, batch)
          << "\n";
    }
    if (absl::Status saved = db->Save(); !saved.ok()) return saved;
    out << "recorded in " << db->path() << "\n";
  } else if (!tuned_device.empty()) {
    // Variants tuned earlier for this device.
    absl::StatusOr<int> taken = TakeRecordedVariants(
        *db, tuned_device, args.Has("batch") ? std::optional(SizeBucket(batch)) : std::nullopt,
        *plan, progress);
    if (!taken.ok()) return taken.status();
    if (*taken > 0) {
      out << *taken << " clusters take their tuned variant from " << db->path() << "\n";
    }
  }
  const fs::path dir = args.Get("out");
  if (absl::Status written = WritePlan(*plan, path, dir); !written.ok()) {
    return written;
  }
  // Nodes the translation folded are host units that take their folded values, not ops run.
  int host_ops = 0, folded = 0;
  for (const ExecutionUnit& unit : plan->translated.partition.schedule) {
    if (unit.node >= 0) ++(plan->translated.fold.folded[unit.node] ? folded : host_ops);
  }
  out << "compiled " << path << " for " << profile->name << ": " << plan->kernels.size()
      << " clusters, " << host_ops << " host ops, " << folded << " nodes folded; wrote "
      << (dir / "plan.json").string() << " and " << plan->kernels.size() << " kernel files\n";
  if (!plan->spec.init.empty()) {
    out << "initialisers, run when the plan is opened: " << absl::StrJoin(plan->spec.init, ", ")
        << "\n";
  }
  return absl::OkStatus();
}

int Compile(const std::vector<std::string>& argv_in) {
  std::vector<std::string> argv = argv_in;
  for (std::string& a : argv) {
    if (a == "-o") a = "--out";
  }
  absl::StatusOr<Args> args = ParseArgs(argv, CompileFlags());
  if (!args.ok()) return ReportUsage(std::string(args.status().message()), kCompileUsage);
  if (absl::Status s = CompileWithArgs(*args, std::cout, &std::cerr); !s.ok()) {
    return IsUsageError(s) ? ReportUsage(std::string(s.message()), kCompileUsage) : ReportError(s);
  }
  return kExitOk;
}

}  // namespace dfc::cli
