// Tests for the random kernels (random.cc): TensorFlow's own values for seeded graphs, how the
// Philox stream is used and moves on between runs, range and moments on large samples, and
// errors.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
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
using ::dfc::testing::MakeNode;
using ::dfc::testing::RunOp;
using ::dfc::testing::RunOp1;
using ::dfc::testing::T1;
using ::dfc::testing::TN;
using ::dfc::testing::Values;
using ::dfc::testing::ValuesAsDouble;
using ::testing::HasSubstr;

constexpr int64_t kSamples = 200000;

AttrMap Attrs(DType dtype, int64_t seed = 0, int64_t seed2 = 0) {
  return {{"dtype", dtype}, {"seed", seed}, {"seed2", seed2}, {"T", DType::kInt32}};
}

struct Moments {
  double min, max, mean, variance;
};

Moments Measure(const Tensor& t) {
  const std::vector<double> v = ValuesAsDouble(t);
  Moments m{v[0], v[0], 0, 0};
  for (double x : v) {
    m.min = std::min(m.min, x);
    m.max = std::max(m.max, x);
    m.mean += x;
  }
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.variance += (x - m.mean) * (x - m.mean);
  m.variance /= static_cast<double>(v.size());
  return m;
}

class RandomDTypeTest : public ::testing::TestWithParam<DType> {};

TEST_P(RandomDTypeTest, UniformIsInUnitIntervalWithUniformMoments) {
  const Tensor t = RunOp1("RandomUniform", {T1<int32_t>({kSamples / 4, 4})}, Attrs(GetParam(), 7));
  EXPECT_EQ(t.dtype(), GetParam());
  EXPECT_EQ(t.shape(), (Shape{kSamples / 4, 4}));
  const Moments m = Measure(t);
  EXPECT_GE(m.min, 0.0);
  EXPECT_LT(m.max, 1.0);
  EXPECT_NEAR(m.mean, 0.5, 0.01);
  EXPECT_NEAR(m.variance, 1.0 / 12, 0.005);
}

TEST_P(RandomDTypeTest, StandardNormalMoments) {
  const Tensor t = RunOp1("RandomStandardNormal", {T1<int32_t>({kSamples})}, Attrs(GetParam(), 3));
  const Moments m = Measure(t);
  EXPECT_NEAR(m.mean, 0.0, 0.02);
  EXPECT_NEAR(m.variance, 1.0, 0.02);
  EXPECT_LT(m.min, -3.0);  // 200000 draws reach beyond 3 sigma on both sides
  EXPECT_GT(m.max, 3.0);
}

TEST_P(RandomDTypeTest, TruncatedNormalStaysWithinTwoSigma) {
  const Tensor t = RunOp1("TruncatedNormal", {T1<int32_t>({kSamples})}, Attrs(GetParam(), 5));
  const Moments m = Measure(t);
  EXPECT_GE(m.min, -2.0);
  EXPECT_LE(m.max, 2.0);
  EXPECT_NEAR(m.mean, 0.0, 0.02);
  // The variance of N(0,1) cut at +-2: 1 - 2*2*phi(2) / (Phi(2) - Phi(-2)) = 0.7737.
  EXPECT_NEAR(m.variance, 0.7737, 0.02);
}

INSTANTIATE_TEST_SUITE_P(FloatTypes, RandomDTypeTest,
                         ::testing::Values(DType::kFloat, DType::kDouble, DType::kHalf));

TEST(RandomTest, SameSeedsGiveSameValuesWithoutSession) {
  const Tensor shape = T1<int64_t>({3, 5});
  const Tensor a = RunOp1("RandomUniform", {shape}, Attrs(DType::kFloat, 1, 2));
  const Tensor b = RunOp1("RandomUniform", {shape}, Attrs(DType::kFloat, 1, 2));
  const Tensor c = RunOp1("RandomUniform", {shape}, Attrs(DType::kFloat, 1, 3));
  EXPECT_TRUE(a.BitwiseEqual(b));
  EXPECT_FALSE(a.BitwiseEqual(c));
  // Seeds default to 0 and still give a fixed result.
  const Tensor d = RunOp1("TruncatedNormal", {shape}, {{"dtype", DType::kDouble}});
  const Tensor e = RunOp1("TruncatedNormal", {shape}, {{"dtype", DType::kDouble}});
  EXPECT_TRUE(d.BitwiseEqual(e));
}

