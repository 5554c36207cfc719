// Tests of the index-map layout translations (layout_slice.cc): Transpose, Tile, BroadcastTo,
// ReverseV2, Slice, StridedSlice, Pad, PadV2 and MirrorPad, against the reference executor over
// tables of shapes and every dtype, with the reference's refusals.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/from_tf/cluster.h"
#include "tests/layout_testing.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::dfc::testing::BothRefuse;
using ::dfc::testing::CheckOptions;
using ::dfc::testing::IndexTensor;
using ::dfc::testing::LayoutDTypes;
using ::dfc::testing::MakeNode;
using ::dfc::testing::RandomTensor;
using ::dfc::testing::SafeName;
using ::dfc::testing::ShapeName;
using ::dfc::testing::TranslationMatchesReference;
using ::testing::Combine;
using ::testing::HasSubstr;
using ::testing::ValuesIn;

std::string Ints(const std::vector<int64_t>& v) { return absl::StrJoin(v, "_"); }

// [rank, 2] paddings.
Tensor Paddings(const std::vector<int64_t>& pairs, DType dtype = DType::kInt32) {
  const int64_t rows = static_cast<int64_t>(pairs.size()) / 2;
  return IndexTensor(pairs, dtype, Shape{rows, 2});
}

const Shape kShapes[] = {{},     {1},       {5},       {0},       {2, 3},       {1, 4},
                         {3, 0}, {2, 1, 3}, {2, 3, 4}, {1, 0, 2}, {2, 3, 1, 2}, {2, 2, 0, 3}};

using ShapeDType = std::tuple<Shape, DType>;

std::string ShapeDTypeName(const ::testing::TestParamInfo<ShapeDType>& info) {
  const auto& shape = std::get<0>(info.param);
  const DType dtype = std::get<1>(info.param);
  return SafeName(absl::StrCat(ShapeName(shape), "_", DTypeName(dtype)));
}

// --- Transpose, ReverseV2 ---------------------------------------------------------------------

class PermuteTest : public ::testing::TestWithParam<ShapeDType> {};

TEST_P(PermuteTest, EveryPermutation) {
  const auto& [shape, dtype] = GetParam();
  const Tensor in = RandomTensor(dtype, shape, 1);
  std::vector<int64_t> perm(shape.size());
  std::iota(perm.begin(), perm.end(), 0);
  CheckOptions views;
  views.views_only = true;
  do {
    EXPECT_TRUE(
        TranslationMatchesReference(MakeNode("Transpose", {}, 2), {in, IndexTensor(perm)}, views))
        << "perm " << Ints(perm);
  } while (std::next_permutation(perm.begin(), perm.end()));
}

// Every subset of axes, written as positive and as negative axes.
TEST_P(PermuteTest, ReverseEverySubsetOfAxes) {
  const auto& [shape, dtype] = GetParam();
  const Tensor in = RandomTensor(dtype, shape, 2);
  const int rank = static_cast<int>(shape.size());
  for (int mask = 0; mask < (1 << rank); ++mask) {
    std::vector<int64_t> axes, negative;
    for (int d = 0; d < rank; ++d) {
      if (mask & (1 << d)) {
        axes.push_back(d);
        negative.push_back(d - rank);
      }
    }
    EXPECT_TRUE(TranslationMatchesReference(MakeNode("ReverseV2", {}, 2), {in, IndexTensor(axes)}))
        << Ints(axes);
    EXPECT_TRUE(TranslationMatchesReference(MakeNode("ReverseV2", {}, 2),
                                            {in, IndexTensor(negative, DType::kInt64)}))
        << Ints(negative);
  }
}

INSTANTIATE_TEST_SUITE_P(Layout, PermuteTest, Combine(ValuesIn(kShapes), ValuesIn(LayoutDTypes())),
                         ShapeDTypeName);

