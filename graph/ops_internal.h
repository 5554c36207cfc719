// What the files of the op table share (graph/ops.cc, graph/ops_nn.cc, graph/ops_tail.cc): the table is built
// once, from one function per OPS.md table.
#ifndef DFC_GRAPH_OPS_INTERNAL_H_
#define DFC_GRAPH_OPS_INTERNAL_H_

#include <vector>

#include "absl/strings/string_view.h"
#include "graph/ops.h"

namespace dfc {

// Adds one OpDef per name in `names` (space-separated), all sharing the rest of `proto`.
void AddAll(std::vector<OpDef>& table, absl::string_view names, const OpDef& proto);

// OPS.md's "nn" table (ops_nn.cc).
void AddNnTable(std::vector<OpDef>& table);

// OPS.md's "tail" table (ops_tail.cc).
void AddTailTable(std::vector<OpDef>& table);

}  // namespace dfc

#endif  // DFC_GRAPH_OPS_INTERNAL_H_
