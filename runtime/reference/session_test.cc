// The reference session: feeds and their checks, fetches, pruning, control inputs, variables,
// random ops and error messages.
#include "runtime/reference/session.h"

#include <memory>

#include "gmock/gmock.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace dfc::reference {
namespace {

using ::dfc::testing::TN;
using ::dfc::testing::Values;
using ::testing::HasSubstr;

std::unique_ptr<Session> SessionFor(const std::string& pbtxt) {
  absl::StatusOr<Graph> graph = ParseGraph(pbtxt + "\n", "test.pbtxt");
  EXPECT_TRUE(graph.ok()) << graph.status();
  if (!graph.ok()) return nullptr;
  return std::make_unique<Session>(std::make_shared<const Graph>(*std::move(graph)));
}

std::string Message(const absl::Status& status) { return std::string(status.message()); }

// x: float32[?,2] placeholder; y = x * 2 + 1; two = 2.0; also an unsupported op "conv"
// that only "weird" needs.
constexpr char kGraph[] = R"gd(
  node { name: "x" op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }
  node { name: "two" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } } }
  node { name: "one" op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
  node { name: "mul" op: "Mul" input: "x" input: "two" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "y" op: "AddV2" input: "mul" input: "one" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "conv" op: "DecodeJpeg" input: "x" }
  node { name: "weird" op: "Neg" input: "conv" attr { key: "T" value { type: DT_FLOAT } } }
)gd";

TEST(SessionTest, ComputesFetchesFromFeeds) {
  auto session = SessionFor(kGraph);
  absl::StatusOr<std::vector<Tensor>> out =
      session->Run({{{"x"}, TN<float>({1, 2, 3, 4}, {2, 2})}}, {"y", "mul:0"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{3, 5, 7, 9}));
  EXPECT_EQ(Values<float>((*out)[1]), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ((*out)[0].shape(), (Shape{2, 2}));
}

TEST(SessionTest, FeedOfTheWrongDtypeNamesPlaceholderAndBothTypes) {
  auto session = SessionFor(kGraph);
  absl::StatusOr<std::vector<Tensor>> out =
      session->Run({{{"x"}, TN<int32_t>({1, 2}, {1, 2})}}, {"y"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(Message(out.status()),
            "feed \"x\" is int32[1,2] but placeholder \"x\" expects float32[?,2]");
}

TEST(SessionTest, FeedOfTheWrongShapeIsAnError) {
  auto session = SessionFor(kGraph);
  absl::StatusOr<std::vector<Tensor>> out =
      session->Run({{{"x"}, TN<float>({1, 2, 3}, {1, 3})}}, {"y"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(Message(out.status()),
              HasSubstr("is float32[1,3] but placeholder \"x\" expects float32[?,2]"));
}

TEST(SessionTest, MissingFeedNamesThePlaceholder) {
  auto session = SessionFor(kGraph);
  absl::StatusOr<std::vector<Tensor>> out = session->Run({}, {"y"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(Message(out.status()),
            "node \"x\" (Placeholder): placeholder needs a feed of float32[?,2]");
}

TEST(SessionTest, FetchOrFeedNamingNoNodeIsAnError) {
  auto session = SessionFor(kGraph);
  absl::StatusOr<std::vector<Tensor>> out = session->Run({}, {"nothere"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(Message(out.status()), "fetch \"nothere\" names no node");
  out = session->Run({{{"ghost"}, Tensor::Scalar<float>(1)}}, {"two"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(Message(out.status()), "feed \"ghost\" names no node");
  out = session->Run({}, {"two:1"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(Message(out.status()), HasSubstr("has 1 output(s)"));
  out = session->Run({}, {}, {"nobody"});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(Message(out.status()), "target \"nobody\" names no node");
}

TEST(SessionTest, UnsupportedOpIsNamedOnlyWhenAFetchNeedsIt) {
  auto session = SessionFor(kGraph);
  // "conv" is not needed for y: pruned, no error.
  EXPECT_TRUE(session->Run({{{"x"}, TN<float>({1, 2}, {1, 2})}}, {"y"}).ok());
  absl::StatusOr<std::vector<Tensor>> out =
      session->Run({{{"x"}, TN<float>({1, 2}, {1, 2})}}, {"weird"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(Message(out.status()), HasSubstr("op \"DecodeJpeg\" (used by node \"conv\")"));
  EXPECT_THAT(Message(out.status()), HasSubstr("not supported"));
  // Feeding conv's output cuts it off: then weird runs.
  out = session->Run({{{"conv"}, TN<float>({5}, {1})}}, {"weird"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{-5}));
}

TEST(SessionTest, KernelErrorsNameTheNode) {
  auto session = SessionFor(R"gd(
    node { name: "a" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } } } } } }
    node { name: "b" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } } } } }
    node { name: "sum" op: "Add" input: "a" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
  )gd");
  absl::StatusOr<std::vector<Tensor>> out = session->Run({}, {"sum"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(Message(out.status()), ::testing::StartsWith("node \"sum\" (Add): "));
  EXPECT_THAT(Message(out.status()), HasSubstr("[3]"));
  EXPECT_THAT(Message(out.status()), HasSubstr("[2]"));
}

// v: a float32[2] variable; init assigns [1,2]; inc adds [10,10]; read = Identity(v) after init.
constexpr char kVariables[] = R"gd(
  node { name: "v" op: "VariableV2"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } } } } }
  node { name: "start" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 float_val: 2 } } } }
  node { name: "ten" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 10 } } } }
  node { name: "init" op: "Assign" input: "v" input: "start" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "inc" op: "AssignAdd" input: "v" input: "ten" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "read" op: "Identity" input: "v" input: "^init" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "read_plain" op: "Identity" input: "v" attr { key: "T" value { type: DT_FLOAT } } }
)gd";

