// Tests for the translations of the tail table's elementwise math (special_math.cc) against the
// reference executor: each op on each dtype it takes, over the values where the special
// functions change branch (poles, domain edges, the series/fraction switch, large arguments),
// with broadcasting, and the reference's refusals. The device runs the same ops in
// DeviceExecutorTest.TheTailsElementwiseMathMatchesTheReferenceOnTheDevice.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "graph/attr.h"
#include "graph/dtype.h"
#include "graph/half.h"
#include "graph/tensor.h"
#include "gtest/gtest.h"
#include "ir/from_tf/translate.h"
#include "tests/test_util.h"
#include "tests/translate_testing.h"

namespace dfc::ir {
namespace {

using ::dfc::testing::MakeNode;
using ::dfc::testing::TN;
using ::dfc::testing::TranslationMatchesReference;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// The values where the special functions change branch or meet an edge.
const std::vector<double> kEdges = {kNaN, -kInf, -3,  -2.5, -1,   -0.5, 0,    1e-3, 0.25,
                                    0.5,  1,     1.5, 2,    3.7,  9.5,  10,   11,   30,
                                    100,  1e4,   kInf};

// `values` as a tensor of `dtype` (rounded to it) with `shape` (their count, by default).
Tensor Values(DType dtype, const std::vector<double>& values, Shape shape = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(values.size())};
  Tensor t = Tensor::Zeros(dtype, shape);
  DispatchDType(dtype, [&]<typename T>() {
    T* data = t.mutable_data<T>();
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      const double v = values[i % values.size()];
      if constexpr (std::is_same_v<T, Half>) {
        data[i] = Half(static_cast<float>(v));
      } else {
        data[i] = static_cast<T>(v);
      }
    }
  });
  return t;
}

// Every pair of edges, as two vectors: a against x.
std::pair<Tensor, Tensor> Pairs(DType dtype, const std::vector<double>& a,
                                const std::vector<double>& x) {
  std::vector<double> as;
  std::vector<double> xs;
  for (double u : a) {
    for (double v : x) {
      as.push_back(u);
      xs.push_back(v);
    }
  }
  return {Values(dtype, as), Values(dtype, xs)};
}

TEST(SpecialFunctionTest, UnaryOnesMatchTheReferenceOnEveryFloatingDType) {
  for (const char* op : {"Lgamma", "Digamma"}) {
    for (DType d : {DType::kHalf, DType::kFloat, DType::kDouble}) {
      EXPECT_TRUE(TranslationMatchesReference(MakeNode(op, {{"T", d}}, 1), {Values(d, kEdges)}))
          << op << " " << DTypeName(d);
    }
  }
}

TEST(SpecialFunctionTest, BinaryOnesMatchTheReferenceOnEveryPairOfEdges) {
  for (const char* op : {"Igamma", "Igammac", "Zeta", "Polygamma"}) {
    for (DType d : {DType::kFloat, DType::kDouble}) {
      const auto [a, x] = Pairs(d, kEdges, kEdges);
      EXPECT_TRUE(TranslationMatchesReference(MakeNode(op, {{"T", d}}, 2), {a, x}))
          << op << " " << DTypeName(d);
    }
  }
}

TEST(SpecialFunctionTest, BinaryOnesBroadcast) {
  const Tensor n = TN<float>({0, 1, 2}, {3, 1});
  const Tensor x = TN<float>({0.5f, 1.5f, 4}, {1, 3});
  for (const char* op : {"Igamma", "Igammac", "Zeta", "Polygamma"}) {
    EXPECT_TRUE(TranslationMatchesReference(MakeNode(op, {{"T", DType::kFloat}}, 2), {n, x}))
        << op;
  }
}

