// `dfc compile`: for every shared model and a few conformance cases, the source written for
// each of the five device profiles builds on the OpenCL device present (a build test, not a
// run: the kernels' values are tested by runtime/device_executor_test and conformance_device),
// and plan.json names each cluster's kernels and source file.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dfc_test_paths.h"
#include "gmock/gmock.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/opencl/device.h"
#include "runtime/opencl/program_cache.h"
#include "tests/test_util.h"
#include "tests/zoo.h"

namespace dfc {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Compiles `graph` for `profile` (with `flags`) into a fresh directory and builds every kernel it
// wrote; the plan's plan.json into `plan_json` if given.
void CompileAndBuild(const std::string& graph, const std::string& profile, cl::ProgramCache& cache,
                     const std::string& flags = "", nlohmann::json* plan_json = nullptr) {
  SCOPED_TRACE(graph + " for " + profile);
  // Named for this process: two test runs at once (worktrees, the sanitised build) must not
  // write into each other's plan.
  const fs::path out =
      fs::temp_directory_path() / ("dfc_compile_test_" + profile + "_" + std::to_string(getpid()));
  fs::remove_all(out);
  const testing::CommandResult r =
      testing::RunCommand(std::string(DFC_BINARY) + " compile " + graph + " --device " + profile +
                          " -o " + out.string() + " " + flags);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const nlohmann::json plan = nlohmann::json::parse(ReadText(out / "plan.json"));
  EXPECT_EQ(plan["device"]["profile"], profile);
  if (plan_json != nullptr) *plan_json = plan;
  for (const nlohmann::json& cluster : plan["clusters"]) {
    const std::string source = ReadText(out / cluster["source"].get<std::string>());
    EXPECT_THAT(source, HasSubstr("// device: " + profile));
    absl::StatusOr<std::shared_ptr<cl::ClProgram>> program = cache.Build(source);
    ASSERT_TRUE(program.ok()) << cluster["source"] << ": " << program.status();
    for (const nlohmann::json& kernel : cluster["kernels"]) {
      EXPECT_THAT(source, HasSubstr(" void " + kernel["kernel"].get<std::string>() + "("));
      EXPECT_TRUE(cl::ProgramCache::CreateKernel(**program, kernel["kernel"]).ok());
    }
  }
  fs::remove_all(out);
}

TEST(CompileTest, EveryModelAndSomeCasesBuildForEveryProfile) {
  absl::StatusOr<cl::DeviceInfo> device = cl::SelectDevice("auto");
  if (!device.ok()) GTEST_SKIP() << device.status();
  absl::StatusOr<std::shared_ptr<cl::ClContext>> context = cl::ClContext::Create(*device);
  ASSERT_TRUE(context.ok()) << context.status();
  cl::ProgramCache cache(*context);
  std::vector<std::string> graphs;
  for (const fs::directory_entry& e : fs::directory_iterator(testing::SharedDir() + "/models")) {
    const std::string ext = e.path().extension().string();
    if (ext == ".pb" || ext == ".pbtxt") graphs.push_back(e.path().string());
  }
  ASSERT_GE(graphs.size(), 10u);
  const std::string cases = testing::SharedDir() + "/conformance/tf-dl4j/";
  for (const char* name : {"concat", "pad__rank2Pone_const10", "g_09", "ae_00",
                           "rnn__grucell__static_b1_nIn5_nOut3_ts4_tanh_noIS_float"}) {
    graphs.push_back(cases + name + "/graph.pb");
  }
  for (const std::string& graph : graphs) {
    // philipce_keras_cnn_train.pb's placeholders have no shapes (GraphDef version 21) and its
    // Mean gradient needs the batch at compile time: it joins with issue 30's training step.
    if (graph.find("philipce_keras_cnn") != std::string::npos) continue;
    for (const char* profile : {"amd", "nvidia", "intel", "arm", "cpu"}) {
      CompileAndBuild(graph, profile, cache);
    }
  }
}

// The zoo CNNs (tests/zoo.h): every profile's kernels build, each convolution is
// compiled into a cluster (none left on the host), and the ResNet's per-variable initialisers
// are set apart as the plan's init.
TEST(CompileTest, EveryZooCnnBuildsForEveryProfile) {
  absl::StatusOr<cl::DeviceInfo> device = cl::SelectDevice("auto");
  if (!device.ok()) GTEST_SKIP() << device.status();
  absl::StatusOr<std::shared_ptr<cl::ClContext>> context = cl::ClContext::Create(*device);
  ASSERT_TRUE(context.ok()) << context.status();
  cl::ProgramCache cache(*context);
  for (const testing::ZooModel& model : testing::ZooCnns()) {
    // OpenPose's program (some 300 kernels) takes minutes a profile to build on PoCL; what it
    // translates (depthwise and pointwise convolutions, batch norms, a resize, concats) the
    // other CNNs and the shared models build for every profile, and zoo_test builds and runs
    // its CPU kernels.
    if (model.family == "cnn_openpose_mnv2_small") continue;
    // An input exported without a shape (LeNet's) or an image size is given one, as a user
    // gives it, the batch open; a declared one is kept.
    const std::string path = testing::SharedDir() + "/zoo/" + model.file;
    absl::StatusOr<Graph> graph = LoadGraph(path);
    ASSERT_TRUE(graph.ok()) << graph.status();
    absl::StatusOr<PartialShape> declared = graph->FindNode(model.input)->GetShape("shape");
    const bool sized = declared.ok() && !declared->unknown_rank &&
                       std::all_of(declared->dims.begin() + 1, declared->dims.end(),
                                   [](int64_t d) { return d >= 0; });
    const std::string shape = sized ? ""
                                    : absl::StrCat("--shape '", model.input, "=[?,",
                                                   absl::StrJoin(model.image, ","), "]'");
    for (const char* profile : {"amd", "nvidia", "intel", "arm", "cpu"}) {
      nlohmann::json plan;
      CompileAndBuild(path, profile, cache, shape, &plan);
      SCOPED_TRACE(model.file + " for " + profile);
      for (const nlohmann::json& host : plan["host_ops"]) {
        EXPECT_THAT(host.get<std::string>(), Not(HasSubstr("Conv2D")));
      }
      // The ResNet's 113 variables, each with its initialiser; the frozen graphs have none.
      EXPECT_EQ(plan["init"].size(), model.file == "resnet_cifar10.pb" ? 113u : 0u);
    }
  }
}

TEST(CompileTest, AnUnknownProfileOrMissingOutputIsAnError) {
  const std::string model = testing::SharedDir() + "/models/dl4j_mlp_00_frozen.pb";
  testing::CommandResult r =
      testing::RunCommand(std::string(DFC_BINARY) + " compile " + model + " --device tpu -o x");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("no device profile \"tpu\""));
  r = testing::RunCommand(std::string(DFC_BINARY) + " compile " + model + " --device amd");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("-o DIR"));
}

}  // namespace
}  // namespace dfc
