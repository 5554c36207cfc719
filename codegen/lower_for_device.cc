// The default lowering strategy (see lower_for_device.h).
#include "codegen/lower_for_device.h"

#include "rewrite/lowering.h"

namespace dfc::codegen {

absl::StatusOr<ir::ExprPtr> LowerForDevice(const ir::ExprPtr& body) {
  return rewrite::ApplyAtTopLevel(rewrite::ToGlobalLet(), body);
}

}  // namespace dfc::codegen
