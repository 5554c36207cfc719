// Tests for the convolution gradient translations (convolution_grad.cc): the input and filter
// gradients of Conv2D, Conv3D and DepthwiseConv2dNative over both data formats, strides,
// dilations, the three paddings and grouped filters, on the dtypes TensorFlow's CPU kernels
// take, with a symbolic batch; ExtractImagePatches on every dtype, as views only; all against
// the reference executor, and the refusals that name the node and the shapes.
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/dtype.h"
#include "graph/fold.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "ir/from_tf/size_unifier.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"
#include "ir/printer.h"
#include "tests/test_util.h"
#include "tests/translate_testing.h"
#include "tests/window_testing.h"

namespace dfc::ir {
namespace {

using ::dfc::testing::InDataFormat;
using ::dfc::testing::Ints;
using ::dfc::testing::MakeNode;
using ::dfc::testing::PerDimension;
using ::dfc::testing::RunOp;
using ::dfc::testing::TranslationMatchesReference;
using ::testing::HasSubstr;
using ::testing::Not;

// Seeded values in [-1, 1) (integers in [-4, 4], bools alternating at random): sums of a few
// dozen products stay well inside every dtype's range and precision.
Tensor RandomTensor(DType dtype, const Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  Tensor t = Tensor::Zeros(dtype, shape);
  DispatchDType(dtype, [&]<typename T>() {
    for (T& v : t.mutable_flat<T>()) {
      const double x = std::uniform_real_distribution<double>(-1, 1)(rng);
      if constexpr (std::is_same_v<T, bool>) {
        v = x > 0;
      } else if constexpr (std::is_integral_v<T>) {
        v = static_cast<T>(static_cast<int>(x * 4.5));
      } else {
        v = static_cast<T>(static_cast<float>(x));
      }
    }
  });
  return t;
}

struct GradCase {
  std::string forward;  // Conv2D, DepthwiseConv2dNative, Conv3D
  DType dtype;
  bool channels_first;
  Shape input;   // N, spatial..., C (channels last; transposed for channels_first)
  Shape filter;  // K..., C (or C / groups), M
  std::vector<int64_t> strides, dilations;  // spatial
  std::string padding;
  std::vector<int64_t> explicit_pads;  // spatial, before and after each
  std::string name;
};

void PrintTo(const GradCase& c, std::ostream* os) { *os << c.name; }

std::string InputGradOp(const std::string& forward) {
  if (forward == "Conv3D") return "Conv3DBackpropInputV2";
  return forward + "BackpropInput";
}
std::string FilterGradOp(const std::string& forward) {
  if (forward == "Conv3D") return "Conv3DBackpropFilterV2";
  return forward + "BackpropFilter";
}

AttrMap ConvAttrs(const GradCase& c) {
  const int k = static_cast<int>(c.strides.size());
  const std::string format =
      k == 3 ? (c.channels_first ? "NCDHW" : "NDHWC") : (c.channels_first ? "NCHW" : "NHWC");
  AttrMap attrs = {{"T", c.dtype},
                   {"data_format", format},
                   {"strides", Ints(PerDimension(c.strides, c.channels_first))},
                   {"dilations", Ints(PerDimension(c.dilations, c.channels_first))},
                   {"padding", c.padding}};
  if (c.padding == "EXPLICIT") {
    std::vector<int64_t> pads = {0, 0};
    if (c.channels_first) pads.insert(pads.end(), {0, 0});
    pads.insert(pads.end(), c.explicit_pads.begin(), c.explicit_pads.end());
    if (!c.channels_first) pads.insert(pads.end(), {0, 0});
    attrs["explicit_paddings"] = Ints(pads);
  }
  return attrs;
}

Tensor Sizes(const Shape& s) {
  std::vector<int32_t> v(s.begin(), s.end());
  return Tensor::FromVector<int32_t>(v, {static_cast<int64_t>(v.size())});
}

// The forward op's output shape, from the reference.
Shape ForwardShape(const GradCase& c, const Tensor& x, const Tensor& f) {
  absl::StatusOr<std::vector<Tensor>> y = RunOp(c.forward, {x, f}, ConvAttrs(c));
  if (!y.ok()) {
    ADD_FAILURE() << y.status();
    return {};
  }
  return (*y)[0].shape();
}

std::vector<GradCase> GradCases() {
  struct Geometry {
    Shape input, filter;
    std::vector<int64_t> strides, dilations;
    std::string padding;
    std::vector<int64_t> explicit_pads;
  };
  const std::vector<Geometry> conv2d = {
      {{2, 5, 5, 3}, {3, 3, 3, 4}, {1, 1}, {1, 1}, "SAME", {}},
      {{1, 6, 7, 2}, {2, 3, 2, 3}, {2, 2}, {1, 1}, "SAME", {}},
      {{2, 7, 6, 2}, {3, 2, 2, 2}, {2, 3}, {1, 1}, "VALID", {}},
      {{1, 8, 7, 2}, {3, 3, 2, 2}, {3, 2}, {1, 1}, "VALID", {}},  // rows the strides skip
      {{1, 7, 7, 1}, {2, 2, 1, 2}, {1, 1}, {2, 3}, "SAME", {}},
      {{2, 8, 6, 2}, {3, 2, 2, 1}, {2, 1}, {2, 2}, "VALID", {}},
      {{1, 4, 5, 2}, {3, 3, 2, 2}, {1, 2}, {1, 1}, "EXPLICIT", {2, 0, 1, 3}},
      {{1, 3, 4, 2}, {2, 2, 2, 2}, {2, 1}, {1, 1}, "EXPLICIT", {4, 1, 0, 2}},  // pad > window
      {{3, 1, 1, 5}, {1, 1, 5, 6}, {1, 1}, {1, 1}, "VALID", {}},               // a 1x1 convolution
      // More output (input) channels than a filter (input) gradient keeps accumulators for
      // (kRegisterAccumulators).
      {{1, 3, 3, 2}, {2, 2, 2, 65}, {1, 1}, {1, 1}, "VALID", {}},
      {{1, 3, 3, 65}, {2, 2, 65, 2}, {1, 1}, {1, 1}, "SAME", {}},
  };
  std::vector<GradCase> cases;
  for (const std::string forward : {"Conv2D", "DepthwiseConv2dNative"}) {
    for (DType d : {DType::kFloat, DType::kHalf, DType::kDouble}) {
      for (bool channels_first : {false, true}) {
        for (size_t g = 0; g < conv2d.size(); ++g) {
          const Geometry& geo = conv2d[g];
          cases.push_back(
              {forward, d, channels_first, geo.input, geo.filter, geo.strides, geo.dilations,
               geo.padding, geo.explicit_pads,
               absl::StrCat(forward, "_", DTypeName(d), channels_first ? "_NCHW" : "_NHWC", "_", g,
                            "_", geo.padding)});
        }
      }
    }
  }
  // Grouped filters: the filter's depth a divisor of the input's channels.
  for (bool channels_first : {false, true}) {
    cases.push_back({"Conv2D",
                     DType::kFloat,
                     channels_first,
                     {2, 5, 4, 4},
                     {3, 2, 2, 6},
                     {1, 2},
                     {1, 1},
                     "SAME",
                     {},
                     absl::StrCat("Conv2D_grouped2", channels_first ? "_NCHW" : "_NHWC")});
    cases.push_back({"Conv2D",
                     DType::kFloat,
                     channels_first,
                     {1, 5, 5, 6},
                     {2, 2, 1, 6},
                     {2, 1},
                     {1, 1},
                     "VALID",
                     {},
                     absl::StrCat("Conv2D_grouped6", channels_first ? "_NCHW" : "_NHWC")});
  }
  const std::vector<Geometry> conv3d = {
      {{1, 4, 5, 4, 2}, {2, 3, 2, 2, 3}, {1, 2, 1}, {1, 1, 1}, "SAME", {}},
      {{2, 5, 4, 4, 1}, {3, 2, 2, 1, 2}, {2, 1, 2}, {1, 1, 1}, "VALID", {}},
      {{1, 5, 5, 5, 1}, {2, 2, 2, 1, 1}, {1, 1, 1}, {2, 1, 2}, "SAME", {}},
      {{1, 4, 4, 4, 2}, {2, 2, 2, 2, 2}, {2, 2, 2}, {1, 1, 1}, "SAME", {}},
  };
  for (DType d : {DType::kFloat, DType::kHalf}) {
    for (bool channels_first : {false, true}) {
      for (size_t g = 0; g < conv3d.size(); ++g) {
        const Geometry& geo = conv3d[g];
        cases.push_back({"Conv3D",
                         d,
                         channels_first,
                         geo.input,
                         geo.filter,
                         geo.strides,
                         geo.dilations,
                         geo.padding,
                         {},
                         absl::StrCat("Conv3D_", DTypeName(d), channels_first ? "_NCDHW" : "_NDHWC",
                                      "_", g, "_", geo.padding)});
      }
    }
  }
  return cases;
}

class ConvGradTest : public ::testing::TestWithParam<GradCase> {};

// With float32, the batch also a size variable: one translation serves every batch. input_sizes
// is then known symbolically, as a Shape of the forward input computes it, or a constant.
TEST_P(ConvGradTest, InputGradMatchesReference) {
  const GradCase& c = GetParam();
  const uint32_t seed = static_cast<uint32_t>(c.name.size());
  const Shape x_shape = InDataFormat(c.input, c.channels_first);
  const Tensor x = RandomTensor(c.dtype, x_shape, seed);
  const Tensor f = RandomTensor(c.dtype, c.filter, seed + 1);
  const Tensor dy = RandomTensor(c.dtype, ForwardShape(c, x, f), seed + 2);
  const Node node = MakeNode(InputGradOp(c.forward), ConvAttrs(c), 3);
  EXPECT_TRUE(TranslationMatchesReference(node, {Sizes(x_shape), f, dy}));
  if (c.dtype == DType::kFloat) {
    std::vector<ArithExpr> sizes = {ArithExpr::Var("N")};
    for (size_t i = 1; i < x_shape.size(); ++i) sizes.push_back(x_shape[i]);
    EXPECT_TRUE(
        TranslationMatchesReference(node, {Sizes(x_shape), f, dy},
                                    {.symbolic_dims = {{2, 0}}, .symbolic_values = {{0, sizes}}}));
    // A constant input_sizes is trusted to give the batch that out_backprop has.
    EXPECT_TRUE(
        TranslationMatchesReference(node, {Sizes(x_shape), f, dy}, {.symbolic_dims = {{2, 0}}}));
  }
}

TEST_P(ConvGradTest, FilterGradMatchesReference) {
  const GradCase& c = GetParam();
  const uint32_t seed = static_cast<uint32_t>(c.name.size());
  const Tensor x = RandomTensor(c.dtype, InDataFormat(c.input, c.channels_first), seed);
  const Tensor f = RandomTensor(c.dtype, c.filter, seed + 1);
  const Tensor dy = RandomTensor(c.dtype, ForwardShape(c, x, f), seed + 2);
  const Node node = MakeNode(FilterGradOp(c.forward), ConvAttrs(c), 3);
  EXPECT_TRUE(TranslationMatchesReference(node, {x, Sizes(c.filter), dy}));
  if (c.dtype == DType::kFloat) {
    EXPECT_TRUE(TranslationMatchesReference(node, {x, Sizes(c.filter), dy},
                                            {.symbolic_dims = {{0, 0}, {2, 0}}}));
  }
}

INSTANTIATE_TEST_SUITE_P(All, ConvGradTest, ::testing::ValuesIn(GradCases()),
                         [](const auto& info) { return info.param.name; });

// Conv2DBackpropInput on int32, which TensorFlow registers (its filter gradient it does not).
TEST(ConvGradTest, Conv2DBackpropInputOnInt32) {
  const GradCase c{"Conv2D", DType::kInt32, false,  {2, 5, 4, 2}, {2, 2, 2, 3},
                   {1, 2},   {1, 1},        "SAME", {},           ""};
  const Tensor x = RandomTensor(DType::kInt32, c.input, 1);
  const Tensor f = RandomTensor(DType::kInt32, c.filter, 2);
  const Tensor dy = RandomTensor(DType::kInt32, ForwardShape(c, x, f), 3);
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("Conv2DBackpropInput", ConvAttrs(c), 3),
                                          {Sizes(c.input), f, dy}));
  // Refused by both.
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("Conv2DBackpropFilter", ConvAttrs(c), 3),
                                          {x, Sizes(c.filter), dy}));
}

