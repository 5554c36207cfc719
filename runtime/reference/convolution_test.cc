// Tests of the convolution reference kernels (Conv2D, Conv3D, DepthwiseConv2dNative, their input
// and filter gradients, ExtractImagePatches): small cases worked out by hand, and the gradients
// checked against the forward op through the adjoint identity on seeded random inputs.
#include <cstdint>
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
using ::dfc::testing::RunOp;
using ::dfc::testing::RunOp1;
using ::dfc::testing::T1;
using ::dfc::testing::TN;
using ::dfc::testing::ValuesAsDouble;
using ::testing::ElementsAre;

AttrList Ints(std::vector<int64_t> v) {
  AttrList list;
  list.i = std::move(v);
  return list;
}

AttrMap Window(std::vector<int64_t> strides, std::string padding, std::string format = "NHWC") {
  return {{"strides", Ints(std::move(strides))},
          {"padding", std::move(padding)},
          {"data_format", std::move(format)}};
}

Tensor Sizes(const Shape& shape) {
  return T1<int32_t>(std::vector<int32_t>(shape.begin(), shape.end()));
}

// `v` in the dtype under test.
Tensor Typed(DType dtype, const std::vector<double>& v, Shape shape) {
  switch (dtype) {
    case DType::kHalf:
      return HalfTensor(std::vector<float>(v.begin(), v.end()), shape);
    case DType::kFloat:
      return TN<float>(std::vector<float>(v.begin(), v.end()), shape);
    case DType::kInt32:
      return TN<int32_t>(std::vector<int32_t>(v.begin(), v.end()), shape);
    default:
      return TN<double>(v, shape);
  }
}

class Conv2DDTypeTest : public ::testing::TestWithParam<DType> {};

TEST_P(Conv2DDTypeTest, ValidAndSameByHand) {
  const Tensor x = Typed(GetParam(), {1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 3, 3, 1});
  const Tensor f = Typed(GetParam(), {1, 2, 3, 4}, {2, 2, 1, 1});
  const Tensor valid = RunOp1("Conv2D", {x, f}, Window({1, 1, 1, 1}, "VALID"));
  EXPECT_EQ(valid.dtype(), GetParam());
  EXPECT_EQ(valid.shape(), Shape({1, 2, 2, 1}));
  EXPECT_THAT(ValuesAsDouble(valid), ElementsAre(37, 47, 67, 77));
  // SAME pads one row and column after (the smaller half, zero, goes before).
  const Tensor same = RunOp1("Conv2D", {x, f}, Window({1, 1, 1, 1}, "SAME"));
  EXPECT_EQ(same.shape(), Shape({1, 3, 3, 1}));
  EXPECT_THAT(ValuesAsDouble(same), ElementsAre(37, 47, 21, 67, 77, 33, 23, 26, 9));
}

INSTANTIATE_TEST_SUITE_P(DTypes, Conv2DDTypeTest,
                         ::testing::Values(DType::kFloat, DType::kDouble, DType::kHalf,
                                           DType::kInt32),
                         [](const ::testing::TestParamInfo<DType>& info) {
                           return std::string(DTypeName(info.param));
                         });

TEST(Conv2DTest, StridesAndDilations) {
  // x = 0..24 as 5x5; a 2x2 window of ones dilated by 2 spans 3, stride 2: windows at 0 and 2.
  std::vector<double> iota(25);
  for (int i = 0; i < 25; ++i) iota[i] = i;
  AttrMap attrs = Window({1, 2, 2, 1}, "VALID");
  attrs["dilations"] = Ints({1, 2, 2, 1});
  const Tensor y = RunOp1(
      "Conv2D", {TN<double>(iota, {1, 5, 5, 1}), TN<double>({1, 1, 1, 1}, {2, 2, 1, 1})}, attrs);
  EXPECT_EQ(y.shape(), Shape({1, 2, 2, 1}));
  EXPECT_THAT(ValuesAsDouble(y),
              ElementsAre(0 + 2 + 10 + 12, 2 + 4 + 12 + 14, 10 + 12 + 20 + 22, 12 + 14 + 22 + 24));
}