TEST(PermuteTest, Refusals) {
  const Tensor in = RandomTensor(DType::kFloat, {2, 3}, 1);
  for (const std::vector<int64_t>& perm :
       std::vector<std::vector<int64_t>>{{0, 0}, {0, 2}, {-1, 0}, {1, 0, 2}, {0}}) {
    EXPECT_TRUE(BothRefuse(MakeNode("Transpose", {}, 2), {in, IndexTensor(perm)})) << Ints(perm);
  }
  EXPECT_TRUE(BothRefuse(MakeNode("Transpose", {}, 2),
                         {in, IndexTensor({1, 0}, DType::kInt32, Shape{1, 2})}));
  for (const std::vector<int64_t>& axes :
       std::vector<std::vector<int64_t>>{{0, 0}, {1, -1}, {2}, {-3}}) {
    EXPECT_TRUE(BothRefuse(MakeNode("ReverseV2", {}, 2), {in, IndexTensor(axes)})) << Ints(axes);
  }
  EXPECT_TRUE(BothRefuse(MakeNode("ReverseV2", {}, 2),
                         {RandomTensor(DType::kFloat, {}, 1), IndexTensor({0})}));
}

TEST(PermuteTest, SymbolicBatch) {
  CheckOptions batch;
  batch.symbolic_dims = {{0, 0}};
  const Tensor in = RandomTensor(DType::kFloat, {3, 2, 4}, 1);
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("Transpose", {}, 2),
                                          {in, IndexTensor({2, 0, 1})}, batch));
  EXPECT_TRUE(
      TranslationMatchesReference(MakeNode("ReverseV2", {}, 2), {in, IndexTensor({0, 2})}, batch));
}

// --- Tile, BroadcastTo ------------------------------------------------------------------------

struct TileCase {
  Shape shape;
  std::vector<int64_t> multiples;
};

const TileCase kTiles[] = {
    {{}, {}},
    {{1}, {4}},
    {{3}, {1}},
    {{3}, {2}},
    {{3}, {0}},
    {{0}, {3}},
    {{2, 3}, {2, 1}},
    {{2, 3}, {1, 3}},
    {{2, 3}, {2, 2}},
    {{2, 0}, {2, 2}},
    {{1, 2, 3}, {3, 0, 1}},
    {{2, 1, 2}, {1, 4, 2}},
    {{2, 1, 2, 1}, {2, 2, 1, 3}},
    // Refused: negative, wrong length.
    {{3}, {-1}},
    {{2, 3}, {2}},
};

class TileTest : public ::testing::TestWithParam<std::tuple<TileCase, DType>> {};

TEST_P(TileTest, MatchesReference) {
  const auto& [c, dtype] = GetParam();
  CheckOptions views;
  views.views_only = true;
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Tile", {}, 2), {RandomTensor(dtype, c.shape, 3), IndexTensor(c.multiples)}, views));
}

INSTANTIATE_TEST_SUITE_P(Layout, TileTest, Combine(ValuesIn(kTiles), ValuesIn(LayoutDTypes())),
                         [](const auto& info) {
                           const auto& c = std::get<0>(info.param);
                           const DType dtype = std::get<1>(info.param);
                           return SafeName(absl::StrCat(info.index, "_", ShapeName(c.shape), "_by_",
                                                        Ints(c.multiples), "_", DTypeName(dtype)));
                         });

TEST(TileTest, SymbolicMultiple) {
  // multiples [N, 1] computed from a batch of size N (here 3): the Repeat count is N.
  CheckOptions batch;
  batch.symbolic_dims = {{0, 1}};
  batch.symbolic_values[1] = {ArithExpr::Var("N"), 1};
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Tile", {}, 2), {RandomTensor(DType::kFloat, {1, 3}, 1), IndexTensor({3, 1})},
      batch));
}

// Multiples whose product with the shape overflows int64: an error naming the node, from the
// type inference of the Joins, not an abort.
TEST(TileTest, RefusesMultiplesPast2To63Elements) {
  EXPECT_TRUE(BothRefuse(MakeNode("Tile", {}, 2),
                         {RandomTensor(DType::kFloat, {2, 3}, 1),
                          IndexTensor({int64_t{1} << 62, int64_t{1} << 62}, DType::kInt64)}));
  EXPECT_TRUE(BothRefuse(MakeNode("Tile", {}, 2), {RandomTensor(DType::kFloat, {2, 3}, 1),
                                                   IndexTensor({2147483647, 2147483647})}));
}

struct BroadcastCase {
  Shape shape;
  std::vector<int64_t> to;
};

