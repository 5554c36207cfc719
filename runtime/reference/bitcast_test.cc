// Tests of the byte-moving reference kernels (bitcast.cc): Bitcast's shape rule and byte order
// across widths and from bfloat16 constants, DeepCopy, Empty and CheckNumerics, and how
// bfloat16 is loaded, moved, printed and refused.
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "graph/loader.h"
#include "graph/npy.h"
#include "gtest/gtest.h"
#include "runtime/reference/session.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::dfc::testing::ExpectError;
using ::dfc::testing::HalfTensor;
using ::dfc::testing::RunOp;
using ::dfc::testing::RunOp1;
using ::dfc::testing::T1;
using ::dfc::testing::TN;
using ::dfc::testing::Values;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

AttrMap To(DType from, DType to) { return {{"T", from}, {"type", to}}; }

// A bfloat16 tensor of the given 16-bit patterns.
Tensor BFloat16Bits(const std::vector<uint16_t>& bits, Shape shape) {
  Tensor t = Tensor::Zeros(DType::kBFloat16, std::move(shape));
  std::memcpy(t.mutable_raw_data(), bits.data(), bits.size() * sizeof(uint16_t));
  return t;
}

template <typename T, typename U>
T BitsOf(U value) {
  static_assert(sizeof(T) == sizeof(U));
  T out;
  std::memcpy(&out, &value, sizeof out);
  return out;
}

TEST(BitcastTest, EqualWidthsKeepTheShape) {
  Tensor out =
      RunOp1("Bitcast", {TN<float>({1.0f, -2.0f}, {2, 1})}, To(DType::kFloat, DType::kInt32));
  EXPECT_EQ(out.dtype(), DType::kInt32);
  EXPECT_EQ(out.shape(), Shape({2, 1}));
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(0x3f800000, BitsOf<int32_t>(-2.0f)));
  // uint64 -> float64 -> uint64 gives the same bits, including a NaN's payload.
  const uint64_t nan_bits = 0x7ff8000000000123u;
  out = RunOp1("Bitcast", {T1<uint64_t>({nan_bits, 0})}, To(DType::kUInt64, DType::kDouble));
  out = RunOp1("Bitcast", {out}, To(DType::kDouble, DType::kUInt64));
  EXPECT_THAT(Values<uint64_t>(out), ElementsAre(nan_bits, 0u));
  // half -> int16: 1.0 is 0x3c00.
  out = RunOp1("Bitcast", {HalfTensor({1.0f}, {})}, To(DType::kHalf, DType::kInt16));
  EXPECT_EQ(out.shape(), Shape({}));
  EXPECT_THAT(Values<int16_t>(out), ElementsAre(0x3c00));
}

TEST(BitcastTest, WiderInputGainsALastDimensionOfItsBytesInOrder) {
  Tensor out = RunOp1("Bitcast", {T1<int32_t>({0x04030201, -1})}, To(DType::kInt32, DType::kUInt8));
  EXPECT_EQ(out.shape(), Shape({2, 4}));
  EXPECT_THAT(Values<uint8_t>(out), ElementsAre(1, 2, 3, 4, 255, 255, 255, 255));
  // A scalar becomes a vector of the width ratio.
  out = RunOp1("Bitcast", {Tensor::Scalar<int64_t>(0x0004000300020001)},
               To(DType::kInt64, DType::kUInt16));
  EXPECT_EQ(out.shape(), Shape({4}));
  EXPECT_THAT(Values<uint16_t>(out), ElementsAre(1, 2, 3, 4));
  out = RunOp1("Bitcast", {TN<double>({1.0}, {1, 1})}, To(DType::kDouble, DType::kHalf));
  EXPECT_EQ(out.shape(), Shape({1, 1, 4}));
}

