// Tests of the space/batch/depth translations (space_batch.cc): SpaceToBatchND, BatchToSpaceND,
// SpaceToBatch, BatchToSpace, DepthToSpace and SpaceToDepth over block shapes, paddings and
// crops, ranks, both data formats and every dtype the reference takes, as views only, with a
// symbolic batch, against the reference executor; and the same refusals.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/substitute.h"
#include "graph/fold.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "ir/from_tf/translate.h"
#include "ir/interpreter.h"
#include "ir/printer.h"
#include "runtime/compare.h"
#include "runtime/reference/kernel.h"
#include "tests/device_executor_testing.h"
#include "tests/layout_testing.h"
#include "tests/test_util.h"

namespace dfc::ir {
namespace {

using ::dfc::testing::BothRefuse;
using ::dfc::testing::IndexTensor;
using ::dfc::testing::MakeNode;
using ::dfc::testing::RandomTensor;
using ::dfc::testing::SafeName;
using ::dfc::testing::ShapeName;
using ::dfc::testing::TranslationMatchesReference;

// The number types (the reference's kNumbers); the depth ops take bool as well.
const std::vector<DType> kNumbers = {DType::kFloat,  DType::kHalf,   DType::kDouble, DType::kInt8,
                                     DType::kInt16,  DType::kInt32,  DType::kInt64,  DType::kUInt8,
                                     DType::kUInt16, DType::kUInt32, DType::kUInt64};

// A [m, 2] int32 matrix of (before, after) amounts.
Tensor Amounts(const std::vector<int64_t>& flat, DType dtype = DType::kInt32) {
  return IndexTensor(flat, dtype, Shape{static_cast<int64_t>(flat.size() / 2), 2});
}

// `node` on `inputs` with input 0's batch the size expression factor·N (N bound to the batch
// over factor), which the translation must prove divisible by the block count: the harness
// makes the batch N itself. Interpreted and compared with the reference.
::testing::AssertionResult MatchesWithBatchMultiple(const Node& node,
                                                    const std::vector<Tensor>& inputs,
                                                    int64_t factor) {
  absl::StatusOr<std::vector<Tensor>> expected = reference::EvaluateNode(node, inputs);
  if (!expected.ok()) return ::testing::AssertionFailure() << expected.status();
  const Translation* translation = FindTranslation(node.op);
  const int n = static_cast<int>(inputs.size());
  std::vector<TensorInfo> infos(n);
  std::vector<TranslateInput> translate_inputs(n);
  absl::flat_hash_map<const Param*, Value> env;
  const SizeBindings sizes = {{"N", inputs[0].dim(0) / factor}};
  for (int i = 0; i < n; ++i) {
    if (translation->IsStaticInput(i, n)) {
      infos[i] = ConstantInfo(inputs[i]);
      translate_inputs[i] = {nullptr, &infos[i]};
      continue;
    }
    SymbolicShape shape = ToSymbolic(inputs[i].shape());
    shape[0] = ArithExpr(factor) * ArithExpr::Var("N");
    infos[i].dtype = inputs[i].dtype();
    infos[i].shape = shape;
    ParamPtr p = MakeParam(absl::StrCat("in", i), TensorType(inputs[i].dtype(), shape));
    env[p.get()] = ValueFromTensor(inputs[i]);
    translate_inputs[i] = {p, &infos[i]};
  }
  absl::StatusOr<std::vector<ExprPtr>> translated = TranslateNode(node, translate_inputs);
  if (!translated.ok()) return ::testing::AssertionFailure() << translated.status();
  Interpreter interpreter(sizes);
  absl::StatusOr<Value> value = interpreter.Evaluate((*translated)[0], env);
  if (!value.ok()) return ::testing::AssertionFailure() << value.status();
  absl::StatusOr<Tensor> actual = TensorFromValue(*value, (*translated)[0]->type, sizes);
  if (!actual.ok()) return ::testing::AssertionFailure() << actual.status();
  const Comparison c = CompareTensors(*actual, (*expected)[0]);
  if (!c.equal) {
    return ::testing::AssertionFailure() << c.reason << "\n  IR: " << ToString((*translated)[0]);
  }
  if (!interpreter.calls().empty()) {
    return ::testing::AssertionFailure()
           << "applies " << interpreter.calls().begin()->first << ", expected views only";
  }
  return ::testing::AssertionSuccess();
}

// --- SpaceToBatchND / BatchToSpaceND --------------------------------------------------------

struct BlockCase {
  bool to_batch;
  Shape input;
  std::vector<int64_t> block;
  std::vector<int64_t> amounts;  // [m, 2] flattened: paddings or crops
};

const BlockCase kBlockCases[] = {
    {true, {2, 4, 6, 3}, {2, 2}, {0, 0, 0, 0}},
    {true, {1, 5, 3, 2}, {2, 3}, {1, 0, 2, 1}},
    {true, {2, 6, 2}, {3}, {1, 2}},
    {true, {3, 4, 2, 2}, {2}, {0, 0}},
    {true, {1, 2, 3, 4, 2}, {2, 1, 2}, {0, 0, 1, 0, 0, 2}},
    {true, {2, 3, 5}, {}, {}},
    {true, {0, 4, 2, 1}, {2, 2}, {0, 0, 0, 0}},
    {false, {8, 2, 3, 1}, {2, 2}, {0, 0, 0, 0}},
    {false, {6, 2, 2, 2}, {2, 3}, {1, 0, 2, 1}},
    {false, {6, 3, 2}, {3}, {1, 2}},
    {false, {4, 1, 2, 2, 2}, {2, 1, 2}, {0, 1, 0, 0, 1, 0}},
    {false, {4, 3, 2}, {2, 2}, {0, 1, 1, 1}},
    {false, {2, 3}, {}, {}},
    {false, {0, 2, 2, 1}, {2, 2}, {0, 1, 0, 0}},
};

struct BlockParam {
  BlockCase c;
  DType dtype;
  std::string name;
};

std::vector<BlockParam> BlockParams() {
  std::vector<BlockParam> params;
  for (size_t k = 0; k < std::size(kBlockCases); ++k) {
    const BlockCase& c = kBlockCases[k];
    for (DType d : kNumbers) {
      params.push_back({c, d,
                        SafeName(absl::StrCat(c.to_batch ? "S2B_" : "B2S_", k, "_",
                                              ShapeName(c.input), "_", DTypeName(d)))});
    }
  }
  return params;
}

Node BlockNode(bool to_batch, DType dtype) {
  return MakeNode(to_batch ? "SpaceToBatchND" : "BatchToSpaceND", {{"T", dtype}}, 3);
}

class BlockTest : public ::testing::TestWithParam<BlockParam> {};

TEST_P(BlockTest, MatchesReference) {
  const BlockParam& p = GetParam();
  const Tensor x = RandomTensor(p.dtype, p.c.input, static_cast<uint32_t>(p.name.size()));
  const std::vector<Tensor> inputs = {x, IndexTensor(p.c.block), Amounts(p.c.amounts)};
  EXPECT_TRUE(
      TranslationMatchesReference(BlockNode(p.c.to_batch, p.dtype), inputs, {.views_only = true}));
  if (p.dtype == DType::kFloat && p.c.input[0] > 0) {
    if (p.c.to_batch) {
      EXPECT_TRUE(TranslationMatchesReference(BlockNode(true, p.dtype), inputs,
                                              {.symbolic_dims = {{0, 0}}, .views_only = true}));
    } else {
      int64_t count = 1;
      for (int64_t b : p.c.block) count *= b;
      EXPECT_TRUE(MatchesWithBatchMultiple(BlockNode(false, p.dtype), inputs, count));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, BlockTest, ::testing::ValuesIn(BlockParams()),
                         [](const auto& info) { return info.param.name; });

// int64 block shapes and amounts read as int32 ones are.
TEST(BlockTest, Int64BlockShapeAndPaddings) {
  const Tensor x = RandomTensor(DType::kFloat, {1, 4, 3, 2}, 7);
  EXPECT_TRUE(TranslationMatchesReference(
      BlockNode(true, DType::kFloat),
      {x, IndexTensor({2, 3}, DType::kInt64), Amounts({1, 1, 0, 0}, DType::kInt64)}));
}

// A round trip through a cluster's symbolic batch: SpaceToBatchND's output batch is 4·N, which
// BatchToSpaceND splits back into N.
TEST(BlockTest, SymbolicBatchMultipleOfTheBlockCount) {
  const Tensor x = RandomTensor(DType::kFloat, {12, 2, 3, 2}, 3);
  EXPECT_TRUE(MatchesWithBatchMultiple(BlockNode(false, DType::kFloat),
                                       {x, IndexTensor({2, 2}), Amounts({0, 1, 1, 0})}, 4));
  EXPECT_TRUE(MatchesWithBatchMultiple(BlockNode(false, DType::kFloat),
                                       {x, IndexTensor({2, 2}), Amounts({0, 1, 1, 0})}, 12));
}

// A batch N that is not known to be a multiple of the block count cannot be split: refused
// with a message that says so.
TEST(BlockTest, SymbolicBatchNotKnownDivisibleIsRefused) {
  const Tensor x = RandomTensor(DType::kFloat, {4, 2, 3, 2}, 3);
  ::testing::AssertionResult r = TranslationMatchesReference(
      BlockNode(false, DType::kFloat), {x, IndexTensor({2, 2}), Amounts({0, 0, 0, 0})},
      {.symbolic_dims = {{0, 0}}});
  ASSERT_FALSE(r);
  EXPECT_NE(std::string(r.message()).find("must be known to be a multiple"), std::string::npos)
      << r.message();
}

TEST(BlockTest, RefusesWhatTheReferenceRefuses) {
  const Tensor x = RandomTensor(DType::kFloat, {2, 4, 6, 3}, 1);
  const Node s2b = BlockNode(true, DType::kFloat);
  const Node b2s = BlockNode(false, DType::kFloat);
  // Padded size not divisible by the block.
  EXPECT_TRUE(BothRefuse(s2b, {x, IndexTensor({3, 2}), Amounts({0, 0, 0, 0})}));
  // Negative padding, zero block, paddings of the wrong shape or dtype.
  EXPECT_TRUE(BothRefuse(s2b, {x, IndexTensor({2, 2}), Amounts({-2, 0, 0, 0})}));
  EXPECT_TRUE(BothRefuse(s2b, {x, IndexTensor({0, 2}), Amounts({0, 0, 0, 0})}));
  EXPECT_TRUE(BothRefuse(s2b, {x, IndexTensor({2, 2}), Amounts({0, 0})}));
  EXPECT_TRUE(
      BothRefuse(s2b, {x, IndexTensor({2, 2}), Tensor::FromVector<float>({0, 0, 0, 0}, {2, 2})}));
  // block_shape a matrix; more block dimensions than the input has.
  EXPECT_TRUE(
      BothRefuse(s2b, {x, IndexTensor({2, 2}, DType::kInt32, Shape{1, 2}), Amounts({0, 0, 0, 0})}));
  EXPECT_TRUE(BothRefuse(s2b, {x, IndexTensor({1, 1, 1, 1}), Amounts({0, 0, 0, 0, 0, 0, 0, 0})}));
  // Batch not divisible by the block count; crops larger than the side.
  EXPECT_TRUE(BothRefuse(b2s, {x, IndexTensor({2, 2}), Amounts({0, 0, 0, 0})}));
  EXPECT_TRUE(BothRefuse(b2s, {x, IndexTensor({2, 1}), Amounts({5, 4, 0, 0})}));
  // bool is not a number type.
  const Tensor b = RandomTensor(DType::kBool, {2, 4, 6, 3}, 1);
  EXPECT_TRUE(
      BothRefuse(BlockNode(true, DType::kBool), {b, IndexTensor({2, 2}), Amounts({0, 0, 0, 0})}));
}

// --- SpaceToBatch / BatchToSpace (block_size attribute) -------------------------------------

Node V1Node(bool to_batch, DType dtype, int64_t block_size) {
  return MakeNode(to_batch ? "SpaceToBatch" : "BatchToSpace",
                  {{"T", dtype}, {"block_size", block_size}}, 2);
}

TEST(V1Test, SpaceToBatchMatchesReference) {
  for (DType d : {DType::kFloat, DType::kInt32, DType::kHalf}) {
    const Tensor x = RandomTensor(d, {2, 5, 4, 3}, 5);
    EXPECT_TRUE(TranslationMatchesReference(V1Node(true, d, 2), {x, Amounts({1, 0, 0, 2})},
                                            {.views_only = true}))
        << DTypeName(d);
    EXPECT_TRUE(TranslationMatchesReference(V1Node(true, d, 3), {x, Amounts({2, 2, 1, 1})},
                                            {.symbolic_dims = {{0, 0}}, .views_only = true}))
        << DTypeName(d);
  }
}

TEST(V1Test, BatchToSpaceMatchesReference) {
  for (DType d : {DType::kFloat, DType::kInt64, DType::kDouble}) {
    const Tensor x = RandomTensor(d, {18, 2, 3, 2}, 6);
    EXPECT_TRUE(TranslationMatchesReference(V1Node(false, d, 3), {x, Amounts({1, 2, 0, 3})},
                                            {.views_only = true}))
        << DTypeName(d);
    EXPECT_TRUE(MatchesWithBatchMultiple(V1Node(false, d, 3), {x, Amounts({0, 0, 2, 1})}, 9))
        << DTypeName(d);
  }
}

TEST(V1Test, RefusesWhatTheReferenceRefuses) {
  const Tensor x = RandomTensor(DType::kFloat, {8, 4, 4, 1}, 2);
  EXPECT_TRUE(BothRefuse(V1Node(true, DType::kFloat, 1), {x, Amounts({0, 0, 0, 0})}));
  EXPECT_TRUE(BothRefuse(V1Node(false, DType::kFloat, 1), {x, Amounts({0, 0, 0, 0})}));
  EXPECT_TRUE(BothRefuse(V1Node(true, DType::kFloat, 3), {x, Amounts({0, 0, 0, 0})}));
  EXPECT_TRUE(BothRefuse(V1Node(false, DType::kFloat, 3), {x, Amounts({0, 0, 0, 0})}));
  const Tensor rank3 = RandomTensor(DType::kFloat, {8, 4, 4}, 2);
  EXPECT_TRUE(BothRefuse(V1Node(true, DType::kFloat, 2), {rank3, Amounts({0, 0, 0, 0})}));
}

// --- DepthToSpace / SpaceToDepth ------------------------------------------------------------

struct DepthCase {
  bool to_space;
  Shape input;  // NHWC
  int64_t block;
};

const DepthCase kDepthCases[] = {
    {true, {2, 2, 3, 8}, 2},  {true, {1, 3, 2, 18}, 3}, {true, {2, 1, 1, 4}, 2},
    {true, {1, 2, 2, 0}, 2},  {false, {2, 4, 6, 2}, 2}, {false, {1, 6, 3, 3}, 3},
    {false, {3, 2, 2, 1}, 2}, {false, {1, 0, 4, 2}, 2},
};

struct DepthParam {
  DepthCase c;
  DType dtype;
  bool nchw;
  std::string name;
};

std::vector<DepthParam> DepthParams() {
  std::vector<DepthParam> params;
  std::vector<DType> dtypes = kNumbers;
  dtypes.push_back(DType::kBool);
  for (size_t k = 0; k < std::size(kDepthCases); ++k) {
    const DepthCase& c = kDepthCases[k];
    for (DType d : dtypes) {
      for (bool nchw : {false, true}) {
        params.push_back(
            {c, d, nchw,
             SafeName(absl::StrCat(c.to_space ? "D2S_" : "S2D_", k, "_", ShapeName(c.input), "_",
                                   DTypeName(d), nchw ? "_NCHW" : "_NHWC"))});
      }
    }
  }
  return params;
}

Node DepthNode(bool to_space, DType dtype, int64_t block, const std::string& format) {
  return MakeNode(to_space ? "DepthToSpace" : "SpaceToDepth",
                  {{"T", dtype}, {"block_size", block}, {"data_format", format}}, 1);
}

class DepthTest : public ::testing::TestWithParam<DepthParam> {};

TEST_P(DepthTest, MatchesReference) {
  const DepthParam& p = GetParam();
  const Shape& s = p.c.input;
  const Shape shape = p.nchw ? Shape{s[0], s[3], s[1], s[2]} : s;
  const Tensor x = RandomTensor(p.dtype, shape, static_cast<uint32_t>(p.name.size()));
  const Node node = DepthNode(p.c.to_space, p.dtype, p.c.block, p.nchw ? "NCHW" : "NHWC");
  EXPECT_TRUE(TranslationMatchesReference(node, {x}, {.views_only = true}));
  if (p.dtype == DType::kFloat) {
    EXPECT_TRUE(
        TranslationMatchesReference(node, {x}, {.symbolic_dims = {{0, 0}}, .views_only = true}));
  }
}

INSTANTIATE_TEST_SUITE_P(All, DepthTest, ::testing::ValuesIn(DepthParams()),
                         [](const auto& info) { return info.param.name; });

TEST(DepthTest, RefusesWhatTheReferenceRefuses) {
  const Tensor x = RandomTensor(DType::kFloat, {1, 4, 6, 6}, 2);
  EXPECT_TRUE(BothRefuse(DepthNode(true, DType::kFloat, 2, "NHWC"), {x}));   // 6 % 4
  EXPECT_TRUE(BothRefuse(DepthNode(false, DType::kFloat, 4, "NHWC"), {x}));  // 6 % 4
  EXPECT_TRUE(BothRefuse(DepthNode(false, DType::kFloat, 1, "NHWC"), {x}));
  EXPECT_TRUE(BothRefuse(DepthNode(false, DType::kFloat, 2, "NCHW_VECT_C"), {x}));
  const Tensor odd = RandomTensor(DType::kFloat, {1, 4, 6, 5}, 2);
  EXPECT_TRUE(BothRefuse(DepthNode(false, DType::kFloat, 2, "NCHW"), {odd}));  // width 5
  const Tensor rank3 = RandomTensor(DType::kFloat, {4, 6, 6}, 2);
  EXPECT_TRUE(BothRefuse(DepthNode(false, DType::kFloat, 2, "NHWC"), {rank3}));
}

// --- On a device -------------------------------------------------------------------------

// The views as generated kernels on PoCL's CPU device.
class SpaceBatchOnDeviceTest : public ::dfc::testing::DeviceExecutorTest {
 protected:
  // `nodes` (reading the placeholder "x" of `x`'s dtype and of shape `shape`, -1 a size
  // variable) computing "out", as generated kernels only, against the reference executor.
  void ExpectMatches(const std::string& nodes, const std::string& shape, const Tensor& x) {
    const std::string type = x.dtype() == DType::kFloat ? "DT_FLOAT" : "DT_INT32";
    const std::string text = absl::Substitute(
        R"(node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: $0 } }
  attr { key: "shape" value { shape { $1 } } } }
$2
)",
        type, shape, absl::StrReplaceAll(nodes, {{"$T", type}}));
    absl::StatusOr<Graph> graph = ParseGraph(text, "test");
    ASSERT_TRUE(graph.ok()) << graph.status() << "\n" << text;
    const std::vector<TensorId> fetches = {{"out", 0}};
    const ::dfc::testing::Feeds feeds = {{{"x", 0}, x}};
    absl::StatusOr<TranslatedGraph> translated = ::dfc::testing::Translate(*graph, fetches, feeds);
    ASSERT_TRUE(translated.ok()) << translated.status();
    ASSERT_TRUE(translated->host_device_nodes.empty()) << translated->host_device_nodes[0];
    ASSERT_EQ(translated->folded, 0);
    std::unique_ptr<DeviceExecutor> executor = MakeExecutor();
    absl::StatusOr<std::vector<Tensor>> actual = executor->Run(*graph, *translated, feeds, fetches);
    ASSERT_TRUE(actual.ok()) << actual.status();
    EXPECT_EQ(executor->fallbacks(), 0);
    absl::StatusOr<std::vector<Tensor>> expected =
        ::dfc::testing::Reference(*graph, feeds, fetches);
    ASSERT_TRUE(expected.ok()) << expected.status();
    ::dfc::testing::ExpectAllEqual(*actual, *expected, fetches);
  }
};

// A node "name" of `op` on `input` (and the Consts `consts`, given as text) with attributes.
std::string OpText(const std::string& name, const std::string& op,
                   const std::vector<std::string>& inputs, const std::string& attrs = "") {
  std::string text = absl::StrCat("node { name: \"", name, "\" op: \"", op, "\"");
  for (const std::string& in : inputs) absl::StrAppend(&text, " input: \"", in, "\"");
  absl::StrAppend(&text, R"( attr { key: "T" value { type: $T } } )", attrs, "}\n");
  return text;
}

// An int32 Const of `shape` ("dim { size: 2 }...") holding `values`.
std::string ConstText(const std::string& name, const std::string& shape,
                      const std::vector<int64_t>& values) {
  std::string text = absl::StrCat(
      "node { name: \"", name,
      R"(" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" )",
      "value { tensor { dtype: DT_INT32 tensor_shape { ", shape, " }");
  for (int64_t v : values) absl::StrAppend(&text, " int_val: ", v);
  return absl::StrCat(text, " } } } }\n");
}

TEST_F(SpaceBatchOnDeviceTest, GeneratedKernelsMatchTheReference) {
  const std::string block = ConstText("block", "dim { size: 2 }", {2, 3});
  const std::string pads = ConstText("pads", "dim { size: 2 } dim { size: 2 }", {1, 0, 2, 1});
  const std::string crops = ConstText("crops", "dim { size: 2 } dim { size: 2 }", {0, 1, 1, 0});
  // SpaceToBatchND, then BatchToSpaceND of its 6·N batch, with other crops than the pads.
  ExpectMatches(block + pads + crops + OpText("s2b", "SpaceToBatchND", {"x", "block", "pads"}) +
                    OpText("out", "BatchToSpaceND", {"s2b", "block", "crops"}),
                "dim { size: -1 } dim { size: 5 } dim { size: 3 } dim { size: 2 }",
                RandomTensor(DType::kFloat, {2, 5, 3, 2}, 1));
  ExpectMatches(block + pads + OpText("out", "SpaceToBatchND", {"x", "block", "pads"}),
                "dim { size: -1 } dim { size: 5 } dim { size: 3 } dim { size: 2 }",
                RandomTensor(DType::kInt32, {3, 5, 3, 2}, 2));
  ExpectMatches(block + crops + OpText("out", "BatchToSpaceND", {"x", "block", "crops"}),
                "dim { size: 12 } dim { size: 2 } dim { size: 3 } dim { size: 1 }",
                RandomTensor(DType::kInt32, {12, 2, 3, 1}, 3));
  // The block_size forms, with a rank-3 block of one dimension in between.
  const std::string v1_pads = ConstText("v1_pads", "dim { size: 2 } dim { size: 2 }", {1, 1, 0, 2});
  ExpectMatches(v1_pads +
                    OpText("s2b", "SpaceToBatch", {"x", "v1_pads"},
                           R"(attr { key: "block_size" value { i: 2 } } )") +
                    OpText("out", "BatchToSpace", {"s2b", "v1_pads"},
                           R"(attr { key: "block_size" value { i: 2 } } )"),
                "dim { size: -1 } dim { size: 4 } dim { size: 2 } dim { size: 3 }",
                RandomTensor(DType::kFloat, {2, 4, 2, 3}, 4));
  const std::string block1 = ConstText("block1", "dim { size: 1 }", {3});
  const std::string pads1 = ConstText("pads1", "dim { size: 1 } dim { size: 2 }", {1, 2});
  ExpectMatches(block1 + pads1 + OpText("out", "SpaceToBatchND", {"x", "block1", "pads1"}),
                "dim { size: -1 } dim { size: 6 } dim { size: 2 }",
                RandomTensor(DType::kFloat, {2, 6, 2}, 5));
  for (const std::string format : {"NHWC", "NCHW"}) {
    SCOPED_TRACE(format);
    const std::string attrs =
        absl::StrCat(R"(attr { key: "block_size" value { i: 2 } } )",
                     R"(attr { key: "data_format" value { s: ")", format, R"(" } } )");
    // NHWC [N,2,3,8] and NCHW [N,8,2,3]: depth 8 in blocks of 2x2 and back.
    const std::string shape =
        format == "NHWC" ? "dim { size: -1 } dim { size: 2 } dim { size: 3 } dim { size: 8 }"
                         : "dim { size: -1 } dim { size: 8 } dim { size: 2 } dim { size: 3 }";
    const Shape dims = format == "NHWC" ? Shape{2, 2, 3, 8} : Shape{2, 8, 2, 3};
    ExpectMatches(OpText("out", "DepthToSpace", {"x"}, attrs), shape,
                  RandomTensor(DType::kFloat, dims, 6));
    ExpectMatches(
        OpText("d2s", "DepthToSpace", {"x"}, attrs) + OpText("out", "SpaceToDepth", {"d2s"}, attrs),
        shape, RandomTensor(DType::kInt32, dims, 7));
  }
}

}  // namespace
}  // namespace dfc::ir
