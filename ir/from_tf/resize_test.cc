// Tests of the resize translations (resize.cc): ResizeNearestNeighbor, ResizeBilinear,
// ResizeBicubic and ResizeArea over up- and downsampling geometries, align_corners and
// half_pixel_centers, the dtypes the reference takes, with a symbolic batch, against the
// reference executor. Nearest neighbour is a view where its indices are an exact integer
// function of the output index, and reads through a UserFun index where float rounding makes
// them differ from that function; both must pick the reference's pixels.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/substitute.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "tests/device_executor_testing.h"
#include "tests/layout_testing.h"
#include "tests/test_util.h"

namespace dfc::ir {
namespace {

using ::dfc::testing::BothRefuse;
using ::dfc::testing::IndexTensor;
using ::dfc::testing::MakeNode;
using ::dfc::testing::SafeName;
using ::dfc::testing::ShapeName;
using ::dfc::testing::TranslationMatchesReference;

// Values in [-1, 1] for floating dtypes, in [-50, 50] (or [0, 100]) for integers: the weighted
// ops compare within float rounding of the reference's double sums.
Tensor SmoothTensor(DType dtype, const Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  Tensor t = Tensor::Zeros(dtype, shape);
  DispatchDType(dtype, [&]<typename T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      for (T& v : t.mutable_flat<T>()) {
        const double x = std::uniform_real_distribution<double>(-1, 1)(rng);
        if constexpr (std::is_integral_v<T>) {
          v = static_cast<T>(static_cast<int>(x * 50) + (std::is_unsigned_v<T> ? 50 : 0));
        } else {
          v = static_cast<T>(static_cast<float>(x));
        }
      }
    }
  });
  return t;
}

struct Geometry {
  Shape input;
  int64_t out_height, out_width;
};

const Geometry kGeometries[] = {
    {{2, 4, 5, 3}, 8, 10}, {{1, 5, 7, 2}, 3, 4},  {{2, 3, 3, 1}, 7, 5},     {{1, 6, 4, 2}, 6, 4},
    {{1, 1, 1, 2}, 3, 2},  {{1, 10, 3, 2}, 1, 1}, {{1, 26, 14, 1}, 22, 23}, {{1, 9, 2, 3}, 4, 13},
};

enum class Centers { kLegacy, kAlignCorners, kHalfPixel };

struct ResizeCase {
  std::string op;
  DType dtype;
  Geometry geometry;
  Centers centers;
  std::string name;
};

std::vector<ResizeCase> ResizeCases() {
  std::vector<ResizeCase> cases;
  for (const std::string op :
       {"ResizeNearestNeighbor", "ResizeBilinear", "ResizeBicubic", "ResizeArea"}) {
    std::vector<DType> dtypes = {DType::kFloat, DType::kHalf,  DType::kDouble,
                                 DType::kInt32, DType::kUInt8, DType::kInt64};
    if (op == "ResizeNearestNeighbor") {
      dtypes.insert(dtypes.end(),
                    {DType::kInt8, DType::kInt16, DType::kUInt16, DType::kUInt32, DType::kUInt64});
    }
    for (DType d : dtypes) {
      for (Centers c : {Centers::kLegacy, Centers::kAlignCorners, Centers::kHalfPixel}) {
        if (op == "ResizeArea" && c == Centers::kHalfPixel) continue;
        for (size_t g = 0; g < std::size(kGeometries); ++g) {
          const Geometry& geo = kGeometries[g];
          const char* centers = c == Centers::kLegacy         ? "legacy"
                                : c == Centers::kAlignCorners ? "align"
                                                              : "half";
          cases.push_back({op, d, geo, c,
                           SafeName(absl::StrCat(op.substr(6), "_", DTypeName(d), "_", centers, "_",
                                                 ShapeName(geo.input), "_to_", geo.out_height, "x",
                                                 geo.out_width))});
        }
      }
    }
  }
  return cases;
}

Node ResizeNode(const std::string& op, DType dtype, Centers centers) {
  AttrMap attrs = {{"T", dtype}, {"align_corners", centers == Centers::kAlignCorners}};
  if (op != "ResizeArea") attrs["half_pixel_centers"] = centers == Centers::kHalfPixel;
  return MakeNode(op, attrs, 2);
}

