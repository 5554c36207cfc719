// Vectorisation rules (see vectorize.h).
#include "rewrite/vectorize.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/expr.h"

namespace dfc::rewrite {
namespace {

// `x`, an array of scalars of length n, as n / w vectors: a Map over a Zip (or over one array)
// applies its function to vectors of the arrays; anything else is read w at a time.
absl::StatusOr<ir::ExprPtr> AsVectors(const ir::ExprPtr& x, int w) {
  const ir::FunCall* map = CallOf(x, ir::Fun::Kind::kMap);
  if (map != nullptr) {
    const ir::FunPtr& g = static_cast<const ir::Pattern&>(*map->f).f;
    const ir::FunCall* zip = CallOf(map->args[0], ir::Fun::Kind::kZip);
    std::vector<ir::ExprPtr> parts = zip != nullptr ? zip->args : std::vector{map->args[0]};
    bool scalars = true;
    for (const ir::ExprPtr& a : parts) scalars = scalars && a->type->element->is_scalar();
    if (scalars) {
      std::vector<ir::ExprPtr> vectors;
      for (const ir::ExprPtr& a : parts) {
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr v, ir::Call(ir::AsVector(w), {a}));
        vectors.push_back(std::move(v));
      }
      ir::ExprPtr input = vectors[0];
      if (zip != nullptr) {
        DFC_ASSIGN_OR_RETURN(input, ir::Call(ir::Zip(static_cast<int>(vectors.size())), vectors));
      }
      if (g->kind == ir::Fun::Kind::kUserFun) return ir::Call(ir::Map(g), {input});
      if (g->kind == ir::Fun::Kind::kLambda) {
        // The same body, its parameter retyped: every call in it types again on vectors.
        const auto& lambda = static_cast<const ir::Lambda&>(*g);
        const ir::ParamPtr p = ir::MakeParam(lambda.params[0]->name, input->type->element);
        DFC_ASSIGN_OR_RETURN(ir::ExprPtr body, Substitute(lambda.body, lambda.params[0].get(), p));
        return ir::Call(ir::Map(std::make_shared<ir::Lambda>(std::vector{p}, body)), {input});
      }
    }
  }
  return ir::Call(ir::AsVector(w), {x});
}

// x[from, from + length) as a view: a Map over a Zip (or over one array) reads the same
// range of each of its arrays, so that AsVectors still sees the Map.
absl::StatusOr<ir::ExprPtr> Range(const ir::ExprPtr& x, int64_t from, int64_t length) {
  const ir::FunPtr view = ir::Reindex(length, ir::IndexVar() + from);
  const ir::FunCall* map = CallOf(x, ir::Fun::Kind::kMap);
  if (map == nullptr) return ir::Call(view, {x});
  const ir::FunCall* zip = CallOf(map->args[0], ir::Fun::Kind::kZip);
  std::vector<ir::ExprPtr> parts = zip != nullptr ? zip->args : std::vector{map->args[0]};
  for (ir::ExprPtr& a : parts) {
    DFC_ASSIGN_OR_RETURN(a, ir::Call(view, {a}));
  }
  ir::ExprPtr input = parts[0];
  if (zip != nullptr) {
    DFC_ASSIGN_OR_RETURN(input, ir::Call(zip->f, parts));
  }
  return ir::Call(map->f, {input});
}

}  // namespace

