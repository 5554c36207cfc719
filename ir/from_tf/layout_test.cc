// Tests of the block-moving layout translations (layout.cc): Reshape, ExpandDims, Squeeze,
// ConcatV2/Concat, Pack/Unpack, Split/SplitV and IdentityN, each against the reference executor
// over tables of shapes (scalars, size-1 and zero-size dimensions, ranks 1 to 4) and every
// dtype, plus the refusals the reference makes.
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/from_tf/translate.h"
#include "ir/printer.h"
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
using ::testing::ValuesIn;

std::string Ints(const std::vector<int64_t>& v) { return absl::StrJoin(v, "_"); }

AttrList IntList(std::vector<int64_t> values) {
  AttrList list;
  list.i = std::move(values);
  return list;
}

// --- Reshape ----------------------------------------------------------------------------------

struct ReshapeCase {
  Shape in;
  std::vector<int64_t> shape;
};

const ReshapeCase kReshapes[] = {
    {{}, {1}},
    {{1}, {}},
    {{}, {}},
    {{6}, {2, 3}},
    {{2, 3}, {-1}},
    {{2, 3, 4}, {4, -1}},
    {{2, 3, 4}, {2, -1, 2}},
    {{2, 0}, {2, 0, -1}},
    {{0, 3}, {3, 0}},
    {{0, 3}, {-1, 3}},
    {{2, 1, 3, 1}, {3, 2}},
    {{1, 1, 1, 1}, {1}},
    {{24}, {1, 2, 3, 4}},
    {{2, 3, 4}, {2, 3, 4}},
    {{0}, {0, 5}},
    {{5, 1}, {-1}},
    // Leading dims of equal product kept as rows, the rest reshaped within each row.
    {{1, 4, 3, 2}, {4, 6}},
    {{2, 3, 4, 5}, {6, 20}},
    {{2, 3, 4}, {6, 2, 2}},
    {{6, 4}, {2, 3, 2, 2}},
    {{2, 3, 4, 5}, {2, 12, 5}},
    // Refused by the reference, so by the translation.
    {{6}, {4, -1}},
    {{6}, {-1, -1}},
    {{6}, {5}},
    {{6}, {-2, -3}},
    {{3}, {0, -1}},
};

class ReshapeTest : public ::testing::TestWithParam<std::tuple<ReshapeCase, DType>> {};

TEST_P(ReshapeTest, MatchesReference) {
  const auto& [c, dtype] = GetParam();
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("Reshape", {}, 2),
                                          {RandomTensor(dtype, c.in, 1), IndexTensor(c.shape)}));
}

INSTANTIATE_TEST_SUITE_P(Layout, ReshapeTest,
                         Combine(ValuesIn(kReshapes), ValuesIn(LayoutDTypes())),
                         [](const auto& info) {
                           const auto& c = std::get<0>(info.param);
                           const DType dtype = std::get<1>(info.param);
                           return SafeName(absl::StrCat(info.index, "_", ShapeName(c.in), "_to_",
                                                        Ints(c.shape), "_", DTypeName(dtype)));
                         });

TEST(ReshapeTest, Int64ShapeAndViewsOnly) {
  CheckOptions views;
  views.views_only = true;
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Reshape", {}, 2),
      {RandomTensor(DType::kFloat, {2, 3, 4}, 2), IndexTensor({-1, 6}, DType::kInt64)}, views));
  // A scalar shape is read as a one-element vector.
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Reshape", {}, 2),
      {RandomTensor(DType::kInt8, {6}, 2), IndexTensor({6}, DType::kInt32, Shape{})}, views));
}

