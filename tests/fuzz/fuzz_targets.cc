// dfc's fuzz targets (see fuzz_targets.h).
#include "tests/fuzz/fuzz_targets.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "codegen/device_profile.h"
#include "graph/dtype.h"
#include "graph/loader.h"
#include "graph/npy.h"
#include "runtime/plan.h"
#include "tools/cli.h"

namespace dfc::fuzz {
namespace {

absl::string_view View(const uint8_t* data, size_t size) {
  return absl::string_view(reinterpret_cast<const char*>(data), size);
}

// Everything after the parse: validation, pruning, folding, partitioning, lowering and code
// generation. Any of them may refuse the graph; none may crash on it.
std::string LoadAndCompile(absl::string_view bytes) {
  absl::StatusOr<Graph> graph = ParseGraph(bytes, "fuzz input");
  if (!graph.ok()) return "";
  absl::StatusOr<codegen::DeviceProfile> profile = codegen::NamedProfile("amd");
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

}  // namespace

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

const std::vector<Target>& Targets() {
  static const std::vector<Target> targets = {
      {"graphdef_binary", GraphDefBinary},
      {"graphdef_text", GraphDefText},
      {"npy", Npy},
  };
  return targets;
}

}  // namespace dfc::fuzz
