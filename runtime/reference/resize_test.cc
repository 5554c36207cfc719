// Tests of the image resizing reference kernels (resize.cc) against values worked out by hand
// from TensorFlow's CPU kernels.
#include <cstdint>
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
using ::testing::ElementsAreArray;
using ::testing::Pointwise;

Tensor Size(int32_t height, int32_t width) { return T1<int32_t>({height, width}); }

// [[1, 2], [3, 4]] as one single-channel image.
Tensor TwoByTwo() { return TN<float>({1, 2, 3, 4}, {1, 2, 2, 1}); }

AttrMap Attrs(bool align_corners, bool half_pixel_centers) {
  return {{"align_corners", align_corners}, {"half_pixel_centers", half_pixel_centers}};
}

// One resize of the 2x2 image and its expected values, row-major.
struct ResizeCase {
  std::string name;
  std::string op;
  int32_t height, width;
  bool align_corners, half_pixel_centers;
  std::vector<double> expected;
};

class ResizeTwoByTwoTest : public ::testing::TestWithParam<ResizeCase> {};

TEST_P(ResizeTwoByTwoTest, MatchesHandComputedValues) {
  const ResizeCase& c = GetParam();
  const Tensor out = RunOp1(c.op, {TwoByTwo(), Size(c.height, c.width)},
                            Attrs(c.align_corners, c.half_pixel_centers));
  EXPECT_EQ(out.shape(), Shape({1, c.height, c.width, 1}));
  EXPECT_EQ(out.dtype(), DType::kFloat);
  EXPECT_THAT(ValuesAsDouble(out), Pointwise(DoubleNear(1e-6), c.expected));
}

INSTANTIATE_TEST_SUITE_P(
    Modes, ResizeTwoByTwoTest,
    ::testing::Values(
        // Legacy mapping x * 0.5: rows 0, 0.5, 1, 1.5 (the last clamps to row 1).
        ResizeCase{"BilinearLegacy",
                   "ResizeBilinear",
                   4,
                   4,
                   false,
                   false,
                   {1, 1.5, 2, 2, 2, 2.5, 3, 3, 3, 3.5, 4, 4, 3, 3.5, 4, 4}},
        // Corners aligned: scale (2-1)/(3-1).
        ResizeCase{"BilinearAlignCorners",
                   "ResizeBilinear",
                   3,
                   3,
                   true,
                   false,
                   {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4}},
        // Half-pixel centres: (x + 0.5) * 0.5 - 0.5 = -0.25, 0.25, 0.75, 1.25.
        ResizeCase{
            "BilinearHalfPixel",
            "ResizeBilinear",
            4,
            4,
            false,
            true,
            {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4}},
        // Down to one pixel: the top-left one (legacy), the centre (half-pixel).
        ResizeCase{"BilinearToOnePixel", "ResizeBilinear", 1, 1, false, false, {1}},
        ResizeCase{"BilinearToOnePixelHalfPixel", "ResizeBilinear", 1, 1, false, true, {2.5}},
        ResizeCase{"AreaToOnePixel", "ResizeArea", 1, 1, false, false, {2.5}},
        ResizeCase{"AreaRows", "ResizeArea", 1, 2, false, false, {2, 3}},
        ResizeCase{"AreaUp",
                   "ResizeArea",
                   4,
                   4,
                   false,
                   false,
                   {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}},
        // The same size is the identity for every kernel.
        ResizeCase{"BicubicIdentity", "ResizeBicubic", 2, 2, false, false, {1, 2, 3, 4}},
        ResizeCase{"BicubicIdentityHalfPixel", "ResizeBicubic", 2, 2, false, true, {1, 2, 3, 4}}),
    [](const ::testing::TestParamInfo<ResizeCase>& info) { return info.param.name; });

TEST(ResizeBilinearTest, IntegerAndHalfInputsGiveFloat) {
  const Tensor ints = RunOp1(
      "ResizeBilinear", {TN<int32_t>({1, 2, 3, 4}, {1, 2, 2, 1}), Size(3, 3)}, Attrs(true, false));
  EXPECT_EQ(ints.dtype(), DType::kFloat);
  EXPECT_THAT(Values<float>(ints), ElementsAre(1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4));
  const Tensor halves = RunOp1(
      "ResizeBilinear", {HalfTensor({1, 2, 3, 4}, {1, 2, 2, 1}), Size(3, 3)}, Attrs(true, false));
  EXPECT_EQ(halves.dtype(), DType::kFloat);
  EXPECT_THAT(Values<float>(halves), ElementsAre(1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4));
}

