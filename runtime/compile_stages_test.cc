// The compile pipeline of a cluster: its stages in the order CompileStageNames gives, each
// observed, the default schedule between the rules and the lowering, and the kernel printed
// from what the last lowering stage made.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "ir/printer.h"
#include "runtime/compile.h"
#include "runtime/translate_for_feeds.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// The frozen 784-256-10 MLP, one cluster; its first layer's product is what the default
// schedule blocks on the cpu profile.
class CompileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Graph> graph = LoadGraph(testing::SharedDir() + "/models/dl4j_mlp_00_frozen.pb");
    ASSERT_TRUE(graph.ok()) << graph.status();
    ReferenceFoldOracle oracle;
    absl::StatusOr<ir::TranslatedGraph> translated = ir::TranslateGraph(
        *graph, {TensorId{"output", 0}}, {}, {}, oracle, {.fold_only_static = true});
    ASSERT_TRUE(translated.ok()) << translated.status();
    ASSERT_EQ(translated->clusters.size(), 1u);
    cluster_ = translated->clusters[0];
  }

  ir::TranslatedCluster cluster_;
};

TEST_F(CompileTest, EveryStageIsObservedInOrderAndTheKernelIsPrintedFromTheLast) {
  std::vector<std::string> names;
  std::vector<ir::ExprPtr> bodies;
  absl::StatusOr<ClusterKernel> kernel = CompileCluster(
      cluster_, rewrite::Variant(), {.name = "k", .profile = *rewrite::NamedProfile("cpu")},
      [&](absl::string_view stage, const ir::ExprPtr& body) {
        names.emplace_back(stage);
        bodies.push_back(body);
      });
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::vector<std::string> expected = CompileStageNames();
  ASSERT_EQ(expected.back(), "codegen");
  expected.pop_back();
  EXPECT_THAT(names, ElementsAreArray(expected));
  // The default variant replays nothing; its schedule blocks the product.
  EXPECT_EQ(bodies[0], cluster_.lambda->body);
  EXPECT_NE(bodies[1], bodies[0]);
  EXPECT_EQ(kernel->rules, "default (vectorizeColumns(8), blockColumns(2), blockRows(6))");
  EXPECT_THAT(kernel->source.source, HasSubstr("// rewritten by: " + kernel->rules));

  ir::TranslatedCluster lowered = cluster_;
  lowered.lambda = std::make_shared<ir::Lambda>(cluster_.lambda->params, bodies.back());
  absl::StatusOr<codegen::KernelSource> printed =
      codegen::GenerateKernel(lowered, {.name = "k", .rules = kernel->rules});
  ASSERT_TRUE(printed.ok()) << printed.status();
  EXPECT_EQ(printed->source, kernel->source.source);
}

// A variant with steps is the explorer's: its steps replayed, no default schedule after them.
TEST_F(CompileTest, AVariantsStepsAreReplayedAndNotScheduled) {
  const rewrite::Variant variant{.steps = {{"storeTransposed", 0}}};
  std::vector<ir::ExprPtr> bodies;
  absl::StatusOr<ClusterKernel> kernel =
      CompileCluster(cluster_, variant, {.name = "k"},
                     [&](absl::string_view, const ir::ExprPtr& body) { bodies.push_back(body); });
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_NE(bodies[0], cluster_.lambda->body);
  EXPECT_EQ(bodies[1], bodies[0]);
  EXPECT_EQ(kernel->rules, "storeTransposed@0");

  const rewrite::Variant stale{.steps = {{"storeTransposed", 99}}};
  absl::StatusOr<ClusterKernel> refused = CompileCluster(cluster_, stale, {.name = "k"});
  EXPECT_THAT(refused.status().message(), HasSubstr("its rewrite steps: "));
}

}  // namespace
}  // namespace dfc
