// Tests for broadcasting in the IR (broadcast.h) and the binary elementwise translations
// (binary.cc): every op on every dtype and broadcast pattern against the reference executor,
// the structure broadcasting builds, and the reference's refusals.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "graph/dtype.h"
#include "graph/half.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "ir/expr.h"
#include "ir/from_tf/broadcast.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"
#include "ir/interpreter.h"
#include "ir/printer.h"
#include "tests/test_util.h"
#include "tests/translate_testing.h"

namespace dfc::ir {
namespace {

using ::dfc::testing::MakeNode;
using ::dfc::testing::TN;
using ::dfc::testing::TranslationMatchesReference;
using ::testing::HasSubstr;

// ---- random inputs ------------------------------------------------------------------------------

// What values an input holds: anything (negative values, zeros, and for floats NaN and the
// infinities), no integer zeros (divisors), or small non-negative integers (exponents).
enum class Fill { kAny, kNonzero, kExponent };

Tensor RandomTensor(DType dtype, const Shape& shape, uint32_t seed, Fill values = Fill::kAny) {
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
                                       -std::numeric_limits<double>::infinity(), 0.0, -0.0};
        double v = std::uniform_real_distribution<double>(-5, 5)(rng);
        if (values == Fill::kExponent) v = std::round(v);
        if (values == Fill::kAny && rng() % 8 == 0) v = kSpecial[rng() % 5];
        out[i] = static_cast<T>(static_cast<float>(v));
        if constexpr (std::is_same_v<T, double>) out[i] = v;
      } else {
        const int64_t lo = std::is_signed_v<T> ? -12 : 0;
        int64_t v = std::uniform_int_distribution<int64_t>(lo, 12)(rng);
        if (values == Fill::kExponent) v = std::abs(v) % 6;
        if (values == Fill::kNonzero && v == 0) v = 3;
        // Now and then an extreme value, to see integer arithmetic wrap.
        if (values == Fill::kAny && rng() % 10 == 0) {
          v = rng() % 2 == 0 ? static_cast<int64_t>(std::numeric_limits<T>::max())
                             : static_cast<int64_t>(std::numeric_limits<T>::min());
        }
        out[i] = static_cast<T>(v);
      }
    }
  });
  return t;
}

const std::vector<DType> kAllDTypes = {
    DType::kHalf,  DType::kFloat, DType::kDouble, DType::kInt8,   DType::kInt16,  DType::kInt32,
    DType::kInt64, DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64, DType::kBool};

std::string ParamName(DType d) { return std::string(DTypeName(d)); }

// ---- BroadcastShape -----------------------------------------------------------------------------

struct ShapeCase {
  SymbolicShape a, b, expected;
};

class BroadcastShapeTest : public ::testing::TestWithParam<ShapeCase> {};

TEST_P(BroadcastShapeTest, MatchesNumPyBothWays) {
  const ShapeCase& c = GetParam();
  absl::StatusOr<SymbolicShape> ab = BroadcastShape(c.a, c.b);
  absl::StatusOr<SymbolicShape> ba = BroadcastShape(c.b, c.a);
  ASSERT_TRUE(ab.ok()) << ab.status();
  ASSERT_TRUE(ba.ok()) << ba.status();
  EXPECT_EQ(ShapeToString(*ab), ShapeToString(c.expected));
  EXPECT_EQ(ShapeToString(*ba), ShapeToString(c.expected));
}

const ArithExpr kN = ArithExpr::Var("N");
const ArithExpr kM = ArithExpr::Var("M");

INSTANTIATE_TEST_SUITE_P(
    Shapes, BroadcastShapeTest,
    ::testing::Values(ShapeCase{{2, 3}, {2, 3}, {2, 3}}, ShapeCase{{2, 3}, {3}, {2, 3}},
                      ShapeCase{{2, 1}, {1, 3}, {2, 3}}, ShapeCase{{}, {4}, {4}},
                      ShapeCase{{}, {}, {}}, ShapeCase{{5, 1, 4}, {3, 1}, {5, 3, 4}},
                      ShapeCase{{0, 1}, {1, 3}, {0, 3}}, ShapeCase{{1}, {0}, {0}},
                      ShapeCase{{kN, 784}, {784}, {kN, 784}}, ShapeCase{{kN, 1}, {1, kM}, {kN, kM}},
                      ShapeCase{{kN * 4, 3}, {4 * kN, 1}, {kN * 4, 3}}, ShapeCase{{kN}, {}, {kN}}));

TEST(BroadcastShapeErrorTest, IncompatibleShapesNameBoth) {
  absl::StatusOr<SymbolicShape> s = BroadcastShape({2, 3}, {4});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()),
              HasSubstr("incompatible shapes [2,3] and [4] (dimension 3 against 4"));
}

