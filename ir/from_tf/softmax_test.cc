// Tests for the softmax family translations (softmax.cc): Softmax and LogSoftmax over ranks 1 to 4,
// SoftmaxCrossEntropyWithLogits with broadcast inputs and SparseSoftmaxCrossEntropyWithLogits
// with int32 and int64 labels, on every floating dtype, against the reference executor, with
// NaN, infinities and large logits; the reference's refusals (out-of-range labels included);
// and that the row maximum and sum are computed once per row.
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
#include "ir/interpreter.h"
#include "ir/printer.h"
#include "runtime/compare.h"
#include "runtime/reference/kernel.h"
#include "tests/test_util.h"
#include "tests/translate_testing.h"

namespace dfc::ir {
namespace {

using ::dfc::testing::MakeNode;
using ::dfc::testing::T1;
using ::dfc::testing::TN;
using ::dfc::testing::TranslateStatus;
using ::dfc::testing::TranslationMatchesReference;
using ::testing::HasSubstr;

// Seeded logits in [-4, 4] with zeros; with `specials`, now and then NaN or an infinity.
Tensor RandomTensor(DType dtype, const Shape& shape, uint32_t seed, bool specials = false,
                    double scale = 4) {
  std::mt19937 rng(seed);
  Tensor t = Tensor::Zeros(dtype, shape);
  DispatchDType(dtype, [&]<typename T>() {
    if constexpr (std::is_same_v<T, Half> || std::is_floating_point_v<T>) {
      T* out = t.mutable_data<T>();
      for (int64_t i = 0; i < t.num_elements(); ++i) {
        constexpr double kSpecial[] = {std::numeric_limits<double>::quiet_NaN(),
                                       std::numeric_limits<double>::infinity(),
                                       -std::numeric_limits<double>::infinity()};
        double v = std::uniform_real_distribution<double>(-scale, scale)(rng);
        if (rng() % 9 == 0) v = 0;
        if (specials && rng() % 7 == 0) v = kSpecial[rng() % 3];
        if constexpr (std::is_same_v<T, double>) {
          out[i] = v;
        } else {
          out[i] = static_cast<T>(static_cast<float>(v));
        }
      }
    }
  });
  return t;
}

const std::vector<DType> kFloating = {DType::kHalf, DType::kFloat, DType::kDouble};

std::string ShapeName(const Shape& s) {
  if (s.empty()) return "scalar";
  return absl::StrJoin(s, "x");
}

// ---- Softmax LogSoftmax -------------------------------------------------------------------------

struct SoftmaxCase {
  std::string op;
  DType dtype;
  Shape shape;
  bool specials;
  std::string name;
};

std::vector<SoftmaxCase> SoftmaxCases() {
  const std::vector<Shape> shapes = {{1},       {6},       {0},          {1, 1},
                                     {3, 5},    {4, 1},    {0, 3},       {3, 0},
                                     {2, 3, 4}, {2, 0, 3}, {2, 3, 1, 5}, {2, 2, 2, 7}};
  std::vector<SoftmaxCase> cases;
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    for (DType d : kFloating) {
      for (const Shape& shape : shapes) {
        for (bool specials : {false, true}) {
          cases.push_back({op, d, shape, specials,
                           absl::StrCat(op, "_", DTypeName(d), "_", ShapeName(shape),
                                        specials ? "_specials" : "")});
        }
      }
    }
  }
  return cases;
}

class SoftmaxTest : public ::testing::TestWithParam<SoftmaxCase> {};

TEST_P(SoftmaxTest, MatchesReference) {
  const SoftmaxCase& c = GetParam();
  const Tensor x =
      RandomTensor(c.dtype, c.shape, 3 + static_cast<uint32_t>(c.name.size()), c.specials);
  EXPECT_TRUE(TranslationMatchesReference(MakeNode(c.op, {}, 1), {x}));
}

INSTANTIATE_TEST_SUITE_P(All, SoftmaxTest, ::testing::ValuesIn(SoftmaxCases()),
                         [](const auto& info) { return info.param.name; });

// The shift by the row maximum: large equal logits still give 1/n, a row of -inf or with +inf
// gives what the reference gives (NaN), and a lone NaN poisons its row only.
TEST(SoftmaxValuesTest, ShiftedByTheRowMaximum) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = TN<float>(
      {1000, 1000, 1000, -inf, -inf, -inf, inf, 1, 2, nan, 0, 1, 88, 89, -200, -1e30f, 0, 1e30f},
      {6, 3});
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    EXPECT_TRUE(TranslationMatchesReference(MakeNode(op, {}, 1), {x})) << op;
  }
  const Tensor h = ::dfc::testing::HalfTensor({60000, 60000, -60000, 11, 10, 9}, {2, 3});
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    EXPECT_TRUE(TranslationMatchesReference(MakeNode(op, {}, 1), {h})) << op;
  }
}

