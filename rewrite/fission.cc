// Fission rules (see fission.h).
#include "rewrite/fission.h"

#include "absl/strings/str_cat.h"

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

}  // namespace dfc::rewrite
