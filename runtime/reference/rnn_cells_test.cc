// Tests of the fused RNN cell kernels (rnn_cells.cc): the gate order and formulas on cells
// small enough to compute by hand, peepholes and clipping, BlockLSTM as a chain of
// LSTMBlockCells, and the shape and dtype errors.
#include <cmath>
#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace dfc {
namespace {

using ::dfc::testing::ExpectError;
using ::dfc::testing::RunOp;
using ::dfc::testing::T1;
using ::dfc::testing::TN;
using ::dfc::testing::Values;
using ::testing::ElementsAre;
using ::testing::FloatNear;

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

AttrMap LstmAttrs(float forget_bias = 1.0f, float cell_clip = -1.0f, bool peephole = false) {
  return {{"T", DType::kFloat},
          {"forget_bias", forget_bias},
          {"cell_clip", cell_clip},
          {"use_peephole", peephole}};
}

// The inputs of a one-unit cell over a one-element input: x, cs_prev, h_prev, w, wci, wcf,
// wco, b.
std::vector<Tensor> OneUnitCell(float x, float cs_prev, float h_prev, std::vector<float> w,
                                std::vector<float> peepholes, std::vector<float> b) {
  return {TN<float>({x}, {1, 1}),      TN<float>({cs_prev}, {1, 1}),
          TN<float>({h_prev}, {1, 1}), TN<float>(w, {2, 4}),
          T1<float>({peepholes[0]}),   T1<float>({peepholes[1]}),
          T1<float>({peepholes[2]}),   T1<float>(b)};
}

float Only(const Tensor& t) { return Values<float>(t)[0]; }

TEST(LstmBlockCellTest, GatesAreInputCellForgetOutputInThatOrder) {
  // With w zero, each gate is its bias: i = sig(1), ci = tanh(2), f = sig(3 + forget_bias),
  // o = sig(5).
  const auto out =
      RunOp("LSTMBlockCell",
            OneUnitCell(0.7f, 0.5f, 0.3f, std::vector<float>(8, 0.0f), {0, 0, 0}, {1, 2, 3, 5}),
            LstmAttrs(/*forget_bias=*/1.0f));
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 7u);
  const double i = Sigmoid(1), ci = std::tanh(2.0), f = Sigmoid(4), o = Sigmoid(5);
  const double cs = i * ci + f * 0.5;
  EXPECT_THAT(Only((*out)[0]), FloatNear(i, 1e-6));
  EXPECT_THAT(Only((*out)[1]), FloatNear(cs, 1e-6));
  EXPECT_THAT(Only((*out)[2]), FloatNear(f, 1e-6));
  EXPECT_THAT(Only((*out)[3]), FloatNear(o, 1e-6));
  EXPECT_THAT(Only((*out)[4]), FloatNear(ci, 1e-6));
  EXPECT_THAT(Only((*out)[5]), FloatNear(std::tanh(cs), 1e-6));
  EXPECT_THAT(Only((*out)[6]), FloatNear(o * std::tanh(cs), 1e-6));
}

TEST(LstmBlockCellTest, WeightsReadXThenHPrev) {
  // Row 0 of w multiplies x, row 1 multiplies h_prev; only the cell-input column is set.
  const std::vector<float> w = {0, 2,  0, 0,   // x
                                0, -1, 0, 0};  // h_prev
  const auto out = RunOp(
      "LSTMBlockCell", OneUnitCell(0.5f, 0.0f, 0.25f, w, {0, 0, 0}, {0, 0, 0, 0}), LstmAttrs(0.0f));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Only((*out)[4]), FloatNear(std::tanh(2 * 0.5 - 0.25), 1e-6));
}

TEST(LstmBlockCellTest, PeepholesAndClip) {
  const std::vector<float> zeros(8, 0.0f);
  const auto out =
      RunOp("LSTMBlockCell", OneUnitCell(0, 2.0f, 0, zeros, {0.5f, -0.25f, 2.0f}, {0, 3, 0, 0}),
            LstmAttrs(/*forget_bias=*/0.0f, /*cell_clip=*/0.75f, /*peephole=*/true));
  ASSERT_TRUE(out.ok()) << out.status();
  const double i = Sigmoid(2.0 * 0.5), f = Sigmoid(2.0 * -0.25);
  const double cs = std::min(0.75, i * std::tanh(3.0) + f * 2.0);  // clipped to 0.75
  EXPECT_EQ(cs, 0.75);
  EXPECT_THAT(Only((*out)[0]), FloatNear(i, 1e-6));
  EXPECT_THAT(Only((*out)[2]), FloatNear(f, 1e-6));
  EXPECT_THAT(Only((*out)[1]), FloatNear(0.75, 1e-7));
  // The output gate's peephole reads the new, clipped, cell state.
  EXPECT_THAT(Only((*out)[3]), FloatNear(Sigmoid(0.75 * 2.0), 1e-6));
}