// Rows survive a reshape that keeps them: [2,3,4,5] to [6,20] is Map(Join) $ Join, each of
// the 6 rows a view of 4 rows of 5, never a Split of the flattened whole.
TEST(ReshapeTest, KeepsTheLeadingRows) {
  TensorInfo data;
  data.dtype = DType::kFloat;
  data.shape = SymbolicShape{2, 3, 4, 5};
  TensorInfo shape = ConstantInfo(IndexTensor({6, 20}));
  ir::ParamPtr p = ir::MakeParam("x", ir::TensorType(DType::kFloat, *data.shape));
  std::vector<ir::TranslateInput> inputs = {{p, &data}, {nullptr, &shape}};
  absl::StatusOr<std::vector<ir::ExprPtr>> out =
      ir::TranslateNode(MakeNode("Reshape", {}, 2), inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  const std::string printed = ir::ToString(out->at(0));
  EXPECT_THAT(printed, ::testing::HasSubstr("Map"));
  EXPECT_THAT(printed, ::testing::Not(::testing::HasSubstr("Split")));
  EXPECT_EQ(ir::TypeToString(out->at(0)->type), "[[float32]_20]_6");
}

TEST(ReshapeTest, RefusesBadShapeInput) {
  EXPECT_TRUE(BothRefuse(MakeNode("Reshape", {}, 2), {RandomTensor(DType::kFloat, {6}, 3),
                                                      RandomTensor(DType::kFloat, {2}, 3)}));
  EXPECT_TRUE(BothRefuse(
      MakeNode("Reshape", {}, 2),
      {RandomTensor(DType::kFloat, {6}, 3), IndexTensor({2, 3}, DType::kInt32, Shape{1, 2})}));
}

// Sizes whose product overflows int64 are the graph's fault: an error naming the node, as the
// reference gives, not an abort in the size arithmetic (a fuzzer's find).
TEST(ReshapeTest, RefusesShapesPast2To63Elements) {
  constexpr int64_t kHuge = int64_t{1} << 40;
  EXPECT_TRUE(BothRefuse(
      MakeNode("Reshape", {}, 2),
      {RandomTensor(DType::kFloat, {6}, 3), IndexTensor({2147483647, 2147483647, 2147483647})}));
  EXPECT_TRUE(BothRefuse(
      MakeNode("Reshape", {}, 2),
      {RandomTensor(DType::kFloat, {6}, 3), IndexTensor({kHuge, kHuge, -1}, DType::kInt64)}));
  // Beside a 0 the others need only fit one by one: [2^40, 0, 2^40] is an empty tensor. (Typed
  // only: the interpreter behind Matches would build its 2^40 empty rows.)
  TensorInfo data;
  data.dtype = DType::kFloat;
  data.shape = SymbolicShape{0};
  TensorInfo shape = ConstantInfo(IndexTensor({kHuge, 0, kHuge}, DType::kInt64));
  ir::ParamPtr p = ir::MakeParam("x", ir::TensorType(DType::kFloat, *data.shape));
  std::vector<ir::TranslateInput> inputs = {{p, &data}, {nullptr, &shape}};
  absl::StatusOr<std::vector<ir::ExprPtr>> out =
      ir::TranslateNode(MakeNode("Reshape", {}, 2), inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(ir::TypeToString(out->at(0)->type), "[[[float32]_1099511627776]_0]_1099511627776");
  // And back: an empty input whose other sizes multiply past 2^63 has 0 elements too.
  data.shape = SymbolicShape{kHuge, kHuge, 0};
  shape = ConstantInfo(IndexTensor({0, 5}));
  p = ir::MakeParam("y", ir::TensorType(DType::kFloat, *data.shape));
  inputs = {{p, &data}, {nullptr, &shape}};
  out = ir::TranslateNode(MakeNode("Reshape", {}, 2), inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(ir::TypeToString(out->at(0)->type), "[[float32]_5]_0");
}

TEST(TranslateNodeTest, RefusesAnInputPast2To63Elements) {
  Node node = MakeNode("Neg", {}, 1);
  TensorInfo data;
  data.dtype = DType::kFloat;
  data.shape = SymbolicShape{int64_t{1} << 62, 4, 4};
  ir::ParamPtr p = ir::MakeParam("x", ir::TensorType(DType::kFloat, *data.shape));
  std::vector<ir::TranslateInput> inputs = {{p, &data}};
  absl::StatusOr<std::vector<ir::ExprPtr>> out = ir::TranslateNode(node, inputs);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), ::testing::HasSubstr("\"node\""));
  EXPECT_THAT(std::string(out.status().message()),
              ::testing::HasSubstr("has more than 2^63 elements"));
}

// The batch N: [N,28,28] to [-1,784] infers N; [N,784] to the symbolic shape [N,28,28].
TEST(ReshapeTest, SymbolicBatch) {
  CheckOptions batch;
  batch.symbolic_dims = {{0, 0}};
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Reshape", {}, 2),
      {RandomTensor(DType::kFloat, {3, 28, 28}, 4), IndexTensor({-1, 784})}, batch));
  batch.symbolic_values[1] = {ArithExpr::Var("N"), 28, 28};
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Reshape", {}, 2),
      {RandomTensor(DType::kFloat, {3, 784}, 4), IndexTensor({3, 28, 28})}, batch));
  batch.symbolic_values[1] = {ArithExpr::Var("N"), -1};
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Reshape", {}, 2), {RandomTensor(DType::kHalf, {2, 4, 5}, 4), IndexTensor({2, -1})},
      batch));
}

