// vectorizeReduce(w): a match, declines with their reasons, and equivalence on seeded random
// inputs — exact on integers, whose sums do not depend on their order.
#include "rewrite/vectorize.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rewrite/interchange.h"
#include "rewrite/rule_testing.h"

namespace dfc::rewrite {
namespace {

using namespace testing;  // NOLINT: the rule-test helpers
using ::testing::HasSubstr;

ir::ExprPtr IntDot(const ir::ExprPtr& a, const ir::ExprPtr& b, int64_t init = 0) {
  return Must(Dot(a, b, init));
}

TEST(VectorizeReduceTest, ADotProductOverVectorsOfLanes) {
  for (int w : {2, 4, 8, 16}) {
    SCOPED_TRACE(w);
    const ir::ParamPtr a = ir::MakeParam("a", Ints({kN * 16}));
    const ir::ParamPtr b = ir::MakeParam("b", Ints({kN * 16}));
    const ir::ExprPtr e = IntDot(a, b);
    const ir::ExprPtr vectorised = MustRewrite(VectorizeReduce(w), e);
    ASSERT_NE(vectorised, nullptr);
    EXPECT_THAT(ir::ToString(vectorised), HasSubstr(absl::StrCat("AsVector(", w, ")")));
    EXPECT_THAT(ir::ToString(vectorised), HasSubstr("AsScalar()"));
    ExpectEquivalent(e, vectorised, {a, b}, kSizes);
  }
}

TEST(VectorizeReduceTest, AnArrayThatIsNotAMapIsReadAsVectors) {
  const ir::ParamPtr x = ir::MakeParam("x", Ints({24}));
  const ir::ExprPtr sum = Must(ir::ReduceOver(ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)), x,
                                              [](ir::ExprPtr acc, ir::ExprPtr v) {
                                                return ir::Call(IntAdd(), {acc, v});
                                              }));
  const ir::ExprPtr vectorised = MustRewrite(VectorizeReduce(8), sum);
  ExpectEquivalent(sum, vectorised, {x}, kSizes);
}

TEST(VectorizeReduceTest, ComposesWithInterchangeIntoOneWalkOverVectors) {
  // What the explorer finds for a MatMul: lanes per column, then one walk over the row's
  // vectors updating every column's lanes.
  const ir::ParamPtr row = ir::MakeParam("row", Ints({32}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({32, 3}));
  const ir::ExprPtr e = Must(DotEachColumn(row, b));
  const ir::ExprPtr vectorised = Must(ApplyOnce(VectorizeReduce(4), e));
  ASSERT_NE(vectorised, nullptr);
  const ir::ExprPtr swapped = MustRewrite(MapReduceInterchange(), vectorised);
  ASSERT_NE(swapped, nullptr);
  EXPECT_THAT(ir::ToString(swapped), HasSubstr("Repeat(3)"));
  ExpectEquivalent(e, swapped, {row, b}, kSizes);
}

TEST(VectorizeReduceTest, DeclinesWithTheReason) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({12}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({12}));
  EXPECT_EQ(DeclineReason(VectorizeReduce(8), IntDot(a, b)),
            "length 12 is not known to be a multiple of 8");
  const ir::ParamPtr n = ir::MakeParam("n", Ints({kN}));
  EXPECT_EQ(DeclineReason(VectorizeReduce(4), IntDot(n, n)),
            "length N is not known to be a multiple of 4");
  // Starting every lane at 1 would add 1 per lane.
  EXPECT_EQ(DeclineReason(VectorizeReduce(4), IntDot(a, b, 1)),
            "init is not left unchanged by combining it with itself");
  // A fold whose step is not a combiner (its order matters).
  const ir::ExprPtr ordered = Must(ir::ReduceOver(
      ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)), a, [](ir::ExprPtr acc, ir::ExprPtr v) {
        return ir::Call(IntMul(), {acc, v});
      }));
  EXPECT_EQ(DeclineReason(VectorizeReduce(4), ordered), "the step is not a combiner");
  EXPECT_EQ(DeclineReason(VectorizeReduce(4), a), "not a high-level Reduce");
}

TEST(VectorizeMapTest, AUserFunMappedOverVectorsOfLanes) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN * 8}));
  const ir::ExprPtr e = Must(ir::Call(ir::Map(Neg()), {x}));
  const ir::ExprPtr vectorised = MustRewrite(VectorizeMap(8), e);
  ASSERT_NE(vectorised, nullptr);
  EXPECT_EQ(ir::ToString(vectorised).rfind("AsScalar", 0), 0u) << ir::ToString(vectorised);
  ExpectEquivalent(e, vectorised, {x}, kSizes);
  const ir::ParamPtr odd = ir::MakeParam("odd", Floats({10}));
  EXPECT_EQ(DeclineReason(VectorizeMap(4), Must(ir::Call(ir::Map(Neg()), {odd}))),
            "length 10 is not known to be a multiple of 4");
  const ir::ExprPtr lambda =
      Must(ir::MapOver(x, [](ir::ExprPtr v) { return ir::Call(Neg(), {v}); }));
  EXPECT_EQ(DeclineReason(VectorizeMap(8), lambda), "the Map's function is not a UserFun");
}

}  // namespace
}  // namespace dfc::rewrite
