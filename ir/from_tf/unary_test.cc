// Tests for the unary elementwise translations (unary.cc): every op against the reference
// executor on every dtype (the refused ones included: the translation must refuse them too), on
// a table of shapes, and the structure the thesis prescribes (one Map per dimension).
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "gmock/gmock.h"
#include "graph/dtype.h"
#include "graph/half.h"
#include "gtest/gtest.h"
#include "ir/expr.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/translate.h"
#include "ir/interpreter.h"
#include "ir/type.h"
#include "tests/test_util.h"
#include "tests/translate_testing.h"

namespace dfc::ir {
namespace {

using ::dfc::testing::MakeNode;
using ::dfc::testing::TranslationMatchesReference;
using ::testing::HasSubstr;

const std::vector<DType> kAllDTypes = {
    DType::kHalf,  DType::kFloat, DType::kDouble, DType::kInt8,   DType::kInt16,  DType::kInt32,
    DType::kInt64, DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64, DType::kBool};

// Ops whose only attribute is T (not needed by the reference nor the translation).
const std::vector<std::string> kSimpleOps = {"Abs",       "Neg",
                                             "Exp",       "Expm1",
                                             "Log",       "Log1p",
                                             "Sqrt",      "Rsqrt",
                                             "Square",    "Reciprocal",
                                             "Inv",       "Sign",
                                             "Floor",     "Ceil",
                                             "Round",     "Rint",
                                             "Sin",       "Cos",
                                             "Tan",       "Asin",
                                             "Acos",      "Atan",
                                             "Sinh",      "Cosh",
                                             "Tanh",      "Asinh",
                                             "Acosh",     "Atanh",
                                             "Sigmoid",   "Relu",
                                             "Relu6",     "Elu",
                                             "Selu",      "Softplus",
                                             "Softsign",  "LeakyRelu",
                                             "Erf",       "Erfc",
                                             "IsNan",     "IsInf",
                                             "IsFinite",  "LogicalNot",
                                             "Identity",  "StopGradient",
                                             "Snapshot",  "PreventGradient",
                                             "ZerosLike", "OnesLike",
                                             "Invert",    "PopulationCount",
                                             "Erfinv"};

const std::vector<Shape> kShapes = {{},        {1},       {0},    {7},          {2, 3},      {1, 1},
                                    {3, 0, 2}, {1, 4, 1}, {2, 0}, {2, 3, 1, 4}, {1, 2, 1, 3}};

std::string ShapeName(const Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string name;
  for (int64_t d : shape) name += (name.empty() ? "" : "x") + std::to_string(d);
  return name;
}

// Seeded values of `dtype` in `shape`: first the special values (that fit), then random ones.
// Floats get NaN, infinities, signed zeros and rounding ties; `wide` adds values out of the
// integer ranges for Cast. Integers get 0, 1, -1, the extremes, and values over their range.
Tensor MakeInput(DType dtype, const Shape& shape, uint32_t seed, bool wide = false) {
  Tensor t = Tensor::Zeros(dtype, shape);
  std::mt19937_64 rng(seed);
  const int64_t n = t.num_elements();
  DispatchDType(dtype, [&]<typename T>() {
    T* data = t.mutable_data<T>();
    if constexpr (std::is_same_v<T, bool>) {
      for (int64_t i = 0; i < n; ++i) data[i] = (rng() & 1) != 0;
    } else if constexpr (std::is_same_v<T, Half> || std::is_floating_point_v<T>) {
      std::vector<double> specials = {std::numeric_limits<double>::quiet_NaN(),
                                      std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity(),
                                      0.0,
                                      -0.0,
                                      0.5,
                                      1.5,
                                      2.5,
                                      -2.5,
                                      1.0,
                                      -1.0,
                                      6.0};
      if (wide) {
        specials.insert(specials.end(), {300.7, -1.0, -129.9, 3e9, -3e9, 2147483647.5, 1e19, -1e19,
                                         1e30, 65504.0, 70000.0, 1e-8, 1.00048828125,
                                         0.333333333333333, 255.9, -32769.0, 4294967296.0});
      }
      std::uniform_real_distribution<double> dist(wide ? -400.0 : -4.0, wide ? 400.0 : 4.0);
      for (int64_t i = 0; i < n; ++i) {
        const double v = i < static_cast<int64_t>(specials.size()) ? specials[i] : dist(rng);
        if constexpr (std::is_same_v<T, Half>) {
          data[i] = Half(static_cast<float>(v));
        } else {
          data[i] = static_cast<T>(v);
        }
      }
    } else {
      using L = std::numeric_limits<T>;
      const std::vector<T> specials = {T(0), T(1), static_cast<T>(-1), L::min(), L::max(),
                                       T(6), T(7), static_cast<T>(-7)};
      // (Distributions of 8-bit types are not portable: draw 64 bits and wrap.)
      std::uniform_int_distribution<uint64_t> dist;
      std::uniform_int_distribution<int> small(-10, 10);
      for (int64_t i = 0; i < n; ++i) {
        if (i < static_cast<int64_t>(specials.size())) {
          data[i] = specials[i];
        } else {
          data[i] = static_cast<T>(i % 2 == 0 ? static_cast<int64_t>(dist(rng)) : small(rng));
        }
      }
    }
  });
  return t;
}

uint32_t Seed(const std::string& text) {
  uint32_t h = 2166136261u;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

// --- every op on every dtype ------------------------------------------------------------------

class UnaryDTypeTest : public ::testing::TestWithParam<std::tuple<std::string, DType>> {};

TEST_P(UnaryDTypeTest, MatchesReference) {
  const auto& [op, dtype] = GetParam();
  const Tensor input = MakeInput(dtype, {3, 7}, Seed(op + std::string(DTypeName(dtype))));
  EXPECT_TRUE(TranslationMatchesReference(MakeNode(op, {}, 1), {input}));
}

INSTANTIATE_TEST_SUITE_P(Ops, UnaryDTypeTest,
                         ::testing::Combine(::testing::ValuesIn(kSimpleOps),
                                            ::testing::ValuesIn(kAllDTypes)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" +
                                  std::string(DTypeName(std::get<1>(info.param)));
                         });

// --- every op on every shape --------------------------------------------------------------------

// The dtypes an op's shape sweep runs on: one floating, one integer where the op takes them.
std::vector<DType> ShapeSweepDTypes(const std::string& op) {
  if (op == "LogicalNot") return {DType::kBool};
  return {DType::kFloat, DType::kHalf, DType::kInt32};
}

class UnaryShapeTest : public ::testing::TestWithParam<std::tuple<std::string, Shape>> {};

TEST_P(UnaryShapeTest, MatchesReference) {
  const auto& [op, shape] = GetParam();
  for (DType dtype : ShapeSweepDTypes(op)) {
    SCOPED_TRACE(DTypeName(dtype));
    const Tensor input = MakeInput(dtype, shape, Seed(op + ShapeName(shape)));
    EXPECT_TRUE(TranslationMatchesReference(MakeNode(op, {}, 1), {input}));
  }
}

INSTANTIATE_TEST_SUITE_P(Ops, UnaryShapeTest,
                         ::testing::Combine(::testing::ValuesIn(kSimpleOps),
                                            ::testing::ValuesIn(kShapes)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" +
                                  ShapeName(std::get<1>(info.param));
                         });

// Integer Reciprocal without a zero computes (1, -1 or 0); with a zero both refuse (above).
TEST(UnaryTest, IntegerReciprocalWithoutZero) {
  for (DType dtype : {DType::kInt8, DType::kInt32, DType::kInt64, DType::kUInt8, DType::kUInt64}) {
    SCOPED_TRACE(DTypeName(dtype));
    Tensor input = MakeInput(dtype, {4, 5}, 7);
    DispatchDType(dtype, [&]<typename T>() {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        for (T& v : input.mutable_flat<T>()) {
          if (v == T(0)) v = T(1);
        }
      }
    });
    EXPECT_TRUE(TranslationMatchesReference(MakeNode("Reciprocal", {}, 1), {input}));
    EXPECT_TRUE(TranslationMatchesReference(MakeNode("Inv", {}, 1), {input}));
  }
}

// --- LeakyRelu's alpha ------------------------------------------------------------------------

class LeakyReluTest : public ::testing::TestWithParam<std::tuple<float, DType>> {};

TEST_P(LeakyReluTest, MatchesReference) {
  const auto& [alpha, dtype] = GetParam();
  const Tensor input = MakeInput(dtype, {5, 6}, 11);
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("LeakyRelu", {{"alpha", alpha}}, 1), {input}));
}