TEST(SessionTest, ControlInputsRunFirst) {
  auto session = SessionFor(kVariables);
  // read waits for init through its control input, so v is initialised before it is read.
  absl::StatusOr<std::vector<Tensor>> out = session->Run({}, {"read"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 2}));
}

TEST(SessionTest, VariablesKeepStateAcrossRuns) {
  auto session = SessionFor(kVariables);
  absl::StatusOr<std::vector<Tensor>> out = session->Run({}, {"read_plain"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(Message(out.status()), HasSubstr("reads variable \"v\" before it is initialized"));
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  ASSERT_TRUE(session->Run({}, {}, {"inc"}).ok());
  ASSERT_TRUE(session->Run({}, {}, {"inc"}).ok());
  out = session->Run({}, {"read_plain"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{21, 22}));
  // A second session starts from scratch.
  auto other = SessionFor(kVariables);
  EXPECT_FALSE(other->Run({}, {"read_plain"}).ok());
}

// A frozen graph keeps a constant where its variable was; TensorFlow-made cases still assign
// to it and read the result. frozen: float32[2] constant; set assigns start, bad assigns one
// element.
constexpr char kFrozenAssign[] = R"gd(
  node { name: "frozen" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 0 } } } }
  node { name: "start" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 float_val: 2 } } } }
  node { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } } float_val: 5 } } } }
  node { name: "set" op: "Assign" input: "frozen" input: "start" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "bad" op: "Assign" input: "frozen" input: "one" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "loose" op: "Assign" input: "frozen" input: "one" attr { key: "T" value { type: DT_FLOAT } }
    attr { key: "validate_shape" value { b: false } } }
)gd";

TEST(SessionTest, AssignToAFrozenConstantGivesTheValueItWouldWrite) {
  auto session = SessionFor(kFrozenAssign);
  absl::StatusOr<std::vector<Tensor>> out = session->Run({}, {"set", "loose"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{1, 2}));
  EXPECT_EQ(Values<float>((*out)[1]), (std::vector<float>{5}));
  out = session->Run({}, {"bad"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(Message(out.status()), HasSubstr("node \"bad\""));
  EXPECT_THAT(Message(out.status()), HasSubstr("validate_shape is true"));
}

TEST(SessionTest, AValueReadBeforeAnUpdateKeepsItsValue) {
  auto session = SessionFor(kVariables);
  ASSERT_TRUE(session->Run({}, {}, {"init"}).ok());
  // read_plain runs before inc within one run only if ordered; fetch both with inc as target:
  // whatever the order, the tensor read earlier must not change under its reader.
  absl::StatusOr<std::vector<Tensor>> before = session->Run({}, {"read_plain"});
  ASSERT_TRUE(before.ok());
  ASSERT_TRUE(session->Run({}, {}, {"inc"}).ok());
  EXPECT_EQ(Values<float>((*before)[0]), (std::vector<float>{1, 2}));
}

TEST(SessionTest, PlaceholderWithDefaultUsesTheFeedOrTheDefault) {
  auto session = SessionFor(R"gd(
    node { name: "d" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 7 } } } }
    node { name: "p" op: "PlaceholderWithDefault" input: "d"
      attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "shape" value { shape { dim { size: 2 } } } } }
  )gd");
  absl::StatusOr<std::vector<Tensor>> out = session->Run({}, {"p"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{7, 7}));
  out = session->Run({{{"p"}, TN<int32_t>({1, 2}, {2})}}, {"p"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{1, 2}));
}

TEST(SessionTest, RandomOpsRepeatAcrossSessionsAndAdvanceAcrossRuns) {
  constexpr char kRandom[] = R"gd(
    node { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 8 } } } }
    node { name: "r" op: "RandomUniform" input: "shape"
      attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "T" value { type: DT_INT32 } }
      attr { key: "seed" value { i: 0 } } attr { key: "seed2" value { i: 0 } } }
  )gd";
  auto a = SessionFor(kRandom);
  auto b = SessionFor(kRandom);
  absl::StatusOr<std::vector<Tensor>> a1 = a->Run({}, {"r"});
  absl::StatusOr<std::vector<Tensor>> a2 = a->Run({}, {"r"});
  absl::StatusOr<std::vector<Tensor>> b1 = b->Run({}, {"r"});
  ASSERT_TRUE(a1.ok() && a2.ok() && b1.ok());
  EXPECT_EQ(Values<float>((*a1)[0]), Values<float>((*b1)[0]));
  EXPECT_NE(Values<float>((*a1)[0]), Values<float>((*a2)[0]));
  for (float v : Values<float>((*a1)[0])) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
  }
}

TEST(SessionTest, MultiOutputFetch) {
  auto session = SessionFor(R"gd(
    node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
      attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
    node { name: "v" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } }
        float_val: 1 float_val: 2 float_val: 3 float_val: 4 } } } }
    node { name: "split" op: "Split" input: "axis" input: "v"
      attr { key: "T" value { type: DT_FLOAT } } attr { key: "num_split" value { i: 2 } } }
  )gd");
  absl::StatusOr<std::vector<Tensor>> out = session->Run({}, {"split:1", "split"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{3, 4}));
  EXPECT_EQ(Values<float>((*out)[1]), (std::vector<float>{1, 2}));
}

}  // namespace
}  // namespace dfc::reference
