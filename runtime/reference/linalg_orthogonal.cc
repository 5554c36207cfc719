// Reference kernels for the orthogonal decompositions of batches of matrices: Qr, Svd and
// SelfAdjointEigV2, computed in double as every linear algebra kernel is (linalg.cc). Registered
// by RegisterLinalgKernels (linalg.cc).
//
// They follow Eigen's choices where they show in the result: Householder reflectors whose beta
// has the sign opposite to the pivot (HouseholderQR), the lower triangle read for the
// self-adjoint eigensolver. Singular vectors and eigenvectors are unique only up to sign; their
// signs here follow the rule stated at Svd and SelfAdjointEigV2.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include "base/status.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"
#include "runtime/reference/linalg_internal.h"

namespace dfc::reference {
namespace {

using linalg::Append;
using linalg::Batch;
using linalg::BoolAttr;
using linalg::kRealDTypes;
using linalg::kRealOrHalfDTypes;
using linalg::Mat;
using linalg::ReadBatch;
using linalg::TensorFromDoubles;

// --- QR -------------------------------------------------------------------------------------

// Householder QR as Eigen's HouseholderQR computes it: for column k, with c0 its pivot and
// t its part below, beta = -sign(c0) * |(c0, t)| (beta = c0 and no reflection when t is
// zero), v = (1, t / (c0 - beta)), tau = (beta - c0) / beta, and R's diagonal holds the betas.
struct Qr {
  Mat q;  // m x m
  Mat r;  // m x n, upper triangular
};

Qr HouseholderQr(const Mat& input) {
  const int64_t m = input.rows;
  const int64_t n = input.cols;
  Mat r = input;
  Mat q = Mat::Identity(m);
  std::vector<double> v(m);
  for (int64_t k = 0; k < std::min(m, n); ++k) {
    const double c0 = r(k, k);
    double tail = 0;
    for (int64_t i = k + 1; i < m; ++i) tail += r(i, k) * r(i, k);
    if (tail <= std::numeric_limits<double>::min()) continue;  // tau = 0: H is the identity
    double beta = std::sqrt(c0 * c0 + tail);
    if (c0 >= 0) beta = -beta;
    const double tau = (beta - c0) / beta;
    v[k] = 1;
    for (int64_t i = k + 1; i < m; ++i) v[i] = r(i, k) / (c0 - beta);
    // R = H R for the columns right of k; column k becomes (beta, 0...).
    for (int64_t j = k + 1; j < n; ++j) {
      double dot = 0;
      for (int64_t i = k; i < m; ++i) dot += v[i] * r(i, j);
      for (int64_t i = k; i < m; ++i) r(i, j) -= tau * v[i] * dot;
    }
    r(k, k) = beta;
    for (int64_t i = k + 1; i < m; ++i) r(i, k) = 0;
    // Q = Q H.
    for (int64_t i = 0; i < m; ++i) {
      double dot = 0;
      for (int64_t c = k; c < m; ++c) dot += q(i, c) * v[c];
      for (int64_t c = k; c < m; ++c) q(i, c) -= tau * dot * v[c];
    }
  }
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < std::min(i, n); ++j) r(i, j) = 0;
  }
  return {std::move(q), std::move(r)};
}

// Qr(input; full_matrices) -> (q, r): q [..., M, P], r [..., P, N] with P = M when
// full_matrices, min(M, N) otherwise.
absl::Status QrOp(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_ASSIGN_OR_RETURN(Batch in, ReadBatch(ctx, 0, kRealOrHalfDTypes, false));
  DFC_ASSIGN_OR_RETURN(bool full, BoolAttr(ctx, "full_matrices", false));
  const int64_t m = in.rows;
  const int64_t n = in.cols;
  const int64_t p = full ? m : std::min(m, n);
  std::vector<double> qs;
  std::vector<double> rs;
  for (int64_t b = 0; b < in.count; ++b) {
    const Qr f = HouseholderQr(in.Matrix(b));
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < p; ++j) qs.push_back(f.q(i, j));
    }
    for (int64_t i = 0; i < p; ++i) {
      for (int64_t j = 0; j < n; ++j) rs.push_back(f.r(i, j));
    }
  }
  const DType dtype = ctx.input(0).dtype();
  DFC_ASSIGN_OR_RETURN(Tensor q, TensorFromDoubles(ctx, dtype, in.batch, {m, p}, qs));
  DFC_ASSIGN_OR_RETURN(Tensor r, TensorFromDoubles(ctx, dtype, in.batch, {p, n}, rs));
  ctx.set_output(0, std::move(q));
  ctx.set_output(1, std::move(r));
  return absl::OkStatus();
}

