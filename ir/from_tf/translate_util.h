// Building blocks shared by the translations: the thesis' nested Maps, element-by-element Zips,
// dimension permutations built from adjacent Transposes, and reshapes as Join then Split.
#ifndef DFC_IR_FROM_TF_TRANSLATE_UTIL_H_
#define DFC_IR_FROM_TF_TRANSLATE_UTIL_H_

#include <functional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/arith.h"
#include "ir/expr.h"

namespace dfc::ir {

using ScalarFn = std::function<absl::StatusOr<ExprPtr>(ExprPtr)>;
using ScalarsFn = std::function<absl::StatusOr<ExprPtr>(std::span<const ExprPtr>)>;

// Up to this many results, a fold that makes several of them from the same elements keeps one
// accumulator per result in the work-item's registers and reads each element once: a
// convolution folds a window's taps once for all its output channels (register blocking over
// output channels, Lift's mapReduceInterchange), a pool or a reduction over the spatial
// dimensions folds each position once for all channels. More spill, and each result folds the
// elements on its own. Both ways fold each result's terms in the same order: they are equal.
// On PoCL's CPU device at batch 64, LeNet's first two convolutions with their pools ran 6x and
// 14x faster so (14.2 ms to 2.3, 14.7 to 1.1); its third, of 120 channels, 5x slower at a
// bound of 128 (3.5 ms to 17).
inline constexpr int64_t kRegisterAccumulators = 64;

// The rank of a tensor-typed expression (0 for a scalar).
int Rank(const ExprPtr& tensor);
// Its dims (the expression must have a tensor type: checked).
SymbolicShape ShapeOfExpr(const ExprPtr& tensor);

// Map^depth(λ(x) => f(x)) $ t: f applied to every element `depth` array levels down.
absl::StatusOr<ExprPtr> MapAtDepth(const ExprPtr& t, int depth, const ScalarFn& f);
// One Map per dimension, down to the scalars (the thesis' unary translation).
absl::StatusOr<ExprPtr> MapScalars(const ExprPtr& t, const ScalarFn& f);
// Tensors of one shape, combined element by element: nested Map(λ(p) => f(Get(0) $ p, ...))
// over Zips, one level per dimension.
absl::StatusOr<ExprPtr> ZipScalars(std::vector<ExprPtr> tensors, const ScalarsFn& f);

// Output dim k is input dim perm[k]. Built from Map^d(Transpose) swaps of adjacent dims, in
// bubble-sort order; the identity permutation returns t itself.
absl::StatusOr<ExprPtr> TransposeTensor(const ExprPtr& t, std::span<const int> perm);
// Swaps dimensions d and d+1: Map^d(Transpose()) $ t.
absl::StatusOr<ExprPtr> SwapAdjacent(const ExprPtr& t, int d);

// The same elements in C order with another shape: the leading dims up to the first provably
// equal product joined into rows, each row reshaped on its own by Map, the rows split to
// `shape`'s leading dims; where no such boundary exists, Join down to one dimension, then Split
// up to `shape`; to a scalar, the one element through At. The element counts must be provably
// equal.
absl::StatusOr<ExprPtr> ReshapeTensor(const ExprPtr& t, const SymbolicShape& shape);
// `t`, whose leading from.size() dims are `from`, with those dims stretched to `to` by NumPy
// broadcasting (the caller has checked it applies): a size-1 dim becomes Repeat of its one
// element, a missing leading dim Repeat of the whole. Views only. Trailing dims of `t` beyond
// `from` (a batched matrix's rows and columns) are left as they are.
absl::StatusOr<ExprPtr> StretchTensor(ExprPtr t, const SymbolicShape& from,
                                      const SymbolicShape& to);
// All dims joined into one: [[T]_m]_n -> [T]_(n*m); a scalar becomes [T]_1.
absl::StatusOr<ExprPtr> Flatten(const ExprPtr& t);
// The first n dims joined into one (n >= 1): [A1]..[An][rest] -> [A1·..·An][rest].
absl::StatusOr<ExprPtr> JoinLeading(ExprPtr t, int n);
// A window [K1]..[Kk][C] as each channel's taps, [C][K1·..·Kk], in row-major window order.
absl::StatusOr<ExprPtr> ChannelTaps(const ExprPtr& window, int k);
// The fields of a tuple, one Get each.
absl::StatusOr<std::vector<ExprPtr>> Fields(const ExprPtr& tuple);
// Tensors of one shape zipped level by level down `depth` dimensions; f receives their
// elements there (one per tensor, in order).
absl::StatusOr<ExprPtr> ZipAtDepth(std::vector<ExprPtr> tensors, int depth, const ScalarsFn& f);

// Each row of `rows` ([R][M]) folded elementwise into M accumulators that start at `init`, in
// row order (kRegisterAccumulators):
//   Reduce(λ(acc, r) => Map(λq => step(Get(0) q, Get(1) q)) $ Zip(acc, r))(Repeat(M) $ init, rows)
absl::StatusOr<ExprPtr> FoldRows(const ExprPtr& init, const ExprPtr& rows, const FunPtr& step);

// The value of a size as a scalar of `dtype`: a literal when it is a constant, else
// SizeValue (converted for a floating dtype), so a count over a symbolic batch is known when
// the kernel runs.
absl::StatusOr<ExprPtr> SizeAsScalar(const ArithExpr& n, DType dtype);

// A scalar literal of `dtype` (floating values rounded to it, integers wrapped).
ExprPtr Lit(DType dtype, double value);
// f(args...) for a UserFun made on the fly.
absl::StatusOr<ExprPtr> Apply(const FunPtr& f, std::vector<ExprPtr> args);

}  // namespace dfc::ir

#endif  // DFC_IR_FROM_TF_TRANSLATE_UTIL_H_
