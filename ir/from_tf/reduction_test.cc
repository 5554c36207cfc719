// Tests for the reduction and scan translations (reduction.cc): every op on every dtype the
// reference accepts, over shapes of rank 0 to 4 with size-1 and zero-size dimensions, every
// single axis, several axes, negative axes and keep_dims both ways, against the reference
// executor; the reference's refusals; the structure the thesis' construction builds.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
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
using ::dfc::testing::TranslationMatchesReference;
using ::testing::HasSubstr;

// ---- inputs -------------------------------------------------------------------------------------

// Seeded random values: negative values and zeros; for floats now and then NaN or an infinity
// (when `specials`); integers now and then an extreme value, so that sums and products wrap.
Tensor RandomTensor(DType dtype, const Shape& shape, uint32_t seed, bool specials = true) {
  std::mt19937 rng(seed);
  Tensor t = Tensor::Zeros(dtype, shape);
  DispatchDType(dtype, [&]<typename T>() {
    T* out = t.mutable_data<T>();
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        out[i] = rng() % 3 != 0;
      } else if constexpr (std::is_same_v<T, Half> || std::is_floating_point_v<T>) {
        constexpr double kSpecial[] = {std::numeric_limits<double>::quiet_NaN(),
                                       std::numeric_limits<double>::infinity(),
                                       -std::numeric_limits<double>::infinity(), 0.0};
        double v = std::uniform_real_distribution<double>(-1.5, 1.5)(rng);
        if (rng() % 7 == 0) v = 0;
        if (specials && rng() % 11 == 0) v = kSpecial[rng() % 4];
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

std::string AxesName(const std::vector<int64_t>& axes) {
  if (axes.empty()) return "none";
  std::string out;
  for (int64_t a : axes)
    absl::StrAppend(&out, out.empty() ? "" : "_", a < 0 ? "m" : "", std::abs(a));
  return out;
}

const std::vector<Shape> kShapes = {{},        {1},          {5},          {0},         {2, 3},
                                    {3, 1},    {0, 3},       {1, 4},       {2, 3, 4},   {2, 0, 3},
                                    {3, 1, 2}, {2, 3, 1, 4}, {1, 2, 0, 2}, {2, 2, 2, 3}};

// Axes lists for a rank: none, each single axis (and its negative twin), all of them, and a
// few unordered pairs and triples with negative entries.
std::vector<std::vector<int64_t>> AxesFor(int rank) {
  std::vector<std::vector<int64_t>> out = {{}};
  for (int d = 0; d < rank; ++d) {
    out.push_back({d});
    out.push_back({d - rank});
  }
  if (rank >= 2) {
    std::vector<int64_t> all;
    for (int d = rank - 1; d >= 0; --d) all.push_back(d);
    out.push_back(all);
    out.push_back({-1, 0});
    out.push_back({rank - 2, rank - 1});
  }
  if (rank >= 3) out.push_back({0, -1});
  if (rank >= 4) {
    out.push_back({3, 1, 0});
    out.push_back({-3, -2});
  }
  return out;
}

// ---- Sum Mean Max Min Prod All Any ------------------------------------------------------------

struct ReduceCase {
  std::string op;
  DType dtype;
  Shape shape;
  std::vector<int64_t> axes;
  bool keep_dims;
  bool axes_int64;
  std::string name;
};

std::vector<ReduceCase> ReduceCases() {
  std::vector<ReduceCase> cases;
  auto add = [&](const std::string& op, DType d) {
    for (const Shape& shape : kShapes) {
      for (const std::vector<int64_t>& axes : AxesFor(static_cast<int>(shape.size()))) {
        for (bool keep : {false, true}) {
          const bool int64_axes = (axes.size() + shape.size()) % 2 == 1;
          cases.push_back({op, d, shape, axes, keep, int64_axes,
                           absl::StrCat(op, "_", DTypeName(d), "_", ShapeName(shape), "_axes_",
                                        AxesName(axes), keep ? "_keep" : "")});
        }
      }
    }
  };
  for (const char* op : {"Sum", "Mean", "Max", "Min", "Prod"}) {
    for (DType d : kNumeric) add(op, d);
  }
  for (const char* op : {"All", "Any"}) add(op, DType::kBool);
  return cases;
}

Tensor AxesTensor(const std::vector<int64_t>& axes, bool int64) {
  if (int64) return T1<int64_t>(axes);
  return T1<int32_t>(std::vector<int32_t>(axes.begin(), axes.end()));
}

class ReduceTest : public ::testing::TestWithParam<ReduceCase> {};

TEST_P(ReduceTest, MatchesReference) {
  const ReduceCase& c = GetParam();
  const Node node = MakeNode(c.op, {{"keep_dims", c.keep_dims}}, 2);
  const Tensor x = RandomTensor(c.dtype, c.shape, 7 + static_cast<uint32_t>(c.name.size()));
  EXPECT_TRUE(TranslationMatchesReference(node, {x, AxesTensor(c.axes, c.axes_int64)}));
}

INSTANTIATE_TEST_SUITE_P(All, ReduceTest, ::testing::ValuesIn(ReduceCases()),
                         [](const auto& info) { return info.param.name; });

// Integer reductions wrap, and Max / Min start from the dtype's extremes.
TEST(ReduceValuesTest, IntegerSumsAndProductsWrap) {
  const Tensor x = TN<int8_t>({100, 100, 100, -128, 127, 3}, {2, 3});
  for (const char* op : {"Sum", "Prod", "Mean", "Max", "Min"}) {
    for (int32_t axis : {0, 1}) {
      EXPECT_TRUE(TranslationMatchesReference(MakeNode(op, {}, 2), {x, T1<int32_t>({axis})})) << op;
    }
  }
  const Tensor big = TN<int64_t>({std::numeric_limits<int64_t>::max(), 5, 7, -3}, {4});
  for (const char* op : {"Sum", "Prod", "Mean"}) {
    EXPECT_TRUE(TranslationMatchesReference(MakeNode(op, {}, 2), {big, T1<int32_t>({0})})) << op;
  }
}

TEST(ReduceValuesTest, EmptyReductionsGiveTheIdentity) {
  for (DType d : kNumeric) {
    const Tensor x = Tensor::Zeros(d, {3, 0});
    for (const char* op : {"Sum", "Mean", "Max", "Min", "Prod"}) {
      EXPECT_TRUE(TranslationMatchesReference(MakeNode(op, {}, 2), {x, T1<int32_t>({1})}))
          << op << " " << DTypeName(d);
    }
  }
  const Tensor b = Tensor::Zeros(DType::kBool, {0, 2});
  for (const char* op : {"All", "Any"}) {
    EXPECT_TRUE(TranslationMatchesReference(MakeNode(op, {}, 2), {b, T1<int32_t>({0})}));
  }
}

TEST(ReduceValuesTest, MaxAndMinPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = TN<float>({1, nan, 3, -2, 5, nan, nan, 0, 1}, {3, 3});
  for (const char* op : {"Max", "Min"}) {
    for (int32_t axis : {0, 1}) {
      EXPECT_TRUE(TranslationMatchesReference(MakeNode(op, {}, 2), {x, T1<int32_t>({axis})}));
    }
  }
}

TEST(ReduceValuesTest, ScalarAxesInputIsOneAxis) {
  const Tensor x = RandomTensor(DType::kFloat, {2, 3}, 3);
  EXPECT_TRUE(
      TranslationMatchesReference(MakeNode("Sum", {}, 2), {x, Tensor::Scalar<int32_t>(-1)}));
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("Mean", {{"keep_dims", true}}, 2),
                                          {x, Tensor::Scalar<int64_t>(0)}));
}

// ---- refusals -------------------------------------------------------------------------------

// Translates `node` the way TranslationMatchesReference does and returns the translation's status.
absl::Status TranslateStatus(const Node& node, const std::vector<Tensor>& inputs) {
  const Translation* translation = FindTranslation(node.op);
  if (translation == nullptr) return absl::NotFoundError("no translation");
  std::vector<TensorInfo> infos(inputs.size());
  std::vector<TranslateInput> translate_inputs(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    infos[i] = ConstantInfo(inputs[i]);
    const bool is_static = std::count(translation->static_inputs.begin(),
                                      translation->static_inputs.end(), static_cast<int>(i)) > 0;
    translate_inputs[i] = {
        is_static ? nullptr
                  : MakeParam("in", TensorType(inputs[i].dtype(), ToSymbolic(inputs[i].shape()))),
        &infos[i]};
  }
  return TranslateNode(node, translate_inputs).status();
}

TEST(ReduceErrorTest, RefusesWhatTheReferenceRefuses) {
  const Tensor x = RandomTensor(DType::kFloat, {2, 3}, 1);
  const std::vector<std::pair<std::string, std::vector<Tensor>>> cases = {
      {"Sum", {x, T1<int32_t>({2})}},
      {"Max", {x, T1<int64_t>({-3})}},
      {"Sum", {x, T1<int32_t>({1, -1})}},
      {"Mean", {Tensor::Scalar<float>(1), T1<int32_t>({0})}},
      {"Sum", {T1<bool>({true}), T1<int32_t>({0})}},
      {"All", {x, T1<int32_t>({0})}},
      {"Sum", {T1<uint16_t>({1, 2}), T1<int32_t>({0})}},
      {"Sum", {x, TN<int32_t>({0, 1}, {1, 2})}},
      {"Sum", {x, T1<float>({0})}},
  };
  for (const auto& [op, inputs] : cases) {
    const Node node = MakeNode(op, {}, 2);
    EXPECT_FALSE(reference::EvaluateNode(node, inputs).ok()) << op;
    EXPECT_FALSE(TranslateStatus(node, inputs).ok()) << op;
    EXPECT_TRUE(TranslationMatchesReference(node, inputs)) << op;
  }
}

TEST(ReduceErrorTest, ErrorsNameTheNodeAndTheAxis) {
  absl::Status s = TranslateStatus(MakeNode("Sum", {}, 2),
                                   {RandomTensor(DType::kFloat, {2, 3}, 1), T1<int32_t>({2})});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("node \"node\""));
  EXPECT_THAT(std::string(s.message()), HasSubstr("axis 2"));
  s = TranslateStatus(MakeNode("Sum", {}, 2),
                      {RandomTensor(DType::kFloat, {2, 3}, 1), T1<int32_t>({0, -2})});
  EXPECT_THAT(std::string(s.message()), HasSubstr("more than once"));
}

