// Tests of the dense linear algebra reference kernels (linalg.cc): hand-computed small cases,
// reconstructions of random matrices from their factors, empty batches, and the errors
// TensorFlow's kernels raise.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::dfc::testing::ExpectError;
using ::dfc::testing::RunOp;
using ::dfc::testing::RunOp1;
using ::dfc::testing::T1;
using ::dfc::testing::TN;
using ::dfc::testing::UniformFloats;
using ::dfc::testing::Values;
using ::dfc::testing::ValuesAsDouble;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::Pointwise;

// Row-major matrix product of an [m, k] and a [k, n] block of doubles.
std::vector<double> MatMul(const std::vector<double>& x, const std::vector<double>& y, int m, int k,
                           int n) {
  std::vector<double> z(m * n, 0.0);
  for (int i = 0; i < m; ++i) {
    for (int c = 0; c < k; ++c) {
      for (int j = 0; j < n; ++j) z[i * n + j] += x[i * k + c] * y[c * n + j];
    }
  }
  return z;
}

std::vector<double> Transpose(const std::vector<double>& x, int m, int n) {
  std::vector<double> t(m * n);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) t[j * m + i] = x[i * n + j];
  }
  return t;
}

std::vector<double> Identity(int n) {
  std::vector<double> e(n * n, 0.0);
  for (int i = 0; i < n; ++i) e[i * n + i] = 1;
  return e;
}

// A float64 version of UniformFloats, for reconstructions checked to double roundoff.
Tensor RandomDoubles(Shape shape, uint64_t seed) {
  const Tensor f = UniformFloats(shape, seed, -1, 1);
  return TN<double>(ValuesAsDouble(f), shape);
}

TEST(MatrixInverseTest, SmallBatchAdjointAndHalf) {
  const Tensor a = TN<float>({4, 7, 2, 6, 2, 0, 0, 4}, {2, 2, 2});
  EXPECT_THAT(
      Values<float>(RunOp1("MatrixInverse", {a})),
      Pointwise(FloatNear(1e-7f), std::vector<float>{0.6f, -0.7f, -0.2f, 0.4f, 0.5f, 0, 0, 0.25f}));
  EXPECT_THAT(
      Values<float>(RunOp1("MatrixInverse", {a}, {{"adjoint", true}})),
      Pointwise(FloatNear(1e-7f), std::vector<float>{0.6f, -0.2f, -0.7f, 0.4f, 0.5f, 0, 0, 0.25f}));
  const Tensor h = testing::HalfTensor({2, 0, 0, 4}, {2, 2});
  EXPECT_THAT(ValuesAsDouble(RunOp1("MatrixInverse", {h})), ElementsAre(0.5, 0, 0, 0.25));
}

TEST(MatrixInverseTest, EmptyAndErrors) {
  EXPECT_EQ(RunOp1("MatrixInverse", {Tensor::Zeros(DType::kFloat, {3, 0, 0})}).shape(),
            Shape({3, 0, 0}));
  ExpectError(RunOp("MatrixInverse", {TN<float>({1, 2, 2, 4}, {2, 2})}), "not invertible");
  ExpectError(RunOp("MatrixInverse", {TN<float>({1, 2, 3, 4, 5, 6}, {2, 3})}), "square");
  ExpectError(RunOp("MatrixInverse", {T1<float>({1, 2})}), "rank >= 2");
  ExpectError(RunOp("MatrixInverse", {TN<int32_t>({1, 0, 0, 1}, {2, 2})}), "dtype");
}

TEST(DeterminantTest, SignsPivotsAndEmpty) {
  // [[1, 2], [3, 4]] pivots on row 1: det = -2; a singular matrix has det 0.
  const Tensor a = TN<double>({1, 2, 3, 4, 1, 2, 2, 4}, {2, 2, 2});
  EXPECT_THAT(Values<double>(RunOp1("MatrixDeterminant", {a})),
              Pointwise(DoubleNear(1e-14), std::vector<double>{-2.0, 0.0}));
  EXPECT_THAT(Values<float>(RunOp1("MatrixDeterminant", {Tensor::Zeros(DType::kFloat, {2, 0, 0})})),
              ElementsAre(1, 1));
  const auto out = RunOp("LogMatrixDeterminant", {a});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<double>((*out)[0]), ElementsAre(-1, 0));
  EXPECT_THAT(Values<double>((*out)[1]), ElementsAre(DoubleNear(std::log(2.0), 1e-15),
                                                     -std::numeric_limits<double>::infinity()));
  ExpectError(RunOp("MatrixDeterminant", {TN<float>({1, 2}, {1, 2})}), "square");
}

