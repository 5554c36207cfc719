// Tests of the normalisation reference kernels: hand-computed batch norms and LRNs, layouts
// against each other, the gradients against finite differences of a double-precision forward
// pass (itself checked against the forward op), and the errors.
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::dfc::testing::ExpectError;
using ::dfc::testing::HalfTensor;
using ::dfc::testing::MoveChannels;
using ::dfc::testing::RunOp;
using ::dfc::testing::RunOp1;
using ::dfc::testing::T1;
using ::dfc::testing::TN;
using ::dfc::testing::UniformFloats;
using ::dfc::testing::Values;
using ::dfc::testing::ValuesAsDouble;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::Pointwise;

constexpr double kFloatTol = 2e-6;

std::vector<Tensor> RunAll(const std::string& op, std::vector<Tensor> inputs, AttrMap attrs) {
  absl::StatusOr<std::vector<Tensor>> out = RunOp(op, std::move(inputs), std::move(attrs));
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *std::move(out) : std::vector<Tensor>{};
}

Tensor Empty() { return Tensor::Zeros(DType::kFloat, {0}); }

// ---------------------------------------------------------------- FusedBatchNorm

AttrMap BnAttrs(bool training, float epsilon = 0, std::string format = "NHWC") {
  return {{"is_training", training}, {"epsilon", epsilon}, {"data_format", std::move(format)}};
}

TEST(FusedBatchNormTest, InferenceUsesTheGivenStatistics) {
  // Channel 0: x 1, 3, mean 1, variance 4, scale 2, offset 0.5; channel 1: x 2, 6, mean 4,
  // variance 16, scale 0.5, offset -1.
  const Tensor x = TN<float>({1, 2, 3, 6}, {1, 1, 2, 2});
  const Tensor mean = T1<float>({1, 4});
  const Tensor variance = T1<float>({4, 16});
  const std::vector<Tensor> out =
      RunAll("FusedBatchNormV3", {x, T1<float>({2, 0.5}), T1<float>({0.5, -1}), mean, variance},
             BnAttrs(false));
  ASSERT_EQ(out.size(), 6u);
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(0.5, -1.25, 2.5, -0.75));
  for (int i : {1, 3}) EXPECT_TRUE(out[i].BitwiseEqual(mean)) << i;
  for (int i : {2, 4}) EXPECT_TRUE(out[i].BitwiseEqual(variance)) << i;
  EXPECT_EQ(out[5].shape(), Shape({}));
}

TEST(FusedBatchNormTest, TrainingComputesBatchStatistics) {
  // Channel 0: 1 2 3 4 (mean 2.5, biased variance 1.25, unbiased 5/3); channel 1: 0 0 0 8
  // (mean 2, biased 12, unbiased 16). Running mean and variance may be empty.
  const Tensor x = TN<float>({1, 0, 2, 0, 3, 0, 4, 8}, {1, 1, 4, 2});
  const Tensor ones = T1<float>({1, 1});
  const Tensor zeros = T1<float>({0, 0});
  for (const std::string op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    const std::vector<Tensor> out = RunAll(op, {x, ones, zeros, Empty(), Empty()}, BnAttrs(true));
    ASSERT_EQ(out.size(), op == "FusedBatchNormV3" ? 6u : 5u);
    const double s0 = 1 / std::sqrt(1.25);
    const double s1 = 1 / std::sqrt(12.0);
    EXPECT_THAT(ValuesAsDouble(out[0]),
                Pointwise(DoubleNear(kFloatTol), {-1.5 * s0, -2 * s1, -0.5 * s0, -2 * s1, 0.5 * s0,
                                                  -2 * s1, 1.5 * s0, 6 * s1}));
    EXPECT_THAT(ValuesAsDouble(out[1]), ElementsAre(2.5, 2));
    EXPECT_THAT(ValuesAsDouble(out[2]), Pointwise(DoubleNear(kFloatTol), {5 / 3.0, 16.0}));
    EXPECT_THAT(ValuesAsDouble(out[3]), ElementsAre(2.5, 2));
    EXPECT_THAT(ValuesAsDouble(out[4]), ElementsAre(1.25, 12));
    if (out.size() == 6) {
      EXPECT_THAT(Values<float>(out[5]), ElementsAre(0));
    }
  }
}

