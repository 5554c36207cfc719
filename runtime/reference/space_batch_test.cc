// Tests of the space/batch/depth reference kernels (space_batch.cc): TensorFlow's documented
// examples, round trips, and the error cases.
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
using ::dfc::testing::Iota;
using ::dfc::testing::RunOp;
using ::dfc::testing::RunOp1;
using ::dfc::testing::T1;
using ::dfc::testing::TN;
using ::dfc::testing::Values;
using ::dfc::testing::ValuesAsDouble;
using ::testing::ElementsAre;

// An int32 [m, 2] matrix of paddings or crops.
Tensor Amounts(std::vector<int32_t> v) {
  const int64_t m = static_cast<int64_t>(v.size()) / 2;
  return TN<int32_t>(std::move(v), {m, 2});
}

// The values 1..n in `shape`, as float.
Tensor OneTo(Shape shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i + 1);
  return TN<float>(v, shape);
}

TEST(SpaceToBatchNDTest, TensorFlowExamples) {
  // [1, 2, 2, 1] with a 2x2 block: each pixel becomes a batch entry.
  Tensor out =
      RunOp1("SpaceToBatchND", {OneTo({1, 2, 2, 1}), T1<int32_t>({2, 2}), Amounts({0, 0, 0, 0})});
  EXPECT_EQ(out.shape(), Shape({4, 1, 1, 1}));
  EXPECT_THAT(Values<float>(out), ElementsAre(1, 2, 3, 4));
  // [1, 4, 4, 1]: batch entry k = (i, j) of the block takes pixels (2y + i, 2x + j).
  out = RunOp1("SpaceToBatchND", {OneTo({1, 4, 4, 1}), T1<int32_t>({2, 2}), Amounts({0, 0, 0, 0})});
  EXPECT_EQ(out.shape(), Shape({4, 2, 2, 1}));
  EXPECT_THAT(Values<float>(out),
              ElementsAre(1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16));
  // Two images and padding: the block offset is the outer part of the output batch, the
  // input batch the inner, and padded positions are 0.
  out = RunOp1("SpaceToBatchND",
               {OneTo({2, 2, 4, 1}), T1<int64_t>({2, 2}), TN<int64_t>({0, 0, 2, 0}, {2, 2})});
  EXPECT_EQ(out.shape(), Shape({8, 1, 3, 1}));
  EXPECT_THAT(Values<float>(out), ElementsAre(0, 1, 3, 0, 9, 11, 0, 2, 4, 0, 10, 12, 0, 5, 7, 0, 13,
                                              15, 0, 6, 8, 0, 14, 16));
}

TEST(SpaceToBatchNDTest, OneBlockDimensionAndTrailingDepth) {
  // [1, 4, 2] with block [2] over dimension 1: the trailing dimension moves whole.
  const Tensor out =
      RunOp1("SpaceToBatchND", {OneTo({1, 4, 2}), T1<int32_t>({2}), Amounts({1, 1})});
  EXPECT_EQ(out.shape(), Shape({2, 3, 2}));
  // Padded rows: 0, r1, r2, r3, r4, 0 -> offset 0 takes rows 0, 2, 4; offset 1 rows 1, 3, 5.
  EXPECT_THAT(Values<float>(out), ElementsAre(0, 0, 3, 4, 7, 8, 1, 2, 5, 6, 0, 0));
}

TEST(SpaceToBatchNDTest, NoBlockDimensionsIsTheIdentity) {
  const Tensor in = Iota({2, 3});
  const Tensor out = RunOp1("SpaceToBatchND", {in, Tensor::Zeros(DType::kInt32, {0}),
                                               Tensor::Zeros(DType::kInt32, {0, 2})});
  EXPECT_TRUE(out.BitwiseEqual(in));
}

// SpaceToBatchND then BatchToSpaceND with the same block and paddings as crops gives the
// input back, for several shapes and dtypes.
struct RoundTripCase {
  std::string name;
  Shape shape;
  std::vector<int32_t> block;
  std::vector<int32_t> paddings;
  DType dtype;
};

class SpaceBatchRoundTripTest : public ::testing::TestWithParam<RoundTripCase> {};