TEST(BroadcastShapeErrorTest, SymbolicSizesMustBeProvablyEqual) {
  EXPECT_FALSE(BroadcastShape({kN}, {kM}).ok());
  EXPECT_FALSE(BroadcastShape({kN, 3}, {5, 3}).ok());
  absl::StatusOr<SymbolicShape> s = BroadcastShape({kN, 3}, {kN + 1, 3});
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("[N,3] and [N + 1,3]"));
}

// ---- BroadcastScalars ---------------------------------------------------------------------------

FunPtr AddFloat() {
  return MakeUserFun("add_float32", {"x", "y"}, "return x + y;", {DType::kFloat, DType::kFloat},
                     DType::kFloat, [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       return Scalar::Float(
                           DType::kFloat, static_cast<float>(a[0].f) + static_cast<float>(a[1].f));
                     });
}

absl::StatusOr<ExprPtr> AddBroadcast(const ExprPtr& a, const ExprPtr& b) {
  const FunPtr add = AddFloat();
  return BroadcastScalars({a, b}, [&](std::span<const ExprPtr> s) {
    return Call(add, {s[0], s[1]});
  });
}

ParamPtr FloatParam(absl::string_view name, const SymbolicShape& shape) {
  return MakeParam(name, TensorType(DType::kFloat, shape));
}

struct SymbolicCase {
  SymbolicShape a, b, expected;
};

class BroadcastScalarsSymbolicTest : public ::testing::TestWithParam<SymbolicCase> {};

TEST_P(BroadcastScalarsSymbolicTest, ResultHasTheBroadcastType) {
  const SymbolicCase& c = GetParam();
  absl::StatusOr<ExprPtr> out = AddBroadcast(FloatParam("a", c.a), FloatParam("b", c.b));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TypeEquals((*out)->type, TensorType(DType::kFloat, c.expected)))
      << TypeToString((*out)->type) << "\n"
      << ToString(*out);
}

INSTANTIATE_TEST_SUITE_P(Symbolic, BroadcastScalarsSymbolicTest,
                         ::testing::Values(SymbolicCase{{kN, 784}, {kN, 784}, {kN, 784}},
                                           SymbolicCase{{kN, 784}, {784}, {kN, 784}},
                                           SymbolicCase{{784}, {kN, 784}, {kN, 784}},
                                           SymbolicCase{{kN, 1}, {1, 10}, {kN, 10}},
                                           SymbolicCase{{kN, 1, kM}, {5, 1}, {kN, 5, kM}},
                                           SymbolicCase{{kN * 784}, {784 * kN}, {kN * 784}},
                                           SymbolicCase{{}, {kN, kM}, {kN, kM}},
                                           SymbolicCase{{1}, {kN}, {kN}}));

TEST(BroadcastScalarsTest, SymbolicMismatchIsAnError) {
  absl::StatusOr<ExprPtr> out = AddBroadcast(FloatParam("a", {kN, 3}), FloatParam("b", {kM, 3}));
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("incompatible shapes [N,3] and [M,3]"));
}

TEST(BroadcastScalarsTest, IncompatibleShapesNameBoth) {
  absl::StatusOr<ExprPtr> out = AddBroadcast(FloatParam("a", {2, 3}), FloatParam("b", {4}));
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("incompatible shapes [2,3] and [4]"));
}

TEST(BroadcastScalarsTest, NoBroadcastIsZipScalars) {
  ParamPtr a = FloatParam("a", {kN, 3});
  ParamPtr b = FloatParam("b", {kN, 3});
  const FunPtr add = AddFloat();
  const ScalarsFn f = [&](std::span<const ExprPtr> s) { return Call(add, {s[0], s[1]}); };
  absl::StatusOr<ExprPtr> out = BroadcastScalars({a, b}, f);
  absl::StatusOr<ExprPtr> zipped = ZipScalars({a, b}, f);
  ASSERT_TRUE(out.ok() && zipped.ok());
  EXPECT_TRUE(ExprEquals(*out, *zipped)) << ToString(*out);
}

// broadcastRight: Map(λ(row) => <row zipped with b>) $ a, b captured, never zipped with a.
TEST(BroadcastScalarsTest, LowerRankOperandIsCapturedByTheMap) {
  ParamPtr a = FloatParam("a", {kN, 3});
  ParamPtr b = FloatParam("b", {3});
  for (bool right : {true, false}) {
    absl::StatusOr<ExprPtr> out = right ? AddBroadcast(a, b) : AddBroadcast(b, a);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ((*out)->kind, Expr::Kind::kFunCall);
    const auto& call = static_cast<const FunCall&>(**out);
    EXPECT_EQ(call.f->kind, Fun::Kind::kMap) << ToString(*out);
    ASSERT_EQ(call.args.size(), 1u);
    EXPECT_EQ(call.args[0], a) << "the outer Map runs over a itself: " << ToString(*out);
  }
}

