// Evaluating IR in the generator: expressions, λs, UserFuns, and the patterns as views
// (index arithmetic) or calls into the folds (generator.h).
#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "codegen/generator.h"
#include "ir/from_tf/scalar_funs.h"
#include "rewrite/lowering.h"

namespace dfc::codegen::gen {

namespace {

// Whether `f` only views its element as scalars (AsScalar, or a λ of AsScalar and Join of its
// parameter: blockColumns' blocks of vectors read as one row): a Map of it writes its rows as
// its argument does (a TransposeW's columns, vector by vector).
bool ViewsItsElement(const ir::Fun& f) {
  if (f.kind == ir::Fun::Kind::kAsScalar) return true;
  if (f.kind != ir::Fun::Kind::kLambda) return false;
  const auto& lambda = static_cast<const ir::Lambda&>(f);
  if (lambda.params.size() != 1) return false;
  const ir::Expr* e = lambda.body.get();
  bool as_scalar = false;
  while (e->kind == ir::Expr::Kind::kFunCall) {
    const auto& call = static_cast<const ir::FunCall&>(*e);
    if (call.args.size() != 1) return false;
    if (call.f->kind == ir::Fun::Kind::kAsScalar) {
      as_scalar = true;
    } else if (call.f->kind != ir::Fun::Kind::kJoin) {
      return false;
    }
    e = call.args[0].get();
  }
  return as_scalar && e == lambda.params[0].get();
}

// Whether a value of `type` is bound without emitting (Generator::Bind): arrays, tuples of them.
bool BoundAsIs(const TypePtr& type) {
  if (type->is_array()) return true;
  return type->is_tuple() && absl::c_all_of(type->elements, BoundAsIs);
}

bool ViewExpr(const ir::Expr& e, const Env& env, std::vector<const ir::Param*>& locals);

// Whether applying `f` to views makes a view without emitting (CVal::view): a λ of array
// parameters whose body only rearranges them and other views, or such a pattern.
bool ViewFunction(const Fun& f, const Env& env, std::vector<const ir::Param*>& locals) {
  using K = Fun::Kind;
  switch (f.kind) {
    case K::kLambda: {
      const auto& lambda = static_cast<const ir::Lambda&>(f);
      const size_t scope = locals.size();
      for (const ir::ParamPtr& p : lambda.params) {
        if (!BoundAsIs(p->type)) return false;
        locals.push_back(p.get());
      }
      const bool view = ViewExpr(*lambda.body, env, locals);
      locals.resize(scope);
      return view;
    }
    case K::kMapSeq:
      return ViewFunction(*ir::As<ir::FunPattern>(f).f, env, locals);
    case K::kPad: {
      const ir::PadMode mode = ir::As<ir::PadPattern>(f).mode;
      return mode == ir::PadMode::kConstant || mode == ir::PadMode::kClamp;
    }
    case K::kJoin:
    case K::kSplit:
    case K::kSlide:
    case K::kTranspose:
    case K::kZip:
    case K::kGet:
    case K::kTuple:
    case K::kId:
      return true;
    default:
      return false;
  }
}

bool ViewExpr(const ir::Expr& e, const Env& env, std::vector<const ir::Param*>& locals) {
  switch (e.kind) {
    case ir::Expr::Kind::kParam: {
      const auto* p = static_cast<const ir::Param*>(&e);
      if (absl::c_linear_search(locals, p)) return true;
      const CVal* bound = Lookup(env, p);
      return bound != nullptr && bound->type->is_array() && bound->view;
    }
    case ir::Expr::Kind::kLiteral:
      return false;
    case ir::Expr::Kind::kFunCall: {
      const auto& call = static_cast<const ir::FunCall&>(e);
      return ViewFunction(*call.f, env, locals) &&
             absl::c_all_of(call.args, [&](const ExprPtr& a) { return ViewExpr(*a, env, locals); });
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<CVal> Generator::Eval(const ExprPtr& expr, const Env& env) {
  switch (expr->kind) {
    case ir::Expr::Kind::kParam: {
      const CVal* value = Lookup(env, static_cast<const ir::Param*>(expr.get()));
      if (value == nullptr) {
        return absl::InternalError(
            absl::StrCat("parameter ", static_cast<const ir::Param&>(*expr).name, " is not bound"));
      }
      return *value;
    }
    case ir::Expr::Kind::kLiteral: {
      const ir::Scalar& s = static_cast<const ir::Literal&>(*expr).value;
      if (s.dtype == DType::kDouble) uses_double_ = true;
      return CVal{expr->type,
                  [text = ScalarLiteral(s)]() -> absl::StatusOr<std::string> { return text; }};
    }
    case ir::Expr::Kind::kFunCall: {
      const auto& call = static_cast<const ir::FunCall&>(*expr);
      if (call.f->kind == Fun::Kind::kToGlobal && top_level_) return Materialize(call.args[0], env);
      if (call.f->kind == Fun::Kind::kLambda) {
        DFC_ASSIGN_OR_RETURN(Env bound, BindLet(call, env));
        return Eval(static_cast<const ir::Lambda&>(*call.f).body, bound);
      }
      std::vector<CVal> args;
      for (const ExprPtr& a : call.args) {
        DFC_ASSIGN_OR_RETURN(CVal v, Eval(a, env));
        args.push_back(std::move(v));
      }
      // At a literal index known to be in range (a vector filled with a Reduce's initial
      // value, rewrite::VectorizeColumns): the element itself, with no check to emit.
      if (call.f->kind == Fun::Kind::kAt && call.args[1]->kind == ir::Expr::Kind::kLiteral) {
        const int64_t i = static_cast<const ir::Literal&>(*call.args[1]).value.i;
        const std::optional<int64_t> n = args[0].type->length.AsConstant();
        if (n && i >= 0 && i < *n) return args[0].element(ArithExpr(i));
      }
      return Apply(*call.f, std::move(args), expr->type, env);
    }
  }
  return absl::InternalError("unknown expression kind");
}

absl::StatusOr<CVal> Generator::Apply(const Fun& f, std::vector<CVal> args, const TypePtr& result,
                                      const Env& env) {
  switch (f.kind) {
    case Fun::Kind::kLambda:
      return ApplyLambda(static_cast<const ir::Lambda&>(f), std::move(args), env);
    case Fun::Kind::kUserFun:
      return CallUserFun(static_cast<const ir::UserFun&>(f), std::move(args));
    default:
      return ApplyPattern(static_cast<const ir::Pattern&>(f), std::move(args), result, env);
  }
}

absl::StatusOr<CVal> Generator::ApplyLambda(const ir::Lambda& lambda, std::vector<CVal> args,
                                            const Env& env) {
  DFC_ASSIGN_OR_RETURN(Env bound, Bound(lambda, std::move(args), env, {}));
  return Eval(lambda.body, bound);
}

absl::StatusOr<Env> Generator::BindLet(const ir::FunCall& let, const Env& env) {
  std::vector<CVal> args(let.args.size());
  std::vector<bool> kept;  // the arguments lowered to ToPrivate
  // Tensors a let binds together at the top level are stored by one kernel.
  std::vector<size_t> together;
  std::vector<ExprPtr> values;  // what each stores
  for (size_t k = 0; top_level_ && k < let.args.size(); ++k) {
    if (const ir::FunCall* stored = rewrite::CallOf(let.args[k], Fun::Kind::kToGlobal)) {
      together.push_back(k);
      values.push_back(stored->args[0]);
    }
  }
  if (together.size() > 1) {
    DFC_ASSIGN_OR_RETURN(std::vector<CVal> stored, MaterializeTogether(values, env));
    for (size_t i = 0; i < together.size(); ++i) args[together[i]] = std::move(stored[i]);
  } else {
    together.clear();
  }
  for (size_t k = 0; k < let.args.size(); ++k) {
    const ExprPtr& a = let.args[k];
    // A tensor the cluster binds is stored by a kernel of its own, as the lowering said
    // (rewrite::ToGlobalLet); evaluated where it is read instead, a chain of them would
    // grow the code exponentially.
    if (top_level_ && rewrite::IsUnstoredTensor(a)) {
      return absl::InternalError(absl::StrCat("a let at the cluster's top level binds a ",
                                              ir::TypeToString(a->type),
                                              " that is not lowered to ToGlobal"));
    }
    const ir::FunCall* to_private = rewrite::CallOf(a, Fun::Kind::kToPrivate);
    kept.push_back(to_private != nullptr);
    if (top_level_ && rewrite::CallOf(a, Fun::Kind::kToGlobal) == nullptr) {
      unstored_lets_.emplace_back(static_cast<const ir::Lambda&>(*let.f).params[k].get(), a);
    }
    if (absl::c_linear_search(together, k)) continue;
    DFC_ASSIGN_OR_RETURN(args[k], Eval(kept.back() ? to_private->args[0] : a, env));
  }
  return Bound(static_cast<const ir::Lambda&>(*let.f), std::move(args), env, kept);
}

absl::StatusOr<Env> Generator::Bound(const ir::Lambda& lambda, std::vector<CVal> args,
                                     const Env& env, const std::vector<bool>& kept) {
  auto bound = std::make_shared<Frame>(Frame{.root = env->root, .parent = env, .bindings = {}});
  for (size_t k = 0; k < args.size(); ++k) {
    CVal v = std::move(args[k]);
    if (k < kept.size() && kept[k]) {
      if (top_level_ || !v.type->is_array() || !ConstantElements(v.type)) {
        return absl::InternalError(absl::StrCat("ToPrivate of a ", ir::TypeToString(v.type),
                                                top_level_ ? " outside the rows of a kernel" : ""));
      }
      DFC_ASSIGN_OR_RETURN(v, MaterializePrivately(v));
    } else {
      DFC_ASSIGN_OR_RETURN(v, Bind(std::move(v)));
    }
    bound->bindings[lambda.params[k].get()] = std::move(v);
  }
  return Env(std::move(bound));
}

absl::StatusOr<CVal> Generator::CallUserFun(const ir::UserFun& f, std::vector<CVal> args) {
  for (const TypePtr& t : f.param_types) {
    if (!t->is_scalar()) return Unsupported(absl::StrCat("UserFun ", f.name, " on non-scalars"));
    if (t->dtype == DType::kDouble) uses_double_ = true;
    if (t->dtype == DType::kHalf) uses_half_ = true;
  }
  if (f.result_type->dtype == DType::kHalf) uses_half_ = true;
  if (f.result_type->dtype == DType::kDouble) uses_double_ = true;
  // Applied lane by lane to vectors of one width (the type rule): a twin with vector parameters
  // (VectorRefusal), a scalar argument widened to every lane.
  int width = 1;
  for (const CVal& a : args) width = a.type->is_vector() ? a.type->width : width;
  std::string name = f.name;
  if (width > 1) {
    if (std::optional<std::string> why = VectorRefusal(f)) return Unsupported(*why);
    name = absl::StrCat(f.name, "_x", width);
    vector_funs_.emplace(name, std::pair{&f, width});
  } else {
    user_funs_.emplace(f.name, &f);
  }
  fun_ops_[name] = width;
  const bool round = f.result_type->dtype == DType::kHalf;
  const TypePtr result = width > 1 ? ir::VectorType(f.result_type->dtype, width) : f.result_type;
  if (f.arithmetic == ir::UserFun::Arithmetic::kAdd && args.size() == 2 &&
      (args[0].factors != nullptr) != (args[1].factors != nullptr)) {
    // acc + x * y as one fused multiply-add: one rounding where two were, nearer the reference
    // executor's double sums, and half the instructions.
    const int product = args[1].factors != nullptr ? 1 : 0;
    const std::string fused =
        absl::StrCat(f.name, "_fma", width > 1 ? absl::StrCat("_x", width) : "");
    fma_funs_.emplace(fused, std::pair{&f, width});
    fun_ops_[fused] = 2 * width;
    std::vector<CVal> operands = {args[1 - product], args[product].factors->first,
                                  args[product].factors->second};
    return CVal{
        .type = result, .scalar = [fused, operands, width]() -> absl::StatusOr<std::string> {
          std::vector<std::string> texts;
          for (const CVal& a : operands) {
            DFC_ASSIGN_OR_RETURN(std::string t, a.scalar());
            if (width > 1 && a.type->is_scalar()) {
              t = absl::StrCat("((", CType(ir::VectorType(a.type->dtype, width)), ")(", t, "))");
            }
            texts.push_back(std::move(t));
          }
          return absl::StrCat(fused, "(", absl::StrJoin(texts, ", "), ")");
        }};
  }
  CVal out{.type = result, .scalar = [name, args, round, width]() -> absl::StatusOr<std::string> {
             std::vector<std::string> texts;
             for (const CVal& a : args) {
               DFC_ASSIGN_OR_RETURN(std::string t, a.scalar());
               if (width > 1 && a.type->is_scalar()) {
                 t = absl::StrCat("((", CType(ir::VectorType(a.type->dtype, width)), ")(", t, "))");
               }
               texts.push_back(std::move(t));
             }
             std::string call = absl::StrCat(name, "(", absl::StrJoin(texts, ", "), ")");
             return round ? absl::StrCat("dfc_round_half(", call, ")") : call;
           }};
  if (f.arithmetic == ir::UserFun::Arithmetic::kMultiply && args.size() == 2) {
    out.factors = std::make_shared<const std::pair<CVal, CVal>>(args[0], args[1]);
  }
  return out;
}

absl::StatusOr<CVal> Generator::ApplyPattern(const ir::Pattern& p, std::vector<CVal> args,
                                             const TypePtr& result, const Env& env) {
  using K = Fun::Kind;
  CVal out{result};
  switch (p.kind) {
    case K::kMap:
    case K::kReduce:
    case K::kMapLcl:
      // The lowering (LowerForDevice) maps every Map and Reduce onto the device.
      return absl::InternalError(
          absl::StrCat("the code generator met ", ir::FunName(p), ", which is not lowered"));
    case K::kMapGlb:  // a kernel's rows (the lowering left no other)
    case K::kMapWrg:
    case K::kMapSeq: {
      const ir::Fun& f = *ir::As<ir::FunPattern>(p).f;
      const TypePtr type = result->element;
      std::vector<const ir::Param*> locals;
      const bool f_is_view = args[0].view && ViewFunction(f, env, locals);
      CVal mapped = MappedView(
          args[0], result,
          [this, &f, type, env](CVal element) -> absl::StatusOr<CVal> {
            const bool saved = top_level_;
            top_level_ = false;
            absl::StatusOr<CVal> v = Apply(f, {std::move(element)}, type, env);
            top_level_ = saved;
            return v;
          },
          f_is_view);
      if (ViewsItsElement(f)) mapped.writer = args[0].writer;
      return mapped;
    }
    case K::kReduceSeq:
    case K::kReduceLcl:
    case K::kReduceLanes:
      return ReduceSeq(ir::As<ir::FunPattern>(p), std::move(args), env);
    case K::kZip:
      return ZippedView(std::move(args), result);
    case K::kGet:
      return args[0].fields[ir::As<ir::GetPattern>(p).index];
    case K::kTuple:
      out.fields = std::move(args);
      return out;
    case K::kId:
    case K::kToGlobal:
    case K::kToLocal:
    case K::kToPrivate:
      if (p.kind == K::kId) return args[0];
      return Apply(*ir::As<ir::FunPattern>(p).f, std::move(args), result, env);
    case K::kSplit: {
      const ArithExpr& chunk = ir::As<ir::SplitPattern>(p).chunk;
      const CVal& array = args[0];
      out.view = array.view;
      if (array.rows != nullptr && array.rows->type->element->length == chunk) {
        // Split(m) o Join of rows of m is the rows: each obtained once, where a window would
        // obtain its row again for every element.
        out.element = array.rows->element;
        return out;
      }
      out.element = Windows(array, result->element, chunk);
      return out;
    }
    case K::kJoin: {
      const ArithExpr& row = args[0].type->element->length;
      if (row.AsConstant() == 1 && args[0].flat_buffer.empty()) {
        // Rows of one element join to the array of those elements, a Map: it keeps the rows'
        // own rows (a window's taps over one input channel). Rows in order in memory take the
        // path below, which keeps them contiguous.
        return MappedView(
            args[0], result, [](const CVal& r) -> absl::StatusOr<CVal> { return r.element(0); },
            /*f_is_view=*/true);
      }
      // Rows of length 0 join to an empty array, whose elements are never read: divide by 1
      // there rather than by zero.
      const ArithExpr m = row.AsConstant() == 0 ? ArithExpr(1) : row;
      out.view = args[0].view;
      out.element = [array = args[0], m](const ArithExpr& k) -> absl::StatusOr<CVal> {
        DFC_ASSIGN_OR_RETURN(CVal row, array.element(k / m));
        return row.element(k % m);
      };
      if (const std::optional<int64_t> length = m.AsConstant(); length && *length > 1) {
        out.rows = std::make_shared<const CVal>(args[0]);
      }
      if (!args[0].flat_buffer.empty()) {  // rows in order in memory join to what they were
        (result->element->is_scalar() ? out.buffer : out.flat_buffer) = args[0].flat_buffer;
        (result->element->is_scalar() ? out.base : out.flat_base) = args[0].flat_base;
      }
      return out;
    }
    case K::kTranspose:
    case K::kTransposeW:
      out = TransposedView(args[0], result);
      if (p.kind == K::kTransposeW) {
        out.writer = [this, columns = args[0]](const StoreTarget& target) {
          return StoreColumns(columns, target);
        };
      }
      return out;
    case K::kSlide:
      out.view = args[0].view;
      out.element = Windows(args[0], result->element, ir::As<ir::SlidePattern>(p).step);
      return out;
    case K::kPad: {
      const ir::PadPattern& pad = ir::As<ir::PadPattern>(p);
      out.view =
          args[0].view && (pad.mode == ir::PadMode::kConstant || pad.mode == ir::PadMode::kClamp);
      out.element = [this, &pad, array = args[0]](const ArithExpr& j) -> absl::StatusOr<CVal> {
        const ArithExpr src = j - pad.left;  // the index into `array`
        if (pad.mode == ir::PadMode::kClamp) {
          return array.element(ArithExpr::Min(ArithExpr::Max(src, 0), array.type->length - 1));
        }
        const std::string at = Print(src);
        const std::string n = Print(array.type->length);
        if (pad.mode == ir::PadMode::kConstant) {
          CVal fill = Filled(array.type->element, pad.value);
          return Select(
              array.type->element, absl::StrCat(at, " >= 0 && ", at, " < ", n),
              [array, src]() { return array.element(src); },
              [fill]() -> absl::StatusOr<CVal> { return fill; });
        }
        // A mirrored border: an index of its own, in range.
        std::string index;
        switch (pad.mode) {
          case ir::PadMode::kReflect:
            index = absl::StrCat("(", at, " < 0 ? -", at, " : (", at, " >= ", n, " ? 2 * (", n,
                                 " - 1) - ", at, " : ", at, "))");
            break;
          case ir::PadMode::kSymmetric:
            index = absl::StrCat("(", at, " < 0 ? -", at, " - 1 : (", at, " >= ", n, " ? 2 * ", n,
                                 " - 1 - ", at, " : ", at, "))");
            break;
          default:
            return absl::InternalError("unknown pad mode");
        }
        const std::string name = em_->Fresh("at");
        em_->Emit(absl::StrCat("const long ", name, " = ", index, ";"));
        return array.element(CVar(name));
      };
      return out;
    }
    case K::kReindex: {
      // A shift, out[i] = in[i + c], keeps a contiguous array contiguous.
      const ir::ReindexPattern& reindex = ir::As<ir::ReindexPattern>(p);
      const ArithExpr offset = reindex.index_fn - ir::IndexVar();
      const std::vector<std::string> vars = offset.Variables();
      if (!args[0].buffer.empty() &&
          std::ranges::find(vars, ir::IndexVar().var_name()) == vars.end()) {
        out.buffer = args[0].buffer;
        out.base = args[0].base + offset;
      }
      out.element = [this, &reindex, array = args[0]](const ArithExpr& i) -> absl::StatusOr<CVal> {
        const std::string at = em_->Fresh("at");
        const ArithExpr index = reindex.index_fn.Substitute({{ir::IndexVar().var_name(), i}});
        em_->Emit(absl::StrCat("const long ", at, " = ", Print(index), ";"));
        return array.element(CVar(at));
      };
      return out;
    }
    case K::kConcat:
      out.element = [this, args, result](const ArithExpr& i) -> absl::StatusOr<CVal> {
        // Part k holds indices [start_k, start_k + n_k): select down the parts. Each part's
        // value is made inside its own branch: made before the select, a part's fold would run
        // for every index, reading its rows at indices of the other parts (out of bounds).
        using Part = std::function<absl::StatusOr<CVal>(size_t, const ArithExpr&)>;
        auto part = std::make_shared<Part>();
        *part = [this, args, i, total = result->length, self = std::weak_ptr<Part>(part)](
                    size_t k, const ArithExpr& start) -> absl::StatusOr<CVal> {
          const ArithExpr local = i - start;
          if (k + 1 == args.size()) return args[k].element(local);
          const ArithExpr end = start + args[k].type->length;
          const CVal& a = args[k];
          // Part k runs for its length's share of the indices from `start` on.
          std::pair<Share, Share> shares;
          const std::optional<int64_t> n = a.type->length.AsConstant();
          const std::optional<int64_t> remaining = (total - start).AsConstant();
          if (n && remaining && *remaining > 0) {
            shares = {Share{*n, *remaining}, Share{*remaining - *n, *remaining}};
          }
          return Select(
              a.type->element, absl::StrCat(Print(i), " < ", Print(end)),
              [a, local]() { return a.element(local); },
              [rest = self.lock(), k, end]() { return (*rest)(k + 1, end); }, shares);
        };
        return (*part)(0, 0);
      };
      return out;
    case K::kRepeat:
      out.view = args[0].view || !args[0].type->is_array();
      out.element = [value = args[0]](const ArithExpr&) -> absl::StatusOr<CVal> { return value; };
      return out;
    case K::kIota:
      out.element = [this, dtype = ir::As<ir::SizePattern>(p).dtype](
                        const ArithExpr& i) -> absl::StatusOr<CVal> {
        return CVal{ir::ScalarType(dtype), [this, dtype, i]() -> absl::StatusOr<std::string> {
                      return absl::StrCat("((", ir::OpenCLType(dtype), ")(", Print(i), "))");
                    }};
      };
      return out;
    case K::kSizeValue: {
      const std::string value = absl::StrCat("((", ir::OpenCLType(ir::As<ir::SizePattern>(p).dtype),
                                             ")(", Print(ir::As<ir::SizePattern>(p).size), "))");
      out.scalar = [value]() -> absl::StatusOr<std::string> { return value; };
      return out;
    }
    case K::kAt: {
      const std::string n = Print(args[0].type->length);
      // A runtime index out of range flags the error and reads zeros, never outside a buffer.
      auto read = [this, array = args[0], index = args[1], n]() -> absl::StatusOr<CVal> {
        DFC_ASSIGN_OR_RETURN(std::string i, index.scalar());
        const std::string at = em_->Fresh("at");
        em_->Emit(absl::StrCat("const long ", at, " = (long)(", i, ");"));
        const std::string ok = absl::StrCat("(ulong)", at, " < (ulong)", n);
        em_->Emit(absl::StrCat("if (!(", ok, ")) *dfc_error = 1;"));
        checks_indices_ = true;
        return Select(
            array.type->element, ok, [array, at]() { return array.element(CVar(at)); },
            [this, t = array.type->element]() -> absl::StatusOr<CVal> {
              return Filled(t, ir::Scalar::Int(ir::BaseDType(t), 0));
            });
      };
      // The index is read where the element is: defer through the value's shape.
      if (result->is_scalar()) {
        out.scalar = [read]() -> absl::StatusOr<std::string> {
          DFC_ASSIGN_OR_RETURN(CVal v, read());
          return v.scalar();
        };
        return out;
      }
      return read();
    }
    case K::kAsVector: {
      const TypePtr vector = result->element;
      if (std::optional<std::string> why = AsVectorRefusal(vector->dtype)) return Unsupported(*why);
      out.element = [this, array = args[0], vector](const ArithExpr& i) {
        return VectorAt(array, vector, i);
      };
      return out;
    }
    case K::kAsScalar: {
      const TypePtr vector = args[0].type->element;
      out.writer = [this, vectors = args[0]](const StoreTarget& target) {
        return StoreVectors(vectors, target);
      };
      out.element = [this, array = args[0], vector,
                     scalar = result->element](const ArithExpr& k) -> absl::StatusOr<CVal> {
        return CVal{scalar, [this, array, vector, k]() -> absl::StatusOr<std::string> {
                      const int w = vector->width;
                      DFC_ASSIGN_OR_RETURN(CVal v, array.element(k / w));
                      DFC_ASSIGN_OR_RETURN(std::string text, v.scalar());
                      // A lane at a runtime index: through the address of a private copy.
                      const std::string name = em_->Fresh("vec");
                      em_->Emit(absl::StrCat("const ", CType(vector), " ", name, " = ", text, ";"));
                      return absl::StrCat("((const ", ir::OpenCLType(vector->dtype), "*)&", name,
                                          ")[", Print(k % w), "]");
                    }};
      };
      return out;
    }
    default:
      break;
  }
  return Unsupported(ir::FunName(p));
}

absl::StatusOr<CVal> Generator::VectorAt(const CVal& array, const TypePtr& vector,
                                         const ArithExpr& i) {
  const int w = vector->width;
  const ArithExpr first = i * w;
  if (array.selected != nullptr) {
    const auto branch = [this, vector, i](const Lazy& whole) -> Lazy {
      return [this, vector, i, whole]() -> absl::StatusOr<CVal> {
        DFC_ASSIGN_OR_RETURN(CVal v, whole());
        return VectorAt(v, vector, i);
      };
    };
    const CVal::Selected& s = *array.selected;
    return Select(vector, s.cond, branch(s.then), branch(s.other));
  }
  if (!array.buffer.empty()) {  // contiguous: one load
    const ArithExpr offset = array.base + first;
    const bool global = global_buffers_.contains(array.buffer);
    return CVal{
        vector,
        [this, buffer = array.buffer, offset, global, w, vector]() -> absl::StatusOr<std::string> {
          if (global) Prefetch(buffer, offset);
          std::string load = absl::StrCat("vload", w, "(0, ", buffer, " + ", Print(offset), ")");
          if (!global) return load;
          return LoadOnce(load, vector, offset);
        }};
  }
  return CVal{vector, [array, vector, w, first]() -> absl::StatusOr<std::string> {
                std::vector<std::string> lanes;
                for (int k = 0; k < w; ++k) {
                  DFC_ASSIGN_OR_RETURN(CVal e, array.element(first + k));
                  DFC_ASSIGN_OR_RETURN(std::string text, e.scalar());
                  lanes.push_back(std::move(text));
                }
                return absl::StrCat("((", CType(vector), ")(", absl::StrJoin(lanes, ", "), "))");
              }};
}

}  // namespace dfc::codegen::gen
