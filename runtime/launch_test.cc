// A run's launches (runtime/launch.cc) on PoCL's CPU device: values too large for the device
// refused before anything is allocated, every kernel timed by the profiler's device events
// (CLBlast's too, a variable's update not), the launch geometry (work-groups bounded by private
// arrays, MapWrg a group a row), and the GPU profiles' Reduces split across work-groups, against
// the reference executor.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "graph/loader.h"
#include "graph/ops.h"
#include "gtest/gtest.h"
#include "ir/from_tf/cluster.h"
#include "runtime/compare.h"
#include "runtime/compile.h"
#include "runtime/device_executor.h"
#include "runtime/device_session.h"
#include "runtime/kernel_timer.h"
#include "runtime/opencl/device.h"
#include "runtime/plan.h"
#include "runtime/profiler/profiler.h"
#include "runtime/reference/session.h"
#include "runtime/translate_for_feeds.h"
#include "runtime/tune.h"
#include "tests/device_executor_testing.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::testing::HasSubstr;
using namespace testing;  // NOLINT: the DeviceExecutor test helpers

// A value too large for the device (past the largest buffer it makes, or past 2^63 elements,
// whose byte count would wrap to a small number) is refused, naming its cluster or node, before
// anything is allocated or launched.
TEST_F(DeviceExecutorTest, AValueTooLargeForTheDeviceIsRefusedBeforeAllocating) {
  for (const std::string dims : {"100000 int_val: 100000 int_val: 100000",
                                 "2000000000 int_val: 2000000000 int_val: 2000000000",
                                 "4294967296 int_val: 4294967296 int_val: 1"}) {
    const std::string text =
        absl::StrCat(R"graph(
node { name: "dims" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
       attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { dim { size: 3 } }
       int64_val: )graph",
                     absl::StrReplaceAll(dims, {{"int_val", "int64_val"}}), R"graph( } } } }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { } } } }
node { name: "f" op: "Fill" input: "dims" input: "x" attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "index_type" value { type: DT_INT64 } } }
node { name: "out" op: "Tanh" input: "f" attr { key: "T" value { type: DT_FLOAT } } }
)graph");
    absl::StatusOr<Graph> graph = ParseGraph(text, "fill");
    ASSERT_TRUE(graph.ok()) << graph.status();
    const Feeds feeds = {{{"x", 0}, Tensor::Scalar<float>(0.5f)}};
    const std::vector<TensorId> fetches = {{"out", 0}};
    absl::StatusOr<ir::TranslatedGraph> translated = Translate(*graph, fetches, feeds);
    ASSERT_TRUE(translated.ok()) << translated.status();
    std::unique_ptr<DeviceExecutor> executor = MakeExecutor();
    const int64_t allocated = executor->bytes_to_device();
    absl::StatusOr<std::vector<Tensor>> out = executor->Run(*graph, *translated, feeds, fetches);
    ASSERT_FALSE(out.ok()) << dims;
    EXPECT_TRUE(absl::IsInvalidArgument(out.status())) << out.status();
    // Past 2^63 elements the Fill does not translate (no int64 indexes it), so the reference on the
    // host refuses it; below, the cluster holding it is refused before its buffers are made.
    const bool past_int64 = !absl::StartsWith(dims, "100000 ");
    EXPECT_THAT(out.status().message(),
                HasSubstr(past_int64 ? "node \"f\" (Fill)" : "cluster 0 (f (Fill), out (Tanh))"));
    EXPECT_THAT(std::string(out.status().message()),
                ::testing::ContainsRegex("largest buffer|2\\^63"));
    EXPECT_EQ(executor->kernels_run(), 0);
    EXPECT_EQ(executor->fallbacks(), 0);
    EXPECT_EQ(executor->bytes_to_device(), allocated);  // not even the feed
  }
}

// The frozen MLP of ../shared/models, translated for a batch of 3: one cluster, of two stages
// (the first layer's blocked product stored by a kernel of its own, then the rest).
struct FrozenMlp {
  Graph graph;
  ir::TranslatedGraph translated;
  std::vector<TensorId> fetches;
  Feeds feeds;

