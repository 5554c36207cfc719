// Interpreted execution of translated graphs (see interpreted.h).
#include "runtime/interpreted.h"

#include <algorithm>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/ops.h"
#include "graph/tensor_list.h"
#include "ir/from_tf/translate.h"
#include "ir/interpreter.h"
#include "runtime/control_flow.h"
#include "runtime/reference/kernel.h"

namespace dfc {

absl::StatusOr<std::vector<Tensor>> ReferenceFoldOracle::Evaluate(
    const Node& node, std::span<const Tensor> inputs) const {
  return reference::EvaluateNode(node, inputs);
}

absl::StatusOr<std::vector<TensorInfo>> ReferenceFoldOracle::InferShapes(
    const Node& node, std::span<const TensorInfo> inputs) const {
  return ir::InferShapesByTranslation(node, inputs);
}

bool ReferenceFoldOracle::ReadsStatically(const Node& node, int input) const {
  return ir::MayReadStatically(node, input);
}

std::optional<PartialShape> FedPlaceholderShape(const Node& node, const Shape& fed, FedDims dims) {
  PartialShape shape = PlaceholderShape(node);
  if (shape.unknown_rank) return PartialShape{.dims = fed};
  // A declared rank that differs is CheckFeeds' error to word.
  if (dims == FedDims::kSymbolic || shape.dims.size() != fed.size()) return std::nullopt;
  bool changed = false;
  for (size_t k = 0; k < fed.size(); ++k) {
    bool constant = k > 0;  // kAllButBatch
    if (dims == FedDims::kOnesAsConstants) constant = fed[k] == 1;
    if (dims == FedDims::kAll) constant = true;
    if (shape.dims[k] < 0 && constant) {
      shape.dims[k] = fed[k];
      changed = true;
    }
  }
  if (!changed) return std::nullopt;
  return shape;
}

absl::StatusOr<const ir::TranslatedGraph*> ChooseTranslation(
    const std::function<absl::StatusOr<const ir::TranslatedGraph*>(FedDims)>& translate,
    const std::vector<Feed>& feeds) {
  DFC_ASSIGN_OR_RETURN(const ir::TranslatedGraph* translated, translate(FedDims::kSymbolic));
  if (!BindSizes(*translated, feeds).ok()) {
    DFC_ASSIGN_OR_RETURN(translated, translate(FedDims::kOnesAsConstants));
  }
  if (!BindSizes(*translated, feeds).ok()) {
    DFC_ASSIGN_OR_RETURN(translated, translate(FedDims::kAll));
  }
  if (translated->host_device_nodes.empty()) return translated;
  absl::StatusOr<const ir::TranslatedGraph*> known = translate(FedDims::kAllButBatch);
  if (known.ok() && (*known)->host_device_nodes.size() < translated->host_device_nodes.size() &&
      BindSizes(**known, feeds).ok()) {
    return *known;
  }
  return translated;
}

absl::StatusOr<ir::TranslatedGraph> TranslateForFeeds(const Graph& graph,
                                                      const std::vector<TensorId>& fetches,
                                                      const std::vector<Feed>& feeds,
                                                      const std::vector<std::string>& targets,
                                                      bool loop_body, Folding folding) {
  std::map<FedDims, ir::TranslatedGraph> made;
  DFC_ASSIGN_OR_RETURN(
      const ir::TranslatedGraph* chosen,
      ChooseTranslation(
          [&](FedDims dims) -> absl::StatusOr<const ir::TranslatedGraph*> {
            DFC_ASSIGN_OR_RETURN(made[dims],
                                 TranslateForFeedShapes(graph, fetches, feeds, targets, dims,
                                                        loop_body, folding));
            return &made[dims];
          },
          feeds));
  for (auto& [dims, translated] : made) {
    if (&translated == chosen) return std::move(translated);
  }
  return absl::InternalError("the chosen translation is none of those made");
}

absl::flat_hash_map<std::string, PartialShape> FedShapes(const Graph& graph,
                                                         const std::vector<Feed>& feeds,
                                                         FedDims dims) {
  absl::flat_hash_map<std::string, PartialShape> shapes;
  for (const auto& [id, tensor] : feeds) {
    const Node* node = graph.FindNode(id.node);
    if (node == nullptr) continue;
    if (std::optional<PartialShape> shape = FedPlaceholderShape(*node, tensor.shape(), dims)) {
      shapes[id.node] = *std::move(shape);
    }
  }
  return shapes;
}

absl::StatusOr<ir::TranslatedGraph> TranslateForFeedShapes(const Graph& graph,
                                                           const std::vector<TensorId>& fetches,
                                                           const std::vector<Feed>& feeds,
                                                           const std::vector<std::string>& targets,
                                                           FedDims dims, bool loop_body,
                                                           Folding folding) {
  std::vector<TensorId> fed_ids;
  for (const auto& [id, tensor] : feeds) fed_ids.push_back(id);
  ir::TranslateOptions options{.fold_only_static = folding == Folding::kStatic,
                               .placeholder_shapes = FedShapes(graph, feeds, dims),
                               .host_integer_scalars = loop_body};
  // A fed TensorArray (a loop body's argument): its reads have its elements' shape.
  for (const auto& [id, tensor] : feeds) {
    if (const TensorArrayValue* array = AsTensorArray(tensor)) {
      if (std::optional<Shape> shape = array->UniformElementShape()) {
        options.array_element_shapes[id.node] = *std::move(shape);
      }
    }
  }
  ReferenceFoldOracle oracle;
  return ir::TranslateGraph(graph, fetches, targets, fed_ids, oracle, options);
}

namespace {

// Unified variables: N1 -> N binds N from N1's binding if N has none, and must agree otherwise.
// `bound_by` says where each binding came from ("feed \"x\" dimension 0"), for the error.
absl::Status UnifySizes(const ir::TranslatedGraph& translated, SizeBindings& sizes,
                        absl::flat_hash_map<std::string, std::string>& bound_by) {
  for (bool progress = true; progress;) {
    progress = false;
    for (const auto& [var, expr] : translated.size_substitutions) {
      auto bound = sizes.find(var);
      if (bound == sizes.end()) continue;
      absl::StatusOr<int64_t> value = expr.Evaluate(sizes);
      if (!value.ok()) {
        if (expr.kind() == ArithExpr::Kind::kVar) {
          sizes[expr.var_name()] = bound->second;
          bound_by[expr.var_name()] = bound_by[var];
          progress = true;
        }
        continue;
      }
      if (*value != bound->second) {
        return absl::InvalidArgumentError(
            absl::StrCat(bound_by[var], " is ", bound->second,
                         ", but the graph combines it with a dimension of ", expr.ToString(), " = ",
                         *value, " (an op needs the two sizes equal)"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SizeBindings> BindSizes(const ir::TranslatedGraph& translated,
                                       const std::vector<Feed>& feeds) {
  SizeBindings sizes;
  absl::flat_hash_map<std::string, std::string> bound_by;  // variable -> "feed x, dimension 0"
  for (const SizeVariable& var : translated.fold.size_variables) {
    if (var.when_run) continue;
    for (const auto& [id, tensor] : feeds) {
      if (id.node != var.placeholder || id.index != 0) continue;
      if (var.dim >= static_cast<int>(tensor.shape().size())) {
        return absl::InvalidArgumentError(
            absl::StrCat("feed \"", id.ToString(), "\" has shape ", ShapeToString(tensor.shape()),
                         ", but dimension ", var.dim, " is the size variable ", var.name));
      }
      sizes.emplace(var.name, tensor.shape()[var.dim]);
      bound_by.emplace(var.name, absl::StrCat("feed \"", id.ToString(), "\" dimension ", var.dim));
    }
  }
  DFC_RETURN_IF_ERROR(UnifySizes(translated, sizes, bound_by));
  return sizes;
}

bool BindsSizesWhenRun(const ir::TranslatedGraph& translated) {
  const std::vector<SizeVariable>& vars = translated.fold.size_variables;
  return std::any_of(vars.begin(), vars.end(), [](const SizeVariable& v) { return v.when_run; });
}

absl::Status BindRunSizes(const ir::TranslatedGraph& translated, const Node& node,
                          std::span<const Tensor> outputs, SizeBindings& sizes) {
  absl::flat_hash_map<std::string, std::string> bound_by;
  for (const SizeVariable& var : translated.fold.size_variables) {
    if (!var.when_run || var.placeholder != node.name) continue;
    if (var.output >= static_cast<int>(outputs.size()) ||
        var.dim >= static_cast<int>(outputs[var.output].shape().size())) {
      return node.Error(absl::StrCat("output ", var.output, " has no dimension ", var.dim,
                                     " for the size variable ", var.name));
    }
    sizes[var.name] = outputs[var.output].shape()[var.dim];
    bound_by[var.name] =
        absl::StrCat("output ", var.output, " of \"", node.name, "\" dimension ", var.dim);
  }
  if (bound_by.empty()) return absl::OkStatus();
  return UnifySizes(translated, sizes, bound_by);
}

absl::StatusOr<std::vector<Tensor>> RunTranslated(const Graph& graph,
                                                  const ir::TranslatedGraph& translated,
                                                  const std::vector<Feed>& feeds,
                                                  const std::vector<TensorId>& fetches,
                                                  const ClusterRunner& run_cluster,
                                                  const FunctionRunner& run_function,
                                                  const FunctionLibrary* library) {
  if (library == nullptr) library = graph.functions().get();
  DFC_ASSIGN_OR_RETURN(SizeBindings sizes, BindSizes(translated, feeds));
  absl::flat_hash_map<TensorId, Tensor> values;
  Liveness liveness;
  for (const auto& [id, tensor] : feeds) {
    values[id] = tensor;
    liveness.Feed(id);
  }
  const ValueOf value_of = [&](const TensorId& id) -> absl::StatusOr<Tensor> {
    auto it = values.find(id);
    if (it == values.end()) {
      if (liveness.IsDead(id)) return DeadTensorError(id, nullptr);
      return absl::InternalError(absl::StrCat("tensor \"", id.ToString(), "\" was not computed"));
    }
    return it->second;
  };

  for (const ExecutionUnit& unit : translated.partition.schedule) {
    if (unit.node >= 0) {
      const Node& node = graph.node(unit.node);
      if (!liveness.Runs(node)) {
        liveness.Skip(graph, unit.node);
        continue;
      }
      if (IsMerge(node)) {
        DFC_ASSIGN_OR_RETURN(const int k, liveness.MergeInput(node));
        DFC_ASSIGN_OR_RETURN(Tensor value, value_of(node.inputs[k]));
        values[TensorId{node.name, 0}] = std::move(value);
        values[TensorId{node.name, 1}] = Tensor::Scalar<int32_t>(k);
        continue;
      }
      std::vector<Tensor> inputs;
      for (const TensorId& id : node.inputs) {
        DFC_ASSIGN_OR_RETURN(Tensor t, value_of(id));
        inputs.push_back(std::move(t));
      }
      std::vector<Tensor> outputs;
      if (IsSwitch(node)) {
        DFC_ASSIGN_OR_RETURN(const int taken,
                             liveness.TakeSwitch(node, inputs.size() > 1 ? inputs[1] : Tensor()));
        values[TensorId{node.name, taken}] = inputs[0];
        continue;
      }
      if (IsWhile(node) || IsIf(node)) {
        if (!run_function) return node.Error("functions cannot run here");
        const auto run = [&](const FunctionGraph& f, std::vector<Tensor> args) {
          return run_function(node, f, std::move(args));
        };
        const auto truth = [&](const Tensor& t) { return Truth(node, t, "its condition's value"); };
        DFC_ASSIGN_OR_RETURN(outputs, RunFunctional<Tensor>(node, library, std::move(inputs),
                                                            kDefaultMaxLoopIterations, run, truth));
      } else {
        DFC_ASSIGN_OR_RETURN(outputs, reference::EvaluateNode(node, inputs));
      }
      DFC_RETURN_IF_ERROR(BindRunSizes(translated, node, outputs, sizes));
      for (int k = 0; k < static_cast<int>(outputs.size()); ++k) {
        values[TensorId{node.name, k}] = std::move(outputs[k]);
      }
      continue;
    }
    if (const Cluster& nodes = translated.partition.clusters[unit.cluster];
        !liveness.Runs(nodes, graph)) {
      liveness.Skip(graph, nodes);
      continue;
    }
    const ir::TranslatedCluster& cluster = translated.clusters[unit.cluster];
    const auto& lambda = *cluster.lambda;
    std::vector<Tensor> params;
    for (size_t k = 0; k < cluster.params.size(); ++k) {
      DFC_ASSIGN_OR_RETURN(Tensor t, value_of(cluster.params[k]));
      // The value must have the parameter's type under the bound sizes: a round trip checks it.
      if (absl::StatusOr<Tensor> check =
              ir::TensorFromValue(ir::ValueFromTensor(t), lambda.params[k]->type, sizes);
          !check.ok() || check->dtype() != t.dtype()) {
        return absl::InvalidArgumentError(
            absl::StrCat("tensor \"", cluster.params[k].ToString(), "\" is ", DTypeName(t.dtype()),
                         ShapeToString(t.shape()), ", but the compiled cluster expects ",
                         ir::TypeToString(lambda.params[k]->type)));
      }
      params.push_back(std::move(t));
    }
    DFC_ASSIGN_OR_RETURN(std::vector<Tensor> outputs,
                         run_cluster(unit.cluster, std::move(params), sizes, value_of));
    for (size_t k = 0; k < cluster.outputs.size(); ++k) {
      values[cluster.outputs[k]] = std::move(outputs[k]);
    }
  }
  std::vector<Tensor> out;
  for (const TensorId& id : fetches) {
    DFC_ASSIGN_OR_RETURN(Tensor t, value_of(id));
    out.push_back(std::move(t));
  }
  return out;
}

absl::StatusOr<Tensor> CompileTimeValue(const TensorInfo& info, const SizeBindings& sizes) {
  if (info.value) return *info.value;
  if (!info.symbolic_value || !info.shape) {
    return absl::InternalError(
        absl::StrCat("a value read when compiling is not known: ", info.ToString()));
  }
  std::vector<int64_t> values;
  for (const ArithExpr& e : *info.symbolic_value) {
    DFC_ASSIGN_OR_RETURN(int64_t v, e.Evaluate(sizes));
    values.push_back(v);
  }
  DFC_ASSIGN_OR_RETURN(const Shape shape, EvaluateShape(*info.shape, sizes));
  if (info.dtype == DType::kInt64) return Tensor::FromVector<int64_t>(values, shape);
  std::vector<int32_t> narrow(values.begin(), values.end());
  return Tensor::FromVector<int32_t>(narrow, shape);
}

absl::StatusOr<std::vector<Tensor>> RunClusterByReference(const Graph& graph,
                                                          const Cluster& cluster,
                                                          const FoldResult& fold,
                                                          const SizeBindings& sizes,
                                                          const ValueOf& value_of) {
  absl::flat_hash_map<TensorId, Tensor> inside;
  for (int n : cluster.nodes) {
    const Node& node = graph.node(n);
    std::vector<Tensor> inputs;
    for (int j = 0; j < static_cast<int>(node.inputs.size()); ++j) {
      const TensorId& id = node.inputs[j];
      auto it = inside.find(id);
      if (it != inside.end()) {
        inputs.push_back(it->second);
        continue;
      }
      absl::StatusOr<Tensor> t = ir::ReadsStatically(node, j, fold.Info(graph, id))
                                     ? CompileTimeValue(fold.Info(graph, id), sizes)
                                     : value_of(id);
      if (!t.ok()) return t.status();
      inputs.push_back(*std::move(t));
    }
    DFC_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, reference::EvaluateNode(node, inputs));
    for (int k = 0; k < static_cast<int>(outputs.size()); ++k) {
      inside[TensorId{node.name, k}] = std::move(outputs[k]);
    }
  }
  std::vector<Tensor> out;
  for (const TensorId& id : cluster.outputs) {
    auto it = inside.find(id);
    if (it == inside.end()) {
      return absl::InternalError(
          absl::StrCat("cluster output \"", id.ToString(), "\" was not computed"));
    }
    out.push_back(it->second);
  }
  return out;
}

namespace {

absl::StatusOr<std::vector<Tensor>> RunInterpretedAt(const Graph& graph,
                                                     const FunctionLibrary* library,
                                                     const ir::TranslatedGraph& translated,
                                                     const std::vector<Feed>& feeds,
                                                     const std::vector<TensorId>& fetches,
                                                     int depth) {
  // A function's graph holds no library: its While and If nodes name the top graph's.
  const FunctionRunner run_function = [&](const Node& caller, const FunctionGraph& f,
                                          std::vector<Tensor> args)
      -> absl::StatusOr<std::vector<Tensor>> {
    if (depth >= kMaxFunctionDepth) return FunctionDepthError(caller);
    const std::vector<Feed> inner = ArgumentFeeds(f, std::move(args));
    DFC_RETURN_IF_ERROR(CheckFeeds(*f.graph, inner));
    DFC_ASSIGN_OR_RETURN(ir::TranslatedGraph t,
                         TranslateForFeeds(*f.graph, f.results, inner, f.targets));
    return RunInterpretedAt(*f.graph, library, t, inner, f.results, depth + 1);
  };
  return RunTranslated(
      graph, translated, feeds, fetches,
      [&](int index, std::vector<Tensor> params, const SizeBindings& sizes,
          const ValueOf&) -> absl::StatusOr<std::vector<Tensor>> {
        const ir::TranslatedCluster& cluster = translated.clusters[index];
        std::vector<ir::Value> args;
        for (const Tensor& t : params) args.push_back(ir::ValueFromTensor(t));
        ir::Interpreter interpreter(sizes);
        DFC_ASSIGN_OR_RETURN(ir::Value result, interpreter.Apply(cluster.lambda, std::move(args)));
        std::vector<Tensor> outputs;
        for (size_t k = 0; k < cluster.outputs.size(); ++k) {
          const ir::Value& v = cluster.outputs.size() == 1 ? result : result.elements[k];
          DFC_ASSIGN_OR_RETURN(Tensor t, ir::TensorFromValue(v, cluster.output_types[k], sizes));
          outputs.push_back(std::move(t));
        }
        return outputs;
      },
      run_function, library);
}

}  // namespace

absl::StatusOr<std::vector<Tensor>> RunInterpreted(const Graph& graph,
                                                   const ir::TranslatedGraph& translated,
                                                   const std::vector<Feed>& feeds,
                                                   const std::vector<TensorId>& fetches) {
  return RunInterpretedAt(graph, graph.functions().get(), translated, feeds, fetches, 0);
}

}  // namespace dfc
