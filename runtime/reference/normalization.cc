// Reference kernels: normalisation (FusedBatchNorm FusedBatchNormV2 FusedBatchNormV3, their
// gradients FusedBatchNormGrad FusedBatchNormGradV2 FusedBatchNormGradV3, LRN LRNGrad), as
// TensorFlow's CPU kernels (fused_batch_norm_op.cc, lrn_op.cc) define them.
//
// Statistics and outputs are computed in double from the inputs and each output is rounded once;
// TensorFlow computes in U = float (float for LRN), so results agree to float rounding.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"
#include "runtime/reference/reduction_util.h"

namespace dfc::reference {
namespace {

constexpr DType kFloatOnly[] = {DType::kFloat};
constexpr DType kHalfOrFloat[] = {DType::kHalf, DType::kFloat};

// The dtypes of x (T): FusedBatchNorm and FusedBatchNormGrad are registered for float only,
// V2 and V3 for float16 and float. Scale, offset, mean, variance and the statistics (U) are
// float in every version.
std::span<const DType> BatchNormXTypes(int version) {
  if (version == 1) return kFloatOnly;
  return kHalfOrFloat;
}

// Where x's channels are: element k of x belongs to channel (k / inner) % channels.
struct ChannelLayout {
  int64_t channels = 0;
  int64_t inner = 1;  // 1 with channels last, the spatial element count with channels first

