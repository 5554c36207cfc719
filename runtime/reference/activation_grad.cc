// Reference kernels: the gradients of the activations and of a few unary math ops
// (ReluGrad Relu6Grad LeakyReluGrad EluGrad SeluGrad SoftplusGrad SoftsignGrad SigmoidGrad
// TanhGrad RsqrtGrad SqrtGrad ReciprocalGrad InvGrad).
//
// Each is elementwise over two inputs of one shape. Floating ones evaluate TensorFlow's
// formula in double and round once; the constants TensorFlow converts to T first (Selu's
// scale, LeakyRelu's alpha) are rounded to T here too. ReluGrad and Relu6Grad are also
// defined for integers, as in TensorFlow.
#include <cmath>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/dtype_class.h"
#include "runtime/reference/elementwise_util.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"
#include "runtime/reference/reduction_util.h"

namespace dfc::reference {
namespace {

// What the two inputs of an op are called, for error messages.
struct InputNames {
  const char* first;
  const char* second;
};
constexpr InputNames kGradientsFeatures{"gradients", "features"};
constexpr InputNames kGradientsOutputs{"gradients", "outputs"};
constexpr InputNames kYDy{"y", "dy"};

// out[i] = fn(a[i], b[i]) for the two inputs a, b of one dtype and shape. `fn` is generic
// over the compute type: double for floating dtypes (rounded once to T), T for integers.
template <unsigned kClasses, typename Fn>
absl::Status Elementwise(KernelContext& ctx, InputNames names, Fn fn) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kClasses));
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) {
    return ctx.Error(absl::StrCat(names.first, " and ", names.second,
                                  " must have the same dtype and shape, got ", a.DebugType(),
                                  " and ", b.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, a.dtype(), a.shape()));
  DispatchDType(a.dtype(), [&]<typename T>() {
    if constexpr (InClass<T>(kClasses)) {
      const T* x = a.data<T>();
      const T* y = b.data<T>();
      T* o = out.mutable_data<T>();
      for (int64_t i = 0; i < a.num_elements(); ++i) {
        if constexpr (IsFloatingStorage<T>) {
          o[i] = FromDouble<T>(fn(ToDouble(x[i]), ToDouble(y[i])));
        } else {
          o[i] = fn(x[i], y[i]);
        }
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// `value` as TensorFlow's static_cast<T>(value) leaves it for dtype `dtype`.
double RoundedTo(DType dtype, double value) {
  switch (dtype) {
    case DType::kHalf:
      return ToDouble(FromDouble<Half>(value));
    case DType::kFloat:
      return static_cast<float>(value);
    default:
      return value;
  }
}

// The gradient mask is multiplied in, not selected, as TensorFlow does: an infinite or NaN
// gradient where the unit is off gives NaN, not 0.
absl::Status ReluGrad(KernelContext& ctx) {
  return Elementwise<kNumbers>(ctx, kGradientsFeatures, []<typename C>(C g, C f) -> C {
    return static_cast<C>(g * static_cast<C>(f > C(0)));
  });
}

absl::Status Relu6Grad(KernelContext& ctx) {
  return Elementwise<kNumbers>(ctx, kGradientsFeatures, []<typename C>(C g, C f) -> C {
    return static_cast<C>(g * static_cast<C>(f > C(0) && f < C(6)));
  });
}

absl::Status LeakyReluGrad(KernelContext& ctx) {
  DFC_ASSIGN_OR_RETURN(float alpha_attr, ctx.node().GetFloat("alpha", 0.2f));
  const double alpha = ctx.num_inputs() > 0 ? RoundedTo(ctx.input(0).dtype(), alpha_attr) : 0;
  return Elementwise<kFloats>(ctx, kGradientsFeatures,
                              [alpha](double g, double f) { return f > 0 ? g : g * alpha; });
}

absl::Status EluGrad(KernelContext& ctx) {
  return Elementwise<kFloats>(ctx, kGradientsOutputs,
                              [](double g, double out) { return out < 0 ? (out + 1) * g : g; });
}

// TensorFlow's literals: scale and scale * alpha, each rounded once to T.
constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluScaleAlpha = 1.7580993408473768599402175208123;

absl::Status SeluGrad(KernelContext& ctx) {
  const DType dtype = ctx.num_inputs() > 0 ? ctx.input(0).dtype() : DType::kFloat;
  const double scale = RoundedTo(dtype, kSeluScale);
  const double scale_alpha = RoundedTo(dtype, kSeluScaleAlpha);
  return Elementwise<kFloats>(ctx, kGradientsOutputs, [=](double g, double out) {
    return out < 0 ? g * (out + scale_alpha) : g * scale;
  });
}

absl::Status SoftplusGrad(KernelContext& ctx) {
  return Elementwise<kFloats>(ctx, kGradientsFeatures,
                              [](double g, double f) { return g / (std::exp(-f) + 1); });
}

absl::Status SoftsignGrad(KernelContext& ctx) {
  return Elementwise<kFloats>(ctx, kGradientsFeatures, [](double g, double f) {
    const double d = 1 + std::fabs(f);
    return g / (d * d);
  });
}

absl::Status SigmoidGrad(KernelContext& ctx) {
  return Elementwise<kFloats>(ctx, kYDy, [](double y, double dy) { return dy * y * (1 - y); });
}

absl::Status TanhGrad(KernelContext& ctx) {
  return Elementwise<kFloats>(ctx, kYDy, [](double y, double dy) { return dy * (1 - y * y); });
}

absl::Status RsqrtGrad(KernelContext& ctx) {
  return Elementwise<kFloats>(ctx, kYDy,
                              [](double y, double dy) { return -0.5 * dy * (y * y * y); });
}

absl::Status SqrtGrad(KernelContext& ctx) {
  return Elementwise<kFloats>(ctx, kYDy, [](double y, double dy) { return 0.5 * dy / y; });
}

// ReciprocalGrad and its older name InvGrad.
absl::Status ReciprocalGrad(KernelContext& ctx) {
  return Elementwise<kFloats>(ctx, kYDy, [](double y, double dy) { return -dy * y * y; });
}

}  // namespace

void RegisterActivationGradKernels(KernelRegistry& registry) {
  registry.Register("ReluGrad", ReluGrad);
  registry.Register("Relu6Grad", Relu6Grad);
  registry.Register("LeakyReluGrad", LeakyReluGrad);
  registry.Register("EluGrad", EluGrad);
  registry.Register("SeluGrad", SeluGrad);
  registry.Register("SoftplusGrad", SoftplusGrad);
  registry.Register("SoftsignGrad", SoftsignGrad);
  registry.Register("SigmoidGrad", SigmoidGrad);
  registry.Register("TanhGrad", TanhGrad);
  registry.Register("RsqrtGrad", RsqrtGrad);
  registry.Register("SqrtGrad", SqrtGrad);
  registry.Register("ReciprocalGrad", ReciprocalGrad);
  registry.Register("InvGrad", ReciprocalGrad);
}

}  // namespace dfc::reference
