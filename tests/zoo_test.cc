// The real CNNs of ../shared/zoo that dfc supports, run on the device as a user runs them (a
// DeviceSession: one plan, the batch a size variable) at batch 1, 16 and 64 (OpenPose at 1:
// tests/zoo.h), against the reference executor. Their graphs fix the batch at export
// (MobileNet's input is [1,128,128,3]);
// the test opens it, as a user's --shape does, so one plan serves every batch. The ResNet's
// variables are initialised first, on each side.
#include "tests/zoo.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/graph.h"
#include "graph/loader.h"
#include "graph/npy.h"
#include "graph/saved_model.h"
#include "gtest/gtest.h"
#include "runtime/compare.h"
#include "runtime/device_session.h"
#include "runtime/opencl/device.h"
#include "runtime/plan.h"
#include "runtime/reference/session.h"
#include "runtime/translate_for_feeds.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using testing::Values;
using testing::ZooModel;

// A device session (the CPU device) and a reference session of `graph`, each after running
// `init` (a model's initialisers or its checkpoint's restore).
struct Sessions {
  std::unique_ptr<DeviceSession> device;
  std::unique_ptr<reference::Session> reference;
};

absl::StatusOr<Sessions> OpenInitialised(const std::shared_ptr<const Graph>& graph,
                                         const std::vector<std::string>& init) {
  Sessions s;
  DFC_ASSIGN_OR_RETURN(s.device, DeviceSession::Create(graph, {.device = "cpu"}));
  DFC_RETURN_IF_ERROR(s.device->Run({}, {}, init).status());
  s.reference = std::make_unique<reference::Session>(graph);
  DFC_RETURN_IF_ERROR(s.reference->Run({}, {}, init).status());
  return s;
}

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
  absl::StatusOr<Sessions> sessions = OpenInitialised(graph, *init);
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  DeviceSession* device = sessions->device.get();
  absl::StatusOr<std::vector<Tensor>> got = device->Run(feeds, {model.fetch});
  ASSERT_TRUE(got.ok()) << got.status();
  absl::StatusOr<std::vector<Tensor>> want = sessions->reference->Run(feeds, {model.fetch});
  ASSERT_TRUE(want.ok()) << want.status();
  // The device sums every window in float32, the reference in double, through up to 28
  // layers: float32 sums of n terms err by up to n·u of their magnitudes, and the errors of
  // one layer are the next one's inputs. MobileNet's logits (magnitude ~3) measured 2.7e-5
  // off (9e-6 relative), beyond DefaultTolerance's 1e-6 that one TensorFlow op asks of
  // another; 1e-4 keeps ten times the measured margin and fails a wrong window by far.
  // OpenPose is four times as deep (about 110 convolutions in a chain), and its backbone
  // normalises by each batch's own statistics, dividing by a deviation summed over up to
  // 40,000 pixels in float32: its outputs (magnitude ~1) measured 3.6e-4 off; 2e-3 keeps
  // five times that, and a wrong tap or channel moves an output by 1e-2 or more.
  const Comparison c =
      CompareTensors((*got)[0], (*want)[0], {.rtol = model.tolerance, .atol = model.tolerance});
  EXPECT_TRUE(c.equal) << c.reason;
  EXPECT_EQ(device->executor().fallbacks(), 0);
}

