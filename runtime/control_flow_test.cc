// Control flow through the three executors: a TF1 while loop (functionalized into a While
// node when it loads) and a TF1 cond's dead branches, on the reference, the IR interpreter and
// the device; malformed frames, a loop that never ends and a failed Assert as errors.
#include "runtime/control_flow.h"

#include <cmath>
#include <memory>
#include <set>
#include <string>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "runtime/device_session.h"
#include "runtime/interpreted.h"
#include "runtime/kernel_timer.h"
#include "runtime/opencl/device.h"
#include "runtime/reference/session.h"
#include "runtime/translate_for_feeds.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::dfc::testing::Values;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kInt[] = R"(attr { key: "T" value { type: DT_INT32 } })";

// i = 0; while (i < limit) i = i * 2 + 1, as tf.while_loop writes it: Enter, Merge, Switch on
// LoopCond, Identity, NextIteration, Exit.
std::string WhileGraph() {
  return absl::StrReplaceAll(R"gd(
node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "limit" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "shape" value { shape {} } } }
node { name: "while/Enter" op: "Enter" input: "zero" $T
  attr { key: "frame_name" value { s: "while/while_context" } } }
node { name: "while/Enter_1" op: "Enter" input: "limit" $T
  attr { key: "frame_name" value { s: "while/while_context" } }
  attr { key: "is_constant" value { b: true } } }
node { name: "while/Merge" op: "Merge" input: "while/Enter" input: "while/NextIteration" $T
  attr { key: "N" value { i: 2 } } }
node { name: "while/Less" op: "Less" input: "while/Merge" input: "while/Enter_1" $T }
node { name: "while/LoopCond" op: "LoopCond" input: "while/Less" }
node { name: "while/Switch" op: "Switch" input: "while/Merge" input: "while/LoopCond" $T }
node { name: "while/Identity" op: "Identity" input: "while/Switch:1" $T }
node { name: "while/one" op: "Const" input: "^while/Identity"
  attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
node { name: "while/two" op: "Const" input: "^while/Identity"
  attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 2 } } } }
node { name: "while/mul" op: "Mul" input: "while/Identity" input: "while/two" $T }
node { name: "while/add" op: "AddV2" input: "while/mul" input: "while/one" $T }
node { name: "while/NextIteration" op: "NextIteration" input: "while/add" $T }
node { name: "while/Exit" op: "Exit" input: "while/Switch" $T }
)gd",
                             {{"$T", kInt}});
}

absl::StatusOr<std::shared_ptr<const Graph>> Load(const std::string& text) {
  absl::StatusOr<Graph> graph = ParseGraph(text, "test.pbtxt");
  if (!graph.ok()) return graph.status();
  return std::make_shared<const Graph>(*std::move(graph));
}

TEST(ControlFlowTest, ATf1LoopBecomesAWhileNodeWithItsConditionAndBody) {
  absl::StatusOr<std::shared_ptr<const Graph>> graph = Load(WhileGraph());
  ASSERT_TRUE(graph.ok()) << graph.status();
  const Node* loop = (*graph)->FindNode("while/while_context");
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->op, "While");
  EXPECT_EQ((*graph)->FindNode("while/Merge"), nullptr);  // the frame is gone
  EXPECT_EQ((*graph)->FindNode("while/Exit")->op, "Identity");
  ASSERT_NE((*graph)->functions(), nullptr);
  const FunctionGraph& body = (*graph)->functions()->at("while/while_context/body");
  EXPECT_EQ(body.args.size(), 2u);  // the variable, then the invariant limit
  EXPECT_NE(body.graph->FindNode("while/mul"), nullptr);
}

TEST(ControlFlowTest, TheLoopRunsOnEveryExecutor) {
  absl::StatusOr<std::shared_ptr<const Graph>> graph = Load(WhileGraph());
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::vector<Feed> feeds = {{{"limit"}, Tensor::Scalar<int32_t>(100)}};
  // 0, 1, 3, 7, 15, 31, 63, 127.
  reference::Session reference(*graph);
  absl::StatusOr<std::vector<Tensor>> want = reference.Run(feeds, {"while/Exit"});
  ASSERT_TRUE(want.ok()) << want.status();
  EXPECT_EQ(Values<int32_t>((*want)[0]), std::vector<int32_t>{127});

  absl::StatusOr<ir::TranslatedGraph> translated =
      TranslateForFeeds(**graph, {{"while/Exit"}}, feeds);
  ASSERT_TRUE(translated.ok()) << translated.status();
  absl::StatusOr<std::vector<Tensor>> interpreted =
      RunInterpreted(**graph, *translated, feeds, {{"while/Exit"}});
  ASSERT_TRUE(interpreted.ok()) << interpreted.status();
  EXPECT_EQ(Values<int32_t>((*interpreted)[0]), std::vector<int32_t>{127});

  if (!cl::SelectDevice("cpu").ok()) GTEST_SKIP() << "no OpenCL CPU device";
  absl::StatusOr<std::unique_ptr<DeviceSession>> device =
      DeviceSession::Create(*graph, {.device = "cpu"});
  ASSERT_TRUE(device.ok()) << device.status();
  std::set<std::string> kernels;
  {
    KernelTimer timer;
    absl::StatusOr<std::vector<Tensor>> got = (*device)->Run(feeds, {"while/Exit"});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(Values<int32_t>((*got)[0]), std::vector<int32_t>{127});
    absl::StatusOr<profiler::Profile> profile = profiler::Collect();
    ASSERT_TRUE(profile.ok()) << profile.status();
    for (const profiler::DeviceEvent& e : profile->device) kernels.insert(e.info.name);
  }
  // The body and the condition are integer scalar arithmetic, which the host computes without
  // launching a kernel (TranslateOptions::host_integer_scalars).
  EXPECT_THAT(kernels, ::testing::Each(::testing::Not(::testing::StartsWith("dfc_while_"))));
}

