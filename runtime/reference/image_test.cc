// Tests of the image kernels (image.cc): TensorFlow's documented non-max suppression example
// in each version, soft-NMS scores, crops by hand, colour conversions of the primaries and
// round trips, box outlines, dilation windows, and the errors.
#include <cmath>
#include <cstdint>
#include <limits>
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
using ::dfc::testing::UniformFloats;
using ::dfc::testing::Values;
using ::dfc::testing::ValuesAsDouble;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::Pointwise;

// TensorFlow's example: three clusters of boxes; the best of each survives.
Tensor ExampleBoxes() {
  return TN<float>({0, 0,  1, 1,  0, 0.1f,  1, 1.1f,  0, -0.1f, 1, 0.9f,
                    0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100,   1, 101},
                   {6, 4});
}
Tensor ExampleScores() { return T1<float>({0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f}); }

TEST(NonMaxSuppressionTest, TensorFlowExampleInEveryVersion) {
  const Tensor max3 = Tensor::Scalar<int32_t>(3);
  const Tensor iou = Tensor::Scalar<float>(0.5f);
  EXPECT_THAT(Values<int32_t>(RunOp1("NonMaxSuppression", {ExampleBoxes(), ExampleScores(), max3},
                                     {{"iou_threshold", 0.5f}})),
              ElementsAre(3, 0, 5));
  EXPECT_THAT(
      Values<int32_t>(RunOp1("NonMaxSuppressionV2", {ExampleBoxes(), ExampleScores(), max3, iou})),
      ElementsAre(3, 0, 5));
  // A score threshold of 0.4 drops box 5 (0.3).
  const Tensor score = Tensor::Scalar<float>(0.4f);
  EXPECT_THAT(Values<int32_t>(RunOp1("NonMaxSuppressionV3",
                                     {ExampleBoxes(), ExampleScores(), max3, iou, score})),
              ElementsAre(3, 0));
  // V4 pads to max_output_size with zeros and says how many are valid.
  const auto v4 = RunOp("NonMaxSuppressionV4", {ExampleBoxes(), ExampleScores(), max3, iou, score},
                        {{"pad_to_max_output_size", true}});
  ASSERT_TRUE(v4.ok()) << v4.status();
  EXPECT_THAT(Values<int32_t>((*v4)[0]), ElementsAre(3, 0, 0));
  EXPECT_THAT(Values<int32_t>((*v4)[1]), ElementsAre(2));
  // Fewer outputs than clusters: the best first.
  EXPECT_THAT(Values<int32_t>(RunOp1("NonMaxSuppressionV2", {ExampleBoxes(), ExampleScores(),
                                                             Tensor::Scalar<int32_t>(2), iou})),
              ElementsAre(3, 0));
}

TEST(NonMaxSuppressionTest, Float16AndTiesGoToTheLowerIndex) {
  const Tensor boxes = HalfTensor({0, 0, 1, 1, 0, 5, 1, 6, 0, 9, 1, 10}, {3, 4});
  const Tensor scores = HalfTensor({0.5f, 0.75f, 0.75f}, {3});
  EXPECT_THAT(Values<int32_t>(
                  RunOp1("NonMaxSuppressionV3", {boxes, scores, Tensor::Scalar<int32_t>(5),
                                                 HalfTensor({0.5f}, {}), HalfTensor({0.0f}, {})})),
              ElementsAre(1, 2, 0));
}

TEST(NonMaxSuppressionTest, SoftNmsScalesOverlappingScores) {
  // Box 1 overlaps box 0 with IoU 1/3; soft NMS keeps it with score 0.8 * exp(-0.5 iou^2 / s).
  const Tensor boxes = TN<float>({0, 0, 1, 1, 0, 0.5f, 1, 1.5f}, {2, 4});
  const auto out =
      RunOp("NonMaxSuppressionV5",
            {boxes, T1<float>({0.9f, 0.8f}), Tensor::Scalar<int32_t>(4),
             Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.0f), Tensor::Scalar<float>(0.5f)},
            {{"pad_to_max_output_size", false}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<int32_t>((*out)[0]), ElementsAre(0, 1));
  const double iou = 1.0 / 3;
  EXPECT_THAT(Values<float>((*out)[1]),
              ElementsAre(0.9f, FloatNear(0.8 * std::exp(-iou * iou), 1e-6)));
  EXPECT_THAT(Values<int32_t>((*out)[2]), ElementsAre(2));
}

