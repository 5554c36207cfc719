// Pieces shared by the dense linear algebra reference kernels (linalg.cc, linalg_orthogonal.cc):
// matrices in double, and batches of them read from an input and written to an output, rounded
// once. Private to those two files.
#ifndef DFC_RUNTIME_REFERENCE_LINALG_INTERNAL_H_
#define DFC_RUNTIME_REFERENCE_LINALG_INTERNAL_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/dtype.h"
#include "graph/tensor.h"
#include "runtime/reference/kernel.h"

namespace dfc::reference::linalg {

// --- Matrices in double ---------------------------------------------------------------------

// A dense row-major matrix of doubles.
struct Mat {
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<double> a;

  Mat() = default;
  Mat(int64_t r, int64_t c) : rows(r), cols(c), a(static_cast<size_t>(r * c), 0.0) {}
  static Mat Identity(int64_t n) {
    Mat m(n, n);
    for (int64_t i = 0; i < n; ++i) m(i, i) = 1;
    return m;
  }
  double& operator()(int64_t i, int64_t j) { return a[i * cols + j]; }
  double operator()(int64_t i, int64_t j) const { return a[i * cols + j]; }
  Mat Transposed() const {
    Mat t(cols, rows);
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) t(j, i) = (*this)(i, j);
    }
    return t;
  }
};

// The dtypes of the ops TensorFlow registers for float and double only, and of those it also
// registers float16 for (MatrixInverse, Qr: computed in float there, in double here).
inline constexpr DType kRealDTypes[] = {DType::kFloat, DType::kDouble};
inline constexpr DType kRealOrHalfDTypes[] = {DType::kHalf, DType::kFloat, DType::kDouble};

// A [..., rows, cols] input: its batch shape and matrix size, its elements in double.
struct Batch {
  Shape batch;
  int64_t count = 1;  // matrices in the batch
  int64_t rows = 0;
  int64_t cols = 0;
  std::vector<double> values;

  Mat Matrix(int64_t b) const {
    Mat m(rows, cols);
    std::copy_n(values.begin() + b * rows * cols, rows * cols, m.a.begin());
    return m;
  }
};

// Input `i` as a batch of matrices; `square` requires rows == cols.
absl::StatusOr<Batch> ReadBatch(const KernelContext& ctx, int i, std::span<const DType> dtypes,
                                bool square);

// Output `batch` + `inner` of `dtype`, filled from `values` (rounded once).
absl::StatusOr<Tensor> TensorFromDoubles(const KernelContext& ctx, DType dtype, const Shape& batch,
                                         const Shape& inner, const std::vector<double>& values);

// Appends matrix `m` to `values`.
void Append(std::vector<double>& values, const Mat& m);

absl::StatusOr<bool> BoolAttr(const KernelContext& ctx, absl::string_view name, bool fallback);

}  // namespace dfc::reference::linalg

#endif  // DFC_RUNTIME_REFERENCE_LINALG_INTERNAL_H_