TEST(FusedBatchNormTest, ExponentialAverageBlendsTheRunningStatistics) {
  const Tensor x = TN<float>({1, 0, 2, 0, 3, 0, 4, 8}, {1, 1, 4, 2});
  AttrMap attrs = BnAttrs(true);
  attrs["exponential_avg_factor"] = 0.25f;
  const std::vector<Tensor> out = RunAll(
      "FusedBatchNormV3",
      {x, T1<float>({1, 1}), T1<float>({0, 0}), T1<float>({1, 1}), T1<float>({2, 2})}, attrs);
  ASSERT_EQ(out.size(), 6u);
  EXPECT_THAT(ValuesAsDouble(out[1]), Pointwise(DoubleNear(kFloatTol), {1.375, 1.25}));
  EXPECT_THAT(ValuesAsDouble(out[2]),
              Pointwise(DoubleNear(kFloatTol), {1.5 + 0.25 * 5 / 3.0, 1.5 + 0.25 * 16}));
  EXPECT_THAT(ValuesAsDouble(out[3]), ElementsAre(2.5, 2));
  EXPECT_THAT(ValuesAsDouble(out[4]), ElementsAre(1.25, 12));
  // f != 1 reads the running statistics, which must then be there.
  ExpectError(
      RunOp("FusedBatchNormV3", {x, T1<float>({1, 1}), T1<float>({0, 0}), Empty(), Empty()}, attrs),
      "with exponential_avg_factor != 1, mean must have one element per channel");
}

TEST(FusedBatchNormTest, OneElementPerChannelSkipsBesselsCorrection) {
  const std::vector<Tensor> out = RunAll(
      "FusedBatchNorm",
      {TN<float>({3, 5}, {1, 1, 1, 2}), T1<float>({1, 1}), T1<float>({7, 8}), Empty(), Empty()},
      BnAttrs(true, 0.25f));
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(7, 8));
  EXPECT_THAT(Values<float>(out[2]), ElementsAre(0, 0));
}

TEST(FusedBatchNormTest, EmptyInputGivesNanStatistics) {
  const Tensor x = Tensor::Zeros(DType::kFloat, {0, 2, 2, 3});
  const Tensor c3 = T1<float>({1, 1, 1});
  const std::vector<Tensor> out = RunAll("FusedBatchNormV3", {x, c3, c3, c3, c3}, BnAttrs(false));
  EXPECT_EQ(out[0].shape(), x.shape());
  for (int i = 1; i < 5; ++i) {
    EXPECT_EQ(out[i].shape(), Shape({3}));
    EXPECT_TRUE(std::isnan(out[i].data<float>()[0])) << i;
  }
}

TEST(FusedBatchNormTest, HalfInputFloatStatistics) {
  const Tensor x = HalfTensor({1, 2, 3, 4}, {1, 2, 2, 1});
  const std::vector<Tensor> out = RunAll(
      "FusedBatchNormV2", {x, T1<float>({2}), T1<float>({1}), Empty(), Empty()}, BnAttrs(true));
  EXPECT_EQ(out[0].dtype(), DType::kHalf);
  EXPECT_EQ(out[1].dtype(), DType::kFloat);
  // 1.5 / sqrt(1.25) * 2 + 1 = 3.683..., to the nearest half (2^-8 apart at 3.68).
  EXPECT_THAT(ValuesAsDouble(out[0]),
              Pointwise(DoubleNear(1 / 512.0), {1 - 3 / std::sqrt(1.25), 1 - 1 / std::sqrt(1.25),
                                                1 + 1 / std::sqrt(1.25), 1 + 3 / std::sqrt(1.25)}));
  EXPECT_THAT(ValuesAsDouble(out[1]), ElementsAre(2.5));
}

class BatchNormLayoutTest : public ::testing::TestWithParam<std::tuple<bool, int>> {};

