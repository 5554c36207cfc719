// Constant and symbolic folding: small graphs for each rule, with the reference executor as
// the evaluation oracle and a small shape oracle for device ops; then the training graph of a
// shared MNIST model, whose gradient shape arithmetic must fold to expressions in the batch N
// that agree with what the reference session computes.
#include "graph/fold.h"

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/loader.h"
#include "graph/ops.h"
#include "gtest/gtest.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/session.h"
#include "tests/test_util.h"

namespace dfc {

// Lets gtest print expressions in failures.
void PrintTo(const ArithExpr& e, std::ostream* os) { *os << e.ToString(); }

namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::T1;

const ArithExpr kN = ArithExpr::Var("N");

// The reference executor for values; for shapes, the rules of a handful of device ops (as the
// IR translation would give them), and "unknown" for everything else.
class TestOracle : public FoldOracle {
 public:
  absl::StatusOr<std::vector<Tensor>> Evaluate(const Node& node,
                                               std::span<const Tensor> inputs) const override {
    ++evaluations;
    return reference::EvaluateNode(node, inputs);
  }

  absl::StatusOr<std::vector<TensorInfo>> InferShapes(
      const Node& node, std::span<const TensorInfo> in) const override {
    ++inferences;
    auto unknown = [&] { return absl::UnimplementedError("no shape rule for " + node.op); };
    if (in.empty() || !in[0].shape) return unknown();
    const SymbolicShape& x = *in[0].shape;
    const OpDef* def = FindOpDef(node.op);
    if (node.op == "MatMul" && in.size() == 2 && in[1].shape) {
      const bool ta = node.GetBool("transpose_a", false).value_or(false);
      const bool tb = node.GetBool("transpose_b", false).value_or(false);
      return std::vector<TensorInfo>{
          {.dtype = in[0].dtype,
           .shape = SymbolicShape{x[ta ? 1 : 0], (*in[1].shape)[tb ? 0 : 1]}}};
    }
    if (node.op == "Reshape" && in.size() == 2 && in[1].symbolic_value) {
      SymbolicShape shape = *in[1].symbolic_value;
      ArithExpr known = 1;
      int wildcard = -1;
      for (size_t d = 0; d < shape.size(); ++d) {
        if (shape[d].AsConstant() == -1) {
          wildcard = static_cast<int>(d);
        } else {
          known = known * shape[d];
        }
      }
      if (wildcard >= 0) shape[wildcard] = NumElements(x) / known;
      return std::vector<TensorInfo>{{.dtype = in[0].dtype, .shape = shape}};
    }
    if (node.op == "SoftmaxCrossEntropyWithLogits") {
      return std::vector<TensorInfo>{{.dtype = in[0].dtype, .shape = SymbolicShape{x[0]}},
                                     {.dtype = in[0].dtype, .shape = x}};
    }
    if ((node.op == "Mean" || node.op == "Sum") && in.size() == 2 && in[1].value) {
      const bool keep = node.GetBool("keep_dims", false).value_or(false);
      SymbolicShape shape;
      for (size_t d = 0; d < x.size(); ++d) {
        bool reduced = false;
        for (int64_t i = 0; i < in[1].value->num_elements(); ++i) {
          reduced |= in[1].value->ElementAsInt64(i) == static_cast<int64_t>(d);
        }
        if (!reduced) shape.push_back(x[d]);
        if (reduced && keep) shape.push_back(1);
      }
      return std::vector<TensorInfo>{{.dtype = in[0].dtype, .shape = shape}};
    }
    if (node.op == "Tile" && in.size() == 2 && in[1].symbolic_value &&
        in[1].symbolic_value->size() == x.size()) {
      SymbolicShape shape;
      for (size_t d = 0; d < x.size(); ++d) shape.push_back(x[d] * (*in[1].symbolic_value)[d]);
      return std::vector<TensorInfo>{{.dtype = in[0].dtype, .shape = shape}};
    }
    if (node.op == "ExpandDims" && in.size() == 2 && in[1].value) {
      int64_t dim = in[1].value->ElementAsInt64(0);
      if (dim < 0) dim += static_cast<int64_t>(x.size()) + 1;
      SymbolicShape shape = x;
      shape.insert(shape.begin() + dim, 1);
      return std::vector<TensorInfo>{{.dtype = in[0].dtype, .shape = shape}};
    }
    if (node.op == "Cast") {
      return std::vector<TensorInfo>{
          {.dtype = node.GetType("DstT").value_or(DType::kInvalid), .shape = x}};
    }
    if (node.op == "ArgMax") {
      return std::vector<TensorInfo>{{.dtype = DType::kInt64, .shape = SymbolicShape{x[0]}}};
    }
    if (def != nullptr && (absl::StartsWith(def->family, "unary") ||
                           absl::StartsWith(def->family, "binary") || node.op == "BiasAddGrad")) {
      // Elementwise: the shape of input 0 (the tests broadcast only scalars into it).
      SymbolicShape shape = x;
      if (node.op == "BiasAddGrad") shape = SymbolicShape{x.back()};
      const bool compare = node.op == "Equal";
      return std::vector<TensorInfo>{
          {.dtype = compare ? DType::kBool : in[0].dtype, .shape = shape}};
    }
    return unknown();
  }

  mutable int evaluations = 0;
  mutable int inferences = 0;
};

// Graph building: `inputs` as in a GraphDef ("x", "x:1", "^x").
Node Op(std::string name, std::string op, std::vector<std::string> inputs, AttrMap attrs = {}) {
  Node node;
  node.name = std::move(name);
  node.op = std::move(op);
  node.attrs = std::move(attrs);
  for (const std::string& input : inputs) {
    if (input[0] == '^') {
      node.control_inputs.push_back(input.substr(1));
    } else {
      node.inputs.push_back(*TensorId::Parse(input));
    }
  }
  return node;
}

Node Const(std::string name, Tensor value) {
  const DType dtype = value.dtype();
  return Op(std::move(name), "Const", {}, {{"value", value}, {"dtype", dtype}});
}

Node Placeholder(std::string name, std::vector<int64_t> dims, DType dtype = DType::kFloat) {
  return Op(std::move(name), "Placeholder", {},
            {{"dtype", dtype}, {"shape", PartialShape{.unknown_rank = false, .dims = dims}}});
}

Tensor I32(std::vector<int32_t> v) { return T1<int32_t>(std::move(v)); }

struct Folded {
  Graph graph;
  FoldResult result;

