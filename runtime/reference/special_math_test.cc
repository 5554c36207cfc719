// Tests of the special-function and elementwise-math reference kernels (special_math.cc):
// values against mpmath at 40 digits, Eigen's edge values (NaN and infinities), the FakeQuant
// grids, and the error cases.
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
using ::testing::ElementsAre;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One point of a special function: its arguments and mpmath's value.
struct SpecialCase {
  std::string op;
  std::vector<double> args;
  double expected;
};

// Runs `op` on double scalars.
double Eval(const std::string& op, const std::vector<double>& args) {
  std::vector<Tensor> inputs;
  for (double a : args) inputs.push_back(Tensor::Scalar<double>(a));
  return Values<double>(RunOp1(op, inputs))[0];
}

class SpecialValueTest : public ::testing::TestWithParam<SpecialCase> {};

TEST_P(SpecialValueTest, MatchesMpmathToDoublePrecision) {
  const SpecialCase& c = GetParam();
  const double got = Eval(c.op, c.args);
  // Relative 1e-13, or absolute near a zero of the function (digamma's root).
  EXPECT_NEAR(got, c.expected, 1e-13 * std::fabs(c.expected) + 1e-15) << c.op;
}

// Values from mpmath (mp.dps = 40): loggamma, digamma, gammainc(regularized), betainc
// (regularized), zeta(s, q), polygamma.
INSTANTIATE_TEST_SUITE_P(
    Mpmath, SpecialValueTest,
    ::testing::Values(
        SpecialCase{"Lgamma", {0.5}, 0.5723649429247001},
        SpecialCase{"Lgamma", {1.5}, -0.12078223763524522},
        SpecialCase{"Lgamma", {123.4}, 469.3360974421906},
        SpecialCase{"Lgamma", {-2.5}, -0.056243716497674054},
        SpecialCase{"Digamma", {0.5}, -1.9635100260214235},
        SpecialCase{"Digamma", {1}, -0.5772156649015329},
        SpecialCase{"Digamma", {1.4616321449683622}, -9.241265521729427e-17},
        SpecialCase{"Digamma", {7.3}, 1.9178203356379862},
        SpecialCase{"Digamma", {100.5}, 4.605174352581845},
        SpecialCase{"Digamma", {-0.5}, 0.03648997397857652},
        SpecialCase{"Digamma", {-1.25}, 3.714139120213528},
        SpecialCase{"Digamma", {-7.9}, -7.540007224419479},
        SpecialCase{"Digamma", {0.001}, -1000.5755719318103},
        // Igamma by its series (x <= 1 or x <= a) and by 1 - the continued fraction.
        SpecialCase{"Igamma", {0.5, 0.2}, 0.4729107431344619},
        SpecialCase{"Igamma", {0.5, 3.0}, 0.9856941215645704},
        SpecialCase{"Igamma", {5.0, 3.0}, 0.18473675547622792},
        SpecialCase{"Igamma", {5.0, 8.0}, 0.900367599512954},
        SpecialCase{"Igamma", {100.0, 100.0}, 0.5132987982791487},
        SpecialCase{"Igamma", {100.0, 90.0}, 0.15822098918643016},
        SpecialCase{"Igamma", {0.001, 0.001}, 0.9936876467088603},
        SpecialCase{"Igammac", {0.5, 0.2}, 0.5270892568655381},
        SpecialCase{"Igammac", {0.5, 3.0}, 0.01430587843542964},
        SpecialCase{"Igammac", {2.0, 1.5}, 0.5578254003710745},
        SpecialCase{"Igammac", {0.1, 10.0}, 5.547985717901907e-07},
        SpecialCase{"Igammac", {30.0, 45.0}, 0.007337199297796504},
        SpecialCase{"Igammac", {100.0, 100.0}, 0.48670120172085135},
        // Betainc on both sides of the mean (the direct fraction and 1 - the swapped one).
        SpecialCase{"Betainc", {0.5, 0.5, 0.3}, 0.36901011956554536},
        SpecialCase{"Betainc", {2, 3, 0.4}, 0.5248}, SpecialCase{"Betainc", {5, 2, 0.9}, 0.885735},
        SpecialCase{"Betainc", {10, 10, 0.5}, 0.5},
        SpecialCase{"Betainc", {0.2, 7, 0.01}, 0.626267965937642},
        SpecialCase{"Betainc", {50, 40, 0.6}, 0.8011534179744886},
        SpecialCase{"Betainc", {1.5, 80, 0.02}, 0.644272678133991},
        SpecialCase{"Betainc", {3, 0.3, 0.999}, 0.8118774922411403},
        SpecialCase{"Zeta", {2, 1}, 1.6449340668482264},
        SpecialCase{"Zeta", {3, 0.5}, 8.41439832211716},
        SpecialCase{"Zeta", {1.5, 2.0}, 1.6123753486854884},
        SpecialCase{"Zeta", {4.2, 10.0}, 0.0002309186848959708},
        SpecialCase{"Zeta", {10, 0.25}, 1048576.1076831147},
        SpecialCase{"Zeta", {2, -0.5}, 8.934802200544679},
        SpecialCase{"Zeta", {1.01, 1.0}, 100.57794333849678},
        SpecialCase{"Zeta", {60, 1.5}, 2.7197216389365646e-11},
        SpecialCase{"Polygamma", {1, 1}, 1.6449340668482264},
        SpecialCase{"Polygamma", {1, 0.5}, 4.934802200544679},
        SpecialCase{"Polygamma", {2, 3.3}, -0.12375118526494272},
        SpecialCase{"Polygamma", {3, 0.7}, 25.879149678427737},
        SpecialCase{"Polygamma", {4, 12.0}, -0.0003409100507010894},
        SpecialCase{"Polygamma", {1, -0.5}, 8.934802200544679}));

