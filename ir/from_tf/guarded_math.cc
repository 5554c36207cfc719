// Translations of the tail table's elementwise ops besides the special functions
// (runtime/reference/special_math.cc has their reference kernels): Xdivy Xlogy Xlog1py (0 where
// x is 0), ApproximateEqual, ClipByValue, Bucketize and the FakeQuant ops. They compute in their
// compute type, as TensorFlow does; constants an op's attributes fix (Bucketize's boundaries,
// FakeQuant's grids) are written into its UserFun's body.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"
#include "base/status.h"
#include "graph/attr.h"
#include "graph/dtype.h"
#include "graph/dtype_class.h"
#include "graph/special_functions.h"
#include "graph/tensor.h"
#include "ir/from_tf/broadcast.h"
#include "ir/from_tf/elementwise_internal.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/size_unifier.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir::elementwise {
namespace {

// ---- Xdivy, Xlogy, Xlog1py: 0 where x is 0, whatever y is ---------------------------------------

template <typename Op>
FunPtr GuardedFun(DType d, absl::string_view name, absl::string_view expr, Op op) {
  const std::string zero = FloatLiteral(d, 0);
  UserFun::HostFn host = DispatchDType(d, [&]<typename T>() -> UserFun::HostFn {
    if constexpr (InClass<T>(kFloats)) {
      return [op](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        using C = ComputeType<T>;
        const C x = ScalarAs<T>(a[0]);
        const C y = ScalarAs<T>(a[1]);
        return ScalarOf<T>(x == C(0) ? C(0) : op(x, y));
      };
    } else {
      DFC_CHECK(false && "the dtype is checked before the UserFun is made");
      return nullptr;
    }
  });
  return MakeUserFun(absl::StrCat(name, "_", DTypeName(d)), {"x", "y"},
                     absl::StrCat("return x == ", zero, " ? ", zero, " : ", expr, ";"), {d, d}, d,
                     std::move(host));
}

absl::StatusOr<std::vector<ExprPtr>> TranslateGuarded(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(2));
  DFC_ASSIGN_OR_RETURN(DType d, CommonDType(ctx, kHalfFloatDouble, 2));
  const absl::string_view op = ctx.node().op;
  FunPtr f;
  if (op == "Xdivy") {
    f = GuardedFun(d, "xdivy", "x / y", []<typename C>(C x, C y) { return x / y; });
  } else if (op == "Xlogy") {
    f = GuardedFun(d, "xlogy", "x * log(y)", []<typename C>(C x, C y) { return x * std::log(y); });
  } else {
    f = GuardedFun(d, "xlog1py", "x * log1p(y)",
                   []<typename C>(C x, C y) { return x * std::log1p(y); });
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr y, ctx.Input(1));
  DFC_ASSIGN_OR_RETURN(ExprPtr out,
                       BroadcastCall(ctx, {x, y}, [&](std::span<const ExprPtr> s) {
                         return Call(f, {s[0], s[1]});
                       }));
  return std::vector<ExprPtr>{out};
}

// ---- ApproximateEqual ---------------------------------------------------------------------------

// |x - y| < tolerance in T (float16 rounded back to half), or for integers the difference's
// unsigned magnitude against the tolerance truncated, as the reference compares.
FunPtr ApproximateEqualFun(DType d, float tolerance) {
  std::string body;
  UserFun::HostFn host = DispatchDType(d, [&]<typename T>() -> UserFun::HostFn {
    if constexpr (InClass<T>(kFloats)) {
      using C = ComputeType<T>;
      const C tol = ScalarAs<T>(ScalarOf<T>(static_cast<C>(tolerance)));
      const std::string diff =
          d == DType::kHalf ? "dfc_round_half(fabs(x - y))" : "fabs(x - y)";
      body = absl::StrCat("return ", diff, " < ", FloatLiteral(d, tol), ";");
      return [tol](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        const C diff = ScalarAs<T>(ScalarOf<T>(std::abs(ScalarAs<T>(a[0]) - ScalarAs<T>(a[1]))));
        return Scalar::Bool(diff < tol);
      };
    } else if constexpr (InClass<T>(kInts)) {
      // diff < trunc(tol) for a magnitude diff >= 0: never where the bound is at most 0, always
      // where it is past every magnitude, else diff < bound as integers.
      const double bound = std::trunc(static_cast<double>(tolerance));
      const std::string w = WideUnsignedType(d);
      const std::string diff =
          absl::StrCat("(x > y ? (", w, ")x - (", w, ")y : (", w, ")y - (", w, ")x)");
      if (!(bound > 0)) {
        body = "return 0;";
      } else if (bound >= 0x1p64) {
        body = "return 1;";
      } else {
        body = absl::StrCat("return ", diff, " < ", static_cast<uint64_t>(bound), "UL;");
      }
      return [bound](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        const T x = ScalarAs<T>(a[0]);
        const T y = ScalarAs<T>(a[1]);
        const uint64_t diff = x > y ? static_cast<uint64_t>(x) - static_cast<uint64_t>(y)
                                    : static_cast<uint64_t>(y) - static_cast<uint64_t>(x);
        return Scalar::Bool(static_cast<double>(diff) < bound);
      };
    } else {
      DFC_CHECK(false && "the dtype is checked before the UserFun is made");
      return nullptr;
    }
  });
  return MakeUserFun(absl::StrCat("approximate_equal_", DTypeName(d), "_", HashPart(tolerance)),
                     {"x", "y"}, body, {d, d}, DType::kBool, std::move(host));
}

