// Inlining a GraphDef's function calls (functions.h).
#include "graph/functions.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "base/status.h"

namespace dfc {
namespace {

// Calls nested deeper than this are taken for a recursion (a function that calls itself, or
// two that call each other), which inlining would never finish.
constexpr int kMaxCallDepth = 64;

// The output args of the ops dfc knows that have more than one, in the op's order
// (tensorflow/core/ops). Every other op has one output arg, possibly a list.
const absl::flat_hash_map<absl::string_view, std::vector<absl::string_view>>& SeveralOutputArgs() {
  static const auto* table = [] {
    const std::vector<absl::string_view> batch_norm = {"y", "batch_mean", "batch_variance",
                                                      "reserve_space_1", "reserve_space_2"};
    std::vector<absl::string_view> batch_norm_v3 = batch_norm;
    batch_norm_v3.push_back("reserve_space_3");
    const std::vector<absl::string_view> batch_norm_grad = {
        "x_backprop", "scale_backprop", "offset_backprop", "reserve_space_3", "reserve_space_4"};
    const std::vector<absl::string_view> batch_norm_grad_v3 = {
        "x_backprop", "scale_backprop", "offset_backprop", "reserve_space_4", "reserve_space_5"};
    const std::vector<absl::string_view> switch_args = {"output_false", "output_true"};
    const std::vector<absl::string_view> merge_args = {"output", "value_index"};
    const std::vector<absl::string_view> cross_entropy = {"loss", "backprop"};
    const std::vector<absl::string_view> top_k = {"values", "indices"};
    const std::vector<absl::string_view> fake_quant_grad = {"backprops_wrt_input",
                                                           "backprop_wrt_min", "backprop_wrt_max"};
    return new absl::flat_hash_map<absl::string_view, std::vector<absl::string_view>>{
        {"FusedBatchNorm", batch_norm},
        {"FusedBatchNormV2", batch_norm},
        {"FusedBatchNormV3", batch_norm_v3},
        {"FusedBatchNormGrad", batch_norm_grad},
        {"FusedBatchNormGradV2", batch_norm_grad},
        {"FusedBatchNormGradV3", batch_norm_grad_v3},
        {"MaxPoolWithArgmax", {"output", "argmax"}},
        {"SoftmaxCrossEntropyWithLogits", cross_entropy},
        {"SparseSoftmaxCrossEntropyWithLogits", cross_entropy},
        {"BroadcastGradientArgs", {"r0", "r1"}},
        {"Switch", switch_args},
        {"RefSwitch", switch_args},
        {"Merge", merge_args},
        {"RefMerge", merge_args},
        {"TopK", top_k},
        {"TopKV2", top_k},
        {"Unique", {"y", "idx"}},
        {"UniqueWithCounts", {"y", "idx", "count"}},
        {"ListDiff", {"out", "idx"}},
        {"TensorArrayV3", {"handle", "flow"}},
        {"TensorArrayGradV3", {"grad_handle", "flow_out"}},
        {"TensorArrayConcatV3", {"value", "lengths"}},
        {"LogMatrixDeterminant", {"sign", "log_abs_determinant"}},
        {"Qr", {"q", "r"}},
        {"Svd", {"s", "u", "v"}},
        {"SelfAdjointEigV2", {"e", "v"}},
        {"Lu", {"lu", "p"}},
        {"NonMaxSuppressionV4", {"selected_indices", "valid_outputs"}},
        {"NonMaxSuppressionV5", {"selected_indices", "selected_scores", "valid_outputs"}},
        {"FakeQuantWithMinMaxVarsGradient", fake_quant_grad},
        {"FakeQuantWithMinMaxVarsPerChannelGradient", fake_quant_grad},
    };
  }();
  return *table;
}

bool IsCall(const tf::NodeDef& node) {
  return node.op() == "PartitionedCall" || node.op() == "StatefulPartitionedCall";
}

class Inliner {
 public:
  Inliner(const tf::FunctionDefLibrary& library, const std::vector<tf::OpDef>& op_list) {
    for (const tf::FunctionDef& f : library.function()) functions_[f.signature().name()] = &f;
    for (const tf::OpDef& op : op_list) ops_[op.name()] = &op;
  }

  // Appends `node` to `out`, or the body of the function it calls, inlined all the way down.
  absl::Status Add(tf::NodeDef node, int depth, std::vector<tf::NodeDef>& out) {
    DFC_ASSIGN_OR_RETURN(const tf::FunctionDef* f, Called(node));
    if (f == nullptr) {
      out.push_back(std::move(node));
      return absl::OkStatus();
    }
    if (depth >= kMaxCallDepth) {
      return absl::InvalidArgumentError(
          absl::StrCat("node \"", node.name(), "\" (", node.op(), "): calls nest more than ",
                       kMaxCallDepth, " deep through function \"", f->signature().name(),
                       "\" (a function that calls itself)"));
    }
    DFC_ASSIGN_OR_RETURN(std::vector<tf::NodeDef> body, Instantiate(node, *f));
    for (tf::NodeDef& b : body) DFC_RETURN_IF_ERROR(Add(std::move(b), depth + 1, out));
    return absl::OkStatus();
  }

