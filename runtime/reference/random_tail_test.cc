// Tests of the tail's random kernels (random_tail.cc): TensorFlow's own values for the seeded
// conformance cases, the node's stream moving on between runs, moments of large samples, the
// stateless ops as pure functions of their seed, and errors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/philox.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::dfc::testing::ExpectError;
using ::dfc::testing::Iota;
using ::dfc::testing::MakeNode;
using ::dfc::testing::RunOp;
using ::dfc::testing::RunOp1;
using ::dfc::testing::T1;
using ::dfc::testing::TN;
using ::dfc::testing::Values;
using ::dfc::testing::ValuesAsDouble;
using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

AttrMap Seeds(int64_t seed, int64_t seed2, AttrMap more = {}) {
  more["seed"] = seed;
  more["seed2"] = seed2;
  return more;
}

double Mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

double Variance(const std::vector<double>& v) {
  const double m = Mean(v);
  double sum = 0;
  for (double x : v) sum += (x - m) * (x - m);
  return sum / static_cast<double>(v.size());
}

// The conformance cases random_shuffle/rank1_int32, rank1_float64 and rank2_float32.
TEST(RandomShuffleTest, IsTensorFlows) {
  EXPECT_THAT(Values<int32_t>(RunOp1("RandomShuffle", {T1<int32_t>({7, 2, 9, 4})},
                                     Seeds(1, 1245, {{"T", DType::kInt32}}))),
              ElementsAre(7, 9, 2, 4));
  EXPECT_THAT(Values<double>(RunOp1("RandomShuffle", {T1<double>({0.25, 0.75, 0.8, 0.05})},
                                    Seeds(1, 10, {{"T", DType::kDouble}}))),
              ElementsAre(0.25, 0.8, 0.75, 0.05));
  // Rows move whole.
  const Tensor rows = RunOp1("RandomShuffle", {Iota({4, 2})}, Seeds(1, 1345));
  EXPECT_THAT(Values<int32_t>(rows), ElementsAre(0, 1, 4, 5, 6, 7, 2, 3));
}

TEST(RandomShuffleTest, PermutesAndMovesOnBetweenRuns) {
  const Node node = MakeNode("RandomShuffle", Seeds(3, 4), 1);
  const Tensor in = Iota({1000});
  reference::Philox stream = reference::NodePhilox(node);
  const reference::NodeState state{.rng = &stream};
  auto first = reference::EvaluateNode(node, {&in, 1}, state);
  auto second = reference::EvaluateNode(node, {&in, 1}, state);
  ASSERT_TRUE(first.ok() && second.ok());
  std::vector<int32_t> a = Values<int32_t>((*first)[0]);
  EXPECT_NE(a, Values<int32_t>((*second)[0]));
  EXPECT_NE(a, Values<int32_t>(in));
  std::sort(a.begin(), a.end());
  EXPECT_EQ(a, Values<int32_t>(in));
}

TEST(RandomShuffleTest, NothingToShuffleAndErrors) {
  EXPECT_THAT(Values<float>(RunOp1("RandomShuffle", {T1<float>({5})}, Seeds(1, 2))),
              ElementsAre(5));
  EXPECT_EQ(RunOp1("RandomShuffle", {Tensor::Zeros(DType::kFloat, {0, 3})}, Seeds(1, 2)).shape(),
            Shape({0, 3}));
  ExpectError(RunOp("RandomShuffle", {Tensor::Scalar<float>(1)}, Seeds(1, 2)), "rank >= 1");
}

AttrMap PoissonAttrs(DType dtype, int64_t seed, int64_t seed2) {
  return Seeds(seed, seed2, {{"dtype", dtype}, {"R", DType::kFloat}, {"S", DType::kInt32}});
}

// The first 24 values of the conformance case random_poisson_v2/rank1_half (seed 42).
TEST(RandomPoissonV2Test, IsTensorFlows) {
  const Tensor t = RunOp1("RandomPoissonV2", {T1<int32_t>({24}), T1<float>({0.5431652069091797f})},
                          PoissonAttrs(DType::kHalf, 42, 0));
  EXPECT_EQ(t.shape(), Shape({24, 1}));
  EXPECT_THAT(ValuesAsDouble(t), ElementsAreArray({3, 2, 1, 0, 2, 1, 1, 1, 0, 1, 0, 2,
                                                   3, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1}));
}

TEST(RandomPoissonV2Test, MomentsForSmallAndLargeRates) {
  // Rates 3 (Knuth) and 40 (transformed rejection); the rate is the innermost dimension.
  const Tensor t = RunOp1("RandomPoissonV2", {T1<int32_t>({20000}), T1<float>({3, 40})},
                          PoissonAttrs(DType::kInt64, 5, 6));
  EXPECT_EQ(t.shape(), Shape({20000, 2}));
  const std::vector<double> all = ValuesAsDouble(t);
  for (int r = 0; r < 2; ++r) {
    std::vector<double> v;
    for (size_t i = r; i < all.size(); i += 2) v.push_back(all[i]);
    const double rate = r == 0 ? 3 : 40;
    EXPECT_NEAR(Mean(v), rate, 0.05 * rate) << rate;
    EXPECT_NEAR(Variance(v), rate, 0.1 * rate) << rate;
  }
}

