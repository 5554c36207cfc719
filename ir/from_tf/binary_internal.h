// Pieces shared by the binary translations (binary.cc, binary_shaped.cc): the reference's dtype
// checks and their messages, broadcasting annotated with the node, and the UserFuns of Add and
// AddN. Private to those two files.
#ifndef DFC_IR_FROM_TF_BINARY_INTERNAL_H_
#define DFC_IR_FROM_TF_BINARY_INTERNAL_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/arith.h"
#include "graph/dtype.h"
#include "ir/expr.h"
#include "ir/from_tf/translate.h"

namespace dfc::ir::binary {

// --- dtype classes (graph/dtype_class.h), as the reference checks them ----------------------

// A dtype and shape as the reference's messages write them.
std::string DebugType(DType d, const SymbolicShape& shape);
// Input i's DebugType.
absl::StatusOr<std::string> InputDebugType(const TranslateContext& ctx, int i);
// Fails unless inputs a and b have one dtype.
absl::Status CheckSameDType(const TranslateContext& ctx, int a, int b);
// Fails unless input `input`'s dtype is supported and in `classes`.
absl::Status CheckClass(const TranslateContext& ctx, int input, unsigned classes);

// --- UserFuns and broadcasting ---------------------------------------------------------------

// f broadcast over the inputs, a broadcasting error annotated with the node.
absl::StatusOr<ExprPtr> Broadcast(const TranslateContext& ctx, std::vector<ExprPtr> operands,
                                  const FunPtr& f);

// Add's UserFun, which BiasAdd applies.
FunPtr AddFun(DType d);

// The sum of n scalars in input order, in the compute type, rounded once (AddN on float16 is
// not a chain of float16 adds).
FunPtr AddNFun(DType d, int n);

// BiasAdd, Select, SelectV2, AddN, AccumulateNV2 and CompareAndBitpack (binary_shaped.cc),
// registered by RegisterBinaryTranslations.
void RegisterShapedTranslations(TranslationTable& table);

}  // namespace dfc::ir::binary

#endif  // DFC_IR_FROM_TF_BINARY_INTERNAL_H_
