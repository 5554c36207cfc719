// Tests for the pool gradient translations (pooling_grad.cc): MaxPoolGrad, MaxPoolGradV2 and
// AvgPoolGrad over both data formats, strides, SAME, VALID (and MaxPoolGrad's EXPLICIT)
// padding, on the dtypes TensorFlow's CPU kernels take, with ties and NaN for the first-maximum
// rule and a symbolic batch; MaxPoolWithArgmax with both index dtypes, with and without the
// batch in the index; all against the reference executor.
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/dtype.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "ir/from_tf/size_unifier.h"
#include "ir/from_tf/translate.h"
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

// How a test input is filled.
enum class Fill {
  kRandom,  // seeded values in [-1, 1) (integers in [-50, 50])
  kTies,    // integers in [-2, 2] (floats too): windows with equal maxima
  kNaN,     // random, with NaN and -inf sprinkled in (floats only)
};

Tensor MakeTensor(DType dtype, const Shape& shape, uint32_t seed, Fill fill = Fill::kRandom) {
  std::mt19937 rng(seed);
  Tensor t = Tensor::Zeros(dtype, shape);
  DispatchDType(dtype, [&]<typename T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      for (T& v : t.mutable_flat<T>()) {
        const double x = std::uniform_real_distribution<double>(-1, 1)(rng);
        const double scale = fill == Fill::kTies ? 2.5 : 50;
        if constexpr (std::is_integral_v<T>) {
          v = static_cast<T>(static_cast<int>(x * scale));
        } else if (fill == Fill::kTies) {
          v = static_cast<T>(static_cast<float>(static_cast<int>(x * scale)));
        } else {
          v = static_cast<T>(static_cast<float>(x));
          const int special = std::uniform_int_distribution<int>(0, 9)(rng);
          if (fill == Fill::kNaN && special == 0) v = static_cast<T>(std::nanf(""));
          if (fill == Fill::kNaN && special == 1) {
            v = static_cast<T>(-std::numeric_limits<float>::infinity());
          }
        }
      }
    }
  });
  return t;
}

Tensor Int32s(const std::vector<int64_t>& v) {
  std::vector<int32_t> w(v.begin(), v.end());
  return Tensor::FromVector<int32_t>(w, {static_cast<int64_t>(w.size())});
}

struct GradCase {
  std::string op;  // MaxPoolGrad, MaxPoolGradV2, AvgPoolGrad
  DType dtype;
  bool channels_first;
  Shape input;                          // channels last
  std::vector<int64_t> ksize, strides;  // spatial
  std::string padding;
  std::vector<int64_t> explicit_pads;  // spatial, before and after each
  Fill fill;
  std::string name;
};

void PrintTo(const GradCase& c, std::ostream* os) { *os << c.name; }