TEST(ControlFlowTest, ALoopThatDoesNotEndStopsAtTheIterationLimit) {
  absl::StatusOr<std::shared_ptr<const Graph>> graph = Load(WhileGraph());
  ASSERT_TRUE(graph.ok()) << graph.status();
  reference::Session session(*graph, {.max_loop_iterations = 5});
  absl::StatusOr<std::vector<Tensor>> out =
      session.Run({{{"limit"}, Tensor::Scalar<int32_t>(1000)}}, {"while/Exit"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("while/while_context"));
  EXPECT_THAT(out.status().message(), HasSubstr("ran 5 iterations"));
}

TEST(ControlFlowTest, MalformedFramesAreErrorsNamingTheNode) {
  struct Case {
    std::string from, to, expected;
  };
  const std::vector<Case> cases = {
      {R"(name: "while/Exit" op: "Exit" input: "while/Switch")",
       R"(name: "while/Exit" op: "Exit" input: "zero")", "an Exit without its Enter"},
      {R"(node { name: "while/Exit")",
       R"(node { name: "stray" op: "Merge" input: "limit" input: "while/NextIteration" )" +
           std::string(kInt) + " }\nnode { name: \"while/Exit\"",
       "feeds node \"stray\" of another frame"},
      {R"(input: "while/Identity" input: "while/two")", R"(input: "while/Identity" input: "limit")",
       "without an Enter or Exit"},
      {R"(input: "while/Enter" input: "while/NextIteration")",
       R"(input: "while/Enter" input: "zero")", "must read its Enter and a NextIteration"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expected);
    const std::string text = WhileGraph();
    ASSERT_NE(text.find(c.from), std::string::npos);
    absl::StatusOr<std::shared_ptr<const Graph>> graph =
        Load(absl::StrReplaceAll(text, {{c.from, c.to}}));
    ASSERT_FALSE(graph.ok());
    EXPECT_THAT(graph.status().message(), HasSubstr(c.expected));
  }
}

// acc = 0; for i < limit: acc += stitch(exp(x)): exp(x) reads only the invariant x, and
// only a host op (DynamicStitch) reads it, so it is a cluster of its own.
std::string InvariantLoopGraph() {
  return absl::StrReplaceAll(R"gd(
node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "acc0" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } } float_val: 0 } } } }
node { name: "limit" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "shape" value { shape {} } } }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 3 } } } } }
node { name: "w/Enter_i" op: "Enter" input: "zero" $T $F }
node { name: "w/Enter_acc" op: "Enter" input: "acc0" $FLOAT $F }
node { name: "w/Enter_limit" op: "Enter" input: "limit" $T $F $C }
node { name: "w/Enter_x" op: "Enter" input: "x" $FLOAT $F $C }
node { name: "w/Merge_i" op: "Merge" input: "w/Enter_i" input: "w/Next_i" $T $N }
node { name: "w/Merge_acc" op: "Merge" input: "w/Enter_acc" input: "w/Next_acc" $FLOAT $N }
node { name: "w/Less" op: "Less" input: "w/Merge_i" input: "w/Enter_limit" $T }
node { name: "w/LoopCond" op: "LoopCond" input: "w/Less" }
node { name: "w/Switch_i" op: "Switch" input: "w/Merge_i" input: "w/LoopCond" $T }
node { name: "w/Switch_acc" op: "Switch" input: "w/Merge_acc" input: "w/LoopCond" $FLOAT }
node { name: "w/i" op: "Identity" input: "w/Switch_i:1" $T }
node { name: "w/acc" op: "Identity" input: "w/Switch_acc:1" $FLOAT }
node { name: "w/one" op: "Const" input: "^w/i" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
node { name: "w/indices" op: "Const" input: "^w/i" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 3 } } int_val: 0 int_val: 1 int_val: 2 } } } }
node { name: "w/exp" op: "Exp" input: "w/Enter_x" $FLOAT }
node { name: "w/stitched" op: "DynamicStitch" input: "w/indices" input: "w/exp" $FLOAT
  attr { key: "N" value { i: 1 } } }
node { name: "w/next_i" op: "AddV2" input: "w/i" input: "w/one" $T }
node { name: "w/next_acc" op: "AddV2" input: "w/acc" input: "w/stitched" $FLOAT }
node { name: "w/Next_i" op: "NextIteration" input: "w/next_i" $T }
node { name: "w/Next_acc" op: "NextIteration" input: "w/next_acc" $FLOAT }
node { name: "w/Exit_acc" op: "Exit" input: "w/Switch_acc" $FLOAT }
)gd",
                             {{"$T", kInt},
                              {"$FLOAT", R"(attr { key: "T" value { type: DT_FLOAT } })"},
                              {"$F", R"(attr { key: "frame_name" value { s: "w/ctx" } })"},
                              {"$C", R"(attr { key: "is_constant" value { b: true } })"},
                              {"$N", R"(attr { key: "N" value { i: 2 } })"}});
}

