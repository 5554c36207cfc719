// Loader and validation: every shared TensorFlow model loads, text and binary twins agree,
// and each kind of corrupt input gets its own error.
#include "graph/loader.h"

#include <concepts>
#include <filesystem>
#include <random>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/ops.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::testing::HasSubstr;

std::vector<std::string> SharedModels() {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(testing::SharedDir() + "/models")) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".pb") || name.ends_with(".pbtxt")) paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

class SharedModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SharedModelTest, LoadsAndIsTopologicallyOrdered) {
  absl::StatusOr<Graph> graph = LoadGraph(GetParam());
  ASSERT_TRUE(graph.ok()) << graph.status();
  ASSERT_GT(graph->num_nodes(), 0);
  ASSERT_EQ(graph->topological_order().size(), static_cast<size_t>(graph->num_nodes()));
  std::vector<int> position(graph->num_nodes());
  for (size_t k = 0; k < graph->topological_order().size(); ++k) {
    position[graph->topological_order()[k]] = static_cast<int>(k);
  }
  for (int i = 0; i < graph->num_nodes(); ++i) {
    for (const TensorId& input : graph->node(i).inputs) {
      EXPECT_LT(position[graph->IndexOf(input.node)], position[i]) << graph->node(i).name;
    }
    for (const std::string& control : graph->node(i).control_inputs) {
      EXPECT_LT(position[graph->IndexOf(control)], position[i]) << graph->node(i).name;
    }
  }
}

TEST_P(SharedModelTest, TruncatedCopyIsAnError) {
  absl::StatusOr<std::string> bytes = ReadFile(GetParam());
  ASSERT_TRUE(bytes.ok());
  // Cuts at a quarter, a half and most of the file, nudged off the cut a binary file might
  // have exactly between two nodes (which is itself a valid, smaller GraphDef).
  for (double fraction : {0.25, 0.5, 0.9}) {
    const size_t cut = static_cast<size_t>(bytes->size() * fraction) | 1;
    absl::StatusOr<Graph> graph = ParseGraph(bytes->substr(0, cut), "cut");
    EXPECT_FALSE(graph.ok()) << GetParam() << " cut at " << cut << " of " << bytes->size();
  }
}

