// Type inference, type errors, structural equality and hashing of IR expressions.
#include "ir/expr.h"

#include <cstdint>
#include <limits>

#include "base/check.h"
#include "base/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/from_tf/translate_util.h"
#include "ir/printer.h"

namespace dfc::ir {
namespace {

using ::testing::HasSubstr;

const ArithExpr N = ArithExpr::Var("N");

TypePtr F32(SymbolicShape shape) { return TensorType(DType::kFloat, shape); }

FunPtr Neg() {
  return MakeUserFun("neg", {"x"}, "return -x;", {DType::kFloat}, DType::kFloat,
                     [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       return Scalar::Float(DType::kFloat, -a[0].f);
                     });
}

FunPtr Add() {
  return MakeUserFun("add", {"x", "y"}, "return x + y;", {DType::kFloat, DType::kFloat},
                     DType::kFloat, [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       return Scalar::Float(
                           DType::kFloat, static_cast<float>(a[0].f) + static_cast<float>(a[1].f));
                     });
}

ExprPtr Must(absl::StatusOr<ExprPtr> e) {
  DFC_CHECK_OK(e.status());
  return *e;
}

TEST(TypeTest, TensorTypesNestArraysOutermostFirst) {
  TypePtr t = F32({N, 784});
  EXPECT_EQ(TypeToString(t), "[[float32]_784]_N");
  EXPECT_EQ(ShapeToString(*TensorShape(t)), "[N,784]");
  EXPECT_EQ(BaseDType(t), DType::kFloat);
  EXPECT_EQ(ArrayDepth(t), 2);
  EXPECT_EQ(TypeToString(F32({})), "float32");
  EXPECT_EQ(TypeToString(TupleType({ScalarType(DType::kInt32), VectorType(DType::kFloat, 4)})),
            "(int32, float32<4>)");
}

TEST(TypeTest, LengthsCompareThroughTheSimplifier) {
  EXPECT_TRUE(TypeEquals(F32({N * 784}), F32({784 * N})));
  EXPECT_EQ(TypeHash(F32({N * 784})), TypeHash(F32({784 * N})));
  EXPECT_FALSE(TypeEquals(F32({N * 784}), F32({N * 783})));
  EXPECT_FALSE(TypeEquals(F32({N}), TensorType(DType::kDouble, {N})));
}

TEST(ExprTest, MapInfersTheElementResult) {
  ParamPtr a = MakeParam("A", F32({N, 784}));
  ExprPtr e = Must(MapOver(
      a, [](ExprPtr row) { return MapScalars(row, [](ExprPtr x) { return Call(Neg(), {x}); }); }));
  EXPECT_TRUE(TypeEquals(e->type, F32({N, 784})));
}

TEST(ExprTest, SplitJoinTransposeTypes) {
  ParamPtr a = MakeParam("A", F32({N * 784}));
  ExprPtr split = Must(Call(Split(784), {a}));
  EXPECT_EQ(TypeToString(split->type), "[[float32]_784]_N");
  ExprPtr joined = Must(Call(Join(), {split}));
  EXPECT_TRUE(TypeEquals(joined->type, a->type));
  ExprPtr t = Must(Call(Transpose(), {split}));
  EXPECT_EQ(TypeToString(t->type), "[[float32]_N]_784");
  ExprPtr slid = Must(Call(Slide(3, 1), {MakeParam("B", F32({10}))}));
  EXPECT_EQ(TypeToString(slid->type), "[[float32]_3]_8");
  ExprPtr padded = Must(Call(Pad(1, 2, PadMode::kClamp), {MakeParam("C", F32({N}))}));
  EXPECT_EQ(TypeToString(padded->type), "[float32]_(N + 3)");
  ExprPtr vec = Must(Call(AsVector(4), {MakeParam("D", F32({N * 16}))}));
  EXPECT_EQ(TypeToString(vec->type), "[float32<4>]_(N*4)");
  EXPECT_TRUE(TypeEquals(Must(Call(AsScalar(), {vec}))->type, F32({16 * N})));
}

// Rows of no elements would be any number of rows: a type error, not a division by zero.
TEST(ExprTest, SplitIntoRowsOfZeroIsATypeError) {
  absl::StatusOr<ExprPtr> split = Call(Split(0), {MakeParam("A", F32({0}))});
  ASSERT_FALSE(split.ok());
  EXPECT_THAT(std::string(split.status().message()), HasSubstr("rows of 0 elements"));
}

// A length past int64 (sizes an absurd graph supplies) is a type error, not an abort.
TEST(ExprTest, LengthsPastInt64AreTypeErrors) {
  constexpr int64_t kBig = int64_t{1} << 40;
  absl::StatusOr<ExprPtr> joined = Call(Join(), {MakeParam("A", F32({kBig, kBig}))});
  ASSERT_FALSE(joined.ok());
  EXPECT_THAT(std::string(joined.status().message()), HasSubstr("Join()"));
  EXPECT_THAT(std::string(joined.status().message()), HasSubstr("overflows int64"));
  const int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_FALSE(Call(Pad(1, 0, PadMode::kClamp), {MakeParam("B", F32({max}))}).ok());
  EXPECT_FALSE(Call(Concat(2), {MakeParam("C", F32({max})), MakeParam("D", F32({1}))}).ok());
  ParamPtr vectors =
      MakeParam("E", ArrayType(VectorType(DType::kFloat, 16), ArithExpr(int64_t{1} << 61)));
  EXPECT_FALSE(Call(AsScalar(), {vectors}).ok());
}

TEST(ExprTest, ReduceReturnsTheAccumulatorNotAnArray) {
  ParamPtr a = MakeParam("A", F32({N}));
  ExprPtr sum = Must(ReduceOver(Lit(DType::kFloat, 0), a, [](ExprPtr acc, ExprPtr x) {
    return Call(Add(), {acc, x});
  }));
  EXPECT_TRUE(TypeEquals(sum->type, ScalarType(DType::kFloat)));
}

TEST(ExprTest, TypeErrorsNameThePatternAndBothTypes) {
  ParamPtr a = MakeParam("A", F32({10}));
  ParamPtr b = MakeParam("B", F32({784}));
  auto zip = Call(Zip(2), {a, b});
  ASSERT_FALSE(zip.ok());
  EXPECT_THAT(std::string(zip.status().message()), HasSubstr("Zip(2)"));
  EXPECT_THAT(std::string(zip.status().message()), HasSubstr("[float32]_784"));
  EXPECT_THAT(std::string(zip.status().message()), HasSubstr("[float32]_10"));

  auto split = Call(Split(3), {a});
  ASSERT_FALSE(split.ok());
  EXPECT_THAT(std::string(split.status().message()), HasSubstr("3 does not divide 10"));

  auto neg = Call(Neg(), {a});
  ASSERT_FALSE(neg.ok());
  EXPECT_THAT(std::string(neg.status().message()),
              HasSubstr("neg: argument 0 has type [float32]_10, expected float32"));

  auto map = Call(Map(Neg()), {MakeParam("C", F32({10, 3}))});
  ASSERT_FALSE(map.ok());
  EXPECT_THAT(std::string(map.status().message()), HasSubstr("Map: on [[float32]_3]_10"));

  auto join = Call(Join(), {a});
  EXPECT_FALSE(join.ok());
  auto get = Call(Get(0), {a});
  EXPECT_FALSE(get.ok());
}

TEST(ExprTest, UserFunsApplyLaneByLaneToVectors) {
  ParamPtr v = MakeParam("v", VectorType(DType::kFloat, 4));
  ExprPtr e = Must(Call(Neg(), {v}));
  EXPECT_EQ(TypeToString(e->type), "float32<4>");
  // A scalar beside a vector is the same in every lane, in either position.
  ParamPtr s = MakeParam("s", ScalarType(DType::kFloat));
  EXPECT_EQ(TypeToString(Must(Call(Add(), {v, s}))->type), "float32<4>");
  EXPECT_EQ(TypeToString(Must(Call(Add(), {s, v}))->type), "float32<4>");
  // Vectors of two widths are not.
  ParamPtr w = MakeParam("w", VectorType(DType::kFloat, 8));
  EXPECT_FALSE(Call(Add(), {v, w}).ok());
}

TEST(ExprTest, StructuralEqualityIsUpToBoundNames) {
  ParamPtr a = MakeParam("A", F32({N, 4}));
  auto build = [&](const char* name) {
    return Must(MapOver(
        a, [](ExprPtr row) { return MapScalars(row, [](ExprPtr x) { return Call(Neg(), {x}); }); },
        name));
  };
  ExprPtr e1 = build("x");
  ExprPtr e2 = build("row");
  EXPECT_TRUE(ExprEquals(e1, e2));
  EXPECT_EQ(ExprHash(e1), ExprHash(e2));

  // A different free variable is a different expression.
  ParamPtr other = MakeParam("A", F32({N, 4}));
  ExprPtr e3 = Must(MapOver(other, [](ExprPtr row) {
    return MapScalars(row, [](ExprPtr x) { return Call(Neg(), {x}); });
  }));
  EXPECT_FALSE(ExprEquals(e1, e3));
  // A different function is too.
  ExprPtr e4 = Must(MapOver(a, [](ExprPtr row) { return Call(Id(), {row}); }));
  EXPECT_FALSE(ExprEquals(e1, e4));
}

TEST(ExprTest, LowerPatternsShareTheirHighLevelTypeRules) {
  ParamPtr a = MakeParam("A", F32({N, 4}));
  ExprPtr e = Must(Call(MapGlb(0, MapSeq(Neg())), {a}));
  EXPECT_TRUE(TypeEquals(e->type, a->type));
  ExprPtr r = Must(Call(ToGlobal(MapSeq(Neg())), {MakeParam("B", F32({4}))}));
  EXPECT_EQ(TypeToString(r->type), "[float32]_4");
}

TEST(PrinterTest, LiftNotation) {
  ParamPtr a = MakeParam("A", F32({N, 784}));
  ExprPtr t = Must(Call(Transpose(), {a}));
  ExprPtr e = Must(Call(Map(Map(Neg())), {t}));
  EXPECT_EQ(ToString(e), "Map(Map(neg)) o Transpose() $ A");

  ExprPtr nested = Must(MapOver(a, [](ExprPtr row) {
    return MapOver(row, [&](ExprPtr x) { return Call(Add(), {x, x}); });
  }));
  EXPECT_EQ(ToString(nested), "Map(λ(x) => Map(λ(x1) => add(x1, x1)) $ x) $ A");

  ExprPtr let = Must(Let(
      Must(Call(Map(Map(Neg())), {a})),
      [](ExprPtr v) {
        return Call(Zip(2), {v, v});
      },
      "v"));
  EXPECT_EQ(ToString(let), "(λ(v) => Zip(2) $ (v, v)) $ (Map(Map(neg)) $ A)");
}

}  // namespace
}  // namespace dfc::ir
