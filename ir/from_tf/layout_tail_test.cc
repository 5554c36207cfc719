// Tests for the tail table's data movement (layout_tail.cc) against the reference executor:
// Roll over every axis and shift sign, ReverseSequence over every pair of batch and sequence
// dimensions with lengths from 0 to the whole, GatherNd with index tuples of every depth, and
// the reference's refusals (an index or length out of range included: At refuses it).
#include <cstdint>
#include <vector>

#include "graph/dtype.h"
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

TEST(RollTest, EveryAxisAndShiftMatchesTheReference) {
  const Tensor x = Iota({2, 3, 4});
  const Node node = MakeNode("Roll", {{"T", DType::kFloat}}, 3);
  for (int64_t axis : {0, 1, 2, -1, -3}) {
    for (int64_t shift : {0, 1, -1, 2, 5, -7, 100}) {
      EXPECT_TRUE(TranslationMatchesReference(
          node, {x, TN<int32_t>({static_cast<int32_t>(shift)}, {}),
                 TN<int32_t>({static_cast<int32_t>(axis)}, {})}))
          << axis << " " << shift;
    }
  }
  // Several axes, one of them twice (the shifts add), and int64 shifts.
  EXPECT_TRUE(TranslationMatchesReference(
      node, {x, TN<int64_t>({1, -2, 3}, {3}), TN<int64_t>({0, 2, 2}, {3})}));
  // An empty dimension rolls to itself; a scalar is refused; sizes of shift and axis must agree.
  EXPECT_TRUE(TranslationMatchesReference(
      node, {Iota({0, 3}), TN<int32_t>({1, 1}, {2}), TN<int32_t>({0, 1}, {2})}));
  EXPECT_TRUE(
      TranslationMatchesReference(node, {TN<float>({1}, {}), TN<int32_t>({1}, {}), TN<int32_t>({0}, {})}));
  EXPECT_TRUE(TranslationMatchesReference(
      node, {x, TN<int32_t>({1}, {1}), TN<int32_t>({0}, {})}));
  EXPECT_TRUE(TranslationMatchesReference(
      node, {x, TN<int32_t>({1}, {}), TN<int32_t>({3}, {})}));
}

TEST(ReverseSequenceTest, EveryPairOfDimensionsAndLengthsMatchesTheReference) {
  const Tensor x = Iota({3, 4, 2});
  const Shape shape = x.shape();
  for (int seq = 0; seq < 3; ++seq) {
    for (int batch = 0; batch < 3; ++batch) {
      const Node node = MakeNode(
          "ReverseSequence",
          {{"T", DType::kFloat}, {"seq_dim", int64_t{seq}}, {"batch_dim", int64_t{batch}}}, 2);
      std::vector<int64_t> lengths(shape[batch]);
      for (int64_t b = 0; b < shape[batch]; ++b) lengths[b] = (b * 3) % (shape[seq] + 1);
      const int64_t count = static_cast<int64_t>(lengths.size());
      // seq == batch is refused, as by the reference.
      EXPECT_TRUE(TranslationMatchesReference(node, {x, TN<int64_t>(lengths, {count})}))
          << seq << " " << batch;
      std::vector<int32_t> whole(count, static_cast<int32_t>(shape[seq]));
      EXPECT_TRUE(TranslationMatchesReference(node, {x, TN<int32_t>(whole, {count})}))
          << seq << " " << batch;
    }
  }
  // A length outside [0, n] is refused, when the kernel reads it.
  const Node node =
      MakeNode("ReverseSequence", {{"T", DType::kFloat}, {"seq_dim", int64_t{1}}}, 2);
  EXPECT_TRUE(TranslationMatchesReference(node, {x, TN<int32_t>({1, 5, 0}, {3})}));
  EXPECT_TRUE(TranslationMatchesReference(node, {x, TN<int32_t>({1, -1, 0}, {3})}));
  // seq_lengths of the wrong size.
  EXPECT_TRUE(TranslationMatchesReference(node, {x, TN<int32_t>({1, 2}, {2})}));
}

TEST(GatherNdTest, IndexTuplesOfEveryDepthMatchTheReference) {
  const Tensor params = Iota({3, 4, 2});
  const Node node = MakeNode("GatherNd", {{"Tparams", DType::kFloat}}, 2);
  // Depth 1, 2 and 3; batches of rank 1 and 2.
  EXPECT_TRUE(TranslationMatchesReference(node, {params, TN<int32_t>({2, 0, 1}, {3, 1})}));
  EXPECT_TRUE(
      TranslationMatchesReference(node, {params, TN<int64_t>({2, 3, 0, 0, 1, 2, 1, 1}, {2, 2, 2})}));
  EXPECT_TRUE(TranslationMatchesReference(node, {params, TN<int32_t>({2, 3, 1, 0, 1, 0}, {2, 3})}));
  // Depth 0: each tuple selects all of params.
  EXPECT_TRUE(TranslationMatchesReference(node, {params, Tensor::Zeros(DType::kInt32, {2, 0})}));
  // Out of range (either way) and too deep are refused.
  EXPECT_TRUE(TranslationMatchesReference(node, {params, TN<int32_t>({3, 0}, {1, 2})}));
  EXPECT_TRUE(TranslationMatchesReference(node, {params, TN<int32_t>({0, -1}, {1, 2})}));
  EXPECT_TRUE(TranslationMatchesReference(node, {params, TN<int32_t>({0, 0, 0, 0}, {1, 4})}));
  // Other dtypes move as well.
  for (DType d : {DType::kHalf, DType::kInt8, DType::kUInt64, DType::kBool}) {
    const Node typed = MakeNode("GatherNd", {{"Tparams", d}}, 2);
    EXPECT_TRUE(TranslationMatchesReference(
        typed, {Tensor::Zeros(d, {3, 2}), TN<int32_t>({2, 1, 0, 0}, {2, 2})}))
        << DTypeName(d);
  }
}

}  // namespace
}  // namespace dfc::ir
