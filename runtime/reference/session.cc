// The reference session: plan (prune, check support), then run nodes in topological order.
#include "runtime/reference/session.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "graph/ops.h"
#include "runtime/control_flow.h"

namespace dfc::reference {

Session::Session(std::shared_ptr<const Graph> graph, Options options)
    : Session(graph, options, graph->functions(), 0) {}

Session::Session(std::shared_ptr<const Graph> graph, Options options,
                 std::shared_ptr<const FunctionLibrary> library, int depth)
    : graph_(std::move(graph)), options_(options), library_(std::move(library)), depth_(depth) {}

absl::StatusOr<std::vector<Tensor>> Session::RunFunction(const Node& caller, const FunctionGraph& f,
                                                         std::vector<Tensor> args) {
  auto it = function_sessions_.find(f.graph.get());
  if (it == function_sessions_.end()) {
    if (depth_ >= kMaxFunctionDepth) return FunctionDepthError(caller);
    auto session = std::unique_ptr<Session>(new Session(f.graph, options_, library_, depth_ + 1));
    it = function_sessions_.emplace(f.graph.get(), std::move(session)).first;
  }
  std::vector<std::string> fetches;
  for (const TensorId& r : f.results) fetches.push_back(r.ToString());
  return it->second->Run(ArgumentFeeds(f, std::move(args)), fetches, f.targets);
}

absl::StatusOr<std::vector<Tensor>> Session::RunControl(const Node& node,
                                                        std::vector<Tensor> inputs) {
  const auto run = [&](const FunctionGraph& f, std::vector<Tensor> args) {
    return RunFunction(node, f, std::move(args));
  };
  const auto truth = [&](const Tensor& t) { return Truth(node, t, "its condition's value"); };
  return RunFunctional<Tensor>(node, library_.get(), std::move(inputs),
                               options_.max_loop_iterations, run, truth);
}

bool Session::IsVariable(int node) const {
  const OpDef* def = FindOpDef(graph_->node(node).op);
  return def != nullptr && def->variable;
}

Philox& Session::RngFor(int node) {
  auto it = rngs_.find(node);
  if (it != rngs_.end()) return it->second;
  return rngs_.emplace(node, NodePhilox(graph_->node(node))).first->second;
}

absl::Status UninitializedVariableError(const Node& consumer, absl::string_view variable) {
  return consumer.Error(absl::StrCat("reads variable \"", variable,
                                     "\" before it is initialized (run its initializer first, "
                                     "e.g. --target init)"));
}

absl::StatusOr<const Session::Plan*> Session::GetPlan(const std::vector<TensorId>& feed_ids,
                                                      const std::vector<std::string>& fetches,
                                                      const std::vector<std::string>& targets) {
  std::vector<std::string> feed_names;
  for (const TensorId& id : feed_ids) feed_names.push_back(id.ToString());
  std::sort(feed_names.begin(), feed_names.end());
  const std::string key =
      absl::StrCat(absl::StrJoin(feed_names, ","), "|", absl::StrJoin(fetches, ","), "|",
                   absl::StrJoin(targets, ","));
  if (auto it = plans_.find(key); it != plans_.end()) return it->second.get();

  auto plan = std::make_unique<Plan>();
  for (const std::string& fetch : fetches) {
    absl::StatusOr<TensorId> id = TensorId::Parse(fetch);
    if (!id.ok()) return absl::InvalidArgumentError(absl::StrCat("fetch: ", id.status().message()));
    plan->fetches.push_back(*std::move(id));
  }
  const absl::flat_hash_set<TensorId> fed(feed_ids.begin(), feed_ids.end());
  absl::StatusOr<std::vector<int>> nodes = NeededNodes(*graph_, plan->fetches, targets, fed);
  DFC_RETURN_IF_ERROR(nodes.status());
  DFC_RETURN_IF_ERROR(CheckSupported(*graph_, *nodes));
  for (int i : *nodes) {
    if (FindOpDef(graph_->node(i).op)->control) continue;  // run by Run itself
    if (KernelRegistry::Global().Find(graph_->node(i).op) == nullptr) {
      return graph_->node(i).Error("no reference kernel for this op");
    }
  }
  plan->nodes = *std::move(nodes);
  return plans_.emplace(key, std::move(plan)).first->second.get();
}

absl::StatusOr<std::vector<Tensor>> Session::Run(const std::vector<Feed>& feeds,
                                                 const std::vector<std::string>& fetches,
                                                 const std::vector<std::string>& targets) {
  DFC_RETURN_IF_ERROR(CheckFeeds(*graph_, feeds));
  std::vector<TensorId> feed_ids;
  absl::flat_hash_map<TensorId, const Tensor*> fed;
  for (const Feed& feed : feeds) {
    fed.emplace(feed.id, &feed.value);
    feed_ids.push_back(feed.id);
  }
  DFC_ASSIGN_OR_RETURN(const Plan* plan, GetPlan(feed_ids, fetches, targets));

  // Values of every node run so far, by node index. Variables are not stored here: their
  // consumers read the variable's current value when they run, as TF's reference edges do.
  absl::flat_hash_map<int, std::vector<Tensor>> values;
  // The tensors of branches not taken.
  Liveness liveness;
  for (const Feed& feed : feeds) liveness.Feed(feed.id);
  auto read = [&](const TensorId& id, const Node& consumer) -> absl::StatusOr<Tensor> {
    if (auto it = fed.find(id); it != fed.end()) return *it->second;
    if (liveness.IsDead(id)) return DeadTensorError(id, &consumer);
    const int producer = graph_->IndexOf(id.node);
    if (IsVariable(producer)) {
      auto slot = variables_.find(producer);
      if (slot == variables_.end() || !slot->second.initialized) {
        return UninitializedVariableError(consumer, id.node);
      }
      return slot->second.value;
    }
    const std::vector<Tensor>& outputs = values[producer];
    if (static_cast<size_t>(id.index) >= outputs.size()) {
      return consumer.Error(absl::StrCat("input \"", id.ToString(), "\" was not produced (\"",
                                         id.node, "\" gave ", outputs.size(), " output(s))"));
    }
    return outputs[id.index];
  };

  for (int i : (plan)->nodes) {
    const Node& node = graph_->node(i);
    const OpDef* def = FindOpDef(node.op);  // the plan checked every node is supported
    if (!liveness.Runs(node)) {
      liveness.Skip(*graph_, i);
      continue;
    }
    if (IsMerge(node)) {
      DFC_ASSIGN_OR_RETURN(const int k, liveness.MergeInput(node));
      DFC_ASSIGN_OR_RETURN(Tensor value, read(node.inputs[k], node));
      values[i] = {std::move(value), Tensor::Scalar<int32_t>(k)};
      continue;
    }

    std::vector<Tensor> inputs;
    std::vector<KernelContext::VariableSlot*> refs(node.inputs.size(), nullptr);
    inputs.reserve(node.inputs.size());
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      const TensorId& id = node.inputs[k];
      const int producer = graph_->IndexOf(id.node);
      // A ref input (Assign's variable, ApplyAdam's var, m and v) is the variable itself.
      if (static_cast<int>(k) < def->num_ref_inputs && IsVariable(producer) && !fed.contains(id)) {
        refs[k] = &variables_[producer];
        inputs.push_back(refs[k]->value);  // the current value, unused by the kernels
        continue;
      }
      DFC_ASSIGN_OR_RETURN(Tensor value, read(id, node));
      inputs.push_back(std::move(value));
    }
    if (IsSwitch(node)) {
      DFC_RETURN_IF_ERROR(
          liveness.TakeSwitch(node, inputs.size() > 1 ? inputs[1] : Tensor()).status());
      values[i] = {inputs[0], inputs[0]};
      continue;
    }
    if (IsWhile(node) || IsIf(node)) {
      DFC_ASSIGN_OR_RETURN(std::vector<Tensor> out, RunControl(node, std::move(inputs)));
      if (static_cast<int>(out.size()) != graph_->num_outputs(i)) {
        return node.Error(absl::StrCat("its function gives ", out.size(), " values for ",
                                       graph_->num_outputs(i), " outputs"));
      }
      values[i] = std::move(out);
      continue;
    }
    KernelContext ctx(node, inputs);
    ctx.set_ref_inputs(std::move(refs));
    if (IsVariable(i)) ctx.set_own_variable(&variables_[i]);
    if (def->stateful) ctx.set_rng(&RngFor(i));
    if (absl::Status s = (*KernelRegistry::Global().Find(node.op))(ctx); !s.ok()) {
      return node.Annotate(s);
    }
    const int expected = graph_->num_outputs(i);
    if (!IsVariable(i) && expected >= 0 && static_cast<int>(ctx.outputs().size()) != expected) {
      return absl::InternalError(absl::StrCat("node \"", node.name, "\" (", node.op,
                                              "): the kernel produced ", ctx.outputs().size(),
                                              " outputs, expected ", expected));
    }
    values[i] = std::move(ctx.outputs());
  }

  std::vector<Tensor> results;
  results.reserve((plan)->fetches.size());
  for (const TensorId& fetch : (plan)->fetches) {
    if (liveness.IsDead(fetch)) {
      return absl::InvalidArgumentError(
          absl::StrCat("fetch ", DeadTensorError(fetch, nullptr).message()));
    }
    const int producer = graph_->IndexOf(fetch.node);
    DFC_ASSIGN_OR_RETURN(Tensor value, read(fetch, graph_->node(producer)));
    results.push_back(std::move(value));
  }
  return results;
}

}  // namespace dfc::reference
