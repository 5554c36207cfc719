// Translations of the gathers and generators (runtime/reference/layout_gather.cc): GatherV2 and
// Gather (At with a runtime index, mapped over the indices), OneHot (a Map over the indices of
// a Map over Iota(depth)), Fill (nested Repeats of the value) and Range (a Map over Iota).
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/op_semantics/range.h"
#include "ir/from_tf/layout_internal.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir::layout {

// out[o..., n..., :] = params[o..., indices[n...], :]: at the axis' depth of params, a Map over
// the indices' scalars of At $ (row, index). At refuses an index outside [0, limit), as the
// reference does.
absl::StatusOr<ExprPtr> GatherAt(const ExprPtr& params, const ExprPtr& indices, int axis) {
  return MapAtDepth(params, axis, [&](ExprPtr rows) {
    return MapScalars(indices, [&](ExprPtr index) { return Call(At(), {rows, index}); });
  });
}

namespace {

// --- GatherV2, Gather -------------------------------------------------------------------------

// With batch dimensions, params and indices are zipped down through them first.
absl::StatusOr<ExprPtr> GatherBatched(const ExprPtr& params, const ExprPtr& indices, int batch_dims,
                                      int axis) {
  if (batch_dims == 0) return GatherAt(params, indices, axis);
  DFC_ASSIGN_OR_RETURN(ExprPtr zipped, Call(Zip(2), {params, indices}));
  return MapOver(
      zipped,
      [&](ExprPtr pair) -> absl::StatusOr<ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ExprPtr p, Call1(Get(0), pair));
        DFC_ASSIGN_OR_RETURN(ExprPtr i, Call1(Get(1), pair));
        return GatherBatched(p, i, batch_dims - 1, axis - 1);
      },
      "b");
}

Outputs GatherImpl(const TranslateContext& ctx, int64_t axis_value, int64_t batch_dims_value) {
  DFC_ASSIGN_OR_RETURN(ExprPtr params, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr indices, ctx.Input(1));
  const DType index_dtype = BaseDType(indices->type);
  if (index_dtype != DType::kInt32 && index_dtype != DType::kInt64) {
    return ctx.Error(absl::StrCat("input 1 has dtype ", DTypeName(index_dtype),
                                  ", expected one of int32, int64"));
  }
  const int rank = Rank(params);
  const int index_rank = Rank(indices);
  if (rank == 0) return ctx.Error("params must have rank 1 or more, got a scalar");
  DFC_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, axis_value, rank));
  int64_t batch_dims = batch_dims_value;
  if (batch_dims < -index_rank || batch_dims > index_rank) {
    return ctx.Error(absl::StrCat("batch_dims ", batch_dims, " is out of range for indices ",
                                  DebugType(indices)));
  }
  if (batch_dims < 0) batch_dims += index_rank;
  if (batch_dims != 0 && (batch_dims >= rank || batch_dims > axis)) {
    return ctx.Error(absl::StrCat("batch_dims ", batch_dims, " must be less than the rank of ",
                                  DebugType(params), " and at most axis ", axis));
  }
  const SymbolicShape params_shape = ShapeOfExpr(params);
  const SymbolicShape index_shape = ShapeOfExpr(indices);
  const int nb = static_cast<int>(batch_dims);
  for (int d = 0; d < nb; ++d) {
    if (params_shape[d] != index_shape[d]) {
      return ctx.Error(absl::StrCat("batch dimension ", d, " differs between params ",
                                    DebugType(params), " and indices ", DebugType(indices)));
    }
  }
  // Every index is out of range of an empty dimension; the reference refuses any index even
  // where the output is empty, so this is decided here rather than left to At.
  const std::optional<int64_t> count = NumElements(index_shape).AsConstant();
  if (params_shape[axis] == ArithExpr(0) && count && *count > 0) {
    return ctx.Error(absl::StrCat("indices of ", DebugType(indices),
                                  " are out of range [0, 0) of dimension ", axis, " of params ",
                                  DebugType(params)));
  }
  // Each of params and indices is read inside the Maps over the other: bound once.
  const auto with_params = [&](ExprPtr p) {
    const auto with_indices = [&](ExprPtr i) { return GatherBatched(p, i, nb, axis); };
    return Bind(indices, with_indices, "indices");
  };
  return One(ctx, Bind(params, with_params, "params"));
}

