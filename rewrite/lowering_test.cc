// The lowering family: each rule matches what it lowers, declines with its reasons and changes
// no value (on the IR interpreter); ApplyAtTopLevel rewrites only what is evaluated once per
// kernel; BodyOutputs and ReplaceOutputs find the values a cluster stores.
#include "rewrite/lowering.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "ir/traverse.h"
#include "tests/rule_testing.h"

namespace dfc::rewrite {
namespace {

using namespace testing;  // NOLINT: the rule-test helpers
using ::testing::HasSubstr;
using ::testing::Not;

// (λ(v) => Map(neg) $ v) $ (Map(twice) $ x): a value bound once, read by the body.
ir::ExprPtr LetOfMap(const ir::ExprPtr& x) {
  return Must(ir::Let(Must(ir::Call(ir::Map(Twice()), {x})),
                      [](ir::ExprPtr v) { return ir::Call(ir::Map(Neg()), {v}); }));
}

TEST(ToGlobalLetTest, StoresATensorALetBinds) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN}));
  const ir::ExprPtr e = LetOfMap(x);
  const ir::ExprPtr stored = MustRewrite(ToGlobalLet(), e);
  ASSERT_NE(stored, nullptr);
  const auto* let = static_cast<const ir::FunCall*>(stored.get());
  EXPECT_NE(CallOf(let->args[0], ir::Fun::Kind::kToGlobal), nullptr) << ir::ToString(stored);
  ExpectEquivalent(e, stored, {x}, kSizes);
  // Applied again, there is nothing left to store.
  EXPECT_EQ(DeclineReason(ToGlobalLet(), stored),
            "the let binds no tensor that is not stored already");
}

TEST(ToGlobalLetTest, DeclinesWhatIsNotALetOfATensor) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN}));
  EXPECT_EQ(DeclineReason(ToGlobalLet(), Must(ir::Call(ir::Map(Neg()), {x}))), "not a let");
  // A scalar bound once is a private variable, not a buffer.
  const ir::ExprPtr scalar =
      Must(ir::Let(ir::MakeLiteral(ir::Scalar::Float(DType::kFloat, 2)), [&](ir::ExprPtr v) {
        return ir::MapOver(x, [&](ir::ExprPtr e) { return ir::Call(Add(), {e, v}); });
      }));
  EXPECT_EQ(DeclineReason(ToGlobalLet(), scalar),
            "the let binds no tensor that is not stored already");
}

TEST(ApplyAtTopLevelTest, StoresTheLetsOfTheTopLevelOnly) {
  // (λ(v) => Map(λrow => LetOfMap(row)) $ v) $ x: the outer let is the kernel's, the inner
  // one a row's, evaluated once per element.
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN, 3}));
  const ir::ExprPtr e = Must(ir::Let(x, [](ir::ExprPtr v) {
    return ir::MapOver(v,
                       [](ir::ExprPtr row) { return absl::StatusOr<ir::ExprPtr>(LetOfMap(row)); });
  }));
  absl::StatusOr<ir::ExprPtr> lowered = ApplyAtTopLevel(ToGlobalLet(), e);
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  EXPECT_THAT(ir::ToString(*lowered), ::testing::HasSubstr("ToGlobal"));
  int stored = 0;
  ir::Walk(*lowered, [&](const ir::ExprPtr& s) {
    stored += CallOf(s, ir::Fun::Kind::kToGlobal) != nullptr;
    return true;
  });
  EXPECT_EQ(stored, 1) << ir::ToString(*lowered);
  ExpectEquivalent(e, *lowered, {x}, kSizes);
  // Lowered again, nothing changes: the same node.
  absl::StatusOr<ir::ExprPtr> again = ApplyAtTopLevel(ToGlobalLet(), *lowered);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *lowered);
}

