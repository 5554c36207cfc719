// Tests of the bitwise reference kernels (bitwise.cc): hand-computed values on every integer
// width, TensorFlow's clamping of shift amounts, broadcasting and empty tensors,
// CompareAndBitpack's bit order and its bool form, and the refusals.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/half.h"
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
using ::testing::ElementsAre;

// --- And, Or, Xor, with broadcasting ----------------------------------------------------------

TEST(BitwiseBinaryTest, AndOrXorOnSignedAndUnsigned) {
  const Tensor x = T1<int32_t>({0b1100, -1, 0, 6});
  const Tensor y = T1<int32_t>({0b1010, 5, -7, -1});
  EXPECT_THAT(Values<int32_t>(RunOp1("BitwiseAnd", {x, y})), ElementsAre(0b1000, 5, 0, 6));
  EXPECT_THAT(Values<int32_t>(RunOp1("BitwiseOr", {x, y})), ElementsAre(0b1110, -1, -7, -1));
  EXPECT_THAT(Values<int32_t>(RunOp1("BitwiseXor", {x, y})), ElementsAre(0b0110, -6, -7, -7));
  const Tensor a = T1<uint8_t>({0xf0, 0xff, 0x0f});
  const Tensor b = T1<uint8_t>({0x3c, 0x81, 0xf0});
  EXPECT_THAT(Values<uint8_t>(RunOp1("BitwiseAnd", {a, b})), ElementsAre(0x30, 0x81, 0x00));
  EXPECT_THAT(Values<uint8_t>(RunOp1("BitwiseOr", {a, b})), ElementsAre(0xfc, 0xff, 0xff));
  EXPECT_THAT(Values<uint8_t>(RunOp1("BitwiseXor", {a, b})), ElementsAre(0xcc, 0x7e, 0xff));
  const Tensor big = T1<uint64_t>({0xffff'0000'ffff'0000ull});
  EXPECT_THAT(Values<uint64_t>(RunOp1("BitwiseXor", {big, T1<uint64_t>({~0ull})})),
              ElementsAre(0x0000'ffff'0000'ffffull));
}

TEST(BitwiseBinaryTest, BroadcastsAndKeepsEmptyShapes) {
  // [2, 1] against [3]: [2, 3].
  const Tensor out = RunOp1("BitwiseOr", {TN<int16_t>({1, 16}, {2, 1}), T1<int16_t>({0, 2, 4})});
  EXPECT_EQ(out.shape(), Shape({2, 3}));
  EXPECT_THAT(Values<int16_t>(out), ElementsAre(1, 3, 5, 16, 18, 20));
  // A scalar against a [0, 2]: an empty [0, 2].
  const Tensor empty =
      RunOp1("BitwiseAnd", {Tensor::Zeros(DType::kInt64, {0, 2}), Tensor::Scalar<int64_t>(3)});
  EXPECT_EQ(empty.shape(), Shape({0, 2}));
  EXPECT_EQ(empty.dtype(), DType::kInt64);
}

// --- shifts -----------------------------------------------------------------------------------

TEST(ShiftTest, TensorFlowsDocumentedLeftShifts) {
  // bitwise_ops.left_shift's example: [-1, -5, -3, -14] << [5, 0, 7, 11].
  const std::vector<int64_t> lhs = {-1, -5, -3, -14};
  const std::vector<int64_t> rhs = {5, 0, 7, 11};
  auto shift = [&]<typename T>() {
    std::vector<T> l(lhs.begin(), lhs.end()), r(rhs.begin(), rhs.end());
    return Values<T>(RunOp1("LeftShift", {T1<T>(l), T1<T>(r)}));
  };
  EXPECT_THAT(shift.operator()<int8_t>(), ElementsAre(-32, -5, -128, 0));
  EXPECT_THAT(shift.operator()<int16_t>(), ElementsAre(-32, -5, -384, -28672));
  EXPECT_THAT(shift.operator()<int32_t>(), ElementsAre(-32, -5, -384, -28672));
  EXPECT_THAT(shift.operator()<int64_t>(), ElementsAre(-32, -5, -384, -28672));
}

TEST(ShiftTest, RightShiftIsArithmeticOnSignedAndLogicalOnUnsigned) {
  EXPECT_THAT(Values<int32_t>(RunOp1("RightShift",
                                     {T1<int32_t>({-16, 16, -1, 37}), T1<int32_t>({2, 2, 5, 1})})),
              ElementsAre(-4, 4, -1, 18));
  EXPECT_THAT(
      Values<uint8_t>(RunOp1("RightShift", {T1<uint8_t>({0xf0, 0x80}), T1<uint8_t>({2, 7})})),
      ElementsAre(0x3c, 1));
  EXPECT_THAT(Values<int8_t>(RunOp1("RightShift", {T1<int8_t>({-128, 127}), T1<int8_t>({7, 6})})),
              ElementsAre(-1, 1));
}

// TensorFlow clamps the amount to [0, bits - 1]: a negative amount shifts by 0, an amount of
// the width or more by bits - 1.
TEST(ShiftTest, AmountsOutOfRangeAreClamped) {
  const Tensor x = T1<int32_t>({5, 5, 5, -5, 1, 1});
  const Tensor y = T1<int32_t>({-3, 32, 100, 40, 31, std::numeric_limits<int32_t>::min()});
  EXPECT_THAT(
      Values<int32_t>(RunOp1("LeftShift", {x, y})),
      ElementsAre(5, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::min(),
                  std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::min(), 1));
  EXPECT_THAT(Values<int32_t>(RunOp1("RightShift", {x, y})), ElementsAre(5, 0, 0, -1, 0, 1));
  // Unsigned: 255 is clamped to 7 (uint8) and 64 to 63 (uint64).
  EXPECT_THAT(Values<uint8_t>(RunOp1("LeftShift", {T1<uint8_t>({3}), T1<uint8_t>({255})})),
              ElementsAre(0x80));
  EXPECT_THAT(Values<uint64_t>(RunOp1("RightShift", {T1<uint64_t>({~0ull}), T1<uint64_t>({64})})),
              ElementsAre(1));
  EXPECT_THAT(Values<int16_t>(RunOp1("LeftShift", {T1<int16_t>({3}), T1<int16_t>({16})})),
              ElementsAre(std::numeric_limits<int16_t>::min()));
}

// --- Invert, PopulationCount --------------------------------------------------------------------

TEST(BitwiseUnaryTest, InvertOnEveryWidth) {
  EXPECT_THAT(Values<int8_t>(RunOp1("Invert", {T1<int8_t>({0, -1, 7, -128})})),
              ElementsAre(-1, 0, -8, 127));
  EXPECT_THAT(Values<uint8_t>(RunOp1("Invert", {T1<uint8_t>({0, 5})})), ElementsAre(255, 250));
  EXPECT_THAT(Values<uint16_t>(RunOp1("Invert", {T1<uint16_t>({1})})), ElementsAre(0xfffe));
  EXPECT_THAT(Values<int64_t>(RunOp1("Invert", {T1<int64_t>({2})})), ElementsAre(-3));
  EXPECT_THAT(Values<uint32_t>(RunOp1("Invert", {T1<uint32_t>({0})})), ElementsAre(0xffffffffu));
}

TEST(BitwiseUnaryTest, PopulationCountIsUInt8AndCountsTheTwosComplementPattern) {
  const Tensor out = RunOp1("PopulationCount", {TN<int8_t>({0, -1, 7, -128}, {2, 2})});
  EXPECT_EQ(out.dtype(), DType::kUInt8);
  EXPECT_EQ(out.shape(), Shape({2, 2}));
  EXPECT_THAT(Values<uint8_t>(out), ElementsAre(0, 8, 3, 1));
  EXPECT_THAT(Values<uint8_t>(RunOp1("PopulationCount", {T1<int64_t>({-1, 0x100000001})})),
              ElementsAre(64, 2));
  EXPECT_THAT(Values<uint8_t>(RunOp1("PopulationCount", {T1<uint16_t>({0xffff})})),
              ElementsAre(16));
  const Tensor empty = RunOp1("PopulationCount", {Tensor::Zeros(DType::kInt32, {3, 0})});
  EXPECT_EQ(empty.dtype(), DType::kUInt8);
  EXPECT_EQ(empty.shape(), Shape({3, 0}));
}

// --- CompareAndBitpack --------------------------------------------------------------------------

TEST(CompareAndBitpackTest, FirstElementIsTheMostSignificantBit) {
  // Row 0: 1 0 0 0 0 0 1 1 = 0x83; row 1: 0 1 1 1 1 1 1 0 = 0x7e.
  const Tensor x = TN<float>({5, 0, -1, 0.5f, 0.5f, 0, 2, 9,  //
                              0, 3, 3, 3, 3, 3, 3, 0.5f},
                             {2, 8});
  const Tensor out = RunOp1("CompareAndBitpack", {x, Tensor::Scalar<float>(0.5f)});
  EXPECT_EQ(out.dtype(), DType::kUInt8);
  EXPECT_EQ(out.shape(), Shape({2, 1}));
  EXPECT_THAT(Values<uint8_t>(out), ElementsAre(0x83, 0x7e));
}

TEST(CompareAndBitpackTest, PacksEachGroupOfEightInTheLastDimension) {
  std::vector<int32_t> v(16);
  for (int i = 0; i < 16; ++i) v[i] = i;  // > 4: elements 5..15
  const Tensor out =
      RunOp1("CompareAndBitpack", {TN<int32_t>(v, {1, 16}), Tensor::Scalar<int32_t>(4)});
  EXPECT_EQ(out.shape(), Shape({1, 2}));
  EXPECT_THAT(Values<uint8_t>(out), ElementsAre(0x07, 0xff));
}

TEST(CompareAndBitpackTest, NaNIsNotGreaterAndHalfComparesExactly) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = TN<double>({nan, 1, nan, 1, nan, 1, nan, 1}, {8});
  EXPECT_THAT(Values<uint8_t>(RunOp1("CompareAndBitpack", {x, Tensor::Scalar<double>(0)})),
              ElementsAre(0x55));
  const Tensor h = HalfTensor({0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f}, {8});
  const Tensor t = HalfTensor({0.4f}, {});
  EXPECT_THAT(Values<uint8_t>(RunOp1("CompareAndBitpack", {h, t})), ElementsAre(0x0f));
}

// TensorFlow's bool kernel packs the elements themselves, whatever the threshold.
TEST(CompareAndBitpackTest, BoolPacksTheValuesAndIgnoresTheThreshold) {
  const Tensor x = TN<bool>({true, true, false, true, false, true, true, true}, {8});
  for (bool threshold : {false, true}) {
    EXPECT_THAT(Values<uint8_t>(RunOp1("CompareAndBitpack", {x, Tensor::Scalar<bool>(threshold)})),
                ElementsAre(0xd7));
  }
}

TEST(CompareAndBitpackTest, EmptyInputs) {
  const Tensor rows = RunOp1("CompareAndBitpack",
                             {Tensor::Zeros(DType::kInt16, {0, 8}), Tensor::Scalar<int16_t>(0)});
  EXPECT_EQ(rows.shape(), Shape({0, 1}));
  const Tensor cols = RunOp1("CompareAndBitpack",
                             {Tensor::Zeros(DType::kInt16, {3, 0}), Tensor::Scalar<int16_t>(0)});
  EXPECT_EQ(cols.shape(), Shape({3, 0}));
}

// --- refusals -----------------------------------------------------------------------------------

TEST(BitwiseErrorTest, FloatsAndMixedDTypesAreRefused) {
  ExpectError(RunOp("BitwiseAnd", {T1<float>({1}), T1<float>({1})}),
              "BitwiseAnd is not defined for dtype float32");
  ExpectError(RunOp("LeftShift", {T1<int32_t>({1}), T1<int64_t>({1})}),
              "must have the same dtype, got int32[1] and int64[1]");
  ExpectError(RunOp("Invert", {T1<bool>({true})}), "Invert is not defined for dtype bool");
  ExpectError(RunOp("PopulationCount", {T1<double>({1})}),
              "PopulationCount is not defined for dtype float64");
  ExpectError(RunOp("BitwiseXor", {T1<int32_t>({1, 2, 3}), T1<int32_t>({1, 2})}),
              "incompatible shapes [3] and [2]");
  ExpectError(RunOp("RightShift", {T1<int32_t>({1})}), "expects 2 inputs, got 1");
}

TEST(BitwiseErrorTest, CompareAndBitpackChecksItsShapesAndDTypes) {
  ExpectError(
      RunOp("CompareAndBitpack", {T1<float>({1, 2, 3, 4, 5, 6, 7}), Tensor::Scalar<float>(0)}),
      "must be a multiple of 8, got 7");
  ExpectError(RunOp("CompareAndBitpack", {Tensor::Scalar<float>(1), Tensor::Scalar<float>(0)}),
              "input must have rank at least 1");
  ExpectError(RunOp("CompareAndBitpack", {Tensor::Zeros(DType::kFloat, {8}), T1<float>({0})}),
              "threshold must be a scalar, got float32[1]");
  ExpectError(
      RunOp("CompareAndBitpack", {Tensor::Zeros(DType::kUInt8, {8}), Tensor::Scalar<uint8_t>(0)}),
      "CompareAndBitpack is not defined for dtype uint8");
  ExpectError(
      RunOp("CompareAndBitpack", {Tensor::Zeros(DType::kFloat, {8}), Tensor::Scalar<double>(0)}),
      "must have the same dtype");
}

}  // namespace
}  // namespace dfc
