// storeTransposed: a match, declines with their reasons, and equivalence on seeded random
// inputs (a let changes no value).
#include "rewrite/data_layout.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/rule_testing.h"

namespace dfc::rewrite {
namespace {

using namespace testing;  // NOLINT: the rule-test helpers

TEST(StoreTransposedTest, AMatMulsWeightsAreBoundTransposedAtTheTop) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 6}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({6, 4}));
  const ir::ExprPtr e = Must(MatMul(a, b));
  const ir::ExprPtr stored = MustRewrite(StoreTransposed(), e);
  ASSERT_NE(stored, nullptr);
  // (λ(wt) => ...) $ (Transpose $ b), and nothing inside transposes b any more.
  const auto* let = static_cast<const ir::FunCall*>(stored.get());
  ASSERT_EQ(let->f->kind, ir::Fun::Kind::kLambda);
  EXPECT_NE(CallOf(let->args[0], ir::Fun::Kind::kTranspose), nullptr);
  EXPECT_EQ(ir::Reads(*static_cast<const ir::Lambda&>(*let->f).body, b.get()), 0);
  ExpectEquivalent(e, stored, {a, b}, kSizes);
  // Applied again, it finds nothing left to store.
  EXPECT_EQ(DeclineReason(StoreTransposed(), stored),
            "no input is read transposed (Transpose $ w, w not bound inside)");
}

TEST(StoreTransposedTest, DeclinesATransposeOfAValueBoundInside) {
  const ir::ParamPtr x = ir::MakeParam("x", Ints({kN, 3, 2}));
  const ir::ExprPtr e =
      Must(ir::MapOver(x, [](ir::ExprPtr m) { return ir::Call(ir::Transpose(), {m}); }));
  EXPECT_EQ(DeclineReason(StoreTransposed(), e),
            "no input is read transposed (Transpose $ w, w not bound inside)");
}

}  // namespace
}  // namespace dfc::rewrite
