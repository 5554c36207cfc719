// Reference kernels for dense linear algebra on batches of matrices, the LU and Cholesky side:
// MatrixInverse, MatrixDeterminant, LogMatrixDeterminant, Lu, MatrixSolve,
// MatrixTriangularSolve, Cholesky and MatrixExponential. The orthogonal decompositions (Qr, Svd,
// SelfAdjointEigV2) live in linalg_orthogonal.cc; RegisterLinalgKernels registers both files.
//
// Each op works on the innermost two dimensions and loops over the others, as TensorFlow's
// LinearAlgebraOp does. Every matrix is computed in double, whatever its dtype, and rounded
// once to the output dtype: TensorFlow's Eigen calls compute in the dtype itself, so a float32
// result here is the better-rounded one and agrees with TensorFlow's to its roundoff. The
// factorizations follow Eigen's choices where they show in the result: partial pivoting on
// the first largest magnitude of a column (PartialPivLU), the lower triangle read for Cholesky.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status.h"
#include "runtime/reference/broadcast.h"
#include "runtime/reference/elementwise_util.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"
#include "runtime/reference/linalg_internal.h"
#include "runtime/reference/reduction_util.h"

namespace dfc::reference {

void RegisterOrthogonalKernels(KernelRegistry& registry);  // linalg_orthogonal.cc

namespace {

std::vector<double> ToDouble(const Tensor& t) {
  std::vector<double> out(t.num_elements());
  DispatchDType(t.dtype(), [&]<typename T>() {
    if constexpr (kIsFloat<T>) {
      const T* src = t.data<T>();
      for (int64_t i = 0; i < t.num_elements(); ++i) out[i] = static_cast<double>(Up(src[i]));
    }
  });
  return out;
}

}  // namespace

namespace linalg {

absl::StatusOr<Batch> ReadBatch(const KernelContext& ctx, int i, std::span<const DType> dtypes,
                                bool square) {
  DFC_RETURN_IF_ERROR(CheckDType(ctx, i, dtypes));
  const Tensor& t = ctx.input(i);
  if (t.rank() < 2) {
    return ctx.Error(absl::StrCat("input ", i, " must have rank >= 2 (a batch of matrices), got ",
                                  t.DebugType()));
  }
  Batch b;
  b.batch.assign(t.shape().begin(), t.shape().end() - 2);
  for (int64_t d : b.batch) b.count *= d;
  b.rows = t.dim(t.rank() - 2);
  b.cols = t.dim(t.rank() - 1);
  if (square && b.rows != b.cols) {
    return ctx.Error(absl::StrCat("input ", i, " must hold square matrices, got ", t.DebugType()));
  }
  b.values = ToDouble(t);
  return b;
}

absl::StatusOr<Tensor> TensorFromDoubles(const KernelContext& ctx, DType dtype, const Shape& batch,
                                         const Shape& inner, const std::vector<double>& values) {
  Shape shape = batch;
  shape.insert(shape.end(), inner.begin(), inner.end());
  absl::StatusOr<Tensor> out = AllocateOutput(ctx, dtype, shape);
  DFC_RETURN_IF_ERROR(out.status());
  for (int64_t i = 0; i < out->num_elements(); ++i) SetFromDouble(*out, i, values[i]);
  return out;
}

void Append(std::vector<double>& values, const Mat& m) {
  values.insert(values.end(), m.a.begin(), m.a.end());
}

absl::StatusOr<bool> BoolAttr(const KernelContext& ctx, absl::string_view name, bool fallback) {
  return ctx.node().GetBool(name, fallback);
}

}  // namespace linalg

namespace {

using linalg::Append;
using linalg::Batch;
using linalg::BoolAttr;
using linalg::kRealDTypes;
using linalg::kRealOrHalfDTypes;
using linalg::Mat;
using linalg::ReadBatch;
using linalg::TensorFromDoubles;

// --- LU with partial pivoting ---------------------------------------------------------------

// P * A = L * U packed in `lu` (L below the diagonal with a unit diagonal, U on and above it),
// with row i of P * A being row perm[i] of A. Pivots are the first largest magnitude of each
// column, as Eigen's PartialPivLU picks them; a zero column leaves its pivot 0 and goes on.
struct Lu {
  Mat lu;
  std::vector<int64_t> perm;
  int swaps = 0;