TEST(ResizeBilinearTest, ChannelsAndBatchesAreIndependent) {
  // Two images of two channels; channel 1 is channel 0 times 10, image 1 is image 0 plus 100.
  const Tensor in = TN<double>({1, 10, 2, 20, 101, 1010, 102, 1020}, {2, 1, 2, 2});
  const Tensor out = RunOp1("ResizeBilinear", {in, Size(1, 4)});
  EXPECT_EQ(out.shape(), Shape({2, 1, 4, 2}));
  EXPECT_THAT(Values<float>(out), ElementsAre(1, 10, 1.5, 15, 2, 20, 2, 20, 101, 1010, 101.5, 1015,
                                              102, 1020, 102, 1020));
}

TEST(ResizeNearestNeighborTest, RoundingModes) {
  const Tensor row = TN<int32_t>({1, 2, 3, 4}, {1, 1, 4, 1});
  // floor(x * 2), round(x * 3), floor((x + 0.5) * 2).
  EXPECT_THAT(Values<int32_t>(RunOp1("ResizeNearestNeighbor", {row, Size(1, 2)})),
              ElementsAre(1, 3));
  EXPECT_THAT(
      Values<int32_t>(RunOp1("ResizeNearestNeighbor", {row, Size(1, 2)}, Attrs(true, false))),
      ElementsAre(1, 4));
  EXPECT_THAT(
      Values<int32_t>(RunOp1("ResizeNearestNeighbor", {row, Size(1, 2)}, Attrs(false, true))),
      ElementsAre(2, 4));
}

TEST(ResizeNearestNeighborTest, UpsamplingKeepsTheDType) {
  const Tensor in = TN<int64_t>({1, 2, 3, 4}, {1, 2, 2, 1});
  const Tensor legacy = RunOp1("ResizeNearestNeighbor", {in, Size(4, 4)});
  EXPECT_EQ(legacy.dtype(), DType::kInt64);
  EXPECT_THAT(Values<int64_t>(legacy), ElementsAre(1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4));
  // round(0.5) = 1: TensorFlow rounds half away from zero here.
  EXPECT_THAT(
      Values<int64_t>(RunOp1("ResizeNearestNeighbor", {in, Size(3, 3)}, Attrs(true, false))),
      ElementsAre(1, 2, 2, 3, 4, 4, 3, 4, 4));
  // floor((x + 0.5) * 2/3) = 0, 1, 1.
  EXPECT_THAT(
      Values<int64_t>(RunOp1("ResizeNearestNeighbor", {in, Size(3, 3)}, Attrs(false, true))),
      ElementsAre(1, 2, 2, 3, 4, 4, 3, 4, 4));
  const Tensor halves =
      RunOp1("ResizeNearestNeighbor", {HalfTensor({1.5f, -2, 3, 4}, {1, 2, 2, 1}), Size(1, 2)});
  EXPECT_EQ(halves.dtype(), DType::kHalf);
  EXPECT_THAT(ValuesAsDouble(halves), ElementsAre(1.5, -2));
}

TEST(ResizeBicubicTest, LegacyKernelAtAHalfStep) {
  // Output x = 1 of 6 samples input 0.5 with weights k(1.5), k(0.5), k(0.5), k(1.5) of Keys'
  // kernel with a = -0.75: -0.09375, 0.59375, 0.59375, -0.09375, over indices -1 (clamped to
  // 0), 0, 1, 2.
  const Tensor in = TN<float>({10, 20, 50}, {1, 1, 3, 1});
  const Tensor out = RunOp1("ResizeBicubic", {in, Size(1, 6)});
  EXPECT_EQ(out.shape(), Shape({1, 1, 6, 1}));
  EXPECT_FLOAT_EQ(Values<float>(out)[0], 10);
  EXPECT_FLOAT_EQ(Values<float>(out)[1],
                  -0.09375 * 10 + 0.59375 * 10 + 0.59375 * 20 - 0.09375 * 50);
}

