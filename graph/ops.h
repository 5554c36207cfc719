// The op table: every op dfc supports (../shared/OPS.md), where it runs, the kinds of the
// attributes it reads (so a wrong-kind attribute is caught at load time), its output count and
// its outputs' dtype.
#ifndef DFC_GRAPH_OPS_H_
#define DFC_GRAPH_OPS_H_

#include <span>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/attr.h"
#include "graph/node.h"

namespace dfc {

enum class Placement {
  kDevice,  // translated to the IR and fused into generated kernels
  kLayout,  // device, or host when every input is a host constant
  kHost,    // plumbing, shapes, variables, random
};

// What the folder knows of an op's output shapes before it runs, where it does not fold it
// (graph/host_shapes.h), so that the device ops after a host op compile and fuse. Device ops
// need none beyond the identity family's: their translation says.
enum class HostShapeRule {
  kUnknown,            // not worked out (Qr), or ask the translation (device ops)
  kLikeInput0,         // every output has input 0's shape (DeepCopy, Roll, Cholesky)
  kBroadcast,          // the output has its inputs' broadcast shape (Igamma, Xlogy, Betainc)
  kEachInput,          // output k is input k's dtype and shape (Identity, IdentityN)
  kShapeVectors,       // output k is input k's shape, [its rank] (Shape, ShapeN)
  kScalar,             // a scalar (Size, Rank)
  kBroadcastArgs,      // [the longer of two constant-length shape vectors]
  kDynamicStitch,      // [the largest index + 1, data's dimensions after the indices']
  kFill,               // the shape its dims input holds, where the folder knows it
  kRange,              // [its length], where provably non-negative
  kBitcast,            // a wider type gains a last dimension of the ratio, a narrower loses it
  kMatrixDiag,         // [..., n] -> [..., n, n]
  kMatrixDiagPart,     // [..., m, n] -> [..., min(m, n)]
  kRnnCell,            // every output has the previous state's shape (LSTMBlockCell)
  kBlockLstm,          // [time, batch, cell]
  kTopK,               // values and indices [..., k], k an attribute or a constant input
  kGatherNd,           // indices' leading dimensions, then params' after the first q
  kParallelConcat,     // N values of [1, ...]: [N, ...]
  kSvd,                // s, and u and v when compute_uv
  // Sizes known when it runs, each a size variable bound then:
  kUnique,             // y [u], idx like x (count [u])
  kListDiff,           // out and idx [d]
  kWhere,              // int64 [w, rank]
  kDynamicPartition,   // output i [n_i, ...]
  kSortedSegment,      // [the last id + 1, ...]
  kNonMaxSuppression,  // selected indices (and scores) [m], the valid count a scalar
};

// The outputs' dtype, as TensorFlow's op registry declares it: input `input`'s when it is set
// and known (Fill's value), else the type attribute `attr` when the node has it (Cast's DstT,
// Shape's out_type), else `fixed` (a comparison's bool, or the attribute's default); none of
// them: the node's "dtype" or "T" attribute, else its first input's. `each_input`: output k
// has input k's dtype (IdentityN).
struct OutputDTypeRule {
  int input = -1;
  absl::string_view attr = {};
  DType fixed = DType::kInvalid;
  bool each_input = false;
};

struct AttrSpec {
  absl::string_view name;
  AttrKind kind;
};

struct OpDef {
  absl::string_view name = {};
  absl::string_view family = {};  // OPS.md's family, e.g. "unary elementwise"
  Placement placement = Placement::kHost;
  std::vector<AttrSpec> attrs = {};  // attributes whose kind is checked when present
  // Outputs: `num_outputs`, or when `num_outputs_attr` is set, the value of that int attribute
  // (or the length of that list attribute).
  int num_outputs = 1;
  absl::string_view num_outputs_attr = {};
  bool stateful = false;  // variables, assignments, random: never folded or deduplicated
  bool variable = false;  // holds state across runs (Variable, VariableV2)
  // The leading inputs that are variables themselves, not their values, and that the op may
  // write: 1 for Assign, AssignAdd, ApplyGradientDescent (var); 3 for ApplyAdam (var, m, v).
  int num_ref_inputs = 0;
  bool reads_only_shapes = false;  // reads its inputs' dtypes and shapes, never their elements
  // Moves values of any dtype (strings, TensorArray handles and flows) without computing on
  // them, or reads them only to print (Assert): CheckSupported lets its dtypes pass.
  bool any_dtype = false;
  // Control flow the executor itself runs, not a kernel: Switch and Merge (dead branches),
  // While and If (their functions, run as graphs of their own).
  bool control = false;
  HostShapeRule host_shape = HostShapeRule::kUnknown;
  OutputDTypeRule output_dtype = {};
};

// The definition of `op`, or nullptr if dfc does not support it.
const OpDef* FindOpDef(absl::string_view op);

// Every supported op, in OPS.md's order.
std::span<const OpDef> AllOpDefs();

// Number of outputs `node` has, from its OpDef and attributes; an error if an attribute that
// sets it is missing or negative. For an unsupported op, an error.
absl::StatusOr<int> NumOutputs(const Node& node, const OpDef& def);

// A Placeholder's (or PlaceholderWithDefault's) declared shape: its `shape` attribute, or any
// shape (unknown rank) when that is absent, as in TensorFlow.
PartialShape PlaceholderShape(const Node& node);

// "float32[?,784]": the declared dtype ("?" if absent) and PlaceholderShape.
std::string PlaceholderSignature(const Node& node);

// True for a pass-through (Identity, IdentityN, StopGradient, Snapshot) of a value only the host
// holds: a string, a TensorArray's flow or handle. It runs on the host whatever its op's
// placement.
bool PassesHostOnlyValue(const Node& node);

// The control-flow ops by kind (with their Ref forms, and the stateless While and If).
bool IsSwitch(const Node& node);
bool IsMerge(const Node& node);
bool IsWhile(const Node& node);
bool IsIf(const Node& node);

// Checks each attribute the op reads has the kind it must have.
absl::Status CheckAttrKinds(const Node& node, const OpDef& def);

}  // namespace dfc

#endif  // DFC_GRAPH_OPS_H_
