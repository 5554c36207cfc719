// mapReduceInterchange and blockRows: matches, declines with their reasons, and equivalence on
// seeded random inputs (exact: every column keeps its own fold, in the same order).
#include "rewrite/interchange.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "rewrite/vectorize.h"
#include "tests/rule_testing.h"

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

// A MatMul's Map over a's rows, 4 rows a work-item: for each column of b, the 4 rows' dot
// products fold together (mapReduceInterchange inside the block), each element of the column
// read once for the 4 rows.
TEST(BlockRowsTest, BlocksOfRowsShareEachColumn) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({8, 7}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({7, kN}));
  const ir::ExprPtr product = Must(MatMul(a, b));
  const ir::ExprPtr blocked = MustRewrite(BlockRows(4), product);
  ASSERT_NE(blocked, nullptr);
  const std::string text = ir::ToString(blocked);
  EXPECT_THAT(text, HasSubstr("Join() o MapGlb(0)("));
  EXPECT_THAT(text, HasSubstr("Split(4) $ a"));
  EXPECT_THAT(text, HasSubstr("Repeat(4)"));  // the block's 4 accumulators
  ExpectEquivalent(product, blocked, {a, b}, kSizes);
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

// Row counts past a multiple of the block (and under one block): the padded rows are dropped.
const std::vector<SizeBindings> kRaggedSizes = {
    {{"N", 1}}, {{"N", 3}}, {{"N", 5}}, {{"N", 13}}, {{"N", 96}}};

// N rows, not known to be a multiple of 4: the last block repeats the last row, and the result
// keeps the first N rows.
TEST(BlockRowsTest, RowsPastAMultipleArePaddedAndDropped) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 7}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({7, 5}));
  const ir::ExprPtr product = Must(MatMul(a, b));
  const ir::ExprPtr blocked = MustRewrite(BlockRows(4), product);
  ASSERT_NE(blocked, nullptr);
  const std::string text = ir::ToString(blocked);
  EXPECT_THAT(text, HasSubstr("Reindex(N"));
  EXPECT_THAT(text, HasSubstr("Split(4) o Pad(0, "));
  EXPECT_EQ(ir::TypeToString(blocked->type), "[[int32]_5]_N");
  ExpectEquivalent(product, blocked, {a, b}, kRaggedSizes);
}

// Each row's sum of its products: the rest of the body (the Reduce over the row's results)
// runs row by row over the block, on the columns computed once for the block.
TEST(BlockRowsTest, TheRestOfTheBodyRunsRowByRowOverTheBlock) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 6}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({6, 4}));
  const ir::ExprPtr sums = Must(ir::MapOver(a, [&](ir::ExprPtr row) -> absl::StatusOr<ir::ExprPtr> {
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr products, DotEachColumn(row, b));
    return ir::ReduceOver(ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)), products,
                          [](ir::ExprPtr acc, ir::ExprPtr v) {
                            return ir::Call(IntAdd(), {acc, v});
                          });
  }));
  const ir::ExprPtr blocked = MustRewrite(BlockRows(2), sums);
  ASSERT_NE(blocked, nullptr);
  const std::string text = ir::ToString(blocked);
  EXPECT_THAT(text, HasSubstr("Zip(2) $ (b, t)"));
  EXPECT_THAT(text, HasSubstr("Repeat(2)"));  // the block's 2 accumulators a column
  ExpectEquivalent(sums, blocked, {a, b}, kRaggedSizes);
}

// Map(f) $ Zip(y, Map(g) $ a), the product's rows zipped with other rows (as the seed subgraph
// multiplies the log-softmax of a product by labels): g is fused into the Map over the Zip, and
// its walk over b's columns blocked there.
TEST(BlockRowsTest, MapsZippedWithTheRowsAreFusedFirst) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 6}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({6, 4}));
  const ir::ParamPtr y = ir::MakeParam("y", Ints({kN, 4}));
  const ir::ExprPtr product = Must(MatMul(a, b));
  const ir::ExprPtr pairs = Must(ir::Call(ir::Zip(2), {y, product}));
  const ir::ExprPtr weighted =
      Must(ir::MapOver(pairs, [](ir::ExprPtr t) -> absl::StatusOr<ir::ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr labels, ir::Call(ir::Get(0), {t}));
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr row, ir::Call(ir::Get(1), {t}));
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr both, ir::Call(ir::Zip(2), {labels, row}));
        return ir::MapOver(both, [](ir::ExprPtr p) -> absl::StatusOr<ir::ExprPtr> {
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr l, ir::Call(ir::Get(0), {p}));
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr v, ir::Call(ir::Get(1), {p}));
          return ir::Call(IntMul(), {l, v});
        });
      }));
  const ir::ExprPtr blocked = MustRewrite(BlockRows(2), weighted);
  ASSERT_NE(blocked, nullptr);
  EXPECT_THAT(ir::ToString(blocked), HasSubstr("Zip(2) $ (y, a)"));
  ExpectEquivalent(weighted, blocked, {a, b, y}, kRaggedSizes);
}

