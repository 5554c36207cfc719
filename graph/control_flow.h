// Control flow as functions: TensorFlow 1's while loops (frames of Enter, Merge, Switch,
// LoopCond, NextIteration and Exit nodes) become While nodes whose condition and body are
// graphs of their own, as TF2's While ops already are; the library functions that While and If
// nodes name become such graphs too. Every graph dfc runs is then acyclic: an executor runs a
// While node by running its condition and body graphs, the body's kernels fused like any
// other graph's (the approach of XLA's functionalization).
//
// A loop of frame F becomes the While node named F's frame_name (made unique): its inputs are
// the loop variables' initial values (the non-constant Enters' inputs), then the loop
// invariants (the constant Enters' inputs); its outputs are the loop variables' final values,
// which each Exit, kept as an Identity of the same name, passes on. Its condition maps the
// variables and invariants to LoopCond's predicate; its body maps them to the NextIterations'
// values and the invariants unchanged. Loops are taken innermost first, so an inner loop is
// one While node of its outer loop's body.
//
// TensorArrays are values here: the flow tensor that their ops thread from one to the next
// carries the array itself (dtype variant), so a loop carries it as any variable.
#ifndef DFC_GRAPH_CONTROL_FLOW_H_
#define DFC_GRAPH_CONTROL_FLOW_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/graph_def.pb.h"

namespace dfc {

// A While node's condition or body, an If node's branch: nodes named as in a graph, with
// placeholders standing for the arguments.
struct FunctionBody {
  tf::GraphDef graph;
  std::vector<std::string> args;     // placeholder names, in argument order
  std::vector<std::string> results;  // tensor names ("node", "node:1"), in result order
  std::vector<std::string> targets;  // nodes run for their effects (an Assert in a body)
};

// Functions that run functions deeper than this are taken for a recursion (a function that
// runs itself), when they load and when they run.
inline constexpr int kMaxFunctionDepth = 64;

// True for the ops that run functions of the library: While, StatelessWhile, If, StatelessIf.
bool RunsFunctions(absl::string_view op);
// The attributes by which they name their functions.
inline constexpr absl::string_view kFunctionAttrs[] = {"cond", "body", "then_branch",
                                                       "else_branch"};

// By name: the generated "<while>/cond" and "<while>/body", and the library's functions.
using FunctionBodies = std::map<std::string, FunctionBody>;

// Turns `def`'s TF1 loops into While nodes, retypes TensorArray flows as variants, and returns
// the bodies that its While and If nodes (and theirs, nested) name. Errors name the node: a
// malformed frame (an Exit without its Enter, a NextIteration that feeds another frame, a
// value that crosses into a loop without an Enter, a loop variable without its Merge, Switch
// or LoopCond), a function the library lacks.
absl::StatusOr<FunctionBodies> FunctionalizeControlFlow(tf::GraphDef& def,
                                                        const std::vector<tf::OpDef>& op_list = {});

}  // namespace dfc

#endif  // DFC_GRAPH_CONTROL_FLOW_H_
