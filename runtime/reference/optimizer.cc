// Reference kernels for the optimizers of TensorFlow's training_ops: ApplyMomentum, ApplyAdam,
// ApplyRMSProp, ApplyCenteredRMSProp, ApplyAdagrad, ApplyAdadelta, ApplyAdaMax, ApplyFtrl,
// ApplyFtrlV2, ApplyProximalGradientDescent, ApplyProximalAdagrad, ApplyPowerSign and
// ApplyAddSign. Each updates its variables (its leading ref inputs: var, then its slots such
// as Adam's m and v) elementwise from a gradient and scalar hyperparameters, and outputs the
// updated var. The formulas are those of TensorFlow's CPU functors
// (tensorflow/core/kernels/training_ops.cc), evaluated in double; every value TensorFlow
// stores in a slot before a later expression reads it is rounded to the variables' dtype
// there too, so the steps that follow see what TensorFlow's would. As in state.cc, updates
// replace the variables' tensors rather than mutate them.
#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"
#include "runtime/reference/reduction_util.h"

namespace dfc::reference {
namespace {

// The attributes that choose among an optimizer's variants (each read with TF's default).
struct Options {
  bool use_nesterov = false;           // ApplyMomentum, ApplyAdam
  bool update_slots = true;            // ApplyAdagrad
  bool multiply_linear_by_lr = false;  // ApplyFtrl, ApplyFtrlV2
};

// Rounds a value to the variables' dtype, as storing it in a slot does.
using RoundFn = double (*)(double);

template <typename T>
double RoundTo(double x) {
  return ToDouble(FromDouble<T>(x));
}

// One element's update. `s`: the variables' values at the element, var first, then the other
// ref inputs in input order (updated in place); `g`: the gradient; `c`: the scalar inputs in
// input order.
using Step = void (*)(std::span<double> s, double g, std::span<const double> c, const Options& o,
                      RoundFn r);

// Eigen's sign: -1, 0 or 1 (0 for NaN).
double Sign(double x) { return static_cast<double>((x > 0) - (x < 0)); }

// ApplyMomentum(var, accum, lr, grad, momentum):
//   accum = accum * momentum + grad
//   var -= accum * lr,  or with use_nesterov  var -= grad * lr + accum * momentum * lr
void Momentum(std::span<double> s, double g, std::span<const double> c, const Options& o,
              RoundFn r) {
  const double lr = c[0], momentum = c[1];
  double &var = s[0], &accum = s[1];
  accum = r(accum * momentum + g);
  var = r(o.use_nesterov ? var - (g * lr + accum * momentum * lr) : var - accum * lr);
}

// ApplyAdam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
//   alpha = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
//   m += (grad - m) * (1 - beta1);  v += (grad^2 - v) * (1 - beta2)
//   var -= m * alpha / (sqrt(v) + epsilon),
//   or with use_nesterov  var -= (grad * (1 - beta1) + beta1 * m) * alpha / (sqrt(v) + epsilon)
void Adam(std::span<double> s, double g, std::span<const double> c, const Options& o, RoundFn r) {
  const double beta1_power = c[0], beta2_power = c[1], lr = c[2], beta1 = c[3], beta2 = c[4],
               epsilon = c[5];
  double &var = s[0], &m = s[1], &v = s[2];
  const double alpha = lr * std::sqrt(1 - beta2_power) / (1 - beta1_power);
  m = r(m + (g - m) * (1 - beta1));
  v = r(v + (g * g - v) * (1 - beta2));
  const double direction = o.use_nesterov ? g * (1 - beta1) + beta1 * m : m;
  var = r(var - direction * alpha / (std::sqrt(v) + epsilon));
}

// ApplyRMSProp(var, ms, mom, lr, rho, momentum, epsilon, grad):
//   ms += (grad^2 - ms) * (1 - rho)
//   mom = mom * momentum + grad * lr / sqrt(ms + epsilon);  var -= mom
void RMSProp(std::span<double> s, double g, std::span<const double> c, const Options&, RoundFn r) {
  const double lr = c[0], rho = c[1], momentum = c[2], epsilon = c[3];
  double &var = s[0], &ms = s[1], &mom = s[2];
  ms = r(ms + (g * g - ms) * (1 - rho));
  mom = r(mom * momentum + g * lr / std::sqrt(ms + epsilon));
  var = r(var - mom);
}

// ApplyCenteredRMSProp(var, mg, ms, mom, lr, rho, momentum, epsilon, grad):
//   ms += (grad^2 - ms) * (1 - rho);  mg += (grad - mg) * (1 - rho)
//   mom = mom * momentum + grad * lr / sqrt(ms - mg^2 + epsilon);  var -= mom
void CenteredRMSProp(std::span<double> s, double g, std::span<const double> c, const Options&,
                     RoundFn r) {
  const double lr = c[0], rho = c[1], momentum = c[2], epsilon = c[3];
  double &var = s[0], &mg = s[1], &ms = s[2], &mom = s[3];
  ms = r(ms + (g * g - ms) * (1 - rho));
  mg = r(mg + (g - mg) * (1 - rho));
  mom = r(mom * momentum + g * lr / std::sqrt(ms - mg * mg + epsilon));
  var = r(var - mom);
}

// ApplyAdagrad(var, accum, lr, grad):
//   accum += grad^2 (unless update_slots is false);  var -= grad * lr / sqrt(accum)
void Adagrad(std::span<double> s, double g, std::span<const double> c, const Options& o,
             RoundFn r) {
  const double lr = c[0];
  double &var = s[0], &accum = s[1];
  if (o.update_slots) accum = r(accum + g * g);
  var = r(var - g * lr / std::sqrt(accum));
}

// ApplyAdadelta(var, accum, accum_update, lr, rho, epsilon, grad):
//   accum = accum * rho + grad^2 * (1 - rho)
//   update = sqrt(accum_update + epsilon) / sqrt(accum + epsilon) * grad;  var -= update * lr
//   accum_update = accum_update * rho + update^2 * (1 - rho)
void Adadelta(std::span<double> s, double g, std::span<const double> c, const Options&, RoundFn r) {
  const double lr = c[0], rho = c[1], epsilon = c[2];
  double &var = s[0], &accum = s[1], &accum_update = s[2];
  accum = r(accum * rho + g * g * (1 - rho));
  const double update = std::sqrt(accum_update + epsilon) / std::sqrt(accum + epsilon) * g;
  var = r(var - update * lr);
  accum_update = r(accum_update * rho + update * update * (1 - rho));
}

// ApplyAdaMax(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad):
//   m += (grad - m) * (1 - beta1);  v = max(beta2 * v, |grad|)
//   var -= lr / (1 - beta1_power) * m / (v + epsilon)
void AdaMax(std::span<double> s, double g, std::span<const double> c, const Options&, RoundFn r) {
  const double beta1_power = c[0], lr = c[1], beta1 = c[2], beta2 = c[3], epsilon = c[4];
  double &var = s[0], &m = s[1], &v = s[2];
  m = r(m + (g - m) * (1 - beta1));
  v = r(std::max(beta2 * v, std::abs(g)));
  var = r(var - lr / (1 - beta1_power) * (m / (v + epsilon)));
}

// One Ftrl-proximal step on (var, accum, linear); `shrunk` is the gradient that enters linear
// (FtrlV2 adds 2 * l2_shrinkage * var to it), accum always takes grad^2. With p(x) =
// x^-lr_power (sqrt when lr_power is -0.5) and accum_new = accum + grad^2:
//   linear += shrunk - (p(accum_new) - p(accum)) / lr * var
//   var = |linear| > l1 ? (l1 * sign(linear) - linear) / (p(accum_new) / lr + 2 * l2) : 0
// and with multiply_linear, linear is kept multiplied by lr:
//   linear += shrunk * lr - (p(accum_new) - p(accum)) * var
//   var = |linear| > l1 * lr ? (l1 * lr * sign(linear) - linear) / (p(accum_new) + 2 * l2 * lr)
//                            : 0
void FtrlStep(std::span<double> s, double g, double shrunk, double lr, double l1, double l2,
              double lr_power, bool multiply_linear, RoundFn r) {
  double &var = s[0], &accum = s[1], &linear = s[2];
  auto power = [&](double x) { return lr_power == -0.5 ? std::sqrt(x) : std::pow(x, -lr_power); };
  const double accum_new = accum + g * g;
  const double sigma = power(accum_new) - power(accum);
  double x, y, threshold;
  if (multiply_linear) {
    linear = r(linear + shrunk * lr - sigma * var);
    threshold = l1 * lr;
    y = power(accum_new) + 2 * l2 * lr;
  } else {
    linear = r(linear + shrunk - sigma / lr * var);
    threshold = l1;
    y = power(accum_new) / lr + 2 * l2;
  }
  x = threshold * Sign(linear) - linear;
  var = r(std::abs(linear) > threshold ? x / y : 0.0);
  accum = r(accum_new);
}

// ApplyFtrl(var, accum, linear, grad, lr, l1, l2, lr_power).
void Ftrl(std::span<double> s, double g, std::span<const double> c, const Options& o, RoundFn r) {
  FtrlStep(s, g, g, c[0], c[1], c[2], c[3], o.multiply_linear_by_lr, r);
}

// ApplyFtrlV2(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power): Ftrl with
// grad + 2 * l2_shrinkage * var entering linear. TensorFlow's dense kernel picks the variant
// the other way round from the attribute (training_ops.cc, ApplyFtrlOp with has_l2_shrinkage:
// multiply_linear_by_lr true runs functor::ApplyFtrlV2, false runs
// ApplyFtrlV2MultiplyLinearByLr); this does as it does. var follows the same path either way
// when linear starts at 0; only linear's scale differs.
void FtrlV2(std::span<double> s, double g, std::span<const double> c, const Options& o, RoundFn r) {
  const double shrunk = g + 2 * c[3] * s[0];
  FtrlStep(s, g, shrunk, c[0], c[1], c[2], c[4], !o.multiply_linear_by_lr, r);
}

// The Fobos step both proximal optimizers end with, on prox = var - grad * lr (stored in var
// first, as TensorFlow does):
//   var = sign(prox) * max(|prox| - lr * l1, 0) / (1 + l2 * lr)   if l1 > 0
//   var = prox / (1 + l2 * lr)                                     otherwise
double Proximal(double prox, double lr, double l1, double l2) {
  if (l1 > 0) return Sign(prox) * std::max(std::abs(prox) - lr * l1, 0.0) / (1 + l2 * lr);
  return prox / (1 + l2 * lr);
}

// ApplyProximalGradientDescent(var, alpha, l1, l2, delta).
void ProximalGradientDescent(std::span<double> s, double g, std::span<const double> c,
                             const Options&, RoundFn r) {
  const double alpha = c[0], l1 = c[1], l2 = c[2];
  const double prox = r(s[0] - g * alpha);
  s[0] = r(Proximal(prox, alpha, l1, l2));
}

// ApplyProximalAdagrad(var, accum, lr, l1, l2, grad): accum += grad^2, then the proximal step
// with the Adagrad rate lr / sqrt(accum).
void ProximalAdagrad(std::span<double> s, double g, std::span<const double> c, const Options&,
                     RoundFn r) {
  const double lr = c[0], l1 = c[1], l2 = c[2];
  double &var = s[0], &accum = s[1];
  accum = r(accum + g * g);
  const double rate = lr / std::sqrt(accum);
  const double prox = r(var - g * rate);
  var = r(Proximal(prox, rate, l1, l2));
}

// ApplyPowerSign(var, m, lr, logbase, sign_decay, beta, grad):
//   m = m * beta + grad * (1 - beta)
//   var -= lr * exp(logbase * sign_decay * sign(grad) * sign(m)) * grad
void PowerSign(std::span<double> s, double g, std::span<const double> c, const Options&,
               RoundFn r) {
  const double lr = c[0], logbase = c[1], sign_decay = c[2], beta = c[3];
  double &var = s[0], &m = s[1];
  m = r(m * beta + g * (1 - beta));
  var = r(var - lr * std::exp(logbase * sign_decay * Sign(g) * Sign(m)) * g);
}

// ApplyAddSign(var, m, lr, alpha, sign_decay, beta, grad):
//   m = m * beta + grad * (1 - beta)
//   var -= lr * (alpha + sign_decay * sign(grad) * sign(m)) * grad
void AddSign(std::span<double> s, double g, std::span<const double> c, const Options&, RoundFn r) {
  const double lr = c[0], alpha = c[1], sign_decay = c[2], beta = c[3];
  double &var = s[0], &m = s[1];
  m = r(m * beta + g * (1 - beta));
  var = r(var - lr * (alpha + sign_decay * Sign(g) * Sign(m)) * g);
}

// ApplyProximalAdagrad's CPU kernel refuses a rate that is not positive and negative
// regularisation strengths.
absl::Status CheckProximalAdagrad(const KernelContext& ctx, std::span<const double> c) {
  if (!(c[0] > 0)) return ctx.Error(absl::StrCat("lr must be positive, got ", c[0]));
  if (!(c[1] >= 0)) return ctx.Error(absl::StrCat("l1 must be non-negative, got ", c[1]));
  if (!(c[2] >= 0)) return ctx.Error(absl::StrCat("l2 must be non-negative, got ", c[2]));
  return absl::OkStatus();
}

struct OptimizerDef {
  absl::string_view op;
  // The inputs in order: the first `num_slots` are the variables (OpDef::num_ref_inputs), the
  // one named "grad" or "delta" is the gradient, the others are scalars.
  int num_slots;
  std::vector<absl::string_view> inputs;
  bool half;  // TensorFlow's CPU kernel takes float16 too, not only float32 and float64
  Step step;
  absl::Status (*check)(const KernelContext&, std::span<const double>) = nullptr;
};

const std::vector<OptimizerDef>& Optimizers() {
  static const auto* defs = new std::vector<OptimizerDef>{
      {"ApplyMomentum", 2, {"var", "accum", "lr", "grad", "momentum"}, true, Momentum},
      {"ApplyAdam",
       3,
       {"var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"},
       true,
       Adam},
      {"ApplyRMSProp",
       3,
       {"var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"},
       true,
       RMSProp},
      {"ApplyCenteredRMSProp",
       4,
       {"var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"},
       true,
       CenteredRMSProp},
      {"ApplyAdagrad", 2, {"var", "accum", "lr", "grad"}, true, Adagrad},
      {"ApplyAdadelta",
       3,
       {"var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"},
       true,
       Adadelta},
      {"ApplyAdaMax",
       3,
       {"var", "m", "v", "beta1_power", "lr", "beta1", "beta2", "epsilon", "grad"},
       true,
       AdaMax},
      {"ApplyFtrl",
       3,
       {"var", "accum", "linear", "grad", "lr", "l1", "l2", "lr_power"},
       true,
       Ftrl},
      {"ApplyFtrlV2",
       3,
       {"var", "accum", "linear", "grad", "lr", "l1", "l2", "l2_shrinkage", "lr_power"},
       true,
       FtrlV2},
      {"ApplyProximalGradientDescent",
       1,
       {"var", "alpha", "l1", "l2", "delta"},
       false,
       ProximalGradientDescent},
      {"ApplyProximalAdagrad",
       2,
       {"var", "accum", "lr", "l1", "l2", "grad"},
       false,
       ProximalAdagrad,
       CheckProximalAdagrad},
      {"ApplyPowerSign",
       2,
       {"var", "m", "lr", "logbase", "sign_decay", "beta", "grad"},
       true,
       PowerSign},
      {"ApplyAddSign", 2, {"var", "m", "lr", "alpha", "sign_decay", "beta", "grad"}, true, AddSign},
  };
  return *defs;
}

absl::StatusOr<Options> ReadOptions(const KernelContext& ctx) {
  Options o;
  for (auto [name, value] : {std::pair{"use_nesterov", &o.use_nesterov},
                             {"update_slots", &o.update_slots},
                             {"multiply_linear_by_lr", &o.multiply_linear_by_lr}}) {
    DFC_ASSIGN_OR_RETURN(bool b, ctx.node().GetBool(name, *value));
    *value = b;
  }
  return o;
}

absl::Status RunOptimizer(KernelContext& ctx, const OptimizerDef& def) {
  const int n = static_cast<int>(def.inputs.size());
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, n));