// ---- structure ----------------------------------------------------------------------------------

absl::StatusOr<ExprPtr> TranslateOne(const Node& node, const ExprPtr& x, const Tensor& axes) {
  TensorInfo info = ConstantInfo(axes);
  std::vector<TranslateInput> inputs = {{x, nullptr}, {nullptr, &info}};
  DFC_ASSIGN_OR_RETURN(std::vector<ExprPtr> out, TranslateNode(node, inputs));
  return out[0];
}

int Count(const std::string& text, const std::string& word) {
  int n = 0;
  for (size_t p = text.find(word); p != std::string::npos; p = text.find(word, p + 1)) ++n;
  return n;
}

// Reducing dimension 0 of a [2,3,4] moves it innermost with two adjacent Transposes (the
// thesis' bubble sort) and folds it with one Reduce; nothing is copied.
TEST(ReduceStructureTest, ReducedDimensionMovesInnermost) {
  ParamPtr x = MakeParam("x", TensorType(DType::kFloat, {2, 3, 4}));
  absl::StatusOr<ExprPtr> out = TranslateOne(MakeNode("Sum", {}, 2), x, T1<int32_t>({0}));
  ASSERT_TRUE(out.ok()) << out.status();
  const std::string text = ToString(*out);
  EXPECT_EQ(Count(text, "Transpose"), 2) << text;
  EXPECT_EQ(Count(text, "Reduce"), 1) << text;
  EXPECT_TRUE(TypeEquals((*out)->type, TensorType(DType::kFloat, {3, 4})));
}

