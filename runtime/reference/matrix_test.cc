// Tests of the matrix-structure reference kernels (matrix.cc): TensorFlow's documented
// diagonal examples in each alignment, round trips, Einsum's equation forms, Cross, and the
// error cases.
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::dfc::testing::ExpectError;
using ::dfc::testing::Iota;
using ::dfc::testing::RunOp;
using ::dfc::testing::RunOp1;
using ::dfc::testing::T1;
using ::dfc::testing::TN;
using ::dfc::testing::UniformFloats;
using ::dfc::testing::Values;
using ::dfc::testing::ValuesAsDouble;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::Pointwise;

Tensor I32(int32_t v) { return Tensor::Scalar<int32_t>(v); }

// The 3x4 matrix of TensorFlow's matrix_diag_part examples.
Tensor Example3x4() { return TN<int32_t>({1, 2, 3, 4, 5, 6, 7, 8, 9, 8, 7, 6}, {3, 4}); }

TEST(MatrixDiagTest, V1BuildsSquareMatricesPerBatch) {
  const Tensor out = RunOp1("MatrixDiag", {TN<float>({1, 2, 3, 4}, {2, 2})});
  EXPECT_EQ(out.shape(), Shape({2, 2, 2}));
  EXPECT_THAT(Values<float>(out), ElementsAre(1, 0, 0, 2, 3, 0, 0, 4));
}

TEST(MatrixDiagTest, V3BandRightLeft) {
  // TensorFlow's example: superdiagonals aligned right, subdiagonals left (the default).
  const Tensor diagonals = TN<int32_t>({0, 8, 9, 1, 2, 3, 4, 5, 0}, {3, 3});
  const Tensor out =
      RunOp1("MatrixDiagV3", {diagonals, T1<int32_t>({-1, 1}), I32(-1), I32(-1), I32(0)});
  EXPECT_EQ(out.shape(), Shape({3, 3}));
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(1, 8, 0, 4, 2, 9, 0, 5, 3));
}

TEST(MatrixDiagTest, V2AlignsLeftAndPads) {
  // V2 aligns LEFT_LEFT: the superdiagonal's content starts at 0.
  const Tensor diagonals = TN<int32_t>({8, 9, 0, 1, 2, 3}, {2, 3});
  const Tensor out =
      RunOp1("MatrixDiagV2", {diagonals, T1<int32_t>({0, 1}), I32(-1), I32(-1), I32(7)});
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(1, 8, 7, 7, 2, 9, 7, 7, 3));
}

TEST(MatrixDiagTest, OffDiagonalWithRowsAndColumns) {
  // k = 1 on a 3x4 output: the diagonal (0,1), (1,2), (2,3).
  Tensor out =
      RunOp1("MatrixDiagV3", {T1<float>({1, 2, 3}), I32(1), I32(3), I32(-1), Tensor::Scalar(0.f)});
  EXPECT_EQ(out.shape(), Shape({3, 4}));
  EXPECT_THAT(Values<float>(out), ElementsAre(0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3));
  // Both sizes unknown: square, the smallest that holds the diagonal.
  out = RunOp1("MatrixDiagV3", {T1<float>({1, 2}), I32(-2), I32(-1), I32(-1), Tensor::Scalar(0.f)});
  EXPECT_EQ(out.shape(), Shape({4, 4}));
  EXPECT_THAT(Values<float>(out), ElementsAre(0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0, 0));
}