TEST(SpecialEdgeTest, PolesAndDomainsAsEigen) {
  EXPECT_EQ(Eval("Lgamma", {0}), kInf);
  EXPECT_EQ(Eval("Lgamma", {-3}), kInf);
  EXPECT_TRUE(std::isnan(Eval("Digamma", {0})));
  EXPECT_TRUE(std::isnan(Eval("Digamma", {-2})));
  EXPECT_EQ(Eval("Digamma", {kInf}), kInf);
  // Igamma(a, 0) is 0 before the domain is checked, even for a <= 0.
  EXPECT_EQ(Eval("Igamma", {0, 0}), 0);
  EXPECT_EQ(Eval("Igamma", {2, 0}), 0);
  EXPECT_TRUE(std::isnan(Eval("Igamma", {0, 1})));
  EXPECT_TRUE(std::isnan(Eval("Igamma", {1, -1})));
  EXPECT_EQ(Eval("Igamma", {3, kInf}), 1);
  EXPECT_EQ(Eval("Igammac", {3, kInf}), 0);
  EXPECT_EQ(Eval("Igammac", {3, 0}), 1);
  EXPECT_TRUE(std::isnan(Eval("Igammac", {-1, 1})));
  EXPECT_TRUE(std::isnan(Eval("Igammac", {1, kNaN})));
  EXPECT_TRUE(std::isnan(Eval("Betainc", {0, 1, 0.5})));
  EXPECT_TRUE(std::isnan(Eval("Betainc", {1, -1, 0.5})));
  EXPECT_TRUE(std::isnan(Eval("Betainc", {1, 1, 1.5})));
  EXPECT_EQ(Eval("Betainc", {2, 3, 0}), 0);
  EXPECT_EQ(Eval("Betainc", {2, 3, 1}), 1);
  EXPECT_EQ(Eval("Zeta", {1, 2}), kInf);
  EXPECT_TRUE(std::isnan(Eval("Zeta", {0.5, 2})));
  // q a non-positive integer: +inf for even x, NaN for odd; other negative q need integer x.
  EXPECT_EQ(Eval("Zeta", {2, 0}), kInf);
  EXPECT_EQ(Eval("Zeta", {4, -3}), kInf);
  EXPECT_TRUE(std::isnan(Eval("Zeta", {3, -1})));
  EXPECT_TRUE(std::isnan(Eval("Zeta", {2.5, -0.5})));
  EXPECT_TRUE(std::isnan(Eval("Polygamma", {0.5, 1})));
  EXPECT_TRUE(std::isnan(Eval("Polygamma", {-1, 1})));
  EXPECT_NEAR(Eval("Polygamma", {0, 1}), -0.5772156649015329, 1e-15);
}

TEST(SpecialDTypeTest, FloatComputedInDoubleAndRoundedOnce) {
  const Tensor out = RunOp1("Lgamma", {T1<float>({0.5f, 3.7f})});
  EXPECT_EQ(out.dtype(), DType::kFloat);
  EXPECT_THAT(Values<float>(out), ElementsAre(static_cast<float>(std::lgamma(0.5)),
                                              static_cast<float>(std::lgamma(double{3.7f}))));
  const Tensor half = RunOp1("Digamma", {HalfTensor({1.0f}, {1})});
  EXPECT_EQ(half.dtype(), DType::kHalf);
  EXPECT_NEAR(ValuesAsDouble(half)[0], -0.5772156649015329, 1e-3);
}

