// The rule driver: where it looks for a match, and a rule that changes a type is caught.
#include "rewrite/rule.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/rule_testing.h"

namespace dfc::rewrite {
namespace {

using namespace testing;  // NOLINT: the rule-test helpers
using ::testing::HasSubstr;

// Join $ Split(n) $ x => x: two views that undo each other, for the driver to look for.
Rule JoinSplitId() {
  return {"joinSplitId", "Join o Split(n) => id", [](const ir::ExprPtr& e) -> Match {
            const ir::FunCall* join = CallOf(e, ir::Fun::Kind::kJoin);
            if (join == nullptr) return Decline{"not a Join"};
            const ir::FunCall* split = CallOf(join->args[0], ir::Fun::Kind::kSplit);
            if (split == nullptr) return Decline{"the Join's input is not a Split"};
            return [x = split->args[0]]() -> absl::StatusOr<ir::ExprPtr> { return x; };
          }};
}

TEST(RuleDriverTest, FindsAMatchInsideAMapsFunction) {
  // Map(λ row => Join $ Split(2) $ row) $ x: the match is in the Map's function.
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN, 4}));
  const ir::ExprPtr e = Must(ir::MapOver(x, [](ir::ExprPtr row) -> absl::StatusOr<ir::ExprPtr> {
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr split, ir::Call(ir::Split(2), {row}));
    return ir::Call(ir::Join(), {split});
  }));
  absl::StatusOr<ir::ExprPtr> once = ApplyOnce(JoinSplitId(), e);
  ASSERT_TRUE(once.ok()) << once.status();
  ASSERT_NE(*once, nullptr);
  EXPECT_EQ(ir::ToString(*once).find("Split"), std::string::npos) << ir::ToString(*once);
  ExpectEquivalent(e, *once, {x}, kSizes);
  absl::StatusOr<ir::ExprPtr> none = ApplyOnce(JoinSplitId(), *once);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
}

TEST(RuleDriverTest, ARuleThatChangesTheTypeIsAnInternalError) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN, 4}));
  const ir::ParamPtr y = ir::MakeParam("y", Floats({kN}));
  const Rule wrong{"wrong", "x => y", [&](const ir::ExprPtr&) -> Match {
                     return [&]() -> absl::StatusOr<ir::ExprPtr> { return y; };
                   }};
  absl::StatusOr<std::variant<ir::ExprPtr, Decline>> r = ApplyAtRoot(wrong, x);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(r.status().message(), HasSubstr("rule wrong (x => y) changed type"));
}

TEST(RuleDriverTest, ARuleThatNeverStopsHitsTheLimit) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN}));
  // x => Join $ Split(1) $ x matches its own output forever.
  const Rule grow{"grow", "x => Join o Split(1) $ x", [](const ir::ExprPtr& e) -> Match {
                    if (e->kind != ir::Expr::Kind::kParam) return Decline{"not a Param"};
                    return [e]() -> absl::StatusOr<ir::ExprPtr> {
                      DFC_ASSIGN_OR_RETURN(ir::ExprPtr s, ir::Call(ir::Split(1), {e}));
                      return ir::Call(ir::Join(), {s});
                    };
                  }};
  absl::StatusOr<ir::ExprPtr> r = ApplyEverywhere(grow, x, nullptr, 10);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("rule grow still matched after 10 rewrites"));
}

}  // namespace
}  // namespace dfc::rewrite