// A size-1 dimension is read through At, a view: no Repeat copies, and f runs once per
// element of the result.
TEST(BroadcastScalarsTest, SizeOneDimensionsAreViewsAndFRunsOncePerElement) {
  ParamPtr a = FloatParam("a", {3, 1});
  ParamPtr b = FloatParam("b", {1, 4});
  absl::StatusOr<ExprPtr> out = AddBroadcast(a, b);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(ToString(*out), HasSubstr("At"));
  const Tensor ta = RandomTensor(DType::kFloat, {3, 1}, 1);
  const Tensor tb = RandomTensor(DType::kFloat, {1, 4}, 2);
  Interpreter interpreter;
  absl::StatusOr<Value> v =
      interpreter.Evaluate(*out, {{a.get(), ValueFromTensor(ta)}, {b.get(), ValueFromTensor(tb)}});
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(interpreter.calls().at("add_float32"), 12);
  absl::StatusOr<Tensor> t = TensorFromValue(*v, (*out)->type, {});
  ASSERT_TRUE(t.ok()) << t.status();
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      EXPECT_EQ(t->data<float>()[i * 4 + j], ta.data<float>()[i] + tb.data<float>()[j]);
    }
  }
}

TEST(BroadcastScalarsTest, ThreeOperandsAndSymbolicSizesEvaluate) {
  ParamPtr c = MakeParam("c", TensorType(DType::kBool, {kN, 1}));
  ParamPtr t = FloatParam("t", {3});
  ParamPtr e = FloatParam("e", {});
  absl::StatusOr<ExprPtr> out =
      BroadcastScalars({c, t, e}, [](std::span<const ExprPtr> s) -> absl::StatusOr<ExprPtr> {
        FunPtr select = MakeUserFun("select_float32", {"c", "t", "e"}, "return c ? t : e;",
                                    {DType::kBool, DType::kFloat, DType::kFloat}, DType::kFloat,
                                    [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                                      return a[0].AsBool() ? a[1] : a[2];
                                    });
        return Call(select, {s[0], s[1], s[2]});
      });
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TypeEquals((*out)->type, TensorType(DType::kFloat, {kN, 3})));
  Interpreter interpreter({{"N", 2}});
  absl::StatusOr<Value> v =
      interpreter.Evaluate(*out, {{c.get(), ValueFromTensor(TN<bool>({true, false}, {2, 1}))},
                                  {t.get(), ValueFromTensor(TN<float>({1, 2, 3}, {3}))},
                                  {e.get(), ValueFromTensor(Tensor::Scalar<float>(9))}});
  ASSERT_TRUE(v.ok()) << v.status();
  absl::StatusOr<Tensor> r = TensorFromValue(*v, (*out)->type, {{"N", 2}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(testing::Values<float>(*r), (std::vector<float>{1, 2, 3, 9, 9, 9}));
}

// ---- every broadcasting op, every dtype, every broadcast pattern --------------------------------

const char* const kBroadcastOps[] = {"Add",       "AddV2",      "Sub",          "Mul",
                                     "Div",       "RealDiv",    "DivNoNan",     "FloorDiv",
                                     "FloorMod",  "Mod",        "TruncateDiv",  "TruncateMod",
                                     "Maximum",   "Minimum",    "Pow",          "SquaredDifference",
                                     "Atan2",     "Equal",      "NotEqual",     "Less",
                                     "LessEqual", "Greater",    "GreaterEqual", "LogicalAnd",
                                     "LogicalOr", "BitwiseAnd", "BitwiseOr",    "BitwiseXor",
                                     "LeftShift", "RightShift"};

struct ShapePair {
  Shape a, b;
};

// Equal shapes, scalars both ways, rank differences of 1 and 2 both ways, size-1 dimensions in
// either operand, zero-size dimensions, ranks 1 to 4, and one pair that does not broadcast.
const std::vector<ShapePair> kShapePairs = {
    {{}, {}},
    {{5}, {5}},
    {{2, 3}, {2, 3}},
    {{2, 1, 3, 2}, {2, 1, 3, 2}},
    {{}, {4}},
    {{2, 3}, {}},
    {{2, 3}, {3}},
    {{3}, {2, 3}},
    {{2, 3, 4}, {4}},
    {{4}, {2, 3, 4}},
    {{2, 3, 4}, {3, 4}},
    {{3, 4}, {2, 3, 4}},
    {{3, 1}, {1, 4}},
    {{1, 4}, {3, 1}},
    {{2, 1, 4}, {3, 1}},
    {{3, 1}, {2, 1, 4}},
    {{2, 3, 4, 5}, {2, 1, 4, 1}},
    {{1, 1}, {2, 3}},
    {{1}, {2, 3}},
    {{0, 3}, {3}},
    {{3}, {0, 3}},
    {{0}, {1}},
    {{1}, {0}},
    {{0, 1}, {1, 3}},
    {{2, 3}, {4}},  // incompatible: both refuse
};

// Divisors are nonzero and exponents small and non-negative, so that integer ops compute
// (refusals are tested on their own below).
Fill SecondOperandValues(absl::string_view op) {
  if (op == "Pow") return Fill::kExponent;
  for (absl::string_view div :
       {"Div", "FloorDiv", "FloorMod", "Mod", "TruncateDiv", "TruncateMod"}) {
    if (op == div) return Fill::kNonzero;
  }
  return Fill::kAny;
}

class BroadcastOpTest : public ::testing::TestWithParam<std::tuple<const char*, DType>> {};

TEST_P(BroadcastOpTest, MatchesReference) {
  const auto [op, dtype] = GetParam();
  const Node node = MakeNode(op, {}, 2);
  uint32_t seed = 1;
  for (const ShapePair& p : kShapePairs) {
    const Tensor a = RandomTensor(dtype, p.a, seed++);
    const Tensor b = RandomTensor(dtype, p.b, seed++, SecondOperandValues(op));
    EXPECT_TRUE(TranslationMatchesReference(node, {a, b}))
        << op << " " << a.DebugType() << " with " << b.DebugType();
  }
}

INSTANTIATE_TEST_SUITE_P(AllOps, BroadcastOpTest,
                         ::testing::Combine(::testing::ValuesIn(kBroadcastOps),
                                            ::testing::ValuesIn(kAllDTypes)),
                         [](const auto& info) {
                           return absl::StrCat(std::get<0>(info.param), "_",
                                               ParamName(std::get<1>(info.param)));
                         });

TEST(BroadcastOpErrorTest, MixedDTypesAreRefused) {
  const Node node = MakeNode("Add", {}, 2);
  EXPECT_TRUE(TranslationMatchesReference(
      node, {RandomTensor(DType::kFloat, {2}, 1), RandomTensor(DType::kInt32, {2}, 2)}));
  absl::StatusOr<std::vector<ExprPtr>> translated = TranslateNode(
      node, std::vector<TranslateInput>{{FloatParam("a", {2}), nullptr},
                                        {MakeParam("b", TensorType(DType::kInt32, {2})), nullptr}});
  ASSERT_FALSE(translated.ok());
  EXPECT_THAT(std::string(translated.status().message()), HasSubstr("must have the same dtype"));
}

TEST(BroadcastOpErrorTest, IncompatibleShapesNameTheNode) {
  const Node node = MakeNode("Mul", {}, 2);
  absl::StatusOr<std::vector<ExprPtr>> translated =
      TranslateNode(node, std::vector<TranslateInput>{{FloatParam("a", {2, 3}), nullptr},
                                                      {FloatParam("b", {4}), nullptr}});
  ASSERT_FALSE(translated.ok());
  EXPECT_THAT(std::string(translated.status().message()),
              HasSubstr("node \"node\" (Mul): incompatible shapes [2,3] and [4]"));
}

TEST(BroadcastOpErrorTest, UnsupportedDTypeNamesTheAllowedOnes) {
  const Node node = MakeNode("RealDiv", {}, 2);
  absl::StatusOr<std::vector<ExprPtr>> translated = TranslateNode(
      node, std::vector<TranslateInput>{{MakeParam("a", TensorType(DType::kInt32, {2})), nullptr},
                                        {MakeParam("b", TensorType(DType::kInt32, {2})), nullptr}});
  ASSERT_FALSE(translated.ok());
  EXPECT_THAT(std::string(translated.status().message()),
              HasSubstr("RealDiv is not defined for dtype int32"));
}

// ---- integer edge cases -------------------------------------------------------------------------

template <typename T>
void ExpectIntEdgeCases() {
  constexpr T kMin = std::numeric_limits<T>::min();
  constexpr T kMax = std::numeric_limits<T>::max();
  const Tensor x = TN<T>({kMin, kMin, kMax, -7, 7, -7, 7, kMin, kMax}, {9});
  const Tensor y = TN<T>({-1, 1, -1, 2, -2, -2, 2, 2, kMin}, {9});
  for (const char* op : {"Div", "FloorDiv", "FloorMod", "Mod", "TruncateDiv", "TruncateMod", "Add",
                         "Sub", "Mul", "SquaredDifference", "Maximum", "Minimum"}) {
    EXPECT_TRUE(TranslationMatchesReference(MakeNode(op, {}, 2), {x, y})) << op;
  }
}

TEST(IntegerEdgeTest, MinByMinusOneWrapsAndFloorsMatchPython) {
  ExpectIntEdgeCases<int8_t>();
  ExpectIntEdgeCases<int16_t>();
  ExpectIntEdgeCases<int32_t>();
  ExpectIntEdgeCases<int64_t>();
}

TEST(IntegerEdgeTest, DivisionByZeroIsRefused) {
  for (const char* op : {"Div", "FloorDiv", "FloorMod", "Mod", "TruncateDiv", "TruncateMod"}) {
    for (DType d : {DType::kInt32, DType::kUInt8, DType::kInt64}) {
      const Tensor x = RandomTensor(d, {2, 3}, 5);
      Tensor y = RandomTensor(d, {3}, 6, Fill::kNonzero);
      DispatchDType(d, [&]<typename T>() { y.mutable_data<T>()[1] = T(0); });
      const Node node = MakeNode(op, {}, 2);
      EXPECT_TRUE(TranslationMatchesReference(node, {x, y})) << op << " " << DTypeName(d);
      // An empty result computes nothing, so nothing is refused.
      EXPECT_TRUE(TranslationMatchesReference(node, {RandomTensor(d, {0, 3}, 7), y}))
          << op << " " << DTypeName(d);
    }
  }
  // Floats divide by zero without complaint.
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("FloorDiv", {}, 2),
                                          {TN<float>({1, -1, 0}, {3}), TN<float>({0, 0, 0}, {3})}));
}

