// The thesis' test problem: TensorFlow's MNIST softmax regression, trained by dfc's reference
// executor on a synthetic 10-class data set, and its frozen twin checked against x·W + b.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <random>

#include "gmock/gmock.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "runtime/device_session.h"
#include "runtime/reference/session.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::dfc::reference::Session;

constexpr int kClasses = 10;
constexpr int kPixels = 784;
// The loss of a training run on the device against the reference's, relative. The two differ
// in rounding only: the reference accumulates MatMul in double, the kernels in float32 (as
// TensorFlow does), and 784-term float32 dot products are off by ~1e-6 relative; the weights
// carry that from step to step. Measured over 200 steps: 1.1e-5 at most; the bound leaves a
// factor of ten for other devices' rounding.
constexpr double kLossTolerance = 1e-4;

// Class-dependent Gaussian blobs in 784 dimensions: each class lights ~10% of the pixels (at
// 1.0, like MNIST's strokes), every pixel gets N(0, 0.5^2) noise. Deterministic: the same
// seed gives the same data.
class BlobData {
 public:
  explicit BlobData(uint64_t seed) : rng_(seed) {
    std::bernoulli_distribution on(0.1);
    for (auto& center : centers_) {
      center.resize(kPixels);
      for (float& v : center) v = on(rng_) ? 1.0f : 0.0f;
    }
  }

  // A batch: images float32[n,784] and one-hot labels float32[n,10].
  std::pair<Tensor, Tensor> Batch(int n) {
    Tensor x = Tensor::Zeros(DType::kFloat, {n, kPixels});
    Tensor y = Tensor::Zeros(DType::kFloat, {n, kClasses});
    std::uniform_int_distribution<int> label(0, kClasses - 1);
    std::normal_distribution<float> noise(0.0f, 0.5f);
    for (int i = 0; i < n; ++i) {
      const int c = label(rng_);
      y.mutable_data<float>()[i * kClasses + c] = 1.0f;
      for (int p = 0; p < kPixels; ++p) {
        x.mutable_data<float>()[i * kPixels + p] = centers_[c][p] + noise(rng_);
      }
    }
    return {x, y};
  }

 private:
  std::mt19937_64 rng_;
  std::vector<float> centers_[kClasses];
};

TEST(MnistTest, SoftmaxRegressionTrainsOnSyntheticBlobs) {
  absl::StatusOr<Graph> graph =
      LoadGraph(testing::SharedDir() + "/models/dl4j_mnist_00_softmax_train.pbtxt");
  ASSERT_TRUE(graph.ok()) << graph.status();
  Session session(std::make_shared<const Graph>(*std::move(graph)));
  ASSERT_TRUE(session.Run({}, {}, {"init"}).ok());

  BlobData data(/*seed=*/20261122);
  constexpr int kSteps = 200;
  constexpr int kBatch = 100;
  float first_loss = 0;
  float last_loss = 0;
  for (int step = 0; step < kSteps; ++step) {
    auto [x, y] = data.Batch(kBatch);
    // "Mean" is the cross-entropy loss; "GradientDescent" applies one update to W and b.
    absl::StatusOr<std::vector<Tensor>> out =
        session.Run({{{"input"}, x}, {{"Placeholder"}, y}}, {"Mean"}, {"GradientDescent"});
    ASSERT_TRUE(out.ok()) << "step " << step << ": " << out.status();
    const float loss = (*out)[0].data<float>()[0];
    ASSERT_TRUE(std::isfinite(loss)) << "step " << step;
    if (step == 0) first_loss = loss;
    last_loss = loss;
  }
  // With W = 0 and b = 0 the first loss is exactly ln(10).
  EXPECT_NEAR(first_loss, std::log(10.0f), 1e-5);
  EXPECT_LT(last_loss, 0.5f * first_loss);

  // "Mean_1" is the accuracy: mean of Equal(ArgMax(logits), ArgMax(labels)).
  auto [x_test, y_test] = data.Batch(1000);
  absl::StatusOr<std::vector<Tensor>> accuracy =
      session.Run({{{"input"}, x_test}, {{"Placeholder"}, y_test}}, {"Mean_1"});
  ASSERT_TRUE(accuracy.ok()) << accuracy.status();
  EXPECT_GT((*accuracy)[0].data<float>()[0], 0.9f);
}

TEST(MnistTest, VariablesKeepTheirStateAcrossRuns) {
  absl::StatusOr<Graph> graph =
      LoadGraph(testing::SharedDir() + "/models/dl4j_mnist_00_softmax_train.pbtxt");
  ASSERT_TRUE(graph.ok()) << graph.status();
  Session session(std::make_shared<const Graph>(*std::move(graph)));
  // Before init, reading W is an error that names the variable.
  absl::StatusOr<std::vector<Tensor>> early = session.Run({}, {"Variable"});
  ASSERT_FALSE(early.ok());
  EXPECT_THAT(early.status().message(), ::testing::HasSubstr("\"Variable\""));
  EXPECT_THAT(early.status().message(), ::testing::HasSubstr("initialized"));

  ASSERT_TRUE(session.Run({}, {}, {"init"}).ok());
  BlobData data(7);
  auto [x, y] = data.Batch(10);
  ASSERT_TRUE(session.Run({{{"input"}, x}, {{"Placeholder"}, y}}, {}, {"GradientDescent"}).ok());
  absl::StatusOr<std::vector<Tensor>> w = session.Run({}, {"Variable", "Variable_1"});
  ASSERT_TRUE(w.ok()) << w.status();
  // One step from zeros moves b by -lr * mean(softmax - y) = -0.5 * (0.1 - freq(c)): the
  // bias entries sum to zero because both softmax and y rows sum to one.
  double bias_sum = 0;
  for (float v : testing::Values<float>((*w)[1])) bias_sum += v;
  EXPECT_NEAR(bias_sum, 0.0, 1e-6);
  double w_norm = 0;
  for (float v : testing::Values<float>((*w)[0])) w_norm += std::fabs(v);
  EXPECT_GT(w_norm, 0.0);
}

