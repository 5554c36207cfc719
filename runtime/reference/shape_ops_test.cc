// Tests for the shape kernels (shape_ops.cc): Shape, ShapeN, Size, Rank, BroadcastArgs,
// BroadcastGradientArgs, DynamicStitch, InvertPermutation, ConcatOffset.
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::dfc::testing::ExpectError;

using ::dfc::testing::RunOp;
using ::dfc::testing::RunOp1;
using ::dfc::testing::T1;
using ::dfc::testing::TN;
using ::dfc::testing::Values;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ShapeTest, ShapeSizeRank) {
  const Tensor in = Tensor::Zeros(DType::kHalf, {2, 0, 3});
  Tensor out = RunOp1("Shape", {in});
  EXPECT_EQ(out.dtype(), DType::kInt32);
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(2, 0, 3));
  out = RunOp1("Shape", {Tensor::Scalar<bool>(true)}, {{"out_type", DType::kInt64}});
  EXPECT_EQ(out.dtype(), DType::kInt64);
  EXPECT_EQ(out.shape(), (Shape{0}));
  EXPECT_THAT(Values<int32_t>(RunOp1("Size", {in})), ElementsAre(0));
  out = RunOp1("Size", {Tensor::Zeros(DType::kInt8, {4, 5})}, {{"out_type", DType::kInt64}});
  EXPECT_EQ(out.shape(), (Shape{}));
  EXPECT_THAT(Values<int64_t>(out), ElementsAre(20));
  out = RunOp1("Rank", {in});
  EXPECT_EQ(out.dtype(), DType::kInt32);
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(3));
  EXPECT_THAT(Values<int32_t>(RunOp1("Rank", {Tensor::Scalar<float>(1)})), ElementsAre(0));
  ExpectError(RunOp("Shape", {in}, {{"out_type", DType::kFloat}}),
              "out_type must be int32 or int64, got float32");
}

