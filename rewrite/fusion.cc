// Fusion rules (see fusion.h).
#include "rewrite/fusion.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
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
          return ir::Call(ir::WithFunction(f, std::move(fused)), {x});
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
          return ir::Call(ir::WithFunction(r, std::move(step)), {init, x});
        };
      }};
}

Rule ZipMapFusion() {
  return {
      "zipMapFusion", "Zip(Map(f) $ a, Map(g) $ b) => Map(λp => Tuple(f(p.0), g(p.1))) $ Zip(a, b)",
      [](const ir::ExprPtr& e) -> Match {
        const ir::FunCall* zip = CallOf(e, ir::Fun::Kind::kZip);
        if (zip == nullptr) return Decline{"not a Zip"};
        std::vector<ir::FunPtr> functions;
        std::vector<ir::ExprPtr> inputs;
        for (const ir::ExprPtr& arg : zip->args) {
          const ir::FunCall* map = CallOf(arg, ir::Fun::Kind::kMap);
          if (map == nullptr) return Decline{"an argument of the Zip is not a high-level Map"};
          functions.push_back(static_cast<const ir::Pattern&>(*map->f).f);
          inputs.push_back(map->args[0]);
        }
        return [functions, inputs]() -> absl::StatusOr<ir::ExprPtr> {
          DFC_ASSIGN_OR_RETURN(ir::ExprPtr zipped,
                               ir::Call(ir::Zip(static_cast<int>(inputs.size())), inputs));
          return ir::MapOver(
              zipped,
              [&](ir::ExprPtr p) -> absl::StatusOr<ir::ExprPtr> {
                std::vector<ir::ExprPtr> fields;
                for (size_t k = 0; k < functions.size(); ++k) {
                  DFC_ASSIGN_OR_RETURN(ir::ExprPtr x, ir::Call(ir::Get(static_cast<int>(k)), {p}));
                  DFC_ASSIGN_OR_RETURN(ir::ExprPtr y, ir::Call(functions[k], {x}));
                  fields.push_back(std::move(y));
                }
                return ir::Call(ir::Tuple(static_cast<int>(fields.size())), fields);
              },
              "p");
        };
      }};
}

Rule ReduceFusion() {
  return {"reduceFusion",
          "Tuple(Reduce(f)(i, X), Reduce(g)(j, X)) => Reduce(λ(a, x) => Tuple(f(a.0, x), g(a.1, "
          "x)))(Tuple(i, j), X)",
          [](const ir::ExprPtr& e) -> Match {
            const ir::FunCall* tuple = CallOf(e, ir::Fun::Kind::kTuple);
            if (tuple == nullptr) return Decline{"not a Tuple"};
            std::vector<ir::FunPtr> steps;
            std::vector<ir::ExprPtr> inits;
            ir::ExprPtr array;
            for (const ir::ExprPtr& field : tuple->args) {
              const ir::FunCall* reduce = CallOf(field, ir::Fun::Kind::kReduce);
              if (reduce == nullptr)
                return Decline{"a field of the Tuple is not a high-level Reduce"};
              if (array == nullptr) array = reduce->args[1];
              if (!ir::ExprEquals(reduce->args[1], array)) {
                return Decline{"the Reduces walk different arrays"};
              }
              steps.push_back(static_cast<const ir::Pattern&>(*reduce->f).f);
              inits.push_back(reduce->args[0]);
            }
            return [steps, inits, array]() -> absl::StatusOr<ir::ExprPtr> {
              const int n = static_cast<int>(steps.size());
              DFC_ASSIGN_OR_RETURN(ir::ExprPtr init, ir::Call(ir::Tuple(n), inits));
              DFC_ASSIGN_OR_RETURN(
                  ir::FunPtr step,
                  ir::MakeLambda(
                      {init->type, array->type->element},
                      [&](std::span<const ir::ExprPtr> p) -> absl::StatusOr<ir::ExprPtr> {
                        std::vector<ir::ExprPtr> fields;
                        for (int k = 0; k < n; ++k) {
                          DFC_ASSIGN_OR_RETURN(ir::ExprPtr a, ir::Call(ir::Get(k), {p[0]}));
                          DFC_ASSIGN_OR_RETURN(ir::ExprPtr next, ir::Call(steps[k], {a, p[1]}));
                          fields.push_back(std::move(next));
                        }
                        return ir::Call(ir::Tuple(n), fields);
                      },
                      {"a", "x"}));
              return ir::Call(ir::Reduce(step), {init, array});
            };
          }};
}

}  // namespace dfc::rewrite
