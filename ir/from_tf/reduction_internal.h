// Pieces shared by the reduction translations (reduction.cc, scan.cc): the dtype checks, the
// arithmetic of sums and products in OpenCL C and on the host, the thesis' reduction skeleton,
// and the axes read as the reference reads them. Private to those two files.
#ifndef DFC_IR_FROM_TF_REDUCTION_INTERNAL_H_
#define DFC_IR_FROM_TF_REDUCTION_INTERNAL_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/arith.h"
#include "graph/dtype.h"
#include "ir/expr.h"
#include "ir/from_tf/translate.h"

namespace dfc::ir::reduction {

// --- dtypes ------------------------------------------------------------------------------------

// Fails unless `ok`, naming the op, the dtype `d` and the `expected` dtypes.
absl::Status CheckDType(const TranslateContext& ctx, DType d, bool ok, absl::string_view expected);

// The highest (or lowest) value of an integer or bool dtype.
Scalar IntLimit(DType d, bool highest);

// Sums and products of float16 accumulate in float; every other dtype in itself.
DType AccumulatorDType(DType d);

// --- scalar arithmetic: OpenCL C text and its host twin ---------------------------------------

enum class Arith { kAdd, kMul, kAddSquare };

// `op`'s part of a UserFun's name.
const char* ArithName(Arith op);

// `acc op x` for an accumulator of dtype `acc` (x is converted to it). Integers wrap: the
// arithmetic is done in an unsigned type at least as wide as int, so nothing overflows.
std::string ArithText(Arith op, DType acc);

// The host twin of ArithText: `x` (any dtype) is converted to `acc_dtype` first.
Scalar ArithHost(Arith op, DType acc_dtype, const Scalar& acc, const Scalar& x);

// Whether x is strictly above (`is_max`) or below `best`: NaN never is.
bool Beats(const Scalar& x, const Scalar& best, bool is_max);

// --- the reduction skeleton ----------------------------------------------------------------------

// Reduces a line ([T]_n, the reduced elements in C order) to one scalar.
using LineFn = std::function<absl::StatusOr<ExprPtr>(ExprPtr line, const ArithExpr& n)>;

// The thesis' reduction: the dimensions marked in `reduced` are moved innermost (keeping their
// order), joined into one line, and `reduce_line` is mapped over the kept dimensions. With
// keep_dims, a size-1 dimension is put back where each reduced one was.
absl::StatusOr<ExprPtr> ReduceDims(const ExprPtr& x, const std::vector<bool>& reduced,
                                   bool keep_dims, const LineFn& reduce_line);

// --- the reduction axes --------------------------------------------------------------------------

// Input `i` as the reference's ReadIndexVector reads it: int32 or int64, rank 0 or 1.
absl::StatusOr<std::vector<int64_t>> IndexVector(const TranslateContext& ctx, int i,
                                                 absl::string_view what);

// `axis` in [-rank, rank) as a dimension in [0, rank); anything else an error.
absl::StatusOr<int> NormalizeAxis(const TranslateContext& ctx, int64_t axis, int rank);

// ArgMax, ArgMin, Cumsum and Cumprod (scan.cc), registered by RegisterReductionTranslations.
void RegisterScanTranslations(TranslationTable& table);

}  // namespace dfc::ir::reduction

#endif  // DFC_IR_FROM_TF_REDUCTION_INTERNAL_H_
