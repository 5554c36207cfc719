// What a user points dfc at, opened one way for the command line, the Python module and the
// sessions: a GraphDef (.pb, .pbtxt), a SavedModel directory (its graph, one signature, and the
// ops that restore and initialise its variables) or a plan directory that `dfc compile` wrote.
#ifndef DFC_RUNTIME_OPEN_MODEL_H_
#define DFC_RUNTIME_OPEN_MODEL_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/feed.h"
#include "graph/graph.h"
#include "graph/saved_model.h"
#include "runtime/device_session.h"

namespace dfc {

class OpenModel {
 public:
  enum class Kind { kGraphDef, kSavedModel, kPlan };

  // Opens `path`: a SavedModel directory with the signature named `signature`, any other
  // directory as a plan (read by the session it opens), else a GraphDef file, read now.
  static absl::StatusOr<OpenModel> Open(const std::string& path,
                                        absl::string_view signature = "serving_default");

  Kind kind() const { return kind_; }
  bool is_plan() const { return kind_ == Kind::kPlan; }
  const std::string& path() const { return path_; }
  // The graph; null for a plan, whose session reads its own.
  const std::shared_ptr<const Graph>& graph() const { return graph_; }
  // A SavedModel's signature; null for the others.
  const Signature* signature() const { return signature_ ? &*signature_ : nullptr; }
  // The ops to run once before the first step: a SavedModel's restore and init ops (a plan
  // runs its own initialisers as it opens).
  const std::vector<std::string>& inits() const { return inits_; }

  // A device session over the model: a plan's kernels as compiled, a graph's compiled as
  // it runs.
  absl::StatusOr<std::unique_ptr<DeviceSession>> NewDeviceSession(
      DeviceSession::Options options) const;

  // Feeds and fetches named by the signature's keys ("input0") made the tensors those stand
  // for; other names are left as they are. With no fetch given, the signature's outputs.
  // Returns the fetches' names to show: their keys where they have one. Without a signature,
  // changes nothing and returns the fetches' names.
  std::vector<std::string> UseSignatureNames(std::vector<Feed>& feeds,
                                             std::vector<TensorId>& fetches) const;

 private:
  Kind kind_ = Kind::kGraphDef;
  std::string path_;
  std::shared_ptr<const Graph> graph_;
  std::optional<Signature> signature_;
  std::vector<std::string> inits_;
};

}  // namespace dfc

#endif  // DFC_RUNTIME_OPEN_MODEL_H_