TEST(MatrixDiagTest, Errors) {
  ExpectError(RunOp("MatrixDiag", {Tensor::Scalar(1.f)}), "rank");
  ExpectError(
      RunOp("MatrixDiagV3", {T1<float>({1, 2}), I32(0), I32(1), I32(-1), Tensor::Scalar(0.f)}),
      "too small");
  ExpectError(RunOp("MatrixDiagV3", {TN<float>({1, 2}, {1, 2}), T1<int32_t>({0, 1}), I32(-1),
                                     I32(-1), Tensor::Scalar(0.f)}),
              "2 diagonals");
  ExpectError(RunOp("MatrixDiagV3", {T1<float>({1, 2}), T1<int32_t>({1, 0}), I32(-1), I32(-1),
                                     Tensor::Scalar(0.f)}),
              "must not be larger");
  ExpectError(RunOp("MatrixDiagV3", {T1<float>({1}), I32(0), I32(-1), I32(-1), I32(0)}),
              "padding_value");
  ExpectError(
      RunOp("MatrixDiagV3", {T1<float>({1, 2}), I32(0), I32(-1), I32(-1), Tensor::Scalar(0.f)},
            {{"align", std::string("MIDDLE")}}),
      "align");
}

TEST(MatrixDiagPartTest, V1TakesTheMainDiagonalOfEachMatrix) {
  const Tensor out = RunOp1("MatrixDiagPart", {Iota({2, 2, 3})});
  EXPECT_EQ(out.shape(), Shape({2, 2}));
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(0, 4, 6, 10));
}

TEST(MatrixDiagPartTest, BandInEachAlignment) {
  // Diagonals 1: (2, 7, 6); 0: (1, 6, 7); -1: (5, 8), one short of the longest.
  struct Case {
    std::string align;
    std::vector<int32_t> want;
  };
  for (const Case& c : {Case{"RIGHT_LEFT", {2, 7, 6, 1, 6, 7, 5, 8, 9}},
                        Case{"LEFT_RIGHT", {2, 7, 6, 1, 6, 7, 9, 5, 8}},
                        Case{"LEFT_LEFT", {2, 7, 6, 1, 6, 7, 5, 8, 9}},
                        Case{"RIGHT_RIGHT", {2, 7, 6, 1, 6, 7, 9, 5, 8}}}) {
    const Tensor out = RunOp1("MatrixDiagPartV3", {Example3x4(), T1<int32_t>({-1, 1}), I32(9)},
                              {{"align", c.align}});
    EXPECT_EQ(out.shape(), Shape({3, 3})) << c.align;
    EXPECT_EQ(Values<int32_t>(out), c.want) << c.align;
  }
  // A superdiagonal shorter than the longest: k = [1, 2] of the 3x4 matrix.
  const Tensor out = RunOp1("MatrixDiagPartV3", {Example3x4(), T1<int32_t>({1, 2}), I32(0)});
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(0, 3, 8, 2, 7, 6));
}

TEST(MatrixDiagPartTest, Errors) {
  ExpectError(RunOp("MatrixDiagPart", {T1<float>({1, 2})}), "rank >= 2");
  ExpectError(RunOp("MatrixDiagPartV3", {Example3x4(), I32(4), I32(0)}), "out of range");
  ExpectError(RunOp("MatrixDiagPartV3", {Example3x4(), T1<int32_t>({0, 1, 2}), I32(0)}),
              "one or two");
}

TEST(MatrixSetDiagTest, V1AndNonSquare) {
  const Tensor out =
      RunOp1("MatrixSetDiag", {Tensor::Zeros(DType::kFloat, {2, 3}), T1<float>({1, 2})});
  EXPECT_THAT(Values<float>(out), ElementsAre(1, 0, 0, 0, 2, 0));
  ExpectError(RunOp("MatrixSetDiag", {Tensor::Zeros(DType::kFloat, {2, 3}), T1<float>({1, 2, 3})}),
              "must have shape [2]");
}