// A product whose rows' walks over the 5 columns are already one Reduce each (5
// accumulators, mapReduceInterchange): the block's 2 rows' Reduces become one of 2 x 5.
TEST(BlockRowsTest, FoldsOverEachRowAreSharedByTheBlock) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 6}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({6, 5}));
  const ir::ExprPtr product = Must(MatMul(a, b));
  const ir::ExprPtr folded =
      Must(ir::MapOver(a, [&](ir::ExprPtr row) -> absl::StatusOr<ir::ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr dots, DotEachColumn(row, b));
        return MustRewrite(MapReduceInterchange(), dots);
      }));
  const ir::ExprPtr blocked = MustRewrite(BlockRows(2), folded);
  ASSERT_NE(blocked, nullptr);
  const std::string text = ir::ToString(blocked);
  EXPECT_THAT(text, HasSubstr("Repeat(2)"));  // the block's 2 rows' accumulators
  EXPECT_THAT(text, HasSubstr("Repeat(5)"));  // of 5 columns each
  ExpectEquivalent(product, blocked, {a, b}, kRaggedSizes);
}

// A fold over a row's results (Relu's sum over its classes) whose input holds the row's walk:
// the walk is what the block shares. Blocking the outer fold instead computed the walk once
// for each element the fold reads (Relu's kernel took 20 ms where the unblocked one took 3.8).
TEST(BlockRowsTest, AFoldHoldingTheWalkLeavesTheWalkToBeShared) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 6}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({6, 5}));
  const ir::ExprPtr summed =
      Must(ir::MapOver(a, [&](ir::ExprPtr row) -> absl::StatusOr<ir::ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr dots, DotEachColumn(row, b));
        const ir::ExprPtr walk = MustRewrite(MapReduceInterchange(), dots);
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr squares,
                             ir::MapOver(walk, [](ir::ExprPtr d) -> absl::StatusOr<ir::ExprPtr> {
                               return ir::Call(IntMul(), {d, d});
                             }));
        return ir::ReduceOver(ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)), squares,
                              [](ir::ExprPtr acc, ir::ExprPtr v) {
                                return ir::Call(IntAdd(), {acc, v});
                              });
      }));
  const ir::ExprPtr blocked = MustRewrite(BlockRows(2), summed);
  ASSERT_NE(blocked, nullptr);
  const std::string text = ir::ToString(blocked);
  // One Reduce of the block's 2 rows' 5 column accumulators; each row's sum after it.
  EXPECT_THAT(text, HasSubstr("Repeat(2) o Repeat(5) $ 0")) << text;
  ExpectEquivalent(summed, blocked, {a, b}, kRaggedSizes);

  // The same with the walk in the Maps that compute the rows the fold's Map walks (as Relu's
  // cluster is translated): they are fused into it first.
  const ir::ExprPtr walks =
      Must(ir::MapOver(a, [&](ir::ExprPtr row) -> absl::StatusOr<ir::ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr dots, DotEachColumn(row, b));
        return MustRewrite(MapReduceInterchange(), dots);
      }));
  const ir::ExprPtr sums = Must(ir::MapOver(walks, [](ir::ExprPtr dots) {
    return ir::ReduceOver(ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)), dots,
                          [](ir::ExprPtr acc, ir::ExprPtr v) {
                            return ir::Call(IntAdd(), {acc, v});
                          });
  }));
  const ir::ExprPtr fused = MustRewrite(BlockRows(2), sums);
  ASSERT_NE(fused, nullptr);
  EXPECT_THAT(ir::ToString(fused), HasSubstr("Repeat(2) o Repeat(5) $ 0")) << ir::ToString(fused);
  ExpectEquivalent(sums, fused, {a, b}, kRaggedSizes);
}

