// The embedding API (see device_session.h).
#include "runtime/device_session.h"

#include <map>
#include <set>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/loader.h"
#include "graph/ops.h"
#include "runtime/translate_for_feeds.h"

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

absl::StatusOr<std::unique_ptr<DeviceSession>> DeviceSession::OpenPlan(const std::string& dir,
                                                                       Options options) {
  DFC_ASSIGN_OR_RETURN(Plan plan, ReadPlan(dir));
  DFC_ASSIGN_OR_RETURN(std::unique_ptr<DeviceSession> session,
                       Create(plan.graph, std::move(options)));
  session->plan_ = std::make_unique<Plan>(std::move(plan));
  const Plan& p = *session->plan_;
  for (size_t c = 0; c < p.kernels.size(); ++c) {
    session->executor_->UseKernel(p.translated.clusters[c], p.kernels[c]);
  }
  if (!p.spec.init.empty()) {
    absl::StatusOr<std::vector<Tensor>> init = session->Run({}, {}, p.spec.init);
    if (!init.ok()) {
      return absl::Status(
          init.status().code(),
          absl::StrCat(dir, ": the plan's initialisers failed: ", init.status().message()));
    }
  }
  return session;
}

namespace {

// Whether a run serves from `plan`: the same targets, fetches among the plan's, and feeds of
// placeholders only (the plan was translated with them unfed, as host units a feed replaces).
bool PlanServes(const Plan& plan, const Graph& graph, const std::vector<Feed>& feeds,
                const std::vector<TensorId>& fetches, const std::vector<std::string>& targets) {
  const std::set<std::string> wanted(targets.begin(), targets.end());
  if (wanted != std::set<std::string>(plan.spec.targets.begin(), plan.spec.targets.end())) {
    return false;
  }
  for (const TensorId& id : fetches) {
    if (absl::c_find(plan.spec.fetches, id) == plan.spec.fetches.end()) return false;
  }
  for (const auto& [id, value] : feeds) {
    const Node* node = graph.FindNode(id.node);
    if (node == nullptr || id.index != 0 ||
        (node->op != "Placeholder" && node->op != "PlaceholderWithDefault")) {
      return false;
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<std::vector<Tensor>> DeviceSession::Run(const std::vector<Feed>& feeds,
                                                       const std::vector<std::string>& fetches,
                                                       const std::vector<std::string>& targets) {
  // The one check of the feeds: the executor below takes them as checked.
  DFC_RETURN_IF_ERROR(CheckFeeds(*graph_, feeds));
  std::string key;  // what a translation depends on besides the fed shapes (FedShapes)
  for (const Feed& feed : feeds) absl::StrAppend(&key, "feed ", feed.id.ToString(), ";");
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
  if (plan_ != nullptr && PlanServes(*plan_, *graph_, feeds, fetch_ids, targets)) {
    return executor_->Run(*graph_, plan_->translated, feeds, fetch_ids, &state_);
  }
  // As TranslateForFeeds chooses (ChooseTranslation), each translation made once for its fed
  // shapes: a batch size or an image size seen before reuses it.
  auto translation = [&](FedDims dims) -> absl::StatusOr<const ir::TranslatedGraph*> {
    std::map<std::string, PartialShape> shapes;  // ordered, for the key
    for (auto& [name, shape] : FedShapes(*graph_, feeds, dims)) shapes[name] = shape;
    std::string shapes_key = key;
    for (const auto& [name, shape] : shapes) {
      absl::StrAppend(&shapes_key, "shape ", name, shape.ToString(), ";");
    }
    auto it = translated_.find(shapes_key);
    if (it == translated_.end()) {
      DFC_ASSIGN_OR_RETURN(
          ir::TranslatedGraph translated,
          TranslateForFeedShapes(*graph_, fetch_ids, feeds, targets, dims,
                                 /*loop_body=*/false, executor_->options().folding));
      it = translated_.emplace(shapes_key, std::move(translated)).first;
    }
    return &it->second;
  };
  DFC_ASSIGN_OR_RETURN(const ir::TranslatedGraph* translated,
                       ChooseTranslation(translation, feeds));
  return executor_->Run(*graph_, *translated, feeds, fetch_ids, &state_);
}

}  // namespace dfc