INSTANTIATE_TEST_SUITE_P(Alphas, LeakyReluTest,
                         ::testing::Combine(::testing::Values(0.2f, 0.1f, 0.01f, -0.3f, 1.7f, 0.0f),
                                            ::testing::Values(DType::kHalf, DType::kFloat,
                                                              DType::kDouble)));

// --- Cast between every pair of dtypes, with and without Truncate --------------------------------

class CastTest : public ::testing::TestWithParam<std::tuple<DType, DType, bool>> {};

TEST_P(CastTest, MatchesReference) {
  const auto& [from, to, truncate] = GetParam();
  const Tensor input = MakeInput(from, {4, 9}, Seed(std::string(DTypeName(from))), true);
  const Node node = MakeNode("Cast", {{"SrcT", from}, {"DstT", to}, {"Truncate", truncate}}, 1);
  EXPECT_TRUE(TranslationMatchesReference(node, {input}));
  // Many random values, for the roundings (float16's especially).
  const Tensor many = MakeInput(from, {300}, 99);
  EXPECT_TRUE(TranslationMatchesReference(node, {many}));
}

INSTANTIATE_TEST_SUITE_P(Pairs, CastTest,
                         ::testing::Combine(::testing::ValuesIn(kAllDTypes),
                                            ::testing::ValuesIn(kAllDTypes), ::testing::Bool()),
                         [](const auto& info) {
                           return std::string(DTypeName(std::get<0>(info.param))) + "_to_" +
                                  std::string(DTypeName(std::get<1>(info.param))) +
                                  (std::get<2>(info.param) ? "_truncate" : "");
                         });

