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

// What the folder knows of a host op's output shapes before it runs (graph/fold.cc), so that
// the device ops after it compile and fuse. Device ops need none: their translation says.
enum class HostShapeRule {
  kUnknown,     // known only when it runs (Where, Unique) or not worked out (Svd)
  kLikeInput0,  // every output has input 0's shape (DeepCopy, Roll, Cholesky)
  kBroadcast,   // the output has its inputs' broadcast shape (Igamma, Xlogy, Betainc)
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
