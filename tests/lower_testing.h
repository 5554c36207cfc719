// Checks a lowering against the reference executor: the oracle test every op's lowering gets.
#ifndef DFC_TESTS_LOWER_TESTING_H_
#define DFC_TESTS_LOWER_TESTING_H_

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "graph/arith.h"
#include "graph/node.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "ir/interpreter.h"

namespace dfc::testing {

// Lowers `node` on `inputs` (the lowering's static inputs are given as known values, the
// others as Params of their tensors' types), interprets the IR and compares each output with
// what the reference executor computes for the same node: same dtype, same shape, values
// within DefaultTolerance (runtime/compare.h), the conformance suite's tolerance. When the
// reference refuses the inputs, the lowering must refuse them too.
::testing::AssertionResult LoweringMatchesReference(const Node& node,
                                                    const std::vector<Tensor>& inputs);

// The second half of that check, for helpers that lower otherwise (tests/layout_testing.h):
// `lowered` interpreted in `env` with `sizes` bound, each output compared with `expected`, the
// reference's values (or its refusal, which the IR must share).
::testing::AssertionResult InterpretedMatchesReference(
    ir::Interpreter& interpreter, const std::vector<ir::ExprPtr>& lowered,
    const absl::flat_hash_map<const ir::Param*, ir::Value>& env, const SizeBindings& sizes,
    const absl::StatusOr<std::vector<Tensor>>& expected);

}  // namespace dfc::testing

#endif  // DFC_TESTS_LOWER_TESTING_H_