class ResizeTest : public ::testing::TestWithParam<ResizeCase> {};

TEST_P(ResizeTest, MatchesReference) {
  const ResizeCase& c = GetParam();
  const uint32_t seed = static_cast<uint32_t>(c.name.size());
  const bool nearest = c.op == "ResizeNearestNeighbor";
  // Nearest neighbour only moves elements: NaN, infinities and -0 must arrive as they are.
  const Tensor x = nearest ? ::dfc::testing::RandomTensor(c.dtype, c.geometry.input, seed)
                           : SmoothTensor(c.dtype, c.geometry.input, seed);
  const Tensor size = IndexTensor({c.geometry.out_height, c.geometry.out_width});
  const Node node = ResizeNode(c.op, c.dtype, c.centers);
  EXPECT_TRUE(TranslationMatchesReference(node, {x, size}));
  if (c.dtype == DType::kFloat) {
    EXPECT_TRUE(TranslationMatchesReference(node, {x, size}, {.symbolic_dims = {{0, 0}}}));
  }
}

INSTANTIATE_TEST_SUITE_P(All, ResizeTest, ::testing::ValuesIn(ResizeCases()),
                         [](const auto& info) { return info.param.name; });

// Where TensorFlow's float coordinates give floor(o·in/out) (here: upsampling by 2, and
// halving), nearest neighbour is a Reindex view and applies no UserFun.
TEST(NearestTest, ExactIntegerIndicesAreViews) {
  const Tensor x = ::dfc::testing::RandomTensor(DType::kFloat, {2, 4, 6, 3}, 1);
  for (Centers c : {Centers::kLegacy, Centers::kAlignCorners, Centers::kHalfPixel}) {
    const Node node = ResizeNode("ResizeNearestNeighbor", DType::kFloat, c);
    EXPECT_TRUE(TranslationMatchesReference(node, {x, IndexTensor({8, 3})},
                                            {.symbolic_dims = {{0, 0}}, .views_only = true}));
  }
}

// in = 26 rows to 22 (legacy), 14 to 23 (align_corners, half-pixel): output index 11 maps to
// 13 (or 7) exactly but to 12 (or 6) in float, which is what TensorFlow reads. These cannot be
// a view of the exact function: they read through the UserFun index, and must match.
TEST(NearestTest, FloatRoundingThatDiffersFromExactIndicesIsKept) {
  const Tensor tall = ::dfc::testing::RandomTensor(DType::kInt32, {1, 26, 14, 2}, 2);
  const Node legacy = ResizeNode("ResizeNearestNeighbor", DType::kInt32, Centers::kLegacy);
  EXPECT_TRUE(TranslationMatchesReference(legacy, {tall, IndexTensor({22, 14})}));
  EXPECT_FALSE(
      TranslationMatchesReference(legacy, {tall, IndexTensor({22, 14})}, {.views_only = true}));
  for (Centers c : {Centers::kAlignCorners, Centers::kHalfPixel}) {
    const Node node = ResizeNode("ResizeNearestNeighbor", DType::kInt32, c);
    EXPECT_TRUE(TranslationMatchesReference(node, {tall, IndexTensor({26, 23})}));
  }
}

// Bicubic weights come from TensorFlow's 1024-step table at every offset: many output sizes
// reach many offsets, both kernels (legacy a = -0.75, Keys' a = -0.5 with renormalised edges).
TEST(BicubicTest, ManyOffsets) {
  const Tensor x = SmoothTensor(DType::kFloat, {1, 7, 5, 1}, 3);
  for (int64_t out : {2, 3, 9, 11, 17, 31, 64}) {
    for (Centers c : {Centers::kLegacy, Centers::kAlignCorners, Centers::kHalfPixel}) {
      EXPECT_TRUE(TranslationMatchesReference(ResizeNode("ResizeBicubic", DType::kFloat, c),
                                              {x, IndexTensor({out, 37})}))
          << out;
    }
  }
}

