// The kept inputs of each fuzz target (tests/fuzz/regressions/<target>/: hand-made edge cases
// such as a shape whose size overflows 64 bits or a graph with a cycle, and every input a
// fuzzer once failed on) and the seeds of its corpus, replayed through the target in every
// build: what a fuzzer found stays found. A crash fails the test by crashing it; a defect by
// its description.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "dfc_test_paths.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "runtime/reference/session.h"
#include "tests/fuzz/fuzz_targets.h"
#include "tests/fuzz/graph_gen.h"
#include "tests/test_util.h"

namespace dfc::fuzz {
namespace {

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(FuzzRegressionTest, EveryKeptInputIsHandled) {
  const std::filesystem::path root =
      std::filesystem::path(DFC_SOURCE_DIR) / "tests/fuzz/regressions";
  int inputs = 0;
  for (const Target& target : Targets()) {
    const std::filesystem::path dir = root / target.name;
    if (!std::filesystem::exists(dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string bytes = Slurp(entry.path());
      SCOPED_TRACE(entry.path().string());
      EXPECT_EQ(target.run(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), "");
      ++inputs;
    }
  }
  RecordProperty("inputs", inputs);
}

// The seeds the fuzzers start from (TensorFlow's GraphDefs and .npy files in ../shared) go
// through the targets cleanly: a target that rejects its own seeds fuzzes nothing.
TEST(FuzzRegressionTest, TheSeedsAreHandled) {
  auto run = [](const char* name, const std::filesystem::path& path) {
    for (const Target& target : Targets()) {
      if (std::string(target.name) != name) continue;
      const std::string bytes = Slurp(path);
      EXPECT_EQ(target.run(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), "")
          << path;
    }
  };
  int graphs = 0, arrays = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(dfc::testing::SharedDir() + "/models")) {
    const std::string ext = entry.path().extension();
    if (ext == ".pb") run("graphdef_binary", entry.path()), ++graphs;
    if (ext == ".pbtxt") run("graphdef_text", entry.path()), ++graphs;
  }
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dfc::testing::SharedDir() +
                                                                         "/conformance/tf-dl4j")) {
    if (entry.path().extension() == ".npy" && arrays < 200) run("npy", entry.path()), ++arrays;
  }
  EXPECT_GT(graphs, 10);
  EXPECT_EQ(arrays, 200);
}

// Random bytes of random lengths, the same every run.
std::vector<std::string> RandomInputs(int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> inputs;
  for (int k = 0; k < count; ++k) {
    std::string bytes(rng() % 400, '\0');
    for (char& b : bytes) b = static_cast<char>(rng());
    inputs.push_back(std::move(bytes));
  }
  return inputs;
}

// The differential fuzzer's graphs are valid: the loader takes every one and the reference
// executor runs it, over many ops (a generator that made only a few would fuzz little).
TEST(GraphGenTest, MakesValidGraphsOfManyOps) {
  std::set<std::string> ops;
  for (const std::string& bytes : RandomInputs(1000, 1)) {
    Choices choices(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    const GeneratedGraph generated = GenerateGraph(choices);
    absl::StatusOr<Graph> graph = ParseGraph(generated.text, "generated");
    ASSERT_TRUE(graph.ok()) << graph.status() << "\n" << generated.text;
    for (const Node& node : graph->nodes()) ops.insert(node.op);
    reference::Session session(std::make_shared<const Graph>(*std::move(graph)));
    absl::StatusOr<std::vector<Tensor>> out = session.Run(generated.feeds, generated.fetches);
    ASSERT_TRUE(out.ok()) << out.status() << "\n" << generated.text;
  }
  EXPECT_GE(ops.size(), 40u);
  // The nn table's window ops and batch norm among them (issue 30), and the tail table's
  // device ops (issue 33).
  for (const char* op :
       {"Conv2D", "DepthwiseConv2dNative", "MaxPool", "AvgPool", "FusedBatchNormV3", "Lgamma",
        "Digamma", "Igamma", "Igammac", "Polygamma", "Betainc", "Xdivy", "Xlogy", "Xlog1py",
        "ClipByValue", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift",
        "Invert", "PopulationCount"}) {
    EXPECT_TRUE(ops.contains(op)) << op;
  }
}

// The whole chain agrees with the reference on a few dozen graphs, the same every run (the
// fuzzer explores from there; what it finds is kept in regressions/graph_diff/).
// DFC_GRAPH_DIFF_RUNS=N tries N graphs instead, without clang's libFuzzer.
TEST(FuzzRegressionTest, GraphDiffAgreesOnSeededGraphs) {
  const char* runs = std::getenv("DFC_GRAPH_DIFF_RUNS");
  for (const std::string& bytes : RandomInputs(runs != nullptr ? std::atoi(runs) : 24, 2)) {
    EXPECT_EQ(GraphDiff(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), "");
  }
}

}  // namespace
}  // namespace dfc::fuzz