TEST(LstmBlockCellTest, Errors) {
  std::vector<Tensor> in =
      OneUnitCell(0, 0, 0, std::vector<float>(8, 0.0f), {0, 0, 0}, {0, 0, 0, 0});
  std::vector<Tensor> bad_w = in;
  bad_w[3] = TN<float>(std::vector<float>(12, 0.0f), {3, 4});
  ExpectError(RunOp("LSTMBlockCell", bad_w, LstmAttrs()), "w must have shape [2,4]");
  std::vector<Tensor> bad_b = in;
  bad_b[7] = T1<float>({0, 0, 0});
  ExpectError(RunOp("LSTMBlockCell", bad_b, LstmAttrs()), "b must have shape [4]");
  std::vector<Tensor> bad_dtype = in;
  bad_dtype[2] = TN<double>({0}, {1, 1});
  ExpectError(RunOp("LSTMBlockCell", bad_dtype, LstmAttrs()), "input 2 must be float32");
  AttrMap doubles = LstmAttrs();
  doubles["T"] = DType::kDouble;
  ExpectError(RunOp("LSTMBlockCell", in, doubles), "T must be float16 or float32");
}

TEST(BlockLstmTest, IsLstmBlockCellChainedOverTimeAndZeroAfterSeqLenMax) {
  // batch 2, input 1, cell 1, three steps, of which seq_len_max = 2 are run.
  const std::vector<float> w = {0.3f, -0.2f, 0.5f, 0.1f, -0.4f, 0.6f, 0.2f, -0.3f};
  const std::vector<float> b = {0.1f, 0.2f, 0.3f, 0.4f};
  const std::vector<float> xs = {0.5f, -1.0f, 0.25f, 2.0f, 9.0f, 9.0f};
  const Tensor zero = TN<float>({0.2f, -0.1f}, {2, 1});
  const Tensor h0 = TN<float>({0.05f, 0.3f}, {2, 1});
  const Tensor p = T1<float>({0.0f});
  const auto seq = RunOp("BlockLSTM",
                         {Tensor::Scalar<int64_t>(2), TN<float>(xs, {3, 2, 1}), zero, h0,
                          TN<float>(w, {2, 4}), p, p, p, T1<float>(b)},
                         LstmAttrs(1.0f, 3.0f));
  ASSERT_TRUE(seq.ok()) << seq.status();
  ASSERT_EQ(seq->size(), 7u);
  EXPECT_EQ((*seq)[6].shape(), Shape({3, 2, 1}));
  Tensor cs = zero, h = h0;
  for (int t = 0; t < 2; ++t) {
    const auto step = RunOp("LSTMBlockCell",
                            {TN<float>({xs[2 * t], xs[2 * t + 1]}, {2, 1}), cs, h,
                             TN<float>(w, {2, 4}), p, p, p, T1<float>(b)},
                            LstmAttrs(1.0f, 3.0f));
    ASSERT_TRUE(step.ok()) << step.status();
    for (int k = 0; k < 7; ++k) {
      const std::vector<float> got = Values<float>((*seq)[k]);
      const std::vector<float> want = Values<float>((*step)[k]);
      EXPECT_EQ(got[2 * t], want[0]) << "output " << k << " step " << t;
      EXPECT_EQ(got[2 * t + 1], want[1]) << "output " << k << " step " << t;
    }
    cs = (*step)[1];
    h = (*step)[6];
  }
  for (int k = 0; k < 7; ++k) {
    const std::vector<float> all = Values<float>((*seq)[k]);
    EXPECT_THAT(std::vector<float>(all.begin() + 4, all.end()), ElementsAre(0, 0)) << k;
  }
}

