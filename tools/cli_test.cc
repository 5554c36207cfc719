// The dfc command line as users run it: exit codes, messages, output files.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "dfc_test_paths.h"
#include "gmock/gmock.h"
#include "graph/npy.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "runtime/compare.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

using Result = testing::CommandResult;

Result Dfc(const std::string& args) {
  return testing::RunCommand(absl::StrCat(DFC_BINARY, " ", args));
}

std::string Model(const std::string& name) { return testing::SharedDir() + "/models/" + name; }

fs::path TempDir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("dfc_cli_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(CliTest, InspectEveryModelAndRefuseTruncatedCopies) {
  const fs::path dir = TempDir("truncated");
  for (const auto& entry : fs::directory_iterator(testing::SharedDir() + "/models")) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".pb") && !name.ends_with(".pbtxt")) continue;
    Result ok = Dfc("inspect " + entry.path().string());
    EXPECT_EQ(ok.exit_code, 0) << name << "\n" << ok.output;
    EXPECT_THAT(ok.output, HasSubstr(" nodes, ")) << name;

    std::ifstream in(entry.path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const fs::path cut = dir / name;
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2 | 1);
    Result bad = Dfc("inspect " + cut.string());
    EXPECT_EQ(bad.exit_code, 1) << name << "\n" << bad.output;
    EXPECT_THAT(bad.output, HasSubstr("dfc: error: " + cut.string() + ": ")) << name;
  }
}

TEST(CliTest, InspectListsPlaceholdersOutputsAndUnsupportedOps) {
  Result r = Dfc("inspect " + Model("dl4j_mnist_00_softmax_train.pbtxt"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("107 nodes"));
  EXPECT_THAT(r.output, HasSubstr("input  float32[?,784]"));
  // The Saver's ops are set apart: no computation of the model reads them.
  EXPECT_THAT(r.output, HasSubstr("ops outside OPS.md: none\ncheckpoint and summary ops, outside "
                                  "the model's computation (pruned):\n"));
  EXPECT_THAT(r.output, HasSubstr("SaveV2 (1): save/SaveV2"));
  // An unknown op a computation reads (z) is outside OPS.md, a summary of its value is not.
  const fs::path dir = TempDir("unknown_op");
  std::ofstream(dir / "g.pbtxt") << "node { name: \"x\" op: \"Frobnicate\" }\n"
                                    "node { name: \"y\" op: \"Identity\" input: \"x\" }\n"
                                    "node { name: \"s\" op: \"ScalarSummary\" input: \"y\" }\n"
                                    "node { name: \"z\" op: \"Relu\" input: \"y\" }\n";
  Result unknown = Dfc("inspect " + (dir / "g.pbtxt").string());
  ASSERT_EQ(unknown.exit_code, 0) << unknown.output;
  EXPECT_THAT(unknown.output, HasSubstr("ops outside OPS.md:\n  Frobnicate (1): x\ncheckpoint "
                                        "and summary ops, outside the model's computation "
                                        "(pruned):\n  ScalarSummary (1): s\n"));

  Result json = Dfc("inspect --json " + Model("philipce_keras_cnn_train.pb"));
  ASSERT_EQ(json.exit_code, 0) << json.output;
  nlohmann::json j = nlohmann::json::parse(json.output);
  EXPECT_EQ(j["nodes"], 1127);
  // Since the nn table every op of it is supported; GraphDef version 21's scalar placeholder
  // shapes mean "any shape".
  EXPECT_TRUE(j["unsupported"].empty()) << j["unsupported"];
  EXPECT_EQ(j["placeholders"][0]["name"], "conv2d_1_input");
  EXPECT_EQ(j["placeholders"][0]["shape"], "<unknown rank>");
}

TEST(CliTest, InspectClustersShowsEachClusterAndItsIr) {
  Result r = Dfc("inspect " + Model("dl4j_mnist_00_softmax_train.pbtxt") + " --clusters --ir");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("0 on the host)"));
  EXPECT_THAT(r.output, HasSubstr("input  float32[N,784]"));
  EXPECT_THAT(r.output, HasSubstr("gradients/SoftmaxCrossEntropyWithLogits_grad/mul (Mul)"));
  EXPECT_THAT(r.output, HasSubstr("ir: λ("));

  // A placeholder without a declared shape: a hint, and with --shapes the graph compiles.
  Result lstm = Dfc("inspect " + Model("tf2onnx_lstm_frozen.pb") + " --clusters");
  ASSERT_EQ(lstm.exit_code, 0) << lstm.output;
  EXPECT_THAT(lstm.output, HasSubstr("--shapes 'keep_prob=[...]'"));
  Result shaped =
      Dfc("inspect " + Model("tf2onnx_lstm_frozen.pb") + " --clusters --shapes 'keep_prob=[]'");
  ASSERT_EQ(shaped.exit_code, 0) << shaped.output;
  EXPECT_THAT(shaped.output, HasSubstr(", 0 on the host)"));

  EXPECT_EQ(Dfc("inspect " + Model("ngraph_test_axpy.pbtxt") + " --ir").exit_code, 2);
  EXPECT_EQ(Dfc("inspect " + Model("ngraph_test_axpy.pbtxt") + " --clusters --shapes x").exit_code,
            2);
  Result not_placeholder =
      Dfc("inspect " + Model("ngraph_test_axpy.pbtxt") + " --clusters --shapes 'mul=[2]'");
  EXPECT_EQ(not_placeholder.exit_code, 1);
  EXPECT_THAT(not_placeholder.output, HasSubstr("\"mul\", which is not a placeholder"));
}