  // The variables: each ref input must be one, initialised, of var's dtype and shape.
  std::vector<KernelContext::VariableSlot*> slots;
  for (int k = 0; k < def.num_slots; ++k) {
    KernelContext::VariableSlot* slot = ctx.ref_input(k);
    const std::string source = ctx.node().inputs[k].ToString();
    if (slot == nullptr) {
      return ctx.Error(absl::StrCat("input ", k, " (", def.inputs[k], ", \"", source,
                                    "\") must be a Variable or VariableV2 node"));
    }
    if (!slot->initialized) {
      return ctx.Error(absl::StrCat("variable \"", ctx.node().inputs[k].node, "\" (", def.inputs[k],
                                    ") is used before it is initialized"));
    }
    slots.push_back(slot);
  }
  const Tensor& var = slots[0]->value;
  const DType dtype = var.dtype();
  const bool allowed =
      dtype == DType::kFloat || dtype == DType::kDouble || (def.half && dtype == DType::kHalf);
  if (!allowed) {
    return ctx.Error(absl::StrCat(def.op, " is not defined for ", var.DebugType(), " (var must be ",
                                  def.half ? "float16, float32 or float64" : "float32 or float64",
                                  ")"));
  }

  // The other inputs: the gradient has var's dtype and shape, the rest are scalars of it.
  int grad_input = -1;
  std::vector<double> scalars;
  for (int k = 0; k < n; ++k) {
    const Tensor& t = k < def.num_slots ? slots[k]->value : ctx.input(k);
    if (t.dtype() != dtype) {
      return ctx.Error(
          absl::StrCat(def.inputs[k], " is ", t.DebugType(), ", but var is ", var.DebugType()));
    }
    const bool is_grad = def.inputs[k] == "grad" || def.inputs[k] == "delta";
    if (k < def.num_slots || is_grad) {
      if (t.shape() != var.shape()) {
        return ctx.Error(absl::StrCat("var and ", def.inputs[k], " do not have the same shape: ",
                                      var.DebugType(), " and ", t.DebugType()));
      }
      if (is_grad) grad_input = k;
      continue;
    }
    if (t.rank() != 0) {
      return ctx.Error(absl::StrCat(def.inputs[k], " must be a scalar, got ", t.DebugType()));
    }
    scalars.push_back(t.ElementAsDouble(0));
  }
  if (def.check != nullptr) {
    DFC_RETURN_IF_ERROR(def.check(ctx, scalars));
  }
  DFC_ASSIGN_OR_RETURN(Options options, ReadOptions(ctx));