// InvariantLoopGraph with acc = concat(acc, stitch(exp(x))): 3 more elements an iteration.
std::string GrowingLoopGraph() {
  return absl::StrReplaceAll(
      InvariantLoopGraph(),
      {{R"(name: "w/next_acc" op: "AddV2" input: "w/acc" input: "w/stitched")",
        R"(name: "w/axis" op: "Const" input: "^w/i" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "w/next_acc" op: "ConcatV2" input: "w/acc" input: "w/stitched" input: "w/axis"
  attr { key: "N" value { i: 2 } } attr { key: "Tidx" value { type: DT_INT32 } })"}});
}

TEST(ControlFlowTest, TheDeviceComputesALoopInvariantOnce) {
  if (!cl::SelectDevice("cpu").ok()) GTEST_SKIP() << "no OpenCL CPU device";
  absl::StatusOr<std::shared_ptr<const Graph>> graph = Load(InvariantLoopGraph());
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<std::unique_ptr<DeviceSession>> device =
      DeviceSession::Create(*graph, {.device = "cpu"});
  ASSERT_TRUE(device.ok()) << device.status();
  const Tensor x = Tensor::FromVector<float>({0, 1, 2}, {3});
  auto kernels_for = [&](int32_t limit) -> int64_t {
    const int64_t before = (*device)->executor().kernels_run();
    absl::StatusOr<std::vector<Tensor>> got =
        (*device)->Run({{{"limit"}, Tensor::Scalar<int32_t>(limit)}, {{"x"}, x}}, {"w/Exit_acc"});
    EXPECT_TRUE(got.ok()) << got.status();
    if (got.ok()) {
      for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR(Values<float>((*got)[0])[k], limit * std::exp(static_cast<float>(k)), 1e-4);
      }
    }
    return (*device)->executor().kernels_run() - before;
  };
  std::set<std::string> kernels;
  const int64_t three = kernels_for(3);
  int64_t six = 0;
  {
    KernelTimer timer;
    six = kernels_for(6);
    absl::StatusOr<profiler::Profile> profile = profiler::Collect();
    ASSERT_TRUE(profile.ok()) << profile.status();
    for (const profiler::DeviceEvent& e : profile->device) kernels.insert(e.info.name);
  }
  // Each further iteration runs one kernel, the body's accumulation: exp's cluster runs once a
  // run (each iteration without the hoisting), and the condition and the counter are integer
  // scalar arithmetic, which the host computes. The body's kernels are named by its function,
  // whose clusters are numbered from 0 as the top graph's are.
  EXPECT_EQ(six - three, 3 * 1);
  EXPECT_THAT(kernels, ::testing::Contains(::testing::StartsWith("dfc_w_ctx_body_cluster_")));
}

TEST(ControlFlowTest, ALoopVariableKeepsItsShapeWhereTheBodyKeepsIt) {
  absl::StatusOr<std::shared_ptr<const Graph>> graph = Load(InvariantLoopGraph());
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::vector<Feed> feeds = {{{"limit"}, Tensor::Scalar<int32_t>(2)},
                                   {{"x"}, Tensor::FromVector<float>({0, 1, 2}, {3})}};
  absl::StatusOr<ir::TranslatedGraph> translated =
      TranslateForFeeds(**graph, {{"w/Exit_acc"}}, feeds);
  ASSERT_TRUE(translated.ok()) << translated.status();
  const TensorInfo& acc = translated->fold.Info(**graph, {"w/Exit_acc", 0});
  EXPECT_EQ(acc.ToString(), "float32[3]");

  // A body that lengthens the accumulator each iteration leaves its shape unknown.
  absl::StatusOr<std::shared_ptr<const Graph>> growing = Load(GrowingLoopGraph());
  ASSERT_TRUE(growing.ok()) << growing.status();
  absl::StatusOr<ir::TranslatedGraph> unknown =
      TranslateForFeeds(**growing, {{"w/Exit_acc"}}, feeds);
  ASSERT_TRUE(unknown.ok()) << unknown.status();
  EXPECT_FALSE(unknown->fold.Info(**growing, {"w/Exit_acc", 0}).shape.has_value());
}

TEST(ControlFlowTest, ALoopVariableThatGrowsIsTranslatedForEachShapeOnTheDevice) {
  if (!cl::SelectDevice("cpu").ok()) GTEST_SKIP() << "no OpenCL CPU device";
  absl::StatusOr<std::shared_ptr<const Graph>> graph = Load(GrowingLoopGraph());
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::vector<Feed> feeds = {{{"limit"}, Tensor::Scalar<int32_t>(4)},
                                   {{"x"}, Tensor::FromVector<float>({0, 1, 2}, {3})}};
  reference::Session reference(*graph);
  absl::StatusOr<std::vector<Tensor>> want = reference.Run(feeds, {"w/Exit_acc"});
  ASSERT_TRUE(want.ok()) << want.status();
  absl::StatusOr<std::unique_ptr<DeviceSession>> device =
      DeviceSession::Create(*graph, {.device = "cpu"});
  ASSERT_TRUE(device.ok()) << device.status();
  // Each iteration's condition and body see a new shape of acc: a call kept from the iteration
  // before must not be reused for it.
  for (int run = 0; run < 2; ++run) {
    absl::StatusOr<std::vector<Tensor>> got = (*device)->Run(feeds, {"w/Exit_acc"});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ((*got)[0].shape(), (Shape{15}));
    EXPECT_EQ(Values<float>((*got)[0]), Values<float>((*want)[0]));
  }
}

// h = x; for i < limit: h = h * 2 + 1 + xs²[i], xs² scattered into a TensorArray and each h
// written to another; then element 1 read back: on the device the elements stay in device
// buffers.
std::string ArrayWritingLoopGraph() {
  return absl::StrReplaceAll(R"gd(
node { name: "zero" op: "Const" $DINT attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "one" op: "Const" $DINT attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
node { name: "limit" op: "Placeholder" $DINT attr { key: "shape" value { shape {} } } }
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 3 } } } } }
node { name: "ta" op: "TensorArrayV3" input: "limit" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "element_shape" value { shape { dim { size: 3 } } } } }
node { name: "xs" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 6 } dim { size: 3 } } } } }
node { name: "squares" op: "Mul" input: "xs" input: "xs" $FLOAT }
node { name: "six" op: "Const" $DINT attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 6 } } } }
node { name: "rows" op: "Const" $DINT attr { key: "value" value { tensor { dtype: DT_INT32
  tensor_shape { dim { size: 6 } } int_val: 0 int_val: 1 int_val: 2 int_val: 3 int_val: 4 int_val: 5 } } } }
node { name: "in_ta" op: "TensorArrayV3" input: "six" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "element_shape" value { shape { dim { size: 3 } } } } }
node { name: "in_scatter" op: "TensorArrayScatterV3" input: "in_ta" input: "rows" input: "squares" input: "in_ta:1" $FLOAT }
node { name: "w/Enter_in" op: "Enter" input: "in_ta" attr { key: "T" value { type: DT_RESOURCE } } $F $C }
node { name: "w/Enter_in_flow" op: "Enter" input: "in_scatter" $FLOAT $F $C }
node { name: "w/Enter_i" op: "Enter" input: "zero" $I $F }
node { name: "w/Enter_h" op: "Enter" input: "x" $FLOAT $F }
node { name: "w/Enter_flow" op: "Enter" input: "ta:1" $FLOAT $F }
node { name: "w/Enter_limit" op: "Enter" input: "limit" $I $F $C }
node { name: "w/Enter_ta" op: "Enter" input: "ta" attr { key: "T" value { type: DT_RESOURCE } } $F $C }
node { name: "w/Merge_i" op: "Merge" input: "w/Enter_i" input: "w/Next_i" $I $N }
node { name: "w/Merge_h" op: "Merge" input: "w/Enter_h" input: "w/Next_h" $FLOAT $N }
node { name: "w/Merge_flow" op: "Merge" input: "w/Enter_flow" input: "w/Next_flow" $FLOAT $N }
node { name: "w/Less" op: "Less" input: "w/Merge_i" input: "w/Enter_limit" $I }
node { name: "w/LoopCond" op: "LoopCond" input: "w/Less" }
node { name: "w/Switch_i" op: "Switch" input: "w/Merge_i" input: "w/LoopCond" $I }
node { name: "w/Switch_h" op: "Switch" input: "w/Merge_h" input: "w/LoopCond" $FLOAT }
node { name: "w/Switch_flow" op: "Switch" input: "w/Merge_flow" input: "w/LoopCond" $FLOAT }
node { name: "w/i" op: "Identity" input: "w/Switch_i:1" $I }
node { name: "w/h" op: "Identity" input: "w/Switch_h:1" $FLOAT }
node { name: "w/flow" op: "Identity" input: "w/Switch_flow:1" $FLOAT }
node { name: "w/two" op: "Const" input: "^w/i" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
node { name: "w/fone" op: "Const" input: "^w/i" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
node { name: "w/ione" op: "Const" input: "^w/i" $DINT attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
node { name: "w/mul" op: "Mul" input: "w/h" input: "w/two" $FLOAT }
node { name: "w/x" op: "TensorArrayReadV3" input: "w/Enter_in" input: "w/i" input: "w/Enter_in_flow"
  attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "w/h1a" op: "AddV2" input: "w/mul" input: "w/fone" $FLOAT }
node { name: "w/h1" op: "AddV2" input: "w/h1a" input: "w/x" $FLOAT }
node { name: "w/write" op: "TensorArrayWriteV3" input: "w/Enter_ta" input: "w/i" input: "w/h1" input: "w/flow" $FLOAT }
node { name: "w/i1" op: "AddV2" input: "w/i" input: "w/ione" $I }
node { name: "w/Next_i" op: "NextIteration" input: "w/i1" $I }
node { name: "w/Next_h" op: "NextIteration" input: "w/h1" $FLOAT }
node { name: "w/Next_flow" op: "NextIteration" input: "w/write" $FLOAT }
node { name: "w/Exit_flow" op: "Exit" input: "w/Switch_flow" $FLOAT }
node { name: "second" op: "TensorArrayReadV3" input: "ta" input: "one" input: "w/Exit_flow"
  attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "all" op: "TensorArrayGatherV3" input: "ta" input: "w/indices" input: "w/Exit_flow"
  attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "element_shape" value { shape { dim { size: 3 } } } } }
node { name: "w/indices" op: "Range" input: "zero" input: "limit" input: "one" attr { key: "Tidx" value { type: DT_INT32 } } }
)gd",
                             {{"$DINT", R"(attr { key: "dtype" value { type: DT_INT32 } })"},
                              {"$I", kInt},
                              {"$FLOAT", R"(attr { key: "T" value { type: DT_FLOAT } })"},
                              {"$F", R"(attr { key: "frame_name" value { s: "w/ctx" } })"},
                              {"$C", R"(attr { key: "is_constant" value { b: true } })"},
                              {"$N", R"(attr { key: "N" value { i: 2 } })"}});
}

