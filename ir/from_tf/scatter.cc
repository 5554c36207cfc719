// Translations of the scatters by index whose result is a value: the unsorted segment
// reductions (UnsortedSegmentSum, -Prod, -Max, -Min; runtime/reference/segment.cc) and the ND
// scatters into a copy (ScatterNd, ScatterNdNonAliasingAdd, TensorScatterUpdate, -Add, -Sub,
// -Max, -Min; runtime/reference/scatter.cc). Each is a masked fold: output element p, e folds
// the column updates[:, e] in update order, starting from what the output holds before (the
// base tensor's element, 0, or the reduction's start) and taking update i only where its
// segment id or index tuple addresses p. That is the reference's order exactly (updates applied
// one after another, rounded after each step, the last Update winning), with no atomics, at the
// cost of reading every index once per output element: O(outputs x updates) work, where a
// scatter with atomics would do O(updates).
//
// An id or a coordinate out of range is refused, as by the reference: each is read through
// At $ (Iota(limit), index), which refuses an index outside [0, limit) at run time. Negative
// segment ids are dropped before that read.
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "graph/dtype_class.h"
#include "graph/half.h"
#include "graph/scalar_math.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/size_unifier.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir {
namespace {

enum class Reduction { kSum, kProd, kMax, kMin };

struct SegmentOp {
  absl::string_view op;
  Reduction reduction;
};

constexpr SegmentOp kSegmentOps[] = {{"UnsortedSegmentSum", Reduction::kSum},
                                     {"UnsortedSegmentProd", Reduction::kProd},
                                     {"UnsortedSegmentMax", Reduction::kMax},
                                     {"UnsortedSegmentMin", Reduction::kMin}};

Reduction FindReduction(absl::string_view op) {
  for (const SegmentOp& s : kSegmentOps) {
    if (s.op == op) return s.reduction;
  }
  DFC_CHECK(false && "only the ops of kSegmentOps are registered to TranslateUnsortedSegment");
  return Reduction::kSum;
}

// The accumulator an empty segment holds: 0, 1, the dtype's lowest finite value for Max and
// its highest for Min (Eigen's reducers' initialize()).
Scalar Initial(Reduction r, DType d) {
  return DispatchDType(d, [&]<typename T>() -> Scalar {
    if constexpr (std::is_same_v<T, bool>) {
      DFC_CHECK(false && "bool is refused before the fold is built");
      return Scalar::Bool(false);
    } else {
      using C = ComputeType<T>;
      C v = 0;
      if (r == Reduction::kProd) v = 1;
      if constexpr (std::is_same_v<T, Half>) {
        if (r == Reduction::kMax) v = -65504.0f;
        if (r == Reduction::kMin) v = 65504.0f;
      } else {
        if (r == Reduction::kMax) v = std::numeric_limits<T>::lowest();
        if (r == Reduction::kMin) v = std::numeric_limits<T>::max();
      }
      return ScalarOf<T>(v);
    }
  });
}

// The reduction's step, in d's own arithmetic as the reference's Step: integers wrap, half
// rounds after each step; Max and Min keep x unless acc strictly beats it.
std::string StepText(Reduction r, DType d) {
  switch (r) {
    case Reduction::kSum:
      return WrappingArithText(d, "acc", "+", "x");
    case Reduction::kProd:
      return WrappingArithText(d, "acc", "*", "x");
    case Reduction::kMax:
      return "x < acc ? acc : x";
    case Reduction::kMin:
      return "acc < x ? acc : x";
  }
  return "acc";
}

// (acc, x, id, checked, s) -> acc (r) x where id >= 0 and checked == s (checked is the id read
// through At, so equal to it), else acc.
FunPtr MaskedStepFun(Reduction r, DType d, DType id) {
  UserFun::HostFn host = DispatchDType(d, [&]<typename T>() -> UserFun::HostFn {
    if constexpr (std::is_same_v<T, bool>) {
      DFC_CHECK(false && "bool is refused before the fold is built");
      return nullptr;
    } else {
      return [r](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        using C = ComputeType<T>;
        const C acc = ScalarAs<T>(a[0]);
        const C x = ScalarAs<T>(a[1]);
        if (a[2].AsInt64() < 0 || a[3].AsInt64() != a[4].AsInt64()) return a[0];
        switch (r) {
          case Reduction::kSum:
            return ScalarOf<T>(WrapAdd(acc, x));
          case Reduction::kProd:
            return ScalarOf<T>(WrapMul(acc, x));
          case Reduction::kMax:
            return x < acc ? a[0] : a[1];
          case Reduction::kMin:
            return acc < x ? a[0] : a[1];
        }
        return a[0];
      };
    }
  });
  static constexpr const char* kNames[] = {"sum", "prod", "max", "min"};
  return MakeUserFun(absl::StrCat("segment_", kNames[static_cast<int>(r)], "_step_", DTypeName(d),
                                  "_", DTypeName(id)),
                     {"acc", "x", "id", "checked", "s"},
                     absl::StrCat("return id >= 0 && checked == s ? ", StepText(r, d), " : acc;"),
                     {d, d, id, DType::kInt64, DType::kInt64}, d, std::move(host));
}

// A negative id as 0, so that At checks only the upper bound (negative ids are dropped).
FunPtr ClampNegativeFun(DType id) {
  return MakeUserFun(absl::StrCat("clamp_negative_", DTypeName(id)), {"id"},
                     "return id < 0 ? 0 : (long)id;", {id}, DType::kInt64,
                     [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       return Scalar::Int(DType::kInt64, std::max<int64_t>(a[0].AsInt64(), 0));
                     });
}

// [rows, row...] as [row..., rows] (a view): each element of a row becomes a column over the
// rows, which the masked fold reads in order.
absl::StatusOr<ExprPtr> RowsInnermost(const ExprPtr& rows, int row_rank) {
  std::vector<int> perm(row_rank + 1);
  std::iota(perm.begin(), perm.end() - 1, 1);
  perm.back() = 0;
  return TransposeTensor(rows, perm);
}

absl::StatusOr<std::vector<ExprPtr>> TranslateUnsortedSegment(const TranslateContext& ctx) {
  const Reduction r = FindReduction(ctx.node().op);
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(3));
  DFC_ASSIGN_OR_RETURN(ExprPtr data, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(ExprPtr ids, ctx.Input(1));
  const DType d = BaseDType(data->type);
  const DType id_type = BaseDType(ids->type);
  if (!IsSupported(d) || d == DType::kBool) {
    return ctx.Error(absl::StrCat("input 0 has unsupported dtype ", DTypeName(d)));
  }
  if (id_type != DType::kInt32 && id_type != DType::kInt64) {
    return ctx.Error(absl::StrCat("segment_ids has dtype ", DTypeName(id_type),
                                  ", expected one of int32, int64"));
  }
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> count, ctx.StaticInts(2));
  const Tensor* count_tensor = ctx.StaticTensor(2);
  if (count_tensor != nullptr && count_tensor->rank() != 0) {
    return ctx.Error(
        absl::StrCat("num_segments must be a scalar, got ", count_tensor->DebugType()));
  }
  if (count.size() != 1 || count[0] < 0) {
    return ctx.Error(absl::StrCat("num_segments must be a non-negative scalar"));
  }
  const int64_t segments = count[0];
  const SymbolicShape data_shape = ShapeOfExpr(data);
  const SymbolicShape id_shape = ShapeOfExpr(ids);
  const int id_rank = static_cast<int>(id_shape.size());
  // With no segments there is no output element whose fold would read (and so check) the ids,
  // yet the reference refuses any id >= 0 of non-empty data: the host runs such a node.
  if (segments == 0 && NumElements(data_shape).AsConstant() != std::optional<int64_t>(0)) {
    return ctx.Error(
        "num_segments is 0: the ids are checked on the host, where the reference reads them");
  }
  if (id_shape.size() > data_shape.size() ||
      !std::equal(id_shape.begin(), id_shape.end(), data_shape.begin())) {
    return ctx.Error(absl::StrCat("data ", DTypeName(d), ShapeToString(data_shape),
                                  " does not start with segment_ids' shape ",
                                  ShapeToString(id_shape)));
  }
  const int row_rank = static_cast<int>(data_shape.size()) - id_rank;
  const FunPtr step = MaskedStepFun(r, d, id_type);
  const FunPtr clamp = ClampNegativeFun(id_type);
  const ExprPtr init = MakeLiteral(Initial(r, d));
  absl::StatusOr<ExprPtr> out = [&]() -> absl::StatusOr<ExprPtr> {
    // data as [rows, row...] with the rows innermost: [row..., rows]; the ids as [rows].
    ExprPtr rows = data;
    ExprPtr flat_ids = ids;
    if (id_rank == 0) {
      DFC_ASSIGN_OR_RETURN(rows, Call(Repeat(ArithExpr(1)), {data}));
      DFC_ASSIGN_OR_RETURN(flat_ids, Call(Repeat(ArithExpr(1)), {ids}));
    } else if (id_rank > 1) {
      DFC_ASSIGN_OR_RETURN(rows, JoinLeading(data, id_rank));
      DFC_ASSIGN_OR_RETURN(flat_ids, Flatten(ids));
    }
    DFC_ASSIGN_OR_RETURN(ExprPtr columns, RowsInnermost(rows, row_rank));
    DFC_ASSIGN_OR_RETURN(ExprPtr segment_numbers,
                         Call(Iota(ArithExpr(segments), DType::kInt64), {}));
    return MapOver(
        segment_numbers,
        [&](ExprPtr s) {
          return MapAtDepth(columns, row_rank, [&](ExprPtr column) -> absl::StatusOr<ExprPtr> {
            DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {column, flat_ids}));
            return ReduceOver(
                init, pairs, [&](ExprPtr acc, ExprPtr pair) -> absl::StatusOr<ExprPtr> {
                  DFC_ASSIGN_OR_RETURN(ExprPtr x, Call(Get(0), {pair}));
                  DFC_ASSIGN_OR_RETURN(ExprPtr id, Call(Get(1), {pair}));
                  DFC_ASSIGN_OR_RETURN(ExprPtr clamped, Call(clamp, {id}));
                  DFC_ASSIGN_OR_RETURN(ExprPtr all,
                                       Call(Iota(ArithExpr(segments), DType::kInt64), {}));
                  DFC_ASSIGN_OR_RETURN(ExprPtr checked, Call(At(), {all, clamped}));
                  return Call(step, {acc, x, id, checked, s});
                });
          });
        },
        "segment");
  }();
  if (!out.ok()) return ctx.node().Annotate(out.status());
  return std::vector<ExprPtr>{*std::move(out)};
}