std::vector<std::pair<ZooModel, int64_t>> Cases() {
  std::vector<std::pair<ZooModel, int64_t>> cases;
  for (const ZooModel& model : testing::ZooCnns()) {
    for (int64_t batch : model.batches) cases.push_back({model, batch});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooCnnTest, ::testing::ValuesIn(Cases()), [](const auto& info) {
  const std::string& file = info.param.first.file;
  return absl::StrCat(file.substr(0, file.find('_')), "_batch", info.param.second);
});

// The zoo's TF2 Keras CNN SavedModel (17 Conv2D, batch norm, ReLU) as `dfc run DIR` runs it:
// restored from its checkpoint when it loads, then its serving signature on crops of its own
// image, two image sizes and two batch sizes through one session (the images' size is fed,
// the batch a size variable), against the reference executor. Tolerance as above.
TEST(ZooSavedModelTest, TheKerasCnnMatchesTheReferenceOnTheDevice) {
  if (!cl::SelectDevice("cpu").ok()) GTEST_SKIP() << "no OpenCL CPU device";
  const std::string dir = testing::SharedDir() + "/zoo/savedmodel_lexci_cnn";
  absl::StatusOr<SavedModel> model = LoadSavedModel(dir);
  ASSERT_TRUE(model.ok()) << model.status();
  absl::StatusOr<Tensor> image = ReadNpy(dir + "/TNG50-1_halpha.npy");
  ASSERT_TRUE(image.ok()) << image.status();
  const Signature& serving = **model->FindSignature("serving_default");
  auto graph = std::make_shared<const Graph>(std::move(model->graph));
  absl::StatusOr<Sessions> sessions = OpenInitialised(graph, {model->restore_op, model->init_op});
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  DeviceSession* device = sessions->device.get();
  reference::Session& reference = *sessions->reference;
  for (const auto& [batch, side] : {std::pair<int64_t, int64_t>{1, 24}, {2, 24}, {2, 16}}) {
    SCOPED_TRACE(absl::StrCat("batch ", batch, ", ", side, "x", side));
    Tensor crops = Tensor::Zeros(DType::kFloat, {batch, side, side, 1});
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t y = 0; y < side; ++y) {
        for (int64_t x = 0; x < side; ++x) {
          crops.mutable_data<float>()[(b * side + y) * side + x] =
              image->data<float>()[(100 + 40 * b + y) * 256 + 120 + x];
        }
      }
    }
    const std::vector<Feed> feeds = {{serving.inputs[0].tensor, crops}};
    const std::string fetch = serving.outputs[0].tensor.ToString();
    absl::StatusOr<std::vector<Tensor>> got = device->Run(feeds, {fetch});
    ASSERT_TRUE(got.ok()) << got.status();
    absl::StatusOr<std::vector<Tensor>> want = reference.Run(feeds, {fetch});
    ASSERT_TRUE(want.ok()) << want.status();
    const Comparison c = CompareTensors((*got)[0], (*want)[0], {.rtol = 1e-4, .atol = 1e-4});
    EXPECT_TRUE(c.equal) << c.reason;
    // The images' size is unknown to the graph: the translation takes it as fed (the batch
    // still a size variable), so that every convolution is a generated kernel.
    absl::StatusOr<ir::TranslatedGraph> translated =
        TranslateForFeeds(*graph, {serving.outputs[0].tensor}, feeds);
    ASSERT_TRUE(translated.ok()) << translated.status();
    EXPECT_TRUE(translated->host_device_nodes.empty()) << translated->host_device_nodes[0];
  }
  EXPECT_EQ(device->executor().fallbacks(), 0);
}

