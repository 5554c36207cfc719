// Translations of the unsorted segment reductions (UnsortedSegmentSum, -Prod, -Max, -Min;
// runtime/reference/segment.cc) as a masked fold: each output element s, e folds the column
// data[:, e] in row order, taking row i only where segment_ids[i] == s. That is the reference's
// order exactly (each segment reduced row after row, rounded after each step), with no atomics,
// at the cost of reading every id once per output element: O(segments x rows x row length)
// work, where a scatter with atomics would do O(rows x row length).
//
// An id at or past num_segments is refused, as by the reference: each id is read through
// At $ (Iota(num_segments), id), which refuses an index out of range at run time. Negative ids
// are dropped before that read.
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
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
  const std::string t = OpenCLType(d);
  const std::string w = SizeOf(d) == 8 ? "ulong" : "uint";
  const bool integer = !IsFloating(d);
  switch (r) {
    case Reduction::kSum:
      return integer ? absl::StrCat("(", t, ")((", w, ")acc + (", w, ")x)") : "acc + x";
    case Reduction::kProd:
      return integer ? absl::StrCat("(", t, ")((", w, ")acc * (", w, ")x)") : "acc * x";
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
  return MakeUserFun(
      absl::StrCat("segment_", kNames[static_cast<int>(r)], "_step_", DTypeName(d), "_",
                   DTypeName(id)),
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

absl::StatusOr<std::vector<ExprPtr>> TranslateUnsortedSegment(const TranslateContext& ctx) {
  const Reduction r = FindReduction(ctx.node().op);
  if (ctx.num_inputs() != 3) {
    return ctx.Error(absl::StrCat("expects 3 inputs, got ", ctx.num_inputs()));
  }
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
    return ctx.Error(absl::StrCat("num_segments must be a scalar, got ", count_tensor->DebugType()));
  }
  if (count.size() != 1 || count[0] < 0) {
    return ctx.Error(absl::StrCat("num_segments must be a non-negative scalar"));
  }
  const int64_t segments = count[0];
  const SymbolicShape data_shape = ShapeOfExpr(data);
  const SymbolicShape id_shape = ShapeOfExpr(ids);
  const int id_rank = static_cast<int>(id_shape.size());
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
    std::vector<int> perm(row_rank + 1);
    std::iota(perm.begin(), perm.end() - 1, 1);
    perm.back() = 0;
    DFC_ASSIGN_OR_RETURN(ExprPtr columns, TransposeTensor(rows, perm));
    DFC_ASSIGN_OR_RETURN(ExprPtr segment_numbers,
                         Call(Iota(ArithExpr(segments), DType::kInt64), {}));
    return MapOver(
        segment_numbers,
        [&](ExprPtr s) {
          return MapAtDepth(columns, row_rank, [&](ExprPtr column) -> absl::StatusOr<ExprPtr> {
            DFC_ASSIGN_OR_RETURN(ExprPtr pairs, Call(Zip(2), {column, flat_ids}));
            return ReduceOver(init, pairs, [&](ExprPtr acc, ExprPtr pair) -> absl::StatusOr<ExprPtr> {
              DFC_ASSIGN_OR_RETURN(ExprPtr x, Call(Get(0), {pair}));
              DFC_ASSIGN_OR_RETURN(ExprPtr id, Call(Get(1), {pair}));
              DFC_ASSIGN_OR_RETURN(ExprPtr clamped, Call(clamp, {id}));
              DFC_ASSIGN_OR_RETURN(ExprPtr all, Call(Iota(ArithExpr(segments), DType::kInt64), {}));
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

// segment_ids' shape is a prefix of data's (the operands: num_segments is read statically).
bool UnifyPrefix(const Node&, std::span<const SymbolicShape> shapes, SizeUnifier& unifier) {
  bool changed = false;
  for (size_t k = 0; k < shapes[1].size() && k < shapes[0].size(); ++k) {
    changed |= unifier.Unify(shapes[0][k], shapes[1][k]);
  }
  return changed;
}

}  // namespace

void RegisterSegmentTranslations(TranslationTable& table) {
  for (const SegmentOp& op : kSegmentOps) {
    table.push_back({std::string(op.op), {TranslateUnsortedSegment, {2}, UnifyPrefix}});
  }
}

}  // namespace dfc::ir
