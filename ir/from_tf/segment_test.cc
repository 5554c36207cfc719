// Tests for the unsorted segment reductions' translation (segment.cc) against the reference
// executor: every reduction on every dtype it takes, ids of rank 0 to 2, empty segments,
// negative ids (dropped) and ids past num_segments (refused).
#include <cstdint>
#include <vector>

#include "graph/dtype.h"
#include "graph/half.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"
#include "tests/translate_testing.h"

namespace dfc::ir {
namespace {

using ::dfc::testing::Iota;
using ::dfc::testing::MakeNode;
using ::dfc::testing::TN;
using ::dfc::testing::TranslationMatchesReference;

constexpr const char* kOps[] = {"UnsortedSegmentSum", "UnsortedSegmentProd",
                                "UnsortedSegmentMax", "UnsortedSegmentMin"};

TEST(UnsortedSegmentTest, EveryReductionMatchesTheReference) {
  const Tensor data = Iota({5, 3});
  for (const char* op : kOps) {
    const Node node = MakeNode(op, {{"T", DType::kFloat}}, 3);
    // Segment 1 and 3 empty, a negative id dropped.
    EXPECT_TRUE(TranslationMatchesReference(
        node, {data, TN<int32_t>({0, 2, 0, -1, 2}, {5}), TN<int32_t>({4}, {})}))
        << op;
    // ids of rank 2 over data [2, 3, 2]; int64 ids.
    EXPECT_TRUE(TranslationMatchesReference(
        node, {Iota({2, 3, 2}), TN<int64_t>({1, 0, 1, 1, 0, 0}, {2, 3}), TN<int64_t>({2}, {})}))
        << op;
    // ids of data's whole shape; a scalar id.
    EXPECT_TRUE(TranslationMatchesReference(
        node, {data, TN<int32_t>({0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}, {5, 3}),
               TN<int32_t>({3}, {})}))
        << op;
    EXPECT_TRUE(TranslationMatchesReference(
        node, {Iota({3}), TN<int32_t>({1}, {}), TN<int32_t>({2}, {})}))
        << op;
    // An id past num_segments is refused, as is a shape that is not a prefix.
    EXPECT_TRUE(TranslationMatchesReference(
        node, {data, TN<int32_t>({0, 2, 4, 0, 0}, {5}), TN<int32_t>({4}, {})}))
        << op;
    EXPECT_TRUE(TranslationMatchesReference(
        node, {data, TN<int32_t>({0, 1, 0}, {3}), TN<int32_t>({2}, {})}))
        << op;
  }
}

TEST(UnsortedSegmentTest, IntegerAndHalfDTypesReduceInTheirOwnArithmetic) {
  for (DType d : {DType::kHalf, DType::kDouble, DType::kInt8, DType::kInt32, DType::kUInt8,
                  DType::kInt64, DType::kUInt64}) {
    Tensor data = Tensor::Zeros(d, {6, 2});
    DispatchDType(d, [&]<typename T>() {
      T* v = data.mutable_data<T>();
      for (int64_t i = 0; i < 12; ++i) v[i] = static_cast<T>(static_cast<float>(i * 37 % 120));
    });
    for (const char* op : kOps) {
      EXPECT_TRUE(TranslationMatchesReference(
          MakeNode(op, {{"T", d}}, 3),
          {data, TN<int32_t>({1, 1, 0, 3, 1, 0}, {6}), TN<int32_t>({5}, {})}))
          << op << " " << DTypeName(d);
    }
  }
  // bool is refused.
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("UnsortedSegmentSum", {{"T", DType::kBool}}, 3),
      {Tensor::Zeros(DType::kBool, {2}), TN<int32_t>({0, 0}, {2}), TN<int32_t>({1}, {})}));
}

}  // namespace
}  // namespace dfc::ir