TEST(NonMaxSuppressionTest, EmptyAndErrors) {
  const Tensor none =
      RunOp1("NonMaxSuppressionV2",
             {Tensor::Zeros(DType::kFloat, {0, 4}), Tensor::Zeros(DType::kFloat, {0}),
              Tensor::Scalar<int32_t>(3), Tensor::Scalar<float>(0.5f)});
  EXPECT_EQ(none.shape(), Shape({0}));
  EXPECT_EQ(none.dtype(), DType::kInt32);
  ExpectError(
      RunOp("NonMaxSuppressionV2", {ExampleBoxes(), ExampleScores(), Tensor::Scalar<int32_t>(3),
                                    Tensor::Scalar<float>(1.5f)}),
      "iou_threshold must be in [0, 1]");
  ExpectError(
      RunOp("NonMaxSuppressionV2", {ExampleBoxes(), ExampleScores(), Tensor::Scalar<int32_t>(-1),
                                    Tensor::Scalar<float>(0.5f)}),
      "max_output_size must be non-negative");
  ExpectError(RunOp("NonMaxSuppression", {Tensor::Zeros(DType::kFloat, {6, 3}), ExampleScores(),
                                          Tensor::Scalar<int32_t>(3)}),
              "boxes must be [num_boxes, 4]");
  ExpectError(
      RunOp("NonMaxSuppression", {ExampleBoxes(), T1<float>({1, 2}), Tensor::Scalar<int32_t>(3)}),
      "scores must be [num_boxes] = [6]");
}

AttrMap CropAttrs(const char* method, float extrapolation = 0.0f) {
  return {{"T", DType::kFloat},
          {"method", std::string(method)},
          {"extrapolation_value", extrapolation}};
}

TEST(CropAndResizeTest, BilinearNearestAndExtrapolation) {
  // A 2x2 image [[0, 1], [2, 3]] in batch entry 1 (entry 0 is zeros).
  const Tensor image = TN<float>({0, 0, 0, 0, 0, 1, 2, 3}, {2, 2, 2, 1});
  const Tensor whole = TN<float>({0, 0, 1, 1}, {1, 4});
  const Tensor ind = T1<int32_t>({1});
  Tensor out =
      RunOp1("CropAndResize", {image, whole, ind, T1<int32_t>({3, 3})}, CropAttrs("bilinear"));
  EXPECT_EQ(out.shape(), Shape({1, 3, 3, 1}));
  EXPECT_THAT(Values<float>(out), ElementsAre(0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3));
  out = RunOp1("CropAndResize", {image, whole, ind, T1<int32_t>({3, 3})}, CropAttrs("nearest"));
  // round(0.5) = 1, half away from zero.
  EXPECT_THAT(Values<float>(out), ElementsAre(0, 1, 1, 2, 3, 3, 2, 3, 3));
  // A box reaching outside the image: its outside points take the extrapolation value, and a
  // 1x1 crop samples the box's centre.
  const Tensor wide = TN<float>({0, -1, 1, 1}, {1, 4});
  out = RunOp1("CropAndResize", {image, wide, ind, T1<int32_t>({1, 3})}, CropAttrs("bilinear", -7));
  EXPECT_THAT(Values<float>(out), ElementsAre(-7, 1, 2));
}

TEST(CropAndResizeTest, Errors) {
  const Tensor image = Tensor::Zeros(DType::kFloat, {2, 2, 2, 1});
  const Tensor box = TN<float>({0, 0, 1, 1}, {1, 4});
  ExpectError(RunOp("CropAndResize", {image, box, T1<int32_t>({2}), T1<int32_t>({2, 2})},
                    CropAttrs("bilinear")),
              "box_ind[0] = 2 is outside [0, 2)");
  ExpectError(RunOp("CropAndResize", {image, box, T1<int32_t>({0}), T1<int32_t>({0, 2})},
                    CropAttrs("bilinear")),
              "crop_size must be positive");
  ExpectError(RunOp("CropAndResize", {image, box, T1<int32_t>({0}), T1<int32_t>({2, 2})},
                    CropAttrs("bicubic")),
              "method must be");
}