// --- SVD and the symmetric eigenproblem -----------------------------------------------------

// Fills the columns of q (m x c) not marked in `valid` so that all c columns are orthonormal:
// each new column is the unit vector, orthogonalized against the columns so far (twice, for
// accuracy), that keeps the largest part.
void CompleteOrthonormal(Mat& q, std::vector<bool> valid) {
  const int64_t m = q.rows;
  for (int64_t c = 0; c < q.cols; ++c) {
    if (valid[c]) continue;
    std::vector<double> best;
    double best_norm = -1;
    for (int64_t e = 0; e < m; ++e) {
      std::vector<double> x(m, 0.0);
      x[e] = 1;
      for (int pass = 0; pass < 2; ++pass) {
        for (int64_t o = 0; o < q.cols; ++o) {
          if (!valid[o]) continue;
          double dot = 0;
          for (int64_t i = 0; i < m; ++i) dot += q(i, o) * x[i];
          for (int64_t i = 0; i < m; ++i) x[i] -= dot * q(i, o);
        }
      }
      double norm = 0;
      for (double v : x) norm += v * v;
      if (norm > best_norm) best_norm = norm, best = std::move(x);
    }
    const double scale = 1 / std::sqrt(best_norm);
    for (int64_t i = 0; i < m; ++i) q(i, c) = best[i] * scale;
    valid[c] = true;
  }
}

// Makes the largest-magnitude element of column c of `x` positive, flipping column c of `y`
// with it (so x S y^T is unchanged): the sign rule for singular vectors and eigenvectors.
void FixSign(Mat& x, Mat* y, int64_t c) {
  int64_t at = 0;
  for (int64_t i = 1; i < x.rows; ++i) {
    if (std::fabs(x(i, c)) > std::fabs(x(at, c))) at = i;
  }
  if (x.rows == 0 || x(at, c) >= 0) return;
  for (int64_t i = 0; i < x.rows; ++i) x(i, c) = -x(i, c);
  if (y != nullptr) {
    for (int64_t i = 0; i < y->rows; ++i) (*y)(i, c) = -(*y)(i, c);
  }
}

// The SVD of a (m x n, m >= n) by one-sided Jacobi: rotations of column pairs until all are
// orthogonal to roundoff, accumulated in v; then s = the column norms, u = the normalized
// columns. Returns s descending, u (m x n, or m x m when `full`) and v (n x n).
struct Svd {
  std::vector<double> s;
  Mat u;
  Mat v;
};

