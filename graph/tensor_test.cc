// Tensor: creation limits and overflow, construction helpers, buffer sharing, element access,
// NumPy-like previews and bitwise comparison.
#include "graph/tensor.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::testing::HasSubstr;

std::string Message(const absl::Status& status) { return std::string(status.message()); }

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(Shape, ToStringAndNumElements) {
  EXPECT_EQ(ShapeToString({}), "[]");
  EXPECT_EQ(ShapeToString({2, 3}), "[2,3]");
  EXPECT_EQ(*NumElements({}), 1);
  EXPECT_EQ(*NumElements({2, 3, 4}), 24);
  EXPECT_EQ(*NumElements({5, 0, 7}), 0);
  EXPECT_EQ(*NumElements({int64_t{1} << 62, 0}), 0);
  EXPECT_EQ(*NumElements({int64_t{1} << 31, int64_t{1} << 31}), int64_t{1} << 62);
  absl::StatusOr<int64_t> negative = NumElements({2, -3});
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(Message(negative.status()), HasSubstr("[2,-3] has a negative dimension"));
  absl::StatusOr<int64_t> overflow = NumElements({int64_t{1} << 32, int64_t{1} << 32});
  ASSERT_FALSE(overflow.ok());
  EXPECT_THAT(Message(overflow.status()), HasSubstr("more than 2^63 elements"));
  EXPECT_FALSE(NumElements({int64_t{3} << 61, 2}).ok());  // 3 * 2^62 > 2^63 - 1
}

TEST(TensorCreate, ZeroFilled) {
  absl::StatusOr<Tensor> t = Tensor::Create(DType::kInt32, {2, 3});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DType::kInt32);
  EXPECT_EQ(t->shape(), (Shape{2, 3}));
  EXPECT_EQ(t->rank(), 2);
  EXPECT_EQ(t->dim(1), 3);
  EXPECT_EQ(t->num_elements(), 6);
  EXPECT_EQ(t->byte_size(), 24u);
  EXPECT_EQ(testing::Values<int32_t>(*t), std::vector<int32_t>(6, 0));
}

TEST(TensorCreate, ZeroSizeAndStrings) {
  absl::StatusOr<Tensor> empty = Tensor::Create(DType::kDouble, {0, int64_t{1} << 62});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->num_elements(), 0);
  EXPECT_EQ(empty->byte_size(), 0u);
  absl::StatusOr<Tensor> strings = Tensor::Create(DType::kString, {3});
  ASSERT_TRUE(strings.ok()) << strings.status();
  EXPECT_EQ(strings->num_elements(), 3);
  EXPECT_EQ(strings->byte_size(), 0u);  // a shape, no element storage
}

