// Tests for StridedSlice's spec resolution (strided_slice.h), with cases written as Python's
// x[...] to show what TensorFlow gives.
#include "graph/op_semantics/strided_slice.h"

#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dfc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Spec {
  std::vector<int64_t> begin, end, strides;
  StridedSliceMasks masks;
};

absl::StatusOr<StridedSliceResolution> Resolve(const Spec& spec, const Shape& input) {
  return ResolveStridedSlice(spec.begin, spec.end, spec.strides, spec.masks, input);
}

TEST(ResolveStridedSliceTest, ClampsAnInterval) {  // x[1:9] of 5 elements
  absl::StatusOr<StridedSliceResolution> r = Resolve({{1}, {9}, {1}, {}}, {5});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->dims[0].begin, 1);
  EXPECT_EQ(r->dims[0].size, 4);
  EXPECT_EQ(r->final_shape, (Shape{4}));
}

TEST(ResolveStridedSliceTest, NegativeStrideWithMaskedEndsReverses) {  // x[::-2] of 5
  absl::StatusOr<StridedSliceResolution> r = Resolve({{0}, {0}, {-2}, {.begin = 1, .end = 1}}, {5});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->dims[0].begin, 4);
  EXPECT_EQ(r->dims[0].stride, -2);
  EXPECT_EQ(r->dims[0].size, 3);
}

TEST(ResolveStridedSliceTest, ShrinkDropsTheDimension) {  // x[-1] of [3, 4]
  absl::StatusOr<StridedSliceResolution> r = Resolve({{-1}, {0}, {1}, {.shrink_axis = 1}}, {3, 4});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->dims[0].begin, 2);
  EXPECT_EQ(r->processing_shape, (Shape{1, 4}));
  EXPECT_EQ(r->final_shape, (Shape{4}));
}

TEST(ResolveStridedSliceTest, EllipsisAndNewAxis) {  // x[..., None, 1:] of [2, 3, 4]
  absl::StatusOr<StridedSliceResolution> r = Resolve(
      {{0, 0, 1}, {0, 0, 0}, {1, 1, 1}, {.end = 4, .ellipsis = 1, .new_axis = 2}}, {2, 3, 4});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->processing_shape, (Shape{2, 3, 3}));
  EXPECT_EQ(r->final_shape, (Shape{2, 3, 1, 3}));
}

TEST(ExpandStridedSliceTest, OutputDimsSayWhereEachDimensionComesFrom) {  // x[None, 0] of [2, 3]
  const std::vector<int64_t> zeros = {0, 0}, ones = {1, 1};
  absl::StatusOr<DenseSliceSpec> dense =
      ExpandStridedSlice(zeros, zeros, ones, {.new_axis = 1, .shrink_axis = 2}, 2);
  ASSERT_TRUE(dense.ok()) << dense.status();
  EXPECT_THAT(dense->output_dims, ElementsAre(kNewAxis, kShrinkAxis, 1));
  EXPECT_TRUE(dense->dims[0].shrink);
  EXPECT_FALSE(dense->dims[1].shrink);
}

TEST(ResolveStridedSliceTest, RefusesWhatTensorFlowRefuses) {
  EXPECT_THAT(Resolve({{0, 0}, {1, 1}, {1, 1}, {.ellipsis = 3}}, {2, 2}).status().message(),
              HasSubstr("ellipsis_mask 3 marks more than one ellipsis"));
  EXPECT_THAT(Resolve({{0, 0}, {1, 1}, {1, 1}, {}}, {2}).status().message(),
              HasSubstr("slice spec has more index entries than the input's rank 1"));
  EXPECT_THAT(Resolve({{0}, {1}, {0}, {}}, {2}).status().message(), HasSubstr("strides[0] is 0"));
  EXPECT_THAT(Resolve({{0}, {1}, {-1}, {.shrink_axis = 1}}, {2}).status().message(),
              HasSubstr("only stride 1 is allowed on a shrunk (indexed) dimension"));
  EXPECT_THAT(Resolve({{3}, {4}, {1}, {.shrink_axis = 1}}, {3}).status().message(),
              HasSubstr("slice index 3 of dimension 0 is out of bounds for size 3"));
}

}  // namespace
}  // namespace dfc