class CastShapeTest : public ::testing::TestWithParam<Shape> {};

TEST_P(CastShapeTest, MatchesReference) {
  for (auto [from, to] :
       {std::pair{DType::kFloat, DType::kInt32}, std::pair{DType::kInt64, DType::kHalf},
        std::pair{DType::kBool, DType::kFloat}}) {
    SCOPED_TRACE(std::string(DTypeName(from)) + " to " + std::string(DTypeName(to)));
    const Node node = MakeNode("Cast", {{"SrcT", from}, {"DstT", to}}, 1);
    EXPECT_TRUE(TranslationMatchesReference(node, {MakeInput(from, GetParam(), 5, true)}));
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, CastShapeTest, ::testing::ValuesIn(kShapes),
                         [](const auto& info) { return ShapeName(info.param); });

// Cast's exact conversion rules, on values chosen for them (not recomputed by a formula).
TEST(CastRulesTest, FloatToIntegerEdges) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor input =
      Tensor::FromVector<float>({nan, 3e9f, -3e9f, 300.7f, -1.0f, -2.9f, 2.9f}, {7});
  const Node to_int32 = MakeNode("Cast", {{"SrcT", DType::kFloat}, {"DstT", DType::kInt32}}, 1);
  const Node to_int8 = MakeNode("Cast", {{"SrcT", DType::kFloat}, {"DstT", DType::kInt8}}, 1);
  const Node to_uint8 = MakeNode("Cast", {{"SrcT", DType::kFloat}, {"DstT", DType::kUInt8}}, 1);
  EXPECT_TRUE(TranslationMatchesReference(to_int32, {input}));
  EXPECT_TRUE(TranslationMatchesReference(to_int8, {input}));
  EXPECT_TRUE(TranslationMatchesReference(to_uint8, {input}));

  // The host twin on its own: NaN and out-of-range give INT_MIN; int8 keeps its low bits.
  const FunPtr f = CastFun(DType::kFloat, DType::kInt32);
  const auto& user = static_cast<const UserFun&>(*f);
  const Scalar n = Scalar::Float(DType::kFloat, nan);
  EXPECT_EQ(user.host(std::span<const Scalar>(&n, 1))->i, std::numeric_limits<int32_t>::min());
  const FunPtr g = CastFun(DType::kFloat, DType::kInt8);
  const Scalar v = Scalar::Float(DType::kFloat, 300.7);
  EXPECT_EQ(static_cast<const UserFun&>(*g).host(std::span<const Scalar>(&v, 1))->i, 44);
}