  int64_t Channel(int64_t k) const { return (k / inner) % channels; }
};

// The channels of a batch-norm operand `x` (named `what`): rank 4 or 5 (TensorFlow reshapes 5-D
// inputs to 4-D), channels last for NHWC and NDHWC, after the batch for NCHW and NCDHW.
absl::StatusOr<ChannelLayout> ReadChannelLayout(const KernelContext& ctx, const Tensor& x,
                                                absl::string_view what) {
  DFC_ASSIGN_OR_RETURN(const std::string data_format, ctx.node().GetString("data_format", "NHWC"));
  // Compared through a view, as in reduction.cc's BiasAddGrad.
  const absl::string_view format = data_format;
  const bool last = format == "NHWC" || format == "NDHWC";
  const bool first = format == "NCHW" || format == "NCDHW";
  if (!last && !first) {
    return ctx.Error(absl::StrCat("data_format \"", format,
                                  "\" is not supported, expected NHWC, NCHW, NDHWC or NCDHW"));
  }
  if (x.rank() != 4 && x.rank() != 5) {
    return ctx.Error(absl::StrCat(what, " must have rank 4 or 5, got ", x.DebugType()));
  }
  ChannelLayout layout;
  layout.channels = x.dim(last ? x.rank() - 1 : 1);
  if (first) {
    for (int d = 2; d < x.rank(); ++d) layout.inner *= x.dim(d);
  }
  return layout;
}

// Fails unless input `i` (named `what`) is a vector, of `channels` elements if channels >= 0.
absl::Status CheckChannelVector(const KernelContext& ctx, int i, absl::string_view what,
                                int64_t channels, absl::string_view when = "") {
  const Tensor& t = ctx.input(i);
  if (t.rank() != 1) {
    return ctx.Error(absl::StrCat(what, " must be a vector, got ", t.DebugType()));
  }
  if (channels >= 0 && t.num_elements() != channels) {
    return ctx.Error(absl::StrCat(when, what, " must have one element per channel of x (", channels,
                                  "), got ", t.DebugType()));
  }
  return absl::OkStatus();
}

std::vector<double> AsDoubles(const Tensor& t) {
  std::vector<double> v(t.num_elements());
  for (int64_t i = 0; i < t.num_elements(); ++i) v[i] = t.ElementAsDouble(i);
  return v;
}

// A tensor of floating `dtype` holding `values`, each rounded once.
absl::StatusOr<Tensor> FromDoubles(const KernelContext& ctx, DType dtype, Shape shape,
                                   const std::vector<double>& values) {
  absl::StatusOr<Tensor> t = AllocateOutput(ctx, dtype, std::move(shape));
  DFC_RETURN_IF_ERROR(t.status());
  DispatchDType(dtype, [&]<typename T>() {
    if constexpr (IsFloatingStorage<T>) {
      T* out = t->mutable_data<T>();
      for (int64_t i = 0; i < t->num_elements(); ++i) out[i] = FromDouble<T>(values[i]);
    }
  });
  return t;
}

// Sets outputs `first`, `first + 1`... to float tensors of `shape` holding `values`.
absl::Status SetFloatOutputs(KernelContext& ctx, int first, const Shape& shape,
                             std::initializer_list<const std::vector<double>*> values) {
  int i = first;
  for (const std::vector<double>* v : values) {
    DFC_ASSIGN_OR_RETURN(Tensor t, FromDoubles(ctx, DType::kFloat, shape, *v));
    ctx.set_output(i++, std::move(t));
  }
  return absl::OkStatus();
}

// FusedBatchNorm{,V2,V3}(x, scale, offset, mean, variance) -> (y, batch_mean, batch_variance,
// reserve_space_1, reserve_space_2[, reserve_space_3]).
//
// Training: mean and biased variance over every dimension but channels; y normalises with the
// biased variance; batch_variance is the unbiased one (n / (n - 1), n / 1 when n is 1); with
// exponential_avg_factor f != 1 batch_mean and batch_variance are (1 - f) old + f new.
// reserve_space_1 and _2 are the batch mean and the biased variance. Inference: y normalises
// with the given mean and variance, which batch_mean and batch_variance repeat (and the reserve
// spaces too, which TensorFlow's CPU kernel leaves unwritten). An empty x gives NaN statistics.
// V3's reserve_space_3 is the float scalar 0 TensorFlow's CPU kernel writes.
absl::Status FusedBatchNormKernel(KernelContext& ctx, int version) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 5));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, BatchNormXTypes(version)));
  for (int i = 1; i < 5; ++i) {
    DFC_RETURN_IF_ERROR(CheckDType(ctx, i, kFloatOnly));
  }
  DFC_ASSIGN_OR_RETURN(float epsilon, ctx.node().GetFloat("epsilon", 0.0001f));
  DFC_ASSIGN_OR_RETURN(float factor, ctx.node().GetFloat("exponential_avg_factor", 1.0f));
  DFC_ASSIGN_OR_RETURN(bool training, ctx.node().GetBool("is_training", true));
  const Tensor& x = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(ChannelLayout layout, ReadChannelLayout(ctx, x, "x"));
  const int64_t channels = layout.channels;
  for (auto [i, name] : {std::pair{1, "scale"}, {2, "offset"}}) {
    DFC_RETURN_IF_ERROR(CheckChannelVector(ctx, i, name, channels));
  }
  // Training with f == 1 never reads the running statistics, so they may be empty.
  const bool reads_running = !training || factor != 1.0f;
  const char* const when = training ? "with exponential_avg_factor != 1, " : "in inference, ";
  for (auto [i, name] : {std::pair{3, "mean"}, {4, "variance"}}) {
    absl::Status s = CheckChannelVector(ctx, i, name, reads_running ? channels : -1, when);
    if (!s.ok()) return s;
  }

  const std::vector<double> xs = AsDoubles(x);
  const std::vector<double> scale = AsDoubles(ctx.input(1));
  const std::vector<double> offset = AsDoubles(ctx.input(2));
  const std::vector<double> old_mean = AsDoubles(ctx.input(3));
  const std::vector<double> old_variance = AsDoubles(ctx.input(4));
  const double eps = epsilon;
  const double f = factor;
  const int64_t n = channels > 0 ? x.num_elements() / channels : 0;

  std::vector<double> mean = old_mean;
  std::vector<double> variance = old_variance;  // biased, in training
  if (training) {
    mean.assign(channels, 0.0);
    variance.assign(channels, 0.0);
    for (int64_t k = 0; k < x.num_elements(); ++k) mean[layout.Channel(k)] += xs[k];
    for (double& m : mean) m /= static_cast<double>(n);
    for (int64_t k = 0; k < x.num_elements(); ++k) {
      const double centred = xs[k] - mean[layout.Channel(k)];
      variance[layout.Channel(k)] += centred * centred;
    }
    for (double& v : variance) v /= static_cast<double>(n);
  }
  std::vector<double> y(x.num_elements());
  for (int64_t k = 0; k < x.num_elements(); ++k) {
    const int64_t c = layout.Channel(k);
    y[k] = (xs[k] - mean[c]) * (scale[c] / std::sqrt(variance[c] + eps)) + offset[c];
  }

  std::vector<double> batch_mean = mean;
  std::vector<double> batch_variance = variance;
  std::vector<double> saved_mean = mean;
  std::vector<double> saved_variance = variance;
  if (x.num_elements() == 0) {
    const std::vector<double> nan(channels, std::numeric_limits<double>::quiet_NaN());
    batch_mean = batch_variance = saved_mean = saved_variance = nan;
  } else if (training) {
    // Bessel's correction, skipped for a single element as TensorFlow does.
    const double adjust = static_cast<double>(n) / static_cast<double>(n > 1 ? n - 1 : 1);
    for (int64_t c = 0; c < channels; ++c) {
      if (f == 1.0) {
        batch_variance[c] = variance[c] * adjust;
      } else {
        batch_mean[c] = (1 - f) * old_mean[c] + f * mean[c];
        batch_variance[c] = (1 - f) * old_variance[c] + f * adjust * variance[c];
      }
    }
  }

  DFC_ASSIGN_OR_RETURN(Tensor y_out, FromDoubles(ctx, x.dtype(), x.shape(), y));
  ctx.set_output(0, std::move(y_out));
  const Shape stats_shape = ctx.input(1).shape();
  DFC_RETURN_IF_ERROR(SetFloatOutputs(
      ctx, 1, stats_shape, {&batch_mean, &batch_variance, &saved_mean, &saved_variance}));
  if (version == 3) ctx.set_output(5, Tensor::Scalar<float>(0.0f));
  return absl::OkStatus();
}