INSTANTIATE_TEST_SUITE_P(Models, SharedModelTest, ::testing::ValuesIn(SharedModels()),
                         [](const auto& info) {
                           std::string name = std::filesystem::path(info.param).filename();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// Two attribute values are equal (tensors bitwise).
bool AttrEqual(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return false;
  if (const Tensor* t = std::get_if<Tensor>(&a)) return t->BitwiseEqual(std::get<Tensor>(b));
  if (const PartialShape* s = std::get_if<PartialShape>(&a)) {
    const auto& o = std::get<PartialShape>(b);
    return s->unknown_rank == o.unknown_rank && s->dims == o.dims;
  }
  if (std::holds_alternative<AttrList>(a)) {
    const auto& x = std::get<AttrList>(a);
    const auto& y = std::get<AttrList>(b);
    return x.s == y.s && x.i == y.i && x.f == y.f && x.b == y.b && x.type == y.type &&
           x.shape.size() == y.shape.size() && x.tensor.size() == y.tensor.size();
  }
  if (const FuncRef* f = std::get_if<FuncRef>(&a)) return f->name == std::get<FuncRef>(b).name;
  return std::visit(
      [&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::equality_comparable<X>) {
          return x == std::get<X>(b);
        } else {
          return false;  // handled above
        }
      },
      a);
}

TEST(LoaderTest, TextAndBinaryTwinsGiveEqualGraphs) {
  absl::StatusOr<Graph> binary = LoadGraph(testing::SharedDir() + "/models/ngraph_sample_graph.pb");
  absl::StatusOr<Graph> text =
      LoadGraph(testing::SharedDir() + "/models/ngraph_sample_graph.pbtxt");
  ASSERT_TRUE(binary.ok()) << binary.status();
  ASSERT_TRUE(text.ok()) << text.status();
  ASSERT_EQ(binary->num_nodes(), text->num_nodes());
  // The two files list the nodes in different orders: equal means equal nodes by name.
  for (const Node& b : binary->nodes()) {
    ASSERT_NE(text->FindNode(b.name), nullptr) << b.name;
    const Node& t = *text->FindNode(b.name);
    EXPECT_EQ(b.op, t.op);
    EXPECT_EQ(b.device, t.device) << b.name;
    EXPECT_EQ(b.inputs, t.inputs) << b.name;
    EXPECT_EQ(b.control_inputs, t.control_inputs) << b.name;
    ASSERT_EQ(b.attrs.size(), t.attrs.size()) << b.name;
    for (const auto& [key, value] : b.attrs) {
      ASSERT_TRUE(t.attrs.contains(key)) << b.name << " " << key;
      EXPECT_TRUE(AttrEqual(value, t.attrs.at(key))) << b.name << " " << key;
    }
  }
  // Both carry device strings, which are kept as they are.
  EXPECT_EQ(text->FindNode("x")->device, "/device:CPU:0");
  EXPECT_EQ(binary->FindNode("x")->device, "/device:CPU:0");
}

TEST(LoaderTest, FormatIsToldByContentNotName) {
  // philipce_keras_cnn_train.pb is text despite its name.
  absl::StatusOr<std::string> text =
      ReadFile(testing::SharedDir() + "/models/philipce_keras_cnn_train.pb");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(DetectFormat(*text), GraphFormat::kText);
  absl::StatusOr<std::string> binary =
      ReadFile(testing::SharedDir() + "/models/dl4j_mlp_00_frozen.pb");
  ASSERT_TRUE(binary.ok());
  EXPECT_EQ(DetectFormat(*binary), GraphFormat::kBinary);
  // Text may begin with # comments.
  absl::StatusOr<Graph> mlir =
      LoadGraph(testing::SharedDir() + "/models/tf_mlirlite_unroll_batch_matmul.pbtxt");
  EXPECT_TRUE(mlir.ok()) << mlir.status();
}

TEST(LoaderTest, ConstantsDecodeFromTypedValuesWithTheLastValueFilling) {
  // (The "gd" delimiter keeps clang-format from reflowing the GraphDef text.)
  absl::StatusOr<Graph> graph = ParseGraph(R"gd(
    node { name: "c" op: "Const" attr { key: "value" value { tensor { dtype: DT_INT32
      tensor_shape { dim { size: 2 } dim { size: 2 } } int_val: 7 int_val: 9 } } } }
    node { name: "h" op: "Const" attr { key: "value" value { tensor { dtype: DT_HALF
      tensor_shape { dim { size: 2 } } half_val: 15360 } } } }
    node { name: "u" op: "Const" attr { key: "value" value { tensor { dtype: DT_UINT32
      tensor_shape { dim { size: 3 } } uint32_val: 4000000000 uint32_val: 5 } } } }
    node { name: "z" op: "Const" attr { key: "value" value { tensor { dtype: DT_FLOAT
      tensor_shape { dim { size: 3 } } } } } }
  )gd"
                                           "\n",
                                           "inline");
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto value = [&](const char* name) { return *graph->FindNode(name)->GetTensor("value"); };
  EXPECT_EQ(testing::Values<int32_t>(value("c")), (std::vector<int32_t>{7, 9, 9, 9}));
  // 15360 = 0x3c00 = 1.0 in half.
  EXPECT_EQ(testing::ValuesAsDouble(value("h")), (std::vector<double>{1.0, 1.0}));
  EXPECT_EQ(testing::Values<uint32_t>(value("u")), (std::vector<uint32_t>{4000000000u, 5, 5}));
  EXPECT_EQ(testing::Values<float>(value("z")), (std::vector<float>{0, 0, 0}));
}