TEST(ReshapeTest, UnprovableInferenceIsAnErrorNamingTheNode) {
  Node node = MakeNode("Reshape", {}, 2);
  TensorInfo shape = ConstantInfo(IndexTensor({-1, 7}));
  TensorInfo data;
  data.dtype = DType::kFloat;
  data.shape = SymbolicShape{ArithExpr::Var("N"), 3};
  ir::ParamPtr p = ir::MakeParam("x", ir::TensorType(DType::kFloat, *data.shape));
  std::vector<ir::TranslateInput> inputs = {{p, &data}, {nullptr, &shape}};
  absl::StatusOr<std::vector<ir::ExprPtr>> out = ir::TranslateNode(node, inputs);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), ::testing::HasSubstr("\"node\""));
  EXPECT_THAT(std::string(out.status().message()), ::testing::HasSubstr("multiple of 7"));
}

// --- ExpandDims, Squeeze ----------------------------------------------------------------------

const Shape kShapes[] = {{},     {1},       {5},          {0},          {2, 3},      {1, 4},
                         {3, 0}, {2, 1, 3}, {2, 3, 1, 4}, {1, 1, 2, 1}, {2, 0, 3, 1}};

class ExpandDimsTest : public ::testing::TestWithParam<std::tuple<Shape, DType>> {};

TEST_P(ExpandDimsTest, EveryDim) {
  const auto& [shape, dtype] = GetParam();
  const int rank = static_cast<int>(shape.size());
  for (int dim = -rank - 2; dim <= rank + 1; ++dim) {  // one out of range on each side
    EXPECT_TRUE(TranslationMatchesReference(
        MakeNode("ExpandDims", {}, 2),
        {RandomTensor(dtype, shape, 5), IndexTensor({dim}, DType::kInt32, Shape{})}))
        << "dim " << dim;
  }
}

INSTANTIATE_TEST_SUITE_P(Layout, ExpandDimsTest,
                         Combine(ValuesIn(kShapes), ValuesIn(LayoutDTypes())),
                         [](const auto& info) {
                           const auto& shape = std::get<0>(info.param);
                           const DType dtype = std::get<1>(info.param);
                           return SafeName(absl::StrCat(ShapeName(shape), "_", DTypeName(dtype)));
                         });

struct SqueezeCase {
  Shape in;
  std::vector<int64_t> dims;  // empty: every size-1 dimension
};

const SqueezeCase kSqueezes[] = {
    {{1}, {}},
    {{}, {}},
    {{5}, {}},
    {{1, 3}, {0}},
    {{1, 3}, {-2}},
    {{2, 1, 3, 1}, {}},
    {{2, 1, 3, 1}, {3}},
    {{2, 1, 3, 1}, {1, -1}},
    {{1, 1, 1, 1}, {}},
    {{1, 0, 1}, {}},
    {{1, 0, 1}, {2}},
    {{0, 1}, {1}},
    // Refused: not of size 1, out of range.
    {{2, 3}, {0}},
    {{1, 3}, {2}},
    {{0, 1}, {0}},
};

