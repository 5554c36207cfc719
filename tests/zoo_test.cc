// The real CNNs of ../shared/zoo that dfc supports, run on the device as a user runs them (a
// DeviceSession: one plan, the batch a size variable) at batch 1, 16 and 64, against the
// reference executor. Their graphs fix the batch at export (MobileNet's input is [1,128,128,3]);
// the test opens it, as a user's --shape does, so one plan serves every batch.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/graph.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "runtime/compare.h"
#include "runtime/device_session.h"
#include "runtime/opencl/device.h"
#include "runtime/reference/session.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

struct ZooModel {
  std::string file;
  std::string input;
  Shape image;  // the input's shape after the batch
  std::string fetch;
};

const ZooModel kLeNet{"lenet_frozen.pb", "input", {28, 28, 1}, "Lenet/fc9_1/BiasAdd"};
const ZooModel kMobileNet{
    "mobilenet_v1_025_128.pb", "input", {128, 128, 3}, "MobilenetV1/Logits/SpatialSqueeze"};

// `graph` with placeholder `input` declared [?, image...]: the batch open.
absl::StatusOr<Graph> WithOpenBatch(const Graph& graph, const ZooModel& model) {
  std::vector<Node> nodes = graph.nodes();
  for (Node& node : nodes) {
    if (node.name != model.input) continue;
    PartialShape shape{.unknown_rank = false, .dims = {-1}};
    shape.dims.insert(shape.dims.end(), model.image.begin(), model.image.end());
    node.attrs["shape"] = shape;
  }
  return Graph::FromNodes(std::move(nodes), graph.producer());
}

class ZooCnnTest : public ::testing::TestWithParam<std::pair<ZooModel, int64_t>> {};

TEST_P(ZooCnnTest, MatchesTheReferenceOnTheDevice) {
  const auto& [model, batch] = GetParam();
  if (!cl::SelectDevice("cpu").ok()) GTEST_SKIP() << "no OpenCL CPU device";
  absl::StatusOr<Graph> loaded = LoadGraph(testing::SharedDir() + "/zoo/" + model.file);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  absl::StatusOr<Graph> open = WithOpenBatch(*loaded, model);
  ASSERT_TRUE(open.ok()) << open.status();
  auto graph = std::make_shared<const Graph>(*std::move(open));

  Shape shape = {batch};
  shape.insert(shape.end(), model.image.begin(), model.image.end());
  const std::vector<Feed> feeds = {{{model.input, 0}, testing::UniformFloats(shape, 7, 0, 1)}};
  absl::StatusOr<std::unique_ptr<DeviceSession>> device =
      DeviceSession::Create(graph, {.device = "cpu"});
  ASSERT_TRUE(device.ok()) << device.status();
  absl::StatusOr<std::vector<Tensor>> got = (*device)->Run(feeds, {model.fetch});
  ASSERT_TRUE(got.ok()) << got.status();
  reference::Session reference(graph);
  absl::StatusOr<std::vector<Tensor>> want = reference.Run(feeds, {model.fetch});
  ASSERT_TRUE(want.ok()) << want.status();
  // The device sums every window in float32, the reference in double, through up to 28
  // layers: float32 sums of n terms err by up to n·u of their magnitudes, and the errors of
  // one layer are the next one's inputs. MobileNet's logits (magnitude ~3) measured 2.7e-5
  // off (9e-6 relative), beyond DefaultTolerance's 1e-6 that one TensorFlow op asks of
  // another; 1e-4 keeps ten times the measured margin and fails a wrong window by far.
  const Comparison c = CompareTensors((*got)[0], (*want)[0], {.rtol = 1e-4, .atol = 1e-4});
  EXPECT_TRUE(c.equal) << c.reason;
  EXPECT_EQ((*device)->executor().fallbacks(), 0);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooCnnTest,
                         ::testing::Values(std::pair{kLeNet, 1}, std::pair{kLeNet, 16},
                                           std::pair{kLeNet, 64}, std::pair{kMobileNet, 1},
                                           std::pair{kMobileNet, 16}, std::pair{kMobileNet, 64}),
                         [](const auto& info) {
                           const std::string file = info.param.first.file;
                           return absl::StrCat(file.substr(0, file.find('_')), "_batch",
                                               info.param.second);
                         });

}  // namespace
}  // namespace dfc