// MatrixDiagPartV3 after MatrixSetDiagV3 gives the diagonals back, and every other element is
// the input's, in every alignment.
TEST(MatrixSetDiagTest, RoundTripsWithDiagPart) {
  const Tensor input = UniformFloats({2, 4, 5}, 1, -1, 1);
  for (const std::string align : {"LEFT_LEFT", "LEFT_RIGHT", "RIGHT_LEFT", "RIGHT_RIGHT"}) {
    const Tensor k = T1<int32_t>({-2, 1});
    const Tensor diagonals = UniformFloats({2, 4, 4}, 2, 5, 6);
    const Tensor set = RunOp1("MatrixSetDiagV3", {input, diagonals, k}, {{"align", align}});
    const Tensor part =
        RunOp1("MatrixDiagPartV3", {set, k, Tensor::Scalar(0.f)}, {{"align", align}});
    const std::vector<float> got = Values<float>(part);
    const std::vector<float> want = Values<float>(diagonals);
    // Padding positions of `diagonals` are not written; the part pads them with 0.
    for (size_t i = 0; i < got.size(); ++i) {
      if (got[i] != 0) {
        EXPECT_EQ(got[i], want[i]) << align << " element " << i;
      }
    }
    const std::vector<float> before = Values<float>(input);
    const std::vector<float> after = Values<float>(set);
    for (int64_t b = 0; b < 2; ++b) {
      for (int64_t i = 0; i < 4; ++i) {
        for (int64_t j = 0; j < 5; ++j) {
          const int64_t at = (b * 4 + i) * 5 + j;
          if (j - i < -2 || j - i > 1) {
            EXPECT_EQ(after[at], before[at]) << align;
          } else {
            EXPECT_GE(after[at], 5) << align;
          }
        }
      }
    }
  }
}

TEST(MatrixBandPartTest, TrianglesAndBands) {
  const Tensor in = Iota({3, 3});
  EXPECT_THAT(Values<int32_t>(RunOp1("MatrixBandPart", {in, I32(0), I32(-1)})),
              ElementsAre(0, 1, 2, 0, 4, 5, 0, 0, 8));
  EXPECT_THAT(Values<int32_t>(RunOp1(
                  "MatrixBandPart", {in, Tensor::Scalar<int64_t>(-1), Tensor::Scalar<int64_t>(0)})),
              ElementsAre(0, 0, 0, 3, 4, 0, 6, 7, 8));
  EXPECT_THAT(Values<int32_t>(RunOp1("MatrixBandPart", {in, I32(1), I32(0)})),
              ElementsAre(0, 0, 0, 3, 4, 0, 0, 7, 8));
  ExpectError(RunOp("MatrixBandPart", {in, I32(4), I32(0)}), "num_lower");
  ExpectError(RunOp("MatrixBandPart", {in, T1<int32_t>({0}), I32(0)}), "scalar");
}

TEST(DiagTest, DiagAndDiagPart) {
  const Tensor d = RunOp1("Diag", {TN<float>({1, 2, 3, 4}, {2, 2})});
  EXPECT_EQ(d.shape(), Shape({2, 2, 2, 2}));
  std::vector<float> want(16, 0);
  want[0] = 1, want[5] = 2, want[10] = 3, want[15] = 4;
  EXPECT_EQ(Values<float>(d), want);
  const Tensor back = RunOp1("DiagPart", {d});
  EXPECT_THAT(Values<float>(back), ElementsAre(1, 2, 3, 4));
  ExpectError(RunOp("Diag", {Tensor::Scalar(1.f)}), "rank >= 1");
  ExpectError(RunOp("DiagPart", {Iota({2, 3})}), "dimensions 0 and 1");
  ExpectError(RunOp("DiagPart", {Iota({2, 2, 2})}), "even");
  ExpectError(RunOp("Diag", {T1<bool>({true})}), "dtype");
}

TEST(CrossTest, UnitVectorsAndIntegers) {
  const Tensor out = RunOp1(
      "Cross", {TN<float>({1, 0, 0, 0, 1, 0}, {2, 3}), TN<float>({0, 1, 0, 0, 0, 1}, {2, 3})});
  EXPECT_THAT(Values<float>(out), ElementsAre(0, 0, 1, 1, 0, 0));
  EXPECT_THAT(Values<int32_t>(RunOp1("Cross", {T1<int32_t>({1, 2, 3}), T1<int32_t>({4, 5, 6})})),
              ElementsAre(-3, 6, -3));
  ExpectError(RunOp("Cross", {T1<float>({1, 2}), T1<float>({1, 2})}), "3 in their last");
  ExpectError(RunOp("Cross", {T1<float>({1, 2, 3}), T1<double>({1, 2, 3})}), "same dtype");
}