TEST_P(BatchNormLayoutTest, ChannelsFirstIsChannelsLastTransposed) {
  const auto [training, rank] = GetParam();
  const Shape shape = rank == 4 ? Shape{2, 3, 4, 3} : Shape{2, 2, 3, 2, 3};
  const Tensor x = UniformFloats(shape, 1, -2, 2);
  const Tensor scale = UniformFloats({3}, 2, 0.5, 2);
  const Tensor offset = UniformFloats({3}, 3, -1, 1);
  const Tensor mean = UniformFloats({3}, 4, -1, 1);
  const Tensor variance = UniformFloats({3}, 5, 0.5, 2);
  const std::vector<Tensor> last = RunAll("FusedBatchNormV3", {x, scale, offset, mean, variance},
                                          BnAttrs(training, 0.001f, rank == 4 ? "NHWC" : "NDHWC"));
  const std::vector<Tensor> first =
      RunAll("FusedBatchNormV3", {MoveChannels<float>(x, true), scale, offset, mean, variance},
             BnAttrs(training, 0.001f, rank == 4 ? "NCHW" : "NCDHW"));
  ASSERT_EQ(first.size(), 6u);
  ASSERT_EQ(last.size(), 6u);
  EXPECT_THAT(ValuesAsDouble(MoveChannels<float>(first[0], false)),
              Pointwise(DoubleNear(1e-6), ValuesAsDouble(last[0])));
  for (int i = 1; i < 5; ++i) {
    EXPECT_THAT(ValuesAsDouble(first[i]), Pointwise(DoubleNear(1e-6), ValuesAsDouble(last[i])));
  }

  const Tensor dy = UniformFloats(shape, 6, -1, 1);
  const std::vector<Tensor> grad_last =
      RunAll("FusedBatchNormGradV2", {dy, x, scale, mean, variance},
             BnAttrs(training, 0.001f, rank == 4 ? "NHWC" : "NDHWC"));
  const std::vector<Tensor> grad_first =
      RunAll("FusedBatchNormGradV2",
             {MoveChannels<float>(dy, true), MoveChannels<float>(x, true), scale, mean, variance},
             BnAttrs(training, 0.001f, rank == 4 ? "NCHW" : "NCDHW"));
  ASSERT_EQ(grad_first.size(), 5u);
  ASSERT_EQ(grad_last.size(), 5u);
  EXPECT_THAT(ValuesAsDouble(MoveChannels<float>(grad_first[0], false)),
              Pointwise(DoubleNear(1e-6), ValuesAsDouble(grad_last[0])));
  for (int i = 1; i < 3; ++i) {
    EXPECT_THAT(ValuesAsDouble(grad_first[i]),
                Pointwise(DoubleNear(1e-5), ValuesAsDouble(grad_last[i])));
  }
}

INSTANTIATE_TEST_SUITE_P(TrainingAndRank, BatchNormLayoutTest,
                         ::testing::Combine(::testing::Bool(), ::testing::Values(4, 5)));

// A training-mode batch norm in double over NHWC data with `channels` channels: y and the
// batch mean and biased variance.
struct Forward {
  std::vector<double> y;
  std::vector<double> mean;
  std::vector<double> variance;
};

Forward TrainingForward(const std::vector<double>& x, int channels,
                        const std::vector<double>& scale, const std::vector<double>& offset,
                        double epsilon) {
  const double n = static_cast<double>(x.size() / channels);
  Forward f{std::vector<double>(x.size()), std::vector<double>(channels, 0.0),
            std::vector<double>(channels, 0.0)};
  for (size_t k = 0; k < x.size(); ++k) f.mean[k % channels] += x[k] / n;
  for (size_t k = 0; k < x.size(); ++k) {
    const double d = x[k] - f.mean[k % channels];
    f.variance[k % channels] += d * d / n;
  }
  for (size_t k = 0; k < x.size(); ++k) {
    const int c = static_cast<int>(k % channels);
    f.y[k] = (x[k] - f.mean[c]) / std::sqrt(f.variance[c] + epsilon) * scale[c] + offset[c];
  }
  return f;
}

double Loss(const std::vector<double>& dy, const std::vector<double>& y) {
  double sum = 0;
  for (size_t k = 0; k < y.size(); ++k) sum += dy[k] * y[k];
  return sum;
}