  const TensorInfo& Info(absl::string_view name, int index = 0) const {
    return result.Info(graph, {std::string(name), index});
  }
  bool IsFolded(absl::string_view name) const { return result.folded[graph.IndexOf(name)]; }
  std::vector<ArithExpr> Sym(absl::string_view name, int index = 0) const {
    const TensorInfo& info = Info(name, index);
    return info.symbolic_value ? *info.symbolic_value : std::vector<ArithExpr>{};
  }
};

// Folds every node of a graph made of `nodes`, in topological order.
Folded Fold(std::vector<Node> nodes, const TestOracle& oracle = TestOracle()) {
  absl::StatusOr<Graph> graph = Graph::FromNodes(std::move(nodes));
  EXPECT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<FoldResult> result = FoldConstants(*graph, graph->topological_order(), oracle);
  EXPECT_TRUE(result.ok()) << result.status();
  return {*std::move(graph), result.ok() ? *std::move(result) : FoldResult{}};
}

// x: float32[?,784] and its shape {N, 784}, for the symbolic rules to start from.
std::vector<Node> WithShapeOfX(std::vector<Node> more) {
  std::vector<Node> nodes = {
      Placeholder("x", {-1, 784}), Op("s", "Shape", {"x"}),
      Op("n", "StridedSlice", {"s", "zero", "one", "one"}, {{"shrink_axis_mask", int64_t{1}}}),
      Const("zero", I32({0})), Const("one", I32({1}))};
  for (Node& n : more) nodes.push_back(std::move(n));
  return nodes;
}

TEST(FoldTest, ShapeOfBatchPlaceholderIsSymbolic) {
  const Folded f = Fold({Placeholder("x", {-1, 784}), Op("s", "Shape", {"x"}),
                         Const("axis", I32({0})), Op("p", "Prod", {"s", "axis"})});
  EXPECT_FALSE(f.IsFolded("x"));
  EXPECT_EQ(f.Info("x").dtype, DType::kFloat);
  ASSERT_TRUE(f.Info("x").shape.has_value());
  EXPECT_THAT(*f.Info("x").shape, ElementsAre(kN, ArithExpr(784)));

  EXPECT_TRUE(f.IsFolded("s"));
  EXPECT_EQ(f.Info("s").dtype, DType::kInt32);
  EXPECT_THAT(f.Sym("s"), ElementsAre(kN, ArithExpr(784)));
  EXPECT_FALSE(f.Info("s").is_constant());
  EXPECT_THAT(*f.Info("s").shape, ElementsAre(ArithExpr(2)));

  EXPECT_TRUE(f.IsFolded("p"));
  EXPECT_THAT(f.Sym("p"), ElementsAre(kN * 784));
  EXPECT_TRUE(f.Info("p").shape->empty());
  EXPECT_EQ(f.Info("p").ToString(), "int32[] = " + (kN * 784).ToString());

  ASSERT_EQ(f.result.size_variables.size(), 1u);
  EXPECT_EQ(f.result.size_variables[0].name, "N");
  EXPECT_EQ(f.result.size_variables[0].placeholder, "x");
  EXPECT_EQ(f.result.size_variables[0].dim, 0);
  EXPECT_FALSE(f.IsFolded("axis"));  // a Const already is a constant
}

// A loop body's TensorArray argument: its reads, through an Identity of the array, have the
// shape its elements have (FoldOptions::array_element_shapes), so the body's math fuses.
TEST(FoldTest, ReadsOfAFedTensorArrayHaveItsElementsShape) {
  Node flow{.name = "flow", .op = "Placeholder", .attrs = {{"dtype", DType::kVariant}}};
  std::vector<Node> nodes = {
      std::move(flow), Placeholder("index", {}, DType::kInt32), Const("handle", I32({0})),
      Op("passed", "Identity", {"flow"}, {{"T", DType::kVariant}}),
      Op("read", "TensorArrayReadV3", {"handle", "index", "passed"}, {{"dtype", DType::kFloat}})};
  absl::StatusOr<Graph> graph = Graph::FromNodes(std::move(nodes));
  ASSERT_TRUE(graph.ok()) << graph.status();
  FoldOptions options;
  options.array_element_shapes["flow"] = {3, 128};
  absl::StatusOr<FoldResult> result =
      FoldConstants(*graph, graph->topological_order(), TestOracle(), options);
  ASSERT_TRUE(result.ok()) << result.status();
  const TensorInfo& read = result->Info(*graph, {"read", 0});
  EXPECT_EQ(read.dtype, DType::kFloat);
  ASSERT_TRUE(read.shape.has_value());
  EXPECT_THAT(*read.shape, ElementsAre(ArithExpr(3), ArithExpr(128)));
  // Without it, a read's shape is unknown.
  absl::StatusOr<FoldResult> unknown =
      FoldConstants(*graph, graph->topological_order(), TestOracle());
  ASSERT_TRUE(unknown.ok()) << unknown.status();
  EXPECT_FALSE(unknown->Info(*graph, {"read", 0}).shape.has_value());
}

// A TensorArray that cannot grow keeps its size, and one whose element shape is declared has
// it on every read and gather (each write is checked against it at run time): its size folds,
// and so does a Range up to it. A dynamic array's size is a run's.
TEST(FoldTest, ATensorArraysDeclaredShapeAndFixedSizeAreKnown) {
  const auto array = [](std::string name, std::string size, bool dynamic) {
    return Op(std::move(name), "TensorArrayV3", {std::move(size)},
              {{"dtype", DType::kFloat},
               {"element_shape", PartialShape{.unknown_rank = false, .dims = {2, 3}}},
               {"dynamic_size", dynamic}});
  };
  const AttrMap float_t = {{"T", DType::kFloat}};
  const AttrMap float_dtype = {{"dtype", DType::kFloat}};
  const Folded f =
      Fold({Const("four", Tensor::Scalar<int32_t>(4)), Const("zero", Tensor::Scalar<int32_t>(0)),
            Const("one", Tensor::Scalar<int32_t>(1)), Placeholder("v", {2, 3}),
            Placeholder("i", {}, DType::kInt32), array("ta", "four", false),
            Op("write", "TensorArrayWriteV3", {"ta", "i", "v", "ta:1"}, float_t),
            Op("passed", "Identity", {"write"}, {{"T", DType::kVariant}}),
            Op("size", "TensorArraySizeV3", {"ta", "passed"}),
            Op("range", "Range", {"zero", "size", "one"}, {{"Tidx", DType::kInt32}}),
            Op("all", "TensorArrayGatherV3", {"ta", "range", "passed"}, float_dtype),
            Op("read", "TensorArrayReadV3", {"ta", "i", "passed"}, float_dtype),
            array("grows", "four", true),
            Op("grown", "TensorArrayWriteV3", {"grows", "i", "v", "grows:1"}, float_t),
            Op("grown_size", "TensorArraySizeV3", {"grows", "grown"})});
  EXPECT_TRUE(f.IsFolded("size"));
  EXPECT_EQ(f.Info("size").ToString(), "int32[] = 4");
  EXPECT_TRUE(f.IsFolded("range"));
  EXPECT_EQ(f.Info("all").ToString(), "float32[4,2,3]");
  EXPECT_EQ(f.Info("read").ToString(), "float32[2,3]");
  EXPECT_FALSE(f.IsFolded("grown_size"));
  EXPECT_FALSE(f.Info("grown_size").is_symbolic_constant());
}

// A TensorList's length is known through its pushes and pops; its element shape, when only the
// tensor it was made from says it, holds while every write matches it.
TEST(FoldTest, ATensorListsLengthAndElementShapeFollowItsWrites) {
  const AttrMap element = {{"element_dtype", DType::kFloat}};
  const Folded f =
      Fold({Placeholder("rows", {5, 3}), Placeholder("row", {3}), Placeholder("odd", {4}),
            Placeholder("i", {}, DType::kInt32), Const("unknown", Tensor::Scalar<int32_t>(-1)),
            Op("list", "TensorListFromTensor", {"rows", "unknown"}, element),
            Op("pushed", "TensorListPushBack", {"list", "row"}, element),
            Op("length", "TensorListLength", {"pushed"}),
            Op("stacked", "TensorListStack", {"pushed", "unknown"}, element),
            Op("set", "TensorListSetItem", {"pushed", "i", "odd"}, element),
            Op("item", "TensorListGetItem", {"set", "i", "unknown"}, element),
            Op("popped", "TensorListPopBack", {"set", "unknown"}, element),
            Op("popped_length", "TensorListLength", {"popped"})});
  EXPECT_TRUE(f.IsFolded("length"));
  EXPECT_EQ(f.Info("length").ToString(), "int32[] = 6");
  EXPECT_EQ(f.Info("stacked").ToString(), "float32[6,3]");
  // A row of another shape written: elements' shape no longer known, the length still is.
  EXPECT_FALSE(f.Info("item").shape.has_value());
  EXPECT_EQ(f.Info("popped_length").ToString(), "int32[] = 5");
}

TEST(FoldTest, StaticShapesFoldToConstants) {
  const Folded f =
      Fold({Placeholder("x", {2, 3}), Op("s", "Shape", {"x"}),
            Op("size", "Size", {"x"}, {{"out_type", DType::kInt64}}), Op("rank", "Rank", {"x"})});
  ASSERT_TRUE(f.Info("s").is_constant());
  EXPECT_EQ(testing::Values<int32_t>(*f.Info("s").value), (std::vector<int32_t>{2, 3}));
  ASSERT_TRUE(f.Info("size").is_constant());
  EXPECT_EQ(f.Info("size").value->dtype(), DType::kInt64);
  EXPECT_EQ(f.Info("size").value->ElementAsInt64(0), 6);
  EXPECT_TRUE(f.Info("size").value->shape().empty());
  ASSERT_TRUE(f.Info("rank").is_constant());
  EXPECT_EQ(f.Info("rank").value->ElementAsInt64(0), 2);
  EXPECT_TRUE(f.IsFolded("s") && f.IsFolded("size") && f.IsFolded("rank"));
  EXPECT_TRUE(f.result.size_variables.empty());
}

TEST(FoldTest, OtherUnknownDimensionsGetTheirOwnVariables) {
  const Folded f = Fold({Placeholder("in/put-1", {-1, -1, 3}), Op("s", "Shape", {"in/put-1"}),
                         Op("unranked", "Placeholder", {}, {{"dtype", DType::kFloat}}),
                         Op("s2", "Shape", {"unranked"}), Op("r2", "Rank", {"unranked"})});
  EXPECT_THAT(f.Sym("s"), ElementsAre(kN, ArithExpr::Var("in_put_1_d1"), ArithExpr(3)));
  ASSERT_EQ(f.result.size_variables.size(), 2u);
  EXPECT_EQ(f.result.size_variables[1].name, "in_put_1_d1");
  EXPECT_EQ(f.result.size_variables[1].placeholder, "in/put-1");
  EXPECT_EQ(f.result.size_variables[1].dim, 1);
  // Unknown rank: nothing to fold, and the shape of the Shape is unknown too.
  EXPECT_FALSE(f.Info("unranked").shape.has_value());
  EXPECT_FALSE(f.IsFolded("s2"));
  EXPECT_FALSE(f.IsFolded("r2"));
  EXPECT_EQ(f.Info("s2").dtype, DType::kInt32);
  EXPECT_FALSE(f.Info("s2").shape.has_value());
  EXPECT_TRUE(f.Info("r2").shape->empty());
}

TEST(FoldTest, FillAndRangeOfConstantsFold) {
  TestOracle oracle;
  const Folded f =
      Fold({Const("dims", I32({2, 3})), Const("v", Tensor::Scalar<float>(1.5f)),
            Op("fill", "Fill", {"dims", "v"}), Const("start", Tensor::Scalar<int32_t>(1)),
            Const("limit", Tensor::Scalar<int32_t>(10)), Const("delta", Tensor::Scalar<int32_t>(3)),
            Op("range", "Range", {"start", "limit", "delta"}), Const("big", I32({2048, 1024})),
            Op("huge", "Fill", {"big", "v"})},
           oracle);
  EXPECT_TRUE(f.IsFolded("fill"));
  ASSERT_TRUE(f.Info("fill").is_constant());
  EXPECT_EQ(testing::Values<float>(*f.Info("fill").value), std::vector<float>(6, 1.5f));
  EXPECT_THAT(*f.Info("fill").shape, ElementsAre(ArithExpr(2), ArithExpr(3)));
  EXPECT_TRUE(f.IsFolded("range"));
  EXPECT_THAT(f.Sym("range"), ElementsAre(ArithExpr(1), ArithExpr(4), ArithExpr(7)));
  // Two million elements are left to a kernel: the shape is known, the value is not kept.
  EXPECT_FALSE(f.IsFolded("huge"));
  EXPECT_FALSE(f.Info("huge").is_constant());
  EXPECT_EQ(f.Info("huge").dtype, DType::kFloat);
  EXPECT_THAT(*f.Info("huge").shape, ElementsAre(ArithExpr(2048), ArithExpr(1024)));
}

// A sorted segment reduction (a host op) of constants whose last id names segment 2^30 would
// be 2^30 rows: it is not evaluated at compile time, where folding it would allocate them, and
// one whose ids name few segments folds.
TEST(FoldTest, ASegmentReductionOfTooManySegmentsIsNotFolded) {
  TestOracle oracle;
  const Folded f =
      Fold({Const("data", I32({1, 2})), Const("few", I32({0, 2})), Const("many", I32({0, 1 << 30})),
            Op("small", "SegmentSum", {"data", "few"}), Op("huge", "SegmentSum", {"data", "many"})},
           oracle);
  EXPECT_TRUE(f.IsFolded("small"));
  EXPECT_FALSE(f.IsFolded("huge"));
  EXPECT_FALSE(f.Info("huge").is_constant());
}

TEST(FoldTest, FillAndRangeOfSymbolicSizesHaveShapes) {
  const Folded f = Fold(WithShapeOfX(
      {Const("v", Tensor::Scalar<float>(0.0f)), Op("fill", "Fill", {"s", "v"}),
       Op("range", "Range", {"zero_s", "n", "one_s"}), Const("zero_s", Tensor::Scalar<int32_t>(0)),
       Const("one_s", Tensor::Scalar<int32_t>(1)), Const("three", Tensor::Scalar<int32_t>(3)),
       Op("n3", "AddV2", {"n", "three"}), Op("range3", "Range", {"n", "n3", "one_s"}),
       Op("range5", "Range", {"three", "n", "one_s"}), Op("filln", "Fill", {"two", "n"}),
       Const("two", I32({2}))}));
  EXPECT_FALSE(f.IsFolded("fill"));
  EXPECT_EQ(f.Info("fill").dtype, DType::kFloat);
  EXPECT_THAT(*f.Info("fill").shape, ElementsAre(kN, ArithExpr(784)));
  // Range(0, N): length N, values unknown.
  EXPECT_FALSE(f.IsFolded("range"));
  EXPECT_THAT(*f.Info("range").shape, ElementsAre(kN));
  // Range(N, N + 3): three symbolic values.
  EXPECT_TRUE(f.IsFolded("range3"));
  EXPECT_THAT(f.Sym("range3"), ElementsAre(kN, kN + 1, kN + 2));
  // Range(3, N): N - 3 may be negative, so not even the length is known.
  EXPECT_FALSE(f.IsFolded("range5"));
  EXPECT_FALSE(f.Info("range5").shape.has_value());
  EXPECT_EQ(f.Info("range5").dtype, DType::kInt32);
  EXPECT_TRUE(f.IsFolded("filln"));
  EXPECT_THAT(f.Sym("filln"), ElementsAre(kN, kN));
}

TEST(FoldTest, SlicingAndGathering) {
  const Folded f = Fold(WithShapeOfX({
      Const("m1", I32({-1})),
      Op("tail", "StridedSlice", {"s", "one", "zero", "one"}, {{"end_mask", int64_t{1}}}),
      Op("reversed", "StridedSlice", {"s", "m1", "zero", "m1"}, {{"end_mask", int64_t{1}}}),
      Op("last", "StridedSlice", {"s", "m1", "zero", "one"}, {{"shrink_axis_mask", int64_t{1}}}),
      Op("ellipsis", "StridedSlice", {"s", "zero", "one", "one"}, {{"ellipsis_mask", int64_t{1}}}),
      Op("slice", "Slice", {"s", "zero", "m1"}),
      Const("perm", I32({1, 0})),
      Op("gather", "GatherV2", {"s", "perm", "zero_s"}),
      Const("zero_s", Tensor::Scalar<int32_t>(0)),
      Op("gather1", "Gather", {"s", "zero_s"}),
  }));
  EXPECT_TRUE(f.IsFolded("n"));
  EXPECT_THAT(f.Sym("n"), ElementsAre(kN));
  EXPECT_TRUE(f.Info("n").shape->empty());
  // A slice that holds no variable is an ordinary constant.
  ASSERT_TRUE(f.Info("tail").is_constant());
  EXPECT_EQ(testing::Values<int32_t>(*f.Info("tail").value), std::vector<int32_t>{784});
  EXPECT_THAT(f.Sym("reversed"), ElementsAre(ArithExpr(784), kN));
  EXPECT_THAT(f.Sym("last"), ElementsAre(ArithExpr(784)));
  EXPECT_TRUE(f.Info("last").shape->empty());
  EXPECT_FALSE(f.IsFolded("ellipsis"));
  EXPECT_THAT(f.Sym("slice"), ElementsAre(kN, ArithExpr(784)));
  EXPECT_THAT(f.Sym("gather"), ElementsAre(ArithExpr(784), kN));
  EXPECT_THAT(f.Sym("gather1"), ElementsAre(kN));
  EXPECT_TRUE(f.Info("gather1").shape->empty());
}

TEST(FoldTest, PackConcatReshapeCastExpandDims) {
  const Folded f = Fold(WithShapeOfX({
      Const("ten", Tensor::Scalar<int32_t>(10)),
      Op("pack", "Pack", {"n", "ten"}, {{"N", int64_t{2}}}),
      Const("five", I32({5})),
      Op("concat", "ConcatV2", {"s", "five", "zero_s"}, {{"N", int64_t{2}}}),
      Op("concat_v1", "Concat", {"zero_s", "five", "s"}, {{"N", int64_t{2}}}),
      Const("zero_s", Tensor::Scalar<int32_t>(0)),
      Op("flat", "Reshape", {"s", "m1"}),
      Const("m1", I32({-1})),
      Op("n_vec", "Reshape", {"n", "one"}),
      Op("wide", "Cast", {"s"}, {{"SrcT", DType::kInt32}, {"DstT", DType::kInt64}}),
      Op("float", "Cast", {"s"}, {{"SrcT", DType::kInt32}, {"DstT", DType::kFloat}}),
      Op("expanded", "ExpandDims", {"n", "zero_s"}),
      Op("squeezed", "Squeeze", {"n_vec"}),
  }));
  EXPECT_THAT(f.Sym("pack"), ElementsAre(kN, ArithExpr(10)));
  EXPECT_THAT(f.Sym("concat"), ElementsAre(kN, ArithExpr(784), ArithExpr(5)));
  EXPECT_THAT(f.Sym("concat_v1"), ElementsAre(ArithExpr(5), kN, ArithExpr(784)));
  EXPECT_THAT(f.Sym("flat"), ElementsAre(kN, ArithExpr(784)));
  EXPECT_THAT(f.Sym("n_vec"), ElementsAre(kN));
  EXPECT_THAT(*f.Info("n_vec").shape, ElementsAre(ArithExpr(1)));
  EXPECT_EQ(f.Info("wide").dtype, DType::kInt64);
  EXPECT_THAT(f.Sym("wide"), ElementsAre(kN, ArithExpr(784)));
  // Float values are only ever concrete.
  EXPECT_FALSE(f.IsFolded("float"));
  EXPECT_EQ(f.Info("float").dtype, DType::kFloat);
  EXPECT_THAT(*f.Info("float").shape, ElementsAre(ArithExpr(2)));
  EXPECT_THAT(f.Sym("expanded"), ElementsAre(kN));
  EXPECT_THAT(*f.Info("expanded").shape, ElementsAre(ArithExpr(1)));
  EXPECT_THAT(f.Sym("squeezed"), ElementsAre(kN));
  EXPECT_TRUE(f.Info("squeezed").shape->empty());
}

TEST(FoldTest, ReductionsAndArithmetic) {
  const Folded f = Fold(WithShapeOfX({
      Op("sum", "Sum", {"s", "zero"}),
      Op("prod_keep", "Prod", {"s", "zero"}, {{"keep_dims", true}}),
      Op("max", "Max", {"s", "zero"}),
      Const("zero_s", Tensor::Scalar<int32_t>(0)),
      Const("one_s", Tensor::Scalar<int32_t>(1)),
      Const("two_s", Tensor::Scalar<int32_t>(2)),
      Op("n0", "Pack", {"n", "zero_s"}, {{"N", int64_t{2}}}),
      Op("max_n0", "Max", {"n0", "zero"}),
      Op("mul", "Mul", {"s", "two_s"}),
      Op("sub", "Sub", {"s", "s"}),
      Op("add", "AddV2", {"one_s", "s"}),
      Op("div", "FloorDiv", {"s", "two_s"}),
      Op("mod", "FloorMod", {"s", "two_s"}),
      Op("div0", "FloorDiv", {"s", "zero_s"}),
      Op("max1", "Maximum", {"s", "one_s"}),
      Op("max0", "Maximum", {"s", "zero_s"}),
      Op("min0", "Minimum", {"s", "zero_s"}),
  }));
  EXPECT_THAT(f.Sym("sum"), ElementsAre(kN + 784));
  EXPECT_THAT(f.Sym("prod_keep"), ElementsAre(kN * 784));
  EXPECT_THAT(*f.Info("prod_keep").shape, ElementsAre(ArithExpr(1)));
  // max(N, 784) depends on N; max(N, 0) does not.
  EXPECT_FALSE(f.IsFolded("max"));
  EXPECT_THAT(f.Sym("max_n0"), ElementsAre(kN));
  EXPECT_THAT(f.Sym("mul"), ElementsAre(kN * 2, ArithExpr(1568)));
  ASSERT_TRUE(f.Info("sub").is_constant());
  EXPECT_EQ(testing::Values<int32_t>(*f.Info("sub").value), (std::vector<int32_t>{0, 0}));
  EXPECT_THAT(f.Sym("add"), ElementsAre(kN + 1, ArithExpr(785)));
  EXPECT_THAT(f.Sym("div"), ElementsAre(kN / 2, ArithExpr(392)));
  EXPECT_THAT(f.Sym("mod"), ElementsAre(kN % 2, ArithExpr(0)));
  EXPECT_FALSE(f.IsFolded("div0"));  // the kernel will report the division by zero
  EXPECT_FALSE(f.IsFolded("max1"));  // N may be 0: a batch of nothing is legal
  EXPECT_THAT(f.Sym("max0"), ElementsAre(kN, ArithExpr(784)));
  EXPECT_THAT(f.Sym("min0"), ElementsAre(ArithExpr(0), ArithExpr(0)));
}

TEST(FoldTest, BroadcastGradientArgsOfSymbolicShapes) {
  const Folded f =
      Fold({Placeholder("x", {-1, 10}), Placeholder("b", {10}), Placeholder("y", {10, -1}),
            Op("sx", "Shape", {"x"}), Op("sb", "Shape", {"b"}), Op("sy", "Shape", {"y"}),
            Op("bga", "BroadcastGradientArgs", {"sx", "sb"}),
            Op("same", "BroadcastGradientArgs", {"sx", "sx"}),
            Op("unknown", "BroadcastGradientArgs", {"sx", "sy"}),
            Op("args", "BroadcastArgs", {"sb", "sx"})});
  EXPECT_TRUE(f.IsFolded("bga"));
  EXPECT_THAT(f.Sym("bga", 0), ElementsAre());
  EXPECT_THAT(f.Sym("bga", 1), ElementsAre(ArithExpr(0)));
  // No variable left: the reduction indices are plain constants.
  ASSERT_TRUE(f.Info("bga", 1).is_constant());
  EXPECT_EQ(testing::Values<int32_t>(*f.Info("bga", 1).value), std::vector<int32_t>{0});
  ASSERT_TRUE(f.Info("bga", 0).is_constant());
  EXPECT_EQ(f.Info("bga", 0).value->num_elements(), 0);
  EXPECT_THAT(f.Sym("same", 0), ElementsAre());
  EXPECT_THAT(f.Sym("same", 1), ElementsAre());
  // 10 against y_d1: cannot tell.
  EXPECT_FALSE(f.IsFolded("unknown"));
  EXPECT_EQ(f.Info("unknown", 1).dtype, DType::kInt32);
  EXPECT_THAT(f.Sym("args"), ElementsAre(kN, ArithExpr(10)));
}

// TensorFlow's Sum gradient over axis 1 of x: DynamicStitch([range(rank), axes],
// [shape(x), fill(shape(axes), 1)]) is the shape of x with the reduced dimension set to 1.
TEST(FoldTest, SumGradientDynamicStitch) {
  const Folded f = Fold({
      Placeholder("x", {-1, 10}),
      Op("input_shape", "Shape", {"x"}),
      Op("size", "Size", {"input_shape"}),
      Const("axes_in", I32({1})),
      Op("add", "AddV2", {"axes_in", "size"}),
      Op("axes", "FloorMod", {"add", "size"}),
      Const("range_start", Tensor::Scalar<int32_t>(0)),
      Const("range_delta", Tensor::Scalar<int32_t>(1)),
      Op("range", "Range", {"range_start", "size", "range_delta"}),
      Op("axes_shape", "Shape", {"axes"}),
      Const("ones_value", Tensor::Scalar<int32_t>(1)),
      Op("ones", "Fill", {"axes_shape", "ones_value"}),
      Op("stitch", "DynamicStitch", {"range", "axes", "input_shape", "ones"}, {{"N", int64_t{2}}}),
  });
  for (const char* name : {"size", "add", "axes", "range", "axes_shape", "ones"}) {
    EXPECT_TRUE(f.Info(name).is_constant()) << name;
  }
  EXPECT_TRUE(f.IsFolded("stitch"));
  EXPECT_THAT(f.Sym("stitch"), ElementsAre(kN, ArithExpr(1)));
  EXPECT_EQ(f.Info("stitch").dtype, DType::kInt32);
}

TEST(FoldTest, ShapesOfDeviceNodesComeFromTheOracle) {
  TestOracle oracle;
  const Folded f = Fold(
      {Placeholder("x", {-1, 784}), Placeholder("w", {784, 10}), Op("mm", "MatMul", {"x", "w"}),
       Op("relu", "Relu", {"mm"}), Op("softmax", "Softmax", {"relu"}), Op("s", "Shape", {"relu"}),
       Op("s_soft", "Shape", {"softmax"})},
      oracle);
  EXPECT_THAT(*f.Info("relu").shape, ElementsAre(kN, ArithExpr(10)));
  EXPECT_FALSE(f.IsFolded("relu"));
  EXPECT_THAT(f.Sym("s"), ElementsAre(kN, ArithExpr(10)));
  // The oracle has no rule for Softmax: unknown, not an error, and the dtype still known.
  EXPECT_FALSE(f.Info("softmax").shape.has_value());
  EXPECT_EQ(f.Info("softmax").dtype, DType::kFloat);
  EXPECT_FALSE(f.IsFolded("s_soft"));
  EXPECT_GE(oracle.inferences, 3);
  EXPECT_EQ(oracle.evaluations, 0);
}

// Host ops that the folder cannot evaluate still give the shapes their OpDef's rule says, so
// the device ops after them compile; Bitcast's shape follows the widths.
TEST(FoldTest, HostOpsOfTheTailGiveTheirRulesShapes) {
  TestOracle oracle;
  const Folded f =
      Fold({Placeholder("x", {-1, 4}), Placeholder("y", {1, 4}), Op("lgamma", "Lgamma", {"x"}),
            Op("igamma", "Igamma", {"y", "x"}), Op("roll_shift", "Roll", {"x", "x", "x"}),
            Op("wide", "Bitcast", {"x"}, {{"type", DType::kFloat}, {"T", DType::kFloat}}),
            Op("narrow", "Bitcast", {"x"}, {{"type", DType::kUInt8}, {"T", DType::kFloat}}),
            Op("bucket", "Bucketize", {"x"}), Op("diag", "MatrixDiag", {"x"}),
            Op("svd", "Svd", {"y"}), Op("eig", "SelfAdjointEigV2", {"x"}), Const("k", I32({2})),
            Op("top", "TopKV2", {"x", "k"}), Const("at", testing::TN<int64_t>({1, 0}, {1, 2})),
            Op("gather", "GatherNd", {"x", "at"}), Placeholder("c", {-1, 3}),
            Op("lstm", "LSTMBlockCell", {"x", "c", "c", "x", "x", "x", "x", "x"}),
            Placeholder("ids", {-1}, DType::kInt32), Op("segments", "SegmentSum", {"x", "ids"})},
           oracle);
  EXPECT_THAT(*f.Info("lgamma").shape, ElementsAre(kN, ArithExpr(4)));
  EXPECT_THAT(*f.Info("igamma").shape, ElementsAre(kN, ArithExpr(4)));
  EXPECT_THAT(*f.Info("roll_shift").shape, ElementsAre(kN, ArithExpr(4)));
  EXPECT_THAT(*f.Info("wide").shape, ElementsAre(kN, ArithExpr(4)));
  EXPECT_THAT(*f.Info("narrow").shape, ElementsAre(kN, ArithExpr(4), ArithExpr(4)));
  EXPECT_EQ(f.Info("narrow").dtype, DType::kUInt8);
  EXPECT_EQ(f.Info("bucket").dtype, DType::kInt32);
  EXPECT_THAT(*f.Info("diag").shape, ElementsAre(kN, ArithExpr(4), ArithExpr(4)));
  EXPECT_THAT(*f.Info("lstm", 6).shape, ElementsAre(ArithExpr::Var("N1"), ArithExpr(3)));
  EXPECT_THAT(*f.Info("svd", 0).shape, ElementsAre(ArithExpr(1)));  // s of a [1, 4] matrix
  EXPECT_THAT(*f.Info("svd", 2).shape, ElementsAre(ArithExpr(4), ArithExpr(1)));
  EXPECT_THAT(*f.Info("top", 1).shape, ElementsAre(kN, ArithExpr(2)));
  EXPECT_EQ(f.Info("top", 1).dtype, DType::kInt32);
  EXPECT_THAT(*f.Info("gather").shape, ElementsAre(ArithExpr(1)));
  // The number of segments is known when SegmentSum runs: a size variable of its own.
  ASSERT_TRUE(f.Info("segments").shape.has_value());
  EXPECT_EQ(f.Info("segments").shape->size(), 2u);
  EXPECT_FALSE((*f.Info("segments").shape)[0].AsConstant().has_value());
  EXPECT_NE((*f.Info("segments").shape)[0], kN);
  EXPECT_EQ((*f.Info("segments").shape)[1], ArithExpr(4));
  // No rule: unknown, not an error.
  EXPECT_FALSE(f.Info("eig").shape.has_value());
  EXPECT_FALSE(f.IsFolded("lgamma"));
}

// A host op whose output sizes depend on its values gives each such dimension a size variable
// of its own, bound when it runs; which outputs it has (NonMaxSuppression's scores and count)
// follows its version's outputs.
TEST(FoldTest, HostOpsWhoseSizesTheRunTellsGetSizeVariables) {
  TestOracle oracle;
  const Folded f = Fold(
      {Placeholder("x", {-1, 4}), Placeholder("y", {1, 4}), Placeholder("boxes", {-1, 4}),
       Placeholder("scores", {-1}), Placeholder("ids", {-1}, DType::kInt32),
       Const("max", testing::TN<int32_t>({3}, {})), Const("iou", testing::TN<float>({0.5f}, {})),
       Op("v4", "NonMaxSuppressionV4", {"boxes", "scores", "max", "iou", "iou"}),
       Op("v5", "NonMaxSuppressionV5", {"boxes", "scores", "max", "iou", "iou", "iou"}),
       Op("v3", "NonMaxSuppressionV3", {"boxes", "scores", "max", "iou", "iou"}),
       Op("unique", "UniqueWithCounts", {"ids"}, {{"out_idx", DType::kInt64}}),
       Op("where", "Where", {"x"}), Op("part", "MatrixDiagPart", {"y"}),
       Op("top", "TopK", {"x"}, {{"k", int64_t{3}}})},
      oracle);
  const auto is_variable = [](const ArithExpr& e) { return !e.AsConstant().has_value(); };
  for (const char* v : {"v3", "v4", "v5"}) {
    SCOPED_TRACE(v);
    ASSERT_EQ(f.Info(v).shape->size(), 1u);
    EXPECT_TRUE(is_variable((*f.Info(v).shape)[0]));
    EXPECT_EQ(f.Info(v).dtype, DType::kInt32);
  }
  EXPECT_EQ(*f.Info("v5", 1).shape, *f.Info("v5", 0).shape);  // the selected scores
  EXPECT_EQ(f.Info("v5", 1).dtype, DType::kFloat);
  EXPECT_TRUE(f.Info("v5", 2).shape->empty());  // the valid count
  EXPECT_TRUE(f.Info("v4", 1).shape->empty());
  EXPECT_EQ(f.Info("v4", 1).dtype, DType::kInt32);
  ASSERT_EQ(f.Info("unique", 0).shape->size(), 1u);
  EXPECT_TRUE(is_variable((*f.Info("unique", 0).shape)[0]));
  EXPECT_EQ(*f.Info("unique", 2).shape, *f.Info("unique", 0).shape);
  EXPECT_EQ(*f.Info("unique", 1).shape, *f.Info("ids").shape);  // idx is like x
  EXPECT_EQ(f.Info("unique", 1).dtype, DType::kInt64);
  ASSERT_EQ(f.Info("where").shape->size(), 2u);
  EXPECT_TRUE(is_variable((*f.Info("where").shape)[0]));
  EXPECT_EQ((*f.Info("where").shape)[1], ArithExpr(2));
  EXPECT_EQ(f.Info("where").dtype, DType::kInt64);
  EXPECT_THAT(*f.Info("part").shape, ElementsAre(ArithExpr(1)));  // min(1, 4)
  EXPECT_THAT(*f.Info("top", 0).shape, ElementsAre(kN, ArithExpr(3)));
}

TEST(FoldTest, StatefulNodesAreNeverFolded) {
  const Folded f = Fold({
      Op("v", "VariableV2", {},
         {{"dtype", DType::kFloat}, {"shape", PartialShape{.unknown_rank = false, .dims = {3}}}}),
      Const("init", T1<float>({1, 2, 3})),
      Op("assign", "Assign", {"v", "init"}),
      Op("read", "Identity", {"v"}),
      Const("shape", I32({2, 2})),
      Op("random", "RandomUniform", {"shape"}, {{"dtype", DType::kFloat}}),
      Placeholder("x", {-1, 4}),
      Op("sx", "Shape", {"x"}),
      Op("random_n", "RandomStandardNormal", {"sx"}, {{"dtype", DType::kFloat}}),
      Op("after", "Identity", {"init", "^assign"}),
      Op("pure", "Identity", {"init", "^shape"}),
  });
  for (const char* name : {"v", "assign", "read", "random", "random_n", "init", "x"}) {
    EXPECT_FALSE(f.IsFolded(name)) << name;
  }
  EXPECT_THAT(*f.Info("v").shape, ElementsAre(ArithExpr(3)));
  EXPECT_THAT(*f.Info("assign").shape, ElementsAre(ArithExpr(3)));
  EXPECT_THAT(*f.Info("read").shape, ElementsAre(ArithExpr(3)));
  EXPECT_EQ(f.Info("random").dtype, DType::kFloat);
  EXPECT_THAT(*f.Info("random").shape, ElementsAre(ArithExpr(2), ArithExpr(2)));
  EXPECT_FALSE(f.Info("random").is_constant());
  EXPECT_THAT(*f.Info("random_n").shape, ElementsAre(kN, ArithExpr(4)));
  // A control edge from an assignment orders something: the node keeps running.
  EXPECT_FALSE(f.IsFolded("after"));
  EXPECT_THAT(*f.Info("after").shape, ElementsAre(ArithExpr(3)));
  EXPECT_TRUE(f.IsFolded("pure"));
}

TEST(FoldTest, EvaluationErrorNamesTheNode) {
  absl::StatusOr<Graph> graph = Graph::FromNodes({Const("c", I32({1, 2, 3})), Const("to", I32({2})),
                                                  Op("bad_reshape", "Reshape", {"c", "to"})});
  ASSERT_TRUE(graph.ok());
  absl::StatusOr<FoldResult> result =
      FoldConstants(*graph, graph->topological_order(), TestOracle());
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("bad_reshape"));
}