struct CorruptCase {
  std::string name;
  std::string bytes;
  std::string error;  // a substring the error must contain
};

// A text graph of one float Const "c" plus `rest`.
std::string WithConst(const std::string& rest) {
  return R"pb(node {
                name: "c"
                op: "Const"
                attr {
                  key: "dtype"
                  value { type: DT_FLOAT }
                }
                attr {
                  key: "value"
                  value {
                    tensor {
                      dtype: DT_FLOAT
                      tensor_shape { dim { size: 1 } }
                      float_val: 1
                    }
                  }
                }
              }
         )pb" +
         rest + "\n";
}

std::vector<CorruptCase> CorruptCases() {
  std::vector<CorruptCase> cases;
  const std::string mlp = *ReadFile(testing::SharedDir() + "/models/dl4j_mlp_00_frozen.pb");
  for (size_t cut : {size_t{7}, size_t{301}, mlp.size() / 2 + 1, mlp.size() - 3}) {
    cases.push_back(
        {"binary_cut_" + std::to_string(cut), mlp.substr(0, cut), "truncated or corrupt"});
  }
  std::mt19937 rng(1);
  std::string noise(4096, '\0');
  for (char& c : noise) c = static_cast<char>(rng());
  cases.push_back({"random_bytes", noise, "not a valid binary GraphDef"});
  cases.push_back({"empty", "", "empty"});
  cases.push_back(
      {"text_cut_mid_line", "node { name: \"a\" op: \"NoOp\" }\nnode { na", "truncated"});
  cases.push_back({"text_syntax", "node { name: \"a\" op: \"NoOp\" \n", "line 2"});
  cases.push_back(
      {"text_unknown_field", "node { name: \"a\" op: \"NoOp\" colour: 3 }\n", "colour"});
  cases.push_back({"no_nodes", "versions { producer: 1 }\n", "no nodes"});
  cases.push_back({"cycle",
                   "node { name: \"a\" op: \"Identity\" input: \"b\" }\n"
                   "node { name: \"b\" op: \"Identity\" input: \"a\" }\n",
                   "cycle: "});
  cases.push_back({"control_cycle",
                   "node { name: \"a\" op: \"NoOp\" input: \"^b\" }\n"
                   "node { name: \"b\" op: \"NoOp\" input: \"^a\" }\n",
                   "cycle"});
  cases.push_back({"missing_input", WithConst("node { name: \"n\" op: \"Neg\" input: \"ghost\" }"),
                   "node \"n\" (Neg): input \"ghost\" names no node"});
  cases.push_back({"missing_control_input",
                   WithConst("node { name: \"n\" op: \"NoOp\" input: \"^ghost\" }"),
                   "control input \"^ghost\" names no node"});
  cases.push_back({"output_index_out_of_range",
                   WithConst("node { name: \"n\" op: \"Neg\" input: \"c:1\" }"),
                   "asks for output 1 of \"c\" (Const), which has 1 output(s)"});
  cases.push_back({"bad_tensor_name", WithConst("node { name: \"n\" op: \"Neg\" input: \"c:x\" }"),
                   "not a tensor name"});
  cases.push_back({"data_after_control",
                   WithConst("node { name: \"n\" op: \"Add\" input: \"^c\" input: \"c\" }"),
                   "comes after a control input"});
  cases.push_back({"duplicate_name", WithConst("node { name: \"c\" op: \"NoOp\" }"),
                   "node \"c\" (NoOp): duplicate node name"});
  cases.push_back({"attr_wrong_kind",
                   WithConst("node { name: \"m\" op: \"MatMul\" input: \"c\" input: \"c\" "
                             "attr { key: \"transpose_a\" value { s: \"yes\" } } }"),
                   "node \"m\" (MatMul): attribute \"transpose_a\" is a string, expected a bool"});
  cases.push_back(
      {"type_attr_wrong_kind",
       WithConst(
           "node { name: \"n\" op: \"Neg\" input: \"c\" attr { key: \"T\" value { i: 1 } } }"),
       "attribute \"T\" is a int, expected a type"});
  cases.push_back(
      {"tensor_content_wrong_length",
       "node { name: \"k\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_FLOAT "
       "tensor_shape { dim { size: 2 } } tensor_content: \"\\000\\000\\000\" } } } }\n",
       "node \"k\" (Const): attribute \"value\": tensor_content has 3 bytes, but float32[2] needs "
       "8"});
  cases.push_back(
      {"too_many_values",
       "node { name: \"k\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_INT32 "
       "tensor_shape { dim { size: 1 } } int_val: 1 int_val: 2 } } } }\n",
       "int_val has 2 values for int32[1]"});
  cases.push_back(
      {"shape_overflows",
       "node { name: \"k\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_FLOAT "
       "tensor_shape { dim { size: 4294967296 } dim { size: 4294967296 } } } } } }\n",
       "more than 2^63 elements"});
  cases.push_back(
      {"shape_over_the_limit",
       "node { name: \"k\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_FLOAT "
       "tensor_shape { dim { size: 68719476736 } } float_val: 1 } } } }\n",
       "over dfc's limit"});
  cases.push_back(
      {"negative_dimension",
       "node { name: \"k\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: DT_FLOAT "
       "tensor_shape { dim { size: -1 } } } } } }\n",
       "unknown dimension"});
  cases.push_back({"unknown_dtype",
                   "node { name: \"k\" op: \"Const\" attr { key: \"value\" value { tensor { dtype: "
                   "DT_COMPLEX64 "
                   "tensor_shape { dim { size: 1 } } } } } }\n",
                   "unsupported dtype 8"});
  cases.push_back({"nameless_node", "node { op: \"NoOp\" }\n", "has no name"});
  cases.push_back({"opless_node", "node { name: \"a\" }\n", "node \"a\" (): the node has no op"});
  return cases;
}