// The frozen 784-256-10 MLP's first layer is blocked by the default schedule (256 columns, 8 a
// vector on the cpu profile, blocks of 6 rows by 2 vectors in its 16 registers); its 10-column
// last layer is not. --dump-after names the rules and shows what each stage asked for made.
TEST(CliTest, InspectDumpAfterShowsTheDefaultScheduleOfProducts) {
  Result r = Dfc("inspect " + Model("dl4j_mlp_00_frozen.pb") +
                 " --clusters --dump-after rules,schedule --device cpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("  rewritten by: default (vectorizeColumns(8), blockColumns(2), "
                                  "blockRows(6))\n"));
  EXPECT_THAT(r.output, HasSubstr("  after rules for cpu: λ("));
  EXPECT_THAT(r.output, HasSubstr("  after schedule for cpu: λ("));
  EXPECT_THAT(r.output, HasSubstr("AsVector(8)"));
  EXPECT_THAT(r.output, Not(HasSubstr("after sequential")));
  Result gpu = Dfc("inspect " + Model("dl4j_mlp_00_frozen.pb") +
                   " --clusters --dump-after schedule --device amd");
  ASSERT_EQ(gpu.exit_code, 0) << gpu.output;
  EXPECT_THAT(gpu.output, HasSubstr("  rewritten by: default\n"));
}

TEST(CliTest, InspectDumpAfterTheLoweringShowsWhereEveryLoopOfEveryClusterRuns) {
  for (const char* device : {"cpu", "amd"}) {
    SCOPED_TRACE(device);
    Result r = Dfc("inspect " + Model("dl4j_mnist_00_softmax_train.pbtxt") +
                   " --clusters --dump-after work-item-storage --device " + device);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // Every cluster, its rows mapped and no Map or Reduce left to the code generator.
    std::vector<std::string> lowered;
    for (absl::string_view line : absl::StrSplit(r.output, '\n')) {
      if (absl::StrContains(line, "  after work-item-storage for ")) lowered.emplace_back(line);
    }
    EXPECT_EQ(lowered.size(), 6u) << r.output;
    for (const std::string& line : lowered) {
      EXPECT_THAT(line, HasSubstr(absl::StrCat("after work-item-storage for ", device, ": λ(")));
      EXPECT_THAT(line, HasSubstr("MapGlb(0)("));
      EXPECT_THAT(line, Not(ContainsRegex("(^|[^A-Za-z])(Map|Reduce)\\(")));
    }
    EXPECT_THAT(r.output, HasSubstr("ReduceSeq("));
    EXPECT_THAT(r.output, HasSubstr("ToGlobal(Id()) o MapGlb(0)("));
    // The GPU profile reduces the loss over the batch in a work-group.
    if (std::string(device) == "amd") {
      EXPECT_THAT(r.output, HasSubstr("ReduceLcl(0)("));
    }
  }
}

// The last stage prints each cluster's kernel, as `dfc compile` writes it.
TEST(CliTest, InspectDumpAfterCodegenPrintsTheKernels) {
  Result r = Dfc("inspect " + Model("dl4j_mnist_00_softmax_train.pbtxt") +
                 " --clusters --dump-after codegen");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  int kernels = 0;
  for (size_t at = r.output.find("  after codegen for cpu:\n"); at != std::string::npos;
       at = r.output.find("  after codegen for cpu:\n", at + 1)) {
    ++kernels;
  }
  EXPECT_EQ(kernels, 6) << r.output;
  EXPECT_THAT(r.output, HasSubstr("__kernel"));
  EXPECT_THAT(r.output, Not(HasSubstr("λ(")));
}