 private:
  // The function `node` calls, or nullptr for any other node.
  absl::StatusOr<const tf::FunctionDef*> Called(const tf::NodeDef& node) const {
    if (IsCall(node)) {
      const auto f = node.attr().find("f");
      if (f == node.attr().end() || !f->second.has_func()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node \"", node.name(), "\" (", node.op(), "): no function attribute \"f\""));
      }
      const auto it = functions_.find(f->second.func().name());
      if (it == functions_.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("node \"", node.name(), "\" (", node.op(), "): calls function \"",
                         f->second.func().name(), "\", which the graph's library does not have"));
      }
      return it->second;
    }
    const auto it = functions_.find(node.op());
    return it == functions_.end() ? nullptr : it->second;
  }

  static absl::Status CallError(const tf::NodeDef& call, const tf::FunctionDef& f,
                                absl::string_view message) {
    return absl::InvalidArgumentError(absl::StrCat("node \"", call.name(), "\" (", call.op(),
                                                   " of function \"", f.signature().name(),
                                                   "\"): ", message));
  }

  // The flat output index that a body's "node:arg:index" names, `producer` being the node.
  absl::StatusOr<int> OutputIndex(const tf::NodeDef& producer, absl::string_view arg, int index) {
    // A call's outputs are one list, "output"; a function called as an op has its signature.
    if (IsCall(producer)) return index;
    std::vector<std::pair<absl::string_view, int>> args;  // name, count
    if (const auto f = functions_.find(producer.op()); f != functions_.end()) {
      for (const tf::OpDef::ArgDef& a : f->second->signature().output_arg()) {
        args.push_back({a.name(), 1});
      }
    } else if (const auto op = ops_.find(producer.op()); op != ops_.end()) {
      for (const tf::OpDef::ArgDef& a : op->second->output_arg()) {
        int count = 1;
        const std::string& list = !a.number_attr().empty() ? a.number_attr() : a.type_list_attr();
        if (!list.empty()) {
          const auto it = producer.attr().find(list);
          if (it == producer.attr().end()) {
            return absl::InvalidArgumentError(
                absl::StrCat("node \"", producer.name(), "\" (", producer.op(),
                             "): no attribute \"", list, "\" to count output \"", a.name(), "\""));
          }
          count = !a.number_attr().empty() ? static_cast<int>(it->second.i())
                                           : it->second.list().type_size();
        }
        args.push_back({a.name(), count});
      }
    } else if (const auto known = SeveralOutputArgs().find(producer.op());
               known != SeveralOutputArgs().end()) {
      for (absl::string_view a : known->second) args.push_back({a, 1});
    } else {
      // One output arg: its name is not checked against the op, but one op's outputs must
      // always be named the same, or the op has several that dfc does not know the order of.
      auto [seen, inserted] = single_arg_.try_emplace(producer.op(), arg);
      if (!inserted && seen->second != arg) {
        return absl::InvalidArgumentError(absl::StrCat(
            "op ", producer.op(), " has output args \"", seen->second, "\" and \"", arg,
            "\", whose order dfc does not know (a SavedModel's op list would say it)"));
      }
      return index;
    }
    int flat = 0;
    for (const auto& [name, count] : args) {
      if (name == arg) {
        if (index >= count) break;
        return flat + index;
      }
      flat += count;
    }
    return absl::InvalidArgumentError(absl::StrCat("node \"", producer.name(), "\" (",
                                                   producer.op(), ") has no output \"", arg, ":",
                                                   index, "\""));
  }

  // The body of `f` as called by `call`, its nodes renamed under the call's name, and the node
  // that stands for the call's outputs.
  absl::StatusOr<std::vector<tf::NodeDef>> Instantiate(const tf::NodeDef& call,
                                                       const tf::FunctionDef& f) {
    const tf::OpDef& signature = f.signature();
    std::vector<std::string> data, control;
    for (const std::string& input : call.input()) {
      (absl::StartsWith(input, "^") ? control : data).push_back(input);
    }
    for (const tf::OpDef::ArgDef& a : signature.input_arg()) {
      if (!a.number_attr().empty() || !a.type_list_attr().empty()) {
        return CallError(call, f, absl::StrCat("argument \"", a.name(),
                                               "\" is a list of tensors, which dfc does not "
                                               "inline"));
      }
    }
    if (static_cast<int>(data.size()) != signature.input_arg_size()) {
      return CallError(call, f,
                       absl::StrCat(data.size(), " inputs for ", signature.input_arg_size(),
                                    " arguments"));
    }
    absl::flat_hash_map<absl::string_view, absl::string_view> args;
    for (int i = 0; i < signature.input_arg_size(); ++i) {
      args[signature.input_arg(i).name()] = data[i];
    }
    absl::flat_hash_map<absl::string_view, const tf::NodeDef*> body;
    for (const tf::NodeDef& b : f.node_def()) body[b.name()] = &b;
    const auto& call_attrs =
        IsCall(call) ? call.attr().at("f").func().attr() : call.attr();
    const std::string prefix = absl::StrCat(call.name(), "/");

    // A reference inside the body ("arg", "node:output_arg:index", "^node") as the graph's.
    auto resolve = [&](const std::string& ref) -> absl::StatusOr<std::string> {
      if (absl::StartsWith(ref, "^")) {
        const absl::string_view name = absl::string_view(ref).substr(1);
        if (body.contains(name)) return absl::StrCat("^", prefix, name);
        return CallError(call, f, absl::StrCat("control input \"", ref, "\" names no node"));
      }
      const std::vector<absl::string_view> parts = absl::StrSplit(ref, ':');
      if (parts.size() <= 2 && args.contains(parts[0])) {
        if (parts.size() == 2 && parts[1] != "0") {
          return CallError(call, f, absl::StrCat("\"", ref, "\": argument \"", parts[0],
                                                 "\" is one tensor"));
        }
        return std::string(args.at(parts[0]));
      }
      const auto producer = body.find(parts[0]);
      int index = 0;
      if (producer == body.end() || parts.size() == 2 ||
          (parts.size() == 3 && !absl::SimpleAtoi(parts[2], &index)) || parts.size() > 3) {
        return CallError(call, f, absl::StrCat("input \"", ref, "\" names no argument or node"));
      }
      if (parts.size() == 3) {
        absl::StatusOr<int> flat = OutputIndex(*producer->second, parts[1], index);
        if (!flat.ok()) return CallError(call, f, flat.status().message());
        index = *flat;
      }
      return index == 0 ? absl::StrCat(prefix, parts[0])
                        : absl::StrCat(prefix, parts[0], ":", index);
    };

    std::vector<tf::NodeDef> nodes;
    nodes.reserve(f.node_def_size() + 1);
    for (const tf::NodeDef& b : f.node_def()) {
      tf::NodeDef& n = nodes.emplace_back(b);
      n.set_name(absl::StrCat(prefix, b.name()));
      n.clear_input();
      for (const std::string& input : b.input()) {
        DFC_ASSIGN_OR_RETURN(std::string resolved, resolve(input));
        n.add_input(std::move(resolved));
      }
      for (const std::string& c : control) n.add_input(c);
      for (auto& [name, value] : *n.mutable_attr()) {
        if (value.placeholder().empty()) continue;
        const auto given = call_attrs.find(value.placeholder());
        if (given == call_attrs.end()) {
          return CallError(call, f, absl::StrCat("node \"", b.name(), "\" attribute \"", name,
                                                 "\" is the function's attribute \"",
                                                 value.placeholder(), "\", which the call does "
                                                 "not set"));
        }
        value = given->second;
      }
    }

    // The call's own name: its outputs, after the function's side effects.
    tf::NodeDef& result = nodes.emplace_back();
    result.set_name(call.name());
    result.set_device(call.device());
    if (signature.output_arg_size() == 0) {
      result.set_op("NoOp");
    } else {
      result.set_op("IdentityN");
      tf::AttrValue types;
      for (const tf::OpDef::ArgDef& a : signature.output_arg()) {
        const auto ret = f.ret().find(a.name());
        if (ret == f.ret().end()) {
          return CallError(call, f, absl::StrCat("output \"", a.name(), "\" returns nothing"));
        }
        DFC_ASSIGN_OR_RETURN(std::string resolved, resolve(ret->second));
        result.add_input(std::move(resolved));
        tf::DataType type = a.type();
        if (!a.type_attr().empty()) {
          const auto given = call_attrs.find(a.type_attr());
          if (given == call_attrs.end()) {
            return CallError(call, f, absl::StrCat("output \"", a.name(), "\" is of type \"",
                                                   a.type_attr(), "\", which the call does not "
                                                   "set"));
          }
          type = given->second.type();
        }
        types.mutable_list()->add_type(type);
      }
      (*result.mutable_attr())["T"] = std::move(types);
    }
    for (const std::string& name : signature.control_output()) {
      const auto node = f.control_ret().find(name);
      if (node == f.control_ret().end() || !body.contains(node->second)) {
        return CallError(call, f,
                         absl::StrCat("control output \"", name, "\" names no node of the body"));
      }
      result.add_input(absl::StrCat("^", prefix, node->second));
    }
    for (const std::string& c : control) result.add_input(c);
    return nodes;
  }

  absl::flat_hash_map<std::string, const tf::FunctionDef*> functions_;
  absl::flat_hash_map<std::string, const tf::OpDef*> ops_;
  absl::flat_hash_map<std::string, std::string> single_arg_;  // op -> its output arg's name
};

}  // namespace

absl::StatusOr<tf::GraphDef> InlineFunctionCalls(tf::GraphDef def,
                                                 const std::vector<tf::OpDef>& op_list) {
  if (def.library().function_size() == 0) return def;
  Inliner inliner(def.library(), op_list);
  std::vector<tf::NodeDef> nodes;
  nodes.reserve(def.node_size());
  for (tf::NodeDef& node : *def.mutable_node()) {
    DFC_RETURN_IF_ERROR(inliner.Add(std::move(node), 0, nodes));
  }
  def.clear_node();
  for (tf::NodeDef& node : nodes) *def.add_node() = std::move(node);
  return def;
}

}  // namespace dfc