// ---- SoftmaxCrossEntropyWithLogits --------------------------------------------------------------

struct CrossEntropyCase {
  DType dtype;
  Shape features, labels;
  bool specials;
  std::string name;
};

std::vector<CrossEntropyCase> CrossEntropyCases() {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{2, 3}, {2, 3}}, {{1, 1}, {1, 1}}, {{4, 5}, {4, 5}}, {{1, 3}, {4, 3}}, {{4, 3}, {1, 3}},
      {{3}, {2, 3}},    {{2, 3}, {3}},    {{2, 1}, {2, 4}}, {{}, {2, 3}},     {{2, 3}, {}},
      {{0, 3}, {0, 3}}, {{2, 0}, {2, 0}}, {{1, 3}, {0, 3}}, {{3, 7}, {3, 7}}};
  std::vector<CrossEntropyCase> cases;
  for (DType d : kFloating) {
    for (const auto& [f, l] : shapes) {
      for (bool specials : {false, true}) {
        cases.push_back({d, f, l, specials,
                         absl::StrCat(DTypeName(d), "_", ShapeName(f), "_with_", ShapeName(l),
                                      specials ? "_specials" : "")});
      }
    }
  }
  return cases;
}

class CrossEntropyTest : public ::testing::TestWithParam<CrossEntropyCase> {};

TEST_P(CrossEntropyTest, MatchesReference) {
  const CrossEntropyCase& c = GetParam();
  const uint32_t seed = static_cast<uint32_t>(c.name.size());
  const Tensor features = RandomTensor(c.dtype, c.features, seed, c.specials);
  // Labels: probabilities-like values in [0, 1], and now and then a negative one.
  const Tensor labels = RandomTensor(c.dtype, c.labels, seed + 1, false, 1);
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("SoftmaxCrossEntropyWithLogits", {}, 2),
                                          {features, labels}));
}

INSTANTIATE_TEST_SUITE_P(All, CrossEntropyTest, ::testing::ValuesIn(CrossEntropyCases()),
                         [](const auto& info) { return info.param.name; });

// ---- SparseSoftmaxCrossEntropyWithLogits --------------------------------------------------------

struct SparseCase {
  DType dtype;
  DType index;
  int64_t batch, classes;
  bool specials;
  std::string name;
};

std::vector<SparseCase> SparseCases() {
  const std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 1}, {3, 5},  {4, 1}, {0, 4},
                                                           {0, 0}, {2, 10}, {5, 3}};
  std::vector<SparseCase> cases;
  for (DType d : kFloating) {
    for (DType index : {DType::kInt32, DType::kInt64}) {
      for (const auto& [batch, classes] : shapes) {
        for (bool specials : {false, true}) {
          cases.push_back({d, index, batch, classes, specials,
                           absl::StrCat(DTypeName(d), "_", DTypeName(index), "_", batch, "x",
                                        classes, specials ? "_specials" : "")});
        }
      }
    }
  }
  return cases;
}

Tensor Labels(DType index, const std::vector<int64_t>& values) {
  if (index == DType::kInt64) return T1<int64_t>(values);
  return T1<int32_t>(std::vector<int32_t>(values.begin(), values.end()));
}

class SparseTest : public ::testing::TestWithParam<SparseCase> {};

TEST_P(SparseTest, MatchesReference) {
  const SparseCase& c = GetParam();
  const uint32_t seed = static_cast<uint32_t>(c.name.size());
  const Tensor features = RandomTensor(c.dtype, {c.batch, c.classes}, seed, c.specials);
  std::mt19937 rng(seed);
  std::vector<int64_t> labels(c.batch);
  for (int64_t& l : labels) l = c.classes == 0 ? 0 : static_cast<int64_t>(rng() % c.classes);
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("SparseSoftmaxCrossEntropyWithLogits", {}, 2),
                                          {features, Labels(c.index, labels)}));
}

INSTANTIATE_TEST_SUITE_P(All, SparseTest, ::testing::ValuesIn(SparseCases()),
                         [](const auto& info) { return info.param.name; });

// ---- refusals -------------------------------------------------------------------------------

