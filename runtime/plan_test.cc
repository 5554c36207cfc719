// Compiled plans: written for one profile, opened and run on the CPU OpenCL device with their
// own kernels, checked against the reference executor; and every way a plan directory can be
// wrong is an error naming the file.
#include "runtime/plan.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

#include "gmock/gmock.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "runtime/device_session.h"
#include "runtime/reference/session.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::shared_ptr<const Graph> Model(const std::string& name) {
  absl::StatusOr<Graph> graph = LoadGraph(testing::SharedDir() + "/models/" + name);
  EXPECT_TRUE(graph.ok()) << graph.status();
  return std::make_shared<const Graph>(graph.ok() ? *std::move(graph) : Graph());
}

fs::path FreshDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("dfc_plan_test_" + name);
  fs::remove_all(dir);
  return dir;
}

std::string ReadText(const fs::path& path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

// Compiles `model` for `profile` into `dir`, as `dfc compile` does.
void WriteModelPlan(const std::string& model, PlanSpec spec, const fs::path& dir) {
  absl::StatusOr<Plan> plan = CompilePlan(Model(model), std::move(spec));
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_TRUE(WritePlan(*plan, testing::SharedDir() + "/models/" + model, dir).ok());
}

Tensor OneHot(int n, uint64_t seed) {
  Tensor t = Tensor::Zeros(DType::kFloat, {n, 10});
  std::mt19937_64 rng(seed);
  for (int i = 0; i < n; ++i) t.mutable_data<float>()[i * 10 + rng() % 10] = 1.0f;
  return t;
}

// Every field of the profile a plan was compiled for comes back when it is opened: ReadPlan
// compiles the graph again for it, and the stages and temporaries it makes must be those of the
// kernels on disk (32 vector registers block a product otherwise than the default 16).
TEST(PlanTest, TheProfileAPlanWasCompiledForComesBack) {
  rewrite::DeviceProfile profile = *rewrite::NamedProfile("cpu");
  profile.vector_registers = 32;
  profile.prefetch_bytes = 256;
  const fs::path dir = FreshDir("profile");
  WriteModelPlan("dl4j_mlp_00_frozen.pb", {.fetches = {TensorId{"output", 0}}, .profile = profile},
                 dir);
  absl::StatusOr<Plan> plan = ReadPlan(dir);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const rewrite::DeviceProfile& read = plan->spec.profile;
  EXPECT_EQ(read.name, profile.name);
  EXPECT_EQ(read.description, profile.description);
  EXPECT_EQ(read.simd_width, profile.simd_width);
  EXPECT_EQ(read.compute_units, profile.compute_units);
  EXPECT_EQ(read.local_memory_bytes, profile.local_memory_bytes);
  EXPECT_EQ(read.local_memory_is_real, profile.local_memory_is_real);
  EXPECT_EQ(read.preferred_vector_width, profile.preferred_vector_width);
  EXPECT_EQ(read.max_work_group_size, profile.max_work_group_size);
  EXPECT_EQ(read.is_gpu, profile.is_gpu);
  EXPECT_EQ(read.prefetch_bytes, 256);
  EXPECT_EQ(read.vector_registers, 32);
}

TEST(PlanTest, SplitInitialisersTakesInitAndLeavesTheTrainingStep) {
  std::shared_ptr<const Graph> graph = Model("dl4j_mnist_00_softmax_train.pbtxt");
  std::vector<std::string> targets = {"GradientDescent", "init"};
  EXPECT_EQ(SplitInitialisers(*graph, targets), std::vector<std::string>{"init"});
  EXPECT_EQ(targets, std::vector<std::string>{"GradientDescent"});
}

TEST(PlanTest, VariableInitialisersAreEachVariablesAssign) {
  std::shared_ptr<const Graph> graph = Model("dl4j_mnist_00_softmax_train.pbtxt");
  absl::StatusOr<std::vector<std::string>> init = VariableInitialisers(*graph);
  ASSERT_TRUE(init.ok()) << init.status();
  EXPECT_EQ(*init, (std::vector<std::string>{"Variable/Assign", "Variable_1/Assign"}));

  // A variable whose only write is named otherwise has no initialiser TensorFlow would make.
  absl::StatusOr<Graph> unnamed = ParseGraph(R"pb(
                                               node {
                                                 name: "v"
                                                 op: "VariableV2"
                                                 attr {
                                                   key: "dtype"
                                                   value { type: DT_FLOAT }
                                                 }
                                                 attr {
                                                   key: "shape"
                                                   value { shape { dim { size: 2 } } }
                                                 }
                                               }
                                               node {
                                                 name: "zero"
                                                 op: "Const"
                                                 attr {
                                                   key: "dtype"
                                                   value { type: DT_FLOAT }
                                                 }
                                                 attr {
                                                   key: "value"
                                                   value {
                                                     tensor {
                                                       dtype: DT_FLOAT
                                                       tensor_shape { dim { size: 2 } }
                                                       float_val: 0
                                                     }
                                                   }
                                                 }
                                               }
                                               node {
                                                 name: "write"
                                                 op: "Assign"
                                                 input: "v"
                                                 input: "zero"
                                                 attr {
                                                   key: "T"
                                                   value { type: DT_FLOAT }
                                                 }
                                               }
                                             )pb"
                                             "\n",
                                             "unnamed");
  ASSERT_TRUE(unnamed.ok()) << unnamed.status();
  init = VariableInitialisers(*unnamed);
  EXPECT_FALSE(init.ok());
  EXPECT_THAT(init.status().message(), HasSubstr("variable \"v\" has no initialiser"));
}

