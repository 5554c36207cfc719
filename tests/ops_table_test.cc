// The op table (graph/ops.cc) and the reference kernels cover exactly the ops of
// ../shared/OPS.md: every op listed there is known, placed as the table says, and has a
// reference kernel; nothing else is claimed.
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "graph/ops.h"
#include "gtest/gtest.h"
#include "ir/from_tf/translate.h"
#include "runtime/reference/kernel.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

struct OpsMdRow {
  std::string family;
  std::string runs_on;
  std::vector<std::string> ops;
};

// The rows of OPS.md's first table, the ops dfc supports: "| family | runs on | ops |". The
// tables under "## The next op tables" are the work to come, not claims.
std::vector<OpsMdRow> ReadOpsMd() {
  std::ifstream in(testing::SharedDir() + "/OPS.md");
  std::vector<OpsMdRow> rows;
  std::string line;
  while (std::getline(in, line) && !absl::StartsWith(line, "## ")) {
    std::vector<std::string> cells = absl::StrSplit(line, '|');
    if (cells.size() != 5 || cells[1].find("---") != std::string::npos) continue;
    OpsMdRow row{std::string(absl::StripAsciiWhitespace(cells[1])),
                 std::string(absl::StripAsciiWhitespace(cells[2])),
                 {}};
    if (row.family == "family") continue;  // the header
    for (absl::string_view op : absl::StrSplit(cells[3], ' ', absl::SkipWhitespace())) {
      row.ops.emplace_back(op);
    }
    rows.push_back(row);
  }
  return rows;
}

TEST(OpsTableTest, MatchesOpsMdAndEveryOpHasAKernel) {
  const std::vector<OpsMdRow> rows = ReadOpsMd();
  ASSERT_EQ(rows.size(), 8u) << "OPS.md's table has changed shape";
  std::set<std::string> listed;
  for (const OpsMdRow& row : rows) {
    for (const std::string& op : row.ops) {
      listed.insert(op);
      const OpDef* def = FindOpDef(op);
      ASSERT_NE(def, nullptr) << op << " (" << row.family << ") is not in graph/ops.cc";
      EXPECT_EQ(std::string(def->family), row.family) << op;
      const Placement expected = absl::StartsWith(row.runs_on, "device (host") ? Placement::kLayout
                                 : row.runs_on == "device"                     ? Placement::kDevice
                                                                               : Placement::kHost;
      EXPECT_EQ(def->placement, expected) << op << " runs on \"" << row.runs_on << "\"";
      EXPECT_NE(reference::KernelRegistry::Global().Find(op), nullptr)
          << op << " has no reference kernel";
    }
  }
  EXPECT_EQ(listed.size(), AllOpDefs().size());
  for (const OpDef& def : AllOpDefs()) {
    EXPECT_TRUE(listed.contains(std::string(def.name))) << def.name << " is not in OPS.md";
  }
  for (const std::string& op : reference::KernelRegistry::Global().Ops()) {
    EXPECT_TRUE(listed.contains(op)) << "kernel for " << op << ", which OPS.md does not list";
  }
}

// Every op OPS.md runs on the device has a translation to the IR, and nothing else does.
TEST(OpsTableTest, EveryDeviceOpHasATranslation) {
  std::set<std::string> device;
  for (const OpsMdRow& row : ReadOpsMd()) {
    if (!absl::StartsWith(row.runs_on, "device")) continue;
    for (const std::string& op : row.ops) {
      device.insert(op);
      EXPECT_NE(ir::FindTranslation(op), nullptr)
          << op << " (" << row.family << ") has no translation";
    }
  }
  for (const std::string& op : ir::TranslatedOps()) {
    EXPECT_TRUE(device.contains(op)) << "translation for " << op << ", which is not a device op";
  }
}

}  // namespace
}  // namespace dfc