TEST(ShapeTest, ShapeN) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("ShapeN", {Tensor::Zeros(DType::kFloat, {3, 2}), Tensor::Zeros(DType::kInt32, {4})},
            {{"N", int64_t{2}}, {"out_type", DType::kInt64}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_THAT(Values<int64_t>((*out)[0]), ElementsAre(3, 2));
  EXPECT_THAT(Values<int64_t>((*out)[1]), ElementsAre(4));
  ExpectError(RunOp("ShapeN", {Tensor::Zeros(DType::kFloat, {3})}, {{"N", int64_t{2}}}), "N = 2");
}

struct BroadcastCase {
  std::vector<int32_t> s0, s1;
  std::vector<int32_t> shape, r0, r1;
};

class BroadcastGradientArgsTest : public ::testing::TestWithParam<BroadcastCase> {};

TEST_P(BroadcastGradientArgsTest, MatchesTensorFlow) {
  const BroadcastCase& c = GetParam();
  absl::StatusOr<std::vector<Tensor>> r =
      RunOp("BroadcastGradientArgs", {T1<int32_t>(c.s0), T1<int32_t>(c.s1)});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ(Values<int32_t>((*r)[0]), c.r0);
  EXPECT_EQ(Values<int32_t>((*r)[1]), c.r1);
  const Tensor shape = RunOp1("BroadcastArgs", {T1<int32_t>(c.s0), T1<int32_t>(c.s1)});
  EXPECT_EQ(Values<int32_t>(shape), c.shape);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, BroadcastGradientArgsTest,
    ::testing::Values(BroadcastCase{{2, 3}, {2, 3}, {2, 3}, {}, {}},
                      // Identical shapes reduce nothing, not even their size-1 dimensions.
                      BroadcastCase{{1, 2}, {1, 2}, {1, 2}, {}, {}},
                      BroadcastCase{{2, 3}, {3}, {2, 3}, {}, {0}},
                      BroadcastCase{{2, 1}, {1, 3}, {2, 3}, {1}, {0}},
                      BroadcastCase{{}, {2, 3}, {2, 3}, {0, 1}, {}},
                      // Dimensions where both sides are 1 are reduced on both sides.
                      BroadcastCase{{1}, {}, {1}, {0}, {0}},
                      BroadcastCase{{5, 1, 4}, {1, 1, 4}, {5, 1, 4}, {1}, {0, 1}},
                      BroadcastCase{{2, 0}, {1}, {2, 0}, {}, {0, 1}},
                      BroadcastCase{{1, 4}, {2, 1, 1}, {2, 1, 4}, {0, 1}, {1, 2}}));

TEST(BroadcastArgsTest, Int64AndErrors) {
  const Tensor out = RunOp1("BroadcastArgs", {T1<int64_t>({2, 1}), T1<int64_t>({4})});
  EXPECT_EQ(out.dtype(), DType::kInt64);
  EXPECT_THAT(Values<int64_t>(out), ElementsAre(2, 4));
  ExpectError(RunOp("BroadcastArgs", {T1<int32_t>({2, 3}), T1<int32_t>({4})}),
              "incompatible shapes [2,3] and [4]");
  ExpectError(RunOp("BroadcastGradientArgs", {T1<int32_t>({2, 3}), T1<int32_t>({2, 2})}),
              "incompatible shapes [2,3] and [2,2]");
  ExpectError(RunOp("BroadcastArgs", {T1<int32_t>({2}), T1<int64_t>({2})}),
              "two int32 or two int64");
  ExpectError(RunOp("BroadcastArgs", {T1<int32_t>({-2}), T1<int32_t>({2})}), "negative");
}

TEST(DynamicStitchTest, MergesRows) {
  Tensor out = RunOp1("DynamicStitch",
                      {T1<int32_t>({0, 2}), T1<int32_t>({1}), TN<float>({1, 2, 5, 6}, {2, 2}),
                       TN<float>({3, 4}, {1, 2})},
                      {{"N", int64_t{2}}});
  EXPECT_EQ(out.shape(), (Shape{3, 2}));
  EXPECT_THAT(Values<float>(out), ElementsAre(1, 2, 3, 4, 5, 6));
  // Later entries win.
  out = RunOp1("DynamicStitch",
               {T1<int32_t>({0, 1}), T1<int32_t>({1}), T1<int64_t>({10, 20}), T1<int64_t>({30})});
  EXPECT_THAT(Values<int64_t>(out), ElementsAre(10, 30));
  // A scalar index takes a whole data tensor as its row; unnamed rows are zero.
  out = RunOp1("DynamicStitch", {Tensor::Scalar<int32_t>(1), T1<int32_t>({7, 8})});
  EXPECT_EQ(out.shape(), (Shape{2, 2}));
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(0, 0, 7, 8));
  out = RunOp1("DynamicStitch",
               {Tensor::Zeros(DType::kInt32, {0}), Tensor::Zeros(DType::kFloat, {0, 3})});
  EXPECT_EQ(out.shape(), (Shape{0, 3}));
}

TEST(DynamicStitchTest, Errors) {
  ExpectError(RunOp("DynamicStitch", {T1<int32_t>({0, 1}), T1<float>({1, 2, 3})}),
              "must be indices 0's shape [2]");
  ExpectError(RunOp("DynamicStitch", {T1<int32_t>({0}), T1<int32_t>({1}), TN<float>({1, 2}, {1, 2}),
                                      TN<float>({1, 2, 3}, {1, 3})}),
              "followed by [2]");
  ExpectError(RunOp("DynamicStitch", {T1<int32_t>({-1}), T1<float>({1})}), "holds -1");
  ExpectError(RunOp("DynamicStitch", {T1<int32_t>({0})}), "2N inputs");
}

TEST(InvertPermutationTest, Inverts) {
  Tensor out = RunOp1("InvertPermutation", {T1<int32_t>({3, 4, 0, 2, 1})});
  EXPECT_EQ(out.dtype(), DType::kInt32);
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(2, 4, 3, 0, 1));
  out = RunOp1("InvertPermutation", {T1<int64_t>({1, 2, 0})});
  EXPECT_EQ(out.dtype(), DType::kInt64);
  EXPECT_THAT(Values<int64_t>(out), ElementsAre(2, 0, 1));
  out = RunOp1("InvertPermutation", {Tensor::Zeros(DType::kInt32, {0})});
  EXPECT_EQ(out.shape(), (Shape{0}));
}

