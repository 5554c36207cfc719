// IR construction: pattern factories, building helpers, structural equality. The type inference
// at every call is expr_typing.cc's.
#include "ir/expr.h"

#include <atomic>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status.h"

namespace dfc::ir {
namespace {

int64_t NextId() {
  static std::atomic<int64_t> next{0};
  return next++;
}

}  // namespace

ParamPtr MakeParam(absl::string_view name, TypePtr type) {
  return std::make_shared<Param>(std::string(name), std::move(type), NextId());
}

ExprPtr MakeLiteral(Scalar value) { return std::make_shared<Literal>(value); }

ArithExpr IndexVar() { return ArithExpr::Var("i"); }

FunPtr WithFunction(const FunPattern& pattern, FunPtr f) {
  return std::make_shared<FunPattern>(pattern.kind, std::move(f), pattern.dim);
}

bool FunPattern::Holds(Kind k) {
  return IsMap(k) || IsReduce(k) || k == Kind::kToGlobal || k == Kind::kToLocal ||
         k == Kind::kToPrivate;
}

namespace {

FunPtr Plain(Fun::Kind kind) { return std::make_shared<Pattern>(kind); }
FunPtr Applying(Fun::Kind kind, FunPtr f, int dim = 0) {
  return std::make_shared<FunPattern>(kind, std::move(f), dim);
}

}  // namespace

FunPtr Map(FunPtr f) { return Applying(Fun::Kind::kMap, std::move(f)); }
FunPtr Reduce(FunPtr f) { return Applying(Fun::Kind::kReduce, std::move(f)); }
FunPtr Zip(int arity) { return std::make_shared<ArityPattern>(Fun::Kind::kZip, arity); }
FunPtr Get(int index) { return std::make_shared<GetPattern>(index); }
FunPtr Tuple(int arity) { return std::make_shared<ArityPattern>(Fun::Kind::kTuple, arity); }
FunPtr Split(ArithExpr chunk) { return std::make_shared<SplitPattern>(std::move(chunk)); }
FunPtr Join() { return Plain(Fun::Kind::kJoin); }
FunPtr Transpose() { return Plain(Fun::Kind::kTranspose); }
FunPtr Slide(ArithExpr size, ArithExpr step) {
  return std::make_shared<SlidePattern>(std::move(size), std::move(step));
}
FunPtr Pad(ArithExpr left, ArithExpr right, PadMode mode, Scalar value) {
  return std::make_shared<PadPattern>(std::move(left), std::move(right), mode, value);
}
FunPtr AsVector(int width) {
  DFC_CHECK(width == 2 || width == 4 || width == 8 || width == 16);
  return std::make_shared<AsVectorPattern>(width);
}
FunPtr AsScalar() { return Plain(Fun::Kind::kAsScalar); }
FunPtr Id() { return Plain(Fun::Kind::kId); }
FunPtr Reindex(ArithExpr length, ArithExpr index_fn) {
  return std::make_shared<ReindexPattern>(std::move(length), std::move(index_fn));
}
FunPtr Concat(int arity) { return std::make_shared<ArityPattern>(Fun::Kind::kConcat, arity); }
FunPtr Repeat(ArithExpr count) { return std::make_shared<RepeatPattern>(std::move(count)); }
FunPtr Iota(ArithExpr count, DType dtype) {
  return std::make_shared<SizePattern>(Fun::Kind::kIota, std::move(count), dtype);
}
FunPtr At() { return Plain(Fun::Kind::kAt); }
FunPtr SizeValue(ArithExpr value, DType dtype) {
  DFC_CHECK(IsInteger(dtype));
  return std::make_shared<SizePattern>(Fun::Kind::kSizeValue, std::move(value), dtype);
}
FunPtr MapGlb(int dim, FunPtr f) { return Applying(Fun::Kind::kMapGlb, std::move(f), dim); }
FunPtr MapWrg(int dim, FunPtr f) { return Applying(Fun::Kind::kMapWrg, std::move(f), dim); }
FunPtr MapLcl(int dim, FunPtr f) { return Applying(Fun::Kind::kMapLcl, std::move(f), dim); }
FunPtr MapSeq(FunPtr f) { return Applying(Fun::Kind::kMapSeq, std::move(f)); }
FunPtr ReduceSeq(FunPtr f) { return Applying(Fun::Kind::kReduceSeq, std::move(f)); }
FunPtr ReduceLcl(int dim, FunPtr f) { return Applying(Fun::Kind::kReduceLcl, std::move(f), dim); }
FunPtr ReduceLanes(FunPtr f) { return Applying(Fun::Kind::kReduceLanes, std::move(f)); }
FunPtr ToGlobal(FunPtr f) { return Applying(Fun::Kind::kToGlobal, std::move(f)); }
FunPtr ToLocal(FunPtr f) { return Applying(Fun::Kind::kToLocal, std::move(f)); }
FunPtr ToPrivate(FunPtr f) { return Applying(Fun::Kind::kToPrivate, std::move(f)); }
FunPtr TransposeW() { return Plain(Fun::Kind::kTransposeW); }

bool IsMap(Fun::Kind kind) {
  return kind == Fun::Kind::kMap || kind == Fun::Kind::kMapGlb || kind == Fun::Kind::kMapWrg ||
         kind == Fun::Kind::kMapLcl || kind == Fun::Kind::kMapSeq;
}

bool IsReduce(Fun::Kind kind) {
  return kind == Fun::Kind::kReduce || kind == Fun::Kind::kReduceSeq ||
         kind == Fun::Kind::kReduceLcl || kind == Fun::Kind::kReduceLanes;
}

std::string FunName(const Fun& f) {
  switch (f.kind) {
    case Fun::Kind::kLambda:
      return "λ";
    case Fun::Kind::kUserFun:
      return static_cast<const UserFun&>(f).name;
    case Fun::Kind::kMap:
      return "Map";
    case Fun::Kind::kReduce:
      return "Reduce";
    case Fun::Kind::kZip:
      return absl::StrCat("Zip(", As<ArityPattern>(f).arity, ")");
    case Fun::Kind::kGet:
      return absl::StrCat("Get(", As<GetPattern>(f).index, ")");
    case Fun::Kind::kTuple:
      return absl::StrCat("Tuple(", As<ArityPattern>(f).arity, ")");
    case Fun::Kind::kSplit:
      return absl::StrCat("Split(", As<SplitPattern>(f).chunk.ToString(), ")");
    case Fun::Kind::kJoin:
      return "Join()";
    case Fun::Kind::kTranspose:
      return "Transpose()";
    case Fun::Kind::kSlide:
      return absl::StrCat("Slide(", As<SlidePattern>(f).size.ToString(), ", ",
                          As<SlidePattern>(f).step.ToString(), ")");
    case Fun::Kind::kPad: {
      static constexpr const char* kModes[] = {"", "clamp", "reflect", "symmetric"};
      const auto& pad = As<PadPattern>(f);
      std::string mode = pad.mode == PadMode::kConstant ? pad.value.ToString()
                                                        : kModes[static_cast<int>(pad.mode)];
      return absl::StrCat("Pad(", pad.left.ToString(), ", ", pad.right.ToString(), ", ", mode, ")");
    }
    case Fun::Kind::kAsVector:
      return absl::StrCat("AsVector(", As<AsVectorPattern>(f).width, ")");
    case Fun::Kind::kAsScalar:
      return "AsScalar()";
    case Fun::Kind::kId:
      return "Id()";
    case Fun::Kind::kReindex:
      return absl::StrCat("Reindex(", As<ReindexPattern>(f).length.ToString(), ", i => ",
                          As<ReindexPattern>(f).index_fn.ToString(), ")");
    case Fun::Kind::kConcat:
      return absl::StrCat("Concat(", As<ArityPattern>(f).arity, ")");
    case Fun::Kind::kRepeat:
      return absl::StrCat("Repeat(", As<RepeatPattern>(f).count.ToString(), ")");
    case Fun::Kind::kIota:
      return absl::StrCat("Iota(", As<SizePattern>(f).size.ToString(), ", ",
                          DTypeName(As<SizePattern>(f).dtype), ")");
    case Fun::Kind::kAt:
      return "At()";
    case Fun::Kind::kSizeValue:
      return absl::StrCat("SizeValue(", As<SizePattern>(f).size.ToString(), ", ",
                          DTypeName(As<SizePattern>(f).dtype), ")");
    case Fun::Kind::kMapGlb:
      return absl::StrCat("MapGlb(", As<FunPattern>(f).dim, ")");
    case Fun::Kind::kMapWrg:
      return absl::StrCat("MapWrg(", As<FunPattern>(f).dim, ")");
    case Fun::Kind::kMapLcl:
      return absl::StrCat("MapLcl(", As<FunPattern>(f).dim, ")");
    case Fun::Kind::kMapSeq:
      return "MapSeq";
    case Fun::Kind::kReduceSeq:
      return "ReduceSeq";
    case Fun::Kind::kReduceLcl:
      return absl::StrCat("ReduceLcl(", As<FunPattern>(f).dim, ")");
    case Fun::Kind::kReduceLanes:
      return "ReduceLanes";
    case Fun::Kind::kToGlobal:
      return "ToGlobal";
    case Fun::Kind::kToLocal:
      return "ToLocal";
    case Fun::Kind::kToPrivate:
      return "ToPrivate";
    case Fun::Kind::kTransposeW:
      return "TransposeW()";
  }
  return "?";
}

// ---- Building ----------------------------------------------------------------------------------

absl::StatusOr<FunPtr> MakeLambda(std::vector<TypePtr> param_types, const BodyFn& body,
                                  std::vector<std::string> names) {
  std::vector<ParamPtr> params;
  std::vector<ExprPtr> exprs;
  for (size_t k = 0; k < param_types.size(); ++k) {
    std::string name = k < names.size() ? names[k] : absl::StrCat("p", k);
    params.push_back(MakeParam(name, param_types[k]));
    exprs.push_back(params.back());
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr b, body(exprs));
  return std::make_shared<Lambda>(std::move(params), std::move(b));
}

FunPtr MakeUserFun(absl::string_view name, std::vector<std::string> param_names,
                   absl::string_view body, std::vector<DType> param_types, DType result,
                   UserFun::HostFn host, UserFun::Arithmetic arithmetic) {
  DFC_CHECK(param_names.size() == param_types.size());
  std::vector<TypePtr> types;
  for (DType d : param_types) types.push_back(ScalarType(d));
  return std::make_shared<UserFun>(std::string(name), std::move(param_names), std::string(body),
                                   std::move(types), ScalarType(result), std::move(host),
                                   /*combiner=*/false, arithmetic);
}

FunPtr MakeCombiner(absl::string_view name, absl::string_view body, DType dtype,
                    UserFun::HostFn host, UserFun::Arithmetic arithmetic) {
  return std::make_shared<UserFun>(
      std::string(name), std::vector<std::string>{"acc", "x"}, std::string(body),
      std::vector<TypePtr>{ScalarType(dtype), ScalarType(dtype)}, ScalarType(dtype),
      std::move(host), /*combiner=*/true, arithmetic);
}

absl::StatusOr<ExprPtr> MapOver(const ExprPtr& array,
                                const std::function<absl::StatusOr<ExprPtr>(ExprPtr)>& body,
                                absl::string_view name) {
  if (!array->type->is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Map: argument has type ", TypeToString(array->type), ", expected an array"));
  }
  DFC_ASSIGN_OR_RETURN(FunPtr f, MakeLambda({array->type->element},
                                            [&](std::span<const ExprPtr> p) { return body(p[0]); },
                                            {std::string(name)}));
  return Call(Map(std::move(f)), {array});
}

absl::StatusOr<ExprPtr> ReduceOver(
    const ExprPtr& init, const ExprPtr& array,
    const std::function<absl::StatusOr<ExprPtr>(ExprPtr, ExprPtr)>& body) {
  if (!array->type->is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Reduce: argument has type ", TypeToString(array->type), ", expected an array"));
  }
  DFC_ASSIGN_OR_RETURN(
      FunPtr f,
      MakeLambda({init->type, array->type->element},
                 [&](std::span<const ExprPtr> p) { return body(p[0], p[1]); }, {"acc", "x"}));
  return Call(Reduce(std::move(f)), {init, array});
}

absl::StatusOr<ExprPtr> Let(const ExprPtr& value,
                            const std::function<absl::StatusOr<ExprPtr>(ExprPtr)>& body,
                            absl::string_view name) {
  DFC_ASSIGN_OR_RETURN(
      FunPtr f, MakeLambda({value->type}, [&](std::span<const ExprPtr> p) { return body(p[0]); },
                           {std::string(name)}));
  return Call(std::move(f), {value});
}

// ---- Structure ---------------------------------------------------------------------------------

namespace {

// Whether two patterns of one kind that apply no function have the same parameters.
bool SameParameters(const Fun& a, const Fun& b) {
  switch (a.kind) {
    case Fun::Kind::kZip:
    case Fun::Kind::kTuple:
    case Fun::Kind::kConcat:
      return As<ArityPattern>(a).arity == As<ArityPattern>(b).arity;
    case Fun::Kind::kGet:
      return As<GetPattern>(a).index == As<GetPattern>(b).index;
    case Fun::Kind::kSplit:
      return As<SplitPattern>(a).chunk == As<SplitPattern>(b).chunk;
    case Fun::Kind::kSlide: {
      const auto &x = As<SlidePattern>(a), &y = As<SlidePattern>(b);
      return x.size == y.size && x.step == y.step;
    }
    case Fun::Kind::kPad: {
      const auto &x = As<PadPattern>(a), &y = As<PadPattern>(b);
      return x.left == y.left && x.right == y.right && x.mode == y.mode && x.value == y.value;
    }
    case Fun::Kind::kAsVector:
      return As<AsVectorPattern>(a).width == As<AsVectorPattern>(b).width;
    case Fun::Kind::kReindex: {
      const auto &x = As<ReindexPattern>(a), &y = As<ReindexPattern>(b);
      return x.length == y.length && x.index_fn == y.index_fn;
    }
    case Fun::Kind::kRepeat:
      return As<RepeatPattern>(a).count == As<RepeatPattern>(b).count;
    case Fun::Kind::kIota:
    case Fun::Kind::kSizeValue: {
      const auto &x = As<SizePattern>(a), &y = As<SizePattern>(b);
      return x.size == y.size && x.dtype == y.dtype;
    }
    default:
      return true;
  }
}

// A hash of the parameters SameParameters compares (a Pad's value aside).
size_t ParametersHash(const Fun& f) {
  switch (f.kind) {
    case Fun::Kind::kZip:
    case Fun::Kind::kTuple:
    case Fun::Kind::kConcat:
      return absl::HashOf(As<ArityPattern>(f).arity);
    case Fun::Kind::kGet:
      return absl::HashOf(As<GetPattern>(f).index);
    case Fun::Kind::kSplit:
      return absl::HashOf(As<SplitPattern>(f).chunk);
    case Fun::Kind::kSlide:
      return absl::HashOf(As<SlidePattern>(f).size, As<SlidePattern>(f).step);
    case Fun::Kind::kPad: {
      const auto& pad = As<PadPattern>(f);
      return absl::HashOf(pad.left, pad.right, static_cast<int>(pad.mode));
    }
    case Fun::Kind::kAsVector:
      return absl::HashOf(As<AsVectorPattern>(f).width);
    case Fun::Kind::kReindex:
      return absl::HashOf(As<ReindexPattern>(f).length, As<ReindexPattern>(f).index_fn);
    case Fun::Kind::kRepeat:
      return absl::HashOf(As<RepeatPattern>(f).count);
    case Fun::Kind::kIota:
    case Fun::Kind::kSizeValue:
      return absl::HashOf(As<SizePattern>(f).size, static_cast<int>(As<SizePattern>(f).dtype));
    default:
      return 0;
  }
}

// Compares two expressions under a correspondence of the Params bound so far.
class Equality {
 public:
  bool Exprs(const ExprPtr& a, const ExprPtr& b) {
    if (a == b) return true;
    if (a->kind != b->kind || !TypeEquals(a->type, b->type)) return false;
    switch (a->kind) {
      case Expr::Kind::kParam: {
        auto it = bound_.find(static_cast<const Param*>(a.get()));
        return it != bound_.end() && it->second == b.get();
      }
      case Expr::Kind::kLiteral:
        return static_cast<const Literal&>(*a).value == static_cast<const Literal&>(*b).value;
      case Expr::Kind::kFunCall: {
        const auto& ca = static_cast<const FunCall&>(*a);
        const auto& cb = static_cast<const FunCall&>(*b);
        if (ca.args.size() != cb.args.size() || !Funs(ca.f, cb.f)) return false;
        for (size_t k = 0; k < ca.args.size(); ++k) {
          if (!Exprs(ca.args[k], cb.args[k])) return false;
        }
        return true;
      }
    }
    return false;
  }