TEST(BlockRowsTest, DeclinesWithTheReason) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 4}));
  EXPECT_EQ(DeclineReason(BlockRows(4), a), "not a high-level Map");
  const ir::ParamPtr m = ir::MakeParam("m", Ints({8, 3}));
  EXPECT_EQ(DeclineReason(BlockRows(4), Must(ir::Call(ir::Map(ir::Id()), {m}))),
            "the Map's function is not a λ");
  const ir::ParamPtr b = ir::MakeParam("b", Ints({3, 2}));
  const ir::ParamPtr few = ir::MakeParam("few", Ints({7, 3}));
  EXPECT_EQ(DeclineReason(BlockRows(4), Must(MatMul(few, b))),
            "the 7 rows are fewer than two blocks of 4");
  const char kNothingShared[] =
      "the Map's body has no high-level Map over an array that does not read its element, nor "
      "a Reduce whose init and step do not (what a block of rows would share)";
  const ir::ExprPtr doubled = Must(ir::MapOver(m, [](ir::ExprPtr r) {
    return ir::MapOver(r, [](ir::ExprPtr v) { return ir::Call(IntAdd(), {v, v}); });
  }));
  EXPECT_EQ(DeclineReason(BlockRows(4), doubled), kNothingShared);
}

// A row's dot products with b's 8 columns, 2 columns at once: each pair folds together, each
// element of the row read once for both.
TEST(BlockColumnsTest, PairsOfColumnsFoldTogether) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 7}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({7, 8}));
  const ir::ExprPtr product = Must(MatMul(a, b));
  // The rows' Map (of unknown length) declines; the Map over the columns inside it is blocked.
  const ir::ExprPtr blocked = Must(ApplyOnce(BlockColumns(2), product));
  ASSERT_NE(blocked, nullptr);
  const std::string text = ir::ToString(blocked);
  EXPECT_THAT(text, HasSubstr("Join() o Map(λ(g)")) << text;
  EXPECT_THAT(text, HasSubstr("Split(2) o Transpose() $ b")) << text;
  EXPECT_THAT(text, HasSubstr("Repeat(2) $ 0")) << text;  // a pair's accumulators
  ExpectEquivalent(product, blocked, {a, b}, kSizes);
}

// After blockRows: blocks of 4 rows by 2 columns, 8 accumulators a step (a GEMM micro-kernel).
TEST(BlockColumnsTest, BlocksOfRowsByColumns) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({8, 7}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({7, 6}));
  const ir::ExprPtr product = Must(MatMul(a, b));
  const ir::ExprPtr rows = MustRewrite(BlockRows(4), product);
  ASSERT_NE(rows, nullptr);
  const ir::ExprPtr both = Must(ApplyOnce(BlockColumns(2), rows));
  ASSERT_NE(both, nullptr);
  EXPECT_THAT(ir::ToString(both), HasSubstr("Repeat(2) o Repeat(4) $ 0")) << ir::ToString(both);
  ExpectEquivalent(product, both, {a, b}, kSizes);
}

TEST(BlockColumnsTest, DeclinesWithTheReason) {
  const ir::ParamPtr m = ir::MakeParam("m", Ints({8, 3}));
  EXPECT_EQ(DeclineReason(BlockColumns(2), m), "not a high-level Map");
  const ir::ParamPtr b = ir::MakeParam("b", Ints({3, 5}));
  const ir::ParamPtr row = ir::MakeParam("row", Ints({3}));
  EXPECT_EQ(DeclineReason(BlockColumns(2), Must(DotEachColumn(row, b))),
            "the Map's length 5 is not known to be two or more blocks of 2");
  // Elements that do not fold have nothing to fold together.
  const ir::ExprPtr doubled = Must(ir::MapOver(m, [](ir::ExprPtr r) {
    return ir::MapOver(r, [](ir::ExprPtr v) { return ir::Call(IntAdd(), {v, v}); });
  }));
  EXPECT_EQ(DeclineReason(BlockColumns(2), doubled),
            "no Reduce in the Map's body reads its element");
}

}  // namespace
}  // namespace dfc::rewrite
