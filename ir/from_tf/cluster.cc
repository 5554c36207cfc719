// Graph and cluster translation (see cluster.h).
#include "ir/from_tf/cluster.h"

#include <algorithm>
#include <functional>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/ops.h"
#include "ir/analysis.h"
#include "ir/from_tf/concat_of_products.h"
#include "ir/from_tf/size_unifier.h"
#include "ir/from_tf/translate.h"
#include "ir/type.h"
#include "ir/work.h"

namespace dfc::ir {
namespace {

// A C-like name for a tensor: "gradients/Mean_grad/Tile:1" -> "Mean_grad_Tile_1". The leading
// scope of gradient graphs repeats on every node and is dropped.
std::string ParamName(const TensorId& id) {
  std::string name = id.node;
  if (name.rfind("gradients/", 0) == 0) name = name.substr(10);
  if (id.index != 0) absl::StrAppend(&name, "_", id.index);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "t" + name;
  return name;
}

// Node i computes integer or bool scalars from scalars (TranslateOptions::host_integer_scalars).
bool IsIntegerScalarArithmetic(const Graph& graph, int i, const FoldResult& fold) {
  const auto scalar = [](const TensorInfo& t) {
    return (t.dtype == DType::kInt32 || t.dtype == DType::kInt64 || t.dtype == DType::kBool) &&
           t.shape && t.shape->empty();
  };
  const Node& node = graph.node(i);
  if (node.inputs.empty() || i >= static_cast<int>(fold.info.size()) || fold.info[i].empty()) {
    return false;
  }
  for (const TensorInfo& out : fold.info[i]) {
    if (!scalar(out)) return false;
  }
  for (const TensorId& id : node.inputs) {
    if (!scalar(fold.Info(graph, id))) return false;
  }
  return true;
}

bool IsDevicePlaced(const Node& node) {
  const OpDef* def = FindOpDef(node.op);
  return def != nullptr &&
         (def->placement == Placement::kDevice || def->placement == Placement::kLayout) &&
         !PassesHostOnlyValue(node);
}

// How many times `target` is reached walking the expression trees of `roots` (a DAG walked
// as a tree: a node shared by two parents counts twice), through the bodies of functions.
class OccurrenceCounter {
 public:
  explicit OccurrenceCounter(const Expr* target) : target_(target) {}

  int Count(const ExprPtr& e) {
    if (e.get() == target_) return 1;
    if (e->kind != Expr::Kind::kFunCall) return 0;
    if (auto it = memo_.find(e.get()); it != memo_.end()) return it->second;
    const auto& call = static_cast<const FunCall&>(*e);
    int n = CountFun(*call.f);
    for (const ExprPtr& a : call.args) n += Count(a);
    memo_[e.get()] = n;
    return n;
  }

 private:
  int CountFun(const Fun& f) {
    if (f.kind == Fun::Kind::kLambda) return Count(static_cast<const Lambda&>(f).body);
    if (f.kind == Fun::Kind::kUserFun) return 0;
    return FunPattern::Holds(f.kind) ? CountFun(*As<FunPattern>(f).f) : 0;
  }

