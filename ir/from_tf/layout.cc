// Translations of the layout ops that move whole blocks (runtime/reference/layout.cc): Reshape,
// ExpandDims, Squeeze, ConcatV2/Concat, Pack/Unpack, Split/SplitV and IdentityN, plus the
// helpers every layout translation shares. None of them computes: each output is a view of its
// inputs built from Join/Split (reshapes), Repeat(1)/Join (unit dimensions), Zip+Concat
// (concatenation) and Reindex or At (slices), applied at the depth of the dimension concerned.
// layout_slice.cc and layout_gather.cc hold the rest of the family.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"
#include "base/status.h"
#include "ir/from_tf/layout_internal.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir {
namespace layout {

absl::StatusOr<std::vector<ArithExpr>> IndexVector(const TranslateContext& ctx, int i,
                                                   absl::string_view what, bool vector) {
  if (i >= ctx.num_inputs()) return ctx.Error(absl::StrCat("missing input ", i, " (", what, ")"));
  if (const Tensor* t = ctx.StaticTensor(i)) {
    if (t->dtype() != DType::kInt32 && t->dtype() != DType::kInt64) {
      return ctx.Error(absl::StrCat(what, " must be int32 or int64, got ", t->DebugType()));
    }
    if (t->rank() > 1 || (vector && t->rank() != 1)) {
      return ctx.Error(absl::StrCat(what, " must be a ", vector ? "" : "scalar or a ",
                                    "vector, got ", t->DebugType()));
    }
  } else if (absl::StatusOr<SymbolicShape> shape = ctx.InputShape(i); shape.ok()) {
    if (shape->size() > 1 || (vector && shape->size() != 1)) {
      return ctx.Error(absl::StrCat(what, " must be a ", vector ? "" : "scalar or a ",
                                    "vector, got shape ", ShapeString(*shape)));
    }
  }
  return ctx.SymbolicInts(i);
}

absl::StatusOr<std::vector<int64_t>> ConstantIndexVector(const TranslateContext& ctx, int i,
                                                         absl::string_view what, bool vector) {
  DFC_ASSIGN_OR_RETURN(std::vector<ArithExpr> symbolic, IndexVector(ctx, i, what, vector));
  std::vector<int64_t> values;
  for (const ArithExpr& e : symbolic) {
    std::optional<int64_t> c = e.AsConstant();
    if (!c) {
      return ctx.Error(absl::StrCat(what, " has the entry ", e.ToString(),
                                    ", which depends on a size variable; a constant is needed"));
    }
    values.push_back(*c);
  }
  return values;
}

absl::StatusOr<int64_t> ConstantIndexScalar(const TranslateContext& ctx, int i,
                                            absl::string_view what) {
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> values, ConstantIndexVector(ctx, i, what));
  if (values.size() != 1) {
    return ctx.Error(absl::StrCat(what, " must have one element, got ", values.size()));
  }
  return values[0];
}