class SqueezeTest : public ::testing::TestWithParam<std::tuple<SqueezeCase, DType>> {};

TEST_P(SqueezeTest, MatchesReference) {
  const auto& [c, dtype] = GetParam();
  AttrMap attrs;
  if (!c.dims.empty()) attrs["squeeze_dims"] = IntList(c.dims);
  EXPECT_TRUE(
      TranslationMatchesReference(MakeNode("Squeeze", attrs, 1), {RandomTensor(dtype, c.in, 6)}));
}

INSTANTIATE_TEST_SUITE_P(Layout, SqueezeTest,
                         Combine(ValuesIn(kSqueezes), ValuesIn(LayoutDTypes())),
                         [](const auto& info) {
                           const auto& c = std::get<0>(info.param);
                           const DType dtype = std::get<1>(info.param);
                           return SafeName(absl::StrCat(info.index, "_", ShapeName(c.in), "_dims_",
                                                        Ints(c.dims), "_", DTypeName(dtype)));
                         });

TEST(SqueezeTest, SymbolicBatch) {
  CheckOptions batch;
  batch.symbolic_dims = {{0, 0}};
  AttrMap attrs = {{"squeeze_dims", IntList({1, 2})}};
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("Squeeze", attrs, 1),
                                          {RandomTensor(DType::kFloat, {3, 1, 1, 10}, 7)}, batch));
  // Without squeeze_dims, whether N goes is only known at run time: refused, naming the node.
  Node node = MakeNode("Squeeze", {}, 1);
  TensorInfo data;
  data.dtype = DType::kFloat;
  data.shape = SymbolicShape{ArithExpr::Var("N"), 1};
  ir::ParamPtr p = ir::MakeParam("x", ir::TensorType(DType::kFloat, *data.shape));
  std::vector<ir::TranslateInput> inputs = {{p, &data}};
  absl::StatusOr<std::vector<ir::ExprPtr>> out = ir::TranslateNode(node, inputs);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), ::testing::HasSubstr("\"node\""));
}

// --- ConcatV2, Concat, Pack -------------------------------------------------------------------

struct ConcatCase {
  std::vector<Shape> values;
  int64_t axis;
};

const ConcatCase kConcats[] = {
    {{{3}}, 0},
    {{{2}, {3}}, 0},
    {{{2}, {0}, {3}}, -1},
    {{{0}, {0}}, 0},
    {{{2, 3}, {4, 3}}, 0},
    {{{2, 3}, {2, 1}, {2, 0}, {2, 2}}, 1},
    {{{2, 3}, {2, 1}}, -1},
    {{{1, 2, 3}, {1, 2, 3}}, 2},
    {{{1, 2, 3}, {1, 1, 3}, {1, 3, 3}}, -2},
    {{{2, 0, 3}, {2, 0, 1}}, 2},
    {{{2, 1, 2, 2}, {2, 1, 2, 3}}, 3},
    {{{2, 2, 1, 2}, {2, 2, 3, 2}, {2, 2, 0, 2}}, 2},
    // Refused: scalars, mismatched dimensions or ranks, axis out of range.
    {{{}, {}}, 0},
    {{{2, 3}, {3, 3}}, 1},
    {{{2, 3}, {2}}, 0},
    {{{2, 3}, {2, 3}}, 2},
    {{{2, 3}, {2, 3}}, -3},
};

std::string ConcatName(const ConcatCase& c) {
  std::vector<std::string> parts;
  for (const Shape& s : c.values) parts.push_back(ShapeName(s));
  return absl::StrCat(absl::StrJoin(parts, "_"), "_axis_", c.axis);
}

class ConcatTest : public ::testing::TestWithParam<std::tuple<ConcatCase, DType>> {};

