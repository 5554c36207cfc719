// Checks a lowering against the reference executor: the oracle test every op's lowering gets.
#ifndef DFC_TESTS_LOWER_TESTING_H_
#define DFC_TESTS_LOWER_TESTING_H_

#include <vector>

#include "graph/node.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"

namespace dfc::testing {

// Lowers `node` on `inputs` (the lowering's static inputs are given as known values, the
// others as Params of their tensors' types), interprets the IR and compares each output with
// what the reference executor computes for the same node: same dtype, same shape, values
// within DefaultTolerance (runtime/compare.h), the conformance suite's tolerance. When the
// reference refuses the inputs, the lowering must refuse them too.
::testing::AssertionResult LoweringMatchesReference(const Node& node,
                                                    const std::vector<Tensor>& inputs);

}  // namespace dfc::testing

#endif  // DFC_TESTS_LOWER_TESTING_H_
