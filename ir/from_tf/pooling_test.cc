// Tests for the pool translations (pooling.cc, windows.cc): MaxPool, MaxPoolV2, AvgPool,
// MaxPool3D and AvgPool3D over both data formats, strides and paddings (AvgPool's SAME windows
// divide by their in-bounds counts), on the dtypes TensorFlow's CPU kernels take, with a
// symbolic batch, against the reference executor.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/dtype.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"
#include "tests/translate_testing.h"
#include "tests/window_testing.h"

namespace dfc::ir {
namespace {

using ::dfc::testing::InDataFormat;
using ::dfc::testing::Ints;
using ::dfc::testing::MakeNode;
using ::dfc::testing::PerDimension;
using ::dfc::testing::TranslationMatchesReference;

Tensor RandomTensor(DType dtype, const Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  Tensor t = Tensor::Zeros(dtype, shape);
  DispatchDType(dtype, [&]<typename T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      for (T& v : t.mutable_flat<T>()) {
        const double x = std::uniform_real_distribution<double>(-1, 1)(rng);
        if constexpr (std::is_integral_v<T>) {
          v = static_cast<T>(static_cast<int>(x * 50));
        } else {
          v = static_cast<T>(static_cast<float>(x));
        }
      }
    }
  });
  return t;
}

struct PoolCase {
  std::string op;
  DType dtype;
  bool channels_first;
  Shape input;                          // channels last
  std::vector<int64_t> ksize, strides;  // spatial
  std::string padding;
  std::string name;
};

std::vector<PoolCase> PoolCases() {
  struct Geometry {
    Shape input;
    std::vector<int64_t> ksize, strides;
    std::string padding;
  };
  const std::vector<Geometry> pool2d = {
      {{2, 6, 6, 3}, {2, 2}, {2, 2}, "VALID"}, {{1, 5, 7, 2}, {3, 3}, {2, 2}, "SAME"},
      {{2, 5, 4, 1}, {2, 3}, {1, 2}, "SAME"},  {{1, 7, 5, 2}, {3, 2}, {2, 1}, "VALID"},
      {{3, 4, 4, 2}, {1, 1}, {1, 1}, "SAME"},
  };
  const std::vector<Geometry> pool3d = {
      {{1, 4, 4, 4, 2}, {2, 2, 2}, {2, 2, 2}, "VALID"},
      {{2, 5, 3, 4, 1}, {3, 2, 2}, {2, 1, 2}, "SAME"},
  };
  std::vector<PoolCase> cases;
  for (const std::string op : {"MaxPool", "AvgPool", "MaxPool3D", "AvgPool3D"}) {
    const bool three = op.back() == 'D';
    const bool max = op.rfind("Max", 0) == 0;
    std::vector<DType> dtypes = {DType::kFloat, DType::kHalf, DType::kDouble};
    if (max && !three) dtypes.push_back(DType::kInt32);
    for (DType d : dtypes) {
      for (bool channels_first : {false, true}) {
        const std::vector<Geometry>& geometries = three ? pool3d : pool2d;
        for (size_t g = 0; g < geometries.size(); ++g) {
          const Geometry& geo = geometries[g];
          cases.push_back({op, d, channels_first, geo.input, geo.ksize, geo.strides, geo.padding,
                           absl::StrCat(op, "_", DTypeName(d), channels_first ? "_NC" : "_NL", "_",
                                        g, "_", geo.padding)});
        }
      }
    }
  }
  return cases;
}

Node PoolNode(const PoolCase& c) {
  const bool three = c.ksize.size() == 3;
  const std::string format =
      three ? (c.channels_first ? "NCDHW" : "NDHWC") : (c.channels_first ? "NCHW" : "NHWC");
  return MakeNode(c.op,
                  {{"T", c.dtype},
                   {"data_format", format},
                   {"ksize", Ints(PerDimension(c.ksize, c.channels_first))},
                   {"strides", Ints(PerDimension(c.strides, c.channels_first))},
                   {"padding", c.padding}},
                  1);
}

class PoolTest : public ::testing::TestWithParam<PoolCase> {};

TEST_P(PoolTest, MatchesReference) {
  const PoolCase& c = GetParam();
  const Tensor x = RandomTensor(c.dtype, InDataFormat(c.input, c.channels_first),
                                static_cast<uint32_t>(c.name.size()));
  EXPECT_TRUE(TranslationMatchesReference(PoolNode(c), {x}));
  if (c.dtype == DType::kFloat) {
    EXPECT_TRUE(TranslationMatchesReference(PoolNode(c), {x}, {.symbolic_dims = {{0, 0}}}));
  }
}

INSTANTIATE_TEST_SUITE_P(All, PoolTest, ::testing::ValuesIn(PoolCases()),
                         [](const auto& info) { return info.param.name; });

// MaxPoolV2 reads its window and strides from inputs known at compile time.
TEST(MaxPoolV2Test, ReadsKsizeAndStridesFromItsInputs) {
  const Tensor x = RandomTensor(DType::kFloat, {2, 5, 5, 3}, 4);
  const Tensor ksize = Tensor::FromVector<int32_t>({1, 3, 2, 1}, {4});
  const Tensor strides = Tensor::FromVector<int32_t>({1, 2, 2, 1}, {4});
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("MaxPoolV2", {{"T", DType::kFloat}, {"padding", std::string("SAME")}}, 3),
      {x, ksize, strides}));
}

}  // namespace
}  // namespace dfc::ir
