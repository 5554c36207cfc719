// Reference kernels for the tail's random ops, drawing TensorFlow's own numbers from its Philox
// streams (philox.h) as its CPU kernels do:
//  - RandomShuffle: Fisher-Yates over the first dimension, swapping i with i + word % (n - i),
//    from ceil((n - 1) / 4) reserved blocks read one 32-bit word at a time;
//  - RandomPoissonV2 and RandomGamma: 256 blocks reserved per output; output k (rate- or
//    alpha-major) starts its own copy of the generator 256 * k blocks on, and draws Knuth's
//    product of uniforms (rate < 10), Hormann's transformed rejection (rate >= 10), or
//    Marsaglia and Tsang's normal-uniform rejection (gamma);
//  - Multinomial: one double per sample (two words) against each row's unnormalised CDF, the
//    rows one after another (TensorFlow's single-shard order);
//  - StatelessRandomUniform/Normal/TruncatedNormal: RandomUniform's fill, from a key and counter
//    that the seed input is scrambled into.
// The stateful ops draw from the node's stream (ctx.rng()), or without a session from a fresh
// stream of the node's seeds, as random.cc's.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/half.h"
#include "runtime/reference/elementwise_util.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"
#include "runtime/reference/philox.h"
#include "runtime/reference/reduction_util.h"

namespace dfc::reference {
namespace {

// A copy of the node's stream where this run starts; the stream moves `blocks` blocks on.
Philox ReserveBlocks(KernelContext& ctx, uint64_t blocks) {
  Philox local;
  Philox* stream = ctx.rng();
  if (stream == nullptr) {
    local = NodePhilox(ctx.node());
    stream = &local;
  }
  const Philox reserved = *stream;
  stream->Skip(blocks);
  return reserved;
}

// TensorFlow's UniformDistribution<Philox, CT> as its rejection samplers read it: one block
// gives 4 floats or 2 doubles, which are then taken from the last to the first.
template <typename CT>
class Uniforms {
 public:
  explicit Uniforms(Philox& gen) : gen_(gen) {}
  CT Next() {
    if (remaining_ == 0) {
      const Philox::Block b = gen_.Next();
      if constexpr (std::is_same_v<CT, float>) {
        values_ = {Uint32ToFloat(b[0]), Uint32ToFloat(b[1]), Uint32ToFloat(b[2]),
                   Uint32ToFloat(b[3])};
        remaining_ = 4;
      } else {
        values_ = {Uint64ToDouble(b[0], b[1]), Uint64ToDouble(b[2], b[3]), 0, 0};
        remaining_ = 2;
      }
    }
    return values_[--remaining_];
  }