TEST(ControlFlowTest, ALoopsTensorArraysStayOnTheDevice) {
  if (!cl::SelectDevice("cpu").ok()) GTEST_SKIP() << "no OpenCL CPU device";
  absl::StatusOr<std::shared_ptr<const Graph>> graph = Load(ArrayWritingLoopGraph());
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<std::unique_ptr<DeviceSession>> device =
      DeviceSession::Create(*graph, {.device = "cpu"});
  ASSERT_TRUE(device.ok()) << device.status();
  const Tensor x = Tensor::FromVector<float>({0, 1, -1}, {3});
  std::vector<float> xs(18);
  for (int k = 0; k < 18; ++k) xs[k] = 0.5f * static_cast<float>(k % 7) - 1;
  const auto feeds = [&](int32_t limit) -> std::vector<Feed> {
    return {{{"limit"}, Tensor::Scalar<int32_t>(limit)},
            {{"x"}, x},
            {{"xs"}, Tensor::FromVector<float>(xs, {6, 3})}};
  };
  // Element 1 is h after two iterations; all of them come back whole too.
  std::vector<float> second(3);
  for (int c = 0; c < 3; ++c) {
    float h = Values<float>(x)[c];
    for (int i = 0; i < 2; ++i) h = h * 2 + 1 + xs[3 * i + c] * xs[3 * i + c];
    second[c] = h;
  }
  reference::Session reference(*graph);
  absl::StatusOr<std::vector<Tensor>> want = reference.Run(feeds(5), {"second", "all"});
  ASSERT_TRUE(want.ok()) << want.status();
  EXPECT_EQ(Values<float>((*want)[0]), second);
  absl::StatusOr<std::vector<Tensor>> got = (*device)->Run(feeds(5), {"second", "all"});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(Values<float>((*got)[0]), Values<float>((*want)[0]));
  EXPECT_EQ(Values<float>((*got)[1]), Values<float>((*want)[1]));

  // Bytes to the host and to the device in a run of `limit` iterations.
  const auto copied = [&](int32_t limit) -> std::pair<int64_t, int64_t> {
    const DeviceExecutor& ex = (*device)->executor();
    const int64_t to_host = ex.bytes_to_host(), to_device = ex.bytes_to_device();
    EXPECT_TRUE((*device)->Run(feeds(limit), {"second"}).ok());
    return {ex.bytes_to_host() - to_host, ex.bytes_to_device() - to_device};
  };
  const auto [three_to_host, three_to_device] = copied(3);
  const auto [six_to_host, six_to_device] = copied(6);
  // An iteration copies nothing either way: the element read was scattered into a device
  // buffer of its own, the element written stays in its device buffer, and the condition and
  // the index are integer scalars the host computes.
  EXPECT_EQ(six_to_host - three_to_host, 0);
  EXPECT_EQ(six_to_device - three_to_device, 0);
}

// ArrayWritingLoopGraph over elements of one: each iteration's kernel computes one row, which no
// second unit of the device could share, so after the first iteration the loop runs on the
// inline device (where there is one), with the same kernels and the same values as a session
// kept on the device and as the reference.
TEST(ControlFlowTest, ALoopOfOneRowKernelsRunsOnTheInlineDevice) {
  if (!cl::SelectDevice("cpu").ok()) GTEST_SKIP() << "no OpenCL CPU device";
  absl::StatusOr<std::shared_ptr<const Graph>> graph =
      Load(absl::StrReplaceAll(ArrayWritingLoopGraph(), {{"dim { size: 3 }", "dim { size: 1 }"}}));
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::vector<Feed> feeds = {
      {{"limit"}, Tensor::Scalar<int32_t>(5)},
      {{"x"}, Tensor::FromVector<float>({0.5f}, {1})},
      {{"xs"}, Tensor::FromVector<float>({1, -1, 0.5f, 2, 0, -0.5f}, {6, 1})}};
  reference::Session reference(*graph);
  absl::StatusOr<std::vector<Tensor>> want = reference.Run(feeds, {"second", "all"});
  ASSERT_TRUE(want.ok()) << want.status();
  for (const RunPlacement placement : {RunPlacement::kMeasured, RunPlacement::kDevice}) {
    absl::StatusOr<std::unique_ptr<DeviceSession>> device =
        DeviceSession::Create(*graph, {.device = "cpu", .executor = {.placement = placement}});
    ASSERT_TRUE(device.ok()) << device.status();
    absl::StatusOr<std::vector<Tensor>> got = (*device)->Run(feeds, {"second", "all"});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(Values<float>((*got)[0]), Values<float>((*want)[0]));
    EXPECT_EQ(Values<float>((*got)[1]), Values<float>((*want)[1]));
    const DeviceExecutor& ex = (*device)->executor();
    const bool goes_inline =
        placement == RunPlacement::kMeasured && ex.context()->has_inline_device();
    EXPECT_EQ(ex.inline_loops(), goes_inline ? 1 : 0);
    EXPECT_EQ(ex.inline_runs(), 0);
  }
}