TEST(BitcastTest, NarrowerInputDropsALastDimensionEqualToTheRatio) {
  Tensor out = RunOp1("Bitcast", {TN<int8_t>({1, 0, 0, 0, 0, 1, 0, 0}, {2, 4})},
                      To(DType::kInt8, DType::kInt32));
  EXPECT_EQ(out.shape(), Shape({2}));
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(1, 256));
  out = RunOp1("Bitcast", {TN<uint16_t>({0, 0x3f80}, {2})}, To(DType::kUInt16, DType::kFloat));
  EXPECT_EQ(out.shape(), Shape({}));
  EXPECT_THAT(Values<float>(out), ElementsAre(1.0f));
}

TEST(BitcastTest, EmptyTensorsFollowTheShapeRule) {
  Tensor out =
      RunOp1("Bitcast", {Tensor::Zeros(DType::kFloat, {0, 3})}, To(DType::kFloat, DType::kInt8));
  EXPECT_EQ(out.shape(), Shape({0, 3, 4}));
  out = RunOp1("Bitcast", {Tensor::Zeros(DType::kInt16, {0, 4})}, To(DType::kInt16, DType::kInt64));
  EXPECT_EQ(out.shape(), Shape({0}));
  EXPECT_EQ(out.num_elements(), 0);
}

TEST(BitcastTest, NarrowerInputWithTheWrongLastDimensionIsAnError) {
  ExpectError(RunOp("Bitcast", {T1<int8_t>({1, 2, 3})}, To(DType::kInt8, DType::kInt32)),
              "the input's last dimension must be 4");
  ExpectError(RunOp("Bitcast", {Tensor::Scalar<int16_t>(1)}, To(DType::kInt16, DType::kFloat)),
              "cannot bitcast int16[] to float32");
  ExpectError(RunOp("Bitcast", {TN<int32_t>({1, 2, 3}, {1, 3})}, To(DType::kInt32, DType::kDouble)),
              "int32[1,3] to float64: the input's last dimension must be 2");
}

TEST(BitcastTest, BoolStringsAndUnknownTypesAreRefused) {
  ExpectError(RunOp("Bitcast", {T1<bool>({true})}, To(DType::kBool, DType::kUInt8)),
              "input 0 has dtype bool, expected one of bfloat16, float16");
  ExpectError(RunOp("Bitcast", {T1<uint8_t>({1})}, To(DType::kUInt8, DType::kBool)),
              "cannot bitcast to dtype bool");
  // complex64 (8) is a TensorFlow Bitcast type dfc does not hold.
  ExpectError(RunOp("Bitcast", {T1<int64_t>({1})}, To(DType::kInt64, static_cast<DType>(8))),
              "cannot bitcast to TensorFlow dtype 8");
  ExpectError(RunOp("Bitcast", {T1<int32_t>({1})}, {{"T", DType::kInt32}}), "\"type\"");
  ExpectError(RunOp("Bitcast", {}, To(DType::kInt32, DType::kFloat)), "expects 1 inputs, got 0");
}

TEST(BitcastTest, BFloat16PatternsReadAsOtherTypes) {
  // 1.0 and 2.0 in bfloat16 are 0x3f80 and 0x4000: the upper halves of the float32 ones.
  const Tensor bf = BFloat16Bits({0x3f80, 0x4000}, {2});
  Tensor out = RunOp1("Bitcast", {bf}, To(DType::kBFloat16, DType::kUInt16));
  EXPECT_EQ(out.shape(), Shape({2}));
  EXPECT_THAT(Values<uint16_t>(out), ElementsAre(0x3f80, 0x4000));
  out = RunOp1("Bitcast", {bf}, To(DType::kBFloat16, DType::kFloat));
  EXPECT_EQ(out.shape(), Shape({}));
  EXPECT_THAT(Values<float>(out), ElementsAre(BitsOf<float>(uint32_t{0x40003f80})));
  out = RunOp1("Bitcast", {bf}, To(DType::kBFloat16, DType::kInt8));
  EXPECT_EQ(out.shape(), Shape({2, 2}));
  EXPECT_THAT(Values<int8_t>(out), ElementsAre(-128, 63, 0, 64));
  // And back into bfloat16: the same bytes.
  const Tensor back = RunOp1("Bitcast", {out}, To(DType::kInt8, DType::kBFloat16));
  EXPECT_TRUE(back.BitwiseEqual(bf));
}