TEST(LuTest, PivotsAndPermutation) {
  const auto out = RunOp("Lu", {TN<float>({1, 2, 3, 4}, {2, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]),
              Pointwise(FloatNear(1e-7f), std::vector<float>{3.f, 4.f, 1.f / 3, 2.f / 3}));
  EXPECT_THAT(Values<int32_t>((*out)[1]), ElementsAre(1, 0));
  const auto wide =
      RunOp("Lu", {TN<double>({0, 1, 1, 0}, {1, 2, 2})}, {{"output_idx_type", DType::kInt64}});
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_EQ((*wide)[1].shape(), Shape({1, 2}));
  EXPECT_THAT(Values<int64_t>((*wide)[1]), ElementsAre(1, 0));
  ExpectError(RunOp("Lu", {TN<float>({1, 2, 2, 4}, {2, 2})}), "not invertible");
}

// P A = L U for a random 5x5 matrix: row i of L U is row p[i] of A.
TEST(LuTest, ReconstructsPermutedInput) {
  const Tensor a = RandomDoubles({5, 5}, 7);
  const auto out = RunOp("Lu", {a});
  ASSERT_TRUE(out.ok()) << out.status();
  const std::vector<double> lu = Values<double>((*out)[0]);
  const std::vector<int32_t> p = Values<int32_t>((*out)[1]);
  std::vector<double> l(25, 0.0), u(25, 0.0);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 5; ++j) (j < i ? l : u)[i * 5 + j] = lu[i * 5 + j];
    l[i * 5 + i] = 1;
  }
  const std::vector<double> prod = MatMul(l, u, 5, 5, 5);
  const std::vector<double> av = Values<double>(a);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 5; ++j) EXPECT_NEAR(prod[i * 5 + j], av[p[i] * 5 + j], 1e-14);
    for (int j = 0; j < i; ++j) EXPECT_LE(std::fabs(lu[i * 5 + j]), 1.0);  // partial pivoting
  }
}

TEST(MatrixSolveTest, SolvesAndAdjoint) {
  const Tensor a = TN<double>({2, 1, 0, 4}, {2, 2});
  const Tensor b = TN<double>({3, 1, 4, 2}, {2, 2});
  // [[2, 1], [0, 4]] x = b: x1 = b1 / 4, x0 = (b0 - x1) / 2.
  EXPECT_THAT(Values<double>(RunOp1("MatrixSolve", {a, b})),
              Pointwise(DoubleNear(1e-15), std::vector<double>{1.0, 0.25, 1.0, 0.5}));
  // [[2, 0], [1, 4]] x = b.
  EXPECT_THAT(Values<double>(RunOp1("MatrixSolve", {a, b}, {{"adjoint", true}})),
              Pointwise(DoubleNear(1e-15), std::vector<double>{1.5, 0.5, 0.625, 0.375}));
  ExpectError(RunOp("MatrixSolve", {TN<double>({1, 1, 1, 1}, {2, 2}), b}), "not invertible");
  ExpectError(RunOp("MatrixSolve", {a, TN<double>({1, 2, 3}, {3, 1})}), "rows");
  ExpectError(RunOp("MatrixSolve", {TN<double>({1, 0, 0, 1}, {1, 2, 2}), b}), "batch");
  EXPECT_EQ(RunOp1("MatrixSolve", {a, Tensor::Zeros(DType::kDouble, {2, 0})}).shape(),
            Shape({2, 0}));
}

TEST(MatrixTriangularSolveTest, ReadsOnlyItsTriangle) {
  // The 99 lies outside the lower triangle and is never read.
  const Tensor l = TN<float>({2, 99, 1, 1}, {2, 2});
  const Tensor b = TN<float>({2, 3}, {2, 1});
  EXPECT_THAT(Values<float>(RunOp1("MatrixTriangularSolve", {l, b})), ElementsAre(1, 2));
  // adjoint: [[2, 1], [0, 1]] x = b.
  EXPECT_THAT(Values<float>(RunOp1("MatrixTriangularSolve", {l, b}, {{"adjoint", true}})),
              ElementsAre(-0.5f, 3));
  // Upper: [[2, 99], [0, 1]] x = b.
  EXPECT_THAT(Values<float>(RunOp1("MatrixTriangularSolve", {l, b}, {{"lower", false}})),
              ElementsAre(-147.5f, 3));
}

TEST(MatrixTriangularSolveTest, BroadcastsBatchesAndChecks) {
  const Tensor l = TN<double>({1, 0, 0, 1, 2, 0, 0, 2}, {2, 1, 2, 2});
  const Tensor b = TN<double>({1, 2, 3, 4, 5, 6}, {3, 2, 1});
  const Tensor out = RunOp1("MatrixTriangularSolve", {l, b});
  EXPECT_EQ(out.shape(), Shape({2, 3, 2, 1}));
  EXPECT_THAT(Values<double>(out), ElementsAre(1, 2, 3, 4, 5, 6, 0.5, 1, 1.5, 2, 2.5, 3));
  ExpectError(RunOp("MatrixTriangularSolve", {l, TN<double>({1, 2, 3}, {3, 1})}), "rows");
  ExpectError(RunOp("MatrixTriangularSolve", {TN<double>({1, 0, 0, 1}, {2, 2, 1}), b}), "square");
  ExpectError(RunOp("MatrixTriangularSolve", {l, TN<double>({1, 2, 3, 4, 5, 6}, {3, 1, 2, 1})}),
              "broadcast");
}