// The zoo's TF2 Keras LSTM SavedModel: its network behind StatefulPartitionedCall, the LSTM a
// StatelessWhile over TensorLists, its variables restored from the checkpoint. Its serving
// signature on the device equals the reference at batch 1 and 64 (float32, 5 steps: 1e-5).
TEST(ZooSavedModelTest, TheKerasLstmMatchesTheReferenceOnTheDevice) {
  if (!cl::SelectDevice("cpu").ok()) GTEST_SKIP() << "no OpenCL CPU device";
  absl::StatusOr<SavedModel> model =
      LoadSavedModel(testing::SharedDir() + "/zoo/savedmodel_keras_lstm");
  ASSERT_TRUE(model.ok()) << model.status();
  const Signature& serving = **model->FindSignature("serving_default");
  auto graph = std::make_shared<const Graph>(std::move(model->graph));
  std::vector<std::string> inits = {model->restore_op};
  if (!model->init_op.empty()) inits.push_back(model->init_op);
  absl::StatusOr<Sessions> sessions = OpenInitialised(graph, inits);
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  DeviceSession* device = sessions->device.get();
  reference::Session& reference = *sessions->reference;
  for (int64_t batch : {1, 64}) {
    SCOPED_TRACE(absl::StrCat("batch ", batch));
    const std::vector<Feed> feeds = {
        {serving.inputs[0].tensor, testing::UniformFloats({batch, 5, 3}, 5, -1, 1)}};
    const std::string fetch = serving.outputs[0].tensor.ToString();
    absl::StatusOr<std::vector<Tensor>> got = device->Run(feeds, {fetch});
    ASSERT_TRUE(got.ok()) << got.status();
    absl::StatusOr<std::vector<Tensor>> want = reference.Run(feeds, {fetch});
    ASSERT_TRUE(want.ok()) << want.status();
    EXPECT_EQ((*got)[0].shape(), (Shape{batch, 1}));
    const Comparison c = CompareTensors((*got)[0], (*want)[0], {.rtol = 1e-5, .atol = 1e-5});
    EXPECT_TRUE(c.equal) << c.reason;
  }
  EXPECT_EQ(device->executor().fallbacks(), 0);
}

// The zoo's TF1 recurrent networks, each a while loop over TensorArrays: the Keras LSTM (100
// steps of 1000 features, 128 units, weights initialised by seeded random ops) and the float64
// GRU of tf.nn.dynamic_rnn. The device runs the loop from the host, each iteration's body fused
// into kernels whose values stay on the device; it must equal the reference at batch 1 and 64.
struct RnnCase {
  std::string file;
  std::string input;
  Shape sequence;  // the input's shape after the batch
  DType dtype;
  std::string fetch;
  std::vector<std::string> init;
};

class ZooRnnTest : public ::testing::TestWithParam<std::pair<RnnCase, int64_t>> {};

TEST_P(ZooRnnTest, MatchesTheReferenceOnTheDevice) {
  const auto& [model, batch] = GetParam();
  if (!cl::SelectDevice("cpu").ok()) GTEST_SKIP() << "no OpenCL CPU device";
  absl::StatusOr<Graph> loaded = LoadGraph(testing::SharedDir() + "/zoo/" + model.file);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto graph = std::make_shared<const Graph>(*std::move(loaded));
  Shape shape = {batch};
  shape.insert(shape.end(), model.sequence.begin(), model.sequence.end());
  Tensor input = testing::UniformFloats(shape, 11, -1, 1);
  if (model.dtype == DType::kDouble) {
    Tensor wide = Tensor::Zeros(DType::kDouble, shape);
    std::copy(input.flat<float>().begin(), input.flat<float>().end(), wide.mutable_data<double>());
    input = wide;
  }
  const std::vector<Feed> feeds = {{{model.input, 0}, input}};
  absl::StatusOr<Sessions> sessions = OpenInitialised(graph, model.init);
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  DeviceSession* device = sessions->device.get();
  absl::StatusOr<std::vector<Tensor>> got = device->Run(feeds, {model.fetch});
  ASSERT_TRUE(got.ok()) << got.status();
  absl::StatusOr<std::vector<Tensor>> want = sessions->reference->Run(feeds, {model.fetch});
  ASSERT_TRUE(want.ok()) << want.status();
  // The device computes each step's gates in the graph's dtype, the reference in double, and
  // a step's error feeds the next: over the LSTM's 100 steps the outputs (magnitude < 1)
  // measured 1e-6 apart in float32. 1e-4 keeps that margin and fails a wrong step by far.
  const double tolerance = model.dtype == DType::kDouble ? 1e-10 : 1e-4;
  const Comparison c =
      CompareTensors((*got)[0], (*want)[0], {.rtol = tolerance, .atol = tolerance});
  EXPECT_TRUE(c.equal) << c.reason;
  EXPECT_EQ(device->executor().fallbacks(), 0);
  EXPECT_GT(device->executor().kernels_run(), 0);
}