TEST(CliTest, InspectDumpAfterRefusesWhatItCannotDo) {
  EXPECT_EQ(Dfc("inspect " + Model("ngraph_test_axpy.pbtxt") + " --dump-after codegen").exit_code,
            2);
  EXPECT_EQ(
      Dfc("inspect " + Model("ngraph_test_axpy.pbtxt") + " --clusters --device amd").exit_code, 2);
  Result unknown = Dfc("inspect " + Model("ngraph_test_axpy.pbtxt") +
                       " --clusters --dump-after codegen --device tpu");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.output, HasSubstr("tpu"));
  Result stage =
      Dfc("inspect " + Model("ngraph_test_axpy.pbtxt") + " --clusters --dump-after lowered");
  EXPECT_EQ(stage.exit_code, 2);
  EXPECT_THAT(stage.output, HasSubstr("no stage \"lowered\"; the stages are rules, schedule, "));
  EXPECT_THAT(stage.output, HasSubstr("work-item-storage, codegen"));
}

TEST(CliTest, InspectJsonSurvivesNamesThatAreNotUtf8) {
  const fs::path dir = TempDir("utf8");
  // A text GraphDef whose node name holds the byte 0xff (found by fuzzing: it used to abort).
  std::ofstream(dir / "g.pbtxt") << "node { name: \"bad\\377name\" op: \"NoOp\" }\n";
  Result r = Dfc("inspect --json " + (dir / "g.pbtxt").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["unconsumed"][0], "bad\xEF\xBF\xBDname");  // U+FFFD
}

TEST(CliTest, RunPrintsAndWritesFetches) {
  const fs::path out = TempDir("run");
  const fs::path a = out / "a.npy";
  const fs::path b = out / "b.npy";
  // out_node = Sigmoid(x + mul/x * y) on float32[10] placeholders: with y = 0 it is
  // Sigmoid(x), which is 0.5 at x = 0.
  ASSERT_TRUE(WriteNpy(testing::TN<float>(std::vector<float>(10, 0.0f), {10}), a.string()).ok());
  ASSERT_TRUE(WriteNpy(testing::TN<float>(std::vector<float>(10, 0.0f), {10}), b.string()).ok());
  Result r = Dfc("run " + Model("ngraph_sample_graph.pbtxt") + " --feed x=" + a.string() +
                 " --feed y=" + b.string() + " --fetch out_node,mul --out " + (out / "o").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("out_node: float32[10] [0.5, 0.5,"));
  absl::StatusOr<Tensor> saved = ReadNpy((out / "o" / "out_node.npy").string());
  ASSERT_TRUE(saved.ok()) << saved.status();
  EXPECT_EQ(testing::Values<float>(*saved), std::vector<float>(10, 0.5f));
  EXPECT_TRUE(fs::exists(out / "o" / "mul.npy"));
}

TEST(CliTest, RunUsesFusedKernelsAndASecondProcessBuildsNothing) {
  const fs::path cache = TempDir("program_cache");
  // The default policy (the tests run with second-build): the first run writes the binary.
  const std::string run = "DFC_CACHE_SAVE=first-build DFC_CACHE_DIR=" + cache.string() + " " +
                          std::string(DFC_BINARY) + " run " + Model("dl4j_mlp_00_frozen.pb") +
                          " --feed input=" + std::string(DFC_SOURCE_DIR) +
                          "/models/mlp_input_4x784.npy" + " --fetch output --device cpu";
  testing::CommandResult first = testing::RunCommand(run);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_THAT(first.output, HasSubstr("fused kernels on"));
  EXPECT_THAT(first.output, HasSubstr("(programs: 1 built, 0 loaded"));
  testing::CommandResult second = testing::RunCommand(run);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_THAT(second.output, HasSubstr("(programs: 0 built, 1 loaded"));
  // Both print the same values.
  EXPECT_EQ(first.output.substr(0, first.output.find("dfc: ran")),
            second.output.substr(0, second.output.find("dfc: ran")));
  // A feed of the wrong shape is refused before anything runs, naming the placeholder.
  const fs::path bad = cache / "bad.npy";
  ASSERT_TRUE(WriteNpy(testing::TN<float>(std::vector<float>(6, 0.0f), {2, 3}), bad.string()).ok());
  Result wrong = Dfc("run " + Model("dl4j_mlp_00_frozen.pb") + " --feed input=" + bad.string() +
                     " --fetch output --device cpu");
  EXPECT_EQ(wrong.exit_code, 1) << wrong.output;
  EXPECT_THAT(wrong.output, HasSubstr("placeholder \"input\" expects float32[?,784]"));
  Result missing = Dfc("run " + Model("dl4j_mlp_00_frozen.pb") + " --fetch output --device tpu");
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_THAT(missing.output, HasSubstr("unknown OpenCL device kind \"tpu\""));
}

