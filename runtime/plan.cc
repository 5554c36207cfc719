// Compiled plans (see plan.h).
#include "runtime/plan.h"

#include <fstream>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "graph/loader.h"
#include "graph/ops.h"
#include "graph/saved_model.h"
#include "ir/printer.h"
#include "nlohmann/json.hpp"
#include "runtime/compile.h"
#include "runtime/device_executor.h"
#include "runtime/translate_for_feeds.h"
#include "runtime/tuning_db.h"

namespace dfc {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kPlanFormat = 1;

json TensorJson(const TensorId& id, const ir::TypePtr& type) {
  return {{"tensor", id.ToString()}, {"type", ir::TypeToString(type)}};
}

json ProfileJson(const rewrite::DeviceProfile& p) {
  return {{"profile", p.name},
          {"description", p.description},
          {"simd_width", p.simd_width},
          {"compute_units", p.compute_units},
          {"local_memory_bytes", p.local_memory_bytes},
          {"local_memory_is_real", p.local_memory_is_real},
          {"preferred_vector_width", p.preferred_vector_width},
          {"max_work_group_size", p.max_work_group_size},
          {"is_gpu", p.is_gpu},
          {"prefetch_bytes", p.prefetch_bytes},
          {"vector_registers", p.vector_registers}};
}

json ClusterJson(const Plan& plan, int c) {
  const ir::TranslatedCluster& tc = plan.translated.clusters[c];
  const codegen::KernelSource& kernel = plan.kernels[c];
  json inputs = json::array(), outputs = json::array();
  const auto& lambda = *tc.lambda;
  for (size_t k = 0; k < tc.params.size(); ++k) {
    inputs.push_back(TensorJson(tc.params[k], lambda.params[k]->type));
  }
  for (size_t k = 0; k < tc.outputs.size(); ++k) {
    outputs.push_back(TensorJson(tc.outputs[k], tc.output_types[k]));
  }
  json rules = json::array();
  if (static_cast<size_t>(c) < plan.spec.steps.size()) {
    for (const rewrite::Step& step : plan.spec.steps[c]) rules.push_back(step.ToString());
  }
  json temporaries = json::array(), stages = json::array();
  for (const ir::TypePtr& t : kernel.temporaries) temporaries.push_back(ir::TypeToString(t));
  for (const codegen::KernelStage& stage : kernel.stages) {
    std::vector<std::string> rows;
    for (const ArithExpr& r : stage.rows) rows.push_back(r.ToString());
    const std::string max_rows = absl::StrCat("max(1, ", absl::StrJoin(rows, ", "), ")");
    stages.push_back(
        json{{"kernel", stage.name},
             {"mapping", stage.work_group_per_row ? "MapWrg(0)/MapLcl(0)" : "MapGlb(0)"},
             {"global_size", stage.work_group_per_row
                                 ? absl::StrCat(max_rows, " * ", stage.work_group_size)
                                 : max_rows},
             {"work_group_size", stage.work_group_size}});
  }
  return {{"cluster", c},
          {"nodes", ClusterNodeNames(*plan.graph, plan.translated.partition.clusters[c])},
          {"source", absl::StrCat("kernels/cluster_", c, ".cl")},
          {"inputs", inputs},
          {"outputs", outputs},
          {"temporaries", temporaries},
          {"size_arguments", kernel.size_args},
          {"rules", rules},
          {"variant", plan.variants[c]},
          {"tuned_work_group_size", static_cast<size_t>(c) < plan.spec.work_group_sizes.size()
                                        ? plan.spec.work_group_sizes[c]
                                        : -1},
          {"kernels", stages}};
}

// Reading plan.json: each accessor names the file and the field that is wrong.
class PlanReader {
 public:
  PlanReader(const fs::path& file, const json& root) : file_(file.string()), root_(root) {}

  absl::StatusOr<const json*> Field(const json& object, const std::string& name,
                                    json::value_t type) const {
    auto it = object.find(name);
    if (it == object.end() || it->type() != type) {
      return Error(absl::StrCat("\"", name, "\" is missing or not a ", TypeName(type)));
    }
    return &*it;
  }