  static absl::StatusOr<FrozenMlp> Load() {
    DFC_ASSIGN_OR_RETURN(Graph graph, LoadShared("dl4j_mlp_00_frozen.pb"));
    std::vector<TensorId> fetches = {{"output", 0}};
    Feeds feeds = {{{"input", 0}, RandomFloats({3, 784}, 3)}};
    DFC_ASSIGN_OR_RETURN(ir::TranslatedGraph translated, Translate(graph, fetches, feeds));
    return FrozenMlp{std::move(graph), std::move(translated), std::move(fetches), std::move(feeds)};
  }
};

// Two products of one input, each read through a Transpose (the gates of a recurrent cell,
// say), are stored together by one kernel before the kernel of their sum: two launches a run
// where a kernel for each product made three. Equal to the reference.
TEST_F(DeviceExecutorTest, ProductsOfTheClustersInputsAreStoredByOneKernel) {
  absl::StatusOr<Graph> graph = ParseGraph(R"graph(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: -1 } dim { size: 32 } } } } }
node { name: "w0" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 32 } dim { size: 16 } } } } }
node { name: "w1" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 32 } dim { size: 16 } } } } }
node { name: "perm" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } }
       int_val: 1 int_val: 0 } } } }
node { name: "m0" op: "MatMul" input: "x" input: "w0" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "m1" op: "MatMul" input: "x" input: "w1" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "t0" op: "Transpose" input: "m0" input: "perm" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "t1" op: "Transpose" input: "m1" input: "perm" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "sum" op: "Add" input: "t0" input: "t1" attr { key: "T" value { type: DT_FLOAT } } }
)graph",
                                           "gates");
  ASSERT_TRUE(graph.ok()) << graph.status();
  const Feeds feeds = {{{"x", 0}, RandomFloats({40, 32}, 1)},
                       {{"w0", 0}, RandomFloats({32, 16}, 2)},
                       {{"w1", 0}, RandomFloats({32, 16}, 3)}};
  const std::vector<TensorId> fetches = {{"sum", 0}};
  absl::StatusOr<ir::TranslatedGraph> translated = Translate(*graph, fetches, feeds);
  ASSERT_TRUE(translated.ok()) << translated.status();
  ASSERT_EQ(translated->clusters.size(), 1u);
  std::unique_ptr<DeviceExecutor> device = MakeExecutor();
  KernelTimer timer;
  absl::StatusOr<std::vector<Tensor>> out = device->Run(*graph, *translated, feeds, fetches);
  ASSERT_TRUE(out.ok()) << out.status();
  absl::StatusOr<std::vector<profiler::DeviceEvent>> kernels = timer.Take();
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  ASSERT_EQ(kernels->size(), 2u);
  EXPECT_EQ((*kernels)[0].info.name, "dfc_cluster_0_s0");
  absl::StatusOr<std::vector<Tensor>> expected = Reference(*graph, feeds, fetches);
  ASSERT_TRUE(expected.ok()) << expected.status();
  ExpectAllEqual(*out, *expected, fetches);
}

// While the profiler records, every launch of a run leaves a device event naming its cluster
// and kernel, once per stage: the kernel times (runtime/kernel_timer.h).
TEST_F(DeviceExecutorTest, TimesEveryKernelOfARun) {
  absl::StatusOr<FrozenMlp> mlp = FrozenMlp::Load();
  ASSERT_TRUE(mlp.ok()) << mlp.status();
  const auto& [graph, translated, fetches, feeds] = *mlp;
  std::unique_ptr<DeviceExecutor> device = MakeExecutor();
  {
    KernelTimer timer;
    for (int run = 0; run < 2; ++run) {
      ASSERT_TRUE(device->Run(graph, translated, feeds, fetches).ok());
      absl::StatusOr<std::vector<profiler::DeviceEvent>> kernels = timer.Take();
      ASSERT_TRUE(kernels.ok()) << kernels.status();
      ASSERT_EQ(kernels->size(), 2u);  // one cluster of two stages, per run
      EXPECT_EQ((*kernels)[0].info.cluster, 0);
      EXPECT_EQ((*kernels)[0].info.name, "dfc_cluster_0_s0");
      EXPECT_EQ((*kernels)[1].info.cluster, 0);
      EXPECT_EQ((*kernels)[1].info.name, "dfc_cluster_0");
      EXPECT_GT(KernelNanoseconds(*kernels), 0);
      EXPECT_EQ(KernelNanoseconds(*kernels, 0), KernelNanoseconds(*kernels));
      EXPECT_EQ(KernelNanoseconds(*kernels, 1), 0);
    }
    // A run dropped is not in the next Take.
    ASSERT_TRUE(device->Run(graph, translated, feeds, fetches).ok());
    ASSERT_TRUE(timer.Drop().ok());
    absl::StatusOr<std::vector<profiler::DeviceEvent>> none = timer.Take();
    ASSERT_TRUE(none.ok()) << none.status();
    EXPECT_TRUE(none->empty());
  }
  // The timer put the profiler back as it found it, and the queue stops recording times.
  EXPECT_EQ(profiler::GetState(), profiler::State::kDisabled);
  EXPECT_TRUE(device->Run(graph, translated, feeds, fetches).ok());
  EXPECT_FALSE(device->context()->profiling());
}

