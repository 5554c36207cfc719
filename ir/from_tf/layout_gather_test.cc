// Tests of the gather and generator translations (layout_gather.cc): GatherV2, Gather, OneHot,
// Fill and Range, against the reference executor, with out-of-range indices refused or
// ignored exactly where the reference does.
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "ir/expr.h"
#include "ir/interpreter.h"
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

// --- GatherV2, Gather -------------------------------------------------------------------------

struct GatherCase {
  Shape params;
  std::vector<int64_t> indices;
  Shape index_shape;
  int64_t axis;
  int64_t batch_dims = 0;
};

const GatherCase kGathers[] = {
    {{5}, {0, 4, 2, 2}, {4}, 0},
    {{5}, {3}, {}, 0},
    {{5}, {}, {0}, 0},
    {{1}, {0, 0, 0}, {3}, -1},
    {{4, 3}, {3, 0}, {2}, 0},
    {{4, 3}, {2, 0, 1, 1}, {2, 2}, 1},
    {{4, 3}, {1}, {}, -1},
    {{2, 0}, {1, 0}, {2}, 0},
    {{0, 3}, {2}, {1}, 1},
    {{2, 3, 4}, {3, 0, 1, 2, 2, 1}, {2, 3}, 2},
    {{2, 3, 4}, {1, 2}, {2}, 1},
    {{2, 1, 3, 2}, {0, 2, 1}, {3}, 2},
    {{2, 3}, {2, 0, 1, 1}, {2, 2}, 1, 1},
    {{2, 3, 4}, {3, 0, 1, 2}, {2, 2}, 2, 1},
    {{2, 3, 4}, {0, 1, 2, 0, 2, 1}, {2, 3}, 1, -1},
    {{2, 2, 3}, {2, 0, 1, 1}, {2, 2}, 2, 2},
    // Refused: out of range (too big, negative, from an empty dimension), a scalar params,
    // axis out of range, bad batch_dims.
    {{5}, {5}, {1}, 0},
    {{5}, {0, -1}, {2}, 0},
    {{4, 3}, {3}, {}, 1},
    {{2, 0}, {0}, {1}, 1},
    {{}, {0}, {1}, 0},
    {{4, 3}, {0}, {1}, 2},
    {{2, 3}, {0, 1}, {2}, 1, 2},
    {{2, 3}, {0, 1, 0}, {3}, 1, 1},
};

class GatherTest : public ::testing::TestWithParam<std::tuple<GatherCase, DType>> {};

TEST_P(GatherTest, GatherV2) {
  const auto& [c, dtype] = GetParam();
  const Tensor params = RandomTensor(dtype, c.params, 1);
  for (DType index_dtype : {DType::kInt32, DType::kInt64}) {
    EXPECT_TRUE(
        TranslationMatchesReference(MakeNode("GatherV2", {{"batch_dims", c.batch_dims}}, 3),
                                    {params, IndexTensor(c.indices, index_dtype, c.index_shape),
                                     IndexTensor({c.axis}, DType::kInt32, Shape{})}))
        << DTypeName(index_dtype);
  }
}