const BroadcastCase kBroadcasts[] = {
    {{}, {}},
    {{}, {3}},
    {{}, {2, 0}},
    {{1}, {4}},
    {{3}, {3}},
    {{3}, {2, 3}},
    {{1}, {0}},
    {{2, 1}, {2, 4}},
    {{1, 3}, {2, 2, 3}},
    {{2, 1, 3}, {2, 4, 3}},
    {{1, 1}, {3, 1, 2}},
    {{0, 1}, {2, 0, 5}},
    {{2, 1, 1, 3}, {2, 2, 2, 3}},
    // Refused: incompatible, lower rank, negative.
    {{3}, {4}},
    {{2, 3}, {3}},
    {{1}, {-1}},
    {{2}, {2, 1}},
};

class BroadcastToTest : public ::testing::TestWithParam<std::tuple<BroadcastCase, DType>> {};

TEST_P(BroadcastToTest, MatchesReference) {
  const auto& [c, dtype] = GetParam();
  CheckOptions views;
  views.views_only = true;
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("BroadcastTo", {}, 2),
      {RandomTensor(dtype, c.shape, 4), IndexTensor(c.to, DType::kInt64)}, views));
}

INSTANTIATE_TEST_SUITE_P(Layout, BroadcastToTest,
                         Combine(ValuesIn(kBroadcasts), ValuesIn(LayoutDTypes())),
                         [](const auto& info) {
                           const auto& c = std::get<0>(info.param);
                           const DType dtype = std::get<1>(info.param);
                           return SafeName(absl::StrCat(info.index, "_", ShapeName(c.shape), "_to_",
                                                        Ints(c.to), "_", DTypeName(dtype)));
                         });

// --- Slice ------------------------------------------------------------------------------------

struct SliceCase {
  Shape shape;
  std::vector<int64_t> begin, size;
};

const SliceCase kSlices[] = {
    {{}, {}, {}},
    {{5}, {0}, {5}},
    {{5}, {1}, {3}},
    {{5}, {2}, {-1}},
    {{5}, {5}, {0}},
    {{5}, {5}, {-1}},
    {{0}, {0}, {-1}},
    {{2, 3}, {1, 0}, {1, 3}},
    {{2, 3}, {0, 1}, {-1, -1}},
    {{2, 3}, {1, 2}, {0, 1}},
    {{2, 3, 4}, {0, 1, 1}, {2, 2, 3}},
    {{2, 0, 4}, {1, 0, 2}, {1, -1, 2}},
    {{2, 3, 4, 5}, {1, 1, 0, 2}, {1, -1, 4, 3}},
    // Refused: negative begin, past the end, size below -1, wrong length.
    {{5}, {-1}, {2}},
    {{5}, {6}, {-1}},
    {{5}, {3}, {3}},
    {{5}, {1}, {-2}},
    {{5, 2}, {1}, {2}},
};

class SliceTest : public ::testing::TestWithParam<std::tuple<SliceCase, DType>> {};

TEST_P(SliceTest, MatchesReference) {
  const auto& [c, dtype] = GetParam();
  CheckOptions views;
  views.views_only = true;
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Slice", {}, 3),
      {RandomTensor(dtype, c.shape, 5), IndexTensor(c.begin), IndexTensor(c.size)}, views));
}

INSTANTIATE_TEST_SUITE_P(Layout, SliceTest, Combine(ValuesIn(kSlices), ValuesIn(LayoutDTypes())),
                         [](const auto& info) {
                           const auto& c = std::get<0>(info.param);
                           const DType dtype = std::get<1>(info.param);
                           return SafeName(absl::StrCat(info.index, "_", ShapeName(c.shape), "_at_",
                                                        Ints(c.begin), "_size_", Ints(c.size), "_",
                                                        DTypeName(dtype)));
                         });

TEST(SliceTest, SymbolicBatch) {
  CheckOptions batch;
  batch.symbolic_dims = {{0, 0}};
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Slice", {}, 3),
      {RandomTensor(DType::kFloat, {3, 6}, 1), IndexTensor({0, 2}), IndexTensor({-1, 3})}, batch));
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Slice", {}, 3),
      {RandomTensor(DType::kFloat, {3, 6}, 1), IndexTensor({1, 2}), IndexTensor({-1, 3})}, batch));
}