absl::StatusOr<std::vector<ExprPtr>> TranslateApproximateEqual(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(2));
  DFC_ASSIGN_OR_RETURN(DType d, ctx.InputDType(0));
  DFC_ASSIGN_OR_RETURN(DType dy, ctx.InputDType(1));
  DFC_ASSIGN_OR_RETURN(SymbolicShape sx, ctx.InputShape(0));
  DFC_ASSIGN_OR_RETURN(SymbolicShape sy, ctx.InputShape(1));
  if (!IsNumeric(d)) {
    return ctx.Error(absl::StrCat("ApproximateEqual is not defined for dtype ", DTypeName(d)));
  }
  if (d != dy || sx != sy) {
    return ctx.Error(absl::StrCat("x and y must have the same dtype and shape, got ",
                                  DTypeName(d), ShapeToString(sx), " and ", DTypeName(dy),
                                  ShapeToString(sy)));
  }
  DFC_ASSIGN_OR_RETURN(float tolerance, ctx.node().GetFloat("tolerance", 1e-5f));
  const FunPtr f = ApproximateEqualFun(d, tolerance);
  DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr y, ctx.Input(1));
  DFC_ASSIGN_OR_RETURN(ExprPtr out, ZipScalars({x, y}, [&](std::span<const ExprPtr> s) {
                         return Call(f, {s[0], s[1]});
                       }));
  return std::vector<ExprPtr>{out};
}

// ---- ClipByValue --------------------------------------------------------------------------------

// hi where t > hi, then lo where below lo: a NaN t stays NaN, as the reference's comparisons
// leave it.
FunPtr ClipFun(DType d) {
  UserFun::HostFn host = DispatchDType(d, [&]<typename T>() -> UserFun::HostFn {
    if constexpr (InClass<T>(kNumbers)) {
      return [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        auto v = ScalarAs<T>(a[0]);
        const auto lo = ScalarAs<T>(a[1]);
        const auto hi = ScalarAs<T>(a[2]);
        if (hi < v) v = hi;
        if (v < lo) v = lo;
        return ScalarOf<T>(v);
      };
    } else {
      DFC_CHECK(false && "the dtype is checked before the UserFun is made");
      return nullptr;
    }
  });
  return MakeUserFun(absl::StrCat("clip_by_value_", DTypeName(d)), {"t", "lo", "hi"},
                     absl::StrCat(OpenCLType(d), " v = hi < t ? hi : t;\nreturn v < lo ? lo : v;"),
                     {d, d, d}, d, std::move(host));
}