TEST(ColorTest, PrimariesAndGrey) {
  const Tensor rgb = TN<double>({1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5, 0.5, 0.5}, {4, 3});
  const Tensor hsv = RunOp1("RGBToHSV", {rgb});
  EXPECT_THAT(Values<double>(hsv),
              Pointwise(DoubleNear(1e-12),
                        std::vector<double>{0, 1, 1, 1.0 / 3, 1, 1, 2.0 / 3, 1, 1, 0, 0, 0.5}));
  EXPECT_THAT(Values<double>(RunOp1("HSVToRGB", {hsv})),
              Pointwise(DoubleNear(1e-12), Values<double>(rgb)));
}

TEST(ColorTest, RoundTripAndEmpty) {
  const Tensor rgb = UniformFloats({5, 4, 3}, 11, 0, 1);
  const Tensor back = RunOp1("HSVToRGB", {RunOp1("RGBToHSV", {rgb})});
  EXPECT_THAT(Values<float>(back), Pointwise(FloatNear(1e-6), Values<float>(rgb)));
  EXPECT_EQ(RunOp1("RGBToHSV", {Tensor::Zeros(DType::kFloat, {0, 3})}).shape(), Shape({0, 3}));
  ExpectError(RunOp("RGBToHSV", {Tensor::Zeros(DType::kFloat, {2, 4})}), "3 channels");
  ExpectError(RunOp("HSVToRGB", {Tensor::Zeros(DType::kInt32, {2, 3})}), "not defined for dtype");
}

TEST(AdjustTest, HueSaturationContrast) {
  const Tensor red = TN<float>({1, 0, 0, 0.5f, 0.25f, 0.25f}, {1, 2, 3});
  // A third of a turn takes red to green.
  EXPECT_THAT(Values<float>(RunOp1("AdjustHue", {red, Tensor::Scalar<float>(1.0f / 3)})),
              Pointwise(FloatNear(1e-6), std::vector<float>{0, 1, 0, 0.25f, 0.5f, 0.25f}));
  // No saturation leaves the value in every channel.
  EXPECT_THAT(Values<float>(RunOp1("AdjustSaturation", {red, Tensor::Scalar<float>(0.0f)})),
              ElementsAre(1, 1, 1, 0.5f, 0.5f, 0.5f));
  // Contrast 2 doubles each channel's distance from its mean over the image.
  EXPECT_THAT(Values<float>(RunOp1("AdjustContrastv2", {red, Tensor::Scalar<float>(2.0f)})),
              ElementsAre(1.25f, -0.125f, -0.125f, 0.25f, 0.375f, 0.375f));
  ExpectError(RunOp("AdjustHue", {Tensor::Zeros(DType::kFloat, {2, 3}), Tensor::Scalar<float>(0)}),
              "rank >= 3");
  // TensorFlow's CPU kernels of the adjustments are float32 only.
  ExpectError(
      RunOp("AdjustSaturation", {Tensor::Zeros(DType::kHalf, {1, 1, 3}), Tensor::Scalar<float>(0)}),
      "expected one of float32");
}

TEST(AdjustTest, HueTurnsEachSectorAndWraps) {
  // Orange (1, 0.5, 0) is hue 1/12; half a turn gives azure (0, 0.5, 1), and a whole negative
  // turn gives it back.
  const Tensor orange = TN<float>({1, 0.5f, 0}, {1, 1, 3});
  EXPECT_THAT(Values<float>(RunOp1("AdjustHue", {orange, Tensor::Scalar<float>(0.5f)})),
              Pointwise(FloatNear(1e-6), std::vector<float>{0, 0.5f, 1}));
  EXPECT_THAT(Values<float>(RunOp1("AdjustHue", {orange, Tensor::Scalar<float>(-1.0f)})),
              Pointwise(FloatNear(1e-6), std::vector<float>{1, 0.5f, 0}));
}