// ---- the ND scatters of values ------------------------------------------------------------------

enum class Combine { kAssign, kAdd, kSub, kMax, kMin };

struct NdScatterOp {
  absl::string_view op;
  Combine combine;
  bool has_base;         // input 0 is the tensor scattered into; else zeros of a static shape
  bool bool_arithmetic;  // Add and Sub on bool (TensorFlow registers them for these ops)
};

constexpr NdScatterOp kNdScatterOps[] = {
    {"ScatterNd", Combine::kAdd, false, true},
    {"ScatterNdNonAliasingAdd", Combine::kAdd, true, true},
    {"TensorScatterUpdate", Combine::kAssign, true, false},
    {"TensorScatterAdd", Combine::kAdd, true, false},
    {"TensorScatterSub", Combine::kSub, true, false},
    {"TensorScatterMax", Combine::kMax, true, false},
    {"TensorScatterMin", Combine::kMin, true, false},
};

const NdScatterOp& FindNdScatter(absl::string_view op) {
  for (const NdScatterOp& s : kNdScatterOps) {
    if (s.op == op) return s;
  }
  DFC_CHECK(false && "only the ops of kNdScatterOps are registered to TranslateNdScatter");
  return kNdScatterOps[0];
}

// acc combined with x as the reference's CombineInto: integers wrap, bool adds as || and
// subtracts as !=, Max and Min take x only where it strictly beats acc (so a NaN update leaves
// the element).
std::string CombineText(Combine c, DType d) {
  switch (c) {
    case Combine::kAssign:
      return "x";
    case Combine::kAdd:
      return d == DType::kBool ? "acc || x" : WrappingArithText(d, "acc", "+", "x");
    case Combine::kSub:
      return d == DType::kBool ? "acc != x" : WrappingArithText(d, "acc", "-", "x");
    case Combine::kMax:
      return "acc < x ? x : acc";
    case Combine::kMin:
      return "x < acc ? x : acc";
  }
  return "acc";
}

