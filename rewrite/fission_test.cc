// splitJoin: a match, a decline with its reason, and equivalence on seeded random inputs, over
// symbolic and constant lengths.
#include "rewrite/fission.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/rule_testing.h"

namespace dfc::rewrite {
namespace {

using namespace testing;  // NOLINT: the rule-test helpers
using ::testing::HasSubstr;

TEST(SplitJoinTest, AMapOverChunksComputesTheSameArray) {
  for (const ArithExpr& length : {kN * 8, ArithExpr(24)}) {
    SCOPED_TRACE(length.ToString());
    const ir::ParamPtr x = ir::MakeParam("x", Floats({length, 2}));
    const ir::ExprPtr e = Must(ir::MapOver(x, [](ir::ExprPtr row) {
      return ir::MapOver(row, [](ir::ExprPtr v) { return ir::Call(Neg(), {v}); });
    }));
    const ir::ExprPtr split = MustRewrite(SplitJoin(4), e);
    ASSERT_NE(split, nullptr);
    EXPECT_NE(CallOf(split, ir::Fun::Kind::kJoin), nullptr);
    ExpectEquivalent(e, split, {x}, kSizes);
  }
}

TEST(SplitJoinTest, DeclinesALengthNotKnownToBeAMultiple) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN}));
  const ir::ExprPtr e = Must(ir::MapOver(x, [](ir::ExprPtr v) { return ir::Call(Neg(), {v}); }));
  EXPECT_EQ(DeclineReason(SplitJoin(4), e), "length N is not known to be a multiple of 4");
  const ir::ParamPtr y = ir::MakeParam("y", Floats({10}));
  const ir::ExprPtr f = Must(ir::MapOver(y, [](ir::ExprPtr v) { return ir::Call(Neg(), {v}); }));
  EXPECT_EQ(DeclineReason(SplitJoin(4), f), "length 10 is not known to be a multiple of 4");
  const ir::ExprPtr lowered = Must(ir::Call(ir::MapGlb(0, Neg()), {y}));
  EXPECT_THAT(DeclineReason(SplitJoin(2), lowered), HasSubstr("not a high-level Map"));
}

TEST(PartialReduceTest, ChunksFoldedOnTheirOwnThenTogether) {
  for (const ArithExpr& length : {kN * 4, ArithExpr(12)}) {
    SCOPED_TRACE(length.ToString());
    const ir::ParamPtr a = ir::MakeParam("a", Ints({length}));
    const ir::ParamPtr b = ir::MakeParam("b", Ints({length}));
    const ir::ExprPtr e = Must(Dot(a, b));
    const ir::ExprPtr partial = MustRewrite(PartialReduce(4), e);
    ASSERT_NE(partial, nullptr);
    EXPECT_THAT(ir::ToString(partial), HasSubstr("Split(4)"));
    ExpectEquivalent(e, partial, {a, b}, kSizes);
  }
}

TEST(PartialReduceTest, DeclinesWithTheReason) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({10}));
  EXPECT_EQ(DeclineReason(PartialReduce(4), Must(Dot(a, a))),
            "length 10 is not known to be a multiple of 4");
  EXPECT_EQ(DeclineReason(PartialReduce(2), Must(Dot(a, a, 3))),
            "init is not left unchanged by combining it with itself");
  EXPECT_EQ(DeclineReason(PartialReduce(2), a), "not a high-level Reduce");
}

}  // namespace
}  // namespace dfc::rewrite
