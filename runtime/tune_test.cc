// Tuning on the CPU device: every variant the explorer makes of the thesis' subgraph and of the
// Relu subgraph either computes the reference's answer on the device or is refused by the
// generator by name — none is wrong, none fails to build — and the plan takes the fastest.
// A training step is tuned from its variables' initial values, and a tuned plan is written, read
// and run. What a given variant's kernels are on each profile: tuned_variant_test.cc.
#include "runtime/tune.h"

#include <filesystem>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "base/status.h"
#include "dfc_test_paths.h"
#include "gmock/gmock.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "runtime/compile.h"
#include "runtime/device_session.h"
#include "runtime/reference/session.h"
#include "tests/test_hooks.h"
#include "tests/test_util.h"
#include "tests/tune_testing.h"

namespace dfc {
namespace {

using namespace testing;  // NOLINT: the tuning-test helpers
using ::testing::HasSubstr;

class TuneTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<DeviceExecutor>> executor = DeviceExecutor::Open("cpu", -1, {});
    ASSERT_TRUE(executor.ok()) << executor.status();
    executor_ = *std::move(executor);
  }

  Plan Compile(const std::string& model) {
    absl::StatusOr<Graph> graph = LoadGraph(std::string(DFC_SOURCE_DIR) + "/models/" + model);
    EXPECT_TRUE(graph.ok()) << graph.status();
    absl::StatusOr<Plan> plan =
        CompilePlan(std::make_shared<const Graph>(*std::move(graph)),
                    {.fetches = {{"out", 0}}, .profile = executor_->profile()});
    EXPECT_TRUE(plan.ok()) << plan.status();
    return *std::move(plan);
  }

  // Tunes with one vector width and one timed run: the point is each variant's answer.
  std::vector<ClusterTuning> Tune(Plan& plan, int64_t n, int64_t features, int64_t classes) {
    TuneOptions options{.warmup = 0, .runs = 1};
    options.explore.vector_widths = {16};
    absl::StatusOr<std::vector<ClusterTuning>> tunings =
        TunePlan(plan, *executor_, SubgraphFeeds(n, features, classes), options);
    EXPECT_TRUE(tunings.ok()) << tunings.status();
    return tunings.ok() ? *tunings : std::vector<ClusterTuning>{};
  }

  // Tunes the seed's one cluster with one breadth-first step and one round of refinement.
  absl::StatusOr<ClusterTuning> SeedRefinedOnce(std::vector<int> vector_widths) {
    Plan plan = Compile("seed_subgraph.pbtxt");
    TuneOptions options{.warmup = 0, .runs = 1, .refine_rounds = 1};
    options.explore.vector_widths = std::move(vector_widths);
    options.explore.max_steps = 1;
    DFC_ASSIGN_OR_RETURN(std::vector<ClusterTuning> tunings,
                         TunePlan(plan, *executor_, SubgraphFeeds(37, 784, 10), options));
    return tunings.at(0);
  }

  std::unique_ptr<DeviceExecutor> executor_;
};

// Every variant ran and agreed with the reference, or the generator refused it by name.
void ExpectEveryVariantRightOrRefused(const ClusterTuning& t) {
  int ran = 0;
  for (const VariantResult& v : t.variants) {
    SCOPED_TRACE(v.name);
    if (v.status.ok()) {
      ++ran;
      EXPECT_GT(v.median_ms, 0);
    } else {
      EXPECT_EQ(v.status.code(), absl::StatusCode::kUnimplemented) << v.status;
      EXPECT_THAT(v.status.message(), HasSubstr("cannot be mapped onto the device"));
    }
  }
  EXPECT_GE(ran, 8);
  EXPECT_TRUE(t.variants[t.best].status.ok());
  for (const VariantResult& v : t.variants) {
    if (v.status.ok()) {
      EXPECT_LE(t.variants[t.best].median_ms, v.median_ms) << v.name;
    }
  }
}

