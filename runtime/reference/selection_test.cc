// Tests of the sorting, selection and element-moving reference kernels (selection.cc):
// hand-computed cases, TensorFlow's tie and order rules, empty tensors, negative axes and
// the error cases.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::dfc::testing::ExpectError;
using ::dfc::testing::Iota;
using ::dfc::testing::RunOp;
using ::dfc::testing::RunOp1;
using ::dfc::testing::T1;
using ::dfc::testing::TN;
using ::dfc::testing::Values;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Both outputs of a TopKV2.
std::vector<Tensor> TopKV2(Tensor input, int32_t k, bool sorted = true) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("TopKV2", {std::move(input), Tensor::Scalar<int32_t>(k)}, {{"sorted", sorted}});
  EXPECT_TRUE(out.ok()) << out.status();
  return *out;
}

TEST(TopKTest, SortedWithTiesToTheLowerIndex) {
  const std::vector<Tensor> out = TopKV2(TN<float>({1, 3, 3, 2, 9, 9, 9, 0}, {2, 4}), 3);
  EXPECT_EQ(out[0].shape(), Shape({2, 3}));
  EXPECT_THAT(Values<float>(out[0]), ElementsAre(3, 3, 2, 9, 9, 9));
  EXPECT_THAT(Values<int32_t>(out[1]), ElementsAre(1, 2, 3, 0, 1, 2));
}

TEST(TopKTest, UnsortedInTheOrderOfTensorFlowsHeap) {
  // gtl::TopN keeps the k best in a heap whose front is the smallest: after [1, 5, 3, 4, 2]
  // the heap holds indices 3 and 1, in that order.
  const std::vector<Tensor> out = TopKV2(T1<int32_t>({1, 5, 3, 4, 2}), 2, /*sorted=*/false);
  EXPECT_THAT(Values<int32_t>(out[0]), ElementsAre(4, 5));
  EXPECT_THAT(Values<int32_t>(out[1]), ElementsAre(3, 1));
  // k == 1 and k == the row length are sorted whatever `sorted` says.
  EXPECT_THAT(Values<int32_t>(TopKV2(T1<int32_t>({2, 7, 7}), 1, false)[1]), ElementsAre(1));
  EXPECT_THAT(Values<int32_t>(TopKV2(T1<int32_t>({2, 7, 7}), 3, false)[1]), ElementsAre(1, 2, 0));
}

TEST(TopKTest, ZeroKEmptyRowsAndTheV1Attribute) {
  EXPECT_EQ(TopKV2(Iota({2, 3}), 0)[0].shape(), Shape({2, 0}));
  EXPECT_EQ(TopKV2(Tensor::Zeros(DType::kFloat, {0, 3}), 2)[1].shape(), Shape({0, 2}));
  absl::StatusOr<std::vector<Tensor>> v1 =
      RunOp("TopK", {T1<double>({0.5, 2, -1})}, {{"k", int64_t{2}}, {"index_type", DType::kInt64}});
  ASSERT_TRUE(v1.ok()) << v1.status();
  EXPECT_THAT(Values<double>((*v1)[0]), ElementsAre(2, 0.5));
  EXPECT_THAT(Values<int64_t>((*v1)[1]), ElementsAre(1, 0));
}

TEST(TopKTest, Errors) {
  ExpectError(RunOp("TopKV2", {T1<float>({1, 2}), Tensor::Scalar<int32_t>(3)}),
              "at least k columns");
  ExpectError(RunOp("TopKV2", {T1<float>({1, 2}), Tensor::Scalar<int32_t>(-1)}), "k >= 0");
  ExpectError(RunOp("TopKV2", {Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(1)}),
              "at least 1-D");
  ExpectError(RunOp("TopKV2", {T1<bool>({true}), Tensor::Scalar<int32_t>(1)}), "dtype");
}

TEST(NthElementTest, SmallestOrLargestPerRow) {
  const Tensor x = TN<float>({5, 1, 4, 2, 8, 0, 7, 3}, {2, 4});
  EXPECT_THAT(Values<float>(RunOp1("NthElement", {x, Tensor::Scalar<int32_t>(1)})),
              ElementsAre(2, 3));
  const Tensor largest = RunOp1("NthElement", {x, Tensor::Scalar<int32_t>(0)}, {{"reverse", true}});
  EXPECT_EQ(largest.shape(), Shape({2}));
  EXPECT_THAT(Values<float>(largest), ElementsAre(5, 8));
  // A vector gives a scalar.
  EXPECT_EQ(RunOp1("NthElement", {T1<int32_t>({3, 1}), Tensor::Scalar<int32_t>(0)}).shape(),
            Shape({}));
  ExpectError(RunOp("NthElement", {x, Tensor::Scalar<int32_t>(4)}), "at least n+1 columns");
  ExpectError(RunOp("NthElement", {x, Tensor::Scalar<int32_t>(-1)}), "n >= 0");
  ExpectError(RunOp("NthElement", {x, T1<int32_t>({1})}), "scalar");
}