TEST_P(SpaceBatchRoundTripTest, BatchToSpaceUndoesSpaceToBatch) {
  const RoundTripCase& c = GetParam();
  const Tensor floats = OneTo(c.shape);
  const Tensor in = c.dtype == DType::kHalf
                        ? HalfTensor(Values<float>(floats), c.shape)
                        : RunOp1("Cast", {floats}, {{"DstT", c.dtype}, {"SrcT", DType::kFloat}});
  const Tensor block = T1<int32_t>(c.block);
  const Tensor amounts = Amounts(c.paddings);
  const Tensor batched = RunOp1("SpaceToBatchND", {in, block, amounts});
  const Tensor back = RunOp1("BatchToSpaceND", {batched, block, amounts});
  EXPECT_TRUE(back.BitwiseEqual(in)) << back.Preview(64);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, SpaceBatchRoundTripTest,
    ::testing::Values(
        RoundTripCase{"Image", {2, 4, 6, 3}, {2, 3}, {0, 0, 0, 0}, DType::kFloat},
        RoundTripCase{"PaddedImage", {3, 3, 5, 2}, {2, 2}, {1, 0, 2, 1}, DType::kInt32},
        RoundTripCase{"OneDim", {2, 5, 3}, {3}, {0, 1}, DType::kHalf},
        RoundTripCase{"ThreeDims", {1, 2, 3, 4, 2}, {2, 1, 2}, {0, 0, 1, 2, 1, 1}, DType::kInt8},
        RoundTripCase{"BlockOfOne", {2, 3, 3}, {1, 3}, {0, 0, 0, 0}, DType::kDouble}),
    [](const ::testing::TestParamInfo<RoundTripCase>& info) { return info.param.name; });

TEST(BatchToSpaceNDTest, TensorFlowExampleWithCrops) {
  // The inverse of the padded SpaceToBatchND example above.
  const Tensor batched =
      TN<float>({0, 1, 3, 0, 9, 11, 0, 2, 4, 0, 10, 12, 0, 5, 7, 0, 13, 15, 0, 6, 8, 0, 14, 16},
                {8, 1, 3, 1});
  const Tensor out =
      RunOp1("BatchToSpaceND", {batched, T1<int32_t>({2, 2}), Amounts({0, 0, 2, 0})});
  EXPECT_EQ(out.shape(), Shape({2, 2, 4, 1}));
  EXPECT_THAT(Values<float>(out),
              ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16));
  // [4, 1, 1, 3] with a 2x2 block: the depth moves whole.
  const Tensor deep =
      RunOp1("BatchToSpaceND", {OneTo({4, 1, 1, 3}), T1<int32_t>({2, 2}), Amounts({0, 0, 0, 0})});
  EXPECT_EQ(deep.shape(), Shape({1, 2, 2, 3}));
  EXPECT_THAT(Values<float>(deep), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12));
}

TEST(BatchToSpaceNDTest, CropsToNothing) {
  const Tensor out =
      RunOp1("BatchToSpaceND", {OneTo({2, 1, 3}), T1<int32_t>({2}), Amounts({1, 1})});
  EXPECT_EQ(out.shape(), Shape({1, 0, 3}));
}

TEST(SpaceToBatchTest, IsTheNdOpWithASquareBlock) {
  const Tensor in = OneTo({2, 4, 2, 1});
  const Tensor paddings = Amounts({0, 0, 1, 1});
  const Tensor v1 = RunOp1("SpaceToBatch", {in, paddings}, {{"block_size", int64_t{2}}});
  const Tensor nd = RunOp1("SpaceToBatchND", {in, T1<int32_t>({2, 2}), paddings});
  EXPECT_EQ(v1.shape(), Shape({8, 2, 2, 1}));
  EXPECT_TRUE(v1.BitwiseEqual(nd));
  const Tensor back = RunOp1("BatchToSpace", {v1, paddings}, {{"block_size", int64_t{2}}});
  EXPECT_TRUE(back.BitwiseEqual(in));
}

TEST(SpaceToBatchTest, Errors) {
  const Tensor image = OneTo({1, 4, 4, 1});
  const Tensor block = T1<int32_t>({2, 2});
  ExpectError(RunOp("SpaceToBatchND", {image, block, Amounts({0, 0, 0, 1})}),
              "is not divisible by its block size 2");
  ExpectError(RunOp("SpaceToBatchND", {image, block, Amounts({0, 0, -2, 0})}),
              "paddings must be non-negative");
  ExpectError(RunOp("SpaceToBatchND", {image, T1<int32_t>({2, 0}), Amounts({0, 0, 0, 0})}),
              "block_shape must be positive");
  ExpectError(RunOp("SpaceToBatchND", {image, block, Amounts({0, 0})}),
              "paddings must be an int32 or int64 matrix [2, 2]");
  ExpectError(RunOp("SpaceToBatchND", {OneTo({4, 4}), block, Amounts({0, 0, 0, 0})}), "rank >= 3");
  ExpectError(RunOp("SpaceToBatchND", {image, TN<int32_t>({2, 2}, {1, 2}), Amounts({0, 0, 0, 0})}),
              "block_shape must be a vector");
  ExpectError(
      RunOp("SpaceToBatchND", {TN<bool>({true, false}, {1, 2}), T1<int32_t>({2}), Amounts({0, 0})}),
      "bool");
  ExpectError(RunOp("SpaceToBatch", {image, Amounts({0, 0, 0, 0})}, {{"block_size", int64_t{1}}}),
              "block_size must be > 1");
  ExpectError(RunOp("SpaceToBatch", {OneTo({4, 4, 1}), Amounts({0, 0, 0, 0})},
                    {{"block_size", int64_t{2}}}),
              "rank 4");
  ExpectError(RunOp("BatchToSpaceND", {OneTo({3, 1, 1, 1}), block, Amounts({0, 0, 0, 0})}),
              "input batch 3 is not divisible by the product of the block sizes 4");
  ExpectError(RunOp("BatchToSpaceND", {OneTo({4, 1, 1, 1}), block, Amounts({0, 0, 2, 1})}),
              "exceed");
  ExpectError(RunOp("BatchToSpaceND", {OneTo({4, 1, 1, 1}), block, Amounts({0, 0, -1, 0})}),
              "crops must be non-negative");
  ExpectError(RunOp("BatchToSpace", {OneTo({4, 1, 1, 1}), Amounts({0, 0, 0, 0})},
                    {{"block_size", int64_t{0}}}),
              "node \"node\"");
}

