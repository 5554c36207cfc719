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
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::dfc::testing::Values;
using ::testing::HasSubstr;

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
  // The body's multiply-add is a generated kernel, once per iteration (7), as is the
  // condition (8 times). Their kernels are named by their functions, whose clusters are
  // numbered from 0 as the top graph's are.
  EXPECT_GE((*device)->executor().kernels_run(), 7);
  EXPECT_THAT(kernels, ::testing::Contains("dfc_while_while_context_body_cluster_0"));
  EXPECT_THAT(kernels, ::testing::Contains("dfc_while_while_context_cond_cluster_0"));
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
      {R"(input: "while/Enter" input: "while/NextIteration")", R"(input: "while/Enter" input: "zero")",
       "must read its Enter and a NextIteration"},
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
  const int64_t three = kernels_for(3);
  const int64_t six = kernels_for(6);
  // Each further iteration runs four kernels: the condition's, and the body's three that read
  // the loop variables; exp's cluster runs once a run (five a iteration without the hoisting).
  EXPECT_EQ(six - three, 3 * 4);
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

  // A body that doubles the accumulator's length each iteration leaves its shape unknown.
  const std::string text = InvariantLoopGraph();
  ASSERT_NE(text.find(R"(op: "AddV2" input: "w/acc" input: "w/stitched")"), std::string::npos);
  absl::StatusOr<std::shared_ptr<const Graph>> growing = Load(absl::StrReplaceAll(
      text, {{R"(name: "w/next_acc" op: "AddV2" input: "w/acc" input: "w/stitched")",
              R"(name: "w/axis" op: "Const" input: "^w/i" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "w/next_acc" op: "ConcatV2" input: "w/acc" input: "w/stitched" input: "w/axis"
  attr { key: "N" value { i: 2 } } attr { key: "Tidx" value { type: DT_INT32 } })"}}));
  ASSERT_TRUE(growing.ok()) << growing.status();
  absl::StatusOr<ir::TranslatedGraph> unknown =
      TranslateForFeeds(**growing, {{"w/Exit_acc"}}, feeds);
  ASSERT_TRUE(unknown.ok()) << unknown.status();
  EXPECT_FALSE(unknown->fold.Info(**growing, {"w/Exit_acc", 0}).shape.has_value());
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

    absl::StatusOr<ir::TranslatedGraph> translated = TranslateForFeeds(**graph, {{"y"}}, feeds);
    ASSERT_TRUE(translated.ok()) << translated.status();
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
  absl::StatusOr<std::vector<Tensor>> out = session.Run({{{"x"}, Tensor::Scalar<float>(-3)}}, {"y"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().message(), HasSubstr("\"check\" (Assert): assertion failed: x must be "
                                                "positive: -3"));
}

}  // namespace
}  // namespace dfc