TEST_P(ConcatTest, ConcatV2AndConcat) {
  const auto& [c, dtype] = GetParam();
  const int n = static_cast<int>(c.values.size());
  std::vector<Tensor> values;
  for (int i = 0; i < n; ++i) values.push_back(RandomTensor(dtype, c.values[i], 10 + i));
  const Tensor axis = IndexTensor({c.axis}, DType::kInt32, Shape{});
  std::vector<Tensor> v2 = values;
  v2.push_back(axis);
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("ConcatV2", {{"N", int64_t{n}}}, n + 1), v2))
      << "ConcatV2";
  std::vector<Tensor> v1 = {axis};
  v1.insert(v1.end(), values.begin(), values.end());
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("Concat", {{"N", int64_t{n}}}, n + 1), v1))
      << "Concat";
}

INSTANTIATE_TEST_SUITE_P(Layout, ConcatTest, Combine(ValuesIn(kConcats), ValuesIn(LayoutDTypes())),
                         [](const auto& info) {
                           const auto& c = std::get<0>(info.param);
                           const DType dtype = std::get<1>(info.param);
                           return SafeName(
                               absl::StrCat(info.index, "_", ConcatName(c), "_", DTypeName(dtype)));
                         });

TEST(ConcatTest, RefusesMixedDTypesAndWrongN) {
  const Tensor axis = IndexTensor({0}, DType::kInt64, Shape{});
  EXPECT_TRUE(BothRefuse(MakeNode("ConcatV2", {}, 3), {RandomTensor(DType::kFloat, {2}, 1),
                                                       RandomTensor(DType::kInt32, {2}, 1), axis}));
  EXPECT_TRUE(
      BothRefuse(MakeNode("ConcatV2", {{"N", int64_t{3}}}, 3),
                 {RandomTensor(DType::kFloat, {2}, 1), RandomTensor(DType::kFloat, {2}, 1), axis}));
}

TEST(ConcatTest, SymbolicBatch) {
  CheckOptions batch;
  batch.symbolic_dims = {{0, 0}, {1, 0}};
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("ConcatV2", {}, 3),
      {RandomTensor(DType::kFloat, {3, 2}, 1), RandomTensor(DType::kFloat, {3, 5}, 2),
       IndexTensor({1}, DType::kInt32, Shape{})},
      batch));
  batch.symbolic_dims = {{1, 0}};  // [4,2] ++ [N,2] along the batch: [4 + N, 2]
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Concat", {}, 3),
      {IndexTensor({0}, DType::kInt32, Shape{}), RandomTensor(DType::kFloat, {4, 2}, 1),
       RandomTensor(DType::kFloat, {3, 2}, 2)},
      batch));
}

struct PackCase {
  Shape shape;
  int n;
};

const PackCase kPacks[] = {{{}, 1},     {{}, 3},     {{1}, 2},       {{0}, 2},         {{4}, 3},
                           {{2, 3}, 2}, {{2, 0}, 3}, {{2, 1, 3}, 2}, {{1, 2, 2, 3}, 2}};

class PackTest : public ::testing::TestWithParam<std::tuple<PackCase, DType>> {};

TEST_P(PackTest, EveryAxisAndUnpack) {
  const auto& [c, dtype] = GetParam();
  std::vector<Tensor> values;
  for (int i = 0; i < c.n; ++i) values.push_back(RandomTensor(dtype, c.shape, 20 + i));
  const int rank = static_cast<int>(c.shape.size());
  for (int axis = -rank - 2; axis <= rank + 1; ++axis) {
    EXPECT_TRUE(TranslationMatchesReference(
        MakeNode("Pack", {{"N", int64_t{c.n}}, {"axis", int64_t{axis}}}, c.n), values))
        << "Pack axis " << axis;
  }
  // Unpack of every axis of a tensor of this shape.
  for (int axis = -rank - 1; axis <= rank; ++axis) {
    EXPECT_TRUE(
        TranslationMatchesReference(MakeNode("Unpack", {{"axis", int64_t{axis}}}, 1), {values[0]}))
        << "Unpack axis " << axis;
  }
}