Rule VectorizeReduce(int width) {
  return {
      absl::StrCat("vectorizeReduce(", width, ")"),
      absl::StrCat("Reduce(f)(init, X) => Reduce(f)(init, AsScalar $ Reduce(vector f)(AsVector(",
                   width, ") $ Repeat(", width, ") $ init, AsVector(", width, ") $ X))"),
      [width](const ir::ExprPtr& e) -> Match {
        const ir::FunCall* reduce = CallOf(e, ir::Fun::Kind::kReduce);
        if (reduce == nullptr) return Decline{"not a high-level Reduce"};
        const ir::ExprPtr init = reduce->args[0], x = reduce->args[1];
        const ir::FunPtr& f = static_cast<const ir::Pattern&>(*reduce->f).f;
        const ir::FunPtr combiner = CombinerOf(f);
        if (combiner == nullptr) return Decline{"the step is not a combiner"};
        if (!x->type->element->is_scalar()) return Decline{"the elements are not scalars"};
        if (x->type->element->dtype == DType::kHalf || x->type->element->dtype == DType::kBool) {
          return Decline{"float16 and bool are not vectorised"};
        }
        if (CallOf(x, ir::Fun::Kind::kAsScalar) != nullptr) {
          return Decline{"the elements are already the lanes of vectors"};
        }
        // A known length that is not a multiple: the first multiple of w elements as vectors,
        // the rest (fewer than w) folded one by one after them.
        const std::optional<int64_t> n = x->type->length.AsConstant();
        const bool multiple = (x->type->length % width).AsConstant() == std::optional<int64_t>(0);
        if (!multiple && !(n.has_value() && *n > width)) {
          return Decline{absl::StrCat("length ", x->type->length.ToString(),
                                      " is neither a known multiple of ", width,
                                      " nor a known length above it")};
        }
        if (std::optional<Decline> d = CheckIdempotentInit(*combiner, init)) return *d;
        const int64_t tail = multiple ? 0 : *n % width;
        return [width, init, x, f, u = combiner, n, tail]() -> absl::StatusOr<ir::ExprPtr> {
          ir::ExprPtr head = x, rest;
          if (tail > 0) {
            DFC_ASSIGN_OR_RETURN(head, Range(x, 0, *n - tail));
            DFC_ASSIGN_OR_RETURN(rest, Range(x, *n - tail, tail));
          }
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr vectors, AsVectors(head, width));
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr fill, ir::Call(ir::Repeat(width), {init}));
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr lanes, ir::Call(ir::AsVector(width), {fill}));
          DFC_ASSIGN_OR_RETURN(
              ir::FunPtr step,
              ir::MakeLambda({lanes->type, vectors->type->element},
                             [&](std::span<const ir::ExprPtr> p) -> absl::StatusOr<ir::ExprPtr> {
                               return ir::MapOver(p[0], [&](ir::ExprPtr a) {
                                 return ir::Call(u, {a, p[1]});
                               });
                             },
                             {"acc", "x"}));
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr partial, ir::Call(ir::Reduce(step), {lanes, vectors}));
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr scalars, ir::Call(ir::AsScalar(), {partial}));
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr folded, ir::Call(ir::Reduce(f), {init, scalars}));
          if (rest == nullptr) return folded;
          return ir::Call(ir::Reduce(f), {folded, rest});
        };
      }};
}

Rule VectorizeMap(int width) {
  return {absl::StrCat("vectorizeMap(", width, ")"),
          absl::StrCat("Map(uf) $ X => AsScalar $ Map(uf) $ AsVector(", width, ") $ X"),
          [width](const ir::ExprPtr& e) -> Match {
            const ir::FunCall* map = CallOf(e, ir::Fun::Kind::kMap);
            if (map == nullptr) return Decline{"not a high-level Map"};
            const ir::FunPtr& uf = static_cast<const ir::Pattern&>(*map->f).f;
            if (uf->kind != ir::Fun::Kind::kUserFun)
              return Decline{"the Map's function is not a UserFun"};
            const ir::ExprPtr x = map->args[0];
            if (!x->type->element->is_scalar()) return Decline{"the elements are not scalars"};
            const DType dtype = x->type->element->dtype;
            const DType result = static_cast<const ir::UserFun&>(*uf).result_type->dtype;
            for (DType t : {dtype, result}) {
              if (t == DType::kHalf || t == DType::kBool) {
                return Decline{"float16 and bool are not vectorised"};
              }
            }
            if ((x->type->length % width).AsConstant() != std::optional<int64_t>(0)) {
              return Decline{absl::StrCat("length ", x->type->length.ToString(),
                                          " is not known to be a multiple of ", width)};
            }
            return [width, uf, x]() -> absl::StatusOr<ir::ExprPtr> {
              DFC_ASSIGN_OR_RETURN(ir::ExprPtr vectors, ir::Call(ir::AsVector(width), {x}));
              DFC_ASSIGN_OR_RETURN(ir::ExprPtr mapped, ir::Call(ir::Map(uf), {vectors}));
              return ir::Call(ir::AsScalar(), {mapped});
            };
          }};
}

}  // namespace dfc::rewrite