// The MNIST training step compiled for the nvidia profile, run on the CPU device: the plan's
// kernels, none generated, train as the reference executor does.
TEST(PlanTest, APlanForAnotherProfileTrainsAsTheReferenceDoes) {
  const std::string model = "dl4j_mnist_00_softmax_train.pbtxt";
  const fs::path dir = FreshDir("train");
  WriteModelPlan(model,
                 {.fetches = {TensorId{"Mean", 0}, TensorId{"Mean_1", 0}},
                  .targets = {"GradientDescent"},
                  .init = {"init"},
                  .profile = *rewrite::NamedProfile("nvidia")},
                 dir);
  absl::StatusOr<std::unique_ptr<DeviceSession>> session =
      DeviceSession::OpenPlan(dir.string(), {.device = "cpu"});
  if (absl::IsNotFound(session.status())) GTEST_SKIP() << session.status();
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_NE((*session)->plan(), nullptr);
  reference::Session reference((*session)->graph());
  ASSERT_TRUE(reference.Run({}, {}, {"init"}).ok());

  for (int step = 0; step < 20; ++step) {
    const int n = 1 + 13 * step;  // batch sizes 1 to 248: one plan serves them all
    const Tensor x = testing::UniformFloats({n, 784}, step, 0.0f, 0.02f);
    const Tensor y = OneHot(n, step);
    absl::StatusOr<std::vector<Tensor>> want =
        reference.Run({{{"input"}, x}, {{"Placeholder"}, y}}, {"Mean"}, {"GradientDescent"});
    ASSERT_TRUE(want.ok()) << want.status();
    absl::StatusOr<std::vector<Tensor>> got =
        (*session)->Run({{{"Placeholder"}, y}, {{"input"}, x}}, {"Mean"}, {"GradientDescent"});
    ASSERT_TRUE(got.ok()) << "step " << step << ": " << got.status();
    // As in MnistTest.TrainsWithFusedKernelsAsTheReferenceDoes: float32 kernels against the
    // reference's double accumulation.
    const float w = (*want)[0].data<float>()[0], g = (*got)[0].data<float>()[0];
    EXPECT_NEAR(g, w, 1e-4 * std::fabs(w)) << "step " << step;
  }
  const DeviceExecutor& executor = (*session)->executor();
  EXPECT_EQ(executor.kernels_generated(), 0);
  EXPECT_EQ(executor.fallbacks(), 0);
  EXPECT_EQ(executor.kernels_run(), 20 * static_cast<int64_t>((*session)->plan()->kernels.size()));

  // A run the plan does not serve (no training step) is translated now, and reads the variables
  // the plan's runs trained.
  absl::StatusOr<std::vector<Tensor>> bias = (*session)->Run({}, {"Variable_1"});
  ASSERT_TRUE(bias.ok()) << bias.status();
  absl::StatusOr<std::vector<Tensor>> want_bias = reference.Run({}, {"Variable_1"});
  ASSERT_TRUE(want_bias.ok());
  for (int c = 0; c < 10; ++c) {
    EXPECT_NEAR((*bias)[0].data<float>()[c], (*want_bias)[0].data<float>()[c], 1e-5) << c;
  }
}

