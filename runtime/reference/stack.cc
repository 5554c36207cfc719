// Reference kernels for stacks (StackV2, StackPushV2, StackPopV2), which
// TensorFlow's gradients of a TF1 while loop use to hand each iteration's forward values to the
// backward loop in reverse. A stack is state, as in TensorFlow: its handle names a StackResource
// that pushes and pops change, and that lives for the run that made it.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/status.h"
#include "graph/tensor.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {
namespace {

class StackResource : public Resource {
 public:
  StackResource(std::string name, DType dtype, int64_t max_size)
      : name_(std::move(name)), dtype_(dtype), max_size_(max_size) {}

  std::string DebugString() const override {
    absl::MutexLock lock(&mu_);
    return absl::StrCat("stack \"", name_, "\" of ", DTypeName(dtype_), ", ", elements_.size(),
                        " elements");
  }

  absl::Status Push(const KernelContext& ctx, Tensor value) {
    absl::MutexLock lock(&mu_);
    if (value.dtype() != dtype_) {
      return ctx.Error(absl::StrCat("pushes ", value.DebugType(), " onto ", Describe()));
    }
    if (max_size_ >= 0 && static_cast<int64_t>(elements_.size()) >= max_size_) {
      return ctx.Error(absl::StrCat(Describe(), " overflowed its max_size (", max_size_, ")"));
    }
    elements_.push_back(std::move(value));
    return absl::OkStatus();
  }

  absl::StatusOr<Tensor> Pop(const KernelContext& ctx, DType expected) {
    absl::MutexLock lock(&mu_);
    if (expected != dtype_) {
      return ctx.Error(absl::StrCat("pops ", DTypeName(expected), " from ", Describe()));
    }
    if (elements_.empty()) {
      return ctx.Error(
          absl::StrCat("pops from ", Describe(), ", which is empty (more pops than pushes)"));
    }
    Tensor top = std::move(elements_.back());
    elements_.pop_back();
    return top;
  }

 private:
  std::string Describe() const {
    return absl::StrCat("stack \"", name_, "\" of ", DTypeName(dtype_));
  }

  const std::string name_;
  const DType dtype_;
  const int64_t max_size_;  // negative: unbounded
  mutable absl::Mutex mu_;
  std::vector<Tensor> elements_;
};

// The stack that input `i` (a handle) names.
absl::StatusOr<StackResource*> StackAt(const KernelContext& ctx, int i) {
  auto* stack = dynamic_cast<StackResource*>(ctx.input(i).resource());
  if (stack == nullptr) {
    return ctx.Error(absl::StrCat("input ", i, " (\"", ctx.node().inputs[i].ToString(), "\") is ",
                                  ctx.input(i).DebugType(), ", expected a stack's handle"));
  }
  return stack;
}

absl::Status StackV2(KernelContext& ctx) {  // max_size
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_ASSIGN_OR_RETURN(int64_t max_size, ReadIndexScalar(ctx, 0, "max_size"));
  DFC_ASSIGN_OR_RETURN(DType dtype, ctx.node().GetType("elem_type"));
  DFC_ASSIGN_OR_RETURN(std::string name, ctx.node().GetString("stack_name", ""));
  if (name.empty()) name = ctx.node().name;
  ctx.set_output(0, Tensor::OfResource(std::make_shared<StackResource>(name, dtype, max_size)));
  return absl::OkStatus();
}

absl::Status StackPushV2(KernelContext& ctx) {  // handle, elem
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_ASSIGN_OR_RETURN(StackResource * stack, StackAt(ctx, 0));
  DFC_RETURN_IF_ERROR(stack->Push(ctx, ctx.input(1)));
  ctx.set_output(0, ctx.input(1));
  return absl::OkStatus();
}

absl::Status StackPopV2(KernelContext& ctx) {  // handle
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_ASSIGN_OR_RETURN(StackResource * stack, StackAt(ctx, 0));
  DFC_ASSIGN_OR_RETURN(DType dtype, ctx.node().GetType("elem_type"));
  DFC_ASSIGN_OR_RETURN(Tensor top, stack->Pop(ctx, dtype));
  ctx.set_output(0, std::move(top));
  return absl::OkStatus();
}

}  // namespace

void RegisterStackKernels(KernelRegistry& registry) {
  registry.Register("StackV2", StackV2);
  registry.Register("StackPushV2", StackPushV2);
  registry.Register("StackPopV2", StackPopV2);
}

}  // namespace dfc::reference