absl::StatusOr<int> NormalizeAxis(const TranslateContext& ctx, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank || (rank == 0 && axis != 0)) {
    return ctx.Error(absl::StrCat("axis ", axis, " is out of range for rank ", rank, " (expected [",
                                  -rank, ", ", rank, "))"));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::string ShapeString(const SymbolicShape& shape) { return ShapeToString(shape); }

std::string DebugType(const ExprPtr& tensor) {
  return absl::StrCat(DTypeName(BaseDType(tensor->type)), ShapeString(ShapeOfExpr(tensor)));
}

absl::StatusOr<ExprPtr> Bind(const ExprPtr& e,
                             const std::function<absl::StatusOr<ExprPtr>(ExprPtr)>& body,
                             absl::string_view name) {
  if (e->kind != Expr::Kind::kFunCall) return body(e);
  return Let(e, body, name);
}

absl::StatusOr<ExprPtr> Call1(const FunPtr& f, const ExprPtr& x) { return Call(f, {x}); }

absl::StatusOr<ExprPtr> ApplyAt(const ExprPtr& t, int depth, const FunPtr& f) {
  return MapAtDepth(t, depth, [&](ExprPtr x) { return Call1(f, x); });
}

absl::StatusOr<ExprPtr> ReindexAt(const ExprPtr& t, int depth, const ArithExpr& length,
                                  const ArithExpr& index) {
  return ApplyAt(t, depth, Reindex(length, index));
}

absl::StatusOr<ExprPtr> InsertUnitDim(const ExprPtr& t, int depth) {
  return ApplyAt(t, depth, Repeat(1));
}

absl::StatusOr<ExprPtr> RemoveUnitDim(const ExprPtr& t, int depth) {
  if (depth == 0) return Call(At(), {t, Lit(DType::kInt32, 0)});
  return ApplyAt(t, depth - 1, Join());
}

absl::StatusOr<ExprPtr> Filled(const ExprPtr& scalar, const SymbolicShape& shape) {
  ExprPtr result = scalar;
  for (auto it = shape.rbegin(); it != shape.rend(); ++it) {
    DFC_ASSIGN_OR_RETURN(result, Call1(Repeat(*it), result));
  }
  return result;
}

absl::StatusOr<ExprPtr> Reshape(const ExprPtr& t, const SymbolicShape& shape) {
  if (ShapeOfExpr(t) == shape) return t;
  return ReshapeTensor(t, shape);
}

absl::StatusOr<ExprPtr> ConcatAt(const std::vector<ExprPtr>& values, int axis) {
  DFC_CHECK(!values.empty());
  if (values.size() == 1) return values[0];
  const int n = static_cast<int>(values.size());
  if (axis == 0) return Call(Concat(n), values);
  DFC_ASSIGN_OR_RETURN(ExprPtr zipped, Call(Zip(n), values));
  return MapOver(
      zipped,
      [&](ExprPtr tuple) -> absl::StatusOr<ExprPtr> {
        std::vector<ExprPtr> rows;
        for (int k = 0; k < n; ++k) {
          DFC_ASSIGN_OR_RETURN(ExprPtr row, Call1(Get(k), tuple));
          rows.push_back(row);
        }
        return ConcatAt(rows, axis - 1);
      },
      "t");
}

Outputs One(const TranslateContext& ctx, absl::StatusOr<ExprPtr> e) {
  if (!e.ok()) return ctx.node().Annotate(e.status());
  return std::vector<ExprPtr>{*std::move(e)};
}

}  // namespace layout

