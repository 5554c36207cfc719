// The tuning database: a round trip through its file, lookups by bucket, errors that name the
// file, and a cluster hash that is the same for the same expression.
#include "runtime/tuning_db.h"

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "graph/loader.h"
#include "gtest/gtest.h"
#include "runtime/plan.h"

namespace dfc {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::string TempFile(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / "tuning_db_test";
  fs::create_directories(dir);
  fs::remove(dir / name);
  return (dir / name).string();
}

TEST(TuningDbTest, AMissingFileIsEmptyAndARecordSurvivesARoundTrip) {
  const std::string path = TempFile("db.json");
  absl::StatusOr<TuningDb> db = TuningDb::Load(path);
  ASSERT_TRUE(db.ok()) << db.status();
  EXPECT_TRUE(db->entries().empty());
  db->Record({.cluster = "abc",
              .device = "gpu0",
              .bucket = 1024,
              .nodes = {"matmul (MatMul)"},
              .steps = {{"vectorizeReduce(4)", 0}},
              .median_ms = 1.5,
              .default_ms = 3});
  db->Record({.cluster = "abc", .device = "gpu0", .bucket = 65536, .steps = {}});
  db->Record(
      {.cluster = "abc", .device = "cpu0", .bucket = 1024, .steps = {{"storeTransposed", 0}}});
  // The same key again replaces the entry.
  db->Record({.cluster = "abc",
              .device = "gpu0",
              .bucket = 1024,
              .steps = {{"vectorizeReduce(8)", 1}},
              .work_group_size = 128,
              .median_ms = 1.2});
  ASSERT_TRUE(db->Save().ok());

  absl::StatusOr<TuningDb> again = TuningDb::Load(path);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->entries().size(), 3u);
  std::optional<TuningEntry> e = again->Find("abc", "gpu0", 1024);
  ASSERT_TRUE(e.has_value());
  ASSERT_EQ(e->steps.size(), 1u);
  EXPECT_EQ(e->steps[0].ToString(), "vectorizeReduce(8)@1");
  EXPECT_DOUBLE_EQ(e->median_ms, 1.2);
  EXPECT_EQ(e->work_group_size, 128);
  EXPECT_EQ(again->Find("abc", "cpu0", 1024)->work_group_size, -1);
  // Without a bucket: the largest recorded for that device.
  e = again->Find("abc", "gpu0", std::nullopt);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->bucket, 65536);
  EXPECT_FALSE(again->Find("abc", "gpu0", 4096).has_value());
  EXPECT_FALSE(again->Find("abd", "gpu0", std::nullopt).has_value());
  EXPECT_FALSE(again->Find("abc", "gpu1", std::nullopt).has_value());
}

TEST(TuningDbTest, AMalformedFileIsAnErrorNamingIt) {
  for (const std::string text :
       {"not json", "{\"format\": 2, \"entries\": []}", "{\"format\": 1}",
        "{\"format\": 1, \"entries\": [{\"cluster\": \"a\"}]}",
        "{\"format\": 1, \"entries\": [{\"cluster\": \"a\", \"device\": \"d\", \"bucket\": 1, "
        "\"rules\": [\"noPlace\"]}]}"}) {
    SCOPED_TRACE(text);
    const std::string path = TempFile("bad.json");
    std::ofstream(path) << text;
    absl::StatusOr<TuningDb> db = TuningDb::Load(path);
    ASSERT_FALSE(db.ok());
    EXPECT_THAT(db.status().message(), HasSubstr(path + ": not a dfc tuning database"));
  }
}

TEST(TuningDbTest, TheClusterHashIsTheSameForTheSameExpression) {
  auto lower = [](const std::string& model) {
    absl::StatusOr<Graph> graph = LoadGraph(std::string(DFC_SOURCE_DIR) + "/models/" + model);
    EXPECT_TRUE(graph.ok()) << graph.status();
    absl::StatusOr<Plan> plan =
        CompilePlan(std::make_shared<const Graph>(*std::move(graph)),
                    {.fetches = {{"out", 0}}, .profile = *codegen::NamedProfile("cpu")});
    EXPECT_TRUE(plan.ok()) << plan.status();
    return ClusterHash(plan->lowered.clusters[0]);
  };
  const std::string seed = lower("seed_subgraph.pbtxt");
  EXPECT_EQ(seed.size(), 16u);
  EXPECT_EQ(lower("seed_subgraph.pbtxt"), seed);
  EXPECT_NE(lower("relu_subgraph.pbtxt"), seed);
}

TEST(TuningDbTest, SizeBuckets) {
  EXPECT_EQ(SizeBucket(1), 1);
  EXPECT_EQ(SizeBucket(100), 128);
  EXPECT_EQ(SizeBucket(4096), 4096);
  EXPECT_EQ(SizeBucket(4097), 8192);
}

}  // namespace
}  // namespace dfc