// A SavedModel directory as the input of inspect, run, compile and profile: inspect lists its
// serving signature; run restores its variables and runs the signature, fed and fetched by its
// keys, on the device as on the reference; compile writes a plan that restores them as it opens.
TEST(CliTest, ASavedModelDirectoryIsInspectedAndRunBySignature) {
  const std::string dir = testing::SharedDir() + "/zoo/savedmodel_lexci_cnn";
  Result inspect = Dfc("inspect " + dir);
  ASSERT_EQ(inspect.exit_code, 0) << inspect.output;
  EXPECT_THAT(inspect.output,
              HasSubstr("signature \"serving_default\" (tensorflow/serving/predict)"));
  EXPECT_THAT(inspect.output,
              HasSubstr("input  input0: float32[?,?,?,1]  (serving_default_input0)"));
  EXPECT_THAT(inspect.output, HasSubstr("output subtract49: float32[?,?,?,1]"));
  EXPECT_THAT(inspect.output, HasSubstr("78 tensors restored from variables/variables"));
  EXPECT_THAT(inspect.output, HasSubstr("ops outside OPS.md: none"));

  const fs::path out = TempDir("saved_model");
  const fs::path image = out / "image.npy";
  ASSERT_TRUE(WriteNpy(testing::UniformFloats({1, 12, 12, 1}, 3, 0, 1), image.string()).ok());
  std::string outputs[2];
  for (int k = 0; k < 2; ++k) {
    Result run = Dfc("run " + dir + " --feed input0=" + image.string() +
                     (k == 0 ? " --device cpu" : " --reference") + " --out " +
                     (out / std::to_string(k)).string());
    ASSERT_EQ(run.exit_code, 0) << run.output;
    EXPECT_THAT(run.output, HasSubstr("subtract49: float32[1,12,12,1]"));
    outputs[k] = (out / std::to_string(k) / "subtract49.npy").string();
  }
  absl::StatusOr<Tensor> device = ReadNpy(outputs[0]);
  absl::StatusOr<Tensor> reference = ReadNpy(outputs[1]);
  ASSERT_TRUE(device.ok() && reference.ok());
  EXPECT_TRUE(CompareTensors(*device, *reference, {.rtol = 1e-4, .atol = 1e-4}).equal);

  // Compiled ahead of time for 12x12 images (--shape by the signature's key): the plan
  // restores the variables as it opens and computes what the reference did.
  const fs::path plan = out / "plan";
  Result compiled =
      Dfc("compile " + dir + " --device cpu -o " + plan.string() + " --shape 'input0=[?,12,12,1]'");
  ASSERT_EQ(compiled.exit_code, 0) << compiled.output;
  EXPECT_THAT(compiled.output, HasSubstr("initialisers, run when the plan is opened: "
                                         "StatefulPartitionedCall_2/dfc_restore, NoOp"));
  Result planned = Dfc("run " + plan.string() + " --feed serving_default_input0=" + image.string() +
                       " --device cpu --out " + (out / "p").string());
  ASSERT_EQ(planned.exit_code, 0) << planned.output;
  absl::StatusOr<Tensor> from_plan = ReadNpy((out / "p" / "StatefulPartitionedCall.npy").string());
  ASSERT_TRUE(from_plan.ok()) << planned.output;
  EXPECT_TRUE(CompareTensors(*from_plan, *reference, {.rtol = 1e-4, .atol = 1e-4}).equal);

  Result profiled =
      Dfc("profile " + dir + " --feed input0=" + image.string() + " --steps 2 --device cpu");
  ASSERT_EQ(profiled.exit_code, 0) << profiled.output;
  EXPECT_THAT(profiled.output, HasSubstr("Summary: wall"));

  Result unknown = Dfc("run " + dir + " --signature predict --feed input0=" + image.string());
  EXPECT_EQ(unknown.exit_code, 1) << unknown.output;
  EXPECT_THAT(unknown.output, HasSubstr("no signature \"predict\" (it has serving_default)"));
}

TEST(CliTest, OutputFileNamesReplaceSlashAndColon) {
  const fs::path out = TempDir("names");
  Result r = Dfc("run " + Model("dl4j_mnist_00_softmax_train.pbtxt") +
                 " --fetch gradients/SoftmaxCrossEntropyWithLogits_grad/ExpandDims/dim,"
                 "save/Const:0 --out " +
                 out.string());
  // save/Const is a string constant: dfc refuses it before running anything.
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("save/Const"));

  r = Dfc("run " + Model("tf_aot_test_graph_tfadd.pbtxt") + " --fetch x_y_sum:0 --out " +
          out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(out / "x_y_sum_0.npy")) << r.output;
}

// The losses `dfc run --fetch Mean --steps K` printed, in order.
std::vector<double> Losses(const std::string& output) {
  std::vector<double> losses;
  for (size_t at = output.find("Mean: float32[] "); at != std::string::npos;
       at = output.find("Mean: float32[] ", at + 1)) {
    losses.push_back(std::stod(output.substr(at + 16)));
  }
  return losses;
}

