// DType properties, TensorFlow numbering and dispatch, including the unsigned types dfc
// added beyond OPS.md for TensorFlow-made graphs that cast to them.
#include "graph/dtype.h"

#include <string>

#include "gtest/gtest.h"

namespace dfc {
namespace {

struct Row {
  DType dtype;
  int tf_number;
  const char* name;
  size_t size;
  bool floating, integer, is_signed;
};

class DTypeTableTest : public ::testing::TestWithParam<Row> {};

TEST_P(DTypeTableTest, PropertiesMatchTensorFlowAndNumPy) {
  const Row& r = GetParam();
  EXPECT_TRUE(IsSupported(r.dtype));
  EXPECT_EQ(static_cast<int>(r.dtype), r.tf_number);
  EXPECT_EQ(DTypeName(r.dtype), r.name);
  EXPECT_EQ(SizeOf(r.dtype), r.size);
  EXPECT_EQ(IsFloating(r.dtype), r.floating);
  EXPECT_EQ(IsInteger(r.dtype), r.integer);
  EXPECT_EQ(IsSigned(r.dtype), r.is_signed);
  EXPECT_EQ(*DTypeFromTf(r.tf_number), r.dtype);
  EXPECT_EQ(*DTypeFromTf(r.tf_number + 100), r.dtype);  // the reference type DT_*_REF
  EXPECT_EQ(*DTypeFromName(r.name), r.dtype);
  // Dispatch reaches the storage type whose size and DTypeOf agree.
  DispatchDType(r.dtype, [&]<typename T>() {
    EXPECT_EQ(DTypeOf<T>, r.dtype);
    EXPECT_EQ(sizeof(T), r.size);
  });
}

INSTANTIATE_TEST_SUITE_P(All, DTypeTableTest,
                         ::testing::Values(Row{DType::kFloat, 1, "float32", 4, true, false, false},
                                           Row{DType::kDouble, 2, "float64", 8, true, false, false},
                                           Row{DType::kHalf, 19, "float16", 2, true, false, false},
                                           Row{DType::kInt8, 6, "int8", 1, false, true, true},
                                           Row{DType::kInt16, 5, "int16", 2, false, true, true},
                                           Row{DType::kInt32, 3, "int32", 4, false, true, true},
                                           Row{DType::kInt64, 9, "int64", 8, false, true, true},
                                           Row{DType::kUInt8, 4, "uint8", 1, false, true, false},
                                           Row{DType::kUInt16, 17, "uint16", 2, false, true, false},
                                           Row{DType::kUInt32, 22, "uint32", 4, false, true, false},
                                           Row{DType::kUInt64, 23, "uint64", 8, false, true, false},
                                           Row{DType::kBool, 10, "bool", 1, false, false, false}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(DTypeTest, StringIsLoadedButNotComputed) {
  EXPECT_EQ(*DTypeFromTf(7), DType::kString);
  EXPECT_FALSE(IsSupported(DType::kString));
  EXPECT_EQ(SizeOf(DType::kString), 0u);
}

TEST(DTypeTest, BFloat16IsStoredButNotComputed) {
  EXPECT_EQ(*DTypeFromTf(14), DType::kBFloat16);
  EXPECT_EQ(*DTypeFromTf(114), DType::kBFloat16);
  EXPECT_EQ(*DTypeFromName("bfloat16"), DType::kBFloat16);
  EXPECT_EQ(DTypeName(DType::kBFloat16), "bfloat16");
  EXPECT_EQ(SizeOf(DType::kBFloat16), 2u);
  // Kernels and device clusters check these before dispatching, so bfloat16 reaches none.
  EXPECT_FALSE(IsSupported(DType::kBFloat16));
  EXPECT_FALSE(IsFloating(DType::kBFloat16));
  EXPECT_FALSE(IsInteger(DType::kBFloat16));
}

TEST(DTypeTest, UnknownNumbersAndNamesAreErrors) {
  for (int n : {0, 8, 13, 18, 24, 99, 108, 200}) {
    absl::StatusOr<DType> d = DTypeFromTf(n);
    ASSERT_FALSE(d.ok()) << n;
    EXPECT_NE(std::string(d.status().message()).find("unsupported dtype " + std::to_string(n)),
              std::string::npos);
  }
  EXPECT_FALSE(DTypeFromName("complex64").ok());
  EXPECT_FALSE(DTypeFromName("").ok());
}

}  // namespace
}  // namespace dfc
