// Reference kernels for graph plumbing and state: Const, Placeholder, PlaceholderWithDefault,
// NoOp, Variable/VariableV2 and the ops that write variables. Writes replace the variable's
// tensor rather than mutate it, because tensors share buffers: a value read earlier in the
// same run (W/read) must not change under its readers.
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/ops.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {
namespace {

absl::Status Const(KernelContext& ctx) {
  DFC_ASSIGN_OR_RETURN(Tensor value, ctx.node().GetTensor("value"));
  DFC_ASSIGN_OR_RETURN(DType dtype, ctx.node().GetType("dtype", value.dtype()));
  if (dtype != value.dtype()) {
    return ctx.Error(absl::StrCat("attribute dtype is ", DTypeName(dtype), " but the value is ",
                                  value.DebugType()));
  }
  ctx.set_output(0, std::move(value));
  return absl::OkStatus();
}

absl::Status Placeholder(KernelContext& ctx) {
  // A fed placeholder is never run: the executor uses the feed instead.
  return ctx.Error(absl::StrCat("placeholder needs a feed of ", PlaceholderSignature(ctx.node())));
}

absl::Status PlaceholderWithDefault(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  ctx.set_output(0, ctx.input(0));
  return absl::OkStatus();
}

absl::Status NoOp(KernelContext&) { return absl::OkStatus(); }

// A variable's own node: its value is read by the executor at each consumer; running the
// node only checks that it has storage.
absl::Status Variable(KernelContext& ctx) {
  if (ctx.own_variable() == nullptr) {
    return ctx.Error("a variable can only run inside a session");
  }
  return absl::OkStatus();
}

absl::StatusOr<KernelContext::VariableSlot*> RefInput(KernelContext& ctx) {
  KernelContext::VariableSlot* slot = ctx.ref_input(0);
  if (slot == nullptr) {
    return ctx.Error(absl::StrCat("input 0 (\"",
                                  ctx.node().inputs.empty() ? "" : ctx.node().inputs[0].ToString(),
                                  "\") must be a Variable or VariableV2 node"));
  }
  return slot;
}

absl::Status Assign(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  const Tensor& value = ctx.input(1);
  DFC_ASSIGN_OR_RETURN(bool validate, ctx.node().GetBool("validate_shape", true));
  // A frozen graph keeps a constant where its variable was, and TensorFlow-made cases still
  // assign to it and scatter into the result: with no variable to write, Assign outputs the
  // value it would have written, checked against the constant as against the variable.
  if (ctx.ref_input(0) == nullptr) {
    const Tensor& target = ctx.input(0);
    if (target.dtype() != value.dtype() || (validate && target.shape() != value.shape())) {
      return ctx.Error(absl::StrCat("assigns ", value.DebugType(), " to ", target.DebugType(),
                                    validate ? " (validate_shape is true)" : ""));
    }
    ctx.set_output(0, value);
    return absl::OkStatus();
  }
  DFC_ASSIGN_OR_RETURN(auto* slot, RefInput(ctx));
  if ((slot)->initialized && (slot)->value.dtype() != value.dtype()) {
    return ctx.Error(absl::StrCat("assigns ", value.DebugType(), " to a variable of ",
                                  (slot)->value.DebugType()));
  }
  if (validate && (slot)->initialized && (slot)->value.shape() != value.shape()) {
    return ctx.Error(absl::StrCat("assigns ", value.DebugType(), " to a variable of ",
                                  (slot)->value.DebugType(), " (validate_shape is true)"));
  }
  (slot)->value = value;
  (slot)->initialized = true;
  ctx.set_output(0, value);
  return absl::OkStatus();
}

// variable <- variable + sign * scale * delta, elementwise, same shape and dtype.
absl::Status Update(KernelContext& ctx, int delta_input, const Tensor* scale, double sign) {
  DFC_ASSIGN_OR_RETURN(auto* slot, RefInput(ctx));
  if (!(slot)->initialized) {
    return ctx.Error(absl::StrCat("variable \"", ctx.node().inputs[0].node,
                                  "\" is updated before it is initialized"));
  }
  const Tensor& var = (slot)->value;
  const Tensor& delta = ctx.input(delta_input);
  if (delta.dtype() != var.dtype() || delta.shape() != var.shape()) {
    return ctx.Error(absl::StrCat("the update is ", delta.DebugType(), " but the variable is ",
                                  var.DebugType()));
  }
  if (scale != nullptr && (scale->dtype() != var.dtype() || scale->num_elements() != 1)) {
    return ctx.Error(absl::StrCat("alpha must be a scalar of ", DTypeName(var.dtype()), ", got ",
                                  scale->DebugType()));
  }
  if (!IsFloating(var.dtype()) && !IsInteger(var.dtype())) {
    return ctx.Error(absl::StrCat("cannot update a variable of ", var.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, var.dtype(), var.shape()));
  DispatchDType(var.dtype(), [&]<typename T>() {
    if constexpr (!std::is_same_v<T, bool>) {  // bool was refused above
      using C = ComputeType<T>;
      const C factor = static_cast<C>(sign) * (scale ? static_cast<C>(scale->data<T>()[0]) : C(1));
      const T* v = var.data<T>();
      const T* d = delta.data<T>();
      T* o = out.template mutable_data<T>();
      for (int64_t i = 0; i < var.num_elements(); ++i) {
        o[i] = static_cast<T>(static_cast<C>(v[i]) + factor * static_cast<C>(d[i]));
      }
    }
  });
  (slot)->value = out;
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status AssignAdd(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  return Update(ctx, 1, nullptr, 1.0);
}

absl::Status AssignSub(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  return Update(ctx, 1, nullptr, -1.0);
}

// ApplyGradientDescent(var, alpha, delta): var -= alpha * delta.
absl::Status ApplyGradientDescent(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  return Update(ctx, 2, &ctx.input(1), -1.0);
}

}  // namespace

void RegisterStateKernels(KernelRegistry& registry) {
  registry.Register("Const", Const);
  registry.Register("Placeholder", Placeholder);
  registry.Register("PlaceholderWithDefault", PlaceholderWithDefault);
  registry.Register("NoOp", NoOp);
  registry.Register("Variable", Variable);
  registry.Register("VariableV2", Variable);
  registry.Register("Assign", Assign);
  registry.Register("AssignAdd", AssignAdd);
  registry.Register("AssignSub", AssignSub);
  registry.Register("ApplyGradientDescent", ApplyGradientDescent);
}

}  // namespace dfc::reference