// Two reduced dimensions are joined into one line, and keep_dims puts size-1 dims back.
TEST(ReduceStructureTest, SeveralAxesAreJoinedAndKeepDimsRepeats) {
  ParamPtr x = MakeParam("x", TensorType(DType::kInt32, {2, 3, 4}));
  absl::StatusOr<ExprPtr> out =
      TranslateOne(MakeNode("Max", {{"keep_dims", true}}, 2), x, T1<int32_t>({2, 0}));
  ASSERT_TRUE(out.ok()) << out.status();
  const std::string text = ToString(*out);
  EXPECT_EQ(Count(text, "Join"), 1) << text;
  EXPECT_EQ(Count(text, "Reduce"), 1) << text;
  EXPECT_EQ(Count(text, "Repeat(1)"), 2) << text;
  EXPECT_TRUE(TypeEquals((*out)->type, TensorType(DType::kInt32, {1, 3, 1})));
}

TEST(ReduceStructureTest, EmptyAxesReturnTheInput) {
  ParamPtr x = MakeParam("x", TensorType(DType::kFloat, {2, 3}));
  absl::StatusOr<ExprPtr> out =
      TranslateOne(MakeNode("Sum", {{"keep_dims", true}}, 2), x, T1<int32_t>({}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->get(), x.get());
}

// Mean over a symbolic batch divides by the batch size, read from a view at run time.
TEST(ReduceStructureTest, MeanOverASymbolicBatch) {
  const ArithExpr n = ArithExpr::Var("N");
  for (DType d : {DType::kFloat, DType::kInt32, DType::kHalf}) {
    ParamPtr x = MakeParam("x", TensorType(d, {n, 3}));
    absl::StatusOr<ExprPtr> out = TranslateOne(MakeNode("Mean", {}, 2), x, T1<int32_t>({0}));
    ASSERT_TRUE(out.ok()) << out.status();
    for (int64_t batch : {0, 1, 5}) {
      const Tensor input = RandomTensor(d, {batch, 3}, 11, false);
      Interpreter interpreter({{"N", batch}});
      absl::StatusOr<Value> v = interpreter.Evaluate(*out, {{x.get(), ValueFromTensor(input)}});
      ASSERT_TRUE(v.ok()) << v.status();
      absl::StatusOr<Tensor> actual = TensorFromValue(*v, (*out)->type, {{"N", batch}});
      ASSERT_TRUE(actual.ok()) << actual.status();
      absl::StatusOr<std::vector<Tensor>> expected = reference::EvaluateNode(
          MakeNode("Mean", {}, 2), std::vector<Tensor>{input, T1<int32_t>({0})});
      ASSERT_TRUE(expected.ok()) << expected.status();
      const Comparison c = CompareTensors(*actual, (*expected)[0]);
      EXPECT_TRUE(c.equal) << DTypeName(d) << " N=" << batch << ": " << c.reason;
    }
  }
}

// ---- ArgMax ArgMin ------------------------------------------------------------------------------

struct ArgCase {
  std::string op;
  DType dtype;
  Shape shape;
  int64_t axis;
  DType output_type;
  std::string name;
};

std::vector<ArgCase> ArgCases() {
  const std::vector<Shape> shapes = {{1},    {6},       {0},       {3, 4},      {0, 4},
                                     {4, 1}, {2, 3, 4}, {2, 0, 3}, {2, 3, 1, 4}};
  std::vector<DType> dtypes = kNumeric;
  dtypes.push_back(DType::kBool);
  std::vector<ArgCase> cases;
  for (const char* op : {"ArgMax", "ArgMin"}) {
    for (DType d : dtypes) {
      for (const Shape& shape : shapes) {
        const int rank = static_cast<int>(shape.size());
        for (int64_t axis = -rank; axis < rank; ++axis) {
          const DType out = (axis + rank) % 2 == 0 ? DType::kInt64 : DType::kInt32;
          cases.push_back({op, d, shape, axis, out,
                           absl::StrCat(op, "_", DTypeName(d), "_", ShapeName(shape), "_axis_",
                                        axis < 0 ? "m" : "", std::abs(axis), "_", DTypeName(out))});
        }
      }
    }
  }
  return cases;
}

class ArgTest : public ::testing::TestWithParam<ArgCase> {};

TEST_P(ArgTest, MatchesReference) {
  const ArgCase& c = GetParam();
  const Node node = MakeNode(c.op, {{"output_type", c.output_type}}, 2);
  const Tensor x = RandomTensor(c.dtype, c.shape, 17 + static_cast<uint32_t>(c.name.size()));
  EXPECT_TRUE(TranslationMatchesReference(node, {x, Tensor::Scalar<int32_t>(c.axis)}));
}

INSTANTIATE_TEST_SUITE_P(All, ArgTest, ::testing::ValuesIn(ArgCases()),
                         [](const auto& info) { return info.param.name; });

TEST(ArgValuesTest, TiesNaNAndExtremes) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor x = TN<float>({nan, 1, 1, 0, -inf, -inf, nan, nan, 3, 3, nan, -inf}, {4, 3});
  for (const char* op : {"ArgMax", "ArgMin"}) {
    for (int32_t axis : {0, 1}) {
      EXPECT_TRUE(
          TranslationMatchesReference(MakeNode(op, {}, 2), {x, Tensor::Scalar<int32_t>(axis)}));
    }
  }
  const Tensor lowest = T1<int8_t>({3, -128, 0, -128, 127});
  for (const char* op : {"ArgMax", "ArgMin"}) {
    EXPECT_TRUE(
        TranslationMatchesReference(MakeNode(op, {}, 2), {lowest, Tensor::Scalar<int32_t>(0)}));
  }
  const Tensor half = ::dfc::testing::HalfTensor({-inf, -65504, 65504, inf}, {4});
  for (const char* op : {"ArgMax", "ArgMin"}) {
    EXPECT_TRUE(
        TranslationMatchesReference(MakeNode(op, {}, 2), {half, Tensor::Scalar<int32_t>(0)}));
  }
}