TEST(SoftmaxErrorTest, RefusesWhatTheReferenceRefuses) {
  const Tensor f23 = RandomTensor(DType::kFloat, {2, 3}, 1);
  const std::vector<std::pair<Node, std::vector<Tensor>>> cases = {
      {MakeNode("Softmax", {}, 1), {Tensor::Scalar<float>(1)}},
      {MakeNode("LogSoftmax", {}, 1), {T1<int32_t>({1, 2})}},
      {MakeNode("SoftmaxCrossEntropyWithLogits", {}, 2),
       {f23, RandomTensor(DType::kDouble, {2, 3}, 1)}},
      {MakeNode("SoftmaxCrossEntropyWithLogits", {}, 2),
       {RandomTensor(DType::kFloat, {2, 2, 3}, 1), RandomTensor(DType::kFloat, {2, 2, 3}, 1)}},
      {MakeNode("SoftmaxCrossEntropyWithLogits", {}, 2),
       {f23, RandomTensor(DType::kFloat, {4}, 1)}},
      {MakeNode("SoftmaxCrossEntropyWithLogits", {}, 2),
       {RandomTensor(DType::kFloat, {3}, 1), RandomTensor(DType::kFloat, {3}, 1)}},
      {MakeNode("SoftmaxCrossEntropyWithLogits", {}, 2), {T1<int32_t>({1}), T1<int32_t>({1})}},
      {MakeNode("SparseSoftmaxCrossEntropyWithLogits", {}, 2), {f23, T1<float>({0, 1})}},
      {MakeNode("SparseSoftmaxCrossEntropyWithLogits", {}, 2), {f23, T1<int32_t>({0, 1, 2})}},
      {MakeNode("SparseSoftmaxCrossEntropyWithLogits", {}, 2),
       {RandomTensor(DType::kFloat, {2}, 1), T1<int32_t>({0, 1})}},
  };
  for (const auto& [node, inputs] : cases) {
    EXPECT_FALSE(reference::EvaluateNode(node, inputs).ok()) << node.op;
    EXPECT_FALSE(TranslateStatus(node, inputs).ok()) << node.op;
    EXPECT_TRUE(TranslationMatchesReference(node, inputs)) << node.op;
  }
}

// A label outside [0, classes) makes the reference refuse the whole op; the translation's host
// twins refuse it when the loss (or the row's gradient) is computed.
TEST(SoftmaxErrorTest, OutOfRangeLabelsAreRefused) {
  const Node node = MakeNode("SparseSoftmaxCrossEntropyWithLogits", {}, 2);
  const Tensor f = RandomTensor(DType::kFloat, {3, 4}, 1);
  for (const std::vector<int64_t>& labels :
       std::vector<std::vector<int64_t>>{{0, 4, 1}, {-1, 0, 0}, {0, 0, 100}}) {
    for (DType index : {DType::kInt32, DType::kInt64}) {
      const std::vector<Tensor> inputs = {f, Labels(index, labels)};
      ASSERT_FALSE(reference::EvaluateNode(node, inputs).ok());
      EXPECT_TRUE(TranslationMatchesReference(node, inputs));
      // Each output refuses on its own too.
      std::vector<TensorInfo> infos(2);
      std::vector<TranslateInput> translate_inputs(2);
      absl::flat_hash_map<const Param*, Value> env;
      for (int i = 0; i < 2; ++i) {
        infos[i] = ConstantInfo(inputs[i]);
        ParamPtr p = MakeParam("in", TensorType(inputs[i].dtype(), ToSymbolic(inputs[i].shape())));
        env[p.get()] = ValueFromTensor(inputs[i]);
        translate_inputs[i] = {p, &infos[i]};
      }
      absl::StatusOr<std::vector<ExprPtr>> out = TranslateNode(node, translate_inputs);
      ASSERT_TRUE(out.ok()) << out.status();
      for (const ExprPtr& e : *out) {
        Interpreter interpreter;
        absl::StatusOr<Value> v = interpreter.Evaluate(e, env);
        ASSERT_FALSE(v.ok());
        EXPECT_THAT(std::string(v.status().message()), HasSubstr("outside the valid range"));
      }
    }
  }
  // Classes 0 with a non-empty batch: every label is out of range.
  EXPECT_TRUE(TranslationMatchesReference(
      node, {Tensor::Zeros(DType::kFloat, {2, 0}), T1<int32_t>({0, 0})}));
}

// ---- structure: each row's maximum and sum are computed once ------------------------------------

