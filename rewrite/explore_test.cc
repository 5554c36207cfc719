// The explorer's enumeration: the default first, no structural duplicates, every variant
// equivalent to the expression and made again from its steps by Replay.
#include "rewrite/explore.h"

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "rewrite/rule_testing.h"

namespace dfc::rewrite {
namespace {

using namespace testing;  // NOLINT: the rule-test helpers
using ::testing::HasSubstr;

TEST(ExploreTest, EnumeratesDistinctEquivalentVariantsThatReplay) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 16}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({16, 3}));
  const ir::ExprPtr e = Must(MatMul(a, b));
  absl::StatusOr<std::vector<Variant>> variants = Enumerate(e, {.vector_widths = {4, 8}});
  ASSERT_TRUE(variants.ok()) << variants.status();
  ASSERT_GE(variants->size(), 8u);
  EXPECT_TRUE((*variants)[0].steps.empty());
  EXPECT_EQ((*variants)[0].Name(), "default");
  bool found_the_matmul_schedule = false;
  for (size_t v = 0; v < variants->size(); ++v) {
    const Variant& variant = (*variants)[v];
    SCOPED_TRACE(variant.Name());
    for (size_t w = 0; w < v; ++w) EXPECT_FALSE(ir::ExprEquals((*variants)[w].body, variant.body));
    // Fewest steps first.
    if (v > 0) {
      EXPECT_GE(variant.steps.size(), (*variants)[v - 1].steps.size());
    }
    absl::StatusOr<ir::ExprPtr> replayed = Replay(e, variant.steps);
    ASSERT_TRUE(replayed.ok()) << replayed.status();
    EXPECT_TRUE(ir::ExprEquals(*replayed, variant.body));
    ExpectEquivalent(e, variant.body, {a, b}, {{{"N", 3}}}, 1);
    // The weights stored transposed, each column's dot product over vectors, and one walk
    // over the row's vectors updating the 3 columns' lanes.
    found_the_matmul_schedule |=
        absl::StartsWith(variant.Name(),
                         "storeTransposed@0 ; vectorizeReduce(4)@0 ; mapReduceInterchange@") &&
        absl::StrContains(ir::ToString(variant.body), "Repeat(3)");
  }
  EXPECT_TRUE(found_the_matmul_schedule);
}

TEST(ExploreTest, BoundedByTheVariantCount) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 16}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({16, 3}));
  absl::StatusOr<std::vector<Variant>> variants =
      Enumerate(Must(MatMul(a, b)), {.vector_widths = {4, 8}, .max_variants = 5});
  ASSERT_TRUE(variants.ok()) << variants.status();
  EXPECT_EQ(variants->size(), 5u);
}

TEST(ExploreTest, ReplayRefusesStepsThatDoNotApply) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 16}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({16, 3}));
  const ir::ExprPtr e = Must(MatMul(a, b));
  absl::StatusOr<ir::ExprPtr> r = Replay(e, {{"mapReduceInterchange", 9}});
  EXPECT_THAT(r.status().message(), HasSubstr("does not apply"));
  r = Replay(e, {{"noSuchRule", 0}});
  EXPECT_THAT(r.status().message(), HasSubstr("no rule named noSuchRule"));
}

TEST(ExploreTest, ParsesSteps) {
  absl::StatusOr<Step> s = ParseStep("vectorizeReduce(16)@2");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->rule, "vectorizeReduce(16)");
  EXPECT_EQ(s->place, 2);
  EXPECT_EQ(s->ToString(), "vectorizeReduce(16)@2");
  EXPECT_FALSE(ParseStep("vectorizeReduce(16)").ok());
  EXPECT_FALSE(ParseStep("@1").ok());
}

}  // namespace
}  // namespace dfc::rewrite
