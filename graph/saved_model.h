// A SavedModel directory as dfc's input: saved_model.pb (TensorFlow's SavedModel proto: its
// MetaGraphDefs, their tags and signature defs) and variables/ (the checkpoint, checkpoint.h).
//
// Loading takes the MetaGraphDef of a tag ("serve"), inlines its function calls and lowers its
// resource variables as any GraphDef's (functions.h, resource_variables.h), and restores the
// variables when it loads: each output of a RestoreV2 of the saver's restore function becomes
// the checkpoint's tensor (a constant of the graph), each checked against the dtype the graph asks
// and the shape of the variable it is assigned to. Running `restore_op` (once, before any
// signature) then assigns them. A checkpoint that is corrupt, missing a tensor or disagreeing
// with the graph fails the load, naming the file and the variable: nothing is half-loaded.
#ifndef DFC_GRAPH_SAVED_MODEL_H_
#define DFC_GRAPH_SAVED_MODEL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/graph.h"

namespace dfc {

// An input or output of a signature: its key ("input0"), the graph's tensor, as declared.
struct SignatureTensor {
  std::string key;
  TensorId tensor;
  DType dtype = DType::kFloat;
  PartialShape shape;
};

struct Signature {
  std::string name;    // "serving_default"
  std::string method;  // "tensorflow/serving/predict"
  std::vector<SignatureTensor> inputs, outputs;  // sorted by key
};

struct SavedModel {
  std::string dir;
  std::vector<std::string> tags;
  Graph graph;
  std::vector<Signature> signatures;  // sorted by name
  // The node that assigns the restored variables (a NoOp after every assignment of the saver's
  // restore function), to run once before a signature; empty when the model has no saver.
  // `restored` counts the tensors read from the checkpoint.
  std::string restore_op;
  int restored = 0;
  // The op to run after the restore (the "__saved_model_init_op" TensorFlow records as a
  // signature, which dfc does not list among them), or empty.
  std::string init_op;

  // The signature called `name`, or an error listing those there are.
  absl::StatusOr<const Signature*> FindSignature(absl::string_view name) const;
};

// Whether `path` is a directory holding saved_model.pb.
bool IsSavedModelDir(const std::string& path);

// Loads the MetaGraphDef tagged `tag`. Errors name the file: saved_model.pb corrupt or
// without that tag, a checkpoint that does not restore (checkpoint.h), a restored tensor whose
// dtype or shape disagrees with its variable.
absl::StatusOr<SavedModel> LoadSavedModel(const std::string& dir, absl::string_view tag = "serve");

}  // namespace dfc

#endif  // DFC_GRAPH_SAVED_MODEL_H_
