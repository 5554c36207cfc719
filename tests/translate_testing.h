// Checks a translation against the reference executor: the oracle test every op's translation gets.
#ifndef DFC_TESTS_TRANSLATE_TESTING_H_
#define DFC_TESTS_TRANSLATE_TESTING_H_

#include <map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "graph/arith.h"
#include "graph/node.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"

namespace dfc::testing {

struct CheckOptions {
  // (input, dimension) pairs whose size becomes the size variable N in the Params' types,
  // bound to the actual size when interpreting. They must all have the same size.
  std::vector<std::pair<int, int>> symbolic_dims;
  // Static inputs known only symbolically (a shape computed from N): their symbolic values.
  std::map<int, std::vector<ArithExpr>> symbolic_values;
  // Size variables bound for interpreting besides those of symbolic_dims.
  SizeBindings bindings;
  // Data inputs whose value is also known at compile time (a constant fed to a kernel).
  std::vector<int> known_data;
  // Inputs the translation reads statically where their value is known (static_if_known)
  // given as data instead, as when their value is known only at run time.
  std::vector<int> data_inputs;
  // The translation must be a pure view: no UserFun is applied.
  bool views_only = false;
};

// Translates `node` on `inputs` (the translation's static inputs are given as known values, the
// others as Params of their tensors' types), interprets the IR and compares each output with
// what the reference executor computes for the same node: same dtype, same shape, values
// within DefaultTolerance (runtime/compare.h), the conformance suite's tolerance. When the
// reference refuses the inputs, the translation must refuse them too.
::testing::AssertionResult TranslationMatchesReference(const Node& node,
                                                       const std::vector<Tensor>& inputs,
                                                       const CheckOptions& options = {});

// The translation's verdict on `node` with `inputs`, each a Param of its tensor's type whose
// value is known too: its status alone, for the tests of what a translation refuses.
absl::Status TranslateStatus(const Node& node, const std::vector<Tensor>& inputs);

}  // namespace dfc::testing

#endif  // DFC_TESTS_TRANSLATE_TESTING_H_
