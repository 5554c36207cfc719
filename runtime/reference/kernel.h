// The reference executor's kernel interface: one function per TensorFlow op, run on host
// tensors with TensorFlow's semantics. Kernels are the oracle for every later result, so they
// are written for exactness and clarity first.
#ifndef DFC_RUNTIME_REFERENCE_KERNEL_H_
#define DFC_RUNTIME_REFERENCE_KERNEL_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/node.h"
#include "graph/tensor.h"
#include "runtime/reference/philox.h"

namespace dfc::reference {

// What one kernel call sees: its node (for attributes and error messages), its input values,
// and for stateful ops the session's mutable state.
class KernelContext {
 public:
  KernelContext(const Node& node, std::span<const Tensor> inputs) : node_(node), inputs_(inputs) {}

  const Node& node() const { return node_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  const Tensor& input(int i) const { return inputs_[i]; }

  // Every kernel sets each of its outputs exactly once.
  void set_output(int i, Tensor t) {
    if (outputs_.size() <= static_cast<size_t>(i)) outputs_.resize(i + 1);
    outputs_[i] = std::move(t);
  }
  std::vector<Tensor>& outputs() { return outputs_; }

  // An InvalidArgument error prefixed with this node's name and op.
  absl::Status Error(absl::string_view message) const { return node_.Error(message); }

  // Stateful ops only. `ref_input(i)` is the variable that data input i refers to (the
  // executor resolves `Assign(W, ...)` to W's storage), or nullptr if input i is no variable.
  // An uninitialised variable has an empty optional-like flag in `initialized`.
  struct VariableSlot {
    Tensor value;
    bool initialized = false;
  };
  void set_ref_inputs(std::vector<VariableSlot*> refs) { refs_ = std::move(refs); }
  VariableSlot* ref_input(int i) const {
    return static_cast<size_t>(i) < refs_.size() ? refs_[i] : nullptr;
  }
  // The node's own variable storage (for Variable/VariableV2 themselves).
  void set_own_variable(VariableSlot* slot) { own_variable_ = slot; }
  VariableSlot* own_variable() const { return own_variable_; }
  // The node's random stream: TensorFlow's Philox stream, started once per session from the
  // node's seed attributes (NodePhilox), so each run draws new numbers and the whole sequence
  // repeats from session to session.
  void set_rng(Philox* rng) { rng_ = rng; }
  Philox* rng() const { return rng_; }

 private:
  const Node& node_;
  std::span<const Tensor> inputs_;
  std::vector<Tensor> outputs_;
  std::vector<VariableSlot*> refs_;
  VariableSlot* own_variable_ = nullptr;
  Philox* rng_ = nullptr;
};

using KernelFn = std::function<absl::Status(KernelContext&)>;

class KernelRegistry {
 public:
  // Every kernel of every family, registered on first use.
  static const KernelRegistry& Global();

  void Register(absl::string_view op, KernelFn fn);
  const KernelFn* Find(absl::string_view op) const;
  std::vector<std::string> Ops() const;  // sorted

 private:
  absl::flat_hash_map<std::string, KernelFn> kernels_;
};

// The families, one file each under runtime/reference/.
void RegisterUnaryKernels(KernelRegistry& registry);           // elementwise_unary.cc
void RegisterBinaryKernels(KernelRegistry& registry);          // elementwise_binary.cc
void RegisterReductionKernels(KernelRegistry& registry);       // reduction.cc
void RegisterSoftmaxKernels(KernelRegistry& registry);         // softmax.cc
void RegisterContractionKernels(KernelRegistry& registry);     // contraction.cc
void RegisterLayoutKernels(KernelRegistry& registry);          // layout.cc
void RegisterShapeKernels(KernelRegistry& registry);           // shape_ops.cc
void RegisterRandomKernels(KernelRegistry& registry);          // random.cc
void RegisterStateKernels(KernelRegistry& registry);           // state.cc
void RegisterConvolutionKernels(KernelRegistry& registry);     // convolution.cc
void RegisterPoolingKernels(KernelRegistry& registry);         // pooling.cc
void RegisterNormalizationKernels(KernelRegistry& registry);   // normalization.cc
void RegisterResizeKernels(KernelRegistry& registry);          // resize.cc
void RegisterSpaceBatchKernels(KernelRegistry& registry);      // space_batch.cc
void RegisterActivationGradKernels(KernelRegistry& registry);  // activation_grad.cc
void RegisterOptimizerKernels(KernelRegistry& registry);       // optimizer.cc
void RegisterTensorArrayKernels(KernelRegistry& registry);     // tensor_array.cc: and Assert
void RegisterStackKernels(KernelRegistry& registry);           // stack.cc
void RegisterBitcastKernels(KernelRegistry& registry);         // bitcast.cc: and DeepCopy, Empty...
void RegisterRnnCellKernels(KernelRegistry& registry);         // rnn_cells.cc
void RegisterImageKernels(KernelRegistry& registry);           // image.cc
void RegisterRandomTailKernels(KernelRegistry& registry);      // random_tail.cc
void RegisterBitwiseKernels(KernelRegistry& registry);         // bitwise.cc
void RegisterSpecialMathKernels(KernelRegistry& registry);     // special_math.cc
void RegisterSelectionKernels(KernelRegistry& registry);       // selection.cc
void RegisterMatrixKernels(KernelRegistry& registry);          // matrix.cc: diagonals; matrix_products.cc: Cross, Einsum
void RegisterLinalgKernels(KernelRegistry& registry);          // linalg.cc
void RegisterScatterKernels(KernelRegistry& registry);         // scatter.cc: and GatherNd
void RegisterSegmentKernels(KernelRegistry& registry);         // segment.cc: and partitions

// Runs one node on the given input values, with no session state: for unit tests and for
// compile-time constant folding. Stateful ops (variables, Assign...) are refused.
absl::StatusOr<std::vector<Tensor>> EvaluateNode(const Node& node, std::span<const Tensor> inputs);

// The state a stateful node runs with, as a session gives it (KernelContext's setters).
struct NodeState {
  std::vector<KernelContext::VariableSlot*> ref_inputs;
  KernelContext::VariableSlot* own_variable = nullptr;
  Philox* rng = nullptr;
};

// EvaluateNode for an executor that keeps its own state: variables and random streams.
absl::StatusOr<std::vector<Tensor>> EvaluateNode(const Node& node, std::span<const Tensor> inputs,
                                                 const NodeState& state);

// Where a random op's stream starts (random.cc): TensorFlow's PhiloxRandom(seed, seed2) from
// its attributes; when both are 0, where TensorFlow would pick random seeds, a seed from a
// stable hash of the node's name, so that runs and processes repeat.
Philox NodePhilox(const Node& node);

// Fills a float16, float32 or float64 tensor from `gen` as TensorFlow's FillPhiloxRandom does
// for RandomUniform, RandomStandardNormal and TruncatedNormal (random.cc); the stateless ops
// use it with a generator made from their seed input.
enum class RandomDistribution { kUniform, kNormal, kTruncatedNormal };
void FillRandom(RandomDistribution distribution, const Philox& gen, Tensor& out);

}  // namespace dfc::reference

#endif  // DFC_RUNTIME_REFERENCE_KERNEL_H_
