// Tests of the pooling reference kernels: hand-computed windows, the laws that tie the ops
// together (NCHW is NHWC transposed, a depth-1 3-D pool is a 2-D pool, each gradient is the
// adjoint of its pool) and the errors.
#include <cmath>
#include <cstdint>
#include <limits>
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
using ::testing::ElementsAre;

AttrValue Ints(std::vector<int64_t> v) {
  AttrList list;
  list.i = std::move(v);
  return list;
}

AttrMap PoolAttrs(std::vector<int64_t> ksize, std::vector<int64_t> strides, std::string padding,
                  std::string format = "NHWC") {
  return {{"ksize", Ints(std::move(ksize))},
          {"strides", Ints(std::move(strides))},
          {"padding", std::move(padding)},
          {"data_format", std::move(format)}};
}

Tensor RandomDoubles(Shape shape, uint64_t seed) {
  Tensor t = Tensor::Zeros(DType::kDouble, std::move(shape));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (double& v : t.mutable_flat<double>()) v = uniform(rng);
  return t;
}

double Dot(const Tensor& a, const Tensor& b) {
  const std::vector<double> x = ValuesAsDouble(a);
  const std::vector<double> y = ValuesAsDouble(b);
  EXPECT_EQ(x.size(), y.size());
  double sum = 0;
  for (size_t i = 0; i < x.size(); ++i) sum += x[i] * y[i];
  return sum;
}

