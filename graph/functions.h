// TF2 functions: the calls of a GraphDef's function library, inlined into the graph.
//
// A PartitionedCall or StatefulPartitionedCall node CALL of function F becomes F's body: each
// body node is named "CALL/NODE", reads the call's inputs where it read F's arguments and
// carries the call's control inputs. A node named CALL stays, so that what read the call reads
// the same tensors: an IdentityN of F's results (a NoOp where F returns none) that runs after
// F's control outputs (its side effects: a variable's assignment). Calls in the inlined bodies
// are inlined in turn. What remains is a flat graph whose calls' bodies fuse with their callers
// like any other nodes; the library stays for the functions that While and If nodes run
// (graph/control_flow.h).
//
// A body node names another's output as "node:output_arg:index". Where its op has several
// output args (FusedBatchNormV3's y, batch_mean...), their order is the op's: taken from
// `op_list` (a SavedModel's stripped_op_list) when it has the op, else from dfc's own table of
// the ops with several; an op of several that neither knows is an error, never a guess.
#ifndef DFC_GRAPH_FUNCTIONS_H_
#define DFC_GRAPH_FUNCTIONS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph_def.pb.h"

namespace dfc {

// `def` with every call of its library's functions inlined. Errors name
// the call node and the function: a function the library lacks, a recursion, an argument count
// that differs, an attribute placeholder the call does not set, an input naming nothing.
absl::StatusOr<tf::GraphDef> InlineFunctionCalls(tf::GraphDef def,
                                                 const std::vector<tf::OpDef>& op_list = {});

}  // namespace dfc

#endif  // DFC_GRAPH_FUNCTIONS_H_
