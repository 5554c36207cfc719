// The folder's symbolic layer (graph/fold.cc): the int32/int64 shape arithmetic TensorFlow's
// gradients emit (Shape, Pack, StridedSlice, BroadcastGradientArgs...) evaluated over symbolic
// sizes, and the facts of a TensorInfo that its rules, the host shapes and the folder read.
#ifndef DFC_GRAPH_SYMBOLIC_FOLD_H_
#define DFC_GRAPH_SYMBOLIC_FOLD_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "graph/fold.h"
#include "graph/node.h"

namespace dfc::folding {

using SymVec = std::vector<ArithExpr>;
using Infos = std::vector<TensorInfo>;
using Inputs = std::span<const TensorInfo>;

// A TensorInfo that knows nothing.
const TensorInfo& UnknownInfo();

bool IsIndexType(DType d);

// Drops what is known about the value, keeping dtype and shape: what a node that runs as a
// kernel offers its consumers.
TensorInfo ShapeOnly(const TensorInfo& t);

// The int elements of a constant of any rank.
std::optional<std::vector<int64_t>> ConstInts(const TensorInfo& t);

// Whether `t` is an int scalar or vector whose elements are known up to size variables.
bool IsSymbolicScalar(const TensorInfo& t);
bool IsSymbolicVector(const TensorInfo& t);

// The info of an int32/int64 scalar (`scalar`) or vector whose elements are `elems`; the value
// is set too when every element is a constant. Nullopt if a constant does not fit the dtype.
std::optional<TensorInfo> SymbolicInfo(DType dtype, SymVec elems, bool scalar);

// The type attribute `key`, or `fallback` when it is absent or not a type.
DType TypeAttr(const Node& node, absl::string_view key, DType fallback);

// A declared shape as a symbolic one; nullopt for an unknown rank or dimension.
std::optional<SymbolicShape> FromPartialShape(const PartialShape& p);

// The length of Range(start, limit, delta) when it is provably non-negative.
std::optional<ArithExpr> RangeLength(const ArithExpr& start, const ArithExpr& limit,
                                     const ArithExpr& delta);

// Each returns the outputs when the node's value is known up to size variables, or nullopt.
using Rule = std::function<std::optional<Infos>(const Node&, Inputs)>;

// The symbolic rule of each op that has one, by op name.
const absl::flat_hash_map<std::string, Rule>& SymbolicRules();

}  // namespace dfc::folding

#endif  // DFC_GRAPH_SYMBOLIC_FOLD_H_