Outputs TranslateGatherV2(const TranslateContext& ctx) {
  if (ctx.num_inputs() != 3) {
    return ctx.Error(absl::StrCat("expects 3 inputs, got ", ctx.num_inputs()));
  }
  DFC_ASSIGN_OR_RETURN(int64_t axis, ConstantIndexScalar(ctx, 2, "axis"));
  DFC_ASSIGN_OR_RETURN(int64_t batch_dims, ctx.node().GetInt("batch_dims", 0));
  return GatherImpl(ctx, axis, batch_dims);
}

Outputs TranslateGather(const TranslateContext& ctx) {
  if (ctx.num_inputs() != 2) {
    return ctx.Error(absl::StrCat("expects 2 inputs, got ", ctx.num_inputs()));
  }
  return GatherImpl(ctx, 0, 0);
}

// --- OneHot -----------------------------------------------------------------------------------

// index == position ? on : off. Positions are int64 so that a uint8 index can be compared with
// any depth; an index outside [0, depth) equals no position, so its row is all off_value.
FunPtr OneHotFun(DType index, DType value) {
  UserFun::HostFn host = [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
    return a[0].AsInt64() == a[1].AsInt64() ? a[2] : a[3];
  };
  return MakeUserFun(absl::StrCat("one_hot_", DTypeName(index), "_", DTypeName(value)),
                     {"index", "position", "on", "off"}, "return index == position ? on : off;",
                     {index, DType::kInt64, value, value}, value, std::move(host));
}

absl::StatusOr<ExprPtr> OneHotOf(const ExprPtr& indices, const ArithExpr& depth, int axis,
                                 const FunPtr& select, const ExprPtr& on, const ExprPtr& off) {
  return MapAtDepth(indices, axis, [&](ExprPtr block) -> absl::StatusOr<ExprPtr> {
    DFC_ASSIGN_OR_RETURN(ExprPtr positions, Call(Iota(depth, DType::kInt64), {}));
    const auto row = [&](ExprPtr position) {
      return MapScalars(block, [&](ExprPtr index) {
        return Call(select, {index, position, on, off});
      });
    };
    return MapOver(positions, row, "d");
  });
}

// The depth dimension goes in at `axis` (-1: last): out[o..., d, i...] = indices[o..., i...] == d
// ? on : off, a Map over the indices down to the axis, over Iota(depth), over the rest.
Outputs TranslateOneHot(const TranslateContext& ctx) {
  if (ctx.num_inputs() != 4) {
    return ctx.Error(absl::StrCat("expects 4 inputs, got ", ctx.num_inputs()));
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr indices, ctx.Input(0));
  const DType index_dtype = BaseDType(indices->type);
  if (index_dtype != DType::kUInt8 && index_dtype != DType::kInt8 && index_dtype != DType::kInt32 &&
      index_dtype != DType::kInt64) {
    return ctx.Error(absl::StrCat("input 0 has dtype ", DTypeName(index_dtype),
                                  ", expected one of uint8, int8, int32, int64"));
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr on, ctx.Input(2));
  DFC_ASSIGN_OR_RETURN(ExprPtr off, ctx.Input(3));
  DFC_ASSIGN_OR_RETURN(std::vector<ArithExpr> depth_values, IndexVector(ctx, 1, "depth"));
  if (depth_values.size() != 1) {
    return ctx.Error(absl::StrCat("depth must have one element, got ", depth_values.size()));
  }
  const ArithExpr depth = depth_values[0];
  if (std::optional<int64_t> c = depth.AsConstant(); c && *c < 0) {
    return ctx.Error(absl::StrCat("depth must be non-negative, got ", *c));
  }
  const DType value_dtype = BaseDType(on->type);
  if (Rank(on) != 0 || Rank(off) != 0 || BaseDType(off->type) != value_dtype) {
    return ctx.Error(absl::StrCat("on_value and off_value must be scalars of one dtype, got ",
                                  DebugType(on), " and ", DebugType(off)));
  }
  DFC_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.node().GetInt("axis", -1));
  const int rank = Rank(indices);
  if (axis_attr < -1 || axis_attr > rank) {
    return ctx.Error(absl::StrCat("axis ", axis_attr, " is out of range for indices ",
                                  DebugType(indices), " (expected -1 to ", rank, ")"));
  }
  const int axis = static_cast<int>(axis_attr == -1 ? rank : axis_attr);
  const FunPtr select = OneHotFun(index_dtype, value_dtype);
  // on and off are read inside the Maps: bound once.
  const auto with_on = [&](ExprPtr on_value) {
    const auto with_off = [&](ExprPtr off_value) {
      return OneHotOf(indices, depth, axis, select, on_value, off_value);
    };
    return Bind(off, with_off, "off");
  };
  return One(ctx, Bind(on, with_on, "on"));
}