// d/dx of sum(dy * y(x)) by central differences, for the gradient op to match.
TEST(FusedBatchNormGradTest, TrainingMatchesFiniteDifferences) {
  constexpr int kChannels = 3;
  constexpr float kEpsilon = 0.01f;
  const Tensor x_t = UniformFloats({2, 2, 3, kChannels}, 21, -2, 2);
  const Tensor scale_t = UniformFloats({kChannels}, 22, 0.5, 2);
  const Tensor offset_t = UniformFloats({kChannels}, 23, -1, 1);
  const Tensor dy_t = UniformFloats(x_t.shape(), 24, -1, 1);
  const std::vector<double> x = ValuesAsDouble(x_t);
  const std::vector<double> scale = ValuesAsDouble(scale_t);
  const std::vector<double> offset = ValuesAsDouble(offset_t);
  const std::vector<double> dy = ValuesAsDouble(dy_t);

  // The double forward pass is the op's.
  const Forward f = TrainingForward(x, kChannels, scale, offset, kEpsilon);
  const std::vector<Tensor> fwd = RunAll(
      "FusedBatchNormV3", {x_t, scale_t, offset_t, Empty(), Empty()}, BnAttrs(true, kEpsilon));
  ASSERT_EQ(fwd.size(), 6u);
  EXPECT_THAT(ValuesAsDouble(fwd[0]), Pointwise(DoubleNear(1e-6), f.y));

  const std::vector<Tensor> grad =
      RunAll("FusedBatchNormGradV3", {dy_t, x_t, scale_t, fwd[3], fwd[4], fwd[5]},
             BnAttrs(true, kEpsilon));
  ASSERT_EQ(grad.size(), 5u);
  constexpr double kStep = 1e-5;
  std::vector<double> numeric(x.size());
  for (size_t k = 0; k < x.size(); ++k) {
    std::vector<double> up = x, down = x;
    up[k] += kStep;
    down[k] -= kStep;
    numeric[k] = (Loss(dy, TrainingForward(up, kChannels, scale, offset, kEpsilon).y) -
                  Loss(dy, TrainingForward(down, kChannels, scale, offset, kEpsilon).y)) /
                 (2 * kStep);
  }
  EXPECT_THAT(ValuesAsDouble(grad[0]), Pointwise(DoubleNear(1e-5), numeric));
  // d/dscale = sum(dy * x_hat), d/doffset = sum(dy).
  std::vector<double> dscale(kChannels, 0.0), doffset(kChannels, 0.0);
  for (size_t k = 0; k < x.size(); ++k) {
    const int c = static_cast<int>(k % kChannels);
    dscale[c] += dy[k] * (f.y[k] - offset[c]) / scale[c];
    doffset[c] += dy[k];
  }
  EXPECT_THAT(ValuesAsDouble(grad[1]), Pointwise(DoubleNear(1e-5), dscale));
  EXPECT_THAT(ValuesAsDouble(grad[2]), Pointwise(DoubleNear(1e-5), doffset));
  EXPECT_EQ(grad[3].shape(), Shape({0}));
  EXPECT_EQ(grad[4].shape(), Shape({0}));
}

TEST(FusedBatchNormGradTest, InferenceIsTheLinearMapsGradient) {
  // Channel 0: mean 1, variance 4 (r = 1/2), scale 2; channel 1: mean 4, variance 16 (r = 1/4),
  // scale 0.5. x_backprop = dy * scale * r; scale_backprop = sum(dy * (x - mean)) * r.
  const Tensor x = TN<float>({1, 2, 3, 6}, {1, 1, 2, 2});
  const Tensor dy = TN<float>({1, 2, 3, 4}, {1, 1, 2, 2});
  for (const std::string op : {"FusedBatchNormGrad", "FusedBatchNormGradV2"}) {
    const std::vector<Tensor> out = RunAll(
        op, {dy, x, T1<float>({2, 0.5}), T1<float>({1, 4}), T1<float>({4, 16})}, BnAttrs(false));
    ASSERT_EQ(out.size(), 5u);
    EXPECT_THAT(Values<float>(out[0]), ElementsAre(1, 0.25, 3, 0.5));
    EXPECT_THAT(Values<float>(out[1]), ElementsAre((1 * 0 + 3 * 2) * 0.5, (2 * -2 + 4 * 2) * 0.25));
    EXPECT_THAT(Values<float>(out[2]), ElementsAre(4, 6));
  }
}