TEST(Conv2DTest, ExplicitPadding) {
  // One row before and one column after: a 3x3 output of 2x.
  AttrMap attrs = Window({1, 1, 1, 1}, "EXPLICIT");
  attrs["explicit_paddings"] = Ints({0, 0, 1, 0, 0, 1, 0, 0});
  const Tensor y = RunOp1(
      "Conv2D", {TN<float>({1, 2, 3, 4}, {1, 2, 2, 1}), TN<float>({2}, {1, 1, 1, 1})}, attrs);
  EXPECT_EQ(y.shape(), Shape({1, 3, 3, 1}));
  EXPECT_THAT(ValuesAsDouble(y), ElementsAre(0, 0, 0, 2, 4, 0, 6, 8, 0));
}

TEST(Conv2DTest, ChannelsMixAndNchwAgreesWithNhwc) {
  // Two input channels, three output channels: y[co] = sum_ci x[ci] * f[ci, co].
  const Tensor x_nhwc = TN<float>({1, 10, 2, 20}, {1, 1, 2, 2});  // w=0: (1, 10), w=1: (2, 20)
  const Tensor x_nchw = TN<float>({1, 2, 10, 20}, {1, 2, 1, 2});
  const Tensor f = TN<float>({1, 2, 3, 4, 5, 6}, {1, 1, 2, 3});
  const Tensor nhwc = RunOp1("Conv2D", {x_nhwc, f}, Window({1, 1, 1, 1}, "VALID"));
  EXPECT_THAT(ValuesAsDouble(nhwc), ElementsAre(41, 52, 63, 82, 104, 126));
  const Tensor nchw = RunOp1("Conv2D", {x_nchw, f}, Window({1, 1, 1, 1}, "VALID", "NCHW"));
  EXPECT_EQ(nchw.shape(), Shape({1, 3, 1, 2}));
  EXPECT_THAT(ValuesAsDouble(nchw), ElementsAre(41, 82, 52, 104, 63, 126));
}

TEST(Conv2DTest, GroupedWhenFilterDepthDividesChannels) {
  // Four channels, filter depth 2: two groups; output channel 0 reads channels 0-1, 1 reads 2-3.
  const Tensor y =
      RunOp1("Conv2D",
             {TN<float>({1, 2, 3, 4}, {1, 1, 1, 4}), TN<float>({1, 10, 100, 1000}, {1, 1, 2, 2})},
             Window({1, 1, 1, 1}, "VALID"));
  EXPECT_THAT(ValuesAsDouble(y), ElementsAre(1 * 1 + 2 * 100, 3 * 10 + 4 * 1000));
}

TEST(Conv2DTest, AccumulatesInDoubleAndRoundsOnce) {
  // 1024 + 0.5 + 0.25 + 0.25 = 1025 in half, where half-by-half sums would stall at 1024.
  const Tensor y = RunOp1("Conv2D",
                          {HalfTensor({1024, 0.5f, 0.25f, 0.25f}, {1, 1, 1, 4}),
                           HalfTensor({1, 1, 1, 1}, {1, 1, 4, 1})},
                          Window({1, 1, 1, 1}, "VALID"));
  EXPECT_THAT(ValuesAsDouble(y), ElementsAre(1025));
  const Tensor big = RunOp1(
      "Conv2D", {TN<float>({1e8f, 1, -1e8f}, {1, 1, 1, 3}), TN<float>({1, 1, 1}, {1, 1, 3, 1})},
      Window({1, 1, 1, 1}, "VALID"));
  EXPECT_THAT(ValuesAsDouble(big), ElementsAre(1));
}

