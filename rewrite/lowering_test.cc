// The lowering family: toGlobal matches a let of a tensor, declines with its reasons, changes
// no value; ApplyAtTopLevel rewrites only what is evaluated once per kernel.
#include "rewrite/lowering.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "ir/traverse.h"
#include "tests/rule_testing.h"

namespace dfc::rewrite {
namespace {

using namespace testing;  // NOLINT: the rule-test helpers

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

}  // namespace
}  // namespace dfc::rewrite