// Conv2DBackpropInput's input_sizes may be just [H, W]: the batch is out_backprop's and the
// channels the filter's.
TEST(ConvGradTest, Conv2DBackpropInputTakesSpatialSizes) {
  for (bool channels_first : {false, true}) {
    const GradCase c{"Conv2D", DType::kFloat, channels_first, {2, 6, 5, 3}, {3, 2, 3, 2},
                     {2, 2},   {1, 1},        "SAME",         {},           ""};
    const Tensor x = RandomTensor(DType::kFloat, InDataFormat(c.input, channels_first), 1);
    const Tensor f = RandomTensor(DType::kFloat, c.filter, 2);
    const Tensor dy = RandomTensor(DType::kFloat, ForwardShape(c, x, f), 3);
    EXPECT_TRUE(TranslationMatchesReference(MakeNode("Conv2DBackpropInput", ConvAttrs(c), 3),
                                            {Sizes({6, 5}), f, dy}));
    EXPECT_TRUE(TranslationMatchesReference(MakeNode("Conv2DBackpropInput", ConvAttrs(c), 3),
                                            {Sizes({6, 5}), f, dy}, {.symbolic_dims = {{2, 0}}}));
  }
}

// What the reference refuses, the translation refuses: the harness checks both sides.
TEST(ConvGradTest, RefusesWhatTheReferenceRefuses) {
  const GradCase c{"Conv2D", DType::kFloat, false,   {1, 5, 5, 4}, {3, 3, 2, 4},
                   {1, 1},   {1, 1},        "VALID", {},           ""};
  const Node input_grad = MakeNode("Conv2DBackpropInput", ConvAttrs(c), 3);
  const Node filter_grad = MakeNode("Conv2DBackpropFilter", ConvAttrs(c), 3);
  const Tensor x = RandomTensor(DType::kFloat, c.input, 1);
  const Tensor f = RandomTensor(DType::kFloat, c.filter, 2);
  const Tensor dy = RandomTensor(DType::kFloat, {1, 3, 3, 4}, 3);
  const Tensor wrong_dy = RandomTensor(DType::kFloat, {1, 3, 4, 4}, 3);
  ASSERT_TRUE(TranslationMatchesReference(input_grad, {Sizes(c.input), f, dy}));
  for (const std::vector<Tensor>& inputs : std::vector<std::vector<Tensor>>{
           {Sizes(c.input), f, wrong_dy},                                    // dy's shape
           {Sizes({1, 5, 5, 3}), f, dy},                                     // 3 channels, depth 2
           {Sizes({1, 5, 5}), f, dy},                                        // a rank
           {Sizes({1, -5, 5, 4}), f, dy},                                    // negative
           {Sizes({1, 2, 5, 4}), f, dy},                                     // window too large
           {Sizes(c.input), RandomTensor(DType::kDouble, c.filter, 2), dy},  // dtypes differ
       }) {
    EXPECT_TRUE(TranslationMatchesReference(input_grad, inputs));
  }
  ASSERT_TRUE(TranslationMatchesReference(filter_grad, {x, Sizes(c.filter), dy}));
  for (const std::vector<Tensor>& inputs : std::vector<std::vector<Tensor>>{
           {x, Sizes(c.filter), wrong_dy},
           {x, Sizes({3, 3, 2, 3}), dy},  // out_channels not a multiple of the 2 groups
           {x, Sizes({3, 3, 3, 4}), dy},  // depth 3 does not divide 4 channels
           {x, Sizes({3, 3, 2}), dy},
           {x, Sizes({3, 3, -2, 4}), dy},
       }) {
    EXPECT_TRUE(TranslationMatchesReference(filter_grad, inputs));
  }
}