// A timer records the kernels alone (State::kKernels) where nothing else profiles, so that
// timing a run adds no host work to it; where the host is profiled, it records everything,
// the kernels described in full, and puts the host-only state back after.
TEST_F(DeviceExecutorTest, AKernelTimerRecordsNoMoreThanItNeeds) {
  absl::StatusOr<FrozenMlp> mlp = FrozenMlp::Load();
  ASSERT_TRUE(mlp.ok()) << mlp.status();
  const auto& [graph, translated, fetches, feeds] = *mlp;
  std::unique_ptr<DeviceExecutor> device = MakeExecutor();
  {
    KernelTimer timer;
    EXPECT_EQ(profiler::GetState(), profiler::State::kKernels);
    ASSERT_TRUE(device->Run(graph, translated, feeds, fetches).ok());
    absl::StatusOr<profiler::Profile> profile = profiler::Collect();
    ASSERT_TRUE(profile.ok()) << profile.status();
    EXPECT_TRUE(profile->host.empty());
    ASSERT_EQ(profile->device.size(), 2u);  // the cluster's two kernels, no transfer
    for (const profiler::DeviceEvent& e : profile->device) {
      EXPECT_EQ(e.info.kind, profiler::DeviceEventKind::kKernel);
      EXPECT_TRUE(e.info.nodes.empty());
    }
    EXPECT_EQ(profile->device[1].info.name, "dfc_cluster_0");
  }
  profiler::SetState(profiler::State::kHost);
  {
    KernelTimer timer;
    EXPECT_EQ(profiler::GetState(), profiler::State::kHostAndDevice);
    ASSERT_TRUE(device->Run(graph, translated, feeds, fetches).ok());
    absl::StatusOr<profiler::Profile> profile = profiler::Collect();
    ASSERT_TRUE(profile.ok()) << profile.status();
    EXPECT_FALSE(profile->host.empty());
    int kernels = 0, transfers = 0;
    for (const profiler::DeviceEvent& e : profile->device) {
      if (e.info.kind == profiler::DeviceEventKind::kTransfer) {
        ++transfers;
        continue;
      }
      ++kernels;
      EXPECT_FALSE(e.info.nodes.empty());
      EXPECT_EQ(e.info.nodes.size(), e.info.node_work.size());
      EXPECT_GT(e.info.flops, 0);
      EXPECT_GT(e.info.bytes, 0);
    }
    EXPECT_EQ(kernels, 2);
    EXPECT_GT(transfers, 0);
  }
  EXPECT_EQ(profiler::GetState(), profiler::State::kHost);
  profiler::SetState(profiler::State::kDisabled);
  (void)profiler::Collect();
}

