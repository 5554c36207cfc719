// Tests for the matrix product translations (contraction.cc): MatMul with every transpose
// combination, BatchMatMul and BatchMatMulV2 (broadcast batch dimensions) on every dtype the
// reference accepts, including empty products, against the reference executor; the reference's
// refusals; the thesis' Map/Reduce/Zip structure.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "graph/dtype.h"
#include "graph/fold.h"
#include "graph/half.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "ir/expr.h"
#include "ir/from_tf/translate.h"
#include "ir/printer.h"
#include "runtime/reference/kernel.h"
#include "tests/test_util.h"
#include "tests/translate_testing.h"

namespace dfc::ir {
namespace {

using ::dfc::testing::MakeNode;
using ::dfc::testing::TN;
using ::dfc::testing::TranslateStatus;
using ::dfc::testing::TranslationMatchesReference;
using ::testing::HasSubstr;

// Seeded random values with negative values and zeros; floats now and then NaN or an
// infinity; integers now and then an extreme value, so that products and sums wrap.
Tensor RandomTensor(DType dtype, const Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  Tensor t = Tensor::Zeros(dtype, shape);
  DispatchDType(dtype, [&]<typename T>() {
    T* out = t.mutable_data<T>();
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        out[i] = rng() % 2 == 1;
      } else if constexpr (std::is_same_v<T, Half> || std::is_floating_point_v<T>) {
        constexpr double kSpecial[] = {std::numeric_limits<double>::quiet_NaN(),
                                       std::numeric_limits<double>::infinity(),
                                       -std::numeric_limits<double>::infinity()};
        double v = std::uniform_real_distribution<double>(-1.5, 1.5)(rng);
        if (rng() % 7 == 0) v = 0;
        if (rng() % 23 == 0) v = kSpecial[rng() % 3];
        if constexpr (std::is_same_v<T, double>) {
          out[i] = v;
        } else {
          out[i] = static_cast<T>(static_cast<float>(v));
        }
      } else {
        const int64_t lo = std::is_signed_v<T> ? -9 : 0;
        int64_t v = std::uniform_int_distribution<int64_t>(lo, 9)(rng);
        if (rng() % 9 == 0) {
          v = rng() % 2 == 0 ? static_cast<int64_t>(std::numeric_limits<T>::max())
                             : static_cast<int64_t>(std::numeric_limits<T>::min());
        }
        out[i] = static_cast<T>(v);
      }
    }
  });
  return t;
}

const std::vector<DType> kNumeric = {DType::kHalf,  DType::kFloat, DType::kDouble, DType::kInt8,
                                     DType::kInt16, DType::kInt32, DType::kInt64,  DType::kUInt8};

std::string ShapeName(const Shape& s) {
  if (s.empty()) return "scalar";
  return absl::StrJoin(s, "x");
}

// `shape` with its last two dimensions swapped when `transpose` (the operand as stored).
Shape Stored(Shape shape, bool transpose) {
  if (transpose) std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
  return shape;
}

struct MatMulCase {
  std::string op;
  DType dtype;
  Shape a, b;  // op(a) and op(b): the shapes as multiplied, before transposition
  bool transpose_a, transpose_b;
  std::string name;
};

std::vector<MatMulCase> MatMulCases() {
  // {op(a), op(b)}: [m, k] x [k, n] with batch dims for the batched ops.
  const std::vector<std::pair<Shape, Shape>> matmul = {
      {{1, 1}, {1, 1}}, {{2, 3}, {3, 4}}, {{4, 1}, {1, 3}}, {{1, 5}, {5, 1}},
      {{0, 3}, {3, 4}}, {{2, 0}, {0, 4}}, {{3, 5}, {5, 0}}, {{3, 7}, {7, 2}}};
  const std::vector<std::pair<Shape, Shape>> batch = {{{2, 2, 3}, {2, 3, 4}},
                                                      {{1, 1, 1}, {1, 1, 1}},
                                                      {{0, 2, 3}, {0, 3, 2}},
                                                      {{3, 2, 0}, {3, 0, 2}},
                                                      {{2, 3, 1, 2}, {2, 3, 2, 3}}};
  const std::vector<std::pair<Shape, Shape>> broadcast = {
      {{2, 1, 2, 3}, {3, 3, 4}},    {{1, 2, 3}, {4, 3, 2}}, {{2, 3}, {5, 3, 4}},
      {{3, 1, 2, 3}, {1, 4, 3, 2}}, {{4, 2, 3}, {3, 2}},    {{1, 2, 3}, {0, 3, 2}},
      {{2, 1, 3}, {2, 3, 1}}};
  std::vector<MatMulCase> cases;
  auto add = [&](const std::string& op, const std::vector<std::pair<Shape, Shape>>& shapes) {
    for (DType d : kNumeric) {
      for (const auto& [a, b] : shapes) {
        for (int t = 0; t < 4; ++t) {
          const bool ta = (t & 1) != 0;
          const bool tb = (t & 2) != 0;
          cases.push_back({op, d, a, b, ta, tb,
                           absl::StrCat(op, "_", DTypeName(d), "_", ShapeName(a), "_by_",
                                        ShapeName(b), ta ? "_ta" : "", tb ? "_tb" : "")});
        }
      }
    }
  };
  add("MatMul", matmul);
  add("BatchMatMul", batch);
  add("BatchMatMulV2", batch);
  add("BatchMatMulV2", broadcast);
  return cases;
}

