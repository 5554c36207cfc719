// `dfc conformance DIR`: runs every TensorFlow-made case folder in DIR (graph.pb,
// manifest.json, inputs/*.npy, expected/*.npy; see ../shared/conformance/README.md) and
// compares each output with TensorFlow's at runtime/compare.h's stated tolerance.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <regex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "codegen/kernel_gen.h"
#include "graph/loader.h"
#include "graph/npy.h"
#include "graph/ops.h"
#include "ir/from_tf/cluster.h"
#include "nlohmann/json.hpp"
#include "runtime/compare.h"
#include "runtime/compile.h"
#include "runtime/device_executor.h"
#include "runtime/interpreted.h"
#include "runtime/plan.h"
#include "runtime/reference/session.h"
#include "runtime/translate_for_feeds.h"
#include "runtime/tune.h"
#include "tools/cli.h"

namespace dfc::cli {
namespace {

namespace fs = std::filesystem;

constexpr char kConformanceUsage[] =
    "usage: dfc conformance DIR [--reference | --interpret | --device D [--platform N]\n"
    "                           [--profile P | --tune]] [--json FILE] [--filter REGEX]\n"
    "  --reference      run on the host reference executor (the default for now)\n"
    "  --interpret      translate the graph to clusters of IR and run them with the IR "
    "interpreter\n"
    "                   (host ops on the reference executor); prints where device ops ran,\n"
    "                   and a device op left to run on the host fails the run (unless\n"
    "                   --allow-host-ops: for graphs whose device ops need what is known\n"
    "                   only at run time)\n"
    "  --device         run every cluster as a generated OpenCL kernel on device D\n"
    "                   (auto|cpu|gpu|amd|nvidia|intel|arm); a cluster whose kernel fails\n"
    "                   falls back to the host with a warning, and fails the run\n"
    "  --profile        generate the kernels for profile P (amd|nvidia|intel|arm|cpu) and run\n"
    "                   them on the device: another device's strategies checked here\n"
    "  --tune           with --device: tune each case's clusters first (runtime/tune.h: every\n"
    "                   variant of the rewrite rules checked against the reference executor,\n"
    "                   the fastest kept), then judge the tuned run against TensorFlow\n"
    "  --json           also write every case's result to FILE\n"
    "  --filter         only the cases whose folder name matches REGEX (search, not full match)\n";

struct CaseResult {
  std::string name;
  bool passed = false;
  std::string reason;  // the first failure
  double max_error = 0;
  // --interpret: where the device-placed nodes went, and why some stayed on the host.
  int device_nodes = 0, clustered = 0, folded = 0, device_on_host = 0, clusters = 0;
  std::vector<std::string> host_device_nodes;
  // --device: clusters run as kernels, and clusters whose kernel failed (run on the host).
  int64_t kernels = 0, fallbacks = 0;
  // --tune: clusters whose fastest correct variant was a rewritten one, and variants tried.
  int tuned = 0, variants = 0;
};

enum class Mode { kReference, kInterpret, kDevice };

// Translates the graph and runs clusters through the IR interpreter, or as kernels on `device`
// when it is given, recording the placement.
absl::StatusOr<std::vector<Tensor>> TranslateAndRun(const Graph& graph,
                                                    const std::vector<Feed>& feeds,
                                                    const std::vector<std::string>& fetch_names,
                                                    DeviceExecutor* device, bool tune,
                                                    CaseResult& result) {
  std::vector<TensorId> fetches;
  for (const std::string& name : fetch_names) {
    absl::StatusOr<TensorId> id = TensorId::Parse(name);
    if (!id.ok()) return id.status();
    fetches.push_back(*id);
  }
  // The case's inputs enter here: the one check of them, as a session's.
  if (absl::Status checked = CheckFeeds(graph, feeds); !checked.ok()) return checked;
  absl::StatusOr<ir::TranslatedGraph> translated = TranslateForFeeds(graph, fetches, feeds);
  if (!translated.ok()) return translated.status();
  result.device_nodes = translated->device_nodes;
  result.clustered = translated->clustered;
  result.folded = translated->folded;
  result.device_on_host = translated->device_on_host;
  result.clusters = static_cast<int>(translated->clusters.size());
  result.host_device_nodes = translated->host_device_nodes;
  if (device == nullptr) return RunInterpreted(graph, *translated, feeds, fetches);
  if (tune) {
    // Each cluster's variants, checked against the reference executor and timed; the fastest
    // is what the run below uses, and what TensorFlow's outputs then judge.
    Plan plan{.spec = {.fetches = fetches, .profile = device->profile()},
              .graph = std::make_shared<const Graph>(graph),
              .translated = *translated};
    bool generated = true;
    for (size_t c = 0; c < translated->clusters.size() && generated; ++c) {
      absl::StatusOr<ClusterKernel> kernel =
          CompileCluster(translated->clusters[c], {},
                         {.name = absl::StrCat("dfc_cluster_", c), .profile = device->profile()});
      generated = kernel.ok();
      if (generated) plan.kernels.push_back(std::move(kernel->source));
    }
    TuneOptions options{.warmup = 0, .runs = 1, .budget_seconds = 60};
    options.explore.vector_widths = VectorWidths(device->profile());
    options.explore.max_variants = 16;
    absl::StatusOr<std::vector<ClusterTuning>> tunings =
        generated ? TunePlan(plan, *device, feeds, options)
                  : absl::StatusOr<std::vector<ClusterTuning>>(std::vector<ClusterTuning>{});
    if (!tunings.ok()) return tunings.status();
    for (const ClusterTuning& t : *tunings) {
      result.tuned += t.best > 0;
      result.variants += static_cast<int>(t.variants.size());
    }
  }
  const int64_t kernels = device->kernels_run(), fallbacks = device->fallbacks();
  absl::StatusOr<std::vector<Tensor>> out = device->Run(graph, *translated, feeds, fetches);
  result.kernels = device->kernels_run() - kernels;
  result.fallbacks = device->fallbacks() - fallbacks;
  return out;
}

absl::StatusOr<nlohmann::json> ReadManifest(const fs::path& dir) {
  absl::StatusOr<std::string> text = ReadFile((dir / "manifest.json").string());
  if (!text.ok()) return text.status();
  nlohmann::json manifest = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (manifest.is_discarded() || !manifest.is_object() || !manifest["outputs"].is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(
        (dir / "manifest.json").string(), ": not a manifest (JSON object with \"outputs\")"));
  }
  return manifest;
}

CaseResult RunCase(const fs::path& dir, Mode mode, DeviceExecutor* device, bool tune) {
  CaseResult result{.name = dir.filename().string()};
  auto fail = [&](absl::string_view reason) {
    result.reason = std::string(reason);
    return result;
  };
  absl::StatusOr<nlohmann::json> manifest = ReadManifest(dir);
  if (!manifest.ok()) return fail(manifest.status().message());

  std::vector<Feed> feeds;
  if (manifest->contains("inputs") && (*manifest)["inputs"].is_object()) {
    for (const auto& [name, file] : (*manifest)["inputs"].items()) {
      if (!file.is_string()) return fail(absl::StrCat("input ", name, ": not a file name"));
      absl::StatusOr<Tensor> value = ReadNpy((dir / file.get<std::string>()).string());
      if (!value.ok()) return fail(value.status().message());
      absl::StatusOr<Feed> feed = ParseFeed(name, *std::move(value));
      if (!feed.ok()) return fail(feed.status().message());
      feeds.push_back(*std::move(feed));
    }
  }
  std::vector<std::string> fetches;
  std::vector<Tensor> expected;
  for (const auto& [name, file] : (*manifest)["outputs"].items()) {
    if (!file.is_string()) return fail(absl::StrCat("output ", name, ": not a file name"));
    absl::StatusOr<Tensor> value = ReadNpy((dir / file.get<std::string>()).string());
    if (!value.ok()) return fail(value.status().message());
    fetches.push_back(name);
    expected.push_back(*std::move(value));
  }

  absl::StatusOr<Graph> graph = LoadGraph((dir / "graph.pb").string());
  if (!graph.ok()) return fail(graph.status().message());
  // TensorFlow's Python client converts a fed array to its placeholder's dtype, and the suite
  // fed some float64 placeholders float32 arrays: fed so here too, the conversion made by the
  // reference Cast kernel. Such a case stored its outputs as float32 too.
  bool stored_as_float32 = false;
  auto cast = [](const Tensor& value, DType to) {
    Node node{
        .name = "conformance_cast", .op = "Cast", .attrs = {{"SrcT", value.dtype()}, {"DstT", to}}};
    return reference::EvaluateNode(node, {&value, 1});
  };
  for (Feed& feed : feeds) {
    const Node* placeholder = graph->FindNode(feed.id.node);
    if (placeholder == nullptr || placeholder->op != "Placeholder") continue;
    absl::StatusOr<DType> declared = placeholder->GetType("dtype");
    if (!declared.ok() || *declared == feed.value.dtype()) continue;
    stored_as_float32 |= feed.value.dtype() == DType::kFloat && *declared == DType::kDouble;
    absl::StatusOr<std::vector<Tensor>> converted = cast(feed.value, *declared);
    if (!converted.ok()) return fail(converted.status().message());
    feed.value = (*converted)[0];
  }
  absl::StatusOr<std::vector<Tensor>> actual;
  if (mode != Mode::kReference) {
    actual = TranslateAndRun(*graph, feeds, fetches, device, tune, result);
  } else {
    reference::Session session(std::make_shared<const Graph>(*std::move(graph)));
    actual = session.Run(feeds, fetches);
  }
  if (!actual.ok()) return fail(actual.status().message());

  for (size_t i = 0; i < fetches.size(); ++i) {
    if (stored_as_float32 && (*actual)[i].dtype() == DType::kDouble &&
        expected[i].dtype() == DType::kFloat) {
      absl::StatusOr<std::vector<Tensor>> narrowed = cast((*actual)[i], DType::kFloat);
      if (!narrowed.ok()) return fail(narrowed.status().message());
      (*actual)[i] = (*narrowed)[0];
    }
    const Comparison c =
        CompareTensors((*actual)[i], expected[i], TensorFlowTolerance(expected[i]));
    result.max_error = std::max(result.max_error, c.max_error);
    if (!c.equal) {
      return fail(absl::StrCat("output \"", fetches[i], "\": ", c.reason));
    }
  }
  result.passed = true;
  return result;
}

}  // namespace

