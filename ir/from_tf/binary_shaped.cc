// Translations of the binary family's ops whose operands follow rules of their own, beside the
// table's two broadcast operands (binary.cc): BiasAdd (the bias along the channel dimension),
// Select and SelectV2, AddN and AccumulateNV2 (n tensors of one shape), and the tail's
// CompareAndBitpack, which folds groups of 8 into bytes (runtime/reference/bitwise.cc).
// Registered by RegisterBinaryTranslations (binary.cc).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/check.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "graph/dtype_class.h"
#include "ir/expr.h"
#include "ir/from_tf/binary_internal.h"
#include "ir/from_tf/broadcast.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/size_unifier.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir::binary {
namespace {

// Select's c ? t : e, for any dtype of t and e.
FunPtr SelectFun(DType d) {
  return MakeUserFun(absl::StrCat("select_", DTypeName(d)), {"c", "t", "e"}, "return c ? t : e;",
                     {DType::kBool, d, d}, d,
                     [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       return a[0].AsBool() ? a[1] : a[2];
                     });
}

// BiasAdd: value + bias along the channel dimension, the last (NHWC) or dimension 1 (NCHW).
absl::StatusOr<std::vector<ExprPtr>> TranslateBiasAdd(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(2));
  DFC_RETURN_IF_ERROR(CheckSameDType(ctx, 0, 1));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kNumbers));
  // (Read in place, not copied out: GCC 12 calls a copy maybe-uninitialized here.)
  const absl::StatusOr<std::string> data_format = ctx.node().GetString("data_format", "NHWC");
  if (!data_format.ok()) return data_format.status();
  const absl::string_view format = *data_format;
  if (format != "NHWC" && format != "NCHW") {
    return ctx.Error(absl::StrCat("data_format must be NHWC or NCHW, got \"", format, "\""));
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr value, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr bias, ctx.Input(1));
  const DType d = BaseDType(value->type);
  const SymbolicShape value_shape = ShapeOfExpr(value);
  const SymbolicShape bias_shape = ShapeOfExpr(bias);
  const int rank = static_cast<int>(value_shape.size());
  if (rank < 2) {
    return ctx.Error(
        absl::StrCat("value must have rank at least 2, got ", DebugType(d, value_shape)));
  }
  if (bias_shape.size() != 1) {
    return ctx.Error(absl::StrCat("bias must be a vector, got ", DebugType(d, bias_shape)));
  }
  const int channel_dim = format == "NCHW" ? 1 : rank - 1;
  if (bias_shape[0] != value_shape[channel_dim]) {
    return ctx.Error(absl::StrCat("bias has ", bias_shape[0].ToString(), " elements but value ",
                                  DebugType(d, value_shape), " has ",
                                  value_shape[channel_dim].ToString(), " channels in dimension ",
                                  channel_dim, " (", format, ")"));
  }
  const FunPtr add = AddFun(d);
  // NHWC (or NCHW of rank 2): broadcastRight, the bias zipped with each row.
  if (channel_dim == rank - 1) {
    DFC_ASSIGN_OR_RETURN(ExprPtr out, Broadcast(ctx, {value, bias}, add));
    return std::vector<ExprPtr>{out};
  }
  // NCHW: Map over the batch capturing the bias, zip each image's channels with it, and add
  // each channel's bias (a captured scalar) to every element of that channel's plane.
  DFC_ASSIGN_OR_RETURN(ExprPtr out,
                       MapOver(
                           value,
                           [&](ExprPtr image) -> absl::StatusOr<ExprPtr> {
                             DFC_ASSIGN_OR_RETURN(ExprPtr zipped, Call(Zip(2), {image, bias}));
                             return MapOver(
                                 zipped,
                                 [&](ExprPtr pair) -> absl::StatusOr<ExprPtr> {
                                   DFC_ASSIGN_OR_RETURN(ExprPtr plane, Call(Get(0), {pair}));
                                   DFC_ASSIGN_OR_RETURN(ExprPtr b, Call(Get(1), {pair}));
                                   return Broadcast(ctx, {plane, b}, add);
                                 },
                                 "channel");
                           },
                           "image"));
  return std::vector<ExprPtr>{out};
}

absl::Status CheckSelectInputs(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(3));
  DFC_ASSIGN_OR_RETURN(DType cond, ctx.InputDType(0));
  if (cond != DType::kBool) {
    DFC_ASSIGN_OR_RETURN(std::string type, InputDebugType(ctx, 0));
    return ctx.Error(absl::StrCat("condition must be bool, got ", type));
  }
  DFC_RETURN_IF_ERROR(CheckSameDType(ctx, 1, 2));
  return CheckClass(ctx, 1, kAll);
}