TEST(FoldTest, FedPlaceholderOutsideTheNodesIsStillDescribed) {
  absl::StatusOr<Graph> graph =
      Graph::FromNodes({Placeholder("x", {-1, 3}), Op("s", "Shape", {"x"}),
                        Op("unsupported", "Foo", {"x"}), Op("after", "Shape", {"unsupported"})});
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<std::vector<int>> nodes =
      NeededNodes(*graph, {{"s", 0}, {"after", 0}}, {}, {{"x", 0}});
  ASSERT_TRUE(nodes.ok());
  ASSERT_EQ(nodes->size(), 3u);  // x is fed, so it does not run
  absl::StatusOr<FoldResult> result = FoldConstants(*graph, *nodes, TestOracle());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(*result->Info(*graph, {"s", 0}).symbolic_value, ElementsAre(kN, ArithExpr(3)));
  ASSERT_EQ(result->size_variables.size(), 1u);
  EXPECT_EQ(result->size_variables[0].placeholder, "x");
  // An op dfc does not know: nothing is known about it or what reads it.
  EXPECT_TRUE(result->info[graph->IndexOf("unsupported")].empty());
  EXPECT_FALSE(result->Info(*graph, {"unsupported", 0}).shape.has_value());
  EXPECT_FALSE(result->folded[graph->IndexOf("after")]);
  EXPECT_EQ(result->Info(*graph, {"nowhere", 0}).dtype, DType::kInvalid);
}

