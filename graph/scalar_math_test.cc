// Tests for TensorFlow's scalar arithmetic (scalar_math.h): the cases where C++ and Python
// would answer differently from TensorFlow.
#include "graph/scalar_math.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace dfc {
namespace {

TEST(ScalarMathTest, FloorDivisionTakesTheDivisorsSign) {
  EXPECT_EQ(FloorDiv(int32_t{-7}, int32_t{2}), -4);
  EXPECT_EQ(FloorMod(int32_t{-7}, int32_t{2}), 1);
  EXPECT_EQ(FloorMod(int32_t{7}, int32_t{-2}), -1);
  EXPECT_EQ(FloorDiv(-7.0f, 2.0f), -4.0f);
  EXPECT_EQ(FloorMod(-7.0, 2.0), 1.0);
  EXPECT_EQ(FloorMod(uint8_t{7}, uint8_t{2}), 1);
}

TEST(ScalarMathTest, TruncatingDivisionTakesTheDividendsSign) {
  EXPECT_EQ(Div(int32_t{-7}, int32_t{2}), -3);
  EXPECT_EQ(TruncateDiv(-7.0, 2.0), -3.0);
  EXPECT_EQ(Div(-7.0, 2.0), -3.5);
  EXPECT_EQ(TruncateMod(int32_t{-7}, int32_t{2}), -1);
  EXPECT_EQ(TruncateMod(-7.0, 2.0), -1.0);
}

TEST(ScalarMathTest, IntMinByMinusOneWraps) {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(Div(kMin, int32_t{-1}), kMin);
  EXPECT_EQ(FloorDiv(kMin, int32_t{-1}), kMin);
  EXPECT_EQ(FloorMod(kMin, int32_t{-1}), 0);
}

TEST(ScalarMathTest, MaximumAndMinimumPropagateNaN) {
  const double nan = std::nan("");
  EXPECT_TRUE(std::isnan(Maximum(nan, 1.0)));
  EXPECT_TRUE(std::isnan(Maximum(1.0, nan)));
  EXPECT_TRUE(std::isnan(Minimum(1.0, nan)));
  EXPECT_EQ(Maximum(int64_t{-1}, int64_t{2}), 2);
}

TEST(ScalarMathTest, PowAndTheRest) {
  EXPECT_EQ(Pow(int32_t{3}, int32_t{4}), 81);
  EXPECT_EQ(Pow(int8_t{2}, int8_t{8}), 0);  // wraps modulo 2^8
  EXPECT_DOUBLE_EQ(Pow(2.0, 0.5), std::sqrt(2.0));
  EXPECT_EQ(DivNoNan(1.0f, 0.0f), 0.0f);
  EXPECT_EQ(SquaredDifference(int32_t{2}, int32_t{5}), 9);
}

}  // namespace
}  // namespace dfc
