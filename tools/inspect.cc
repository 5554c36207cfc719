// `dfc inspect GRAPH [--json] [--clusters [--ir] [--dump-after STAGE [--device D]]]`: node and
// op counts, placeholders, the nodes nothing consumes, and the ops outside OPS.md with the nodes
// that use them; with --clusters, the device clusters the graph compiles to (nodes, inputs,
// outputs and their types), with --ir each cluster's IR, and with --dump-after its IR after a
// stage of the compile pipeline (runtime/compile.h) for a device profile, or its kernel.
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "absl/algorithm/container.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "graph/loader.h"
#include "graph/ops.h"
#include "ir/from_tf/cluster.h"
#include "ir/printer.h"
#include "nlohmann/json.hpp"
#include "rewrite/device_profile.h"
#include "runtime/compile.h"
#include "runtime/translate_for_feeds.h"
#include "tools/cli.h"

namespace dfc::cli {
namespace {

constexpr char kInspectUsage[] =
    "usage: dfc inspect GRAPH|SAVED_MODEL_DIR [--json] [--clusters [--ir] [--dump-after "
    "STAGE[,STAGE...] [--device D]]] [--fetch T1,T2...]\n"
    "  SAVED_MODEL_DIR  a SavedModel: its signatures and restored variables are listed first,\n"
    "              and --clusters compiles for the serving signature's outputs\n"
    "  --clusters  fold constants, partition and translate: print each device cluster\n"
    "  --ir        with --clusters, also print each cluster's IR in Lift's notation\n"
    "  --dump-after  with --clusters, print each cluster's IR after these stages of the\n"
    "              compile pipeline, in order: rules, schedule (the default schedule of its\n"
    "              products, the rules it applied listed), vectors-across-maps, global-lets,\n"
    "              stored-kernels, kernel-rows, sequential, work-item-storage (the lowered IR:\n"
    "              where each loop runs, MapGlb, MapWrg, ReduceLcl, MapSeq, ReduceSeq, and what\n"
    "              is stored, ToGlobal, ToPrivate), codegen (the OpenCL C kernel)\n"
    "  --device    the profile --dump-after compiles for: amd|nvidia|intel|arm|cpu (default cpu)\n"
    "  --fetch     the tensors to compile for (default: every node nothing consumes whose\n"
    "              inputs are all supported ops)\n"
    "  --shapes    shapes for placeholders declared without one, e.g.\n"
    "              'keep_prob=[];X=[?,784]' (? is a size variable)\n";

struct Summary {
  int num_nodes = 0;
  std::map<std::string, int> op_counts;
  struct Placeholder {
    std::string name, dtype, shape;
  };
  std::vector<Placeholder> placeholders;
  std::vector<std::string> unconsumed;
  std::map<std::string, std::vector<std::string>> unsupported;  // op -> nodes
  // The same for the nodes that only write checkpoints or summaries (CheckpointAndSummaryNodes).
  std::map<std::string, std::vector<std::string>> checkpoint_and_summary;
};

// TensorFlow's ops that save or restore checkpoints (a Saver's) and write summaries: a model's
// computation never reads them.
bool IsCheckpointOrSummaryOp(const std::string& op) {
  static const auto* ops = new std::set<std::string>{"Save",
                                                     "SaveV2",
                                                     "SaveSlices",
                                                     "Restore",
                                                     "RestoreV2",
                                                     "RestoreSlice",
                                                     "MergeV2Checkpoints",
                                                     "ShardedFilename",
                                                     "ShardedFilespec",
                                                     "ScalarSummary",
                                                     "HistogramSummary",
                                                     "ImageSummary",
                                                     "AudioSummary",
                                                     "AudioSummaryV2",
                                                     "TensorSummary",
                                                     "TensorSummaryV2",
                                                     "MergeSummary"};
  return ops->contains(op);
}

// The nodes of checkpoints and summaries: those ops, and every node whose consumers are all such
// nodes (the Saver's filename StringJoin, its constants).
std::vector<bool> CheckpointAndSummaryNodes(const Graph& graph) {
  std::vector<std::vector<int>> consumers(graph.num_nodes());
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node& node = graph.node(i);
    for (const TensorId& input : node.inputs) consumers[graph.IndexOf(input.node)].push_back(i);
    for (const std::string& control : node.control_inputs) {
      consumers[graph.IndexOf(control)].push_back(i);
    }
  }
  std::vector<bool> io(graph.num_nodes(), false);
  const std::vector<int>& order = graph.topological_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int i = *it;
    io[i] = IsCheckpointOrSummaryOp(graph.node(i).op) ||
            (!consumers[i].empty() && absl::c_all_of(consumers[i], [&](int c) { return io[c]; }));
  }
  return io;
}