// A batch of 2 different, dim images (lit in the first and in the last half), so that
// learning is gradual, and their labels: DIR/x.npy and DIR/y.npy.
void WriteMnistBatch(const fs::path& dir) {
  std::vector<float> pixels(2 * 784, 0.0f);
  for (int p = 0; p < 392; ++p) pixels[p] = pixels[784 + 392 + p] = 0.01f;
  std::vector<float> labels(2 * 10, 0.0f);
  labels[3] = labels[10 + 7] = 1.0f;
  ASSERT_TRUE(WriteNpy(testing::TN<float>(pixels, {2, 784}), (dir / "x.npy").string()).ok());
  ASSERT_TRUE(WriteNpy(testing::TN<float>(labels, {2, 10}), (dir / "y.npy").string()).ok());
}

TEST(CliTest, TrainingStepsPrintEachStep) {
  const fs::path out = TempDir("steps");
  WriteMnistBatch(out);
  const std::string graph = Model("dl4j_mnist_00_softmax_train.pbtxt");
  // Without init the variables are unset: the error names one and says what to do.
  Result r = Dfc("run " + graph + " --feed input=" + (out / "x.npy").string() +
                 " --feed Placeholder=" + (out / "y.npy").string() + " --fetch Mean");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("before it is initialized"));

  r = Dfc("run " + graph + " --target init --steps 1 --fetch Variable_1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("Variable_1: float32[10] [0, 0, 0"));

  // Initialised once, three steps on one batch: the loss falls from ln(10) at every step.
  r = Dfc("run " + graph + " --init init --feed input=" + (out / "x.npy").string() +
          " --feed Placeholder=" + (out / "y.npy").string() +
          " --fetch Mean --target GradientDescent --steps 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("step 1: Mean: float32[] 2.30259\n"));
  std::vector<double> losses = Losses(r.output);
  ASSERT_EQ(losses.size(), 3u) << r.output;
  EXPECT_LT(losses[1], losses[0]);
  EXPECT_LT(losses[2], losses[1]);

  // Each variable's own initialiser (VAR/Assign) instead of the graph's `init`: the same steps.
  r = Dfc("run " + graph + " --init-variables --feed input=" + (out / "x.npy").string() +
          " --feed Placeholder=" + (out / "y.npy").string() +
          " --fetch Mean --target GradientDescent --steps 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(Losses(r.output), losses);
}

// The issue's way in: a plan compiled for a GPU profile, run on the CPU device from its
// directory alone. It trains as the reference executor does, generating no kernel, and a
// second process builds no program.
TEST(CliTest, ACompiledPlanRunsItsOwnKernelsAndTrains) {
  const fs::path out = TempDir("plan");
  WriteMnistBatch(out);
  const fs::path plan = out / "plan";
  Result r = Dfc("compile " + Model("dl4j_mnist_00_softmax_train.pbtxt") + " --device amd -o " +
                 plan.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("initialisers, run when the plan is opened: init"));
  const nlohmann::json json = nlohmann::json::parse(std::ifstream(plan / "plan.json"));
  EXPECT_EQ(json["targets"], nlohmann::json({"GradientDescent"}));
  EXPECT_EQ(json["init"], nlohmann::json({"init"}));
  EXPECT_TRUE(fs::exists(plan / json["graph"].get<std::string>()));

  // The plan's targets are the default: --fetch Mean alone still trains.
  const std::string feeds = " --feed input=" + (out / "x.npy").string() +
                            " --feed Placeholder=" + (out / "y.npy").string() +
                            " --fetch Mean --steps 3";
  const std::string run = "DFC_CACHE_SAVE=first-build DFC_CACHE_DIR=" + (out / "cache").string() +
                          " " + std::string(DFC_BINARY) + " run " + plan.string() + feeds;
  Result device = testing::RunCommand(run + " --device cpu");
  ASSERT_EQ(device.exit_code, 0) << device.output;
  EXPECT_THAT(device.output, HasSubstr("; 0 kernels generated)"));
  Result reference = Dfc("run " + plan.string() + feeds + " --reference");
  ASSERT_EQ(reference.exit_code, 0) << reference.output;
  const std::vector<double> want = Losses(reference.output), got = Losses(device.output);
  ASSERT_EQ(want.size(), 3u) << reference.output;
  ASSERT_EQ(got.size(), 3u) << device.output;
  EXPECT_LT(want[2], want[0]);
  for (size_t i = 0; i < 3; ++i) {
    // Printed to 6 significant digits; float32 kernels against the reference (MnistTest).
    EXPECT_NEAR(got[i], want[i], 1e-4 * want[i]) << "step " << i + 1;
  }
  Result again = testing::RunCommand(run + " --device cpu");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_THAT(again.output, HasSubstr("(programs: 0 built, "));
}

TEST(CliTest, FeedErrorsAreInputErrors) {
  const fs::path out = TempDir("feeds");
  ASSERT_TRUE(WriteNpy(testing::TN<int32_t>({1, 2}, {2}), (out / "i.npy").string()).ok());
  Result r = Dfc("run " + Model("ngraph_test_axpy.pbtxt") +
                 " --feed x=" + (out / "i.npy").string() + " --fetch add");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("dfc: error: feed \"x\" is int32[2] but placeholder \"x\" expects"));
  r = Dfc("run " + Model("ngraph_test_axpy.pbtxt") + " --feed x=/nonexistent.npy --fetch add");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("/nonexistent.npy"));
  r = Dfc("run " + Model("ngraph_test_axpy.pbtxt") + " --fetch nosuchnode");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("fetch \"nosuchnode\" names no node"));
}

