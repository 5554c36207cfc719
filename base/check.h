// Internal invariant checks. Debian 12's Abseil predates absl/log, so these stand in for
// ABSL_CHECK. They are for dfc's own bugs only: user errors are always a returned Status.
#ifndef DFC_BASE_CHECK_H_
#define DFC_BASE_CHECK_H_

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

#endif  // DFC_BASE_CHECK_H_