TEST(ArgErrorTest, RefusesWhatTheReferenceRefuses) {
  const Tensor x = RandomTensor(DType::kFloat, {2, 3}, 1);
  const std::vector<std::pair<Node, std::vector<Tensor>>> cases = {
      {MakeNode("ArgMax", {}, 2), {x, Tensor::Scalar<int32_t>(2)}},
      {MakeNode("ArgMin", {}, 2), {x, T1<int32_t>({0, 1})}},
      {MakeNode("ArgMax", {}, 2), {Tensor::Zeros(DType::kFloat, {2, 0}), T1<int32_t>({1})}},
      {MakeNode("ArgMax", {}, 2), {Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(0)}},
      {MakeNode("ArgMax", {{"output_type", DType::kInt16}}, 2), {x, Tensor::Scalar<int32_t>(0)}},
      {MakeNode("ArgMax", {}, 2), {T1<uint32_t>({1, 2}), Tensor::Scalar<int32_t>(0)}},
  };
  for (const auto& [node, inputs] : cases) {
    EXPECT_FALSE(reference::EvaluateNode(node, inputs).ok());
    EXPECT_FALSE(TranslateStatus(node, inputs).ok());
    EXPECT_TRUE(TranslationMatchesReference(node, inputs));
  }
}

// ---- Cumsum Cumprod -----------------------------------------------------------------------------