class MatMulTest : public ::testing::TestWithParam<MatMulCase> {};

TEST_P(MatMulTest, MatchesReference) {
  const MatMulCase& c = GetParam();
  const bool batched = c.op != "MatMul";
  const Node node = MakeNode(c.op,
                             {{batched ? "adj_x" : "transpose_a", c.transpose_a},
                              {batched ? "adj_y" : "transpose_b", c.transpose_b}},
                             2);
  const uint32_t seed = static_cast<uint32_t>(c.name.size());
  const Tensor a = RandomTensor(c.dtype, Stored(c.a, c.transpose_a), seed);
  const Tensor b = RandomTensor(c.dtype, Stored(c.b, c.transpose_b), seed + 1);
  EXPECT_TRUE(TranslationMatchesReference(node, {a, b}));
}

INSTANTIATE_TEST_SUITE_P(All, MatMulTest, ::testing::ValuesIn(MatMulCases()),
                         [](const auto& info) { return info.param.name; });

// A longer dot product, the kind a dense layer computes, stays within the tolerance.
TEST(MatMulValuesTest, LongInnerDimension) {
  for (DType d : {DType::kHalf, DType::kFloat, DType::kDouble, DType::kInt32}) {
    std::mt19937 rng(3);
    Tensor a = Tensor::Zeros(d, {3, 64});
    Tensor b = Tensor::Zeros(d, {64, 5});
    for (Tensor* t : {&a, &b}) {
      DispatchDType(d, [&]<typename T>() {
        if constexpr (!std::is_same_v<T, bool>) {
          for (T& v : t->mutable_flat<T>()) {
            v = static_cast<T>(static_cast<float>(
                std::uniform_real_distribution<double>(-0.5, 0.5)(rng) * (IsFloating(d) ? 1 : 20)));
          }
        }
      });
    }
    EXPECT_TRUE(TranslationMatchesReference(MakeNode("MatMul", {}, 2), {a, b})) << DTypeName(d);
  }
}

// ---- refusals -------------------------------------------------------------------------------

TEST(MatMulErrorTest, RefusesWhatTheReferenceRefuses) {
  const Tensor m23 = RandomTensor(DType::kFloat, {2, 3}, 1);
  const Tensor m34 = RandomTensor(DType::kFloat, {3, 4}, 2);
  const std::vector<std::pair<Node, std::vector<Tensor>>> cases = {
      {MakeNode("MatMul", {}, 2), {m23, m23}},
      {MakeNode("MatMul", {{"transpose_a", true}}, 2), {m23, m34}},
      {MakeNode("MatMul", {}, 2), {m23, RandomTensor(DType::kDouble, {3, 4}, 2)}},
      {MakeNode("MatMul", {}, 2),
       {RandomTensor(DType::kBool, {2, 3}, 1), RandomTensor(DType::kBool, {3, 4}, 1)}},
      {MakeNode("MatMul", {}, 2),
       {RandomTensor(DType::kUInt32, {2, 3}, 1), RandomTensor(DType::kUInt32, {3, 4}, 1)}},
      {MakeNode("MatMul", {}, 2), {RandomTensor(DType::kFloat, {1, 2, 3}, 1), m34}},
      {MakeNode("MatMul", {}, 2), {RandomTensor(DType::kFloat, {3}, 1), m34}},
      {MakeNode("BatchMatMul", {}, 2),
       {RandomTensor(DType::kFloat, {2, 2, 3}, 1), RandomTensor(DType::kFloat, {1, 3, 4}, 1)}},
      {MakeNode("BatchMatMul", {}, 2), {RandomTensor(DType::kFloat, {3}, 1), m34}},
      {MakeNode("BatchMatMulV2", {}, 2),
       {RandomTensor(DType::kFloat, {2, 2, 3}, 1), RandomTensor(DType::kFloat, {3, 3, 4}, 1)}},
  };
  for (const auto& [node, inputs] : cases) {
    EXPECT_FALSE(reference::EvaluateNode(node, inputs).ok()) << node.op;
    EXPECT_FALSE(TranslateStatus(node, inputs).ok()) << node.op;
    EXPECT_TRUE(TranslationMatchesReference(node, inputs));
  }
}

