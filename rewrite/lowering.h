// The lowering family (Lift's second stage): rules that decide where a value is stored and
// which work-items compute it, leaving what is computed as it is. The stages of
// LowerForDevice (lower_for_device.h) apply them by default; the code generator prints what
// they decided.
#ifndef DFC_REWRITE_LOWERING_H_
#define DFC_REWRITE_LOWERING_H_

#include <functional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "ir/traverse.h"
#include "rewrite/rule.h"

namespace dfc::rewrite {

// toGlobal, for a let evaluated once per kernel (ApplyAtTopLevel):
//   (λ(v) => B) $ x => (λ(v) => B) $ (ToGlobal(Id) $ x)
// for each argument x of tensor type not already ToGlobal. A value bound once for several
// readers is computed once, by a kernel of its own, into a buffer the later kernels read:
// recomputed wherever it is read, a chain of such values (the steps of an unrolled RNN) would
// grow the code exponentially.
Rule ToGlobalLet();

// Whether toGlobal stores `arg` of a let: a tensor (an array of scalars, however nested) that
// is not ToGlobal already. The code generator refuses a top-level let that binds one.
bool IsUnstoredTensor(const ir::ExprPtr& arg);

// mapGlb(d) and mapWrg(d), at a value a kernel stores (a cluster's output, ToGlobal's
// argument), `kind` kMapGlb or kMapWrg:
//   Map(f) $ x => MapGlb(d)(f) $ x        x => MapGlb(d)(Id) $ x, any other array x
// Work-item gid (with MapWrg, work-group gid) computes row gid; a value already mapped
// (MappedRows) declines.
Rule MapRows(ir::Fun::Kind kind, int dim);

// The mapping choice the explorer makes as a step (Lift's second stage), at the root of a
// cluster's body; the default strategy (LowerForDevice) keeps it and decides the rest.
//   mapOutputsWrg: each array output whose rows are not mapped yet and fold by a combiner that
//     reduceLcl can split (SplitsAReduce), Map(f) $ x => MapWrg(0)(f) $ x. The lowering splits
//     those Reduces across the profile's work-group, or declines where it has none.
//   mapOutputsGlb: each array output whose rows are not mapped yet => MapGlb(0)(f) $ x, even
//     where the strategy would give its few rows that reduce to work-groups.
// Blocks of rows (blockRows, vectorizeColumns) are mapped already: the strategy places them.
// Declines where no output is chosen.
Rule MapOutputs(ir::Fun::Kind kind);

// Whether the work of `e` (WalkKernel) has a Reduce that reduceLcl(0) splits among `lanes`
// work-items: the rows of a MapWrg kernel share work only there.
bool SplitsAReduce(const ir::ExprPtr& e, int lanes);

// flattenRows, at a value a kernel stores whose rows are arrays of arrays (rank >= 3):
//   Map(λ(a) => Map(g) $ a) $ x => Split(m) $ Map(g) $ Join $ x, g not reading a
// (Lift's Map(Map(g)) = Split(m) o Map(g) o Join). A batch of images has few rows, a row per
// image: with the leading dimensions joined every output pixel is a row, one work-item each.
// The Split is a view of the same memory, so the rows are stored where they were.
Rule FlattenRows();

// storeByBlocks(r), for a matrix a kernel stores:
//   x => Reindex(n, i) $ Join $ MapGlb(0)(λb => TransposeW $ Transpose $ b)
//          $ Split(r) $ Pad(0, ⌈n/r⌉·r - n, clamp) $ x
// (neither Pad nor Reindex where r divides n): work-item gid writes the r rows from r·gid,
// column by column. A copy of a transposed view reads down the columns of its input: row by
// row, each element read is a cache line of its own; r rows at once read each line once.
Rule StoreByBlocks(int rows);

// Whether `e`'s rows are mapped onto the device already: MapGlb(d)(f) $ x or MapWrg(d)(f) $ x
// (or Split(m) of one, flattenRows' form, whose rows are those of the MapGlb),
// or blocks of rows, Join $ MapGlb(d)(f) $ x (rewrite::BlockRows, VectorizeColumns), possibly
// the first n rows of them, Reindex(n, i) $ Join $ MapGlb(d)(f) $ x. The MapGlb or MapWrg
// call, or nullptr.
ir::ExprPtr MappedRows(const ir::ExprPtr& e);

// mapSeq and reduceSeq, for the code of one work-item: Map(f) => MapSeq(f) (also a MapGlb
// read as a view, not stored by a kernel), Reduce(f) => ReduceSeq(f). A MapSeq's elements are
// computed by the work-item that reads them, where it reads them (the generator's fusion).
Rule MapSeqRule();
Rule ReduceSeqRule();

// reduceLcl(d): the work-group split of a reduction, for the rows of a MapWrg kernel:
//   Reduce(f) $ (a, x) => ReduceLcl(d)(f) $ (a, x)
// for f a combiner (UserFun::combiner), a a scalar and x an array of scalars of a's dtype with
// at least `lanes` elements (a size variable, a batch, counts as many).
Rule ReduceLclRule(int dim, int lanes);

// reduceLanes, for a fold of the lanes of one vector (vectorizeReduce's partial results):
//   Reduce(f) $ (a, AsScalar $ v) => ReduceLanes(f) $ (a, v)
// for f a combiner, a a scalar and v one vector of a's dtype. The halves of the vector are
// combined lane-wise (log2 w steps of vector arithmetic) rather than its w lanes one by one.
Rule ReduceLanesRule();

// toPrivate, for the values a work-item binds: a let's arguments,
//   (λ(v) => B) $ x => (λ(v) => B) $ (ToPrivate(Id) $ x)
// and the elements a Map's or a Reduce's function binds,
//   Map(λ(v) => B) $ X => Map(λ(u) => (λ(v) => B) $ (ToPrivate(Id) $ u)) $ X
// where v is an array and `worth(v, B)` holds (the strategy's reasons: v's value does
// arithmetic, B reads it more than once, it fits a work-item's private memory).
using PrivateWorth = std::function<bool(const ir::Param& v, const ir::Expr& body)>;
Rule ToPrivateLet(PrivateWorth worth);
Rule ToPrivateElement(PrivateWorth worth);

// transposeW, where the rows of the transposed array compute (`rows_compute(x)`):
//   Transpose $ x => TransposeW $ x
// Read by rows, a Transpose of computed rows would compute every row for each element of a
// row; written column by column, each is computed once.
Rule TransposeWRule(std::function<bool(const ir::ExprPtr& x)> rows_compute);

// The values a cluster's body stores into its output buffers: the body's value after its
// lets, each field of it if that is a Tuple. The lets' bodies are followed: outputs[k] is the
// k-th output's expression, under the lets' parameters.
std::vector<ir::ExprPtr> BodyOutputs(const ir::ExprPtr& body);

// The values a kernel of `body` stores: its outputs, and the values of its lets.
absl::flat_hash_set<const ir::Expr*> StoredValues(const ir::ExprPtr& body);

// `body` with each of its outputs (BodyOutputs) replaced by `rewrite(outputs)[k]`.
absl::StatusOr<ir::ExprPtr> ReplaceOutputs(
    const ir::ExprPtr& body,
    const std::function<absl::StatusOr<std::vector<ir::ExprPtr>>(std::vector<ir::ExprPtr>)>&
        rewrite);

// A kernel's work, walked as ir::Walk does: everything `e` evaluates, but not what a ToGlobal
// inside it stores (a kernel of its own).
void WalkKernel(const ir::ExprPtr& e, const std::function<bool(const ir::ExprPtr&)>& visit);

// A mutator of what is evaluated once per kernel: a Map's or a Reduce's function, which runs
// once per element, is left as it is.
class TopLevelMutator : public ir::ExprMutator {
 protected:
  absl::StatusOr<ir::FunPtr> MutatePattern(const ir::FunPtr& f,
                                           const ir::Pattern& pattern) override;
};

// `e` with `rule` applied, pre-order, at every place evaluated once per kernel rather than
// once per element: everything outside the functions of its Maps and Reduces (a let's value
// and body, a pattern's arguments). What the rule rewrites is searched again.
absl::StatusOr<ir::ExprPtr> ApplyAtTopLevel(const Rule& rule, const ir::ExprPtr& e);

}  // namespace dfc::rewrite

#endif  // DFC_REWRITE_LOWERING_H_