TEST(IntegerEdgeTest, PowWrapsAndRefusesNegativeExponents) {
  const Node node = MakeNode("Pow", {}, 2);
  EXPECT_TRUE(TranslationMatchesReference(node, {TN<int32_t>({3, -3, 2, 7, 0, 1, -1}, {7}),
                                                 TN<int32_t>({40, 41, 31, 0, 0, 99, 99}, {7})}));
  EXPECT_TRUE(
      TranslationMatchesReference(node, {TN<int8_t>({3, -2}, {2}), TN<int8_t>({5, 7}, {2})}));
  EXPECT_TRUE(
      TranslationMatchesReference(node, {TN<uint8_t>({3, 2}, {2}), TN<uint8_t>({5, 200}, {2})}));
  EXPECT_TRUE(
      TranslationMatchesReference(node, {TN<int32_t>({2, 2}, {2}), TN<int32_t>({1, -1}, {2})}));
  EXPECT_TRUE(TranslationMatchesReference(node, {TN<int64_t>({2}, {1}), TN<int64_t>({-3}, {1})}));
  // Floats take negative and fractional exponents.
  EXPECT_TRUE(TranslationMatchesReference(
      node, {TN<float>({2, -8, 0, 4}, {4}), TN<float>({-1, 0.5f, -1, 0.5f}, {4})}));
}