// Area boxes of different lengths in one axis (5 -> 3: 1.67 pixels a box, 2 or 3 taps), and
// an image of infinities: the taps past a shorter box read a pixel but add nothing.
TEST(AreaTest, BoxesOfDifferentLengths) {
  Tensor x = SmoothTensor(DType::kFloat, {1, 5, 7, 1}, 4);
  x.mutable_data<float>()[34] = std::numeric_limits<float>::infinity();
  for (Centers c : {Centers::kLegacy, Centers::kAlignCorners}) {
    EXPECT_TRUE(TranslationMatchesReference(ResizeNode("ResizeArea", DType::kFloat, c),
                                            {x, IndexTensor({3, 2})}));
  }
}

TEST(ResizeTest, RefusesWhatTheReferenceRefuses) {
  const Tensor x = SmoothTensor(DType::kFloat, {1, 4, 4, 2}, 5);
  for (const std::string op :
       {"ResizeNearestNeighbor", "ResizeBilinear", "ResizeBicubic", "ResizeArea"}) {
    const Node node = ResizeNode(op, DType::kFloat, Centers::kLegacy);
    EXPECT_TRUE(BothRefuse(node, {x, IndexTensor({0, 3})})) << op;
    EXPECT_TRUE(BothRefuse(node, {x, IndexTensor({3, 3}, DType::kInt64)})) << op;
    EXPECT_TRUE(BothRefuse(node, {x, IndexTensor({3, 3, 3})})) << op;
    EXPECT_TRUE(BothRefuse(node, {SmoothTensor(DType::kFloat, {4, 4, 2}, 5), IndexTensor({3, 3})}))
        << op;
    EXPECT_TRUE(
        BothRefuse(node, {SmoothTensor(DType::kFloat, {1, 0, 4, 2}, 5), IndexTensor({3, 3})}))
        << op;
    EXPECT_TRUE(
        BothRefuse(node, {SmoothTensor(DType::kFloat, {1, 4, 4, 0}, 5), IndexTensor({3, 3})}))
        << op;
    EXPECT_TRUE(BothRefuse(MakeNode(op, {{"T", DType::kBool}}, 2),
                           {Tensor::Zeros(DType::kBool, {1, 2, 2, 1}), IndexTensor({3, 3})}))
        << op;
    if (op != "ResizeArea") {
      EXPECT_TRUE(BothRefuse(
          MakeNode(
              op, {{"T", DType::kFloat}, {"align_corners", true}, {"half_pixel_centers", true}}, 2),
          {x, IndexTensor({3, 3})}))
          << op;
    }
  }
}

// --- On a device -------------------------------------------------------------------------

// The generated kernels on PoCL's CPU device: the coordinates and weights computed in OpenCL C
// must pick the reference's pixels and weights (the interpreter runs the host twins).
class ResizeOnDeviceTest : public ::dfc::testing::DeviceExecutorTest {
 protected:
  // `op` resizing a placeholder of a size-variable batch, as one cluster of generated kernels
  // (nothing left to the host, nothing falling back), against the reference executor.
  // With a `producer` (a unary op), the images are that op of the placeholder, computed in the
  // same cluster.
  void ExpectMatches(const std::string& op, const Tensor& x, int64_t out_height, int64_t out_width,
                     Centers centers, const std::string& producer = "") {
    const auto type = [](DType d) {
      return d == DType::kFloat    ? "DT_FLOAT"
             : d == DType::kInt32  ? "DT_INT32"
             : d == DType::kUInt8  ? "DT_UINT8"
             : d == DType::kHalf   ? "DT_HALF"
             : d == DType::kDouble ? "DT_DOUBLE"
                                   : "DT_INVALID";
    };
    const std::string half_pixel =
        op == "ResizeArea"
            ? ""
            : absl::StrCat(R"(attr { key: "half_pixel_centers" value { b: )",
                           centers == Centers::kHalfPixel ? "true" : "false", " } }");
    std::string text = absl::Substitute(
        R"(node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: $0 } }
  attr { key: "shape" value { shape { dim { size: -1 } dim { size: $1 } dim { size: $2 }
                                      dim { size: $3 } } } } }
node { name: "size" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } }
                                       int_val: $4 int_val: $5 } } } }
