// Fusion rules: a match, a decline with its reason, and equivalence on seeded random inputs.
#include "rewrite/fusion.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/lower/lower_util.h"
#include "rewrite/simplify.h"
#include "tests/rule_testing.h"

namespace dfc::rewrite {
namespace {

using namespace testing;  // NOLINT: the rule-test helpers
using ::testing::HasSubstr;

TEST(MapFusionTest, TwoMapsBecomeOneWalk) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN, 5}));
  // Map(λ row => Map(neg) row) $ (Map(λ row => Map(twice) row) $ x)
  const ir::ExprPtr inner = Must(ir::MapOver(x, [](ir::ExprPtr row) {
    return ir::MapScalars(row, [](ir::ExprPtr v) { return ir::Call(Twice(), {v}); });
  }));
  const ir::ExprPtr e = Must(ir::MapOver(inner, [](ir::ExprPtr row) {
    return ir::MapScalars(row, [](ir::ExprPtr v) { return ir::Call(Neg(), {v}); });
  }));
  const ir::ExprPtr fused = MustRewrite(MapFusion(), e);
  ASSERT_NE(fused, nullptr);
  // One Map over x at the top, both functions inside.
  EXPECT_EQ(MapCall(fused)->args[0].get(), x.get());
  ExpectEquivalent(e, fused, {x}, kSizes);
  // The fused function applies the two row functions as lets; inlined, the rows' own Maps
  // meet and fuse too.
  int count = 0;
  absl::StatusOr<ir::ExprPtr> inlined = ApplyEverywhere(LetInline(), fused, &count);
  ASSERT_TRUE(inlined.ok()) << inlined.status();
  EXPECT_EQ(count, 2);
  absl::StatusOr<ir::ExprPtr> all = ApplyEverywhere(MapFusion(), *inlined, &count);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_EQ(count, 1);
  ExpectEquivalent(e, *all, {x}, kSizes);
}

TEST(MapFusionTest, DeclinesWithTheReason) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN}));
  EXPECT_EQ(DeclineReason(MapFusion(), x), "not a Map");
  const ir::ExprPtr one = Must(ir::MapOver(x, [](ir::ExprPtr v) { return ir::Call(Neg(), {v}); }));
  EXPECT_EQ(DeclineReason(MapFusion(), one), "the Map's input is not a Map");
  // A MapSeq over a Map: fusing would change the mapping.
  const ir::ExprPtr seq = Must(ir::Call(ir::MapSeq(Twice()), {one}));
  EXPECT_THAT(DeclineReason(MapFusion(), seq), HasSubstr("the Maps are MapSeq and Map"));
}

TEST(ReduceMapFusionTest, ASumOfMappedElementsFoldsTheMapIn) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN}));
  const ir::ExprPtr twice =
      Must(ir::MapOver(x, [](ir::ExprPtr v) { return ir::Call(Twice(), {v}); }));
  const ir::ExprPtr sum =
      Must(ir::ReduceOver(ir::Lit(DType::kFloat, 0), twice, [](ir::ExprPtr a, ir::ExprPtr v) {
        return ir::Call(Add(), {a, v});
      }));
  const ir::ExprPtr fused = MustRewrite(ReduceMapFusion(), sum);
  ASSERT_NE(fused, nullptr);
  EXPECT_EQ(ReduceCall(fused)->args[1].get(), x.get());
  ExpectEquivalent(sum, fused, {x}, kSizes);
  EXPECT_EQ(DeclineReason(ReduceMapFusion(), twice), "not a Reduce");
  const ir::ExprPtr plain =
      Must(ir::ReduceOver(ir::Lit(DType::kFloat, 0), x, [](ir::ExprPtr a, ir::ExprPtr v) {
        return ir::Call(Add(), {a, v});
      }));
  EXPECT_EQ(DeclineReason(ReduceMapFusion(), plain), "the Reduce's input is not a Map");
}

TEST(ZipMapFusionTest, MapsFuseIntoTheZipThatPairsThem) {
  const ir::ParamPtr a = ir::MakeParam("a", Floats({kN}));
  const ir::ParamPtr b = ir::MakeParam("b", Floats({kN}));
  const ir::ExprPtr e = Must(ir::Call(
      ir::Zip(2), {Must(ir::Call(ir::Map(Neg()), {a})), Must(ir::Call(ir::Map(Twice()), {b}))}));
  const ir::ExprPtr fused = MustRewrite(ZipMapFusion(), e);
  ASSERT_NE(fused, nullptr);
  const ir::FunCall* map = MapCall(fused);
  ASSERT_NE(map, nullptr);
  EXPECT_NE(CallOf(map->args[0], ir::Fun::Kind::kZip), nullptr);
  ExpectEquivalent(e, fused, {a, b}, kSizes);
  // One argument that is not a Map: nothing to fuse.
  const ir::ExprPtr half = Must(ir::Call(ir::Zip(2), {Must(ir::Call(ir::Map(Neg()), {a})), b}));
  EXPECT_EQ(DeclineReason(ZipMapFusion(), half), "an argument of the Zip is not a high-level Map");
  EXPECT_EQ(DeclineReason(ZipMapFusion(), a), "not a Zip");
}

TEST(ReduceFusionTest, TwoReducesOverOneArrayBecomeOneWalkWithATupleAccumulator) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN}));
  auto reduce = [&](ir::FunPtr step, double init) {
    return Must(
        ir::ReduceOver(ir::Lit(DType::kFloat, init), x, [&](ir::ExprPtr acc, ir::ExprPtr v) {
          return ir::Call(step, {acc, v});
        }));
  };
  // The sum, and a fold that is no combiner (acc * 0.5 + x, order matters): both keep their
  // order in the fused walk, so even the float values are equal.
  const ir::FunPtr halve_add = ir::MakeUserFun(
      "halve_add", {"acc", "x"}, "return acc * 0.5f + x;", {DType::kFloat, DType::kFloat},
      DType::kFloat, [](std::span<const ir::Scalar> p) -> absl::StatusOr<ir::Scalar> {
        return ir::Scalar::Float(DType::kFloat,
                                 static_cast<float>(p[0].f) * 0.5f + static_cast<float>(p[1].f));
      });
  const ir::ExprPtr e = Must(ir::Call(ir::Tuple(2), {reduce(Add(), 0), reduce(halve_add, 1)}));
  const ir::ExprPtr fused = MustRewrite(ReduceFusion(), e);
  ASSERT_NE(fused, nullptr);
  EXPECT_NE(ReduceCall(fused), nullptr);
  ExpectEquivalent(e, fused, {x}, kSizes);

  const ir::ParamPtr y = ir::MakeParam("y", Floats({kN}));
  const ir::ExprPtr other =
      Must(ir::ReduceOver(ir::Lit(DType::kFloat, 0), y, [](ir::ExprPtr acc, ir::ExprPtr v) {
        return ir::Call(Add(), {acc, v});
      }));
  EXPECT_EQ(DeclineReason(ReduceFusion(), Must(ir::Call(ir::Tuple(2), {reduce(Add(), 0), other}))),
            "the Reduces walk different arrays");
  EXPECT_EQ(DeclineReason(ReduceFusion(), Must(ir::Call(ir::Tuple(2), {reduce(Add(), 0), x}))),
            "a field of the Tuple is not a high-level Reduce");
}

}  // namespace
}  // namespace dfc::rewrite
