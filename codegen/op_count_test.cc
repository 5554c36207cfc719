// The operations the generator counts in the code it emits (KernelStage::ops) against the two
// counts of ir/work.h on the same lowered body: ir::GeneratedOps, the model of that code that
// the translation's and the schedule's fusion decisions ask, must agree with it; and no kernel
// may do more than a few times the work of its graph nodes (ir::StrictOps, KernelStage::
// own_ops): fusion never multiplies work. Over every cluster of the zoo CNNs, as the default
// strategy compiles them for the CPU profile, and of BERT's encoder.
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "ir/work.h"
#include "rewrite/lower_for_device.h"
#include "rewrite/schedule.h"
#include "runtime/compile.h"
#include "runtime/size_bindings.h"
#include "runtime/translate_for_feeds.h"
#include "tests/test_util.h"
#include "tests/zoo.h"

namespace dfc::codegen {
namespace {

struct Counted {
  double generated = 0;  // Σ KernelStage::ops
  double model = 0;      // ir::GeneratedOps of the lowered body
  // Each stage's name, KernelStage::ops and own_ops.
  std::vector<std::tuple<std::string, double, double>> stages;
};

// Every cluster of `graph`, translated for `feeds` and compiled by the default strategy for
// the CPU profile, its counts at the sizes the feeds bind.
std::vector<Counted> CountClusters(const Graph& graph, const std::vector<Feed>& feeds,
                                   const std::vector<TensorId>& fetches) {
  absl::StatusOr<ir::TranslatedGraph> translated = TranslateForFeeds(graph, fetches, feeds);
  EXPECT_TRUE(translated.ok()) << translated.status();
  if (!translated.ok()) return {};
  absl::StatusOr<SizeBindings> sizes = BindSizes(*translated, feeds);
  EXPECT_TRUE(sizes.ok()) << sizes.status();
  if (!sizes.ok()) return {};
  const rewrite::DeviceProfile profile = *rewrite::NamedProfile("cpu");
  std::vector<Counted> counts;
  for (const ir::TranslatedCluster& cluster : translated->clusters) {
    absl::StatusOr<ClusterKernel> kernel = CompileCluster(cluster, {}, {.profile = profile});
    EXPECT_TRUE(kernel.ok()) << kernel.status();
    if (!kernel.ok()) continue;
    Counted c;
    for (const KernelStage& stage : kernel->source.stages) {
      const double ops = *stage.ops.Evaluate(*sizes);
      c.generated += ops;
      c.stages.emplace_back(stage.name, ops, static_cast<double>(*stage.own_ops.Evaluate(*sizes)));
    }
    absl::StatusOr<rewrite::ContractionSchedule> schedule =
        rewrite::DefaultSchedule(cluster.lambda->body, profile);
    EXPECT_TRUE(schedule.ok()) << schedule.status();
    absl::StatusOr<ir::ExprPtr> lowered = rewrite::LowerForDevice(schedule->body, profile);
    EXPECT_TRUE(lowered.ok()) << lowered.status();
    if (!lowered.ok()) continue;
    c.model = ir::GeneratedOps(*lowered, {.sizes = *sizes, .private_arrays = false});
    counts.push_back(c);
  }
  return counts;
}

// Exactly, but for a Concat's branches (their shares, counted in rationals by the generator and
// in doubles here) and the order sums of millions of terms are taken in: 1e-4 relative.
TEST(OpCountTest, TheModelIsTheGeneratedCodesCount) {
  for (const testing::ZooModel& model : testing::ZooCnns()) {
    SCOPED_TRACE(model.family);
    absl::StatusOr<Graph> graph = testing::LoadWithOpenBatch(model);
    ASSERT_TRUE(graph.ok()) << graph.status();
    Shape shape = {2};
    shape.insert(shape.end(), model.image.begin(), model.image.end());
    const std::vector<Feed> feeds = {{{model.input, 0}, testing::UniformFloats(shape, 7, 0, 1)}};
    for (const Counted& c : CountClusters(*graph, feeds, {*TensorId::Parse(model.fetch)})) {
      EXPECT_NEAR(c.model, c.generated, 1e-4 * c.generated);
    }
  }
}

// The translation fuses a cheap producer into a consumer that reads it a few times (a
// depthwise convolution's taps over a batch norm's output), never more than twice the work of
// both apart, and the products' schedule stores the rows it would read again: no kernel of a
// zoo CNN does three times the operations of its graph nodes.
TEST(OpCountTest, NoKernelOfTheZooCnnsMultipliesWork) {
  for (const testing::ZooModel& model : testing::ZooCnns()) {
    SCOPED_TRACE(model.family);
    absl::StatusOr<Graph> graph = testing::LoadWithOpenBatch(model);
    ASSERT_TRUE(graph.ok()) << graph.status();
    Shape shape = {model.batches.back()};
    shape.insert(shape.end(), model.image.begin(), model.image.end());
    const std::vector<Feed> feeds = {{{model.input, 0}, testing::UniformFloats(shape, 7, 0, 1)}};
    for (const Counted& c : CountClusters(*graph, feeds, {*TensorId::Parse(model.fetch)})) {
      for (const auto& [name, ops, own] : c.stages) {
        EXPECT_LE(ops, 3 * own + 64) << name << " does " << ops << " operations for " << own;
      }
    }
  }
}

// BERT's attention: a Reshape of each head's context rows ([1,128,12,64] to [128,768]) keeps
// the rows, so storing it makes each query's scores and softmax once per row, not once per
// element; the same two checks as above over the whole encoder at sequence length 128.
TEST(OpCountTest, BertsReshapedAttentionIsMadeOncePerRow) {
  absl::StatusOr<Graph> graph = LoadGraph(testing::SharedDir() + "/zoo/bert_base_chinese.pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::vector<int32_t> ids(128, 1), mask(128, 1), segments(128, 0);
  const std::vector<Feed> feeds = {
      {{"Placeholder", 0}, testing::TN<int32_t>(ids, {1, 128})},
      {{"Placeholder_1", 0}, testing::TN<int32_t>(mask, {1, 128})},
      {{"Placeholder_2", 0}, testing::TN<int32_t>(segments, {1, 128})}};
  const std::vector<Counted> counts =
      CountClusters(*graph, feeds, {*TensorId::Parse("bert/pooler/dense/Tanh")});
  ASSERT_FALSE(counts.empty());
  for (const Counted& c : counts) {
    EXPECT_NEAR(c.model, c.generated, 1e-4 * c.generated);
    for (const auto& [name, ops, own] : c.stages) {
      EXPECT_LE(ops, 3 * own + 64) << name << " does " << ops << " operations for " << own;
    }
  }
}

}  // namespace
}  // namespace dfc::codegen