Svd JacobiSvdTall(const Mat& a, bool full) {
  const int64_t m = a.rows;
  const int64_t n = a.cols;
  Mat u = a;
  Mat v = Mat::Identity(n);
  const double eps = std::numeric_limits<double>::epsilon();
  for (int sweep = 0; sweep < 80; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        double alpha = 0, beta = 0, gamma = 0;
        for (int64_t i = 0; i < m; ++i) {
          alpha += u(i, p) * u(i, p);
          beta += u(i, q) * u(i, q);
          gamma += u(i, p) * u(i, q);
        }
        if (!(std::fabs(gamma) > eps * std::sqrt(alpha * beta)) || gamma == 0) continue;
        rotated = true;
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = (zeta >= 0 ? 1 : -1) / (std::fabs(zeta) + std::sqrt(1 + zeta * zeta));
        const double c = 1 / std::sqrt(1 + t * t);
        const double s = c * t;
        for (int64_t i = 0; i < m; ++i) {
          const double up = u(i, p), uq = u(i, q);
          u(i, p) = c * up - s * uq;
          u(i, q) = s * up + c * uq;
        }
        for (int64_t i = 0; i < n; ++i) {
          const double vp = v(i, p), vq = v(i, q);
          v(i, p) = c * vp - s * vq;
          v(i, q) = s * vp + c * vq;
        }
      }
    }
    if (!rotated) break;
  }
  std::vector<double> norms(n);
  for (int64_t j = 0; j < n; ++j) {
    double ss = 0;
    for (int64_t i = 0; i < m; ++i) ss += u(i, j) * u(i, j);
    norms[j] = std::sqrt(ss);
  }
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t x, int64_t y) { return norms[x] > norms[y]; });
  Svd r;
  r.u = Mat(m, full ? m : n);
  r.v = Mat(n, n);
  std::vector<bool> valid(r.u.cols, false);
  const double tiny = norms.empty() ? 0 : norms[order[0]] * eps * std::max<int64_t>(m, n);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t j = order[k];
    r.s.push_back(norms[j]);
    for (int64_t i = 0; i < n; ++i) r.v(i, k) = v(i, j);
    if (norms[j] > tiny && norms[j] > 0) {
      for (int64_t i = 0; i < m; ++i) r.u(i, k) = u(i, j) / norms[j];
      valid[k] = true;
    }
  }
  CompleteOrthonormal(r.u, valid);
  // Signs: the largest element of each right singular vector is positive.
  for (int64_t k = 0; k < n; ++k) FixSign(r.v, &r.u, k);
  return r;
}

// Svd(input; compute_uv, full_matrices) -> (s, u, v): input = u diag(s) v^T, s descending.
// Without compute_uv, u and v are empty [0] tensors, as TensorFlow allocates them. The
// columns of u and v are unique only up to sign; here the largest-magnitude element of each
// column of v is positive (u's column follows). The conformance cases compare |u| and |v|.
absl::Status SvdOp(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_ASSIGN_OR_RETURN(Batch in, ReadBatch(ctx, 0, kRealDTypes, false));
  DFC_ASSIGN_OR_RETURN(bool compute_uv, BoolAttr(ctx, "compute_uv", true));
  DFC_ASSIGN_OR_RETURN(bool full, BoolAttr(ctx, "full_matrices", false));
  const int64_t m = in.rows;
  const int64_t n = in.cols;
  const int64_t p = std::min(m, n);
  const int64_t u_cols = full ? m : p;
  const int64_t v_cols = full ? n : p;
  std::vector<double> ss, us, vs;
  for (int64_t b = 0; b < in.count; ++b) {
    Mat u, v;
    std::vector<double> s;
    if (p == 0) {
      // TensorFlow sets the non-empty factor of a full SVD to the identity.
      u = Mat::Identity(m);
      v = Mat::Identity(n);
    } else if (m >= n) {
      Svd r = JacobiSvdTall(in.Matrix(b), full);
      s = std::move(r.s), u = std::move(r.u), v = std::move(r.v);
    } else {
      // input^T = u' s v'^T, so input = v' s u'^T.
      Svd r = JacobiSvdTall(in.Matrix(b).Transposed(), full);
      s = std::move(r.s), u = std::move(r.v), v = std::move(r.u);
    }
    ss.insert(ss.end(), s.begin(), s.end());
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < u_cols; ++j) us.push_back(u(i, j));
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < v_cols; ++j) vs.push_back(v(i, j));
    }
  }
  const DType dtype = ctx.input(0).dtype();
  DFC_ASSIGN_OR_RETURN(Tensor s, TensorFromDoubles(ctx, dtype, in.batch, {p}, ss));
  ctx.set_output(0, std::move(s));
  for (int o = 1; o <= 2; ++o) {
    DFC_ASSIGN_OR_RETURN(Tensor t, !compute_uv ? AllocateOutput(ctx, dtype, {0})
                                   : o == 1
                                       ? TensorFromDoubles(ctx, dtype, in.batch, {m, u_cols}, us)
                                       : TensorFromDoubles(ctx, dtype, in.batch, {n, v_cols}, vs));
    ctx.set_output(o, std::move(t));
  }
  return absl::OkStatus();
}

