// Tests for the dtype classes (dtype_class.h).
#include "graph/dtype_class.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace dfc {
namespace {

TEST(DTypeClassTest, ClassesOfStorageTypesAndDTypes) {
  static_assert(InClass<Half>(kFloats) && InClass<uint16_t>(kUnsigned) && !InClass<bool>(kNumbers));
  EXPECT_TRUE(DTypeInClass(DType::kInt8, kSigned));
  EXPECT_FALSE(DTypeInClass(DType::kBool, kNumbers));
  EXPECT_EQ(DTypeClassNames(kFloats), "float16, float32, float64");
}

TEST(DTypeClassTest, NumericIsOpsMdsNumberTypes) {
  for (DType d : {DType::kHalf, DType::kFloat, DType::kDouble, DType::kInt8, DType::kInt16,
                  DType::kInt32, DType::kInt64, DType::kUInt8}) {
    EXPECT_TRUE(IsNumeric(d)) << DTypeName(d);
  }
  for (DType d : {DType::kBool, DType::kUInt16, DType::kUInt32, DType::kUInt64}) {
    EXPECT_FALSE(IsNumeric(d)) << DTypeName(d);
  }
}

}  // namespace
}  // namespace dfc