TEST(MaxPoolTest, ValidTwoByTwoStrideTwo) {
  const Tensor x = TN<float>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {1, 4, 4, 1});
  const Tensor out = RunOp1("MaxPool", {x}, PoolAttrs({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"));
  EXPECT_EQ(out.shape(), Shape({1, 2, 2, 1}));
  EXPECT_THAT(Values<float>(out), ElementsAre(5, 7, 13, 15));
}

// SAME pads a 3x3 input to 4x4 after it (pad_before 0): padding is never a maximum and never
// counted in an average, so negative inputs give negative results.
TEST(MaxPoolTest, SameIgnoresPadding) {
  const Tensor x = TN<float>({-1, -2, -3, -4, -5, -6, -7, -8, -9}, {1, 3, 3, 1});
  const AttrMap attrs = PoolAttrs({1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  EXPECT_THAT(Values<float>(RunOp1("MaxPool", {x}, attrs)), ElementsAre(-1, -3, -7, -9));
  EXPECT_THAT(Values<float>(RunOp1("AvgPool", {x}, attrs)), ElementsAre(-3, -4.5, -7.5, -9));
}

TEST(MaxPoolTest, ExplicitPadding) {
  const Tensor x = TN<float>({1, 2, 3, 4}, {1, 2, 2, 1});
  AttrMap attrs = PoolAttrs({1, 2, 2, 1}, {1, 1, 1, 1}, "EXPLICIT");
  attrs["explicit_paddings"] = Ints({0, 0, 1, 1, 1, 1, 0, 0});
  const Tensor out = RunOp1("MaxPool", {x}, attrs);
  EXPECT_EQ(out.shape(), Shape({1, 3, 3, 1}));
  EXPECT_THAT(Values<float>(out), ElementsAre(1, 2, 2, 3, 4, 4, 3, 4, 4));
}

// TensorFlow's CPU kernel starts each maximum at the lowest float and takes only larger
// elements: a window wholly in EXPLICIT padding or of -inf gives the lowest float, NaN loses.
TEST(MaxPoolTest, LowestFloatStartsTheMaximum) {
  constexpr float kLowest = std::numeric_limits<float>::lowest();
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const Tensor x = TN<float>({5}, {1, 1, 1, 1});
  AttrMap attrs = PoolAttrs({1, 1, 2, 1}, {1, 1, 1, 1}, "EXPLICIT");
  attrs["explicit_paddings"] = Ints({0, 0, 0, 0, 2, 0, 0, 0});
  EXPECT_THAT(Values<float>(RunOp1("MaxPool", {x}, attrs)), ElementsAre(kLowest, 5));

  const Tensor y = TN<float>({NAN, 1, 1, NAN, -kInf, -kInf}, {1, 1, 6, 1});
  const AttrMap pairs = PoolAttrs({1, 1, 2, 1}, {1, 1, 2, 1}, "VALID");
  EXPECT_THAT(Values<float>(RunOp1("MaxPool", {y}, pairs)), ElementsAre(1, 1, kLowest));
}

TEST(MaxPoolTest, IntegerAndHalfDtypes) {
  const AttrMap attrs = PoolAttrs({1, 1, 2, 1}, {1, 1, 2, 1}, "VALID");
  const Tensor i = RunOp1("MaxPool", {TN<int32_t>({-7, -3, 9, 2}, {1, 1, 4, 1})}, attrs);
  EXPECT_EQ(i.dtype(), DType::kInt32);
  EXPECT_THAT(Values<int32_t>(i), ElementsAre(-3, 9));
  const Tensor u = RunOp1("MaxPool", {TN<uint8_t>({200, 7, 0, 255}, {1, 1, 4, 1})}, attrs);
  EXPECT_THAT(Values<uint8_t>(u), ElementsAre(200, 255));
  const Tensor h = RunOp1("MaxPool", {HalfTensor({0.5, -1, 2.5, 3}, {1, 1, 4, 1})}, attrs);
  EXPECT_EQ(h.dtype(), DType::kHalf);
  EXPECT_THAT(ValuesAsDouble(h), ElementsAre(0.5, 3));
  // 1 + 2^-10 and 1 average to 1 + 2^-11, a tie between two halves: rounded once, to even.
  const Tensor a = RunOp1("AvgPool", {HalfTensor({1 + 0x1p-10f, 1}, {1, 1, 2, 1})}, attrs);
  EXPECT_THAT(ValuesAsDouble(a), ElementsAre(1.0));
}

TEST(MaxPoolTest, ZeroSizeTensors) {
  const AttrMap attrs = PoolAttrs({1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  const Tensor empty_batch = RunOp1("MaxPool", {Tensor::Zeros(DType::kFloat, {0, 4, 4, 3})}, attrs);
  EXPECT_EQ(empty_batch.shape(), Shape({0, 2, 2, 3}));
  const Tensor empty_rows = RunOp1("AvgPool", {Tensor::Zeros(DType::kFloat, {1, 0, 4, 3})}, attrs);
  EXPECT_EQ(empty_rows.shape(), Shape({1, 0, 2, 3}));
  const Tensor grad = RunOp1("AvgPoolGrad", {T1<int32_t>({1, 0, 4, 3}), empty_rows}, attrs);
  EXPECT_EQ(grad.shape(), Shape({1, 0, 4, 3}));
}

TEST(MaxPoolTest, V2TakesKsizeAndStridesAsInputs) {
  const Tensor x = UniformFloats({2, 7, 6, 3}, 1, -1, 1);
  const Tensor v1 = RunOp1("MaxPool", {x}, PoolAttrs({1, 3, 2, 1}, {1, 2, 2, 1}, "SAME"));
  const Tensor v2 = RunOp1("MaxPoolV2", {x, T1<int32_t>({1, 3, 2, 1}), T1<int32_t>({1, 2, 2, 1})},
                           {{"padding", std::string("SAME")}});
  EXPECT_TRUE(v1.BitwiseEqual(v2));
}

// One window configuration, run in NHWC and NCHW (and their 3-D forms).
struct LayoutCase {
  std::string op;
  Shape nhwc;                   // the input, channels last
  std::vector<int64_t> window;  // spatial ksize
  std::vector<int64_t> stride;  // spatial strides
  std::string padding;
};

// Spatial values placed in a per-dimension list of `format`'s order.
std::vector<int64_t> PerDimension(const std::vector<int64_t>& spatial, bool channels_first) {
  std::vector<int64_t> v = {1};
  if (channels_first) v.push_back(1);
  v.insert(v.end(), spatial.begin(), spatial.end());
  if (!channels_first) v.push_back(1);
  return v;
}

class PoolLayoutTest : public ::testing::TestWithParam<LayoutCase> {};

TEST_P(PoolLayoutTest, ChannelsFirstIsChannelsLastTransposed) {
  const LayoutCase& c = GetParam();
  const bool three_d = c.nhwc.size() == 5;
  const Tensor x = UniformFloats(c.nhwc, 7, -2, 2);
  const AttrMap last = PoolAttrs(PerDimension(c.window, false), PerDimension(c.stride, false),
                                 c.padding, three_d ? "NDHWC" : "NHWC");
  const AttrMap first = PoolAttrs(PerDimension(c.window, true), PerDimension(c.stride, true),
                                  c.padding, three_d ? "NCDHW" : "NCHW");
  const Tensor out_last = RunOp1(c.op, {x}, last);
  const Tensor out_first = RunOp1(c.op, {MoveChannels<float>(x, true)}, first);
  EXPECT_TRUE(MoveChannels<float>(out_first, false).BitwiseEqual(out_last));
}

INSTANTIATE_TEST_SUITE_P(
    Pools, PoolLayoutTest,
    ::testing::Values(LayoutCase{"MaxPool", {2, 5, 7, 3}, {3, 2}, {2, 1}, "SAME"},
                      LayoutCase{"MaxPool", {1, 6, 6, 2}, {2, 3}, {2, 3}, "VALID"},
                      LayoutCase{"AvgPool", {2, 5, 7, 3}, {3, 3}, {2, 2}, "SAME"},
                      LayoutCase{"AvgPool", {1, 6, 5, 2}, {2, 2}, {1, 2}, "VALID"},
                      LayoutCase{"MaxPool3D", {2, 4, 5, 3, 2}, {2, 3, 2}, {2, 1, 2}, "SAME"},
                      LayoutCase{"AvgPool3D", {1, 4, 5, 3, 2}, {3, 2, 2}, {1, 2, 1}, "SAME"},
                      LayoutCase{"AvgPool3D", {1, 4, 5, 3, 2}, {2, 2, 2}, {2, 2, 2}, "VALID"}));

// A 3-D pool over a depth-1 input with a depth-1 window is the 2-D pool.
TEST(Pool3DTest, DepthOneIsTheTwoDimensionalPool) {
  const Tensor x = UniformFloats({2, 5, 6, 3}, 3, -1, 1);
  const Tensor x3 = *x.Reshaped({2, 1, 5, 6, 3});
  for (const std::string padding : {"SAME", "VALID"}) {
    const AttrMap a2 = PoolAttrs({1, 3, 2, 1}, {1, 2, 2, 1}, padding);
    const AttrMap a3 = PoolAttrs({1, 1, 3, 2, 1}, {1, 1, 2, 2, 1}, padding, "NDHWC");
    for (const auto& [op2, op3] : {std::pair{"MaxPool", "MaxPool3D"}, {"AvgPool", "AvgPool3D"}}) {
      const Tensor out2 = RunOp1(op2, {x}, a2);
      const Tensor out3 = RunOp1(op3, {x3}, a3);
      EXPECT_EQ(out3.shape()[1], 1);
      EXPECT_TRUE(out3.Reshaped(out2.shape())->BitwiseEqual(out2)) << op3 << " " << padding;
    }
  }
}

TEST(Pool3DTest, AverageOfAHandComputedCube) {
  // 2x2x2 input 0..7, a 2x2x2 window with SAME and stride 2: one window holding everything.
  const Tensor x = TN<float>({0, 1, 2, 3, 4, 5, 6, 7}, {1, 2, 2, 2, 1});
  const AttrMap attrs = PoolAttrs({1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "SAME", "NDHWC");
  EXPECT_THAT(Values<float>(RunOp1("AvgPool3D", {x}, attrs)), ElementsAre(3.5));
  EXPECT_THAT(Values<float>(RunOp1("MaxPool3D", {x}, attrs)), ElementsAre(7));
  // Stride 1, SAME: the window at (1,1,1) holds only element 7.
  const AttrMap stride1 = PoolAttrs({1, 2, 2, 2, 1}, {1, 1, 1, 1, 1}, "SAME", "NDHWC");
  const Tensor avg = RunOp1("AvgPool3D", {x}, stride1);
  EXPECT_THAT(Values<float>(avg), ElementsAre(3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7));
}

TEST(MaxPoolGradTest, TiesGoToTheFirstMaximumAndOverlapsAdd) {
  // Windows (SAME, width 2, stride 1): {1, 3}, {3, 2}, {2}.
  const Tensor x = TN<float>({1, 3, 2}, {1, 1, 3, 1});
  const Tensor y = TN<float>({3, 3, 2}, {1, 1, 3, 1});
  const Tensor dy = TN<float>({1, 10, 100}, {1, 1, 3, 1});
  const AttrMap attrs = PoolAttrs({1, 1, 2, 1}, {1, 1, 1, 1}, "SAME");
  EXPECT_THAT(Values<float>(RunOp1("MaxPoolGrad", {x, y, dy}, attrs)), ElementsAre(0, 11, 100));
  // All equal: each window's gradient goes to its top-left element.
  const Tensor ones = TN<float>({1, 1, 1, 1, 1, 1, 1, 1}, {1, 2, 4, 1});
  const Tensor g = RunOp1("MaxPoolGrad",
                          {ones, TN<float>({1, 1}, {1, 1, 2, 1}), TN<float>({5, 7}, {1, 1, 2, 1})},
                          PoolAttrs({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID"));
  EXPECT_THAT(Values<float>(g), ElementsAre(5, 0, 7, 0, 0, 0, 0, 0));
}

TEST(MaxPoolGradTest, IntegersAndV2) {
  const Tensor x = TN<int32_t>({4, 9, 9, 1}, {1, 1, 4, 1});
  const Tensor y = TN<int32_t>({9, 9}, {1, 1, 2, 1});
  const Tensor dy = TN<int32_t>({-2, 6}, {1, 1, 2, 1});
  const AttrMap attrs = PoolAttrs({1, 1, 2, 1}, {1, 1, 2, 1}, "VALID");
  const Tensor g1 = RunOp1("MaxPoolGrad", {x, y, dy}, attrs);
  EXPECT_THAT(Values<int32_t>(g1), ElementsAre(0, -2, 6, 0));
  const Tensor g2 =
      RunOp1("MaxPoolGradV2", {x, y, dy, T1<int32_t>({1, 1, 2, 1}), T1<int32_t>({1, 1, 2, 1})},
             {{"padding", std::string("VALID")}});
  EXPECT_TRUE(g1.BitwiseEqual(g2));
}

TEST(AvgPoolGradTest, SharesDivideByTheInBoundsCount) {
  // Windows (SAME, width 2, stride 1): {0, 1}, {1, 2}, {2}, of 2, 2 and 1 elements.
  const Tensor dy = TN<float>({2, 4, 8}, {1, 1, 3, 1});
  const Tensor g = RunOp1("AvgPoolGrad", {T1<int32_t>({1, 1, 3, 1}), dy},
                          PoolAttrs({1, 1, 2, 1}, {1, 1, 1, 1}, "SAME"));
  EXPECT_EQ(g.shape(), Shape({1, 1, 3, 1}));
  EXPECT_THAT(Values<float>(g), ElementsAre(1, 3, 10));
}

// The gradients are adjoints of their pools: <pool(x), g> == <x, grad(g)>. For MaxPool this
// holds at x, whose (distinct, so untied) maxima fix the linear map.
struct AdjointCase {
  Shape nhwc;
  std::vector<int64_t> window;
  std::vector<int64_t> stride;
  std::string padding;
  bool channels_first;
};

class PoolAdjointTest : public ::testing::TestWithParam<AdjointCase> {};

TEST_P(PoolAdjointTest, GradientIsTheAdjoint) {
  const AdjointCase& c = GetParam();
  Tensor x = RandomDoubles(c.nhwc, 11);
  if (c.channels_first) x = MoveChannels<double>(x, true);
  const AttrMap attrs =
      PoolAttrs(PerDimension(c.window, c.channels_first), PerDimension(c.stride, c.channels_first),
                c.padding, c.channels_first ? "NCHW" : "NHWC");
  std::vector<int32_t> shape(x.shape().begin(), x.shape().end());

  const Tensor avg = RunOp1("AvgPool", {x}, attrs);
  const Tensor g = RandomDoubles(avg.shape(), 12);
  const Tensor avg_grad = RunOp1("AvgPoolGrad", {T1<int32_t>(shape), g}, attrs);
  EXPECT_NEAR(Dot(avg, g), Dot(x, avg_grad), 1e-12);

  const Tensor max = RunOp1("MaxPool", {x}, attrs);
  const Tensor max_grad = RunOp1("MaxPoolGrad", {x, max, g}, attrs);
  EXPECT_NEAR(Dot(max, g), Dot(x, max_grad), 1e-12);
  EXPECT_NE(Dot(max, g), 0);
}

INSTANTIATE_TEST_SUITE_P(
    Windows, PoolAdjointTest,
    ::testing::Values(AdjointCase{{2, 7, 6, 3}, {3, 3}, {2, 2}, "SAME", false},
                      AdjointCase{{2, 7, 6, 3}, {3, 3}, {2, 2}, "SAME", true},
                      AdjointCase{{1, 8, 9, 2}, {2, 4}, {1, 3}, "VALID", false},
                      AdjointCase{{1, 8, 9, 2}, {4, 2}, {3, 1}, "SAME", true},
                      AdjointCase{{3, 5, 5, 1}, {5, 5}, {1, 1}, "SAME", false}));

TEST(MaxPoolWithArgmaxTest, FlatIndicesWithAndWithoutTheBatch) {
  // Batch 0: max 4 at (0, 1); batch 1: three 5s, the first at (0, 0).
  const Tensor x = TN<double>({1, 4, 3, 2, 5, 5, 0, 5}, {2, 2, 2, 1});
  AttrMap attrs = PoolAttrs({1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  attrs.erase("data_format");
  attrs["include_batch_in_index"] = true;
  absl::StatusOr<std::vector<Tensor>> with = RunOp("MaxPoolWithArgmax", {x}, attrs);
  ASSERT_TRUE(with.ok()) << with.status();
  EXPECT_THAT(Values<double>((*with)[0]), ElementsAre(4, 5));
  EXPECT_EQ((*with)[1].dtype(), DType::kInt64);
  EXPECT_THAT(Values<int64_t>((*with)[1]), ElementsAre(1, 4));
  attrs["include_batch_in_index"] = false;
  attrs["Targmax"] = DType::kInt32;
  absl::StatusOr<std::vector<Tensor>> without = RunOp("MaxPoolWithArgmax", {x}, attrs);
  ASSERT_TRUE(without.ok()) << without.status();
  EXPECT_THAT(Values<int32_t>((*without)[1]), ElementsAre(1, 0));
}

TEST(MaxPoolWithArgmaxTest, ChannelsInTheIndex) {
  // x at width 0: (1, 9), width 1: (3, 2): channel 0's max is at offset 2, channel 1's at 1.
  const Tensor x = TN<int64_t>({1, 9, 3, 2}, {1, 1, 2, 2});
  AttrMap attrs = PoolAttrs({1, 1, 2, 1}, {1, 1, 1, 1}, "VALID");
  attrs.erase("data_format");
  absl::StatusOr<std::vector<Tensor>> out = RunOp("MaxPoolWithArgmax", {x}, attrs);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<int64_t>((*out)[0]), ElementsAre(3, 9));
  EXPECT_THAT(Values<int64_t>((*out)[1]), ElementsAre(2, 1));
}

TEST(MaxPoolWithArgmaxTest, OutputIsMaxPoolAndArgmaxPointsAtIt) {
  const Tensor x = UniformFloats({2, 7, 5, 3}, 5, -1, 1);
  AttrMap attrs = PoolAttrs({1, 3, 2, 1}, {1, 2, 2, 1}, "SAME");
  const Tensor max = RunOp1("MaxPool", {x}, attrs);
  attrs.erase("data_format");
  attrs["include_batch_in_index"] = true;
  absl::StatusOr<std::vector<Tensor>> out = RunOp("MaxPoolWithArgmax", {x}, attrs);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*out)[0].BitwiseEqual(max));
  const std::vector<int64_t> arg = Values<int64_t>((*out)[1]);
  const std::vector<float> y = Values<float>(max);
  for (size_t k = 0; k < arg.size(); ++k) EXPECT_EQ(x.data<float>()[arg[k]], y[k]);
}

struct ErrorCase {
  std::string name;
  std::string op;
  std::vector<Tensor> inputs;
  AttrMap attrs;
  std::string needle;
};

class PoolErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(PoolErrorTest, NamesTheProblem) {
  const ErrorCase& c = GetParam();
  const absl::StatusOr<std::vector<Tensor>> result = RunOp(c.op, c.inputs, c.attrs);
  ExpectError(result, c.needle);
  if (!result.ok()) {
    EXPECT_THAT(std::string(result.status().message()), ::testing::HasSubstr("node \"node\""));
  }
}

std::vector<ErrorCase> ErrorCases() {
  const Tensor x = Tensor::Zeros(DType::kFloat, {1, 4, 4, 2});
  const AttrMap same = PoolAttrs({1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
  AttrMap explicit_pad = PoolAttrs({1, 2, 2, 1}, {1, 1, 1, 1}, "EXPLICIT");
  explicit_pad["explicit_paddings"] = Ints({0, 0, 1, 1, 1, 1, 0, 0});
  AttrMap argmax = same;
  argmax.erase("data_format");
  AttrMap float_targmax = argmax;
  float_targmax["Targmax"] = DType::kFloat;
  const Tensor y = Tensor::Zeros(DType::kFloat, {1, 2, 2, 2});
  const Tensor k4 = T1<int32_t>({1, 2, 2, 1});
  return {
      {"Rank3", "MaxPool", {Tensor::Zeros(DType::kFloat, {4, 4, 2})}, same, "must have rank 4"},
      {"WindowLargerThanValidInput",
       "MaxPool",
       {x},
       PoolAttrs({1, 5, 2, 1}, {1, 1, 1, 1}, "VALID"),
       "larger than the input"},
      {"AvgPoolHasNoExplicit", "AvgPool", {x}, explicit_pad, "padding \"EXPLICIT\""},
      {"AvgPoolOfInts",
       "AvgPool",
       {Tensor::Zeros(DType::kInt32, {1, 4, 4, 2})},
       same,
       "dtype int32"},
      {"MaxPool3DOfDouble",
       "MaxPool3D",
       {Tensor::Zeros(DType::kDouble, {1, 2, 2, 2, 1})},
       PoolAttrs({1, 1, 1, 1, 1}, {1, 1, 1, 1, 1}, "VALID", "NDHWC"),
       "dtype float64"},
      {"WindowOverBatch",
       "MaxPool",
       {x},
       PoolAttrs({2, 2, 2, 1}, {1, 1, 1, 1}, "VALID"),
       "batch or channel"},
      {"ThreeDFormatOnTwoD",
       "MaxPool",
       {x},
       PoolAttrs({1, 2, 2, 1}, {1, 1, 1, 1}, "VALID", "NDHWC"),
       "data_format \"NDHWC\""},
      {"TwoInputs", "MaxPool", {x, x}, same, "expects 1 inputs"},
      {"GradShape",
       "MaxPoolGrad",
       {x, y, Tensor::Zeros(DType::kFloat, {1, 2, 3, 2})},
       same,
       "grad must have the pool's output shape [1,2,2,2]"},
      {"GradDtype",
       "MaxPoolGrad",
       {x, y, Tensor::Zeros(DType::kDouble, {1, 2, 2, 2})},
       same,
       "grad must have orig_input's dtype"},
      {"GradV2HasNoExplicit",
       "MaxPoolGradV2",
       {x, y, y, k4, T1<int32_t>({1, 1, 1, 1})},
       {{"padding", std::string("EXPLICIT")}},
       "padding \"EXPLICIT\""},
      {"AvgPoolGradShapeLength",
       "AvgPoolGrad",
       {T1<int32_t>({4, 4, 2}), y},
       same,
       "orig_input_shape must have rank 4"},
      {"AvgPoolGradShapeDtype", "AvgPoolGrad", {T1<int64_t>({1, 4, 4, 2}), y}, same, "dtype int64"},
      {"AvgPoolGradGradShape",
       "AvgPoolGrad",
       {T1<int32_t>({1, 4, 4, 2}), x},
       same,
       "grad must have the pool's output shape"},
      {"ArgmaxTargmax", "MaxPoolWithArgmax", {x}, float_targmax, "Targmax"},
      {"ArgmaxIsNhwcOnly",
       "MaxPoolWithArgmax",
       {x},
       PoolAttrs({1, 1, 2, 2}, {1, 1, 1, 1}, "SAME", "NCHW"),
       "data_format \"NCHW\""},
      {"V2KsizeLength",
       "MaxPoolV2",
       {x, T1<int32_t>({2, 2}), k4},
       {{"padding", std::string("SAME")}},
       "\"ksize\" is [2,2], expected 4 entries"},
      {"V2StridesDtype",
       "MaxPoolV2",
       {x, k4, T1<int64_t>({1, 1, 1, 1})},
       {{"padding", std::string("SAME")}},
       "dtype int64"},
  };
}

INSTANTIATE_TEST_SUITE_P(Errors, PoolErrorTest, ::testing::ValuesIn(ErrorCases()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace dfc
