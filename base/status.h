// Status plumbing shared by every module: `DFC_RETURN_IF_ERROR(status)` and
// `DFC_ASSIGN_OR_RETURN(auto x, statusor)`, as Abseil's own status macros (which Debian 12's
// Abseil does not ship) are used.
#ifndef DFC_BASE_STATUS_H_
#define DFC_BASE_STATUS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define DFC_RETURN_IF_ERROR(expr)             \
  do {                                        \
    const ::absl::Status dfc_status = (expr); \
    if (!dfc_status.ok()) return dfc_status;  \
  } while (false)

#define DFC_STATUS_CONCAT_INNER(a, b) a##b
#define DFC_STATUS_CONCAT(a, b) DFC_STATUS_CONCAT_INNER(a, b)
#define DFC_ASSIGN_OR_RETURN(lhs, expr) \
  DFC_ASSIGN_OR_RETURN_IMPL(DFC_STATUS_CONCAT(dfc_statusor_, __LINE__), lhs, expr)
#define DFC_ASSIGN_OR_RETURN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                              \
  if (!statusor.ok()) return statusor.status();        \
  lhs = std::move(statusor).value()

#endif  // DFC_BASE_STATUS_H_
