// Fusion rules (see fusion.h).
#include "rewrite/fusion.h"

#include "absl/strings/str_cat.h"
#include "ir/expr.h"

namespace dfc::rewrite {

Rule MapFusion() {
  return {
      "mapFusion", "Map(f) o Map(g) => Map(f o g)", [](const ir::ExprPtr& e) -> Match {
        const ir::FunCall* outer = MapCall(e);
        if (outer == nullptr) return Decline{"not a Map"};
        const ir::FunCall* inner = MapCall(outer->args[0]);
        if (inner == nullptr) return Decline{"the Map's input is not a Map"};
        if (inner->f->kind != outer->f->kind) {
          return Decline{absl::StrCat("the Maps are ", ir::FunName(*outer->f), " and ",
                                      ir::FunName(*inner->f))};
        }
        const auto& f = static_cast<const ir::Pattern&>(*outer->f);
        const auto& g = static_cast<const ir::Pattern&>(*inner->f);
        const ir::ExprPtr x = inner->args[0];
        return [&f, &g, x, keep_e = e]() -> absl::StatusOr<ir::ExprPtr> {
          DFC_ASSIGN_OR_RETURN(
              ir::FunPtr fused,
              ir::MakeLambda({x->type->element},
                             [&](std::span<const ir::ExprPtr> p) -> absl::StatusOr<ir::ExprPtr> {
                               DFC_ASSIGN_OR_RETURN(ir::ExprPtr gx, ir::Call(g.f, {p[0]}));
                               return ir::Call(f.f, {gx});
                             }));
          return ir::Call(WithFunction(f, std::move(fused)), {x});
        };
      }};
}

Rule ReduceMapFusion() {
  return {
      "reduceMapFusion", "Reduce(f, init) o Map(g) => Reduce(λ(a, x) => f(a, g(x)), init)",
      [](const ir::ExprPtr& e) -> Match {
        const ir::FunCall* reduce = ReduceCall(e);
        if (reduce == nullptr) return Decline{"not a Reduce"};
        const ir::FunCall* map = MapCall(reduce->args[1]);
        if (map == nullptr) return Decline{"the Reduce's input is not a Map"};
        const auto& r = static_cast<const ir::Pattern&>(*reduce->f);
        const auto& g = static_cast<const ir::Pattern&>(*map->f);
        const ir::ExprPtr init = reduce->args[0], x = map->args[0];
        return [&r, &g, init, x, keep_e = e]() -> absl::StatusOr<ir::ExprPtr> {
          DFC_ASSIGN_OR_RETURN(
              ir::FunPtr step,
              ir::MakeLambda({init->type, x->type->element},
                             [&](std::span<const ir::ExprPtr> p) -> absl::StatusOr<ir::ExprPtr> {
                               DFC_ASSIGN_OR_RETURN(ir::ExprPtr gx, ir::Call(g.f, {p[1]}));
                               return ir::Call(r.f, {p[0], gx});
                             },
                             {"a", "x"}));
          return ir::Call(WithFunction(r, std::move(step)), {init, x});
        };
      }};
}

}  // namespace dfc::rewrite
