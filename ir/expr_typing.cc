// Type inference at every call: the result type of each function applied to arguments of given
// types, and Call, which checks it (see expr.h).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status.h"
#include "ir/expr.h"

namespace dfc::ir {
namespace {

absl::Status TypeError(const Fun& f, const std::string& message) {
  return absl::InvalidArgumentError(absl::StrCat(FunName(f), ": ", message));
}

std::string T(const TypePtr& t) { return TypeToString(t); }

// The result type of applying `f` to arguments of the given types.
absl::StatusOr<TypePtr> ResultType(const Fun& f, const std::vector<TypePtr>& arg_types);

absl::StatusOr<TypePtr> ResultType(const Fun& f, const std::vector<TypePtr>& types) {
  auto arity = [&](size_t n) -> absl::Status {
    if (types.size() == n) return absl::OkStatus();
    return TypeError(
        f, absl::StrCat("takes ", n, " argument", n == 1 ? "" : "s", ", got ", types.size()));
  };
  auto array = [&](int k) -> absl::Status {
    if (types[k]->is_array()) return absl::OkStatus();
    return TypeError(
        f, absl::StrCat("argument ", k, " has type ", T(types[k]), ", expected an array"));
  };
  // A length computed from the arguments' (std::nullopt: it overflowed int64, which only sizes
  // read from an absurd graph reach).
  auto fits = [&](std::optional<ArithExpr> n) -> absl::StatusOr<ArithExpr> {
    if (n) return *std::move(n);
    return TypeError(f, absl::StrCat("on ", T(types[0]), ": the result's length overflows int64"));
  };
  switch (f.kind) {
    case Fun::Kind::kLambda: {
      const auto& lambda = static_cast<const Lambda&>(f);
      DFC_RETURN_IF_ERROR(arity(lambda.params.size()));
      for (size_t k = 0; k < types.size(); ++k) {
        if (!TypeEquals(types[k], lambda.params[k]->type)) {
          return TypeError(
              f, absl::StrCat("argument ", k, " has type ", T(types[k]), ", but parameter ",
                              lambda.params[k]->name, " has type ", T(lambda.params[k]->type)));
        }
      }
      return lambda.body->type;
    }
    case Fun::Kind::kUserFun: {
      const auto& uf = static_cast<const UserFun&>(f);
      DFC_RETURN_IF_ERROR(arity(uf.param_types.size()));
      // Applied to scalars, or lane by lane to vectors of one width; a scalar argument beside
      // vectors is the same in every lane (as OpenCL C widens a scalar operand).
      int width = 1;
      for (size_t k = 0; k < types.size(); ++k) {
        const TypePtr& t = types[k];
        bool ok = (t->is_scalar() || t->is_vector()) && t->dtype == uf.param_types[k]->dtype;
        if (ok && t->is_vector()) {
          ok = width == 1 || t->width == width;
          width = t->width;
        }
        if (!ok) {
          return TypeError(f, absl::StrCat("argument ", k, " has type ", T(t), ", expected ",
                                           T(uf.param_types[k])));
        }
      }
      if (width > 1) return VectorType(uf.result_type->dtype, width);
      return uf.result_type;
    }
    case Fun::Kind::kMap:
    case Fun::Kind::kMapGlb:
    case Fun::Kind::kMapWrg:
    case Fun::Kind::kMapLcl:
    case Fun::Kind::kMapSeq: {
      DFC_RETURN_IF_ERROR(arity(1));
      DFC_RETURN_IF_ERROR(array(0));
      auto element = ResultType(*As<FunPattern>(f).f, {types[0]->element});
      if (!element.ok()) {
        return TypeError(f, absl::StrCat("on ", T(types[0]), ": ", element.status().message()));
      }
      return ArrayType(*element, types[0]->length);
    }
    case Fun::Kind::kReduce:
    case Fun::Kind::kReduceSeq:
    case Fun::Kind::kReduceLcl:
    case Fun::Kind::kReduceLanes: {
      DFC_RETURN_IF_ERROR(arity(2));
      DFC_RETURN_IF_ERROR(array(1));
      TypePtr element = types[1]->element;
      if (f.kind == Fun::Kind::kReduceLanes) {  // f folds the vector's lanes, scalars
        if (!types[0]->is_scalar() || !element->is_vector() || element->dtype != types[0]->dtype ||
            types[1]->length.AsConstant() != 1) {
          return TypeError(f, absl::StrCat("on (", T(types[0]), ", ", T(types[1]),
                                           "): expected a scalar and one vector of its dtype"));
        }
        element = types[0];
      }
      auto acc = ResultType(*As<FunPattern>(f).f, {types[0], element});
      if (!acc.ok()) {
        return TypeError(
            f, absl::StrCat("on (", T(types[0]), ", ", T(types[1]), "): ", acc.status().message()));
      }
      if (!TypeEquals(*acc, types[0])) {
        return TypeError(f, absl::StrCat("the function returns ", T(*acc),
                                         ", but the accumulator has type ", T(types[0])));
      }
      return types[0];
    }
    case Fun::Kind::kZip: {
      DFC_RETURN_IF_ERROR(arity(As<ArityPattern>(f).arity));
      std::vector<TypePtr> fields;
      for (int k = 0; k < As<ArityPattern>(f).arity; ++k) {
        DFC_RETURN_IF_ERROR(array(k));
        if (types[k]->length != types[0]->length) {
          return TypeError(
              f, absl::StrCat("argument ", k, " has type ", T(types[k]),
                              ", expected an array of length ", types[0]->length.ToString(),
                              " like argument 0 (", T(types[0]), ")"));
        }
        fields.push_back(types[k]->element);
      }
      return ArrayType(TupleType(std::move(fields)), types[0]->length);
    }
    case Fun::Kind::kGet: {
      DFC_RETURN_IF_ERROR(arity(1));
      if (!types[0]->is_tuple() ||
          As<GetPattern>(f).index >= static_cast<int>(types[0]->elements.size())) {
        return TypeError(
            f, absl::StrCat("argument has type ", T(types[0]), ", expected a tuple of more than ",
                            As<GetPattern>(f).index, " elements"));
      }
      return types[0]->elements[As<GetPattern>(f).index];
    }
    case Fun::Kind::kTuple:
      DFC_RETURN_IF_ERROR(arity(As<ArityPattern>(f).arity));
      return TupleType(types);
    case Fun::Kind::kSplit: {
      DFC_RETURN_IF_ERROR(arity(1));
      DFC_RETURN_IF_ERROR(array(0));
      const ArithExpr& n = types[0]->length;
      if (As<SplitPattern>(f).chunk == ArithExpr(0)) {
        return TypeError(f, absl::StrCat("argument has type ", T(types[0]),
                                         ": rows of 0 elements would be any number of rows"));
      }
      if (n % As<SplitPattern>(f).chunk != ArithExpr(0)) {
        return TypeError(f, absl::StrCat("argument has type ", T(types[0]), ": ",
                                         As<SplitPattern>(f).chunk.ToString(), " does not divide ",
                                         n.ToString()));
      }
      return ArrayType(ArrayType(types[0]->element, As<SplitPattern>(f).chunk),
                       n / As<SplitPattern>(f).chunk);
    }
    case Fun::Kind::kJoin: {
      DFC_RETURN_IF_ERROR(arity(1));
      DFC_RETURN_IF_ERROR(array(0));
      if (!types[0]->element->is_array()) {
        return TypeError(
            f, absl::StrCat("argument has type ", T(types[0]), ", expected an array of arrays"));
      }
      const TypePtr& inner = types[0]->element;
      DFC_ASSIGN_OR_RETURN(ArithExpr length, fits(CheckedMul(types[0]->length, inner->length)));
      return ArrayType(inner->element, length);
    }
    case Fun::Kind::kTranspose:
    case Fun::Kind::kTransposeW: {
      DFC_RETURN_IF_ERROR(arity(1));
      DFC_RETURN_IF_ERROR(array(0));
      if (!types[0]->element->is_array()) {
        return TypeError(
            f, absl::StrCat("argument has type ", T(types[0]), ", expected an array of arrays"));
      }
      const TypePtr& inner = types[0]->element;
      return ArrayType(ArrayType(inner->element, types[0]->length), inner->length);
    }
    case Fun::Kind::kSlide: {
      DFC_RETURN_IF_ERROR(arity(1));
      DFC_RETURN_IF_ERROR(array(0));
      ArithExpr count = (types[0]->length - As<SlidePattern>(f).size + As<SlidePattern>(f).step) /
                        As<SlidePattern>(f).step;
      return ArrayType(ArrayType(types[0]->element, As<SlidePattern>(f).size), count);
    }
    case Fun::Kind::kPad: {
      DFC_RETURN_IF_ERROR(arity(1));
      DFC_RETURN_IF_ERROR(array(0));
      if (As<PadPattern>(f).mode == PadMode::kConstant &&
          BaseDType(types[0]) != As<PadPattern>(f).value.dtype) {
        return TypeError(f,
                         absl::StrCat("argument has type ", T(types[0]), ", but the pad value is ",
                                      DTypeName(As<PadPattern>(f).value.dtype)));
      }
      std::optional<ArithExpr> length = CheckedAdd(types[0]->length, As<PadPattern>(f).left);
      if (length) length = CheckedAdd(*length, As<PadPattern>(f).right);
      DFC_ASSIGN_OR_RETURN(ArithExpr padded, fits(length));
      return ArrayType(types[0]->element, padded);
    }
    case Fun::Kind::kAsVector: {
      DFC_RETURN_IF_ERROR(arity(1));
      DFC_RETURN_IF_ERROR(array(0));
      if (!types[0]->element->is_scalar()) {
        return TypeError(
            f, absl::StrCat("argument has type ", T(types[0]), ", expected an array of scalars"));
      }
      const ArithExpr& n = types[0]->length;
      if (n % ArithExpr(As<AsVectorPattern>(f).width) != ArithExpr(0)) {
        return TypeError(f, absl::StrCat("argument has type ", T(types[0]), ": ",
                                         absl::StrCat(As<AsVectorPattern>(f).width),
                                         " does not divide ", n.ToString()));
      }
      return ArrayType(VectorType(types[0]->element->dtype, As<AsVectorPattern>(f).width),
                       n / ArithExpr(As<AsVectorPattern>(f).width));
    }
    case Fun::Kind::kAsScalar: {
      DFC_RETURN_IF_ERROR(arity(1));
      DFC_RETURN_IF_ERROR(array(0));
      if (!types[0]->element->is_vector()) {
        return TypeError(
            f, absl::StrCat("argument has type ", T(types[0]), ", expected an array of vectors"));
      }
      const TypePtr& v = types[0]->element;
      DFC_ASSIGN_OR_RETURN(ArithExpr length, fits(CheckedMul(types[0]->length, v->width)));
      return ArrayType(ScalarType(v->dtype), length);
    }
    case Fun::Kind::kId:
      DFC_RETURN_IF_ERROR(arity(1));
      return types[0];
    case Fun::Kind::kReindex:
      DFC_RETURN_IF_ERROR(arity(1));
      DFC_RETURN_IF_ERROR(array(0));
      return ArrayType(types[0]->element, As<ReindexPattern>(f).length);
    case Fun::Kind::kConcat: {
      DFC_RETURN_IF_ERROR(arity(As<ArityPattern>(f).arity));
      std::optional<ArithExpr> total = 0;
      for (int k = 0; k < As<ArityPattern>(f).arity; ++k) {
        DFC_RETURN_IF_ERROR(array(k));
        if (!TypeEquals(types[k]->element, types[0]->element)) {
          return TypeError(f, absl::StrCat("argument ", k, " has type ", T(types[k]),
                                           ", expected elements of type ", T(types[0]->element)));
        }
        if (total) total = CheckedAdd(*total, types[k]->length);
      }
      DFC_ASSIGN_OR_RETURN(ArithExpr length, fits(total));
      return ArrayType(types[0]->element, length);
    }
    case Fun::Kind::kRepeat:
      DFC_RETURN_IF_ERROR(arity(1));
      return ArrayType(types[0], As<RepeatPattern>(f).count);
    case Fun::Kind::kIota:
      DFC_RETURN_IF_ERROR(arity(0));
      return ArrayType(ScalarType(As<SizePattern>(f).dtype), As<SizePattern>(f).size);
    case Fun::Kind::kSizeValue:
      DFC_RETURN_IF_ERROR(arity(0));
      return ScalarType(As<SizePattern>(f).dtype);
    case Fun::Kind::kAt:
      DFC_RETURN_IF_ERROR(arity(2));
      DFC_RETURN_IF_ERROR(array(0));
      if (!types[1]->is_scalar() || !IsInteger(types[1]->dtype)) {
        return TypeError(
            f, absl::StrCat("index has type ", T(types[1]), ", expected an integer scalar"));
      }
      return types[0]->element;
    case Fun::Kind::kToGlobal:
    case Fun::Kind::kToLocal:
    case Fun::Kind::kToPrivate:
      return ResultType(*As<FunPattern>(f).f, types);
  }
  return TypeError(f, "unknown function kind");
}

}  // namespace

absl::StatusOr<ExprPtr> Call(FunPtr f, std::vector<ExprPtr> args) {
  DFC_CHECK(f != nullptr);
  std::vector<TypePtr> types;
  types.reserve(args.size());
  for (const ExprPtr& a : args) {
    DFC_CHECK(a != nullptr);
    types.push_back(a->type);
  }
  DFC_ASSIGN_OR_RETURN(TypePtr type, ResultType(*f, types));
  return std::make_shared<FunCall>(std::move(f), std::move(args), std::move(type));
}

}  // namespace dfc::ir