TEST(MatMulErrorTest, InnerDimensionErrorNamesTheNodeAndShapes) {
  absl::Status s = TranslateStatus(
      MakeNode("MatMul", {}, 2),
      {RandomTensor(DType::kFloat, {2, 3}, 1), RandomTensor(DType::kFloat, {2, 3}, 1)});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("node \"node\""));
  EXPECT_THAT(std::string(s.message()), HasSubstr("inner dimensions differ"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("[2,3]"));
}

// ---- structure ----------------------------------------------------------------------------------

int Count(const std::string& text, const std::string& word) {
  int n = 0;
  for (size_t p = text.find(word); p != std::string::npos; p = text.find(word, p + 1)) ++n;
  return n;
}

absl::StatusOr<ExprPtr> Translate(const Node& node, const ExprPtr& a, const ExprPtr& b) {
  std::vector<TranslateInput> inputs = {{a, nullptr}, {b, nullptr}};
  DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> out, TranslateNode(node, inputs));
  return out[0];
}

// The thesis' MatMul: Map over A's rows, Map over B's columns (B transposed), Reduce of the
// Map(mult) of a Zip; transpose_b=true reads B's rows as they are, with no Transpose.
TEST(MatMulStructureTest, ThesisForm) {
  const ArithExpr n = ArithExpr::Var("N");
  ParamPtr a = MakeParam("a", TensorType(DType::kFloat, {n, 784}));
  ParamPtr b = MakeParam("b", TensorType(DType::kFloat, {784, 10}));
  absl::StatusOr<ExprPtr> out = Translate(MakeNode("MatMul", {}, 2), a, b);
  ASSERT_TRUE(out.ok()) << out.status();
  const std::string text = ToString(*out);
  EXPECT_EQ(Count(text, "Transpose"), 1) << text;
  EXPECT_EQ(Count(text, "Reduce"), 1) << text;
  EXPECT_EQ(Count(text, "Zip"), 1) << text;
  EXPECT_TRUE(TypeEquals((*out)->type, TensorType(DType::kFloat, {n, 10})));

  ParamPtr bt = MakeParam("bt", TensorType(DType::kFloat, {10, 784}));
  out = Translate(MakeNode("MatMul", {{"transpose_b", true}}, 2), a, bt);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Count(ToString(*out), "Transpose"), 0) << ToString(*out);
}

// BatchMatMulV2 stretches a size-1 or missing batch dimension with views: no copy.
TEST(MatMulStructureTest, BroadcastBatchIsAView) {
  ParamPtr a = MakeParam("a", TensorType(DType::kFloat, {1, 2, 3}));
  ParamPtr b = MakeParam("b", TensorType(DType::kFloat, {4, 3, 5}));
  absl::StatusOr<ExprPtr> out = Translate(MakeNode("BatchMatMulV2", {}, 2), a, b);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Count(ToString(*out), "Repeat"), 1) << ToString(*out);
  EXPECT_TRUE(TypeEquals((*out)->type, TensorType(DType::kFloat, {4, 2, 5})));

  ParamPtr w = MakeParam("w", TensorType(DType::kFloat, {3, 5}));
  out = Translate(MakeNode("BatchMatMulV2", {}, 2), b, w);
  ASSERT_FALSE(out.ok());  // b is [4,3,5]: inner 5 against 3
  ParamPtr x = MakeParam("x", TensorType(DType::kFloat, {4, 2, 3}));
  out = Translate(MakeNode("BatchMatMulV2", {}, 2), x, w);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Count(ToString(*out), "Repeat"), 1) << ToString(*out);
  EXPECT_TRUE(TypeEquals((*out)->type, TensorType(DType::kFloat, {4, 2, 5})));
}

}  // namespace
}  // namespace dfc::ir
