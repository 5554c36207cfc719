// Values of the generator: C types, literals, windows, sizes, loads and bindings (generator.h).
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "codegen/generator.h"
#include "ir/from_tf/scalar_funs.h"

namespace dfc::codegen::gen {

// The C type of a scalar or vector value, in its compute type: "float", "float16".
std::string CType(const TypePtr& type) {
  const std::string scalar = ir::OpenCLType(type->dtype);
  return type->is_vector() ? absl::StrCat(scalar, type->width) : scalar;
}

const CVal* Lookup(const Env& env, const ir::Param* param) {
  if (auto it = env->root->find(param); it != env->root->end()) return &it->second;
  for (const Frame* frame = env.get(); frame != nullptr; frame = frame->parent.get()) {
    if (auto it = frame->bindings.find(param); it != frame->bindings.end()) return &it->second;
  }
  return nullptr;
}

absl::Status Unsupported(absl::string_view what) {
  return absl::UnimplementedError(
      absl::StrCat(what, " is not supported by the OpenCL code generator yet"));
}

// The OpenCL C literal of a scalar, in its compute type.
std::string ScalarLiteral(const ir::Scalar& s) {
  const std::string type = ir::OpenCLType(s.dtype);
  if (IsFloating(s.dtype)) return ir::FloatLiteral(s.dtype, s.f);
  if (s.dtype == DType::kUInt64) return absl::StrCat(s.AsUInt64(), "UL");
  if (s.dtype == DType::kInt64) {
    if (s.i == INT64_MIN) return "(-9223372036854775807L - 1L)";
    return absl::StrCat(s.i, "L");
  }
  return absl::StrCat("((", type, ")", s.i, ")");
}

// Element i of Split(m) (stride m) and of Slide(size, step) (stride step): the window of
// `array` that starts at element i * stride, of type `window`.
ElementFn Windows(const CVal& array, const TypePtr& window, const ArithExpr& stride) {
  return [array, window, stride](const ArithExpr& i) -> absl::StatusOr<CVal> {
    CVal w{window};
    w.view = array.view;
    if (!array.buffer.empty()) {  // a window of a contiguous array is contiguous
      w.buffer = array.buffer;
      w.base = array.base + i * stride;
    }
    w.element = [array, start = i * stride](const ArithExpr& j) {
      return array.element(start + j);
    };
    if (array.selected != nullptr) {  // a window of a Select's array is a Select of windows
      const auto window_of = [window, stride, i](const Lazy& whole) -> Lazy {
        return [window, stride, i, whole]() -> absl::StatusOr<CVal> {
          DFC_ASSIGN_OR_RETURN(CVal v, whole());
          return Windows(v, window, stride)(i);
        };
      };
      const CVal::Selected& s = *array.selected;
      w.selected = std::make_shared<const CVal::Selected>(
          CVal::Selected{s.cond, window_of(s.then), window_of(s.other)});
    }
    return w;
  };
}

CVal MappedView(const CVal& array, const TypePtr& result, const ElementMap& f, bool f_is_view) {
  CVal out{result};
  out.view = array.view && f_is_view;
  out.element = [array, f](const ArithExpr& i) -> absl::StatusOr<CVal> {
    DFC_ASSIGN_OR_RETURN(CVal element, array.element(i));
    return f(std::move(element));
  };
  if (array.rows != nullptr) {  // Map(f) o Join = Join o Map(Map(f))
    const TypePtr row = ir::ArrayType(result->element, array.rows->type->element->length);
    out.rows = std::make_shared<const CVal>(MappedView(
        *array.rows, ir::ArrayType(row, array.rows->type->length),
        [row, f, f_is_view](CVal r) -> absl::StatusOr<CVal> {
          return MappedView(r, row, f, f_is_view);
        },
        f_is_view));
  }
  return out;
}

CVal ZippedView(std::vector<CVal> arrays, const TypePtr& result) {
  CVal out{result};
  out.view = std::ranges::all_of(arrays, &CVal::view);
  out.element = [arrays](const ArithExpr& i) -> absl::StatusOr<CVal> {
    CVal tuple{nullptr};
    std::vector<TypePtr> types;
    for (const CVal& a : arrays) {
      DFC_ASSIGN_OR_RETURN(CVal e, a.element(i));
      types.push_back(e.type);
      tuple.fields.push_back(std::move(e));
    }
    tuple.type = ir::TupleType(std::move(types));
    return tuple;
  };
  // Zip o Join = Join o Map(Zip) o Zip, over the first joined array's rows: the others joined
  // from rows of the same length give theirs, the rest are split into such rows.
  const auto joined = std::ranges::find_if(arrays, [](const CVal& a) { return a.rows != nullptr; });
  if (joined == arrays.end()) return out;
  const ArithExpr m = joined->rows->type->element->length;
  const ArithExpr n = joined->rows->type->length;
  std::vector<CVal> rows;
  std::vector<TypePtr> row_types;
  for (const CVal& a : arrays) {
    const TypePtr row = ir::ArrayType(a.type->element, m);
    row_types.push_back(row);
    if (a.rows != nullptr && a.rows->type->element->length == m) {
      rows.push_back(*a.rows);
    } else {
      CVal split{ir::ArrayType(row, n)};
      split.view = a.view;
      split.element = Windows(a, row, m);
      rows.push_back(std::move(split));
    }
  }
  const TypePtr row = ir::ArrayType(result->element, m);
  out.rows = std::make_shared<const CVal>(MappedView(
      ZippedView(std::move(rows), ir::ArrayType(ir::TupleType(std::move(row_types)), n)),
      ir::ArrayType(row, n),
      [row](CVal tuple) -> absl::StatusOr<CVal> { return ZippedView(tuple.fields, row); },
      /*f_is_view=*/true));
  return out;
}

CVal TransposedView(const CVal& array, const TypePtr& result) {
  CVal out{result};
  out.view = array.view;
  // Column i is Map(λrow => row[i]) $ array: it has the array's rows where the array has them.
  out.element = [array, result](const ArithExpr& i) -> absl::StatusOr<CVal> {
    return MappedView(
        array, result->element,
        [i](const CVal& row) -> absl::StatusOr<CVal> { return row.element(i); },
        /*f_is_view=*/true);
  };
  // The rows' rows are found on the first row; a row made otherwise is split into rows of the
  // same length, so the view is right whichever way each row was made.
  if (!array.view || array.type->length.AsConstant().value_or(0) < 1) return out;
  absl::StatusOr<CVal> first = array.element(0);
  if (!first.ok() || first->rows == nullptr) return out;
  const TypePtr& joined = first->rows->type;  // [k][m] of the rows' elements
  const ArithExpr m = joined->element->length;
  const ArithExpr n = array.type->length;
  const TypePtr element = result->element->element;
  const TypePtr piece = ir::ArrayType(element, m);
  CVal pieces{ir::ArrayType(ir::ArrayType(piece, joined->length), n)};
  pieces.view = true;
  pieces.element = [array, m, piece,
                    k = joined->length](const ArithExpr& j) -> absl::StatusOr<CVal> {
    DFC_ASSIGN_OR_RETURN(CVal row, array.element(j));
    if (row.rows != nullptr && row.rows->type->element->length == m) return *row.rows;
    CVal split{ir::ArrayType(piece, k)};
    split.view = row.view;
    split.element = Windows(row, piece, m);
    return split;
  };
  // Transpose o Map(Join) = Join o Map(Transpose) o Transpose.
  const TypePtr column = ir::ArrayType(element, n);
  CVal outer = TransposedView(pieces, ir::ArrayType(ir::ArrayType(piece, n), joined->length));
  out.rows = std::make_shared<const CVal>(MappedView(
      outer, ir::ArrayType(ir::ArrayType(column, m), joined->length),
      [column, m](CVal x) -> absl::StatusOr<CVal> {
        return TransposedView(x, ir::ArrayType(column, m));
      },
      /*f_is_view=*/true));
  return out;
}

// The scalars and vectors of a value, depth first through tuples.
absl::Status Leaves(const CVal& v, std::vector<const CVal*>& out) {
  if (v.type->is_tuple()) {
    for (const CVal& f : v.fields) DFC_RETURN_IF_ERROR(Leaves(f, out));
    return absl::OkStatus();
  }
  if (!v.type->is_scalar() && !v.type->is_vector()) {
    return Unsupported(absl::StrCat("a Reduce accumulator of type ", ir::TypeToString(v.type)));
  }
  out.push_back(&v);
  return absl::OkStatus();
}

// A value of `type` whose k-th scalar (depth first) is names(k).
CVal FromLeaves(const TypePtr& type, const std::function<Thunk(int)>& leaf, int& next) {
  CVal out{type};
  if (type->is_tuple()) {
    for (const TypePtr& t : type->elements) out.fields.push_back(FromLeaves(t, leaf, next));
  } else {
    out.scalar = leaf(next++);
  }
  return out;
}

ArithExpr CVar(absl::string_view name) { return ArithExpr::Var(absl::StrCat("$", name)); }

bool IsCVar(absl::string_view var_name) { return absl::StartsWith(var_name, "$"); }

namespace {

// A term of a sum that is printed after a minus sign: a negative constant or coefficient.
bool Negative(const ArithExpr& term) {
  if (const std::optional<int64_t> c = term.AsConstant()) return *c < 0;
  return term.kind() == ArithExpr::Kind::kProd && term.coefficient() < 0;
}

}  // namespace

std::string Generator::Print(const ArithExpr& e) {
  switch (e.kind()) {
    case ArithExpr::Kind::kConst:
      return absl::StrCat(*e.AsConstant(), "L");
    case ArithExpr::Kind::kVar:
      if (IsCVar(e.var_name())) return e.var_name().substr(1);
      size_vars_.insert(e.var_name());
      return absl::StrCat("size_", e.var_name());
    case ArithExpr::Kind::kSum: {
      std::string out = "(";
      for (size_t k = 0; k < e.operands().size(); ++k) {
        const ArithExpr& t = e.operands()[k];
        if (k == 0) {
          absl::StrAppend(&out, Print(t));
        } else {
          absl::StrAppend(&out, Negative(t) ? " - " : " + ", Print(Negative(t) ? -t : t));
        }
      }
      return absl::StrCat(out, ")");
    }
    case ArithExpr::Kind::kProd: {
      std::vector<std::string> factors;
      for (const ArithExpr& f : e.operands()) factors.push_back(Print(f));
      if (e.coefficient() != 1) factors.push_back(absl::StrCat(e.coefficient(), "L"));
      return absl::StrCat("(", absl::StrJoin(factors, " * "), ")");
    }
    case ArithExpr::Kind::kDiv:
    case ArithExpr::Kind::kMod: {
      const bool div = e.kind() == ArithExpr::Kind::kDiv;
      const std::string a = Print(e.operands()[0]);
      const std::string b = Print(e.operands()[1]);
      // C's / and % truncate; on non-negative operands that is the floor the IR means.
      if (ProvablyNonNegative(e.operands()[0]) && ProvablyNonNegative(e.operands()[1])) {
        return absl::StrCat("(", a, div ? " / " : " % ", b, ")");
      }
      return absl::StrCat(div ? "dfc_floordiv(" : "dfc_floormod(", a, ", ", b, ")");
    }
    case ArithExpr::Kind::kMin:
    case ArithExpr::Kind::kMax:
      return absl::StrCat(e.kind() == ArithExpr::Kind::kMin ? "min(" : "max(",
                          Print(e.operands()[0]), ", ", Print(e.operands()[1]), ")");
  }
  return "0L";
}

std::string Generator::ForHeader(const ArithExpr& index, const ArithExpr& count) {
  const std::string i = Print(index);
  return absl::StrCat("for (long ", i, " = 0; ", i, " < ", Print(count), "; ++", i, ")");
}

absl::StatusOr<CVal> Generator::Bind(CVal value) {
  if (value.type->is_array()) return value;  // a view: elements are computed where read
  // A dot product's product is its sum's to fuse (a multiply-add): bound, it would be computed
  // apart as well.
  if (value.factors != nullptr) return value;
  if (value.type->is_tuple()) {
    for (CVal& field : value.fields) {
      DFC_ASSIGN_OR_RETURN(field, Bind(std::move(field)));
    }
    return value;
  }
  if (!value.type->is_scalar() && !value.type->is_vector()) {
    return Unsupported(ir::TypeToString(value.type));
  }
  const std::string type = CType(value.type);
  auto memo = std::make_shared<Memo>(
      &em_,
      [this, type, thunk = value.scalar]() -> absl::StatusOr<std::vector<std::string>> {
        DFC_ASSIGN_OR_RETURN(std::string expr, thunk());
        std::string name = em_->Fresh("v");
        em_->Emit(absl::StrCat("const ", type, " ", name, " = ", expr, ";"));
        return std::vector<std::string>{name};
      },
      top_level_ ? 2 : -1);
  value.scalar = [memo]() -> absl::StatusOr<std::string> {
    DFC_ASSIGN_OR_RETURN(std::vector<std::string> names, memo->Get());
    return names[0];
  };
  if (!top_level_) DFC_RETURN_IF_ERROR(memo->Get().status());
  return value;
}

CVal Generator::Select(const TypePtr& type, std::string cond, Lazy then, Lazy other,
                       std::pair<Share, Share> shares) {
  CVal out{type};
  if (type->is_tuple()) {
    for (size_t k = 0; k < type->elements.size(); ++k) {
      auto field = [k](Lazy whole) -> Lazy {
        return [k, whole]() -> absl::StatusOr<CVal> {
          DFC_ASSIGN_OR_RETURN(CVal v, whole());
          return v.fields[k];
        };
      };
      out.fields.push_back(Select(type->elements[k], cond, field(then), field(other), shares));
    }
  } else if (type->is_array()) {
    out.view = true;  // a branch is taken only where a scalar is read
    // A Concat's parts count their shares of the operations element by element.
    const auto whole = [](const Share& share) { return share.numerator == share.denominator; };
    if (whole(shares.first) && whole(shares.second)) {
      out.selected = std::make_shared<const CVal::Selected>(CVal::Selected{cond, then, other});
    }
    out.element = [this, type, cond, then, other,
                   shares](const ArithExpr& i) -> absl::StatusOr<CVal> {
      auto element = [i](Lazy whole) -> Lazy {
        return [i, whole]() -> absl::StatusOr<CVal> {
          DFC_ASSIGN_OR_RETURN(CVal v, whole());
          return v.element(i);
        };
      };
      return Select(type->element, cond, element(then), element(other), shares);
    };
  } else {
    out.scalar = [this, type, cond, then, other, shares]() -> absl::StatusOr<std::string> {
      const std::string name = em_->Fresh("sel");
      em_->Emit(absl::StrCat(type->is_vector() ? CType(type) : ir::OpenCLType(type->dtype), " ",
                             name, ";"));
      // Two ifs, not if/else: a value a branch computes for the whole kernel (a Memo hoisted
      // to an outer block) lands between the two blocks, where it would split an if/else.
      for (const auto& [header, branch, share] :
           {std::tuple{absl::StrCat("if (", cond, ")"), then, shares.first},
            std::tuple{absl::StrCat("if (!(", cond, "))"), other, shares.second}}) {
        em_->OpenBlock(header, 1, share);
        absl::StatusOr<CVal> v = branch();
        absl::StatusOr<std::string> expr = v.ok() ? v->scalar() : v.status();
        if (!expr.ok()) return expr.status();
        em_->Emit(absl::StrCat(name, " = ", *expr, ";"));
        em_->CloseBlock();
      }
      return name;
    };
  }
  return out;
}

CVal Generator::Filled(const TypePtr& type, const ir::Scalar& fill) {
  CVal out{type};
  if (type->is_tuple()) {
    for (const TypePtr& t : type->elements) out.fields.push_back(Filled(t, fill));
  } else if (type->is_array()) {
    out.view = true;
    out.element = [this, type, fill](const ArithExpr&) -> absl::StatusOr<CVal> {
      return Filled(type->element, fill);
    };
  } else {
    // Pad's value has the array's dtype; a zero is made for each dtype.
    const ir::Scalar value = fill.dtype == type->dtype ? fill : ir::Scalar::Int(type->dtype, 0);
    out.scalar = [value]() -> absl::StatusOr<std::string> { return ScalarLiteral(value); };
  }
  return out;
}

CVal Generator::Load(const std::string& buffer, DType dtype, const TypePtr& type,
                     const ArithExpr& base) {
  CVal out{type};
  if (type->is_array()) {
    out.view = true;
    const ArithExpr stride = *Slots(type->element);
    if (type->element->is_scalar() && dtype != DType::kHalf) {
      out.buffer = buffer;
      out.base = base;
    } else if (dtype != DType::kHalf) {
      out.flat_buffer = buffer;
      out.flat_base = base;
    }
    out.element = [this, buffer, dtype, type, base,
                   stride](const ArithExpr& i) -> absl::StatusOr<CVal> {
      return Load(buffer, dtype, type->element, base + i * stride);
    };
  } else {
    out.scalar = [this, buffer, dtype, type, base]() -> absl::StatusOr<std::string> {
      std::string text = dtype == DType::kHalf
                             ? absl::StrCat("vload_half(", Print(base), ", ", buffer, ")")
                             : absl::StrCat(buffer, "[", Print(base), "]");
      if (!global_buffers_.contains(buffer)) return text;
      return LoadOnce(text, type, base);
    };
  }
  return out;
}

absl::StatusOr<std::string> Generator::LoadOnce(const std::string& load, const TypePtr& type,
                                                const ArithExpr& address) {
  // Inside the kernel's rows (the output's guard is a branch) and every branch open here.
  int depth = std::max(em_->DeepestBranch(), 1);
  for (const std::string& var : address.Variables()) {
    if (!IsCVar(var) || var == "$gid" || var == "$lid") continue;
    const std::string name = var.substr(1);
    int at = 0;
    for (const SequentialLoop& loop : seq_loops_) {
      if (loop.emitter == em_ && loop.index == var) at = loop.depth;
    }
    for (const UnrolledLoop& loop : unrolled_) {
      if (loop.index == var) at = loop.depth;
    }
    // Another variable of the generator's (an index computed in a block of its own): read where
    // it is.
    if (at == 0) at = em_->depth();
    depth = std::max(depth, at);
  }
  auto [it, fresh] = loads_.try_emplace(absl::StrCat(depth, ":", load));
  if (fresh) {
    const std::string ctype = CType(type);
    it->second = std::make_shared<Memo>(
        &em_,
        [this, ctype, load]() -> absl::StatusOr<std::vector<std::string>> {
          const std::string name = em_->Fresh("ld");
          em_->Emit(absl::StrCat("const ", ctype, " ", name, " = ", load, ";"));
          return std::vector<std::string>{name};
        },
        depth);
  }
  DFC_ASSIGN_OR_RETURN(std::vector<std::string> names, it->second->Get());
  return names[0];
}

}  // namespace dfc::codegen::gen
