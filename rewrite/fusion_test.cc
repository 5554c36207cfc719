// Fusion rules: a match, a decline with its reason, and equivalence on seeded random inputs.
#include "rewrite/fusion.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/lower/lower_util.h"
#include "rewrite/rule_testing.h"
#include "rewrite/simplify.h"

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

}  // namespace
}  // namespace dfc::rewrite