TEST(MapRowsTest, MapsAMapsRowsOrWrapsAnyOtherArray) {
  const ir::ParamPtr x = ir::MakeParam("x", Ints({kN, 4}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({4, 3}));
  const ir::ExprPtr product = Must(MatMul(x, b));
  const ir::ExprPtr glb = MustRewrite(MapRows(ir::Fun::Kind::kMapGlb, 0), product);
  ASSERT_NE(glb, nullptr);
  EXPECT_THAT(ir::ToString(glb), ::testing::StartsWith("MapGlb(0)(λ(row) =>"));
  EXPECT_EQ(MappedRows(glb), glb);
  ExpectEquivalent(product, glb, {x, b}, kSizes);
  EXPECT_EQ(DeclineReason(MapRows(ir::Fun::Kind::kMapWrg, 0), glb), "the rows are mapped already");
  // A view that is not a Map: work-item gid computes its row gid.
  const ir::ExprPtr columns = Must(ir::Call(ir::Transpose(), {b}));
  const ir::ExprPtr wrg = MustRewrite(MapRows(ir::Fun::Kind::kMapWrg, 0), columns);
  ASSERT_NE(wrg, nullptr);
  EXPECT_THAT(ir::ToString(wrg), ::testing::StartsWith("MapWrg(0)(Id())"));
  ExpectEquivalent(columns, wrg, {b}, kSizes);
  const ir::ParamPtr v = ir::MakeParam("v", Ints({4}));
  EXPECT_EQ(DeclineReason(MapRows(ir::Fun::Kind::kMapGlb, 0), Must(Dot(v, v))), "not an array");
}

TEST(MappedRowsTest, BlocksOfRowsAreMapped) {
  const ir::ParamPtr x = ir::MakeParam("x", Ints({8, 3}));
  const ir::ExprPtr blocks =
      Must(ir::Call(ir::MapGlb(0, ir::Id()), {Must(ir::Call(ir::Split(ArithExpr(2)), {x}))}));
  const ir::ExprPtr joined = Must(ir::Call(ir::Join(), {blocks}));
  EXPECT_EQ(MappedRows(joined), blocks);
  const ir::ExprPtr first = Must(ir::Call(ir::Reindex(ArithExpr(7), ir::IndexVar()), {joined}));
  EXPECT_EQ(MappedRows(first), blocks);
  EXPECT_EQ(MappedRows(x), nullptr);
  EXPECT_EQ(MappedRows(Must(ir::Call(ir::Map(ir::Id()), {x}))), nullptr);
}

TEST(StoreByBlocksTest, BlocksOfRowsWrittenColumnByColumn) {
  // A batch of rows, padded to whole blocks and cut back; a known multiple, neither.
  const ir::ParamPtr x = ir::MakeParam("x", Ints({4, kN}));
  const ir::ExprPtr transposed = Must(ir::Call(ir::Transpose(), {x}));
  const ir::ExprPtr blocks = MustRewrite(StoreByBlocks(16), transposed);
  ASSERT_NE(blocks, nullptr);
  EXPECT_THAT(ir::ToString(blocks),
              ::testing::StartsWith("Reindex(N, i => i) o Join() o MapGlb(0)"));
  EXPECT_THAT(ir::ToString(blocks), HasSubstr("TransposeW() o Transpose() $ b"));
  EXPECT_NE(MappedRows(blocks), nullptr);
  ExpectEquivalent(transposed, blocks, {x}, kSizes);
  const ir::ParamPtr y = ir::MakeParam("y", Ints({32, 3}));
  const ir::ExprPtr whole = MustRewrite(StoreByBlocks(16), y);
  ASSERT_NE(whole, nullptr);
  EXPECT_THAT(ir::ToString(whole), ::testing::StartsWith("Join() o MapGlb(0)"));
  EXPECT_THAT(ir::ToString(whole), Not(HasSubstr("Pad")));
  ExpectEquivalent(y, whole, {y}, kSizes);
  EXPECT_EQ(DeclineReason(StoreByBlocks(16), whole), "the rows are mapped already");
  EXPECT_EQ(DeclineReason(StoreByBlocks(16), ir::MakeParam("v", Ints({kN}))),
            "not a matrix of scalars");
}

TEST(SequentialRulesTest, MapAndReduceBecomeSequential) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN}));
  const ir::ExprPtr dot = Must(Dot(a, a));
  const ir::ExprPtr seq = MustRewrite(ReduceSeqRule(), dot);
  ASSERT_NE(seq, nullptr);
  EXPECT_EQ(CallOf(seq, ir::Fun::Kind::kReduceSeq)->args,
            static_cast<const ir::FunCall&>(*dot).args);
  ExpectEquivalent(dot, seq, {a}, kSizes);
  EXPECT_EQ(DeclineReason(ReduceSeqRule(), seq), "not a high-level Reduce");
  const ir::ExprPtr map = Must(ir::Call(ir::Map(Neg()), {ir::MakeParam("x", Floats({kN}))}));
  const ir::ExprPtr mapped = MustRewrite(MapSeqRule(), map);
  ASSERT_NE(mapped, nullptr);
  EXPECT_TRUE(ir::TypeEquals(mapped->type, map->type));
  EXPECT_EQ(DeclineReason(MapSeqRule(), mapped), "lowered already");
  EXPECT_EQ(DeclineReason(MapSeqRule(), dot), "not a Map");
}