TEST(DepthToSpaceTest, TensorFlowExamples) {
  const AttrMap b2 = {{"block_size", int64_t{2}}};
  Tensor out = RunOp1("DepthToSpace", {OneTo({1, 1, 1, 4})}, b2);
  EXPECT_EQ(out.shape(), Shape({1, 2, 2, 1}));
  EXPECT_THAT(Values<float>(out), ElementsAre(1, 2, 3, 4));
  out = RunOp1("DepthToSpace", {OneTo({1, 1, 1, 12})}, b2);
  EXPECT_EQ(out.shape(), Shape({1, 2, 2, 3}));
  EXPECT_THAT(Values<float>(out), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12));
  out = RunOp1("DepthToSpace", {OneTo({1, 2, 2, 4})}, b2);
  EXPECT_EQ(out.shape(), Shape({1, 4, 4, 1}));
  EXPECT_THAT(Values<float>(out),
              ElementsAre(1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11, 12, 15, 16));
  // SpaceToDepth is its inverse.
  const Tensor back = RunOp1("SpaceToDepth", {out}, b2);
  EXPECT_EQ(back.shape(), Shape({1, 2, 2, 4}));
  EXPECT_TRUE(back.BitwiseEqual(OneTo({1, 2, 2, 4})));
}

TEST(DepthToSpaceTest, NchwIsNhwcTransposed) {
  const Tensor to_nchw = T1<int32_t>({0, 3, 1, 2});
  // DepthToSpace with a 3x3 block of 18 channels, SpaceToDepth with a 2x2 block.
  struct Case {
    const char* op;
    Shape nhwc_shape;
    int64_t block;
  };
  for (const Case& c :
       {Case{"DepthToSpace", {2, 2, 3, 18}, 3}, Case{"SpaceToDepth", {1, 4, 6, 2}, 2}}) {
    SCOPED_TRACE(c.op);
    const Tensor image = OneTo(c.nhwc_shape);
    const Tensor expected =
        RunOp1("Transpose", {RunOp1(c.op, {image}, {{"block_size", c.block}}), to_nchw});
    const Tensor got = RunOp1(c.op, {RunOp1("Transpose", {image, to_nchw})},
                              {{"block_size", c.block}, {"data_format", std::string("NCHW")}});
    EXPECT_EQ(got.shape(), expected.shape());
    EXPECT_TRUE(got.BitwiseEqual(expected)) << got.Preview(32);
  }
}

TEST(DepthToSpaceTest, AnyDTypeAndEmpty) {
  const Tensor bools = TN<bool>({true, false, false, true}, {1, 1, 1, 4});
  EXPECT_THAT(Values<bool>(RunOp1("DepthToSpace", {bools}, {{"block_size", int64_t{2}}})),
              ElementsAre(true, false, false, true));
  const Tensor empty = RunOp1("SpaceToDepth", {Tensor::Zeros(DType::kHalf, {0, 4, 4, 1})},
                              {{"block_size", int64_t{2}}});
  EXPECT_EQ(empty.shape(), Shape({0, 2, 2, 4}));
  EXPECT_THAT(ValuesAsDouble(empty), ElementsAre());
}

TEST(DepthToSpaceTest, Errors) {
  const AttrMap b2 = {{"block_size", int64_t{2}}};
  ExpectError(RunOp("DepthToSpace", {OneTo({1, 1, 1, 6})}, b2),
              "input depth 6 is not divisible by block_size^2 = 4");
  ExpectError(RunOp("SpaceToDepth", {OneTo({1, 3, 4, 1})}, b2),
              "input height 3 and width 4 must be divisible by block_size 2");
  ExpectError(RunOp("DepthToSpace", {OneTo({1, 1, 4})}, b2), "rank 4");
  ExpectError(RunOp("DepthToSpace", {OneTo({1, 1, 1, 4})}, {{"block_size", int64_t{1}}}),
              "block_size must be > 1");
  ExpectError(RunOp("SpaceToDepth", {OneTo({1, 2, 2, 4})},
                    {{"block_size", int64_t{2}}, {"data_format", std::string("NCHW_VECT_C")}}),
              "data_format \"NCHW_VECT_C\" is not supported");
}

}  // namespace
}  // namespace dfc
