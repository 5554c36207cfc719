// NumPy-style broadcasting: shapes and index maps.
#include "runtime/reference/broadcast.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status.h"

namespace dfc::reference {

absl::StatusOr<Shape> BroadcastShapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Position i counted from the right; a missing dimension is 1.
    const int64_t da = i < a.size() ? a[a.size() - 1 - i] : 1;
    const int64_t db = i < b.size() ? b[b.size() - 1 - i] : 1;
    int64_t d;
    if (da == db || db == 1) {
      d = da;
    } else if (da == 1) {
      d = db;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("incompatible shapes ", ShapeToString(a), " and ", ShapeToString(b),
                       " (dimension ", da, " against ", db, ", expected equal sizes or a 1)"));
    }
    out[rank - 1 - i] = d;
  }
  return out;
}

bool BroadcastsTo(const Shape& input, const Shape& output) {
  absl::StatusOr<Shape> s = BroadcastShapes(input, output);
  return s.ok() && *s == output;
}

BroadcastIndexer::BroadcastIndexer(const Shape& input, const Shape& output) {
  DFC_CHECK(BroadcastsTo(input, output));
  if (input == output) {
    kind_ = Kind::kIdentity;
    return;
  }
  int64_t input_elements = 1;
  for (int64_t d : input) input_elements *= d;
  if (input_elements == 1) {
    kind_ = Kind::kScalar;
    return;
  }
  kind_ = Kind::kGeneral;
  output_dims_ = output;
  input_strides_.assign(output.size(), 0);
  const size_t lead = output.size() - input.size();
  int64_t stride = 1;
  for (size_t i = input.size(); i-- > 0;) {
    input_strides_[lead + i] = input[i] == 1 ? 0 : stride;
    stride *= input[i];
  }
}

}  // namespace dfc::reference