// A begin known only at run time (random_crop's offsets) is a kernel parameter: each
// dimension gathers from it, and a begin that puts the slice outside the input is refused
// when the kernel runs. A size of -1 ("to the end") would make the output's shape depend on
// it: refused when translating.
TEST(SliceTest, ABeginKnownOnlyAtRunTime) {
  CheckOptions runtime_begin;
  runtime_begin.data_inputs = {1};
  const SliceCase cases[] = {{{5}, {1}, {3}},
                             {{5}, {5}, {0}},
                             {{2, 3}, {1, 0}, {1, 3}},
                             {{2, 3, 4}, {0, 1, 1}, {2, 2, 3}},
                             {{2, 3, 4, 5}, {1, 1, 0, 2}, {1, 2, 4, 3}},
                             {{5}, {-1}, {2}},
                             {{5}, {3}, {3}},
                             {{2, 3}, {0, 2}, {2, 2}}};
  for (const SliceCase& c : cases) {
    for (DType dtype : {DType::kFloat, DType::kInt64}) {
      SCOPED_TRACE(absl::StrCat(ShapeName(c.shape), " at ", Ints(c.begin), " size ", Ints(c.size),
                                " ", DTypeName(dtype)));
      EXPECT_TRUE(TranslationMatchesReference(
          MakeNode("Slice", {}, 3),
          {RandomTensor(dtype, c.shape, 5), IndexTensor(c.begin), IndexTensor(c.size)},
          runtime_begin));
    }
  }
  const Node slice = MakeNode("Slice", {}, 3);
  const TensorInfo x{.dtype = DType::kFloat, .shape = SymbolicShape{5, 4}};
  const TensorInfo begin{.dtype = DType::kInt32, .shape = SymbolicShape{2}};
  const TensorInfo to_end = ConstantInfo(IndexTensor({2, -1}));
  absl::StatusOr<std::vector<TensorInfo>> refused =
      ir::InferShapesByTranslation(slice, std::vector<TensorInfo>{x, begin, to_end});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("runs to the end of dimension 1"));
}

// --- StridedSlice -----------------------------------------------------------------------------

struct StridedCase {
  Shape shape;
  std::vector<int64_t> begin, end, strides;
  int64_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0, shrink_mask = 0;
};

const StridedCase kStrided[] = {
    {{5}, {1}, {4}, {1}},
    {{5}, {4}, {1}, {-1}},
    {{5}, {-1}, {-6}, {-1}},
    {{5}, {0}, {0}, {2}, 1, 1},
    {{5}, {0}, {0}, {-2}, 1, 1},
    {{5}, {-10}, {10}, {1}},
    {{5}, {3}, {1}, {1}},
    {{5}, {1}, {3}, {-1}},
    {{10}, {1}, {9}, {3}},
    {{10}, {8}, {1}, {-3}},
    {{10}, {-2}, {0}, {-4}, 0, 1},
    {{0}, {0}, {0}, {1}, 1, 1},
    {{2, 3, 4}, {0, 1}, {0, 3}, {1, 1}, 1, 1},
    {{2, 3, 4}, {1}, {2}, {1}, 0, 0, 0, 0, 1},
    {{2, 3, 4}, {0, -1}, {0, 0}, {1, 1}, 1, 1, 0, 0, 2},
    {{2, 3, 4}, {0, 1}, {0, 2}, {1, 1}, 0, 0, 1},
    {{2, 3, 4}, {0, 0}, {0, 1}, {1, 1}, 0, 0, 1, 0, 2},
    {{2, 3, 4}, {0, 0, 1}, {0, 0, 2}, {1, 1, 1}, 1, 1, 0, 2, 4},
    {{2, 3, 4}, {0, 0, 0}, {0, 0, 0}, {1, 1, 1}, 0, 0, 2, 5},
    {{2, 3, 4}, {1, 0, 0}, {2, 0, 0}, {1, 1, 1}, 0, 0, 2, 4, 1},
    {{}, {0}, {0}, {1}, 0, 0, 0, 1},
    {{}, {0}, {0}, {1}, 0, 0, 1},
    {{0, 3}, {0, 0}, {0, 0}, {1, 1}, 3, 3},
    {{0, 3}, {0, 1}, {0, 0}, {1, 1}, 1, 1, 0, 0, 2},
    {{2, 3, 4, 5}, {1, 0, 3, 1}, {2, 3, 0, 5}, {1, 2, -1, 2}},
    {{2, 3, 4, 5}, {0, 2, 0}, {0, 0, 0}, {1, -1, 1}, 5, 7, 0, 0, 0},
    {{2, 1, 3}, {0, 0}, {0, 0}, {1, 1}, 0, 0, 1, 2},
    // Refused: stride 0, shrink out of range, shrink with a negative stride, two ellipses,
    // more entries than the rank, vectors of different lengths.
    {{5}, {0}, {5}, {0}},
    {{5}, {5}, {6}, {1}, 0, 0, 0, 0, 1},
    {{5}, {-6}, {0}, {1}, 0, 0, 0, 0, 1},
    {{5}, {2}, {1}, {-1}, 0, 0, 0, 0, 1},
    {{2, 3}, {0, 0}, {0, 0}, {1, 1}, 0, 0, 3},
    {{2, 3}, {0, 0, 0}, {1, 1, 1}, {1, 1, 1}},
    {{5}, {0, 1}, {1}, {1}},
};

