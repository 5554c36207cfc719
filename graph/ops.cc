// The op table of ../shared/OPS.md with the attribute kinds TensorFlow's op registry gives.
#include "graph/ops.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "graph/ops_internal.h"

namespace dfc {

void AddAll(std::vector<OpDef>& table, absl::string_view names, const OpDef& proto) {
  for (absl::string_view name : absl::StrSplit(names, ' ', absl::SkipEmpty())) {
    OpDef def = proto;
    def.name = name;
    table.push_back(def);
  }
}

namespace {

using K = AttrKind;

// OPS.md's "control" table. TF1 frames (Enter, Exit, NextIteration, LoopCond) never reach it:
// the loader turns each loop into a While node (graph/control_flow.h).
void AddControlTable(std::vector<OpDef>& t) {
  constexpr absl::string_view kControl = "TF1 control flow (while loops and conds, nested)";
  constexpr absl::string_view kFunctions = "TF2 functions (the GraphDef's `library`)";
  constexpr absl::string_view kArrays = "tensor arrays and stacks";
  const AttrSpec kT{"T", K::kType};
  const AttrSpec kDtype{"dtype", K::kType};
  // Stateful, so that folding never evaluates them: their outputs' liveness is a run's.
  const OpDef control{.family = kControl,
                      .placement = Placement::kHost,
                      .stateful = true,
                      .any_dtype = true,
                      .control = true};
  OpDef def = control;
  def.attrs = {kT};
  def.num_outputs = 2;
  AddAll(t, "Switch RefSwitch", def);
  def.attrs = {kT, {"N", K::kInt}};
  AddAll(t, "Merge RefMerge", def);
  def = control;
  def.attrs = {{"T", K::kList}, {"cond", K::kFunc}, {"body", K::kFunc},
               {"output_shapes", K::kList}, {"parallel_iterations", K::kInt}};
  def.num_outputs_attr = "T";
  def.family = kFunctions;
  AddAll(t, "While StatelessWhile", def);
  def.attrs = {{"Tcond", K::kType}, {"Tin", K::kList}, {"Tout", K::kList},
               {"then_branch", K::kFunc}, {"else_branch", K::kFunc},
               {"output_shapes", K::kList}};
  def.num_outputs_attr = "Tout";
  AddAll(t, "If StatelessIf", def);
  AddAll(t, "Assert", {.family = kControl,
                       .placement = Placement::kHost,
                       .attrs = {{"T", K::kList}, {"summarize", K::kInt}},
                       .num_outputs = 0,
                       .stateful = true,
                       .any_dtype = true});
  AddAll(t, "ControlTrigger", {.family = kControl, .placement = Placement::kHost, .num_outputs = 0});

  // TensorArrays as values: the flow output carries the array (kVariant), the handle what its
  // gradient arrays need (runtime/reference/tensor_array.cc). Stateful, so never folded into
  // constants.
  const OpDef arrays{.family = kArrays, .placement = Placement::kHost, .stateful = true,
                     .any_dtype = true};
  def = arrays;
  def.attrs = {kDtype, {"element_shape", K::kShape}, {"dynamic_size", K::kBool},
               {"clear_after_read", K::kBool}, {"identical_element_shapes", K::kBool},
               {"tensor_array_name", K::kString}};
  def.num_outputs = 2;
  AddAll(t, "TensorArrayV3", def);
  def = arrays;
  def.attrs = {kT};
  AddAll(t, "TensorArrayWriteV3 TensorArrayScatterV3 TensorArraySplitV3", def);
  def.attrs = {kDtype};
  AddAll(t, "TensorArrayReadV3", def);
  def.attrs = {kDtype, {"element_shape", K::kShape}};
  AddAll(t, "TensorArrayGatherV3", def);
  def.attrs = {kDtype, {"element_shape_except0", K::kShape}};
  def.num_outputs = 2;
  AddAll(t, "TensorArrayConcatV3", def);
  def = arrays;
  def.num_outputs = 1;
  AddAll(t, "TensorArraySizeV3", def);
  def.num_outputs = 0;
  AddAll(t, "TensorArrayCloseV3", def);
  // A gradient array and a stack are state their handle names, changed in place by the ops.
  def = arrays;
  def.attrs = {{"source", K::kString}};
  def.num_outputs = 2;
  AddAll(t, "TensorArrayGradV3", def);
  def.attrs = {{"elem_type", K::kType}, {"stack_name", K::kString}};
  def.num_outputs = 1;
  AddAll(t, "StackV2", def);
  def.attrs = {kT, {"swap_memory", K::kBool}};
  AddAll(t, "StackPushV2", def);
  def.attrs = {{"elem_type", K::kType}};
  AddAll(t, "StackPopV2", def);

  // TF2's TensorLists: the same values (kVariant), threaded by the ops themselves.
  constexpr absl::string_view kLists = "tensor lists";
  const AttrSpec kElement{"element_dtype", K::kType};
  const AttrSpec kShapeType{"shape_type", K::kType};
  def = arrays;
  def.family = kLists;
  def.attrs = {kElement, kShapeType};
  AddAll(t, "EmptyTensorList TensorListReserve TensorListFromTensor", def);
  def.attrs = {kElement, {"num_elements", K::kInt}};
  AddAll(t, "TensorListStack", def);
  def.attrs = {kElement};
  AddAll(t, "TensorListGetItem TensorListPushBack", def);
  def.attrs = {kElement, {"resize_if_index_out_of_bounds", K::kBool}};
  AddAll(t, "TensorListSetItem", def);
  def.attrs = {};
  AddAll(t, "TensorListLength", def);
  def.attrs = {kShapeType};
  AddAll(t, "TensorListElementShape", def);
  def.attrs = {kElement};
  def.num_outputs = 2;
  AddAll(t, "TensorListPopBack", def);
}

std::vector<OpDef> BuildTable() {
  std::vector<OpDef> t;
  const AttrSpec kT{"T", K::kType};

  constexpr absl::string_view kUnary = "unary elementwise";
  AddAll(
      t,
      "Abs Neg Exp Expm1 Log Log1p Sqrt Rsqrt Square Reciprocal Inv Sign Floor Ceil Round Rint "
      "Sin Cos Tan Asin Acos Atan Sinh Cosh Tanh Asinh Acosh Atanh Sigmoid Relu Relu6 Elu Selu "
      "Softplus Softsign Erf Erfc Erfinv",
      {.family = kUnary, .placement = Placement::kDevice, .attrs = {kT}});
  AddAll(t, "IsNan IsInf IsFinite",
         {.family = kUnary,
          .placement = Placement::kDevice,
          .attrs = {kT},
          .output_dtype = {.fixed = DType::kBool}});
  AddAll(t, "LogicalNot", {.family = kUnary, .placement = Placement::kDevice, .attrs = {kT}});
  AddAll(t, "Identity StopGradient Snapshot",
         {.family = kUnary,
          .placement = Placement::kDevice,
          .attrs = {kT},
          .host_shape = HostShapeRule::kEachInput});
  AddAll(t, "ZerosLike OnesLike",
         {.family = kUnary, .placement = Placement::kDevice, .attrs = {kT}});
  AddAll(t, "LeakyRelu",
         {.family = kUnary, .placement = Placement::kDevice, .attrs = {kT, {"alpha", K::kFloat}}});
  AddAll(t, "PreventGradient",
         {.family = kUnary,
          .placement = Placement::kDevice,
          .attrs = {kT, {"message", K::kString}},
          .host_shape = HostShapeRule::kEachInput});
  AddAll(t, "Cast",
         {.family = kUnary,
          .placement = Placement::kDevice,
          .attrs = {{"SrcT", K::kType}, {"DstT", K::kType}, {"Truncate", K::kBool}},
          .output_dtype = {.attr = "DstT"}});

  constexpr absl::string_view kBinary = "binary elementwise, with broadcasting";
  AddAll(t,
         "Add AddV2 Sub Mul Div RealDiv DivNoNan FloorDiv FloorMod Mod TruncateDiv TruncateMod "
         "Maximum Minimum Pow SquaredDifference Atan2",
         {.family = kBinary, .placement = Placement::kDevice, .attrs = {kT}});
  AddAll(t, "Less LessEqual Greater GreaterEqual",
         {.family = kBinary,
          .placement = Placement::kDevice,
          .attrs = {kT},
          .output_dtype = {.fixed = DType::kBool}});
  AddAll(t, "LogicalAnd LogicalOr Select SelectV2",
         {.family = kBinary, .placement = Placement::kDevice, .attrs = {kT}});
  AddAll(t, "Equal NotEqual",
         {.family = kBinary,
          .placement = Placement::kDevice,
          .attrs = {kT, {"incompatible_shape_error", K::kBool}},
          .output_dtype = {.fixed = DType::kBool}});
  AddAll(t, "BiasAdd",
         {.family = kBinary,
          .placement = Placement::kDevice,
          .attrs = {kT, {"data_format", K::kString}}});
  AddAll(t, "AddN",
         {.family = kBinary, .placement = Placement::kDevice, .attrs = {kT, {"N", K::kInt}}});
  AddAll(t, "AccumulateNV2",
         {.family = kBinary,
          .placement = Placement::kDevice,
          .attrs = {kT, {"N", K::kInt}, {"shape", K::kShape}}});

  constexpr absl::string_view kContraction = "contractions";
  AddAll(t, "MatMul",
         {.family = kContraction,
          .placement = Placement::kDevice,
          .attrs = {kT, {"transpose_a", K::kBool}, {"transpose_b", K::kBool}}});
  AddAll(t, "BatchMatMul BatchMatMulV2",
         {.family = kContraction,
          .placement = Placement::kDevice,
          .attrs = {kT, {"adj_x", K::kBool}, {"adj_y", K::kBool}}});

  constexpr absl::string_view kReduction = "reductions and scans";
  AddAll(t, "Sum Mean Max Min Prod All Any",
         {.family = kReduction,
          .placement = Placement::kDevice,
          .attrs = {kT, {"Tidx", K::kType}, {"keep_dims", K::kBool}}});
  AddAll(t, "ArgMax ArgMin",
         {.family = kReduction,
          .placement = Placement::kDevice,
          .attrs = {kT, {"Tidx", K::kType}, {"output_type", K::kType}},
          .output_dtype = {.attr = "output_type", .fixed = DType::kInt64}});
  AddAll(t, "Cumsum Cumprod",
         {.family = kReduction,
          .placement = Placement::kDevice,
          .attrs = {kT, {"Tidx", K::kType}, {"exclusive", K::kBool}, {"reverse", K::kBool}}});
  AddAll(t, "L2Loss", {.family = kReduction, .placement = Placement::kDevice, .attrs = {kT}});
  AddAll(t, "BiasAddGrad",
         {.family = kReduction,
          .placement = Placement::kDevice,
          .attrs = {kT, {"data_format", K::kString}}});

  constexpr absl::string_view kSoftmax = "softmax family";
  AddAll(t, "Softmax LogSoftmax",
         {.family = kSoftmax, .placement = Placement::kDevice, .attrs = {kT}});
  AddAll(t, "SoftmaxCrossEntropyWithLogits",
         {.family = kSoftmax, .placement = Placement::kDevice, .attrs = {kT}, .num_outputs = 2});
  AddAll(t, "SparseSoftmaxCrossEntropyWithLogits",
         {.family = kSoftmax,
          .placement = Placement::kDevice,
          .attrs = {kT, {"Tlabels", K::kType}},
          .num_outputs = 2});

  constexpr absl::string_view kLayout = "layout and data movement";
  AddAll(t, "Reshape",
         {.family = kLayout, .placement = Placement::kLayout, .attrs = {kT, {"Tshape", K::kType}}});
  AddAll(t, "Transpose",
         {.family = kLayout, .placement = Placement::kLayout, .attrs = {kT, {"Tperm", K::kType}}});
  AddAll(t, "ExpandDims",
         {.family = kLayout, .placement = Placement::kLayout, .attrs = {kT, {"Tdim", K::kType}}});
  AddAll(t, "Squeeze",
         {.family = kLayout,
          .placement = Placement::kLayout,
          .attrs = {kT, {"squeeze_dims", K::kList}}});
  AddAll(t, "Tile",
         {.family = kLayout,
          .placement = Placement::kLayout,
          .attrs = {kT, {"Tmultiples", K::kType}}});
  AddAll(t, "ConcatV2",
         {.family = kLayout,
          .placement = Placement::kLayout,
          .attrs = {kT, {"N", K::kInt}, {"Tidx", K::kType}}});
  AddAll(t, "Concat",
         {.family = kLayout, .placement = Placement::kLayout, .attrs = {kT, {"N", K::kInt}}});
  AddAll(t, "Pack",
         {.family = kLayout,
          .placement = Placement::kLayout,
          .attrs = {kT, {"N", K::kInt}, {"axis", K::kInt}}});
  AddAll(t, "Unpack",
         {.family = kLayout,
          .placement = Placement::kLayout,
          .attrs = {kT, {"num", K::kInt}, {"axis", K::kInt}},
          .num_outputs_attr = "num"});
  AddAll(t, "Split",
         {.family = kLayout,
          .placement = Placement::kLayout,
          .attrs = {kT, {"num_split", K::kInt}},
          .num_outputs_attr = "num_split"});
  AddAll(t, "SplitV",
         {.family = kLayout,
          .placement = Placement::kLayout,
          .attrs = {kT, {"num_split", K::kInt}, {"Tlen", K::kType}},
          .num_outputs_attr = "num_split"});
  AddAll(t, "Slice",
         {.family = kLayout, .placement = Placement::kLayout, .attrs = {kT, {"Index", K::kType}}});
  AddAll(t, "StridedSlice",
         {.family = kLayout,
          .placement = Placement::kLayout,
          .attrs = {kT,
                    {"Index", K::kType},
                    {"begin_mask", K::kInt},
                    {"end_mask", K::kInt},
                    {"ellipsis_mask", K::kInt},
                    {"new_axis_mask", K::kInt},
                    {"shrink_axis_mask", K::kInt}}});
  AddAll(
      t, "Pad PadV2",
      {.family = kLayout, .placement = Placement::kLayout, .attrs = {kT, {"Tpaddings", K::kType}}});
  AddAll(t, "MirrorPad",
         {.family = kLayout,
          .placement = Placement::kLayout,
          .attrs = {kT, {"Tpaddings", K::kType}, {"mode", K::kString}}});
  AddAll(t, "ReverseV2",
         {.family = kLayout, .placement = Placement::kLayout, .attrs = {kT, {"Tidx", K::kType}}});
  AddAll(t, "GatherV2",
         {.family = kLayout,
          .placement = Placement::kLayout,
          .attrs = {{"Tparams", K::kType},
                    {"Tindices", K::kType},
                    {"Taxis", K::kType},
                    {"batch_dims", K::kInt}},
          .output_dtype = {.attr = "Tparams"}});
  AddAll(
      t, "Gather",
      {.family = kLayout,
       .placement = Placement::kLayout,
       .attrs = {{"Tparams", K::kType}, {"Tindices", K::kType}, {"validate_indices", K::kBool}},
       .output_dtype = {.attr = "Tparams"}});
  AddAll(t, "OneHot",
         {.family = kLayout,
          .placement = Placement::kLayout,
          .attrs = {kT, {"TI", K::kType}, {"axis", K::kInt}}});
  AddAll(t, "BroadcastTo",
         {.family = kLayout, .placement = Placement::kLayout, .attrs = {kT, {"Tidx", K::kType}}});
  AddAll(t, "Fill",
         {.family = kLayout,
          .placement = Placement::kLayout,
          .attrs = {kT, {"index_type", K::kType}},
          .host_shape = HostShapeRule::kFill,
          .output_dtype = {.input = 1}});
  AddAll(t, "Range",
         {.family = kLayout,
          .placement = Placement::kLayout,
          .attrs = {{"Tidx", K::kType}},
          .host_shape = HostShapeRule::kRange,
          .output_dtype = {.attr = "Tidx"}});
  AddAll(t, "IdentityN",
         {.family = kLayout,
          .placement = Placement::kLayout,
          .attrs = {{"T", K::kList}},
          .num_outputs_attr = "T",
          .host_shape = HostShapeRule::kEachInput,
          .output_dtype = {.each_input = true}});

  constexpr absl::string_view kPlumbing = "graph plumbing, shapes, variables";
  AddAll(t, "Const",
         {.family = kPlumbing,
          .placement = Placement::kHost,
          .attrs = {{"value", K::kTensor}, {"dtype", K::kType}}});
  AddAll(t, "Placeholder",
         {.family = kPlumbing,
          .placement = Placement::kHost,
          .attrs = {{"dtype", K::kType}, {"shape", K::kShape}}});
  AddAll(t, "PlaceholderWithDefault",
         {.family = kPlumbing,
          .placement = Placement::kHost,
          .attrs = {{"dtype", K::kType}, {"shape", K::kShape}}});
  OpDef shape{.family = kPlumbing,
              .placement = Placement::kHost,
              .attrs = {kT, {"out_type", K::kType}},
              .reads_only_shapes = true,
              .host_shape = HostShapeRule::kShapeVectors,
              .output_dtype = {.attr = "out_type", .fixed = DType::kInt32}};
  AddAll(t, "Shape", shape);
  shape.host_shape = HostShapeRule::kScalar;
  AddAll(t, "Size", shape);
  shape.attrs = {kT, {"N", K::kInt}, {"out_type", K::kType}};
  shape.num_outputs_attr = "N";
  shape.host_shape = HostShapeRule::kShapeVectors;
  AddAll(t, "ShapeN", shape);
  AddAll(t, "Rank",
         {.family = kPlumbing,
          .placement = Placement::kHost,
          .attrs = {kT},
          .reads_only_shapes = true,
          .host_shape = HostShapeRule::kScalar,
          .output_dtype = {.fixed = DType::kInt32}});
  AddAll(t, "BroadcastArgs",
         {.family = kPlumbing,
          .placement = Placement::kHost,
          .attrs = {kT},
          .host_shape = HostShapeRule::kBroadcastArgs});
  AddAll(t, "BroadcastGradientArgs",
         {.family = kPlumbing, .placement = Placement::kHost, .attrs = {kT}, .num_outputs = 2});
  AddAll(t, "DynamicStitch",
         {.family = kPlumbing,
          .placement = Placement::kHost,
          .attrs = {kT, {"N", K::kInt}},
          .host_shape = HostShapeRule::kDynamicStitch});
  AddAll(t, "NoOp", {.family = kPlumbing, .placement = Placement::kHost, .num_outputs = 0});
  AddAll(t, "Variable VariableV2",
         {.family = kPlumbing,
          .placement = Placement::kHost,
          .attrs = {{"dtype", K::kType},
                    {"shape", K::kShape},
                    {"container", K::kString},
                    {"shared_name", K::kString}},
          .stateful = true,
          .variable = true});
  AddAll(t, "Assign",
         {.family = kPlumbing,
          .placement = Placement::kHost,
          .attrs = {kT, {"validate_shape", K::kBool}, {"use_locking", K::kBool}},
          .stateful = true,
          .num_ref_inputs = 1});
  AddAll(t, "AssignAdd AssignSub ApplyGradientDescent",
         {.family = kPlumbing,
          .placement = Placement::kHost,
          .attrs = {kT, {"use_locking", K::kBool}},
          .stateful = true,
          .num_ref_inputs = 1});

  AddNnTable(t);
  AddControlTable(t);
  AddTailTable(t);
  return t;
}

const std::vector<OpDef>& Table() {
  static const std::vector<OpDef>* table = new std::vector<OpDef>(BuildTable());
  return *table;
}

}  // namespace

std::span<const OpDef> AllOpDefs() { return Table(); }

const OpDef* FindOpDef(absl::string_view op) {
  static const auto* index = [] {
    auto* m = new absl::flat_hash_map<absl::string_view, const OpDef*>;
    for (const OpDef& def : Table()) (*m)[def.name] = &def;
    return m;
  }();
  auto it = index->find(op);
  return it == index->end() ? nullptr : it->second;
}

absl::StatusOr<int> NumOutputs(const Node& node, const OpDef& def) {
  if (def.num_outputs_attr.empty()) return def.num_outputs;
  auto it = node.attrs.find(def.num_outputs_attr);
  if (it == node.attrs.end()) {
    return node.Error(absl::StrCat("missing attribute \"", def.num_outputs_attr,
                                   "\", which sets the number of outputs"));
  }
  if (const int64_t* n = std::get_if<int64_t>(&it->second)) {
    if (*n < 0 || *n > (1 << 20)) {
      return node.Error(absl::StrCat("attribute \"", def.num_outputs_attr, "\" is ", *n,
                                     ", expected a count in [0, 2^20]"));
    }
    return static_cast<int>(*n);
  }
  if (const AttrList* list = std::get_if<AttrList>(&it->second)) {
    return static_cast<int>(list->type.size());
  }
  return node.Error(absl::StrCat("attribute \"", def.num_outputs_attr, "\" is a ",
                                 AttrKindName(KindOf(it->second)), ", expected an int or a list"));
}

bool IsSwitch(const Node& node) { return node.op == "Switch" || node.op == "RefSwitch"; }
bool IsMerge(const Node& node) { return node.op == "Merge" || node.op == "RefMerge"; }
bool IsWhile(const Node& node) { return node.op == "While" || node.op == "StatelessWhile"; }
bool IsIf(const Node& node) { return node.op == "If" || node.op == "StatelessIf"; }

bool PassesHostOnlyValue(const Node& node) {
  if (node.op != "Identity" && node.op != "IdentityN" && node.op != "StopGradient" &&
      node.op != "Snapshot") {
    return false;
  }
  // bfloat16 is only stored: dfc moves it on the host to the Bitcast that reads it.
  const auto host_only = [](DType d) {
    return d == DType::kString || d == DType::kResource || d == DType::kVariant ||
           d == DType::kBFloat16;
  };
  const auto it = node.attrs.find("T");
  if (it == node.attrs.end()) return false;
  if (const DType* d = std::get_if<DType>(&it->second)) return host_only(*d);
  if (const AttrList* list = std::get_if<AttrList>(&it->second)) {
    return std::any_of(list->type.begin(), list->type.end(), host_only);
  }
  return false;
}

PartialShape PlaceholderShape(const Node& node) {
  // The attribute's kind was checked at load (CheckAttrKinds), so only absence fails here.
  absl::StatusOr<PartialShape> shape = node.GetShape("shape");
  return shape.ok() ? *shape : PartialShape{.unknown_rank = true, .dims = {}};
}

std::string PlaceholderSignature(const Node& node) {
  absl::StatusOr<DType> dtype = node.GetType("dtype");
  return absl::StrCat(dtype.ok() ? DTypeName(*dtype) : "?", PlaceholderShape(node).ToString());
}

absl::Status CheckAttrKinds(const Node& node, const OpDef& def) {
  for (const AttrSpec& spec : def.attrs) {
    auto it = node.attrs.find(spec.name);
    if (it == node.attrs.end()) continue;
    const AttrKind kind = KindOf(it->second);
    // An empty list is written `list {}` whatever its element kind, so a list is only checked
    // to be a list.
    if (kind != spec.kind) {
      return node.Error(absl::StrCat("attribute \"", spec.name, "\" is a ", AttrKindName(kind),
                                     ", expected a ", AttrKindName(spec.kind)));
    }
  }
  return absl::OkStatus();
}

}  // namespace dfc