TEST(CastRulesTest, TruncateRoundsTowardZero) {
  // 1 + 2^-11 + 2^-12 rounds up to 1 + 2^-10 as float16, and truncates to 1.
  const Tensor input = Tensor::FromVector<float>({1.0f + 0x1.8p-11f}, {1});
  const FunPtr f = CastFun(DType::kFloat, DType::kHalf, /*truncate=*/true);
  const Scalar x = Scalar::Float(DType::kFloat, 1.0 + 0x1.8p-11);
  EXPECT_EQ(static_cast<const UserFun&>(*f).host(std::span<const Scalar>(&x, 1))->f, 1.0);
  const FunPtr g = CastFun(DType::kFloat, DType::kHalf);
  EXPECT_EQ(static_cast<const UserFun&>(*g).host(std::span<const Scalar>(&x, 1))->f, 1.0 + 0x1p-10);
  EXPECT_THAT(static_cast<const UserFun&>(*f).name, "cast_float32_to_float16_truncate");
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Cast", {{"SrcT", DType::kFloat}, {"DstT", DType::kHalf}, {"Truncate", true}}, 1),
      {input}));
}

// --- errors
// ---------------------------------------------------------------------------------------

std::vector<TranslateInput> ParamInput(DType dtype, const SymbolicShape& shape) {
  return {TranslateInput{MakeParam("x", TensorType(dtype, shape)), nullptr}};
}

TEST(UnaryErrorTest, RefusedDTypeNamesTheNodeAndTheDTypes) {
  const Node node = MakeNode("Exp", {}, 1);
  const auto inputs = ParamInput(DType::kInt32, {ArithExpr(4)});
  absl::StatusOr<std::vector<ExprPtr>> out = TranslateNode(node, inputs);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("node \"node\""));
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("Exp is not defined for dtype int32 (expected one of float16, float32"));
}

TEST(UnaryErrorTest, CastChecksSrcTAndDstT) {
  const auto inputs = ParamInput(DType::kFloat, {ArithExpr(4)});
  absl::StatusOr<std::vector<ExprPtr>> wrong_src = TranslateNode(
      MakeNode("Cast", {{"SrcT", DType::kInt32}, {"DstT", DType::kFloat}}, 1), inputs);
  ASSERT_FALSE(wrong_src.ok());
  EXPECT_THAT(std::string(wrong_src.status().message()),
              HasSubstr("SrcT is int32 but the input is float32"));
  absl::StatusOr<std::vector<ExprPtr>> to_string = TranslateNode(
      MakeNode("Cast", {{"SrcT", DType::kFloat}, {"DstT", DType::kString}}, 1), inputs);
  ASSERT_FALSE(to_string.ok());
  EXPECT_THAT(std::string(to_string.status().message()), HasSubstr("cannot cast to DstT"));
  absl::StatusOr<std::vector<ExprPtr>> no_dst =
      TranslateNode(MakeNode("Cast", {{"SrcT", DType::kFloat}}, 1), inputs);
  EXPECT_FALSE(no_dst.ok());

  // The same nodes against the reference: both refuse.
  const Tensor x = MakeInput(DType::kFloat, {4}, 3);
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Cast", {{"SrcT", DType::kInt32}, {"DstT", DType::kFloat}}, 1), {x}));
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Cast", {{"SrcT", DType::kFloat}, {"DstT", DType::kString}}, 1), {x}));
}

// --- structure
// --------------------------------------------------------------------------------------

// Counts the Maps from the root down the chain of first arguments' functions.
int MapDepth(const ExprPtr& e) {
  int depth = 0;
  ExprPtr cur = e;
  while (cur->kind == Expr::Kind::kFunCall) {
    const auto& call = static_cast<const FunCall&>(*cur);
    if (!IsMap(call.f->kind)) break;
    ++depth;
    const auto& map = As<FunPattern>(*call.f);
    if (map.f->kind != Fun::Kind::kLambda) break;
    cur = static_cast<const Lambda&>(*map.f).body;
  }
  return depth;
}