// ArrayWritingLoopGraph with its array made of six elements, all gathered after the loop (so
// the gather's shape is known when compiling) and negated.
std::string GatheringLoopGraph() {
  return absl::StrReplaceAll(
             ArrayWritingLoopGraph(),
             {{R"(name: "ta" op: "TensorArrayV3" input: "limit")",
               R"(name: "ta" op: "TensorArrayV3" input: "six")"},
              {R"(name: "w/indices" op: "Range" input: "zero" input: "limit")",
               R"(name: "size" op: "TensorArraySizeV3" input: "ta" input: "w/Exit_flow" }
node { name: "w/indices" op: "Range" input: "zero" input: "size")"}}) +
         R"(node { name: "neg_all" op: "Neg" input: "all" attr { key: "T" value { type: DT_FLOAT } } }
)";
}

// A gather of the elements the loop wrote, all in device buffers, is copied together on the
// device, where the kernel that reads it finds it; the array's size is read off it. A run
// copies its feeds to the device and its result back, and no element either way.
TEST(ControlFlowTest, AGatherOfDeviceElementsStaysOnTheDevice) {
  if (!cl::SelectDevice("cpu").ok()) GTEST_SKIP() << "no OpenCL CPU device";
  absl::StatusOr<std::shared_ptr<const Graph>> graph = Load(GatheringLoopGraph());
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<std::unique_ptr<DeviceSession>> device =
      DeviceSession::Create(*graph, {.device = "cpu"});
  ASSERT_TRUE(device.ok()) << device.status();
  std::vector<float> xs(18);
  for (int k = 0; k < 18; ++k) xs[k] = 0.25f * static_cast<float>(k % 5);
  const std::vector<Feed> feeds = {{{"limit"}, Tensor::Scalar<int32_t>(6)},
                                   {{"x"}, Tensor::FromVector<float>({1, 0, -1}, {3})},
                                   {{"xs"}, Tensor::FromVector<float>(xs, {6, 3})}};
  reference::Session reference(*graph);
  absl::StatusOr<std::vector<Tensor>> want = reference.Run(feeds, {"neg_all"});
  ASSERT_TRUE(want.ok()) << want.status();
  const DeviceExecutor& ex = (*device)->executor();
  absl::StatusOr<std::vector<Tensor>> got = (*device)->Run(feeds, {"neg_all"});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0].shape(), (Shape{6, 3}));
  EXPECT_EQ(Values<float>((*got)[0]), Values<float>((*want)[0]));
  EXPECT_EQ(ex.bytes_to_device(), (3 + 6 * 3) * 4);  // x and xs
  // neg_all alone: no element, and the gather's six indices are a Range of constants, folded.
  EXPECT_EQ(ex.bytes_to_host(), 6 * 3 * 4);
}

// After the loop of GatheringLoopGraph, the array it wrote has the size it was made with and the
// shape it declares: its size folds, and the Range up to it and the gather have known shapes.
TEST(ControlFlowTest, AnArrayLeavesItsLoopWithItsSizeAndElementShape) {
  absl::StatusOr<std::shared_ptr<const Graph>> graph = Load(GatheringLoopGraph());
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::vector<Feed> feeds = {{{"limit"}, Tensor::Scalar<int32_t>(6)},
                                   {{"x"}, Tensor::FromVector<float>({0, 1, 2}, {3})},
                                   {{"xs"}, Tensor::Zeros(DType::kFloat, {6, 3})}};
  absl::StatusOr<ir::TranslatedGraph> translated =
      TranslateForFeeds(**graph, {{"all"}, {"second"}}, feeds);
  ASSERT_TRUE(translated.ok()) << translated.status();
  const auto info = [&](absl::string_view name) {
    return translated->fold.Info(**graph, {std::string(name), 0}).ToString();
  };
  EXPECT_EQ(info("size"), "int32[] = 6");
  EXPECT_EQ(info("w/indices"), "int32[6]");
  EXPECT_EQ(info("all"), "float32[6,3]");
  EXPECT_EQ(info("second"), "float32[3]");
}

// y = pred ? x * 2 : x + 10, as tf.cond writes it: a Switch, both branches, a Merge.
constexpr char kCondGraph[] = R"gd(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 3 } } } } }
node { name: "pred" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } }
  attr { key: "shape" value { shape {} } } }
node { name: "cond/Switch" op: "Switch" input: "x" input: "pred"
  attr { key: "T" value { type: DT_FLOAT } } }
node { name: "cond/two" op: "Const" input: "^cond/Switch"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
node { name: "cond/ten" op: "Const" input: "^cond/Switch"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 10 } } } }
node { name: "cond/true" op: "Mul" input: "cond/Switch:1" input: "cond/two"
  attr { key: "T" value { type: DT_FLOAT } } }
node { name: "cond/false" op: "AddV2" input: "cond/Switch" input: "cond/ten"
  attr { key: "T" value { type: DT_FLOAT } } }
node { name: "cond/Merge" op: "Merge" input: "cond/false" input: "cond/true"
  attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
node { name: "y" op: "Neg" input: "cond/Merge" attr { key: "T" value { type: DT_FLOAT } } }
)gd";

