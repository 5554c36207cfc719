// Tests of the segment reduction and partition kernels (segment.cc): hand-computed sorted and
// unsorted reductions with their empty-segment values, DynamicPartition, ParallelConcat, and
// the errors TensorFlow's CPU kernels raise.
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
using ::dfc::testing::Iota;
using ::dfc::testing::RunOp;
using ::dfc::testing::RunOp1;
using ::dfc::testing::T1;
using ::dfc::testing::TN;
using ::dfc::testing::Values;
using ::dfc::testing::ValuesAsDouble;
using ::testing::ElementsAre;

// --- Sorted segments -------------------------------------------------------------------------

TEST(SegmentTest, EachReductionWithAGap) {
  // Rows 0-1 are segment 0, row 2 segment 2; segment 1 is named by no id.
  const Tensor data = TN<float>({1, 2, 3, 4, 5, -6}, {3, 2});
  const Tensor ids = T1<int32_t>({0, 0, 2});
  Tensor out = RunOp1("SegmentSum", {data, ids});
  EXPECT_EQ(out.shape(), (Shape{3, 2}));
  EXPECT_THAT(Values<float>(out), ElementsAre(4, 6, 0, 0, 5, -6));
  EXPECT_THAT(Values<float>(RunOp1("SegmentMean", {data, ids})), ElementsAre(2, 3, 0, 0, 5, -6));
  EXPECT_THAT(Values<float>(RunOp1("SegmentProd", {data, ids})), ElementsAre(3, 8, 1, 1, 5, -6));
  // An empty segment of max and min is 0, not the dtype's extreme (TensorFlow's default).
  EXPECT_THAT(Values<float>(RunOp1("SegmentMax", {data, ids})), ElementsAre(3, 4, 0, 0, 5, -6));
  EXPECT_THAT(Values<float>(RunOp1("SegmentMin", {data, ids})), ElementsAre(1, 2, 0, 0, 5, -6));
}

TEST(SegmentTest, IntegersRankOneAndEmpty) {
  // Integer means truncate; int64 ids.
  Tensor out =
      RunOp1("SegmentMean", {T1<int32_t>({1, 2, 7, -7, -8}), T1<int64_t>({0, 0, 1, 2, 2})});
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(1, 7, -7));
  // A one-row segment is copied: the max of -inf stays -inf.
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_THAT(Values<float>(RunOp1("SegmentMax", {T1<float>({-inf}), T1<int32_t>({0})})),
              ElementsAre(-inf));
  // No ids, no segments.
  out = RunOp1("SegmentSum",
               {Tensor::Zeros(DType::kDouble, {0, 3}), Tensor::Zeros(DType::kInt32, {0})});
  EXPECT_EQ(out.shape(), (Shape{0, 3}));
  // half sums in half.
  EXPECT_THAT(
      ValuesAsDouble(RunOp1("SegmentSum", {HalfTensor({2048, 1, 1}, {3}), T1<int32_t>({0, 0, 0})})),
      ElementsAre(2048));
}

TEST(SegmentTest, Errors) {
  const Tensor data = T1<float>({1, 2, 3});
  ExpectError(RunOp("SegmentSum", {data, T1<int32_t>({0, 2, 1})}), "not increasing");
  ExpectError(RunOp("SegmentSum", {data, T1<int32_t>({-1, 0, 0})}), "is negative");
  ExpectError(RunOp("SegmentSum", {data, T1<int32_t>({-1, -1, -1})}), "must be >= 0");
  ExpectError(RunOp("SegmentSum", {data, T1<int32_t>({0, 0})}),
              "segment_ids must be a vector of data's first dimension 3");
  ExpectError(RunOp("SegmentSum", {Tensor::Scalar<float>(1), T1<int32_t>({0})}), "rank 1 or more");
  ExpectError(RunOp("SegmentMax", {T1<bool>({true}), T1<int32_t>({0})}), "unsupported dtype");
  ExpectError(RunOp("SegmentSum", {data, T1<float>({0, 0, 0})}), "input 1 has dtype float32");
}

// --- Unsorted segments -----------------------------------------------------------------------

TEST(UnsortedSegmentTest, EachReductionWithEmptySegments) {
  const Tensor data = TN<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  const Tensor ids = T1<int32_t>({2, 0, 2});
  const Tensor three = Tensor::Scalar<int32_t>(3);
  EXPECT_THAT(Values<float>(RunOp1("UnsortedSegmentSum", {data, ids, three})),
              ElementsAre(3, 4, 0, 0, 6, 8));
  EXPECT_THAT(Values<float>(RunOp1("UnsortedSegmentProd", {data, ids, three})),
              ElementsAre(3, 4, 1, 1, 5, 12));
  // Empty segments: the dtype's lowest for max, highest for min.
  const float lowest = std::numeric_limits<float>::lowest();
  const float highest = std::numeric_limits<float>::max();
  EXPECT_THAT(Values<float>(RunOp1("UnsortedSegmentMax", {data, ids, three})),
              ElementsAre(3, 4, lowest, lowest, 5, 6));
  EXPECT_THAT(Values<float>(RunOp1("UnsortedSegmentMin", {data, ids, three})),
              ElementsAre(3, 4, highest, highest, 1, 2));
  EXPECT_THAT(Values<int32_t>(RunOp1("UnsortedSegmentMax", {T1<int32_t>({5}), T1<int32_t>({1}),
                                                            Tensor::Scalar<int64_t>(2)})),
              ElementsAre(std::numeric_limits<int32_t>::lowest(), 5));
}