TEST(TensorCreate, Errors) {
  absl::StatusOr<Tensor> negative = Tensor::Create(DType::kFloat, {-1});
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(Message(negative.status()), HasSubstr("negative dimension"));

  absl::StatusOr<Tensor> overflow =
      Tensor::Create(DType::kFloat, {int64_t{1} << 40, int64_t{1} << 40});
  ASSERT_FALSE(overflow.ok());
  EXPECT_THAT(Message(overflow.status()), HasSubstr("more than 2^63"));

  // Element counts that fit in int64 but whose bytes exceed kMaxTensorBytes: refused before
  // allocating, also where count * size would overflow.
  for (const auto& [dtype, shape] :
       std::vector<std::pair<DType, Shape>>{{DType::kBool, {kMaxTensorBytes + 1}},
                                            {DType::kFloat, {kMaxTensorBytes / 4 + 1}},
                                            {DType::kInt64, {int64_t{1} << 30, 2}},
                                            {DType::kDouble, {int64_t{1} << 61, 2}}}) {
    absl::StatusOr<Tensor> t = Tensor::Create(dtype, shape);
    ASSERT_FALSE(t.ok()) << ShapeToString(shape);
    EXPECT_EQ(t.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_THAT(Message(t.status()), HasSubstr(ShapeToString(shape)));
    EXPECT_THAT(Message(t.status()), HasSubstr("limit"));
  }
}

TEST(Tensor, BorrowedKeepsItsOwnerAliveAndIsNotCopied) {
  auto owner = std::make_shared<std::vector<float>>(std::vector<float>{1, 2, 3, 4, 5, 6});
  std::weak_ptr<std::vector<float>> watch = owner;
  const float* bytes = owner->data();
  absl::StatusOr<Tensor> t =
      Tensor::Borrowed(DType::kFloat, {2, 3}, owner, bytes, 6 * sizeof(float));
  ASSERT_TRUE(t.ok()) << t.status();
  owner.reset();
  EXPECT_FALSE(watch.expired());  // the tensor holds the owner
  EXPECT_EQ(t->data<float>(), bytes);
  EXPECT_EQ(t->data<float>()[5], 6.0f);
  absl::StatusOr<Tensor> reshaped = t->Reshaped({6});
  ASSERT_TRUE(reshaped.ok());
  EXPECT_EQ(reshaped->data<float>(), bytes);
  const Tensor copy = t->Clone();
  EXPECT_NE(copy.data<float>(), bytes);
  EXPECT_TRUE(copy.BitwiseEqual(*t));
  *t = Tensor();
  *reshaped = Tensor();
  EXPECT_TRUE(watch.expired());  // the last tensor over the bytes released them

  EXPECT_THAT(Message(Tensor::Borrowed(DType::kFloat, {2, 3}, nullptr, bytes, 20).status()),
              HasSubstr("float32[2,3] needs 24 bytes, got 20"));
  EXPECT_THAT(Message(Tensor::Borrowed(DType::kString, {1}, nullptr, bytes, 8).status()),
              HasSubstr("cannot borrow"));
}

TEST(Tensor, DefaultFromVectorAndScalar) {
  const Tensor zero;
  EXPECT_EQ(zero.DebugType(), "float32[]");
  EXPECT_EQ(zero.data<float>()[0], 0.0f);

  const Tensor v = Tensor::FromVector<int64_t>({1, -2, 3, -4, 5, -6}, {3, 2});
  EXPECT_EQ(v.DebugType(), "int64[3,2]");
  EXPECT_EQ(testing::Values<int64_t>(v), (std::vector<int64_t>{1, -2, 3, -4, 5, -6}));

  const Tensor s = Tensor::Scalar<uint8_t>(200);
  EXPECT_EQ(s.DebugType(), "uint8[]");
  EXPECT_EQ(s.rank(), 0);
  EXPECT_EQ(s.num_elements(), 1);
  EXPECT_EQ(s.data<uint8_t>()[0], 200);
}

TEST(Tensor, ReshapedSharesTheBuffer) {
  const Tensor t = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  absl::StatusOr<Tensor> r = t.Reshaped({3, 1, 2});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->DebugType(), "float32[3,1,2]");
  EXPECT_EQ(r->raw_data(), t.raw_data());
  EXPECT_EQ(testing::Values<float>(*r), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(t.shape(), (Shape{2, 3}));  // the original keeps its shape

  absl::StatusOr<Tensor> scalar = Tensor::Scalar<int32_t>(7).Reshaped({1, 1});
  ASSERT_TRUE(scalar.ok());
  EXPECT_EQ(scalar->DebugType(), "int32[1,1]");
  absl::StatusOr<Tensor> empty = Tensor::Zeros(DType::kBool, {0, 3}).Reshaped({3, 0, 5});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->num_elements(), 0);
}

TEST(Tensor, ReshapedErrors) {
  const Tensor t = Tensor::Zeros(DType::kFloat, {2, 3});
  absl::StatusOr<Tensor> wrong = t.Reshaped({4});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(Message(wrong.status()), "cannot reshape float32[2,3] to [4]: 6 elements against 4");
  absl::StatusOr<Tensor> negative = t.Reshaped({-2, -3});
  ASSERT_FALSE(negative.ok());
  EXPECT_THAT(Message(negative.status()), HasSubstr("negative dimension"));
}

