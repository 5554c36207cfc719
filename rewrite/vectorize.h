// Vectorisation rules: a walk over scalars becomes a walk over vectors of w lanes, which the
// code generator reads with one vload<w> where the scalars are contiguous in memory and
// computes with OpenCL C's lane-wise vector arithmetic.
#ifndef DFC_REWRITE_VECTORIZE_H_
#define DFC_REWRITE_VECTORIZE_H_

#include "rewrite/rule.h"

namespace dfc::rewrite {

// vectorizeReduce(w), Lift's partialReduce with vector lanes:
//   Reduce(f)(init, Map(g) $ Zip(a1, ..., ak))
//     => Reduce(f)(init, AsScalar $ Reduce(λ(acc, x) => Map(λa => f(a, x)) $ acc)(
//            AsVector(w) $ Repeat(w) $ init, Map(g) $ Zip(AsVector(w) $ a1, ...)))
// (and Reduce(f)(init, X) with X read as AsVector(w) $ X when it is not a Map). Lane l folds
// elements l, l + w, ...; the lanes are then folded into init. It requires f to be a
// combiner (UserFun::combiner: the order of the fold may change, exactly for integers, up
// to rounding for floating point), init a literal with f(init, init) = init (so that starting
// every lane at init adds nothing), and g to type on vectors (UserFuns apply lane by lane,
// a scalar argument the same in every lane). The length must be a known multiple of w, or a
// known length n above w: then the first n - n % w elements are read as vectors and the
// remaining n % w are folded one by one into the result,
//   Reduce(f)(Reduce(f)(init, AsScalar $ ... $ X[0, n - n % w)), X[n - n % w, n)),
// each range a Reindex view of X (of each array of the Zip).
Rule VectorizeReduce(int width);

// vectorizeMaps(w): Map(f) $ X => AsScalar $ Map(f) $ AsVector(w) $ X at every place it
// applies, outermost first, in one step: for a function f of scalars (a UserFun, or a λ of
// UserFuns, Gets and Tuples, applied lane by lane to vectors) over an array of scalars, or a Zip
// of them, whose length is a known multiple of w. An array of the input that is itself such a
// Map is read as vectors in turn (a chain of elementwise Maps over Zips becomes one over
// vectors), and AsVector(w) $ AsScalar $ v is v. The values are equal: each element is computed
// by the same functions. A Reduce's input Map is left to vectorizeReduce(w), which reads it as
// vectors with its Reduce (alone, a Reduce would fold the lanes one by one). An elementwise
// cluster (dl4j_transform_0's 18 ops) has a Map per op, each in its own row function: one rule
// applied at one place, the explorer would need a step for each.
Rule VectorizeMaps(int width);

// vectorsAcrossMaps: rows a Map computes as vectors and lists as scalars, read back as vectors
// by the Map over them, are passed on as vectors:
//   Map(λx => B[AsVector(w) $ x]) $ Map(λy => AsScalar $ G) $ X
//     => Map(λx' => B[x']) $ Map(λy => G) $ X
// where B reads x only so; likewise for one array of a Zip the outer Map walks, its rows read
// only as AsVector(w) $ Get(i) $ t. vectorizeMaps makes such pairs at the rows of a chain of
// elementwise ops (each op's row function is its own); without it each lane would compute its
// vector again.
Rule VectorsAcrossMaps();

// vectorizeColumns(w): a Map over the rows of a matrix X ([n][k] of scalars, n a known
// multiple of w) computing a scalar from each, w rows at a time:
//   Map(λc => F(c)) $ X
//     => AsScalar $ Map(λv => F(v)) $ Transpose $ Map(AsVector(w)) $ Transpose $ X
// where v is the k columns of w consecutive rows of X as vectors of w lanes (lane l is row
// j·w + l), and F is typed again on them: every function in F applies lane by lane (a UserFun;
// Map, Zip, Get, Tuple and Reduce structurally), a scalar that does not come from c is the same
// in every lane, and a Reduce over vectors starts from its scalar initial value in every lane.
// Lane l computes exactly what F(X[j·w + l]) does, in the same order. A MatMul's Map over the
// output columns of a row (each a dot product with a column of the right matrix) becomes one
// over w columns at once: each step of the dot multiplies one element of the row by w
// neighbouring elements of a row of the right matrix, which a stored transpose
// (storeTransposed) or the matrix itself gives as one vload<w>.
// When F computes a row of scalars ([m]) from each row of X, the rows come back in blocks:
//   Map(λc => F(c)) $ X
//     => Join $ MapGlb(λv => Transpose $ Split(w) $ AsScalar $ F(v))
//          $ Transpose $ Map(AsVector(w)) $ Transpose $ X
// F(v) is [m] vectors; block row l is lane l of each. A work-item computes one block (MapGlb):
// the Map over a MatMul's left rows becomes one over w of them at once, each step of a dot
// product reading w neighbouring elements of a column of the left matrix, which its stored
// transpose or, for a transpose_a MatMul, the matrix itself gives as one vload<w>.
Rule VectorizeColumns(int width);

// vectorizeAccumulator(w): a fold whose accumulator is an array of n scalars (n a known
// multiple of w), updated element by element from arrays of the step, keeps it as n / w
// vectors:
//   Reduce(λ(acc, r) => Map(g) $ Zip(acc, A1(r), ..., Ak(r)))(Repeat(n) $ init, X)
//     => AsScalar $ Reduce(λ(acc, r) => Map(g) $ Zip(acc, AsVector(w) $ A1(r), ...))(
//            AsVector(w) $ Repeat(n) $ init, X)
// g typed again on vectors (its UserFuns lane by lane, a scalar of the step such as the row's
// element the same in every lane). Each accumulator folds the same terms in the same order:
// the values are equal. A convolution's sums for its output channels (RowTimesMatrix: each
// tap's input element times a row of the filter) become a few vector registers that each tap
// updates with one vload<w> of the filter's row and one FMA, a direct convolution's register
// tile over output channels; a depthwise convolution's or a pool's channels likewise.
Rule VectorizeAccumulator(int width);

}  // namespace dfc::rewrite

#endif  // DFC_REWRITE_VECTORIZE_H_