TEST(MnistTest, FrozenTwinComputesXTimesWPlusB) {
  absl::StatusOr<Graph> graph =
      LoadGraph(testing::SharedDir() + "/models/dl4j_mnist_00_softmax_frozen.pb");
  ASSERT_TRUE(graph.ok()) << graph.status();
  // W and b are the frozen graph's only Const nodes of rank 2 and rank 1.
  Tensor w, b;
  for (const Node& node : graph->nodes()) {
    if (node.op != "Const") continue;
    absl::StatusOr<Tensor> value = node.GetTensor("value");
    ASSERT_TRUE(value.ok());
    if (value->rank() == 2) w = *value;
    if (value->rank() == 1) b = *value;
  }
  ASSERT_EQ(w.shape(), (Shape{kPixels, kClasses}));
  ASSERT_EQ(b.shape(), (Shape{kClasses}));

  BlobData data(99);
  auto [x, y] = data.Batch(32);
  Session session(std::make_shared<const Graph>(*std::move(graph)));
  absl::StatusOr<std::vector<Tensor>> out = session.Run({{{"input"}, x}}, {"output"});
  ASSERT_TRUE(out.ok()) << out.status();
  const Tensor& logits = (*out)[0];
  ASSERT_EQ(logits.shape(), (Shape{32, kClasses}));
  for (int i = 0; i < 32; ++i) {
    for (int c = 0; c < kClasses; ++c) {
      double expected = b.data<float>()[c];
      for (int p = 0; p < kPixels; ++p) {
        expected += double{x.data<float>()[i * kPixels + p]} * w.data<float>()[p * kClasses + c];
      }
      // float32 result of a 784-term dot product: a relative 1e-5 of the terms' magnitude.
      EXPECT_NEAR(logits.data<float>()[i * kClasses + c], expected,
                  1e-5 * (1 + std::fabs(expected)))
          << "row " << i << " class " << c;
    }
  }
}

// The training step with fused kernels on the CPU OpenCL device, variables on the device,
// against the reference executor fed the same batches.
TEST(MnistTest, TrainsWithFusedKernelsAsTheReferenceDoes) {
  absl::StatusOr<Graph> loaded =
      LoadGraph(testing::SharedDir() + "/models/dl4j_mnist_00_softmax_train.pbtxt");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto graph = std::make_shared<const Graph>(*std::move(loaded));
  absl::StatusOr<std::unique_ptr<DeviceSession>> device =
      DeviceSession::Create(graph, {.device = "cpu"});
  if (!device.ok()) GTEST_SKIP() << "no OpenCL CPU device: " << device.status();
  Session reference(graph);
  ASSERT_TRUE(reference.Run({}, {}, {"init"}).ok());
  ASSERT_TRUE((*device)->Run({}, {}, {"init"}).ok());

  BlobData data(/*seed=*/20261123);
  constexpr int kSteps = 200;
  constexpr int kBatch = 100;
  double worst = 0;
  for (int step = 0; step < kSteps; ++step) {
    auto [x, y] = data.Batch(kBatch);
    absl::StatusOr<std::vector<Tensor>> expected =
        reference.Run({{{"input"}, x}, {{"Placeholder"}, y}}, {"Mean"}, {"GradientDescent"});
    ASSERT_TRUE(expected.ok()) << "step " << step << ": " << expected.status();
    const DeviceExecutor& executor = (*device)->executor();
    const int64_t to_device = executor.bytes_to_device(), to_host = executor.bytes_to_host(),
                  borrowed = executor.bytes_borrowed();
    absl::StatusOr<std::vector<Tensor>> actual =
        (*device)->Run({{{"input"}, x}, {{"Placeholder"}, y}}, {"Mean"}, {"GradientDescent"});
    ASSERT_TRUE(actual.ok()) << "step " << step << ": " << actual.status();
    if (step > 0) {
      // W and b stay on the device: a step gives it the two feeds (and a host op's scalar:
      // the batch size Mean's gradient divides by), copied or, the images on a device that
      // shares the host's memory, read where they lie, and copies out the loss alone.
      const int64_t feeds = static_cast<int64_t>(x.byte_size() + y.byte_size());
      const int64_t given =
          executor.bytes_to_device() - to_device + (executor.bytes_borrowed() - borrowed);
      EXPECT_GE(given, feeds) << "step " << step;
      EXPECT_LE(given, feeds + 16) << "step " << step;
      if (executor.context()->info().host_unified_memory) {
        EXPECT_EQ(executor.bytes_borrowed() - borrowed, static_cast<int64_t>(x.byte_size()))
            << "step " << step;
      }
      EXPECT_EQ(executor.bytes_to_host() - to_host, 4) << "step " << step;
    }
    const double want = (*expected)[0].data<float>()[0];
    const double got = (*actual)[0].data<float>()[0];
    worst = std::max(worst, std::fabs(got - want) / std::fabs(want));
    EXPECT_NEAR(got, want, kLossTolerance * std::fabs(want)) << "step " << step;
  }
  std::cout << "largest relative difference of the loss over " << kSteps << " steps: " << worst
            << "\n";
  EXPECT_GT((*device)->executor().kernels_run(), 0);
  EXPECT_EQ((*device)->executor().fallbacks(), 0);
}

}  // namespace
}  // namespace dfc