  const Expr* target_;
  absl::flat_hash_map<const Expr*, int> memo_;  // counts per subtree, so the walk is linear
};

int Occurrences(const std::vector<ExprPtr>& roots, const Expr* target) {
  OccurrenceCounter counter(target);
  int n = 0;
  for (const ExprPtr& r : roots) n += counter.Count(r);
  return n;
}

// The tensor-valued computations that two or more of `outs` (a node's outputs the cluster
// reads) share at their top level, outermost first: a batch norm's batch statistics, which y and
// the mean and variance outputs all read. Only expressions outside every function body, whose
// free parameters are the cluster's, can be bound where the node's lets are.
std::vector<ExprPtr> SharedComputations(const std::vector<ExprPtr>& outs) {
  absl::flat_hash_map<const Expr*, absl::flat_hash_set<int>> readers;
  std::vector<ExprPtr> order;  // first seen, outermost first
  std::function<void(const ExprPtr&, int, absl::flat_hash_set<const Expr*>&)> visit =
      [&](const ExprPtr& e, int k, absl::flat_hash_set<const Expr*>& seen) {
        if (e->kind != Expr::Kind::kFunCall || !seen.insert(e.get()).second) return;
        auto [it, fresh] = readers.try_emplace(e.get());
        if (fresh) order.push_back(e);
        it->second.insert(k);
        for (const ExprPtr& a : static_cast<const FunCall&>(*e).args) visit(a, k, seen);
      };
  for (int k = 0; k < static_cast<int>(outs.size()); ++k) {
    if (outs[k] == nullptr) continue;
    absl::flat_hash_set<const Expr*> seen;
    visit(outs[k], k, seen);
  }
  std::vector<ExprPtr> shared;
  absl::flat_hash_set<const Expr*> inside_shared;
  for (const ExprPtr& e : order) {
    if (readers[e.get()].size() < 2 || !e->type->is_array() || !Computes(*e)) continue;
    // Outermost only: a computation inside one already bound is read through the binding.
    bool nested = false;
    for (const ExprPtr& s : shared) nested = nested || Occurrences({s}, e.get()) > 0;
    if (!nested) shared.push_back(e);
  }
  return shared;
}

// Log(Softmax(x)) is translated as LogSoftmax(x) when nothing else reads the Softmax: the row's
// (x - m) - log(s) takes one log a row where log(exp(x - m) / s) takes an exp and a log an
// element, and it stays finite where exp(x - m) underflows to 0 (TensorFlow's grappler
// rewrites the pair the same way, in its arithmetic optimizer's LogSoftmax stage). The node
// keeps the Log's name, so errors and outputs are the Log's; the Softmax's own expression is
// left unread and does not reach the cluster's Lambda.
std::optional<Node> AsLogSoftmax(const Graph& graph, const Node& node,
                                 const absl::flat_hash_set<std::string>& inside,
                                 const absl::flat_hash_map<TensorId, int>& uses) {
  if (node.op != "Log" || node.inputs.size() != 1) return std::nullopt;
  const TensorId& in = node.inputs[0];
  if (in.index != 0 || !inside.contains(in.node)) return std::nullopt;
  const auto read = uses.find(in);
  if (read == uses.end() || read->second != 1) return std::nullopt;
  const Node* softmax = graph.FindNode(in.node);
  if (softmax == nullptr || softmax->op != "Softmax") return std::nullopt;
  return Node{.name = node.name,
              .op = "LogSoftmax",
              .device = node.device,
              .inputs = softmax->inputs,
              .attrs = softmax->attrs};
}

// The most a fusion may multiply the work of a consumer and its producer, whatever the bytes it
// saves: the code a kernel runs stays within twice what its graph nodes do.
constexpr double kMostRecomputation = 2;

// Fusion that never multiplies work: for each data input of `node` that the cluster computes
// (`inputs`, as the translation read them), whether computing it where the node's translation
// reads it costs more operations than storing it once and reading it. The cost of each is the
// code generator's (ir::GeneratedCounter, GeneratedOps): the node translated again over
// parameters, each read as the computed value (fused) or as memory (stored), against the
// value's own work and the bytes it would move (StoreOps). A convolution over a convolution's
// output reads each element once per tap, so the inner one is stored; a convolution over a Pad, a
// Relu of a bias (a cheap producer) or through a 1x1 window reads it at no or little extra
// cost, and fuses, unless the consumer would then do more than kMostRecomputation times the
// work of both apart (a bilinear upsampling of an Add reads each element four times over).
std::vector<bool> Recomputes(const Node& node, const std::vector<TranslateInput>& inputs,
                             const std::vector<ExprPtr>& outs,
                             const absl::flat_hash_map<TensorId, int>& uses,
                             GeneratedCounter& work) {
  std::vector<bool> recomputes(inputs.size(), false);
  std::vector<TranslateInput> own = inputs;
  std::vector<std::pair<const Param*, ExprPtr>> reads;
  std::vector<ParamPtr> params;
  std::vector<int> computed;  // the inputs a parameter stands for
  for (int j = 0; j < static_cast<int>(inputs.size()); ++j) {
    const ExprPtr& value = inputs[j].value;
    if (value == nullptr || value->kind != Expr::Kind::kFunCall || !value->type->is_array() ||
        !Computes(*value)) {
      continue;
    }
    params.push_back(MakeParam("in", value->type));
    own[j].value = params.back();
    reads.emplace_back(params.back().get(), value);
    computed.push_back(j);
  }
  if (computed.empty()) return recomputes;
  absl::StatusOr<std::vector<ExprPtr>> consumer = TranslateNode(node, own);
  if (!consumer.ok() || consumer->size() != outs.size()) return recomputes;
  const auto ops = [&](const std::vector<std::pair<const Param*, ExprPtr>>& as) {
    double total = 0;
    for (size_t k = 0; k < consumer->size(); ++k) {
      const auto read = uses.find(TensorId{node.name, static_cast<int>(k)});
      if (read != uses.end() && read->second > 0) {
        total += work.Stored((*consumer)[k], as);
      }
    }
    return total;
  };
  const double fused = ops(reads);
  for (size_t c = 0; c < computed.size(); ++c) {
    std::vector<std::pair<const Param*, ExprPtr>> as = reads;
    as[c].second = nullptr;
    const ExprPtr& value = reads[c].second;
    // A value without elements costs nothing either way, so the counts cannot decide; stored,
    // its code stays out of its consumer's, which a chain of windows would otherwise nest one
    // producer's fold per tap deeper at each step.
    const double store = StoreOps(value->type);
    if (store == 0) {
      recomputes[computed[c]] = true;
      continue;
    }
    const double stored = ops(as) + work.Stored(value);
    recomputes[computed[c]] = fused - stored > store || fused > kMostRecomputation * stored;
  }
  return recomputes;
}

}  // namespace

absl::StatusOr<TranslatedCluster> TranslateCluster(const Graph& graph, const Cluster& cluster,
                                                   const FoldResult& fold) {
  absl::flat_hash_set<std::string> inside;
  for (int i : cluster.nodes) inside.insert(graph.node(i).name);

  // How often each value made inside is read: by data inputs inside, and once more if it
  // leaves the cluster. Read twice means bound once with a let.
  absl::flat_hash_map<TensorId, int> uses;
  absl::flat_hash_set<TensorId> read_as_data;
  for (int i : cluster.nodes) {
    const Node& node = graph.node(i);
    const Translation* translation = FindTranslation(node.op);
    if (translation == nullptr) return node.Error("has no translation to the IR");
    for (int j = 0; j < static_cast<int>(node.inputs.size()); ++j) {
      if (ReadsStatically(node, j, fold.Info(graph, node.inputs[j]))) continue;
      read_as_data.insert(node.inputs[j]);
      if (inside.contains(node.inputs[j].node)) ++uses[node.inputs[j]];
    }
  }
  for (const TensorId& out : cluster.outputs) ++uses[out];

  TranslatedCluster result;
  result.outputs = cluster.outputs;
  absl::flat_hash_map<TensorId, ExprPtr> values;
  std::vector<ParamPtr> params;
  for (const TensorId& input : cluster.inputs) {
    if (!read_as_data.contains(input)) continue;
    const TensorInfo& info = fold.Info(graph, input);
    if (info.value && info.value->shape().empty()) {
      values[input] = MakeLiteral(Scalar::FromTensor(*info.value, 0));
      continue;
    }
    if (info.dtype == DType::kInvalid || !info.shape) {
      return absl::InvalidArgumentError(
          absl::StrCat("tensor \"", input.ToString(), "\" enters a cluster with an unknown ",
                       info.dtype == DType::kInvalid ? "dtype" : "shape"));
    }
    if (!IsSupported(info.dtype)) {
      // Named by its reader, which then stays on the host (a folded bfloat16 constant that a
      // Bitcast reads: no kernel holds bfloat16).
      const Node* reader = FirstReader(graph, cluster, input);
      return absl::InvalidArgumentError(absl::StrCat("node \"", reader != nullptr ? reader->name : "",
                                                     "\" reads \"",
                                                     input.ToString(), "\" of dtype ",
                                                     DTypeName(info.dtype),
                                                     ", which no kernel holds"));
    }
    params.push_back(MakeParam(ParamName(input), TensorType(info.dtype, *info.shape)));
    result.params.push_back(input);
    values[input] = params.back();
  }

  std::vector<std::pair<ParamPtr, ExprPtr>> lets;
  GeneratedCounter work;  // the fusion's cost model, over the cluster's values as they are made
  for (int i : cluster.nodes) {
    const std::optional<Node> log_softmax = AsLogSoftmax(graph, graph.node(i), inside, uses);
    const Node& node = log_softmax ? *log_softmax : graph.node(i);
    std::vector<TranslateInput> inputs(node.inputs.size());
    for (int j = 0; j < static_cast<int>(node.inputs.size()); ++j) {
      const TensorId& id = node.inputs[j];
      inputs[j].known = &fold.Info(graph, id);
      if (!ReadsStatically(node, j, *inputs[j].known)) inputs[j].value = values.at(id);
    }
    // A Concat of products by slices of one matrix is translated as one product of the whole.
    const std::optional<ConcatOfProducts> product =
        MatchConcatOfProducts(graph, node, fold, inside, uses);
    const auto translate = [&]() -> absl::StatusOr<std::vector<ExprPtr>> {
      if (!product) return TranslateNode(node, inputs);
      DFC_ASSIGN_OR_RETURN(ExprPtr value,
                           TranslateConcatOfProducts(node, *product, fold, graph, values));
      return std::vector<ExprPtr>{value};
    };
    DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> outs, translate());
    // A computed input that the translation reads in several places (each output of a Split, or
    // twice within one expression) is bound once, and so is one whose fusion would multiply
    // work (Recomputes: a convolution of a convolution), and the node translated again on the
    // binding: otherwise every place would compute it, and an unrolled LSTM's steps or a CNN's
    // layers would multiply.
    const std::vector<bool> recomputes = product ? std::vector<bool>(node.inputs.size(), false)
                                                 : Recomputes(node, inputs, outs, uses, work);
    bool rebound = false;
    for (int j = 0; j < static_cast<int>(node.inputs.size()); ++j) {
      const ExprPtr& value = inputs[j].value;
      if (value == nullptr || value->kind != Expr::Kind::kFunCall) continue;
      if (!recomputes[j] && Occurrences(outs, value.get()) < 2) continue;
      ParamPtr bound = MakeParam(ParamName(node.inputs[j]), value->type);
      lets.emplace_back(bound, value);
      values[node.inputs[j]] = bound;
      for (TranslateInput& in : inputs) {
        if (in.value == value) in.value = bound;
      }
      rebound = true;
    }
    if (rebound) {
      DFC_ASSIGN_OR_RETURN(outs, translate());
    }
    // Computations several of the node's read outputs share are bound once, for the same
    // reason.
    std::vector<ExprPtr> read_outs(outs.size());
    for (int k = 0; k < static_cast<int>(outs.size()); ++k) {
      if (uses[TensorId{node.name, k}] > 0) read_outs[k] = outs[k];
    }
    for (const ExprPtr& shared : SharedComputations(read_outs)) {
      ParamPtr bound =
          MakeParam(absl::StrCat(ParamName({node.name, 0}), "_shared", lets.size()), shared->type);
      lets.emplace_back(bound, shared);
      for (ExprPtr& out : outs) {
        DFC_ASSIGN_OR_RETURN(
            out, ReplaceWhere(
                     out, [&](const ExprPtr& e) { return e.get() == shared.get(); }, bound));
      }
    }
    for (int k = 0; k < static_cast<int>(outs.size()); ++k) {
      TensorId id{node.name, k};
      if (uses[id] >= 2 && outs[k]->kind == Expr::Kind::kFunCall) {
        ParamPtr bound = MakeParam(ParamName(id), outs[k]->type);
        lets.emplace_back(bound, outs[k]);
        values[id] = bound;
      } else {
        values[id] = outs[k];
      }
    }
  }

