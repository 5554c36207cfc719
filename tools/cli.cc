// Argument parsing and error reporting for the dfc command line.
#include "tools/cli.h"

#include <cstdlib>
#include <iostream>
#include <random>
#include <set>

#include "absl/algorithm/container.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/status.h"
#include "graph/npy.h"
#include "graph/ops.h"
#include "runtime/plan.h"

namespace dfc::cli {

std::string Args::Get(const std::string& flag, const std::string& fallback) const {
  auto it = values.find(flag);
  return it == values.end() || it->second.empty() ? fallback : it->second.back();
}

const std::vector<std::string>& Args::All(const std::string& flag) const {
  static const std::vector<std::string> kNone;
  auto it = values.find(flag);
  return it == values.end() ? kNone : it->second;
}

absl::StatusOr<Args> ParseArgs(const std::vector<std::string>& argv,
                               const std::vector<FlagSpec>& specs) {
  Args args;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (!absl::StartsWith(arg, "--") || arg == "--") {
      args.positional.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::string value;
    bool has_inline_value = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_inline_value = true;
    }
    const FlagSpec* spec = nullptr;
    for (const FlagSpec& s : specs) {
      if (s.name == name) spec = &s;
    }
    if (spec == nullptr) return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
    if (spec->takes_value && !has_inline_value) {
      if (i + 1 >= argv.size()) {
        return absl::InvalidArgumentError(absl::StrCat("--", name, " needs a value"));
      }
      value = argv[++i];
    }
    if (!spec->takes_value && has_inline_value) {
      return absl::InvalidArgumentError(absl::StrCat("--", name, " takes no value"));
    }
    if (!spec->repeatable && args.Has(name)) {
      return absl::InvalidArgumentError(absl::StrCat("--", name, " is given twice"));
    }
    args.values[name].push_back(value);
  }
  return args;
}

std::string DumpJson(const nlohmann::json& j) {
  return j.dump(2, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

// By default, everything the graph computes: the outputs of the nodes nothing consumes, and
// the no-output ones (a training step's NoOp) and the unconsumed variable writes (an exported
// model's per-variable initialisers) as targets, where all they need is supported (a Saver's
// nodes are left out).
void DefaultFetches(const Graph& graph, std::vector<TensorId>& fetches,
                    std::vector<std::string>& targets) {
  std::set<std::string> consumed;
  for (const Node& node : graph.nodes()) {
    for (const TensorId& input : node.inputs) consumed.insert(input.node);
    for (const std::string& control : node.control_inputs) consumed.insert(control);
  }
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node& node = graph.node(i);
    if (consumed.contains(node.name) || graph.num_outputs(i) < 0) continue;
    std::vector<TensorId> outputs;
    for (int k = 0; k < graph.num_outputs(i); ++k) outputs.push_back({node.name, k});
    std::vector<std::string> target;
    const OpDef* def = FindOpDef(node.op);
    if (outputs.empty() || (def != nullptr && def->num_ref_inputs > 0)) {
      outputs.clear();
      target.push_back(node.name);
    }
    absl::StatusOr<std::vector<int>> needed = NeededNodes(graph, outputs, target, {});
    if (!needed.ok() || !CheckSupported(graph, *needed).ok()) continue;
    fetches.insert(fetches.end(), outputs.begin(), outputs.end());
    targets.insert(targets.end(), target.begin(), target.end());
  }
}

absl::Status AddVariableInitialisers(const Args& args, const Graph& graph,
                                     std::vector<std::string>& init) {
  if (!args.Has("init-variables")) return absl::OkStatus();
  DFC_ASSIGN_OR_RETURN(std::vector<std::string> all, VariableInitialisers(graph));
  for (std::string& node : all) {
    if (absl::c_find(init, node) == init.end()) init.push_back(std::move(node));
  }
  return absl::OkStatus();
}

// "keep_prob=[];X=[?,784]" -> {keep_prob: [], X: [-1,784]}.
absl::StatusOr<absl::flat_hash_map<std::string, PartialShape>> ParseShapes(absl::string_view text) {
  absl::flat_hash_map<std::string, PartialShape> shapes;
  for (absl::string_view item : absl::StrSplit(text, ';', absl::SkipEmpty())) {
    std::vector<absl::string_view> parts = absl::StrSplit(item, absl::MaxSplits('=', 1));
    if (parts.size() != 2 || parts[0].empty() || parts[1].size() < 2 || parts[1].front() != '[' ||
        parts[1].back() != ']') {
      return absl::InvalidArgumentError(
          absl::StrCat("--shapes: \"", item, "\" is not NAME=[d0,d1,...]"));
    }
    PartialShape shape;
    for (absl::string_view d :
         absl::StrSplit(parts[1].substr(1, parts[1].size() - 2), ',', absl::SkipEmpty())) {
      int64_t n = -1;
      if (d != "?" && (!absl::SimpleAtoi(d, &n) || n < -1)) {
        return absl::InvalidArgumentError(
            absl::StrCat("--shapes: \"", d, "\" in \"", item, "\" is not a size or ?"));
      }
      shape.dims.push_back(n);
    }
    shapes[std::string(parts[0])] = std::move(shape);
  }
  return shapes;
}

absl::StatusOr<int> PlatformIndex(const Args& args) {
  int platform = -1;
  if (args.Has("platform") && !absl::SimpleAtoi(args.Get("platform"), &platform)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--platform takes a platform index, not \"", args.Get("platform"), "\""));
  }
  return platform;
}