// --- Fill, Range ------------------------------------------------------------------------------

Outputs TranslateFill(const TranslateContext& ctx) {
  if (ctx.num_inputs() != 2) {
    return ctx.Error(absl::StrCat("expects 2 inputs, got ", ctx.num_inputs()));
  }
  DFC_ASSIGN_OR_RETURN(std::vector<ArithExpr> dims, IndexVector(ctx, 0, "dims", true));
  DFC_ASSIGN_OR_RETURN(ExprPtr value, ctx.Input(1));
  if (Rank(value) != 0) {
    return ctx.Error(absl::StrCat("value must be a scalar, got ", DebugType(value)));
  }
  for (const ArithExpr& d : dims) {
    if (std::optional<int64_t> c = d.AsConstant(); c && *c < 0) {
      return ctx.Error(absl::StrCat("dims ", ShapeString(dims), " has a negative size"));
    }
  }
  return One(ctx, Filled(value, dims));
}

// start + i * delta with int64 wrap-around, as the reference computes it in uint64.
template <typename T>
FunPtr IntegerRangeFun() {
  constexpr DType dtype = DTypeOf<T>;
  UserFun::HostFn host = [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
    const uint64_t value =
        static_cast<uint64_t>(a[1].AsInt64()) +
        static_cast<uint64_t>(a[0].AsInt64()) * static_cast<uint64_t>(a[2].AsInt64());
    return Scalar::Int(dtype, static_cast<int64_t>(value));
  };
  return MakeUserFun(absl::StrCat("range_", DTypeName(dtype)), {"i", "start", "delta"},
                     absl::StrCat("return (", OpenCLType(dtype),
                                  ")((ulong)(long)start + (ulong)i * (ulong)(long)delta);"),
                     {DType::kInt64, dtype, dtype}, dtype, std::move(host));
}

// TensorFlow's CPU kernel accumulates floating ranges (value += delta), and the reference
// with it, so element i carries i roundings. When one fused multiply-add, start + i * delta
// rounded once, gives every element the same value the accumulation does (ranges of exactly
// representable steps, the usual case), that is the kernel. Otherwise the kernel repeats the
// accumulation itself, which costs i additions for element i but keeps TensorFlow's values.
template <typename T>
FunPtr FloatRangeFun(bool fma) {
  constexpr DType dtype = DTypeOf<T>;
  const std::string type = OpenCLType(dtype);
  UserFun::HostFn host = [fma](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
    const int64_t i = a[0].AsInt64();
    const T start = static_cast<T>(a[1].f);
    const T delta = static_cast<T>(a[2].f);
    if (fma) return Scalar::Float(dtype, std::fma(static_cast<T>(i), delta, start));
    T value = start;
    for (int64_t k = 0; k < i; ++k) value += delta;
    return Scalar::Float(dtype, value);
  };
  if (fma) {
    return MakeUserFun(absl::StrCat("range_fma_", DTypeName(dtype)), {"i", "start", "delta"},
                       absl::StrCat("return fma((", type, ")i, delta, start);"),
                       {DType::kInt64, dtype, dtype}, dtype, std::move(host));
  }
  return MakeUserFun(absl::StrCat("range_sum_", DTypeName(dtype)), {"i", "start", "delta"},
                     absl::StrCat(type, " value = start;\nfor (long k = 0; k < i; ++k) ",
                                  "value += delta;\nreturn value;"),
                     {DType::kInt64, dtype, dtype}, dtype, std::move(host));
}

template <typename T>
bool FmaMatchesAccumulation(T start, T delta, int64_t n) {
  T value = start;
  for (int64_t i = 0; i < n; ++i) {
    const T closed = std::fma(static_cast<T>(i), delta, start);
    if (!(closed == value || (std::isnan(closed) && std::isnan(value)))) return false;
    value += delta;
  }
  return true;
}

