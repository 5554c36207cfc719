// Feeds parsed and checked against a graph (see feed.h).
#include "graph/feed.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "graph/ops.h"

namespace dfc {
namespace {

absl::Status CheckFeed(const Graph& graph, const TensorId& id, const Tensor& value) {
  absl::StatusOr<int> i = graph.ResolveTensor(id, "feed");
  if (!i.ok()) return i.status();
  const Node& node = graph.node(*i);
  if (node.op != "Placeholder" && node.op != "PlaceholderWithDefault") return absl::OkStatus();
  absl::StatusOr<DType> dtype = node.GetType("dtype");
  if (!dtype.ok()) return dtype.status();
  const PartialShape shape = PlaceholderShape(node);
  if (value.dtype() != *dtype || !shape.IsCompatibleWith(value.shape())) {
    return absl::InvalidArgumentError(
        absl::StrCat("feed \"", id.ToString(), "\" is ", value.DebugType(), " but placeholder \"",
                     node.name, "\" expects ", DTypeName(*dtype), shape.ToString()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Feed> ParseFeed(absl::string_view name, Tensor value) {
  absl::StatusOr<TensorId> id = TensorId::Parse(name);
  if (!id.ok()) return absl::InvalidArgumentError(absl::StrCat("feed: ", id.status().message()));
  return Feed{.id = *std::move(id), .value = std::move(value)};
}

absl::Status CheckFeeds(const Graph& graph, const std::vector<Feed>& feeds) {
  absl::flat_hash_set<TensorId> fed;
  for (const Feed& feed : feeds) {
    if (absl::Status s = CheckFeed(graph, feed.id, feed.value); !s.ok()) return s;
    if (!fed.insert(feed.id).second) {
      return absl::InvalidArgumentError(absl::StrCat("\"", feed.id.ToString(), "\" is fed twice"));
    }
  }
  return absl::OkStatus();
}

}  // namespace dfc
