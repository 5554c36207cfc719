// Pieces shared by the files of control-flow functionalization (control_flow.cc: TensorArray
// flows and library functions; control_flow_loops.cc: TF1 loops into While nodes): the node
// predicates and builders both use, and the loop pass. Private to those two files.
#ifndef DFC_GRAPH_CONTROL_FLOW_INTERNAL_H_
#define DFC_GRAPH_CONTROL_FLOW_INTERNAL_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "graph/control_flow.h"
#include "graph/graph_def.pb.h"

namespace dfc::control_flow_internal {

// `message` as an error about `node`, which it names with its op.
absl::Status NodeError(const tf::NodeDef& node, absl::string_view message);

// The loop primitives, Ref forms included.
bool IsEnter(const tf::NodeDef& n);
bool IsExit(const tf::NodeDef& n);
bool IsMerge(const tf::NodeDef& n);
bool IsSwitch(const tf::NodeDef& n);
bool IsNextIteration(const tf::NodeDef& n);

// The node's attribute `key`; nullptr when it has none.
const tf::AttrValue* FindAttr(const tf::NodeDef& node, absl::string_view key);

// A Placeholder node `name` whose dtype attribute is `type`.
tf::NodeDef Placeholder(const std::string& name, const tf::AttrValue& type);

// Turns `def`'s TF1 loops into While nodes, innermost first, adding their conditions and bodies
// to `bodies` (control_flow_loops.cc).
absl::Status FunctionalizeLoops(tf::GraphDef& def, FunctionBodies& bodies);

}  // namespace dfc::control_flow_internal

#endif  // DFC_GRAPH_CONTROL_FLOW_INTERNAL_H_