TEST(PlanTest, AKernelEditedSoThatItDoesNotBuildFallsBackAndStillAnswers) {
  const std::string model = "dl4j_mlp_00_frozen.pb";
  const fs::path dir = FreshDir("edited");
  WriteModelPlan(
      model, {.fetches = {TensorId{"output", 0}}, .profile = *rewrite::NamedProfile("amd")}, dir);
  std::ofstream(dir / "kernels" / "cluster_0.cl", std::ios::app) << "\nthis is not OpenCL C\n";
  std::ostringstream warnings;
  absl::StatusOr<std::unique_ptr<DeviceSession>> session =
      DeviceSession::OpenPlan(dir.string(), {.device = "cpu", .executor = {.warnings = &warnings}});
  if (absl::IsNotFound(session.status())) GTEST_SKIP() << session.status();
  ASSERT_TRUE(session.ok()) << session.status();
  const Tensor x = testing::UniformFloats({3, 784}, 1, 0.0f, 1.0f);
  absl::StatusOr<std::vector<Tensor>> got = (*session)->Run({{{"input"}, x}}, {"output"});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_THAT(warnings.str(), HasSubstr("cluster 0 ("));
  EXPECT_THAT(warnings.str(), HasSubstr("runs on the reference executor"));
  absl::StatusOr<std::vector<Tensor>> want =
      reference::Session((*session)->graph()).Run({{{"input"}, x}}, {"output"});
  ASSERT_TRUE(want.ok()) << want.status();
  const std::vector<float> g = testing::Values<float>((*got)[0]);
  const std::vector<float> w = testing::Values<float>((*want)[0]);
  ASSERT_EQ(g.size(), w.size());
  // The graph is one cluster: its fallback is the reference executor itself.
  for (size_t i = 0; i < g.size(); ++i) EXPECT_EQ(g[i], w[i]) << i;
}

TEST(PlanTest, AWrongPlanDirectoryIsAnErrorNamingTheFile) {
  const std::string model = "dl4j_mlp_00_frozen.pb";
  const fs::path dir = FreshDir("wrong");
  auto error = [&] {
    absl::StatusOr<Plan> plan = ReadPlan(dir);
    EXPECT_FALSE(plan.ok());
    return std::string(plan.status().message());
  };
  EXPECT_THAT(error(), HasSubstr((dir / "plan.json").string()));

  WriteModelPlan(
      model, {.fetches = {TensorId{"output", 0}}, .profile = *rewrite::NamedProfile("cpu")}, dir);
  ASSERT_TRUE(ReadPlan(dir).ok());
  const std::string json = ReadText(dir / "plan.json");
  auto write = [&](const std::string& text) { std::ofstream(dir / "plan.json") << text; };

  write("{ not json");
  EXPECT_THAT(error(), HasSubstr("not a JSON object"));
  write(std::regex_replace(json, std::regex("\"format\": 1"), "\"format\": 7"));
  EXPECT_THAT(error(), HasSubstr("plan format 7"));
  write(std::regex_replace(json, std::regex("\"simd_width\": \\d+"), "\"simd_width\": \"x\""));
  EXPECT_THAT(error(), HasSubstr("\"simd_width\" is missing or not an integer"));
  // A cluster whose nodes are not the graph's: its kernels were made for another graph.
  write(std::regex_replace(json, std::regex("\\(MatMul\\)"), "(MatMulX)"));
  EXPECT_THAT(error(), HasSubstr("compile it again"));

  // Steps that now make another variant than the kernels were generated from: a rule changed
  // since the plan was compiled, and its kernels' arguments and sizes may no longer be these.
  write(std::regex_replace(json, std::regex("\"variant\": \"[0-9a-f]+\""),
                           "\"variant\": \"0000000000000000\""));
  EXPECT_THAT(error(), HasSubstr("cluster 0's rules (default) now make variant "));
  EXPECT_THAT(error(), HasSubstr("not the 0000000000000000 its kernels were generated from"));

  write(json);
  fs::remove(dir / "kernels" / "cluster_0.cl");
  EXPECT_THAT(error(), HasSubstr("cluster_0.cl"));
}

}  // namespace
}  // namespace dfc
