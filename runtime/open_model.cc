// Opening a model (see open_model.h).
#include "runtime/open_model.h"

#include <filesystem>
#include <utility>

#include "base/status.h"
#include "graph/loader.h"

namespace dfc {

absl::StatusOr<OpenModel> OpenModel::Open(const std::string& path, absl::string_view signature) {
  OpenModel model;
  model.path_ = path;
  if (IsSavedModelDir(path)) {
    DFC_ASSIGN_OR_RETURN(SavedModel saved, LoadSavedModel(path));
    DFC_ASSIGN_OR_RETURN(const Signature* named, saved.FindSignature(signature));
    model.kind_ = Kind::kSavedModel;
    model.signature_ = *named;
    for (const std::string& op : {saved.restore_op, saved.init_op}) {
      if (!op.empty()) model.inits_.push_back(op);
    }
    model.graph_ = std::make_shared<const Graph>(std::move(saved.graph));
  } else if (std::filesystem::is_directory(path)) {
    model.kind_ = Kind::kPlan;
  } else {
    DFC_ASSIGN_OR_RETURN(Graph graph, LoadGraph(path));
    model.graph_ = std::make_shared<const Graph>(std::move(graph));
  }
  return model;
}

absl::StatusOr<std::unique_ptr<DeviceSession>> OpenModel::NewDeviceSession(
    DeviceSession::Options options) const {
  if (is_plan()) return DeviceSession::OpenPlan(path_, std::move(options));
  return DeviceSession::Create(graph_, std::move(options));
}

std::vector<std::string> OpenModel::UseSignatureNames(std::vector<Feed>& feeds,
                                                      std::vector<TensorId>& fetches) const {
  std::vector<std::string> shown;
  if (!signature_) {
    for (const TensorId& fetch : fetches) shown.push_back(fetch.ToString());
    return shown;
  }
  // A key stands where a tensor's name does: "input0" is the tensor id {input0, 0}.
  const auto resolve = [](TensorId& id, const std::vector<SignatureTensor>& tensors) {
    for (const SignatureTensor& t : tensors) {
      if (id.index == 0 && id.node == t.key) {
        id = t.tensor;
        return;
      }
    }
  };
  for (Feed& feed : feeds) resolve(feed.id, signature_->inputs);
  if (fetches.empty()) {
    for (const SignatureTensor& out : signature_->outputs) fetches.push_back({out.key, 0});
  }
  for (TensorId& fetch : fetches) {
    shown.push_back(fetch.ToString());
    resolve(fetch, signature_->outputs);
  }
  return shown;
}

}  // namespace dfc