  bool Funs(const FunPtr& a, const FunPtr& b) {
    if (a == b) return true;
    if (a->kind != b->kind) return false;
    if (a->kind == Fun::Kind::kLambda) {
      const auto& la = static_cast<const Lambda&>(*a);
      const auto& lb = static_cast<const Lambda&>(*b);
      if (la.params.size() != lb.params.size()) return false;
      for (size_t k = 0; k < la.params.size(); ++k) {
        if (!TypeEquals(la.params[k]->type, lb.params[k]->type)) return false;
        bound_[la.params[k].get()] = lb.params[k].get();
      }
      return Exprs(la.body, lb.body);
    }
    if (a->kind == Fun::Kind::kUserFun) {
      const auto& ua = static_cast<const UserFun&>(*a);
      const auto& ub = static_cast<const UserFun&>(*b);
      if (ua.name != ub.name || ua.body != ub.body || !TypeEquals(ua.result_type, ub.result_type) ||
          ua.param_types.size() != ub.param_types.size()) {
        return false;
      }
      for (size_t k = 0; k < ua.param_types.size(); ++k) {
        if (!TypeEquals(ua.param_types[k], ub.param_types[k])) return false;
      }
      return true;
    }
    if (FunPattern::Holds(a->kind)) {
      const auto& pa = As<FunPattern>(*a);
      const auto& pb = As<FunPattern>(*b);
      return pa.dim == pb.dim && Funs(pa.f, pb.f);
    }
    return SameParameters(*a, *b);
  }