// Select (v1): t and e of one shape; the condition of that shape, a scalar (choosing a whole
// tensor), or a vector over t's first dimension (choosing whole rows).
absl::StatusOr<std::vector<ExprPtr>> TranslateSelect(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckSelectInputs(ctx));
  DFC_ASSIGN_OR_RETURN(ExprPtr cond, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr t, ctx.Input(1));
  DFC_ASSIGN_OR_RETURN(ExprPtr e, ctx.Input(2));
  const DType d = BaseDType(t->type);
  const SymbolicShape cs = ShapeOfExpr(cond);
  const SymbolicShape ts = ShapeOfExpr(t);
  const SymbolicShape es = ShapeOfExpr(e);
  if (ts != es) {
    return ctx.Error(absl::StrCat("t and e must have the same shape, got ", DebugType(d, ts),
                                  " and ", DebugType(d, es)));
  }
  const FunPtr select = SelectFun(d);
  if (cs == ts || cs.empty()) {
    DFC_ASSIGN_OR_RETURN(ExprPtr out, Broadcast(ctx, {cond, t, e}, select));
    return std::vector<ExprPtr>{out};
  }
  if (cs.size() == 1 && !ts.empty() && cs[0] == ts[0]) {
    // One condition per row: Map over the rows zipped with the condition, which is then a
    // scalar captured for the whole row.
    DFC_ASSIGN_OR_RETURN(ExprPtr zipped, Call(Zip(3), {cond, t, e}));
    DFC_ASSIGN_OR_RETURN(ExprPtr out, MapOver(
                                          zipped,
                                          [&](ExprPtr row) -> absl::StatusOr<ExprPtr> {
                                            std::vector<ExprPtr> fields;
                                            for (int k = 0; k < 3; ++k) {
                                              DFC_ASSIGN_OR_RETURN(ExprPtr field,
                                                                   Call(Get(k), {row}));
                                              fields.push_back(field);
                                            }
                                            return Broadcast(ctx, std::move(fields), select);
                                          },
                                          "row"));
    return std::vector<ExprPtr>{out};
  }
  return ctx.Error(absl::StrCat("condition ", DebugType(DType::kBool, cs),
                                " must be a scalar, have the shape of t ", DebugType(d, ts),
                                ", or be a vector as long as t's first dimension"));
}

// SelectV2: condition, t and e broadcast together.
absl::StatusOr<std::vector<ExprPtr>> TranslateSelectV2(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckSelectInputs(ctx));
  DFC_ASSIGN_OR_RETURN(ExprPtr cond, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr t, ctx.Input(1));
  DFC_ASSIGN_OR_RETURN(ExprPtr e, ctx.Input(2));
  // The reference's messages: t against e first, then the condition against both.
  absl::StatusOr<SymbolicShape> te = BroadcastShape(ShapeOfExpr(t), ShapeOfExpr(e));
  if (!te.ok()) return ctx.Error(absl::StrCat("t and e: ", te.status().message()));
  absl::StatusOr<SymbolicShape> all = BroadcastShape(ShapeOfExpr(cond), *te);
  if (!all.ok()) return ctx.Error(absl::StrCat("condition and t/e: ", all.status().message()));
  DFC_ASSIGN_OR_RETURN(ExprPtr out, Broadcast(ctx, {cond, t, e}, SelectFun(BaseDType(t->type))));
  return std::vector<ExprPtr>{out};
}

// AddN / AccumulateNV2: n >= 1 tensors of one dtype and shape, summed in input order.
absl::StatusOr<std::vector<ExprPtr>> TranslateAddN(const TranslateContext& ctx) {
  const int n = ctx.num_inputs();
  if (n < 1) return ctx.Error("needs at least one input, got none");
  std::vector<ExprPtr> inputs;
  for (int k = 0; k < n; ++k) {
    DFC_RETURN_IF_ERROR(CheckSameDType(ctx, 0, k));
    DFC_ASSIGN_OR_RETURN(ExprPtr input, ctx.Input(k));
    inputs.push_back(input);
    if (ShapeOfExpr(input) != ShapeOfExpr(inputs[0])) {
      DFC_ASSIGN_OR_RETURN(std::string first, InputDebugType(ctx, 0));
      DFC_ASSIGN_OR_RETURN(std::string other, InputDebugType(ctx, k));
      return ctx.Error(absl::StrCat("all inputs must have the same shape, got ", first,
                                    " (input 0) and ", other, " (input ", k, ")"));
    }
  }
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kNumbers));
  const FunPtr sum = AddNFun(BaseDType(inputs[0]->type), n);
  DFC_ASSIGN_OR_RETURN(ExprPtr out, ZipScalars(std::move(inputs), [&](std::span<const ExprPtr> s) {
                         return Call(sum, std::vector<ExprPtr>(s.begin(), s.end()));
                       }));
  return std::vector<ExprPtr>{out};
}