TEST(BlockLstmTest, Errors) {
  const Tensor p = T1<float>({0.0f});
  auto inputs = [&](Tensor seq_len_max) {
    return std::vector<Tensor>{seq_len_max,
                               Tensor::Zeros(DType::kFloat, {2, 1, 1}),
                               Tensor::Zeros(DType::kFloat, {1, 1}),
                               Tensor::Zeros(DType::kFloat, {1, 1}),
                               Tensor::Zeros(DType::kFloat, {2, 4}),
                               p,
                               p,
                               p,
                               Tensor::Zeros(DType::kFloat, {4})};
  };
  ExpectError(RunOp("BlockLSTM", inputs(Tensor::Scalar<int64_t>(3)), LstmAttrs()),
              "seq_len_max must be in [0, 2], got 3");
  ExpectError(RunOp("BlockLSTM", inputs(Tensor::Scalar<int32_t>(1)), LstmAttrs()),
              "seq_len_max must be an int64 scalar");
  std::vector<Tensor> bad_peephole = inputs(Tensor::Scalar<int64_t>(1));
  bad_peephole[5] = T1<float>({0, 0});
  ExpectError(RunOp("BlockLSTM", bad_peephole, LstmAttrs()), "wci must have shape [1]");
}

TEST(BlockLstmTest, EmptySequence) {
  const Tensor p = T1<float>({0.0f});
  const auto out =
      RunOp("BlockLSTM",
            {Tensor::Scalar<int64_t>(0), Tensor::Zeros(DType::kFloat, {0, 2, 1}),
             Tensor::Zeros(DType::kFloat, {2, 1}), Tensor::Zeros(DType::kFloat, {2, 1}),
             Tensor::Zeros(DType::kFloat, {2, 4}), p, p, p, Tensor::Zeros(DType::kFloat, {4})},
            LstmAttrs());
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[6].shape(), Shape({0, 2, 1}));
}

TEST(GruBlockCellTest, HandComputed) {
  // input 1, cell 1. w_ru rows: x then h_prev; columns r then u. w_c's h_prev row multiplies
  // h_prev * r.
  const float x = 0.5f, h_prev = 0.8f;
  const std::vector<float> w_ru = {0.2f, -0.3f, 0.4f, 0.1f};
  const std::vector<float> w_c = {0.7f, -0.6f};
  const auto out =
      RunOp("GRUBlockCell",
            {TN<float>({x}, {1, 1}), TN<float>({h_prev}, {1, 1}), TN<float>(w_ru, {2, 2}),
             TN<float>(w_c, {2, 1}), T1<float>({0.05f, -0.05f}), T1<float>({0.1f})},
            {{"T", DType::kFloat}});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 4u);
  const double r = Sigmoid(0.2 * x + 0.4 * h_prev + 0.05);
  const double u = Sigmoid(-0.3 * x + 0.1 * h_prev - 0.05);
  const double c = std::tanh(0.7 * x - 0.6 * h_prev * r + 0.1);
  EXPECT_THAT(Only((*out)[0]), FloatNear(r, 1e-6));
  EXPECT_THAT(Only((*out)[1]), FloatNear(u, 1e-6));
  EXPECT_THAT(Only((*out)[2]), FloatNear(c, 1e-6));
  EXPECT_THAT(Only((*out)[3]), FloatNear(u * h_prev + (1 - u) * c, 1e-6));
}

TEST(GruBlockCellTest, Errors) {
  std::vector<Tensor> in = {
      Tensor::Zeros(DType::kFloat, {2, 3}), Tensor::Zeros(DType::kFloat, {2, 4}),
      Tensor::Zeros(DType::kFloat, {7, 8}), Tensor::Zeros(DType::kFloat, {7, 4}),
      Tensor::Zeros(DType::kFloat, {8}),    Tensor::Zeros(DType::kFloat, {4})};
  ASSERT_TRUE(RunOp("GRUBlockCell", in, {{"T", DType::kFloat}}).ok());
  std::vector<Tensor> bad = in;
  bad[3] = Tensor::Zeros(DType::kFloat, {7, 5});
  ExpectError(RunOp("GRUBlockCell", bad, {{"T", DType::kFloat}}), "w_c must have shape [7,4]");
  bad = in;
  bad[1] = Tensor::Zeros(DType::kFloat, {3, 4});
  ExpectError(RunOp("GRUBlockCell", bad, {{"T", DType::kFloat}}), "h_prev must have shape [2,4]");
  std::vector<Tensor> halves;
  for (const Tensor& t : in) halves.push_back(Tensor::Zeros(DType::kHalf, t.shape()));
  ExpectError(RunOp("GRUBlockCell", halves, {{"T", DType::kHalf}}), "T must be float32");
}

}  // namespace
}  // namespace dfc