Summary Summarize(const Graph& graph) {
  Summary s;
  s.num_nodes = graph.num_nodes();
  std::set<std::string> consumed;
  for (const Node& node : graph.nodes()) {
    for (const TensorId& input : node.inputs) consumed.insert(input.node);
    for (const std::string& control : node.control_inputs) consumed.insert(control);
  }
  const std::vector<bool> io = CheckpointAndSummaryNodes(graph);
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node& node = graph.node(i);
    ++s.op_counts[node.op];
    if (node.op == "Placeholder" || node.op == "PlaceholderWithDefault") {
      absl::StatusOr<DType> dtype = node.GetType("dtype");
      s.placeholders.push_back({node.name, dtype.ok() ? std::string(DTypeName(*dtype)) : "?",
                                PlaceholderShape(node).ToString()});
    }
    if (!consumed.contains(node.name)) s.unconsumed.push_back(node.name);
    if (FindOpDef(node.op) == nullptr) {
      (io[i] ? s.checkpoint_and_summary : s.unsupported)[node.op].push_back(node.name);
    }
  }
  return s;
}

void PrintOpNodes(const std::map<std::string, std::vector<std::string>>& ops) {
  for (const auto& [op, nodes] : ops) {
    std::cout << "  " << op << " (" << nodes.size() << "):";
    for (size_t i = 0; i < nodes.size() && i < 8; ++i) std::cout << " " << nodes[i];
    if (nodes.size() > 8) std::cout << " ... and " << nodes.size() - 8 << " more";
    std::cout << "\n";
  }
}

// A SavedModel's signatures (each input and output: key, declared dtype and shape, tensor) and
// what its restore reads.
void PrintSignatures(const SavedModel& model) {
  std::cout << "SavedModel " << model.dir << " (tags: " << absl::StrJoin(model.tags, ",") << ")\n";
  if (!model.restore_op.empty()) {
    std::cout << "variables: " << model.restored
              << " tensors restored from variables/variables when it loads\n";
  }
  for (const Signature& s : model.signatures) {
    std::cout << "signature \"" << s.name << "\" (" << s.method << ")\n";
    for (const auto& [kind, tensors] : {std::pair{"input ", &s.inputs}, {"output", &s.outputs}}) {
      for (const SignatureTensor& t : *tensors) {
        std::cout << "  " << kind << " " << t.key << ": " << DTypeName(t.dtype)
                  << t.shape.ToString() << "  (" << t.tensor.ToString() << ")\n";
      }
    }
  }
  std::cout << "\n";
}

void PrintText(const std::string& path, const Summary& s) {
  std::cout << path << ": " << s.num_nodes << " nodes, " << s.op_counts.size() << " ops\n";
  std::cout << "ops:\n";
  for (const auto& [op, count] : s.op_counts) {
    std::cout << "  " << op << std::string(op.size() < 32 ? 32 - op.size() : 1, ' ') << count
              << (FindOpDef(op) ? "" : "  (not supported)") << "\n";
  }
  std::cout << "placeholders:" << (s.placeholders.empty() ? " none" : "") << "\n";
  for (const auto& p : s.placeholders) {
    std::cout << "  " << p.name << "  " << p.dtype << p.shape << "\n";
  }
  std::cout << "consumed by no node (" << s.unconsumed.size() << "):\n";
  for (const std::string& name : s.unconsumed) std::cout << "  " << name << "\n";
  std::cout << "ops outside OPS.md:" << (s.unsupported.empty() ? " none" : "") << "\n";
  PrintOpNodes(s.unsupported);
  if (!s.checkpoint_and_summary.empty()) {
    std::cout << "checkpoint and summary ops, outside the model's computation (pruned):\n";
    PrintOpNodes(s.checkpoint_and_summary);
  }
}

