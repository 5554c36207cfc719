// Tests for the activation-gradient translations (activation_grad.cc): every op against the
// reference executor on every dtype (the refused ones too: the translation must refuse them as
// well), on a table of shapes with special values (NaN, infinities, zeros, the units' edges),
// with a symbolic batch; mismatched inputs refused with a message naming the node.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "graph/dtype.h"
#include "graph/fold.h"
#include "graph/half.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "ir/from_tf/translate.h"
#include "tests/test_util.h"
#include "tests/translate_testing.h"

namespace dfc::ir {
namespace {

using ::dfc::testing::MakeNode;
using ::dfc::testing::TranslateStatus;
using ::dfc::testing::TranslationMatchesReference;
using ::testing::HasSubstr;

const std::vector<std::string> kOps = {
    "ReluGrad",     "Relu6Grad",      "LeakyReluGrad", "EluGrad",  "SeluGrad",
    "SoftplusGrad", "SoftsignGrad",   "SigmoidGrad",   "TanhGrad", "RsqrtGrad",
    "SqrtGrad",     "ReciprocalGrad", "InvGrad"};

const std::vector<DType> kDTypes = {DType::kHalf,  DType::kFloat,  DType::kDouble,
                                    DType::kInt8,  DType::kInt32,  DType::kInt64,
                                    DType::kUInt8, DType::kUInt64, DType::kBool};

const std::vector<Shape> kShapes = {{}, {0}, {7}, {2, 3}, {3, 0, 2}, {2, 3, 1, 4}, {4, 5, 6}};

std::string ShapeName(const Shape& shape) {
  if (shape.empty()) return "scalar";
  std::string name;
  for (int64_t d : shape) name += (name.empty() ? "" : "x") + std::to_string(d);
  return name;
}

// Seeded values: first the special ones (for floats NaN, infinities, signed zeros, 1, 6 and
// -1, where the units switch), then random ones in [-8, 8).
Tensor MakeInput(DType dtype, const Shape& shape, uint32_t seed) {
  Tensor t = Tensor::Zeros(dtype, shape);
  std::mt19937 rng(seed);
  DispatchDType(dtype, [&]<typename T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      T* data = t.mutable_data<T>();
      std::vector<double> specials = {0, 1, 6, -1, 3.5, -0.25};
      if constexpr (!std::is_integral_v<T>) {
        specials.insert(specials.end(), {std::numeric_limits<double>::quiet_NaN(),
                                         std::numeric_limits<double>::infinity(),
                                         -std::numeric_limits<double>::infinity(), -0.0});
      }
      for (int64_t k = 0; k < t.num_elements(); ++k) {
        const size_t s = (k + seed) % (specials.size() * 3);
        const double x =
            s < specials.size() ? specials[s] : std::uniform_real_distribution<double>(-8, 8)(rng);
        if constexpr (std::is_integral_v<T>) {
          data[k] = static_cast<T>(static_cast<int64_t>(x));
        } else {
          data[k] = static_cast<T>(static_cast<float>(x));
        }
      }
    }
  });
  return t;
}

Node GradNode(const std::string& op, DType dtype) {
  AttrMap attrs = {{"T", dtype}};
  if (op == "LeakyReluGrad") attrs["alpha"] = 0.3f;
  return MakeNode(op, attrs, 2);
}

using GradCase = std::tuple<std::string, DType, Shape>;

class ActivationGradTest : public ::testing::TestWithParam<GradCase> {};

TEST_P(ActivationGradTest, MatchesReference) {
  const auto& [op, dtype, shape] = GetParam();
  const Tensor a = MakeInput(dtype, shape, 1);
  const Tensor b = MakeInput(dtype, shape, 5);
  EXPECT_TRUE(TranslationMatchesReference(GradNode(op, dtype), {a, b}));
}

TEST_P(ActivationGradTest, MatchesReferenceWithASymbolicBatch) {
  const auto& [op, dtype, shape] = GetParam();
  if (shape.empty()) GTEST_SKIP() << "a scalar has no batch";
  const Tensor a = MakeInput(dtype, shape, 2);
  const Tensor b = MakeInput(dtype, shape, 9);
  EXPECT_TRUE(TranslationMatchesReference(GradNode(op, dtype), {a, b},
                                          {.symbolic_dims = {{0, 0}, {1, 0}}}));
}

INSTANTIATE_TEST_SUITE_P(All, ActivationGradTest,
                         ::testing::Combine(::testing::ValuesIn(kOps), ::testing::ValuesIn(kDTypes),
                                            ::testing::ValuesIn(kShapes)),
                         [](const auto& info) {
                           return absl::StrCat(std::get<0>(info.param), "_",
                                               DTypeName(std::get<1>(info.param)), "_",
                                               ShapeName(std::get<2>(info.param)));
                         });

// LeakyReluGrad's alpha by default, and an alpha float16 cannot hold exactly.
TEST(LeakyReluGradTest, AlphaIsRoundedToT) {
  for (DType d : {DType::kHalf, DType::kFloat, DType::kDouble}) {
    const Tensor g = MakeInput(d, {3, 8}, 3);
    const Tensor f = MakeInput(d, {3, 8}, 4);
    EXPECT_TRUE(TranslationMatchesReference(MakeNode("LeakyReluGrad", {{"T", d}}, 2), {g, f}));
    EXPECT_TRUE(TranslationMatchesReference(
        MakeNode("LeakyReluGrad", {{"T", d}, {"alpha", 0.123456789f}}, 2), {g, f}));
  }
}

// No broadcasting: the reference refuses inputs of different shapes or dtypes, and so does the
// translation, naming the node, both inputs and their types.
TEST(ActivationGradErrorTest, RefusesMismatchedInputs) {
  const Tensor a = MakeInput(DType::kFloat, {2, 3}, 1);
  const Tensor row = MakeInput(DType::kFloat, {3}, 2);
  const Tensor wide = MakeInput(DType::kDouble, {2, 3}, 2);
  EXPECT_TRUE(TranslationMatchesReference(GradNode("ReluGrad", DType::kFloat), {a, row}));
  EXPECT_THAT(TranslateStatus(GradNode("ReluGrad", DType::kFloat), {a, row}).message(),
              HasSubstr("node \"node\" (ReluGrad): gradients and features must have the same "
                        "dtype and shape, got float32[2,3] and float32[3]"));
  EXPECT_THAT(TranslateStatus(GradNode("SigmoidGrad", DType::kFloat), {a, wide}).message(),
              HasSubstr("y and dy must have the same dtype and shape"));
  EXPECT_THAT(TranslateStatus(GradNode("TanhGrad", DType::kFloat), {a}).message(),
              HasSubstr("expects 2 inputs (y, dy), got 1"));
  const Tensor ints = MakeInput(DType::kInt32, {2, 3}, 1);
  EXPECT_THAT(TranslateStatus(GradNode("EluGrad", DType::kInt32), {ints, ints}).message(),
              HasSubstr("EluGrad is not defined for dtype int32"));
}

}  // namespace
}  // namespace dfc::ir