TEST(Conv2DBackpropTest, InputAndFilterByHand) {
  const Tensor x = TN<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 3, 3, 1});
  const Tensor f = TN<float>({1, 2, 3, 4}, {2, 2, 1, 1});
  const Tensor ones = TN<float>({1, 1, 1, 1}, {1, 2, 2, 1});
  // Every output reads a 2x2 block: dx counts how often each filter tap lands on each pixel.
  const Tensor dx =
      RunOp1("Conv2DBackpropInput", {Sizes({1, 3, 3, 1}), f, ones}, Window({1, 1, 1, 1}, "VALID"));
  EXPECT_EQ(dx.shape(), Shape({1, 3, 3, 1}));
  EXPECT_THAT(ValuesAsDouble(dx), ElementsAre(1, 3, 2, 4, 10, 6, 3, 7, 4));
  // One output's gradient puts the filter at its window.
  const Tensor dx1 =
      RunOp1("Conv2DBackpropInput", {Sizes({1, 3, 3, 1}), f, TN<float>({0, 0, 0, 1}, {1, 2, 2, 1})},
             Window({1, 1, 1, 1}, "VALID"));
  EXPECT_THAT(ValuesAsDouble(dx1), ElementsAre(0, 0, 0, 0, 1, 2, 0, 3, 4));
  // The [H, W] form of input_sizes takes the batch from out_backprop and channels from filter.
  const Tensor dx2 =
      RunOp1("Conv2DBackpropInput", {Sizes({3, 3}), f, ones}, Window({1, 1, 1, 1}, "VALID"));
  EXPECT_TRUE(dx2.BitwiseEqual(dx));
  // The filter gradient sums each tap's window of x.
  const Tensor df =
      RunOp1("Conv2DBackpropFilter", {x, Sizes({2, 2, 1, 1}), ones}, Window({1, 1, 1, 1}, "VALID"));
  EXPECT_EQ(df.shape(), Shape({2, 2, 1, 1}));
  EXPECT_THAT(ValuesAsDouble(df), ElementsAre(12, 16, 24, 28));
}

TEST(DepthwiseTest, OutputChannelIsChannelTimesMultiplierPlusM) {
  const Tensor y = RunOp1("DepthwiseConv2dNative",
                          {TN<float>({1, 2}, {1, 1, 1, 2}), TN<float>({1, 2, 3, 4}, {1, 1, 2, 2})},
                          Window({1, 1, 1, 1}, "VALID"));
  EXPECT_EQ(y.shape(), Shape({1, 1, 1, 4}));
  EXPECT_THAT(ValuesAsDouble(y), ElementsAre(1 * 1, 1 * 2, 2 * 3, 2 * 4));
  // Spatially: each channel convolved with its own 2x1 filter, SAME.
  const Tensor s = RunOp1(
      "DepthwiseConv2dNative",
      {TN<float>({1, 10, 2, 20, 3, 30}, {1, 3, 1, 2}), TN<float>({1, -1, 1, 1}, {2, 1, 2, 1})},
      Window({1, 1, 1, 1}, "SAME"));
  EXPECT_EQ(s.shape(), Shape({1, 3, 1, 2}));
  EXPECT_THAT(ValuesAsDouble(s), ElementsAre(1 + 2, -10 + 20, 2 + 3, -20 + 30, 3, -30));
}

TEST(Conv3DTest, ByHandInBothFormats) {
  std::vector<double> iota(8);
  for (int i = 0; i < 8; ++i) iota[i] = i;
  const Tensor ones = TN<double>(std::vector<double>(8, 1), {2, 2, 2, 1, 1});
  AttrMap attrs = Window({1, 1, 1, 1, 1}, "VALID", "NDHWC");
  const Tensor y = RunOp1("Conv3D", {TN<double>(iota, {1, 2, 2, 2, 1}), ones}, attrs);
  EXPECT_EQ(y.shape(), Shape({1, 1, 1, 1, 1}));
  EXPECT_THAT(ValuesAsDouble(y), ElementsAre(28));
  attrs["data_format"] = std::string("NCDHW");
  const Tensor c = RunOp1("Conv3D", {TN<double>(iota, {1, 1, 2, 2, 2}), ones}, attrs);
  EXPECT_THAT(ValuesAsDouble(c), ElementsAre(28));
  // SAME with stride 2 over depth 3: outputs at depth 0 and 2, one plane of padding after.
  std::vector<double> planes = {1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4};
  const Tensor s = RunOp1("Conv3D", {TN<double>(planes, {1, 3, 2, 2, 1}), ones},
                          Window({1, 2, 2, 2, 1}, "SAME", "NDHWC"));
  EXPECT_EQ(s.shape(), Shape({1, 2, 1, 1, 1}));
  EXPECT_THAT(ValuesAsDouble(s), ElementsAre(4 + 8, 16));
}

TEST(ExtractImagePatchesTest, ValidPatchesByHand) {
  const Tensor x = TN<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 3, 3, 1});
  const Tensor y = RunOp1("ExtractImagePatches", {x},
                          {{"ksizes", Ints({1, 2, 2, 1})},
                           {"strides", Ints({1, 1, 1, 1})},
                           {"rates", Ints({1, 1, 1, 1})},
                           {"padding", std::string("VALID")}});
  EXPECT_EQ(y.shape(), Shape({1, 2, 2, 4}));
  EXPECT_THAT(ValuesAsDouble(y), ElementsAre(1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9));
}

