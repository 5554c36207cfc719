// Resource variables lowered to ref variables (graph/resource_variables.h): a TF2-style graph
// of VarHandleOp, AssignVariableOp, ReadVariableOp, AssignAddVariableOp and an optimizer runs
// on the reference executor as TensorFlow runs it, a handle passed through Identity reaches its
// variable, and a handle no VarHandleOp made is an error naming its reader.
#include "graph/resource_variables.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "runtime/reference/session.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::testing::HasSubstr;

// v = [1, 2]; init assigns it, step adds [10, 20] then applies gradient descent with rate 0.5
// and gradient [2, 2] through a handle passed on by an Identity; read reads it.
constexpr char kGraph[] = R"(
node { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 2 } } } }
  attr { key: "shared_name" value { s: "v" } } }
node { name: "v0" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                       float_val: 1 float_val: 2 } } } }
node { name: "init" op: "AssignVariableOp" input: "v" input: "v0"
  attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "delta" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                       float_val: 10 float_val: 20 } } } }
node { name: "add" op: "AssignAddVariableOp" input: "v" input: "delta"
  attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "passed" op: "Identity" input: "v" attr { key: "T" value { type: DT_RESOURCE } } }
node { name: "rate" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0.5 } } } }
node { name: "grad" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } }
                                       float_val: 2 float_val: 2 } } } }
node { name: "step" op: "ResourceApplyGradientDescent" input: "passed" input: "rate"
  input: "grad" input: "^add" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "read" op: "ReadVariableOp" input: "passed"
  attr { key: "dtype" value { type: DT_FLOAT } } }
)";

TEST(ResourceVariablesTest, AssignAddApplyAndReadAsTensorFlowDoes) {
  absl::StatusOr<Graph> graph = ParseGraph(kGraph, "test");
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ(graph->FindNode("v")->op, "VariableV2");
  EXPECT_EQ(graph->FindNode("read")->op, "Identity");
  EXPECT_EQ(graph->FindNode("read")->inputs[0].node, "v");
  EXPECT_EQ(graph->FindNode("step")->op, "ApplyGradientDescent");
  EXPECT_EQ(graph->FindNode("step")->inputs[0].node, "v");
  reference::Session session(std::make_shared<const Graph>(*std::move(graph)));
  ASSERT_TRUE(session.Run({}, {}, {"init"}).ok());
  absl::StatusOr<std::vector<Tensor>> read = session.Run({}, {"read"});
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(testing::Values<float>((*read)[0]), std::vector<float>({1, 2}));
  ASSERT_TRUE(session.Run({}, {}, {"step"}).ok());  // (1, 2) + (10, 20) - 0.5 * (2, 2)
  read = session.Run({}, {"read"});
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(testing::Values<float>((*read)[0]), std::vector<float>({10, 21}));
}

TEST(ResourceVariablesTest, AHandleNoVarHandleOpMadeIsAnErrorNamingItsReader) {
  std::string text = kGraph;
  text += R"(node { name: "h" op: "Placeholder" attr { key: "dtype" value { type: DT_RESOURCE } } }
node { name: "stray" op: "ReadVariableOp" input: "h" attr { key: "dtype" value { type: DT_FLOAT } } }
)";
  absl::StatusOr<Graph> graph = ParseGraph(text, "g.pbtxt");
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(std::string(graph.status().message()),
              HasSubstr("g.pbtxt: node \"stray\" (ReadVariableOp): input 0 (\"h\") is a resource "
                        "handle that no VarHandleOp made"));
}

}  // namespace
}  // namespace dfc
