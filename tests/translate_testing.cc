// The translation oracle test: reference executor (oracle 1) against the IR interpreter (oracle 2).
#include "tests/translate_testing.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "graph/fold.h"
#include "ir/from_tf/translate.h"
#include "ir/interpreter.h"
#include "ir/printer.h"
#include "runtime/compare.h"
#include "runtime/reference/kernel.h"

namespace dfc::testing {
namespace {

// `translated` interpreted in `env`, each output compared with `expected`, the reference's values
// (or its refusal, which the IR must share).
::testing::AssertionResult InterpretedMatchesReference(
    ir::Interpreter& interpreter, const std::vector<ir::ExprPtr>& translated,
    const absl::flat_hash_map<const ir::Param*, ir::Value>& env, const SizeBindings& sizes,
    const absl::StatusOr<std::vector<Tensor>>& expected) {
  std::vector<Tensor> actual;
  for (const ir::ExprPtr& out : translated) {
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
           << ") but the translation computed a result";
  }
  if (actual.size() != expected->size()) {
    return ::testing::AssertionFailure()
           << "translation has " << actual.size() << " outputs, the reference " << expected->size();
  }
  for (size_t k = 0; k < actual.size(); ++k) {
    Comparison c = CompareTensors(actual[k], (*expected)[k]);
    if (!c.equal) {
      return ::testing::AssertionFailure()
             << "output " << k << ": " << c.reason << "\n  interpreted: " << actual[k].Preview()
             << "\n  reference:   " << (*expected)[k].Preview()
             << "\n  IR: " << ir::ToString(translated[k]);
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace

::testing::AssertionResult TranslationMatchesReference(const Node& node,
                                                       const std::vector<Tensor>& inputs,
                                                       const CheckOptions& options) {
  absl::StatusOr<std::vector<Tensor>> expected = reference::EvaluateNode(node, inputs);
  const ir::Translation* translation = ir::FindTranslation(node.op);
  if (translation == nullptr)
    return ::testing::AssertionFailure() << node.op << " has no translation";
  const int n = static_cast<int>(inputs.size());
  SizeBindings sizes = options.bindings;
  std::vector<TensorInfo> infos(n);
  std::vector<ir::TranslateInput> translate_inputs(n);
  absl::flat_hash_map<const ir::Param*, ir::Value> env;
  // Static inputs are known values; data inputs are Params that only reveal dtype and shape,
  // so the translation has to compute with them.
  for (int i = 0; i < n; ++i) {
    const bool as_data = std::count(options.data_inputs.begin(), options.data_inputs.end(), i) > 0;
    if (translation->IsStaticInput(i, n) || (translation->IsStaticIfKnown(i, n) && !as_data)) {
      infos[i] = ConstantInfo(inputs[i]);
      if (auto it = options.symbolic_values.find(i); it != options.symbolic_values.end()) {
        infos[i].value.reset();
        infos[i].symbolic_value = it->second;
      }
      translate_inputs[i] = {nullptr, &infos[i]};
      continue;
    }
    infos[i].dtype = inputs[i].dtype();
    SymbolicShape shape = ToSymbolic(inputs[i].shape());
    for (const auto& [input, dim] : options.symbolic_dims) {
      if (input != i) continue;
      shape[dim] = ArithExpr::Var("N");
      sizes["N"] = inputs[i].dim(dim);
    }
    infos[i].shape = shape;
    if (std::count(options.known_data.begin(), options.known_data.end(), i) > 0) {
      infos[i].value = inputs[i];
    }
    ir::ParamPtr p = ir::MakeParam(absl::StrCat("in", i), ir::TensorType(inputs[i].dtype(), shape));
    env[p.get()] = ir::ValueFromTensor(inputs[i]);
    translate_inputs[i] = {p, &infos[i]};
  }
  absl::StatusOr<std::vector<ir::ExprPtr>> translated = ir::TranslateNode(node, translate_inputs);
  if (!translated.ok()) {
    if (!expected.ok()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "translation failed: " << translated.status();
  }
  ir::Interpreter interpreter(sizes);
  ::testing::AssertionResult matches =
      InterpretedMatchesReference(interpreter, *translated, env, sizes, expected);
  if (!matches || !expected.ok()) return matches;
  if (options.views_only && !interpreter.calls().empty()) {
    return ::testing::AssertionFailure()
           << "applies " << interpreter.calls().begin()->first << ", expected views only";
  }
  return ::testing::AssertionSuccess();
}

absl::Status TranslateStatus(const Node& node, const std::vector<Tensor>& inputs) {
  std::vector<TensorInfo> infos(inputs.size());
  std::vector<ir::TranslateInput> translate_inputs(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    infos[i] = ConstantInfo(inputs[i]);
    translate_inputs[i] = {
        ir::MakeParam("in", ir::TensorType(inputs[i].dtype(), ToSymbolic(inputs[i].shape()))),
        &infos[i]};
  }
  return ir::TranslateNode(node, translate_inputs).status();
}

}  // namespace dfc::testing