TEST(ExtractImagePatchesTest, SamePadsWithZerosAndOrdersTapsThenChannels) {
  // Two channels (v, -v), a 1x2 window with rate 2 and stride 2 over a 1x4 row: out width 2,
  // padding (2 - 1) 2 + 3 - 4 = 1 after.
  const Tensor x = TN<int64_t>({1, -1, 2, -2, 3, -3, 4, -4}, {1, 1, 4, 2});
  const Tensor y = RunOp1("ExtractImagePatches", {x},
                          {{"ksizes", Ints({1, 1, 2, 1})},
                           {"strides", Ints({1, 1, 2, 1})},
                           {"rates", Ints({1, 1, 2, 1})},
                           {"padding", std::string("SAME")}});
  EXPECT_EQ(y.dtype(), DType::kInt64);
  EXPECT_EQ(y.shape(), Shape({1, 1, 2, 4}));
  EXPECT_THAT(ValuesAsDouble(y), ElementsAre(1, -1, 3, -3, 3, -3, 0, 0));
  // Any dtype: a copy.
  const Tensor b = RunOp1("ExtractImagePatches", {TN<bool>({true, false}, {1, 1, 2, 1})},
                          {{"ksizes", Ints({1, 1, 2, 1})},
                           {"strides", Ints({1, 1, 1, 1})},
                           {"rates", Ints({1, 1, 1, 1})},
                           {"padding", std::string("SAME")}});
  EXPECT_THAT(ValuesAsDouble(b), ElementsAre(1, 0, 0, 0));
}

// The gradients against the forward op through the adjoint identity: for y = conv(x, f),
// <conv(x, f), dy> = <x, dx(f, dy)> = <f, df(x, dy)>. With small integer values every sum is
// exact in double, so the three must agree to the last bit.
struct AdjointCase {
  std::string name;
  std::string forward, input_grad, filter_grad;
  Shape x, filter;
  AttrMap attrs;
};

Tensor RandomInts(Shape shape, uint64_t seed) {
  Tensor t = Tensor::Zeros(DType::kDouble, std::move(shape));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> d(-3, 3);
  for (double& v : t.mutable_flat<double>()) v = d(rng);
  return t;
}

double Dot(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  double s = 0;
  for (int64_t i = 0; i < a.num_elements(); ++i) s += a.data<double>()[i] * b.data<double>()[i];
  return s;
}

class AdjointTest : public ::testing::TestWithParam<AdjointCase> {};

TEST_P(AdjointTest, GradientsAreTheForwardOpsAdjoint) {
  const AdjointCase& c = GetParam();
  const Tensor x = RandomInts(c.x, 1);
  const Tensor f = RandomInts(c.filter, 2);
  const Tensor y = RunOp1(c.forward, {x, f}, c.attrs);
  ASSERT_GT(y.num_elements(), 0);
  const Tensor dy = RandomInts(y.shape(), 3);
  const Tensor dx = RunOp1(c.input_grad, {Sizes(c.x), f, dy}, c.attrs);
  const Tensor df = RunOp1(c.filter_grad, {x, Sizes(c.filter), dy}, c.attrs);
  EXPECT_EQ(dx.shape(), c.x);
  EXPECT_EQ(df.shape(), c.filter);
  const double forward = Dot(y, dy);
  EXPECT_EQ(Dot(x, dx), forward);
  EXPECT_EQ(Dot(f, df), forward);
  // An identity of zeros would say nothing.
  EXPECT_NE(forward, 0);
}

AttrMap With(AttrMap attrs, std::string key, AttrValue value) {
  attrs[key] = std::move(value);
  return attrs;
}

const AdjointCase kConv2D{"", "Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", {}, {}, {}};
const AdjointCase kDepthwise{"",
                             "DepthwiseConv2dNative",
                             "DepthwiseConv2dNativeBackpropInput",
                             "DepthwiseConv2dNativeBackpropFilter",
                             {},
                             {},
                             {}};
const AdjointCase kConv3D{"", "Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2", {},
                          {}, {}};

AdjointCase Case(AdjointCase family, std::string name, Shape x, Shape filter, AttrMap attrs) {
  family.name = std::move(name);
  family.x = std::move(x);
  family.filter = std::move(filter);
  family.attrs = std::move(attrs);
  return family;
}