TEST(ResizeBicubicTest, HalfPixelDropsOutsideTapsAndRenormalises) {
  // Output x = 1 of 6 samples input 0.25 with a = -0.5: k(1.25) = -0.0703125 for index -1,
  // which lies outside and is dropped, then k(0.25) = 0.8671875, k(0.75) = 0.2265625 and
  // k(1.75) = -0.0234375, renormalised by their sum 1.0703125.
  const Tensor in = TN<float>({10, 20, 50}, {1, 1, 3, 1});
  const Tensor out = RunOp1("ResizeBicubic", {in, Size(1, 6)}, Attrs(false, true));
  const double expected = (0.8671875 * 10 + 0.2265625 * 20 - 0.0234375 * 50) / 1.0703125;
  EXPECT_NEAR(Values<float>(out)[1], expected, 1e-5);
}

TEST(ResizeBicubicTest, ConstantImagesStayConstant) {
  const Tensor in = TN<int32_t>(std::vector<int32_t>(12, 7), {1, 3, 4, 1});
  for (bool half_pixel : {false, true}) {
    const Tensor out = RunOp1("ResizeBicubic", {in, Size(5, 7)}, Attrs(false, half_pixel));
    EXPECT_EQ(out.dtype(), DType::kFloat);
    EXPECT_THAT(ValuesAsDouble(out), ::testing::Each(DoubleNear(7, 1e-5)));
  }
}

TEST(ResizeAreaTest, FractionalEdgeWeights) {
  // Width 3 to 2: boxes [0, 1.5) and [1.5, 3), each 1.5 pixels wide.
  const Tensor in = TN<float>({1, 2, 3}, {1, 1, 3, 1});
  EXPECT_THAT(
      ValuesAsDouble(RunOp1("ResizeArea", {in, Size(1, 2)})),
      Pointwise(DoubleNear(1e-6), std::vector<double>{(1 + 2 * 0.5) / 1.5, (2 * 0.5 + 3) / 1.5}));
  // Corners aligned: scale (3-1)/(2-1) = 2, so the second box [2, 4) overhangs the image and
  // reads the edge pixel twice.
  EXPECT_THAT(ValuesAsDouble(RunOp1("ResizeArea", {in, Size(1, 2)}, {{"align_corners", true}})),
              ElementsAre(1.5, 3));
}

TEST(ResizeTest, ZeroBatchIsEmpty) {
  for (const char* op :
       {"ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic", "ResizeArea"}) {
    const Tensor out = RunOp1(op, {Tensor::Zeros(DType::kFloat, {0, 2, 2, 3}), Size(3, 5)});
    EXPECT_EQ(out.shape(), Shape({0, 3, 5, 3})) << op;
  }
}

TEST(ResizeTest, Errors) {
  const Tensor image = TwoByTwo();
  for (const char* op :
       {"ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic", "ResizeArea"}) {
    SCOPED_TRACE(op);
    ExpectError(RunOp(op, {TN<float>({1, 2, 3, 4}, {2, 2, 1}), Size(2, 2)}), "rank 4");
    ExpectError(RunOp(op, {image, T1<int32_t>({2, 2, 2})}), "int32 vector [2]");
    ExpectError(RunOp(op, {image, T1<int64_t>({2, 2})}), "int32 vector [2]");
    ExpectError(RunOp(op, {image, Size(0, 2)}), "size must be positive");
    ExpectError(RunOp(op, {Tensor::Zeros(DType::kFloat, {1, 0, 2, 1}), Size(2, 2)}),
                "non-zero height and width");
    ExpectError(RunOp(op, {Tensor::Zeros(DType::kFloat, {1, 2, 2, 0}), Size(2, 2)}),
                "at least one channel");
    ExpectError(RunOp(op, {TN<bool>({true, false, true, false}, {1, 2, 2, 1}), Size(2, 2)}),
                "bool");
    ExpectError(RunOp(op, {image}), "expects 2 inputs");
  }
  for (const char* op : {"ResizeBilinear", "ResizeNearestNeighbor", "ResizeBicubic"}) {
    absl::StatusOr<std::vector<Tensor>> both = RunOp(op, {image, Size(3, 3)}, Attrs(true, true));
    ExpectError(both, "align_corners must be false");
    ExpectError(both, "node \"node\"");
  }
}

}  // namespace
}  // namespace dfc