TEST(CliTest, BadUsageExitsTwo) {
  EXPECT_EQ(Dfc("").exit_code, 2);
  EXPECT_EQ(Dfc("frobnicate").exit_code, 2);
  EXPECT_EQ(Dfc("inspect").exit_code, 2);
  EXPECT_EQ(Dfc("inspect a b").exit_code, 2);
  EXPECT_EQ(Dfc("inspect --colour x.pb").exit_code, 2);
  EXPECT_EQ(Dfc("run " + Model("ngraph_test_axpy.pbtxt")).exit_code, 2);  // no fetch
  EXPECT_EQ(Dfc("run " + Model("ngraph_test_axpy.pbtxt") + " --fetch add --steps 0").exit_code, 2);
  EXPECT_EQ(Dfc("run " + Model("ngraph_test_axpy.pbtxt") + " --fetch add --feed x").exit_code, 2);
  EXPECT_EQ(Dfc("conformance /tmp --filter '('").exit_code, 2);
  EXPECT_EQ(Dfc("help").exit_code, 0);
}

TEST(CliTest, ConformanceReportsEachFailureAndCounts) {
  const fs::path dir = TempDir("conformance");
  // One real case copied, and one whose expected output is deliberately wrong.
  const fs::path source = testing::SharedDir() + "/conformance/tf-dl4j/abs__rank2_float32";
  fs::copy(source, dir / "good", fs::copy_options::recursive);
  fs::copy(source, dir / "bad", fs::copy_options::recursive);
  absl::StatusOr<Tensor> expected = ReadNpy((source / "expected/Abs.npy").string());
  ASSERT_TRUE(expected.ok());
  Tensor wrong = expected->Clone();
  wrong.mutable_data<float>()[1] += 1.0f;
  fs::permissions(dir / "bad/expected/Abs.npy", fs::perms::owner_write, fs::perm_options::add);
  ASSERT_TRUE(WriteNpy(wrong, (dir / "bad/expected/Abs.npy").string()).ok());

  Result r =
      Dfc("conformance " + dir.string() + " --reference --json " + (dir / "r.json").string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("FAIL bad: output \"Abs\": 1 of"));
  EXPECT_THAT(r.output, HasSubstr("\n1 passed, 1 failed\n"));
  std::ifstream report(dir / "r.json");
  nlohmann::json j = nlohmann::json::parse(report);
  EXPECT_EQ(j["passed"], 1);
  EXPECT_EQ(j["failed"], 1);

  r = Dfc("conformance " + dir.string() + " --filter ^go");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("1 passed, 0 failed"));
}

TEST(CliTest, ABoolCaseOfTheRegeneratedDataPasses) {
  // LogicalOr(True, x): its expected output was once stored as all False (../shared/conformance
  // README); TensorFlow's values now hold, on the reference and on the device.
  const fs::path dir = TempDir("bool_case");
  const fs::path cases = testing::SharedDir() + "/conformance/tf-dl4j";
  fs::copy(cases / "transforms__logicalor__3,4", dir / "or", fs::copy_options::recursive);
  for (const std::string mode : {"--reference", "--device cpu"}) {
    Result r = Dfc("conformance " + dir.string() + " " + mode);
    EXPECT_EQ(r.exit_code, 0) << mode << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr("1 passed, 0 failed\n")) << mode;
  }
}

