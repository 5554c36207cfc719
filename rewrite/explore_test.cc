// The explorer's enumeration: the default first, no structural duplicates, every variant
// equivalent to the expression and made again from its steps by Replay.
#include "rewrite/explore.h"

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/rule_testing.h"

namespace dfc::rewrite {
namespace {

using namespace testing;  // NOLINT: the rule-test helpers
using ::testing::HasSubstr;

TEST(ExploreTest, EnumeratesDistinctEquivalentVariantsThatReplay) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 16}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({16, 3}));
  const ir::ExprPtr e = Must(MatMul(a, b));
  // Every variant of up to 3 steps, however many (the default cap is 48).
  absl::StatusOr<std::vector<Variant>> variants =
      Enumerate(e, {.vector_widths = {4, 8}, .max_variants = 1000});
  ASSERT_TRUE(variants.ok()) << variants.status();
  ASSERT_GE(variants->size(), 8u);
  ASSERT_LT(variants->size(), 1000u);
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

// blockRows is a refinement: never a breadth-first step, always among a variant's extensions
// (here of a MatMul whose rows are a batch N, blocked with a padded last block).
TEST(ExploreTest, BlockRowsOnlyRefinesAVariant) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 16}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({16, 3}));
  const ir::ExprPtr e = Must(MatMul(a, b));
  const ExploreOptions options{.vector_widths = {4, 8}, .max_variants = 1000};
  absl::StatusOr<std::vector<Variant>> enumerated = Enumerate(e, options);
  ASSERT_TRUE(enumerated.ok()) << enumerated.status();
  for (const Variant& v : *enumerated)
    EXPECT_THAT(v.Name(), ::testing::Not(HasSubstr("blockRows")));
  absl::StatusOr<std::vector<Variant>> extended = Extend(enumerated->front(), options);
  ASSERT_TRUE(extended.ok()) << extended.status();
  std::vector<std::string> blocked;
  for (const Variant& v : *extended) {
    if (absl::StartsWith(v.Name(), "blockRows(")) blocked.push_back(v.Name());
  }
  EXPECT_THAT(blocked, ::testing::ElementsAre("blockRows(2)@0", "blockRows(4)@0", "blockRows(8)@0",
                                              "blockRows(16)@0"));
}

// Where the device reduces in work-groups, where a kernel's rows run is a refinement too: the
// choice the default strategy would not make, Replayed like any step; elsewhere no such step.
TEST(ExploreTest, MappingChoicesRefineAVariantWhereWorkGroupsReduce) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 16}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({16, 3}));
  const ir::ExprPtr e = Must(MatMul(a, b));
  const auto mapping_steps = [&](const ExploreOptions& options) {
    absl::StatusOr<std::vector<Variant>> extended = Extend({{}, e}, options);
    EXPECT_TRUE(extended.ok()) << extended.status();
    std::vector<std::string> names;
    for (const Variant& v : *extended) {
      if (absl::StartsWith(v.Name(), "mapOutputs")) {
        names.push_back(v.Name());
        absl::StatusOr<ir::ExprPtr> replayed = Replay(e, v.steps);
        EXPECT_TRUE(replayed.ok() && ir::ExprEquals(*replayed, v.body)) << v.Name();
        ExpectEquivalent(e, v.body, {a, b}, kSizes);
      }
    }
    return names;
  };
  EXPECT_THAT(mapping_steps({.vector_widths = {4}, .work_groups = true}),
              ::testing::ElementsAre("mapOutputsWrg@0", "mapOutputsGlb@0"));
  EXPECT_THAT(mapping_steps({.vector_widths = {4}}), ::testing::IsEmpty());
}

