// Translating TensorFlow ops to the IR, one function per op, following the thesis' method. A
// tensor is the nested array of its shape (ir/type.h); a translation receives its data inputs as
// expressions and its compile-time inputs (axes, shapes, permutations...) as known values.
#ifndef DFC_IR_FROM_TF_TRANSLATE_H_
#define DFC_IR_FROM_TF_TRANSLATE_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/fold.h"
#include "graph/node.h"
#include "ir/expr.h"
#include "ir/from_tf/size_unifier.h"

namespace dfc::ir {

// One input of the node being translated.
struct TranslateInput {
  ExprPtr value;                      // the tensor as IR; null for an input only read statically
  const TensorInfo* known = nullptr;  // compile-time knowledge: value, symbolic value; may be null
};

class TranslateContext {
 public:
  TranslateContext(const Node& node, std::span<const TranslateInput> inputs)
      : node_(node), inputs_(inputs) {}

  const Node& node() const { return node_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }

  // Data input i as IR (an error naming the node if it was not given).
  absl::StatusOr<ExprPtr> Input(int i) const;
  // Its dtype and (symbolic) shape, from the IR type or else the compile-time knowledge.
  absl::StatusOr<DType> InputDType(int i) const;
  absl::StatusOr<SymbolicShape> InputShape(int i) const;
  // Input i's value at compile time, as integers: an error naming the node and the input when
  // it is not known (dfc compiles one kernel per set of static attributes and shapes).
  absl::StatusOr<std::vector<int64_t>> StaticInts(int i) const;
  // As ArithExprs, which may involve size variables (a shape computed from a symbolic batch).
  absl::StatusOr<std::vector<ArithExpr>> SymbolicInts(int i) const;
  // Input i's value at compile time, as a tensor (nullptr if not known).
  const Tensor* StaticTensor(int i) const;

  // InvalidArgument prefixed with the node's name and op.
  absl::Status Error(absl::string_view message) const { return node_.Error(message); }
  // OK if the node has exactly n inputs, else "expects n inputs, got m" naming the node.
  absl::Status CheckNumInputs(int n) const;

 private:
  const Node& node_;
  std::span<const TranslateInput> inputs_;
};

// A translation returns one expression per output of the node.
using TranslateFn = absl::StatusOr<std::vector<ExprPtr>> (*)(const TranslateContext& ctx);

// Records the size equalities that `node` needs between the shapes of its operands (every
// input, none read statically), as TensorFlow's shape inference merges unknown dimensions;
// true if any was new.
using UnifySizesFn = bool (*)(const Node& node, std::span<const SymbolicShape> shapes,
                              SizeUnifier& unifier);

// The same for an op whose equalities involve the values of its static inputs (Reshape's
// element count is the product of its shape input): every input's compile-time knowledge.
using UnifyWithValuesFn = bool (*)(const Node& node, std::span<const TensorInfo* const> inputs,
                                   SizeUnifier& unifier);

struct Translation {
  TranslateFn fn = nullptr;
  // Inputs read only at compile time (axes, perm, shape, paddings...): they are never kernel
  // parameters, and must be known when the node is translated. A negative index counts from the
  // end (ConcatV2's axis is its last input, -1).
  std::vector<int> static_inputs;
  // Set by ops whose operands' sizes must agree (broadcasting, contractions), so that a size
  // variable met against another size is unified with it before the graph is translated.
  UnifySizesFn unify_sizes = nullptr;
  UnifyWithValuesFn unify_with_values = nullptr;
  // Inputs read at compile time where their value is known then, and as kernel parameters
  // otherwise (a Slice's begin, which random_crop computes from a random number).
  std::vector<int> static_if_known;

  // Whether input `i` of a node with `num_inputs` inputs is one of the static ones.
  bool IsStaticInput(int i, int num_inputs) const;
  // Whether it is one of the static_if_known ones.
  bool IsStaticIfKnown(int i, int num_inputs) const;
};

// Whether `node`'s translation reads input `i` at compile time, given what is known of it then
// (false without a translation).
bool ReadsStatically(const Node& node, int i, const TensorInfo& known);
// Whether it may: a static input, or one read statically when its value is known (so the
// folder folds what such an input is computed from, where it can).
bool MayReadStatically(const Node& node, int i);

// The translation of `op`, or nullptr if it has none.
const Translation* FindTranslation(absl::string_view op);
// Every op with a translation (for tests that compare against OPS.md).
std::vector<std::string> TranslatedOps();

// Translates one node. Unsupported op, or an input the translation needs statically but is not
// known: an error naming the node.
absl::StatusOr<std::vector<ExprPtr>> TranslateNode(const Node& node,
                                                   std::span<const TranslateInput> inputs);

// Registration, called once by the registry for each family file.
using TranslationTable = std::vector<std::pair<std::string, Translation>>;
void RegisterUnaryTranslations(TranslationTable& table);
void RegisterBinaryTranslations(TranslationTable& table);
void RegisterContractionTranslations(TranslationTable& table);
void RegisterReductionTranslations(TranslationTable& table);
void RegisterSoftmaxTranslations(TranslationTable& table);
void RegisterLayoutTranslations(TranslationTable& table);
void RegisterConvolutionTranslations(TranslationTable& table);      // convolution.cc
void RegisterPoolingTranslations(TranslationTable& table);          // pooling.cc
void RegisterConvolutionGradTranslations(TranslationTable& table);  // convolution_grad.cc
void RegisterPoolingGradTranslations(TranslationTable& table);      // pooling_grad.cc
void RegisterNormalizationTranslations(TranslationTable& table);    // normalization.cc
void RegisterResizeTranslations(TranslationTable& table);           // resize.cc
void RegisterSpaceBatchTranslations(TranslationTable& table);       // space_batch.cc
void RegisterActivationGradTranslations(TranslationTable& table);   // activation_grad.cc
void RegisterSpecialMathTranslations(TranslationTable& table);      // special_math.cc
void RegisterScatterTranslations(TranslationTable& table);          // scatter.cc

}  // namespace dfc::ir

#endif  // DFC_IR_FROM_TF_TRANSLATE_H_