TEST(SoftmaxStructureTest, RowMaxAndSumAreBoundOnce) {
  const Tensor x = RandomTensor(DType::kFloat, {3, 5}, 2);
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    ParamPtr p = MakeParam("x", TensorType(DType::kFloat, {3, 5}));
    std::vector<TranslateInput> inputs = {{p, nullptr}};
    absl::StatusOr<std::vector<ExprPtr>> out = TranslateNode(MakeNode(op, {}, 1), inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    Interpreter interpreter;
    ASSERT_TRUE(interpreter.Evaluate((*out)[0], {{p.get(), ValueFromTensor(x)}}).ok());
    // One step of each fold per element, and (LogSoftmax) one log per row: nothing is
    // recomputed per output element.
    EXPECT_EQ(interpreter.calls().at("softmax_row_max_float32_float32"), 15) << op;
    EXPECT_EQ(interpreter.calls().at("softmax_exp_float32_float32"), 15) << op;
    EXPECT_EQ(interpreter.calls().at("softmax_sum_float32"), 15) << op;
    if (std::string(op) == "LogSoftmax") {
      EXPECT_EQ(interpreter.calls().at("softmax_log_sum_float32"), 3);
    }
    EXPECT_THAT(ToString((*out)[0]), HasSubstr("Reduce")) << ToString((*out)[0]);
  }
}

// The two outputs of the cross-entropy ops read one shared array of row statistics.
TEST(SoftmaxStructureTest, CrossEntropyOutputsShareTheRowStatistics) {
  ParamPtr f = MakeParam("f", TensorType(DType::kFloat, {4, 3}));
  ParamPtr l = MakeParam("l", TensorType(DType::kInt64, {4}));
  std::vector<TranslateInput> inputs = {{f, nullptr}, {l, nullptr}};
  absl::StatusOr<std::vector<ExprPtr>> out =
      TranslateNode(MakeNode("SparseSoftmaxCrossEntropyWithLogits", {}, 2), inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  // Each output is Map(...) $ Zip(features, labels, stats): the same Zip node.
  const auto* loss = static_cast<const FunCall*>((*out)[0].get());
  const auto* grad = static_cast<const FunCall*>((*out)[1].get());
  ASSERT_EQ(loss->kind, Expr::Kind::kFunCall);
  ASSERT_EQ(grad->kind, Expr::Kind::kFunCall);
  EXPECT_EQ(loss->args[0].get(), grad->args[0].get());
  EXPECT_TRUE(TypeEquals((*out)[0]->type, TensorType(DType::kFloat, {4})));
  EXPECT_TRUE(TypeEquals((*out)[1]->type, TensorType(DType::kFloat, {4, 3})));
}

// A symbolic batch and class count: the count is read from a view at run time.
TEST(SoftmaxStructureTest, SparseCrossEntropyWithSymbolicShapes) {
  const ArithExpr n = ArithExpr::Var("N");
  const ArithExpr k = ArithExpr::Var("K");
  ParamPtr f = MakeParam("f", TensorType(DType::kFloat, {n, k}));
  ParamPtr l = MakeParam("l", TensorType(DType::kInt32, {n}));
  std::vector<TranslateInput> inputs = {{f, nullptr}, {l, nullptr}};
  const Node node = MakeNode("SparseSoftmaxCrossEntropyWithLogits", {}, 2);
  absl::StatusOr<std::vector<ExprPtr>> out = TranslateNode(node, inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  const Tensor features = RandomTensor(DType::kFloat, {3, 4}, 5);
  for (const std::vector<int32_t>& labels :
       std::vector<std::vector<int32_t>>{{0, 3, 2}, {0, 4, 1}}) {
    const Tensor label_tensor = T1<int32_t>(labels);
    absl::StatusOr<std::vector<Tensor>> expected =
        reference::EvaluateNode(node, std::vector<Tensor>{features, label_tensor});
    for (int o = 0; o < 2; ++o) {
      Interpreter interpreter({{"N", 3}, {"K", 4}});
      absl::StatusOr<Value> v = interpreter.Evaluate(
          (*out)[o],
          {{f.get(), ValueFromTensor(features)}, {l.get(), ValueFromTensor(label_tensor)}});
      ASSERT_EQ(v.ok(), expected.ok()) << v.status();
      if (!v.ok()) continue;
      absl::StatusOr<Tensor> actual = TensorFromValue(*v, (*out)[o]->type, {{"N", 3}, {"K", 4}});
      ASSERT_TRUE(actual.ok()) << actual.status();
      const Comparison c = CompareTensors(*actual, (*expected)[o]);
      EXPECT_TRUE(c.equal) << "output " << o << ": " << c.reason;
    }
  }
}

}  // namespace
}  // namespace dfc::ir