Scalar CombineHost(Combine c, DType d, const Scalar& acc, const Scalar& x) {
  return DispatchDType(d, [&]<typename T>() -> Scalar {
    if constexpr (std::is_same_v<T, bool>) {
      if (c == Combine::kAdd) return Scalar::Bool(acc.AsBool() || x.AsBool());
      if (c == Combine::kSub) return Scalar::Bool(acc.AsBool() != x.AsBool());
      return x;  // assignment: the only other combination bool takes
    } else {
      const ComputeType<T> a = ScalarAs<T>(acc);
      const ComputeType<T> b = ScalarAs<T>(x);
      switch (c) {
        case Combine::kAssign:
          return x;
        case Combine::kAdd:
          return ScalarOf<T>(WrapAdd(a, b));
        case Combine::kSub:
          return ScalarOf<T>(WrapSub(a, b));
        case Combine::kMax:
          return a < b ? x : acc;
        case Combine::kMin:
          return b < a ? x : acc;
      }
      return acc;
    }
  });
}

// (acc, x, c0, p0, ..., c(K-1), p(K-1)) -> acc combined with x where every checked coordinate
// ck of the update's tuple equals the output's position pk, else acc.
FunPtr NdStepFun(Combine c, DType d, int depth) {
  std::vector<std::string> params = {"acc", "x"};
  std::vector<DType> types = {d, d};
  std::vector<std::string> equal;
  for (int k = 0; k < depth; ++k) {
    params.push_back(absl::StrCat("c", k));
    params.push_back(absl::StrCat("p", k));
    types.insert(types.end(), {DType::kInt64, DType::kInt64});
    equal.push_back(absl::StrCat("c", k, " == p", k));
  }
  const std::string body =
      absl::StrCat("return ", absl::StrJoin(equal, " && "), " ? ", CombineText(c, d), " : acc;");
  static constexpr const char* kNames[] = {"assign", "add", "sub", "max", "min"};
  return MakeUserFun(
      absl::StrCat("scatter_", kNames[static_cast<int>(c)], "_", depth, "_", DTypeName(d)),
      std::move(params), body, std::move(types), d,
      [c, d, depth](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        for (int k = 0; k < depth; ++k) {
          if (a[2 + 2 * k].AsInt64() != a[3 + 2 * k].AsInt64()) return a[0];
        }
        return CombineHost(c, d, a[0], a[1]);
      });
}

