// dfc's fuzz targets (see fuzz_targets.h).
#include "tests/fuzz/fuzz_targets.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "graph/dtype.h"
#include "graph/loader.h"
#include "graph/npy.h"
#include "graph/saved_model.h"
#include "rewrite/device_profile.h"
#include "runtime/compare.h"
#include "runtime/device_executor.h"
#include "runtime/interpreted.h"
#include "runtime/plan.h"
#include "runtime/reference/session.h"
#include "runtime/translate_for_feeds.h"
#include "tests/fuzz/graph_gen.h"
#include "tools/cli.h"

namespace dfc::fuzz {
namespace {

absl::string_view View(const uint8_t* data, size_t size) {
  return absl::string_view(reinterpret_cast<const char*>(data), size);
}

// Everything after the parse: validation, pruning, folding, partitioning, translation and code
// generation. Any of them may refuse the graph; none may crash on it.
std::string LoadAndCompile(absl::string_view bytes) {
  absl::StatusOr<Graph> graph = ParseGraph(bytes, "fuzz input");
  if (!graph.ok()) return "";
  absl::StatusOr<rewrite::DeviceProfile> profile = rewrite::NamedProfile("amd");
  if (!profile.ok()) return absl::StrCat("no amd profile: ", profile.status().message());
  PlanSpec spec{.profile = *profile};
  cli::DefaultFetches(*graph, spec.fetches, spec.targets);
  for (std::string& node : SplitInitialisers(*graph, spec.targets)) {
    spec.init.push_back(std::move(node));
  }
  absl::StatusOr<Plan> plan = CompilePlan(std::make_shared<const Graph>(*std::move(graph)), spec);
  (void)plan;
  return "";
}

// The largest magnitude in `t` (0 for an empty tensor; NaN counts as 0: compared separately).
double MaxMagnitude(const Tensor& t) {
  double m = 0;
  for (float x : t.flat<float>()) {
    if (std::isfinite(x)) m = std::max(m, static_cast<double>(std::fabs(x)));
  }
  return m;
}

// The device every GraphDiff run uses, opened once. Null, with a message, if there is none.
struct Device {
  std::shared_ptr<cl::ClContext> context;
  std::string error;
};
const Device& TheDevice() {
  static const Device device = [] {
    Device d;
    absl::StatusOr<std::unique_ptr<DeviceExecutor>> opened = DeviceExecutor::Open("auto", -1, {});
    if (!opened.ok()) {
      d.error = std::string(opened.status().message());
    } else {
      d.context = (*opened)->context();
    }
    return d;
  }();
  return device;
}

}  // namespace

std::string GraphDiff(const uint8_t* data, size_t size) {
  Choices choices(data, size);
  const GeneratedGraph generated = GenerateGraph(choices);
  auto defect = [&](absl::string_view what) {
    return absl::StrCat(what, "\nthe graph:\n", generated.text);
  };
  absl::StatusOr<Graph> parsed = ParseGraph(generated.text, "generated graph");
  if (!parsed.ok()) return defect(absl::StrCat("the loader refuses: ", parsed.status().message()));
  const auto graph = std::make_shared<const Graph>(*std::move(parsed));

  // The reference's value of every node, for the fetches and for their scales.
  const std::vector<Feed>& feeds = generated.feeds;
  std::vector<std::string> names;
  for (const GeneratedNode& node : generated.nodes) names.push_back(node.name);
  reference::Session session(graph);
  absl::StatusOr<std::vector<Tensor>> all = session.Run(feeds, names);
  if (!all.ok()) return defect(absl::StrCat("the reference fails: ", all.status().message()));
  // A value's scale: the largest magnitude in it or in anything it was computed from. Where
  // two implementations round differently, the difference is relative to that, not to the
  // value (Sub of two close values, a sum that cancels).
  absl::flat_hash_map<std::string, double> scale;
  absl::flat_hash_map<std::string, const Tensor*> reference_value;
  for (size_t k = 0; k < names.size(); ++k) {
    double s = 1;
    if ((*all)[k].dtype() == DType::kFloat) s = std::max(s, MaxMagnitude((*all)[k]));
    for (const std::string& input : generated.nodes[k].inputs) s = std::max(s, scale[input]);
    scale[names[k]] = s;
    reference_value[names[k]] = &(*all)[k];
  }

  std::vector<TensorId> fetches;
  for (const std::string& name : generated.fetches) fetches.push_back({name, 0});
  absl::StatusOr<ir::TranslatedGraph> translated = TranslateForFeeds(*graph, fetches, feeds);
  if (!translated.ok())
    return defect(absl::StrCat("translation fails: ", translated.status().message()));

  // Tolerance: the three differ in the order of sums (a reordered sum of n terms moves by
  // about sqrt(n) ulps of its terms' magnitude, n <= 4096 here) and in libm (OpenCL allows 3
  // to 5 ulps for exp, log, tanh, sinh...), compounded over chains of at most about 20 ops:
  // a few hundred ulps of the scale at worst, under 1e-4 of it (an ulp is 6e-8).
  auto compare = [&](const char* who, const std::vector<Tensor>& got) -> std::string {
    for (size_t k = 0; k < fetches.size(); ++k) {
      const std::string& name = generated.fetches[k];
      const Tolerance tolerance{.rtol = 1e-4, .atol = 1e-4 * scale[name]};
      const Comparison c = CompareTensors(got[k], *reference_value[name], tolerance);
      if (!c.equal)
        return defect(
            absl::StrCat(who, " differs from the reference at \"", name, "\": ", c.reason));
    }
    return "";
  };
  absl::StatusOr<std::vector<Tensor>> interpreted =
      RunInterpreted(*graph, *translated, feeds, fetches);
  if (!interpreted.ok()) {
    return defect(absl::StrCat("the interpreter fails: ", interpreted.status().message()));
  }
  if (std::string d = compare("the interpreter", *interpreted); !d.empty()) return d;

  const Device& device = TheDevice();
  if (device.context == nullptr) return absl::StrCat("no OpenCL device: ", device.error);
  std::ostringstream warnings;
  // A program cache of its own, so that a long run does not keep every kernel it ever built in
  // memory (the one on disk still spares rebuilding a kernel an earlier input made).
  DeviceExecutor executor(device.context, std::make_shared<cl::ProgramCache>(device.context),
                          {.warnings = &warnings});
  absl::StatusOr<std::vector<Tensor>> ran = executor.Run(*graph, *translated, feeds, fetches);
  if (!ran.ok()) return defect(absl::StrCat("the device run fails: ", ran.status().message()));
  // A kernel the code generator declines is a documented fallback; one it made that the
  // device cannot build or launch is a defect of the generated code.
  if (executor.fallbacks() > 0 && warnings.str().find("not supported") == std::string::npos) {
    return defect(absl::StrCat("a kernel failed on the device: ", warnings.str()));
  }
  return compare("the device", *ran);
}

std::string GraphDefBinary(const uint8_t* data, size_t size) {
  const absl::string_view bytes = View(data, size);
  if (DetectFormat(bytes) != GraphFormat::kBinary) return "";
  return LoadAndCompile(bytes);
}

std::string GraphDefText(const uint8_t* data, size_t size) {
  const absl::string_view bytes = View(data, size);
  if (DetectFormat(bytes) != GraphFormat::kText) return "";
  return LoadAndCompile(bytes);
}

std::string Npy(const uint8_t* data, size_t size) {
  absl::StatusOr<Tensor> tensor = ParseNpy(View(data, size), "fuzz input");
  if (!tensor.ok()) return "";
  if (!IsSupported(tensor->dtype())) return "parsed to a dtype dfc cannot write";
  // What dfc writes it must read back as the same tensor.
  const std::string written = SerializeNpy(*tensor);
  absl::StatusOr<Tensor> again = ParseNpy(written, "rewritten");
  if (!again.ok()) return absl::StrCat("a written .npy does not parse: ", again.status().message());
  if (!again->BitwiseEqual(*tensor)) return "a written .npy parses to another tensor";
  return "";
}

std::string SavedModelFiles(const uint8_t* data, size_t size) {
  // One directory a process, holding the zoo model's files; each input replaces one of them.
  // It goes when the process exits.
  struct Scratch {
    std::filesystem::path path;
    ~Scratch() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Scratch scratch{[] {
    const std::filesystem::path zoo =
        std::filesystem::path(DFC_SHARED_DIR) / "zoo" / "savedmodel_lexci_cnn";
    const std::filesystem::path d =
        std::filesystem::temp_directory_path() / absl::StrCat("dfc-fuzz-saved-model-", ::getpid());
    std::filesystem::create_directories(d / "variables");
    for (const char* file : {"saved_model.pb", "variables/variables.index",
                             "variables/variables.data-00000-of-00001"}) {
      std::filesystem::copy_file(zoo / file, d / file,
                                 std::filesystem::copy_options::overwrite_existing);
    }
    return d;
  }()};
  const std::filesystem::path& dir = scratch.path;
  static const std::string pristine_model = *ReadFile((dir / "saved_model.pb").string());
  static const std::string pristine_index = *ReadFile((dir / "variables/variables.index").string());
  const absl::string_view bytes = View(data, size);
  constexpr absl::string_view kMagic("\x57\xfb\x80\x8b\x24\x75\x47\xdb", 8);
  const bool index = bytes.size() >= 8 && bytes.substr(bytes.size() - 8) == kMagic;
  std::ofstream((dir / "saved_model.pb").string(), std::ios::binary | std::ios::trunc)
      << (index ? absl::string_view(pristine_model) : bytes);
  std::ofstream((dir / "variables/variables.index").string(), std::ios::binary | std::ios::trunc)
      << (index ? bytes : absl::string_view(pristine_index));
  absl::StatusOr<SavedModel> model = LoadSavedModel(dir.string());
  if (!model.ok()) return "";
  if (!model->restore_op.empty() && model->graph.FindNode(model->restore_op) == nullptr) {
    return "the restore op is no node of the loaded graph";
  }
  return "";
}

const std::vector<Target>& Targets() {
  static const std::vector<Target> targets = {
      {"graphdef_binary", GraphDefBinary}, {"graphdef_text", GraphDefText},  {"npy", Npy},
      {"graph_diff", GraphDiff},           {"saved_model", SavedModelFiles},
  };
  return targets;
}

}  // namespace dfc::fuzz
