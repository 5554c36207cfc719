// A run's control flow and function calls: a TF1 loop on the inline device, While and If run
// as graphs of their own, and TF2 functions called with their arguments' types (see
// device_run.h).
#include <optional>

#include "absl/container/node_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/tensor_list.h"
#include "runtime/device_run.h"
#include "runtime/opencl/handles.h"
#include "runtime/size_bindings.h"
#include "runtime/translate_for_feeds.h"

namespace dfc {

namespace {

// The TensorArray or TensorList a host value holds, or null.
const TensorArrayValue* HostArrayOf(const DeviceTensor& a) {
  return a.host ? AsTensorArray(*a.host) : nullptr;
}

// The inline device for the rest of a loop (Enter), where the context has one and is not on it
// already, and the device again after it (Leave, or on the way out of an error).
class InlineLoop {
 public:
  explicit InlineLoop(cl::ClContext& context) : context_(context) {}
  InlineLoop(const InlineLoop&) = delete;
  InlineLoop& operator=(const InlineLoop&) = delete;
  ~InlineLoop() { Leave().IgnoreError(); }

  absl::Status Enter() {
    if (!context_.has_inline_device() || context_.inline_active()) return absl::OkStatus();
    entered_ = true;
    return context_.UseInline(true);
  }
  bool entered() const { return entered_; }
  absl::Status Leave() {
    if (!entered_) return absl::OkStatus();
    entered_ = false;
    return context_.UseInline(false);
  }