// FusedBatchNormGrad{,V2,V3}(y_backprop, x, scale, reserve_space_1, reserve_space_2
// [, reserve_space_3]) -> (x_backprop, scale_backprop, offset_backprop, reserve_space_4,
// reserve_space_5). reserve_space_1 and _2 are the mean and variance the forward pass used
// (batch mean and biased variance in training, the population ones in inference);
// reserve_space_3 is not read; reserve_space_4 and _5 are empty float vectors.
//
// With xc = x - mean, r = 1 / sqrt(variance + epsilon), sums and means over a channel:
//   offset_backprop = sum(dy), scale_backprop = sum(dy * xc) * r,
//   training:  x_backprop = scale * r * (dy - mean(dy) - xc * r^2 * mean(dy * xc)),
//   inference: x_backprop = dy * scale * r.
// An empty x gives zero scale and offset gradients. (TensorFlow's CPU kernel accepts only NHWC
// in inference; the formula is the same for every layout and dfc computes all of them.)
absl::Status FusedBatchNormGradKernel(KernelContext& ctx, int version) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, version == 3 ? 6 : 5));
  for (int i : {0, 1}) {
    DFC_RETURN_IF_ERROR(CheckDType(ctx, i, BatchNormXTypes(version)));
  }
  for (int i = 2; i < ctx.num_inputs(); ++i) {
    DFC_RETURN_IF_ERROR(CheckDType(ctx, i, kFloatOnly));
  }
  DFC_ASSIGN_OR_RETURN(float epsilon, ctx.node().GetFloat("epsilon", 0.0001f));
  DFC_ASSIGN_OR_RETURN(bool training, ctx.node().GetBool("is_training", true));
  const Tensor& dy_in = ctx.input(0);
  const Tensor& x = ctx.input(1);
  if (dy_in.dtype() != x.dtype() || dy_in.shape() != x.shape()) {
    return ctx.Error(absl::StrCat("y_backprop and x must have the same dtype and shape, got ",
                                  dy_in.DebugType(), " and ", x.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(ChannelLayout layout, ReadChannelLayout(ctx, x, "x"));
  const int64_t channels = layout.channels;
  for (auto [i, name] : {std::pair{2, "scale"}, {3, "reserve_space_1"}, {4, "reserve_space_2"}}) {
    DFC_RETURN_IF_ERROR(CheckChannelVector(ctx, i, name, channels));
  }

  const std::vector<double> dy = AsDoubles(dy_in);
  const std::vector<double> xs = AsDoubles(x);
  const std::vector<double> scale = AsDoubles(ctx.input(2));
  const std::vector<double> mean = AsDoubles(ctx.input(3));
  const std::vector<double> variance = AsDoubles(ctx.input(4));
  const int64_t n = channels > 0 ? x.num_elements() / channels : 0;
  std::vector<double> r(channels);
  for (int64_t c = 0; c < channels; ++c) r[c] = 1 / std::sqrt(variance[c] + epsilon);

  std::vector<double> sum_dy(channels, 0.0);
  std::vector<double> sum_dy_xc(channels, 0.0);
  for (int64_t k = 0; k < x.num_elements(); ++k) {
    const int64_t c = layout.Channel(k);
    sum_dy[c] += dy[k];
    sum_dy_xc[c] += dy[k] * (xs[k] - mean[c]);
  }
  std::vector<double> dx(x.num_elements());
  for (int64_t k = 0; k < x.num_elements(); ++k) {
    const int64_t c = layout.Channel(k);
    if (training) {
      const double xc = xs[k] - mean[c];
      const double mean_dy = sum_dy[c] / static_cast<double>(n);
      const double mean_dy_xc = sum_dy_xc[c] / static_cast<double>(n);
      dx[k] = scale[c] * r[c] * (dy[k] - mean_dy - xc * r[c] * r[c] * mean_dy_xc);
    } else {
      dx[k] = dy[k] * scale[c] * r[c];
    }
  }
  std::vector<double> scale_backprop(channels, 0.0);
  if (x.num_elements() > 0) {
    for (int64_t c = 0; c < channels; ++c) scale_backprop[c] = sum_dy_xc[c] * r[c];
  }

  DFC_ASSIGN_OR_RETURN(Tensor dx_out, FromDoubles(ctx, x.dtype(), x.shape(), dx));
  ctx.set_output(0, std::move(dx_out));
  DFC_RETURN_IF_ERROR(SetFloatOutputs(ctx, 1, ctx.input(2).shape(), {&scale_backprop, &sum_dy}));
  ctx.set_output(3, Tensor::Zeros(DType::kFloat, {0}));
  ctx.set_output(4, Tensor::Zeros(DType::kFloat, {0}));
  return absl::OkStatus();
}

// LRN's attributes, with TensorFlow's defaults.
struct LrnParams {
  int64_t radius = 5;
  double bias = 1;
  double alpha = 1;
  double beta = 0.5;
};

absl::StatusOr<LrnParams> ReadLrnParams(const KernelContext& ctx) {
  LrnParams p;
  absl::StatusOr<int64_t> radius = ctx.node().GetInt("depth_radius", 5);
  DFC_RETURN_IF_ERROR(radius.status());
  if (*radius < 0 || *radius >= std::numeric_limits<int32_t>::max()) {
    return ctx.Error(absl::StrCat("depth_radius must be in [0, 2^31 - 1), got ", *radius));
  }
  p.radius = *radius;
  for (auto [key, fallback, field] :
       {std::tuple{"bias", 1.0f, &p.bias}, {"alpha", 1.0f, &p.alpha}, {"beta", 0.5f, &p.beta}}) {
    DFC_ASSIGN_OR_RETURN(float v, ctx.node().GetFloat(key, fallback));
    *field = v;
  }
  return p;
}

// Fails unless input `i` (named `what`) has rank 4.
absl::Status CheckRank4(const KernelContext& ctx, int i, absl::string_view what) {
  if (ctx.input(i).rank() == 4) return absl::OkStatus();
  return ctx.Error(absl::StrCat(what, " must have rank 4 (NHWC), got ", ctx.input(i).DebugType()));
}

// The window of channel d in a row of `depth`: [begin, end).
struct DepthWindow {
  int64_t begin;
  int64_t end;
};
DepthWindow WindowOf(int64_t d, int64_t depth, int64_t radius) {
  return {std::max<int64_t>(0, d - radius), std::min<int64_t>(depth, d + radius + 1)};
}

// bias + alpha * sum(x[j]^2 for j in d's window): the norm of channel d of a row.
double Norm(const double* row, int64_t d, int64_t depth, const LrnParams& p) {
  const DepthWindow w = WindowOf(d, depth, p.radius);
  double sum = 0;
  for (int64_t j = w.begin; j < w.end; ++j) sum += row[j] * row[j];
  return p.bias + p.alpha * sum;
}

// LRN(input), over the last dimension of an NHWC input: out = in / norm^beta.
absl::Status LrnKernel(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, kHalfOrFloat));
  DFC_RETURN_IF_ERROR(CheckRank4(ctx, 0, "input"));
  DFC_ASSIGN_OR_RETURN(LrnParams p, ReadLrnParams(ctx));
  const Tensor& x = ctx.input(0);
  const std::vector<double> in = AsDoubles(x);
  const int64_t depth = x.dim(3);
  std::vector<double> out(in.size());
  for (int64_t base = 0; base < x.num_elements(); base += depth) {
    for (int64_t d = 0; d < depth; ++d) {
      out[base + d] = in[base + d] * std::pow(Norm(&in[base], d, depth, p), -p.beta);
    }
  }
  DFC_ASSIGN_OR_RETURN(Tensor y, FromDoubles(ctx, x.dtype(), x.shape(), out));
  ctx.set_output(0, std::move(y));
  return absl::OkStatus();
}

