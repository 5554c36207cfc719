// Feeds: a name parsed once, and the one check of a run's feeds against the graph (the dtype
// and shape of the placeholder fed, the tensor named, no tensor fed twice).
#include "graph/feed.h"

#include "gmock/gmock.h"
#include "graph/loader.h"
#include "gtest/gtest.h"

namespace dfc {
namespace {

using ::testing::StartsWith;

// x: float32[?,2] placeholder; y = -x.
constexpr char kGraph[] = R"gd(
  node { name: "x" op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -1 } dim { size: 2 } } } } }
  node { name: "y" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
)gd";

Graph MakeGraph() {
  absl::StatusOr<Graph> graph = ParseGraph(kGraph, "feed_test.pbtxt");
  EXPECT_TRUE(graph.ok()) << graph.status();
  return *std::move(graph);
}

std::string Message(const absl::Status& status) { return std::string(status.message()); }

TEST(FeedTest, ParsesTheNameOnce) {
  absl::StatusOr<Feed> feed = ParseFeed("split:1", Tensor::Zeros(DType::kFloat, {2}));
  ASSERT_TRUE(feed.ok()) << feed.status();
  EXPECT_EQ(feed->id, (TensorId{"split", 1}));
  EXPECT_EQ(feed->value.shape(), (Shape{2}));
  absl::StatusOr<Feed> bad = ParseFeed("x:", Tensor::Zeros(DType::kFloat, {2}));
  EXPECT_TRUE(absl::IsInvalidArgument(bad.status())) << bad.status();
  EXPECT_THAT(Message(bad.status()), StartsWith("feed: \"x:\" is not a tensor name"));
}

TEST(FeedTest, AFeedThatFitsItsPlaceholderOrReplacesAComputedTensorPasses) {
  const Graph graph = MakeGraph();
  EXPECT_TRUE(CheckFeeds(graph, {{{"x"}, Tensor::Zeros(DType::kFloat, {3, 2})},
                                 {{"y"}, Tensor::Zeros(DType::kFloat, {5})}})
                  .ok());
  EXPECT_TRUE(CheckFeeds(graph, {}).ok());
}

TEST(FeedTest, AFeedOfTheWrongDtypeOrShapeNamesThePlaceholder) {
  const Graph graph = MakeGraph();
  EXPECT_EQ(Message(CheckFeeds(graph, {{{"x"}, Tensor::Zeros(DType::kInt32, {1, 2})}})),
            "feed \"x\" is int32[1,2] but placeholder \"x\" expects float32[?,2]");
  EXPECT_EQ(Message(CheckFeeds(graph, {{{"x"}, Tensor::Zeros(DType::kFloat, {1, 3})}})),
            "feed \"x\" is float32[1,3] but placeholder \"x\" expects float32[?,2]");
}

TEST(FeedTest, AFeedNamingNoTensorOrATensorFedTwiceIsRefused) {
  const Graph graph = MakeGraph();
  EXPECT_EQ(Message(CheckFeeds(graph, {{{"ghost"}, Tensor::Zeros(DType::kFloat, {1, 2})}})),
            "feed \"ghost\" names no node");
  // "x" and "x:0" are one tensor.
  const absl::Status twice = CheckFeeds(graph, {{{"x"}, Tensor::Zeros(DType::kFloat, {1, 2})},
                                                {{"x", 0}, Tensor::Zeros(DType::kFloat, {2, 2})}});
  EXPECT_TRUE(absl::IsInvalidArgument(twice)) << twice;
  EXPECT_EQ(Message(twice), "\"x\" is fed twice");
}

}  // namespace
}  // namespace dfc