TEST(SpecialFunctionTest, BetaincMatchesTheReferenceWithScalarsAndOneShape) {
  const std::vector<double> ab = {kNaN, -1, 0, 0.5, 1, 2.5, 40};
  const std::vector<double> xs = {kNaN, -0.5, 0, 0.1, 0.5, 0.9, 1, 1.5};
  for (DType d : {DType::kFloat, DType::kDouble}) {
    std::vector<double> a;
    std::vector<double> b;
    std::vector<double> x;
    for (double u : ab) {
      for (double v : ab) {
        for (double w : xs) {
          a.push_back(u);
          b.push_back(v);
          x.push_back(w);
        }
      }
    }
    const Node node = MakeNode("Betainc", {{"T", d}}, 3);
    EXPECT_TRUE(TranslationMatchesReference(node, {Values(d, a), Values(d, b), Values(d, x)}));
    // Scalars against the common shape.
    EXPECT_TRUE(TranslationMatchesReference(
        node, {Values(d, {2.5}, {}), Values(d, b), Values(d, {0.3}, {})}));
  }
  // Anything else is refused, as by the reference.
  const Node node = MakeNode("Betainc", {{"T", DType::kFloat}}, 3);
  EXPECT_TRUE(TranslationMatchesReference(
      node, {Values(DType::kFloat, {1, 2}), Values(DType::kFloat, {1, 2, 3}),
             Values(DType::kFloat, {0.5}, {})}));
}

TEST(GuardedMathTest, ZeroXGivesZeroWhateverY) {
  for (const char* op : {"Xdivy", "Xlogy", "Xlog1py"}) {
    for (DType d : {DType::kHalf, DType::kFloat, DType::kDouble}) {
      const auto [x, y] = Pairs(d, {kNaN, -2, -0.0, 0, 0.5, 3, kInf}, {kNaN, -1, 0, 1e-3, 2, kInf});
      EXPECT_TRUE(TranslationMatchesReference(MakeNode(op, {{"T", d}}, 2), {x, y}))
          << op << " " << DTypeName(d);
    }
    // Broadcast.
    EXPECT_TRUE(TranslationMatchesReference(
        MakeNode(op, {{"T", DType::kFloat}}, 2),
        {TN<float>({0, 1, 2}, {3, 1}), TN<float>({0.5f, 0, 4, 8}, {1, 4})}));
  }
}

TEST(ApproximateEqualTest, ComparesInTheDTypeAndTruncatesIntegerTolerances) {
  for (DType d : {DType::kHalf, DType::kFloat, DType::kDouble}) {
    const auto [x, y] = Pairs(d, {0, 1, 1.0001, kNaN, kInf}, {0, 1, 1.00001, 1.5, kNaN, kInf});
    for (float tolerance : {1e-5f, 1e-3f, 0.6f}) {
      EXPECT_TRUE(TranslationMatchesReference(
          MakeNode("ApproximateEqual", {{"T", d}, {"tolerance", tolerance}}, 2), {x, y}))
          << DTypeName(d) << " " << tolerance;
    }
  }
  for (DType d : {DType::kInt8, DType::kInt32, DType::kInt64, DType::kUInt8, DType::kUInt64}) {
    const auto [x, y] = Pairs(d, {0, 1, 3, 100, 127}, {0, 1, 2, 5, 120});
    for (float tolerance : {0.5f, 1.0f, 2.9f, 7.0f, 1e30f}) {
      EXPECT_TRUE(TranslationMatchesReference(
          MakeNode("ApproximateEqual", {{"T", d}, {"tolerance", tolerance}}, 2), {x, y}))
          << DTypeName(d) << " " << tolerance;
    }
  }
  // Shapes must be equal: no broadcasting.
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("ApproximateEqual", {{"T", DType::kFloat}}, 2),
      {TN<float>({1, 2}, {2}), TN<float>({1}, {1})}));
}

TEST(ClipByValueTest, ScalarAndElementwiseBoundsOnEveryNumericDType) {
  for (DType d : {DType::kHalf, DType::kFloat, DType::kDouble, DType::kInt8, DType::kInt32,
                  DType::kUInt16, DType::kInt64}) {
    const bool floating = IsFloating(d);
    const std::vector<double> t = floating ? std::vector<double>{kNaN, -kInf, -3, -0.5, 0, 2, 7, kInf}
                                           : std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7};
    const Node node = MakeNode("ClipByValue", {{"T", d}}, 3);
    EXPECT_TRUE(TranslationMatchesReference(
        node, {Values(d, t), Values(d, {1}, {}), Values(d, {5}, {})}))
        << DTypeName(d);
    EXPECT_TRUE(TranslationMatchesReference(
        node, {Values(d, t), Values(d, {0, 1, 2, 3, 0, 1, 2, 3}), Values(d, {4}, {})}))
        << DTypeName(d);
    // A bound of another shape is refused.
    EXPECT_TRUE(TranslationMatchesReference(
        node, {Values(d, t), Values(d, {0, 1}), Values(d, {4}, {})}))
        << DTypeName(d);
  }
}

