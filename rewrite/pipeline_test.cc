// The stage driver: stages run in order and are observed after each; a stage that changes the
// body's type, or whose verifier refuses what it made, stops the pipeline; the lowering's stages
// end in lowered IR and the verifier refuses what stops short of it.
#include "rewrite/pipeline.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "rewrite/lower_for_device.h"
#include "tests/rule_testing.h"

namespace dfc::rewrite {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace rewrite::testing;  // NOLINT: the rule-test helpers

// x with f applied to each element.
ir::ExprPtr Mapped(const ir::FunPtr& f, const ir::ExprPtr& x) {
  return Must(ir::Call(ir::Map(f), {x}));
}

TEST(PipelineTest, RunsTheStagesInOrderAndShowsTheBodyAfterEach) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN}));
  const std::vector<Stage> stages = {
      {.name = "negate", .run = [](const ir::ExprPtr& e) { return ir::Call(ir::Map(Neg()), {e}); }},
      {.name = "double",
       .run = [](const ir::ExprPtr& e) { return ir::Call(ir::Map(Twice()), {e}); }},
  };
  std::vector<std::string> seen;
  absl::StatusOr<ir::ExprPtr> out =
      RunStages(stages, x, [&](absl::string_view stage, const ir::ExprPtr& body) {
        seen.push_back(absl::StrCat(stage, ": ", ir::ToString(body)));
      });
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_THAT(seen[0], HasSubstr("negate: "));
  EXPECT_THAT(seen[1], HasSubstr("double: "));
  EXPECT_EQ(seen[1], absl::StrCat("double: ", ir::ToString(*out)));
  ExpectEquivalent(Mapped(Twice(), Mapped(Neg(), x)), *out, {x}, kSizes);
}

TEST(PipelineTest, AStageThatChangesTheTypeStopsThePipeline) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN, 4}));
  bool later_ran = false;
  const std::vector<Stage> stages = {
      {.name = "flatten", .run = [](const ir::ExprPtr& e) { return ir::Call(ir::Join(), {e}); }},
      {.name = "later",
       .run = [&](const ir::ExprPtr& e) -> absl::StatusOr<ir::ExprPtr> {
         later_ran = true;
         return e;
       }},
  };
  absl::StatusOr<ir::ExprPtr> out = RunStages(stages, x);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(out.status().message(), HasSubstr("stage flatten changed the body's type from "));
  EXPECT_FALSE(later_ran);
}

TEST(PipelineTest, AVerifierThatRefusesStopsThePipelineWithItsError) {
  const ir::ParamPtr x = ir::MakeParam("x", Floats({kN}));
  std::vector<std::string> seen;
  const std::vector<Stage> stages = {
      {.name = "same",
       .run = [](const ir::ExprPtr& e) -> absl::StatusOr<ir::ExprPtr> { return e; },
       .verify = [](const ir::ExprPtr&) { return absl::FailedPreconditionError("not yet"); }},
      {.name = "never",
       .run = [](const ir::ExprPtr& e) -> absl::StatusOr<ir::ExprPtr> { return e; }},
  };
  absl::StatusOr<ir::ExprPtr> out = RunStages(
      stages, x, [&](absl::string_view stage, const ir::ExprPtr&) { seen.emplace_back(stage); });
  EXPECT_EQ(out.status(), absl::FailedPreconditionError("not yet"));
  EXPECT_TRUE(seen.empty());
}

// The lowering's stages, one at a time: each keeps the values (the IR interpreter), and only
// what the last makes is lowered IR.
TEST(PipelineTest, TheLoweringsStagesEndInLoweredIr) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 4}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({4, 3}));
  const ir::ExprPtr product = Must(MatMul(a, b));
  EXPECT_THAT(VerifyLowered(product).message(), HasSubstr("the lowering left Map unmapped"));
  for (const char* profile : {"cpu", "amd"}) {
    SCOPED_TRACE(profile);
    std::vector<std::string> names;
    std::vector<ir::ExprPtr> bodies;
    absl::StatusOr<ir::ExprPtr> lowered =
        RunStages(LoweringStages(Profile(profile)), product,
                  [&](absl::string_view stage, const ir::ExprPtr& body) {
                    names.emplace_back(stage);
                    bodies.push_back(body);
                  });
    ASSERT_TRUE(lowered.ok()) << lowered.status();
    EXPECT_THAT(names, ElementsAre("vectors-across-maps", "global-lets", "stored-kernels",
                                   "kernel-rows", "sequential", "work-item-storage"));
    for (size_t k = 0; k < bodies.size(); ++k) {
      SCOPED_TRACE(names[k]);
      ExpectEquivalent(product, bodies[k], {a, b}, kSizes);
      EXPECT_EQ(VerifyLowered(bodies[k]).ok(), k + 1 >= bodies.size() - 1)
          << ir::ToString(bodies[k]);
    }
  }
}

}  // namespace
}  // namespace dfc::rewrite