  absl::StatusOr<std::vector<std::string>> Strings(const json& object,
                                                   const std::string& name) const {
    DFC_ASSIGN_OR_RETURN(const json* list, Field(object, name, json::value_t::array));
    std::vector<std::string> out;
    for (const json& item : *list) {
      if (!item.is_string()) return Error(absl::StrCat("\"", name, "\" holds a non-string"));
      out.push_back(item.get<std::string>());
    }
    return out;
  }

  template <typename T>
  absl::StatusOr<T> Number(const json& object, const std::string& name) const {
    auto it = object.find(name);
    const bool fits = it != object.end() &&
                      (std::is_same_v<T, bool> ? it->is_boolean() : it->is_number_integer());
    if (!fits) {
      return Error(absl::StrCat("\"", name, "\" is missing or not ",
                                std::is_same_v<T, bool> ? "true or false" : "an integer"));
    }
    return it->get<T>();
  }

  absl::StatusOr<rewrite::DeviceProfile> Profile() const {
    DFC_ASSIGN_OR_RETURN(const json* d, Field(root_, "device", json::value_t::object));
    rewrite::DeviceProfile p;
    DFC_ASSIGN_OR_RETURN(const json* name, Field(*d, "profile", json::value_t::string));
    DFC_ASSIGN_OR_RETURN(const json* description, Field(*d, "description", json::value_t::string));
    p.name = name->get<std::string>();
    p.description = description->get<std::string>();
    DFC_ASSIGN_OR_RETURN(p.simd_width, Number<int>(*d, "simd_width"));
    DFC_ASSIGN_OR_RETURN(p.compute_units, Number<int>(*d, "compute_units"));
    DFC_ASSIGN_OR_RETURN(p.local_memory_bytes, Number<int64_t>(*d, "local_memory_bytes"));
    DFC_ASSIGN_OR_RETURN(p.local_memory_is_real, Number<bool>(*d, "local_memory_is_real"));
    DFC_ASSIGN_OR_RETURN(p.preferred_vector_width, Number<int>(*d, "preferred_vector_width"));
    DFC_ASSIGN_OR_RETURN(p.max_work_group_size, Number<int>(*d, "max_work_group_size"));
    DFC_ASSIGN_OR_RETURN(p.is_gpu, Number<bool>(*d, "is_gpu"));
    if (d->contains("prefetch_bytes")) {  // plans written before it was a field have none
      DFC_ASSIGN_OR_RETURN(p.prefetch_bytes, Number<int>(*d, "prefetch_bytes"));
    }
    if (d->contains("vector_registers")) {  // nor this: theirs is the default
      DFC_ASSIGN_OR_RETURN(p.vector_registers, Number<int>(*d, "vector_registers"));
    }
    return p;
  }

  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(file_, ": ", what));
  }

 private:
  static std::string TypeName(json::value_t type) {
    switch (type) {
      case json::value_t::array:
        return "list";
      case json::value_t::object:
        return "object";
      case json::value_t::string:
        return "string";
      default:
        return "value of the expected kind";
    }
  }

  std::string file_;
  const json& root_;
};

}  // namespace

std::vector<std::string> SplitInitialisers(const Graph& graph, std::vector<std::string>& targets) {
  std::vector<std::string> init, rest;
  for (const std::string& target : targets) {
    absl::StatusOr<std::vector<int>> needed = NeededNodes(graph, {}, {target}, {});
    bool initialiser = needed.ok();
    bool writes = false;
    for (int n : needed.ok() ? *needed : std::vector<int>{}) {
      const Node& node = graph.node(n);
      const OpDef* def = FindOpDef(node.op);
      if (node.op == "Placeholder" ||
          (def != nullptr && def->num_ref_inputs > 0 && node.op != "Assign")) {
        initialiser = false;
      }
      writes = writes || node.op == "Assign";
    }
    (initialiser && writes ? init : rest).push_back(target);
  }
  targets = std::move(rest);
  return init;
}