// The forward pool's attributes (MaxPool or AvgPool).
AttrMap PoolAttrs(const GradCase& c) {
  AttrMap attrs = {{"T", c.dtype},
                   {"data_format", std::string(c.channels_first ? "NCHW" : "NHWC")},
                   {"ksize", Ints(PerDimension(c.ksize, c.channels_first))},
                   {"strides", Ints(PerDimension(c.strides, c.channels_first))},
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

std::vector<GradCase> GradCases() {
  struct Geometry {
    Shape input;
    std::vector<int64_t> ksize, strides;
    std::string padding;
    std::vector<int64_t> explicit_pads;
  };
  const std::vector<Geometry> geometries = {
      {{2, 6, 6, 3}, {2, 2}, {2, 2}, "VALID", {}},
      {{1, 5, 7, 2}, {3, 3}, {2, 2}, "SAME", {}},  // overlapping windows
      {{2, 5, 4, 1}, {2, 3}, {1, 2}, "SAME", {}},
      {{1, 7, 5, 2}, {3, 2}, {2, 1}, "VALID", {}},
      {{1, 8, 7, 2}, {2, 2}, {3, 3}, "VALID", {}},  // rows no window reads
      {{3, 4, 4, 2}, {1, 1}, {1, 1}, "SAME", {}},
      {{1, 4, 5, 2}, {3, 3}, {1, 1}, "SAME", {}},  // windows larger than half the input
  };
  const std::vector<Geometry> explicit_geometries = {
      {{1, 5, 4, 2}, {3, 2}, {2, 1}, "EXPLICIT", {1, 2, 0, 1}},
      {{1, 3, 3, 1}, {2, 2}, {2, 2}, "EXPLICIT", {3, 0, 0, 2}},  // windows all padding
  };
  std::vector<GradCase> cases;
  const auto add = [&](const std::string& op, DType d, Fill fill, const std::string& tag,
                       const std::vector<Geometry>& list) {
    for (bool channels_first : {false, true}) {
      for (size_t g = 0; g < list.size(); ++g) {
        const Geometry& geo = list[g];
        cases.push_back({op, d, channels_first, geo.input, geo.ksize, geo.strides, geo.padding,
                         geo.explicit_pads, fill,
                         absl::StrCat(op, "_", DTypeName(d), tag,
                                      channels_first ? "_NCHW_" : "_NHWC_", g, "_", geo.padding)});
      }
    }
  };
  for (DType d : {DType::kFloat, DType::kHalf, DType::kDouble, DType::kInt32, DType::kInt8,
                  DType::kUInt8, DType::kInt64, DType::kUInt16, DType::kUInt64}) {
    add("MaxPoolGrad", d, Fill::kRandom, "", geometries);
  }
  for (DType d : {DType::kFloat, DType::kInt32})
    add("MaxPoolGrad", d, Fill::kTies, "_ties", geometries);
  add("MaxPoolGrad", DType::kFloat, Fill::kNaN, "_nan", geometries);
  add("MaxPoolGrad", DType::kFloat, Fill::kRandom, "", explicit_geometries);
  add("MaxPoolGrad", DType::kInt16, Fill::kTies, "_ties", explicit_geometries);
  add("MaxPoolGradV2", DType::kFloat, Fill::kTies, "_ties", geometries);
  for (DType d : {DType::kFloat, DType::kHalf, DType::kDouble}) {
    add("AvgPoolGrad", d, Fill::kRandom, "", geometries);
  }
  return cases;
}

class PoolGradTest : public ::testing::TestWithParam<GradCase> {};

// With float32, the batch also a size variable: one translation serves every batch.
TEST_P(PoolGradTest, MatchesReference) {
  const GradCase& c = GetParam();
  const uint32_t seed = static_cast<uint32_t>(c.name.size());
  const Shape shape = InDataFormat(c.input, c.channels_first);
  const bool max = c.op != "AvgPoolGrad";
  const Tensor x = MakeTensor(c.dtype, shape, seed, c.fill);
  absl::StatusOr<std::vector<Tensor>> y = RunOp(max ? "MaxPool" : "AvgPool", {x}, PoolAttrs(c));
  ASSERT_TRUE(y.ok()) << y.status();
  const Tensor grad = MakeTensor(c.dtype, (*y)[0].shape(), seed + 1,
                                 c.fill == Fill::kTies ? Fill::kTies : Fill::kRandom);
  const bool symbolic = c.dtype == DType::kFloat && c.fill == Fill::kRandom;
  if (max) {
    AttrMap attrs = PoolAttrs(c);
    std::vector<Tensor> inputs = {x, (*y)[0], grad};
    if (c.op == "MaxPoolGradV2") {
      attrs.erase("ksize");
      attrs.erase("strides");
      inputs.push_back(Int32s(PerDimension(c.ksize, c.channels_first)));
      inputs.push_back(Int32s(PerDimension(c.strides, c.channels_first)));
    }
    const Node node = MakeNode(c.op, attrs, static_cast<int>(inputs.size()));
    EXPECT_TRUE(TranslationMatchesReference(node, inputs));
    if (symbolic) {
      EXPECT_TRUE(
          TranslationMatchesReference(node, inputs, {.symbolic_dims = {{0, 0}, {1, 0}, {2, 0}}}));
    }
  } else {
    const Node node = MakeNode(c.op, PoolAttrs(c), 2);
    std::vector<int64_t> dims(shape.begin(), shape.end());
    EXPECT_TRUE(TranslationMatchesReference(node, {Int32s(dims), grad}));
    if (symbolic) {
      std::vector<ArithExpr> sizes = {ArithExpr::Var("N")};
      for (size_t i = 1; i < shape.size(); ++i) sizes.push_back(shape[i]);
      EXPECT_TRUE(TranslationMatchesReference(
          node, {Int32s(dims), grad},
          {.symbolic_dims = {{1, 0}}, .symbolic_values = {{0, sizes}}}));
      // A constant orig_input_shape is trusted to give the batch that grad has.
      EXPECT_TRUE(
          TranslationMatchesReference(node, {Int32s(dims), grad}, {.symbolic_dims = {{1, 0}}}));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, PoolGradTest, ::testing::ValuesIn(GradCases()),
                         [](const auto& info) { return info.param.name; });

// What the reference refuses, the translation refuses: the harness checks both sides.
TEST(PoolGradTest, RefusesWhatTheReferenceRefuses) {
  const GradCase c{"MaxPoolGrad", DType::kFloat, false, {1, 4, 4, 2},  {2, 2},
                   {2, 2},        "VALID",       {},    Fill::kRandom, ""};
  const Tensor x = MakeTensor(DType::kFloat, c.input, 1);
  const Tensor y = MakeTensor(DType::kFloat, {1, 2, 2, 2}, 2);
  const Tensor wrong = MakeTensor(DType::kFloat, {1, 2, 3, 2}, 2);
  const Node node = MakeNode("MaxPoolGrad", PoolAttrs(c), 3);
  ASSERT_TRUE(TranslationMatchesReference(node, {x, y, y}));
  EXPECT_TRUE(TranslationMatchesReference(node, {x, y, wrong}));
  EXPECT_TRUE(TranslationMatchesReference(node, {x, wrong, y}));
  EXPECT_TRUE(
      TranslationMatchesReference(node, {x, y, MakeTensor(DType::kDouble, {1, 2, 2, 2}, 2)}));
  const Tensor b = Tensor::Zeros(DType::kBool, c.input);
  const Tensor by = Tensor::Zeros(DType::kBool, {1, 2, 2, 2});
  EXPECT_TRUE(TranslationMatchesReference(node, {b, by, by}));
  // MaxPoolGradV2: ksize must be int32, and there is no EXPLICIT padding.
  AttrMap v2 = PoolAttrs(c);
  v2.erase("ksize");
  v2.erase("strides");
  const Node v2_node = MakeNode("MaxPoolGradV2", v2, 5);
  const Tensor ksize = Int32s({1, 2, 2, 1});
  ASSERT_TRUE(TranslationMatchesReference(v2_node, {x, y, y, ksize, ksize}));
  EXPECT_TRUE(TranslationMatchesReference(
      v2_node, {x, y, y, Tensor::FromVector<int64_t>({1, 2, 2, 1}, {4}), ksize}));
  AttrMap v2_explicit = v2;
  v2_explicit["padding"] = std::string("EXPLICIT");
  v2_explicit["explicit_paddings"] = Ints({0, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("MaxPoolGradV2", v2_explicit, 5),
                                          {x, y, y, ksize, ksize}));
  // AvgPoolGrad: orig_input_shape int32, its rank, its signs, grad's shape and dtype.
  const Node avg = MakeNode("AvgPoolGrad", PoolAttrs(c), 2);
  ASSERT_TRUE(TranslationMatchesReference(avg, {Int32s({1, 4, 4, 2}), y}));
  EXPECT_TRUE(
      TranslationMatchesReference(avg, {Tensor::FromVector<int64_t>({1, 4, 4, 2}, {4}), y}));
  EXPECT_TRUE(TranslationMatchesReference(avg, {Int32s({4, 4, 2}), y}));
  EXPECT_TRUE(TranslationMatchesReference(avg, {Int32s({1, -4, 4, 2}), y}));
  EXPECT_TRUE(TranslationMatchesReference(avg, {Int32s({1, 4, 4, 2}), wrong}));
  EXPECT_TRUE(TranslationMatchesReference(
      avg, {Int32s({1, 4, 4, 2}), MakeTensor(DType::kInt32, {1, 2, 2, 2}, 2)}));
  EXPECT_TRUE(TranslationMatchesReference(avg, {Int32s({1, 1, 4, 2}), y}));  // window too large
}

// MaxPoolGrad's orig_input, orig_output and grad share the batch: the unify hook makes their
// size variables one (the hook sees the data inputs' shapes only, not V2's ksize and strides).
TEST(PoolGradTest, MaxPoolGradUnifiesTheBatch) {
  for (const char* op : {"MaxPoolGrad", "MaxPoolGradV2"}) {
    const Translation* translation = FindTranslation(op);
    ASSERT_NE(translation, nullptr);
    ASSERT_NE(translation->unify_sizes, nullptr);
    absl::flat_hash_map<std::string, ArithExpr> substitutions;
    SizeUnifier unifier(substitutions);
    const std::vector<SymbolicShape> shapes = {{ArithExpr::Var("N"), 4, 4, 2},
                                               {ArithExpr::Var("N1"), 2, 2, 2},
                                               {ArithExpr::Var("N2"), 2, 2, 2}};
    EXPECT_TRUE(translation->unify_sizes(MakeNode(op), shapes, unifier)) << op;
    EXPECT_EQ(substitutions.size(), 2u) << op;
  }
}

struct ArgmaxCase {
  DType dtype;
  DType targmax;
  bool include_batch;
  Shape input;
  std::vector<int64_t> ksize, strides;
  std::string padding;
  Fill fill;
  std::string name;
};

void PrintTo(const ArgmaxCase& c, std::ostream* os) { *os << c.name; }

Node ArgmaxNode(const ArgmaxCase& c) {
  return MakeNode("MaxPoolWithArgmax",
                  {{"T", c.dtype},
                   {"Targmax", c.targmax},
                   {"include_batch_in_index", c.include_batch},
                   {"ksize", Ints(PerDimension(c.ksize, false))},
                   {"strides", Ints(PerDimension(c.strides, false))},
                   {"padding", c.padding}},
                  1);
}

std::vector<ArgmaxCase> ArgmaxCases() {
  struct Geometry {
    Shape input;
    std::vector<int64_t> ksize, strides;
    std::string padding;
  };
  const std::vector<Geometry> geometries = {
      {{2, 4, 4, 3}, {2, 2}, {2, 2}, "SAME"},
      {{2, 5, 5, 2}, {2, 2}, {2, 2}, "VALID"},
      {{1, 5, 7, 2}, {3, 3}, {2, 2}, "SAME"},
      {{3, 6, 5, 1}, {3, 2}, {1, 2}, "VALID"},
  };
  std::vector<ArgmaxCase> cases;
  const auto add = [&](DType d, DType targmax, bool include_batch, Fill fill,
                       const std::string& tag) {
    for (size_t g = 0; g < geometries.size(); ++g) {
      const Geometry& geo = geometries[g];
      cases.push_back({d, targmax, include_batch, geo.input, geo.ksize, geo.strides, geo.padding,
                       fill,
                       absl::StrCat(DTypeName(d), "_", DTypeName(targmax),
                                    include_batch ? "_batch" : "", tag, "_", g, "_", geo.padding)});
    }
  };
  for (DType d : {DType::kFloat, DType::kHalf, DType::kDouble, DType::kInt32, DType::kInt64,
                  DType::kUInt8, DType::kInt8, DType::kUInt32}) {
    add(d, DType::kInt64, false, Fill::kRandom, "");
  }
  add(DType::kFloat, DType::kInt64, true, Fill::kRandom, "");
  add(DType::kFloat, DType::kInt32, false, Fill::kRandom, "");
  add(DType::kDouble, DType::kInt32, true, Fill::kRandom, "");
  add(DType::kFloat, DType::kInt64, false, Fill::kTies, "_ties");
  add(DType::kInt64, DType::kInt64, true, Fill::kTies, "_ties");
  add(DType::kFloat, DType::kInt64, false, Fill::kNaN, "_nan");
  return cases;
}

class ArgmaxTest : public ::testing::TestWithParam<ArgmaxCase> {};

TEST_P(ArgmaxTest, MatchesReference) {
  const ArgmaxCase& c = GetParam();
  const Tensor x = MakeTensor(c.dtype, c.input, static_cast<uint32_t>(c.name.size()), c.fill);
  EXPECT_TRUE(TranslationMatchesReference(ArgmaxNode(c), {x}));
  if (c.dtype == DType::kFloat && c.fill == Fill::kRandom) {
    EXPECT_TRUE(TranslationMatchesReference(ArgmaxNode(c), {x}, {.symbolic_dims = {{0, 0}}}));
  }
}

INSTANTIATE_TEST_SUITE_P(All, ArgmaxTest, ::testing::ValuesIn(ArgmaxCases()),
                         [](const auto& info) { return info.param.name; });

TEST(ArgmaxTest, RefusesWhatTheReferenceRefuses) {
  const ArgmaxCase c{DType::kFloat, DType::kInt64, false, {1, 4, 4, 2}, {2, 2}, {2, 2},
                     "VALID",       Fill::kRandom, ""};
  const Tensor x = MakeTensor(DType::kFloat, c.input, 1);
  Node nchw = ArgmaxNode(c);
  nchw.attrs["data_format"] = std::string("NCHW");
  EXPECT_TRUE(TranslationMatchesReference(nchw, {x}));
  Node int16 = ArgmaxNode(c);
  int16.attrs["Targmax"] = DType::kInt16;
  EXPECT_TRUE(TranslationMatchesReference(int16, {x}));
  EXPECT_TRUE(TranslationMatchesReference(ArgmaxNode(c), {Tensor::Zeros(DType::kBool, c.input)}));
  EXPECT_TRUE(
      TranslationMatchesReference(ArgmaxNode(c), {MakeTensor(DType::kFloat, {4, 4, 2}, 1)}));
}

}  // namespace
}  // namespace dfc::ir