struct ScanCase {
  std::string op;
  DType dtype;
  Shape shape;
  int64_t axis;
  bool exclusive, reverse;
  std::string name;
};

std::vector<ScanCase> ScanCases() {
  const std::vector<Shape> shapes = {{1},    {7},       {0},       {3, 4},      {0, 2},
                                     {2, 1}, {2, 3, 4}, {2, 0, 3}, {2, 3, 1, 3}};
  std::vector<ScanCase> cases;
  for (const char* op : {"Cumsum", "Cumprod"}) {
    for (DType d : kNumeric) {
      for (const Shape& shape : shapes) {
        const int rank = static_cast<int>(shape.size());
        for (int64_t axis = -rank; axis < rank; ++axis) {
          for (int flags = 0; flags < 4; ++flags) {
            const bool exclusive = (flags & 1) != 0;
            const bool reverse = (flags & 2) != 0;
            cases.push_back(
                {op, d, shape, axis, exclusive, reverse,
                 absl::StrCat(op, "_", DTypeName(d), "_", ShapeName(shape), "_axis_",
                              axis < 0 ? "m" : "", std::abs(axis), exclusive ? "_exclusive" : "",
                              reverse ? "_reverse" : "")});
          }
        }
      }
    }
  }
  return cases;
}

class ScanTest : public ::testing::TestWithParam<ScanCase> {};

TEST_P(ScanTest, MatchesReference) {
  const ScanCase& c = GetParam();
  const Node node = MakeNode(c.op, {{"exclusive", c.exclusive}, {"reverse", c.reverse}}, 2);
  const Tensor x = RandomTensor(c.dtype, c.shape, 29 + static_cast<uint32_t>(c.name.size()));
  const Tensor axis = c.axis % 2 == 0 ? Tensor::Scalar<int32_t>(static_cast<int32_t>(c.axis))
                                      : Tensor::Scalar<int64_t>(c.axis);
  EXPECT_TRUE(TranslationMatchesReference(node, {x, axis}));
}

INSTANTIATE_TEST_SUITE_P(All, ScanTest, ::testing::ValuesIn(ScanCases()),
                         [](const auto& info) { return info.param.name; });