absl::StatusOr<std::vector<std::string>> VariableInitialisers(const Graph& graph) {
  std::vector<std::string> init;
  for (const Node& variable : graph.nodes()) {
    const OpDef* def = FindOpDef(variable.op);
    if (def == nullptr || !def->variable) continue;
    const Node* assign = graph.FindNode(variable.name + "/Assign");
    if (assign == nullptr || assign->op != "Assign" || assign->inputs.empty() ||
        assign->inputs[0].node != variable.name) {
      return absl::InvalidArgumentError(absl::StrCat(
          "variable \"", variable.name, "\" has no initialiser: expected an Assign named \"",
          variable.name, "/Assign\" writing it"));
    }
    init.push_back(assign->name);
  }
  return init;
}

absl::StatusOr<Plan> CompilePlan(std::shared_ptr<const Graph> graph, PlanSpec spec) {
  for (const auto& [kind, nodes] : {std::pair{"target", &spec.targets}, {"init", &spec.init}}) {
    for (const std::string& node : *nodes) {
      if (graph->FindNode(node) == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat(kind, " \"", node, "\" names no node of the graph"));
      }
    }
  }
  // As a session's run translates it (TranslateForFeedShapes). The placeholders are fed at run
  // time; their host units are skipped then.
  ir::TranslateOptions options{.fold_only_static = spec.folding == Folding::kStatic,
                               .placeholder_shapes = spec.placeholder_shapes,
                               .fusion = spec.fusion};
  ReferenceFoldOracle oracle;
  DFC_ASSIGN_OR_RETURN(ir::TranslatedGraph translated,
                       ir::TranslateGraph(*graph, spec.fetches, spec.targets, {}, oracle, options));
  if (spec.steps.size() > translated.clusters.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("rewrite steps are given for ", spec.steps.size(),
                     " clusters, but the graph translates to ", translated.clusters.size()));
  }
  std::vector<codegen::KernelSource> kernels;
  std::vector<std::string> variants;
  for (size_t c = 0; c < translated.clusters.size(); ++c) {
    const std::vector<std::string> nodes =
        ClusterNodeNames(*graph, translated.partition.clusters[c]);
    const rewrite::Variant variant{.steps = c < spec.steps.size() ? spec.steps[c]
                                                                  : std::vector<rewrite::Step>{}};
    absl::StatusOr<ClusterKernel> kernel = CompileCluster(
        translated.clusters[c], variant,
        {.name = absl::StrCat("dfc_cluster_", c),
         .nodes = nodes,
         .profile = spec.profile,
         .work_group_size = c < spec.work_group_sizes.size() ? spec.work_group_sizes[c] : -1});
    if (!kernel.ok()) {
      return absl::Status(kernel.status().code(),
                          absl::StrCat("cluster ", c, " (", absl::StrJoin(nodes, ", "),
                                       "): ", kernel.status().message()));
    }
    kernels.push_back(std::move(kernel->source));
    variants.push_back(std::move(kernel->variant));
  }
  return Plan{.spec = std::move(spec),
              .graph = std::move(graph),
              .translated = std::move(translated),
              .kernels = std::move(kernels),
              .variants = std::move(variants)};
}