  std::vector<ExprPtr> outputs;
  for (const TensorId& out : cluster.outputs) {
    outputs.push_back(values.at(out));
    result.output_types.push_back(outputs.back()->type);
  }
  ExprPtr body;
  if (outputs.size() == 1) {
    body = outputs[0];
  } else {
    DFC_ASSIGN_OR_RETURN(body, Call(Tuple(static_cast<int>(outputs.size())), outputs));
  }
  // Lets nest in the order their values were made: each one's value may read earlier ones.
  for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
    auto let = std::make_shared<Lambda>(std::vector<ParamPtr>{it->first}, body);
    DFC_ASSIGN_OR_RETURN(body, Call(let, {it->second}));
  }
  result.lambda = std::make_shared<Lambda>(std::move(params), body);
  return result;
}

absl::StatusOr<std::vector<TensorInfo>> InferShapesByTranslation(
    const Node& node, std::span<const TensorInfo> inputs) {
  const Translation* translation = FindTranslation(node.op);
  if (translation == nullptr) return node.Error("has no translation to the IR");
  std::vector<TranslateInput> translate_inputs(inputs.size());
  for (int j = 0; j < static_cast<int>(inputs.size()); ++j) {
    translate_inputs[j].known = &inputs[j];
    if (ReadsStatically(node, j, inputs[j])) continue;
    if (inputs[j].dtype == DType::kInvalid || !inputs[j].shape) {
      return node.Error(absl::StrCat("the shape of input ", j, " is not known"));
    }
    translate_inputs[j].value = MakeParam("in", TensorType(inputs[j].dtype, *inputs[j].shape));
  }
  DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> outs, TranslateNode(node, translate_inputs));
  std::vector<TensorInfo> infos;
  for (const ExprPtr& out : outs) {
    TensorInfo info;
    info.dtype = BaseDType(out->type);
    info.shape = TensorShape(out->type);
    infos.push_back(std::move(info));
  }
  return infos;
}