int Conformance(const std::vector<std::string>& argv) {
  absl::StatusOr<Args> args = ParseArgs(argv, {{"reference"},
                                               {"interpret"},
                                               {"device", true},
                                               {"platform", true},
                                               {"profile", true},
                                               {"json", true},
                                               {"filter", true},
                                               {"tune"},
                                               {"allow-host-ops"}});
  if (!args.ok()) return ReportUsage(std::string(args.status().message()), kConformanceUsage);
  if (args->Has("reference") + args->Has("interpret") + args->Has("device") > 1) {
    return ReportUsage("--reference, --interpret and --device exclude each other",
                       kConformanceUsage);
  }
  if (args->Has("profile") && !args->Has("device")) {
    return ReportUsage("--profile goes with --device", kConformanceUsage);
  }
  if (args->Has("tune") && (!args->Has("device") || args->Has("profile"))) {
    return ReportUsage("--tune goes with --device (and not --profile)", kConformanceUsage);
  }
  const Mode mode = args->Has("interpret") ? Mode::kInterpret
                    : args->Has("device")  ? Mode::kDevice
                                           : Mode::kReference;
  std::unique_ptr<DeviceExecutor> device;
  if (mode == Mode::kDevice) {
    // The device computes what a case's constants feed, which is what the case tests.
    DeviceExecutor::Options options{.warnings = &std::cerr, .folding = Folding::kStatic};
    if (args->Has("profile")) {
      absl::StatusOr<rewrite::DeviceProfile> profile = rewrite::NamedProfile(args->Get("profile"));
      if (!profile.ok()) return ReportError(profile.status());
      options.profile = *std::move(profile);
    }
    absl::StatusOr<std::unique_ptr<DeviceExecutor>> opened =
        OpenDeviceExecutor(*args, std::move(options));
    if (!opened.ok()) return ReportError(opened.status());
    device = *std::move(opened);
  }
  if (args->positional.size() != 1) return ReportUsage("expected one DIR", kConformanceUsage);
  const fs::path root = args->positional[0];
  std::regex filter;
  try {
    filter = std::regex(args->Get("filter", ""));
  } catch (const std::regex_error& e) {
    return ReportUsage(absl::StrCat("--filter is not a valid regular expression: ", e.what()),
                       kConformanceUsage);
  }

  std::error_code error;
  std::vector<fs::path> cases;
  for (const fs::directory_entry& entry : fs::directory_iterator(root, error)) {
    if (entry.is_directory() && fs::exists(entry.path() / "manifest.json") &&
        std::regex_search(entry.path().filename().string(), filter)) {
      cases.push_back(entry.path());
    }
  }
  if (error) {
    return ReportError(absl::NotFoundError(
        absl::StrCat(root.string(), ": cannot list the directory: ", error.message())));
  }
  std::sort(cases.begin(), cases.end());

  int passed = 0;
  int failed = 0;
  int device_nodes = 0, clustered = 0, folded = 0, device_on_host = 0, clusters = 0;
  int64_t kernels = 0, fallbacks = 0;
  int tuned = 0, variants = 0;
  nlohmann::json report = nlohmann::json::array();
  for (const fs::path& dir : cases) {
    const CaseResult r = RunCase(dir, mode, device.get(), args->Has("tune"));
    tuned += r.tuned;
    variants += r.variants;
    device_nodes += r.device_nodes;
    clustered += r.clustered;
    folded += r.folded;
    device_on_host += r.device_on_host;
    clusters += r.clusters;
    kernels += r.kernels;
    fallbacks += r.fallbacks;
    for (const std::string& host : r.host_device_nodes) {
      std::cout << "HOST " << r.name << ": " << host << "\n";
    }
    if (r.passed) {
      ++passed;
    } else {
      ++failed;
      std::cout << "FAIL " << r.name << ": " << r.reason << "\n";
    }
    report.push_back({{"case", r.name},
                      {"passed", r.passed},
                      {"reason", r.reason},
                      {"max_error", r.max_error},
                      {"device_nodes_in_clusters", r.clustered},
                      {"device_nodes_folded", r.folded},
                      {"device_nodes_on_host", r.device_on_host},
                      {"kernels", r.kernels},
                      {"clusters_on_host_after_kernel_failure", r.fallbacks}});
  }
  if (args->Has("json")) {
    std::ofstream out(args->Get("json"));
    out << DumpJson(nlohmann::json{{"mode", mode == Mode::kInterpret ? "interpret"
                                            : mode == Mode::kDevice  ? "device"
                                                                     : "reference"},
                                   {"passed", passed},
                                   {"failed", failed},
                                   {"cases", report}})
        << "\n";
    if (!out) {
      return ReportError(
          absl::InvalidArgumentError(absl::StrCat(args->Get("json"), ": cannot write the report")));
    }
  }
  if (mode != Mode::kReference) {
    std::cout << device_nodes << " device nodes: " << clustered << " in " << clusters
              << " clusters, " << folded << " folded at compile time, " << device_on_host
              << " left to run on the host\n";
  }
  if (mode == Mode::kDevice) {
    std::cout << kernels << " clusters ran as generated kernels on " << device->device_name()
              << "; " << fallbacks << " clusters fell back to the host\n";
  }
  if (args->Has("tune")) {
    std::cout << "tuned: " << variants << " variants tried (each checked against the reference "
              << "executor); " << tuned
              << " clusters ran a variant other than the default (rewritten, or another work-group "
                 "size)\n";
  }
  std::cout << passed << " passed, " << failed << " failed\n";
  const int host_failures = args->Has("allow-host-ops") ? 0 : device_on_host;
  return failed + host_failures + fallbacks == 0 ? kExitOk : kExitInput;
}

}  // namespace dfc::cli
