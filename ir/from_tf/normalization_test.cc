// Tests for the normalisation translations (normalization.cc) against the reference executor:
// FusedBatchNorm V1-V3 in inference and training (exponential_avg_factor 1 and not), every
// output, in the four data formats, float16 and float32 x, with a symbolic batch and an empty
// one; FusedBatchNormGrad V1-V3 likewise; LRN and LRNGrad over radii smaller and larger than
// the depth. The refusals that the reference shares are checked too.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/dtype.h"
#include "graph/fold.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "ir/from_tf/translate.h"
#include "tests/test_util.h"
#include "tests/translate_testing.h"

namespace dfc::ir {
namespace {

using ::dfc::testing::MakeNode;
using ::dfc::testing::RunOp1;
using ::dfc::testing::TranslateStatus;
using ::dfc::testing::TranslationMatchesReference;
using ::testing::HasSubstr;

// Seeded values in [lo, hi).
Tensor Random(DType dtype, const Shape& shape, uint32_t seed, double lo = -1, double hi = 1) {
  std::mt19937 rng(seed);
  Tensor t = Tensor::Zeros(dtype, shape);
  DispatchDType(dtype, [&]<typename T>() {
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, Half>) {
      for (T& v : t.mutable_flat<T>()) {
        v = static_cast<T>(static_cast<float>(std::uniform_real_distribution<double>(lo, hi)(rng)));
      }
    }
  });
  return t;
}

// A shape given channels last in `format`'s order.
Shape InFormat(const Shape& channels_last, bool channels_first) {
  if (!channels_first) return channels_last;
  Shape s = {channels_last[0], channels_last.back()};
  s.insert(s.end(), channels_last.begin() + 1, channels_last.end() - 1);
  return s;
}

std::string FormatName(int rank, bool channels_first) {
  if (rank == 5) return channels_first ? "NCDHW" : "NDHWC";
  return channels_first ? "NCHW" : "NHWC";
}

struct BatchNormCase {
  int version;
  DType dtype;
  bool training;
  float factor;
  bool channels_first;
  Shape shape;  // channels last
  std::string name;
};

std::vector<BatchNormCase> BatchNormCases() {
  const std::vector<Shape> shapes = {{2, 3, 4, 5},    {1, 1, 1, 3}, {3, 2, 5, 1},
                                     {2, 2, 3, 2, 3}, {0, 2, 2, 3}, {2, 2, 3, 0}};
  std::vector<BatchNormCase> cases;
  for (int version = 1; version <= 3; ++version) {
    for (DType d : {DType::kFloat, DType::kHalf}) {
      if (version == 1 && d == DType::kHalf) continue;
      for (bool training : {false, true}) {
        for (float factor : {1.0f, 0.25f}) {
          for (bool channels_first : {false, true}) {
            for (size_t s = 0; s < shapes.size(); ++s) {
              cases.push_back(
                  {version, d, training, factor, channels_first, shapes[s],
                   absl::StrCat(
                       "V", version, "_", DTypeName(d), training ? "_training" : "_inference",
                       factor == 1.0f ? "" : "_blend", "_",
                       FormatName(static_cast<int>(shapes[s].size()), channels_first), "_", s)});
            }
          }
        }
      }
    }
  }
  return cases;
}

const char* BatchNormOp(int version) {
  return version == 1 ? "FusedBatchNorm" : version == 2 ? "FusedBatchNormV2" : "FusedBatchNormV3";
}
const char* BatchNormGradOp(int version) {
  return version == 1   ? "FusedBatchNormGrad"
         : version == 2 ? "FusedBatchNormGradV2"
                        : "FusedBatchNormGradV3";
}

AttrMap BatchNormAttrs(const BatchNormCase& c) {
  return {{"T", c.dtype},
          {"U", DType::kFloat},
          {"epsilon", 0.001f},
          {"exponential_avg_factor", c.factor},
          {"is_training", c.training},
          {"data_format", FormatName(static_cast<int>(c.shape.size()), c.channels_first)}};
}

// x, scale, offset, mean, variance (positive).
std::vector<Tensor> BatchNormInputs(const BatchNormCase& c, uint32_t seed) {
  const Shape channels = {c.shape.back()};
  return {Random(c.dtype, InFormat(c.shape, c.channels_first), seed, -2, 3),
          Random(DType::kFloat, channels, seed + 1, 0.5, 2),
          Random(DType::kFloat, channels, seed + 2), Random(DType::kFloat, channels, seed + 3),
          Random(DType::kFloat, channels, seed + 4, 0.1, 2)};
}

class FusedBatchNormTest : public ::testing::TestWithParam<BatchNormCase> {};

TEST_P(FusedBatchNormTest, MatchesReference) {
  const BatchNormCase& c = GetParam();
  const Node node = MakeNode(BatchNormOp(c.version), BatchNormAttrs(c), 5);
  EXPECT_TRUE(TranslationMatchesReference(node, BatchNormInputs(c, 11)));
}

TEST_P(FusedBatchNormTest, MatchesReferenceWithASymbolicBatch) {
  const BatchNormCase& c = GetParam();
  const Node node = MakeNode(BatchNormOp(c.version), BatchNormAttrs(c), 5);
  EXPECT_TRUE(
      TranslationMatchesReference(node, BatchNormInputs(c, 21), {.symbolic_dims = {{0, 0}}}));
}

// y_backprop, x, scale, reserve_space_1 (mean), reserve_space_2 (variance, positive)
// [, reserve_space_3].
std::vector<Tensor> BatchNormGradInputs(const BatchNormCase& c, uint32_t seed) {
  const Shape channels = {c.shape.back()};
  const Shape x_shape = InFormat(c.shape, c.channels_first);
  std::vector<Tensor> in = {
      Random(c.dtype, x_shape, seed), Random(c.dtype, x_shape, seed + 1, -2, 3),
      Random(DType::kFloat, channels, seed + 2, 0.5, 2), Random(DType::kFloat, channels, seed + 3),
      Random(DType::kFloat, channels, seed + 4, 0.1, 2)};
  if (c.version == 3) in.push_back(Tensor::Scalar<float>(0.0f));
  return in;
}

TEST_P(FusedBatchNormTest, GradMatchesReference) {
  const BatchNormCase& c = GetParam();
  if (c.factor != 1.0f) GTEST_SKIP() << "the gradient has no exponential_avg_factor";
  const Node node = MakeNode(BatchNormGradOp(c.version), BatchNormAttrs(c), c.version == 3 ? 6 : 5);
  EXPECT_TRUE(TranslationMatchesReference(node, BatchNormGradInputs(c, 31)));
  EXPECT_TRUE(TranslationMatchesReference(node, BatchNormGradInputs(c, 41),
                                          {.symbolic_dims = {{0, 0}, {1, 0}}}));
}

INSTANTIATE_TEST_SUITE_P(All, FusedBatchNormTest, ::testing::ValuesIn(BatchNormCases()),
                         [](const auto& info) { return info.param.name; });

// Training with exponential_avg_factor 1 never reads the running statistics: they may be empty,
// as TensorFlow's graphs often give them. With a blend, or in inference, they are refused.
TEST(FusedBatchNormTest, RunningStatisticsAreReadOnlyWhenUsed) {
  BatchNormCase c{3, DType::kFloat, true, 1.0f, false, {2, 3, 3, 4}, ""};
  std::vector<Tensor> in = BatchNormInputs(c, 5);
  in[3] = Tensor::Zeros(DType::kFloat, {0});
  in[4] = Tensor::Zeros(DType::kFloat, {0});
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("FusedBatchNormV3", BatchNormAttrs(c), 5), in));
  for (auto [training, factor] : {std::pair{true, 0.5f}, std::pair{false, 1.0f}}) {
    c.training = training;
    c.factor = factor;
    EXPECT_TRUE(
        TranslationMatchesReference(MakeNode("FusedBatchNormV3", BatchNormAttrs(c), 5), in));
  }
}