// CLBlast's GEMM of two 1024 x 1024 matrices pads and transposes its operands in kernels of
// its own before the product, and ties the event it returns to its last kernel only: timed by
// that event alone it ran at 1124 GFLOP/s on a 2-core CPU. Its time is taken from a marker
// enqueued before the call, so that it covers every kernel: most of the run's wall time,
// which beyond the GEMM holds only the upload of 8 MB of operands.
TEST_F(DeviceExecutorTest, TimesEveryKernelOfClblastsGemm) {
  absl::StatusOr<Graph> graph = ParseGraph(R"graph(
node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node {
  name: "c" op: "MatMul" input: "a" input: "b"
  attr { key: "T" value { type: DT_FLOAT } }
}
)graph",
                                           "gemm");
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::vector<TensorId> fetches = {{"c", 0}};
  const Feeds feeds = {{{"a", 0}, RandomFloats({1024, 1024}, 1)},
                       {{"b", 0}, RandomFloats({1024, 1024}, 2)}};
  absl::StatusOr<ir::TranslatedGraph> translated = Translate(*graph, fetches, feeds);
  ASSERT_TRUE(translated.ok()) << translated.status();
  std::unique_ptr<DeviceExecutor> device = MakeExecutor({.blas_matmul = true});
  KernelTimer timer;
  ASSERT_TRUE(device->Run(*graph, *translated, feeds, fetches).ok());  // CLBlast builds its kernels
  ASSERT_TRUE(timer.Drop().ok());
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(device->Run(*graph, *translated, feeds, fetches).ok());
  const double wall_ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  absl::StatusOr<std::vector<profiler::DeviceEvent>> kernels = timer.Take();
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  ASSERT_EQ(kernels->size(), 1u);
  EXPECT_EQ((*kernels)[0].info.name, "clblast_sgemm");
  EXPECT_EQ((*kernels)[0].info.cluster, 0);
  EXPECT_GT(KernelNanoseconds(*kernels), 0.5 * wall_ns);
  EXPECT_LE(KernelNanoseconds(*kernels), wall_ns);
}

// A training step's variable updates (dfc_update) are the profiler's kernels but no cluster's:
// the kernel times leave them out.
TEST_F(DeviceExecutorTest, KernelTimesLeaveOutVariableUpdates) {
  absl::StatusOr<Graph> graph = LoadShared("dl4j_mnist_00_softmax_train.pbtxt");
  ASSERT_TRUE(graph.ok()) << graph.status();
  std::unique_ptr<DeviceExecutor> device = MakeExecutor();
  DeviceExecutor::State state;
  absl::StatusOr<ir::TranslatedGraph> init = TranslateForFeeds(*graph, {}, {}, {"init"});
  ASSERT_TRUE(init.ok()) << init.status();
  ASSERT_TRUE(device->Run(*graph, *init, {}, {}, &state).ok());
  const std::vector<TensorId> fetches = {{"Mean", 0}};
  const Feeds feeds = {{{"input", 0}, RandomFloats({4, 784}, 1)},
                       {{"Placeholder", 0}, RandomFloats({4, 10}, 2)}};
  absl::StatusOr<ir::TranslatedGraph> step =
      TranslateForFeeds(*graph, fetches, feeds, {"GradientDescent"});
  ASSERT_TRUE(step.ok()) << step.status();
  int updates = 0;
  {
    profiler::SetState(profiler::State::kHostAndDevice);
    const absl::Status run = device->Run(*graph, *step, feeds, fetches, &state).status();
    profiler::SetState(profiler::State::kDisabled);
    absl::StatusOr<profiler::Profile> profile = profiler::Collect();
    ASSERT_TRUE(run.ok()) << run;
    ASSERT_TRUE(profile.ok()) << profile.status();
    for (const profiler::DeviceEvent& e : profile->device) {
      if (e.info.name == "dfc_update") {
        EXPECT_EQ(e.info.cluster, -1);
        ++updates;
      }
    }
  }
  EXPECT_EQ(updates, 2);  // W and b
  KernelTimer timer;
  ASSERT_TRUE(device->Run(*graph, *step, feeds, fetches, &state).ok());
  absl::StatusOr<std::vector<profiler::DeviceEvent>> kernels = timer.Take();
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  ASSERT_FALSE(kernels->empty());
  for (const profiler::DeviceEvent& e : *kernels) {
    EXPECT_NE(e.info.name, "dfc_update");
    EXPECT_GE(e.info.cluster, 0) << e.info.name;
  }
}

