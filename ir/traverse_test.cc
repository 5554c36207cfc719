// The IR's walks (traverse.h) and the queries built on them (analysis.h).
#include "ir/traverse.h"

#include <string>
#include <vector>

#include "base/check.h"
#include "base/status.h"
#include "gtest/gtest.h"
#include "ir/analysis.h"
#include "ir/printer.h"

namespace dfc::ir {
namespace {

const ArithExpr N = ArithExpr::Var("N");

FunPtr Neg() {
  return MakeUserFun("neg", {"x"}, "return -x;", {DType::kFloat}, DType::kFloat,
                     [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       return Scalar::Float(DType::kFloat, -a[0].f);
                     });
}

FunPtr Add() {
  return MakeCombiner("add", "return x + y;", DType::kFloat,
                      [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                        return Scalar::Float(DType::kFloat, a[0].f + a[1].f);
                      });
}

ExprPtr Must(absl::StatusOr<ExprPtr> e) {
  DFC_CHECK_OK(e.status());
  return *e;
}

// Map(λ(row) => Reduce(add) $ (0, Map(neg) $ row)) $ x, for x : [[float32]_4]_N.
struct RowSums {
  ParamPtr x = MakeParam("x", TensorType(DType::kFloat, {N, 4}));
  ExprPtr expr = Must(MapOver(x, [](ExprPtr row) -> absl::StatusOr<ExprPtr> {
    DFC_ASSIGN_OR_RETURN(ExprPtr negated, Call(Map(Neg()), {row}));
    return Call(Reduce(Add()), {MakeLiteral(Scalar::Float(DType::kFloat, 0)), negated});
  }));
};

// The default recursion alone.
class Identity : public ExprMutator {};

TEST(ExprMutatorTest, ReturnsTheSameNodeWhenNothingChanged) {
  RowSums sums;
  absl::StatusOr<ExprPtr> same = Identity().Mutate(sums.expr);
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(*same, sums.expr);
}

TEST(ExprMutatorTest, RebuildsOnlyThePathToAChange) {
  // Zip(x, x) with the second x replaced: the first argument is still the same object.
  RowSums sums;
  const ExprPtr zipped = Must(Call(Zip(2), {sums.expr, sums.x}));
  const ParamPtr y = MakeParam("y", sums.x->type);
  absl::StatusOr<ExprPtr> replaced = ReplaceWhere(
      zipped, [&](const ExprPtr& e) { return e == sums.x; }, y);
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  const auto& call = static_cast<const FunCall&>(**replaced);
  EXPECT_EQ(call.args[1], y);
  EXPECT_NE(call.args[0], sums.expr);  // it read x too
  EXPECT_EQ(Reads(**replaced, sums.x.get()), 0);
  EXPECT_EQ(Reads(**replaced, y.get()), 2);
  // A target nowhere: the same node.
  absl::StatusOr<ExprPtr> same = ReplaceWhere(
      zipped, [](const ExprPtr&) { return false; }, y);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, zipped);
}

TEST(WalkTest, VisitsPreOrderArgumentsBeforeTheFunction) {
  RowSums sums;
  std::vector<std::string> kinds;
  Walk(sums.expr, [&](const ExprPtr& e) {
    kinds.push_back(e->kind == Expr::Kind::kParam ? "param"
                    : e->kind == Expr::Kind::kLiteral
                        ? "literal"
                        : FunName(*static_cast<const FunCall&>(*e).f));
    return true;
  });
  // The outer Map's call, its argument x, then inside its λ: the Reduce, its init, the inner
  // Map's call and its row.
  EXPECT_EQ(kinds, (std::vector<std::string>{"Map", "param", "Reduce", "literal", "Map", "param"}));
}

TEST(WalkTest, ReplaceAtCountsAsWalkDoes) {
  RowSums sums;
  std::vector<ExprPtr> order;
  Walk(sums.expr, [&](const ExprPtr& e) {
    order.push_back(e);
    return true;
  });
  // Position 3 is the Reduce's init: replaced by 1, the rest stays.
  absl::StatusOr<ExprPtr> one =
      ReplaceAt(sums.expr, 3, MakeLiteral(Scalar::Float(DType::kFloat, 1)));
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(order[3]->kind, Expr::Kind::kLiteral);
  EXPECT_NE(ToString(*one).find("Reduce(add) $ (1, "), std::string::npos) << ToString(*one);
  EXPECT_NE(ToString(sums.expr).find("Reduce(add) $ (0, "), std::string::npos);
  // A position past the last: the same node.
  absl::StatusOr<ExprPtr> same = ReplaceAt(sums.expr, 6, sums.x);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, sums.expr);
}