// The translation's error message (empty if it translates).
std::string TranslateError(const Node& node, const std::vector<Tensor>& inputs) {
  std::vector<TensorInfo> infos(inputs.size());
  std::vector<TranslateInput> translate_inputs(inputs.size());
  const Translation* translation = FindTranslation(node.op);
  for (size_t i = 0; i < inputs.size(); ++i) {
    infos[i] = ConstantInfo(inputs[i]);
    const bool is_static =
        translation->IsStaticInput(static_cast<int>(i), static_cast<int>(inputs.size()));
    translate_inputs[i] = {
        is_static ? nullptr
                  : MakeParam("in", TensorType(inputs[i].dtype(), ToSymbolic(inputs[i].shape()))),
        &infos[i]};
  }
  return std::string(TranslateNode(node, translate_inputs).status().message());
}

TEST(ConvGradTest, ErrorsNameTheNodeAndTheShapes) {
  const GradCase c{"Conv2D", DType::kFloat, false,   {1, 5, 5, 4}, {3, 3, 4, 2},
                   {1, 1},   {1, 1},        "VALID", {},           ""};
  const Tensor f = RandomTensor(DType::kFloat, c.filter, 2);
  EXPECT_THAT(TranslateError(MakeNode("Conv2DBackpropInput", ConvAttrs(c), 3),
                             {Sizes(c.input), f, RandomTensor(DType::kFloat, {1, 3, 4, 2}, 3)}),
              HasSubstr("node \"node\" (Conv2DBackpropInput): out_backprop is [1,3,4,2], expected "
                        "[1,3,3,2]"));
  EXPECT_THAT(
      TranslateError(MakeNode("Conv3DBackpropFilterV2", ConvAttrs(c), 3),
                     {RandomTensor(DType::kFloat, c.input, 1), Sizes(c.filter),
                      RandomTensor(DType::kFloat, {1, 3, 3, 2}, 3)}),
      HasSubstr("node \"node\" (Conv3DBackpropFilterV2): data_format \"NHWC\" is not supported"));
}