// The training graph of a softmax regression on MNIST, as TensorFlow 1 wrote it: the Mean
// gradient's shape arithmetic folds to expressions in N.
class MnistTrainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Graph> graph =
        LoadGraph(testing::SharedDir() + "/models/dl4j_mnist_00_softmax_train.pbtxt");
    ASSERT_TRUE(graph.ok()) << graph.status();
    graph_ = std::make_shared<const Graph>(*std::move(graph));
    absl::StatusOr<FoldResult> result =
        FoldConstants(*graph_, graph_->topological_order(), oracle_);
    ASSERT_TRUE(result.ok()) << result.status();
    result_ = *std::move(result);
  }

  const TensorInfo& Info(absl::string_view name, int index = 0) const {
    return result_.Info(*graph_, {std::string(name), index});
  }
  bool IsFolded(absl::string_view name) const { return result_.folded[graph_->IndexOf(name)]; }

  TestOracle oracle_;
  std::shared_ptr<const Graph> graph_;
  FoldResult result_;
};

TEST_F(MnistTrainTest, MeanGradientFoldsSymbolically) {
  EXPECT_THAT(*Info("input").shape, ElementsAre(kN, ArithExpr(784)));
  EXPECT_THAT(*Info("output").shape, ElementsAre(kN, ArithExpr(10)));
  for (const char* name : {"Slice_2", "gradients/Mean_grad/Shape", "gradients/Mean_grad/Shape_1"}) {
    EXPECT_TRUE(IsFolded(name)) << name;
    ASSERT_TRUE(Info(name).symbolic_value.has_value()) << name;
    EXPECT_THAT(*Info(name).symbolic_value, ElementsAre(kN)) << name;
  }
  for (const char* name : {"gradients/Mean_grad/Prod", "gradients/Mean_grad/floordiv"}) {
    EXPECT_TRUE(IsFolded(name)) << name;
    ASSERT_TRUE(Info(name).symbolic_value.has_value()) << name;
    EXPECT_THAT(*Info(name).symbolic_value, ElementsAre(kN)) << name;
    EXPECT_TRUE(Info(name).shape->empty()) << name;
  }
  for (const char* name : {"gradients/Mean_grad/Prod_1", "gradients/Mean_grad/Maximum"}) {
    EXPECT_TRUE(IsFolded(name)) << name;
    ASSERT_TRUE(Info(name).is_constant()) << name;
    EXPECT_EQ(Info(name).value->ElementAsInt64(0), 1) << name;
  }
  // The reshape of Mean's input: [-1, 10] with -1 folded from Shape -> Slice -> ConcatV2.
  ASSERT_TRUE(Info("concat").is_constant());
  EXPECT_EQ(testing::Values<int32_t>(*Info("concat").value), (std::vector<int32_t>{-1, 10}));
  EXPECT_TRUE(IsFolded("gradients/Fill"));
  EXPECT_TRUE(IsFolded("gradients/Mean_grad/Reshape"));
  // The count as a float is only known at run time; the division by it runs on the device.
  EXPECT_FALSE(IsFolded("gradients/Mean_grad/Cast"));
  EXPECT_EQ(Info("gradients/Mean_grad/Cast").dtype, DType::kFloat);
  EXPECT_TRUE(Info("gradients/Mean_grad/Cast").shape->empty());
  EXPECT_FALSE(IsFolded("gradients/Mean_grad/Tile"));
  EXPECT_THAT(*Info("gradients/Mean_grad/Tile").shape, ElementsAre(kN));

  // Each placeholder's batch is its own variable until unification (ir/from_tf) merges them.
  ASSERT_EQ(result_.size_variables.size(), 2u);
  EXPECT_EQ(result_.size_variables[0].name, "N");
  EXPECT_EQ(result_.size_variables[1].name, "N1");
}