TEST(LocalSizeForPrivateArraysTest, BoundsTheWorkGroupsPrivateArrays) {
  EXPECT_EQ(LocalSizeForPrivateArrays(0, 4096), 0u);  // the driver's choice
  EXPECT_EQ(LocalSizeForPrivateArrays(1024, 4096), 256u);
  EXPECT_EQ(LocalSizeForPrivateArrays(1000, 4096), 256u);
  EXPECT_EQ(LocalSizeForPrivateArrays(1, 4096), 4096u);
  EXPECT_EQ(LocalSizeForPrivateArrays(1, 1000), 512u);
  EXPECT_EQ(LocalSizeForPrivateArrays(int64_t{1} << 30, 4096), 1u);
}

TEST(StageGeometryTest, RoundsMapGlbUpAndGivesMapWrgAGroupARow) {
  // MapGlb in work-groups of 64: 100 rows take two groups, and work-items past row 99 idle.
  StageLaunch glb = StageGeometry({.work_group_size = 64}, 100, 1024);
  EXPECT_EQ(glb.global, 128u);
  EXPECT_EQ(glb.local, 64u);
  // A plan's work-group larger than this device allows is cut to its limit.
  EXPECT_EQ(StageGeometry({.work_group_size = 1024}, 100, 256).local, 256u);
  // The driver's choice, unless private arrays bound it.
  EXPECT_EQ(StageGeometry({.work_group_size = 0}, 100, 4096).local, 0u);
  EXPECT_EQ(StageGeometry({.work_group_size = 0}, 100, 4096).global, 100u);
  EXPECT_EQ(StageGeometry({.work_group_size = 0, .private_bytes = 1024}, 8192, 4096).local, 256u);
  // Bounded by private arrays, and at most what leaves two groups a compute unit: 100 rows on
  // one unit in groups of 32, 128 rows on two in groups of 32, 8192 rows on 16 in groups of 256.
  EXPECT_EQ(StageGeometry({.work_group_size = 0, .private_bytes = 1024}, 100, 4096).local, 32u);
  EXPECT_EQ(StageGeometry({.work_group_size = 0, .private_bytes = 2048}, 128, 4096, 2).local, 32u);
  EXPECT_EQ(StageGeometry({.work_group_size = 0, .private_bytes = 1024}, 8192, 4096, 16).local,
            256u);
  EXPECT_EQ(StageGeometry({.work_group_size = 0, .private_bytes = 1024}, 1, 4096, 2).local, 1u);
  // MapWrg/MapLcl: exactly its group a row, even past the device's limit (the launch fails
  // there, and the cluster falls back).
  StageLaunch wrg = StageGeometry({.work_group_size = 256, .work_group_per_row = true}, 10, 128);
  EXPECT_EQ(wrg.local, 256u);
  EXPECT_EQ(wrg.global, 2560u);
}