// Runs `node` on `inputs` with `stream` as its session stream (as a Session gives it).
Tensor RunWithStream(const Node& node, const std::vector<Tensor>& inputs,
                     reference::Philox& stream) {
  const reference::KernelFn* kernel = reference::KernelRegistry::Global().Find(node.op);
  EXPECT_NE(kernel, nullptr);
  reference::KernelContext ctx(node, inputs);
  ctx.set_rng(&stream);
  const absl::Status status = (*kernel)(ctx);
  EXPECT_TRUE(status.ok()) << status;
  return ctx.outputs().empty() ? Tensor() : ctx.outputs()[0];
}

// With a session stream, each run draws new numbers: the next run starts 256 Philox blocks
// per output element further on (TensorFlow's GuardedPhiloxRandom reservation).
TEST(RandomTest, SessionStreamMovesOnBy256BlocksPerElement) {
  const Node node = MakeNode("RandomStandardNormal", Attrs(DType::kFloat, 4, 9), 1);
  const std::vector<Tensor> inputs = {T1<int32_t>({6})};
  reference::Philox stream(4, 9);
  const Tensor first = RunWithStream(node, inputs, stream);
  reference::Philox expected(4, 9);
  expected.Skip(6 * 256);
  EXPECT_EQ(stream, expected);
  const Tensor second = RunWithStream(node, inputs, stream);
  EXPECT_FALSE(first.BitwiseEqual(second));
  // The first run is the one a fresh stream gives, and the second the one a stream already
  // moved on gives.
  EXPECT_TRUE(
      RunOp1("RandomStandardNormal", inputs, Attrs(DType::kFloat, 4, 9)).BitwiseEqual(first));
  reference::Philox moved(4, 9);
  moved.Skip(6 * 256);
  EXPECT_TRUE(RunWithStream(node, inputs, moved).BitwiseEqual(second));
}

// TensorFlow's own values: the tf-dl4j conformance cases random_uniform/rank3_half
// (seed 12345, seed2 1), random_normal/rank2_half (seed 1, seed2 12345) and
// random_uniform_int/rank3_int64 (seed 12345, seed2 0, int32 in [1, 10)).
TEST(RandomTest, UniformHalfIsTensorFlows) {
  const Tensor t = RunOp1("RandomUniform", {T1<int64_t>({9, 3, 1})}, Attrs(DType::kHalf, 12345, 1));
  EXPECT_THAT(
      ValuesAsDouble(t),
      ::testing::ElementsAreArray(
          {0.755859375,  0.5419921875, 0.9765625,    0.7041015625, 0.947265625, 0.58203125,
           0.763671875,  0.9267578125, 0.2392578125, 0.080078125,  0.068359375, 0.484375,
           0.6416015625, 0.2685546875, 0.8310546875, 0.8037109375, 0.37890625,  0.783203125,
           0.7890625,    0.3671875,    0.8193359375, 0.7958984375, 0.54296875,  0.0224609375,
           0.6611328125, 0.0380859375, 0.8759765625}));
}

TEST(RandomTest, StandardNormalHalfIsTensorFlows) {
  const Tensor t =
      RunOp1("RandomStandardNormal", {T1<int32_t>({7, 2})}, Attrs(DType::kHalf, 1, 12345));
  EXPECT_THAT(ValuesAsDouble(t),
              ::testing::ElementsAreArray({0.067138671875, 1.65625, 1.13671875, 0.3212890625,
                                           0.7158203125, 0.471435546875, -0.2039794921875,
                                           0.68701171875, 0.1558837890625, 0.73583984375,
                                           0.36181640625, -0.873046875, 1.421875, 0.52490234375}));
}

