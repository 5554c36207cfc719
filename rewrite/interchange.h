// Interchange rules: which of two nested walks runs outside. A dot product per output column
// reads its row once per column; interchanged, one walk over the row updates every column's
// accumulator, reading each element once (Lift's mapReduceInterchange).
#ifndef DFC_REWRITE_INTERCHANGE_H_
#define DFC_REWRITE_INTERCHANGE_H_

#include "rewrite/rule.h"

namespace dfc::rewrite {

// mapReduceInterchange:
//   Map(λc => B[Reduce(f)(init, E(c))]) $ C
//     => Map(λv => B[v]) $ Reduce(λ(acc, x) => Map(f) $ Zip(acc, x))(Repeat(n) $ init,
//                                                               Transpose $ (Map(λc => E(c)) $ C))
// for a high-level Map over C of length n whose body reads c only through that Reduce (the
// innermost such), and whose init and f do not read c. Every column keeps its own fold, in
// the same order: the results are equal, not only close.
Rule MapReduceInterchange();

// blockRows(r), register blocking of a walk over rows:
//   Map(λa => B(a, Map(λc => H(a, c)) $ C)) $ X
//     => Join $ MapGlb(λb => (λt => Map(λp => B(Get(0) $ p, Get(1) $ p)) $ Zip(b, t))
//                              $ Transpose $ Map(λc => Map(λa => H(a, c)) $ b) $ C)
//          $ Split(r) $ X
// for a high-level Map over X (at least two blocks of rows) whose body holds a high-level Map
// over C (the walk), where C does not read a and the walk reads no parameter bound inside the
// body. A work-item takes a block of r rows of X (MapGlb), and for each c computes H for its r
// rows together; where H is a Reduce, Map(λa => H(a, c)) $ b is interchanged with it
// (mapReduceInterchange), so each element of c is read once for the r rows, each row keeping
// its own accumulator in the same order: the results are equal. A MatMul's rows so read each
// step of its right matrix once for r rows of the left, r products per load rather than one.
//   - Where B only views the walk's result (AsScalar, Join, Split, Transpose, AsVector: G),
//     the block is Map(G) $ Transpose $ ..., stored column by column.
//   - Else the rest of B runs row by row over the block's rows and their results (t, the
//     block's columns, computed once).
//   - X's length not known to be a multiple of r: X is padded with its last row
//     (Pad(0, r·⌈n/r⌉ − n, clamp)) and the result keeps its first n rows (Reindex(n, i)).
//   - Map(f) $ Zip(..., Map(g) $ Y, ...) with no walk in f (the rows of a product zipped with
//     other rows): the zipped Maps are fused into the Map over the Zip first, and its walk
//     found there.
//   - Under a let (λw => body) $ v (storeTransposed's), the rule applies to the body.
Rule BlockRows(int rows);

// blockColumns(c), register blocking of a walk over columns whose every column folds:
//   Map(λc => B[Reduce(f)(init, E(c))]) $ C
//     => Join $ Map(λg => Map(λv => B[v]) $ Reduce(λ(acc, x) => Map(f) $ Zip(acc, x))
//                                                (Repeat(c) $ init, Transpose $ Map(E) $ g))
//          $ Split(c) $ C
// for a high-level Map over C, of a length known to be a multiple of c (at least two blocks),
// where mapReduceInterchange applies to the Map over one block: the block's c folds walk their
// elements together, each keeping its own accumulator in the same order (the results are
// equal). In a product blocked by rows (blockRows), the walk over vectors of columns so
// computes r rows by c vectors a step, each element of the left rows read once for the c
// vectors: a GEMM micro-kernel's 2-D register block.
Rule BlockColumns(int columns);

}  // namespace dfc::rewrite

#endif  // DFC_REWRITE_INTERCHANGE_H_