TEST(CholeskyTest, FactorsFromTheLowerTriangle) {
  // The upper 100 is ignored: input is [[4, 2], [2, 3]].
  const Tensor out = RunOp1("Cholesky", {TN<double>({4, 100, 2, 3}, {2, 2})});
  EXPECT_THAT(Values<double>(out),
              Pointwise(DoubleNear(1e-15), std::vector<double>{2.0, 0.0, 1.0, std::sqrt(2.0)}));
  ExpectError(RunOp("Cholesky", {TN<double>({1, 2, 2, 1}, {2, 2})}), "not successful");
}

TEST(QrTest, EigenSignsAndShapes) {
  // One column (3, 4): Eigen's reflector gives R = -5 and Q's first column -(0.6, 0.8).
  const auto out = RunOp("Qr", {TN<double>({3, 4}, {2, 1})}, {{"full_matrices", true}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 2}));
  EXPECT_EQ((*out)[1].shape(), Shape({2, 1}));
  EXPECT_THAT(Values<double>((*out)[1]),
              Pointwise(DoubleNear(1e-15), std::vector<double>{-5.0, 0.0}));
  EXPECT_NEAR(Values<double>((*out)[0])[0], -0.6, 1e-15);
  EXPECT_NEAR(Values<double>((*out)[0])[2], -0.8, 1e-15);
}

TEST(QrTest, ReconstructsAndIsOrthonormal) {
  for (bool full : {false, true}) {
    for (const Shape& shape : {Shape{4, 3}, Shape{3, 5}}) {
      const int m = static_cast<int>(shape[0]), n = static_cast<int>(shape[1]);
      const int p = full ? m : std::min(m, n);
      const Tensor a = RandomDoubles(shape, 3);
      const auto out = RunOp("Qr", {a}, {{"full_matrices", full}});
      ASSERT_TRUE(out.ok()) << out.status();
      const std::vector<double> q = Values<double>((*out)[0]);
      const std::vector<double> r = Values<double>((*out)[1]);
      EXPECT_THAT(MatMul(q, r, m, p, n), Pointwise(DoubleNear(1e-14), Values<double>(a)));
      EXPECT_THAT(MatMul(Transpose(q, m, p), q, p, m, p),
                  Pointwise(DoubleNear(1e-14), Identity(p)));
      for (int i = 0; i < p; ++i) {
        for (int j = 0; j < std::min(i, n); ++j) EXPECT_EQ(r[i * n + j], 0);
      }
    }
  }
}

TEST(SvdTest, SingularValuesDescending) {
  const auto out = RunOp("Svd", {TN<float>({3, 0, 0, -2, 0, 0}, {3, 2})}, {{"compute_uv", false}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<float>((*out)[0]), ElementsAre(3, 2));
  EXPECT_EQ((*out)[1].shape(), Shape({0}));
  EXPECT_EQ((*out)[2].shape(), Shape({0}));
}

// u diag(s) v^T reconstructs random tall, wide and rank-deficient matrices, with orthonormal
// u and v, thin and full.
TEST(SvdTest, ReconstructsWithOrthonormalFactors) {
  std::vector<Tensor> inputs = {RandomDoubles({5, 3}, 1), RandomDoubles({3, 5}, 2)};
  // Rank 1: every row a multiple of (1, 2, 3).
  inputs.push_back(TN<double>({1, 2, 3, 2, 4, 6, -1, -2, -3, 0, 0, 0}, {4, 3}));
  for (const Tensor& a : inputs) {
    for (bool full : {false, true}) {
      const int m = static_cast<int>(a.dim(0)), n = static_cast<int>(a.dim(1));
      const int p = std::min(m, n);
      const int uc = full ? m : p, vc = full ? n : p;
      const auto out = RunOp("Svd", {a}, {{"full_matrices", full}, {"compute_uv", true}});
      ASSERT_TRUE(out.ok()) << out.status();
      const std::vector<double> s = Values<double>((*out)[0]);
      const std::vector<double> u = Values<double>((*out)[1]);
      const std::vector<double> v = Values<double>((*out)[2]);
      ASSERT_EQ((*out)[1].shape(), Shape({m, uc}));
      ASSERT_EQ((*out)[2].shape(), Shape({n, vc}));
      for (int k = 1; k < p; ++k) EXPECT_GE(s[k - 1], s[k]);
      std::vector<double> us(m * p, 0.0);
      for (int i = 0; i < m; ++i) {
        for (int k = 0; k < p; ++k) us[i * p + k] = u[i * uc + k] * s[k];
      }
      std::vector<double> vt(p * n);
      for (int k = 0; k < p; ++k) {
        for (int j = 0; j < n; ++j) vt[k * n + j] = v[j * vc + k];
      }
      EXPECT_THAT(MatMul(us, vt, m, p, n), Pointwise(DoubleNear(1e-13), Values<double>(a)));
      EXPECT_THAT(MatMul(Transpose(u, m, uc), u, uc, m, uc),
                  Pointwise(DoubleNear(1e-13), Identity(uc)));
      EXPECT_THAT(MatMul(Transpose(v, n, vc), v, vc, n, vc),
                  Pointwise(DoubleNear(1e-13), Identity(vc)));
    }
  }
}

TEST(SvdTest, EmptyMatrices) {
  const auto out = RunOp("Svd", {Tensor::Zeros(DType::kFloat, {2, 3, 0})},
                         {{"full_matrices", true}, {"compute_uv", true}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 0}));
  EXPECT_EQ((*out)[1].shape(), Shape({2, 3, 3}));
  EXPECT_THAT(Values<float>((*out)[1]),
              ElementsAre(1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1));
  EXPECT_EQ((*out)[2].shape(), Shape({2, 0, 0}));
}

