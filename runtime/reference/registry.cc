// The global kernel registry and single-node evaluation.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "runtime/reference/kernel.h"

namespace dfc::reference {

const KernelRegistry& KernelRegistry::Global() {
  static const KernelRegistry* registry = [] {
    auto* r = new KernelRegistry;
    RegisterUnaryKernels(*r);
    RegisterBinaryKernels(*r);
    RegisterReductionKernels(*r);
    RegisterSoftmaxKernels(*r);
    RegisterContractionKernels(*r);
    RegisterLayoutKernels(*r);
    RegisterShapeKernels(*r);
    RegisterRandomKernels(*r);
    RegisterStateKernels(*r);
    RegisterConvolutionKernels(*r);
    RegisterPoolingKernels(*r);
    RegisterNormalizationKernels(*r);
    RegisterResizeKernels(*r);
    RegisterSpaceBatchKernels(*r);
    RegisterActivationGradKernels(*r);
    RegisterOptimizerKernels(*r);
    RegisterTensorArrayKernels(*r);
    RegisterStackKernels(*r);
    RegisterBitcastKernels(*r);
    RegisterRnnCellKernels(*r);
    RegisterImageKernels(*r);
    RegisterRandomTailKernels(*r);
    RegisterBitwiseKernels(*r);
    RegisterSpecialMathKernels(*r);
    RegisterSelectionKernels(*r);
    RegisterMatrixKernels(*r);
    RegisterLinalgKernels(*r);
    RegisterScatterKernels(*r);
    RegisterSegmentKernels(*r);
    return r;
  }();
  return *registry;
}

void KernelRegistry::Register(absl::string_view op, KernelFn fn) { kernels_[op] = std::move(fn); }

const KernelFn* KernelRegistry::Find(absl::string_view op) const {
  auto it = kernels_.find(op);
  return it == kernels_.end() ? nullptr : &it->second;
}

std::vector<std::string> KernelRegistry::Ops() const {
  std::vector<std::string> ops;
  for (const auto& [op, fn] : kernels_) ops.push_back(op);
  std::sort(ops.begin(), ops.end());
  return ops;
}

absl::StatusOr<std::vector<Tensor>> EvaluateNode(const Node& node, std::span<const Tensor> inputs) {
  return EvaluateNode(node, inputs, NodeState{});
}

absl::StatusOr<std::vector<Tensor>> EvaluateNode(const Node& node, std::span<const Tensor> inputs,
                                                 const NodeState& state) {
  const KernelFn* kernel = KernelRegistry::Global().Find(node.op);
  if (kernel == nullptr) return node.Error("no reference kernel for this op");
  KernelContext ctx(node, inputs);
  ctx.set_ref_inputs(state.ref_inputs);
  ctx.set_own_variable(state.own_variable);
  ctx.set_rng(state.rng);
  if (absl::Status s = (*kernel)(ctx); !s.ok()) return node.Annotate(s);
  return std::move(ctx.outputs());
}

}  // namespace dfc::reference