namespace {

using layout::ApplyAt;
using layout::ConcatAt;
using layout::ConstantIndexScalar;
using layout::ConstantIndexVector;
using layout::DebugType;
using layout::IndexVector;
using layout::InsertUnitDim;
using layout::NormalizeAxis;
using layout::One;
using layout::Outputs;
using layout::ReindexAt;
using layout::RemoveUnitDim;
using layout::ShapeString;

// Split and Unpack of an empty tensor could otherwise be asked for billions of outputs
// (the reference's limit).
constexpr int64_t kMaxOutputs = int64_t{1} << 20;

// A count attribute (N, num_split) must agree with what the node has, when it is present.
absl::Status CheckCountAttr(const TranslateContext& ctx, absl::string_view attr, int64_t actual,
                            absl::string_view what) {
  if (!ctx.node().HasAttr(attr)) return absl::OkStatus();
  DFC_ASSIGN_OR_RETURN(int64_t n, ctx.node().GetInt(attr));
  if (n != actual) {
    return ctx.Error(
        absl::StrCat("attribute ", attr, " = ", n, " but the node has ", actual, " ", what));
  }
  return absl::OkStatus();
}

// The constant value of a dimension, or an error saying what needed it.
absl::StatusOr<int64_t> ConstantDim(const TranslateContext& ctx, const ArithExpr& dim,
                                    absl::string_view why) {
  if (std::optional<int64_t> c = dim.AsConstant()) return *c;
  return ctx.Error(
      absl::StrCat(why, " needs a static size, but the dimension is ", dim.ToString()));
}

// --- Reshape, ExpandDims, Squeeze -------------------------------------------------------------

// TensorFlow's Reshape, as the reference infers the -1: the product of the input's dimensions
// divided by that of the other requested ones, zero dimensions left out of both when the
// request has one. With size variables the division must be provably exact.
Outputs TranslateReshape(const TranslateContext& ctx) {
  DFC_ASSIGN_OR_RETURN(ExprPtr in, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(SymbolicShape shape, IndexVector(ctx, 1, "shape"));
  const SymbolicShape from = ShapeOfExpr(in);
  const std::string requested = ShapeString(shape);
  const auto too_many = [&] {
    return ctx.Error(absl::StrCat("shape ", requested, " has more than 2^63 elements"));
  };
  int unknown = -1;
  bool has_zero = false;
  std::optional<ArithExpr> product = 1;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    const std::optional<int64_t> c = shape[d].AsConstant();
    if (c && *c == -1) {
      if (unknown != -1) {
        return ctx.Error(
            absl::StrCat("shape ", requested, " has more than one -1 (", unknown, " and ", d, ")"));
      }
      unknown = d;
    } else if (c && *c < 0) {
      return ctx.Error(absl::StrCat("shape ", requested, " has negative size ", *c, " at ", d));
    } else if (c && *c == 0) {
      has_zero = true;
    } else if (product) {
      product = CheckedMul(*product, shape[d]);
    }
  }
  // Beside a 0, the other sizes only have to fit one by one, as TensorFlow's do.
  if (!product && !has_zero) return too_many();
  if (unknown != -1) {
    if (!product) return too_many();
    std::optional<ArithExpr> counted = 1;
    for (const ArithExpr& d : from) {
      if (has_zero && d == ArithExpr(0)) continue;
      if (counted) counted = CheckedMul(*counted, d);
    }
    if (!counted) {
      return ctx.Error(absl::StrCat("the sizes of ", DebugType(in), " but its 0s multiply to ",
                                    "more than 2^63, so the -1 in ", requested, " has no value"));
    }
    const ArithExpr count = *counted;
    const ArithExpr missing = count / *product;
    if (missing * *product != count) {
      return ctx.Error(absl::StrCat("cannot reshape ", DebugType(in), " to ", requested, ": ",
                                    count.ToString(), " elements are not ",
                                    product->is_constant() ? "" : "provably ", "a multiple of ",
                                    product->ToString()));
    }
    shape[unknown] = missing;
  }
  if (CheckedNumElements(shape) != NumElements(from)) {
    return ctx.Error(absl::StrCat("cannot reshape ", DebugType(in), " (",
                                  NumElements(from).ToString(), " elements) to ", requested));
  }
  return One(ctx, layout::Reshape(in, shape));
}

Outputs TranslateExpandDims(const TranslateContext& ctx) {
  DFC_ASSIGN_OR_RETURN(ExprPtr in, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(int64_t dim, ConstantIndexScalar(ctx, 1, "dim"));
  const int rank = Rank(in);
  if (dim < -rank - 1 || dim > rank) {
    return ctx.Error(absl::StrCat("dim ", dim, " is out of range for ", DebugType(in),
                                  " (expected [", -rank - 1, ", ", rank, "])"));
  }
  return One(ctx, InsertUnitDim(in, static_cast<int>(dim < 0 ? dim + rank + 1 : dim)));
}

// Without squeeze_dims every dimension of size 1 goes, which a size variable leaves unknown
// until run time: that is refused rather than guessed.
Outputs TranslateSqueeze(const TranslateContext& ctx) {
  DFC_ASSIGN_OR_RETURN(ExprPtr in, ctx.Input(0));
  const SymbolicShape shape = ShapeOfExpr(in);
  const int rank = static_cast<int>(shape.size());
  std::vector<int64_t> dims;
  if (ctx.node().HasAttr("squeeze_dims")) {
    DFC_ASSIGN_OR_RETURN(AttrList list, ctx.node().GetList("squeeze_dims"));
    dims = list.i;
  }
  std::vector<bool> squeeze(rank, false);
  for (int64_t d : dims) {
    DFC_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, d, rank));
    if (shape[axis] != ArithExpr(1)) {
      return ctx.Error(absl::StrCat("cannot squeeze dim ", d, " of ", DebugType(in),
                                    ": its size is ", shape[axis].ToString(), ", expected 1"));
    }
    squeeze[axis] = true;
  }
  if (dims.empty()) {
    for (int d = 0; d < rank; ++d) {
      DFC_ASSIGN_OR_RETURN(int64_t size,
                           ConstantDim(ctx, shape[d], "Squeeze without squeeze_dims"));
      squeeze[d] = size == 1;
    }
  }
  ExprPtr out = in;
  for (int d = rank - 1; d >= 0; --d) {  // innermost first, so outer depths stay valid
    if (!squeeze[d]) continue;
    absl::StatusOr<ExprPtr> removed = RemoveUnitDim(out, d);
    if (!removed.ok()) return ctx.node().Annotate(removed.status());
    out = *removed;
  }
  return std::vector<ExprPtr>{out};
}

// --- ConcatV2, Concat, Pack -------------------------------------------------------------------