INSTANTIATE_TEST_SUITE_P(Layout, PackTest, Combine(ValuesIn(kPacks), ValuesIn(LayoutDTypes())),
                         [](const auto& info) {
                           const auto& c = std::get<0>(info.param);
                           const DType dtype = std::get<1>(info.param);
                           return SafeName(
                               absl::StrCat(ShapeName(c.shape), "_n", c.n, "_", DTypeName(dtype)));
                         });

TEST(PackTest, RefusesMismatchedInputs) {
  EXPECT_TRUE(BothRefuse(MakeNode("Pack", {}, 2), {RandomTensor(DType::kFloat, {2}, 1),
                                                   RandomTensor(DType::kFloat, {3}, 1)}));
  EXPECT_TRUE(BothRefuse(MakeNode("Pack", {}, 2), {RandomTensor(DType::kFloat, {2}, 1),
                                                   RandomTensor(DType::kHalf, {2}, 1)}));
  EXPECT_TRUE(
      BothRefuse(MakeNode("Pack", {{"N", int64_t{3}}}, 2),
                 {RandomTensor(DType::kFloat, {2}, 1), RandomTensor(DType::kFloat, {2}, 1)}));
}

TEST(UnpackTest, RefusesWrongNumAndScalars) {
  EXPECT_TRUE(BothRefuse(MakeNode("Unpack", {{"num", int64_t{3}}}, 1),
                         {RandomTensor(DType::kFloat, {2, 3}, 1)}));
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Unpack", {{"num", int64_t{3}}, {"axis", int64_t{1}}}, 1),
      {RandomTensor(DType::kFloat, {2, 3}, 1)}));
  EXPECT_TRUE(BothRefuse(MakeNode("Unpack", {}, 1), {RandomTensor(DType::kFloat, {}, 1)}));
}

// --- Split, SplitV ----------------------------------------------------------------------------

struct SplitCase {
  Shape shape;
  int64_t axis;
  int64_t num_split;
};

const SplitCase kSplits[] = {
    {{6}, 0, 1},
    {{6}, 0, 3},
    {{6}, -1, 6},
    {{0}, 0, 2},
    {{4, 6}, 1, 2},
    {{4, 6}, 0, 4},
    {{2, 0}, 1, 3},
    {{2, 0}, 0, 2},
    {{2, 3, 4}, 2, 2},
    {{2, 3, 4}, -2, 3},
    {{2, 3, 4, 2}, 3, 2},
    {{1, 2, 2, 6}, -1, 3},
    // Refused: indivisible, num_split 0, axis out of range, a scalar.
    {{5}, 0, 2},
    {{4}, 0, 0},
    {{4}, 1, 2},
    {{}, 0, 1},
};

class SplitTest : public ::testing::TestWithParam<std::tuple<SplitCase, DType>> {};

TEST_P(SplitTest, MatchesReference) {
  const auto& [c, dtype] = GetParam();
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Split", {{"num_split", c.num_split}}, 2),
      {IndexTensor({c.axis}, DType::kInt32, Shape{}), RandomTensor(dtype, c.shape, 30)}));
}

INSTANTIATE_TEST_SUITE_P(Layout, SplitTest, Combine(ValuesIn(kSplits), ValuesIn(LayoutDTypes())),
                         [](const auto& info) {
                           const auto& c = std::get<0>(info.param);
                           const DType dtype = std::get<1>(info.param);
                           return SafeName(absl::StrCat(info.index, "_", ShapeName(c.shape),
                                                        "_axis_", c.axis, "_n", c.num_split, "_",
                                                        DTypeName(dtype)));
                         });

struct SplitVCase {
  Shape shape;
  std::vector<int64_t> sizes;
  int64_t axis;
};