namespace {

// The equalities that the unfolded device nodes of `fold` need, as each op's translation states
// them; true if any was new.
bool UnifySizes(const Graph& graph, const std::vector<int>& nodes, const FoldResult& fold,
                absl::flat_hash_map<std::string, ArithExpr>& substitutions) {
  SizeUnifier unifier(substitutions);
  bool changed = false;
  for (int i : nodes) {
    const Node& node = graph.node(i);
    const OpDef* def = FindOpDef(node.op);
    if (def == nullptr || def->placement == Placement::kHost || fold.folded[i]) continue;
    const Translation* translation = FindTranslation(node.op);
    if (translation == nullptr) continue;
    if (translation->unify_with_values != nullptr) {
      std::vector<const TensorInfo*> infos;
      for (const TensorId& id : node.inputs) infos.push_back(&fold.Info(graph, id));
      changed |= translation->unify_with_values(node, infos, unifier);
    }
    if (translation->unify_sizes == nullptr) continue;
    // The hook sees the data operands' shapes: those the translation reads statically (a
    // filter gradient's filter_sizes) are not operands of the computation.
    std::vector<SymbolicShape> shapes;
    size_t operands = 0;
    for (int j = 0; j < static_cast<int>(node.inputs.size()); ++j) {
      const TensorInfo& info = fold.Info(graph, node.inputs[j]);
      if (ReadsStatically(node, j, info)) continue;
      ++operands;
      if (!info.shape) break;
      shapes.push_back(*info.shape);
    }
    // Every hook relates two operands or more; a node with fewer (a malformed graph, refused
    // later with its own error) has nothing to unify.
    if (shapes.size() != operands || shapes.size() < 2) continue;
    changed |= translation->unify_sizes(node, shapes, unifier);
  }
  return changed;
}

}  // namespace