// ConcatV2 takes (values..., axis); Concat takes (concat_dim, values...).
Outputs TranslateConcatImpl(const TranslateContext& ctx, int first_value, int axis_input) {
  const int n = ctx.num_inputs() - 1;
  if (n < 1) return ctx.Error(absl::StrCat("expects at least 2 inputs, got ", ctx.num_inputs()));
  DFC_RETURN_IF_ERROR(CheckCountAttr(ctx, "N", n, "values"));
  DFC_ASSIGN_OR_RETURN(int64_t axis_value, ConstantIndexScalar(ctx, axis_input, "axis"));
  std::vector<ExprPtr> values;
  for (int i = 0; i < n; ++i) {
    DFC_ASSIGN_OR_RETURN(ExprPtr v, ctx.Input(first_value + i));
    values.push_back(v);
  }
  const ExprPtr& first = values[0];
  const int rank = Rank(first);
  if (rank == 0) return ctx.Error("cannot concatenate scalars (use Pack)");
  DFC_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, axis_value, rank));
  const SymbolicShape first_shape = ShapeOfExpr(first);
  std::vector<ExprPtr> nonempty;
  for (int i = 0; i < n; ++i) {
    const ExprPtr& v = values[i];
    if (BaseDType(v->type) != BaseDType(first->type)) {
      return ctx.Error(
          absl::StrCat("value ", i, " is ", DebugType(v), " but value 0 is ", DebugType(first)));
    }
    const SymbolicShape shape = ShapeOfExpr(v);
    bool match = static_cast<int>(shape.size()) == rank;
    for (int d = 0; match && d < rank; ++d) match = d == axis || shape[d] == first_shape[d];
    if (!match) {
      return ctx.Error(absl::StrCat("cannot concatenate ", DebugType(first), " and ", DebugType(v),
                                    " (value ", i, ") along axis ", axis));
    }
    // An operand with nothing along the axis adds nothing: leaving it out keeps the kernel's
    // Concat small. The last one stays if all are empty, so the result keeps its type.
    if (shape[axis] != ArithExpr(0)) nonempty.push_back(v);
  }
  if (nonempty.empty()) nonempty.push_back(values.back());
  return One(ctx, ConcatAt(nonempty, axis));
}

Outputs TranslateConcatV2(const TranslateContext& ctx) {
  return TranslateConcatImpl(ctx, 0, ctx.num_inputs() - 1);
}
Outputs TranslateConcat(const TranslateContext& ctx) { return TranslateConcatImpl(ctx, 1, 0); }

// Each input gets a unit dimension at `axis`, and the results are concatenated along it.
Outputs TranslatePack(const TranslateContext& ctx) {
  const int n = ctx.num_inputs();
  if (n < 1) return ctx.Error("expects at least one input");
  DFC_RETURN_IF_ERROR(CheckCountAttr(ctx, "N", n, "inputs"));
  DFC_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.node().GetInt("axis", 0));
  std::vector<ExprPtr> values;
  for (int i = 0; i < n; ++i) {
    DFC_ASSIGN_OR_RETURN(ExprPtr v, ctx.Input(i));
    values.push_back(v);
  }
  const ExprPtr& first = values[0];
  for (int i = 0; i < n; ++i) {
    const ExprPtr& v = values[i];
    if (BaseDType(v->type) != BaseDType(first->type) || ShapeOfExpr(v) != ShapeOfExpr(first)) {
      return ctx.Error(absl::StrCat("cannot stack ", DebugType(first), " (input 0) and ",
                                    DebugType(v), " (input ", i, "): they must match"));
    }
  }
  const int out_rank = Rank(first) + 1;
  if (axis_attr < -out_rank || axis_attr >= out_rank) {
    return ctx.Error(absl::StrCat("axis ", axis_attr, " is out of range for stacking ",
                                  DebugType(first), " (expected [", -out_rank, ", ", out_rank,
                                  "))"));
  }
  const int axis = static_cast<int>(axis_attr < 0 ? axis_attr + out_rank : axis_attr);
  std::vector<ExprPtr> expanded;
  for (const ExprPtr& v : values) {
    absl::StatusOr<ExprPtr> e = InsertUnitDim(v, axis);
    if (!e.ok()) return ctx.node().Annotate(e.status());
    expanded.push_back(*e);
  }
  return One(ctx, ConcatAt(expanded, axis));
}

// --- Unpack, Split, SplitV --------------------------------------------------------------------