absl::StatusOr<std::vector<ExprPtr>> TranslateClipByValue(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(3));
  DFC_ASSIGN_OR_RETURN(DType d, ctx.InputDType(0));
  if (!IsNumeric(d)) {
    return ctx.Error(absl::StrCat("ClipByValue is not defined for dtype ", DTypeName(d)));
  }
  DFC_ASSIGN_OR_RETURN(SymbolicShape shape, ctx.InputShape(0));
  for (int i = 1; i < 3; ++i) {
    DFC_ASSIGN_OR_RETURN(DType di, ctx.InputDType(i));
    DFC_ASSIGN_OR_RETURN(SymbolicShape si, ctx.InputShape(i));
    if (di != d || (!si.empty() && si != shape)) {
      return ctx.Error(absl::StrCat(i == 1 ? "clip_value_min" : "clip_value_max",
                                    " must be a scalar or have the shape of t ", DTypeName(d),
                                    ShapeToString(shape), ", got ", DTypeName(di),
                                    ShapeToString(si)));
    }
  }
  std::vector<ExprPtr> operands;
  for (int i = 0; i < 3; ++i) {
    DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(i));
    operands.push_back(std::move(x));
  }
  const FunPtr f = ClipFun(d);
  DFC_ASSIGN_OR_RETURN(ExprPtr out,
                       BroadcastCall(ctx, std::move(operands), [&](std::span<const ExprPtr> s) {
                         return Call(f, {s[0], s[1], s[2]});
                       }));
  return std::vector<ExprPtr>{out};
}

// ---- Bucketize ----------------------------------------------------------------------------------

// How many of the sorted boundaries are not above the value (std::upper_bound's index),
// compared in the common type of the value and float: float for the integers and float, double
// for double. A NaN is above none of them, so it counts them all, as upper_bound gives.
FunPtr BucketizeFun(DType d, const std::vector<float>& boundaries) {
  const DType compare = d == DType::kDouble ? DType::kDouble : DType::kFloat;
  std::string body;
  if (boundaries.empty()) {
    body = "return 0;";
  } else {
    std::vector<std::string> literals;
    for (float b : boundaries) literals.push_back(FloatLiteral(compare, b));
    const std::string type = OpenCLType(compare);
    body = absl::StrCat("const ", type, " boundaries[", boundaries.size(), "] = {",
                        absl::StrJoin(literals, ", "), "};\n", type, " v = (", type,
                        ")x;\nint n = 0;\nfor (int i = 0; i < ", boundaries.size(),
                        "; ++i) n += v < boundaries[i] ? 0 : 1;\nreturn n;");
  }
  UserFun::HostFn host = DispatchDType(d, [&]<typename T>() -> UserFun::HostFn {
    if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t> ||
                  std::is_same_v<T, float> || std::is_same_v<T, double>) {
      return [boundaries](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        using C = std::common_type_t<T, float>;
        const C v = static_cast<C>(ScalarAs<T>(a[0]));
        const auto it = std::upper_bound(boundaries.begin(), boundaries.end(), v,
                                         [](C value, float b) { return value < static_cast<C>(b); });
        return Scalar::Int(DType::kInt32, it - boundaries.begin());
      };
    } else {
      DFC_CHECK(false && "the dtype is checked before the UserFun is made");
      return nullptr;
    }
  });
  return MakeUserFun(absl::StrCat("bucketize_", DTypeName(d), "_", HashPart(boundaries)), {"x"},
                     body, {d}, DType::kInt32, std::move(host));
}

absl::StatusOr<std::vector<ExprPtr>> TranslateBucketize(const TranslateContext& ctx) {
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(1));
  constexpr DType kDTypes[] = {DType::kInt32, DType::kInt64, DType::kFloat, DType::kDouble};
  DFC_ASSIGN_OR_RETURN(DType d, CommonDType(ctx, kDTypes, 1));
  DFC_ASSIGN_OR_RETURN(AttrList list, ctx.node().GetList("boundaries"));
  const std::vector<float>& boundaries = list.f;
  if (!std::is_sorted(boundaries.begin(), boundaries.end())) {
    return ctx.Error(
        absl::StrCat("Expected sorted boundaries, got [", absl::StrJoin(boundaries, ", "), "]"));
  }
  const FunPtr f = BucketizeFun(d, boundaries);
  DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr out, MapScalars(x, [&](ExprPtr s) { return Call(f, {s}); }));
  return std::vector<ExprPtr>{out};
}

// ---- FakeQuant ----------------------------------------------------------------------------------

// The num_bits ([2, 16]) and narrow_range attributes.
absl::Status ReadQuantAttrs(const TranslateContext& ctx, int* num_bits, bool* narrow_range) {
  DFC_ASSIGN_OR_RETURN(int64_t bits, ctx.node().GetInt("num_bits", 8));
  if (bits < 2 || bits > 16) {
    return ctx.Error(absl::StrCat("num_bits must be between 2 and 16, inclusive, got ", bits));
  }
  DFC_ASSIGN_OR_RETURN(*narrow_range, ctx.node().GetBool("narrow_range", false));
  *num_bits = static_cast<int>(bits);
  return absl::OkStatus();
}