TEST(RandomTest, UniformIntIsTensorFlows) {
  const Tensor t = RunOp1("RandomUniformInt",
                          {T1<int64_t>({9, 3, 1}), TN<int32_t>({1}, {}), TN<int32_t>({10}, {})},
                          {{"Tout", DType::kInt32},
                           {"T", DType::kInt64},
                           {"seed", int64_t{12345}},
                           {"seed2", int64_t{0}}});
  EXPECT_EQ(t.shape(), (Shape{9, 3, 1}));
  EXPECT_THAT(Values<int32_t>(t),
              ::testing::ElementsAreArray({6, 1, 1, 4, 8, 9, 5, 1, 1, 5, 5, 2, 8, 5,
                                           2, 6, 7, 4, 5, 9, 7, 9, 1, 8, 7, 9, 2}));
}

// How each dtype takes words from the blocks: float32 one word a value, four values a block;
// float64 two words a value, the first word giving the high mantissa bits.
TEST(RandomTest, UniformTakesWordsInTensorFlowsOrder) {
  reference::Philox gen(77, 5);
  const reference::Philox::Block b0 = gen.Next();
  const reference::Philox::Block b1 = gen.Next();
  const Tensor f = RunOp1("RandomUniform", {T1<int32_t>({6})}, Attrs(DType::kFloat, 77, 5));
  EXPECT_EQ(Values<float>(f)[1], reference::Uint32ToFloat(b0[1]));
  EXPECT_EQ(Values<float>(f)[5], reference::Uint32ToFloat(b1[1]));
  const Tensor d = RunOp1("RandomUniform", {T1<int32_t>({3})}, Attrs(DType::kDouble, 77, 5));
  EXPECT_EQ(Values<double>(d)[1], reference::Uint64ToDouble(b0[2], b0[3]));
  EXPECT_EQ(Values<double>(d)[2], reference::Uint64ToDouble(b1[0], b1[1]));
  const Tensor n = RunOp1("RandomStandardNormal", {T1<int32_t>({3})}, Attrs(DType::kDouble, 77, 5));
  EXPECT_EQ(Values<double>(n)[1], reference::BoxMullerDouble(b0[0], b0[1], b0[2], b0[3])[1]);
  EXPECT_EQ(Values<double>(n)[2], reference::BoxMullerDouble(b1[0], b1[1], b1[2], b1[3])[0]);
}

// A truncated normal group (four float32 values) starts its own generator 256 blocks after
// the previous group's, whatever the rejections before it.
TEST(RandomTest, TruncatedNormalGroupsStartEvery256Blocks) {
  const Node node = MakeNode("TruncatedNormal", Attrs(DType::kFloat), 1);
  const std::vector<Tensor> eight = {T1<int32_t>({8})};
  const std::vector<Tensor> four = {T1<int32_t>({4})};
  reference::Philox base(3, 1);
  const std::vector<float> all = Values<float>(RunWithStream(node, eight, base));
  reference::Philox second_group(3, 1);
  second_group.Skip(256);
  EXPECT_THAT(Values<float>(RunWithStream(node, four, second_group)),
              ::testing::ElementsAre(all[4], all[5], all[6], all[7]));
  for (float x : all) EXPECT_LT(std::abs(x), 2.0f);
}

// Without seeds TensorFlow picks random ones; dfc derives them from the node's name, so a
// graph repeats from run to run and process to process.
TEST(RandomTest, UnseededStreamsFollowTheNodeName) {
  const Node a = MakeNode("RandomUniform", Attrs(DType::kFloat), 1);
  Node b = a;
  b.name = "other";
  EXPECT_EQ(reference::NodePhilox(a), reference::NodePhilox(a));
  EXPECT_NE(reference::NodePhilox(a), reference::NodePhilox(b));
  EXPECT_EQ(reference::NodePhilox(MakeNode("RandomUniform", Attrs(DType::kFloat, 0, 3), 1)),
            reference::Philox(0, 3));
}

