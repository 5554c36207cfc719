// Tests for window sizes and window attributes (window.h), against the sizes TensorFlow's shape
// functions give.
#include "graph/op_semantics/window.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::dfc::testing::MakeNode;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

AttrList Ints(std::vector<int64_t> v) {
  AttrList list;
  list.i = std::move(v);
  return list;
}

TEST(ComputeWindowTest, ValidTakesEveryWholeWindow) {
  // 7 inputs, window 3, stride 2: windows at 0, 2, 4.
  WindowSize s = *ComputeWindow({.input = 7, .window = 3, .stride = 2}, Padding::kValid);
  EXPECT_EQ(s.output, 3);
  EXPECT_EQ(s.pad_before, 0);
  EXPECT_EQ(s.pad_after, 0);
  // Dilation 2 spreads a 2-window over 3 inputs: 5 - 3 + 1 outputs.
  EXPECT_EQ(ComputeWindow({.input = 5, .window = 2, .dilation = 2}, Padding::kValid)->output, 3);
}

TEST(ComputeWindowTest, SamePutsTheSmallerHalfBefore) {
  // out = ceil(5 / 2) = 3; padding (3 - 1) 2 + 4 - 5 = 3: 1 before, 2 after.
  WindowSize s = *ComputeWindow({.input = 5, .window = 4, .stride = 2}, Padding::kSame);
  EXPECT_EQ(s.output, 3);
  EXPECT_EQ(s.pad_before, 1);
  EXPECT_EQ(s.pad_after, 2);
  // A stride larger than the window needs no padding.
  s = *ComputeWindow({.input = 6, .window = 1, .stride = 3}, Padding::kSame);
  EXPECT_EQ(s.output, 2);
  EXPECT_EQ(s.pad_before + s.pad_after, 0);
}

TEST(ComputeWindowTest, ExplicitPadsAsTold) {
  WindowSize s = *ComputeWindow(
      {.input = 4, .window = 3, .explicit_before = 2, .explicit_after = 1}, Padding::kExplicit);
  EXPECT_EQ(s.output, 5);
  EXPECT_EQ(s.pad_before, 2);
  EXPECT_EQ(s.pad_after, 1);
}

TEST(ComputeWindowTest, RefusesAWindowLargerThanAValidInput) {
  EXPECT_THAT(ComputeWindow({.input = 2, .window = 3}, Padding::kValid).status().message(),
              HasSubstr("larger than the input (2) under VALID padding"));
  EXPECT_THAT(ComputeWindow({.input = 2, .window = 0}, Padding::kSame).status().message(),
              HasSubstr("positive window"));
}

TEST(ReadWindowAttrsTest, ReadsAConvolution) {
  Node node = MakeNode("Conv2D", {{"data_format", std::string("NCHW")},
                                  {"strides", Ints({1, 1, 2, 3})},
                                  {"dilations", Ints({1, 1, 1, 2})},
                                  {"padding", std::string("SAME")}});
  WindowAttrs attrs = *ReadWindowAttrs(node, {.allows_explicit = true});
  EXPECT_EQ(attrs.format, DataFormat::kChannelsFirst);
  EXPECT_EQ(attrs.spatial_rank(), 2);
  EXPECT_EQ(attrs.channel_dim(), 1);
  EXPECT_EQ(attrs.spatial_dim(1), 3);
  WindowDim w = attrs.Dim(1, 10, 3);
  EXPECT_EQ(w.stride, 3);
  EXPECT_EQ(w.dilation, 2);
}

TEST(ReadWindowAttrsTest, ReadsAPoolWithDefaults) {
  Node node = MakeNode("MaxPool3D", {{"ksize", Ints({1, 2, 2, 2, 1})},
                                     {"strides", Ints({1, 2, 2, 2, 1})},
                                     {"padding", std::string("VALID")}});
  WindowAttrs attrs =
      *ReadWindowAttrs(node, {.spatial_rank = 3, .has_ksize = true, .has_dilations = false});
  EXPECT_EQ(attrs.format, DataFormat::kChannelsLast);
  EXPECT_THAT(attrs.ksize, ElementsAre(1, 2, 2, 2, 1));
  EXPECT_THAT(attrs.dilations, ElementsAre(1, 1, 1, 1, 1));
}

TEST(ReadWindowAttrsTest, RefusesWhatTensorFlowRefuses) {
  const WindowOpKind conv{.allows_explicit = true};
  EXPECT_THAT(ReadWindowAttrs(MakeNode("Conv2D", {{"strides", Ints({1, 1, 1})},
                                                  {"padding", std::string("SAME")}}),
                              conv)
                  .status()
                  .message(),
              HasSubstr("expected 4 entries"));
  EXPECT_THAT(ReadWindowAttrs(MakeNode("Conv2D", {{"strides", Ints({2, 1, 1, 1})},
                                                  {"padding", std::string("SAME")}}),
                              conv)
                  .status()
                  .message(),
              HasSubstr("windows over the batch or channel dimension"));
  EXPECT_THAT(ReadWindowAttrs(MakeNode("Conv2D", {{"strides", Ints({1, 1, 1, 1})},
                                                  {"data_format", std::string("HWCN")},
                                                  {"padding", std::string("SAME")}}),
                              conv)
                  .status()
                  .message(),
              HasSubstr("data_format \"HWCN\" is not supported, expected \"NHWC\" or \"NCHW\""));
  EXPECT_THAT(
      ReadWindowAttrs(MakeNode("Conv2D", {{"strides", Ints({1, 1, 1, 1})},
                                          {"padding", std::string("EXPLICIT")},
                                          {"explicit_paddings", Ints({1, 0, 0, 0, 0, 0, 0, 0})}}),
                      conv)
          .status()
          .message(),
      HasSubstr("padding the batch or channel dimension is not allowed"));
  EXPECT_THAT(ReadWindowAttrs(MakeNode("MaxPool", {{"ksize", Ints({1, 2, 2, 1})},
                                                   {"strides", Ints({1, 1, 1, 1})},
                                                   {"padding", std::string("EXPLICIT")}}),
                              {.has_ksize = true, .has_dilations = false})
                  .status()
                  .message(),
              HasSubstr("expected \"VALID\" or \"SAME\""));
}

TEST(ReadWindowAttrsTest, ReadsListsUnderTheOpsOwnNames) {
  // ExtractImagePatches calls its window "ksizes" and its dilations "rates".
  const WindowOpKind patches{.has_ksize = true,
                             .allows_channels_first = false,
                             .ksize_attr = "ksizes",
                             .dilations_attr = "rates"};
  Node node = MakeNode("ExtractImagePatches", {{"ksizes", Ints({1, 3, 2, 1})},
                                               {"strides", Ints({1, 1, 1, 1})},
                                               {"rates", Ints({1, 2, 1, 1})},
                                               {"padding", std::string("SAME")}});
  WindowAttrs attrs = *ReadWindowAttrs(node, patches);
  EXPECT_THAT(attrs.ksize, ElementsAre(1, 3, 2, 1));
  EXPECT_THAT(attrs.dilations, ElementsAre(1, 2, 1, 1));
  node.attrs["rates"] = Ints({2, 1, 1, 1});
  EXPECT_THAT(ReadWindowAttrs(node, patches).status().message(),
              HasSubstr("attribute \"rates\" is [2,1,1,1]"));
  node.attrs["rates"] = Ints({1, 1, 1, 1});
  node.attrs.erase("ksizes");
  EXPECT_THAT(ReadWindowAttrs(node, patches).status().message(),
              HasSubstr("missing attribute \"ksizes\""));
}

}  // namespace
}  // namespace dfc
