// Resource variables as ref variables (resource_variables.h).
#include "graph/resource_variables.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "graph/node.h"
#include "base/status.h"

namespace dfc {
namespace {

// A handle op's ref twin, how many of its leading inputs are handles, and the attribute that
// holds the variable's dtype where the twin calls it otherwise ("" where the names agree).
struct Twin {
  absl::string_view op;
  int handles;
  absl::string_view dtype_attr;  // the twin's name for the resource op's "dtype"
};

const absl::flat_hash_map<absl::string_view, Twin>& Twins() {
  static const auto* table = new absl::flat_hash_map<absl::string_view, Twin>{
      {"ReadVariableOp", {"Identity", 1, "T"}},
      {"AssignVariableOp", {"Assign", 1, "T"}},
      {"AssignAddVariableOp", {"AssignAdd", 1, "T"}},
      {"AssignSubVariableOp", {"AssignSub", 1, "T"}},
      {"ResourceApplyGradientDescent", {"ApplyGradientDescent", 1, ""}},
      {"ResourceApplyMomentum", {"ApplyMomentum", 2, ""}},
      {"ResourceApplyAdam", {"ApplyAdam", 3, ""}},
      {"ResourceApplyRMSProp", {"ApplyRMSProp", 3, ""}},
      {"ResourceApplyAdagrad", {"ApplyAdagrad", 2, ""}},
      {"ResourceGather", {"Gather", 1, "Tparams"}},
      {"ResourceScatterAdd", {"ScatterAdd", 1, "T"}},
      {"VarIsInitializedOp", {"IsVariableInitialized", 1, "dtype"}},
  };
  return *table;
}

class Lowering {
 public:
  explicit Lowering(tf::GraphDef& def) : def_(def) {
    for (int i = 0; i < def.node_size(); ++i) index_[def.node(i).name()] = i;
  }

  // The VarHandleOp whose handle `tensor` is, through Identity and IdentityN, or nullopt. A
  // loop of Identities (a malformed graph, refused later as a cycle) ends after every node.
  std::optional<int> Variable(absl::string_view tensor) const {
    for (int hops = 0; hops <= def_.node_size(); ++hops) {
      const TensorId at = ParseNodeInput(tensor).tensor;
      const auto it = index_.find(at.node);
      if (it == index_.end()) return std::nullopt;
      const tf::NodeDef& node = def_.node(it->second);
      if (node.op() == "VarHandleOp") return it->second;
      if (node.op() == "Identity" && node.input_size() > 0) {
        tensor = node.input(0);
      } else if (node.op() == "IdentityN" && at.index < node.input_size() &&
                 !absl::StartsWith(node.input(at.index), "^")) {
        tensor = node.input(at.index);
      } else {
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

  absl::Status Run() {
    // The readers first, while the handles still lead to their VarHandleOps.
    std::vector<std::pair<int, std::vector<std::string>>> inputs;  // node, its new inputs
    for (int i = 0; i < def_.node_size(); ++i) {
      const tf::NodeDef& node = def_.node(i);
      const auto twin = Twins().find(node.op());
      const bool passes = node.op() == "Identity" || node.op() == "IdentityN";
      if (twin == Twins().end() && !passes) continue;
      std::vector<std::string> now(node.input().begin(), node.input().end());
      for (int k = 0; k < node.input_size(); ++k) {
        if (absl::StartsWith(node.input(k), "^")) continue;
        const std::optional<int> var = Variable(node.input(k));
        if (!var) {
          if (twin != Twins().end() && k < twin->second.handles) {
            return absl::InvalidArgumentError(absl::StrCat(
                "node \"", node.name(), "\" (", node.op(), "): input ", k, " (\"",
                node.input(k), "\") is a resource handle that no VarHandleOp made"));
          }
          continue;
        }
        if (twin != Twins().end() && k >= twin->second.handles) continue;
        now[k] = def_.node(*var).name();
        if (passes) passed_[{i, k}] = *var;
      }
      inputs.push_back({i, std::move(now)});
    }
    for (auto& [i, now] : inputs) {
      tf::NodeDef& node = *def_.mutable_node(i);
      node.clear_input();
      for (std::string& input : now) node.add_input(std::move(input));
      DFC_RETURN_IF_ERROR(Rewrite(i, node));
    }
    for (tf::NodeDef& node : *def_.mutable_node()) {
      if (node.op() == "VarHandleOp") node.set_op("VariableV2");
    }
    return absl::OkStatus();
  }

 private:
  tf::DataType VariableDType(int var) const {
    const auto it = def_.node(var).attr().find("dtype");
    return it == def_.node(var).attr().end() ? tf::DT_INVALID : it->second.type();
  }

  absl::Status Rewrite(int i, tf::NodeDef& node) {
    auto& attrs = *node.mutable_attr();
    if (node.op() == "Identity" || node.op() == "IdentityN") {
      // A handle passed on is the variable's value passed on.
      for (int k = 0; k < node.input_size(); ++k) {
        const auto var = passed_.find({i, k});
        if (var == passed_.end()) continue;
        if (node.op() == "Identity") {
          attrs["T"].set_type(VariableDType(var->second));
        } else if (k < attrs["T"].list().type_size()) {
          attrs["T"].mutable_list()->set_type(k, VariableDType(var->second));
        }
      }
      return absl::OkStatus();
    }
    const Twin& twin = Twins().at(node.op());
    if (node.op() == "ResourceGather") {
      const auto batch_dims = attrs.find("batch_dims");
      if (batch_dims != attrs.end() && batch_dims->second.i() != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("node \"", node.name(), "\" (ResourceGather): batch_dims ",
                         batch_dims->second.i(), " is not supported (0 is)"));
      }
      if (batch_dims != attrs.end()) attrs.erase(batch_dims);
    }
    if (node.op() == "AssignVariableOp" && !attrs.contains("validate_shape")) {
      attrs["validate_shape"].set_b(false);  // AssignVariableOp's default
    }
    if (node.op() == "VarIsInitializedOp") {
      const std::optional<int> var = Variable(node.input(0));
      if (var) attrs["dtype"].set_type(VariableDType(*var));
    } else if (!twin.dtype_attr.empty()) {
      const auto dtype = attrs.find("dtype");
      if (dtype != attrs.end()) {
        tf::AttrValue value = dtype->second;
        attrs.erase(dtype);
        attrs[std::string(twin.dtype_attr)] = std::move(value);
      }
    }
    node.set_op(std::string(twin.op));
    return absl::OkStatus();
  }

  tf::GraphDef& def_;
  absl::flat_hash_map<std::string, int> index_;
  absl::flat_hash_map<std::pair<int, int>, int> passed_;  // (node, input) -> the variable
};

}  // namespace

absl::StatusOr<tf::GraphDef> LowerResourceVariables(tf::GraphDef def) {
  const bool any = std::any_of(def.node().begin(), def.node().end(),
                               [](const tf::NodeDef& n) { return n.op() == "VarHandleOp"; });
  if (!any) return def;
  Lowering lowering(def);
  DFC_RETURN_IF_ERROR(lowering.Run());
  return def;
}

}  // namespace dfc