TEST(RandomTest, UniformIntRangesAndDtypes) {
  const AttrMap attrs64 = {{"Tout", DType::kInt64}, {"seed", int64_t{2}}, {"seed2", int64_t{3}}};
  const Tensor t = RunOp1("RandomUniformInt",
                          {T1<int32_t>({1000}), TN<int64_t>({-(int64_t{1} << 40)}, {}),
                           TN<int64_t>({int64_t{1} << 40}, {})},
                          attrs64);
  int64_t lo = 0, hi = 0;
  for (int64_t x : Values<int64_t>(t)) {
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  EXPECT_GE(lo, -(int64_t{1} << 40));
  EXPECT_LT(hi, int64_t{1} << 40);
  EXPECT_LT(lo, -(int64_t{1} << 38));  // 1000 draws spread over the range
  EXPECT_GT(hi, int64_t{1} << 38);
  // The full int32 range minus one: lo + bits % range never overflows.
  const Tensor wide =
      RunOp1("RandomUniformInt",
             {T1<int32_t>({64}), TN<int32_t>({INT32_MIN}, {}), TN<int32_t>({INT32_MAX}, {})},
             {{"Tout", DType::kInt32}, {"seed", int64_t{9}}});
  for (int32_t x : Values<int32_t>(wide)) EXPECT_LT(x, INT32_MAX);
}

TEST(RandomTest, UniformIntErrors) {
  const AttrMap attrs = {{"Tout", DType::kInt32}};
  ExpectError(RunOp("RandomUniformInt",
                    {T1<int32_t>({2}), TN<int32_t>({3}, {}), TN<int32_t>({3}, {})}, attrs),
              "needs minval < maxval, got 3 >= 3");
  ExpectError(
      RunOp("RandomUniformInt", {T1<int32_t>({2}), T1<int32_t>({0}), TN<int32_t>({3}, {})}, attrs),
      "minval must be a scalar");
  ExpectError(RunOp("RandomUniformInt",
                    {T1<int32_t>({2}), TN<int64_t>({0}, {}), TN<int64_t>({3}, {})}, attrs),
              "minval must be int32 (Tout)");
  ExpectError(RunOp("RandomUniformInt", {T1<int32_t>({2}), TN<float>({0}, {}), TN<float>({3}, {})},
                    {{"Tout", DType::kFloat}}),
              "Tout must be int32 or int64, got float32");
  // As in TensorFlow, an empty output needs no valid range.
  const absl::StatusOr<std::vector<Tensor>> empty = RunOp(
      "RandomUniformInt", {T1<int32_t>({0, 2}), TN<int32_t>({3}, {}), TN<int32_t>({3}, {})}, attrs);
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].shape(), (Shape{0, 2}));
}

TEST(RandomTest, EmptyAndScalarShapes) {
  EXPECT_EQ(RunOp1("RandomUniform", {T1<int32_t>({0, 3})}, Attrs(DType::kFloat)).shape(),
            (Shape{0, 3}));
  EXPECT_EQ(RunOp1("RandomUniform", {T1<int32_t>({})}, Attrs(DType::kFloat)).shape(), (Shape{}));
}

TEST(RandomTest, Errors) {
  absl::StatusOr<std::vector<Tensor>> r =
      RunOp("RandomUniform", {T1<int32_t>({2, -1})}, Attrs(DType::kFloat));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("negative"));
  r = RunOp("RandomStandardNormal", {T1<int32_t>({2})}, Attrs(DType::kInt32));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              HasSubstr("dtype must be float16, float32 or float64, got int32"));
  r = RunOp("TruncatedNormal", {T1<float>({2})}, Attrs(DType::kFloat));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("shape must be int32 or int64"));
}

}  // namespace
}  // namespace dfc