TEST(RandomPoissonV2Test, EmptyAndErrors) {
  EXPECT_EQ(RunOp1("RandomPoissonV2", {T1<int32_t>({0, 3}), T1<float>({1, 2})},
                   PoissonAttrs(DType::kFloat, 1, 2))
                .shape(),
            Shape({0, 3, 2}));
  ExpectError(RunOp("RandomPoissonV2", {T1<int32_t>({3}), T1<float>({1})},
                    PoissonAttrs(DType::kBool, 1, 2)),
              "dtype must be");
  ExpectError(
      RunOp("RandomPoissonV2", {T1<float>({3}), T1<float>({1})}, PoissonAttrs(DType::kFloat, 1, 2)),
      "shape must be int32 or int64");
}

TEST(RandomGammaTest, Moments) {
  const Tensor t = RunOp1("RandomGamma", {T1<int32_t>({20000}), T1<double>({0.5, 1, 4})},
                          Seeds(7, 8, {{"T", DType::kDouble}, {"S", DType::kInt32}}));
  EXPECT_EQ(t.shape(), Shape({20000, 3}));
  const std::vector<double> all = Values<double>(t);
  for (int a = 0; a < 3; ++a) {
    std::vector<double> v;
    for (size_t i = a; i < all.size(); i += 3) v.push_back(all[i]);
    const double alpha = a == 0 ? 0.5 : a == 1 ? 1 : 4;
    EXPECT_NEAR(Mean(v), alpha, 0.05 * alpha) << alpha;
    EXPECT_NEAR(Variance(v), alpha, 0.1 * alpha) << alpha;
    EXPECT_GT(*std::min_element(v.begin(), v.end()), 0) << alpha;
  }
}

TEST(MultinomialTest, FrequenciesFollowTheSoftmaxAndSkipNonFiniteLogits) {
  const float kInf = std::numeric_limits<float>::infinity();
  const Tensor logits = TN<float>({std::log(1.0f), std::log(3.0f), -kInf, 0, 0, 0}, {2, 3});
  const Tensor t = RunOp1("Multinomial", {logits, Tensor::Scalar<int32_t>(20000)},
                          Seeds(9, 10, {{"T", DType::kFloat}, {"output_dtype", DType::kInt32}}));
  EXPECT_EQ(t.shape(), Shape({2, 20000}));
  const std::vector<int32_t> v = Values<int32_t>(t);
  int counts[2][3] = {};
  for (int b = 0; b < 2; ++b) {
    for (int s = 0; s < 20000; ++s) ++counts[b][v[b * 20000 + s]];
  }
  EXPECT_EQ(counts[0][2], 0);
  EXPECT_NEAR(counts[0][1] / 20000.0, 0.75, 0.02);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(counts[1][k] / 20000.0, 1 / 3.0, 0.02);
  ExpectError(RunOp("Multinomial", {T1<float>({1, 2}), Tensor::Scalar<int32_t>(3)}, Seeds(1, 2)),
              "logits must be [batch, num_classes]");
  ExpectError(RunOp("Multinomial", {logits, Tensor::Scalar<int32_t>(-1)}, Seeds(1, 2)),
              "num_samples must be non-negative");
}

AttrMap StatelessAttrs(DType dtype) {
  return {{"dtype", dtype}, {"T", DType::kInt32}, {"Tseed", DType::kInt64}};
}

TEST(StatelessRandomTest, PureFunctionsOfTheSeed) {
  const Tensor shape = T1<int32_t>({10000});
  const Tensor seed = T1<int64_t>({1, 2});
  const Tensor a = RunOp1("StatelessRandomUniform", {shape, seed}, StatelessAttrs(DType::kFloat));
  const Tensor b = RunOp1("StatelessRandomUniform", {shape, seed}, StatelessAttrs(DType::kFloat));
  const Tensor c =
      RunOp1("StatelessRandomUniform", {shape, T1<int64_t>({1, 3})}, StatelessAttrs(DType::kFloat));
  EXPECT_TRUE(a.BitwiseEqual(b));
  EXPECT_FALSE(a.BitwiseEqual(c));
  // An int32 seed is the same seed as the int64 one.
  EXPECT_TRUE(a.BitwiseEqual(RunOp1("StatelessRandomUniform", {shape, T1<int32_t>({1, 2})},
                                    StatelessAttrs(DType::kFloat))));
  const std::vector<double> u = ValuesAsDouble(a);
  EXPECT_NEAR(Mean(u), 0.5, 0.01);
  EXPECT_GE(*std::min_element(u.begin(), u.end()), 0);
  EXPECT_LT(*std::max_element(u.begin(), u.end()), 1);
  const std::vector<double> n = ValuesAsDouble(
      RunOp1("StatelessRandomNormal", {shape, seed}, StatelessAttrs(DType::kDouble)));
  EXPECT_NEAR(Mean(n), 0, 0.03);
  EXPECT_NEAR(Variance(n), 1, 0.05);
  const std::vector<double> tn = ValuesAsDouble(
      RunOp1("StatelessTruncatedNormal", {shape, seed}, StatelessAttrs(DType::kHalf)));
  EXPECT_LT(*std::max_element(tn.begin(), tn.end()), 2);
  EXPECT_GT(*std::min_element(tn.begin(), tn.end()), -2);
  ExpectError(RunOp("StatelessRandomNormal", {shape, T1<int64_t>({1, 2, 3})},
                    StatelessAttrs(DType::kFloat)),
              "seed must be an int32 or int64 vector of 2");
  ExpectError(RunOp("StatelessRandomNormal", {shape, seed}, StatelessAttrs(DType::kInt32)),
              "dtype must be float16, float32 or float64");
}

}  // namespace
}  // namespace dfc
