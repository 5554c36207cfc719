// The HTML profile's page: its data survives any node name (none can end the script that holds
// it), the cap on the timeline keeps the longest events, and a path that cannot be written is an
// error. The page in a browser is tests/browser/html_profile_test's.
#include "runtime/profiler/html_profile.h"

#include <string>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace dfc::profiler {
namespace {

using ::testing::HasSubstr;

// A step of one run with a kernel of two fused nodes, the first with three times the work.
Profile OneStep(const std::string& node) {
  Profile p;
  p.threads = {{.os_id = 1, .name = "main"}};
  p.queues = {{.device = "a device"}};
  p.host = {{.name = "step", .start_ns = 0, .end_ns = 10'000, .depth = 0, .id = 1},
            {.name = "run", .start_ns = 1'000, .end_ns = 9'000, .depth = 1, .id = 2},
            {.name = "launch k", .start_ns = 2'000, .end_ns = 2'500, .depth = 2, .id = 3}};
  DeviceEvent kernel{.queued_ns = 2'000, .submit_ns = 2'100, .start_ns = 3'000, .end_ns = 7'000};
  kernel.info = {.name = "k",
                 .nodes = {node, "b"},
                 .node_work = {3, 1},
                 .cluster = 0,
                 .dims = 1,
                 .global = {64, 0, 0},
                 .bytes = 256,
                 .flops = 64,
                 .launch = 3};
  p.device = {kernel};
  return p;
}

// The JSON the page embeds.
nlohmann::json Data(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"dfc-data\">";
  const size_t begin = page.find(open);
  EXPECT_NE(begin, std::string::npos);
  const size_t end = page.find("</script>", begin);
  return nlohmann::json::parse(page.substr(begin + open.size(), end - begin - open.size()));
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(HtmlProfileTest, ANodeNameCannotEndTheScriptThatHoldsIt) {
  const std::string hostile = "a</script><script>alert(1)</script>";
  absl::StatusOr<std::string> page = HtmlProfile(OneStep(hostile), {.title = "t<b>"});
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(Count(*page, "</script>"), 2);  // the data's and the page script's own
  const nlohmann::json data = Data(*page);
  EXPECT_EQ(data["title"], "t<b>");
  ASSERT_EQ(data["device"].size(), 1u);
  EXPECT_EQ(data["device"][0]["nodes"][0], hostile);
  EXPECT_EQ(data["device"][0]["work"][0], 3.0);
  EXPECT_FALSE(absl::StrContains(*page, "http://") || absl::StrContains(*page, "https://"));
}

TEST(HtmlProfileTest, TimesAreMicrosecondsFromTheFirstEventAndTheReportIsInside) {
  absl::StatusOr<std::string> page = HtmlProfile(OneStep("a"));
  ASSERT_TRUE(page.ok()) << page.status();
  const nlohmann::json data = Data(*page);
  EXPECT_EQ(data["host"][0]["name"], "step");
  EXPECT_DOUBLE_EQ(data["host"][0]["end"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(data["device"][0]["start"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(data["device"][0]["end"].get<double>(), 7.0);
  EXPECT_EQ(data["capped"], false);
  // The node rows share the kernel's 4 µs by work: 3 µs and 1 µs.
  double a = -1, b = -1;
  for (const nlohmann::json& row : data["report"]["rows"]) {
    if (row["category"] != "node") continue;
    (row["name"] == "a" ? a : b) = row["total_ms"].get<double>();
  }
  EXPECT_NEAR(a, 0.003, 1e-12);
  EXPECT_NEAR(b, 0.001, 1e-12);
}

TEST(HtmlProfileTest, TheCapKeepsTheLongestEventsAndSaysSo) {
  absl::StatusOr<std::string> page = HtmlProfile(OneStep("a"), {.max_events = 2});
  ASSERT_TRUE(page.ok()) << page.status();
  const nlohmann::json data = Data(*page);
  EXPECT_EQ(data["capped"], true);
  EXPECT_EQ(data["total_events"], 4);
  // The step (10 µs) and the run (8 µs) stay; the kernel (4 µs) and the launch (0.5 µs) go.
  ASSERT_EQ(data["host"].size(), 2u);
  EXPECT_EQ(data["host"][0]["name"], "step");
  EXPECT_EQ(data["host"][1]["name"], "run");
  EXPECT_TRUE(data["device"].empty());
  // The report still counts every event.
  bool kernel_row = false;
  for (const nlohmann::json& row : data["report"]["rows"]) {
    kernel_row = kernel_row || (row["category"] == "kernel" && row["calls"] == 1);
  }
  EXPECT_TRUE(kernel_row);
}

TEST(HtmlProfileTest, AnUnwritablePathIsAnError) {
  const absl::Status s = WriteHtmlProfile(OneStep("a"), "/nonexistent-dir/profile.html");
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("/nonexistent-dir/profile.html"));
}

}  // namespace
}  // namespace dfc::profiler