// LRNGrad(input_grads, input_image, output_image), TensorFlow's formula: for each channel j
// and each k in j's window, the gradient of k gets
//   input_grads[j] * ([k == j] norm_j^-beta - 2 alpha beta input[k] output[j] / norm_j).
absl::Status LrnGradKernel(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  const char* const names[] = {"input_grads", "input_image", "output_image"};
  for (int i = 0; i < 3; ++i) {
    DFC_RETURN_IF_ERROR(CheckDType(ctx, i, kHalfOrFloat));
    DFC_RETURN_IF_ERROR(CheckRank4(ctx, i, names[i]));
  }
  const Tensor& grads = ctx.input(0);
  for (int i : {1, 2}) {
    if (ctx.input(i).dtype() != grads.dtype() || ctx.input(i).shape() != grads.shape()) {
      return ctx.Error(absl::StrCat(names[i], " must have input_grads' dtype and shape ",
                                    grads.DebugType(), ", got ", ctx.input(i).DebugType()));
    }
  }
  DFC_ASSIGN_OR_RETURN(LrnParams p, ReadLrnParams(ctx));
  const std::vector<double> dy = AsDoubles(grads);
  const std::vector<double> in = AsDoubles(ctx.input(1));
  const std::vector<double> out = AsDoubles(ctx.input(2));
  const int64_t depth = grads.dim(3);
  std::vector<double> dx(in.size(), 0.0);
  for (int64_t base = 0; base < grads.num_elements(); base += depth) {
    for (int64_t j = 0; j < depth; ++j) {
      const double norm = Norm(&in[base], j, depth, p);
      const DepthWindow w = WindowOf(j, depth, p.radius);
      for (int64_t k = w.begin; k < w.end; ++k) {
        double d = -2 * p.alpha * p.beta * in[base + k] * out[base + j] / norm;
        if (k == j) d += std::pow(norm, -p.beta);
        dx[base + k] += d * dy[base + j];
      }
    }
  }
  DFC_ASSIGN_OR_RETURN(Tensor result, FromDoubles(ctx, grads.dtype(), grads.shape(), dx));
  ctx.set_output(0, std::move(result));
  return absl::OkStatus();
}

}  // namespace

void RegisterNormalizationKernels(KernelRegistry& registry) {
  const char* const forward[] = {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"};
  const char* const backward[] = {"FusedBatchNormGrad", "FusedBatchNormGradV2",
                                  "FusedBatchNormGradV3"};
  for (int version = 1; version <= 3; ++version) {
    registry.Register(forward[version - 1],
                      [version](KernelContext& ctx) { return FusedBatchNormKernel(ctx, version); });
    registry.Register(backward[version - 1], [version](KernelContext& ctx) {
      return FusedBatchNormGradKernel(ctx, version);
    });
  }
  registry.Register("LRN", LrnKernel);
  registry.Register("LRNGrad", LrnGradKernel);
}

}  // namespace dfc::reference