TEST_F(TuneTest, TheThesisSubgraphsVariantsAreRightAndThePlanTakesTheFastest) {
  Plan plan = Compile("seed_subgraph.pbtxt");
  const std::vector<ClusterTuning> tunings = Tune(plan, 37, 784, 10);
  ASSERT_EQ(tunings.size(), 1u);
  const ClusterTuning& t = tunings[0];
  EXPECT_EQ(t.variants[0].name, "default");
  ExpectEveryVariantRightOrRefused(t);
  // The schedule of the hand-written kernel is among them and computes the right answer.
  bool found = false;
  for (const VariantResult& v : t.variants) {
    found |= v.name == "storeTransposed@0 ; vectorizeReduce(16)@0 ; mapReduceInterchange@0" &&
             v.status.ok();
  }
  EXPECT_TRUE(found);
  // Stage three: the best algorithmic variant again with each work-group size of the profile.
  int sized = 0;
  for (const VariantResult& v : t.variants) {
    if (v.work_group_size < 0) continue;
    ++sized;
    EXPECT_THAT(v.name, HasSubstr(absl::StrCat("workGroupSize(", v.work_group_size, ")")));
  }
  EXPECT_EQ(sized, static_cast<int>(WorkGroupSizes(executor_->profile()).size()));
  // The plan holds the winner's kernel and steps.
  ASSERT_EQ(plan.spec.steps.size(), 1u);
  EXPECT_EQ(plan.spec.steps[0].size(), t.variants[t.best].steps.size());
  EXPECT_EQ(plan.spec.work_group_sizes[0], t.variants[t.best].work_group_size);
  const VariantResult& best = t.variants[t.best];
  if (!best.steps.empty()) {
    EXPECT_THAT(plan.kernels[0].source,
                HasSubstr("// rewritten by: " + rewrite::Variant{best.steps, nullptr}.Name()));
  }
  if (best.work_group_size > 0) {
    EXPECT_THAT(plan.kernels[0].source,
                HasSubstr(absl::StrCat("work-groups of ", best.work_group_size)));
  }
}

// Past the breadth-first steps: the best variant is extended one step at a time (the widths
// stage's variants are rewrite::OtherWidths', tested in rewrite/explore_test.cc).
TEST_F(TuneTest, TheBestVariantIsRefinedPastTheBreadthFirstSteps) {
  absl::StatusOr<ClusterTuning> tuning = SeedRefinedOnce({4, 8});
  ASSERT_TRUE(tuning.ok()) << tuning.status();
  const ClusterTuning& t = *tuning;
  ExpectEveryVariantRightOrRefused(t);
  int extended = 0;
  for (const VariantResult& v : t.variants) extended += v.steps.size() == 2;
  EXPECT_GT(extended, 0);
}

// Where the profile reduces in work-groups (amd's, its kernels run on the CPU device), where a
// kernel's rows run is a refinement too: the best variant is tried with its rows on
// work-groups and on work-items, each right or refused by the lowering with its reason.
TEST_F(TuneTest, MappingChoicesAreTriedWhereWorkGroupsReduce) {
  absl::StatusOr<std::unique_ptr<DeviceExecutor>> amd =
      DeviceExecutor::Open("cpu", -1, {.profile = *rewrite::NamedProfile("amd")});
  ASSERT_TRUE(amd.ok()) << amd.status();
  executor_ = *std::move(amd);
  absl::StatusOr<ClusterTuning> tuning = SeedRefinedOnce({16});
  ASSERT_TRUE(tuning.ok()) << tuning.status();
  const ClusterTuning& t = *tuning;
  ExpectEveryVariantRightOrRefused(t);
  std::vector<std::string> mapped;
  for (const VariantResult& v : t.variants) {
    if (absl::StrContains(v.name, "mapOutputs")) mapped.push_back(v.name);
  }
  EXPECT_THAT(mapped, ::testing::Contains(HasSubstr("mapOutputsWrg@0")));
  EXPECT_THAT(mapped, ::testing::Contains(HasSubstr("mapOutputsGlb@0")));
}

