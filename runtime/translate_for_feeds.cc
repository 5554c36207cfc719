// Translating a graph for a run (see translate_for_feeds.h).
#include "runtime/translate_for_feeds.h"

#include <algorithm>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/ops.h"
#include "graph/tensor_list.h"
#include "ir/from_tf/translate.h"
#include "ir/interpreter.h"
#include "runtime/control_flow.h"
#include "runtime/reference/kernel.h"

namespace dfc {

absl::StatusOr<std::vector<Tensor>> ReferenceFoldOracle::Evaluate(
    const Node& node, std::span<const Tensor> inputs) const {
  return reference::EvaluateNode(node, inputs);
}

absl::StatusOr<std::vector<TensorInfo>> ReferenceFoldOracle::InferShapes(
    const Node& node, std::span<const TensorInfo> inputs) const {
  return ir::InferShapesByTranslation(node, inputs);
}

bool ReferenceFoldOracle::ReadsStatically(const Node& node, int input) const {
  return ir::MayReadStatically(node, input);
}

std::optional<PartialShape> FedPlaceholderShape(const Node& node, const Shape& fed, FedDims dims) {
  PartialShape shape = PlaceholderShape(node);
  if (shape.unknown_rank) return PartialShape{.dims = fed};
  // A declared rank that differs is CheckFeeds' error to word.
  if (dims == FedDims::kSymbolic || shape.dims.size() != fed.size()) return std::nullopt;
  bool changed = false;
  for (size_t k = 0; k < fed.size(); ++k) {
    bool constant = k > 0;  // kAllButBatch
    if (dims == FedDims::kOnesAsConstants) constant = fed[k] == 1;
    if (dims == FedDims::kAll) constant = true;
    if (shape.dims[k] < 0 && constant) {
      shape.dims[k] = fed[k];
      changed = true;
    }
  }
  if (!changed) return std::nullopt;
  return shape;
}

absl::StatusOr<const ir::TranslatedGraph*> ChooseTranslation(
    const std::function<absl::StatusOr<const ir::TranslatedGraph*>(FedDims)>& translate,
    const std::vector<Feed>& feeds) {
  DFC_ASSIGN_OR_RETURN(const ir::TranslatedGraph* translated, translate(FedDims::kSymbolic));
  if (!BindSizes(*translated, feeds).ok()) {
    DFC_ASSIGN_OR_RETURN(translated, translate(FedDims::kOnesAsConstants));
  }
  if (!BindSizes(*translated, feeds).ok()) {
    DFC_ASSIGN_OR_RETURN(translated, translate(FedDims::kAll));
  }
  if (translated->host_device_nodes.empty()) return translated;
  absl::StatusOr<const ir::TranslatedGraph*> known = translate(FedDims::kAllButBatch);
  if (known.ok() && (*known)->host_device_nodes.size() < translated->host_device_nodes.size() &&
      BindSizes(**known, feeds).ok()) {
    return *known;
  }
  return translated;
}

absl::StatusOr<ir::TranslatedGraph> TranslateForFeeds(const Graph& graph,
                                                      const std::vector<TensorId>& fetches,
                                                      const std::vector<Feed>& feeds,
                                                      const std::vector<std::string>& targets,
                                                      bool loop_body, Folding folding) {
  std::map<FedDims, ir::TranslatedGraph> made;
  DFC_ASSIGN_OR_RETURN(const ir::TranslatedGraph* chosen,
                       ChooseTranslation(
                           [&](FedDims dims) -> absl::StatusOr<const ir::TranslatedGraph*> {
                             DFC_ASSIGN_OR_RETURN(
                                 made[dims], TranslateForFeedShapes(graph, fetches, feeds, targets,
                                                                    dims, loop_body, folding));
                             return &made[dims];
                           },
                           feeds));
  for (auto& [dims, translated] : made) {
    if (&translated == chosen) return std::move(translated);
  }
  return absl::InternalError("the chosen translation is none of those made");
}

absl::flat_hash_map<std::string, PartialShape> FedShapes(const Graph& graph,
                                                         const std::vector<Feed>& feeds,
                                                         FedDims dims) {
  absl::flat_hash_map<std::string, PartialShape> shapes;
  for (const auto& [id, tensor] : feeds) {
    const Node* node = graph.FindNode(id.node);
    if (node == nullptr) continue;
    if (std::optional<PartialShape> shape = FedPlaceholderShape(*node, tensor.shape(), dims)) {
      shapes[id.node] = *std::move(shape);
    }
  }
  return shapes;
}

absl::StatusOr<ir::TranslatedGraph> TranslateForFeedShapes(
    const Graph& graph, const std::vector<TensorId>& fetches, const std::vector<Feed>& feeds,
    const std::vector<std::string>& targets, FedDims dims, bool loop_body, Folding folding) {
  std::vector<TensorId> fed_ids;
  for (const auto& [id, tensor] : feeds) fed_ids.push_back(id);
  ir::TranslateOptions options{.fold_only_static = folding == Folding::kStatic,
                               .placeholder_shapes = FedShapes(graph, feeds, dims),
                               .host_integer_scalars = loop_body};
  // A fed TensorArray (a loop body's argument): its reads have its elements' shape.
  for (const auto& [id, tensor] : feeds) {
    if (const TensorArrayValue* array = AsTensorArray(tensor)) {
      if (std::optional<Shape> shape = array->UniformElementShape()) {
        options.array_element_shapes[id.node] = *std::move(shape);
      }
    }
  }
  ReferenceFoldOracle oracle;
  return ir::TranslateGraph(graph, fetches, targets, fed_ids, oracle, options);
}

}  // namespace dfc
