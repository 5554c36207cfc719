// Pieces shared by the translations of the tail table's elementwise math (special_math.cc,
// guarded_math.cc): the reference's dtype checks, broadcasting annotated with the node, and
// names for UserFuns with constants in their bodies. Private to those two files.
#ifndef DFC_IR_FROM_TF_ELEMENTWISE_INTERNAL_H_
#define DFC_IR_FROM_TF_ELEMENTWISE_INTERNAL_H_

#include <span>
#include <string>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "graph/dtype.h"
#include "ir/expr.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir::elementwise {

inline constexpr DType kHalfFloatDouble[] = {DType::kHalf, DType::kFloat, DType::kDouble};
inline constexpr DType kFloatDouble[] = {DType::kFloat, DType::kDouble};

// Every one of the first `num_inputs` inputs of one dtype, among `dtypes`.
absl::StatusOr<DType> CommonDType(const TranslateContext& ctx, std::span<const DType> dtypes,
                                  int num_inputs);
// f broadcast over the operands, a broadcasting error annotated with the node.
absl::StatusOr<ExprPtr> BroadcastCall(const TranslateContext& ctx, std::vector<ExprPtr> operands,
                                      const ScalarsFn& f);

// A name part that tells UserFuns with different constants in their bodies apart.
template <typename T>
std::string HashPart(const T& value) {
  return absl::StrCat(absl::Hex(absl::HashOf(value)));
}

// Xdivy Xlogy Xlog1py, ApproximateEqual, ClipByValue, Bucketize and the FakeQuant ops
// (guarded_math.cc), registered by RegisterSpecialMathTranslations.
void RegisterGuardedMathTranslations(TranslationTable& table);

}  // namespace dfc::ir::elementwise

#endif  // DFC_IR_FROM_TF_ELEMENTWISE_INTERNAL_H_