Tensor Einsum(const std::string& equation, std::vector<Tensor> inputs) {
  const int64_t n = static_cast<int64_t>(inputs.size());
  return RunOp1("Einsum", std::move(inputs), {{"equation", equation}, {"N", n}});
}

TEST(EinsumTest, ContractionsTransposesAndReductions) {
  const Tensor a = TN<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor b = TN<float>({1, 0, 0, 1, 1, 1}, {3, 2});
  Tensor out = Einsum("ij,jk->ik", {a, b});
  EXPECT_EQ(out.shape(), Shape({2, 2}));
  EXPECT_THAT(Values<float>(out), ElementsAre(4, 5, 10, 11));
  out = Einsum("ij->ji", {a});
  EXPECT_THAT(Values<float>(out), ElementsAre(1, 4, 2, 5, 3, 6));
  out = Einsum("ij->", {a});
  EXPECT_EQ(out.shape(), Shape({}));
  EXPECT_THAT(Values<float>(out), ElementsAre(21));
  out = Einsum("i,j->ij", {T1<int32_t>({1, 2}), T1<int32_t>({3, 4, 5})});
  EXPECT_THAT(Values<int32_t>(out), ElementsAre(3, 4, 5, 6, 8, 10));
  // Implicit output: the labels that appear once, alphabetically (here a matmul transposed).
  out = Einsum("jk,ij", {b, a});
  EXPECT_THAT(Values<float>(out), ElementsAre(4, 5, 10, 11));
}

TEST(EinsumTest, RepeatedLabelsReadAndWriteDiagonals) {
  const Tensor m = Iota({3, 3});
  EXPECT_THAT(Values<int32_t>(Einsum("ii->i", {m})), ElementsAre(0, 4, 8));
  EXPECT_THAT(Values<int32_t>(Einsum("ii", {m})), ElementsAre(12));  // the trace
  const Tensor inflated = Einsum("i->ii", {T1<int32_t>({1, 2})});
  EXPECT_THAT(Values<int32_t>(inflated), ElementsAre(1, 0, 0, 2));
}

TEST(EinsumTest, EllipsisBroadcasts) {
  // [2, 1, 2, 2] x [3, 2, 2]: the batch dimensions broadcast to [2, 3].
  const Tensor x = TN<double>({1, 0, 0, 1, 2, 0, 0, 2}, {2, 1, 2, 2});
  const Tensor y = TN<double>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {3, 2, 2});
  const Tensor out = Einsum("...ij,...jk->...ik", {x, y});
  EXPECT_EQ(out.shape(), Shape({2, 3, 2, 2}));
  std::vector<double> want;
  for (double scale : {1.0, 2.0}) {
    for (int i = 1; i <= 12; ++i) want.push_back(scale * i);
  }
  EXPECT_THAT(ValuesAsDouble(out), Pointwise(DoubleNear(0), want));
  EXPECT_EQ(Einsum("...i->...", {Iota({2, 3})}).shape(), Shape({2}));
}

TEST(EinsumTest, Errors) {
  const Tensor a = Iota({2, 3});
  ExpectError(RunOp("Einsum", {a, a}, {{"equation", std::string("ij,jk->ik")}}), "has size");
  ExpectError(RunOp("Einsum", {a}, {{"equation", std::string("ij->k")}}), "appears in no input");
  ExpectError(RunOp("Einsum", {a}, {{"equation", std::string("...j->j")}}), "no ellipsis");
  ExpectError(RunOp("Einsum", {a}, {{"equation", std::string("ijk->i")}}), "rank");
  ExpectError(RunOp("Einsum", {a}, {{"equation", std::string("i1->i")}}), "invalid label");
  ExpectError(RunOp("Einsum", {a, a, a}, {{"equation", std::string("ij,ij,ij->i")}}), "1 or 2");
}

}  // namespace
}  // namespace dfc