  bool HasZeroPivot() const {
    for (int64_t k = 0; k < lu.rows; ++k) {
      if (lu(k, k) == 0) return true;
    }
    return false;
  }
  // Solves A X = B.
  Mat Solve(const Mat& b) const {
    const int64_t n = lu.rows;
    Mat x(n, b.cols);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < b.cols; ++j) x(i, j) = b(perm[i], j);
    }
    for (int64_t j = 0; j < b.cols; ++j) {
      for (int64_t i = 0; i < n; ++i) {
        double s = x(i, j);
        for (int64_t k = 0; k < i; ++k) s -= lu(i, k) * x(k, j);
        x(i, j) = s;
      }
      for (int64_t i = n - 1; i >= 0; --i) {
        double s = x(i, j);
        for (int64_t k = i + 1; k < n; ++k) s -= lu(i, k) * x(k, j);
        x(i, j) = s / lu(i, i);
      }
    }
    return x;
  }
};

Lu Factor(Mat a) {
  Lu f;
  const int64_t n = a.rows;
  f.perm.resize(n);
  std::iota(f.perm.begin(), f.perm.end(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t pivot = k;
    double biggest = std::fabs(a(k, k));
    for (int64_t i = k + 1; i < n; ++i) {
      if (std::fabs(a(i, k)) > biggest) biggest = std::fabs(a(i, k)), pivot = i;
    }
    if (biggest == 0) continue;
    if (pivot != k) {
      for (int64_t j = 0; j < n; ++j) std::swap(a(k, j), a(pivot, j));
      std::swap(f.perm[k], f.perm[pivot]);
      ++f.swaps;
    }
    for (int64_t i = k + 1; i < n; ++i) {
      a(i, k) /= a(k, k);
      const double l = a(i, k);
      for (int64_t j = k + 1; j < n; ++j) a(i, j) -= l * a(k, j);
    }
  }
  f.lu = std::move(a);
  return f;
}

// MatrixInverse(input; adjoint).
absl::Status MatrixInverse(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_ASSIGN_OR_RETURN(Batch in, ReadBatch(ctx, 0, kRealOrHalfDTypes, true));
  DFC_ASSIGN_OR_RETURN(bool adjoint, BoolAttr(ctx, "adjoint", false));
  std::vector<double> values;
  for (int64_t b = 0; b < in.count && in.rows > 0; ++b) {
    const Mat m = in.Matrix(b);
    const Lu f = Factor(adjoint ? m.Transposed() : m);
    // TensorFlow guards against exact zero pivots only (PartialPivLU gives no stronger test).
    if (f.HasZeroPivot()) {
      return ctx.Error(absl::StrCat("input is not invertible (matrix ", b, " of the batch)"));
    }
    Append(values, f.Solve(Mat::Identity(in.rows)));
  }
  values.resize(in.count * in.rows * in.rows);
  DFC_ASSIGN_OR_RETURN(Tensor out, TensorFromDoubles(ctx, ctx.input(0).dtype(), in.batch,
                                                     {in.rows, in.rows}, values));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// The sign and log|det| of a matrix as TensorFlow's SLogDet computes them from the LU: an
// empty matrix has determinant 1; a log|det| that is not finite (a zero pivot, an overflow,
// a NaN) gives sign 0 and log|det| -inf (+inf for an overflow).
std::pair<double, double> SignLogDet(const Mat& m) {
  double sign = 1;
  double log_abs = 0;
  if (m.rows > 0) {
    const Lu f = Factor(m);
    if (f.swaps % 2 == 1) sign = -sign;
    for (int64_t k = 0; k < m.rows; ++k) {
      const double u = f.lu(k, k);
      log_abs += std::log(std::fabs(u));
      sign *= u / std::fabs(u);
    }
  }
  if (!std::isfinite(log_abs)) {
    sign = 0;
    log_abs = log_abs > 0 ? std::numeric_limits<double>::infinity()
                          : -std::numeric_limits<double>::infinity();
  }
  return {sign, log_abs};
}

// MatrixDeterminant(input): sign * exp(log|det|), as TensorFlow forms it.
absl::Status MatrixDeterminant(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_ASSIGN_OR_RETURN(Batch in, ReadBatch(ctx, 0, kRealDTypes, true));
  std::vector<double> values;
  for (int64_t b = 0; b < in.count; ++b) {
    const auto [sign, log_abs] = SignLogDet(in.Matrix(b));
    values.push_back(sign * std::exp(log_abs));
  }
  DFC_ASSIGN_OR_RETURN(Tensor out,
                       TensorFromDoubles(ctx, ctx.input(0).dtype(), in.batch, {}, values));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// LogMatrixDeterminant(input) -> (sign, log_abs_determinant).
absl::Status LogMatrixDeterminant(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_ASSIGN_OR_RETURN(Batch in, ReadBatch(ctx, 0, kRealDTypes, true));
  std::vector<double> signs;
  std::vector<double> logs;
  for (int64_t b = 0; b < in.count; ++b) {
    const auto [sign, log_abs] = SignLogDet(in.Matrix(b));
    signs.push_back(sign);
    logs.push_back(log_abs);
  }
  const DType dtype = ctx.input(0).dtype();
  DFC_ASSIGN_OR_RETURN(Tensor sign, TensorFromDoubles(ctx, dtype, in.batch, {}, signs));
  DFC_ASSIGN_OR_RETURN(Tensor log_abs, TensorFromDoubles(ctx, dtype, in.batch, {}, logs));
  ctx.set_output(0, std::move(sign));
  ctx.set_output(1, std::move(log_abs));
  return absl::OkStatus();
}

// Lu(input; output_idx_type) -> (lu, p): P * input = L * U, row i of P * input is row p[i] of
// input.
absl::Status LuOp(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_ASSIGN_OR_RETURN(Batch in, ReadBatch(ctx, 0, kRealDTypes, true));
  DFC_ASSIGN_OR_RETURN(DType index_type, ctx.node().GetType("output_idx_type", DType::kInt32));
  if (index_type != DType::kInt32 && index_type != DType::kInt64) {
    return ctx.Error(
        absl::StrCat("output_idx_type must be int32 or int64, got ", DTypeName(index_type)));
  }
  const int64_t n = in.rows;
  std::vector<double> values;
  Shape perm_shape = in.batch;
  perm_shape.push_back(n);
  DFC_ASSIGN_OR_RETURN(Tensor perm, AllocateOutput(ctx, index_type, perm_shape));
  for (int64_t b = 0; b < in.count && n > 0; ++b) {
    const Lu f = Factor(in.Matrix(b));
    if (f.HasZeroPivot()) {
      return ctx.Error(absl::StrCat("input is not invertible (matrix ", b, " of the batch)"));
    }
    Append(values, f.lu);
    for (int64_t i = 0; i < n; ++i) {
      if (index_type == DType::kInt32) {
        perm.mutable_data<int32_t>()[b * n + i] = static_cast<int32_t>(f.perm[i]);
      } else {
        perm.mutable_data<int64_t>()[b * n + i] = f.perm[i];
      }
    }
  }
  values.resize(in.count * n * n);
  DFC_ASSIGN_OR_RETURN(Tensor lu,
                       TensorFromDoubles(ctx, ctx.input(0).dtype(), in.batch, {n, n}, values));
  ctx.set_output(0, std::move(lu));
  ctx.set_output(1, std::move(perm));
  return absl::OkStatus();
}

// --- Solves ---------------------------------------------------------------------------------

// MatrixSolve(matrix, rhs; adjoint): matrix [..., M, M], rhs [..., M, K] with the same batch.
absl::Status MatrixSolve(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_ASSIGN_OR_RETURN(Batch a, ReadBatch(ctx, 0, kRealDTypes, true));
  DFC_ASSIGN_OR_RETURN(Batch rhs, ReadBatch(ctx, 1, kRealDTypes, false));
  DFC_ASSIGN_OR_RETURN(bool adjoint, BoolAttr(ctx, "adjoint", false));
  if (ctx.input(1).dtype() != ctx.input(0).dtype() || rhs.batch != a.batch || rhs.rows != a.rows) {
    return ctx.Error(absl::StrCat("rhs ", ctx.input(1).DebugType(), " must have the dtype, ",
                                  "batch dimensions and rows of matrix ",
                                  ctx.input(0).DebugType()));
  }
  std::vector<double> values;
  const bool empty = a.rows == 0 || rhs.cols == 0;
  for (int64_t b = 0; b < a.count && !empty; ++b) {
    const Mat m = a.Matrix(b);
    const Lu f = Factor(adjoint ? m.Transposed() : m);
    if (f.HasZeroPivot()) {
      return ctx.Error(
          absl::StrCat("input matrix is not invertible (matrix ", b, " of the batch)"));
    }
    Append(values, f.Solve(rhs.Matrix(b)));
  }
  values.resize(a.count * a.rows * rhs.cols);
  DFC_ASSIGN_OR_RETURN(Tensor out, TensorFromDoubles(ctx, ctx.input(0).dtype(), a.batch,
                                                     {a.rows, rhs.cols}, values));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// MatrixTriangularSolve(matrix, rhs; lower, adjoint): solves op(T) X = rhs with T the lower
// (or upper) triangle of matrix, its other elements never read. The batch dimensions
// broadcast, as TensorFlow's MatMulBCast does. A zero on the diagonal divides by zero, as
// Eigen's solve does: TensorFlow checks nothing there.
absl::Status MatrixTriangularSolve(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_ASSIGN_OR_RETURN(Batch a, ReadBatch(ctx, 0, kRealDTypes, true));
  DFC_ASSIGN_OR_RETURN(Batch rhs, ReadBatch(ctx, 1, kRealDTypes, false));
  DFC_ASSIGN_OR_RETURN(bool lower, BoolAttr(ctx, "lower", true));
  DFC_ASSIGN_OR_RETURN(bool adjoint, BoolAttr(ctx, "adjoint", false));
  if (ctx.input(1).dtype() != ctx.input(0).dtype() || rhs.rows != a.rows) {
    return ctx.Error(absl::StrCat("rhs ", ctx.input(1).DebugType(), " must have the dtype ",
                                  "and rows of matrix ", ctx.input(0).DebugType()));
  }
  absl::StatusOr<Shape> batch = BroadcastShapes(a.batch, rhs.batch);
  if (!batch.ok()) {
    return ctx.Error(absl::StrCat("the batch dimensions of matrix ", ctx.input(0).DebugType(),
                                  " and rhs ", ctx.input(1).DebugType(), " do not broadcast"));
  }
  const BroadcastIndexer a_index(a.batch, *batch);
  const BroadcastIndexer rhs_index(rhs.batch, *batch);
  int64_t count = 1;
  for (int64_t d : *batch) count *= d;
  const int64_t n = a.rows;
  const int64_t k = rhs.cols;
  std::vector<double> values;
  for (int64_t b = 0; b < count && n * k > 0; ++b) {
    Mat t = a.Matrix(a_index.Offset(b));
    if (adjoint) t = t.Transposed();
    // After the transpose the triangle is on the other side.
    const bool solve_lower = lower != adjoint;
    Mat x = rhs.Matrix(rhs_index.Offset(b));
    for (int64_t j = 0; j < k; ++j) {
      for (int64_t step = 0; step < n; ++step) {
        const int64_t i = solve_lower ? step : n - 1 - step;
        double s = x(i, j);
        if (solve_lower) {
          for (int64_t c = 0; c < i; ++c) s -= t(i, c) * x(c, j);
        } else {
          for (int64_t c = i + 1; c < n; ++c) s -= t(i, c) * x(c, j);
        }
        x(i, j) = s / t(i, i);
      }
    }
    Append(values, x);
  }
  values.resize(count * n * k);
  DFC_ASSIGN_OR_RETURN(Tensor out,
                       TensorFromDoubles(ctx, ctx.input(0).dtype(), *batch, {n, k}, values));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- Cholesky -------------------------------------------------------------------------------

// Cholesky(input): L with L L^T = input, from input's lower triangle (Eigen's LLT); the
// strict upper triangle of the output is zero. A non-positive pivot is TensorFlow's error.
absl::Status Cholesky(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_ASSIGN_OR_RETURN(Batch in, ReadBatch(ctx, 0, kRealDTypes, true));
  const int64_t n = in.rows;
  std::vector<double> values;
  for (int64_t b = 0; b < in.count; ++b) {
    const Mat m = in.Matrix(b);
    Mat l(n, n);
    for (int64_t j = 0; j < n; ++j) {
      double x = m(j, j);
      for (int64_t c = 0; c < j; ++c) x -= l(j, c) * l(j, c);
      // Eigen fails on x <= 0 only, so a NaN runs on into the result.
      if (x <= 0) {
        return ctx.Error(absl::StrCat("Cholesky decomposition was not successful: matrix ", b,
                                      " of the batch is not positive definite (pivot ", j, " is ",
                                      x, ")"));
      }
      l(j, j) = std::sqrt(x);
      for (int64_t i = j + 1; i < n; ++i) {
        double s = m(i, j);
        for (int64_t c = 0; c < j; ++c) s -= l(i, c) * l(j, c);
        l(i, j) = s / l(j, j);
      }
    }
    Append(values, l);
  }
  DFC_ASSIGN_OR_RETURN(Tensor out,
                       TensorFromDoubles(ctx, ctx.input(0).dtype(), in.batch, {n, n}, values));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- Matrix exponential ---------------------------------------------------------------------

Mat Multiply(const Mat& x, const Mat& y) {
  Mat z(x.rows, y.cols);
  for (int64_t i = 0; i < x.rows; ++i) {
    for (int64_t k = 0; k < x.cols; ++k) {
      const double xik = x(i, k);
      for (int64_t j = 0; j < y.cols; ++j) z(i, j) += xik * y(k, j);
    }
  }
  return z;
}

// exp(A) by scaling and squaring with the [13/13] Padé approximant (Higham 2005, the method
// Eigen's MatrixExponential uses for double): A is scaled by 2^-s until its 1-norm is below
// theta_13, and the approximant squared s times.
Mat Expm(Mat a) {
  const int64_t n = a.rows;
  double norm = 0;
  for (int64_t j = 0; j < n; ++j) {
    double col = 0;
    for (int64_t i = 0; i < n; ++i) col += std::fabs(a(i, j));
    norm = std::max(norm, col);
  }
  constexpr double kTheta13 = 5.371920351148152;
  int squarings = 0;
  if (norm > kTheta13) {
    squarings = std::max(0, static_cast<int>(std::ceil(std::log2(norm / kTheta13))));
    const double scale = std::ldexp(1.0, -squarings);
    for (double& x : a.a) x *= scale;
  }
  constexpr double b[] = {64764752532480000.0,
                          32382376266240000.0,
                          7771770303897600.0,
                          1187353796428800.0,
                          129060195264000.0,
                          10559470521600.0,
                          670442572800.0,
                          33522128640.0,
                          1323241920.0,
                          40840800.0,
                          960960.0,
                          16380.0,
                          182.0,
                          1.0};
  const Mat ident = Mat::Identity(n);
  const Mat a2 = Multiply(a, a);
  const Mat a4 = Multiply(a2, a2);
  const Mat a6 = Multiply(a4, a2);
  const auto combine = [&](double c6, double c4, double c2, double c0) {
    Mat m(n, n);
    for (size_t i = 0; i < m.a.size(); ++i) {
      m.a[i] = c6 * a6.a[i] + c4 * a4.a[i] + c2 * a2.a[i] + c0 * ident.a[i];
    }
    return m;
  };
  const auto add = [](Mat x, const Mat& y) {
    for (size_t i = 0; i < x.a.size(); ++i) x.a[i] += y.a[i];
    return x;
  };
  const Mat u = Multiply(
      a, add(Multiply(a6, combine(b[13], b[11], b[9], 0)), combine(b[7], b[5], b[3], b[1])));
  const Mat v = add(Multiply(a6, combine(b[12], b[10], b[8], 0)), combine(b[6], b[4], b[2], b[0]));
  Mat p = v, q = v;
  for (size_t i = 0; i < u.a.size(); ++i) p.a[i] += u.a[i], q.a[i] -= u.a[i];
  Mat r = Factor(q).Solve(p);
  for (int i = 0; i < squarings; ++i) r = Multiply(r, r);
  return r;
}

// MatrixExponential(input).
absl::Status MatrixExponential(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_ASSIGN_OR_RETURN(Batch in, ReadBatch(ctx, 0, kRealDTypes, true));
  std::vector<double> values;
  for (int64_t b = 0; b < in.count && in.rows > 0; ++b) Append(values, Expm(in.Matrix(b)));
  values.resize(in.count * in.rows * in.rows);
  DFC_ASSIGN_OR_RETURN(Tensor out, TensorFromDoubles(ctx, ctx.input(0).dtype(), in.batch,
                                                     {in.rows, in.rows}, values));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterLinalgKernels(KernelRegistry& registry) {
  registry.Register("MatrixInverse", MatrixInverse);
  registry.Register("MatrixDeterminant", MatrixDeterminant);
  registry.Register("LogMatrixDeterminant", LogMatrixDeterminant);
  registry.Register("Lu", LuOp);
  registry.Register("MatrixSolve", MatrixSolve);
  registry.Register("MatrixTriangularSolve", MatrixTriangularSolve);
  registry.Register("Cholesky", Cholesky);
  registry.Register("MatrixExponential", MatrixExponential);
  RegisterOrthogonalKernels(registry);
}

}  // namespace dfc::reference
