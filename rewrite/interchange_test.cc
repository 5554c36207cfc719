// mapReduceInterchange, mapMapInterchange and blockRows: matches, declines with their reasons,
// and equivalence on seeded random inputs (exact: every column keeps its own fold, in the same
// order).
#include "rewrite/interchange.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "rewrite/rule_testing.h"
#include "rewrite/vectorize.h"

namespace dfc::rewrite {
namespace {

using namespace testing;  // NOLINT: the rule-test helpers
using ::testing::HasSubstr;

TEST(MapReduceInterchangeTest, OneWalkOverTheRowUpdatesEveryColumn) {
  const ir::ParamPtr row = ir::MakeParam("row", Ints({12}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({12, 5}));
  const ir::ExprPtr e = Must(DotEachColumn(row, b));
  const ir::ExprPtr swapped = MustRewrite(MapReduceInterchange(), e);
  ASSERT_NE(swapped, nullptr);
  // Map(λv => v) $ Reduce(...)(Repeat(5) $ 0, Transpose $ Map(...) $ Transpose(b)): the
  // Reduce's accumulator is the array of the 5 columns' sums.
  const ir::FunCall* map = MapCall(swapped);
  ASSERT_NE(map, nullptr);
  const ir::FunCall* reduce = ReduceCall(map->args[0]);
  ASSERT_NE(reduce, nullptr);
  EXPECT_EQ(ir::TypeToString(reduce->args[0]->type), "[int32]_5");
  EXPECT_EQ(reduce->args[1]->type->length, ArithExpr(12));
  ExpectEquivalent(e, swapped, {row, b}, kSizes);
}

TEST(MapReduceInterchangeTest, TheInnermostReduceIsInterchangedAndTheRestMapped) {
  // Map(λcol => neg(Reduce(...))): the body reads col only through the Reduce.
  const ir::ParamPtr row = ir::MakeParam("row", Ints({kN}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({kN, 3}));
  const ir::ExprPtr columns = Must(ir::Call(ir::Transpose(), {b}));
  const ir::ExprPtr e =
      Must(ir::MapOver(columns, [&](ir::ExprPtr col) -> absl::StatusOr<ir::ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr dot, Dot(row, col));
        return ir::Call(IntAdd(), {dot, ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 7))});
      }));
  const ir::ExprPtr swapped = MustRewrite(MapReduceInterchange(), e);
  ExpectEquivalent(e, swapped, {row, b}, kSizes);
}

TEST(MapReduceInterchangeTest, DeclinesWithTheReason) {
  const ir::ParamPtr x = ir::MakeParam("x", Ints({kN, 4}));
  EXPECT_EQ(DeclineReason(MapReduceInterchange(), x), "not a high-level Map");
  const ir::ExprPtr rows = Must(ir::Call(ir::Map(ir::Id()), {x}));
  EXPECT_EQ(DeclineReason(MapReduceInterchange(), rows), "the Map's function is not a λ");
  const ir::ExprPtr negated = Must(ir::MapOver(x, [](ir::ExprPtr r) {
    return ir::MapOver(r, [](ir::ExprPtr v) { return ir::Call(IntAdd(), {v, v}); });
  }));
  EXPECT_EQ(DeclineReason(MapReduceInterchange(), negated),
            "no Reduce in the Map's body reads its element");
  // The row's sum added to each of its elements: the body reads the row outside the Reduce.
  const ir::ExprPtr centred = Must(ir::MapOver(x, [](ir::ExprPtr r) -> absl::StatusOr<ir::ExprPtr> {
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr sum,
                         ir::ReduceOver(ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)), r,
                                        [](ir::ExprPtr a, ir::ExprPtr v) {
                                          return ir::Call(IntAdd(), {a, v});
                                        }));
    return ir::MapOver(r, [&](ir::ExprPtr v) { return ir::Call(IntAdd(), {v, sum}); });
  }));
  EXPECT_THAT(DeclineReason(MapReduceInterchange(), centred), HasSubstr("leaves other reads"));
}

TEST(MapMapInterchangeTest, TheOtherWalkOutsideAndTheResultTransposed) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({5}));
  // The outer product: Map(λx => Map(λy => imul(x, y)) $ b) $ a.
  const ir::ExprPtr e = Must(ir::MapOver(a, [&](ir::ExprPtr x) {
    return ir::MapOver(
        b,
        [&](ir::ExprPtr y) {
          return ir::Call(IntMul(), {x, y});
        },
        "y");
  }));
  const ir::ExprPtr swapped = MustRewrite(MapMapInterchange(), e);
  ASSERT_NE(swapped, nullptr);
  EXPECT_NE(CallOf(swapped, ir::Fun::Kind::kTranspose), nullptr);
  ExpectEquivalent(e, swapped, {a, b}, kSizes);
}

