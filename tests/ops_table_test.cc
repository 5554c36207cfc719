// The op table (graph/ops.cc) and the reference kernels cover exactly the ops of
// ../shared/OPS.md and of docs/OPS.md (the ops added since): every op listed there is known,
// placed as the table says, and has a reference kernel; nothing else is claimed.
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "dfc_test_paths.h"
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
  bool operator==(const OpsMdRow&) const = default;
};

// The rows of one of OPS.md's tables: "| family | runs on | ops |". `heading` is the line
// that opens the table's section ("# The op table", "### nn — ..."); the table ends at the
// next heading.
std::vector<OpsMdRow> ReadOpsMdTable(absl::string_view heading_prefix,
                                     const std::string& path = testing::SharedDir() + "/OPS.md") {
  std::ifstream in(path);
  std::vector<OpsMdRow> rows;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "#")) {
      if (inside) break;
      inside = absl::StartsWith(line, heading_prefix);
      continue;
    }
    if (!inside) continue;
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

// The first table, and docs/OPS.md's rows in its form: the ops dfc supports.
std::vector<OpsMdRow> ReadOpsMd() {
  std::vector<OpsMdRow> rows = ReadOpsMdTable("# The op table");
  for (OpsMdRow& row : ReadOpsMdTable("# Ops added", DFC_SOURCE_DIR "/docs/OPS.md")) {
    rows.push_back(std::move(row));
  }
  return rows;
}

// The nn table (issue 30): the ops of it that graph/ops.cc claims must match it.
std::vector<OpsMdRow> ReadNnTable() { return ReadOpsMdTable("### nn"); }

// The control table, being built (issue 31): its ops run on the host, which drives loops and
// keeps TensorArrays as values.
std::vector<OpsMdRow> ReadControlTable() { return ReadOpsMdTable("### control"); }

// The tail table (issue 33) lists its ops in a paragraph, without families: the words from
// its heading up to the sentence that places them ("Elementwise, ... run on the device").
std::set<std::string> ReadTailOps() {
  std::ifstream in(testing::SharedDir() + "/OPS.md");
  std::set<std::string> ops;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "#")) {
      if (inside) break;
      inside = absl::StartsWith(line, "### tail");
      continue;
    }
    if (!inside) continue;
    if (absl::StartsWith(line, "Elementwise")) break;
    for (absl::string_view word : absl::StrSplit(line, ' ', absl::SkipWhitespace())) {
      ops.emplace(absl::StripSuffix(word, "."));
    }
  }
  return ops;
}

Placement PlacementOf(const OpsMdRow& row) {
  // Variable updates are placed as ApplyGradientDescent is: a host op of the graph whose
  // writes the device executor applies to the variables where they live (variable_writes.cc).
  if (absl::StartsWith(row.family, "optimizers")) return Placement::kHost;
  return absl::StartsWith(row.runs_on, "device (host") ? Placement::kLayout
         : absl::StartsWith(row.runs_on, "device")     ? Placement::kDevice
                                                       : Placement::kHost;
}

TEST(OpsTableTest, MatchesOpsMdAndEveryOpHasAKernel) {
  const std::vector<OpsMdRow> rows = ReadOpsMd();
  ASSERT_EQ(ReadOpsMdTable("# The op table").size(), 8u) << "OPS.md's table has changed shape";
  const std::vector<OpsMdRow> nn_rows = ReadNnTable();
  ASSERT_EQ(nn_rows.size(), 8u) << "OPS.md's nn table has changed shape";
  // A row of the nn table restates some ops of the first (random): the nn row is the claim.
  std::map<std::string, const OpsMdRow*> row_of;
  for (const OpsMdRow& row : rows) {
    for (const std::string& op : row.ops) row_of[op] = &row;
  }
  std::map<std::string, const OpsMdRow*> nn_row_of;
  for (const OpsMdRow& row : nn_rows) {
    for (const std::string& op : row.ops) nn_row_of[op] = &row;
  }
  const std::vector<OpsMdRow> control_rows = ReadControlTable();
  ASSERT_EQ(control_rows.size(), 5u) << "OPS.md's control table has changed shape";
  for (const OpsMdRow& row : control_rows) {
    for (const std::string& op : row.ops) nn_row_of[op] = &row;
  }
  for (const auto& [op, row] : row_of) {
    ASSERT_NE(FindOpDef(op), nullptr) << op << " (" << row->family << ") is not in graph/ops.cc";
  }
  const std::set<std::string> tail = ReadTailOps();
  ASSERT_GT(tail.size(), 100u) << "OPS.md's tail table has changed shape";
  for (const OpDef& def : AllOpDefs()) {
    const std::string op(def.name);
    // The tail table has no families or placements of its own to compare with (its rule is
    // checked by EveryDeviceOpHasATranslation); what graph/ops.cc claims needs a kernel.
    if (tail.contains(op) && !row_of.contains(op) && !nn_row_of.contains(op)) {
      EXPECT_NE(reference::KernelRegistry::Global().Find(op), nullptr)
          << op << " has no reference kernel";
      continue;
    }
    auto nn = nn_row_of.find(op);
    const OpsMdRow* row = nn != nn_row_of.end() ? nn->second
                          : row_of.contains(op) ? row_of[op]
                                                : nullptr;
    ASSERT_NE(row, nullptr) << op << " is not in OPS.md's first, nn, control or tail table";
    EXPECT_EQ(std::string(def.family), row->family) << op;
    const bool control =
        std::find(control_rows.begin(), control_rows.end(), *row) != control_rows.end();
    EXPECT_EQ(def.placement, control ? Placement::kHost : PlacementOf(*row))
        << op << " runs on \"" << row->runs_on << "\"";
    // Switch, Merge, While and If are run by the executors themselves.
    if (def.control) continue;
    EXPECT_NE(reference::KernelRegistry::Global().Find(op), nullptr)
        << op << " has no reference kernel";
  }
  for (const std::string& op : reference::KernelRegistry::Global().Ops()) {
    EXPECT_NE(FindOpDef(op), nullptr) << "kernel for " << op << ", which graph/ops.cc lacks";
  }
}

// Every op of OPS.md's first table that runs on the device has a translation to the IR; of the
// nn table (being built), those translated so far are device ops there; nothing else is.
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
  for (const OpsMdRow& row : ReadNnTable()) {
    if (!absl::StartsWith(row.runs_on, "device")) continue;
    device.insert(row.ops.begin(), row.ops.end());
  }
  // The tail's ops that graph/ops.cc places on the device (as OPS.md's rule says: elementwise,
  // gather/scatter, segment and bitwise ops) must be translated, and only those.
  for (const std::string& op : ReadTailOps()) {
    const OpDef* def = FindOpDef(op);
    if (def == nullptr || def->placement == Placement::kHost) continue;
    device.insert(op);
    EXPECT_NE(ir::FindTranslation(op), nullptr)
        << op << " (tail, on the device) has no translation";
  }
  for (const std::string& op : ir::TranslatedOps()) {
    EXPECT_TRUE(device.contains(op)) << "translation for " << op << ", which is not a device op";
  }
}

}  // namespace
}  // namespace dfc
