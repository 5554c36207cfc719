// The kernels of a plan compiled with a strategy given rather than tuned: a tuned variant's
// steps replayed under every device profile (each kernel run on the CPU device against the
// reference), what the generator makes of them (a transposed input copied in blocks of rows,
// prefetches, vectors), an accumulator too large refused by name; and the unfused chain, one
// kernel per op with the MatMul through CLBlast, that the benchmarks compare against.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "rewrite/device_profile.h"
#include "dfc_test_paths.h"
#include "gmock/gmock.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "runtime/device_executor.h"
#include "runtime/kernel_timer.h"
#include "runtime/plan.h"
#include "tests/test_util.h"
#include "tests/tune_testing.h"

namespace dfc {
namespace {

using namespace testing;  // NOLINT: the tuning-test helpers
using ::testing::HasSubstr;

TEST(TunedVariantTest, EveryProfilesKernelOfTheVariantComputesTheReferencesAnswer) {
  // A tuned plan compiled for another device replays the steps under that device's profile
  // (MapWrg/MapLcl reductions on GPUs): each is run here on the CPU device.
  const std::string model = std::string(DFC_SOURCE_DIR) + "/models/seed_subgraph.pbtxt";
  absl::StatusOr<Graph> graph = LoadGraph(model);
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto shared = std::make_shared<const Graph>(*std::move(graph));
  const auto feeds = SubgraphFeeds(300, 784, 10);
  const Tensor want = ReferenceOut(shared, feeds);
  for (const std::string& name : rewrite::NamedProfiles()) {
    SCOPED_TRACE(name);
    const rewrite::DeviceProfile profile = *rewrite::NamedProfile(name);
    for (const std::vector<rewrite::Step>& steps :
         {std::vector<rewrite::Step>{
              {"storeTransposed", 0}, {"vectorizeReduce(4)", 0}, {"mapReduceInterchange", 0}},
          std::vector<rewrite::Step>{{"vectorizeReduce(8)", 0}},
          // And the softmax's sum of exps over 8 lanes, its last 2 terms one by one.
          std::vector<rewrite::Step>{{"storeTransposed", 0},
                                     {"vectorizeReduce(8)", 0},
                                     {"mapReduceInterchange", 0},
                                     {"vectorizeReduce(8)", 0}}}) {
      absl::StatusOr<Plan> plan =
          CompilePlan(shared, {.fetches = {{"out", 0}}, .profile = profile, .steps = {steps}});
      ASSERT_TRUE(plan.ok()) << plan.status();
      absl::StatusOr<std::unique_ptr<DeviceExecutor>> executor =
          DeviceExecutor::Open("cpu", -1, {.profile = profile});
      ASSERT_TRUE(executor.ok()) << executor.status();
      (*executor)->UseKernel(plan->translated.clusters[0], plan->kernels[0]);
      DeviceExecutor::State state;
      absl::StatusOr<std::vector<Tensor>> got =
          (*executor)->Run(*shared, plan->translated, feeds, {{"out", 0}}, &state);
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_EQ((*executor)->fallbacks(), 0);
      ExpectAgrees((*got)[0], want);
    }
  }
}

// A transposed input stored by a stage of its own (storeTransposed) is copied on a CPU in
// blocks of 16 rows, column by column, each block reading a cache line of the input at a time;
// on a GPU row by row, neighbouring work-items reading neighbouring elements. Here the weights:
// 10 rows of 784, less than a block.
TEST(TunedVariantTest, ACpuCopiesATransposedInputInBlocksOfRows) {
  absl::StatusOr<Graph> graph =
      LoadGraph(std::string(DFC_SOURCE_DIR) + "/models/seed_subgraph.pbtxt");
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto shared = std::make_shared<const Graph>(*std::move(graph));
  const auto feeds = SubgraphFeeds(21, 784, 10);
  const Tensor want = ReferenceOut(shared, feeds);
  for (const char* name : {"cpu", "nvidia"}) {
    SCOPED_TRACE(name);
    const rewrite::DeviceProfile profile = *rewrite::NamedProfile(name);
    absl::StatusOr<Plan> plan = CompilePlan(
        shared, {.fetches = {{"out", 0}}, .profile = profile, .steps = {{{"storeTransposed", 0}}}});
    ASSERT_TRUE(plan.ok()) << plan.status();
    const codegen::KernelSource& kernel = plan->kernels[0];
    ASSERT_EQ(kernel.stages.size(), 2u);
    ASSERT_EQ(kernel.stages[0].rows.size(), 1u);
    if (profile.is_gpu) {
      EXPECT_EQ(kernel.stages[0].rows[0].AsConstant(), 10);
      EXPECT_THAT(kernel.source, ::testing::Not(HasSubstr("computes block gid")));
    } else {
      EXPECT_EQ(kernel.stages[0].rows[0].AsConstant(), 1);
      // The lowering's storeByBlocks(16): one block of the 10 rows, written column by column.
      EXPECT_THAT(kernel.source, HasSubstr("work-item gid computes block gid of"));
      EXPECT_THAT(kernel.source, HasSubstr("_784]_16 rows"));
      // The work-items past the blocks skip the copy: each walking it idly took 13 ms here.
      EXPECT_THAT(kernel.source, HasSubstr("if (gid < 1L)"));
    }
    absl::StatusOr<std::unique_ptr<DeviceExecutor>> executor =
        DeviceExecutor::Open("cpu", -1, {.profile = profile});
    ASSERT_TRUE(executor.ok()) << executor.status();
    (*executor)->UseKernel(plan->translated.clusters[0], kernel);
    absl::StatusOr<std::vector<Tensor>> got =
        (*executor)->Run(*shared, plan->translated, feeds, {{"out", 0}});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ((*executor)->fallbacks(), 0);
    ExpectAgrees((*got)[0], want);
  }
}

// On a CPU the interchanged contraction's loop prefetches the row's own stream (the input x,
// whose address names gid) once an iteration, ahead by the profile's prefetch_bytes, and not
// the weights every work-item reads; a GPU profile prefetches nothing.
TEST(TunedVariantTest, ACpuKernelPrefetchesTheRowItStreams) {
  absl::StatusOr<Graph> graph =
      LoadGraph(std::string(DFC_SOURCE_DIR) + "/models/seed_subgraph.pbtxt");
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto shared = std::make_shared<const Graph>(*std::move(graph));
  const std::vector<rewrite::Step> steps = {
      {"storeTransposed", 0}, {"vectorizeReduce(16)", 0}, {"mapReduceInterchange", 0}};
  for (const char* name : {"cpu", "nvidia"}) {
    SCOPED_TRACE(name);
    const rewrite::DeviceProfile profile = *rewrite::NamedProfile(name);
    absl::StatusOr<Plan> plan =
        CompilePlan(shared, {.fetches = {{"out", 0}}, .profile = profile, .steps = {steps}});
    ASSERT_TRUE(plan.ok()) << plan.status();
    const std::string& source = plan->kernels[0].source;
    std::vector<std::string> prefetches;
    for (absl::string_view line : absl::StrSplit(source, '\n')) {
      if (absl::StrContains(line, "DFC_PREFETCH((")) prefetches.emplace_back(line);
    }
    if (profile.prefetch_bytes == 0) {
      EXPECT_TRUE(prefetches.empty()) << source;
      continue;
    }
    ASSERT_EQ(prefetches.size(), 1u) << source;
    EXPECT_THAT(prefetches[0], HasSubstr("in0 + "));
    EXPECT_THAT(prefetches[0], HasSubstr("gid"));
    EXPECT_THAT(prefetches[0], HasSubstr(absl::StrCat(") + ", profile.prefetch_bytes, ");")));
    EXPECT_THAT(source, HasSubstr("#define DFC_PREFETCH(p) __builtin_prefetch(p)"));
  }
}

// The softmax's 10 exps, vectorised once the contraction is: exp(x - m) over 8 lanes with the
// row's maximum m widened to every lane, read from the private row with one vload8; the last
// two one by one.
TEST(TunedVariantTest, TheSoftmaxsExpsRunOnVectorsWithTheMaximumInEveryLane) {
  absl::StatusOr<Plan> plan = CompileWithSteps("seed_subgraph.pbtxt", {{"storeTransposed", 0},
                                                                       {"vectorizeReduce(8)", 0},
                                                                       {"mapReduceInterchange", 0},
                                                                       {"vectorizeReduce(8)", 0}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::string& source = plan->kernels[0].source;
  EXPECT_THAT(source,
              ::testing::ContainsRegex(
                  R"re(softmax_exp_float32_float32_x8\(v_[0-9]+, \(\(float8\)\(v_[0-9]+\)\)\))re"))
      << source;
  EXPECT_THAT(source, ::testing::ContainsRegex(R"re(vload8\(0, priv_[0-9]+ \+ )re"));
  EXPECT_THAT(source, HasSubstr("softmax_exp_float32_float32(v_"));
  EXPECT_THAT(source, HasSubstr(" + 8L)"));
}

TEST(TunedVariantTest, AnAccumulatorTooLargeForRegistersIsRefusedByName) {
  // The frozen MLP's first layer, 784 -> 256, interchanged: 256 accumulators of 4 lanes. A CPU
  // driver that ran it with thousands of work-items a group overflowed its stack.
  absl::StatusOr<Graph> graph = LoadGraph(testing::SharedDir() + "/models/dl4j_mlp_00_frozen.pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<Plan> plan =
      CompilePlan(std::make_shared<const Graph>(*std::move(graph)),
                  {.fetches = {{"output", 0}},
                   .profile = *rewrite::NamedProfile("cpu"),
                   .steps = {{{"vectorizeReduce(4)", 0}, {"mapReduceInterchange", 0}}}});
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kUnimplemented) << plan.status();
  EXPECT_THAT(plan.status().message(),
              HasSubstr("(1024 scalars, more than the 512 a work-item keeps in registers)"));
}

TEST(UnfusedChainTest, OneKernelPerOpWithTheMatMulThroughClblast) {
  absl::StatusOr<std::unique_ptr<DeviceExecutor>> executor =
      DeviceExecutor::Open("cpu", -1, {.blas_matmul = true});
  ASSERT_TRUE(executor.ok()) << executor.status();
  absl::StatusOr<Graph> graph =
      LoadGraph(std::string(DFC_SOURCE_DIR) + "/models/seed_subgraph.pbtxt");
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto shared = std::make_shared<const Graph>(*std::move(graph));
  absl::StatusOr<Plan> plan = CompilePlan(
      shared,
      {.fetches = {{"out", 0}}, .profile = (*executor)->profile(), .fusion = Fusion::kNone});
  ASSERT_TRUE(plan.ok()) << plan.status();
  // MatMul, Add, Softmax, Log, Mul, Sum, Reshape: Shape is read only when compiling.
  EXPECT_EQ(plan->translated.clusters.size(), 7u);
  const auto feeds = SubgraphFeeds(50, 784, 10);
  DeviceExecutor::State state;
  KernelTimer timer;
  absl::StatusOr<std::vector<Tensor>> got =
      (*executor)->Run(*shared, plan->translated, feeds, {{"out", 0}}, &state);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*executor)->fallbacks(), 0);
  absl::StatusOr<std::vector<profiler::DeviceEvent>> kernels = timer.Take();
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  int gemms = 0;
  for (const profiler::DeviceEvent& k : *kernels) gemms += k.info.name == "clblast_sgemm";
  EXPECT_EQ(gemms, 1);
  EXPECT_GE(kernels->size(), 7u);
  ExpectAgrees((*got)[0], ReferenceOut(shared, feeds));
}

}  // namespace
}  // namespace dfc