void PrintJson(const std::string& path, const Summary& s) {
  nlohmann::json j;
  j["graph"] = path;
  j["nodes"] = s.num_nodes;
  j["ops"] = s.op_counts;
  j["placeholders"] = nlohmann::json::array();
  for (const auto& p : s.placeholders) {
    j["placeholders"].push_back({{"name", p.name}, {"dtype", p.dtype}, {"shape", p.shape}});
  }
  j["unconsumed"] = s.unconsumed;
  j["unsupported"] = s.unsupported;
  j["checkpoint_and_summary"] = s.checkpoint_and_summary;
  std::cout << DumpJson(j) << "\n";
}

std::string Describe(const Graph& graph, const FoldResult& fold, const TensorId& id) {
  return absl::StrCat(id.ToString(), "  ", fold.Info(graph, id).ToString());
}

// The compile stages --dump-after prints, and the profile they compile for (none: no dump).
struct Dump {
  absl::flat_hash_set<std::string> stages;
  const rewrite::DeviceProfile* profile = nullptr;
};

int PrintClusters(const Graph& graph, const std::vector<TensorId>& fetches,
                  const std::vector<std::string>& targets, const ir::TranslateOptions& options,
                  bool with_ir, const Dump& dump) {
  ReferenceFoldOracle oracle;
  absl::StatusOr<ir::TranslatedGraph> translated =
      ir::TranslateGraph(graph, fetches, targets, {}, oracle, options);
  if (!translated.ok()) return ReportError(translated.status());
  std::cout << "clusters: " << translated->clusters.size()
            << " (device nodes: " << translated->device_nodes << ", " << translated->clustered
            << " in clusters, " << translated->folded << " folded at compile time, "
            << translated->device_on_host << " on the host)\n";
  for (const std::string& host : translated->host_device_nodes) {
    std::cout << "  on the host: " << host << "\n";
  }
  for (const Node& node : graph.nodes()) {
    if ((node.op == "Placeholder" || node.op == "PlaceholderWithDefault") &&
        PlaceholderShape(node).unknown_rank && !options.placeholder_shapes.contains(node.name)) {
      std::cout << "  placeholder " << node.name << " is declared without a shape, so what it "
                << "feeds cannot be compiled; give one with --shapes '" << node.name << "=[...]'\n";
    }
  }
  for (size_t c = 0; c < translated->clusters.size(); ++c) {
    const Cluster& cluster = translated->partition.clusters[c];
    const ir::TranslatedCluster& tc = translated->clusters[c];
    std::cout << "cluster " << c << ": " << cluster.nodes.size() << " nodes\n  nodes:";
    for (int i : cluster.nodes) {
      std::cout << " " << graph.node(i).name << " (" << graph.node(i).op << ")";
    }
    std::cout << "\n  inputs:\n";
    for (const TensorId& id : tc.params) {
      std::cout << "    " << Describe(graph, translated->fold, id) << "\n";
    }
    std::cout << "  outputs:\n";
    for (size_t k = 0; k < tc.outputs.size(); ++k) {
      std::cout << "    " << tc.outputs[k].ToString() << "  "
                << ir::TypeToString(tc.output_types[k]) << "\n";
    }
    if (with_ir) std::cout << "  ir: " << ir::ToString(tc.lambda) << "\n";
    if (dump.profile != nullptr) {
      const auto after = [&](absl::string_view stage, const ir::ExprPtr& body) {
        if (!dump.stages.contains(stage)) return;
        std::cout << "  after " << stage << " for " << dump.profile->name << ": "
                  << ir::ToString(std::make_shared<ir::Lambda>(tc.lambda->params, body)) << "\n";
      };
      absl::StatusOr<ClusterKernel> kernel =
          CompileCluster(tc, rewrite::Variant(), {.profile = *dump.profile}, after);
      if (!kernel.ok()) return ReportError(kernel.status());
      std::cout << "  rewritten by: " << kernel->rules << "\n";
      if (dump.stages.contains("codegen")) {
        std::cout << "  after codegen for " << dump.profile->name << ":\n" << kernel->source.source;
      }
    }
  }
  return kExitOk;
}

}  // namespace

