// The real CNNs of ../shared/zoo that dfc supports, run on the device as a user runs them (a
// DeviceSession: one plan, the batch a size variable) at batch 1, 16 and 64, against the
// reference executor. Their graphs fix the batch at export (MobileNet's input is [1,128,128,3]);
// the test opens it, as a user's --shape does, so one plan serves every batch. The ResNet's
// variables are initialised first, on each side.
#include "tests/zoo.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/graph.h"
#include "gtest/gtest.h"
#include "runtime/compare.h"
#include "runtime/device_session.h"
#include "runtime/opencl/device.h"
#include "runtime/plan.h"
#include "runtime/reference/session.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using testing::ZooModel;

class ZooCnnTest : public ::testing::TestWithParam<std::pair<ZooModel, int64_t>> {};

TEST_P(ZooCnnTest, MatchesTheReferenceOnTheDevice) {
  const auto& [model, batch] = GetParam();
  if (!cl::SelectDevice("cpu").ok()) GTEST_SKIP() << "no OpenCL CPU device";
  absl::StatusOr<Graph> open = testing::LoadWithOpenBatch(model);
  ASSERT_TRUE(open.ok()) << open.status();
  auto graph = std::make_shared<const Graph>(*std::move(open));

  Shape shape = {batch};
  shape.insert(shape.end(), model.image.begin(), model.image.end());
  const std::vector<Feed> feeds = {{{model.input, 0}, testing::UniformFloats(shape, 7, 0, 1)}};
  absl::StatusOr<std::vector<std::string>> init = VariableInitialisers(*graph);
  ASSERT_TRUE(init.ok()) << init.status();
  absl::StatusOr<std::unique_ptr<DeviceSession>> device =
      DeviceSession::Create(graph, {.device = "cpu"});
  ASSERT_TRUE(device.ok()) << device.status();
  ASSERT_TRUE((*device)->Run({}, {}, *init).ok());
  absl::StatusOr<std::vector<Tensor>> got = (*device)->Run(feeds, {model.fetch});
  ASSERT_TRUE(got.ok()) << got.status();
  reference::Session reference(graph);
  ASSERT_TRUE(reference.Run({}, {}, *init).ok());
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

std::vector<std::pair<ZooModel, int64_t>> Cases() {
  std::vector<std::pair<ZooModel, int64_t>> cases;
  for (const ZooModel& model : testing::ZooCnns()) {
    for (int64_t batch : {1, 16, 64}) cases.push_back({model, batch});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooCnnTest, ::testing::ValuesIn(Cases()), [](const auto& info) {
  const std::string& file = info.param.first.file;
  return absl::StrCat(file.substr(0, file.find('_')), "_batch", info.param.second);
});

}  // namespace
}  // namespace dfc