TEST(DeepCopyTest, CopiesIntoABufferOfItsOwn) {
  const Tensor in = TN<int64_t>({1, -2, 3}, {3, 1});
  const Tensor out = RunOp1("DeepCopy", {in}, {{"T", DType::kInt64}});
  EXPECT_TRUE(out.BitwiseEqual(in));
  EXPECT_NE(out.raw_data(), in.raw_data());
  EXPECT_TRUE(RunOp1("DeepCopy", {Tensor::Zeros(DType::kHalf, {0, 2})})
                  .BitwiseEqual(Tensor::Zeros(DType::kHalf, {0, 2})));
  ExpectError(RunOp("DeepCopy", {BFloat16Bits({1}, {1})}), "cannot copy a bfloat16 tensor");
}

TEST(EmptyTest, MakesAZeroFilledTensorOfTheShape) {
  Tensor out = RunOp1("Empty", {T1<int32_t>({2, 3})}, {{"dtype", DType::kFloat}, {"init", false}});
  EXPECT_EQ(out.dtype(), DType::kFloat);
  EXPECT_EQ(out.shape(), Shape({2, 3}));
  EXPECT_THAT(Values<float>(out), ElementsAre(0, 0, 0, 0, 0, 0));
  out = RunOp1("Empty", {T1<int32_t>({})}, {{"dtype", DType::kBool}, {"init", true}});
  EXPECT_EQ(out.shape(), Shape({}));
  EXPECT_THAT(Values<bool>(out), ElementsAre(false));
  out = RunOp1("Empty", {T1<int32_t>({4, 0})}, {{"dtype", DType::kUInt8}});
  EXPECT_EQ(out.shape(), Shape({4, 0}));
}

TEST(EmptyTest, BadShapesAndDtypesAreErrors) {
  const AttrMap attrs = {{"dtype", DType::kFloat}};
  ExpectError(RunOp("Empty", {T1<int32_t>({2, -1})}, attrs),
              "shape [2,-1] has a negative dimension");
  ExpectError(RunOp("Empty", {T1<int64_t>({2})}, attrs),
              "shape must be an int32 vector, got int64[1]");
  ExpectError(RunOp("Empty", {Tensor::Scalar<int32_t>(2)}, attrs),
              "shape must be an int32 vector, got int32[]");
  ExpectError(RunOp("Empty", {T1<int32_t>({2})}, {{"dtype", DType::kBFloat16}}),
              "cannot make an empty bfloat16 tensor");
  ExpectError(RunOp("Empty", {T1<int32_t>({2})}), "\"dtype\"");
  ExpectError(RunOp("Empty", {T1<int32_t>({1 << 30, 1 << 30})}, attrs), "over dfc's limit");
}

TEST(CheckNumericsTest, PassesFiniteValuesThrough) {
  const Tensor in = TN<double>({1.5, -2, std::numeric_limits<double>::max()}, {3});
  const Tensor out =
      RunOp1("CheckNumerics", {in}, {{"T", DType::kDouble}, {"message", std::string("m")}});
  EXPECT_TRUE(out.BitwiseEqual(in));
  EXPECT_TRUE(RunOp1("CheckNumerics", {Tensor::Zeros(DType::kFloat, {0})})
                  .BitwiseEqual(Tensor::Zeros(DType::kFloat, {0})));
}

