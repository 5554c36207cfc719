// What the DeviceExecutor tests share (device_executor_test.cc, launch_test.cc): seeded inputs,
// translation as a run does, the reference executor's answers, and a fixture with PoCL's CPU
// device.
#ifndef DFC_TESTS_DEVICE_EXECUTOR_TESTING_H_
#define DFC_TESTS_DEVICE_EXECUTOR_TESTING_H_

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/loader.h"
#include "gtest/gtest.h"
#include "runtime/compare.h"
#include "runtime/device_executor.h"
#include "runtime/opencl/device.h"
#include "runtime/reference/session.h"
#include "runtime/translate_for_feeds.h"
#include "tests/test_hooks.h"
#include "tests/test_util.h"

namespace dfc::testing {

using Feeds = std::vector<Feed>;

// Uniform in [-1, 1), the same for the same seed.
inline Tensor RandomFloats(Shape shape, uint64_t seed) {
  return testing::UniformFloats(std::move(shape), seed, -1.0f, 1.0f);
}

// Translates as `dfc run` and `dfc conformance --device` do.
inline absl::StatusOr<ir::TranslatedGraph> Translate(const Graph& graph,
                                                     const std::vector<TensorId>& fetches,
                                                     const Feeds& feeds) {
  return TranslateForFeeds(graph, fetches, feeds);
}

// The oracle: the reference session's values of `fetches` for `feeds`.
inline absl::StatusOr<std::vector<Tensor>> Reference(const Graph& graph, const Feeds& feeds,
                                                     const std::vector<TensorId>& fetches) {
  std::vector<std::string> names;
  for (const TensorId& id : fetches) names.push_back(id.ToString());
  reference::Session session(std::make_shared<const Graph>(graph));
  return session.Run(feeds, names);
}

inline void ExpectAllEqual(const std::vector<Tensor>& actual, const std::vector<Tensor>& expected,
                           const std::vector<TensorId>& fetches,
                           const std::optional<Tolerance>& tolerance = std::nullopt) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t k = 0; k < actual.size(); ++k) {
    const Comparison c = tolerance ? CompareTensors(actual[k], expected[k], *tolerance)
                                   : CompareTensors(actual[k], expected[k]);
    EXPECT_TRUE(c.equal) << fetches[k].ToString() << ": " << c.reason;
  }
}

// `executor`'s run of `graph`, translated for `feeds` as a run is, equals the reference's (within
// `tolerance` where given); `what` names the case in a failure.
inline void ExpectRunMatchesReference(DeviceExecutor& executor, const Graph& graph,
                                      const Feeds& feeds, const std::vector<TensorId>& fetches,
                                      const std::string& what,
                                      const std::optional<Tolerance>& tolerance = std::nullopt) {
  absl::StatusOr<ir::TranslatedGraph> translated = Translate(graph, fetches, feeds);
  ASSERT_TRUE(translated.ok()) << what << ": " << translated.status();
  absl::StatusOr<std::vector<Tensor>> actual = executor.Run(graph, *translated, feeds, fetches);
  ASSERT_TRUE(actual.ok()) << what << ": " << actual.status();
  absl::StatusOr<std::vector<Tensor>> expected = Reference(graph, feeds, fetches);
  ASSERT_TRUE(expected.ok()) << what << ": " << expected.status();
  ExpectAllEqual(*actual, *expected, fetches, tolerance);
}

class DeviceExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<cl::DeviceInfo> info = cl::SelectDevice("cpu");
    if (!info.ok()) GTEST_SKIP() << "no OpenCL CPU device: " << info.status();
    absl::StatusOr<std::shared_ptr<cl::ClContext>> context = cl::ClContext::Create(*info);
    ASSERT_TRUE(context.ok()) << context.status();
    context_ = *std::move(context);
  }

  std::unique_ptr<DeviceExecutor> MakeExecutor(DeviceExecutor::Options options = {}) {
    return std::make_unique<DeviceExecutor>(context_, std::make_shared<cl::ProgramCache>(context_),
                                            std::move(options));
  }

  // The source of the kernels `graph_text` compiles to, its run of `feeds` (out fetched)
  // checked against the reference within `tolerance`, on the device (no cluster falling back).
  std::string SourceOfCheckedRun(const char* graph_text, const Feeds& feeds,
                                 const Tolerance& tolerance) {
    absl::StatusOr<Graph> graph = ParseGraph(graph_text, "test");
    EXPECT_TRUE(graph.ok()) << graph.status();
    if (!graph.ok()) return "";
    std::string source;
    std::unique_ptr<DeviceExecutor> executor = MakeExecutor();
    TestHooks::EditSources(*executor, [&](std::string& s) { source = s; });
    ExpectRunMatchesReference(*executor, *graph, feeds, {{"out", 0}}, "the run", tolerance);
    EXPECT_EQ(executor->fallbacks(), 0) << "a kernel failed to build:\n" << source;
    return source;
  }

  std::shared_ptr<cl::ClContext> context_;
};

// The rows `rows` of a float32 tensor, in that order: a tensor of shape [rows.size(), ...].
inline Tensor Rows(const Tensor& t, const std::vector<int64_t>& rows) {
  Shape shape = t.shape();
  const int64_t row_size = shape[0] == 0 ? 0 : t.num_elements() / shape[0];
  shape[0] = static_cast<int64_t>(rows.size());
  Tensor out = Tensor::Zeros(DType::kFloat, shape);
  for (size_t r = 0; r < rows.size(); ++r) {
    std::copy_n(t.data<float>() + rows[r] * row_size, row_size,
                out.mutable_data<float>() + static_cast<int64_t>(r) * row_size);
  }
  return out;
}

inline absl::StatusOr<Graph> LoadShared(const std::string& name) {
  return LoadGraph(testing::SharedDir() + "/models/" + name);
}

}  // namespace dfc::testing

#endif  // DFC_TESTS_DEVICE_EXECUTOR_TESTING_H_