INSTANTIATE_TEST_SUITE_P(
    Geometries, AdjointTest,
    ::testing::Values(
        Case(kConv2D, "Conv2DValidStride", {2, 5, 6, 3}, {2, 3, 3, 4},
             Window({1, 2, 1, 1}, "VALID")),
        Case(kConv2D, "Conv2DNchwSameDilated", {1, 3, 5, 5}, {3, 2, 3, 2},
             With(Window({1, 1, 1, 2}, "SAME", "NCHW"), "dilations", Ints({1, 1, 2, 1}))),
        Case(kConv2D, "Conv2DExplicit", {1, 4, 4, 2}, {3, 3, 2, 2},
             With(Window({1, 2, 2, 1}, "EXPLICIT"), "explicit_paddings",
                  Ints({0, 0, 1, 2, 2, 0, 0, 0}))),
        Case(kConv2D, "Conv2DGrouped", {1, 4, 4, 4}, {2, 2, 2, 6}, Window({1, 1, 1, 1}, "SAME")),
        Case(kDepthwise, "DepthwiseSameStride", {1, 5, 5, 3}, {3, 3, 3, 2},
             Window({1, 2, 2, 1}, "SAME")),
        Case(kDepthwise, "DepthwiseNchwDilated", {2, 2, 6, 6}, {2, 2, 2, 3},
             With(Window({1, 1, 1, 1}, "VALID", "NCHW"), "dilations", Ints({1, 1, 2, 2}))),
        Case(kConv3D, "Conv3DSame", {1, 4, 5, 3, 2}, {2, 3, 2, 2, 3},
             Window({1, 2, 1, 1, 1}, "SAME", "NDHWC")),
        Case(kConv3D, "Conv3DNcdhwDilated", {2, 2, 3, 4, 4}, {2, 2, 2, 2, 2},
             With(Window({1, 1, 1, 2, 2}, "VALID", "NCDHW"), "dilations", Ints({1, 1, 2, 1, 1})))),
    [](const ::testing::TestParamInfo<AdjointCase>& info) { return info.param.name; });

TEST(ConvolutionTest, ZeroSize) {
  const Tensor y = RunOp1(
      "Conv2D",
      {Tensor::Zeros(DType::kFloat, {0, 3, 3, 2}), Tensor::Zeros(DType::kFloat, {2, 2, 2, 5})},
      Window({1, 1, 1, 1}, "VALID"));
  EXPECT_EQ(y.shape(), Shape({0, 2, 2, 5}));
  // No batch: nothing to sum, so a zero filter gradient.
  const Tensor df = RunOp1("Conv2DBackpropFilter",
                           {Tensor::Zeros(DType::kFloat, {0, 3, 3, 1}), Sizes({2, 2, 1, 1}),
                            Tensor::Zeros(DType::kFloat, {0, 2, 2, 1})},
                           Window({1, 1, 1, 1}, "VALID"));
  EXPECT_THAT(ValuesAsDouble(df), ElementsAre(0, 0, 0, 0));
  // SAME over an empty image has an empty output.
  const Tensor e = RunOp1(
      "Conv2D",
      {Tensor::Zeros(DType::kFloat, {1, 0, 3, 1}), Tensor::Zeros(DType::kFloat, {2, 2, 1, 1})},
      Window({1, 1, 1, 1}, "SAME"));
  EXPECT_EQ(e.shape(), Shape({1, 0, 3, 1}));
}