TEST(UnsortedSegmentTest, IdsOfHigherRankNegativeIdsAndEmptyData) {
  // ids [2, 2] over data [2, 2, 1]: each element of ids names a row of 1; -1 is dropped.
  Tensor out = RunOp1("UnsortedSegmentSum", {Iota({2, 2, 1}), TN<int64_t>({1, -1, 1, 0}, {2, 2}),
                                             Tensor::Scalar<int64_t>(2)});
  EXPECT_EQ(out.shape(), (Shape{2, 1}));
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(3, 2));
  // Empty data reads no id: an out-of-range one passes, as in TensorFlow.
  out = RunOp1("UnsortedSegmentSum", {Tensor::Zeros(DType::kFloat, {2, 0}), T1<int32_t>({0, 9}),
                                      Tensor::Scalar<int32_t>(3)});
  EXPECT_EQ(out.shape(), (Shape{3, 0}));
}

TEST(UnsortedSegmentTest, Errors) {
  const Tensor data = T1<float>({1, 2});
  ExpectError(RunOp("UnsortedSegmentSum", {data, T1<int32_t>({0, 2}), Tensor::Scalar<int32_t>(2)}),
              "segment_ids[1] = 2 is out of range [0, 2)");
  ExpectError(RunOp("UnsortedSegmentSum", {data, T1<int32_t>({0, 1}), T1<int32_t>({2})}),
              "num_segments must be a scalar");
  ExpectError(RunOp("UnsortedSegmentSum", {data, T1<int32_t>({0, 1}), Tensor::Scalar<int32_t>(-1)}),
              "must not be negative");
  ExpectError(
      RunOp("UnsortedSegmentMin", {data, T1<int32_t>({0, 1, 1}), Tensor::Scalar<int32_t>(2)}),
      "does not start with segment_ids' shape [3]");
}

// --- DynamicPartition, ParallelConcat --------------------------------------------------------

TEST(DynamicPartitionTest, RowsInOrder) {
  std::vector<Tensor> out;
  absl::StatusOr<std::vector<Tensor>> r =
      RunOp("DynamicPartition", {Iota({4, 2}), T1<int32_t>({1, 0, 1, 1})},
            {{"num_partitions", int64_t{3}}});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].shape(), (Shape{1, 2}));
  EXPECT_THAT(Values<int32_t>((*r)[0]), ElementsAre(2, 3));
  EXPECT_EQ((*r)[1].shape(), (Shape{3, 2}));
  EXPECT_THAT(Values<int32_t>((*r)[1]), ElementsAre(0, 1, 4, 5, 6, 7));
  EXPECT_EQ((*r)[2].shape(), (Shape{0, 2}));
  // Partitions of rank 2 over elements.
  r = RunOp("DynamicPartition",
            {TN<float>({1, 2, 3, 4}, {2, 2}), TN<int32_t>({1, 0, 0, 1}, {2, 2})},
            {{"num_partitions", int64_t{2}}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Values<float>((*r)[0]), ElementsAre(2, 3));
  EXPECT_THAT(Values<float>((*r)[1]), ElementsAre(1, 4));
}

TEST(DynamicPartitionTest, Errors) {
  ExpectError(
      RunOp("DynamicPartition", {Iota({2}), T1<int32_t>({0, 2})}, {{"num_partitions", int64_t{2}}}),
      "partitions[1] = 2 is not in [0, 2)");
  ExpectError(RunOp("DynamicPartition", {Iota({2}), T1<int32_t>({0, 0, 0})},
                    {{"num_partitions", int64_t{1}}}),
              "does not start with partitions' shape [3]");
  ExpectError(
      RunOp("DynamicPartition", {Iota({2}), T1<int32_t>({0, 0})}, {{"num_partitions", int64_t{0}}}),
      "num_partitions must be >= 1");
  ExpectError(
      RunOp("DynamicPartition", {Iota({2}), T1<int64_t>({0, 0})}, {{"num_partitions", int64_t{1}}}),
      "input 1 has dtype int64");
}

TEST(ParallelConcatTest, StacksValues) {
  Tensor out = RunOp1("ParallelConcat", {TN<float>({1, 2}, {1, 2}), TN<float>({3, 4}, {1, 2})},
                      {{"N", int64_t{2}}, {"shape", PartialShape{.dims = {2, 2}}}});
  EXPECT_EQ(out.shape(), (Shape{2, 2}));
  EXPECT_THAT(Values<float>(out), ElementsAre(1, 2, 3, 4));
  ExpectError(RunOp("ParallelConcat", {TN<float>({1, 2}, {2, 1})}), "expected the shape [1, ...]");
  ExpectError(
      RunOp("ParallelConcat", {TN<float>({1}, {1, 1})}, {{"shape", PartialShape{.dims = {2, 1}}}}),
      "attribute shape [2,1] is not [1,1]");
}

}  // namespace
}  // namespace dfc
