// Lowering TensorFlow ops to the IR, one function per op, following the thesis' method. A
// tensor is the nested array of its shape (ir/type.h); a lowering receives its data inputs as
// expressions and its compile-time inputs (axes, shapes, permutations...) as known values.
#ifndef DFC_IR_LOWER_LOWER_H_
#define DFC_IR_LOWER_LOWER_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/fold.h"
#include "graph/node.h"
#include "ir/expr.h"
#include "ir/lower/size_unifier.h"

namespace dfc::ir {

// One input of the node being lowered.
struct LowerInput {
  ExprPtr value;                      // the tensor as IR; null for an input only read statically
  const TensorInfo* known = nullptr;  // compile-time knowledge: value, symbolic value; may be null
};

class LowerContext {
 public:
  LowerContext(const Node& node, std::span<const LowerInput> inputs)
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

 private:
  const Node& node_;
  std::span<const LowerInput> inputs_;
};

// A lowering returns one expression per output of the node.
using LowerFn = absl::StatusOr<std::vector<ExprPtr>> (*)(const LowerContext& ctx);

// Records the size equalities that `node` needs between the shapes of its operands (every
// input, none read statically), as TensorFlow's shape inference merges unknown dimensions;
// true if any was new.
using UnifySizesFn = bool (*)(const Node& node, std::span<const SymbolicShape> shapes,
                              SizeUnifier& unifier);

struct Lowering {
  LowerFn fn = nullptr;
  // Inputs read only at compile time (axes, perm, shape, paddings...): they are never kernel
  // parameters, and must be known when the node is lowered. A negative index counts from the
  // end (ConcatV2's axis is its last input, -1).
  std::vector<int> static_inputs;
  // Set by ops whose operands' sizes must agree (broadcasting, contractions), so that a size
  // variable met against another size is unified with it before the graph is lowered.
  UnifySizesFn unify_sizes = nullptr;

  // Whether input `i` of a node with `num_inputs` inputs is one of the static ones.
  bool IsStaticInput(int i, int num_inputs) const;
};

// Whether `node`'s lowering reads input `i` only at compile time (false without a lowering).
bool ReadsStatically(const Node& node, int i);

// The lowering of `op`, or nullptr if it has none.
const Lowering* FindLowering(absl::string_view op);
// Every op with a lowering (for tests that compare against OPS.md).
std::vector<std::string> LoweredOps();

// Lowers one node. Unsupported op, or an input the lowering needs statically but is not
// known: an error naming the node.
absl::StatusOr<std::vector<ExprPtr>> LowerNode(const Node& node,
                                               std::span<const LowerInput> inputs);

// Registration, called once by the registry for each family file.
using LoweringTable = std::vector<std::pair<std::string, Lowering>>;
void RegisterUnaryLowerings(LoweringTable& table);
void RegisterBinaryLowerings(LoweringTable& table);
void RegisterContractionLowerings(LoweringTable& table);
void RegisterReductionLowerings(LoweringTable& table);
void RegisterSoftmaxLowerings(LoweringTable& table);
void RegisterLayoutLowerings(LoweringTable& table);

}  // namespace dfc::ir

#endif  // DFC_IR_LOWER_LOWER_H_
