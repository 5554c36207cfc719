// Loading SavedModel directories (saved_model.h).
#include "graph/saved_model.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "graph/checkpoint.h"
#include "graph/control_flow.h"
#include "graph/functions.h"
#include "graph/loader.h"
#include "graph/resource_variables.h"
#include "graph/saved_model.pb.h"

namespace dfc {
namespace {

// The signature key under which TensorFlow's SavedModels name their init op.
constexpr char kInitOpSignature[] = "__saved_model_init_op";

// A tensor restored from the checkpoint: its key and shape, for the error that names them.
struct Restored {
  std::string key;
  Shape shape;
};

class Restorer {
 public:
  Restorer(tf::GraphDef& def, const Checkpoint& checkpoint)
      : def_(def), checkpoint_(checkpoint) {
    for (int i = 0; i < def.node_size(); ++i) index_[def.node(i).name()] = i;
  }

  // Every RestoreV2 made an IdentityN of constants holding the checkpoint's tensors.
  absl::Status ReplaceRestores() {
    std::vector<tf::NodeDef> constants;
    absl::flat_hash_map<std::string, std::string> renamed;  // "RestoreV2:k" -> its constant
    for (tf::NodeDef& node : *def_.mutable_node()) {
      if (node.op() != "RestoreV2") continue;
      if (node.input_size() < 3) return NodeError(node, "needs prefix, tensor_names and slices");
      DFC_ASSIGN_OR_RETURN(std::vector<std::string> keys, Strings(node, node.input(1)));
      DFC_ASSIGN_OR_RETURN(std::vector<std::string> slices, Strings(node, node.input(2)));
      const auto dtypes = node.attr().find("dtypes");
      if (dtypes == node.attr().end() || dtypes->second.list().type_size() != std::ssize(keys) ||
          slices.size() != keys.size()) {
        return NodeError(node, absl::StrCat(keys.size(), " tensor names, ", slices.size(),
                                            " slices and dtypes that do not agree"));
      }
      const tf::AttrValue& types = dtypes->second;
      std::vector<std::string> inputs;
      for (size_t k = 0; k < keys.size(); ++k) {
        if (!slices[k].empty()) {
          return NodeError(node, absl::StrCat("restores a slice (\"", slices[k], "\") of \"",
                                              keys[k], "\", which dfc does not"));
        }
        const int asked = types.list().type(static_cast<int>(k));
        if (asked == tf::DT_STRING) {
          // The object graph TensorFlow saves beside the variables: dfc computes nothing from
          // strings and keeps their shapes only, as it does a string constant's.
          DFC_ASSIGN_OR_RETURN(tf::NodeDef c, StringShape(node, keys[k], k));
          inputs.push_back(c.name());
          constants.push_back(std::move(c));
          continue;
        }
        DFC_ASSIGN_OR_RETURN(Tensor t, checkpoint_.Read(keys[k]));
        if (static_cast<int>(t.dtype()) != asked) {
          return absl::InvalidArgumentError(absl::StrCat(
              checkpoint_.prefix(), ": tensor \"", keys[k], "\" is ", t.DebugType(),
              ", but node \"", node.name(), "\" restores it as dtype ", asked));
        }
        tf::NodeDef& c = constants.emplace_back();
        c.set_name(absl::StrCat(node.name(), "/restored_", k));
        c.set_op("Const");
        (*c.mutable_attr())["dtype"].set_type(static_cast<tf::DataType>(asked));
        tf::TensorProto* value = (*c.mutable_attr())["value"].mutable_tensor();
        value->set_dtype(static_cast<tf::DataType>(asked));
        for (int64_t d : t.shape()) value->mutable_tensor_shape()->add_dim()->set_size(d);
        value->set_tensor_content(
            std::string(static_cast<const char*>(t.raw_data()), t.byte_size()));
        restored_[c.name()] = {keys[k], t.shape()};
        inputs.push_back(c.name());
      }
      // Its readers read the constants; the node stays, a NoOp, for its control readers.
      for (size_t k = 0; k < inputs.size(); ++k) {
        renamed[k == 0 ? node.name() : absl::StrCat(node.name(), ":", k)] = inputs[k];
        if (k == 0) renamed[absl::StrCat(node.name(), ":0")] = inputs[k];
      }
      std::vector<std::string> controls;
      for (const std::string& input : node.input()) {
        if (absl::StartsWith(input, "^")) controls.push_back(input);
      }
      node.set_op("NoOp");
      node.clear_input();
      for (std::string& c : controls) node.add_input(std::move(c));
      node.mutable_attr()->clear();
    }
    for (tf::NodeDef& node : *def_.mutable_node()) {
      for (std::string& input : *node.mutable_input()) {
        if (const auto it = renamed.find(input); it != renamed.end()) input = it->second;
      }
    }
    for (tf::NodeDef& c : constants) *def_.add_node() = std::move(c);
    return absl::OkStatus();
  }