TEST(FusedBatchNormGradTest, EmptyInputGivesZeroGradients) {
  const Tensor x = Tensor::Zeros(DType::kFloat, {0, 2, 2, 2});
  const Tensor c2 = T1<float>({1, 1});
  const std::vector<Tensor> out = RunAll("FusedBatchNormGrad", {x, x, c2, c2, c2}, BnAttrs(true));
  EXPECT_EQ(out[0].shape(), x.shape());
  EXPECT_THAT(Values<float>(out[1]), ElementsAre(0, 0));
  EXPECT_THAT(Values<float>(out[2]), ElementsAre(0, 0));
}

// ---------------------------------------------------------------- LRN

AttrMap LrnAttrs(int64_t radius, float bias, float alpha, float beta) {
  return {{"depth_radius", radius}, {"bias", bias}, {"alpha", alpha}, {"beta", beta}};
}

// LRN in double over the last dimension.
std::vector<double> Lrn(const std::vector<double>& x, int depth, int radius, double bias,
                        double alpha, double beta) {
  std::vector<double> out(x.size());
  for (size_t base = 0; base < x.size(); base += depth) {
    for (int d = 0; d < depth; ++d) {
      double sum = 0;
      for (int j = std::max(0, d - radius); j < std::min(depth, d + radius + 1); ++j) {
        sum += x[base + j] * x[base + j];
      }
      out[base + d] = x[base + d] / std::pow(bias + alpha * sum, beta);
    }
  }
  return out;
}

TEST(LrnTest, HandComputed) {
  // Radius 1, bias 1, alpha 1, beta 1: norms 1 + 1 + 4, 1 + 1 + 4 + 9, 1 + 4 + 9.
  const Tensor x = TN<float>({1, 2, 3}, {1, 1, 1, 3});
  EXPECT_THAT(ValuesAsDouble(RunOp1("LRN", {x}, LrnAttrs(1, 1, 1, 1))),
              Pointwise(DoubleNear(1e-7), {1 / 6.0, 2 / 15.0, 3 / 14.0}));
  // The defaults: radius 5 covers every channel, bias 1, alpha 1, beta 0.5.
  EXPECT_THAT(
      ValuesAsDouble(RunOp1("LRN", {x})),
      Pointwise(DoubleNear(1e-7), {1 / std::sqrt(15.0), 2 / std::sqrt(15.0), 3 / std::sqrt(15.0)}));
  const Tensor h = RunOp1("LRN", {HalfTensor({1, 2, 3}, {1, 1, 1, 3})}, LrnAttrs(1, 1, 1, 1));
  EXPECT_EQ(h.dtype(), DType::kHalf);
  EXPECT_THAT(ValuesAsDouble(h), Pointwise(DoubleNear(1e-3), {1 / 6.0, 2 / 15.0, 3 / 14.0}));
}

TEST(LrnGradTest, MatchesFiniteDifferences) {
  constexpr int kDepth = 7;
  constexpr int kRadius = 2;
  constexpr float kBias = 1.5f, kAlpha = 0.25f, kBeta = 0.75f;
  const Tensor x_t = UniformFloats({2, 2, 1, kDepth}, 31, -2, 2);
  const Tensor dy_t = UniformFloats(x_t.shape(), 32, -1, 1);
  const AttrMap attrs = LrnAttrs(kRadius, kBias, kAlpha, kBeta);
  const std::vector<double> x = ValuesAsDouble(x_t);
  const std::vector<double> dy = ValuesAsDouble(dy_t);
  const auto lrn = [&](const std::vector<double>& v) {
    return Lrn(v, kDepth, kRadius, kBias, kAlpha, kBeta);
  };
  const Tensor y_t = RunOp1("LRN", {x_t}, attrs);
  EXPECT_THAT(ValuesAsDouble(y_t), Pointwise(DoubleNear(1e-6), lrn(x)));

  const Tensor grad = RunOp1("LRNGrad", {dy_t, x_t, y_t}, attrs);
  constexpr double kStep = 1e-6;
  std::vector<double> numeric(x.size());
  for (size_t k = 0; k < x.size(); ++k) {
    std::vector<double> up = x, down = x;
    up[k] += kStep;
    down[k] -= kStep;
    const std::vector<double> yu = lrn(up), yd = lrn(down);
    double diff = 0;
    for (size_t i = 0; i < x.size(); ++i) diff += dy[i] * (yu[i] - yd[i]);
    numeric[k] = diff / (2 * kStep);
  }
  EXPECT_THAT(ValuesAsDouble(grad), Pointwise(DoubleNear(2e-6), numeric));
}