TEST(MapMapInterchangeTest, DeclinesWithTheReason) {
  const ir::ParamPtr m = ir::MakeParam("m", Ints({kN, 3}));
  EXPECT_EQ(DeclineReason(MapMapInterchange(), m), "not a high-level Map");
  // The inner walk is over the outer element itself.
  const ir::ExprPtr rows = Must(ir::MapOver(m, [](ir::ExprPtr r) {
    return ir::MapOver(r, [](ir::ExprPtr v) { return ir::Call(IntAdd(), {v, v}); });
  }));
  EXPECT_EQ(DeclineReason(MapMapInterchange(), rows),
            "the inner Map's array depends on the outer element");
  const ir::ExprPtr sums = Must(ir::MapOver(m, [](ir::ExprPtr r) {
    return ir::ReduceOver(ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)), r,
                          [](ir::ExprPtr acc, ir::ExprPtr v) {
                            return ir::Call(IntAdd(), {acc, v});
                          });
  }));
  EXPECT_EQ(DeclineReason(MapMapInterchange(), sums), "the Map's body is not a high-level Map");
}

// A MatMul's Map over a's rows, 4 rows a work-item: for each column of b, the 4 rows' dot
// products fold together (mapReduceInterchange inside the block), each element of the column
// read once for the 4 rows.
TEST(BlockRowsTest, BlocksOfRowsShareEachColumn) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({8, 7}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({7, kN}));
  const ir::ExprPtr product = Must(MatMul(a, b));
  absl::StatusOr<std::vector<ir::ExprPtr>> places = ApplyAtEach(BlockRows(4), product);
  ASSERT_TRUE(places.ok()) << places.status();
  ASSERT_EQ(places->size(), 1u);  // the Map over columns has no Map in its body
  const std::string text = ir::ToString(places->front());
  EXPECT_THAT(text, HasSubstr("Join() o MapGlb(0)("));
  EXPECT_THAT(text, HasSubstr("Split(4) $ a"));
  EXPECT_THAT(text, HasSubstr("Repeat(4)"));  // the block's 4 accumulators
  ExpectEquivalent(product, places->front(), {a, b}, kSizes);
}

// Over b's columns vectorised first (AsScalar $ Map(...) over vectors of 4 columns): the view
// is mapped over the block's rows.
TEST(BlockRowsTest, ViewsOfTheInnerMapAreMappedOverTheBlock) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({6, 5}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({5, 12}));
  const ir::ExprPtr product = Must(MatMul(a, b));
  absl::StatusOr<std::vector<ir::ExprPtr>> vectorised = ApplyAtEach(VectorizeColumns(4), product);
  ASSERT_TRUE(vectorised.ok()) << vectorised.status();
  ASSERT_EQ(vectorised->size(), 1u);  // b's columns; a's 6 rows are no multiple of 4
  const ir::ExprPtr blocked = MustRewrite(BlockRows(2), vectorised->front());
  ASSERT_NE(blocked, nullptr);
  EXPECT_THAT(ir::ToString(blocked), HasSubstr("Map(AsScalar())"));
  ExpectEquivalent(product, blocked, {a, b}, kSizes);
}

TEST(BlockRowsTest, DeclinesWithTheReason) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 4}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({4, 3}));
  EXPECT_EQ(DeclineReason(BlockRows(4), a), "not a high-level Map");
  EXPECT_EQ(DeclineReason(BlockRows(4), Must(MatMul(a, b))),
            "the N rows are not known to be a multiple of 4");
  const ir::ParamPtr m = ir::MakeParam("m", Ints({8, 3}));
  EXPECT_EQ(DeclineReason(BlockRows(4), Must(ir::Call(ir::Map(ir::Id()), {m}))),
            "the Map's function is not a λ");
  const ir::ExprPtr sums = Must(ir::MapOver(m, [](ir::ExprPtr r) {
    return ir::ReduceOver(ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)), r,
                          [](ir::ExprPtr acc, ir::ExprPtr v) {
                            return ir::Call(IntAdd(), {acc, v});
                          });
  }));
  EXPECT_EQ(DeclineReason(BlockRows(4), sums),
            "the Map's body is not a high-level Map, nor views of one");
  const ir::ExprPtr doubled = Must(ir::MapOver(m, [](ir::ExprPtr r) {
    return ir::MapOver(r, [](ir::ExprPtr v) { return ir::Call(IntAdd(), {v, v}); });
  }));
  EXPECT_EQ(DeclineReason(BlockRows(4), doubled),
            "the inner Map's array depends on the outer element");
}

}  // namespace
}  // namespace dfc::rewrite