// A filter gradient's input and out_backprop share the batch: the unify hook makes two size
// variables one (the hook sees the data inputs' shapes only).
// The IR of Conv2DBackpropFilter of an [N][5][5][c] input into `m` output channels, in `groups`
// groups.
std::string FilterGradIr(int64_t c, int64_t m, int64_t groups) {
  const GradCase g{"Conv2D", DType::kFloat, false,  {2, 5, 5, c}, {3, 3, c / groups, m},
                   {1, 1},   {1, 1},        "SAME", {},           "ir"};
  const Node node = MakeNode("Conv2DBackpropFilter", ConvAttrs(g), 3);
  const Tensor sizes = Sizes(g.filter);
  TensorInfo known = ConstantInfo(sizes);
  const std::vector<TranslateInput> inputs = {
      {MakeParam("x", TensorType(DType::kFloat, {ArithExpr::Var("N"), 5, 5, c})), nullptr},
      {nullptr, &known},
      {MakeParam("dy", TensorType(DType::kFloat, {ArithExpr::Var("N"), 5, 5, m})), nullptr}};
  absl::StatusOr<std::vector<ExprPtr>> translated = TranslateNode(node, inputs);
  if (!translated.ok()) return std::string(translated.status().message());
  return ToString((*translated)[0]);
}