// The refusals, shared with the reference, name the node and what was expected.
TEST(FusedBatchNormErrorTest, RefusesWhatTheReferenceRefuses) {
  const BatchNormCase c{1, DType::kHalf, false, 1.0f, false, {2, 3, 3, 4}, ""};
  std::vector<Tensor> in = BatchNormInputs(c, 5);
  const Node v1 = MakeNode("FusedBatchNorm", BatchNormAttrs(c), 5);
  EXPECT_TRUE(TranslationMatchesReference(v1, in));  // both refuse float16 in V1
  EXPECT_THAT(TranslateStatus(v1, in).message(),
              HasSubstr("node \"node\" (FusedBatchNorm): x must be float32, got float16"));
  const Node v3 = MakeNode("FusedBatchNormV3", BatchNormAttrs(c), 5);
  std::vector<Tensor> short_scale = in;
  short_scale[1] = Random(DType::kFloat, {3}, 1);
  EXPECT_TRUE(TranslationMatchesReference(v3, short_scale));
  EXPECT_THAT(TranslateStatus(v3, short_scale).message(),
              HasSubstr("scale must have one element per channel of x (4), got float32[3]"));
  std::vector<Tensor> matrix = in;
  matrix[0] = Random(DType::kHalf, {6, 4}, 1);
  EXPECT_TRUE(TranslationMatchesReference(v3, matrix));
  EXPECT_THAT(TranslateStatus(v3, matrix).message(),
              HasSubstr("x must have rank 4 or 5, got float16[6,4]"));
  Node hwcn = v3;
  hwcn.attrs["data_format"] = std::string("HWCN");
  EXPECT_TRUE(TranslationMatchesReference(hwcn, in));
  EXPECT_THAT(TranslateStatus(hwcn, in).message(), HasSubstr("data_format \"HWCN\""));
  std::vector<Tensor> wide = in;
  wide[4] = Random(DType::kDouble, {4}, 1);
  EXPECT_TRUE(TranslationMatchesReference(v3, wide));
  // The gradient's y_backprop and x must agree.
  const Node grad = MakeNode("FusedBatchNormGradV2", BatchNormAttrs(c), 5);
  std::vector<Tensor> g = {Random(DType::kHalf, {2, 3, 3, 4}, 1),
                           Random(DType::kHalf, {2, 3, 2, 4}, 2), in[1], in[3], in[4]};
  EXPECT_TRUE(TranslationMatchesReference(grad, g));
  EXPECT_THAT(TranslateStatus(grad, g).message(),
              HasSubstr("y_backprop and x must have the same dtype and shape, got "
                        "float16[2,3,3,4] and float16[2,3,2,4]"));
}

