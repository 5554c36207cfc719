// The tuning database: a round trip through its file, lookups by bucket, errors that name the
// file, and a cluster hash that is the same for the same expression.
#include "runtime/tuning_db.h"

#include <filesystem>
#include <fstream>

#include "dfc_test_paths.h"
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
              .variant = "0123456789abcdef",
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
  EXPECT_EQ(e->variant, "0123456789abcdef");
  EXPECT_EQ(again->Find("abc", "cpu0", 1024)->variant, "");  // recorded without one
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
        "\"rules\": [\"noPlace\"]}]}",
        "{\"format\": 1, \"entries\": [{\"cluster\": \"a\", \"device\": \"d\", \"bucket\": 1, "
        "\"rules\": [], \"variant\": 7}]}"}) {
    SCOPED_TRACE(text);
    const std::string path = TempFile("bad.json");
    std::ofstream(path) << text;
    absl::StatusOr<TuningDb> db = TuningDb::Load(path);
    ASSERT_FALSE(db.ok());
    EXPECT_THAT(db.status().message(), HasSubstr(path + ": not a dfc tuning database"));
  }
}

TEST(TuningDbTest, TheClusterHashIsTheSameForTheSameExpression) {
  auto translate = [](const std::string& model) {
    absl::StatusOr<Graph> graph = LoadGraph(std::string(DFC_SOURCE_DIR) + "/models/" + model);
    EXPECT_TRUE(graph.ok()) << graph.status();
    absl::StatusOr<Plan> plan =
        CompilePlan(std::make_shared<const Graph>(*std::move(graph)),
                    {.fetches = {{"out", 0}}, .profile = *rewrite::NamedProfile("cpu")});
    EXPECT_TRUE(plan.ok()) << plan.status();
    return ClusterHash(plan->translated.clusters[0]);
  };
  const std::string seed = translate("seed_subgraph.pbtxt");
  EXPECT_EQ(seed.size(), 16u);
  EXPECT_EQ(translate("seed_subgraph.pbtxt"), seed);
  EXPECT_NE(translate("relu_subgraph.pbtxt"), seed);
}

// Recorded steps are taken when they make the variant they were timed as: not when a step no
// longer applies, nor when they make another expression (a rule changed since they were
// recorded). An entry from before variants were recorded is taken if its steps replay.
TEST(TuningDbTest, RecordedStepsAreCheckedAgainstTheVariantTheyMade) {
  absl::StatusOr<Graph> graph =
      LoadGraph(std::string(DFC_SOURCE_DIR) + "/models/seed_subgraph.pbtxt");
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<Plan> plan =
      CompilePlan(std::make_shared<const Graph>(*std::move(graph)),
                  {.fetches = {{"out", 0}}, .profile = *rewrite::NamedProfile("cpu")});
  ASSERT_TRUE(plan.ok()) << plan.status();
  const ir::TranslatedCluster& cluster = plan->translated.clusters[0];
  const auto& lambda = *cluster.lambda;
  const std::vector<rewrite::Step> steps = {{"storeTransposed", 0}, {"vectorizeReduce(8)", 0}};
  absl::StatusOr<ir::ExprPtr> body = rewrite::Replay(lambda.body, steps);
  ASSERT_TRUE(body.ok()) << body.status();
  const std::string variant = VariantHash(*body);
  EXPECT_EQ(variant.size(), 16u);
  EXPECT_NE(variant, VariantHash(lambda.body));

  TuningEntry entry{.cluster = ClusterHash(cluster), .steps = steps, .variant = variant};
  EXPECT_TRUE(CheckReplays(entry, cluster).ok()) << CheckReplays(entry, cluster);
  // Other steps that still apply, under the old hash: what a changed rule would make.
  entry.steps = {{"storeTransposed", 0}, {"vectorizeReduce(16)", 0}};
  absl::Status changed = CheckReplays(entry, cluster);
  EXPECT_THAT(changed.message(),
              HasSubstr("its recorded steps (storeTransposed@0 ; vectorizeReduce(16)@0) now make "
                        "variant "));
  EXPECT_THAT(changed.message(), HasSubstr("not the " + variant + " they were timed as"));
  entry.steps = {{"storeTransposed", 0}, {"vectorizeReduce(8)", 9}};
  EXPECT_THAT(CheckReplays(entry, cluster).message(),
              HasSubstr("its recorded steps (storeTransposed@0 ; vectorizeReduce(8)@9) no longer "
                        "replay: step vectorizeReduce(8)@9 does not apply"));
  // Without a recorded variant: taken on trust if the steps replay.
  entry.variant.clear();
  EXPECT_FALSE(CheckReplays(entry, cluster).ok());
  entry.steps = steps;
  EXPECT_TRUE(CheckReplays(entry, cluster).ok());
}

TEST(TuningDbTest, SizeBuckets) {
  EXPECT_EQ(SizeBucket(1), 1);
  EXPECT_EQ(SizeBucket(100), 128);
  EXPECT_EQ(SizeBucket(4096), 4096);
  EXPECT_EQ(SizeBucket(4097), 8192);
}

}  // namespace
}  // namespace dfc
