// Tests of the activation gradient reference kernels (activation_grad.cc): hand-computed
// values, agreement with central differences of the reference forward ops, and errors.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::dfc::testing::ExpectError;
using ::dfc::testing::HalfTensor;
using ::dfc::testing::RunOp;
using ::dfc::testing::RunOp1;
using ::dfc::testing::T1;
using ::dfc::testing::TN;
using ::dfc::testing::Values;
using ::dfc::testing::ValuesAsDouble;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::Pointwise;

constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluScaleAlpha = 1.7580993408473768599402175208123;

// Where a gradient op's second input comes from: the forward op's input (features), or its
// output (y or outputs). Ops of the (y, dy) family also take the two inputs the other way round.
enum class Second { kFeatures, kOutputs, kYFirst };

struct GradCase {
  std::string grad_op;
  std::string forward_op;
  Second second;
  std::vector<double> x;  // points where the gradient is checked, away from kinks
  AttrMap attrs = {};
};

class FiniteDifferenceTest : public ::testing::TestWithParam<GradCase> {};

// grad_op(g, .) must be g times the slope of forward_op at x, measured by a central
// difference in float64.
TEST_P(FiniteDifferenceTest, MatchesCentralDifferenceOfTheForwardOp) {
  const GradCase& c = GetParam();
  constexpr double kH = 1e-6;
  std::vector<double> plus, minus;
  for (double x : c.x) {
    plus.push_back(x + kH);
    minus.push_back(x - kH);
  }
  const std::vector<double> f_plus = Values<double>(RunOp1(c.forward_op, {T1(plus)}, c.attrs));
  const std::vector<double> f_minus = Values<double>(RunOp1(c.forward_op, {T1(minus)}, c.attrs));
  const Tensor x = T1(c.x);
  const Tensor y = RunOp1(c.forward_op, {x}, c.attrs);
  for (double g : {1.0, -2.5}) {
    const Tensor grads = T1(std::vector<double>(c.x.size(), g));
    std::vector<Tensor> inputs;
    switch (c.second) {
      case Second::kFeatures:
        inputs = {grads, x};
        break;
      case Second::kOutputs:
        inputs = {grads, y};
        break;
      case Second::kYFirst:
        inputs = {y, grads};
        break;
    }
    const std::vector<double> got = Values<double>(RunOp1(c.grad_op, inputs, c.attrs));
    for (size_t i = 0; i < c.x.size(); ++i) {
      const double slope = (f_plus[i] - f_minus[i]) / (2 * kH);
      EXPECT_NEAR(got[i], g * slope, 1e-6 * std::max(1.0, std::fabs(g * slope)))
          << c.grad_op << " at x = " << c.x[i] << ", g = " << g;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Ops, FiniteDifferenceTest,
    ::testing::Values(
        GradCase{"ReluGrad", "Relu", Second::kFeatures, {-2, -0.5, 0.5, 3}},
        GradCase{"ReluGrad", "Relu", Second::kOutputs, {-2, 0.5, 3}},
        GradCase{"Relu6Grad", "Relu6", Second::kFeatures, {-1, 0.5, 5.5, 7}},
        GradCase{
            "LeakyReluGrad", "LeakyRelu", Second::kFeatures, {-2, -0.1, 0.1, 4}, {{"alpha", 0.3f}}},
        GradCase{"EluGrad", "Elu", Second::kOutputs, {-3, -0.5, 0.25, 2}},
        GradCase{"SeluGrad", "Selu", Second::kOutputs, {-3, -0.5, 0.25, 2}},
        GradCase{"SoftplusGrad", "Softplus", Second::kFeatures, {-5, -1, 0, 0.5, 4}},
        GradCase{"SoftsignGrad", "Softsign", Second::kFeatures, {-5, -1, 0.5, 4}},
        GradCase{"SigmoidGrad", "Sigmoid", Second::kYFirst, {-4, -1, 0, 0.5, 3}},
        GradCase{"TanhGrad", "Tanh", Second::kYFirst, {-2, -0.3, 0, 0.7, 1.5}},
        GradCase{"RsqrtGrad", "Rsqrt", Second::kYFirst, {0.25, 1, 3, 10}},
        GradCase{"SqrtGrad", "Sqrt", Second::kYFirst, {0.25, 1, 3, 10}},
        GradCase{"ReciprocalGrad", "Reciprocal", Second::kYFirst, {-3, -0.5, 0.5, 2}},
        GradCase{"InvGrad", "Inv", Second::kYFirst, {-3, -0.5, 0.5, 2}}),
    [](const ::testing::TestParamInfo<GradCase>& info) {
      return info.param.grad_op + std::to_string(info.index);
    });

TEST(ActivationGradTest, HandComputedValues) {
  // Features at the kinks: ReluGrad passes nothing at 0, Relu6Grad nothing at 0 or 6.
  EXPECT_THAT(Values<float>(RunOp1("ReluGrad", {T1<float>({5, 5, 5}), T1<float>({-1, 0, 2})})),
              ElementsAre(0, 0, 5));
  EXPECT_THAT(
      Values<float>(RunOp1("Relu6Grad", {T1<float>({5, 5, 5, 5}), T1<float>({0, 3, 6, 7})})),
      ElementsAre(0, 5, 0, 0));
  EXPECT_THAT(Values<double>(RunOp1("EluGrad", {T1<double>({2, 2, 2}), T1<double>({-0.75, 0, 1})})),
              ElementsAre(0.5, 2, 2));
  // Selu's output 0 is on the positive side, so the gradient there is g * scale.
  EXPECT_THAT(Values<double>(RunOp1("SeluGrad", {T1<double>({2, 2, 2}), T1<double>({-1, 0, 1})})),
              ElementsAre(2 * (-1 + kSeluScaleAlpha), 2 * kSeluScale, 2 * kSeluScale));
  EXPECT_THAT(Values<double>(RunOp1("SigmoidGrad", {T1<double>({0.5, 0.25}), T1<double>({4, 2})})),
              ElementsAre(1, 0.375));
  EXPECT_THAT(Values<double>(RunOp1("TanhGrad", {T1<double>({0.5}), T1<double>({4})})),
              ElementsAre(3));
  EXPECT_THAT(Values<double>(RunOp1("RsqrtGrad", {T1<double>({2}), T1<double>({3})})),
              ElementsAre(-12));
  EXPECT_THAT(Values<double>(RunOp1("SqrtGrad", {T1<double>({2}), T1<double>({3})})),
              ElementsAre(0.75));
  EXPECT_THAT(Values<double>(RunOp1("ReciprocalGrad", {T1<double>({2}), T1<double>({3})})),
              ElementsAre(-12));
  EXPECT_THAT(Values<double>(RunOp1("SoftsignGrad", {T1<double>({9}), T1<double>({-2})})),
              ElementsAre(1));
  EXPECT_THAT(Values<double>(RunOp1("SoftplusGrad", {T1<double>({3}), T1<double>({0})})),
              ElementsAre(1.5));
  EXPECT_THAT(Values<float>(RunOp1("LeakyReluGrad", {T1<float>({4, 4, 4}), T1<float>({-1, 0, 1})},
                                   {{"alpha", 0.25f}})),
              ElementsAre(1, 1, 4));
}

TEST(ActivationGradTest, ReluGradMultipliesTheMask) {
  // TensorFlow multiplies by the 0/1 mask, so an infinite gradient where the unit is off is
  // NaN, not 0.
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> out =
      Values<float>(RunOp1("ReluGrad", {T1<float>({inf, inf}), T1<float>({-1, 1})}));
  EXPECT_TRUE(std::isnan(out[0]));
  EXPECT_EQ(out[1], inf);
}

TEST(ActivationGradTest, ReluGradOnIntegers) {
  EXPECT_THAT(
      Values<int32_t>(RunOp1("ReluGrad", {T1<int32_t>({7, -7, 7}), T1<int32_t>({-1, 1, 0})})),
      ElementsAre(0, -7, 0));
  EXPECT_THAT(Values<int8_t>(RunOp1("Relu6Grad", {T1<int8_t>({7, 7, 7}), T1<int8_t>({1, 6, 5})})),
              ElementsAre(7, 0, 7));
}

TEST(ActivationGradTest, RoundsOnceAndUsesConstantsInT) {
  // float: 3 * (1 - 1/3 * 1/3) in double is 8/3 rounded once.
  const float third = 1.0f / 3;
  const double t = third;
  EXPECT_EQ(Values<float>(RunOp1("TanhGrad", {T1<float>({third}), T1<float>({3})}))[0],
            static_cast<float>(3 * (1 - t * t)));
  // float16: Selu's scale is rounded to half (1.0507 -> 1.05078125) before multiplying.
  const Tensor half = RunOp1("SeluGrad", {HalfTensor({1}, {1}), HalfTensor({1}, {1})});
  EXPECT_EQ(half.dtype(), DType::kHalf);
  EXPECT_THAT(ValuesAsDouble(half), ElementsAre(1.05078125));
  // LeakyRelu's alpha 0.1 is rounded to float first, then multiplied exactly in double.
  const Tensor dbl =
      RunOp1("LeakyReluGrad", {T1<double>({1}), T1<double>({-1})}, {{"alpha", 0.1f}});
  EXPECT_THAT(Values<double>(dbl), ElementsAre(static_cast<double>(0.1f)));
}

TEST(ActivationGradTest, HalfInputs) {
  const Tensor out =
      RunOp1("SigmoidGrad", {HalfTensor({0.5f, 0.25f}, {2}), HalfTensor({4, 2}, {2})});
  EXPECT_EQ(out.dtype(), DType::kHalf);
  EXPECT_THAT(ValuesAsDouble(out), ElementsAre(1, 0.375));
}

TEST(ActivationGradTest, EmptyInputs) {
  const Tensor out = RunOp1(
      "TanhGrad", {Tensor::Zeros(DType::kFloat, {0, 3}), Tensor::Zeros(DType::kFloat, {0, 3})});
  EXPECT_EQ(out.shape(), Shape({0, 3}));
}

TEST(ActivationGradTest, Errors) {
  for (const char* op : {"ReluGrad", "Relu6Grad", "LeakyReluGrad", "EluGrad", "SeluGrad",
                         "SoftplusGrad", "SoftsignGrad", "SigmoidGrad", "TanhGrad", "RsqrtGrad",
                         "SqrtGrad", "ReciprocalGrad", "InvGrad"}) {
    SCOPED_TRACE(op);
    absl::StatusOr<std::vector<Tensor>> shapes =
        RunOp(op, {T1<float>({1, 2}), TN<float>({1, 2}, {2, 1})});
    ExpectError(shapes, "must have the same dtype and shape, got float32[2] and float32[2,1]");
    ExpectError(shapes, "node \"node\"");
    ExpectError(RunOp(op, {T1<float>({1}), T1<double>({1})}), "same dtype and shape");
    ExpectError(RunOp(op, {T1<float>({1})}), "expects 2 inputs");
    ExpectError(RunOp(op, {T1<bool>({true}), T1<bool>({true})}), "bool");
  }
  // Only ReluGrad and Relu6Grad are defined for integers.
  ExpectError(RunOp("SigmoidGrad", {T1<int32_t>({1}), T1<int32_t>({1})}), "int32");
  ExpectError(RunOp("SeluGrad", {T1<int32_t>({1}), T1<int32_t>({1})}), "int32");
  // Names of the inputs, as the op defines them.
  ExpectError(RunOp("SqrtGrad", {T1<float>({1}), T1<float>({1, 2})}), "y and dy");
  ExpectError(RunOp("EluGrad", {T1<float>({1}), T1<float>({1, 2})}), "gradients and outputs");
  ExpectError(RunOp("ReluGrad", {T1<float>({1}), T1<float>({1, 2})}), "gradients and features");
}

}  // namespace
}  // namespace dfc