// CompareAndBitpack's dtypes: TensorFlow's op takes bool, the floats and the signed integers.
constexpr unsigned kBitpackClasses = kFloats | kSigned | kBools;

// One step of the fold that packs a group of 8: the accumulator shifted up and the next bit,
// x > t, put in at the bottom, so the group's first element ends in the top bit. The bool form
// packs x itself and never reads t, as TensorFlow's bool kernel ignores the threshold.
FunPtr BitpackStepFun(DType d) {
  const bool is_bool = d == DType::kBool;
  const std::string body = is_bool ? "return (uchar)((acc << 1) | (x ? 1 : 0));"
                                   : "return (uchar)((acc << 1) | (x > t ? 1 : 0));";
  UserFun::HostFn host = DispatchDType(d, [&]<typename T>() -> UserFun::HostFn {
    if constexpr (InClass<T>(kBitpackClasses)) {
      return [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        const unsigned acc = ScalarAs<uint8_t>(a[0]);
        bool bit;
        if constexpr (std::is_same_v<T, bool>) {
          bit = ScalarAs<T>(a[1]);
        } else {
          bit = ScalarAs<T>(a[1]) > ScalarAs<T>(a[2]);  // NaN compares false
        }
        return ScalarOf<uint8_t>(static_cast<uint8_t>((acc << 1) | (bit ? 1u : 0u)));
      };
    } else {
      DFC_CHECK(false && "CompareAndBitpack's dtype class is checked before its UserFun is made");
      return nullptr;
    }
  });
  return MakeUserFun(absl::StrCat("bitpack_step_", DTypeName(d)), {"acc", "x", "t"}, body,
                     {DType::kUInt8, d, d}, DType::kUInt8, std::move(host));
}

// CompareAndBitpack(input, threshold): the last dimension (a multiple of 8) in groups of 8, each
// folded into one uint8, the threshold a captured scalar:
//   Map^(rank-1)(λrow => Map(λg => Reduce(step(·, ·, t))(0, g)) $ Split(8) $ row) $ input
absl::StatusOr<std::vector<ExprPtr>> TranslateCompareAndBitpack(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(2));
  DFC_RETURN_IF_ERROR(CheckSameDType(ctx, 0, 1));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kBitpackClasses));
  DFC_ASSIGN_OR_RETURN(ExprPtr input, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr threshold, ctx.Input(1));
  const DType d = BaseDType(input->type);
  const SymbolicShape shape = ShapeOfExpr(input);
  if (!ShapeOfExpr(threshold).empty()) {
    return ctx.Error(
        absl::StrCat("threshold must be a scalar, got ", DebugType(d, ShapeOfExpr(threshold))));
  }
  if (shape.empty()) {
    return ctx.Error(absl::StrCat("input must have rank at least 1, got ", DebugType(d, shape)));
  }
  if ((shape.back() % 8).AsConstant() != std::optional<int64_t>(0)) {
    return ctx.Error(absl::StrCat("the last dimension of input ", DebugType(d, shape),
                                  " must be a multiple of 8, got ", shape.back().ToString()));
  }
  const FunPtr step = BitpackStepFun(d);
  absl::StatusOr<ExprPtr> out = MapAtDepth(
      input, static_cast<int>(shape.size()) - 1, [&](ExprPtr row) -> absl::StatusOr<ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ExprPtr groups, Call(Split(ArithExpr(8)), {row}));
        return MapOver(
            groups,
            [&](ExprPtr group) {
              return ReduceOver(Lit(DType::kUInt8, 0), group, [&](ExprPtr acc, ExprPtr x) {
                return Apply(step, {acc, x, threshold});
              });
            },
            "group");
      });
  if (!out.ok()) return ctx.node().Annotate(out.status());
  return std::vector<ExprPtr>{*std::move(out)};
}

// Select with a vector condition picks rows of the branches, so only operands of one rank
// broadcast; BiasAdd aligns its bias with the channel dimension and has no hook.
bool UnifySelect(const Node& node, std::span<const SymbolicShape> shapes, SizeUnifier& unifier) {
  if (shapes[0].size() != shapes[1].size()) return false;
  return UnifyBroadcast(node, shapes, unifier);
}

}  // namespace

void RegisterShapedTranslations(TranslationTable& table) {
  table.push_back({"BiasAdd", {TranslateBiasAdd, {}}});
  table.push_back({"Select", {TranslateSelect, {}, UnifySelect}});
  table.push_back({"SelectV2", {TranslateSelectV2, {}, UnifyBroadcast}});
  table.push_back({"AddN", {TranslateAddN, {}, UnifyBroadcast}});
  table.push_back({"AccumulateNV2", {TranslateAddN, {}, UnifyBroadcast}});
  table.push_back({"CompareAndBitpack", {TranslateCompareAndBitpack, {}}});
}

}  // namespace dfc::ir::binary