class StridedSliceTest : public ::testing::TestWithParam<std::tuple<StridedCase, DType>> {};

TEST_P(StridedSliceTest, MatchesReference) {
  const auto& [c, dtype] = GetParam();
  AttrMap attrs = {{"begin_mask", c.begin_mask},
                   {"end_mask", c.end_mask},
                   {"ellipsis_mask", c.ellipsis_mask},
                   {"new_axis_mask", c.new_axis_mask},
                   {"shrink_axis_mask", c.shrink_mask}};
  CheckOptions views;
  views.views_only = true;
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("StridedSlice", attrs, 4),
      {RandomTensor(dtype, c.shape, 6), IndexTensor(c.begin, DType::kInt64),
       IndexTensor(c.end, DType::kInt64), IndexTensor(c.strides, DType::kInt64)},
      views));
}

INSTANTIATE_TEST_SUITE_P(Layout, StridedSliceTest,
                         Combine(ValuesIn(kStrided), ValuesIn(LayoutDTypes())),
                         [](const auto& info) {
                           const auto& c = std::get<0>(info.param);
                           const DType dtype = std::get<1>(info.param);
                           return SafeName(
                               absl::StrCat(info.index, "_", ShapeName(c.shape), "_", Ints(c.begin),
                                            "_", Ints(c.end), "_", Ints(c.strides), "_m",
                                            c.begin_mask, c.end_mask, c.ellipsis_mask,
                                            c.new_axis_mask, c.shrink_mask, "_", DTypeName(dtype)));
                         });

// x[:, 1:3], x[::-1, -1], x[-1], x[1] and x[::2] with the batch N: whole symbolic dimensions
// in both directions, and indexed ones.
TEST(StridedSliceTest, SymbolicBatch) {
  CheckOptions batch;
  batch.symbolic_dims = {{0, 0}};
  const Tensor in = RandomTensor(DType::kFloat, {3, 4}, 1);
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("StridedSlice", {{"begin_mask", int64_t{1}}, {"end_mask", int64_t{1}}}, 4),
      {in, IndexTensor({0, 1}), IndexTensor({0, 3}), IndexTensor({1, 1})}, batch));
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode(
          "StridedSlice",
          {{"begin_mask", int64_t{1}}, {"end_mask", int64_t{1}}, {"shrink_axis_mask", int64_t{2}}},
          4),
      {in, IndexTensor({0, -1}), IndexTensor({0, 0}), IndexTensor({-2, 1})}, batch));
  // x[-1] and x[1] on the batch dimension.
  for (int64_t index : {-1, 1}) {
    EXPECT_TRUE(TranslationMatchesReference(
        MakeNode("StridedSlice", {{"shrink_axis_mask", int64_t{1}}}, 4),
        {in, IndexTensor({index}), IndexTensor({index + 1}), IndexTensor({1})}, batch));
  }
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("StridedSlice", {{"end_mask", int64_t{1}}}, 4),
      {in, IndexTensor({0}), IndexTensor({0}), IndexTensor({2})}, batch));
}

// --- Pad, PadV2, MirrorPad --------------------------------------------------------------------

struct PadCase {
  Shape shape;
  std::vector<int64_t> paddings;  // (before, after) per dimension
};

const PadCase kPads[] = {
    {{}, {}},
    {{3}, {0, 0}},
    {{3}, {1, 2}},
    {{3}, {2, 2}},
    {{0}, {1, 2}},
    {{1}, {0, 1}},
    {{2, 3}, {1, 0, 0, 2}},
    {{2, 3}, {1, 1, 2, 2}},
    {{2, 0}, {1, 1, 0, 2}},
    {{2, 3, 2}, {0, 1, 1, 0, 1, 1}},
    {{2, 1, 3, 2}, {1, 0, 0, 0, 2, 1, 0, 1}},
    // Refused (by every mode): negative, wrong row count.
    {{3}, {-1, 0}},
    {{2, 3}, {1, 1}},
};