Outputs TranslateUnpack(const TranslateContext& ctx) {
  DFC_ASSIGN_OR_RETURN(ExprPtr in, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.node().GetInt("axis", 0));
  const int rank = Rank(in);
  if (rank == 0) return ctx.Error("cannot unstack a scalar");
  DFC_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, axis_attr, rank));
  DFC_ASSIGN_OR_RETURN(int64_t dim,
                       ConstantDim(ctx, ShapeOfExpr(in)[axis], "Unpack's number of outputs"));
  DFC_ASSIGN_OR_RETURN(int64_t num, ctx.node().GetInt("num", dim));
  if (num != dim) {
    return ctx.Error(absl::StrCat("cannot unstack ", DebugType(in), " along axis ", axis,
                                  " into num = ", num, " outputs"));
  }
  if (num > kMaxOutputs) {
    return ctx.Error(
        absl::StrCat("num = ", num, " is over dfc's limit of ", kMaxOutputs, " outputs"));
  }
  std::vector<ExprPtr> outputs;
  for (int64_t k = 0; k < num; ++k) {
    absl::StatusOr<ExprPtr> out = MapAtDepth(in, axis, [&](ExprPtr x) {
      return Call(At(), {x, Lit(DType::kInt64, static_cast<double>(k))});
    });
    if (!out.ok()) return ctx.node().Annotate(out.status());
    outputs.push_back(*out);
  }
  return outputs;
}

// Pieces of `in` along `axis`, of the given sizes (which sum to the dimension): Reindex
// slices at the axis' depth.
Outputs SplitInto(const TranslateContext& ctx, const ExprPtr& in, int axis,
                  const std::vector<ArithExpr>& sizes) {
  if (static_cast<int64_t>(sizes.size()) > kMaxOutputs) {
    return ctx.Error(absl::StrCat("splitting ", DebugType(in), " into ", sizes.size(),
                                  " outputs is over dfc's limit of ", kMaxOutputs));
  }
  const ArithExpr length = ShapeOfExpr(in)[axis];
  std::vector<ExprPtr> outputs;
  ArithExpr offset = 0;
  for (const ArithExpr& size : sizes) {
    if (offset == ArithExpr(0) && size == length) {
      outputs.push_back(in);
    } else {
      absl::StatusOr<ExprPtr> piece = ReindexAt(in, axis, size, offset + IndexVar());
      if (!piece.ok()) return ctx.node().Annotate(piece.status());
      outputs.push_back(*piece);
    }
    offset = offset + size;
  }
  return outputs;
}

Outputs TranslateSplit(const TranslateContext& ctx) {
  if (ctx.num_inputs() != 2) {
    return ctx.Error(absl::StrCat("expects 2 inputs, got ", ctx.num_inputs()));
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr in, ctx.Input(1));
  DFC_ASSIGN_OR_RETURN(int64_t num_split, ctx.node().GetInt("num_split"));
  DFC_ASSIGN_OR_RETURN(int64_t axis_value, ConstantIndexScalar(ctx, 0, "split_dim"));
  DFC_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, axis_value, Rank(in)));
  const ArithExpr length = ShapeOfExpr(in)[axis];
  const std::string refusal = absl::StrCat("cannot split dimension ", axis, " of ", DebugType(in),
                                           " into num_split = ", num_split, " equal parts");
  if (num_split <= 0) return ctx.Error(refusal);
  const ArithExpr piece = length / ArithExpr(num_split);
  if (piece * ArithExpr(num_split) != length) {
    return ctx.Error(length.is_constant() ? refusal : absl::StrCat(refusal, " (not provably)"));
  }
  if (num_split > kMaxOutputs) {
    return ctx.Error(absl::StrCat("num_split = ", num_split, " is over dfc's limit of ",
                                  kMaxOutputs, " outputs"));
  }
  return SplitInto(ctx, in, axis, std::vector<ArithExpr>(num_split, piece));
}