TEST(SpecialShapeTest, BroadcastsAndEmpty) {
  // Igamma broadcasts like a binary op: [2,1] against [3].
  const Tensor out = RunOp1("Igamma", {TN<double>({1, 2}, {2, 1}), T1<double>({0, 1, 2})});
  EXPECT_EQ(out.shape(), Shape({2, 3}));
  EXPECT_NEAR(Values<double>(out)[2], 1 - std::exp(-2.0), 1e-15);
  // Betainc takes scalars against one common shape.
  const Tensor b =
      RunOp1("Betainc", {Tensor::Scalar<float>(2), T1<float>({3, 3}), T1<float>({0.4f, 1.0f})});
  EXPECT_THAT(Values<float>(b), ElementsAre(0.5248f, 1.0f));
  const Tensor empty = RunOp1("Lgamma", {Tensor::Zeros(DType::kFloat, {1, 0, 0})});
  EXPECT_EQ(empty.shape(), Shape({1, 0, 0}));
}

TEST(SpecialErrorTest, RefusesWrongDTypesAndShapes) {
  ExpectError(RunOp("Lgamma", {T1<int32_t>({1})}), "dtype");
  ExpectError(RunOp("Igamma", {T1<float>({1}), T1<double>({1})}), "same dtype");
  ExpectError(RunOp("Igamma", {T1<double>({1, 2}), T1<double>({1, 2, 3})}), "incompatible");
  ExpectError(RunOp("Betainc", {T1<float>({1, 2}), T1<float>({1, 2}), T1<float>({1, 2, 3})}),
              "common shape");
  ExpectError(RunOp("Zeta", {T1<double>({2})}), "inputs");
}

TEST(GuardedMathTest, ZeroXGivesZeroWhateverY) {
  const Tensor x = T1<float>({0, 0, 2, 3});
  const Tensor y = T1<float>({0, static_cast<float>(kNaN), 4, 0});
  EXPECT_THAT(Values<float>(RunOp1("Xdivy", {x, y})), ElementsAre(0, 0, 0.5f, INFINITY));
  EXPECT_THAT(Values<float>(RunOp1("Xlogy", {x, T1<float>({0, -1, 1, 1})})),
              ElementsAre(0, 0, 0, 0));
  const std::vector<double> l =
      Values<double>(RunOp1("Xlog1py", {T1<double>({0, 2}), Tensor::Scalar<double>(1)}));
  EXPECT_EQ(l[0], 0);
  EXPECT_DOUBLE_EQ(l[1], 2 * std::log(2.0));
}

TEST(ApproximateEqualTest, ToleranceIsStrict) {
  const Tensor out = RunOp1("ApproximateEqual", {T1<float>({1, 1, 1}), T1<float>({1.5f, 1.25f, 3})},
                            {{"tolerance", 0.5f}});
  EXPECT_THAT(Values<bool>(out), ElementsAre(false, true, false));
  // Integers: the tolerance is truncated to T, so 1.5 allows differences of 0 only.
  const Tensor ints =
      RunOp1("ApproximateEqual", {T1<int32_t>({5, 5}), T1<int32_t>({5, 6})}, {{"tolerance", 1.5f}});
  EXPECT_THAT(Values<bool>(ints), ElementsAre(true, false));
  ExpectError(RunOp("ApproximateEqual", {T1<float>({1}), T1<float>({1, 2})}),
              "same dtype and shape");
}

TEST(ClipByValueTest, ScalarAndElementwiseBounds) {
  EXPECT_THAT(
      Values<float>(RunOp1("ClipByValue", {T1<float>({-2, 0.5f, 9}), Tensor::Scalar<float>(0),
                                           Tensor::Scalar<float>(1)})),
      ElementsAre(0, 0.5f, 1));
  EXPECT_THAT(
      Values<int32_t>(RunOp1("ClipByValue", {T1<int32_t>({-2, 5, 9}), T1<int32_t>({0, 6, 0}),
                                             Tensor::Scalar<int32_t>(7)})),
      ElementsAre(0, 6, 7));
  const float nan = std::nanf("");
  EXPECT_TRUE(std::isnan(Values<float>(RunOp1(
      "ClipByValue", {T1<float>({nan}), Tensor::Scalar<float>(0), Tensor::Scalar<float>(1)}))[0]));
  ExpectError(RunOp("ClipByValue", {T1<float>({1, 2}), T1<float>({0}), Tensor::Scalar<float>(1)}),
              "clip_value_min must be a scalar or have the shape of t");
}