TEST(ControlFlowTest, ACondRunsOneBranchOnEveryExecutor) {
  absl::StatusOr<std::shared_ptr<const Graph>> graph = Load(kCondGraph);
  ASSERT_TRUE(graph.ok()) << graph.status();
  const Tensor x = Tensor::FromVector<float>({1, 2, 3}, {3});
  for (bool pred : {true, false}) {
    SCOPED_TRACE(pred);
    const std::vector<Feed> feeds = {{{"x"}, x}, {{"pred"}, Tensor::Scalar<bool>(pred)}};
    const std::vector<float> expected =
        pred ? std::vector<float>{-2, -4, -6} : std::vector<float>{-11, -12, -13};
    reference::Session reference(*graph);
    absl::StatusOr<std::vector<Tensor>> want = reference.Run(feeds, {"y", "cond/Merge:1"});
    ASSERT_TRUE(want.ok()) << want.status();
    EXPECT_EQ(Values<float>((*want)[0]), expected);
    EXPECT_EQ(Values<int32_t>((*want)[1]), std::vector<int32_t>{pred ? 1 : 0});
    // The branch not taken has no value.
    absl::StatusOr<std::vector<Tensor>> dead =
        reference.Run(feeds, {pred ? "cond/false" : "cond/true"});
    ASSERT_FALSE(dead.ok());
    EXPECT_THAT(dead.status().message(), HasSubstr("branch not taken"));

    // Each branch is a cluster of its own; the one not taken is skipped.
    absl::StatusOr<ir::TranslatedGraph> translated = TranslateForFeeds(**graph, {{"y"}}, feeds);
    ASSERT_TRUE(translated.ok()) << translated.status();
    EXPECT_THAT(translated->host_device_nodes, IsEmpty());
    const auto cluster_of = [&](absl::string_view name) {
      return translated->partition.cluster_of[(*graph)->IndexOf(name)];
    };
    EXPECT_GE(cluster_of("cond/true"), 0);
    EXPECT_GE(cluster_of("cond/false"), 0);
    EXPECT_NE(cluster_of("cond/true"), cluster_of("cond/false"));
    absl::StatusOr<std::vector<Tensor>> interpreted =
        RunInterpreted(**graph, *translated, feeds, {{"y"}});
    ASSERT_TRUE(interpreted.ok()) << interpreted.status();
    EXPECT_EQ(Values<float>((*interpreted)[0]), expected);

    if (!cl::SelectDevice("cpu").ok()) continue;
    absl::StatusOr<std::unique_ptr<DeviceSession>> device =
        DeviceSession::Create(*graph, {.device = "cpu"});
    ASSERT_TRUE(device.ok()) << device.status();
    absl::StatusOr<std::vector<Tensor>> got = (*device)->Run(feeds, {"y"});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(Values<float>((*got)[0]), expected);
    EXPECT_EQ((*device)->executor().kernels_run(), 2);  // the branch taken, then Neg
  }
}

TEST(ControlFlowTest, AFailedAssertionIsAnErrorWithItsMessage) {
  absl::StatusOr<std::shared_ptr<const Graph>> graph = Load(R"gd(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0 } } } }
node { name: "positive" op: "Greater" input: "x" input: "zero"
  attr { key: "T" value { type: DT_FLOAT } } }
node { name: "message" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
  attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {} string_val: "x must be positive:" } } } }
node { name: "check" op: "Assert" input: "positive" input: "message" input: "x"
  attr { key: "T" value { list { type: DT_STRING type: DT_FLOAT } } }
  attr { key: "summarize" value { i: 3 } } }
node { name: "y" op: "Identity" input: "x" input: "^check" attr { key: "T" value { type: DT_FLOAT } } }
)gd");
  ASSERT_TRUE(graph.ok()) << graph.status();
  reference::Session session(*graph);
  ASSERT_TRUE(session.Run({{{"x"}, Tensor::Scalar<float>(2)}}, {"y"}).ok());
  absl::StatusOr<std::vector<Tensor>> out =
      session.Run({{{"x"}, Tensor::Scalar<float>(-3)}}, {"y"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("\"check\" (Assert): assertion failed: x must be "
                                                "positive: -3"));
}

// A TF1 loop and its gradient, as tf.gradients writes them for a TensorArray read in a loop:
// forward, h[k+1] = w * h[k] + x[k] + x[0] for k < 4, each h[k+1] written to a TensorArray and
// each k pushed onto a stack; backward, a loop that pops k, reads the gradient of h[k+1] from
// the output array's gradient, writes x[k]'s and x[0]'s to the input array's gradient (two
// writes to element 0 each iteration, which add up) and carries the flows as float tokens.
std::string GradientLoopGraph() {
  return absl::StrReplaceAll(
      R"gd(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 4 } dim { size: 2 } } } } }
node { name: "w" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "n" op: "Const" $DINT attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 4 } } } }
node { name: "zero" op: "Const" $DINT attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "unbounded" op: "Const" $DINT attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: -1 } } } }
node { name: "indices" op: "Const" $DINT attr { key: "value" value { tensor { dtype: DT_INT32
  tensor_shape { dim { size: 4 } } int_val: 0 int_val: 1 int_val: 2 int_val: 3 } } } }
node { name: "h0" op: "Const" $DFLOAT attr { key: "value" value { tensor { dtype: DT_FLOAT
  tensor_shape { dim { size: 2 } } float_val: 0 } } } }
node { name: "b_acc" op: "Const" $DFLOAT attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0 } } } }
node { name: "in_ta" op: "TensorArrayV3" input: "n" $DFLOAT $ES }
node { name: "in_scatter" op: "TensorArrayScatterV3" input: "in_ta" input: "indices" input: "x" input: "in_ta:1" $F }
node { name: "out_ta" op: "TensorArrayV3" input: "n" $DFLOAT $ES }
node { name: "stack" op: "StackV2" input: "unbounded" attr { key: "elem_type" value { type: DT_INT32 } }
  attr { key: "stack_name" value { s: "k_history" } } }

node { name: "f/Enter_i" op: "Enter" input: "zero" $I $FF }
node { name: "f/Enter_h" op: "Enter" input: "h0" $F $FF }
node { name: "f/Enter_flow" op: "Enter" input: "out_ta:1" $F $FF }
node { name: "f/Enter_n" op: "Enter" input: "n" $I $FF $C }
node { name: "f/Enter_w" op: "Enter" input: "w" $F $FF $C }
node { name: "f/Enter_in" op: "Enter" input: "in_ta" $R $FF $C }
node { name: "f/Enter_in_flow" op: "Enter" input: "in_scatter" $F $FF $C }
node { name: "f/Enter_out" op: "Enter" input: "out_ta" $R $FF $C }
node { name: "f/Enter_stack" op: "Enter" input: "stack" $R $FF $C }
node { name: "f/Merge_i" op: "Merge" input: "f/Enter_i" input: "f/Next_i" $I $N }
node { name: "f/Merge_h" op: "Merge" input: "f/Enter_h" input: "f/Next_h" $F $N }
node { name: "f/Merge_flow" op: "Merge" input: "f/Enter_flow" input: "f/Next_flow" $F $N }
node { name: "f/Less" op: "Less" input: "f/Merge_i" input: "f/Enter_n" $I }
node { name: "f/LoopCond" op: "LoopCond" input: "f/Less" }
node { name: "f/Switch_i" op: "Switch" input: "f/Merge_i" input: "f/LoopCond" $I }
node { name: "f/Switch_h" op: "Switch" input: "f/Merge_h" input: "f/LoopCond" $F }
node { name: "f/Switch_flow" op: "Switch" input: "f/Merge_flow" input: "f/LoopCond" $F }
node { name: "f/i" op: "Identity" input: "f/Switch_i:1" $I }
node { name: "f/h" op: "Identity" input: "f/Switch_h:1" $F }
node { name: "f/flow" op: "Identity" input: "f/Switch_flow:1" $F }
node { name: "f/push" op: "StackPushV2" input: "f/Enter_stack" input: "f/i" $I
  attr { key: "swap_memory" value { b: false } } }