class CorruptInputTest : public ::testing::TestWithParam<CorruptCase> {};

TEST_P(CorruptInputTest, GivesItsOwnError) {
  absl::StatusOr<Graph> graph = ParseGraph(GetParam().bytes, "input.pb");
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(std::string(graph.status().message()), HasSubstr(GetParam().error));
  EXPECT_THAT(std::string(graph.status().message()), ::testing::StartsWith("input.pb: "));
}

INSTANTIATE_TEST_SUITE_P(Table, CorruptInputTest, ::testing::ValuesIn(CorruptCases()),
                         [](const auto& info) { return info.param.name; });

// TensorFlow's Placeholder shape function: up to GraphDef version 21 a scalar `shape` attribute
// is how "any shape" was written; from 22 on it is a scalar.
TEST(LoaderTest, AVersion21PlaceholderWithAScalarShapeTakesAnyShape) {
  constexpr char kPlaceholder[] = R"gd(
    node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { } } } }
  )gd";
  for (int producer : {0, 21, 22}) {
    absl::StatusOr<Graph> graph =
        ParseGraph(absl::StrCat(kPlaceholder, "versions { producer: ", producer, " }\n"), "inline");
    ASSERT_TRUE(graph.ok()) << graph.status();
    const PartialShape shape = PlaceholderShape(*graph->FindNode("x"));
    EXPECT_EQ(shape.unknown_rank, producer <= 21) << "producer " << producer;
    EXPECT_TRUE(shape.dims.empty());
  }
}

TEST(LoaderTest, MissingFileIsAnError) {
  absl::StatusOr<Graph> graph = LoadGraph("/nonexistent/graph.pb");
  ASSERT_FALSE(graph.ok());
  EXPECT_THAT(std::string(graph.status().message()),
              HasSubstr("/nonexistent/graph.pb: cannot open"));
}

}  // namespace
}  // namespace dfc