TEST(AnalysisTest, ReadsCountsAReadPerElementAsTwo) {
  RowSums sums;
  EXPECT_EQ(Reads(*sums.expr, sums.x.get()), 1);  // the outer Map reads x once
  const auto& map = static_cast<const FunCall&>(*sums.expr);
  const auto& row_fn = static_cast<const Lambda&>(*As<FunPattern>(*map.f).f);
  EXPECT_EQ(Reads(*row_fn.body, row_fn.params[0].get()), 1);
  // x read inside the Map's function: once per row.
  const ExprPtr per_row = Must(MapOver(sums.x, [&](ExprPtr) { return Call(Id(), {sums.x}); }));
  EXPECT_EQ(Reads(*per_row, sums.x.get()), 2);
  EXPECT_EQ(Reads(*sums.x, sums.x.get()), 1);
  EXPECT_EQ(Reads(*MakeLiteral(Scalar::Float(DType::kFloat, 0)), sums.x.get()), 0);
}

TEST(AnalysisTest, ComputesIsTrueForArithmeticOnly) {
  RowSums sums;
  EXPECT_TRUE(Computes(*sums.expr));
  EXPECT_FALSE(Computes(*Must(Call(Transpose(), {sums.x}))));
  EXPECT_FALSE(Computes(*sums.x));
  EXPECT_TRUE(Computes(*Neg()));
  EXPECT_FALSE(Computes(*Transpose()));
}

TEST(AnalysisTest, CombinerOfSeesThroughAForwardingLambda) {
  const FunPtr add = Add();
  EXPECT_EQ(CombinerOf(add), add);
  EXPECT_EQ(CombinerOf(Neg()), nullptr);
  absl::StatusOr<FunPtr> forwarding = MakeLambda(
      {ScalarType(DType::kFloat), ScalarType(DType::kFloat)}, [&](std::span<const ExprPtr> p) {
        return Call(add, {p[0], p[1]});
      });
  ASSERT_TRUE(forwarding.ok());
  EXPECT_EQ(CombinerOf(*forwarding), add);
  absl::StatusOr<FunPtr> swapped = MakeLambda(
      {ScalarType(DType::kFloat), ScalarType(DType::kFloat)}, [&](std::span<const ExprPtr> p) {
        return Call(add, {p[1], p[0]});
      });
  ASSERT_TRUE(swapped.ok());
  EXPECT_EQ(CombinerOf(*swapped), nullptr);
}

TEST(AnalysisTest, SubstituteReplacesEveryRead) {
  RowSums sums;
  const ParamPtr y = MakeParam("y", sums.x->type);
  absl::StatusOr<ExprPtr> substituted = Substitute(sums.expr, sums.x.get(), y);
  ASSERT_TRUE(substituted.ok());
  EXPECT_EQ(Reads(**substituted, sums.x.get()), 0);
  EXPECT_EQ(Reads(**substituted, y.get()), 1);
  EXPECT_TRUE(TypeEquals((*substituted)->type, sums.expr->type));
}

// The parameters bound between the start of a walk and each Reduce it meets.
class BoundAtReduces : public ScopedExprVisitor {
 public:
  std::vector<size_t> bound_counts;
  void VisitCall(const FunCall& call) override {
    if (IsReduce(call.f->kind)) bound_counts.push_back(bound().size());
    ScopedExprVisitor::VisitCall(call);
  }
};

TEST(ScopedExprVisitorTest, KnowsTheParametersBoundOnThePath) {
  RowSums sums;
  BoundAtReduces visitor;
  visitor.Visit(sums.expr);
  // The Reduce is inside λ(row): one parameter; the add's own parameters are not λ-bound.
  EXPECT_EQ(visitor.bound_counts, std::vector<size_t>{1});
}

}  // namespace
}  // namespace dfc::ir
