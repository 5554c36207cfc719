// The default schedule of a cluster's matrix products, chosen by rule where the explorer
// (explore.h) times variants: 2-D register blocking of every product whose right matrix is
// stored, as a CPU GEMM's micro-kernel does it, and vectorised dot products in blocks of rows
// where it is stored transposed.
//
// A product's rows Map(λa => B) $ X, whose body walks the columns of a stored matrix,
// Map(λc => ... Reduce ...) $ (Transpose $ w), gets
//   - vectorizeColumns(v) at the walk: v columns at once, each step of a dot product one
//     vload<v> of a row of w (v the widest of 16, 8, 4 that the device's preferred width allows
//     and the columns' count is a multiple of), and
//   - blockColumns(c) at the walk over vectors of columns, then blockRows(r) at the rows, the
//     r by c block of vector accumulators that fits the device's vector registers with the
//     fewest loads an FMA (4 rows by 4 vectors with AVX-512's 32 registers, 6 by 2 with AVX2's
//     16), that the columns allow: each vload<v> serves r rows and each element of a left row c
//     vectors (a GEMM micro-kernel's 2-D block), a step of the fold row by row, each row's
//     element read once for its c vectors;
//   - else blockRows(r) alone: r rows at once, each vload<v> serving r of them, one vector
//     accumulator a row in half the registers, or at most 8 rows where the rows at batch 1 are
//     fewer (a block computes its padding too).
// Columns that no vector width divides (a classifier's 1001) are walked in blockColumns(c)
// instead, c the most columns from 16 up to a work-item's accumulators that divide them (143):
// each step of a block's folds reads c neighbouring elements of a row of w, a loop the device
// compiler vectorises, where column by column the walk strides across w (MobileNet's logits at
// batch 1 took 9 times as long); from 16 to 31 such columns, too few for two blocks (a pose
// network's 19 heatmaps), fold all together (mapReduceInterchange), one block.
// A product whose function walks the rows of a stored matrix instead, Map(λc => ... Reduce ...)
// $ w (A·Bᵀ: MatMul's transpose_b, a dense layer's input gradient), gets vectorizeReduce(v) at
// each dot product (its lanes sum every v-th term: a reassociation, as a vectorised BLAS's dot
// is) and blockRows(4), each vector of a right row read once for 4 left rows.
// A block reads its left rows element by element as its fold steps, so left rows that compute
// (a convolution's output, a batch norm of a stored value) are bound by a let first: stored by a
// kernel of their own, not computed again each time. A blocked product that a kernel does not store
// by its rows (a Transpose of it is the cluster's output, or an elementwise Map reads its rows) is
// bound by a let too. Each step is taken only if the device lowering accepts the result, so the
// schedule is the translated body, or a rewrite of it by rules the explorer also applies (each
// tested against the interpreter).
//
// Measured on the 2-core PoCL CPU device (bench/README.md, "The default schedule of products").
#ifndef DFC_REWRITE_CONTRACTION_SCHEDULE_H_
#define DFC_REWRITE_CONTRACTION_SCHEDULE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "rewrite/device_profile.h"

namespace dfc::rewrite {

struct ContractionSchedule {
  ir::ExprPtr body;
  std::vector<std::string> steps;  // each rule applied, e.g. "vectorizeColumns(16)"
};

// `body` with its products blocked as above; `body` itself, with no steps, where none applies
// (a GPU profile: its work-items are not the unit a CPU's vector registers are, and the
// explorer chooses there).
absl::StatusOr<ContractionSchedule> ScheduleContractions(const ir::ExprPtr& body,
                                                         const DeviceProfile& profile);

}  // namespace dfc::rewrite

#endif  // DFC_REWRITE_CONTRACTION_SCHEDULE_H_
