// Translating a graph for a run: which dimensions of the fed placeholders a translation takes as
// constants, what it folds, and the oracle that folds with the reference executor.
#ifndef DFC_RUNTIME_TRANSLATE_FOR_FEEDS_H_
#define DFC_RUNTIME_TRANSLATE_FOR_FEEDS_H_

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "graph/feed.h"
#include "graph/fold.h"
#include "graph/graph.h"
#include "graph/tensor.h"
#include "ir/from_tf/cluster.h"

namespace dfc {

// Folding with the reference executor for constants and the IR translation for device shapes.
class ReferenceFoldOracle : public FoldOracle {
 public:
  absl::StatusOr<std::vector<Tensor>> Evaluate(const Node& node,
                                               std::span<const Tensor> inputs) const override;
  absl::StatusOr<std::vector<TensorInfo>> InferShapes(
      const Node& node, std::span<const TensorInfo> inputs) const override;
  bool ReadsStatically(const Node& node, int input) const override;
};

// Which unknown dimensions of a fed placeholder a translation takes as the fed constants:
//   kSymbolic        none (each is a size variable: one translation serves every batch);
//   kOnesAsConstants those fed 1 (TensorFlow broadcasts a dimension of 1 against any size);
//   kAllButBatch     all but dimension 0, for the ops that need them known when the graph is
//                    compiled (a convolution's image size): the batch stays a size variable;
//   kAll             every one (a size made of several that comes to 1, such as the
//                    concatenation of batches of 1 and 0, broadcast against another).
enum class FedDims { kSymbolic, kOnesAsConstants, kAllButBatch, kAll };

// The shape a run compiles a fed placeholder for, where the declared one does not serve: the
// fed rank where none is declared, and the dimensions `dims` chooses. Nullopt where the
// declared shape serves.
std::optional<PartialShape> FedPlaceholderShape(const Node& node, const Shape& fed, FedDims dims);

// FedPlaceholderShape of every fed placeholder that has one, by placeholder name: what
// TranslateForFeedShapes compiles for, so two runs whose FedShapes are equal (with the same fed
// names, fetches and targets) share one translation.
absl::flat_hash_map<std::string, PartialShape> FedShapes(const Graph& graph,
                                                         const std::vector<Feed>& feeds,
                                                         FedDims dims);

// What a run's translation folds. kStatic: only what translations read when compiling (a
// Reshape's shape, a Sum's axes); every other device computation is a kernel, as conformance
// runs want, so that the device computes what a case tests. kConstants: also every device
// computation whose inputs are all constants, once, when the graph is translated (the reference
// evaluates it), as TensorFlow's constant folding does before a session runs a graph: a frozen
// model's batch-norm scales would otherwise be kernels of every run.
enum class Folding { kStatic, kConstants };

// Translates what `fetches` need for a run with `feeds`: folding as `folding` says (the rest
// stays in clusters), batch dimensions symbolic, and placeholders
// declared without a rank compiled for the rank they are fed with. `targets` are nodes run
// for their effects (a training step).
//
// The translation takes the unknown dimensions that the graph combines for one size (the batch N
// of two placeholders added). TensorFlow also broadcasts a dimension of 1 against any size: when
// the feeds bind those sizes to 1 and something else, the graph is translated once more with each
// unknown dimension fed 1 taken as the constant 1 (FedDims::kOnesAsConstants), and where the
// feeds bind no sizes to that either (a sum of sizes that comes to 1), with every unknown
// dimension as fed (FedDims::kAll). Where the
// translation leaves device nodes on the host for want of a known dimension (a convolution of
// images of any size), it is translated once more with every dimension but the batch as fed
// (FedDims::kAllButBatch), and that one is kept if it leaves fewer. `loop_body`: the graph is a
// loop's body or condition, run once per iteration (TranslateOptions::host_integer_scalars).
absl::StatusOr<ir::TranslatedGraph> TranslateForFeeds(const Graph& graph,
                                                      const std::vector<TensorId>& fetches,
                                                      const std::vector<Feed>& feeds,
                                                      const std::vector<std::string>& targets = {},
                                                      bool loop_body = false,
                                                      Folding folding = Folding::kStatic);
// The choice TranslateForFeeds describes, over `translate`, which gives the translation for
// one FedDims (a session's, cached; TranslateForFeeds' own): kSymbolic, else kOnesAsConstants
// where the feeds bind no sizes to it, else kAll, and kAllButBatch where that leaves fewer device
// nodes on the host.
absl::StatusOr<const ir::TranslatedGraph*> ChooseTranslation(
    const std::function<absl::StatusOr<const ir::TranslatedGraph*>(FedDims)>& translate,
    const std::vector<Feed>& feeds);
absl::StatusOr<ir::TranslatedGraph> TranslateForFeedShapes(const Graph& graph,
                                                           const std::vector<TensorId>& fetches,
                                                           const std::vector<Feed>& feeds,
                                                           const std::vector<std::string>& targets,
                                                           FedDims dims, bool loop_body = false,
                                                           Folding folding = Folding::kStatic);

}  // namespace dfc

#endif  // DFC_RUNTIME_TRANSLATE_FOR_FEEDS_H_