// An ungrouped filter gradient of at most kRegisterAccumulators output channels folds each tap
// and channel's line once into that many accumulators (a Reduce from Repeat(m) of zero) over
// dy's rows as they lie; more channels, or groups, fold a dot product per output channel.
TEST(ConvGradTest, FilterGradFoldsEachLineOnceForFewOutputChannels) {
  EXPECT_THAT(FilterGradIr(4, 7, 1), HasSubstr("Repeat(7)"));
  EXPECT_THAT(FilterGradIr(4, kRegisterAccumulators, 1),
              HasSubstr(absl::StrCat("Repeat(", kRegisterAccumulators, ")")));
  EXPECT_THAT(FilterGradIr(4, kRegisterAccumulators + 1, 1),
              Not(HasSubstr(absl::StrCat("Repeat(", kRegisterAccumulators + 1, ")"))));
  EXPECT_THAT(FilterGradIr(4, 6, 2), Not(HasSubstr("Repeat(6)")));
}

TEST(ConvGradTest, FilterGradUnifiesTheBatch) {
  for (const char* op :
       {"Conv2DBackpropFilter", "DepthwiseConv2dNativeBackpropFilter", "Conv3DBackpropFilterV2"}) {
    const Translation* translation = FindTranslation(op);
    ASSERT_NE(translation, nullptr);
    ASSERT_NE(translation->unify_sizes, nullptr);
    absl::flat_hash_map<std::string, ArithExpr> substitutions;
    SizeUnifier unifier(substitutions);
    const std::vector<SymbolicShape> shapes = {{ArithExpr::Var("N"), 5, 5, 2},
                                               {ArithExpr::Var("N1"), 3, 3, 4}};
    EXPECT_TRUE(translation->unify_sizes(MakeNode(op), shapes, unifier)) << op;
    EXPECT_EQ(substitutions.size(), 1u) << op;
  }
}

