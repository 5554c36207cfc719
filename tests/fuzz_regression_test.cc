// The kept inputs of each fuzz target (tests/fuzz/regressions/<target>/: hand-made edge cases
// such as a shape whose size overflows 64 bits or a graph with a cycle, and every input a
// fuzzer once failed on) and the seeds of its corpus, replayed through the target in every
// build: what a fuzzer found stays found. A crash fails the test by crashing it; a defect by
// its description.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "tests/fuzz/fuzz_targets.h"
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

}  // namespace
}  // namespace dfc::fuzz