node { name: "f/first" op: "Const" input: "^f/i" $DINT attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "f/x" op: "TensorArrayReadV3" input: "f/Enter_in" input: "f/i" input: "f/Enter_in_flow" $DFLOAT }
node { name: "f/x0" op: "TensorArrayReadV3" input: "f/Enter_in" input: "f/first" input: "f/Enter_in_flow" $DFLOAT }
node { name: "f/hw" op: "Mul" input: "f/h" input: "f/Enter_w" $F }
node { name: "f/hx" op: "AddV2" input: "f/hw" input: "f/x" $F }
node { name: "f/h1" op: "AddV2" input: "f/hx" input: "f/x0" $F }
node { name: "f/write" op: "TensorArrayWriteV3" input: "f/Enter_out" input: "f/i" input: "f/h1" input: "f/flow" $F }
node { name: "f/one" op: "Const" input: "^f/i" $DINT attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
node { name: "f/i1" op: "AddV2" input: "f/i" input: "f/one" input: "^f/push" $I }
node { name: "f/Next_i" op: "NextIteration" input: "f/i1" $I }
node { name: "f/Next_h" op: "NextIteration" input: "f/h1" $F }
node { name: "f/Next_flow" op: "NextIteration" input: "f/write" $F }
node { name: "f/Exit_i" op: "Exit" input: "f/Switch_i" $I }
node { name: "f/Exit_flow" op: "Exit" input: "f/Switch_flow" $F }
node { name: "y" op: "TensorArrayGatherV3" input: "out_ta" input: "indices" input: "f/Exit_flow" $DFLOAT $ES }

node { name: "gradients/dy" op: "Const" $DFLOAT attr { key: "value" value { tensor { dtype: DT_FLOAT
  tensor_shape { dim { size: 4 } dim { size: 2 } } float_val: 1 } } } }
node { name: "gradients/g_out" op: "TensorArrayGradV3" input: "out_ta" input: "f/Exit_flow" $S }
node { name: "gradients/g_out_flow" op: "Identity" input: "f/Exit_flow" input: "^gradients/g_out" $F }
node { name: "gradients/scatter" op: "TensorArrayScatterV3" input: "gradients/g_out" input: "indices"
  input: "gradients/dy" input: "gradients/g_out_flow" $F }

node { name: "b/Enter_j" op: "Enter" input: "f/Exit_i" $I $FB }
node { name: "b/Enter_dh" op: "Enter" input: "h0" $F $FB }
node { name: "b/Enter_dflow" op: "Enter" input: "gradients/scatter" $F $FB }
node { name: "b/Enter_acc" op: "Enter" input: "b_acc" $F $FB }
node { name: "b/Enter_w" op: "Enter" input: "w" $F $FB $C }
node { name: "b/Enter_in" op: "Enter" input: "in_ta" $R $FB $C }
node { name: "b/Enter_in_flow" op: "Enter" input: "in_scatter" $F $FB $C }
node { name: "b/Enter_out" op: "Enter" input: "out_ta" $R $FB $C }
node { name: "b/Enter_stack" op: "Enter" input: "stack" $R $FB $C }
node { name: "b/Merge_j" op: "Merge" input: "b/Enter_j" input: "b/Next_j" $I $N }
node { name: "b/Merge_dh" op: "Merge" input: "b/Enter_dh" input: "b/Next_dh" $F $N }
node { name: "b/Merge_dflow" op: "Merge" input: "b/Enter_dflow" input: "b/Next_dflow" $F $N }
node { name: "b/Merge_acc" op: "Merge" input: "b/Enter_acc" input: "b/Next_acc" $F $N }
node { name: "b/zero" op: "Const" input: "^b/Merge_j" $DINT attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "b/Greater" op: "Greater" input: "b/Merge_j" input: "b/zero" $I }
node { name: "b/LoopCond" op: "LoopCond" input: "b/Greater" }
node { name: "b/Switch_j" op: "Switch" input: "b/Merge_j" input: "b/LoopCond" $I }
node { name: "b/Switch_dh" op: "Switch" input: "b/Merge_dh" input: "b/LoopCond" $F }
node { name: "b/Switch_dflow" op: "Switch" input: "b/Merge_dflow" input: "b/LoopCond" $F }
node { name: "b/Switch_acc" op: "Switch" input: "b/Merge_acc" input: "b/LoopCond" $F }
node { name: "b/j" op: "Identity" input: "b/Switch_j:1" $I }
node { name: "b/dh" op: "Identity" input: "b/Switch_dh:1" $F }
node { name: "b/dflow" op: "Identity" input: "b/Switch_dflow:1" $F }
node { name: "b/acc" op: "Identity" input: "b/Switch_acc:1" $F }
node { name: "b/k" op: "StackPopV2" input: "b/Enter_stack" input: "^b/j" attr { key: "elem_type" value { type: DT_INT32 } } }
node { name: "b/g_out" op: "TensorArrayGradV3" input: "b/Enter_out" input: "b/dflow" $S }
node { name: "b/g_out_flow" op: "Identity" input: "b/dflow" input: "^b/g_out" $F }
node { name: "b/dh_write" op: "TensorArrayReadV3" input: "b/g_out" input: "b/k" input: "b/g_out_flow" $DFLOAT }
node { name: "b/dh_total" op: "AddV2" input: "b/dh" input: "b/dh_write" $F }
node { name: "b/g_in" op: "TensorArrayGradV3" input: "b/Enter_in" input: "b/Enter_in_flow" $S }
node { name: "b/g_in_flow" op: "Identity" input: "b/Enter_in_flow" input: "^b/g_in" $F }
node { name: "b/first" op: "Const" input: "^b/j" $DINT attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "b/write_k" op: "TensorArrayWriteV3" input: "b/g_in" input: "b/k" input: "b/dh_total" input: "b/g_in_flow" $F }
node { name: "b/write_0" op: "TensorArrayWriteV3" input: "b/g_in" input: "b/first" input: "b/dh_total" input: "b/g_in_flow" $F }
node { name: "b/acc1" op: "AddV2" input: "b/acc" input: "b/write_k" $F }
node { name: "b/acc2" op: "AddV2" input: "b/acc1" input: "b/write_0" $F }
node { name: "b/dh1" op: "Mul" input: "b/dh_total" input: "b/Enter_w" $F }
node { name: "b/one" op: "Const" input: "^b/j" $DINT attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
node { name: "b/j1" op: "Sub" input: "b/j" input: "b/one" $I }
node { name: "b/Next_j" op: "NextIteration" input: "b/j1" $I }
node { name: "b/Next_dh" op: "NextIteration" input: "b/dh1" $F }
node { name: "b/Next_dflow" op: "NextIteration" input: "b/dflow" $F }
node { name: "b/Next_acc" op: "NextIteration" input: "b/acc2" $F }
node { name: "b/Exit_acc" op: "Exit" input: "b/Switch_acc" $F }

node { name: "gradients/g_in" op: "TensorArrayGradV3" input: "in_ta" input: "b/Exit_acc" $S }
node { name: "gradients/g_in_flow" op: "Identity" input: "b/Exit_acc" input: "^gradients/g_in" $F }
node { name: "dx" op: "TensorArrayGatherV3" input: "gradients/g_in" input: "indices" input: "gradients/g_in_flow" $DFLOAT $ES }
)gd",
      {{"$DINT", R"(attr { key: "dtype" value { type: DT_INT32 } })"},
       {"$DFLOAT", R"(attr { key: "dtype" value { type: DT_FLOAT } })"},
       {"$ES", R"(attr { key: "element_shape" value { shape { dim { size: 2 } } } })"},
       {"$I", kInt},
       {"$F", R"(attr { key: "T" value { type: DT_FLOAT } })"},
       {"$R", R"(attr { key: "T" value { type: DT_RESOURCE } })"},
       {"$S", R"(attr { key: "source" value { s: "gradients" } })"},
       {"$FF", R"(attr { key: "frame_name" value { s: "f/ctx" } })"},
       {"$FB", R"(attr { key: "frame_name" value { s: "b/ctx" } })"},
       {"$C", R"(attr { key: "is_constant" value { b: true } })"},
       {"$N", R"(attr { key: "N" value { i: 2 } })"}});
}