TEST(DrawBoundingBoxesTest, OutlinesInTheGivenOrDefaultColours) {
  // A 4x5 grey image and a box from pixel (1, 1) to (3, 4): trunc(0.4 * 3) = 1, trunc(1.0 * 3)
  // = 3, trunc(0.25 * 4) = 1, trunc(1.0 * 4) = 4.
  const Tensor image = Tensor::Zeros(DType::kFloat, {1, 4, 5, 1});
  const Tensor boxes = TN<float>({0.4f, 0.25f, 1.0f, 1.0f}, {1, 1, 4});
  const Tensor out = RunOp1("DrawBoundingBoxesV2", {image, boxes, TN<float>({0.5f, 9}, {1, 2})});
  EXPECT_THAT(Values<float>(out), ElementsAre(0, 0, 0, 0, 0,          //
                                              0, 0.5, 0.5, 0.5, 0.5,  //
                                              0, 0.5, 0, 0, 0.5,      //
                                              0, 0.5, 0.5, 0.5, 0.5));
  // Empty colors: the first default colour, yellow, on an RGB image.
  const Tensor rgb = RunOp1("DrawBoundingBoxesV2", {Tensor::Zeros(DType::kFloat, {1, 2, 2, 3}),
                                                    TN<float>({0, 0, 1, 1}, {1, 1, 4}),
                                                    Tensor::Zeros(DType::kFloat, {0, 3})});
  EXPECT_THAT(Values<float>(rgb), ElementsAre(1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0));
  // An inverted box is not drawn.
  EXPECT_TRUE(RunOp1("DrawBoundingBoxesV2",
                     {image, TN<float>({1, 1, 0, 0}, {1, 1, 4}), TN<float>({1}, {1, 1})})
                  .BitwiseEqual(image));
  ExpectError(RunOp("DrawBoundingBoxesV2",
                    {image, TN<float>({0, 0, 1, 1}, {1, 4}), TN<float>({1}, {1, 1})}),
              "boxes must be float32 [1, num_boxes, 4]");
}

AttrMap DilationAttrs(std::vector<int64_t> strides, std::vector<int64_t> rates,
                      const char* padding) {
  AttrList s, r;
  s.i = std::move(strides);
  r.i = std::move(rates);
  return {{"T", DType::kFloat}, {"strides", s}, {"rates", r}, {"padding", std::string(padding)}};
}

TEST(Dilation2DTest, ValidSameAndRates) {
  // input 1..9 in 3x3, filter [[0, 10], [20, 30]].
  const Tensor input = TN<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}, {1, 3, 3, 1});
  const Tensor filter = TN<float>({0, 10, 20, 30}, {2, 2, 1});
  Tensor out =
      RunOp1("Dilation2D", {input, filter}, DilationAttrs({1, 1, 1, 1}, {1, 1, 1, 1}, "VALID"));
  EXPECT_EQ(out.shape(), Shape({1, 2, 2, 1}));
  EXPECT_THAT(Values<float>(out), ElementsAre(35, 36, 38, 39));
  // SAME pads after (the padding total is 1, all of it at the end): the last row and column see
  // only part of the filter.
  out = RunOp1("Dilation2D", {input, filter}, DilationAttrs({1, 1, 1, 1}, {1, 1, 1, 1}, "SAME"));
  EXPECT_THAT(Values<float>(out), ElementsAre(35, 36, 26, 38, 39, 29, 18, 19, 9));
  // Rate 2: the filter's taps are two apart, a 3x3 window.
  out = RunOp1("Dilation2D", {input, filter}, DilationAttrs({1, 1, 1, 1}, {1, 2, 2, 1}, "VALID"));
  EXPECT_THAT(Values<float>(out), ElementsAre(39));
  // Stride 2 over SAME: rows and columns 0 and 2.
  out = RunOp1("Dilation2D", {input, filter}, DilationAttrs({1, 2, 2, 1}, {1, 1, 1, 1}, "SAME"));
  EXPECT_THAT(Values<float>(out), ElementsAre(35, 26, 18, 9));
  ExpectError(
      RunOp("Dilation2D", {input, filter}, DilationAttrs({2, 1, 1, 1}, {1, 1, 1, 1}, "SAME")),
      "strides must be 4 positive entries");
  ExpectError(
      RunOp("Dilation2D", {input, filter},
            DilationAttrs({1, 1, 1, 1}, {1, std::numeric_limits<int64_t>::max(), 1, 1}, "SAME")),
      "dilated size must fit int64");
  ExpectError(
      RunOp("Dilation2D", {input, filter}, DilationAttrs({1, 1, 1, 1}, {1, 3, 1, 1}, "VALID")),
      "the dilated filter (4) is larger than the input (3)");
  ExpectError(RunOp("Dilation2D", {input, Tensor::Zeros(DType::kFloat, {2, 2, 2})},
                    DilationAttrs({1, 1, 1, 1}, {1, 1, 1, 1}, "SAME")),
              "filter must be [filter_rows, filter_cols, 1]");
}

}  // namespace
}  // namespace dfc