absl::Status WritePlan(const Plan& plan, const std::string& graph_path, const fs::path& dir) {
  std::error_code error;
  fs::create_directories(dir / "kernels", error);
  if (error) {
    return absl::InvalidArgumentError(
        absl::StrCat(dir.string(), ": cannot create the directory: ", error.message()));
  }
  // A SavedModel directory is copied whole (saved_model.pb and variables/): the plan's graph
  // is what loading it gives, its variables restored from its checkpoint.
  const bool saved_model = IsSavedModelDir(graph_path);
  const std::string graph_file =
      saved_model ? "saved_model"
                  : absl::StrCat("graph", fs::path(graph_path).extension().string());
  if (saved_model) {
    fs::remove_all(dir / graph_file, error);
    fs::copy(graph_path, dir / graph_file, fs::copy_options::recursive, error);
  } else {
    fs::copy_file(graph_path, dir / graph_file, fs::copy_options::overwrite_existing, error);
  }
  if (error) {
    return absl::InvalidArgumentError(absl::StrCat(graph_path, ": cannot copy the graph into ",
                                                   dir.string(), ": ", error.message()));
  }
  json clusters = json::array();
  for (size_t c = 0; c < plan.kernels.size(); ++c) {
    clusters.push_back(ClusterJson(plan, static_cast<int>(c)));
    const fs::path file = dir / clusters.back()["source"].get<std::string>();
    if (!(std::ofstream(file) << plan.kernels[c].source)) {
      return absl::InvalidArgumentError(absl::StrCat(file.string(), ": cannot write the kernel"));
    }
  }
  json host = json::array(), schedule = json::array();
  for (const ExecutionUnit& unit : plan.translated.partition.schedule) {
    if (unit.node >= 0) {
      const Node& node = plan.graph->node(unit.node);
      host.push_back(absl::StrCat(node.name, " (", node.op, ")"));
      schedule.push_back(json{{"host", node.name}});
    } else {
      schedule.push_back(json{{"cluster", unit.cluster}});
    }
  }
  json sizes = json::array(), fetches = json::array(), shapes = json::object();
  for (const SizeVariable& var : plan.translated.fold.size_variables) {
    if (var.when_run) {  // bound by a host op's output when it runs
      sizes.push_back(json{{"name", var.name},
                           {"node", var.placeholder},
                           {"output", var.output},
                           {"dimension", var.dim}});
      continue;
    }
    sizes.push_back(
        json{{"name", var.name}, {"placeholder", var.placeholder}, {"dimension", var.dim}});
  }
  for (const TensorId& id : plan.spec.fetches) fetches.push_back(id.ToString());
  for (const auto& [name, shape] : plan.spec.placeholder_shapes) {
    shapes[name] = shape.unknown_rank ? json(nullptr) : json(shape.dims);
  }
  const json root = {{"format", kPlanFormat},
                     {"graph", graph_file},
                     {"compiled_from", fs::absolute(graph_path).string()},
                     {"device", ProfileJson(plan.spec.profile)},
                     {"fetches", fetches},
                     {"targets", plan.spec.targets},
                     {"init", plan.spec.init},
                     {"placeholder_shapes", shapes},
                     {"size_variables", sizes},
                     {"clusters", clusters},
                     {"host_ops", host},
                     {"schedule", schedule}};
  if (!(std::ofstream(dir / "plan.json")
        << root.dump(2, ' ', false, json::error_handler_t::replace) << "\n")) {
    return absl::InvalidArgumentError(
        absl::StrCat((dir / "plan.json").string(), ": cannot write the plan"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Plan> ReadPlan(const fs::path& dir) {
  const fs::path file = dir / "plan.json";
  DFC_ASSIGN_OR_RETURN(std::string text, ReadFile(file.string()));
  const json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  PlanReader reader(file, root);
  if (!root.is_object()) return reader.Error("not a JSON object (is this a dfc plan?)");
  DFC_ASSIGN_OR_RETURN(int format, reader.Number<int>(root, "format"));
  if (format != kPlanFormat) {
    return reader.Error(absl::StrCat("plan format ", format, ", but this dfc reads format ",
                                     kPlanFormat, ": compile the graph again"));
  }
  PlanSpec spec;
  DFC_ASSIGN_OR_RETURN(spec.profile, reader.Profile());
  DFC_ASSIGN_OR_RETURN(std::vector<std::string> fetches, reader.Strings(root, "fetches"));
  for (const std::string& f : fetches) {
    absl::StatusOr<TensorId> id = TensorId::Parse(f);
    if (!id.ok()) return reader.Error(id.status().message());
    spec.fetches.push_back(*std::move(id));
  }
  DFC_ASSIGN_OR_RETURN(spec.targets, reader.Strings(root, "targets"));
  DFC_ASSIGN_OR_RETURN(spec.init, reader.Strings(root, "init"));
  DFC_ASSIGN_OR_RETURN(const json* shapes,
                       reader.Field(root, "placeholder_shapes", json::value_t::object));
  for (const auto& [name, dims] : shapes->items()) {
    PartialShape& shape = spec.placeholder_shapes[name];
    if (dims.is_null()) {
      shape.unknown_rank = true;
      continue;
    }
    if (!dims.is_array()) return reader.Error(absl::StrCat("the shape of \"", name, "\""));
    for (const json& d : dims) {
      if (!d.is_number_integer() || d.get<int64_t>() < -1) {
        return reader.Error(absl::StrCat("the shape of \"", name, "\" holds a bad size"));
      }
      shape.dims.push_back(d.get<int64_t>());
    }
  }
  // Each cluster's rewrite steps (a tuned plan's), replayed when the kernels are made again.
  if (const auto found = root.find("clusters"); found != root.end() && found->is_array()) {
    for (const json& cluster : *found) {
      std::vector<rewrite::Step>& steps = spec.steps.emplace_back();
      int& work_group_size = spec.work_group_sizes.emplace_back(-1);
      if (cluster.is_object() && cluster.contains("tuned_work_group_size")) {
        DFC_ASSIGN_OR_RETURN(work_group_size, reader.Number<int>(cluster, "tuned_work_group_size"));
      }
      if (!cluster.is_object() || !cluster.contains("rules")) continue;
      DFC_ASSIGN_OR_RETURN(std::vector<std::string> rules, reader.Strings(cluster, "rules"));
      for (const std::string& text : rules) {
        absl::StatusOr<rewrite::Step> step = rewrite::ParseStep(text);
        if (!step.ok()) return reader.Error(step.status().message());
        steps.push_back(*std::move(step));
      }
    }
  }
  DFC_ASSIGN_OR_RETURN(const json* graph_file, reader.Field(root, "graph", json::value_t::string));
  const std::string graph_path = (dir / graph_file->get<std::string>()).string();
  Graph graph;
  if (IsSavedModelDir(graph_path)) {
    DFC_ASSIGN_OR_RETURN(SavedModel model, LoadSavedModel(graph_path));
    graph = std::move(model.graph);
  } else {
    DFC_ASSIGN_OR_RETURN(graph, LoadGraph(graph_path));
  }
  DFC_ASSIGN_OR_RETURN(Plan plan,
                       CompilePlan(std::make_shared<const Graph>(std::move(graph)), spec));

  // The plan's clusters must be the ones its graph translates to today.
  DFC_ASSIGN_OR_RETURN(const json* clusters, reader.Field(root, "clusters", json::value_t::array));
  if (clusters->size() != plan.kernels.size()) {
    return reader.Error(absl::StrCat("the plan has ", clusters->size(), " clusters, but its graph ",
                                     "translates to ", plan.kernels.size(), ": compile it again"));
  }
  for (size_t c = 0; c < plan.kernels.size(); ++c) {
    const json& cluster = (*clusters)[c];
    if (!cluster.is_object()) return reader.Error(absl::StrCat("cluster ", c, " is not an object"));
    DFC_ASSIGN_OR_RETURN(std::vector<std::string> nodes, reader.Strings(cluster, "nodes"));
    const std::vector<std::string> translated =
        ClusterNodeNames(*plan.graph, plan.translated.partition.clusters[c]);
    if (nodes != translated) {
      return reader.Error(absl::StrCat("cluster ", c, " holds ", absl::StrJoin(nodes, ", "),
                                       ", but the graph's cluster ", c, " holds ",
                                       absl::StrJoin(translated, ", "), ": compile it again"));
    }
    if (const auto variant = cluster.find("variant");
        variant != cluster.end() && *variant != plan.variants[c]) {
      return reader.Error(absl::StrCat(
          "cluster ", c, "'s rules (",
          rewrite::Variant{
              c < plan.spec.steps.size() ? plan.spec.steps[c] : std::vector<rewrite::Step>{},
              nullptr}
              .Name(),
          ") now make variant ", plan.variants[c], ", not the ",
          variant->is_string() ? variant->get<std::string>() : variant->dump(),
          " its kernels were generated from (the rules changed since): compile it again"));
    }
    DFC_ASSIGN_OR_RETURN(const json* source,
                         reader.Field(cluster, "source", json::value_t::string));
    DFC_ASSIGN_OR_RETURN(plan.kernels[c].source,
                         ReadFile((dir / source->get<std::string>()).string()));
  }
  return plan;
}

}  // namespace dfc
