// Tests for the convolution translations (convolution.cc, windows.cc): Conv2D, Conv3D and
// DepthwiseConv2dNative over both data formats, strides, dilations and the three paddings, on
// every dtype TensorFlow's CPU kernels take, with a symbolic batch, against the reference
// executor; the refusals that name the node and the shapes.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "graph/dtype.h"
#include "graph/fold.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
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
using ::dfc::testing::TranslateStatus;
using ::dfc::testing::TranslationMatchesReference;
using ::testing::HasSubstr;

// Seeded values in [-1, 1) (integers in [-4, 4]): sums of a few dozen products stay well
// inside every dtype's range and precision.
Tensor RandomTensor(DType dtype, const Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  Tensor t = Tensor::Zeros(dtype, shape);
  DispatchDType(dtype, [&]<typename T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      for (T& v : t.mutable_flat<T>()) {
        const double x = std::uniform_real_distribution<double>(-1, 1)(rng);
        if constexpr (std::is_integral_v<T>) {
          v = static_cast<T>(static_cast<int>(x * 4.5));
        } else {
          v = static_cast<T>(static_cast<float>(x));
        }
      }
    }
  });
  return t;
}

struct ConvCase {
  std::string op;
  DType dtype;
  bool channels_first;
  Shape input;   // N, spatial..., C (channels last; transposed for channels_first)
  Shape filter;  // K..., C, M
  std::vector<int64_t> strides, dilations;  // spatial
  std::string padding;
  std::vector<int64_t> explicit_pads;  // spatial, before and after each
  std::string name;
};

Node ConvNode(const ConvCase& c) {
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
  return MakeNode(c.op, attrs, 2);
}

std::vector<ConvCase> ConvCases() {
  std::vector<ConvCase> cases;
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
      {{1, 7, 7, 1}, {2, 2, 1, 2}, {1, 1}, {2, 3}, "SAME", {}},
      {{2, 8, 6, 2}, {3, 2, 2, 1}, {1, 1}, {2, 2}, "VALID", {}},
      {{1, 4, 5, 2}, {3, 3, 2, 2}, {1, 2}, {1, 1}, "EXPLICIT", {2, 0, 1, 3}},
      {{3, 1, 1, 5}, {1, 1, 5, 6}, {1, 1}, {1, 1}, "VALID", {}},  // a 1x1 convolution
      {{1, 3, 0, 2}, {1, 1, 2, 3}, {1, 1}, {1, 1}, "SAME", {}},   // 1x1 of an empty image
  };
  for (const std::string op : {"Conv2D", "DepthwiseConv2dNative"}) {
    for (DType d : {DType::kFloat, DType::kHalf, DType::kDouble}) {
      for (bool channels_first : {false, true}) {
        for (size_t g = 0; g < conv2d.size(); ++g) {
          // NCHW with dilations is refused by TensorFlow's CPU kernels; dfc runs it, and the
          // reference is the oracle either way.
          const Geometry& geo = conv2d[g];
          cases.push_back({op, d, channels_first, geo.input, geo.filter, geo.strides, geo.dilations,
                           geo.padding, geo.explicit_pads,
                           absl::StrCat(op, "_", DTypeName(d), channels_first ? "_NCHW" : "_NHWC",
                                        "_", g, "_", geo.padding)});
        }
      }
    }
  }
  cases.push_back({"Conv2D",
                   DType::kInt32,
                   false,
                   {2, 5, 4, 2},
                   {2, 2, 2, 3},
                   {1, 2},
                   {1, 1},
                   "SAME",
                   {},
                   "Conv2D_int32_SAME"});
  const std::vector<Geometry> conv3d = {
      {{1, 4, 5, 4, 2}, {2, 3, 2, 2, 3}, {1, 2, 1}, {1, 1, 1}, "SAME", {}},
      {{2, 5, 4, 4, 1}, {3, 2, 2, 1, 2}, {2, 1, 2}, {1, 1, 1}, "VALID", {}},
      {{1, 5, 5, 5, 1}, {2, 2, 2, 1, 1}, {1, 1, 1}, {2, 1, 2}, "SAME", {}},
  };
  for (bool channels_first : {false, true}) {
    for (size_t g = 0; g < conv3d.size(); ++g) {
      const Geometry& geo = conv3d[g];
      cases.push_back({"Conv3D",
                       DType::kFloat,
                       channels_first,
                       geo.input,
                       geo.filter,
                       geo.strides,
                       geo.dilations,
                       geo.padding,
                       {},
                       absl::StrCat("Conv3D_float32", channels_first ? "_NCDHW" : "_NDHWC", "_", g,
                                    "_", geo.padding)});
    }
  }
  return cases;
}

class ConvTest : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvTest, MatchesReference) {
  const ConvCase& c = GetParam();
  const uint32_t seed = static_cast<uint32_t>(c.name.size());
  const Tensor x = RandomTensor(c.dtype, InDataFormat(c.input, c.channels_first), seed);
  const Tensor f = RandomTensor(c.dtype, c.filter, seed + 1);
  EXPECT_TRUE(TranslationMatchesReference(ConvNode(c), {x, f}));
}

// The batch a size variable: one translation serves every batch.
TEST_P(ConvTest, MatchesReferenceWithASymbolicBatch) {
  const ConvCase& c = GetParam();
  if (c.dtype != DType::kFloat) GTEST_SKIP() << "one dtype is enough for the batch";
  const Tensor x = RandomTensor(c.dtype, InDataFormat(c.input, c.channels_first), 7);
  const Tensor f = RandomTensor(c.dtype, c.filter, 8);
  EXPECT_TRUE(TranslationMatchesReference(ConvNode(c), {x, f}, {.symbolic_dims = {{0, 0}}}));
}

INSTANTIATE_TEST_SUITE_P(All, ConvTest, ::testing::ValuesIn(ConvCases()),
                         [](const auto& info) { return info.param.name; });

TEST(ConvErrorTest, NamesTheNodeAndTheShapes) {
  const ConvCase base{"Conv2D", DType::kFloat, false,   {1, 4, 4, 3}, {2, 2, 3, 2},
                      {1, 1},   {1, 1},        "VALID", {},           ""};
  const Tensor x = RandomTensor(DType::kFloat, {1, 4, 4, 3}, 1);
  // A filter whose depth is not the input's channels.
  EXPECT_THAT(
      TranslateStatus(ConvNode(base), {x, RandomTensor(DType::kFloat, {2, 2, 2, 2}, 2)}).message(),
      HasSubstr("node \"node\" (Conv2D): the filter's depth (2) must equal the input's channels "
                "(3)"));
  // A window larger than a VALID input.
  EXPECT_THAT(
      TranslateStatus(ConvNode(base), {x, RandomTensor(DType::kFloat, {5, 2, 3, 2}, 2)}).message(),
      HasSubstr("larger than the input (4) under VALID padding"));
  // A data format the op does not have.
  Node hwcn = ConvNode(base);
  hwcn.attrs["data_format"] = std::string("HWCN");
  EXPECT_THAT(TranslateStatus(hwcn, {x, RandomTensor(DType::kFloat, {2, 2, 3, 2}, 2)}).message(),
              HasSubstr("data_format \"HWCN\" is not supported"));
  // Input and filter of different dtypes.
  EXPECT_THAT(
      TranslateStatus(ConvNode(base), {x, RandomTensor(DType::kDouble, {2, 2, 3, 2}, 2)}).message(),
      HasSubstr("input and filter must have the same dtype"));
}

}  // namespace
}  // namespace dfc::ir
