// Tests for the scatters' translations (scatter.cc) against the reference executor: the unsorted
// segment reductions on every dtype they take, ids of rank 0 to 2, empty segments, negative ids
// (dropped) and ids past num_segments (refused); the ND scatters of values with index tuples of
// every depth, duplicate indices (applied in order: added up, the last Update winning), NaN
// updates for Max and Min, and the reference's refusals.
#include <cstdint>
#include <limits>
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

constexpr const char* kOps[] = {"UnsortedSegmentSum", "UnsortedSegmentProd", "UnsortedSegmentMax",
                                "UnsortedSegmentMin"};

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
    EXPECT_TRUE(
        TranslationMatchesReference(node, {Iota({3}), TN<int32_t>({1}, {}), TN<int32_t>({2}, {})}))
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

// With no segments the device would read no id, so it could not refuse one: the translation
// declines (the node then runs on the host), except for empty data, where the reference reads
// none either.
TEST(UnsortedSegmentTest, NoSegmentsOfNonEmptyDataAreLeftToTheHost) {
  const Node node = MakeNode("UnsortedSegmentSum", {{"T", DType::kFloat}}, 3);
  const Tensor count = TN<int32_t>({0}, {});
  const Tensor ids = TN<int32_t>({-1, 0}, {2});
  // The reference refuses id 0 of 0 segments; the translation refuses too (where it computed
  // the empty result, this fails: "the reference refuses the inputs but the translation
  // computed a result").
  EXPECT_TRUE(TranslationMatchesReference(node, {Iota({2, 3}), ids, count}));
  EXPECT_TRUE(TranslationMatchesReference(
      node, {Tensor::Zeros(DType::kFloat, {0, 3}), Tensor::Zeros(DType::kInt32, {0}), count}));
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

constexpr const char* kTensorScatters[] = {"TensorScatterUpdate", "TensorScatterAdd",
                                           "TensorScatterSub",    "TensorScatterMax",
                                           "TensorScatterMin",    "ScatterNdNonAliasingAdd"};

TEST(NdScatterTest, TensorScattersMatchTheReferenceForEveryDepth) {
  const Tensor base = Iota({4, 3, 2});
  for (const char* op : kTensorScatters) {
    const Node node = MakeNode(op, {{"T", DType::kFloat}}, 3);
    // Depth 1 (rank-1 indices: one coordinate each), with a duplicate.
    EXPECT_TRUE(
        TranslationMatchesReference(node, {base, TN<int32_t>({3, 0, 3}, {3}), Iota({3, 3, 2})}))
        << op;
    // Depth 2 and 3, batches of rank 1 and 2, int64 indices.
    EXPECT_TRUE(TranslationMatchesReference(
        node, {base, TN<int64_t>({1, 2, 0, 0, 1, 2}, {3, 2}), Iota({3, 2})}))
        << op;
    EXPECT_TRUE(TranslationMatchesReference(
        node, {base, TN<int32_t>({1, 2, 1, 3, 0, 0, 1, 2, 1, 0, 0, 1}, {2, 2, 3}), Iota({2, 2})}))
        << op;
    // No updates at all; an index out of range either way.
    EXPECT_TRUE(TranslationMatchesReference(
        node, {base, Tensor::Zeros(DType::kInt32, {0, 2}), Tensor::Zeros(DType::kFloat, {0, 2})}))
        << op;
    EXPECT_TRUE(TranslationMatchesReference(node, {base, TN<int32_t>({4}, {1}), Iota({1, 3, 2})}))
        << op;
    EXPECT_TRUE(
        TranslationMatchesReference(node, {base, TN<int32_t>({0, -1}, {1, 2}), Iota({1, 2})}))
        << op;
    // Updates of the wrong shape.
    EXPECT_TRUE(TranslationMatchesReference(node, {base, TN<int32_t>({1}, {1}), Iota({1, 3})}))
        << op;
  }
}

TEST(NdScatterTest, NaNUpdatesAndIntegerAndBoolDTypes) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const char* op : {"TensorScatterMax", "TensorScatterMin"}) {
    EXPECT_TRUE(
        TranslationMatchesReference(MakeNode(op, {{"T", DType::kFloat}}, 3),
                                    {TN<float>({1, nan, 3}, {3}), TN<int32_t>({0, 1, 2, 0}, {4, 1}),
                                     TN<float>({nan, 5, 2, 7}, {4})}))
        << op;
  }
  for (const char* op : kTensorScatters) {
    for (DType d :
         {DType::kInt8, DType::kUInt8, DType::kInt32, DType::kUInt64, DType::kHalf, DType::kBool}) {
      // Values that fit int8, whose sums wrap there.
      Tensor base = Tensor::Zeros(d, {5});
      Tensor updates = Tensor::Zeros(d, {4});
      DispatchDType(d, [&]<typename T>() {
        for (int64_t i = 0; i < 5; ++i) {
          base.mutable_data<T>()[i] = static_cast<T>(static_cast<float>((i * 77) % 120));
        }
        for (int64_t i = 0; i < 4; ++i) {
          updates.mutable_data<T>()[i] = static_cast<T>(static_cast<float>((i * 91 + 30) % 125));
        }
      });
      // bool takes Update everywhere and Add only in ScatterNdNonAliasingAdd: the rest are
      // refused, by both.
      EXPECT_TRUE(TranslationMatchesReference(MakeNode(op, {{"T", d}}, 3),
                                              {base, TN<int64_t>({4, 1, 4, 0}, {4, 1}), updates}))
          << op << " " << DTypeName(d);
    }
  }
}

TEST(NdScatterTest, ScatterNdAddsIntoZerosOfTheGivenShape) {
  const Node node = MakeNode("ScatterNd", {{"T", DType::kFloat}}, 3);
  EXPECT_TRUE(TranslationMatchesReference(
      node, {TN<int32_t>({1, 0, 1}, {3, 1}), Iota({3, 2}), TN<int32_t>({3, 2}, {2})}));
  EXPECT_TRUE(TranslationMatchesReference(
      node, {TN<int64_t>({2, 1, 0, 0}, {2, 2}), Iota({2}), TN<int64_t>({3, 2}, {2})}));
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("ScatterNd", {{"T", DType::kBool}}, 3),
      {TN<int32_t>({1, 1}, {2, 1}), Tensor::Zeros(DType::kBool, {2}), TN<int32_t>({3}, {1})}));
  // A negative dimension, an index past the shape.
  EXPECT_TRUE(TranslationMatchesReference(
      node, {TN<int32_t>({1}, {1, 1}), Iota({1}), TN<int32_t>({-3}, {1})}));
  EXPECT_TRUE(TranslationMatchesReference(
      node, {TN<int32_t>({3}, {1, 1}), Iota({1}), TN<int32_t>({3}, {1})}));
}

}  // namespace
}  // namespace dfc::ir