TEST(GatherTest, GatherAlongAxis0) {
  for (const GatherCase& c : kGathers) {
    if (c.axis != 0 || c.batch_dims != 0) continue;  // Gather has axis 0 only
    for (DType dtype : LayoutDTypes()) {
      EXPECT_TRUE(TranslationMatchesReference(
          MakeNode("Gather", {}, 2),
          {RandomTensor(dtype, c.params, 2), IndexTensor(c.indices, DType::kInt64, c.index_shape)}))
          << ShapeName(c.params) << " " << Ints(c.indices) << " " << DTypeName(dtype);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layout, GatherTest, Combine(ValuesIn(kGathers), ValuesIn(LayoutDTypes())),
                         [](const auto& info) {
                           const auto& c = std::get<0>(info.param);
                           const DType dtype = std::get<1>(info.param);
                           return SafeName(absl::StrCat(info.index, "_", ShapeName(c.params), "_",
                                                        ShapeName(c.index_shape), "_axis_", c.axis,
                                                        "_b", c.batch_dims, "_", DTypeName(dtype)));
                         });

TEST(GatherTest, RefusesFloatIndices) {
  EXPECT_TRUE(BothRefuse(MakeNode("GatherV2", {}, 3),
                         {RandomTensor(DType::kFloat, {4}, 1), RandomTensor(DType::kFloat, {2}, 1),
                          IndexTensor({0}, DType::kInt32, Shape{})}));
}

TEST(GatherTest, SymbolicBatchOfIndices) {
  // An embedding lookup: params [10,4], indices [N,3].
  CheckOptions batch;
  batch.symbolic_dims = {{1, 0}};
  EXPECT_TRUE(
      TranslationMatchesReference(MakeNode("GatherV2", {}, 3),
                                  {RandomTensor(DType::kFloat, {10, 4}, 1),
                                   IndexTensor({9, 0, 3, 3, 1, 7}, DType::kInt32, Shape{2, 3}),
                                   IndexTensor({0}, DType::kInt32, Shape{})},
                                  batch));
}

// --- OneHot -----------------------------------------------------------------------------------

struct OneHotCase {
  std::vector<int64_t> indices;
  Shape shape;
  int64_t depth;
};

// Indices outside [0, depth) (negative, = depth, beyond) give rows of off_value.
const OneHotCase kOneHots[] = {
    {{2}, {}, 4},    {{0, 3, 1, -1, 4, 9}, {6}, 4},   {{0, 1}, {2}, 0},
    {{}, {0}, 3},    {{1, 0, 2, 2, 1, 5}, {2, 3}, 3}, {{0, 1, 2, 3}, {2, 1, 2}, 3},
    {{}, {2, 0}, 2}, {{0, 1, 0, 1}, {1, 2, 1, 2}, 2}, {{200, 44, 255, 0}, {4}, 300},
};

using OneHotParam = std::tuple<OneHotCase, DType, DType>;  // indices dtype, value dtype

class OneHotTest : public ::testing::TestWithParam<OneHotParam> {};

TEST_P(OneHotTest, EveryAxis) {
  // Not a structured binding: the lambda below captures c, which clang 14 cannot.
  const OneHotCase& c = std::get<0>(GetParam());
  const DType index_dtype = std::get<1>(GetParam()), dtype = std::get<2>(GetParam());
  Tensor indices = Tensor::Zeros(index_dtype, c.shape);
  for (size_t i = 0; i < c.indices.size(); ++i) {
    DispatchDType(index_dtype, [&]<typename T>() {
      indices.template mutable_data<T>()[i] = static_cast<T>(c.indices[i]);
    });
  }
  const Tensor on = RandomTensor(dtype, {}, 3);
  const Tensor off = RandomTensor(dtype, {}, 4);
  const int rank = static_cast<int>(c.shape.size());
  for (int axis = -2; axis <= rank + 1; ++axis) {
    EXPECT_TRUE(TranslationMatchesReference(
        MakeNode("OneHot", {{"axis", int64_t{axis}}}, 4),
        {indices, IndexTensor({c.depth}, DType::kInt32, Shape{}), on, off}))
        << "axis " << axis;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Layout, OneHotTest,
    Combine(ValuesIn(kOneHots),
            ValuesIn(std::vector<DType>{DType::kUInt8, DType::kInt8, DType::kInt32, DType::kInt64}),
            ValuesIn(LayoutDTypes())),
    [](const auto& info) {
      const auto& c = std::get<0>(info.param);
      const DType index_dtype = std::get<1>(info.param);
      const DType dtype = std::get<2>(info.param);
      return SafeName(absl::StrCat(info.index, "_", ShapeName(c.shape), "_depth_", c.depth, "_",
                                   DTypeName(index_dtype), "_", DTypeName(dtype)));
    });

TEST(OneHotTest, Refusals) {
  const Tensor indices = IndexTensor({0, 1});
  const Tensor on = RandomTensor(DType::kFloat, {}, 1);
  const Tensor depth = IndexTensor({3}, DType::kInt32, Shape{});
  // Negative depth, mixed on/off dtypes, a vector on_value, int16 indices.
  EXPECT_TRUE(BothRefuse(MakeNode("OneHot", {}, 4),
                         {indices, IndexTensor({-1}, DType::kInt32, Shape{}), on, on}));
  EXPECT_TRUE(BothRefuse(MakeNode("OneHot", {}, 4),
                         {indices, depth, on, RandomTensor(DType::kDouble, {}, 1)}));
  EXPECT_TRUE(BothRefuse(MakeNode("OneHot", {}, 4),
                         {indices, depth, RandomTensor(DType::kFloat, {1}, 1), on}));
  EXPECT_TRUE(
      BothRefuse(MakeNode("OneHot", {}, 4), {RandomTensor(DType::kInt16, {2}, 1), depth, on, on}));
}

// Inputs read inside Maps (params inside the Map over the indices, on and off inside the Maps
// over the indices) are computed once when they are computations, not once per element.
TEST(GatherTest, ComputedInputsAreBoundOnce) {
  const ir::FunPtr twice =
      ir::MakeUserFun("twice_int32", {"x"}, "return x + x;", {DType::kInt32}, DType::kInt32,
                      [](std::span<const ir::Scalar> a) -> absl::StatusOr<ir::Scalar> {
                        return ir::Scalar::Int(DType::kInt32, 2 * a[0].i);
                      });
  const ir::ParamPtr p = ir::MakeParam("p", ir::TensorType(DType::kInt32, {4}));
  const ir::ParamPtr i = ir::MakeParam("i", ir::TensorType(DType::kInt32, {3}));
  absl::StatusOr<ir::ExprPtr> doubled =
      ir::MapOver(p, [&](ir::ExprPtr x) { return ir::Call(twice, {x}); });
  ASSERT_TRUE(doubled.ok());
  TensorInfo axis = ConstantInfo(IndexTensor({0}, DType::kInt32, Shape{}));
  std::vector<ir::TranslateInput> inputs = {{*doubled, nullptr}, {i, nullptr}, {nullptr, &axis}};
  absl::StatusOr<std::vector<ir::ExprPtr>> out =
      ir::TranslateNode(MakeNode("GatherV2", {}, 3), inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  ir::Interpreter interpreter;
  absl::StatusOr<ir::Value> value =
      interpreter.Evaluate((*out)[0], {{p.get(), ir::ValueFromTensor(IndexTensor({1, 2, 3, 4}))},
                                       {i.get(), ir::ValueFromTensor(IndexTensor({3, 0, 3}))}});
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(value->ToString(), "[8, 2, 8]");
  EXPECT_EQ(interpreter.calls().at("twice_int32"), 4);  // once per element of params
}

// --- Fill -------------------------------------------------------------------------------------

const std::vector<int64_t> kFillDims[] = {{},     {1},    {4},       {0},
                                          {2, 3}, {3, 0}, {2, 1, 3}, {2, 2, 1, 2}};

class FillTest : public ::testing::TestWithParam<std::tuple<std::vector<int64_t>, DType>> {};

TEST_P(FillTest, MatchesReference) {
  const auto& [dims, dtype] = GetParam();
  CheckOptions views;
  views.views_only = true;
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Fill", {}, 2), {IndexTensor(dims, DType::kInt64), RandomTensor(dtype, {}, 5)},
      views));
}

INSTANTIATE_TEST_SUITE_P(Layout, FillTest, Combine(ValuesIn(kFillDims), ValuesIn(LayoutDTypes())),
                         [](const auto& info) {
                           const auto& dims = std::get<0>(info.param);
                           const DType dtype = std::get<1>(info.param);
                           return SafeName(absl::StrCat("dims_", dims.empty() ? "none" : Ints(dims),
                                                        "_", DTypeName(dtype)));
                         });

TEST(FillTest, RefusalsAndSymbolicDims) {
  const Tensor value = RandomTensor(DType::kFloat, {}, 1);
  EXPECT_TRUE(BothRefuse(MakeNode("Fill", {}, 2), {IndexTensor({2, -1}), value}));
  EXPECT_TRUE(
      BothRefuse(MakeNode("Fill", {}, 2), {IndexTensor({2}), RandomTensor(DType::kFloat, {1}, 1)}));
  EXPECT_TRUE(
      BothRefuse(MakeNode("Fill", {}, 2), {IndexTensor({2}, DType::kInt32, Shape{}), value}));
  // dims [N, 3] computed from the batch N = 4.
  CheckOptions batch;
  batch.symbolic_values[0] = {ArithExpr::Var("N"), 3};
  batch.bindings["N"] = 4;
  EXPECT_TRUE(
      TranslationMatchesReference(MakeNode("Fill", {}, 2), {IndexTensor({4, 3}), value}, batch));
}

// --- Range ------------------------------------------------------------------------------------

struct RangeCase {
  DType dtype;
  double start, limit, delta;
};

// Float ranges whose steps are exact take the fused multiply-add form; 0.1 and friends
// accumulate rounding exactly as TensorFlow's kernel does, over up to 10000 elements.
const RangeCase kRanges[] = {
    {DType::kInt32, 0, 5, 1},
    {DType::kInt32, 5, 0, -2},
    {DType::kInt32, 3, 3, 1},
    {DType::kInt32, -7, 8, 3},
    {DType::kInt64, 0, 1, 1},
    {DType::kInt64, 10, -10, -7},
    {DType::kInt64, -4, 100, 25},
    {DType::kFloat, 0, 10, 0.5},
    {DType::kFloat, 0, 10, 0.1},
    {DType::kFloat, 0, 100, 0.1},
    {DType::kFloat, 1, 2, 1e-4},
    {DType::kFloat, 3, -3, -0.3},
    {DType::kFloat, 0, 0, 1},
    {DType::kDouble, 0, 10, 0.1},
    {DType::kDouble, -1, 1, 0.25},
    {DType::kDouble, 2, 1, -0.01},
    // Refused: delta 0, the wrong direction.
    {DType::kInt32, 0, 5, 0},
    {DType::kInt32, 0, 5, -1},
    {DType::kFloat, 5, 0, 1},
};

class RangeTest : public ::testing::TestWithParam<RangeCase> {};

Tensor ScalarOf(DType dtype, double v) {
  Tensor t = Tensor::Zeros(dtype, {});
  DispatchDType(dtype, [&]<typename T>() {
    if constexpr (std::is_same_v<T, Half>) {
      t.template mutable_data<T>()[0] = Half(static_cast<float>(v));
    } else {
      t.template mutable_data<T>()[0] = static_cast<T>(v);
    }
  });
  return t;
}

TEST_P(RangeTest, MatchesReference) {
  const RangeCase& c = GetParam();
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Range", {{"Tidx", c.dtype}}, 3),
      {ScalarOf(c.dtype, c.start), ScalarOf(c.dtype, c.limit), ScalarOf(c.dtype, c.delta)}));
}

INSTANTIATE_TEST_SUITE_P(Layout, RangeTest, ValuesIn(kRanges), [](const auto& info) {
  const RangeCase& c = info.param;
  return SafeName(
      absl::StrCat(info.index, "_", DTypeName(c.dtype), "_", c.start, "_", c.limit, "_", c.delta));
});

TEST(RangeTest, RefusesOtherDTypes) {
  EXPECT_TRUE(BothRefuse(
      MakeNode("Range", {}, 3),
      {ScalarOf(DType::kInt16, 0), ScalarOf(DType::kInt16, 3), ScalarOf(DType::kInt16, 1)}));
  EXPECT_TRUE(BothRefuse(
      MakeNode("Range", {}, 3),
      {ScalarOf(DType::kInt32, 0), ScalarOf(DType::kInt64, 3), ScalarOf(DType::kInt32, 1)}));
}

}  // namespace
}  // namespace dfc