TEST(UniqueTest, FirstOccurrenceOrder) {
  absl::StatusOr<std::vector<Tensor>> out = RunOp("Unique", {T1<int32_t>({3, 4, 3, 1, 4, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<int32_t>((*out)[0]), ElementsAre(3, 4, 1));
  EXPECT_THAT(Values<int32_t>((*out)[1]), ElementsAre(0, 1, 0, 2, 1, 1));
}

TEST(UniqueTest, CountsInt64IndicesAndFloatEquality) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  absl::StatusOr<std::vector<Tensor>> out = RunOp(
      "UniqueWithCounts", {T1<float>({0.0f, -0.0f, nan, nan, 2})}, {{"out_idx", DType::kInt64}});
  ASSERT_TRUE(out.ok()) << out.status();
  // 0 == -0 is one value; each NaN is its own.
  EXPECT_EQ((*out)[0].num_elements(), 4);
  EXPECT_THAT(Values<int64_t>((*out)[1]), ElementsAre(0, 0, 1, 2, 3));
  EXPECT_THAT(Values<int64_t>((*out)[2]), ElementsAre(2, 1, 1, 1));
  absl::StatusOr<std::vector<Tensor>> empty = RunOp("Unique", {T1<bool>({})});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ((*empty)[0].shape(), Shape({0}));
  ExpectError(RunOp("Unique", {Iota({2, 2})}), "1-D");
  ExpectError(RunOp("Unique", {T1<int32_t>({1})}, {{"out_idx", DType::kFloat}}), "out_idx");
}

TEST(ListDiffTest, KeepsOrderAndRepeats) {
  absl::StatusOr<std::vector<Tensor>> out =
      RunOp("ListDiff", {T1<int64_t>({1, 2, 3, 2, 5}), T1<int64_t>({2, 9})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<int64_t>((*out)[0]), ElementsAre(1, 3, 5));
  EXPECT_THAT(Values<int32_t>((*out)[1]), ElementsAre(0, 2, 4));
  ExpectError(RunOp("ListDiff", {T1<int64_t>({1}), T1<int32_t>({1})}), "same dtype");
}

TEST(WhereTest, CoordinatesOfNonzeroElements) {
  const Tensor out = RunOp1("Where", {TN<bool>({false, true, false, true, true, false}, {2, 3})});
  EXPECT_EQ(out.dtype(), DType::kInt64);
  EXPECT_EQ(out.shape(), Shape({3, 2}));
  EXPECT_THAT(Values<int64_t>(out), ElementsAre(0, 1, 1, 0, 1, 1));
  // Numbers: nonzero is true, NaN included.
  const Tensor f = RunOp1("Where", {T1<float>({0, std::nanf(""), -0.0f, 2})});
  EXPECT_THAT(Values<int64_t>(f), ElementsAre(1, 3));
  EXPECT_EQ(RunOp1("Where", {Tensor::Scalar<bool>(true)}).shape(), Shape({1, 0}));
  EXPECT_EQ(RunOp1("Where", {Tensor::Zeros(DType::kInt32, {0, 4})}).shape(), Shape({0, 2}));
}

TEST(RollTest, SeveralAxesNegativeShiftsAndRepeatedAxes) {
  EXPECT_THAT(
      Values<int32_t>(RunOp1("Roll", {T1<int32_t>({0, 1, 2, 3, 4}), Tensor::Scalar<int32_t>(2),
                                      Tensor::Scalar<int32_t>(0)})),
      ElementsAre(3, 4, 0, 1, 2));
  // [[0 1 2] [3 4 5]]: rows by 1, columns by -1 (axis -1), then columns by 3 more (no-op).
  const Tensor out =
      RunOp1("Roll", {Iota({2, 3}), T1<int64_t>({1, -1, 3}), T1<int64_t>({0, -1, 1})});
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(4, 5, 3, 1, 2, 0));
  EXPECT_EQ(RunOp1("Roll", {Tensor::Zeros(DType::kFloat, {0, 3}), Tensor::Scalar<int32_t>(1),
                            Tensor::Scalar<int32_t>(0)})
                .shape(),
            Shape({0, 3}));
  ExpectError(RunOp("Roll", {Iota({2, 3}), T1<int32_t>({1, 2}), T1<int32_t>({0})}), "same size");
  ExpectError(RunOp("Roll", {Iota({2, 3}), Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(2)}),
              "out of range");
}

TEST(ReverseSequenceTest, ReversesEachBatchEntrysPrefix) {
  // Batch along dimension 0, sequences along dimension 1.
  const Tensor out = RunOp1("ReverseSequence", {Iota({3, 4}), T1<int64_t>({4, 2, 0})},
                            {{"seq_dim", int64_t{1}}, {"batch_dim", int64_t{0}}});
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(3, 2, 1, 0, 5, 4, 6, 7, 8, 9, 10, 11));
  // Batch along dimension 1 of [3, 2]: column 0 reverses 3 rows, column 1 reverses 2.
  const Tensor t = RunOp1("ReverseSequence", {Iota({3, 2}), T1<int32_t>({3, 2})},
                          {{"seq_dim", int64_t{0}}, {"batch_dim", int64_t{1}}});
  EXPECT_THAT(Values<int32_t>(t), ElementsAre(4, 3, 2, 1, 0, 5));
  ExpectError(
      RunOp("ReverseSequence", {Iota({3, 4}), T1<int32_t>({5, 1, 1})}, {{"seq_dim", int64_t{1}}}),
      "must be in [0, 4]");
  ExpectError(
      RunOp("ReverseSequence", {Iota({3, 4}), T1<int32_t>({1, 1})}, {{"seq_dim", int64_t{1}}}),
      "vector of 3");
  ExpectError(
      RunOp("ReverseSequence", {Iota({3, 4}), T1<int32_t>({1, 1, 1})}, {{"seq_dim", int64_t{0}}}),
      "different dimensions");
}

TEST(HistogramFixedWidthTest, OutOfRangeValuesGoToTheEndBins) {
  const Tensor out = RunOp1("HistogramFixedWidth", {T1<float>({-1, 0, 1.5f, 2, 4.9f, 5, 12}),
                                                    T1<float>({0, 5}), Tensor::Scalar<int32_t>(5)});
  EXPECT_EQ(out.dtype(), DType::kInt32);
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(2, 1, 1, 0, 3));
  const Tensor ints =
      RunOp1("HistogramFixedWidth",
             {Tensor::Scalar<int64_t>(3), T1<int64_t>({0, 10}), Tensor::Scalar<int32_t>(2)},
             {{"dtype", DType::kInt64}});
  EXPECT_THAT(Values<int64_t>(ints), ElementsAre(1, 0));
  ExpectError(
      RunOp("HistogramFixedWidth", {T1<float>({1}), T1<float>({5, 0}), Tensor::Scalar<int32_t>(5)}),
      "value_range[0] < value_range[1]");
  ExpectError(
      RunOp("HistogramFixedWidth", {T1<float>({1}), T1<float>({0, 5}), Tensor::Scalar<int32_t>(0)}),
      "positive");
  ExpectError(RunOp("HistogramFixedWidth",
                    {T1<float>({std::nanf("")}), T1<float>({0, 5}), Tensor::Scalar<int32_t>(2)}),
              "must not contain NaN");
  ExpectError(RunOp("HistogramFixedWidth",
                    {T1<float>({INFINITY}), T1<float>({0, INFINITY}), Tensor::Scalar<int32_t>(2)}),
              "no bin");
  // int8 values, whose differences would overflow int8 if taken in int8.
  EXPECT_THAT(Values<int32_t>(RunOp1("HistogramFixedWidth",
                                     {T1<int8_t>({-100, 0, 100}), T1<int8_t>({-100, 100}),
                                      Tensor::Scalar<int32_t>(4)})),
              ElementsAre(1, 0, 1, 1));
}

TEST(LinSpaceTest, EndpointsIncluded) {
  EXPECT_THAT(Values<float>(RunOp1("LinSpace", {Tensor::Scalar<float>(1), Tensor::Scalar<float>(2),
                                                Tensor::Scalar<int32_t>(5)})),
              ElementsAre(1, 1.25f, 1.5f, 1.75f, 2));
  EXPECT_THAT(
      Values<double>(RunOp1("LinSpace", {Tensor::Scalar<double>(3), Tensor::Scalar<double>(9),
                                         Tensor::Scalar<int64_t>(1)})),
      ElementsAre(3));
  ExpectError(RunOp("LinSpace", {Tensor::Scalar<float>(1), Tensor::Scalar<float>(2),
                                 Tensor::Scalar<int32_t>(0)}),
              "num > 0");
  ExpectError(
      RunOp("LinSpace", {T1<float>({1}), Tensor::Scalar<float>(2), Tensor::Scalar<int32_t>(3)}),
      "scalars");
}

}  // namespace
}  // namespace dfc