TEST(ConvolutionTest, Errors) {
  const Tensor x = Tensor::Zeros(DType::kFloat, {1, 3, 3, 2});
  const Tensor f = Tensor::Zeros(DType::kFloat, {2, 2, 2, 1});
  const AttrMap valid = Window({1, 1, 1, 1}, "VALID");
  ExpectError(RunOp("Conv2D", {x}, valid), "expects 2 inputs, got 1");
  ExpectError(RunOp("Conv2D", {Tensor::Zeros(DType::kFloat, {3, 3, 2}), f}, valid),
              "input must have rank 4 (NHWC), got [3,3,2]");
  ExpectError(RunOp("Conv2D", {x, Tensor::Zeros(DType::kFloat, {2, 2, 2})}, valid),
              "filter must have rank 4");
  ExpectError(
      RunOp("Conv2D", {x, Tensor::Zeros(DType::kFloat, {2, 2, 3, 1})}, valid),
      "the input's channels (2) must be a positive multiple of the filter's in_channels (3)");
  ExpectError(RunOp("Conv2D",
                    {Tensor::Zeros(DType::kFloat, {1, 3, 3, 4}),
                     Tensor::Zeros(DType::kFloat, {1, 1, 2, 3})},
                    valid),
              "out_channels (3) must be a multiple of the number of groups (2");
  ExpectError(RunOp("Conv2D", {x, Tensor::Zeros(DType::kFloat, {4, 1, 2, 1})}, valid),
              "larger than the input (3) under VALID padding");
  ExpectError(RunOp("Conv2D", {x, f}, Window({1, 1, 1, 1}, "VALID", "NCDHW")),
              "data_format \"NCDHW\" is not supported");
  ExpectError(RunOp("Conv2D", {x, Tensor::Zeros(DType::kDouble, {2, 2, 2, 1})}, valid),
              "input and filter must have the same dtype");
  ExpectError(
      RunOp("Conv2D",
            {Tensor::Zeros(DType::kInt8, {1, 3, 3, 2}), Tensor::Zeros(DType::kInt8, {2, 2, 2, 1})},
            valid),
      "expected one of float16, float32, float64, int32");
  ExpectError(RunOp("Conv3D",
                    {Tensor::Zeros(DType::kInt32, {1, 2, 2, 2, 1}),
                     Tensor::Zeros(DType::kInt32, {1, 1, 1, 1, 1})},
                    Window({1, 1, 1, 1, 1}, "VALID", "NDHWC")),
              "expected one of float16, float32, float64");
  ExpectError(RunOp("Conv3D",
                    {Tensor::Zeros(DType::kFloat, {1, 2, 2, 2, 1}),
                     Tensor::Zeros(DType::kFloat, {1, 1, 1, 1, 1})},
                    Window({1, 1, 1, 1, 1}, "EXPLICIT", "NDHWC")),
              "expected \"VALID\" or \"SAME\"");
  ExpectError(
      RunOp("DepthwiseConv2dNative", {x, Tensor::Zeros(DType::kFloat, {2, 2, 3, 1})}, valid),
      "the filter's in_channels (3) must equal the input's channels (2)");
  // Gradients: sizes and out_backprop must fit the geometry.
  const Tensor dy = Tensor::Zeros(DType::kFloat, {1, 2, 2, 1});
  ExpectError(RunOp("Conv2DBackpropInput", {Sizes({1, 3, 3}), f, dy}, valid),
              "input_sizes must be a vector of 4 sizes");
  ExpectError(RunOp("Conv2DBackpropInput", {Sizes({1, -3, 3, 2}), f, dy}, valid),
              "input_sizes must not be negative");
  ExpectError(RunOp("Conv2DBackpropInput", {Sizes({1, 4, 3, 2}), f, dy}, valid),
              "out_backprop is float32[1,2,2,1], expected [1,3,2,1]");
  ExpectError(RunOp("Conv2DBackpropFilter", {x, Sizes({2, 2, 2}), dy}, valid),
              "filter_sizes must be a vector of 4 sizes");
  ExpectError(RunOp("Conv2DBackpropFilter", {x, Sizes({2, 2, 2, 3}), dy}, valid),
              "expected [1,2,2,3]");
  ExpectError(RunOp("Conv2DBackpropFilter",
                    {x, Sizes({2, 2, 2, 1}), Tensor::Zeros(DType::kDouble, {1, 2, 2, 1})}, valid),
              "input and out_backprop must have the same dtype");
  ExpectError(RunOp("ExtractImagePatches", {x},
                    {{"ksizes", Ints({1, 4, 1, 1})},
                     {"strides", Ints({1, 1, 1, 1})},
                     {"rates", Ints({1, 1, 1, 1})},
                     {"padding", std::string("VALID")}}),
              "larger than the input (3)");
  ExpectError(RunOp("ExtractImagePatches", {x},
                    {{"ksizes", Ints({1, 2, 2, 1})},
                     {"strides", Ints({1, 1, 1, 1})},
                     {"padding", std::string("VALID")}}),
              "missing attribute \"rates\"");
}

}  // namespace
}  // namespace dfc
