// The embedding API (see device_session.h).
#include "runtime/device_session.h"

#include "absl/strings/str_cat.h"
#include "graph/check.h"
#include "graph/loader.h"
#include "graph/ops.h"
#include "runtime/interpreted.h"

namespace dfc {

absl::StatusOr<std::unique_ptr<DeviceSession>> DeviceSession::Open(const std::string& graph_path,
                                                                   Options options) {
  DFC_ASSIGN_OR_RETURN(Graph graph, LoadGraph(graph_path));
  return Create(std::make_shared<const Graph>(std::move(graph)), std::move(options));
}

absl::StatusOr<std::unique_ptr<DeviceSession>> DeviceSession::Create(
    std::shared_ptr<const Graph> graph, Options options) {
  DFC_ASSIGN_OR_RETURN(
      std::unique_ptr<DeviceExecutor> executor,
      DeviceExecutor::Open(options.device, options.platform, std::move(options.executor)));
  return std::unique_ptr<DeviceSession>(new DeviceSession(std::move(graph), std::move(executor)));
}

absl::StatusOr<std::vector<Tensor>> DeviceSession::Run(
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches, const std::vector<std::string>& targets) {
  std::vector<std::pair<TensorId, Tensor>> fed;
  std::string key;
  for (const auto& [name, value] : feeds) {
    DFC_ASSIGN_OR_RETURN(TensorId id, TensorId::Parse(name));
    absl::StrAppend(&key, "feed ", id.ToString());
    // A placeholder declared without a rank is compiled for the rank it is fed with.
    const Node* node = graph_->FindNode(id.node);
    if (node != nullptr && PlaceholderShape(*node).unknown_rank) {
      absl::StrAppend(&key, ShapeToString(value.shape()));
    }
    absl::StrAppend(&key, ";");
    fed.emplace_back(std::move(id), value);
  }
  std::vector<TensorId> fetch_ids;
  for (const std::string& name : fetches) {
    DFC_ASSIGN_OR_RETURN(TensorId id, TensorId::Parse(name));
    absl::StrAppend(&key, "fetch ", id.ToString(), ";");
    fetch_ids.push_back(std::move(id));
  }
  for (const std::string& target : targets) {
    if (graph_->FindNode(target) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("target \"", target, "\" names no node of the graph"));
    }
    absl::StrAppend(&key, "target ", target, ";");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = lowered_.find(key);
  if (it == lowered_.end()) {
    DFC_ASSIGN_OR_RETURN(ir::LoweredGraph lowered, LowerForFeeds(*graph_, fetch_ids, fed, targets));
    it = lowered_.emplace(key, std::move(lowered)).first;
  }
  return executor_->Run(*graph_, it->second, fed, fetch_ids, &state_);
}

}  // namespace dfc