TEST(ScanErrorTest, RefusesWhatTheReferenceRefuses) {
  const Tensor x = RandomTensor(DType::kFloat, {2, 3}, 1);
  const std::vector<std::pair<std::string, std::vector<Tensor>>> cases = {
      {"Cumsum", {x, Tensor::Scalar<int32_t>(2)}},
      {"Cumsum", {Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(0)}},
      {"Cumprod", {T1<bool>({true, false}), Tensor::Scalar<int32_t>(0)}},
      {"Cumsum", {x, T1<int32_t>({0, 1})}},
  };
  for (const auto& [op, inputs] : cases) {
    const Node node = MakeNode(op, {}, 2);
    EXPECT_FALSE(reference::EvaluateNode(node, inputs).ok()) << op;
    EXPECT_FALSE(TranslateStatus(node, inputs).ok()) << op;
  }
}

// ---- L2Loss BiasAddGrad -------------------------------------------------------------------------

class L2LossTest : public ::testing::TestWithParam<std::tuple<DType, Shape>> {};

TEST_P(L2LossTest, MatchesReference) {
  const auto& [d, shape] = GetParam();
  EXPECT_TRUE(
      TranslationMatchesReference(MakeNode("L2Loss", {}, 1), {RandomTensor(d, shape, 5, false)}));
  EXPECT_TRUE(
      TranslationMatchesReference(MakeNode("L2Loss", {}, 1), {RandomTensor(d, shape, 6, true)}));
}

INSTANTIATE_TEST_SUITE_P(All, L2LossTest,
                         ::testing::Combine(::testing::Values(DType::kHalf, DType::kFloat,
                                                              DType::kDouble),
                                            ::testing::ValuesIn(kShapes)),
                         [](const auto& info) {
                           return absl::StrCat(DTypeName(std::get<0>(info.param)), "_",
                                               ShapeName(std::get<1>(info.param)));
                         });

TEST(L2LossErrorTest, IntegersAreRefused) {
  for (DType d : {DType::kInt32, DType::kInt64, DType::kUInt8, DType::kBool}) {
    const std::vector<Tensor> inputs = {RandomTensor(d, {3}, 1)};
    EXPECT_FALSE(TranslateStatus(MakeNode("L2Loss", {}, 1), inputs).ok()) << DTypeName(d);
    EXPECT_TRUE(TranslationMatchesReference(MakeNode("L2Loss", {}, 1), inputs));
  }
}

class BiasAddGradTest : public ::testing::TestWithParam<std::tuple<DType, Shape, std::string>> {};

TEST_P(BiasAddGradTest, MatchesReference) {
  const auto& [d, shape, format] = GetParam();
  const Node node = MakeNode("BiasAddGrad", {{"data_format", format}}, 1);
  EXPECT_TRUE(TranslationMatchesReference(node, {RandomTensor(d, shape, 9)}));
}

INSTANTIATE_TEST_SUITE_P(All, BiasAddGradTest,
                         ::testing::Combine(::testing::ValuesIn(kNumeric),
                                            ::testing::Values(Shape{2, 3}, Shape{1, 4}, Shape{0, 3},
                                                              Shape{3, 0}, Shape{2, 3, 4},
                                                              Shape{2, 0, 3}, Shape{2, 3, 2, 2}),
                                            ::testing::Values("NHWC", "NCHW")),
                         [](const auto& info) {
                           return absl::StrCat(DTypeName(std::get<0>(info.param)), "_",
                                               ShapeName(std::get<1>(info.param)), "_",
                                               std::get<2>(info.param));
                         });

TEST(BiasAddGradErrorTest, RefusesWhatTheReferenceRefuses) {
  const std::vector<std::pair<Node, Tensor>> cases = {
      {MakeNode("BiasAddGrad", {}, 1), RandomTensor(DType::kFloat, {3}, 1)},
      {MakeNode("BiasAddGrad", {{"data_format", std::string("NCDHW")}}, 1),
       RandomTensor(DType::kFloat, {2, 3}, 1)},
      {MakeNode("BiasAddGrad", {}, 1), RandomTensor(DType::kBool, {2, 3}, 1)},
  };
  for (const auto& [node, x] : cases) {
    EXPECT_FALSE(reference::EvaluateNode(node, std::vector<Tensor>{x}).ok());
    EXPECT_FALSE(TranslateStatus(node, {x}).ok());
  }
}

}  // namespace
}  // namespace dfc::ir
