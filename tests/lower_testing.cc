// The lowering oracle test: reference executor (oracle 1) against the IR interpreter (oracle 2).
#include "tests/lower_testing.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "graph/fold.h"
#include "ir/interpreter.h"
#include "ir/lower/lower.h"
#include "ir/printer.h"
#include "runtime/compare.h"
#include "runtime/reference/kernel.h"

namespace dfc::testing {

::testing::AssertionResult LoweringMatchesReference(const Node& node,
                                                    const std::vector<Tensor>& inputs) {
  absl::StatusOr<std::vector<Tensor>> expected = reference::EvaluateNode(node, inputs);

  const ir::Lowering* lowering = ir::FindLowering(node.op);
  if (lowering == nullptr) return ::testing::AssertionFailure() << node.op << " has no lowering";

  // Static inputs are known values; data inputs are Params that only reveal dtype and shape,
  // so the lowering has to compute with them.
  std::vector<TensorInfo> infos(inputs.size());
  std::vector<ir::LowerInput> lower_inputs(inputs.size());
  absl::flat_hash_map<const ir::Param*, ir::Value> env;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bool is_static =
        lowering->IsStaticInput(static_cast<int>(i), static_cast<int>(inputs.size()));
    if (is_static) {
      infos[i] = ConstantInfo(inputs[i]);
      lower_inputs[i] = {nullptr, &infos[i]};
      continue;
    }
    infos[i].dtype = inputs[i].dtype();
    infos[i].shape = ToSymbolic(inputs[i].shape());
    ir::ParamPtr p =
        ir::MakeParam(absl::StrCat("in", i), ir::TensorType(inputs[i].dtype(), *infos[i].shape));
    env[p.get()] = ir::ValueFromTensor(inputs[i]);
    lower_inputs[i] = {p, &infos[i]};
  }

  absl::StatusOr<std::vector<ir::ExprPtr>> lowered = ir::LowerNode(node, lower_inputs);
  if (!lowered.ok()) {
    if (!expected.ok()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "lowering failed: " << lowered.status();
  }
  ir::Interpreter interpreter;
  return InterpretedMatchesReference(interpreter, *lowered, env, {}, expected);
}

::testing::AssertionResult InterpretedMatchesReference(
    ir::Interpreter& interpreter, const std::vector<ir::ExprPtr>& lowered,
    const absl::flat_hash_map<const ir::Param*, ir::Value>& env, const SizeBindings& sizes,
    const absl::StatusOr<std::vector<Tensor>>& expected) {
  std::vector<Tensor> actual;
  for (const ir::ExprPtr& out : lowered) {
    absl::StatusOr<ir::Value> value = interpreter.Evaluate(out, env);
    if (!value.ok()) {
      if (!expected.ok()) return ::testing::AssertionSuccess();
      return ::testing::AssertionFailure()
             << "interpreting failed: " << value.status() << "\nIR: " << ir::ToString(out);
    }
    absl::StatusOr<Tensor> tensor = ir::TensorFromValue(*value, out->type, sizes);
    if (!tensor.ok()) {
      return ::testing::AssertionFailure()
             << "the interpreted value does not have the IR's type: " << tensor.status();
    }
    actual.push_back(*std::move(tensor));
  }
  if (!expected.ok()) {
    return ::testing::AssertionFailure()
           << "the reference refuses the inputs (" << expected.status()
           << ") but the lowering computed a result";
  }
  if (actual.size() != expected->size()) {
    return ::testing::AssertionFailure()
           << "lowering has " << actual.size() << " outputs, the reference " << expected->size();
  }
  for (size_t k = 0; k < actual.size(); ++k) {
    Comparison c = CompareTensors(actual[k], (*expected)[k]);
    if (!c.equal) {
      return ::testing::AssertionFailure()
             << "output " << k << ": " << c.reason << "\n  interpreted: " << actual[k].Preview()
             << "\n  reference:   " << (*expected)[k].Preview()
             << "\n  IR: " << ir::ToString(lowered[k]);
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace dfc::testing