// ---- bitwise ops --------------------------------------------------------------------------------

// Shift amounts around and beyond the width, negative ones and the extremes, which TensorFlow
// clamps to [0, bits - 1], on values with the sign bit set and not.
template <typename T>
void ExpectShiftEdgeCases() {
  using L = std::numeric_limits<T>;
  constexpr int kBits = static_cast<int>(sizeof(T)) * 8;
  std::vector<T> amounts = {T(0), T(1), T(kBits - 1), T(kBits), T(kBits + 1), L::max(), L::min()};
  if constexpr (std::is_signed_v<T>) amounts.push_back(T(-1));
  const int64_t n = static_cast<int64_t>(amounts.size());
  const Tensor y = TN<T>(amounts, {1, n});
  const Tensor x = TN<T>({T(1), T(5), L::max(), L::min(), static_cast<T>(-3)}, {5, 1});
  for (const char* op : {"LeftShift", "RightShift"}) {
    EXPECT_TRUE(TranslationMatchesReference(MakeNode(op, {}, 2), {x, y}))
        << op << " " << DTypeName(DTypeOf<T>);
  }
}

TEST(BitwiseTest, ShiftAmountsAreClampedAsTheReferenceClampsThem) {
  ExpectShiftEdgeCases<int8_t>();
  ExpectShiftEdgeCases<int16_t>();
  ExpectShiftEdgeCases<int32_t>();
  ExpectShiftEdgeCases<int64_t>();
  ExpectShiftEdgeCases<uint8_t>();
  ExpectShiftEdgeCases<uint16_t>();
  ExpectShiftEdgeCases<uint32_t>();
  ExpectShiftEdgeCases<uint64_t>();
}

// The host twins on their own, on values worked out by hand.
TEST(BitwiseTest, ShiftTwinsClampAndShiftTheUnsignedPattern) {
  const Node node = MakeNode("LeftShift", {}, 2);
  const ParamPtr a = MakeParam("a", TensorType(DType::kInt8, {4}));
  const ParamPtr b = MakeParam("b", TensorType(DType::kInt8, {4}));
  absl::StatusOr<std::vector<ExprPtr>> out =
      TranslateNode(node, std::vector<TranslateInput>{{a, nullptr}, {b, nullptr}});
  ASSERT_TRUE(out.ok()) << out.status();
  Interpreter interpreter;
  absl::StatusOr<Value> v = interpreter.Evaluate(
      (*out)[0], {{a.get(), ValueFromTensor(TN<int8_t>({-3, -14, 3, 3}, {4}))},
                  {b.get(), ValueFromTensor(TN<int8_t>({7, 11, -2, 100}, {4}))}});
  ASSERT_TRUE(v.ok()) << v.status();
  absl::StatusOr<Tensor> t = TensorFromValue(*v, (*out)[0]->type, {});
  ASSERT_TRUE(t.ok()) << t.status();
  // -3 << 7 = -384, wrapped to -128; 11 is clamped to 7; -2 to 0; 100 to 7 (3 << 7 = 384 -> -128).
  EXPECT_EQ(testing::Values<int8_t>(*t), (std::vector<int8_t>{-128, 0, 3, -128}));
  EXPECT_THAT(ToString((*out)[0]), HasSubstr("left_shift_int8"));
}