// x quantised on one grid per channel (the last dimension): FakeQuantize's steps with each
// channel's constants, a range of [0, 0] giving 0. One channel takes no index.
FunPtr FakeQuantFun(const std::vector<QuantGrid>& grids, const std::vector<bool>& zero) {
  const size_t n = grids.size();
  std::vector<std::string> fields[4];
  std::vector<std::string> zeros;
  for (size_t c = 0; c < n; ++c) {
    const QuantGrid& g = grids[c];
    const float values[4] = {g.nudged_min, g.nudged_max, g.scale, g.inv_scale};
    for (int k = 0; k < 4; ++k) fields[k].push_back(FloatLiteral(DType::kFloat, values[k]));
    zeros.push_back(zero[c] ? "1" : "0");
  }
  std::string body;
  const char* names[4] = {"lo", "hi", "scale", "inv_scale"};
  if (n == 1) {
    if (zero[0]) {
      body = "return 0.0f;";
    } else {
      for (int k = 0; k < 4; ++k) absl::StrAppend(&body, "float ", names[k], " = ", fields[k][0], ";\n");
    }
  } else {
    absl::StrAppend(&body, "const uchar zero[", n, "] = {", absl::StrJoin(zeros, ", "),
                    "};\nif (zero[c]) return 0.0f;\n");
    for (int k = 0; k < 4; ++k) {
      absl::StrAppend(&body, "const float ", names[k], "s[", n, "] = {",
                      absl::StrJoin(fields[k], ", "), "};\nfloat ", names[k], " = ", names[k],
                      "s[c];\n");
    }
  }
  if (!(n == 1 && zero[0])) {
    absl::StrAppend(&body,
                    "float v = hi < x ? hi : x;\n"
                    "v = v < lo ? lo : v;\n"
                    "return floor((v - lo) * inv_scale + 0.5f) * scale + lo;");
  }
  std::vector<std::string> params = {"x"};
  std::vector<DType> types = {DType::kFloat};
  if (n > 1) {
    params.push_back("c");
    types.push_back(DType::kInt32);
  }
  std::vector<float> key;
  for (size_t c = 0; c < n; ++c) {
    key.insert(key.end(), {grids[c].nudged_min, grids[c].nudged_max, grids[c].scale,
                           grids[c].inv_scale, zero[c] ? 1.0f : 0.0f});
  }
  return MakeUserFun(absl::StrCat("fake_quant_", n, "_", HashPart(key)), std::move(params), body,
                     std::move(types), DType::kFloat,
                     [grids, zero](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       const size_t c = a.size() > 1 ? static_cast<size_t>(a[1].i) : 0;
                       const float x = ScalarAs<float>(a[0]);
                       return Scalar::Float(DType::kFloat,
                                            zero[c] ? 0.0f : FakeQuantize(x, grids[c]));
                     });
}

