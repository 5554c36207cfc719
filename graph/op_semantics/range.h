// TensorFlow's Range(start, limit, delta): its element count, the one copy that the reference
// kernel and the translation both size their output with.
#ifndef DFC_GRAPH_OP_SEMANTICS_RANGE_H_
#define DFC_GRAPH_OP_SEMANTICS_RANGE_H_

#include <cstdint>

#include "absl/status/statusor.h"

namespace dfc {

// ceil(|limit - start| / |delta|), computed without overflow, for the four dtypes Range is
// defined for. Refuses a delta of 0, a start beyond the limit in delta's direction, and a
// floating range of 2^63 elements or more; the message names start, limit and delta.
absl::StatusOr<int64_t> RangeSize(int32_t start, int32_t limit, int32_t delta);
absl::StatusOr<int64_t> RangeSize(int64_t start, int64_t limit, int64_t delta);
absl::StatusOr<int64_t> RangeSize(float start, float limit, float delta);
absl::StatusOr<int64_t> RangeSize(double start, double limit, double delta);

}  // namespace dfc

#endif  // DFC_GRAPH_OP_SEMANTICS_RANGE_H_