TEST(BitwiseTest, FloatsAndBoolsAreRefused) {
  for (const char* op : {"BitwiseAnd", "LeftShift"}) {
    absl::StatusOr<std::vector<ExprPtr>> translated = TranslateNode(
        MakeNode(op, {}, 2), std::vector<TranslateInput>{{FloatParam("a", {2}), nullptr},
                                                         {FloatParam("b", {2}), nullptr}});
    ASSERT_FALSE(translated.ok()) << op;
    EXPECT_THAT(std::string(translated.status().message()),
                HasSubstr(absl::StrCat(op, " is not defined for dtype float32")));
  }
}

// CompareAndBitpack on every dtype (those TensorFlow refuses, the unsigned ones among them,
// refused by both) and shapes with one or more groups of 8, empty ones, and ones the reference
// refuses: a last dimension of 7, a scalar input, a threshold that is not a scalar.
class CompareAndBitpackTest : public ::testing::TestWithParam<DType> {};

TEST_P(CompareAndBitpackTest, MatchesReference) {
  const DType dtype = GetParam();
  const Node node = MakeNode("CompareAndBitpack", {}, 2);
  uint32_t seed = 300;
  for (const Shape& shape :
       std::vector<Shape>{{8}, {2, 8}, {3, 16}, {2, 3, 24}, {0}, {2, 0, 8}, {3, 0}, {1, 7}, {}}) {
    const Tensor x = RandomTensor(dtype, shape, seed++);
    const Tensor t = RandomTensor(dtype, {}, seed++);
    EXPECT_TRUE(TranslationMatchesReference(node, {x, t})) << x.DebugType();
  }
  EXPECT_TRUE(TranslationMatchesReference(
      node, {RandomTensor(dtype, {2, 8}, 1), RandomTensor(dtype, {1}, 2)}));
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, CompareAndBitpackTest, ::testing::ValuesIn(kAllDTypes),
                         [](const auto& info) { return ParamName(info.param); });

