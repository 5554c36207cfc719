// The translation registry and the context a translation reads its node and inputs through.
#include "ir/from_tf/translate.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status.h"
#include "graph/ops.h"

namespace dfc::ir {
namespace {

const absl::flat_hash_map<std::string, Translation>& Registry() {
  static const auto* registry = [] {
    TranslationTable table;
    RegisterUnaryTranslations(table);
    RegisterBinaryTranslations(table);
    RegisterContractionTranslations(table);
    RegisterReductionTranslations(table);
    RegisterSoftmaxTranslations(table);
    RegisterLayoutTranslations(table);
    RegisterConvolutionTranslations(table);
    RegisterPoolingTranslations(table);
    RegisterConvolutionGradTranslations(table);
    RegisterPoolingGradTranslations(table);
    RegisterNormalizationTranslations(table);
    RegisterResizeTranslations(table);
    RegisterSpaceBatchTranslations(table);
    RegisterActivationGradTranslations(table);
    RegisterSpecialMathTranslations(table);
    RegisterScatterTranslations(table);
    auto* map = new absl::flat_hash_map<std::string, Translation>();
    for (auto& [op, translation] : table) {
      DFC_CHECK(map->emplace(op, std::move(translation)).second);  // one translation per op
    }
    return map;
  }();
  return *registry;
}

std::string InputName(const Node& node, int i) {
  if (i < static_cast<int>(node.inputs.size())) {
    return absl::StrCat("input ", i, " (", node.inputs[i].ToString(), ")");
  }
  return absl::StrCat("input ", i);
}

// A tensor of `type` can be indexed with int64: its element count fits. Every size the IR
// computes afterwards (a stride, an offset, a flattened index) is at most that count, which is
// what lets the simplifier treat an overflow as its own bug.
bool Indexable(const TypePtr& type) {
  const std::optional<SymbolicShape> shape = TensorShape(type);
  return shape && CheckedNumElements(*shape).has_value();
}

}  // namespace

absl::Status TranslateContext::CheckNumInputs(int n) const {
  if (num_inputs() == n) return absl::OkStatus();
  return Error(absl::StrCat("expects ", n, " inputs, got ", num_inputs()));
}

absl::StatusOr<ExprPtr> TranslateContext::Input(int i) const {
  if (i < 0 || i >= num_inputs()) {
    return Error(absl::StrCat("has ", num_inputs(), " inputs, expected at least ", i + 1));
  }
  if (inputs_[i].value == nullptr) {
    return Error(absl::StrCat(InputName(node_, i), " is not available as a tensor"));
  }
  return inputs_[i].value;
}

absl::StatusOr<DType> TranslateContext::InputDType(int i) const {
  if (i < 0 || i >= num_inputs()) {
    return Error(absl::StrCat("has ", num_inputs(), " inputs, expected at least ", i + 1));
  }
  if (inputs_[i].value != nullptr) return BaseDType(inputs_[i].value->type);
  if (inputs_[i].known != nullptr && inputs_[i].known->dtype != DType::kInvalid) {
    return inputs_[i].known->dtype;
  }
  return Error(absl::StrCat("the dtype of ", InputName(node_, i), " is not known"));
}

absl::StatusOr<SymbolicShape> TranslateContext::InputShape(int i) const {
  if (i < 0 || i >= num_inputs()) {
    return Error(absl::StrCat("has ", num_inputs(), " inputs, expected at least ", i + 1));
  }
  if (inputs_[i].value != nullptr) {
    if (auto shape = TensorShape(inputs_[i].value->type)) return *shape;
  }
  if (inputs_[i].known != nullptr && inputs_[i].known->shape) return *inputs_[i].known->shape;
  return Error(absl::StrCat("the shape of ", InputName(node_, i), " is not known"));
}

absl::StatusOr<std::vector<ArithExpr>> TranslateContext::SymbolicInts(int i) const {
  if (i < 0 || i >= num_inputs()) {
    return Error(absl::StrCat("has ", num_inputs(), " inputs, expected at least ", i + 1));
  }
  const TensorInfo* known = inputs_[i].known;
  if (known != nullptr && known->symbolic_value) return *known->symbolic_value;
  if (known != nullptr && known->value) {
    const Tensor& t = *known->value;
    if (t.dtype() == DType::kInt32 || t.dtype() == DType::kInt64) {
      std::vector<ArithExpr> values;
      for (int64_t k = 0; k < t.num_elements(); ++k) {
        values.push_back(t.dtype() == DType::kInt32 ? ArithExpr(int64_t{t.data<int32_t>()[k]})
                                                    : ArithExpr(t.data<int64_t>()[k]));
      }
      return values;
    }
    return Error(absl::StrCat(InputName(node_, i), " has dtype ", DTypeName(t.dtype()),
                              ", expected int32 or int64"));
  }
  return Error(absl::StrCat(InputName(node_, i),
                            " must be known when the graph is compiled (a constant, or a shape "
                            "computed from constants and placeholder shapes)"));
}

absl::StatusOr<std::vector<int64_t>> TranslateContext::StaticInts(int i) const {
  DFC_ASSIGN_OR_RETURN(std::vector<ArithExpr> symbolic, SymbolicInts(i));
  std::vector<int64_t> values;
  for (const ArithExpr& e : symbolic) {
    std::optional<int64_t> c = e.AsConstant();
    if (!c) {
      return Error(absl::StrCat(InputName(node_, i), " is ", e.ToString(),
                                " here, which depends on a size variable; a constant is needed"));
    }
    values.push_back(*c);
  }
  return values;
}

const Tensor* TranslateContext::StaticTensor(int i) const {
  if (i < 0 || i >= num_inputs() || inputs_[i].known == nullptr) return nullptr;
  return inputs_[i].known->value ? &*inputs_[i].known->value : nullptr;
}

namespace {

// Whether `list` names input `i` of `num_inputs` (a negative entry counts from the end).
bool NamesInput(const std::vector<int>& list, int i, int num_inputs) {
  return std::any_of(list.begin(), list.end(),
                     [&](int s) { return s == i || (s < 0 && s + num_inputs == i); });
}

}  // namespace

bool Translation::IsStaticInput(int i, int num_inputs) const {
  return NamesInput(static_inputs, i, num_inputs);
}

bool Translation::IsStaticIfKnown(int i, int num_inputs) const {
  return NamesInput(static_if_known, i, num_inputs);
}

bool ReadsStatically(const Node& node, int i, const TensorInfo& known) {
  const Translation* translation = FindTranslation(node.op);
  if (translation == nullptr) return false;
  const int n = static_cast<int>(node.inputs.size());
  return translation->IsStaticInput(i, n) ||
         (translation->IsStaticIfKnown(i, n) && known.is_symbolic_constant());
}

bool MayReadStatically(const Node& node, int i) {
  const Translation* translation = FindTranslation(node.op);
  const int n = static_cast<int>(node.inputs.size());
  return translation != nullptr &&
         (translation->IsStaticInput(i, n) || translation->IsStaticIfKnown(i, n));
}

const Translation* FindTranslation(absl::string_view op) {
  auto it = Registry().find(std::string(op));
  return it == Registry().end() ? nullptr : &it->second;
}

std::vector<std::string> TranslatedOps() {
  std::vector<std::string> ops;
  for (const auto& [op, translation] : Registry()) ops.push_back(op);
  std::sort(ops.begin(), ops.end());
  return ops;
}

absl::StatusOr<std::vector<ExprPtr>> TranslateNode(const Node& node,
                                                   std::span<const TranslateInput> inputs) {
  const Translation* translation = FindTranslation(node.op);
  if (translation == nullptr) return node.Error("has no translation to the IR");
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].value != nullptr && !Indexable(inputs[i].value->type)) {
      return node.Error(absl::StrCat(InputName(node, static_cast<int>(i)), " of type ",
                                     TypeToString(inputs[i].value->type),
                                     " has more than 2^63 elements"));
    }
  }
  TranslateContext ctx(node, inputs);
  absl::StatusOr<std::vector<ExprPtr>> translated = translation->fn(ctx);
  if (!translated.ok()) return node.Annotate(translated.status());
  std::vector<ExprPtr> outputs = *std::move(translated);
  for (size_t k = 0; k < outputs.size(); ++k) {
    const ExprPtr& out = outputs[k];
    if (out == nullptr || !TensorShape(out->type)) {
      return node.Error("translation produced an output that is not a tensor");  // a dfc bug
    }
    if (!Indexable(out->type)) {
      return node.Error(absl::StrCat("output ", k, " would be ", TypeToString(out->type),
                                     ", which has more than 2^63 elements"));
    }
  }
  return outputs;
}

}  // namespace dfc::ir