TEST(ReduceLclRuleTest, SplitsAFoldByACombinerOfScalarsLongEnough) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN}));
  const ir::ExprPtr sum = Must(ir::ReduceOver(ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)), a,
                                              [](ir::ExprPtr acc, ir::ExprPtr v) {
                                                return ir::Call(IntAdd(), {acc, v});
                                              }));
  const ir::ExprPtr split = MustRewrite(ReduceLclRule(0, 64), sum);
  ASSERT_NE(split, nullptr);
  EXPECT_THAT(ir::ToString(split), ::testing::StartsWith("ReduceLcl(0)("));
  ExpectEquivalent(sum, split, {a}, kSizes);
  const ir::ParamPtr short_array = ir::MakeParam("s", Ints({16}));
  const ir::ExprPtr short_sum =
      Must(ir::ReduceOver(ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)), short_array,
                          [](ir::ExprPtr acc, ir::ExprPtr v) {
                            return ir::Call(IntAdd(), {acc, v});
                          }));
  EXPECT_EQ(DeclineReason(ReduceLclRule(0, 64), short_sum),
            "too short to share among the work-group");
  // A dot product's step is a combiner only after its products: λ(acc, v) => iadd(acc, v).
  const ir::ExprPtr not_combined = Must(ir::ReduceOver(
      ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)), a, [](ir::ExprPtr acc, ir::ExprPtr v) {
        return ir::Call(IntMul(), {acc, v});
      }));
  EXPECT_EQ(DeclineReason(ReduceLclRule(0, 64), not_combined), "its step is not a combiner");
}

// Σ of the lanes of `vectors` (an array of int32 vectors) from 0, or of the products of them.
ir::ExprPtr LaneFold(const ir::ExprPtr& vectors, const ir::FunPtr& step = IntAdd()) {
  return Must(ir::ReduceOver(ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)),
                             Must(ir::Call(ir::AsScalar(), {vectors})),
                             [&](ir::ExprPtr acc, ir::ExprPtr v) {
                               return ir::Call(step, {acc, v});
                             }));
}

TEST(ReduceLanesRuleTest, FoldsTheLanesOfOneVectorAsATree) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({8}));
  const ir::ExprPtr sum = LaneFold(Must(ir::Call(ir::AsVector(8), {a})));
  const ir::ExprPtr tree = MustRewrite(ReduceLanesRule(), sum);
  ASSERT_NE(tree, nullptr);
  EXPECT_THAT(ir::ToString(tree), ::testing::StartsWith("ReduceLanes(iadd)"));
  EXPECT_THAT(ir::ToString(tree), Not(HasSubstr("AsScalar")));
  ExpectEquivalent(sum, tree, {a}, kSizes);
  EXPECT_EQ(DeclineReason(ReduceLanesRule(), tree), "not a high-level Reduce");
  EXPECT_EQ(DeclineReason(ReduceLanesRule(), LaneFold(Must(ir::Call(ir::AsVector(4), {a})))),
            "it does not fold one vector into a scalar of its dtype");  // two vectors
  const ir::ExprPtr product = LaneFold(Must(ir::Call(ir::AsVector(8), {a})), IntMul());
  EXPECT_EQ(DeclineReason(ReduceLanesRule(), product), "its step is not a combiner");
  const ir::ExprPtr plain = Must(ir::ReduceOver(ir::MakeLiteral(ir::Scalar::Int(DType::kInt32, 0)),
                                                a, [](ir::ExprPtr acc, ir::ExprPtr v) {
                                                  return ir::Call(IntAdd(), {acc, v});
                                                }));
  EXPECT_EQ(DeclineReason(ReduceLanesRule(), plain), "it does not fold the lanes of vectors");
}