const SplitVCase kSplitVs[] = {
    {{6}, {6}, 0},
    {{6}, {1, 2, 3}, 0},
    {{6}, {2, -1, 1}, 0},
    {{6}, {0, 6, 0}, -1},
    {{6}, {-1}, 0},
    {{0}, {0, -1}, 0},
    {{2, 5}, {3, 2}, 1},
    {{4, 2}, {1, -1}, 0},
    {{2, 3, 4}, {1, 1, 2}, 2},
    {{2, 3, 4, 1}, {2, -1}, 1},
    {{2, 0, 3}, {-1, 0}, 1},
    // Refused: two -1s, wrong sum, too long, negative, empty, axis out of range.
    {{6}, {-1, -1}, 0},
    {{6}, {1, 2}, 0},
    {{6}, {4, 4, -1}, 0},
    {{6}, {-2, 8}, 0},
    {{6}, {}, 0},
    {{6}, {6}, 1},
};

class SplitVTest : public ::testing::TestWithParam<std::tuple<SplitVCase, DType>> {};

TEST_P(SplitVTest, MatchesReference) {
  const auto& [c, dtype] = GetParam();
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("SplitV", {{"num_split", static_cast<int64_t>(c.sizes.size())}}, 3),
      {RandomTensor(dtype, c.shape, 31), IndexTensor(c.sizes, DType::kInt64),
       IndexTensor({c.axis}, DType::kInt32, Shape{})}));
}

INSTANTIATE_TEST_SUITE_P(Layout, SplitVTest, Combine(ValuesIn(kSplitVs), ValuesIn(LayoutDTypes())),
                         [](const auto& info) {
                           const auto& c = std::get<0>(info.param);
                           const DType dtype = std::get<1>(info.param);
                           return SafeName(absl::StrCat(info.index, "_", ShapeName(c.shape), "_",
                                                        Ints(c.sizes), "_axis_", c.axis, "_",
                                                        DTypeName(dtype)));
                         });

TEST(SplitTest, SymbolicBatch) {
  CheckOptions batch;
  batch.symbolic_dims = {{1, 0}};
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Split", {{"num_split", int64_t{2}}}, 2),
      {IndexTensor({1}, DType::kInt32, Shape{}), RandomTensor(DType::kFloat, {3, 4}, 1)}, batch));
  batch.symbolic_dims = {{0, 0}};
  EXPECT_TRUE(
      TranslationMatchesReference(MakeNode("SplitV", {}, 3),
                                  {RandomTensor(DType::kFloat, {5, 2}, 1), IndexTensor({2, -1}),
                                   IndexTensor({0}, DType::kInt32, Shape{})},
                                  batch));
}

// --- IdentityN --------------------------------------------------------------------------------

TEST(IdentityNTest, OutputsAreTheInputs) {
  AttrList types;
  types.type = {DType::kFloat, DType::kInt64, DType::kBool};
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("IdentityN", {{"T", types}}, 3),
      {RandomTensor(DType::kFloat, {2, 3}, 1), RandomTensor(DType::kInt64, {}, 2),
       RandomTensor(DType::kBool, {0, 4}, 3)}));
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("IdentityN", {}, 1),
                                          {RandomTensor(DType::kHalf, {5}, 1)}));
  types.type.pop_back();
  EXPECT_TRUE(
      BothRefuse(MakeNode("IdentityN", {{"T", types}}, 3),
                 {RandomTensor(DType::kFloat, {2, 3}, 1), RandomTensor(DType::kInt64, {}, 2),
                  RandomTensor(DType::kBool, {0, 4}, 3)}));
}

TEST(LayoutTest, EveryOpOfTheFamilyIsTranslated) {
  for (const char* op :
       {"Reshape",      "Transpose", "ExpandDims",  "Squeeze",   "Tile",      "ConcatV2",
        "Concat",       "Pack",      "Unpack",      "Split",     "SplitV",    "Slice",
        "StridedSlice", "Pad",       "PadV2",       "MirrorPad", "ReverseV2", "GatherV2",
        "Gather",       "OneHot",    "BroadcastTo", "Fill",      "Range",     "IdentityN"}) {
    EXPECT_NE(ir::FindTranslation(op), nullptr) << op;
  }
}

}  // namespace
}  // namespace dfc