  std::vector<Tensor> updated;
  for (int k = 0; k < def.num_slots; ++k) {
    DFC_ASSIGN_OR_RETURN(Tensor t, AllocateOutput(ctx, dtype, var.shape()));
    updated.push_back(std::move(t));
  }
  const Tensor& grad = ctx.input(grad_input);
  DispatchDType(dtype, [&]<typename T>() {
    if constexpr (IsFloatingStorage<T>) {
      std::vector<double> s(def.num_slots);
      for (int64_t i = 0; i < var.num_elements(); ++i) {
        for (int k = 0; k < def.num_slots; ++k) s[k] = ToDouble(slots[k]->value.data<T>()[i]);
        def.step(s, ToDouble(grad.data<T>()[i]), scalars, options, RoundTo<T>);
        for (int k = 0; k < def.num_slots; ++k) {
          updated[k].template mutable_data<T>()[i] = FromDouble<T>(s[k]);
        }
      }
    }
  });
  for (int k = 0; k < def.num_slots; ++k) slots[k]->value = updated[k];
  ctx.set_output(0, updated[0]);
  return absl::OkStatus();
}

}  // namespace

void RegisterOptimizerKernels(KernelRegistry& registry) {
  for (const OptimizerDef& def : Optimizers()) {
    registry.Register(def.op, [&def](KernelContext& ctx) { return RunOptimizer(ctx, def); });
  }
}

}  // namespace dfc::reference
