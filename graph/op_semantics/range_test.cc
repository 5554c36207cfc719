// Tests for Range's element count (range.h).
#include "graph/op_semantics/range.h"

#include <cstdint>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dfc {
namespace {

using ::testing::HasSubstr;

TEST(RangeSizeTest, CountsInEitherDirection) {
  EXPECT_EQ(*RangeSize(int32_t{0}, int32_t{10}, int32_t{3}), 4);
  EXPECT_EQ(*RangeSize(int64_t{5}, int64_t{-5}, int64_t{-5}), 2);
  EXPECT_EQ(*RangeSize(int32_t{4}, int32_t{4}, int32_t{1}), 0);
  EXPECT_EQ(*RangeSize(0.0f, 1.0f, 0.25f), 4);
  EXPECT_EQ(*RangeSize(0.0, 1.0, 0.3), 4);
}

TEST(RangeSizeTest, Int64ExtremesDoNotOverflow) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(*RangeSize(kMin, kMax, kMax), 3);
}

TEST(RangeSizeTest, RefusesWhatTensorFlowRefuses) {
  EXPECT_THAT(RangeSize(int32_t{0}, int32_t{1}, int32_t{0}).status().message(),
              HasSubstr("delta must not be 0 (start 0, limit 1, delta 0)"));
  EXPECT_THAT(RangeSize(int32_t{2}, int32_t{1}, int32_t{1}).status().message(),
              HasSubstr("start must be <= limit when delta > 0"));
  EXPECT_THAT(RangeSize(1.0, 2.0, -1.0).status().message(),
              HasSubstr("start must be >= limit when delta < 0"));
  EXPECT_THAT(RangeSize(0.0, 1e30, 1e-10).status().message(),
              HasSubstr("range has too many elements"));
}

}  // namespace
}  // namespace dfc