TEST_F(MnistTrainTest, NoStatefulConstantOrPlaceholderIsFolded) {
  for (int i : graph_->topological_order()) {
    const Node& node = graph_->node(i);
    const OpDef* def = FindOpDef(node.op);
    if (def == nullptr || def->stateful || node.op == "Const" ||
        absl::StartsWith(node.op, "Placeholder")) {
      EXPECT_FALSE(result_.folded[i]) << node.name;
    }
    if (def == nullptr) {
      EXPECT_TRUE(result_.info[i].empty()) << node.name;
    }
  }
  EXPECT_THAT(*Info("Variable").shape, ElementsAre(ArithExpr(784), ArithExpr(10)));
  EXPECT_THAT(*Info("GradientDescent/update_Variable/ApplyGradientDescent").shape,
              ElementsAre(ArithExpr(784), ArithExpr(10)));
}

// Every folded value of the training step, at batch sizes 3 and 1, equals what the reference
// session computes.
TEST_F(MnistTrainTest, FoldedValuesAgreeWithTheSession) {
  absl::StatusOr<std::vector<int>> needed =
      NeededNodes(*graph_, {}, {"GradientDescent"}, {{"input", 0}, {"Placeholder", 0}});
  ASSERT_TRUE(needed.ok());
  std::vector<std::string> fetches;
  std::vector<const TensorInfo*> infos;
  for (int i : *needed) {
    if (!result_.folded[i]) continue;
    for (size_t k = 0; k < result_.info[i].size(); ++k) {
      fetches.push_back(TensorId{graph_->node(i).name, static_cast<int>(k)}.ToString());
      infos.push_back(&result_.info[i][k]);
    }
  }
  ASSERT_GT(fetches.size(), 20u);
  for (int64_t batch : {3, 1}) {
    reference::Session session(graph_);
    ASSERT_TRUE(session.Run({}, {}, {"init"}).ok());
    std::vector<Feed> feeds = {{{"input"}, Tensor::Zeros(DType::kFloat, {batch, 784})},
                               {{"Placeholder"}, Tensor::Zeros(DType::kFloat, {batch, 10})}};
    absl::StatusOr<std::vector<Tensor>> values = session.Run(feeds, fetches);
    ASSERT_TRUE(values.ok()) << values.status();
    const SizeBindings bindings = {{"N", batch}, {"N1", batch}};
    for (size_t f = 0; f < fetches.size(); ++f) {
      SCOPED_TRACE(absl::StrCat(fetches[f], " at N = ", batch));
      const TensorInfo& info = *infos[f];
      const Tensor& actual = (*values)[f];
      EXPECT_EQ(info.dtype, actual.dtype());
      ASSERT_TRUE(info.shape.has_value());
      ASSERT_EQ(info.shape->size(), actual.shape().size());
      for (size_t d = 0; d < info.shape->size(); ++d) {
        EXPECT_EQ((*info.shape)[d].Evaluate(bindings).value_or(-1), actual.dim(d));
      }
      if (info.value) {
        EXPECT_TRUE(info.value->BitwiseEqual(actual));
      }
      if (info.symbolic_value) {
        ASSERT_EQ(static_cast<int64_t>(info.symbolic_value->size()), actual.num_elements());
        for (int64_t k = 0; k < actual.num_elements(); ++k) {
          EXPECT_EQ((*info.symbolic_value)[k].Evaluate(bindings).value_or(-1),
                    actual.ElementAsInt64(k));
        }
      }
    }
  }
}

}  // namespace
}  // namespace dfc