// One size may be -1, inferred from the others. Constant sizes are checked as the reference
// checks them; a dimension with a size variable is trusted to hold the constant ones.
Outputs TranslateSplitV(const TranslateContext& ctx) {
  if (ctx.num_inputs() != 3) {
    return ctx.Error(absl::StrCat("expects 3 inputs, got ", ctx.num_inputs()));
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr in, ctx.Input(0));
  DFC_ASSIGN_OR_RETURN(std::vector<ArithExpr> sizes, IndexVector(ctx, 1, "size_splits"));
  DFC_ASSIGN_OR_RETURN(int64_t axis_value, ConstantIndexScalar(ctx, 2, "axis"));
  DFC_RETURN_IF_ERROR(
      CheckCountAttr(ctx, "num_split", static_cast<int64_t>(sizes.size()), "size_splits"));
  if (sizes.empty()) return ctx.Error("size_splits is empty");
  DFC_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, axis_value, Rank(in)));
  const ArithExpr length = ShapeOfExpr(in)[axis];
  std::vector<std::string> texts;
  for (const ArithExpr& s : sizes) texts.push_back(s.ToString());
  const std::string listed = absl::StrCat("[", absl::StrJoin(texts, ","), "]");
  int inferred = -1;
  ArithExpr known = 0;
  for (int i = 0; i < static_cast<int>(sizes.size()); ++i) {
    const std::optional<int64_t> s = sizes[i].AsConstant();
    if (s && *s == -1) {
      if (inferred != -1) {
        return ctx.Error(absl::StrCat("size_splits ", listed, " has more than one -1"));
      }
      inferred = i;
      continue;
    }
    const std::optional<int64_t> room = (length - known).AsConstant();
    if ((s && *s < 0) || (s && room && *s > *room)) {
      return ctx.Error(absl::StrCat("size_splits ", listed, " does not fit dimension ", axis,
                                    " of ", DebugType(in)));
    }
    known = known + sizes[i];
  }
  if (inferred != -1) {
    sizes[inferred] = length - known;
  } else if (known != length) {
    return ctx.Error(absl::StrCat("size_splits ", listed, " sums to ", known.ToString(),
                                  ", but dimension ", axis, " of ", DebugType(in), " is ",
                                  length.ToString()));
  }
  return SplitInto(ctx, in, axis, sizes);
}

Outputs TranslateIdentityN(const TranslateContext& ctx) {
  if (ctx.node().HasAttr("T")) {
    DFC_ASSIGN_OR_RETURN(AttrList types, ctx.node().GetList("T"));
    if (static_cast<int>(types.type.size()) != ctx.num_inputs()) {
      return ctx.Error(absl::StrCat("attribute T lists ", types.type.size(),
                                    " types but the node has ", ctx.num_inputs(), " inputs"));
    }
  }
  std::vector<ExprPtr> outputs;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    DFC_ASSIGN_OR_RETURN(ExprPtr v, ctx.Input(i));
    outputs.push_back(v);
  }
  return outputs;
}

// Reshape keeps the element count: the input's equals the product of a constant target shape
// (one without -1, whose product fits in int64; anything else is refused by the translation).
bool UnifyReshape(const Node&, std::span<const TensorInfo* const> inputs, SizeUnifier& unifier) {
  if (inputs.size() != 2 || !inputs[0]->shape || !inputs[1]->symbolic_value) return false;
  int64_t target = 1;
  for (const ArithExpr& d : *inputs[1]->symbolic_value) {
    const std::optional<int64_t> n = d.AsConstant();
    if (!n || *n < 0 || __builtin_mul_overflow(target, *n, &target)) return false;
  }
  return unifier.Unify(NumElements(*inputs[0]->shape), ArithExpr(target));
}

}  // namespace

void RegisterLayoutTranslations(TranslationTable& table) {
  table.push_back({"Reshape", Translation{.fn = &TranslateReshape,
                                          .static_inputs = {1},
                                          .unify_with_values = UnifyReshape}});
  table.push_back({"ExpandDims", Translation{&TranslateExpandDims, {1}}});
  table.push_back({"Squeeze", Translation{&TranslateSqueeze, {}}});
  // ConcatV2's axis is its last input, whose index depends on the number of values: -1.
  table.push_back({"ConcatV2", Translation{&TranslateConcatV2, {-1}}});
  table.push_back({"Concat", Translation{&TranslateConcat, {0}}});
  table.push_back({"Pack", Translation{&TranslatePack, {}}});
  table.push_back({"Unpack", Translation{&TranslateUnpack, {}}});
  table.push_back({"Split", Translation{&TranslateSplit, {0}}});
  table.push_back({"SplitV", Translation{&TranslateSplitV, {1, 2}}});
  table.push_back({"IdentityN", Translation{&TranslateIdentityN, {}}});
  layout::RegisterSliceTranslations(table);
  layout::RegisterGatherTranslations(table);
  layout::RegisterTailTranslations(table);
}

}  // namespace dfc::ir