TEST(BucketizeTest, CountsTheBoundariesNotAboveEachValue) {
  AttrList boundaries;
  boundaries.f = {-1, 0, 0, 2.5f, 1e6f};
  AttrList none;
  for (DType d : {DType::kInt32, DType::kInt64, DType::kFloat, DType::kDouble}) {
    const std::vector<double> v = IsFloating(d)
                                      ? std::vector<double>{kNaN, -kInf, -2, -1, -0.5, 0, 2.5,
                                                            2.4999, 1e6, 3e7, kInf}
                                      : std::vector<double>{-5, -1, 0, 1, 2, 3, 999999, 1000001};
    for (const AttrList& b : {boundaries, none}) {
      EXPECT_TRUE(TranslationMatchesReference(
          MakeNode("Bucketize", {{"T", d}, {"boundaries", b}}, 1), {Values(d, v, {1, static_cast<int64_t>(v.size())})}))
          << DTypeName(d);
    }
  }
  AttrList unsorted;
  unsorted.f = {1, 0};
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("Bucketize", {{"T", DType::kFloat}, {"boundaries", unsorted}}, 1),
      {TN<float>({0.5f}, {1})}));
}

TEST(FakeQuantTest, ArgsVarsAndPerChannelMatchTheReference) {
  std::vector<double> xs;
  for (int i = -40; i <= 40; ++i) xs.push_back(i * 0.173);
  xs.push_back(kNaN);
  xs.push_back(kInf);
  xs.push_back(-kInf);
  const Tensor x = Values(DType::kFloat, xs, {84});
  for (bool narrow : {false, true}) {
    for (int64_t bits : {2, 8, 16}) {
      const AttrMap attrs = {{"num_bits", bits}, {"narrow_range", narrow}};
      for (auto [min, max] : {std::pair{-6.0f, 6.0f}, {0.0f, 1.0f}, {0.3f, 4.7f}, {-3.1f, -0.2f}}) {
        AttrMap with_range = attrs;
        with_range["min"] = min;
        with_range["max"] = max;
        EXPECT_TRUE(
            TranslationMatchesReference(MakeNode("FakeQuantWithMinMaxArgs", with_range, 1), {x}))
            << bits << " " << min << " " << max;
        EXPECT_TRUE(TranslationMatchesReference(
            MakeNode("FakeQuantWithMinMaxVars", attrs, 3), {x, TN<float>({min}, {}), TN<float>({max}, {})}))
            << bits << " " << min << " " << max;
      }
      // Per channel, over the last dimension of 4, one of whose ranges is [0, 0].
      EXPECT_TRUE(TranslationMatchesReference(
          MakeNode("FakeQuantWithMinMaxVarsPerChannel", attrs, 3),
          {Values(DType::kFloat, xs, {3, 7, 4}), TN<float>({-6, 0, 0.3f, -3.1f}, {4}),
           TN<float>({6, 0, 4.7f, -0.2f}, {4})}))
          << bits;
    }
  }
  // Refusals, as the reference's: a reversed range, bits out of [2, 16], a range of another
  // shape.
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("FakeQuantWithMinMaxArgs", {{"min", 1.0f}, {"max", -1.0f}}, 1), {x}));
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("FakeQuantWithMinMaxArgs", {{"num_bits", int64_t{17}}}, 1), {x}));
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("FakeQuantWithMinMaxVars", {}, 3), {x, TN<float>({2}, {}), TN<float>({1}, {})}));
  EXPECT_TRUE(TranslationMatchesReference(
      MakeNode("FakeQuantWithMinMaxVarsPerChannel", {}, 3),
      {Values(DType::kFloat, xs, {21, 4}), TN<float>({0, 1}, {2}), TN<float>({1, 2}, {2})}));
}

TEST(SpecialMathErrorTest, DTypesOutsideTheOpsAreRefusedNamingThem) {
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("Igamma", {{"T", DType::kHalf}}, 2),
                                          {Values(DType::kHalf, {1}), Values(DType::kHalf, {1})}));
  EXPECT_TRUE(TranslationMatchesReference(MakeNode("Lgamma", {{"T", DType::kInt32}}, 1),
                                          {Values(DType::kInt32, {1, 2})}));
}

}  // namespace
}  // namespace dfc::ir
