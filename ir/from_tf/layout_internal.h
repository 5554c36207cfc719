// Pieces shared by the layout translations (layout.cc, layout_slice.cc, layout_gather.cc,
// layout_tail.cc): reading compile-time index inputs with the reference executor's checks, and
// applying index patterns at a given depth of a tensor. Private to those four files.
#ifndef DFC_IR_FROM_TF_LAYOUT_INTERNAL_H_
#define DFC_IR_FROM_TF_LAYOUT_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/arith.h"
#include "ir/expr.h"
#include "ir/from_tf/translate.h"

namespace dfc::ir::layout {

// Input i as the reference's ReadIndexVector reads it (int32 or int64, rank 0 or 1), with
// entries that may involve size variables. `vector` also asks for rank 1 exactly, as the
// reference does for per-dimension vectors (perm, begin, multiples...).
absl::StatusOr<std::vector<ArithExpr>> IndexVector(const TranslateContext& ctx, int i,
                                                   absl::string_view what, bool vector = false);
// The same, every entry a constant.
absl::StatusOr<std::vector<int64_t>> ConstantIndexVector(const TranslateContext& ctx, int i,
                                                         absl::string_view what,
                                                         bool vector = false);
// The single element of input i (ReadIndexScalar), a constant.
absl::StatusOr<int64_t> ConstantIndexScalar(const TranslateContext& ctx, int i,
                                            absl::string_view what);

// A translation's outputs, and one expression as them, an error annotated with the node.
using Outputs = absl::StatusOr<std::vector<ExprPtr>>;
Outputs One(const TranslateContext& ctx, absl::StatusOr<ExprPtr> e);

// The reference's NormalizeAxis: [-rank, rank) to [0, rank), anything else an error.
absl::StatusOr<int> NormalizeAxis(const TranslateContext& ctx, int64_t axis, int rank);

// out[o..., n..., :] = params[o..., indices[n...], :] (GatherV2 at `axis`); At refuses an
// index outside [0, limit), as the reference does.
absl::StatusOr<ExprPtr> GatherAt(const ExprPtr& params, const ExprPtr& indices, int axis);
// Range's element of an int32 or int64 range: (i, start, delta) -> start + i * delta.
FunPtr IndexRangeFun(DType dtype);

// "[2,N,3]".
std::string ShapeString(const SymbolicShape& shape);
// "float32[2,N,3]", as Tensor::DebugType writes a tensor.
std::string DebugType(const ExprPtr& tensor);

// body(e), with e bound once by a Let when it is a computation (a FunCall): for operands a
// body captures inside Maps, which would otherwise recompute them per element.
absl::StatusOr<ExprPtr> Bind(const ExprPtr& e,
                             const std::function<absl::StatusOr<ExprPtr>(ExprPtr)>& body,
                             absl::string_view name = "v");
// f $ x for a one-argument pattern.
absl::StatusOr<ExprPtr> Call1(const FunPtr& f, const ExprPtr& x);
// Map^depth(f) $ t.
absl::StatusOr<ExprPtr> ApplyAt(const ExprPtr& t, int depth, const FunPtr& f);
// Map^depth(Reindex(length, index)) $ t: dimension `depth` replaced by `length` elements,
// element i being the old element index(i).
absl::StatusOr<ExprPtr> ReindexAt(const ExprPtr& t, int depth, const ArithExpr& length,
                                  const ArithExpr& index);
// A new dimension of size 1 before dimension `depth` (ExpandDims): Map^depth(Repeat(1)).
absl::StatusOr<ExprPtr> InsertUnitDim(const ExprPtr& t, int depth);
// Dimension `depth`, of size 1, removed: Map^(depth-1)(Join) $ t, or At $ (t, 0) at depth 0.
absl::StatusOr<ExprPtr> RemoveUnitDim(const ExprPtr& t, int depth);
// Every element `scalar` in a tensor of `shape`: nested Repeats, innermost first.
absl::StatusOr<ExprPtr> Filled(const ExprPtr& scalar, const SymbolicShape& shape);
// `t`'s elements with `shape`: `t` itself when the shapes are provably equal, else Joins then
// Splits (ReshapeTensor). Errors have no node prefix.
absl::StatusOr<ExprPtr> Reshape(const ExprPtr& t, const SymbolicShape& shape);

// `values` (of one rank, equal in every dimension but `axis`) concatenated along `axis`:
// Map^axis over Zips of the operands, then Concat.
absl::StatusOr<ExprPtr> ConcatAt(const std::vector<ExprPtr>& values, int axis);

// The translations of layout_slice.cc and layout_gather.cc, registered by
// RegisterLayoutTranslations.
void RegisterSliceTranslations(TranslationTable& table);
void RegisterGatherTranslations(TranslationTable& table);
// Roll, ReverseSequence and GatherNd (layout_tail.cc).
void RegisterTailTranslations(TranslationTable& table);

}  // namespace dfc::ir::layout

#endif  // DFC_IR_FROM_TF_LAYOUT_INTERNAL_H_