 private:
  cl::ClContext& context_;
  bool entered_ = false;
};

}  // namespace

absl::Status DeviceExecutor::ActiveRun::RunControl(const Node& node) {
  if (IsMerge(node)) {
    DFC_ASSIGN_OR_RETURN(const int k, liveness_.MergeInput(node));
    DFC_ASSIGN_OR_RETURN(std::shared_ptr<DeviceTensor> value, Value(node.inputs[k], &node));
    values_[Slot{&node, 0}] = std::move(value);
    values_[Slot{&node, 1}] = OnHost(Tensor::Scalar<int32_t>(k));
    return absl::OkStatus();
  }
  if (IsSwitch(node)) {
    if (node.inputs.size() != 2) return node.Error("expected a value and a predicate");
    DFC_ASSIGN_OR_RETURN(Tensor pred, Host(node.inputs[1], &node));
    DFC_ASSIGN_OR_RETURN(const int taken, liveness_.TakeSwitch(node, pred));
    DFC_ASSIGN_OR_RETURN(std::shared_ptr<DeviceTensor> value, Value(node.inputs[0], &node));
    values_[Slot{&node, taken}] = std::move(value);
    return absl::OkStatus();
  }
  std::vector<std::shared_ptr<DeviceTensor>> inputs;
  for (const TensorId& id : node.inputs) {
    DFC_ASSIGN_OR_RETURN(std::shared_ptr<DeviceTensor> value, Value(id, &node));
    inputs.push_back(std::move(value));
  }
  using V = std::shared_ptr<DeviceTensor>;
  // A loop's invariant arguments: those its body returns as they came.
  LoopInvariants invariants;
  const FunctionGraph* body = nullptr;
  if (IsWhile(node)) {
    DFC_ASSIGN_OR_RETURN(body, NamedFunction(node, library_, "body"));
    for (size_t k = 0; k < body->args.size() && k < body->results.size(); ++k) {
      if (body->results[k] == TensorId{body->args[k], 0}) invariants.args.insert(body->args[k]);
    }
  }
  // The condition's and the body's last calls; a node map, as the run a call makes refers to
  // its sizes while the other call is added.
  absl::node_hash_map<const FunctionGraph*, FunctionCall> calls;
  // A loop on the device whose body's first iteration launched only kernels of fewer rows than
  // the device has compute units (an RNN cell at batch 1) runs its later iterations on the
  // inline device: no unit could share such a kernel, and each launch would hand off to the
  // device's threads and back. One wait when the queue changes, one after the loop.
  bool placed = body == nullptr;
  InlineLoop inline_loop(*ex_.context_);
  const auto run = [&](const FunctionGraph& f,
                       std::vector<V> args) -> absl::StatusOr<std::vector<V>> {
    const bool first_body = !placed && &f == body;
    const int64_t launched = ex_.context_->launches(), narrow = ex_.narrow_launches_;
    absl::StatusOr<std::vector<V>> out =
        RunFunction(node, f, std::move(args), &f == body ? &invariants : nullptr, &calls[&f]);
    if (first_body && out.ok()) {
      placed = true;
      const int64_t launches = ex_.context_->launches() - launched;
      if (ex_.placement_ != RunPlacement::kDevice &&
          OnlyNarrow(launches, ex_.narrow_launches_ - narrow)) {
        DFC_RETURN_IF_ERROR(inline_loop.Enter());
        if (inline_loop.entered()) ++ex_.inline_loops_;
      }
    }
    return out;
  };
  // The loop's condition is the one value a loop reads back each iteration.
  const auto truth = [&](const V& value) -> absl::StatusOr<bool> {
    if (!value->host) DFC_RETURN_IF_ERROR(Download(*value));
    return Truth(node, *value->host, "its condition's value");
  };
  DFC_ASSIGN_OR_RETURN(std::vector<V> out,
                       RunFunctional<V>(node, library_, std::move(inputs),
                                        ex_.options_.max_loop_iterations, run, truth));
  DFC_RETURN_IF_ERROR(inline_loop.Leave());
  for (size_t k = 0; k < out.size(); ++k) {
    values_[Slot{&node, static_cast<int>(k)}] = std::move(out[k]);
  }
  return absl::OkStatus();
}

std::vector<TensorId> DeviceExecutor::ActiveRun::UnitOutputs(const ExecutionUnit& unit) const {
  if (unit.cluster >= 0) return translated_.clusters[unit.cluster].outputs;
  std::vector<TensorId> out;
  for (int k = 0; k < graph_.num_outputs(unit.node); ++k) {
    out.push_back(TensorId{graph_.node(unit.node).name, k});
  }
  return out;
}

const std::vector<bool>& DeviceExecutor::FunctionTranslation::InvariantUnits(
    const Graph& graph, const absl::flat_hash_set<std::string>& args) {
  if (invariant_units) return *invariant_units;
  // A node is invariant if it is pure and reads only invariant arguments and constants (its
  // control inputs, the loop's pivot, only say that it runs in the loop).
  std::vector<bool> node_invariant(graph.num_nodes(), false);
  for (int i : graph.topological_order()) {
    const Node& node = graph.node(i);
    const OpDef* def = FindOpDef(node.op);
    if (node.op == "Placeholder") {
      node_invariant[i] = args.contains(node.name);
      continue;
    }
    if (def == nullptr || def->stateful || def->control || def->variable) continue;
    bool reads_invariants = true;
    for (const TensorId& id : node.inputs) {
      const int p = graph.IndexOf(id.node);
      reads_invariants &= p >= 0 && node_invariant[p];
    }
    node_invariant[i] = reads_invariants;
  }
  std::vector<bool> units;
  for (const ExecutionUnit& unit : translated.partition.schedule) {
    bool invariant = true;
    if (unit.cluster >= 0) {
      for (int n : translated.partition.clusters[unit.cluster].nodes)
        invariant &= node_invariant[n];
    } else {
      // A constant is made once for all runs already.
      invariant = node_invariant[unit.node] && graph.node(unit.node).op != "Const";
    }
    units.push_back(invariant);
  }
  invariant_units = std::move(units);
  return *invariant_units;
}

DeviceExecutor::ActiveRun::ArgumentType DeviceExecutor::ActiveRun::ArgumentType::Of(
    const DeviceTensor& a) {
  const TensorArrayValue* array = HostArrayOf(a);
  return {.dtype = a.dtype,
          .shape = a.shape,
          .array = array != nullptr,
          .elements = array != nullptr ? array->UniformElementShape() : std::nullopt};
}

bool DeviceExecutor::ActiveRun::ArgumentType::Matches(const DeviceTensor& a) const {
  if (a.dtype != dtype || a.shape != shape) return false;
  const TensorArrayValue* array = HostArrayOf(a);
  if ((array != nullptr) != this->array) return false;
  return array == nullptr || array->UniformElementShape() == elements;
}

absl::StatusOr<DeviceExecutor::ActiveRun::FunctionCall> DeviceExecutor::ActiveRun::PrepareCall(
    const Node& caller, const FunctionGraph& f,
    const std::vector<std::shared_ptr<DeviceTensor>>& args, std::vector<ArgumentType> types) {
  // The translation needs the arguments' types only: their values stay where they are.
  std::vector<dfc::Feed> shapes;
  shapes.reserve(args.size());
  std::string key = absl::StrCat(reinterpret_cast<uintptr_t>(f.graph.get()), ":");
  for (size_t k = 0; k < args.size(); ++k) {
    const DeviceTensor& a = *args[k];
    absl::StatusOr<Tensor> t = a.host ? *a.host : Tensor::ShapeOnly(a.dtype, a.shape);
    if (!t.ok()) return t.status();
    shapes.push_back(dfc::Feed{TensorId{f.args[k], 0}, *std::move(t)});
    absl::StrAppend(&key, a.DebugType(), ";");
    if (types[k].array) {
      absl::StrAppend(&key, "elements ",
                      types[k].elements ? ShapeToString(*types[k].elements) : "?", ";");
    }
  }
  DFC_RETURN_IF_ERROR(CheckFeeds(*f.graph, shapes));
  auto& cached = ex_.function_translations_[key];
  if (cached == nullptr) {
    DFC_ASSIGN_OR_RETURN(ir::TranslatedGraph t,
                         TranslateForFeeds(*f.graph, f.results, shapes, f.targets,
                                           /*loop_body=*/IsWhile(caller), ex_.options_.folding));
    std::string name = caller.name;
    if (library_ != nullptr) {
      for (const auto& [function, graph] : *library_) {
        if (graph.graph == f.graph) name = function;
      }
    }
    cached = std::make_unique<FunctionTranslation>(
        FunctionTranslation{.graph = f.graph, .translated = std::move(t), .name = std::move(name)});
  }
  DFC_ASSIGN_OR_RETURN(SizeBindings sizes, BindSizes(cached->translated, shapes));
  return FunctionCall{
      .types = std::move(types), .translation = cached.get(), .sizes = std::move(sizes)};
}

absl::StatusOr<std::vector<std::shared_ptr<DeviceTensor>>> DeviceExecutor::ActiveRun::RunFunction(
    const Node& caller, const FunctionGraph& f, std::vector<std::shared_ptr<DeviceTensor>> args,
    LoopInvariants* invariants, FunctionCall* call) {
  if (depth_ >= kMaxFunctionDepth) return FunctionDepthError(caller);
  FunctionCall once;
  if (call == nullptr) call = &once;
  const auto matches = [&] {
    if (call->translation == nullptr || call->types.size() != args.size()) return false;
    for (size_t k = 0; k < args.size(); ++k) {
      if (!call->types[k].Matches(*args[k])) return false;
    }
    return true;
  };
  if (!matches()) {
    std::vector<ArgumentType> types;
    types.reserve(args.size());
    for (const std::shared_ptr<DeviceTensor>& a : args) types.push_back(ArgumentType::Of(*a));
    DFC_ASSIGN_OR_RETURN(*call, PrepareCall(caller, f, args, std::move(types)));
  }
  FunctionTranslation* const cached = call->translation;
  const ir::TranslatedGraph* translation = &cached->translated;
  const SizeBindings& sizes = call->sizes;
  ActiveRun inner(ex_, *f.graph, *translation, sizes, state_, library_, depth_ + 1);
  inner.function_ = cached->name;
  for (size_t k = 0; k < args.size(); ++k) inner.Feed(TensorId{f.args[k], 0}, std::move(args[k]));
  const std::vector<bool>* invariant =
      invariants != nullptr ? &cached->InvariantUnits(*f.graph, invariants->args) : nullptr;
  const auto& schedule = translation->partition.schedule;
  for (size_t u = 0; u < schedule.size(); ++u) {
    if (invariant == nullptr || !(*invariant)[u]) {
      DFC_RETURN_IF_ERROR(inner.RunUnit(schedule[u]));
      continue;
    }
    // Computed in the first iteration, kept for the others.
    const std::vector<TensorId> outputs = inner.UnitOutputs(schedule[u]);
    const bool kept = std::all_of(outputs.begin(), outputs.end(), [&](const TensorId& id) {
      return invariants->values.contains(id);
    });
    if (kept) {
      for (const TensorId& id : outputs) {
        inner.values_[inner.SlotOf(id)] = invariants->values.at(id);
      }
      continue;
    }
    DFC_RETURN_IF_ERROR(inner.RunUnit(schedule[u]));
    for (const TensorId& id : outputs) {
      if (const auto it = inner.values_.find(inner.SlotOf(id)); it != inner.values_.end()) {
        invariants->values[id] = it->second;
      }
    }
  }
  std::vector<std::shared_ptr<DeviceTensor>> results;
  for (const TensorId& id : f.results) {
    DFC_ASSIGN_OR_RETURN(std::shared_ptr<DeviceTensor> value, inner.Result(id));
    results.push_back(std::move(value));
  }
  // Its error flags and state changes become this run's.
  for (PendingError& p : inner.pending_) pending_.push_back(std::move(p));
  inner.pending_.clear();
  for (auto& [name, value] : inner.written_) written_[name] = std::move(value);
  inner.written_.clear();
  for (auto& [name, rng] : inner.rngs_) rngs_[name] = rng;
  inner.rngs_.clear();
  return results;
}

}  // namespace dfc
