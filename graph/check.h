// Internal invariant checks. Debian 12's Abseil predates absl/log, so these stand in for
// ABSL_CHECK. They are for dfc's own bugs only: user errors are always a returned Status.
#ifndef DFC_GRAPH_CHECK_H_
#define DFC_GRAPH_CHECK_H_

#include <string>

#include "absl/base/internal/raw_logging.h"
#include "absl/status/status.h"

#define DFC_CHECK(condition)                                               \
  do {                                                                     \
    if (!(condition)) ABSL_RAW_LOG(FATAL, "check failed: %s", #condition); \
  } while (false)

#define DFC_CHECK_OK(expr)                                                              \
  do {                                                                                  \
    const ::absl::Status dfc_check_status = (expr);                                     \
    if (!dfc_check_status.ok()) {                                                       \
      ABSL_RAW_LOG(FATAL, "%s failed: %s", #expr, dfc_check_status.ToString().c_str()); \
    }                                                                                   \
  } while (false)

// Status plumbing: `DFC_RETURN_IF_ERROR(status)` and `DFC_ASSIGN_OR_RETURN(auto x, statusor)`.
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

#endif  // DFC_GRAPH_CHECK_H_