template <typename T>
Outputs TranslateRangeOf(const TranslateContext& ctx, const Tensor& start_t, const Tensor& limit_t,
                         const Tensor& delta_t) {
  constexpr DType dtype = DTypeOf<T>;
  const T start = start_t.data<T>()[0];
  const T limit = limit_t.data<T>()[0];
  const T delta = delta_t.data<T>()[0];
  const absl::StatusOr<int64_t> size = RangeSize(start, limit, delta);
  if (!size.ok()) return ctx.node().Annotate(size.status());
  const int64_t n = *size;
  FunPtr f;
  if constexpr (std::is_integral_v<T>) {
    f = IntegerRangeFun<T>();
  } else {
    f = FloatRangeFun<T>(FmaMatchesAccumulation(start, delta, n));
  }
  ExprPtr start_lit, delta_lit;
  if constexpr (std::is_integral_v<T>) {  // as integers: int64 values beyond 2^53 stay exact
    start_lit = MakeLiteral(Scalar::Int(dtype, start));
    delta_lit = MakeLiteral(Scalar::Int(dtype, delta));
  } else {
    start_lit = Lit(dtype, start);
    delta_lit = Lit(dtype, delta);
  }
  absl::StatusOr<ExprPtr> indices = Call(Iota(n, DType::kInt64), {});
  if (!indices.ok()) return ctx.node().Annotate(indices.status());
  const auto element = [&](ExprPtr i) { return Call(f, {i, start_lit, delta_lit}); };
  return One(ctx, MapOver(*indices, element, "i"));
}

// start, limit and delta are static, so the length is known when the graph is compiled.
Outputs TranslateRange(const TranslateContext& ctx) {
  if (ctx.num_inputs() != 3) {
    return ctx.Error(absl::StrCat("expects 3 inputs, got ", ctx.num_inputs()));
  }
  const char* names[3] = {"start", "limit", "delta"};
  const Tensor* values[3];
  for (int i = 0; i < 3; ++i) {
    values[i] = ctx.StaticTensor(i);
    if (values[i] == nullptr) {
      return ctx.Error(absl::StrCat(names[i], " must be known when the graph is compiled: ",
                                    "the length of Range's output must be"));
    }
  }
  DType dtype = values[0]->dtype();
  if (ctx.node().HasAttr("Tidx")) {
    DFC_ASSIGN_OR_RETURN(dtype, ctx.node().GetType("Tidx"));
  }
  if (dtype != DType::kInt32 && dtype != DType::kInt64 && dtype != DType::kFloat &&
      dtype != DType::kDouble) {
    return ctx.Error(absl::StrCat("Range is defined for int32, int64, float32 and float64, got ",
                                  DTypeName(dtype)));
  }
  for (int i = 0; i < 3; ++i) {
    const Tensor& t = *values[i];
    if (t.dtype() != dtype || t.num_elements() != 1 || t.rank() > 1) {
      return ctx.Error(
          absl::StrCat(names[i], " must be a ", DTypeName(dtype), " scalar, got ", t.DebugType()));
    }
  }
  switch (dtype) {
    case DType::kInt32:
      return TranslateRangeOf<int32_t>(ctx, *values[0], *values[1], *values[2]);
    case DType::kInt64:
      return TranslateRangeOf<int64_t>(ctx, *values[0], *values[1], *values[2]);
    case DType::kFloat:
      return TranslateRangeOf<float>(ctx, *values[0], *values[1], *values[2]);
    default:
      return TranslateRangeOf<double>(ctx, *values[0], *values[1], *values[2]);
  }
}

}  // namespace

FunPtr IndexRangeFun(DType dtype) {
  return dtype == DType::kInt32 ? IntegerRangeFun<int32_t>() : IntegerRangeFun<int64_t>();
}

void RegisterGatherTranslations(TranslationTable& table) {
  table.push_back({"GatherV2", Translation{&TranslateGatherV2, {2}}});
  table.push_back({"Gather", Translation{&TranslateGather, {}}});
  table.push_back({"OneHot", Translation{&TranslateOneHot, {1}}});
  table.push_back({"Fill", Translation{&TranslateFill, {0}}});
  table.push_back({"Range", Translation{&TranslateRange, {0, 1, 2}}});
}

}  // namespace dfc::ir::layout