TEST(Tensor, CopiesShareAndClonesDoNot) {
  Tensor t = Tensor::FromVector<int32_t>({1, 2, 3}, {3});
  const Tensor copy = t;
  EXPECT_EQ(copy.raw_data(), t.raw_data());

  Tensor clone = t.Clone();
  EXPECT_NE(clone.raw_data(), t.raw_data());
  EXPECT_TRUE(clone.BitwiseEqual(t));
  clone.mutable_data<int32_t>()[0] = 100;
  EXPECT_EQ(testing::Values<int32_t>(t), (std::vector<int32_t>{1, 2, 3}));
  t.mutable_data<int32_t>()[2] = -3;
  EXPECT_EQ(testing::Values<int32_t>(clone), (std::vector<int32_t>{100, 2, 3}));
  EXPECT_EQ(copy.data<int32_t>()[2], -3);  // the copy sees writes to the shared buffer

  const Tensor empty_clone = Tensor::Zeros(DType::kHalf, {0}).Clone();
  EXPECT_EQ(empty_clone.DebugType(), "float16[0]");
}

TEST(Tensor, ElementAccessors) {
  const Tensor h = Tensor::FromVector<Half>({Half(-2.5f), Half(65504.0f)}, {2});
  EXPECT_EQ(h.ElementAsDouble(0), -2.5);
  EXPECT_EQ(h.ElementAsDouble(1), 65504.0);
  EXPECT_EQ(h.ElementAsInt64(0), -2);
  const Tensor b = Tensor::FromVector<bool>({false, true}, {2});
  EXPECT_EQ(b.ElementAsDouble(1), 1.0);
  EXPECT_EQ(b.ElementAsInt64(0), 0);
  const Tensor i = Tensor::FromVector<int64_t>({std::numeric_limits<int64_t>::min()}, {1});
  EXPECT_EQ(i.ElementAsInt64(0), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Tensor::Scalar<int8_t>(-128).ElementAsDouble(0), -128.0);
  EXPECT_EQ(Tensor::Scalar<uint8_t>(255).ElementAsInt64(0), 255);
  EXPECT_EQ(Tensor::Scalar<double>(0.1).ElementAsDouble(0), 0.1);
}

struct PreviewCase {
  const char* name;
  Tensor tensor;
  int64_t max_elements;
  const char* expected;
};

class TensorPreviewTest : public ::testing::TestWithParam<PreviewCase> {};

TEST_P(TensorPreviewTest, FormatsLikeNumpy) {
  EXPECT_EQ(GetParam().tensor.Preview(GetParam().max_elements), GetParam().expected);
}