// A coordinate as int64 (At's positions are int64).
FunPtr WidenIndexFun(DType index) {
  return MakeUserFun(absl::StrCat("widen_index_", DTypeName(index)), {"i"}, "return (long)i;",
                     {index}, DType::kInt64,
                     [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       return Scalar::Int(DType::kInt64, a[0].AsInt64());
                     });
}

// f(a's scalar, b's innermost vector) for a of shape S and b of shape S + [M].
absl::StatusOr<ExprPtr> ZipWithColumns(
    const ExprPtr& a, const ExprPtr& b, int depth,
    const std::function<absl::StatusOr<ExprPtr>(ExprPtr, ExprPtr)>& f) {
  if (depth == 0) return f(a, b);
  DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {a, b}));
  return MapOver(
      pairs,
      [&](ExprPtr pair) -> absl::StatusOr<ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ExprPtr x, Call(Get(0), {pair}));
        DFC_ASSIGN_OR_RETURN(ExprPtr y, Call(Get(1), {pair}));
        return ZipWithColumns(x, y, depth - 1, f);
      },
      "e");
}

// The reference's CheckScatterNd on compile-time shapes: a symbolic size is compared as an
// expression (the unifier has made equal sizes equal).
absl::Status CheckNdShapes(const TranslateContext& ctx, const SymbolicShape& shape,
                           const SymbolicShape& indices, const SymbolicShape& updates,
                           int64_t depth) {
  const auto message = [&](absl::string_view what) {
    return ctx.Error(absl::StrCat(what, " (indices ", ShapeToString(indices), ", updates ",
                                  ShapeToString(updates), ", output ", ShapeToString(shape), ")"));
  };
  if (indices.empty() || updates.empty()) {
    return message("indices and updates must have rank 1 or more");
  }
  if (shape.empty()) return message("the output must have rank 1 or more");
  if (depth < 1 || depth > 7) return message("indices.shape[-1] must be between 1 and 7");
  if (depth > static_cast<int64_t>(shape.size())) {
    return message("indices have more coordinates than the output has dimensions");
  }
  SymbolicShape expected(indices.begin(), indices.end() - (indices.size() > 1 ? 1 : 0));
  expected.insert(expected.end(), shape.begin() + depth, shape.end());
  if (expected != updates) {
    return message("updates must have shape indices.shape[:-1] + shape[depth:]");
  }
  // Both empty or both not, and not empty for an empty output: decided where the counts are
  // known, refused where they are not.
  const std::optional<int64_t> n_indices = NumElements(indices).AsConstant();
  const std::optional<int64_t> n_updates = NumElements(updates).AsConstant();
  const std::optional<int64_t> n_out = NumElements(shape).AsConstant();
  if (!n_indices || !n_updates || !n_out) {
    return message("the element counts of an ND scatter must be known when it is compiled");
  }
  const bool none = *n_indices == 0 && *n_updates == 0;
  if (!none && (*n_out == 0 || *n_indices == 0 || *n_updates == 0)) {
    return message(
        "indices and updates must both be empty or both not, and not empty for an "
        "empty output");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<ExprPtr>> TranslateNdScatter(const TranslateContext& ctx) {
  const NdScatterOp& op = FindNdScatter(ctx.node().op);
  DFC_RETURN_IF_ERROR(ctx.CheckNumInputs(3));
  const int index_input = op.has_base ? 1 : 0;
  const int update_input = op.has_base ? 2 : 1;
  DFC_ASSIGN_OR_RETURN(ExprPtr indices, ctx.Input(index_input));
  DFC_ASSIGN_OR_RETURN(ExprPtr updates, ctx.Input(update_input));
  const DType index_type = BaseDType(indices->type);
  const DType d = BaseDType(updates->type);
  if (index_type != DType::kInt32 && index_type != DType::kInt64) {
    return ctx.Error(absl::StrCat("input ", index_input, " has dtype ", DTypeName(index_type),
                                  ", expected one of int32, int64"));
  }
  const bool bool_ok =
      op.combine == Combine::kAssign ||
      (op.bool_arithmetic && (op.combine == Combine::kAdd || op.combine == Combine::kSub));
  if (!IsSupported(d) || (d == DType::kBool && !bool_ok)) {
    return ctx.Error(absl::StrCat("input ", update_input, " has unsupported dtype ", DTypeName(d)));
  }
  ExprPtr base;
  SymbolicShape shape;
  if (op.has_base) {
    DFC_ASSIGN_OR_RETURN(base, ctx.Input(0));
    if (BaseDType(base->type) != d) {
      return ctx.Error(absl::StrCat("updates of dtype ", DTypeName(d), " must have the dtype of ",
                                    DTypeName(BaseDType(base->type))));
    }
    shape = ShapeOfExpr(base);
  } else {
    DFC_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ctx.StaticInts(2));
    const Tensor* shape_tensor = ctx.StaticTensor(2);
    if (shape_tensor != nullptr && shape_tensor->rank() != 1) {
      return ctx.Error(absl::StrCat("shape must be a vector, got ", shape_tensor->DebugType()));
    }
    for (int64_t n : dims) {
      if (n < 0) return ctx.Error(absl::StrCat("shape has a negative dimension ", n));
      shape.push_back(ArithExpr(n));
    }
  }
  const SymbolicShape index_shape = ShapeOfExpr(indices);
  const SymbolicShape update_shape = ShapeOfExpr(updates);
  const bool tuples = index_shape.size() > 1;
  int64_t depth = 1;
  if (tuples) {
    const std::optional<int64_t> k = index_shape.back().AsConstant();
    if (!k) return ctx.Error("the last dimension of indices must be known when it is compiled");
    depth = *k;
  }
  DFC_RETURN_IF_ERROR(CheckNdShapes(ctx, shape, index_shape, update_shape, depth));
  const int k_depth = static_cast<int>(depth);
  const int rest_rank = static_cast<int>(shape.size()) - k_depth;
  const FunPtr step = NdStepFun(op.combine, d, k_depth);
  const FunPtr widen = WidenIndexFun(index_type);
  absl::StatusOr<ExprPtr> out = [&]() -> absl::StatusOr<ExprPtr> {
    // The tuples as [M][K], the updates as [rest..., M].
    ExprPtr tuple_rows = indices;
    if (!tuples) {
      DFC_ASSIGN_OR_RETURN(tuple_rows, Call(Split(ArithExpr(1)), {indices}));
    } else if (index_shape.size() > 2) {
      DFC_ASSIGN_OR_RETURN(tuple_rows,
                           JoinLeading(indices, static_cast<int>(index_shape.size()) - 1));
    }
    const int batch_rank = tuples ? static_cast<int>(index_shape.size()) - 1 : 1;
    ExprPtr update_rows = updates;
    if (batch_rank > 1) {
      DFC_ASSIGN_OR_RETURN(update_rows, JoinLeading(updates, batch_rank));
    }
    DFC_ASSIGN_OR_RETURN(ExprPtr columns, RowsInnermost(update_rows, rest_rank));
    // Over the addressed positions p0..p(K-1), outermost first, then the slice's elements.
    std::vector<ExprPtr> positions;
    std::function<absl::StatusOr<ExprPtr>(ExprPtr, int)> over =
        [&](ExprPtr slice, int k) -> absl::StatusOr<ExprPtr> {
      if (k < k_depth) {
        DFC_ASSIGN_OR_RETURN(ExprPtr iota, Call(Iota(shape[k], DType::kInt64), {}));
        return MapOver(
            iota,
            [&](ExprPtr p) -> absl::StatusOr<ExprPtr> {
              positions.push_back(p);
              ExprPtr inner;
              if (slice != nullptr) {
                DFC_ASSIGN_OR_RETURN(inner, Call(At(), {slice, p}));
              }
              absl::StatusOr<ExprPtr> result = over(inner, k + 1);
              positions.pop_back();
              return result;
            },
            absl::StrCat("p", k));
      }
      const auto fold = [&](ExprPtr init, ExprPtr column) -> absl::StatusOr<ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {column, tuple_rows}));
        return ReduceOver(init, pairs, [&](ExprPtr acc, ExprPtr pair) -> absl::StatusOr<ExprPtr> {
          DFC_ASSIGN_OR_RETURN(ExprPtr x, Call(Get(0), {pair}));
          DFC_ASSIGN_OR_RETURN(ExprPtr tuple, Call(Get(1), {pair}));
          std::vector<ExprPtr> args = {acc, x};
          for (int j = 0; j < k_depth; ++j) {
            DFC_ASSIGN_OR_RETURN(ExprPtr raw, Call(At(), {tuple, Lit(DType::kInt64, j)}));
            DFC_ASSIGN_OR_RETURN(ExprPtr wide, Call(widen, {raw}));
            DFC_ASSIGN_OR_RETURN(ExprPtr limit, Call(Iota(shape[j], DType::kInt64), {}));
            DFC_ASSIGN_OR_RETURN(ExprPtr checked, Call(At(), {limit, wide}));
            args.push_back(checked);
            args.push_back(positions[j]);
          }
          return Call(step, std::move(args));
        });
      };
      if (slice != nullptr) return ZipWithColumns(slice, columns, rest_rank, fold);
      const ExprPtr zero = MakeLiteral(IsFloating(d) ? Scalar::Float(d, 0) : Scalar::Int(d, 0));
      return MapAtDepth(columns, rest_rank, [&](ExprPtr column) { return fold(zero, column); });
    };
    return over(base, 0);
  }();
  if (!out.ok()) return ctx.node().Annotate(out.status());
  return std::vector<ExprPtr>{*std::move(out)};
}

// segment_ids' shape is a prefix of data's (the operands: num_segments is read statically).
bool UnifyPrefix(const Node&, std::span<const SymbolicShape> shapes, SizeUnifier& unifier) {
  bool changed = false;
  for (size_t k = 0; k < shapes[1].size() && k < shapes[0].size(); ++k) {
    changed |= unifier.Unify(shapes[0][k], shapes[1][k]);
  }
  return changed;
}

}  // namespace

void RegisterScatterTranslations(TranslationTable& table) {
  for (const SegmentOp& op : kSegmentOps) {
    table.push_back({std::string(op.op), {TranslateUnsortedSegment, {2}, UnifyPrefix}});
  }
  for (const NdScatterOp& op : kNdScatterOps) {
    Translation t{TranslateNdScatter, {}};
    if (!op.has_base) t.static_inputs = {2};
    table.push_back({std::string(op.op), std::move(t)});
  }
}

}  // namespace dfc::ir