TEST(CliTest, BenchVariantsTimesEachVariantAgainstTheFloorAndWritesJson) {
  const fs::path dir = TempDir("bench");
  const std::string json = (dir / "variants.json").string();
  Result r = Dfc("bench " + std::string(DFC_SOURCE_DIR) +
                 "/models/relu_subgraph.pbtxt --variants --batch 64,96 --device cpu --runs 1 "
                 "--json " +
                 json + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("read bandwidth"));
  EXPECT_THAT(r.output, HasSubstr("default"));
  EXPECT_THAT(r.output, HasSubstr("vectorizeReduce("));
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_FALSE(j["device"].get<std::string>().empty());
  ASSERT_EQ(j["batches"].size(), 2u);
  EXPECT_EQ(j["batches"][1]["n"], 96);
  EXPECT_GT(j["batches"][0]["floor_ms"].get<double>(), 0);
  EXPECT_GT(j["batches"][0]["unfused_ms"].get<double>(), 0);
  // Measured for each batch: the floor of each is against its own.
  EXPECT_GT(j["batches"][0]["read_gbps"].get<double>(), 0);
  EXPECT_GT(j["batches"][1]["read_gbps"].get<double>(), 0);
  EXPECT_THAT(r.output, HasSubstr("unfused chain (one kernel per op, MatMul through CLBlast)"));
  const nlohmann::json& cluster = j["batches"][0]["clusters"][0];
  EXPECT_EQ(cluster["nodes"].size(), 5u);
  const nlohmann::json& first = cluster["variants"][0];
  EXPECT_EQ(first["name"], "default");
  EXPECT_EQ(first["speedup_vs_default"], 1.0);
  int timed = 0;
  for (const nlohmann::json& v : cluster["variants"]) {
    if (!v.contains("median_ms")) continue;
    ++timed;
    EXPECT_GT(v["median_ms"].get<double>(), 0) << v["name"];
    EXPECT_NEAR(v["floor_fraction"].get<double>(),
                v["median_ms"].get<double>() / j["batches"][0]["floor_ms"].get<double>(), 1e-9)
        << v["name"];
  }
  EXPECT_GE(timed, 8);
}

// --tune times random feeds: a placeholder declared without a shape takes --shape's.
TEST(CliTest, CompileTuneFeedsAnUnshapedPlaceholderTheShapeGiven) {
  const fs::path dir = TempDir("tune_shape");
  std::ofstream(dir / "g.pbtxt") << "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" "
                                    "value { type: DT_FLOAT } } }\n"
                                    "node { name: \"y\" op: \"Relu\" input: \"x\" attr { key: "
                                    "\"T\" value { type: DT_FLOAT } } }\n";
  const std::string compile = "compile " + (dir / "g.pbtxt").string() +
                              " --device cpu --tune --batch 4 --budget 1 --tuning-db " +
                              (dir / "tuning.json").string() + " -o " + (dir / "plan").string();
  Result r = Dfc(compile + " 2>&1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output,
              HasSubstr("random feeds are made only for float32 placeholders of known rank"));
  r = Dfc(compile + " --shape 'x=[?,8]' 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("at batch 4"));
}

TEST(CliTest, CompileTuneRecordsTheVariantAndALaterCompileTakesIt) {
  const fs::path dir = TempDir("tune");
  const std::string db = (dir / "tuning.json").string();
  const std::string model = std::string(DFC_SOURCE_DIR) + "/models/relu_subgraph.pbtxt";
  Result r = Dfc("compile " + model + " --device cpu --tune --batch 64 --tuning-db " + db + " -o " +
                 (dir / "tuned").string() + " 2>/dev/null");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("at batch 64"));
  EXPECT_THAT(r.output, HasSubstr("recorded in " + db));
  nlohmann::json recorded = nlohmann::json::parse(std::ifstream(db));
  ASSERT_EQ(recorded["entries"].size(), 1u);
  EXPECT_EQ(recorded["entries"][0]["bucket"], 64);
  EXPECT_EQ(recorded["entries"][0]["nodes"].size(), 5u);
  // Whichever variant won, the plan holds its steps and the hash of the variant they make, so
  // that it runs as it is.
  const nlohmann::json tuned = nlohmann::json::parse(std::ifstream(dir / "tuned" / "plan.json"));
  EXPECT_EQ(tuned["clusters"][0]["rules"], recorded["entries"][0]["rules"]);
  EXPECT_EQ(tuned["clusters"][0]["variant"], recorded["entries"][0]["variant"]);
  r = Dfc("profile " + (dir / "tuned").string() + " --device cpu --batch 8 --steps 1 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;

  EXPECT_EQ(recorded["entries"][0]["variant"].get<std::string>().size(), 16u);

  // Steps that make another variant than the one recorded (as when a rule changed since) are
  // not taken: the cluster compiles to the default strategy, with a warning naming it.
  recorded["entries"][0]["rules"] = {"storeTransposed@0", "vectorizeReduce(8)@0"};
  recorded["entries"][0]["variant"] = "0000000000000000";
  std::ofstream(db) << recorded.dump();
  r = Dfc("compile " + model + " --device cpu --tuning-db " + db + " -o " +
          (dir / "stale").string() + " 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("dfc: warning: cluster 0 (matmul (MatMul), add (Add), relu (Relu), mul "
                        "(Mul), out (Sum)): " +
                        db +
                        ": its recorded steps (storeTransposed@0 ; vectorizeReduce(8)@0) now "
                        "make variant "));
  EXPECT_THAT(r.output, HasSubstr("it takes the default strategy"));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("tuned variant")));
  const nlohmann::json stale = nlohmann::json::parse(std::ifstream(dir / "stale" / "plan.json"));
  EXPECT_EQ(stale["clusters"][0]["rules"], nlohmann::json::array());

  // A compile without --tune takes what the database holds for the device present (an entry
  // without a recorded variant, as files written before it was kept, on trust).
  recorded["entries"][0].erase("variant");
  std::ofstream(db) << recorded.dump();
  r = Dfc("compile " + model + " --device cpu --tuning-db " + db + " -o " +
          (dir / "again").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("1 clusters take their tuned variant from " + db));
  const nlohmann::json again = nlohmann::json::parse(std::ifstream(dir / "again" / "plan.json"));
  EXPECT_EQ(again["clusters"][0]["rules"],
            nlohmann::json({"storeTransposed@0", "vectorizeReduce(8)@0"}));
  std::ifstream kernel(dir / "again" / "kernels" / "cluster_0.cl");
  const std::string source((std::istreambuf_iterator<char>(kernel)), {});
  EXPECT_THAT(source, HasSubstr("// rewritten by: storeTransposed@0 ; vectorizeReduce(8)@0"));
  // A profile no device present matches compiles as before.
  r = Dfc("compile " + model + " --device nvidia --tuning-db " + db + " -o " +
          (dir / "nvidia").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("tuned variant")));
}