// ExtractImagePatches: a copy, so every dtype; pure views.
struct PatchesCase {
  DType dtype;
  Shape input;
  std::vector<int64_t> ksizes, strides, rates;
  std::string padding;
  std::string name;
};

void PrintTo(const PatchesCase& c, std::ostream* os) { *os << c.name; }

std::vector<PatchesCase> PatchesCases() {
  struct Geometry {
    Shape input;
    std::vector<int64_t> ksizes, strides, rates;
    std::string padding;
  };
  const std::vector<Geometry> geometries = {
      {{1, 6, 6, 2}, {3, 3}, {1, 1}, {1, 1}, "SAME"},
      {{1, 6, 6, 2}, {3, 3}, {1, 1}, {1, 1}, "VALID"},
      {{2, 8, 8, 2}, {2, 2}, {2, 2}, {1, 1}, "SAME"},
      {{1, 8, 8, 2}, {2, 2}, {1, 1}, {2, 2}, "SAME"},
      {{2, 7, 5, 3}, {2, 3}, {3, 1}, {1, 2}, "VALID"},
      {{1, 4, 4, 1}, {1, 1}, {2, 2}, {1, 1}, "VALID"},
  };
  std::vector<PatchesCase> cases;
  for (DType d : {DType::kFloat, DType::kHalf, DType::kDouble, DType::kInt8, DType::kInt16,
                  DType::kInt32, DType::kInt64, DType::kUInt8, DType::kUInt16, DType::kUInt32,
                  DType::kUInt64, DType::kBool}) {
    for (size_t g = 0; g < geometries.size(); ++g) {
      const Geometry& geo = geometries[g];
      cases.push_back({d, geo.input, geo.ksizes, geo.strides, geo.rates, geo.padding,
                       absl::StrCat(DTypeName(d), "_", g, "_", geo.padding)});
    }
  }
  return cases;
}

Node PatchesNode(const PatchesCase& c) {
  return MakeNode("ExtractImagePatches",
                  {{"T", c.dtype},
                   {"ksizes", Ints(PerDimension(c.ksizes, false))},
                   {"strides", Ints(PerDimension(c.strides, false))},
                   {"rates", Ints(PerDimension(c.rates, false))},
                   {"padding", c.padding}},
                  1);
}

class PatchesTest : public ::testing::TestWithParam<PatchesCase> {};

TEST_P(PatchesTest, MatchesReferenceAsViews) {
  const PatchesCase& c = GetParam();
  const Tensor x = RandomTensor(c.dtype, c.input, static_cast<uint32_t>(c.name.size()));
  EXPECT_TRUE(TranslationMatchesReference(PatchesNode(c), {x}, {.views_only = true}));
  if (c.dtype == DType::kFloat) {
    EXPECT_TRUE(TranslationMatchesReference(PatchesNode(c), {x},
                                            {.symbolic_dims = {{0, 0}}, .views_only = true}));
  }
}

INSTANTIATE_TEST_SUITE_P(All, PatchesTest, ::testing::ValuesIn(PatchesCases()),
                         [](const auto& info) { return info.param.name; });

TEST(PatchesTest, RefusesWhatTheReferenceRefuses) {
  const PatchesCase c{DType::kFloat, {1, 4, 4, 2}, {2, 2}, {1, 1}, {1, 1}, "VALID", ""};
  const Tensor x = RandomTensor(DType::kFloat, c.input, 1);
  Node no_rates = PatchesNode(c);
  no_rates.attrs.erase("rates");
  EXPECT_TRUE(TranslationMatchesReference(no_rates, {x}));
  Node nchw = PatchesNode(c);
  nchw.attrs["data_format"] = std::string("NCHW");
  EXPECT_TRUE(TranslationMatchesReference(nchw, {x}));
  Node large = PatchesNode(c);
  large.attrs["ksizes"] = Ints({1, 5, 2, 1});
  EXPECT_TRUE(TranslationMatchesReference(large, {x}));
  EXPECT_TRUE(
      TranslationMatchesReference(PatchesNode(c), {RandomTensor(DType::kFloat, {4, 4, 2}, 1)}));
}

}  // namespace
}  // namespace dfc::ir