std::vector<std::pair<RnnCase, int64_t>> RnnCases() {
  const std::vector<RnnCase> models = {
      {"keras_lstm_while.pb",
       "lstm_1_input",
       {100, 1000},
       DType::kFloat,
       "lstm_1/TensorArrayReadV3",
       {"init"}},
      {"gru_dynamic_f64.pb", "input", {2, 6}, DType::kDouble, "output", {}},
  };
  std::vector<std::pair<RnnCase, int64_t>> cases;
  for (const RnnCase& model : models) {
    for (int64_t batch : {1, 64}) cases.push_back({model, batch});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooRnnTest, ::testing::ValuesIn(RnnCases()), [](const auto& info) {
  const std::string& file = info.param.first.file;
  return absl::StrCat(file.substr(0, file.find('.')), "_batch", info.param.second);
});

// The graph with, for each variable V, a placeholder "sync/V" and an Assign "sync/V/Assign"
// writing it into V: a session's variables can then be set to another's.
absl::StatusOr<Graph> WithVariableSync(const Graph& graph, std::vector<std::string>& variables) {
  std::vector<Node> nodes = graph.nodes();
  for (const Node& node : graph.nodes()) {
    if (node.op != "VariableV2") continue;
    variables.push_back(node.name);
    Node value{.name = "sync/" + node.name, .op = "Placeholder"};
    value.attrs["dtype"] = node.attrs.at("dtype");
    value.attrs["shape"] = node.attrs.at("shape");
    Node assign{.name = value.name + "/Assign", .op = "Assign"};
    assign.inputs = {{node.name, 0}, {value.name, 0}};
    assign.attrs["T"] = node.attrs.at("dtype");
    nodes.push_back(std::move(value));
    nodes.push_back(std::move(assign));
  }
  return Graph::FromNodes(std::move(nodes), graph.producer());
}

// deep_mnist_train.pbtxt (TensorFlow's "Deep MNIST for experts": two Conv2D+MaxPool layers,
// two dense, dropout at keep_prob 0.5, softmax cross-entropy, Adam at 1e-4) trains on the device
// as on the reference: 100 steps of mini-batches of 2 from 20 synthetic images of 10 classes (a
// seeded prototype per class, half noise). Every step starts both sessions from the
// reference's variables, so each compares one step, not the drift of many: Adam follows the
// sign of a gradient that float32 roundoff can flip where it is near zero, and over 100 steps
// the weights drift apart by up to 1.5e-3 (measured). The loss of the last pass over the data
// must fall below half the first's. Batch 2 keeps the test short; bench/ times batch 64.
TEST(ZooTrainingTest, DeepMnistTrainsOnTheDeviceAsOnTheReference) {
  if (!cl::SelectDevice("cpu").ok()) GTEST_SKIP() << "no OpenCL CPU device";
  absl::StatusOr<Graph> loaded = LoadGraph(testing::SharedDir() + "/zoo/deep_mnist_train.pbtxt");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  std::vector<std::string> variables;
  absl::StatusOr<Graph> synced = WithVariableSync(*loaded, variables);
  ASSERT_TRUE(synced.ok()) << synced.status();
  ASSERT_EQ(variables.size(), 26u);  // 8 weights, their 16 Adam moments, Adam's 2 powers
  auto graph = std::make_shared<const Graph>(*std::move(synced));

  constexpr int kClasses = 10, kImages = 20, kBatch = 2, kSteps = 100, kPixels = 28 * 28;
  const std::vector<float> prototypes =
      Values<float>(testing::UniformFloats({kClasses, kPixels}, 11, 0, 1));
  const std::vector<float> noise =
      Values<float>(testing::UniformFloats({kImages, kPixels}, 12, 0, 1));
  // Step k's batch: images kBatch*k, ... of the data, round and round; image i is of class i % 10.
  auto batch_feeds = [&](int step) {
    std::vector<float> x, y(kBatch * kClasses, 0.0f);
    for (int b = 0; b < kBatch; ++b) {
      const int image = (step * kBatch + b) % kImages, label = image % kClasses;
      for (int p = 0; p < kPixels; ++p) {
        x.push_back(0.5f * prototypes[label * kPixels + p] + 0.5f * noise[image * kPixels + p]);
      }
      y[b * kClasses + label] = 1.0f;
    }
    return std::vector<Feed>{{{"input", 0}, testing::TN<float>(x, {kBatch, 28, 28, 1})},
                             {{"target", 0}, testing::TN<float>(y, {kBatch, kClasses})},
                             {{"keep_prob", 0}, testing::TN<float>({0.5f}, {})}};
  };

  absl::StatusOr<std::unique_ptr<DeviceSession>> device =
      DeviceSession::Create(graph, {.device = "cpu"});
  ASSERT_TRUE(device.ok()) << device.status();
  reference::Session reference(graph);
  ASSERT_TRUE(reference.Run({}, {}, {"init"}).ok());

  std::vector<std::string> fetches = {"Mean"};
  fetches.insert(fetches.end(), variables.begin(), variables.end());
  // One step from the same variables, float32 on the device against double sums rounded per op
  // on the reference (measured worst over the 100 steps in brackets): the loss within 1e-4
  // relative (1.0e-5); each weight and Adam's powers within 1e-4 of the variable's largest
  // magnitude (2.4e-5); Adam's moments, which hold the gradients, within 2e-2 of theirs
  // (8.6e-3, conv1's): a max pool's gradient goes to its window's largest input, and inputs
  // equal up to roundoff can route it to another pixel, a discontinuity no float32 bound covers.
  auto tolerance = [](const std::string& variable) {
    return absl::StrContains(variable, "/Adam") ? 2e-2 : 1e-4;
  };
  std::vector<double> losses;
  for (int step = 0; step < kSteps; ++step) {
    SCOPED_TRACE(absl::StrCat("step ", step + 1));
    // The device's variables := the reference's.
    absl::StatusOr<std::vector<Tensor>> state = reference.Run({}, variables);
    ASSERT_TRUE(state.ok()) << state.status();
    std::vector<Feed> sync;
    std::vector<std::string> assigns;
    for (size_t k = 0; k < variables.size(); ++k) {
      sync.push_back({{"sync/" + variables[k], 0}, (*state)[k]});
      assigns.push_back("sync/" + variables[k] + "/Assign");
    }
    ASSERT_TRUE((*device)->Run(sync, {}, assigns).ok());

    const std::vector<Feed> feeds = batch_feeds(step);
    absl::StatusOr<std::vector<Tensor>> want =
        reference.Run(feeds, {"Mean"}, {"adam_optimizer/Adam"});
    ASSERT_TRUE(want.ok()) << want.status();
    absl::StatusOr<std::vector<Tensor>> got =
        (*device)->Run(feeds, {"Mean"}, {"adam_optimizer/Adam"});
    ASSERT_TRUE(got.ok()) << got.status();
    const Comparison loss = CompareTensors((*got)[0], (*want)[0], {.rtol = 1e-4, .atol = 0});
    EXPECT_TRUE(loss.equal) << loss.reason;
    losses.push_back(Values<float>((*want)[0])[0]);

    absl::StatusOr<std::vector<Tensor>> got_vars = (*device)->Run({}, variables);
    ASSERT_TRUE(got_vars.ok()) << got_vars.status();
    absl::StatusOr<std::vector<Tensor>> want_vars = reference.Run({}, variables);
    ASSERT_TRUE(want_vars.ok()) << want_vars.status();
    for (size_t k = 0; k < variables.size(); ++k) {
      const double atol = tolerance(variables[k]) * LargestFiniteMagnitude((*want_vars)[k]);
      const Comparison c =
          CompareTensors((*got_vars)[k], (*want_vars)[k], {.rtol = 0, .atol = atol});
      EXPECT_TRUE(c.equal) << variables[k] << ": " << c.reason;
    }
  }
  const int pass = kImages / kBatch;
  double first = 0, last = 0;
  for (int k = 0; k < pass; ++k) {
    first += losses[k];
    last += losses[kSteps - pass + k];
  }
  EXPECT_LT(last, 0.5 * first) << "first pass " << first / pass << ", last " << last / pass;
}

// xor_mlp_train.pb (TensorFlow.NET's XOR example: 8 Relu units, a Sigmoid output, squared
// loss, gradient descent at 0.2) learns XOR on the device: after 200 steps every output is on
// its side of 0.5, and equal to the reference's. Its layers have no biases, so input (0, 0)
// gives exactly sigmoid(0) = 0.5 whatever the weights: the bits are fed as -1 and 1, for which
// the same network can separate the classes.
TEST(ZooTrainingTest, XorMlpLearnsXor) {
  if (!cl::SelectDevice("cpu").ok()) GTEST_SKIP() << "no OpenCL CPU device";
  absl::StatusOr<Graph> loaded = LoadGraph(testing::SharedDir() + "/zoo/xor_mlp_train.pb");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto graph = std::make_shared<const Graph>(*std::move(loaded));
  const std::vector<int32_t> labels = {0, 1, 1, 0};
  auto feeds = [&](float zero) {
    return std::vector<Feed>{
        {{"Placeholder", 0}, testing::TN<float>({zero, zero, zero, 1, 1, zero, 1, 1}, {4, 2})},
        {{"Placeholder_1", 0}, testing::TN<int32_t>(labels, {4})}};
  };
  absl::StatusOr<std::unique_ptr<DeviceSession>> device =
      DeviceSession::Create(graph, {.device = "cpu"});
  ASSERT_TRUE(device.ok()) << device.status();
  reference::Session reference(graph);
  ASSERT_TRUE((*device)->Run({}, {}, {"init"}).ok());
  ASSERT_TRUE(reference.Run({}, {}, {"init"}).ok());

  // The (0, 0) row is sigmoid(0) before and after training.
  absl::StatusOr<std::vector<Tensor>> zeros = (*device)->Run(feeds(0), {"Sigmoid"});
  ASSERT_TRUE(zeros.ok()) << zeros.status();
  EXPECT_EQ(Values<float>((*zeros)[0])[0], 0.5f);

  std::vector<Tensor> got, want;
  for (int step = 0; step < 200; ++step) {
    absl::StatusOr<std::vector<Tensor>> g = (*device)->Run(feeds(-1), {"Sigmoid"}, {"train_op"});
    ASSERT_TRUE(g.ok()) << g.status();
    absl::StatusOr<std::vector<Tensor>> w = reference.Run(feeds(-1), {"Sigmoid"}, {"train_op"});
    ASSERT_TRUE(w.ok()) << w.status();
    got = *std::move(g);
    want = *std::move(w);
  }
  // Gradient descent is smooth in the weights, so roundoff does not grow much over the steps:
  // 200 steps of float32 against double rounded per op measured 6.7e-8 apart (7e-7 relative);
  // 1e-5 keeps ten times that and fails a lost step: the outputs move ~7.5e-5 a step (0.086 at
  // step 200 to 0.026 at step 1000, measured), 8e-4 relative.
  const Comparison c = CompareTensors(got[0], want[0], {.rtol = 1e-5, .atol = 0});
  EXPECT_TRUE(c.equal) << c.reason;
  const std::vector<float> outputs = Values<float>(got[0]);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(outputs[k] > 0.5f, labels[k] == 1) << "input " << k << ": " << outputs[k];
  }
}

}  // namespace
}  // namespace dfc