TEST_F(TuneTest, TheReluSubgraphsVariantsAreRight) {
  Plan plan = Compile("relu_subgraph.pbtxt");
  const std::vector<ClusterTuning> tunings = Tune(plan, 45, 512, 7);
  ASSERT_EQ(tunings.size(), 1u);
  ExpectEveryVariantRightOrRefused(tunings[0]);
}

// The variants the generator refuses are listed with its reason, but the cap counts only the
// usable ones: in Relu's cluster, mapReduceInterchange chains over its output columns (each
// refused) used to fill the cap.
TEST_F(TuneTest, VariantsTheGeneratorRefusesDoNotFillTheCap) {
  Plan plan = Compile("relu_subgraph.pbtxt");
  TuneOptions options{.warmup = 0, .runs = 1, .refine_rounds = 0};
  options.explore.vector_widths = {4};
  options.explore.max_variants = 10;
  absl::StatusOr<std::vector<ClusterTuning>> tunings =
      TunePlan(plan, *executor_, SubgraphFeeds(45, 512, 7), options);
  ASSERT_TRUE(tunings.ok()) << tunings.status();
  int usable = 0, refused = 0;
  for (const VariantResult& v : (*tunings)[0].variants) {
    if (absl::StrContains(v.name, "workGroupSize")) continue;  // stage three's
    SCOPED_TRACE(v.name);
    if (absl::StrContains(v.status.message(), "cannot be mapped onto the device")) {
      ++refused;
    } else {
      EXPECT_TRUE(v.status.ok()) << v.status;
      ++usable;
    }
  }
  EXPECT_EQ(usable, options.explore.max_variants);
  EXPECT_GT(refused, 0);
}

TEST_F(TuneTest, AVectorisedVariantReadsWithVectorLoadsAndKeepsItsAccumulatorsUnrolled) {
  Plan plan = Compile("seed_subgraph.pbtxt");
  const ir::TranslatedCluster& cluster = plan.translated.clusters[0];
  const rewrite::Variant variant{
      .steps = {{"storeTransposed", 0}, {"vectorizeReduce(16)", 0}, {"mapReduceInterchange", 0}}};
  absl::StatusOr<ClusterKernel> compiled =
      CompileCluster(cluster, variant, {.profile = executor_->profile()});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const codegen::KernelSource* kernel = &compiled->source;
  // The transposed weights by a stage of their own; the row and the weights' rows by vload16;
  // the 10 accumulators of 16 lanes in an unrolled private array; the lanes summed as a tree.
  EXPECT_EQ(kernel->stages.size(), 2u);
  EXPECT_EQ(kernel->temporaries.size(), 1u);
  EXPECT_THAT(kernel->source, HasSubstr("vload16(0, in0 + "));
  EXPECT_THAT(kernel->source, HasSubstr("vload16(0, tmp0 + "));
  EXPECT_THAT(kernel->source, HasSubstr("float16 acc_"));
  EXPECT_THAT(kernel->source, HasSubstr("#pragma unroll"));
  EXPECT_THAT(kernel->source, ::testing::ContainsRegex("= lanes_[0-9]+\\.lo;"));
}

// The MNIST training step of ../shared/models (TensorFlow's; all-zero initial weights): the
// loss Mean fetched, GradientDescent run, init its initialiser.
class TrainingStepTuneTest : public TuneTest {
 protected:
  void SetUp() override {
    TuneTest::SetUp();
    absl::StatusOr<Graph> graph =
        LoadGraph(testing::SharedDir() + "/models/dl4j_mnist_00_softmax_train.pbtxt");
    ASSERT_TRUE(graph.ok()) << graph.status();
    graph_ = std::make_shared<const Graph>(*std::move(graph));
  }