// The 784-256-10 MLP keeps each row's 256 hidden units in a private array. PoCL, left to
// choose, ran 4096 of 8192 rows as one work-group on one thread's stack and overflowed it: the
// process died (the default kernel, and the variant with its layers' Maps and Reduces
// interchanged). The work-group is now bounded by the arrays' bytes.
TEST_F(DeviceExecutorTest, KernelsWithLargePrivateArraysRunOnManyRows) {
  absl::StatusOr<Graph> graph = LoadShared("dl4j_mlp_00_frozen.pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto shared = std::make_shared<const Graph>(*std::move(graph));
  // Pixels in [0, 1), as the model was trained on (and `dfc compile --tune` feeds it).
  const Feeds feeds = {{{"input", 0}, testing::UniformFloats({8192, 784}, 3, 0.0f, 1.0f)}};
  std::vector<Tensor> outputs;
  for (const std::vector<rewrite::Step>& steps :
       {std::vector<rewrite::Step>{}, {{"mapReduceInterchange", 0}}}) {
    std::unique_ptr<DeviceExecutor> device = MakeExecutor();
    PlanSpec spec{.fetches = {{"output", 0}}, .profile = device->profile(), .steps = {steps}};
    absl::StatusOr<Plan> plan = CompilePlan(shared, std::move(spec));
    ASSERT_TRUE(plan.ok()) << plan.status();
    ASSERT_EQ(plan->kernels.size(), 1u);
    const codegen::KernelStage& stage = plan->kernels[0].stages.back();
    EXPECT_GE(stage.private_bytes, 256 * 4);
    EXPECT_EQ(stage.work_group_size, 0) << "left to the driver";
    device->UseKernel(plan->translated.clusters[0], plan->kernels[0]);
    absl::StatusOr<std::vector<Tensor>> out =
        device->Run(*shared, plan->translated, feeds, {{"output", 0}});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(device->fallbacks(), 0);
    outputs.push_back((*out)[0]);
  }
  absl::StatusOr<std::vector<Tensor>> expected = Reference(*shared, feeds, {{"output", 0}});
  ASSERT_TRUE(expected.ok()) << expected.status();
  // The reference sums in double, the kernels in float32 through two layers and a softmax: the
  // default kernel's largest error over these 81920 outputs measured 1.4e-4 (on an output of
  // 0.41), more than one 784-term sum's bound (784 float32 epsilons, 9.3e-5) since the second
  // layer carries the first's rounding. 1e-3 leaves a factor of seven.
  EXPECT_TRUE(CompareTensors(outputs[0], (*expected)[0], {.rtol = 1e-3, .atol = 1e-3}).equal);
  // The variant only reorders the default's sums.
  const Comparison c = CompareTensors(outputs[1], outputs[0],
                                      VariantTolerance(outputs[0], /*longest_reduction=*/784));
  EXPECT_TRUE(c.equal) << c.reason;
}

// Reductions over the batch, as a training step's gradients have them: x, i: [N]; a: [N,37];
// b: [N,10]. Every output has few rows (one, or 37), so GPU profiles split the Reduces.
constexpr char kBatchReductionsGraph[] = R"gd(
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -1 } } } } }
  node { name: "i" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "shape" value { shape { dim { size: -1 } } } } }
  node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -1 } dim { size: 37 } } } } }
  node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -1 } dim { size: 10 } } } } }
  node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
    attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
  node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0 } } } }
  node { name: "sum" op: "Sum" input: "x" input: "axis"
    attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } } }
  node { name: "mean" op: "Mean" input: "x" input: "axis"
    attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } } }
  node { name: "max" op: "Max" input: "x" input: "axis"
    attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } } }
  node { name: "argmax" op: "ArgMax" input: "x" input: "axis"
    attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } }
    attr { key: "output_type" value { type: DT_INT64 } } }
  node { name: "isum" op: "Sum" input: "i" input: "axis"
    attr { key: "T" value { type: DT_INT32 } } attr { key: "Tidx" value { type: DT_INT32 } } }
  node { name: "positive" op: "Greater" input: "x" input: "zero"
    attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "any" op: "Any" input: "positive" input: "axis"
    attr { key: "Tidx" value { type: DT_INT32 } } }
  node { name: "all" op: "All" input: "positive" input: "axis"
    attr { key: "Tidx" value { type: DT_INT32 } } }
  node { name: "grad" op: "MatMul" input: "a" input: "b"
    attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "transpose_a" value { b: true } } attr { key: "transpose_b" value { b: false } } }
)gd";

// Higham's bound for a float32 sum of n terms in any order: |computed - exact| <= gamma_n *
// sum |term|, gamma_n = n u / (1 - n u), u = 2^-24. Two orders differ by at most twice that.
double SumOrderBound(int64_t n, double sum_of_magnitudes) {
  const double u = std::ldexp(1.0, -24);
  return 2 * (n * u / (1 - n * u)) * sum_of_magnitudes;
}

