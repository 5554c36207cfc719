// Fission rules (see fission.h).
#include "rewrite/fission.h"

#include "absl/strings/str_cat.h"
#include "base/status.h"

namespace dfc::rewrite {

Rule SplitJoin(ArithExpr n) {
  return {absl::StrCat("splitJoin(", n.ToString(), ")"),
          absl::StrCat("Map(f) => Join o Map(Map(f)) o Split(", n.ToString(), ")"),
          [n](const ir::ExprPtr& e) -> Match {
            const ir::FunCall* map = CallOf(e, ir::Fun::Kind::kMap);
            if (map == nullptr) return Decline{"not a high-level Map"};
            const ArithExpr& length = map->args[0]->type->length;
            if ((length % n).AsConstant() != std::optional<int64_t>(0)) {
              return Decline{absl::StrCat("length ", length.ToString(),
                                          " is not known to be a multiple of ", n.ToString())};
            }
            return [n, f = static_cast<const ir::Pattern&>(*map->f).f,
                    x = map->args[0]]() -> absl::StatusOr<ir::ExprPtr> {
              DFC_ASSIGN_OR_RETURN(ir::ExprPtr chunks, ir::Call(ir::Split(n), {x}));
              DFC_ASSIGN_OR_RETURN(ir::ExprPtr mapped, ir::Call(ir::Map(ir::Map(f)), {chunks}));
              return ir::Call(ir::Join(), {mapped});
            };
          }};
}

Rule PartialReduce(ArithExpr n) {
  return {absl::StrCat("partialReduce(", n.ToString(), ")"),
          absl::StrCat("Reduce(f)(init, X) => Reduce(f)(init, Map(λc => Reduce(f)(init, c)) $ "
                       "Split(",
                       n.ToString(), ") $ X)"),
          [n](const ir::ExprPtr& e) -> Match {
            const ir::FunCall* reduce = CallOf(e, ir::Fun::Kind::kReduce);
            if (reduce == nullptr) return Decline{"not a high-level Reduce"};
            const ir::FunPtr& f = static_cast<const ir::Pattern&>(*reduce->f).f;
            const ir::FunPtr combiner = ir::CombinerOf(f);
            if (combiner == nullptr) return Decline{"the step is not a combiner"};
            const ir::ExprPtr init = reduce->args[0], x = reduce->args[1];
            if (std::optional<Decline> d = CheckIdempotentInit(*combiner, init)) return *d;
            const ArithExpr& length = x->type->length;
            if ((length % n).AsConstant() != std::optional<int64_t>(0)) {
              return Decline{absl::StrCat("length ", length.ToString(),
                                          " is not known to be a multiple of ", n.ToString())};
            }
            return [n, f, init, x]() -> absl::StatusOr<ir::ExprPtr> {
              DFC_ASSIGN_OR_RETURN(ir::ExprPtr chunks, ir::Call(ir::Split(n), {x}));
              DFC_ASSIGN_OR_RETURN(ir::ExprPtr partials,
                                   ir::MapOver(chunks, [&](ir::ExprPtr chunk) {
                                     return ir::Call(ir::Reduce(f), {init, chunk});
                                   }));
              return ir::Call(ir::Reduce(f), {init, partials});
            };
          }};
}

}  // namespace dfc::rewrite