  absl::StatusOr<Plan> Compile(std::vector<std::string> init) {
    return CompilePlan(graph_, {.fetches = {{"Mean", 0}},
                                .targets = {"GradientDescent"},
                                .init = std::move(init),
                                .profile = executor_->profile()});
  }

  static std::vector<Feed> StepFeeds(int64_t batch) {
    return {{{"input"}, testing::UniformFloats({batch, 784}, 5, 0.0f, 1.0f)},
            {{"Placeholder"}, testing::UniformFloats({batch, 10}, 6, 0.0f, 1.0f)}};
  }

  std::shared_ptr<const Graph> graph_;
};

TEST_F(TrainingStepTuneTest, APlanWithTargetsNeedsItsInitialisers) {
  absl::StatusOr<Plan> plan = Compile({});
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<std::vector<ClusterTuning>> tunings =
      TunePlan(*plan, *executor_, StepFeeds(8), {});
  EXPECT_EQ(tunings.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(tunings.status().message(), HasSubstr("(GradientDescent) changes its variables"));
  EXPECT_THAT(tunings.status().message(), HasSubstr("PlanSpec::init"));
}

// A plan that reads the variables without training them: its initialisers run first too.
TEST_F(TrainingStepTuneTest, APlanThatOnlyReadsVariablesRunsItsInitialisersFirst) {
  absl::StatusOr<Plan> plan = CompilePlan(
      graph_, {.fetches = {{"Mean", 0}}, .init = {"init"}, .profile = executor_->profile()});
  ASSERT_TRUE(plan.ok()) << plan.status();
  TuneOptions options{.warmup = 0, .runs = 1, .refine_rounds = 0};
  options.explore.max_steps = 0;
  absl::StatusOr<std::vector<ClusterTuning>> tunings =
      TunePlan(*plan, *executor_, StepFeeds(8), options);
  ASSERT_TRUE(tunings.ok()) << tunings.status();
  for (const ClusterTuning& t : *tunings) EXPECT_TRUE(t.variants[t.best].status.ok());
}

// Every variant's run starts from the initial weights (else the loss it fetches, computed from
// weights earlier variants trained, would differ from the reference's), and the tuned plan
// trains as the reference does, step after step.
TEST_F(TrainingStepTuneTest, ATrainingStepIsTunedFromItsInitialValues) {
  absl::StatusOr<Plan> plan = Compile({"init"});
  ASSERT_TRUE(plan.ok()) << plan.status();
  TuneOptions options{.warmup = 1, .runs = 2, .refine_rounds = 0};
  options.explore.vector_widths = {8};
  options.explore.max_steps = 1;
  const auto feeds = StepFeeds(37);
  absl::StatusOr<std::vector<ClusterTuning>> tunings = TunePlan(*plan, *executor_, feeds, options);
  ASSERT_TRUE(tunings.ok()) << tunings.status();
  int ran = 0;
  for (const ClusterTuning& t : *tunings) {
    for (const VariantResult& v : t.variants) {
      SCOPED_TRACE(v.name);
      ran += v.status.ok();
      if (!v.status.ok()) {
        EXPECT_EQ(v.status.code(), absl::StatusCode::kUnimplemented) << v.status;
      }
    }
    EXPECT_TRUE(t.variants[t.best].status.ok());
  }
  EXPECT_GT(ran, 10);

  // Three steps of the tuned plan from the initial values, against the reference's.
  reference::Session oracle(graph_);
  ASSERT_TRUE(oracle.Run({}, {}, {"init"}).ok());
  absl::StatusOr<Plan> init = CompilePlan(graph_, {.targets = {"init"}});
  ASSERT_TRUE(init.ok()) << init.status();
  DeviceExecutor::State state;
  ASSERT_TRUE(executor_->Run(*graph_, init->translated, {}, {}, &state).ok());
  for (int step = 0; step < 3; ++step) {
    SCOPED_TRACE(step);
    absl::StatusOr<std::vector<Tensor>> got =
        executor_->Run(*graph_, plan->translated, feeds, {{"Mean", 0}}, &state);
    ASSERT_TRUE(got.ok()) << got.status();
    absl::StatusOr<std::vector<Tensor>> want = oracle.Run(feeds, {"Mean"}, {"GradientDescent"});
    ASSERT_TRUE(want.ok()) << want.status();
    ExpectAgrees((*got)[0], (*want)[0]);
  }
  EXPECT_EQ(executor_->fallbacks(), 0);
}

// A variant whose fetches are right but whose update is wrong does not win: here every kernel
// of the gradients' cluster leaves its first row unwritten. That kernel runs in every variant
// of every cluster (the others are tuned with it in place), so no variant is right.
TEST_F(TrainingStepTuneTest, AWrongUpdateIsCaughtThoughTheFetchesAreRight) {
  absl::StatusOr<std::unique_ptr<DeviceExecutor>> executor = DeviceExecutor::Open("cpu", -1, {});
  ASSERT_TRUE(executor.ok()) << executor.status();
  TestHooks::EditSources(**executor, [](std::string& source) {
    if (!absl::StrContains(source, "gradients/MatMul_grad/MatMul_1")) return;
    absl::StrReplaceAll({{"const long gid = get_global_id(0);",
                          "const long gid = get_global_id(0);\n  if (gid == 0) return;"}},
                        &source);
  });
  absl::StatusOr<Plan> plan = Compile({"init"});
  ASSERT_TRUE(plan.ok()) << plan.status();
  TuneOptions options{.warmup = 0, .runs = 1, .refine_rounds = 0};
  options.explore.max_steps = 0;
  absl::StatusOr<std::vector<ClusterTuning>> tunings =
      TunePlan(*plan, **executor, StepFeeds(16), options);
  ASSERT_TRUE(tunings.ok()) << tunings.status();
  ASSERT_FALSE(tunings->empty());
  for (const ClusterTuning& t : *tunings) {
    for (const VariantResult& v : t.variants) {
      SCOPED_TRACE(v.name);
      EXPECT_EQ(v.status.code(), absl::StatusCode::kInternal);
      EXPECT_THAT(v.status.message(),
                  HasSubstr("wrong value after the run of variable Variable: "));
    }
  }
  // And the same variants, their kernels as generated, are right.
  TuneOptions again = options;
  absl::StatusOr<Plan> fresh = Compile({"init"});
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  tunings = TunePlan(*fresh, *executor_, StepFeeds(16), again);
  ASSERT_TRUE(tunings.ok()) << tunings.status();
  for (const ClusterTuning& t : *tunings) {
    for (const VariantResult& v : t.variants) EXPECT_TRUE(v.status.ok()) << v.name << v.status;
  }
}

TEST_F(TuneTest, ATunedPlanIsWrittenReadAgainAndRunsItsVariant) {
  const std::string model = std::string(DFC_SOURCE_DIR) + "/models/seed_subgraph.pbtxt";
  absl::StatusOr<Graph> graph = LoadGraph(model);
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::vector<rewrite::Step> steps = {
      {"storeTransposed", 0}, {"vectorizeReduce(16)", 0}, {"mapReduceInterchange", 0}};
  absl::StatusOr<Plan> plan =
      CompilePlan(std::make_shared<const Graph>(*graph), {.fetches = {{"out", 0}},
                                                          .profile = *rewrite::NamedProfile("cpu"),
                                                          .steps = {steps},
                                                          .work_group_sizes = {16}});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(plan->kernels[0].source, HasSubstr("// rewritten by: storeTransposed@0 ; "));
  EXPECT_THAT(plan->kernels[0].source, HasSubstr("work-groups of 16"));
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "tuned_plan";
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(WritePlan(*plan, model, dir).ok());

  absl::StatusOr<Plan> read = ReadPlan(dir);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->spec.steps.size(), 1u);
  EXPECT_EQ(read->spec.steps[0].size(), 3u);
  EXPECT_EQ(read->kernels[0].temporaries.size(), 1u);  // the stored transpose
  ASSERT_EQ(read->spec.work_group_sizes.size(), 1u);
  EXPECT_EQ(read->spec.work_group_sizes[0], 16);
  for (const codegen::KernelStage& stage : read->kernels[0].stages) {
    EXPECT_EQ(stage.work_group_size, 16) << stage.name;
  }

  absl::StatusOr<std::unique_ptr<DeviceSession>> session =
      DeviceSession::OpenPlan(dir.string(), {.device = "cpu"});
  ASSERT_TRUE(session.ok()) << session.status();
  const auto feeds = SubgraphFeeds(33, 784, 10);
  absl::StatusOr<std::vector<Tensor>> got = (*session)->Run(feeds, {"out"});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*session)->executor().kernels_generated(), 0);
  EXPECT_EQ((*session)->executor().fallbacks(), 0);
  ExpectAgrees((*got)[0], ReferenceOut(std::make_shared<const Graph>(*std::move(graph)), feeds));
}

