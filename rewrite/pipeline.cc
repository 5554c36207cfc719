// The stage driver (see pipeline.h).
#include "rewrite/pipeline.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "ir/type.h"

namespace dfc::rewrite {

absl::StatusOr<ir::ExprPtr> RunStages(std::span<const Stage> stages, ir::ExprPtr body,
                                      const StageObserver& after) {
  for (const Stage& stage : stages) {
    DFC_ASSIGN_OR_RETURN(ir::ExprPtr next, stage.run(body));
    if (!ir::TypeEquals(body->type, next->type)) {
      return absl::InternalError(
          absl::StrCat("stage ", stage.name, " changed the body's type from ",
                       ir::TypeToString(body->type), " to ", ir::TypeToString(next->type)));
    }
    if (stage.verify) DFC_RETURN_IF_ERROR(stage.verify(next));
    body = std::move(next);
    if (after) after(stage.name, body);
  }
  return body;
}

}  // namespace dfc::rewrite