TEST(InvertPermutationTest, Errors) {
  ExpectError(RunOp("InvertPermutation", {T1<int32_t>({0, 3, 1})}),
              "x is not a permutation: x[1] = 3 is out of range [0, 3)");
  ExpectError(RunOp("InvertPermutation", {T1<int32_t>({0, -1})}), "x[1] = -1 is out of range");
  ExpectError(RunOp("InvertPermutation", {T1<int64_t>({1, 0, 1})}), "1 appears at x[0] and x[2]");
  ExpectError(RunOp("InvertPermutation", {TN<int32_t>({0, 1}, {1, 2})}), "x must be a vector");
  ExpectError(RunOp("InvertPermutation", {T1<float>({0, 1})}), "float32");
  ExpectError(RunOp("InvertPermutation", {T1<int32_t>({0, 2})}), "node \"node\"");
}

TEST(ConcatOffsetTest, RunningSumAlongTheAxis) {
  for (int32_t axis : {1, -2}) {
    absl::StatusOr<std::vector<Tensor>> out =
        RunOp("ConcatOffset",
              {Tensor::Scalar<int32_t>(axis), T1<int32_t>({2, 3, 5}), T1<int32_t>({2, 7, 5}),
               T1<int32_t>({2, 1, 5})},
              {{"N", int64_t{3}}});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 3u);
    EXPECT_THAT(Values<int32_t>((*out)[0]), ElementsAre(0, 0, 0));
    EXPECT_THAT(Values<int32_t>((*out)[1]), ElementsAre(0, 3, 0));
    EXPECT_THAT(Values<int32_t>((*out)[2]), ElementsAre(0, 10, 0));
  }
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("ConcatOffset", {Tensor::Scalar<int32_t>(0), T1<int64_t>({4, 2}), T1<int64_t>({0, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[1].dtype(), DType::kInt64);
  EXPECT_THAT(Values<int64_t>((*out)[0]), ElementsAre(0, 0));
  EXPECT_THAT(Values<int64_t>((*out)[1]), ElementsAre(4, 0));
}

TEST(ConcatOffsetTest, Errors) {
  const Tensor dim = Tensor::Scalar<int32_t>(1);
  ExpectError(RunOp("ConcatOffset", {dim, T1<int32_t>({2, 3}), T1<int32_t>({4, 3})}),
              "all dimensions except 1 must match: shape 1 is [4,3] and shape 0 is [2,3]");
  ExpectError(RunOp("ConcatOffset", {dim, T1<int32_t>({2, 3}), T1<int32_t>({2, 3, 1})}),
              "shape 1 [2,3,1] has 3 elements, shape 0 has 2");
  ExpectError(
      RunOp("ConcatOffset", {Tensor::Scalar<int32_t>(2), T1<int32_t>({2, 3}), T1<int32_t>({2, 3})}),
      "concat_dim 2 is out of range for shapes of rank 2");
  ExpectError(RunOp("ConcatOffset",
                    {Tensor::Scalar<int32_t>(-3), T1<int32_t>({2, 3}), T1<int32_t>({2, 3})}),
              "concat_dim -3 is out of range");
  ExpectError(RunOp("ConcatOffset", {T1<int32_t>({1}), T1<int32_t>({2, 3}), T1<int32_t>({2, 3})}),
              "concat_dim must be an int32 scalar");
  ExpectError(RunOp("ConcatOffset", {dim, T1<int32_t>({2, 3}), T1<int64_t>({2, 3})}),
              "of one dtype");
  ExpectError(RunOp("ConcatOffset", {dim, T1<int32_t>({2, 3})}), "at least 2 shapes");
  ExpectError(
      RunOp("ConcatOffset", {dim, T1<int32_t>({2, 3}), T1<int32_t>({2, 3})}, {{"N", int64_t{3}}}),
      "N = 3");
}

}  // namespace
}  // namespace dfc
