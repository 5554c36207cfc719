// Inlining the function library's calls (graph/functions.h): text GraphDefs with a `library`
// parse, a call's body runs where the call stood and computes what the function computes, calls
// nest, a body names the outputs of ops with several output args in their order, and each kind
// of malformed call gets an error naming the call and the function.
#include "graph/functions.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "runtime/reference/session.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::testing::HasSubstr;

// x -> call(scale_add(x, 3)) -> out: scale_add(v, s) = v * s + one, `one` a Const of its body.
constexpr char kCaller[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "three" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 3 } } } }
node { name: "call" op: "StatefulPartitionedCall" input: "x" input: "three"
  attr { key: "Tin" value { list { type: DT_FLOAT type: DT_FLOAT } } }
  attr { key: "Tout" value { list { type: DT_FLOAT } } }
  attr { key: "f" value { func { name: "scale_add" } } } }
node { name: "out" op: "Identity" input: "call" attr { key: "T" value { type: DT_FLOAT } } }
)";

constexpr char kScaleAdd[] = R"(
  function {
    signature {
      name: "scale_add"
      input_arg { name: "v" type: DT_FLOAT }
      input_arg { name: "s" type: DT_FLOAT }
      output_arg { name: "result" type: DT_FLOAT }
    }
    node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
    node_def { name: "mul" op: "Mul" input: "v" input: "s"
      attr { key: "T" value { placeholder: "T" } } }
    node_def { name: "add" op: "AddV2" input: "mul:z:0" input: "one:output:0"
      attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "result" value: "add:z:0" }
    attr { key: "T" value { type: DT_FLOAT } }
  }
)";

std::string WithLibrary(const std::string& nodes, const std::string& functions) {
  return absl::StrCat(nodes, "library {", functions, "}\n");
}

// The call's "f" attribute sets T for the body's placeholder.
std::string SetT(std::string text) {
  const std::string from = R"(func { name: "scale_add" })";
  const size_t at = text.find(from);
  if (at != std::string::npos) {
    text.replace(at, from.size(),
                 R"(func { name: "scale_add" attr { key: "T" value { type: DT_FLOAT } } })");
  }
  return text;
}

absl::StatusOr<std::vector<Tensor>> RunOut(const Graph& graph, float x) {
  reference::Session session(std::make_shared<const Graph>(graph));
  return session.Run({{{"x", 0}, testing::TN<float>({x, -2}, {2})}}, {"out"});
}

TEST(FunctionsTest, ACallIsItsFunctionsBodyUnderItsName) {
  absl::StatusOr<Graph> graph = ParseGraph(WithLibrary(SetT(kCaller), kScaleAdd), "test");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_NE(graph->FindNode("call/mul"), nullptr);
  EXPECT_NE(graph->FindNode("call/one"), nullptr);
  ASSERT_NE(graph->FindNode("call"), nullptr);
  EXPECT_EQ(graph->FindNode("call")->op, "IdentityN");
  absl::StatusOr<std::vector<Tensor>> out = RunOut(*graph, 5);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(testing::Values<float>((*out)[0]), std::vector<float>({16, -5}));
}

// f calls scale_add; the graph calls f: both inlined, the inner under the outer's name.
TEST(FunctionsTest, CallsInBodiesAreInlinedInTurn) {
  std::string caller = kCaller;
  caller.replace(caller.find(R"(name: "scale_add" })"), std::string(R"(name: "scale_add" })").size(),
                 R"(name: "f" })");
  const std::string f = R"(
  function {
    signature { name: "f" input_arg { name: "a" type: DT_FLOAT } input_arg { name: "b" type: DT_FLOAT }
                output_arg { name: "r" type: DT_FLOAT } }
    node_def { name: "inner" op: "PartitionedCall" input: "a" input: "b"
      attr { key: "Tin" value { list { type: DT_FLOAT type: DT_FLOAT } } }
      attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr { key: "f" value { func { name: "scale_add" attr { key: "T" value { type: DT_FLOAT } } } } } }
    ret { key: "r" value: "inner:output:0" }
  }
)";
  absl::StatusOr<Graph> graph = ParseGraph(WithLibrary(caller, absl::StrCat(kScaleAdd, f)), "t");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_NE(graph->FindNode("call/inner/add"), nullptr);
  absl::StatusOr<std::vector<Tensor>> out = RunOut(*graph, 1);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(testing::Values<float>((*out)[0]), std::vector<float>({4, -5}));
}

// A body reads FusedBatchNormV3's second output arg by name: flat output 1.
TEST(FunctionsTest, AnOutputArgOfSeveralIsItsFlatIndex) {
  const std::string nodes = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "call" op: "PartitionedCall" input: "x"
  attr { key: "Tin" value { list { type: DT_FLOAT } } }
  attr { key: "Tout" value { list { type: DT_FLOAT } } }
  attr { key: "f" value { func { name: "mean_of" } } } }