TEST(EuclideanNormTest, AxesKeepDimsAndIntegers) {
  const Tensor x = TN<float>({3, 4, 0, 6, 8, 0}, {2, 3});
  EXPECT_THAT(Values<float>(RunOp1("EuclideanNorm", {x, Tensor::Scalar<int32_t>(1)})),
              ElementsAre(5, 10));
  const Tensor kept = RunOp1("EuclideanNorm", {x, T1<int64_t>({-1, 0})}, {{"keep_dims", true}});
  EXPECT_EQ(kept.shape(), Shape({1, 1}));
  EXPECT_FLOAT_EQ(Values<float>(kept)[0], std::sqrt(125.0f));
  // An integer norm truncates: sqrt(1 + 1) -> 1.
  EXPECT_THAT(Values<int32_t>(RunOp1("EuclideanNorm", {T1<int32_t>({1, -1}), T1<int32_t>({0})})),
              ElementsAre(1));
  // Reducing over nothing leaves |x|; a zero-size reduction gives 0.
  EXPECT_THAT(Values<float>(RunOp1("EuclideanNorm", {T1<float>({-3}), T1<int32_t>({})})),
              ElementsAre(3));
  EXPECT_THAT(Values<float>(RunOp1("EuclideanNorm",
                                   {Tensor::Zeros(DType::kFloat, {2, 0}), T1<int32_t>({1})})),
              ElementsAre(0, 0));
  ExpectError(RunOp("EuclideanNorm", {x, T1<int32_t>({2})}), "out of range");
  ExpectError(RunOp("EuclideanNorm", {T1<int8_t>({100, 100}), T1<int32_t>({0})}), "overflows");
}

TEST(FakeQuantTest, NudgedGridAndNarrowRange) {
  // [0, 1] with 8 bits: steps of 1/255, round half up.
  const Tensor x = T1<float>({-1, 0.3f, 0.5f, 2});
  const std::vector<float> out = Values<float>(RunOp1(
      "FakeQuantWithMinMaxArgs", {x}, {{"min", 0.0f}, {"max", 1.0f}, {"num_bits", int64_t{8}}}));
  EXPECT_FLOAT_EQ(out[0], 0);
  EXPECT_NEAR(out[1], 77 / 255.0, 1e-6);
  EXPECT_NEAR(out[2], 128 / 255.0, 1e-6);
  EXPECT_FLOAT_EQ(out[3], 1);
  // [1, 5] with 4 bits narrow: the zero point is nudged to 1, so the range becomes [0, 14 s].
  const std::vector<float> narrow = Values<float>(
      RunOp1("FakeQuantWithMinMaxArgs", {T1<float>({-1, 4.5f})},
             {{"min", 1.0f}, {"max", 5.0f}, {"num_bits", int64_t{4}}, {"narrow_range", true}}));
  EXPECT_FLOAT_EQ(narrow[0], 0);
  EXPECT_NEAR(narrow[1], 4.0, 1e-6);
  ExpectError(RunOp("FakeQuantWithMinMaxArgs", {x}, {{"min", 1.0f}, {"max", 1.0f}}),
              "min has to be smaller than max");
  ExpectError(RunOp("FakeQuantWithMinMaxArgs", {x}, {{"num_bits", int64_t{1}}}), "num_bits");
}

TEST(FakeQuantTest, VarsAndPerChannel) {
  const Tensor x = TN<float>({0.3f, 0.3f, 10, -10}, {2, 2});
  const std::vector<float> vars = Values<float>(
      RunOp1("FakeQuantWithMinMaxVars", {x, Tensor::Scalar<float>(0), Tensor::Scalar<float>(1)}));
  EXPECT_NEAR(vars[0], 77 / 255.0, 1e-6);
  EXPECT_FLOAT_EQ(vars[2], 1);
  // Channel 0 quantises [0, 1]; channel 1 has the range [0, 0], which gives 0.
  const std::vector<float> per = Values<float>(
      RunOp1("FakeQuantWithMinMaxVarsPerChannel", {x, T1<float>({0, 0}), T1<float>({1, 0})}));
  EXPECT_NEAR(per[0], 77 / 255.0, 1e-6);
  EXPECT_EQ(per[1], 0);
  EXPECT_FLOAT_EQ(per[2], 1);
  EXPECT_EQ(per[3], 0);
  ExpectError(RunOp("FakeQuantWithMinMaxVarsPerChannel", {x, T1<float>({0}), T1<float>({1})}),
              "a vector of 2");
  ExpectError(
      RunOp("FakeQuantWithMinMaxVars", {x, Tensor::Scalar<float>(2), Tensor::Scalar<float>(1)}),
      "min must be < max");
  ExpectError(
      RunOp("FakeQuantWithMinMaxVars", {x, Tensor::Scalar<float>(1), Tensor::Scalar<float>(1)}),
      "min must be < max");
}

TEST(BucketizeTest, UpperBoundOfSortedBoundaries) {
  AttrList boundaries;
  boundaries.f = {0, 10, 100};
  const Tensor out = RunOp1("Bucketize", {TN<int32_t>({-5, 0, 5, 10, 150, 100}, {2, 3})},
                            {{"boundaries", boundaries}});
  EXPECT_EQ(out.shape(), Shape({2, 3}));
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(0, 1, 1, 2, 3, 3));
  boundaries.f = {1, 0};
  ExpectError(RunOp("Bucketize", {T1<float>({1})}, {{"boundaries", boundaries}}),
              "sorted boundaries");
}

}  // namespace
}  // namespace dfc