class PadTest : public ::testing::TestWithParam<std::tuple<PadCase, DType>> {};

TEST_P(PadTest, PadAndPadV2) {
  const auto& [c, dtype] = GetParam();
  const Tensor in = RandomTensor(dtype, c.shape, 7);
  const Tensor paddings = Paddings(c.paddings);
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("Pad", {}, 2), {in, paddings})) << "Pad";
  // A fed constant_values (a Param here) goes through Concat + Repeat; a one-element vector is
  // accepted as the scalar.
  for (const Shape& value_shape : {Shape{}, Shape{1}}) {
    const Tensor value = RandomTensor(dtype, value_shape, 8);
    EXPECT_TRUE(TranslationMatchesReference(MakeNode("PadV2", {}, 3), {in, paddings, value}))
        << "PadV2";
  }
}

TEST_P(PadTest, MirrorPad) {
  const auto& [c, dtype] = GetParam();
  const Tensor in = RandomTensor(dtype, c.shape, 9);
  for (const char* mode : {"REFLECT", "SYMMETRIC"}) {
    EXPECT_TRUE(TranslationMatchesReference(MakeNode("MirrorPad", {{"mode", std::string(mode)}}, 2),
                                            {in, Paddings(c.paddings, DType::kInt64)}))
        << mode;
  }
}

INSTANTIATE_TEST_SUITE_P(Layout, PadTest, Combine(ValuesIn(kPads), ValuesIn(LayoutDTypes())),
                         [](const auto& info) {
                           const auto& c = std::get<0>(info.param);
                           const DType dtype = std::get<1>(info.param);
                           return SafeName(absl::StrCat(info.index, "_", ShapeName(c.shape),
                                                        "_pad_", Ints(c.paddings), "_",
                                                        DTypeName(dtype)));
                         });

// A constant_values known at compile time goes through the Pad pattern instead.
TEST(PadTest, PadV2WithAKnownValue) {
  CheckOptions known;
  known.known_data = {2};
  for (DType dtype : LayoutDTypes()) {
    EXPECT_TRUE(TranslationMatchesReference(
        MakeNode("PadV2", {}, 3),
        {RandomTensor(dtype, {2, 3}, 1), Paddings({1, 0, 2, 1}), RandomTensor(dtype, {}, 2)},
        known))
        << DTypeName(dtype);
  }
}

TEST(PadTest, Refusals) {
  const Tensor in = RandomTensor(DType::kFloat, {3}, 1);
  EXPECT_TRUE(BothRefuse(MakeNode("PadV2", {}, 3),
                         {in, Paddings({1, 1}), RandomTensor(DType::kDouble, {}, 1)}));
  EXPECT_TRUE(BothRefuse(MakeNode("PadV2", {}, 3),
                         {in, Paddings({1, 1}), RandomTensor(DType::kFloat, {2}, 1)}));
  EXPECT_TRUE(BothRefuse(MakeNode("MirrorPad", {{"mode", std::string("EDGE")}}, 2),
                         {in, Paddings({1, 1})}));
  EXPECT_TRUE(
      BothRefuse(MakeNode("Pad", {}, 2), {in, IndexTensor({1, 1}, DType::kInt32, Shape{2, 1})}));
}

TEST(PadTest, SymbolicBatch) {
  CheckOptions batch;
  batch.symbolic_dims = {{0, 0}};
  const Tensor in = RandomTensor(DType::kFloat, {3, 4}, 1);
  EXPECT_TRUE(
      TranslationMatchesReference(MakeNode("Pad", {}, 2), {in, Paddings({0, 0, 1, 2})}, batch));
  EXPECT_TRUE(
      TranslationMatchesReference(MakeNode("Pad", {}, 2), {in, Paddings({1, 0, 1, 2})}, batch));
  EXPECT_TRUE(
      TranslationMatchesReference(MakeNode("MirrorPad", {{"mode", std::string("REFLECT")}}, 2),
                                  {in, Paddings({0, 0, 1, 2})}, batch));
}

}  // namespace
}  // namespace dfc
