// Running translated graphs (see interpreted.h).
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
#include "runtime/size_bindings.h"
#include "runtime/translate_for_feeds.h"

namespace dfc {

absl::StatusOr<std::vector<Tensor>> RunTranslated(
    const Graph& graph, const ir::TranslatedGraph& translated, const std::vector<Feed>& feeds,
    const std::vector<TensorId>& fetches, const ClusterRunner& run_cluster,
    const FunctionRunner& run_function, const FunctionLibrary* library) {
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

absl::StatusOr<std::vector<Tensor>> RunInterpretedAt(
    const Graph& graph, const FunctionLibrary* library, const ir::TranslatedGraph& translated,
    const std::vector<Feed>& feeds, const std::vector<TensorId>& fetches, int depth) {
  // A function's graph holds no library: its While and If nodes name the top graph's.
  const FunctionRunner run_function =
      [&](const Node& caller, const FunctionGraph& f,
          std::vector<Tensor> args) -> absl::StatusOr<std::vector<Tensor>> {
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
