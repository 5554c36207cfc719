// A feed: a value given for a tensor of a graph in place of what its producer computes. It has
// this one form from the command line down to the device, and is checked against the graph once,
// where the user's feeds enter (the sessions, the command line): the executors and the translation
// below them take their feeds as checked.
#ifndef DFC_GRAPH_FEED_H_
#define DFC_GRAPH_FEED_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/graph.h"
#include "graph/tensor.h"

namespace dfc {

// The tensor is held by TensorId, not by name: the user's name ("x", "x:0", "split:1") is
// parsed once, where it is read (ParseFeed), and every layer keys its values by TensorId, as the
// graph's edges do, so none parses it again or meets "x" and "x:0" as two tensors.
struct Feed {
  TensorId id;
  Tensor value;
};

// The feed of the tensor `name` names, with `value`. A malformed name is an InvalidArgument
// error that starts with "feed: ".
absl::StatusOr<Feed> ParseFeed(absl::string_view name, Tensor value);

// OK if every feed names a tensor of `graph` whose node, if a placeholder, has the value's dtype
// and a shape compatible with the value's, and no tensor is fed twice. The error names the feed,
// the placeholder and what it expects.
absl::Status CheckFeeds(const Graph& graph, const std::vector<Feed>& feeds);

}  // namespace dfc

#endif  // DFC_GRAPH_FEED_H_