TEST(ToPrivateTest, KeepsWhatTheStrategyFindsWorthIt) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN}));
  const ir::ExprPtr e = LetOfMap(x);
  const PrivateWorth always = [](const ir::Param&, const ir::Expr&) { return true; };
  const PrivateWorth never = [](const ir::Param&, const ir::Expr&) { return false; };
  const ir::ExprPtr kept = MustRewrite(ToPrivateLet(always), e);
  ASSERT_NE(kept, nullptr);
  EXPECT_NE(CallOf(static_cast<const ir::FunCall&>(*kept).args[0], ir::Fun::Kind::kToPrivate),
            nullptr);
  ExpectEquivalent(e, kept, {x}, kSizes);
  EXPECT_EQ(DeclineReason(ToPrivateLet(always), kept), "no argument is worth a private array");
  EXPECT_EQ(DeclineReason(ToPrivateLet(never), e), "no argument is worth a private array");
  // An element a Map's function reads: bound again by a let that keeps it.
  const ir::ParamPtr m = ir::MakeParam("m", Ints({kN, 3}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({3, 2}));
  const ir::ExprPtr product = Must(MatMul(m, b));
  const ir::ExprPtr rows = MustRewrite(ToPrivateElement(always), product);
  ASSERT_NE(rows, nullptr);
  EXPECT_THAT(ir::ToString(rows), ::testing::HasSubstr("ToPrivate(Id()) $ row"));
  ExpectEquivalent(product, rows, {m, b}, kSizes);
  EXPECT_EQ(DeclineReason(ToPrivateElement(never), product),
            "its element is not worth a private array");
}

TEST(TransposeWRuleTest, WritesComputedRowsColumnByColumn) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN, 3}));
  const ir::ExprPtr rows =
      Must(ir::MapOver(x, [](ir::ExprPtr row) { return ir::Call(ir::Map(Twice()), {row}); }));
  const ir::ExprPtr transposed = Must(ir::Call(ir::Transpose(), {rows}));
  const auto computes = [](const ir::ExprPtr& e) { return MapCall(e) != nullptr; };
  const ir::ExprPtr written = MustRewrite(TransposeWRule(computes), transposed);
  ASSERT_NE(written, nullptr);
  EXPECT_NE(CallOf(written, ir::Fun::Kind::kTransposeW), nullptr);
  ExpectEquivalent(transposed, written, {x}, kSizes);
  EXPECT_EQ(DeclineReason(TransposeWRule(computes), Must(ir::Call(ir::Transpose(), {x}))),
            "its rows do no arithmetic");
  EXPECT_EQ(DeclineReason(TransposeWRule(computes), written), "not a Transpose");
}

TEST(BodyOutputsTest, TheValuesAfterTheLetsFieldByField) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN}));
  const ir::ExprPtr negated = Must(ir::Call(ir::Map(Neg()), {x}));
  const ir::ExprPtr doubled = Must(ir::Call(ir::Map(Twice()), {x}));
  const ir::ExprPtr both = Must(ir::Call(ir::Tuple(2), {negated, doubled}));
  EXPECT_EQ(BodyOutputs(both), (std::vector<ir::ExprPtr>{negated, doubled}));
  const ir::ExprPtr let = LetOfMap(x);
  ASSERT_EQ(BodyOutputs(let).size(), 1u);
  EXPECT_EQ(BodyOutputs(let)[0],
            static_cast<const ir::Lambda&>(*static_cast<const ir::FunCall&>(*let).f).body);
  // Replaced under the let, the let's argument stays as it was.
  absl::StatusOr<ir::ExprPtr> mapped = ReplaceOutputs(
      let, [](std::vector<ir::ExprPtr> outputs) -> absl::StatusOr<std::vector<ir::ExprPtr>> {
        for (ir::ExprPtr& o : outputs) {
          DFC_ASSIGN_OR_RETURN(o, ir::Call(ir::MapGlb(0, ir::Id()), {o}));
        }
        return outputs;
      });
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_NE(MappedRows(BodyOutputs(*mapped)[0]), nullptr);
  EXPECT_EQ(static_cast<const ir::FunCall&>(**mapped).args,
            static_cast<const ir::FunCall&>(*let).args);
  ExpectEquivalent(let, *mapped, {x}, kSizes);
}

}  // namespace
}  // namespace dfc::rewrite