absl::StatusOr<std::unique_ptr<DeviceExecutor>> OpenDeviceExecutor(
    const Args& args, DeviceExecutor::Options options) {
  DFC_ASSIGN_OR_RETURN(int platform, PlatformIndex(args));
  return DeviceExecutor::Open(args.Get("device", "auto"), platform, std::move(options));
}

namespace {
constexpr absl::string_view kUsagePayload = "dfc.usage";
}  // namespace

absl::Status UsageError(absl::string_view message) {
  absl::Status status = absl::InvalidArgumentError(message);
  status.SetPayload(kUsagePayload, absl::Cord("1"));
  return status;
}

bool IsUsageError(const absl::Status& status) {
  return status.GetPayload(kUsagePayload).has_value();
}

int ReportError(const absl::Status& status) {
  std::cerr << "dfc: error: " << status.message() << "\n";
  return kExitInput;
}

int ReportUsage(const std::string& message, const std::string& usage) {
  std::cerr << "dfc: usage error: " << message << "\n" << usage;
  return kExitUsage;
}

absl::StatusOr<std::vector<TensorId>> FetchList(const Args& args) {
  std::vector<TensorId> fetches;
  for (const std::string& list : args.All("fetch")) {
    for (absl::string_view name : absl::StrSplit(list, ',', absl::SkipEmpty())) {
      DFC_ASSIGN_OR_RETURN(TensorId id, TensorId::Parse(name));
      fetches.push_back(std::move(id));
    }
  }
  return fetches;
}

absl::StatusOr<int> CountFlag(const Args& args, const std::string& flag, int fallback, int min) {
  if (!args.Has(flag)) return fallback;
  const std::string s = args.Get(flag);
  char* end = nullptr;
  const long k = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || k < min || k > 1000000000) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", flag, " must be an integer of at least ", min, ", got \"", s, "\""));
  }
  return static_cast<int>(k);
}

absl::StatusOr<std::vector<Feed>> ReadFeeds(const Args& args) {
  std::vector<Feed> feeds;
  for (const std::string& feed : args.All("feed")) {
    const size_t eq = feed.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == feed.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--feed expects NAME=FILE.npy, got \"", feed, "\""));
    }
    DFC_ASSIGN_OR_RETURN(Tensor value, ReadNpy(feed.substr(eq + 1)));
    DFC_ASSIGN_OR_RETURN(Feed parsed, ParseFeed(feed.substr(0, eq), std::move(value)));
    feeds.push_back(std::move(parsed));
  }
  return feeds;
}

int ReportFeedsError(const absl::Status& status, const std::string& usage) {
  if (absl::IsInvalidArgument(status) && absl::StartsWith(status.message(), "--feed")) {
    return ReportUsage(std::string(status.message()), usage);
  }
  return ReportError(status);
}

absl::StatusOr<std::vector<Feed>> RandomFeeds(
    const Graph& graph, int64_t n, const std::set<std::string>& skip,
    const absl::flat_hash_map<std::string, PartialShape>& shapes) {
  std::vector<Feed> feeds;
  std::mt19937 rng(static_cast<uint32_t>(n));
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node& node = graph.node(i);
    if (node.op != "Placeholder" || skip.contains(node.name)) continue;
    PartialShape declared = PlaceholderShape(node);
    if (auto given = shapes.find(node.name); declared.unknown_rank && given != shapes.end()) {
      declared = given->second;
    }
    absl::StatusOr<DType> dtype = node.GetType("dtype");
    if (declared.unknown_rank || !dtype.ok() || *dtype != DType::kFloat) {
      return absl::InvalidArgumentError(
          absl::StrCat("placeholder ", node.name, " (", PlaceholderSignature(node),
                       "): random feeds are made only for float32 placeholders of known rank"));
    }
    Shape shape;
    for (int64_t d : declared.dims) shape.push_back(d < 0 ? n : d);
    Tensor t = Tensor::Zeros(DType::kFloat, shape);
    for (float& v : t.mutable_flat<float>()) v = uniform(rng);
    feeds.push_back({.id = {node.name, 0}, .value = std::move(t)});
  }
  return feeds;
}

}  // namespace dfc::cli