  // Each Assign of a restored tensor (through Identity and IdentityN) to a variable: the
  // variable's shape, where known, must be the tensor's. Returns the Assigns' names.
  absl::StatusOr<std::vector<std::string>> Assignments(const tf::GraphDef& lowered) const {
    std::vector<std::string> assigns;
    absl::flat_hash_map<std::string, const tf::NodeDef*> nodes;
    for (const tf::NodeDef& n : lowered.node()) nodes[n.name()] = &n;
    for (const tf::NodeDef& assign : lowered.node()) {
      if (assign.op() != "Assign" || assign.input_size() < 2) continue;
      const std::optional<std::string> source = Source(nodes, assign.input(1));
      const auto var = nodes.find(assign.input(0));
      if (!source || var == nodes.end()) continue;
      const Restored& r = restored_.at(*source);
      assigns.push_back(assign.name());
      const auto shape = var->second->attr().find("shape");
      if (shape == var->second->attr().end() || shape->second.shape().unknown_rank()) continue;
      Shape declared;
      bool known = true;
      for (const auto& d : shape->second.shape().dim()) {
        known = known && d.size() >= 0;
        declared.push_back(d.size());
      }
      if (known && declared != r.shape) {
        return absl::InvalidArgumentError(absl::StrCat(
            checkpoint_.prefix(), ": tensor \"", r.key, "\" is ", ShapeToString(r.shape),
            ", but variable \"", var->first, "\" it restores is ", ShapeToString(declared)));
      }
    }
    return assigns;
  }

  int restored() const { return static_cast<int>(restored_.size()); }

 private:
  static absl::Status NodeError(const tf::NodeDef& node, const std::string& message) {
    return absl::InvalidArgumentError(
        absl::StrCat("node \"", node.name(), "\" (", node.op(), "): ", message));
  }

  // A string constant of the shape the checkpoint's entry `key` has.
  absl::StatusOr<tf::NodeDef> StringShape(const tf::NodeDef& restore, const std::string& key,
                                          size_t k) const {
    const tf::BundleEntryProto* entry = checkpoint_.Find(key);
    if (entry == nullptr || entry->dtype() != tf::DT_STRING) {
      return absl::InvalidArgumentError(
          absl::StrCat(checkpoint_.prefix(), ": node \"", restore.name(), "\" restores \"", key,
                       "\" as a string, which the checkpoint ",
                       entry == nullptr ? "does not have" : "holds of another dtype"));
    }
    tf::NodeDef c;
    c.set_name(absl::StrCat(restore.name(), "/restored_", k));
    c.set_op("Const");
    (*c.mutable_attr())["dtype"].set_type(tf::DT_STRING);
    tf::TensorProto* value = (*c.mutable_attr())["value"].mutable_tensor();
    value->set_dtype(tf::DT_STRING);
    *value->mutable_tensor_shape() = entry->shape();
    return c;
  }

  // The string elements of the Const that `tensor` names (dfc's Tensor keeps no strings).
  absl::StatusOr<std::vector<std::string>> Strings(const tf::NodeDef& reader,
                                                   const std::string& tensor) const {
    const std::string name = tensor.substr(0, tensor.find(':'));
    const auto it = index_.find(name);
    const tf::NodeDef* node = it == index_.end() ? nullptr : &def_.node(it->second);
    while (node != nullptr && node->op() == "Identity" && node->input_size() > 0) {
      const auto up = index_.find(node->input(0).substr(0, node->input(0).find(':')));
      node = up == index_.end() ? nullptr : &def_.node(up->second);
    }
    if (node == nullptr || node->op() != "Const" || !node->attr().contains("value") ||
        node->attr().at("value").tensor().dtype() != tf::DT_STRING) {
      return NodeError(reader, absl::StrCat("input \"", tensor, "\" is not a string constant"));
    }
    const tf::TensorProto& t = node->attr().at("value").tensor();
    int64_t count = 1;
    for (const auto& d : t.tensor_shape().dim()) count *= d.size();
    std::vector<std::string> strings(t.string_val().begin(), t.string_val().end());
    if (strings.size() == 1 && count > 1) strings.assign(count, strings[0]);
    if (std::ssize(strings) != count) {
      return NodeError(reader, absl::StrCat("input \"", tensor, "\" holds ", strings.size(),
                                            " strings for ", count, " elements"));
    }
    return strings;
  }

