// Simplification rules: a match, a decline with its reason, and equivalence on seeded random
// inputs.
#include "rewrite/simplify.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/rule_testing.h"

namespace dfc::rewrite {
namespace {

using namespace testing;  // NOLINT: the rule-test helpers
using ::testing::HasSubstr;

TEST(SimplifyTest, JoinOfSplitIsTheArray) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN * 4}));
  const ir::ExprPtr split = Must(ir::Call(ir::Split(4), {x}));
  const ir::ExprPtr e = Must(ir::Call(ir::Join(), {split}));
  const ir::ExprPtr id = MustRewrite(JoinSplitId(), e);
  EXPECT_EQ(id.get(), x.get());
  ExpectEquivalent(e, id, {x}, kSizes);
  EXPECT_EQ(DeclineReason(JoinSplitId(), split), "not a Join");
}

TEST(SimplifyTest, SplitOfJoinIsTheArrayOnlyForTheSameRowLength) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN, 6}));
  const ir::ExprPtr joined = Must(ir::Call(ir::Join(), {x}));
  const ir::ExprPtr same = Must(ir::Call(ir::Split(6), {joined}));
  const ir::ExprPtr id = MustRewrite(SplitJoinId(), same);
  EXPECT_EQ(id.get(), x.get());
  ExpectEquivalent(same, id, {x}, kSizes);
  const ir::ExprPtr other = Must(ir::Call(ir::Split(3), {joined}));
  EXPECT_EQ(DeclineReason(SplitJoinId(), other), "Split(3) of rows of length 6");
}

TEST(SimplifyTest, TransposeTwiceIsTheArray) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN, 3}));
  const ir::ExprPtr t = Must(ir::Call(ir::Transpose(), {x}));
  const ir::ExprPtr tt = Must(ir::Call(ir::Transpose(), {t}));
  const ir::ExprPtr id = MustRewrite(TransposeTransposeId(), tt);
  EXPECT_EQ(id.get(), x.get());
  ExpectEquivalent(tt, id, {x}, kSizes);
  EXPECT_THAT(DeclineReason(TransposeTransposeId(), t), HasSubstr("input is not a Transpose"));
}

TEST(SimplifyTest, ALetReadOnceIsInlinedAndOneReadTwiceStays) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN}));
  const ir::ExprPtr neg = Must(ir::MapOver(x, [](ir::ExprPtr v) { return ir::Call(Neg(), {v}); }));
  // (λ(v) => Map(twice) $ v) $ Map(neg) $ x: v read once.
  const ir::ExprPtr once = Must(ir::Let(neg, [](ir::ExprPtr v) {
    return ir::MapOver(v, [](ir::ExprPtr y) { return ir::Call(Twice(), {y}); });
  }));
  const ir::ExprPtr inlined = MustRewrite(LetInline(), once);
  ASSERT_NE(inlined, nullptr);
  EXPECT_EQ(MapCall(inlined)->args[0].get(), neg.get());
  ExpectEquivalent(once, inlined, {x}, kSizes);
  // Zip(v, v): inlining would compute Map(neg) twice.
  const ir::ExprPtr twice = Must(ir::Let(neg, [](ir::ExprPtr v) {
    return ir::Call(ir::Zip(2), {v, v});
  }));
  EXPECT_EQ(DeclineReason(LetInline(), twice), "the body reads v more than once");
  EXPECT_EQ(DeclineReason(LetInline(), neg), "not a let");
}

TEST(AsScalarAsVectorIdTest, VectorsOfLanesReadBackAreTheArray) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN * 8}));
  const ir::ExprPtr round_trip =
      Must(ir::Call(ir::AsScalar(), {Must(ir::Call(ir::AsVector(4), {x}))}));
  const ir::ExprPtr simplified = MustRewrite(AsScalarAsVectorId(), round_trip);
  EXPECT_EQ(simplified.get(), x.get());
  ExpectEquivalent(round_trip, simplified, {x}, kSizes);
  EXPECT_EQ(DeclineReason(AsScalarAsVectorId(), x), "not AsScalar");
  const ir::ParamPtr v = ir::MakeParam("v", ir::ArrayType(ir::VectorType(DType::kFloat, 4), kN));
  EXPECT_EQ(DeclineReason(AsScalarAsVectorId(), Must(ir::Call(ir::AsScalar(), {v}))),
            "AsScalar's input is not AsVector");
}

}  // namespace
}  // namespace dfc::rewrite
