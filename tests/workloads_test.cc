// The benchmarks' workloads (tests/workloads.h) are what they say: their flops and bytes are
// what runtime/work_estimate.h finds in the compiled graph, and dfc's kernels and CLBlast's
// GEMM compute on them what the reference executor does.
#include "tests/workloads.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/compare.h"
#include "runtime/device_executor.h"
#include "runtime/kernel_timer.h"
#include "runtime/plan.h"
#include "runtime/size_bindings.h"
#include "runtime/tune.h"
#include "runtime/work_estimate.h"

namespace dfc::workloads {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::vector<Workload> Small() {
  std::vector<Workload> all = {Seed(64), Relu(64)};
  for (const Contraction& c : Contractions()) all.push_back(MatMul(c));
  return all;
}

TEST(WorkloadsTest, FlopsAndBytesAreWhatTheCompiledGraphDoes) {
  for (const Workload& w : Small()) {
    SCOPED_TRACE(w.name);
    absl::StatusOr<Graph> graph = w.graph();
    ASSERT_TRUE(graph.ok()) << graph.status();
    PlanSpec spec;
    for (const std::string& f : w.fetches) spec.fetches.push_back({f, 0});
    absl::StatusOr<Plan> plan =
        CompilePlan(std::make_shared<const Graph>(*std::move(graph)), std::move(spec));
    ASSERT_TRUE(plan.ok()) << plan.status();
    ASSERT_EQ(plan->translated.clusters.size(), 1u) << "one fused kernel";
    absl::StatusOr<SizeBindings> sizes = BindSizes(plan->translated, w.feeds());
    ASSERT_TRUE(sizes.ok()) << sizes.status();
    EXPECT_EQ(ClusterBytes(plan->translated.clusters[0], *sizes), w.bytes);
    // The workload counts the contraction's flops: the MatMul's, 2·m·k·n.
    double matmul_flops = 0;
    for (const Node& node : plan->graph->nodes()) {
      if (node.op == "MatMul") {
        matmul_flops += NodeFlops(*plan->graph, plan->translated, node, *sizes);
      }
    }
    EXPECT_EQ(matmul_flops, w.flops);
  }
}

// Against the reference executor, run as the benchmarks run them: dfc's default kernel, and
// the GEMM of CLBlast that they compare it with (a cluster of one MatMul runs through it with
// blas_matmul). The largest square (2·10^9 flops) is left to the benchmarks: the reference
// takes seconds.
TEST(WorkloadsTest, DfcAndClblastComputeWhatTheReferenceDoes) {
  for (const bool blas : {false, true}) {
    SCOPED_TRACE(blas ? "CLBlast" : "dfc");
    absl::StatusOr<std::unique_ptr<DeviceExecutor>> executor =
        DeviceExecutor::Open("cpu", -1, {.blas_matmul = blas});
    if (!executor.ok()) GTEST_SKIP() << "no OpenCL CPU device: " << executor.status();
    for (const Workload& w : Small()) {
      if (w.flops > 3e8) continue;
      SCOPED_TRACE(w.name);
      absl::StatusOr<Graph> graph = w.graph();
      ASSERT_TRUE(graph.ok()) << graph.status();
      PlanSpec spec{.profile = (*executor)->profile()};
      for (const std::string& f : w.fetches) spec.fetches.push_back({f, 0});
      absl::StatusOr<Plan> plan =
          CompilePlan(std::make_shared<const Graph>(*std::move(graph)), std::move(spec));
      ASSERT_TRUE(plan.ok()) << plan.status();
      const Feeds feeds = w.feeds();
      DeviceExecutor::State state;
      KernelTimer timer;
      absl::StatusOr<std::vector<Tensor>> got =
          (*executor)->Run(*plan->graph, plan->translated, feeds, plan->spec.fetches, &state);
      ASSERT_TRUE(got.ok()) << got.status();
      absl::StatusOr<std::vector<profiler::DeviceEvent>> kernels = timer.Take();
      ASSERT_TRUE(kernels.ok()) << kernels.status();
      absl::StatusOr<std::vector<Tensor>> want = Reference(w, feeds);
      ASSERT_TRUE(want.ok()) << want.status();
      // Either may sum the contraction in another order than the reference.
      const Comparison c =
          CompareTensors((*got)[0], (*want)[0], VariantTolerance((*want)[0], w.longest_reduction));
      EXPECT_TRUE(c.equal) << c.reason;
      // A lone MatMul runs through CLBlast if asked; a fused cluster never does.
      const bool lone_matmul = w.family.starts_with("matmul_");
      ASSERT_FALSE(kernels->empty());
      for (const profiler::DeviceEvent& k : *kernels) {
        EXPECT_EQ(k.info.name == "clblast_sgemm", blas && lone_matmul) << k.info.name;
      }
    }
    EXPECT_EQ((*executor)->fallbacks(), 0);
  }
}

// The chain is one kernel reading two inputs and writing one output: 12 bytes an element.
TEST(WorkloadsTest, ChainIsOneKernelOfItsBytes) {
  const Workload w = Chain(1 << 16);
  absl::StatusOr<Graph> graph = w.graph();
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<Plan> plan =
      CompilePlan(std::make_shared<const Graph>(*std::move(graph)), {.fetches = {{"output", 0}}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->translated.clusters.size(), 1u);
  EXPECT_EQ(plan->translated.partition.clusters[0].nodes.size(), 18u);
  absl::StatusOr<SizeBindings> sizes = BindSizes(plan->translated, w.feeds());
  ASSERT_TRUE(sizes.ok()) << sizes.status();
  EXPECT_EQ(ClusterBytes(plan->translated.clusters[0], *sizes), w.bytes);
}

// vectorizeMaps(w) makes the chain's 18 elementwise ops one walk over vectors: each row read
// with vload<w>, the ops applied to vectors (Minimum, Maximum and the rest lane-wise), the
// result written with vstore<w>, no lane read on its own; and it computes what the reference
// does (Acos, Cosh, Exp... are OpenCL's vector builtins: the default tolerance).
TEST(WorkloadsTest, TheChainVectorisedIsOneWalkOverVectors) {
  const Workload w = Chain(1 << 16);
  absl::StatusOr<Graph> graph = w.graph();
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto shared = std::make_shared<const Graph>(*std::move(graph));
  absl::StatusOr<std::unique_ptr<DeviceExecutor>> executor = DeviceExecutor::Open("cpu", -1, {});
  if (!executor.ok()) GTEST_SKIP() << "no OpenCL CPU device: " << executor.status();
  const Feeds feeds = w.feeds();
  absl::StatusOr<std::vector<Tensor>> want = Reference(w, feeds);
  ASSERT_TRUE(want.ok()) << want.status();
  for (const int width : {4, 8, 16}) {
    SCOPED_TRACE(width);
    absl::StatusOr<Plan> plan =
        CompilePlan(shared, {.fetches = {{"output", 0}},
                             .profile = (*executor)->profile(),
                             .steps = {{{absl::StrCat("vectorizeMaps(", width, ")"), 0}}}});
    ASSERT_TRUE(plan.ok()) << plan.status();
    const std::string& source = plan->kernels[0].source;
    EXPECT_THAT(source, HasSubstr(absl::StrCat("vload", width, "(")));
    EXPECT_THAT(source, HasSubstr(absl::StrCat("vstore", width, "(")));
    EXPECT_THAT(source, HasSubstr(absl::StrCat("float", width, " minimum_float32_x", width)));
    EXPECT_THAT(source, HasSubstr(absl::StrCat("acos_float32_x", width, "(")));
    EXPECT_THAT(source, Not(HasSubstr("*)&")));  // a lane read through a private copy
    (*executor)->UseKernel(plan->translated.clusters[0], plan->kernels[0]);
    absl::StatusOr<std::vector<Tensor>> got =
        (*executor)->Run(*shared, plan->translated, feeds, plan->spec.fetches);
    ASSERT_TRUE(got.ok()) << got.status();
    const Comparison c = CompareTensors((*got)[0], (*want)[0]);
    EXPECT_TRUE(c.equal) << c.reason;
  }
  EXPECT_EQ((*executor)->fallbacks(), 0);
}

// `w` compiled for `executor`'s device with its one cluster rewritten by `steps`.
absl::StatusOr<Plan> CompileWithSteps(const DeviceExecutor& executor, const Workload& w,
                                      const std::vector<rewrite::Step>& steps) {
  DFC_ASSIGN_OR_RETURN(Graph graph, w.graph());
  std::vector<TensorId> fetches;
  for (const std::string& fetch : w.fetches) fetches.push_back({fetch, 0});
  return CompilePlan(std::make_shared<const Graph>(std::move(graph)),
                     {.fetches = fetches, .profile = executor.profile(), .steps = {steps}});
}

// Runs `plan`'s one cluster on `executor` with `w`'s feeds: its first fetch is the reference
// executor's, within the tuner's tolerance for a variant (a reordered reduction).
void ExpectTheReferenceAnswer(DeviceExecutor& executor, const Workload& w, const Plan& plan) {
  const Feeds feeds = w.feeds();
  absl::StatusOr<std::vector<Tensor>> want = Reference(w, feeds);
  ASSERT_TRUE(want.ok()) << want.status();
  executor.UseKernel(plan.translated.clusters[0], plan.kernels[0]);
  absl::StatusOr<std::vector<Tensor>> got =
      executor.Run(*plan.graph, plan.translated, feeds, plan.spec.fetches);
  ASSERT_TRUE(got.ok()) << got.status();
  const Comparison compared =
      CompareTensors((*got)[0], (*want)[0], VariantTolerance((*want)[0], w.longest_reduction));
  EXPECT_TRUE(compared.equal) << compared.reason;
}

// vectorizeColumns(16) makes a MatMul's Map over its output columns one over 16 columns at a
// time: each step of a dot product is one vload16 of a row of the right matrix — of b itself
// for the square (its columns are b's rows read across; place 1, place 0 being a's rows), of
// b's stored transpose for dy.WT (transpose_b: its columns are b's rows) — and each 16 outputs
// one vstore16. Over a's rows (xT.dy, transpose_a: a's rows are x's columns), it makes blocks
// of 16 output rows, one a work-item, reading 16 columns of x with one vload16 a step; with
// mapReduceInterchange the block's 10 dot products fold together, x read once. The lanes fold
// in the reference's order: within the tuner's tolerance for the dot's length.
TEST(WorkloadsTest, AProductVectorisedAcrossItsColumnsOrRowsReadsRowsOfVectors) {
  absl::StatusOr<std::unique_ptr<DeviceExecutor>> executor = DeviceExecutor::Open("cpu", -1, {});
  if (!executor.ok()) GTEST_SKIP() << "no OpenCL CPU device: " << executor.status();
  struct Case {
    std::string label;
    int64_t size;
    std::vector<rewrite::Step> steps;
    std::vector<std::string> code;
  };
  const std::vector<Case> cases = {
      {"dy.WT",
       100,
       {{"vectorizeColumns(16)", 0}, {"storeTransposed", 0}},
       {"vload16(0, tmp0 + ", "vstore16("}},
      {"square", 256, {{"vectorizeColumns(16)", 1}}, {"vload16(0, in1 + ", "vstore16("}},
      {"xT.dy",
       100,
       {{"vectorizeColumns(16)", 0}, {"mapReduceInterchange", 0}},
       {"vload16(0, in0 + ", "work-item gid computes block gid", "  // [float32<16>]_10"}},
      // And blocks of 8 rows, each step's vload16 of b shared by the 8 rows' accumulators, the
      // block stored column by column.
      {"square",
       256,
       {{"vectorizeColumns(16)", 1}, {"blockRows(8)", 0}},
       {"work-item gid computes block gid of [[float32]_256]_8 rows", "  // [float32<16>]_8",
        "vstore16("}},
  };
  const std::vector<Contraction> contractions = Contractions();
  for (const Case& k : cases) {
    const auto it =
        std::find_if(contractions.begin(), contractions.end(),
                     [&](const Contraction& c) { return k.label == c.label && k.size == c.size; });
    ASSERT_NE(it, contractions.end()) << k.label << " " << k.size;
    const Workload w = MatMul(*it);
    SCOPED_TRACE(w.name + " " + (rewrite::Variant{k.steps, nullptr}.Name()));
    absl::StatusOr<Plan> plan = CompileWithSteps(**executor, w, k.steps);
    ASSERT_TRUE(plan.ok()) << plan.status();
    const std::string& source = plan->kernels[0].source;
    for (const std::string& code : k.code) EXPECT_THAT(source, HasSubstr(code));
    if (k.steps.back().rule == "blockRows(8)") {
      // Each column's 8 accumulators are computed once and stored down the block's rows: no
      // walk over the rows encloses the dot products (which would compute each 8 times).
      EXPECT_LT(source.find("  // [float32<16>]_8"), source.find("< 8L; ")) << source;
    }
    ExpectTheReferenceAnswer(**executor, w, *plan);
  }
  EXPECT_EQ((*executor)->fallbacks(), 0);
}

// The seed subgraph in blocks of 2 rows a work-item, as the tuner schedules it: each row's walk
// over the 10 columns interchanged into one Reduce over float16 vectors, then blockRows(2) makes
// the block's 2 rows' Reduces one of 2 x 10 accumulators, as the hand-written kernel of
// seed_subgraph_bench does it. N = 37 is no multiple of 2: the last block's second row is the
// last row again, computed and not stored. Each step prefetches both rows.
TEST(WorkloadsTest, TheSeedInBlocksOfTwoRowsComputesWhatTheReferenceDoes) {
  absl::StatusOr<std::unique_ptr<DeviceExecutor>> executor = DeviceExecutor::Open("cpu", -1, {});
  if (!executor.ok()) GTEST_SKIP() << "no OpenCL CPU device: " << executor.status();
  const Workload w = Seed(37);
  const std::vector<rewrite::Step> steps = {{"storeTransposed", 0},
                                            {"vectorizeReduce(16)", 0},
                                            {"mapReduceInterchange", 0},
                                            {"vectorizeReduce(8)", 0},
                                            {"blockRows(2)", 0}};
  absl::StatusOr<Plan> plan = CompileWithSteps(**executor, w, steps);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::string& source = plan->kernels[0].source;
  EXPECT_THAT(source, HasSubstr("work-item gid computes block gid of [[float32]_10]_2 rows"));
  EXPECT_THAT(source, HasSubstr("  // [[[float32<16>]_1]_10]_2"));
  EXPECT_THAT(source, HasSubstr("(gid * 2L)) < size_N)"));  // the padded row is not stored
  if ((*executor)->profile().prefetch_bytes > 0) {
    // One prefetch a row of the block, in the loop over the reduction (its ") + " is the
    // prefetch distance's).
    EXPECT_THAT(source, HasSubstr("DFC_PREFETCH((__global const char*)(in0 + ((i_"));
    for (const char* row : {"(gid * 2L)", "((gid * 2L) + 1L)"}) {
      EXPECT_THAT(source, HasSubstr(absl::StrCat("(min((size_N - 1L), ", row, ") * 784L))) + ")))
          << source;
    }
  }
  ExpectTheReferenceAnswer(**executor, w, *plan);
  EXPECT_EQ((*executor)->fallbacks(), 0);
}

// Relu's subgraph in blocks of 2 rows: its rows are computed by Maps (the walk over the 512
// columns, the bias, the Relu) zipped with in1's and folded by a sum over the 7 classes.
// blockRows fuses those Maps into the Map over the rows and blocks the walk, 2 x 7
// accumulators, not the sum (which would compute the walk once for each of the 7 classes).
TEST(WorkloadsTest, ReluInBlocksOfTwoRowsSharesTheWalkNotTheSum) {
  absl::StatusOr<std::unique_ptr<DeviceExecutor>> executor = DeviceExecutor::Open("cpu", -1, {});
  if (!executor.ok()) GTEST_SKIP() << "no OpenCL CPU device: " << executor.status();
  const Workload w = Relu(37);
  const std::vector<rewrite::Step> steps = {{"storeTransposed", 0},
                                            {"vectorizeReduce(8)", 0},
                                            {"mapReduceInterchange", 1},
                                            {"blockRows(2)", 0}};
  absl::StatusOr<Plan> plan = CompileWithSteps(**executor, w, steps);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const std::string& source = plan->kernels[0].source;
  EXPECT_THAT(source, HasSubstr("work-item gid computes block gid of [float32]_2 rows"));
  EXPECT_THAT(source, HasSubstr("  // [[[float32<8>]_1]_7]_2"));
  // The walk once: one loop over the row's 64 vectors.
  size_t walks = 0;
  for (size_t at = source.find("< 64L; "); at != std::string::npos;
       at = source.find("< 64L; ", at + 1)) {
    ++walks;
  }
  EXPECT_EQ(walks, 1u) << source;
  ExpectTheReferenceAnswer(**executor, w, *plan);
  EXPECT_EQ((*executor)->fallbacks(), 0);
}

// The models and the chain, run as model_bench runs them — the initialisers once, then the
// step with its targets — unfused with CLBlast's GEMM, fused, and with each MatMul a kernel of
// its own: each computes what the reference executor does.
TEST(WorkloadsTest, ModelsComputeWhatTheReferenceDoesUnderEveryFusion) {
  std::vector<Workload> all = Models(64);
  all.push_back(Chain(1 << 16));
  for (const Fusion fusion : {Fusion::kNone, Fusion::kAll, Fusion::kSeparateContractions}) {
    SCOPED_TRACE(static_cast<int>(fusion));
    absl::StatusOr<std::unique_ptr<DeviceExecutor>> executor =
        DeviceExecutor::Open("cpu", -1, {.blas_matmul = fusion == Fusion::kNone});
    if (!executor.ok()) GTEST_SKIP() << "no OpenCL CPU device: " << executor.status();
    for (const Workload& w : all) {
      SCOPED_TRACE(w.name);
      absl::StatusOr<Graph> graph = w.graph();
      ASSERT_TRUE(graph.ok()) << graph.status();
      auto shared = std::make_shared<const Graph>(*std::move(graph));
      DeviceExecutor::State state;
      if (!w.init.empty()) {
        absl::StatusOr<Plan> init = CompilePlan(shared, {.targets = w.init});
        ASSERT_TRUE(init.ok()) << init.status();
        ASSERT_TRUE((*executor)->Run(*shared, init->translated, {}, {}, &state).ok());
      }
      PlanSpec spec{.targets = w.targets, .profile = (*executor)->profile(), .fusion = fusion};
      for (const std::string& f : w.fetches) spec.fetches.push_back({f, 0});
      absl::StatusOr<Plan> plan = CompilePlan(shared, std::move(spec));
      ASSERT_TRUE(plan.ok()) << plan.status();
      const Feeds feeds = w.feeds();
      ASSERT_FALSE(feeds.empty());
      absl::StatusOr<std::vector<Tensor>> got =
          (*executor)->Run(*plan->graph, plan->translated, feeds, plan->spec.fetches, &state);
      ASSERT_TRUE(got.ok()) << got.status();
      absl::StatusOr<std::vector<Tensor>> want = Reference(w, feeds);
      ASSERT_TRUE(want.ok()) << want.status();
      ASSERT_EQ(got->size(), want->size());
      for (size_t f = 0; f < got->size(); ++f) {
        const Comparison c = CompareTensors((*got)[f], (*want)[f],
                                            VariantTolerance((*want)[f], w.longest_reduction));
        EXPECT_TRUE(c.equal) << w.fetches[f] << ": " << c.reason;
      }
    }
    EXPECT_EQ((*executor)->fallbacks(), 0);
  }
}

}  // namespace
}  // namespace dfc::workloads