std::vector<float> Iota(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return v;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TensorPreviewTest,
    ::testing::Values(
        PreviewCase{"IntScalar", Tensor::Scalar<int32_t>(3), 16, "3"},
        PreviewCase{"FloatScalar", Tensor::Scalar<float>(1.5f), 16, "1.5"},
        PreviewCase{"DefaultTensor", Tensor(), 16, "0"},
        PreviewCase{"Matrix", Tensor::FromVector<int32_t>({1, 2, 3, 4}, {2, 2}), 16,
                    "[[1, 2], [3, 4]]"},
        PreviewCase{"Rank3", Tensor::FromVector<int8_t>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}), 16,
                    "[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]"},
        PreviewCase{"LongVector", Tensor::FromVector<float>(Iota(20), {20}), 16,
                    "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, ...]"},
        PreviewCase{"ShortBudget", Tensor::FromVector<float>(Iota(20), {20}), 3, "[0, 1, 2, ...]"},
        PreviewCase{"BudgetInsideRank3", Tensor::FromVector<float>(Iota(8), {2, 2, 2}), 3,
                    "[[[0, 1], [2, ...]], ...]"},
        PreviewCase{"ExactBudget", Tensor::FromVector<float>(Iota(4), {4}), 4, "[0, 1, 2, 3]"},
        // Empty rows count against the budget: 2^32 of them would not fit in memory.
        PreviewCase{"ManyEmptyRows", Tensor::Zeros(DType::kFloat, {65536, 65536, 0}), 3,
                    "[[[], [], [], ...], ...]"},
        PreviewCase{"Bool", Tensor::FromVector<bool>({true, false, true}, {3}), 16,
                    "[True, False, True]"},
        PreviewCase{"BoolScalar", Tensor::Scalar<bool>(false), 16, "False"},
        PreviewCase{"Half", testing::HalfTensor({0.5f, -2.0f, 65504.0f, 0.1f}, {4}), 16,
                    "[0.5, -2, 65504, 0.0999756]"},
        PreviewCase{"NanAndInf", Tensor::FromVector<float>({kNan, kInf, -kInf, -0.0f}, {4}), 16,
                    "[nan, inf, -inf, -0]"},
        PreviewCase{"HalfInf",
                    Tensor::FromVector<Half>({Half::FromBits(0xfc00), Half::FromBits(0x7e00)}, {2}),
                    16, "[-inf, nan]"},
        PreviewCase{"SixSignificantDigits",
                    Tensor::FromVector<double>({0.1, 1e-7, 123456789.0, 1.0 / 3}, {4}), 16,
                    "[0.1, 1e-07, 1.23457e+08, 0.333333]"},
        PreviewCase{"Int64Extremes",
                    Tensor::FromVector<int64_t>({std::numeric_limits<int64_t>::max(),
                                                 std::numeric_limits<int64_t>::min()},
                                                {2}),
                    16, "[9223372036854775807, -9223372036854775808]"},
        PreviewCase{"Bytes", Tensor::FromVector<uint8_t>({255, 0}, {2}), 16, "[255, 0]"},
        PreviewCase{"Int8", Tensor::FromVector<int8_t>({-128}, {1}), 16, "[-128]"},
        PreviewCase{"Empty", Tensor::Zeros(DType::kFloat, {0}), 16, "[]"},
        PreviewCase{"EmptyRows", Tensor::Zeros(DType::kInt32, {2, 0}), 16, "[[], []]"},
        PreviewCase{"EmptyStrings", Tensor::Zeros(DType::kString, {2}), 16, "[\"\", \"\"]"},
        PreviewCase{"Strings", *Tensor::Strings({"a\n", "b"}, {2}), 16, "[\"a\\n\", \"b\"]"},
        PreviewCase{"Resource", Tensor::Zeros(DType::kResource, {}), 16, "<resource>"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(Tensor, BitwiseEqual) {
  const Tensor a = Tensor::FromVector<float>({1, 2, 3, 4}, {4});
  EXPECT_TRUE(a.BitwiseEqual(Tensor::FromVector<float>({1, 2, 3, 4}, {4})));
  EXPECT_FALSE(a.BitwiseEqual(Tensor::FromVector<float>({1, 2, 3, 5}, {4})));
  // Same bytes, other shape or dtype.
  EXPECT_FALSE(a.BitwiseEqual(*a.Reshaped({2, 2})));
  EXPECT_FALSE(Tensor::Zeros(DType::kInt32, {2}).BitwiseEqual(Tensor::Zeros(DType::kFloat, {2})));
  // Bits, not values: NaN equals itself, -0 differs from 0.
  EXPECT_TRUE(Tensor::Scalar<float>(kNan).BitwiseEqual(Tensor::Scalar<float>(kNan)));
  EXPECT_FALSE(Tensor::Scalar<float>(0.0f).BitwiseEqual(Tensor::Scalar<float>(-0.0f)));
  EXPECT_TRUE(
      Tensor::Zeros(DType::kHalf, {0, 2}).BitwiseEqual(Tensor::Zeros(DType::kHalf, {0, 2})));
  EXPECT_FALSE(
      Tensor::Zeros(DType::kHalf, {0, 2}).BitwiseEqual(Tensor::Zeros(DType::kHalf, {2, 0})));
}

}  // namespace
}  // namespace dfc