// A variant the code generator refuses (here: any made by mapReduceInterchange) is listed with
// the reason, but neither counts against the cap nor is rewritten further; the usable variants
// fill the cap.
TEST(ExploreTest, RefusedVariantsAreListedButNotCountedOrExtended) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 16}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({16, 3}));
  const ir::ExprPtr e = Must(MatMul(a, b));
  ExploreOptions options{.vector_widths = {4, 8}, .max_variants = 12};
  absl::StatusOr<std::vector<Variant>> all = Enumerate(e, options);
  ASSERT_TRUE(all.ok()) << all.status();
  std::vector<ir::ExprPtr> interchanged;  // every body a mapReduceInterchange step made
  for (const Variant& v : *all) {
    if (!v.steps.empty() && v.steps.back().rule == "mapReduceInterchange") {
      interchanged.push_back(v.body);
    }
  }
  ASSERT_FALSE(interchanged.empty());
  options.usable = [&](const ir::ExprPtr& body) {
    for (const ir::ExprPtr& refused : interchanged) {
      if (ir::ExprEquals(body, refused)) return absl::UnimplementedError("refused");
    }
    return absl::OkStatus();
  };
  absl::StatusOr<std::vector<Variant>> variants = Enumerate(e, options);
  ASSERT_TRUE(variants.ok()) << variants.status();
  int usable = 0, refused = 0;
  for (const Variant& v : *variants) {
    SCOPED_TRACE(v.Name());
    if (!v.usable.ok()) {
      ++refused;
      EXPECT_EQ(v.usable.message(), "refused");
      EXPECT_EQ(v.steps.back().rule, "mapReduceInterchange");
      continue;
    }
    ++usable;
    // Nothing is made from a refused variant: every proper prefix of the steps was usable.
    for (size_t k = 1; k < v.steps.size(); ++k) {
      absl::StatusOr<ir::ExprPtr> prefix =
          Replay(e, std::vector<Step>(v.steps.begin(), v.steps.begin() + k));
      ASSERT_TRUE(prefix.ok()) << prefix.status();
      EXPECT_TRUE(options.usable(*prefix).ok()) << "made from a refused variant";
    }
  }
  EXPECT_EQ(usable, options.max_variants);
  EXPECT_GT(refused, 0);
}

TEST(ExploreTest, ExtendsAVariantByOneStepPastTheCap) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 16}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({16, 3}));
  const ir::ExprPtr e = Must(MatMul(a, b));
  const ExploreOptions options{.vector_widths = {4, 8}, .max_steps = 1};
  absl::StatusOr<std::vector<Variant>> first = Enumerate(e, options);
  ASSERT_TRUE(first.ok()) << first.status();
  const Variant& from = first->back();
  ASSERT_EQ(from.steps.size(), 1u);
  absl::StatusOr<std::vector<Variant>> next = Extend(from, options);
  ASSERT_TRUE(next.ok()) << next.status();
  ASSERT_FALSE(next->empty());
  for (size_t v = 0; v < next->size(); ++v) {
    const Variant& variant = (*next)[v];
    SCOPED_TRACE(variant.Name());
    // `from`'s step, then one more.
    ASSERT_EQ(variant.steps.size(), 2u);
    EXPECT_EQ(variant.steps[0].ToString(), from.steps[0].ToString());
    EXPECT_FALSE(ir::ExprEquals(variant.body, from.body));
    for (size_t w = 0; w < v; ++w) EXPECT_FALSE(ir::ExprEquals((*next)[w].body, variant.body));
    absl::StatusOr<ir::ExprPtr> replayed = Replay(e, variant.steps);
    ASSERT_TRUE(replayed.ok()) << replayed.status();
    EXPECT_TRUE(ir::ExprEquals(*replayed, variant.body));
    ExpectEquivalent(e, variant.body, {a, b}, {{{"N", 3}}}, 1);
  }
}

TEST(ExploreTest, OtherWidthsChangeOneVectorWidth) {
  const ir::ParamPtr a = ir::MakeParam("a", Ints({kN, 16}));
  const ir::ParamPtr b = ir::MakeParam("b", Ints({16, 3}));
  const ir::ExprPtr e = Must(MatMul(a, b));
  const std::vector<Step> steps = {{"vectorizeReduce(4)", 0}, {"mapReduceInterchange", 0}};
  absl::StatusOr<ir::ExprPtr> body = Replay(e, steps);
  ASSERT_TRUE(body.ok()) << body.status();
  absl::StatusOr<std::vector<Variant>> others =
      OtherWidths(e, {steps, *body}, {.vector_widths = {4, 8, 16}});
  ASSERT_TRUE(others.ok()) << others.status();
  std::vector<std::string> names;
  for (const Variant& v : *others) {
    names.push_back(v.Name());
    ExpectEquivalent(e, v.body, {a, b}, {{{"N", 3}}}, 1);
  }
  EXPECT_THAT(names, ::testing::ElementsAre("vectorizeReduce(8)@0 ; mapReduceInterchange@0",
                                            "vectorizeReduce(16)@0 ; mapReduceInterchange@0"));
  // A variant without vector widths has no others.
  others = OtherWidths(e, {{{"mapReduceInterchange", 0}}, nullptr}, {.vector_widths = {4, 8}});
  ASSERT_TRUE(others.ok());
  EXPECT_TRUE(others->empty());
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