node { name: "r" op: "$6" input: "$9" input: "size" attr { key: "T" value { type: $0 } }
  attr { key: "align_corners" value { b: $7 } } $8 }
)",
        type(x.dtype()), x.dim(1), x.dim(2), x.dim(3), out_height, out_width, op,
        centers == Centers::kAlignCorners ? "true" : "false", half_pixel,
        producer.empty() ? "x" : "p");
    if (!producer.empty()) {
      absl::StrAppend(&text, R"(node { name: "p" op: ")", producer,
                      R"(" input: "x" attr { key: "T" value { type: )", type(x.dtype()),
                      " } } }\n");
    }
    absl::StatusOr<Graph> graph = ParseGraph(text, "test");
    ASSERT_TRUE(graph.ok()) << graph.status();
    const std::vector<TensorId> fetches = {{"r", 0}};
    const ::dfc::testing::Feeds feeds = {{{"x", 0}, x}};
    absl::StatusOr<TranslatedGraph> translated = ::dfc::testing::Translate(*graph, fetches, feeds);
    ASSERT_TRUE(translated.ok()) << translated.status();
    ASSERT_TRUE(translated->host_device_nodes.empty()) << translated->host_device_nodes[0];
    ASSERT_EQ(translated->folded, 0);
    ASSERT_EQ(translated->clusters.size(), 1u);
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

// Each op and coordinate convention on a geometry whose nearest indices differ from the exact
// ones (26 -> 22 rows: float rounding picks other pixels) and an upsampling of a batch, then
// the other input dtypes' conversions. (About a second a case: each is a program to build.)
TEST_F(ResizeOnDeviceTest, GeneratedKernelsMatchTheReference) {
  for (const std::string op :
       {"ResizeNearestNeighbor", "ResizeBilinear", "ResizeBicubic", "ResizeArea"}) {
    for (Centers c : {Centers::kLegacy, Centers::kAlignCorners, Centers::kHalfPixel}) {
      if (op == "ResizeArea" && c == Centers::kHalfPixel) continue;
      SCOPED_TRACE(absl::StrCat(op, " centers ", static_cast<int>(c)));
      const bool nearest = op == "ResizeNearestNeighbor";
      const Tensor x = nearest ? ::dfc::testing::RandomTensor(DType::kFloat, {1, 26, 14, 2}, 9)
                               : SmoothTensor(DType::kFloat, {1, 26, 14, 2}, 9);
      ExpectMatches(op, x, 22, 23, c);
      const Tensor y = nearest ? ::dfc::testing::RandomTensor(DType::kInt32, {2, 4, 5, 3}, 8)
                               : SmoothTensor(DType::kInt32, {2, 4, 5, 3}, 8);
      ExpectMatches(op, y, 8, 10, c);
    }
  }
  const Tensor half = SmoothTensor(DType::kHalf, {2, 5, 4, 3}, 10);
  ExpectMatches("ResizeBilinear", half, 7, 9, Centers::kHalfPixel);
  const Tensor wide = SmoothTensor(DType::kDouble, {2, 5, 4, 3}, 11);
  ExpectMatches("ResizeBicubic", wide, 3, 6, Centers::kHalfPixel);
  const Tensor bytes = SmoothTensor(DType::kUInt8, {2, 5, 4, 3}, 12);
  ExpectMatches("ResizeArea", bytes, 3, 3, Centers::kLegacy);
}

// A computed image in the same cluster, fused into the resize or stored once as the translation's
// cost model decides: equal to the reference either way.
TEST_F(ResizeOnDeviceTest, ComputedImagesInTheCluster) {
  const Tensor x = SmoothTensor(DType::kFloat, {2, 6, 5, 3}, 13);
  for (const std::string op :
       {"ResizeNearestNeighbor", "ResizeBilinear", "ResizeBicubic", "ResizeArea"}) {
    SCOPED_TRACE(op);
    ExpectMatches(op, x, 11, 7, Centers::kHalfPixel, "Relu");
  }
  ExpectMatches("ResizeNearestNeighbor", x, 3, 2, Centers::kLegacy, "Tanh");
}

}  // namespace
}  // namespace dfc::ir