// ---------------------------------------------------------------- errors

struct ErrorCase {
  std::string name;
  std::string op;
  std::vector<Tensor> inputs;
  AttrMap attrs;
  std::string needle;
};

class NormalizationErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(NormalizationErrorTest, NamesTheProblem) {
  const ErrorCase& c = GetParam();
  const absl::StatusOr<std::vector<Tensor>> result = RunOp(c.op, c.inputs, c.attrs);
  ExpectError(result, c.needle);
  if (!result.ok()) {
    EXPECT_THAT(std::string(result.status().message()), ::testing::HasSubstr("node \"node\""));
  }
}

std::vector<ErrorCase> ErrorCases() {
  const Tensor x = Tensor::Zeros(DType::kFloat, {1, 2, 2, 3});
  const Tensor c3 = T1<float>({1, 1, 1});
  const Tensor c2 = T1<float>({1, 1});
  const Tensor h = Tensor::Zeros(DType::kHalf, {1, 2, 2, 3});
  return {
      {"Rank3",
       "FusedBatchNormV3",
       {Tensor::Zeros(DType::kFloat, {2, 2, 3}), c3, c3, c3, c3},
       BnAttrs(false),
       "x must have rank 4 or 5"},
      {"ScaleSize",
       "FusedBatchNormV3",
       {x, c2, c3, c3, c3},
       BnAttrs(false),
       "scale must have one element per channel of x (3)"},
      {"InferenceNeedsMean",
       "FusedBatchNormV3",
       {x, c3, c3, Empty(), c3},
       BnAttrs(false),
       "in inference, mean must have one element per channel"},
      {"ScaleNotVector",
       "FusedBatchNorm",
       {x, Tensor::Zeros(DType::kFloat, {1, 3}), c3, c3, c3},
       BnAttrs(false),
       "scale must be a vector"},
      {"V1IsFloatOnly", "FusedBatchNorm", {h, c3, c3, c3, c3}, BnAttrs(false), "dtype float16"},
      {"UIsFloat",
       "FusedBatchNormV2",
       {h, T1<double>({1, 1, 1}), c3, c3, c3},
       BnAttrs(false),
       "input 1 has dtype float64"},
      {"Format",
       "FusedBatchNormV3",
       {x, c3, c3, c3, c3},
       BnAttrs(false, 0, "HWCN"),
       "data_format \"HWCN\""},
      {"FourInputs", "FusedBatchNormV3", {x, c3, c3, c3}, BnAttrs(false), "expects 5 inputs"},
      {"GradShapes",
       "FusedBatchNormGradV2",
       {Tensor::Zeros(DType::kFloat, {1, 2, 3, 3}), x, c3, c3, c3},
       BnAttrs(true),
       "y_backprop and x must have the same dtype and shape"},
      {"GradV3Inputs",
       "FusedBatchNormGradV3",
       {x, x, c3, c3, c3},
       BnAttrs(true),
       "expects 6 inputs"},
      {"GradReserveSize",
       "FusedBatchNormGrad",
       {x, x, c3, c2, c3},
       BnAttrs(true),
       "reserve_space_1 must have one element per channel"},
      {"LrnRank", "LRN", {Tensor::Zeros(DType::kFloat, {2, 3})}, {}, "input must have rank 4"},
      {"LrnDouble", "LRN", {Tensor::Zeros(DType::kDouble, {1, 1, 1, 3})}, {}, "dtype float64"},
      {"LrnRadius", "LRN", {x}, LrnAttrs(-1, 1, 1, 1), "depth_radius must be in [0"},
      {"LrnGradShapes",
       "LRNGrad",
       {x, x, Tensor::Zeros(DType::kFloat, {1, 2, 2, 2})},
       {},
       "output_image must have input_grads' dtype and shape"},
  };
}

INSTANTIATE_TEST_SUITE_P(Errors, NormalizationErrorTest, ::testing::ValuesIn(ErrorCases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace dfc