TEST(SelfAdjointEigTest, AscendingFromTheLowerTriangle) {
  // [[2, 1], [1, 2]] (the upper 50 is ignored): eigenvalues 1 and 3.
  const auto out = RunOp("SelfAdjointEigV2", {TN<double>({2, 50, 1, 2}, {2, 2})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Values<double>((*out)[0]),
              Pointwise(DoubleNear(1e-15), std::vector<double>{1.0, 3.0}));
  const double h = std::sqrt(0.5);
  // Each eigenvector's largest element is positive; the first breaks the tie on the first.
  EXPECT_THAT(Values<double>((*out)[1]),
              Pointwise(DoubleNear(1e-15), std::vector<double>{h, h, -h, h}));
  const auto no_v =
      RunOp("SelfAdjointEigV2", {TN<float>({1, 0, 0, 2}, {2, 2})}, {{"compute_v", false}});
  ASSERT_TRUE(no_v.ok()) << no_v.status();
  EXPECT_EQ((*no_v)[1].shape(), Shape({0}));
}

TEST(SelfAdjointEigTest, ReconstructsRandomSymmetric) {
  std::vector<double> a = Values<double>(RandomDoubles({4, 4}, 9));
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < i; ++j) a[j * 4 + i] = a[i * 4 + j];
  }
  const auto out = RunOp("SelfAdjointEigV2", {TN<double>(a, {4, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  const std::vector<double> e = Values<double>((*out)[0]);
  const std::vector<double> v = Values<double>((*out)[1]);
  std::vector<double> ve(16);
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 4; ++k) ve[i * 4 + k] = v[i * 4 + k] * e[k];
  }
  EXPECT_THAT(MatMul(ve, Transpose(v, 4, 4), 4, 4, 4), Pointwise(DoubleNear(1e-13), a));
  for (int k = 1; k < 4; ++k) EXPECT_LE(e[k - 1], e[k]);
}

TEST(MatrixExponentialTest, DiagonalNilpotentAndScaled) {
  EXPECT_THAT(
      Values<double>(RunOp1("MatrixExponential", {TN<double>({1, 0, 0, 2}, {2, 2})})),
      Pointwise(DoubleNear(1e-13), std::vector<double>{std::exp(1.0), 0.0, 0.0, std::exp(2.0)}));
  EXPECT_THAT(Values<double>(RunOp1("MatrixExponential", {TN<double>({0, 1, 0, 0}, {2, 2})})),
              Pointwise(DoubleNear(1e-15), std::vector<double>{1.0, 1.0, 0.0, 1.0}));
  // A norm of 20 takes the scaling and squaring path.
  const std::vector<double> big =
      Values<double>(RunOp1("MatrixExponential", {TN<double>({20, 0, 0, -1}, {2, 2})}));
  EXPECT_NEAR(big[0] / std::exp(20.0), 1, 1e-13);
  EXPECT_NEAR(big[3], std::exp(-1.0), 1e-13);
  // Rotation generator: exp([[0, -t], [t, 0]]) = [[cos t, -sin t], [sin t, cos t]].
  EXPECT_THAT(Values<float>(RunOp1("MatrixExponential", {TN<float>({0, -1, 1, 0}, {1, 2, 2})})),
              Pointwise(FloatNear(1e-7f), std::vector<float>{std::cos(1.f), -std::sin(1.f),
                                                             std::sin(1.f), std::cos(1.f)}));
}

}  // namespace
}  // namespace dfc