  // The restored constant that `tensor` passes on through Identity and IdentityN, if any.
  std::optional<std::string> Source(
      const absl::flat_hash_map<std::string, const tf::NodeDef*>& nodes,
      const std::string& tensor) const {
    std::string at = tensor;
    for (int hops = 0; hops < 64; ++hops) {
      const size_t colon = at.find(':');
      const std::string name = at.substr(0, colon);
      int index = 0;
      if (colon != std::string::npos && !absl::SimpleAtoi(at.substr(colon + 1), &index)) {
        return std::nullopt;
      }
      if (restored_.contains(name)) return name;
      const auto it = nodes.find(name);
      if (it == nodes.end()) return std::nullopt;
      const tf::NodeDef& n = *it->second;
      if (n.op() == "Identity" && n.input_size() > 0) {
        at = n.input(0);
      } else if (n.op() == "IdentityN" && index < n.input_size()) {
        at = n.input(index);
      } else {
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

  tf::GraphDef& def_;
  const Checkpoint& checkpoint_;
  absl::flat_hash_map<std::string, int> index_;
  absl::flat_hash_map<std::string, Restored> restored_;  // constant node -> what it holds
};

absl::StatusOr<std::vector<SignatureTensor>> SignatureTensors(
    const google::protobuf::Map<std::string, tf::TensorInfo>& infos, const std::string& where) {
  std::vector<SignatureTensor> tensors;
  for (const auto& [key, info] : infos) {
    absl::StatusOr<TensorId> id = TensorId::Parse(info.name());
    absl::StatusOr<DType> dtype = DTypeFromTf(info.dtype());
    if (info.name().empty() || !id.ok() || !dtype.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " \"", key, "\": not a dense tensor dfc can feed or fetch (\"",
                       info.name(), "\")"));
    }
    SignatureTensor t{.key = key, .tensor = *id, .dtype = *dtype};
    t.shape.unknown_rank = info.tensor_shape().unknown_rank();
    for (const auto& d : info.tensor_shape().dim()) t.shape.dims.push_back(d.size() < 0 ? -1 : d.size());
    tensors.push_back(std::move(t));
  }
  std::sort(tensors.begin(), tensors.end(),
            [](const SignatureTensor& a, const SignatureTensor& b) { return a.key < b.key; });
  return tensors;
}

}  // namespace

absl::StatusOr<const Signature*> SavedModel::FindSignature(absl::string_view name) const {
  for (const Signature& s : signatures) {
    if (s.name == name) return &s;
  }
  std::vector<std::string> names;
  for (const Signature& s : signatures) names.push_back(s.name);
  return absl::NotFoundError(absl::StrCat(dir, ": no signature \"", name, "\" (it has ",
                                          names.empty() ? "none" : absl::StrJoin(names, ", "),
                                          ")"));
}

bool IsSavedModelDir(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_directory(path, ec) &&
         std::filesystem::is_regular_file(std::filesystem::path(path) / "saved_model.pb", ec);
}

absl::StatusOr<SavedModel> LoadSavedModel(const std::string& dir, absl::string_view tag) {
  const std::string path = (std::filesystem::path(dir) / "saved_model.pb").string();
  DFC_ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
  tf::SavedModel proto;
  if (bytes.size() >= (size_t{2} << 30) ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a valid SavedModel (truncated or corrupt protobuf data)"));
  }
  const tf::MetaGraphDef* meta = nullptr;
  std::vector<std::string> all_tags;
  for (const tf::MetaGraphDef& m : proto.meta_graphs()) {
    const auto& tags = m.meta_info_def().tags();
    all_tags.push_back(absl::StrCat("{", absl::StrJoin(tags, ","), "}"));
    if (meta == nullptr && std::find(tags.begin(), tags.end(), tag) != tags.end()) meta = &m;
  }
  if (meta == nullptr) {
    return absl::NotFoundError(absl::StrCat(path, ": no MetaGraphDef tagged \"", tag,
                                            "\" (its tags: ",
                                            all_tags.empty() ? "none" : absl::StrJoin(all_tags, " "),
                                            ")"));
  }
  SavedModel model;
  model.dir = dir;
  model.tags.assign(meta->meta_info_def().tags().begin(), meta->meta_info_def().tags().end());
  const std::vector<tf::OpDef> ops(meta->meta_info_def().stripped_op_list().op().begin(),
                                   meta->meta_info_def().stripped_op_list().op().end());
  const auto with_path = [&path](const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
  };
  absl::StatusOr<tf::GraphDef> def = InlineFunctionCalls(meta->graph_def(), ops);
  if (!def.ok()) return with_path(def.status());

  const tf::SaverDef& saver = meta->saver_def();
  std::optional<Restorer> restorer;
  std::optional<Checkpoint> checkpoint;
  if (!saver.restore_op_name().empty()) {
    const std::string prefix = (std::filesystem::path(dir) / "variables" / "variables").string();
    DFC_ASSIGN_OR_RETURN(checkpoint, Checkpoint::Open(prefix));
    restorer.emplace(*def, *checkpoint);
    if (absl::Status s = restorer->ReplaceRestores(); !s.ok()) return with_path(s);
    model.restored = restorer->restored();
  }
  def = LowerResourceVariables(*std::move(def));
  if (!def.ok()) return with_path(def.status());
  if (restorer) {
    // The restore is every assignment of a restored tensor. The saver's own restore op would
    // also compute the file name it returns, a string dfc does not compute with.
    DFC_ASSIGN_OR_RETURN(std::vector<std::string> assigns, restorer->Assignments(*def));
    tf::NodeDef* restore = def->add_node();
    restore->set_name(absl::StrCat(saver.restore_op_name(), "/dfc_restore"));
    restore->set_op("NoOp");
    for (const std::string& a : assigns) restore->add_input(absl::StrCat("^", a));
    model.restore_op = restore->name();
  }
  absl::StatusOr<FunctionBodies> bodies = FunctionalizeControlFlow(*def, ops);
  if (!bodies.ok()) return with_path(bodies.status());
  absl::StatusOr<Graph> graph = Graph::FromGraphDef(*def, *bodies);
  if (!graph.ok()) return with_path(graph.status());
  model.graph = *std::move(graph);

  for (const auto& [name, def_sig] : meta->signature_def()) {
    if (name == kInitOpSignature) {
      // Not a signature: TensorFlow's place for the op to run after the restore.
      for (const auto& [key, info] : def_sig.outputs()) {
        const std::string op = info.name().substr(0, info.name().find(':'));
        if (model.graph.FindNode(op) == nullptr) {
          return absl::InvalidArgumentError(absl::StrCat(
              path, ": the init op \"", info.name(), "\" is no node of the graph"));
        }
        model.init_op = op;
      }
      continue;
    }
    Signature s{.name = name, .method = def_sig.method_name()};
    const std::string where = absl::StrCat(path, ": signature \"", name, "\"");
    DFC_ASSIGN_OR_RETURN(s.inputs, SignatureTensors(def_sig.inputs(), where + " input"));
    DFC_ASSIGN_OR_RETURN(s.outputs, SignatureTensors(def_sig.outputs(), where + " output"));
    for (const auto* group : {&s.inputs, &s.outputs}) {
      for (const SignatureTensor& t : *group) {
        if (model.graph.FindNode(t.tensor.node) == nullptr) {
          return absl::InvalidArgumentError(absl::StrCat(where, ": \"", t.key, "\" names \"",
                                                         t.tensor.ToString(),
                                                         "\", which the graph does not have"));
        }
      }
    }
    model.signatures.push_back(std::move(s));
  }
  std::sort(model.signatures.begin(), model.signatures.end(),
            [](const Signature& a, const Signature& b) { return a.name < b.name; });
  return model;
}

}  // namespace dfc