TEST(UnaryStructureTest, OneMapPerDimensionOnASymbolicBatch) {
  const ArithExpr n = ArithExpr::Var("N");
  const auto inputs = ParamInput(DType::kFloat, {n, ArithExpr(784)});
  absl::StatusOr<std::vector<ExprPtr>> out = TranslateNode(MakeNode("Tanh", {}, 1), inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_TRUE(TypeEquals((*out)[0]->type, TensorType(DType::kFloat, {n, ArithExpr(784)})));
  EXPECT_EQ(MapDepth((*out)[0]), 2);

  absl::StatusOr<std::vector<ExprPtr>> pred = TranslateNode(MakeNode("IsNan", {}, 1), inputs);
  ASSERT_TRUE(pred.ok()) << pred.status();
  EXPECT_TRUE(TypeEquals((*pred)[0]->type, TensorType(DType::kBool, {n, ArithExpr(784)})));
}

TEST(UnaryStructureTest, PassThroughIsTheInputItself) {
  const auto inputs = ParamInput(DType::kInt64, {ArithExpr(3), ArithExpr(2)});
  for (const char* op : {"Identity", "StopGradient", "Snapshot", "PreventGradient"}) {
    absl::StatusOr<std::vector<ExprPtr>> out = TranslateNode(MakeNode(op, {}, 1), inputs);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0], inputs[0].value) << op;
  }
  absl::StatusOr<std::vector<ExprPtr>> cast = TranslateNode(
      MakeNode("Cast", {{"SrcT", DType::kInt64}, {"DstT", DType::kInt64}}, 1), inputs);
  ASSERT_TRUE(cast.ok()) << cast.status();
  EXPECT_EQ((*cast)[0], inputs[0].value);
}

TEST(UnaryStructureTest, OnesLikeOnASymbolicShape) {
  const ArithExpr n = ArithExpr::Var("N");
  const auto inputs = ParamInput(DType::kHalf, {n, ArithExpr(3)});
  absl::StatusOr<std::vector<ExprPtr>> out = TranslateNode(MakeNode("OnesLike", {}, 1), inputs);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TypeEquals((*out)[0]->type, TensorType(DType::kHalf, {n, ArithExpr(3)})));
  Interpreter interpreter({{"N", 2}});
  absl::StatusOr<Value> value = interpreter.Evaluate((*out)[0]);
  ASSERT_TRUE(value.ok()) << value.status();
  const Value one = Value::Of(Scalar::Float(DType::kHalf, 1.0));
  const Value row = Value::Array({one, one, one});
  EXPECT_EQ(*value, Value::Array({row, row}));
}

// --- helpers of scalar_funs.h
// ---------------------------------------------------------------------

TEST(ScalarFunsTest, LiteralsReadBackExactly) {
  EXPECT_EQ(FloatLiteral(DType::kFloat, 1.0), "1.0f");
  EXPECT_EQ(FloatLiteral(DType::kHalf, 0.5), "0.5f");
  EXPECT_EQ(FloatLiteral(DType::kDouble, 2.0), "2.0");
  EXPECT_EQ(FloatLiteral(DType::kFloat, 1e30), "1.00000002e+30f");
  EXPECT_EQ(FloatLiteral(DType::kDouble, -std::numeric_limits<double>::infinity()), "-INFINITY");
  EXPECT_EQ(FloatLiteral(DType::kFloat, std::nan("")), "NAN");
  EXPECT_EQ(OpenCLType(DType::kHalf), "float");
  EXPECT_EQ(OpenCLType(DType::kBool), "uchar");
  EXPECT_EQ(OpenCLType(DType::kUInt64), "ulong");
}

TEST(ScalarFunsTest, CastBodies) {
  const auto body = [](DType from, DType to, bool truncate = false) {
    return static_cast<const UserFun&>(*CastFun(from, to, truncate)).body;
  };
  EXPECT_EQ(body(DType::kInt32, DType::kFloat), "return (float)x;");
  EXPECT_EQ(body(DType::kFloat, DType::kBool), "return x != 0 ? 1 : 0;");
  EXPECT_EQ(body(DType::kFloat, DType::kInt32),
            "return (x >= -2.14748365e+09f && x < 2.14748365e+09f) ? (int)x : INT_MIN;");
  EXPECT_THAT(body(DType::kDouble, DType::kFloat, true),
              HasSubstr("as_double(as_ulong(x) & 0xffffffffe0000000ul)"));
}

}  // namespace
}  // namespace dfc::ir