TEST(ControlFlowTest, TensorArrayGradientsAndStacksCarryALoopsGradientOnEveryExecutor) {
  absl::StatusOr<std::shared_ptr<const Graph>> graph = Load(GradientLoopGraph());
  ASSERT_TRUE(graph.ok()) << graph.status();
  const std::vector<float> x = {1, -1, 2, 0.5, -3, 4, 0.25, 2};
  const std::vector<float> w = {0.5, 2};
  const std::vector<Feed> feeds = {{{"x"}, Tensor::FromVector<float>(x, {4, 2})},
                                   {{"w"}, Tensor::FromVector<float>(w, {2})}};
  // The forward recurrence, and dL/dx for L = sum(y): G[k] = dL/dh[k+1] = 1 + w G[k+1], each
  // x[k] gets G[k] and x[0] also every G.
  std::vector<float> y(8), dx(8);
  for (int c = 0; c < 2; ++c) {
    float h = 0;
    for (int k = 0; k < 4; ++k) {
      h = w[c] * h + x[2 * k + c] + x[c];
      y[2 * k + c] = h;
    }
    float g = 0, sum = 0;
    for (int k = 3; k >= 0; --k) {
      g = 1 + w[c] * g;
      dx[2 * k + c] = g;
      sum += g;
    }
    dx[c] += sum;
  }
  EXPECT_EQ(dx[0], 8.0f);   // 1.875 + 6.125 (w = 1/2), checking the oracle itself
  EXPECT_EQ(dx[1], 41.0f);  // 15 + 26 (w = 2)

  reference::Session reference(*graph);
  absl::StatusOr<std::vector<Tensor>> want = reference.Run(feeds, {"y", "dx"});
  ASSERT_TRUE(want.ok()) << want.status();
  EXPECT_EQ(Values<float>((*want)[0]), y);
  EXPECT_EQ(Values<float>((*want)[1]), dx);

  absl::StatusOr<ir::TranslatedGraph> translated =
      TranslateForFeeds(**graph, {{"y"}, {"dx"}}, feeds);
  ASSERT_TRUE(translated.ok()) << translated.status();
  absl::StatusOr<std::vector<Tensor>> interpreted =
      RunInterpreted(**graph, *translated, feeds, {{"y"}, {"dx"}});
  ASSERT_TRUE(interpreted.ok()) << interpreted.status();
  EXPECT_EQ(Values<float>((*interpreted)[0]), y);
  EXPECT_EQ(Values<float>((*interpreted)[1]), dx);

  if (!cl::SelectDevice("cpu").ok()) GTEST_SKIP() << "no OpenCL CPU device";
  absl::StatusOr<std::unique_ptr<DeviceSession>> device =
      DeviceSession::Create(*graph, {.device = "cpu"});
  ASSERT_TRUE(device.ok()) << device.status();
  for (int run = 0; run < 2; ++run) {  // each run has stacks and gradient arrays of its own
    absl::StatusOr<std::vector<Tensor>> got = (*device)->Run(feeds, {"y", "dx"});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(Values<float>((*got)[0]), y);
    EXPECT_EQ(Values<float>((*got)[1]), dx);
  }
}

TEST(ControlFlowTest, StackMisuseIsAnErrorNamingTheNode) {
  const std::string stack = R"gd(
node { name: "limit" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
node { name: "v" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
node { name: "s" op: "StackV2" input: "limit" attr { key: "elem_type" value { type: DT_FLOAT } } }
)gd";
  struct Case {
    std::string nodes, fetch, expected;
  };
  const std::vector<Case> cases = {
      {R"(node { name: "pop" op: "StackPopV2" input: "s" attr { key: "elem_type" value { type: DT_FLOAT } } })",
       "pop", "\"pop\" (StackPopV2): pops from stack \"s\" of float32, which is empty"},
      {R"(node { name: "a" op: "StackPushV2" input: "s" input: "v" attr { key: "T" value { type: DT_FLOAT } } }
          node { name: "b" op: "StackPushV2" input: "s" input: "v" input: "^a" attr { key: "T" value { type: DT_FLOAT } } })",
       "b", "\"b\" (StackPushV2): stack \"s\" of float32 overflowed its max_size (1)"},
      {R"(node { name: "pop" op: "StackPopV2" input: "s" attr { key: "elem_type" value { type: DT_INT32 } } })",
       "pop", "pops int32 from stack \"s\" of float32"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.expected);
    absl::StatusOr<std::shared_ptr<const Graph>> graph = Load(stack + c.nodes + "\n");
    ASSERT_TRUE(graph.ok()) << graph.status();
    reference::Session session(*graph);
    absl::StatusOr<std::vector<Tensor>> out = session.Run({}, {c.fetch});
    ASSERT_FALSE(out.ok());
    EXPECT_THAT(out.status().message(), HasSubstr(c.expected));
  }
}

}  // namespace
}  // namespace dfc
