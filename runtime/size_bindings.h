// Binding a translation's size variables for a run: from the feeds, from what host nodes give
// when they run, and the values a translation read when compiling.
#ifndef DFC_RUNTIME_SIZE_BINDINGS_H_
#define DFC_RUNTIME_SIZE_BINDINGS_H_

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

// Binds every size variable of `fold` from the fed placeholders' shapes. A placeholder that is
// not fed binds nothing; two feeds that disagree on one variable (the batch N) are an error.
// The variables that unification replaced must agree with their replacements: a feed whose
// batch differs from another's that the graph combines it with is an error naming both.
absl::StatusOr<SizeBindings> BindSizes(const ir::TranslatedGraph& translated,
                                       const std::vector<Feed>& feeds);

// Binds the size variables that host node `node` gives when it runs (SizeVariable::when_run:
// Unique's number of distinct values) from its outputs' shapes, and what unification ties to
// them; a binding that disagrees with one made earlier in the run is an error.
absl::Status BindRunSizes(const ir::TranslatedGraph& translated, const Node& node,
                          std::span<const Tensor> outputs, SizeBindings& sizes);
// Whether any size variable of `translated` is bound that way.
bool BindsSizesWhenRun(const ir::TranslatedGraph& translated);

// A tensor known when compiling (TensorInfo::value, or symbolic_value with the size variables
// bound by `sizes`); an error if `info` is neither.
absl::StatusOr<Tensor> CompileTimeValue(const TensorInfo& info, const SizeBindings& sizes);

}  // namespace dfc

#endif  // DFC_RUNTIME_SIZE_BINDINGS_H_