int Inspect(const std::vector<std::string>& argv) {
  absl::StatusOr<Args> args = ParseArgs(argv, {{"json"},
                                               {"clusters"},
                                               {"ir"},
                                               {"dump-after", true},
                                               {"device", true},
                                               {"fetch", true},
                                               {"shapes", true}});
  if (!args.ok()) return ReportUsage(std::string(args.status().message()), kInspectUsage);
  if (args->positional.size() != 1) return ReportUsage("expected one GRAPH", kInspectUsage);
  const std::string& path = args->positional[0];
  absl::StatusOr<Graph> graph;
  std::vector<TensorId> signature_outputs;
  if (IsSavedModelDir(path)) {
    absl::StatusOr<SavedModel> model = LoadSavedModel(path);
    if (!model.ok()) return ReportError(model.status());
    if (!args->Has("json")) PrintSignatures(*model);
    if (absl::StatusOr<const Signature*> serving = model->FindSignature("serving_default");
        serving.ok()) {
      for (const SignatureTensor& out : (*serving)->outputs)
        signature_outputs.push_back(out.tensor);
    }
    graph = std::move(model->graph);
  } else {
    graph = LoadGraph(path);
  }
  if (!graph.ok()) return ReportError(graph.status());
  if (args->Has("ir") && !args->Has("clusters"))
    return ReportUsage("--ir needs --clusters", kInspectUsage);
  if (args->Has("dump-after") && !args->Has("clusters")) {
    return ReportUsage("--dump-after needs --clusters", kInspectUsage);
  }
  if (args->Has("device") && !args->Has("dump-after")) {
    return ReportUsage("--device needs --dump-after", kInspectUsage);
  }
  if (args->Has("clusters")) {
    std::vector<TensorId> fetches;
    std::vector<std::string> targets;
    if (args->Has("fetch")) {
      for (absl::string_view name : absl::StrSplit(args->Get("fetch"), ',', absl::SkipEmpty())) {
        absl::StatusOr<TensorId> id = TensorId::Parse(name);
        if (!id.ok()) return ReportUsage(std::string(id.status().message()), kInspectUsage);
        fetches.push_back(*id);
      }
    } else if (!signature_outputs.empty()) {
      fetches = signature_outputs;
    } else {
      DefaultFetches(*graph, fetches, targets);
    }
    ir::TranslateOptions options;
    if (args->Has("shapes")) {
      auto shapes = ParseShapes(args->Get("shapes"));
      if (!shapes.ok()) return ReportUsage(std::string(shapes.status().message()), kInspectUsage);
      options.placeholder_shapes = *std::move(shapes);
    }
    std::optional<rewrite::DeviceProfile> profile;
    Dump dump;
    if (args->Has("dump-after")) {
      const std::vector<std::string> known = CompileStageNames();
      for (absl::string_view stage : absl::StrSplit(args->Get("dump-after"), ',')) {
        if (!absl::c_linear_search(known, stage)) {
          return ReportUsage(absl::StrCat("--dump-after: no stage \"", stage, "\"; the stages are ",
                                          absl::StrJoin(known, ", ")),
                             kInspectUsage);
        }
        dump.stages.emplace(stage);
      }
      absl::StatusOr<rewrite::DeviceProfile> named =
          rewrite::NamedProfile(args->Has("device") ? args->Get("device") : "cpu");
      if (!named.ok()) return ReportUsage(std::string(named.status().message()), kInspectUsage);
      profile = *std::move(named);
      dump.profile = &*profile;
    }
    return PrintClusters(*graph, fetches, targets, options, args->Has("ir"), dump);
  }
  const Summary summary = Summarize(*graph);
  if (args->Has("json")) {
    PrintJson(path, summary);
  } else {
    PrintText(path, summary);
  }
  return kExitOk;
}

}  // namespace dfc::cli
