// Tests for the unary elementwise kernels (elementwise_unary.cc). Expected values are worked
// out by hand or taken from tables, never recomputed with the kernel's own formula.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::dfc::testing::ExpectError;

using ::dfc::testing::HalfTensor;
using ::dfc::testing::RunOp;
using ::dfc::testing::RunOp1;
using ::dfc::testing::T1;
using ::dfc::testing::TN;
using ::dfc::testing::Values;
using ::dfc::testing::ValuesAsDouble;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr double kPi = 3.14159265358979323846;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

void ExpectClose(const std::vector<double>& actual, const std::vector<double>& expected,
                 double rel = 1e-6) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    if (std::isinf(expected[i])) {
      EXPECT_EQ(actual[i], expected[i]) << "element " << i;
      continue;
    }
    EXPECT_NEAR(actual[i], expected[i], rel * std::max(1.0, std::fabs(expected[i])))
        << "element " << i;
  }
}

// --- float32 table --------------------------------------------------------------------------

struct UnaryCase {
  std::string op;
  std::vector<float> input;
  std::vector<double> expected;
};

void PrintTo(const UnaryCase& c, std::ostream* os) { *os << c.op; }

class FloatUnaryTest : public ::testing::TestWithParam<UnaryCase> {};

TEST_P(FloatUnaryTest, MatchesTable) {
  const UnaryCase& c = GetParam();
  const Tensor out = RunOp1(c.op, {T1<float>(c.input)});
  EXPECT_EQ(out.dtype(), DType::kFloat);
  EXPECT_EQ(out.shape(), (Shape{static_cast<int64_t>(c.input.size())}));
  ExpectClose(ValuesAsDouble(out), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Ops, FloatUnaryTest,
    ::testing::Values(
        UnaryCase{"Abs", {-1.5f, 0.0f, 2.0f}, {1.5, 0, 2}},
        UnaryCase{"Neg", {-1.5f, 2.0f}, {1.5, -2}},
        UnaryCase{"Exp", {0.0f, 1.0f, -1.0f}, {1, 2.718281828459045, 0.36787944117144233}},
        UnaryCase{"Expm1", {0.0f, 1e-10f, 1.0f}, {0, 1e-10, 1.718281828459045}},
        UnaryCase{"Log", {1.0f, 2.0f, 0.0f}, {0, 0.6931471805599453, -INFINITY}},
        UnaryCase{"Log1p", {0.0f, 1e-10f, 1.0f}, {0, 1e-10, 0.6931471805599453}},
        UnaryCase{"Sqrt", {4.0f, 0.25f, 2.0f}, {2, 0.5, 1.4142135623730951}},
        UnaryCase{"Rsqrt", {4.0f, 0.25f}, {0.5, 2}}, UnaryCase{"Square", {-3.0f, 0.5f}, {9, 0.25}},
        UnaryCase{"Reciprocal", {4.0f, -0.5f}, {0.25, -2}}, UnaryCase{"Inv", {8.0f}, {0.125}},
        UnaryCase{"Sign", {-2.5f, 0.0f, 3.0f}, {-1, 0, 1}},
        UnaryCase{"Floor", {-1.5f, 1.5f, 2.0f}, {-2, 1, 2}},
        UnaryCase{"Ceil", {-1.5f, 1.5f, 2.0f}, {-1, 2, 2}},
        // Half to even: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -1.5 -> -2, -2.5 -> -2.
        UnaryCase{"Round", {0.5f, 1.5f, 2.5f, -1.5f, -2.5f, 2.4f, 2.6f}, {0, 2, 2, -2, -2, 2, 3}},
        UnaryCase{"Rint", {0.5f, 1.5f, 2.5f, -0.5f, 3.5f}, {0, 2, 2, 0, 4}},
        UnaryCase{
            "Sin", {0.0f, static_cast<float>(kPi / 2), static_cast<float>(kPi / 6)}, {0, 1, 0.5}},
        UnaryCase{"Cos", {0.0f, static_cast<float>(kPi / 3)}, {1, 0.5}},
        UnaryCase{"Tan", {0.0f, static_cast<float>(kPi / 4)}, {0, 1}},
        UnaryCase{"Asin", {0.0f, 1.0f, 0.5f}, {0, kPi / 2, kPi / 6}},
        UnaryCase{"Acos", {1.0f, 0.0f, 0.5f}, {0, kPi / 2, kPi / 3}},
        UnaryCase{"Atan", {0.0f, 1.0f, -1.0f}, {0, kPi / 4, -kPi / 4}},
        UnaryCase{"Sinh", {0.0f, 1.0f}, {0, 1.1752011936438014}},
        UnaryCase{"Cosh", {0.0f, 1.0f}, {1, 1.5430806348152437}},
        UnaryCase{"Tanh", {0.0f, 1.0f, -20.0f}, {0, 0.7615941559557649, -1}},
        UnaryCase{"Asinh", {0.0f, 1.0f}, {0, 0.881373587019543}},
        UnaryCase{"Acosh", {1.0f, 2.0f}, {0, 1.3169578969248166}},
        UnaryCase{"Atanh", {0.0f, 0.5f}, {0, 0.5493061443340549}},
        UnaryCase{"Erf", {0.0f, 1.0f, -1.0f}, {0, 0.8427007929497149, -0.8427007929497149}},
        UnaryCase{"Erfc", {0.0f, 1.0f}, {1, 0.15729920705028513}},
        UnaryCase{
            "Erfinv",
            {0.0f, 0.5f, -0.75f, 1 - 0x1p-10f, 1.0f, -1.0f},
            {0, 0.4769362762044699, -0.8134198475976185, 2.331467773621948, INFINITY, -INFINITY}},
        UnaryCase{"Sigmoid",
                  {0.0f, 1.0f, -20.0f, 1000.0f, -1000.0f},
                  {0.5, 0.7310585786300049, 2.0611536181902037e-09, 1, 0}},
        UnaryCase{"Relu", {-1.0f, 0.0f, 2.5f}, {0, 0, 2.5}},
        UnaryCase{"Relu6", {-1.0f, 3.0f, 7.0f}, {0, 3, 6}},
        UnaryCase{"Elu", {-1.0f, 0.0f, 2.0f}, {-0.6321205588285577, 0, 2}},
        UnaryCase{"Selu", {-1.0f, 2.0f}, {-1.1113307378125628, 2.101401974710961}},
        UnaryCase{"Softplus",
                  {0.0f, 1.0f, 100.0f, -20.0f, 1000.0f, -1000.0f},
                  {0.6931471805599453, 1.3132616875182228, 100, 2.0611536181902037e-09, 1000, 0}},
        UnaryCase{"Softsign", {1.0f, -3.0f, 0.0f}, {0.5, -0.75, 0}},
        UnaryCase{"LeakyRelu", {-1.0f, 0.0f, 2.0f}, {-0.2f, 0, 2}}),
    [](const ::testing::TestParamInfo<UnaryCase>& info) { return info.param.op; });

// --- other float dtypes -------------------------------------------------------------------------

TEST(UnaryTest, DoubleStaysDouble) {
  const Tensor out = RunOp1("Sigmoid", {T1<double>({-100.0, 0.0, 2.0})});
  EXPECT_EQ(out.dtype(), DType::kDouble);
  ExpectClose(Values<double>(out), {3.720075976020836e-44, 0.5, 0.8807970779778823}, 1e-14);
  // The naive log(1 + exp(x)) overflows at 1000 and loses the tail at -40.
  const Tensor sp = RunOp1("Softplus", {T1<double>({1000.0, -40.0})});
  ExpectClose(Values<double>(sp), {1000.0, 4.248354255291589e-18}, 1e-14);
  EXPECT_NEAR(Values<double>(sp)[1], 4.248354255291589e-18, 1e-30);
}

// Erfinv inverts erf to double's precision across its domain, up to 1 - 2^-53 where erf itself
// has no digits left (there erfc(erfinv(y)) = 1 - y is the check); beyond [-1, 1] it is NaN.
TEST(UnaryTest, ErfinvInvertsErfInDouble) {
  const std::vector<double> ys = {1e-300, 1e-8, 0.3, 0.5, 0.75, 0.999, 1 - 1e-12, 1 - 0x1p-53};
  std::vector<double> inputs = ys;
  for (double y : ys) inputs.push_back(-y);
  const std::vector<double> x = Values<double>(RunOp1("Erfinv", {T1<double>(inputs)}));
  for (size_t k = 0; k < ys.size(); ++k) {
    const double y = ys[k];
    if (y <= 0.5) {
      EXPECT_NEAR(std::erf(x[k]), y, 4e-16 * y) << "erfinv(" << y << ")";
    } else {
      EXPECT_NEAR(std::erfc(x[k]), 1 - y, 1e-14 * (1 - y)) << "erfinv(" << y << ")";
    }
    EXPECT_EQ(x[ys.size() + k], -x[k]) << "erfinv is odd";
  }
  const std::vector<double> edges =
      Values<double>(RunOp1("Erfinv", {T1<double>({-0.0, 1.0, -1.0, 1.5, -2.0, std::nan("")})}));
  EXPECT_TRUE(edges[0] == 0 && std::signbit(edges[0]));
  EXPECT_EQ(edges[1], INFINITY);
  EXPECT_EQ(edges[2], -INFINITY);
  EXPECT_TRUE(std::isnan(edges[3]) && std::isnan(edges[4]) && std::isnan(edges[5]));
}

TEST(UnaryTest, HalfComputesInFloatAndRounds) {
  // e rounds to the nearest half: 1392 * 2^-9 = 2.71875.
  const Tensor out = RunOp1("Exp", {HalfTensor({0.0f, 1.0f}, {2})});
  EXPECT_EQ(out.dtype(), DType::kHalf);
  EXPECT_THAT(ValuesAsDouble(out), ElementsAre(1.0, 2.71875));
  EXPECT_THAT(ValuesAsDouble(RunOp1("Round", {HalfTensor({0.5f, 1.5f, 2.5f}, {3})})),
              ElementsAre(0.0, 2.0, 2.0));
  // LeakyRelu's alpha is rounded to half first: half(0.2) = 0.199951171875.
  EXPECT_THAT(ValuesAsDouble(RunOp1("LeakyRelu", {HalfTensor({-1.0f}, {1})})),
              ElementsAre(-0.199951171875));
}

TEST(UnaryTest, LeakyReluAlphaAttr) {
  const Tensor out = RunOp1("LeakyRelu", {T1<float>({-2.0f, 3.0f})}, {{"alpha", 0.5f}});
  EXPECT_THAT(Values<float>(out), ElementsAre(-1.0f, 3.0f));
}

TEST(UnaryTest, NaNAndInfinity) {
  const Tensor x = T1<float>({kNaN, kInf, -kInf, 1.0f});
  EXPECT_THAT(Values<bool>(RunOp1("IsNan", {x})), ElementsAre(true, false, false, false));
  EXPECT_THAT(Values<bool>(RunOp1("IsInf", {x})), ElementsAre(false, true, true, false));
  EXPECT_THAT(Values<bool>(RunOp1("IsFinite", {x})), ElementsAre(false, false, false, true));
  EXPECT_TRUE(std::isnan(Values<float>(RunOp1("Relu", {x}))[0]));
  EXPECT_THAT(Values<float>(RunOp1("Sign", {x})),
              ::testing::ElementsAre(::testing::IsNan(), 1.0f, -1.0f, 1.0f));
  EXPECT_THAT(Values<float>(RunOp1("Sigmoid", {x})),
              ::testing::ElementsAre(::testing::IsNan(), 1.0f, 0.0f, ::testing::_));
  EXPECT_THAT(Values<float>(RunOp1("Softplus", {x})),
              ::testing::ElementsAre(::testing::IsNan(), kInf, 0.0f, ::testing::_));
  // Rounding keeps the sign of zero: Round(-0.5) is -0.
  EXPECT_TRUE(std::signbit(Values<float>(RunOp1("Round", {T1<float>({-0.5f})}))[0]));
  const Tensor h = HalfTensor({kNaN, 1.0f}, {2});
  EXPECT_THAT(Values<bool>(RunOp1("IsNan", {h})), ElementsAre(true, false));
}

// --- integers -----------------------------------------------------------------------------------

TEST(UnaryTest, IntegerOpsWrapLikeTensorFlow) {
  constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
  constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
  EXPECT_THAT(Values<int32_t>(RunOp1("Abs", {T1<int32_t>({-3, 4, kMin32})})),
              ElementsAre(3, 4, kMin32));
  EXPECT_THAT(Values<int64_t>(RunOp1("Neg", {T1<int64_t>({5, -6, kMin64})})),
              ElementsAre(-5, 6, kMin64));
  EXPECT_THAT(Values<int8_t>(RunOp1("Abs", {T1<int8_t>({-128, -7})})), ElementsAre(-128, 7));
  // 16 * 16 = 256 wraps to 0 in int8; 11 * 11 = 121 fits.
  EXPECT_THAT(Values<int8_t>(RunOp1("Square", {T1<int8_t>({-3, 16, 11})})), ElementsAre(9, 0, 121));
  EXPECT_THAT(Values<int32_t>(RunOp1("Square", {T1<int32_t>({65536, -46341})})),
              ElementsAre(0, -2147479015));  // 46341^2 = 2147488281 = 2^31 + 4633
  EXPECT_THAT(Values<int32_t>(RunOp1("Sign", {T1<int32_t>({-7, 0, 9})})), ElementsAre(-1, 0, 1));
  EXPECT_THAT(Values<uint8_t>(RunOp1("Sign", {T1<uint8_t>({0, 200})})), ElementsAre(0, 1));
  EXPECT_THAT(Values<int32_t>(RunOp1("Relu", {T1<int32_t>({-7, 0, 9})})), ElementsAre(0, 0, 9));
  EXPECT_THAT(Values<int64_t>(RunOp1("Relu6", {T1<int64_t>({-5, 3, 9})})), ElementsAre(0, 3, 6));
  EXPECT_THAT(Values<uint8_t>(RunOp1("Relu6", {T1<uint8_t>({0, 200})})), ElementsAre(0, 6));
  EXPECT_THAT(Values<int32_t>(RunOp1("Reciprocal", {T1<int32_t>({1, -1, 2, -3})})),
              ElementsAre(1, -1, 0, 0));
  EXPECT_THAT(Values<int64_t>(RunOp1("Round", {T1<int64_t>({-3, 7})})), ElementsAre(-3, 7));
  ExpectError(RunOp("Reciprocal", {T1<int32_t>({2, 0})}), "Integer division by zero");
  ExpectError(RunOp("Inv", {T1<int8_t>({0})}), "element 0");
}

TEST(UnaryTest, LogicalNot) {
  EXPECT_THAT(Values<bool>(RunOp1("LogicalNot", {T1<bool>({true, false})})),
              ElementsAre(false, true));
}

TEST(UnaryTest, ZeroSizeAndScalar) {
  const Tensor empty = RunOp1("Exp", {Tensor::Zeros(DType::kFloat, {0, 3})});
  EXPECT_EQ(empty.shape(), (Shape{0, 3}));
  EXPECT_EQ(empty.num_elements(), 0);
  EXPECT_EQ(RunOp1("IsNan", {Tensor::Zeros(DType::kDouble, {2, 0})}).shape(), (Shape{2, 0}));
  EXPECT_EQ(RunOp1("Cast", {Tensor::Zeros(DType::kFloat, {0})}, {{"DstT", DType::kInt8}}).shape(),
            (Shape{0}));
  const Tensor s = RunOp1("Neg", {Tensor::Scalar<double>(2.5)});
  EXPECT_EQ(s.shape(), Shape{});
  EXPECT_THAT(Values<double>(s), ElementsAre(-2.5));
}

TEST(UnaryTest, Errors) {
  ExpectError(RunOp("Abs", {T1<uint8_t>({1})}), "Abs is not defined for dtype uint8");
  ExpectError(RunOp("Exp", {T1<int32_t>({1})}), "expected one of float16, float32, float64");
  ExpectError(RunOp("LogicalNot", {T1<float>({1})}), "expected one of bool");
  ExpectError(RunOp("Relu", {T1<bool>({true})}), "dtype bool");
  ExpectError(RunOp("Neg", {T1<float>({1}), T1<float>({1})}), "expects 1 inputs, got 2");
  ExpectError(RunOp("IsNan", {T1<int64_t>({1})}), "int64");
}

// --- pass-through and fill
// ------------------------------------------------------------------------

TEST(UnaryTest, PassThroughSharesTheTensor) {
  const Tensor in = TN<int16_t>({1, 2, 3, 4}, {2, 2});
  for (const char* op : {"Identity", "StopGradient", "Snapshot", "PreventGradient"}) {
    const Tensor out = RunOp1(op, {in});
    EXPECT_EQ(out.raw_data(), in.raw_data()) << op;
    EXPECT_EQ(out.shape(), (Shape{2, 2})) << op;
  }
  EXPECT_THAT(Values<bool>(RunOp1("Identity", {T1<bool>({true})})), ElementsAre(true));
  ExpectError(RunOp("Identity", {}), "expects 1 inputs, got 0");
}

TEST(UnaryTest, ZerosLikeAndOnesLike) {
  const Tensor z = RunOp1("ZerosLike", {TN<int32_t>({5, 6, 7, 8, 9, 10}, {2, 3})});
  EXPECT_EQ(z.dtype(), DType::kInt32);
  EXPECT_EQ(z.shape(), (Shape{2, 3}));
  EXPECT_THAT(Values<int32_t>(z), ElementsAre(0, 0, 0, 0, 0, 0));
  EXPECT_THAT(Values<bool>(RunOp1("OnesLike", {T1<bool>({false, false})})),
              ElementsAre(true, true));
  EXPECT_THAT(Values<bool>(RunOp1("ZerosLike", {T1<bool>({true})})), ElementsAre(false));
  EXPECT_THAT(ValuesAsDouble(RunOp1("OnesLike", {HalfTensor({7.0f}, {1})})), ElementsAre(1.0));
  EXPECT_THAT(Values<uint8_t>(RunOp1("OnesLike", {T1<uint8_t>({3, 4})})), ElementsAre(1, 1));
  EXPECT_EQ(RunOp1("OnesLike", {Tensor::Zeros(DType::kDouble, {3, 0})}).shape(), (Shape{3, 0}));
}

// --- Cast
// -------------------------------------------------------------------------------------------

Tensor CastTo(const Tensor& x, DType to, AttrMap extra = {}) {
  extra.insert({"DstT", to});
  return RunOp1("Cast", {x}, std::move(extra));
}

TEST(CastTest, FloatToIntTruncatesAndSaturatesToMin) {
  constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
  constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
  const Tensor x = T1<float>({1.9f, -1.9f, kNaN, 3e9f, -3e9f, kInf});
  EXPECT_THAT(Values<int32_t>(CastTo(x, DType::kInt32)),
              ElementsAre(1, -1, kMin32, kMin32, kMin32, kMin32));
  EXPECT_THAT(Values<int64_t>(CastTo(T1<double>({-2.5, 1e19, 3e9}), DType::kInt64)),
              ElementsAre(-2, kMin64, 3000000000));
  // Narrow types keep the low bits of the int32 result: 300 -> 44, -1 -> 255, -129 -> 127.
  EXPECT_THAT(Values<uint8_t>(CastTo(T1<float>({300.0f, -1.0f, 255.9f, kNaN}), DType::kUInt8)),
              ElementsAre(44, 255, 255, 0));
  EXPECT_THAT(Values<int8_t>(CastTo(T1<float>({300.0f, -129.0f, -7.5f}), DType::kInt8)),
              ElementsAre(44, 127, -7));
  EXPECT_THAT(Values<int32_t>(CastTo(HalfTensor({2.5f, -65504.0f}, {2}), DType::kInt32)),
              ElementsAre(2, -65504));
}

TEST(CastTest, BoolAndIntegerConversions) {
  EXPECT_THAT(Values<bool>(CastTo(T1<int32_t>({0, 5, -1}), DType::kBool)),
              ElementsAre(false, true, true));
  EXPECT_THAT(Values<bool>(CastTo(T1<float>({0.0f, -0.0f, 0.5f, kNaN}), DType::kBool)),
              ElementsAre(false, false, true, true));
  EXPECT_THAT(Values<float>(CastTo(T1<bool>({true, false}), DType::kFloat)), ElementsAre(1, 0));
  EXPECT_THAT(Values<int64_t>(CastTo(T1<bool>({true}), DType::kInt64)), ElementsAre(1));
  EXPECT_THAT(ValuesAsDouble(CastTo(T1<bool>({true}), DType::kHalf)), ElementsAre(1.0));
  // int64 -> int32 keeps the low 32 bits; int32 -> uint8 the low 8.
  EXPECT_THAT(Values<int32_t>(CastTo(T1<int64_t>({(int64_t{1} << 32) + 5, -1}), DType::kInt32)),
              ElementsAre(5, -1));
  EXPECT_THAT(Values<uint8_t>(CastTo(T1<int32_t>({257, -2}), DType::kUInt8)), ElementsAre(1, 254));
  EXPECT_THAT(Values<int16_t>(CastTo(T1<uint8_t>({255}), DType::kInt16)), ElementsAre(255));
}

TEST(CastTest, FloatConversions) {
  // 2049 is not a half: it rounds to even, 2048.
  EXPECT_THAT(ValuesAsDouble(CastTo(T1<int32_t>({2049, 70000}), DType::kHalf)),
              ElementsAre(2048.0, INFINITY));
  EXPECT_THAT(Values<float>(CastTo(T1<double>({0.1}), DType::kFloat)), ElementsAre(0.1f));
  EXPECT_THAT(Values<double>(CastTo(HalfTensor({0.333251953125f}, {1}), DType::kDouble)),
              ElementsAre(0.333251953125));
  // 1 + 2^-11 + 2^-13 lies above the midpoint between the halves 1 and 1 + 2^-10: rounding
  // goes up, Truncate drops the extra bits instead.
  const Tensor x = T1<float>({1.0006103515625f, -1.0006103515625f});
  EXPECT_THAT(ValuesAsDouble(CastTo(x, DType::kHalf)), ElementsAre(1.0009765625, -1.0009765625));
  EXPECT_THAT(ValuesAsDouble(CastTo(x, DType::kHalf, {{"Truncate", true}})),
              ElementsAre(1.0, -1.0));
  // 1 + 2^-24 + 2^-26 as a double: rounds up to 1 + 2^-23 as a float, truncates to 1.
  const double d = 1.0 + std::ldexp(1.0, -24) + std::ldexp(1.0, -26);
  EXPECT_THAT(Values<float>(CastTo(T1<double>({d}), DType::kFloat)),
              ElementsAre(1.0f + std::ldexp(1.0f, -23)));
  EXPECT_THAT(Values<float>(CastTo(T1<double>({d}), DType::kFloat, {{"Truncate", true}})),
              ElementsAre(1.0f));
  EXPECT_TRUE(
      std::isnan(Values<float>(CastTo(T1<double>({NAN}), DType::kFloat, {{"Truncate", true}}))[0]));
}

TEST(CastTest, UnsignedWideTypes) {
  // dtype_tests__cast__uint32_rank1 and _uint64_rank1: int32 -> uint32/uint64 keeps the value,
  // negative values wrap modulo 2^bits as in C++ and TensorFlow.
  EXPECT_THAT(Values<uint32_t>(CastTo(T1<int32_t>({7, 2, -1}), DType::kUInt32)),
              ElementsAre(7u, 2u, 4294967295u));
  EXPECT_THAT(Values<uint64_t>(CastTo(T1<int64_t>({9, -2}), DType::kUInt64)),
              ElementsAre(9u, 18446744073709551614u));
  EXPECT_THAT(Values<uint16_t>(CastTo(T1<int32_t>({65537}), DType::kUInt16)), ElementsAre(1));
  EXPECT_THAT(Values<double>(CastTo(T1<uint64_t>({uint64_t{1} << 63}), DType::kDouble)),
              ElementsAre(9223372036854775808.0));
  EXPECT_THAT(Values<float>(CastTo(T1<uint32_t>({4000000000u}), DType::kFloat)), ElementsAre(4e9f));
}

TEST(CastTest, Attributes) {
  const Tensor out = CastTo(T1<int32_t>({3}), DType::kFloat, {{"SrcT", DType::kInt32}});
  EXPECT_THAT(Values<float>(out), ElementsAre(3.0f));
  ExpectError(RunOp("Cast", {T1<int32_t>({3})}, {{"SrcT", DType::kFloat}, {"DstT", DType::kInt8}}),
              "SrcT is float32 but the input is int32[1]");
  ExpectError(RunOp("Cast", {T1<int32_t>({3})}), "DstT");
  ExpectError(RunOp("Cast", {T1<int32_t>({3})}, {{"DstT", DType::kString}}), "string");
}

}  // namespace
}  // namespace dfc
