// models/seed_subgraph.pbtxt, the thesis' benchmarked subgraph: it loads, and run with fused
// kernels on the CPU device it computes what the reference executor does, at several batch
// sizes from one compiled plan.
#include <cmath>
#include <memory>
#include <random>

#include "dfc_test_paths.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "runtime/compare.h"
#include "runtime/device_session.h"
#include "runtime/reference/session.h"
#include "runtime/translate_for_feeds.h"
#include "tests/test_hooks.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

// Shape(mul) is folded to [N, 10] when compiling, so the Reshape joins the cluster that
// computes mul: the whole subgraph is one fused kernel, as in the thesis.
TEST(SeedSubgraphTranslationTest, IsOneCluster) {
  absl::StatusOr<Graph> graph =
      LoadGraph(absl::StrCat(DFC_SOURCE_DIR, "/models/seed_subgraph.pbtxt"));
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<ir::TranslatedGraph> translated =
      TranslateForFeeds(*graph, {TensorId{"out", 0}}, {});
  ASSERT_TRUE(translated.ok()) << translated.status();
  ASSERT_EQ(translated->clusters.size(), 1u);
  EXPECT_EQ(translated->partition.clusters[0].nodes.size(), 7u);
  // Shape and the Sum's axes are not run: nothing reads them at run time.
  EXPECT_EQ(translated->clusters[0].outputs, (std::vector<TensorId>{{"out", 0}}));
  EXPECT_EQ(translated->partition.schedule.size(), 5u);  // four placeholders and the cluster
}

class SeedSubgraphTest : public ::testing::TestWithParam<bool> {};

// With its kernel, and with the kernel made to fail to build: the fallback runs the nodes on
// the reference executor, and takes the Reshape's shape, which no unit computes at run time,
// from the fold.
TEST_P(SeedSubgraphTest, FusedKernelsComputeWhatTheReferenceDoes) {
  const bool broken = GetParam();
  absl::StatusOr<Graph> loaded =
      LoadGraph(absl::StrCat(DFC_SOURCE_DIR, "/models/seed_subgraph.pbtxt"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto graph = std::make_shared<const Graph>(*std::move(loaded));
  absl::StatusOr<std::unique_ptr<DeviceSession>> device =
      DeviceSession::Create(graph, {.device = "cpu"});
  if (!device.ok()) GTEST_SKIP() << "no OpenCL CPU device: " << device.status();
  if (broken) {
    testing::TestHooks::EditSources(**device,
                                    [](std::string& source) { source += "\nnot OpenCL C\n"; });
  }
  reference::Session reference(graph);
  // in3 and in4 are the trained weights and bias; in2 images in [0, 1); in1 one-hot labels
  // scaled as the gradient of a mean over the batch.
  const Tensor w = testing::UniformFloats({784, 10}, 1, -0.05f, 0.05f),
               b = testing::UniformFloats({10}, 2, -0.1f, 0.1f);
  int64_t generated = -1;
  for (int64_t n : {1, 7, 64}) {
    SCOPED_TRACE(n);
    const Tensor x = testing::UniformFloats({n, 784}, n, 0.0f, 1.0f);
    Tensor y = Tensor::Zeros(DType::kFloat, {n, 10});
    for (int64_t i = 0; i < n; ++i) y.mutable_flat<float>()[i * 10 + i % 10] = -1.0f / n;
    absl::StatusOr<std::vector<Tensor>> got =
        (*device)->Run({{{"in1"}, y}, {{"in2"}, x}, {{"in3"}, w}, {{"in4"}, b}}, {"out"});
    ASSERT_TRUE(got.ok()) << got.status();
    absl::StatusOr<std::vector<Tensor>> want =
        reference.Run({{{"in1"}, y}, {{"in2"}, x}, {{"in3"}, w}, {{"in4"}, b}}, {"out"});
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_EQ((*got)[0].shape(), (Shape{n, 10}));
    const Comparison c = CompareTensors((*got)[0], (*want)[0]);
    EXPECT_TRUE(c.equal) << c.reason;
    if (generated >= 0) {
      EXPECT_EQ((*device)->executor().kernels_generated(), generated) << "regenerated";
    }
    generated = (*device)->executor().kernels_generated();
  }
  EXPECT_EQ((*device)->executor().fallbacks(), broken ? 3 : 0);
}

INSTANTIATE_TEST_SUITE_P(KernelOrFallback, SeedSubgraphTest, ::testing::Bool());

}  // namespace
}  // namespace dfc