// FakeQuantWithMinMaxArgs (the range in attributes), FakeQuantWithMinMaxVars (scalar inputs,
// read at compile time) and FakeQuantWithMinMaxVarsPerChannel (vectors over the last
// dimension, read at compile time): the reference's checks, then one grid per channel.
absl::StatusOr<std::vector<ExprPtr>> TranslateFakeQuant(const TranslateContext& ctx) {
  const absl::string_view op = ctx.node().op;
  const bool args = op == "FakeQuantWithMinMaxArgs";
  const bool per_channel = op == "FakeQuantWithMinMaxVarsPerChannel";
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(args ? 1 : 3));
  DFC_ASSIGN_OR_RETURN(DType d, ctx.InputDType(0));
  if (d != DType::kFloat) {
    return ctx.Error(absl::StrCat("input 0 has dtype ", DTypeName(d), ", expected float32"));
  }
  int num_bits = 8;
  bool narrow_range = false;
  DFC_RETURN_IF_ERROR(ReadQuantAttrs(ctx, &num_bits, &narrow_range));
  DFC_ASSIGN_OR_RETURN(ExprPtr x, ctx.Input(0));
  const SymbolicShape shape = ShapeOfExpr(x);
  std::vector<float> mins;
  std::vector<float> maxs;
  if (args) {
    DFC_ASSIGN_OR_RETURN(float min, ctx.node().GetFloat("min", -6.0f));
    DFC_ASSIGN_OR_RETURN(float max, ctx.node().GetFloat("max", 6.0f));
    if (!(min < max)) {
      return ctx.Error(
          absl::StrCat("min has to be smaller than max, was: min = ", min, ", max = ", max));
    }
    mins = {min};
    maxs = {max};
  } else {
    if (per_channel && shape.empty()) {
      return ctx.Error(absl::StrCat("inputs must have rank >= 1, got a scalar"));
    }
    std::optional<int64_t> channels = 1;
    if (per_channel) channels = shape.back().AsConstant();
    if (!channels) {
      return ctx.Error(absl::StrCat("the channel dimension ", shape.back().ToString(),
                                    " must be known when the node is compiled"));
    }
    for (int i = 1; i < 3; ++i) {
      const Tensor* bound = ctx.StaticTensor(i);
      DFC_CHECK(bound != nullptr && "min and max are static inputs");
      const bool ok = bound->dtype() == DType::kFloat &&
                      (per_channel ? bound->shape() == Shape{*channels} : bound->rank() == 0);
      if (!ok) {
        return ctx.Error(absl::StrCat(
            i == 1 ? "min" : "max", " must be ",
            per_channel ? absl::StrCat("a float32 vector of ", *channels) : "a float32 scalar",
            ", got ", bound->DebugType()));
      }
      std::vector<float>& into = i == 1 ? mins : maxs;
      into.assign(bound->data<float>(), bound->data<float>() + *channels);
    }
    for (size_t c = 0; c < mins.size(); ++c) {
      if (!(mins[c] < maxs[c]) && !(mins[c] == 0 && maxs[c] == 0)) {
        return ctx.Error(absl::StrCat("min must be < max (or both 0), got min = ", mins[c],
                                      ", max = ", maxs[c], " (channel ", c, ")"));
      }
    }
  }
  std::vector<QuantGrid> grids;
  std::vector<bool> zero;
  for (size_t c = 0; c < mins.size(); ++c) {
    zero.push_back(!args && mins[c] == 0 && maxs[c] == 0);
    grids.push_back(zero.back() ? QuantGrid{} : Nudge(mins[c], maxs[c], num_bits, narrow_range));
  }
  const FunPtr f = FakeQuantFun(grids, zero);
  absl::StatusOr<ExprPtr> out;
  if (!per_channel || mins.size() == 1) {
    out = MapScalars(x, [&](ExprPtr s) { return Call(f, {s}); });
  } else {
    // Each row of the last dimension zipped with its channel numbers.
    out = MapAtDepth(x, static_cast<int>(shape.size()) - 1,
                     [&](ExprPtr row) -> absl::StatusOr<ExprPtr> {
                       DFC_ASSIGN_OR_RETURN(ExprPtr channel,
                                            Call(Iota(shape.back(), DType::kInt32), {}));
                       DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {row, channel}));
                       return MapOver(
                           pairs,
                           [&](ExprPtr pair) -> absl::StatusOr<ExprPtr> {
                             DFC_ASSIGN_OR_RETURN(ExprPtr v, Call(Get(0), {pair}));
                             DFC_ASSIGN_OR_RETURN(ExprPtr c, Call(Get(1), {pair}));
                             return Call(f, {v, c});
                           },
                           "element");
                     });
  }
  if (!out.ok()) return ctx.node().Annotate(out.status());
  return std::vector<ExprPtr>{*std::move(out)};
}
}  // namespace

void RegisterGuardedMathTranslations(TranslationTable& table) {
  for (const char* op : {"Xdivy", "Xlogy", "Xlog1py"}) {
    table.push_back({op, {TranslateGuarded, {}, UnifyBroadcast}});
  }
  table.push_back({"ApproximateEqual", {TranslateApproximateEqual, {}, UnifyBroadcast}});
  table.push_back({"ClipByValue", {TranslateClipByValue, {}}});
  table.push_back({"Bucketize", {TranslateBucketize, {}}});
  table.push_back({"FakeQuantWithMinMaxArgs", {TranslateFakeQuant, {}}});
  table.push_back({"FakeQuantWithMinMaxVars", {TranslateFakeQuant, {1, 2}}});
  table.push_back({"FakeQuantWithMinMaxVarsPerChannel", {TranslateFakeQuant, {1, 2}}});
}

}  // namespace dfc::ir::elementwise