TEST(CheckNumericsTest, FailsWithTheMessageAndWhatItFound) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const AttrMap attrs = {{"T", DType::kFloat}, {"message", std::string("my check")}};
  ExpectError(RunOp("CheckNumerics", {T1<float>({1, nan})}, attrs),
              "my check : Tensor had NaN values");
  ExpectError(RunOp("CheckNumerics", {T1<float>({-inf, 1})}, attrs),
              "my check : Tensor had Inf values");
  ExpectError(RunOp("CheckNumerics", {T1<float>({inf, nan})}, attrs),
              "my check : Tensor had Inf and NaN values");
  ExpectError(
      RunOp("CheckNumerics", {HalfTensor({1, 70000}, {2})}, {{"message", std::string("h")}}),
      "h : Tensor had Inf values");
  ExpectError(RunOp("CheckNumerics", {T1<int32_t>({1})}), "input 0 has dtype int32");
}

// A bfloat16 constant (1.0, 2.0 as half_val bit patterns), moved by Identity and bitcast to
// float32 as TensorFlow-made graphs do; and the same constant fed to an op that computes.
constexpr char kBFloat16Graph[] = R"gd(
  node { name: "c" op: "Const"
    attr { key: "dtype" value { type: DT_BFLOAT16 } }
    attr { key: "value" value { tensor { dtype: DT_BFLOAT16 tensor_shape { dim { size: 2 } }
                                         half_val: 16256 half_val: 16384 } } } }
  node { name: "content" op: "Const"
    attr { key: "dtype" value { type: DT_BFLOAT16 } }
    attr { key: "value" value { tensor { dtype: DT_BFLOAT16 tensor_shape { dim { size: 2 } }
                                         tensor_content: "\200\077\000\100" } } } }
  node { name: "read" op: "Identity" input: "c" attr { key: "T" value { type: DT_BFLOAT16 } } }
  node { name: "bits" op: "Bitcast" input: "read"
    attr { key: "T" value { type: DT_BFLOAT16 } } attr { key: "type" value { type: DT_UINT16 } } }
  node { name: "neg" op: "Neg" input: "read" attr { key: "T" value { type: DT_BFLOAT16 } } }
)gd";

std::unique_ptr<reference::Session> BFloat16Session() {
  absl::StatusOr<Graph> graph = ParseGraph(std::string(kBFloat16Graph) + "\n", "bf16.pbtxt");
  EXPECT_TRUE(graph.ok()) << graph.status();
  if (!graph.ok()) return nullptr;
  return std::make_unique<reference::Session>(std::make_shared<const Graph>(*std::move(graph)));
}

TEST(BFloat16Test, ConstantsLoadAndPassThroughIdentityAndBitcast) {
  auto session = BFloat16Session();
  ASSERT_NE(session, nullptr);
  absl::StatusOr<std::vector<Tensor>> out = session->Run({}, {"bits", "read", "content"});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<uint16_t>((*out)[0]), ElementsAre(0x3f80, 0x4000));
  EXPECT_EQ((*out)[1].DebugType(), "bfloat16[2]");
  EXPECT_EQ((*out)[1].Preview(), "[1, 2]");
  // tensor_content holds the same values as little-endian bytes.
  EXPECT_TRUE((*out)[2].BitwiseEqual((*out)[1]));
}

TEST(BFloat16Test, AnOpThatComputesSaysItDoesNotComputeWithBFloat16) {
  auto session = BFloat16Session();
  ASSERT_NE(session, nullptr);
  absl::StatusOr<std::vector<Tensor>> out = session->Run({}, {"neg"});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("node \"neg\" (Neg): attribute \"T\" has dtype bfloat16, which dfc does "
                        "not compute with"));
}

TEST(BFloat16Test, WritesAsNumPyWritesMlDtypesBFloat16) {
  const std::string bytes = SerializeNpy(BFloat16Bits({0x3f80, 0xc000}, {2}));
  EXPECT_THAT(bytes, HasSubstr("'descr': '<V2'"));
  EXPECT_THAT(bytes, HasSubstr("'shape': (2,)"));
  EXPECT_EQ(bytes.substr(bytes.size() - 4), std::string("\x80\x3f\x00\xc0", 4));
}

}  // namespace
}  // namespace dfc