// --- LRN -----------------------------------------------------------------------------------------

struct LrnCase {
  DType dtype;
  Shape shape;
  int64_t radius;
  float bias, alpha, beta;
  std::string name;
};

std::vector<LrnCase> LrnCases() {
  std::vector<LrnCase> cases;
  const std::vector<Shape> shapes = {{2, 3, 2, 7}, {1, 1, 1, 1}, {3, 2, 1, 12}, {1, 2, 2, 0}};
  for (DType d : {DType::kFloat, DType::kHalf}) {
    for (size_t s = 0; s < shapes.size(); ++s) {
      for (int64_t radius : {0, 1, 2, 5, 100}) {
        cases.push_back({d, shapes[s], radius, 1.0f, 0.3f, 0.75f,
                         absl::StrCat(DTypeName(d), "_", s, "_r", radius)});
      }
      cases.push_back(
          {d, shapes[s], 2, 2.0f, 1e-4f, 0.5f, absl::StrCat(DTypeName(d), "_", s, "_alexnet")});
    }
  }
  return cases;
}

AttrMap LrnAttrs(const LrnCase& c) {
  return {{"T", c.dtype},
          {"depth_radius", c.radius},
          {"bias", c.bias},
          {"alpha", c.alpha},
          {"beta", c.beta}};
}

class LrnTest : public ::testing::TestWithParam<LrnCase> {};

TEST_P(LrnTest, MatchesReference) {
  const LrnCase& c = GetParam();
  const Tensor x = Random(c.dtype, c.shape, 3, -2, 2);
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("LRN", LrnAttrs(c), 1), {x}));
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("LRN", LrnAttrs(c), 1), {x},
                                          {.symbolic_dims = {{0, 0}}}));
}

TEST_P(LrnTest, GradMatchesReference) {
  const LrnCase& c = GetParam();
  const Tensor x = Random(c.dtype, c.shape, 4, -2, 2);
  const Tensor y = RunOp1("LRN", {x}, LrnAttrs(c));
  const Tensor dy = Random(c.dtype, c.shape, 5);
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("LRNGrad", LrnAttrs(c), 3), {dy, x, y}));
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("LRNGrad", LrnAttrs(c), 3), {dy, x, y},
                                          {.symbolic_dims = {{0, 0}, {1, 0}, {2, 0}}}));
}

INSTANTIATE_TEST_SUITE_P(All, LrnTest, ::testing::ValuesIn(LrnCases()),
                         [](const auto& info) { return info.param.name; });

TEST(LrnErrorTest, RefusesWhatTheReferenceRefuses) {
  const LrnCase c{DType::kFloat, {1, 2, 2, 3}, 2, 1, 1, 0.5f, ""};
  const Tensor x = Random(DType::kFloat, {1, 2, 2, 3}, 1);
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("LRN", LrnAttrs(c), 1),
                                          {Random(DType::kFloat, {2, 3}, 1)}));
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("LRN", LrnAttrs(c), 1),
                                          {Random(DType::kDouble, {1, 2, 2, 3}, 1)}));
  LrnCase negative = c;
  negative.radius = -1;
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("LRN", LrnAttrs(negative), 1), {x}));
  EXPECT_THAT(TranslateStatus(MakeNode("LRN", LrnAttrs(negative), 1), {x}).message(),
              HasSubstr("depth_radius must be in [0, 2^31 - 1), got -1"));
  const Tensor other = Random(DType::kFloat, {1, 2, 3, 3}, 1);
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("LRNGrad", LrnAttrs(c), 3), {x, x, other}));
  EXPECT_THAT(TranslateStatus(MakeNode("LRNGrad", LrnAttrs(c), 3), {x, x, other}).message(),
              HasSubstr("output_image must have input_grads' dtype and shape float32[1,2,2,3], got "
                        "float32[1,2,3,3]"));
}

}  // namespace
}  // namespace dfc::ir