// A training graph, everything it computes: its initialisers run first, each variant's run
// starts from the variables they set. A budget of 0 times each cluster's default only.
TEST(CliTest, BenchVariantsOfATrainingStepStartFromItsInitialisers) {
  Result r = Dfc("bench " + Model("dl4j_mnist_00_softmax_train.pbtxt") +
                 " --variants --batch 16 --device cpu --runs 1 --budget 0 2>&1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("unfused chain (one kernel per op, MatMul through CLBlast)"));
  EXPECT_THAT(r.output, HasSubstr("gradients/MatMul_grad/MatMul_1 (MatMul)"));
  EXPECT_THAT(r.output, ::testing::ContainsRegex("best +[0-9.]+ .* default"));
}

TEST(CliTest, BenchNeedsVariants) {
  Result r = Dfc("bench " + std::string(DFC_SOURCE_DIR) + "/models/relu_subgraph.pbtxt 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("dfc bench needs --variants"));
}

// The issue's acceptance command, at fewer steps: the report names each fused kernel with its
// graph nodes, and the trace has the host and device rows, one launch arrow per device event,
// and kernels whose args name the nodes they compute.
TEST(CliTest, ProfilePrintsTheReportAndWritesATrace) {
  const fs::path dir = TempDir("profile");
  const fs::path trace = dir / "t.json";
  Result r = Dfc("profile " + Model("dl4j_mnist_00_softmax_train.pbtxt") + " --steps 3 --trace " +
                 trace.string() + " --report --by-node --sort calls");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("Summary: wall"));
  // Each step is one run, whose host time beside its kernels is given.
  EXPECT_THAT(r.output, HasSubstr("Runs: 3, "));
  EXPECT_THAT(r.output, HasSubstr("host overhead (a run's time not covered by device work)"));
  EXPECT_THAT(r.output, HasSubstr("dfc_cluster_0"));
  // The variables' updates run on the device, as kernels of their own named by their node.
  EXPECT_THAT(r.output, HasSubstr("dfc_update"));
  EXPECT_THAT(r.output, HasSubstr("GradientDescent/update_Variable"));
  EXPECT_THAT(r.output, HasSubstr("an estimate"));
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(trace));
  int kernels = 0, device = 0, starts = 0, finishes = 0, steps = 0;
  bool matmul = false;
  std::set<std::string> processes;
  for (const nlohmann::json& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") processes.insert(e["args"]["name"]);
    if (e["ph"] == "s") ++starts;
    if (e["ph"] == "f") ++finishes;
    if (e["ph"] != "X") continue;
    if (e["name"] == "step") ++steps;
    if (e["pid"] == 2) ++device;
    if (e["pid"] != 2 || e["args"]["kind"] != "kernel") continue;
    ++kernels;
    for (const nlohmann::json& node : e["args"]["nodes"]) matmul = matmul || node == "MatMul";
  }
  EXPECT_EQ(steps, 3);
  EXPECT_GT(kernels, 3);
  EXPECT_TRUE(matmul);
  EXPECT_EQ(starts, device);
  EXPECT_EQ(finishes, device);
  EXPECT_TRUE(processes.contains("host"));
  EXPECT_EQ(processes.size(), 2u);

  Result bad = Dfc("profile " + Model("dl4j_mnist_00_softmax_train.pbtxt") +
                   " --steps 1 --report --sort speed");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.output, HasSubstr("cannot sort the report by \"speed\""));
}

}  // namespace
}  // namespace dfc