TEST_F(TuneTest, StepsThatDoNotApplyAreAnErrorNamingTheCluster) {
  absl::StatusOr<Plan> plan = CompileWithSteps("relu_subgraph.pbtxt", {{"vectorizeReduce(16)", 5}});
  EXPECT_THAT(plan.status().message(), HasSubstr("cluster 0 (matmul (MatMul), add (Add)"));
  EXPECT_THAT(plan.status().message(), HasSubstr("its rewrite steps: step vectorizeReduce(16)@5"));
}

// Each cluster may spend an equal share of what is left: the first of five, a fifth of the
// whole; the last, all that is left; none once the budget is spent.
TEST(ClusterShareTest, AnEqualShareOfWhatIsLeft) {
  using std::chrono::seconds;
  EXPECT_EQ(ClusterShare(seconds(90), 5), seconds(18));
  EXPECT_EQ(ClusterShare(seconds(40), 1), seconds(40));
  EXPECT_EQ(ClusterShare(seconds(-3), 2), seconds(0));
  EXPECT_EQ(ClusterShare(seconds(0), 4), seconds(0));
}

TEST(WorkGroupSizesTest, DrawnFromTheProfile) {
  const rewrite::DeviceProfile amd = *rewrite::NamedProfile("amd");
  for (int size : WorkGroupSizes(amd)) {
    EXPECT_EQ(size % amd.simd_width, 0);
    EXPECT_LE(size, amd.max_work_group_size);
    EXPECT_NE(size, amd.WorkGroupSize());
  }
  EXPECT_FALSE(WorkGroupSizes(amd).empty());
  EXPECT_EQ(WorkGroupSizes(*rewrite::NamedProfile("cpu")), (std::vector<int>{1, 16, 64}));
}

TEST(VariantToleranceTest, GrowsWithTheLongestReductionAndTheLargestValue) {
  Tensor expected = Tensor::Zeros(DType::kFloat, {3});
  expected.mutable_flat<float>()[1] = -8.0f;
  const Tolerance t = VariantTolerance(expected, 784);
  EXPECT_DOUBLE_EQ(t.rtol, 2.0 * 784 * 0x1p-24);
  EXPECT_DOUBLE_EQ(t.atol, 2.0 * 784 * 0x1p-24 * 8.0);
  // Never below the default; exact for integers.
  EXPECT_DOUBLE_EQ(VariantTolerance(expected, 1).rtol, DefaultTolerance(DType::kFloat).rtol);
  EXPECT_EQ(VariantTolerance(Tensor::Zeros(DType::kInt32, {2}), 784).atol, 0);
}

}  // namespace
}  // namespace dfc
