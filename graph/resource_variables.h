// Resource variables (TF2's VarHandleOp and the ops that take its handle) as the ref variables
// dfc already runs on the device (VariableV2 and the ops that take its ref), so that one
// mechanism serves both:
//
//   VarHandleOp(dtype, shape)        VariableV2(dtype, shape)
//   ReadVariableOp(h)                Identity(v)
//   AssignVariableOp(h, x)           Assign(v, x)            (its output read by nothing)
//   Assign{Add,Sub}VariableOp(h, x)  Assign{Add,Sub}(v, x)
//   ResourceApplyX(h.., args)        ApplyX(v.., args)       (the optimizers)
//   ResourceGather(h, i)             Gather(v, i)            (batch_dims 0)
//   ResourceScatterAdd(h, i, u)      ScatterAdd(v, i, u)
//   VarIsInitializedOp(h)            IsVariableInitialized(v)
//
// A handle reaches its readers directly or through Identity and IdentityN (a function's
// argument, once inlined): those pass the variable's value instead. Any other reader of a
// handle is an error naming it, as is a handle that no VarHandleOp made.
#ifndef DFC_GRAPH_RESOURCE_VARIABLES_H_
#define DFC_GRAPH_RESOURCE_VARIABLES_H_

#include "absl/status/statusor.h"
#include "graph/graph_def.pb.h"

namespace dfc {

absl::StatusOr<tf::GraphDef> LowerResourceVariables(tf::GraphDef def);

}  // namespace dfc

#endif  // DFC_GRAPH_RESOURCE_VARIABLES_H_