 private:
  Philox& gen_;
  std::array<CT, 4> values_ = {};
  int remaining_ = 0;
};

// Output shape of the ops that draw `shape` samples per parameter: shape ++ params.shape.
absl::StatusOr<Shape> SamplesShape(const KernelContext& ctx, const Tensor& params) {
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadIndexVector(ctx, 0, "shape"));
  Shape out = std::move(shape);
  out.insert(out.end(), params.shape().begin(), params.shape().end());
  return out;
}

// Stores a float16, float32 or float64 value computed as double.
void StoreAt(Tensor& out, int64_t i, double v) {
  switch (out.dtype()) {
    case DType::kHalf:
    case DType::kFloat:
    case DType::kDouble:
      SetFromDouble(out, i, v);
      return;
    case DType::kInt32:
      out.mutable_data<int32_t>()[i] = static_cast<int32_t>(v);
      return;
    default:
      out.mutable_data<int64_t>()[i] = static_cast<int64_t>(v);
      return;
  }
}

// --- RandomShuffle -----------------------------------------------------------------------------

// RandomShuffle(value): a permutation of value's first dimension.
absl::Status RandomShuffle(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  const Tensor& in = ctx.input(0);
  if (!IsSupported(in.dtype())) {
    return ctx.Error(absl::StrCat("cannot shuffle ", in.DebugType(), ": not a number or bool"));
  }
  if (in.rank() == 0) {
    return ctx.Error(absl::StrCat("value must have rank >= 1, got ", in.DebugType()));
  }
  if (in.num_elements() <= 1 || in.dim(0) <= 1) {
    // As TensorFlow: nothing to permute, and no numbers drawn.
    ctx.set_output(0, in);
    return absl::OkStatus();
  }
  const int64_t n = in.dim(0);
  PhiloxWords words(ReserveBlocks(ctx, static_cast<uint64_t>((n - 1 + 3) / 4)));
  std::vector<int64_t> perm(n);
  for (int64_t i = 0; i < n; ++i) perm[i] = i;
  for (int64_t i = 0; i + 1 < n; ++i) {
    // TensorFlow takes a 64-bit draw (two words) when the range does not fit 32 bits.
    const uint64_t range = static_cast<uint64_t>(n - i);
    uint64_t r;
    if (range <= std::numeric_limits<uint32_t>::max()) {
      r = words.Next() % static_cast<uint32_t>(range);
    } else {
      const uint64_t lo = words.Next();
      r = (lo | static_cast<uint64_t>(words.Next()) << 32) % range;
    }
    std::swap(perm[i], perm[i + static_cast<int64_t>(r)]);
  }
  Tensor out = Tensor::Zeros(in.dtype(), in.shape());
  const size_t row = static_cast<size_t>(in.num_elements() / n) * SizeOf(in.dtype());
  const auto* src = static_cast<const unsigned char*>(in.raw_data());
  auto* dst = static_cast<unsigned char*>(out.mutable_raw_data());
  for (int64_t i = 0; i < n; ++i) std::copy_n(src + perm[i] * row, row, dst + i * row);
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- RandomPoissonV2 ---------------------------------------------------------------------------

// One Poisson sample of `rate` from its own generator, computed in CT: TensorFlow computes in
// double whatever the rate's dtype (its float32 rates draw double uniforms, two per block).
template <typename CT>
CT PoissonSample(CT rate, Philox gen) {
  Uniforms<CT> uniform(gen);
  if (std::isnan(rate)) return rate;
  if (rate < CT(10)) {
    // Knuth: the number of uniforms whose running product stays above e^-rate.
    const CT exp_neg_rate = std::exp(-rate);
    CT prod = 1;
    CT x = 0;
    while (true) {
      prod = prod * uniform.Next();
      if (prod <= exp_neg_rate) return x;
      x += 1;
    }
  }
  // Hormann's transformed rejection, with his constants.
  const CT log_rate = std::log(rate);
  const CT b = CT(0.931) + CT(2.53) * std::sqrt(rate);
  const CT a = CT(-0.059) + CT(0.02483) * b;
  const CT inv_alpha = CT(1.1239) + CT(1.1328) / (b - CT(3.4));
  while (true) {
    const CT u = uniform.Next() - CT(0.5);
    const CT v = uniform.Next();
    const CT u_shifted = CT(0.5) - std::abs(u);
    const CT k = std::floor((CT(2) * a / u_shifted + b) * u + rate + CT(0.43));
    if (u_shifted >= CT(0.07) && v <= CT(0.9277) - CT(3.6224) / (b - CT(2))) return k;
    if (k < 0 || (u_shifted < CT(0.013) && v > u_shifted)) continue;
    const CT s = std::log(v * inv_alpha / (a / (u_shifted * u_shifted) + b));
    const CT t = -rate + k * log_rate - std::lgamma(k + 1);
    if (s <= t) return k;
  }
}

// RandomPoissonV2(shape, rate) -> dtype [shape ++ rate.shape].
absl::Status RandomPoissonV2(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  const Tensor& rate = ctx.input(1);
  DFC_RETURN_IF_ERROR(CheckDType(
      ctx, 1, {DType::kHalf, DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64}));
  DFC_ASSIGN_OR_RETURN(DType dtype, ctx.node().GetType("dtype", DType::kInt64));
  if (!IsFloating(dtype) && dtype != DType::kInt32 && dtype != DType::kInt64) {
    return ctx.Error(absl::StrCat("dtype must be float16, float32, float64, int32 or int64, got ",
                                  DTypeName(dtype)));
  }
  DFC_ASSIGN_OR_RETURN(Shape shape, SamplesShape(ctx, rate));
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, dtype, shape));
  const int64_t num_rate = rate.num_elements();
  const int64_t num_samples = num_rate == 0 ? 0 : out.num_elements() / num_rate;
  if (out.num_elements() > 0) {
    const Philox base = ReserveBlocks(ctx, out.num_elements() * kBlocksPerOutput);
    for (int64_t r = 0; r < num_rate; ++r) {
      for (int64_t s = 0; s < num_samples; ++s) {
        Philox gen = base;
        gen.Skip(kBlocksPerOutput * static_cast<uint64_t>(r * num_samples + s));
        StoreAt(out, s * num_rate + r, PoissonSample<double>(rate.ElementAsDouble(r), gen));
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- RandomGamma -------------------------------------------------------------------------------

// One Gamma(alpha, 1) sample from its own generator, in double: an exponential for alpha 1,
// otherwise Marsaglia and Tsang's method (alpha < 1 boosted by one and scaled by
// uniform^(1 / alpha)). Normals come a block (two doubles) at a time, taken last first.
double GammaSample(double alpha, Philox gen) {
  Uniforms<double> uniform(gen);
  if (alpha == 1.0) return -std::log1p(-uniform.Next());
  const bool below_one = alpha < 1;
  const double d = alpha + (below_one ? 2.0 / 3 : -1.0 / 3);
  const double c = 1.0 / 3 / std::sqrt(d);
  std::array<double, 2> normals = {};
  int normals_left = 0;
  while (true) {
    if (normals_left == 0) {
      const Philox::Block b = gen.Next();
      normals = BoxMullerDouble(b[0], b[1], b[2], b[3]);
      normals_left = 2;
    }
    const double x = normals[--normals_left];
    double v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = uniform.Next();
    if (u < 1 - 0.0331 * (x * x) * (x * x) ||
        std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) {
      double result = d * v;
      if (below_one) result *= std::pow(uniform.Next(), 1 / alpha);
      return result;
    }
  }
}

// RandomGamma(shape, alpha) -> T [shape ++ alpha.shape].
absl::Status RandomGamma(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 1, {DType::kHalf, DType::kFloat, DType::kDouble}));
  const Tensor& alpha = ctx.input(1);
  DFC_ASSIGN_OR_RETURN(Shape shape, SamplesShape(ctx, alpha));
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, alpha.dtype(), shape));
  const int64_t num_alpha = alpha.num_elements();
  const int64_t num_samples = num_alpha == 0 ? 0 : out.num_elements() / num_alpha;
  if (out.num_elements() > 0) {
    const Philox base = ReserveBlocks(ctx, out.num_elements() * kBlocksPerOutput);
    for (int64_t a = 0; a < num_alpha; ++a) {
      const double value = alpha.ElementAsDouble(a);
      for (int64_t s = 0; s < num_samples; ++s) {
        Philox gen = base;
        gen.Skip(kBlocksPerOutput * static_cast<uint64_t>(a * num_samples + s));
        // As TensorFlow, a NaN or non-positive alpha goes through the same arithmetic (which
        // ends, in NaN or in a meaningless value).
        StoreAt(out, s * num_alpha + a, GammaSample(value, gen));
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- Multinomial -------------------------------------------------------------------------------

// Multinomial(logits [batch, num_classes], num_samples) -> output_dtype [batch, num_samples]:
// each sample is the first class whose running sum of exp(logit - max) exceeds a uniform
// double times the total; non-finite logits add nothing.
absl::Status Multinomial(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kFloats));
  const Tensor& logits = ctx.input(0);
  if (logits.rank() != 2) {
    return ctx.Error(absl::StrCat("logits must be [batch, num_classes], got ", logits.DebugType()));
  }
  if (ctx.input(1).dtype() != DType::kInt32 || ctx.input(1).rank() != 0) {
    return ctx.Error(
        absl::StrCat("num_samples must be an int32 scalar, got ", ctx.input(1).DebugType()));
  }
  const int64_t num_samples = ctx.input(1).ElementAsInt64(0);
  if (num_samples < 0) {
    return ctx.Error(absl::StrCat("num_samples must be non-negative, got ", num_samples));
  }
  DFC_ASSIGN_OR_RETURN(DType out_type, ctx.node().GetType("output_dtype", DType::kInt64));
  if (out_type != DType::kInt32 && out_type != DType::kInt64) {
    return ctx.Error(
        absl::StrCat("output_dtype must be int32 or int64, got ", DTypeName(out_type)));
  }
  const int64_t batch = logits.dim(0), classes = logits.dim(1);
  if (classes == 0) return ctx.Error("logits must have at least one class");
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, out_type, {batch, num_samples}));
  if (batch > 0 && num_samples > 0) {
    // Doubles take two words each: TensorFlow reserves 2 * ceil4(num_samples) per row.
    const int64_t per_row = (num_samples + 3) / 4 * 4 * 2;
    PhiloxWords words(ReserveBlocks(ctx, batch * per_row * kBlocksPerOutput));
    std::vector<double> cdf(classes);
    for (int64_t b = 0; b < batch; ++b) {
      double max = std::numeric_limits<double>::lowest();
      for (int64_t j = 0; j < classes; ++j) {
        const double v = logits.ElementAsDouble(b * classes + j);
        if (std::isfinite(v)) max = std::max(max, v);
      }
      double total = 0;
      for (int64_t j = 0; j < classes; ++j) {
        const double v = logits.ElementAsDouble(b * classes + j);
        if (std::isfinite(v)) total += std::exp(v - max);
        cdf[j] = total;
      }
      for (int64_t s = 0; s < num_samples; ++s) {
        const uint32_t hi = words.Next();
        const uint32_t lo = words.Next();
        const double to_find = Uint64ToDouble(hi, lo) * total;
        const int64_t k = std::upper_bound(cdf.begin(), cdf.end(), to_find) - cdf.begin();
        StoreAt(out, b * num_samples + s, static_cast<double>(k));
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- Stateless random ----------------------------------------------------------------------------

// TensorFlow's key and counter for a stateless op's seed [2]: the two (sign-extended) 64-bit
// seeds form a counter, and one Philox round under a fixed key scrambles them into the key
// (words 0, 1) and the counter's high half (words 2, 3).
absl::StatusOr<Philox> StatelessGenerator(const KernelContext& ctx) {
  const Tensor& seed = ctx.input(1);
  if ((seed.dtype() != DType::kInt32 && seed.dtype() != DType::kInt64) ||
      seed.shape() != Shape{2}) {
    return ctx.Error(
        absl::StrCat("seed must be an int32 or int64 vector of 2, got ", seed.DebugType()));
  }
  const uint64_t seed0 = static_cast<uint64_t>(seed.ElementAsInt64(0));
  const uint64_t seed1 = static_cast<uint64_t>(seed.ElementAsInt64(1));
  const Philox::Block counter = {static_cast<uint32_t>(seed0), static_cast<uint32_t>(seed0 >> 32),
                                 static_cast<uint32_t>(seed1), static_cast<uint32_t>(seed1 >> 32)};
  const Philox::Block mix = Philox::Compute(counter, {0x3ec8f720, 0x02461e29});
  return Philox({0, 0, mix[2], mix[3]}, {mix[0], mix[1]});
}

template <RandomDistribution kDistribution>
absl::Status StatelessRandom(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadIndexVector(ctx, 0, "shape"));
  DFC_ASSIGN_OR_RETURN(DType dtype, ctx.node().GetType("dtype", DType::kFloat));
  if (!IsFloating(dtype)) {
    return ctx.Error(
        absl::StrCat("dtype must be float16, float32 or float64, got ", DTypeName(dtype)));
  }
  DFC_ASSIGN_OR_RETURN(Philox gen, StatelessGenerator(ctx));
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, dtype, shape));
  FillRandom(kDistribution, gen, out);
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterRandomTailKernels(KernelRegistry& registry) {
  registry.Register("RandomShuffle", RandomShuffle);
  registry.Register("RandomPoissonV2", RandomPoissonV2);
  registry.Register("RandomGamma", RandomGamma);
  registry.Register("Multinomial", Multinomial);
  registry.Register("StatelessRandomUniform", StatelessRandom<RandomDistribution::kUniform>);
  registry.Register("StatelessRandomNormal", StatelessRandom<RandomDistribution::kNormal>);
  registry.Register("StatelessTruncatedNormal",
                    StatelessRandom<RandomDistribution::kTruncatedNormal>);
}

}  // namespace dfc::reference