node { name: "out" op: "Identity" input: "call" attr { key: "T" value { type: DT_FLOAT } } }
)";
  const std::string f = R"(
  function {
    signature { name: "mean_of" input_arg { name: "v" type: DT_FLOAT }
                output_arg { name: "m" type: DT_FLOAT } }
    node_def { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } }
                                           float_val: 1 } } } }
    node_def { name: "e" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 0 } } } } } }
    node_def { name: "r" op: "Reshape" input: "v" input: "shape:output:0"
      attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tshape" value { type: DT_INT32 } } }
    node_def { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 4 } }
                                           int_val: 1 int_val: 1 int_val: 2 int_val: 1 } } } }
    node_def { name: "bn" op: "FusedBatchNormV3" input: "r:output:0" input: "c:output:0"
      input: "c:output:0" input: "e:output:0" input: "e:output:0"
      attr { key: "T" value { type: DT_FLOAT } } attr { key: "U" value { type: DT_FLOAT } }
      attr { key: "is_training" value { b: true } } attr { key: "epsilon" value { f: 0.001 } } }
    ret { key: "m" value: "bn:batch_mean:0" }
  }
)";
  absl::StatusOr<Graph> graph = ParseGraph(WithLibrary(nodes, f), "t");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->FindNode("call")->inputs[0].ToString(), "call/bn:1");
  absl::StatusOr<std::vector<Tensor>> out = RunOut(*graph, 6);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(testing::Values<float>((*out)[0]), std::vector<float>({2}));  // mean of 6 and -2
}

// A call's control inputs hold back every node of the body; the call's name runs after the
// function's control outputs.
TEST(FunctionsTest, ControlEdgesGoAroundTheBody) {
  std::string caller = kCaller;
  caller.replace(caller.find(R"(input: "three")"), std::string(R"(input: "three")").size(),
                 R"(input: "three" input: "^gate")");
  caller += R"(node { name: "gate" op: "NoOp" })";
  std::string f = kScaleAdd;
  f.replace(f.find("    ret {"), 0,
            "    control_ret { key: \"effect\" value: \"add\" }\n");
  f.replace(f.find("      output_arg"), 0, "      control_output: \"effect\"\n");
  absl::StatusOr<Graph> graph = ParseGraph(WithLibrary(SetT(caller) + "\n", f), "t");
  ASSERT_TRUE(graph.ok()) << graph.status();
  for (const char* name : {"call/one", "call/mul", "call/add", "call"}) {
    const Node* node = graph->FindNode(name);
    ASSERT_NE(node, nullptr) << name;
    EXPECT_THAT(node->control_inputs, ::testing::Contains("gate")) << name;
  }
  EXPECT_THAT(graph->FindNode("call")->control_inputs, ::testing::Contains("call/add"));
}

TEST(FunctionsTest, MalformedCallsAreErrorsNamingTheCall) {
  struct Case {
    std::string text, error;
  };
  std::string unknown = kCaller;
  std::string recursive = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "call" op: "PartitionedCall" input: "x"
  attr { key: "Tin" value { list { type: DT_FLOAT } } }
  attr { key: "Tout" value { list { type: DT_FLOAT } } }
  attr { key: "f" value { func { name: "loop" } } } }
library { function {
  signature { name: "loop" input_arg { name: "v" type: DT_FLOAT } output_arg { name: "r" type: DT_FLOAT } }
  node_def { name: "again" op: "PartitionedCall" input: "v"
    attr { key: "Tin" value { list { type: DT_FLOAT } } }
    attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "f" value { func { name: "loop" } } } }
  ret { key: "r" value: "again:output:0" } } }
)";
  std::string one_input = SetT(kCaller);
  one_input.replace(one_input.find(R"( input: "three")"), std::string(R"( input: "three")").size(),
                    "");
  std::string bad_ref = kScaleAdd;
  bad_ref.replace(bad_ref.find("mul:z:0"), 7, "nul:z:0");
  const std::vector<Case> cases = {
      {WithLibrary(kCaller, R"(function { signature { name: "other" } })"),
       "node \"call\" (StatefulPartitionedCall): calls function \"scale_add\", which the "
       "graph's library does not have"},
      {recursive, "(a function that calls itself)"},
      {WithLibrary(one_input, kScaleAdd), "1 inputs for 2 arguments"},
      {WithLibrary(kCaller, kScaleAdd), "attribute \"T\" is the function's attribute \"T\", "
                                        "which the call does not set"},
      {WithLibrary(SetT(kCaller), bad_ref), "input \"nul:z:0\" names no argument or node"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Graph> graph = ParseGraph(c.text, "bad.pbtxt");
    ASSERT_FALSE(graph.ok()) << c.error;
    EXPECT_THAT(std::string(graph.status().message()), HasSubstr(c.error));
    EXPECT_THAT(std::string(graph.status().message()), HasSubstr("bad.pbtxt: "));
  }
}

}  // namespace
}  // namespace dfc