absl::StatusOr<TranslatedGraph> TranslateGraph(const Graph& graph,
                                               const std::vector<TensorId>& fetches,
                                               const std::vector<std::string>& targets,
                                               const std::vector<TensorId>& feeds,
                                               const FoldOracle& oracle,
                                               const TranslateOptions& options) {
  absl::flat_hash_set<TensorId> fed(feeds.begin(), feeds.end());
  DFC_ASSIGN_OR_RETURN(std::vector<int> nodes, NeededNodes(graph, fetches, targets, fed));
  TranslatedGraph translated;
  FoldOptions fold_options{.fold_only_static = options.fold_only_static,
                           .placeholder_shapes = options.placeholder_shapes,
                           .array_element_shapes = options.array_element_shapes};
  for (const auto& [name, shape] : options.placeholder_shapes) {
    const Node* node = graph.FindNode(name);
    if (node == nullptr || (node->op != "Placeholder" && node->op != "PlaceholderWithDefault")) {
      return absl::InvalidArgumentError(
          absl::StrCat("a shape is given for \"", name, "\", which is not a placeholder"));
    }
    const PartialShape declared = PlaceholderShape(*node);
    bool compatible = declared.unknown_rank || declared.dims.size() == shape.dims.size();
    for (size_t d = 0; compatible && !declared.unknown_rank && d < shape.dims.size(); ++d) {
      compatible = declared.dims[d] < 0 || declared.dims[d] == shape.dims[d];
    }
    if (!compatible) {
      return absl::InvalidArgumentError(absl::StrCat("placeholder \"", name, "\" is declared ",
                                                     declared.ToString(), ", not ",
                                                     shape.ToString()));
    }
  }
  // Fold, unify what the ops say must be equal, fold again with the merged sizes; each round
  // removes a variable, so this ends.
  for (;;) {
    DFC_ASSIGN_OR_RETURN(translated.fold, FoldConstants(graph, nodes, oracle, fold_options));
    if (!UnifySizes(graph, nodes, translated.fold, fold_options.size_substitutions)) break;
  }
  translated.size_substitutions = fold_options.size_substitutions;

  // Why each device node that cannot be clustered stays on the host.
  absl::flat_hash_map<int, std::string> host_reason;
  for (int i : nodes) {
    const Node& node = graph.node(i);
    if (!IsDevicePlaced(node) || translated.fold.folded[i]) continue;
    if (options.host_integer_scalars && IsIntegerScalarArithmetic(graph, i, translated.fold)) {
      host_reason[i] =
          "integer scalar arithmetic of a loop body (host-computed, as TensorFlow's int32)";
      continue;
    }
    std::vector<TensorInfo> inputs;
    for (const TensorId& id : node.inputs) inputs.push_back(translated.fold.Info(graph, id));
    absl::StatusOr<std::vector<TensorInfo>> shapes = InferShapesByTranslation(node, inputs);
    if (!shapes.ok()) host_reason[i] = std::string(shapes.status().message());
  }

  // A cluster that still fails to translate (a combination the single-node check cannot see)
  // sends its failing node to the host, and the graph is partitioned again.
  for (;;) {
    auto clusterable = [&](int i) {
      return IsDevicePlaced(graph.node(i)) && !translated.fold.folded[i] &&
             !host_reason.contains(i);
    };
    // What a translation reads when compiling (a Reshape's shape, a Sum's axes) is a value of the
    // fold, not a run-time input of the cluster.
    auto compile_time = [&](int i, int j) {
      const Node& node = graph.node(i);
      return ReadsStatically(node, j, translated.fold.Info(graph, node.inputs[j]));
    };
    DFC_ASSIGN_OR_RETURN(translated.partition, PartitionGraph(graph, nodes, clusterable, fetches,
                                                              compile_time, options.fusion));
    translated.clusters.clear();
    bool retry = false;
    for (const Cluster& cluster : translated.partition.clusters) {
      absl::StatusOr<TranslatedCluster> tc = TranslateCluster(graph, cluster, translated.fold);
      if (!tc.ok()) {
        // Blame the first node of the cluster that the message names, else the first node.
        int blamed = cluster.nodes.front();
        for (int i : cluster.nodes) {
          if (tc.status().message().find("\"" + graph.node(i).name + "\"") !=
              absl::string_view::npos) {
            blamed = i;
            break;
          }
        }
        host_reason[blamed] = std::string(tc.status().message());
        retry = true;
        break;
      }
      translated.clusters.push_back(*std::move(tc));
    }
    if (!retry) break;
  }

  for (int i : nodes) {
    const Node& node = graph.node(i);
    if (!IsDevicePlaced(node)) continue;
    ++translated.device_nodes;
    if (translated.partition.cluster_of[i] >= 0) {
      ++translated.clustered;
    } else if (translated.fold.folded[i]) {
      ++translated.folded;
    } else {
      ++translated.device_on_host;
      auto it = host_reason.find(i);
      translated.host_device_nodes.push_back(absl::StrCat(
          node.name, " (", node.op, "): ", it == host_reason.end() ? "not clustered" : it->second));
    }
  }
  return translated;
}

}  // namespace dfc::ir