TEST(CompareAndBitpackMoreTest, SymbolicRowsAndTheLastDimension) {
  const Node node = MakeNode("CompareAndBitpack", {}, 2);
  absl::StatusOr<std::vector<ExprPtr>> out =
      TranslateNode(node, std::vector<TranslateInput>{{FloatParam("x", {kN, 3, 16}), nullptr},
                                                      {FloatParam("t", {}), nullptr}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(TypeEquals((*out)[0]->type, TensorType(DType::kUInt8, {kN, 3, 2})));
  // A symbolic last dimension is not known to be a multiple of 8.
  absl::StatusOr<std::vector<ExprPtr>> symbolic_last =
      TranslateNode(node, std::vector<TranslateInput>{{FloatParam("x", {3, kN}), nullptr},
                                                      {FloatParam("t", {}), nullptr}});
  ASSERT_FALSE(symbolic_last.ok());
  EXPECT_THAT(std::string(symbolic_last.status().message()),
              HasSubstr("must be a multiple of 8, got N"));
}

// ---- Equal / NotEqual with incompatible_shape_error=false ---------------------------------------

TEST(EqualityTest, IncompatibleShapesGiveAScalar) {
  for (const char* op : {"Equal", "NotEqual"}) {
    const Node lax = MakeNode(op, {{"incompatible_shape_error", false}}, 2);
    EXPECT_TRUE(TranslationMatchesReference(
        lax, {RandomTensor(DType::kFloat, {2, 3}, 1), RandomTensor(DType::kFloat, {4}, 2)}));
    // Even across dtypes, as the reference answers before it checks them.
    EXPECT_TRUE(TranslationMatchesReference(
        lax, {RandomTensor(DType::kFloat, {2, 3}, 1), RandomTensor(DType::kInt32, {4}, 2)}));
    EXPECT_TRUE(TranslationMatchesReference(
        lax, {RandomTensor(DType::kInt32, {2, 3}, 1), RandomTensor(DType::kInt32, {1, 3}, 2)}));
    const Node strict = MakeNode(op, {{"incompatible_shape_error", true}}, 2);
    EXPECT_TRUE(TranslationMatchesReference(
        strict, {RandomTensor(DType::kFloat, {2, 3}, 1), RandomTensor(DType::kFloat, {4}, 2)}));
  }
}

// ---- BiasAdd ------------------------------------------------------------------------------------

struct BiasCase {
  std::string format;
  Shape value;
};

class BiasAddTest : public ::testing::TestWithParam<std::tuple<BiasCase, DType>> {};

TEST_P(BiasAddTest, MatchesReference) {
  const auto& [c, dtype] = GetParam();
  const int channel_dim = c.format == "NCHW" ? 1 : static_cast<int>(c.value.size()) - 1;
  const Node node = MakeNode("BiasAdd", {{"data_format", c.format}}, 2);
  EXPECT_TRUE(TranslationMatchesReference(
      node, {RandomTensor(dtype, c.value, 11), RandomTensor(dtype, {c.value[channel_dim]}, 12)}));
}

INSTANTIATE_TEST_SUITE_P(
    Formats, BiasAddTest,
    ::testing::Combine(::testing::Values(BiasCase{"NHWC", {2, 3}}, BiasCase{"NHWC", {2, 3, 4}},
                                         BiasCase{"NHWC", {2, 2, 3, 4}}, BiasCase{"NHWC", {0, 4}},
                                         BiasCase{"NHWC", {2, 0, 1, 3}}, BiasCase{"NHWC", {3, 0}},
                                         BiasCase{"NCHW", {2, 3}}, BiasCase{"NCHW", {2, 3, 4}},
                                         BiasCase{"NCHW", {2, 3, 2, 4}},
                                         BiasCase{"NCHW", {2, 1, 2, 2}},
                                         BiasCase{"NCHW", {0, 3, 2, 2}},
                                         BiasCase{"NCHW", {2, 3, 0, 2}},
                                         BiasCase{"NCHW", {2, 0, 2}}),
                       ::testing::ValuesIn(kAllDTypes)),
    [](const auto& info) {
      const BiasCase& c = std::get<0>(info.param);
      return absl::StrCat(c.format, "_", absl::StrJoin(c.value, "x"), "_",
                          ParamName(std::get<1>(info.param)));
    });

TEST(BiasAddMoreTest, RefusesWhatTheReferenceRefuses) {
  const Node nhwc = MakeNode("BiasAdd", {}, 2);
  const Node nchw = MakeNode("BiasAdd", {{"data_format", std::string("NCHW")}}, 2);
  const Tensor v = RandomTensor(DType::kFloat, {2, 3, 4}, 1);
  EXPECT_TRUE(TranslationMatchesReference(nhwc, {v, RandomTensor(DType::kFloat, {3}, 2)}));
  EXPECT_TRUE(TranslationMatchesReference(nchw, {v, RandomTensor(DType::kFloat, {4}, 2)}));
  EXPECT_TRUE(TranslationMatchesReference(
      nhwc, {RandomTensor(DType::kFloat, {4}, 1), RandomTensor(DType::kFloat, {4}, 2)}));
  EXPECT_TRUE(TranslationMatchesReference(nhwc, {v, RandomTensor(DType::kFloat, {1, 4}, 2)}));
  EXPECT_TRUE(TranslationMatchesReference(nhwc, {v, RandomTensor(DType::kDouble, {4}, 2)}));
  EXPECT_TRUE(
      TranslationMatchesReference(MakeNode("BiasAdd", {{"data_format", std::string("NWHC")}}, 2),
                                  {v, RandomTensor(DType::kFloat, {4}, 2)}));
  absl::StatusOr<std::vector<ExprPtr>> translated =
      TranslateNode(nchw, std::vector<TranslateInput>{{FloatParam("v", {kN, 3, 5}), nullptr},
                                                      {FloatParam("b", {5}), nullptr}});
  ASSERT_FALSE(translated.ok());
  EXPECT_THAT(std::string(translated.status().message()),
              HasSubstr("bias has 5 elements but value float32[N,3,5] has 3 channels"));
}

TEST(BiasAddMoreTest, SymbolicBatch) {
  for (const char* format : {"NHWC", "NCHW"}) {
    const Node node = MakeNode("BiasAdd", {{"data_format", std::string(format)}}, 2);
    absl::StatusOr<std::vector<ExprPtr>> translated =
        TranslateNode(node, std::vector<TranslateInput>{{FloatParam("v", {kN, 3, 3}), nullptr},
                                                        {FloatParam("b", {3}), nullptr}});
    ASSERT_TRUE(translated.ok()) << translated.status();
    EXPECT_TRUE(TypeEquals((*translated)[0]->type, TensorType(DType::kFloat, {kN, 3, 3})));
  }
}

// ---- Select and SelectV2 ------------------------------------------------------------------------

struct SelectCase {
  Shape cond, t, e;
};

class SelectTest : public ::testing::TestWithParam<std::tuple<const char*, DType>> {};

TEST_P(SelectTest, MatchesReference) {
  const auto [op, dtype] = GetParam();
  const Node node = MakeNode(op, {}, 3);
  // Select (v1) accepts the first seven; SelectV2 broadcasts all of them but the last two.
  const std::vector<SelectCase> cases = {
      {{}, {}, {}},          {{2, 3}, {2, 3}, {2, 3}},
      {{}, {2, 3}, {2, 3}},  {{2}, {2, 3, 4}, {2, 3, 4}},
      {{3}, {3}, {3}},       {{0}, {0, 2}, {0, 2}},
      {{2}, {2, 0}, {2, 0}}, {{3, 1}, {1, 4}, {}},
      {{4}, {3, 1}, {1}},    {{2, 1, 1}, {1, 3, 1}, {1, 1, 4}},
      {{0, 1}, {1, 3}, {3}}, {{1}, {2, 2}, {2, 1}},
      {{2}, {3}, {3}},       {{2, 3}, {2, 3}, {3, 2}},
  };
  uint32_t seed = 100;
  for (const SelectCase& c : cases) {
    const Tensor cond = RandomTensor(DType::kBool, c.cond, seed++);
    const Tensor t = RandomTensor(dtype, c.t, seed++);
    const Tensor e = RandomTensor(dtype, c.e, seed++);
    EXPECT_TRUE(TranslationMatchesReference(node, {cond, t, e}))
        << op << " " << cond.DebugType() << ", " << t.DebugType() << ", " << e.DebugType();
  }
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, SelectTest,
                         ::testing::Combine(::testing::Values("Select", "SelectV2"),
                                            ::testing::ValuesIn(kAllDTypes)),
                         [](const auto& info) {
                           return absl::StrCat(std::get<0>(info.param), "_",
                                               ParamName(std::get<1>(info.param)));
                         });

TEST(SelectErrorTest, RefusesWhatTheReferenceRefuses) {
  for (const char* op : {"Select", "SelectV2"}) {
    const Node node = MakeNode(op, {}, 3);
    // A condition that is not bool; t and e of different dtypes.
    EXPECT_TRUE(TranslationMatchesReference(
        node, {RandomTensor(DType::kInt32, {2}, 1), RandomTensor(DType::kFloat, {2}, 2),
               RandomTensor(DType::kFloat, {2}, 3)}));
    EXPECT_TRUE(TranslationMatchesReference(
        node, {RandomTensor(DType::kBool, {2}, 1), RandomTensor(DType::kFloat, {2}, 2),
               RandomTensor(DType::kInt32, {2}, 3)}));
  }
}

// ---- AddN / AccumulateNV2 -----------------------------------------------------------------------

class AddNTest : public ::testing::TestWithParam<std::tuple<const char*, DType>> {};

TEST_P(AddNTest, MatchesReference) {
  const auto [op, dtype] = GetParam();
  const std::vector<Shape> shapes = {{}, {5}, {2, 3}, {2, 1, 3}, {2, 1, 2, 3}, {0, 3}, {1}};
  uint32_t seed = 200;
  for (int n = 1; n <= 4; ++n) {
    const Node node = MakeNode(op, {}, n);
    for (const Shape& shape : shapes) {
      std::vector<Tensor> inputs;
      for (int k = 0; k < n; ++k) inputs.push_back(RandomTensor(dtype, shape, seed++));
      EXPECT_TRUE(TranslationMatchesReference(node, inputs))
          << op << " of " << n << " " << inputs[0].DebugType();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, AddNTest,
                         ::testing::Combine(::testing::Values("AddN", "AccumulateNV2"),
                                            ::testing::ValuesIn(kAllDTypes)),
                         [](const auto& info) {
                           return absl::StrCat(std::get<0>(info.param), "_",
                                               ParamName(std::get<1>(info.param)));
                         });

TEST(AddNMoreTest, HalfIsSummedInFloatAndRoundedOnce) {
  // 2048 + 1 + 1 in float16 step by step is 2048 (each +1 rounds away); in float, 2050.
  const Tensor a = testing::HalfTensor({2048}, {1});
  const Tensor b = testing::HalfTensor({1}, {1});
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("AddN", {}, 3), {a, b, b}));
}

TEST(AddNMoreTest, RefusesMixedShapesAndDTypes) {
  const Node node = MakeNode("AddN", {}, 2);
  EXPECT_TRUE(TranslationMatchesReference(
      node, {RandomTensor(DType::kFloat, {2, 3}, 1), RandomTensor(DType::kFloat, {3}, 2)}));
  EXPECT_TRUE(TranslationMatchesReference(
      node, {RandomTensor(DType::kFloat, {3}, 1), RandomTensor(DType::kHalf, {3}, 2)}));
}

// ---- registration -------------------------------------------------------------------------------

TEST(RegistrationTest, EveryOpOfTheFamilyHasATranslation) {
  for (const char* op : {"Add",        "AddV2",         "Sub",         "Mul",
                         "Div",        "RealDiv",       "DivNoNan",    "FloorDiv",
                         "FloorMod",   "Mod",           "TruncateDiv", "TruncateMod",
                         "Maximum",    "Minimum",       "Pow",         "SquaredDifference",
                         "Atan2",      "BiasAdd",       "Equal",       "NotEqual",
                         "Less",       "LessEqual",     "Greater",     "GreaterEqual",
                         "LogicalAnd", "LogicalOr",     "Select",      "SelectV2",
                         "AddN",       "AccumulateNV2", "BitwiseAnd",  "BitwiseOr",
                         "BitwiseXor", "LeftShift",     "RightShift",  "CompareAndBitpack"}) {
    const Translation* translation = FindTranslation(op);
    ASSERT_NE(translation, nullptr) << op;
    EXPECT_TRUE(translation->static_inputs.empty()) << op;
  }
}

}  // namespace
}  // namespace dfc::ir