// The MapWrg/MapLcl strategy of the GPU profiles (codegen/kernel_gen.h), run on the CPU
// device: every Reduce over the batch split across a work-group and combined in local
// memory. Integers, bools, Max and ArgMax (ties go to the first index) must be exact; float
// sums are summed in another order than the reference's and must agree within the bound above.
TEST_F(DeviceExecutorTest, GpuProfilesSplitBatchReductionsAcrossWorkGroups) {
  absl::StatusOr<Graph> graph = ParseGraph(kBatchReductionsGraph, "reductions.pbtxt");
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::vector<TensorId> fetches = {{"sum", 0},  {"mean", 0}, {"max", 0}, {"argmax", 0},
                                         {"isum", 0}, {"any", 0},  {"all", 0}, {"grad", 0}};
  auto feeds_for = [](int64_t n) -> Feeds {
    Tensor x = RandomFloats({n}, n);
    if (n > 3) x.mutable_flat<float>()[n - 1] = x.mutable_flat<float>()[1] = 2.0f;  // a tie
    Tensor i = Tensor::Zeros(DType::kInt32, {n});
    for (int64_t k = 0; k < n; ++k) i.mutable_flat<int32_t>()[k] = static_cast<int32_t>(k * 7919);
    return {{{"x", 0}, x},
            {{"i", 0}, i},
            {{"a", 0}, RandomFloats({n, 37}, n + 1)},
            {{"b", 0}, RandomFloats({n, 10}, n + 2)}};
  };
  for (const char* name : {"amd", "nvidia", "intel"}) {
    SCOPED_TRACE(name);
    absl::StatusOr<rewrite::DeviceProfile> profile = rewrite::NamedProfile(name);
    ASSERT_TRUE(profile.ok());
    ASSERT_GT(profile->WorkGroupReductionSize(), 0);
    absl::StatusOr<ir::TranslatedGraph> translated = Translate(*graph, fetches, feeds_for(5));
    ASSERT_TRUE(translated.ok()) << translated.status();
    int split = 0;
    for (const ir::TranslatedCluster& cluster : translated->clusters) {
      absl::StatusOr<ClusterKernel> compiled =
          CompileCluster(cluster, rewrite::Variant(), {.profile = *profile});
      ASSERT_TRUE(compiled.ok()) << compiled.status();
      const codegen::KernelSource* kernel = &compiled->source;
      for (const codegen::KernelStage& stage : kernel->stages) {
        if (!stage.work_group_per_row) continue;
        ++split;
        EXPECT_EQ(stage.work_group_size, profile->WorkGroupReductionSize());
        EXPECT_THAT(kernel->source, HasSubstr("barrier(CLK_LOCAL_MEM_FENCE)"));
        EXPECT_THAT(kernel->source, HasSubstr("reqd_work_group_size("));
      }
    }
    EXPECT_GT(split, 0) << "no kernel took the MapWrg/MapLcl mapping";

    std::unique_ptr<DeviceExecutor> device = MakeExecutor({.profile = *profile});
    for (int64_t n : {1, 5, 255, 256, 257, 3001}) {
      SCOPED_TRACE(absl::StrCat("N = ", n));
      const Feeds feeds = feeds_for(n);
      absl::StatusOr<std::vector<Tensor>> got = device->Run(*graph, *translated, feeds, fetches);
      ASSERT_TRUE(got.ok()) << got.status();
      absl::StatusOr<std::vector<Tensor>> want = Reference(*graph, feeds, fetches);
      ASSERT_TRUE(want.ok()) << want.status();
      for (size_t k = 2; k < 7; ++k) {  // max, argmax, isum, any, all: exact
        EXPECT_TRUE(CompareTensors((*got)[k], (*want)[k], {}).equal) << fetches[k].ToString();
      }
      double magnitude = 0;
      for (float v : feeds[0].value.flat<float>()) magnitude += std::fabs(v);
      const double sum_bound = SumOrderBound(n, magnitude);
      EXPECT_NEAR((*got)[0].flat<float>()[0], (*want)[0].flat<float>()[0], sum_bound);
      // The mean is the sum divided by n, rounded once more.
      const float mean = (*want)[1].flat<float>()[0];
      EXPECT_NEAR((*got)[1].flat<float>()[0], mean,
                  sum_bound / n + std::ldexp(std::fabs(mean), -23));
      // grad[r][c] = sum over the batch of a[k][r] * b[k][c] (the reference sums in double).
      const auto a = feeds[2].value.flat<float>(), b = feeds[3].value.flat<float>();
      const auto grad = (*got)[7].flat<float>(), want_grad = (*want)[7].flat<float>();
      for (int r = 0; r < 37; ++r) {
        for (int c = 0; c < 10; ++c) {
          double terms = 0;
          for (int64_t k = 0; k < n; ++k) terms += std::fabs(double{a[k * 37 + r]} * b[k * 10 + c]);
          EXPECT_NEAR(grad[r * 10 + c], want_grad[r * 10 + c], SumOrderBound(n, terms) + 1e-30)
              << "grad[" << r << "][" << c << "]";
        }
      }
    }
    EXPECT_EQ(device->fallbacks(), 0);
  }
}

}  // namespace
}  // namespace dfc