// SelfAdjointEigV2(input; compute_v) -> (e, v): the eigenvalues ascending and the eigenvectors
// as columns, of the symmetric matrix input's lower triangle defines (Eigen's
// SelfAdjointEigenSolver reads only it). Cyclic Jacobi rotations, to roundoff. The largest-
// magnitude element of each eigenvector is positive. Without compute_v, v is an empty [0].
absl::Status SelfAdjointEig(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_ASSIGN_OR_RETURN(Batch in, ReadBatch(ctx, 0, kRealDTypes, true));
  DFC_ASSIGN_OR_RETURN(bool compute_v, BoolAttr(ctx, "compute_v", true));
  const int64_t n = in.rows;
  std::vector<double> es, vs;
  for (int64_t b = 0; b < in.count; ++b) {
    Mat a = in.Matrix(b);
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i + 1; j < n; ++j) a(i, j) = a(j, i);
    }
    Mat v = Mat::Identity(n);
    for (int sweep = 0; sweep < 80; ++sweep) {
      double off = 0, total = 0;
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) (i == j ? total : off) += a(i, j) * a(i, j);
      }
      if (!(off > std::numeric_limits<double>::epsilon() * std::numeric_limits<double>::epsilon() *
                      (off + total))) {
        break;
      }
      for (int64_t p = 0; p < n; ++p) {
        for (int64_t q = p + 1; q < n; ++q) {
          if (a(p, q) == 0) continue;
          const double theta = (a(q, q) - a(p, p)) / (2 * a(p, q));
          const double t =
              (theta >= 0 ? 1 : -1) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
          const double c = 1 / std::sqrt(t * t + 1);
          const double s = t * c;
          for (int64_t k = 0; k < n; ++k) {  // A = A J
            const double akp = a(k, p), akq = a(k, q);
            a(k, p) = c * akp - s * akq;
            a(k, q) = s * akp + c * akq;
          }
          for (int64_t k = 0; k < n; ++k) {  // A = J^T A
            const double apk = a(p, k), aqk = a(q, k);
            a(p, k) = c * apk - s * aqk;
            a(q, k) = s * apk + c * aqk;
          }
          for (int64_t k = 0; k < n; ++k) {
            const double vkp = v(k, p), vkq = v(k, q);
            v(k, p) = c * vkp - s * vkq;
            v(k, q) = s * vkp + c * vkq;
          }
        }
      }
    }
    std::vector<int64_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t x, int64_t y) { return a(x, x) < a(y, y); });
    Mat sorted(n, n);
    for (int64_t k = 0; k < n; ++k) {
      es.push_back(a(order[k], order[k]));
      for (int64_t i = 0; i < n; ++i) sorted(i, k) = v(i, order[k]);
      FixSign(sorted, nullptr, k);
    }
    Append(vs, sorted);
  }
  const DType dtype = ctx.input(0).dtype();
  DFC_ASSIGN_OR_RETURN(Tensor e, TensorFromDoubles(ctx, dtype, in.batch, {n}, es));
  DFC_ASSIGN_OR_RETURN(Tensor v, compute_v ? TensorFromDoubles(ctx, dtype, in.batch, {n, n}, vs)
                                           : AllocateOutput(ctx, dtype, {0}));
  ctx.set_output(0, std::move(e));
  ctx.set_output(1, std::move(v));
  return absl::OkStatus();
}

}  // namespace

void RegisterOrthogonalKernels(KernelRegistry& registry) {
  registry.Register("Qr", QrOp);
  registry.Register("Svd", SvdOp);
  registry.Register("SelfAdjointEigV2", SelfAdjointEig);
}

}  // namespace dfc::reference
