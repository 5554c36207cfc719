// Pieces shared by the normalisation translations (normalization.cc, lrn.cc): scalar functions
// computed in float, the dtype check of an input, and the size unification of operands of one
// shape. Private to those two files.
#ifndef DFC_IR_FROM_TF_NORMALIZATION_INTERNAL_H_
#define DFC_IR_FROM_TF_NORMALIZATION_INTERNAL_H_

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "graph/arith.h"
#include "graph/dtype.h"
#include "ir/expr.h"
#include "ir/from_tf/size_unifier.h"
#include "ir/from_tf/translate.h"

namespace dfc::ir::normalization {

inline constexpr DType kF = DType::kFloat;  // U, the statistics' dtype, and the compute type

using FloatHost = std::function<float(std::span<const float>)>;

// A scalar function of `types` whose OpenCL C `body` and host twin `fn` read every argument as
// float, the result rounded to `result`.
FunPtr FloatFun(absl::string_view name, std::vector<std::string> params, absl::string_view body,
                std::vector<DType> types, DType result, FloatHost fn);

// `name`_dtype: a UserFun's name, one for each dtype `t` it is made for.
std::string Named(absl::string_view name, DType t);

// Fails unless input `i` (named `what`) has one of the dtypes `allowed`.
absl::Status CheckDType(const TranslateContext& ctx, int i, std::span<const DType> allowed,
                        absl::string_view what);

inline constexpr DType kHalfOrFloat[] = {DType::kHalf, DType::kFloat};

// Operands of one shape (LRNGrad's three, a batch-norm gradient's y_backprop and x).
bool UnifyShapes(std::span<const SymbolicShape> shapes, size_t first, size_t count,
                 SizeUnifier& unifier);

// LRN and LRNGrad (lrn.cc), registered by RegisterNormalizationTranslations.
void RegisterLrnTranslations(TranslationTable& table);

}  // namespace dfc::ir::normalization

#endif  // DFC_IR_FROM_TF_NORMALIZATION_INTERNAL_H_