 private:
  absl::flat_hash_map<const Param*, const Param*> bound_;
};

class Hasher {
 public:
  size_t Expr(const ExprPtr& e) {
    size_t h = absl::HashOf(static_cast<int>(e->kind), TypeHash(e->type));
    switch (e->kind) {
      case Expr::Kind::kParam: {
        auto it = bound_.find(static_cast<const Param*>(e.get()));
        return it != bound_.end() ? absl::HashOf(h, 1, it->second)
                                  : absl::HashOf(h, 2, static_cast<const Param&>(*e).id);
      }
      case Expr::Kind::kLiteral: {
        const Scalar& s = static_cast<const Literal&>(*e).value;
        return absl::HashOf(h, s.ToString());
      }
      case Expr::Kind::kFunCall: {
        const auto& c = static_cast<const FunCall&>(*e);
        h = absl::HashOf(h, Fun(c.f));
        for (const ExprPtr& a : c.args) h = absl::HashOf(h, Expr(a));
        return h;
      }
    }
    return h;
  }

  size_t Fun(const FunPtr& f) {
    size_t h = absl::HashOf(static_cast<int>(f->kind));
    if (f->kind == Fun::Kind::kLambda) {
      const auto& l = static_cast<const Lambda&>(*f);
      for (const ParamPtr& p : l.params) {
        bound_[p.get()] = next_position_++;
        h = absl::HashOf(h, TypeHash(p->type));
      }
      return absl::HashOf(h, Expr(l.body));
    }
    if (f->kind == Fun::Kind::kUserFun) {
      const auto& u = static_cast<const UserFun&>(*f);
      return absl::HashOf(h, u.name, u.body);
    }
    if (FunPattern::Holds(f->kind)) {
      const auto& p = As<FunPattern>(*f);
      return absl::HashOf(h, p.dim, Fun(p.f));
    }
    return absl::HashOf(h, ParametersHash(*f));
  }

 private:
  // Bound Params hash by the order in which their Lambdas are met, the same in equal trees.
  absl::flat_hash_map<const Param*, int64_t> bound_;
  int64_t next_position_ = 0;
};

}  // namespace

bool ExprEquals(const ExprPtr& a, const ExprPtr& b) { return Equality().Exprs(a, b); }
bool FunEquals(const FunPtr& a, const FunPtr& b) { return Equality().Funs(a, b); }
size_t ExprHash(const ExprPtr& e) { return Hasher().Expr(e); }
size_t FunHash(const FunPtr& f) { return Hasher().Fun(f); }

}  // namespace dfc::ir
