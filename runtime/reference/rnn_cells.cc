// Reference kernels for TensorFlow's fused RNN cells: LSTMBlockCell (one LSTM step),
// BlockLSTM (LSTMBlockCell over a time-major sequence) and GRUBlockCell (one GRU step).
//
// As TensorFlow's CPU kernels (rnn/lstm_ops.cc, rnn/gru_ops.h) compute them:
//  - LSTM: gates = [x, h_prev] * w + b, whose four blocks of cell_size columns are, in order,
//    the input gate i, the cell input ci, the forget gate f and the output gate o ("ICFO");
//    i = sigmoid(gate_i [+ cs_prev * wci]), ci = tanh(gate_ci),
//    f = sigmoid(gate_f + forget_bias [+ cs_prev * wcf]), cs = i * ci + f * cs_prev, clipped
//    to [-cell_clip, cell_clip] when cell_clip > 0, co = tanh(cs),
//    o = sigmoid(gate_o [+ cs * wco]), h = o * co; the outputs are (i, cs, f, o, ci, co, h).
//  - GRU: [r, u] = sigmoid([x, h_prev] * w_ru + b_ru), c = tanh([x, h_prev * r] * w_c + b_c),
//    h = u * (h_prev - c) + c; the outputs are (r, u, c, h).
// float16 is computed in float and rounded where TensorFlow stores a result.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/half.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {
namespace {

float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

template <typename T>
float Load(const T* p, int64_t i) {
  return static_cast<float>(p[i]);
}
template <typename T>
T Store(float v) {
  if constexpr (std::is_same_v<T, Half>) {
    return Half(v);
  } else {
    return v;
  }
}

// Fails unless every input has the dtype of attribute T, which must be one of `allowed`.
absl::StatusOr<DType> CheckCellDTypes(const KernelContext& ctx,
                                      std::initializer_list<DType> allowed,
                                      absl::string_view allowed_names) {
  const DType t =
      ctx.node().GetType("T", ctx.input(ctx.num_inputs() - 1).dtype()).value_or(DType::kInvalid);
  if (std::find(allowed.begin(), allowed.end(), t) == allowed.end()) {
    return ctx.Error(absl::StrCat("T must be ", allowed_names, ", got ", DTypeName(t)));
  }
  // BlockLSTM's seq_len_max (input 0) is int64; every other input is T.
  const int first = ctx.node().op == "BlockLSTM" ? 1 : 0;
  for (int i = first; i < ctx.num_inputs(); ++i) {
    if (ctx.input(i).dtype() != t) {
      return ctx.Error(absl::StrCat("input ", i, " must be ", DTypeName(t), " (T), got ",
                                    ctx.input(i).DebugType()));
    }
  }
  return t;
}

// Fails unless input `i` (named `what`) has shape `want`.
absl::Status CheckShape(const KernelContext& ctx, int i, absl::string_view what,
                        const Shape& want) {
  if (ctx.input(i).shape() == want) return absl::OkStatus();
  return ctx.Error(absl::StrCat(what, " must have shape ", ShapeToString(want), ", got ",
                                ctx.input(i).DebugType()));
}

// --- LSTM ------------------------------------------------------------------------------------

struct LstmConfig {
  int64_t batch = 0;
  int64_t input = 0;
  int64_t cell = 0;
  float forget_bias = 1.0f;
  float cell_clip = 3.0f;
  bool use_peephole = false;
};

absl::StatusOr<LstmConfig> ReadLstmAttrs(const KernelContext& ctx) {
  LstmConfig c;
  absl::StatusOr<float> forget_bias = ctx.node().GetFloat("forget_bias", 1.0f);
  DFC_RETURN_IF_ERROR(forget_bias.status());
  absl::StatusOr<float> cell_clip = ctx.node().GetFloat("cell_clip", 3.0f);
  DFC_RETURN_IF_ERROR(cell_clip.status());
  absl::StatusOr<bool> use_peephole = ctx.node().GetBool("use_peephole", false);
  DFC_RETURN_IF_ERROR(use_peephole.status());
  c.forget_bias = *forget_bias;
  c.cell_clip = *cell_clip;
  c.use_peephole = *use_peephole;
  return c;
}

// The weights of an LSTM, inputs `first`..`first + 4` of the node: w, wci, wcf, wco, b.
// Checks their shapes against `c` (wci, wcf and wco only when `check_peepholes`, as
// LSTMBlockCell reads them only with use_peephole).
absl::Status CheckLstmWeights(const KernelContext& ctx, int first, const LstmConfig& c,
                              bool check_peepholes) {
  DFC_RETURN_IF_ERROR(CheckShape(ctx, first, "w", {c.input + c.cell, 4 * c.cell}));
  const char* names[] = {"wci", "wcf", "wco"};
  for (int k = 0; k < 3; ++k) {
    const Tensor& p = ctx.input(first + 1 + k);
    if (p.rank() != 1) {
      return ctx.Error(absl::StrCat(names[k], " must be a vector, got ", p.DebugType()));
    }
    if (check_peepholes) {
      DFC_RETURN_IF_ERROR(CheckShape(ctx, first + 1 + k, names[k], {c.cell}));
    }
  }
  return CheckShape(ctx, first + 4, "b", {4 * c.cell});
}

// The seven outputs of one LSTM step, each [batch, cell], as raw pointers into their tensors.
template <typename T>
struct LstmOutputs {
  T* i;
  T* cs;
  T* f;
  T* o;
  T* ci;
  T* co;
  T* h;
};

// One LSTM step: x [batch, input], cs_prev and h_prev [batch, cell]; w, wci, wcf, wco, b.
template <typename T>
void LstmStep(const LstmConfig& c, const T* x, const T* cs_prev, const T* h_prev, const T* w,
              const T* wci, const T* wcf, const T* wco, const T* b, const LstmOutputs<T>& out) {
  const int64_t width = 4 * c.cell;
  std::vector<float> gates(width);
  for (int64_t n = 0; n < c.batch; ++n) {
    // gates = [x, h_prev] * w + b, rounded to T as TensorFlow stores it.
    for (int64_t j = 0; j < width; ++j) {
      float sum = 0;
      for (int64_t k = 0; k < c.input; ++k)
        sum += Load(x, n * c.input + k) * Load(w, k * width + j);
      for (int64_t k = 0; k < c.cell; ++k) {
        sum += Load(h_prev, n * c.cell + k) * Load(w, (c.input + k) * width + j);
      }
      gates[j] = static_cast<float>(Store<T>(static_cast<float>(Store<T>(sum)) + Load(b, j)));
    }
    for (int64_t k = 0; k < c.cell; ++k) {
      const int64_t at = n * c.cell + k;
      const float cs_in = Load(cs_prev, at);
      const float i_peep = c.use_peephole ? cs_in * Load(wci, k) : 0.0f;
      const float f_peep = c.use_peephole ? cs_in * Load(wcf, k) : 0.0f;
      const float i = static_cast<float>(Store<T>(Sigmoid(gates[k] + i_peep)));
      const float ci = static_cast<float>(Store<T>(std::tanh(gates[c.cell + k])));
      const float f =
          static_cast<float>(Store<T>(Sigmoid(gates[2 * c.cell + k] + c.forget_bias + f_peep)));
      float cs = static_cast<float>(Store<T>(i * ci + f * cs_in));
      if (c.cell_clip > 0.0f) cs = std::clamp(cs, -c.cell_clip, c.cell_clip);
      const float co = static_cast<float>(Store<T>(std::tanh(cs)));
      const float o_peep = c.use_peephole ? cs * Load(wco, k) : 0.0f;
      const float o = static_cast<float>(Store<T>(Sigmoid(gates[3 * c.cell + k] + o_peep)));
      out.i[at] = Store<T>(i);
      out.cs[at] = Store<T>(cs);
      out.f[at] = Store<T>(f);
      out.o[at] = Store<T>(o);
      out.ci[at] = Store<T>(ci);
      out.co[at] = Store<T>(co);
      out.h[at] = Store<T>(o * co);
    }
  }
}

// LSTMBlockCell(x, cs_prev, h_prev, w, wci, wcf, wco, b) -> (i, cs, f, o, ci, co, h).
absl::Status LstmBlockCell(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 8));
  DFC_ASSIGN_OR_RETURN(DType dtype,
                       CheckCellDTypes(ctx, {DType::kHalf, DType::kFloat}, "float16 or float32"));
  DFC_ASSIGN_OR_RETURN(LstmConfig config, ReadLstmAttrs(ctx));
  LstmConfig& c = config;
  const Tensor& x = ctx.input(0);
  const Tensor& cs_prev = ctx.input(1);
  if (x.rank() != 2) return ctx.Error(absl::StrCat("x must be a matrix, got ", x.DebugType()));
  if (cs_prev.rank() != 2 || cs_prev.dim(0) == 0 || cs_prev.dim(1) == 0) {
    return ctx.Error(absl::StrCat("cs_prev must be a non-empty matrix [batch, cell], got ",
                                  cs_prev.DebugType()));
  }
  c.batch = x.dim(0);
  c.input = x.dim(1);
  c.cell = cs_prev.dim(1);
  DFC_RETURN_IF_ERROR(CheckShape(ctx, 1, "cs_prev", {c.batch, c.cell}));
  DFC_RETURN_IF_ERROR(CheckShape(ctx, 2, "h_prev", {c.batch, c.cell}));
  DFC_RETURN_IF_ERROR(CheckLstmWeights(ctx, 3, c, c.use_peephole));
  std::vector<Tensor> outs;
  for (int k = 0; k < 7; ++k) outs.push_back(Tensor::Zeros(dtype, {c.batch, c.cell}));
  auto run = [&]<typename T>() {
    const LstmOutputs<T> out{outs[0].mutable_data<T>(), outs[1].mutable_data<T>(),
                             outs[2].mutable_data<T>(), outs[3].mutable_data<T>(),
                             outs[4].mutable_data<T>(), outs[5].mutable_data<T>(),
                             outs[6].mutable_data<T>()};
    LstmStep<T>(c, x.data<T>(), cs_prev.data<T>(), ctx.input(2).data<T>(), ctx.input(3).data<T>(),
                ctx.input(4).data<T>(), ctx.input(5).data<T>(), ctx.input(6).data<T>(),
                ctx.input(7).data<T>(), out);
  };
  if (dtype == DType::kHalf) {
    run.template operator()<Half>();
  } else {
    run.template operator()<float>();
  }
  for (int k = 0; k < 7; ++k) ctx.set_output(k, std::move(outs[k]));
  return absl::OkStatus();
}

// BlockLSTM(seq_len_max, x, cs_prev, h_prev, w, wci, wcf, wco, b) -> (i, cs, f, o, ci, co, h),
// each [timelen, batch, cell]: LSTMBlockCell over x [timelen, batch, input] for the first
// seq_len_max steps, each starting from the previous step's cs and h. The steps after
// seq_len_max are zero (TensorFlow zeroes cs and h there and leaves the others unwritten).
absl::Status BlockLstm(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 9));
  DFC_ASSIGN_OR_RETURN(DType dtype,
                       CheckCellDTypes(ctx, {DType::kHalf, DType::kFloat}, "float16 or float32"));
  DFC_ASSIGN_OR_RETURN(LstmConfig config, ReadLstmAttrs(ctx));
  LstmConfig& c = config;
  const Tensor& seq_len_max_t = ctx.input(0);
  if (seq_len_max_t.dtype() != DType::kInt64 || seq_len_max_t.rank() != 0) {
    return ctx.Error(
        absl::StrCat("seq_len_max must be an int64 scalar, got ", seq_len_max_t.DebugType()));
  }
  const Tensor& x = ctx.input(1);
  const Tensor& cs_prev = ctx.input(2);
  if (x.rank() != 3) {
    return ctx.Error(absl::StrCat("x must be [timelen, batch, input], got ", x.DebugType()));
  }
  if (cs_prev.rank() != 2) {
    return ctx.Error(absl::StrCat("cs_prev must be a matrix, got ", cs_prev.DebugType()));
  }
  const int64_t timelen = x.dim(0);
  c.batch = x.dim(1);
  c.input = x.dim(2);
  c.cell = cs_prev.dim(1);
  DFC_RETURN_IF_ERROR(CheckShape(ctx, 2, "cs_prev", {c.batch, c.cell}));
  DFC_RETURN_IF_ERROR(CheckShape(ctx, 3, "h_prev", {c.batch, c.cell}));
  DFC_RETURN_IF_ERROR(CheckLstmWeights(ctx, 4, c, /*check_peepholes=*/true));
  const int64_t seq_len_max = seq_len_max_t.ElementAsInt64(0);
  if (seq_len_max < 0 || seq_len_max > timelen) {
    return ctx.Error(absl::StrCat("seq_len_max must be in [0, ", timelen, "], got ", seq_len_max));
  }
  std::vector<Tensor> outs;
  for (int k = 0; k < 7; ++k) {
    DFC_ASSIGN_OR_RETURN(Tensor t, AllocateOutput(ctx, dtype, {timelen, c.batch, c.cell}));
    outs.push_back(std::move(t));
  }
  auto run = [&]<typename T>() {
    const int64_t step = c.batch * c.cell;
    for (int64_t t = 0; t < seq_len_max; ++t) {
      auto at = [&](int k) { return outs[k].mutable_data<T>() + t * step; };
      const LstmOutputs<T> out{at(0), at(1), at(2), at(3), at(4), at(5), at(6)};
      const T* cs_in = t == 0 ? cs_prev.data<T>() : out.cs - step;
      const T* h_in = t == 0 ? ctx.input(3).data<T>() : out.h - step;
      LstmStep<T>(c, x.data<T>() + t * c.batch * c.input, cs_in, h_in, ctx.input(4).data<T>(),
                  ctx.input(5).data<T>(), ctx.input(6).data<T>(), ctx.input(7).data<T>(),
                  ctx.input(8).data<T>(), out);
    }
  };
  if (dtype == DType::kHalf) {
    run.template operator()<Half>();
  } else {
    run.template operator()<float>();
  }
  for (int k = 0; k < 7; ++k) ctx.set_output(k, std::move(outs[k]));
  return absl::OkStatus();
}

// --- GRU -------------------------------------------------------------------------------------

// GRUBlockCell(x, h_prev, w_ru, w_c, b_ru, b_c) -> (r, u, c, h). TensorFlow's CPU kernel is
// float32 only.
absl::Status GruBlockCell(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 6));
  DFC_RETURN_IF_ERROR(CheckCellDTypes(ctx, {DType::kFloat}, "float32").status());
  const Tensor& x = ctx.input(0);
  const Tensor& h_prev = ctx.input(1);
  if (x.rank() != 2) return ctx.Error(absl::StrCat("x must be a matrix, got ", x.DebugType()));
  if (h_prev.rank() != 2) {
    return ctx.Error(absl::StrCat("h_prev must be a matrix, got ", h_prev.DebugType()));
  }
  const int64_t batch = x.dim(0), input = x.dim(1), cell = h_prev.dim(1);
  DFC_RETURN_IF_ERROR(CheckShape(ctx, 1, "h_prev", {batch, cell}));
  DFC_RETURN_IF_ERROR(CheckShape(ctx, 2, "w_ru", {input + cell, 2 * cell}));
  DFC_RETURN_IF_ERROR(CheckShape(ctx, 3, "w_c", {input + cell, cell}));
  DFC_RETURN_IF_ERROR(CheckShape(ctx, 4, "b_ru", {2 * cell}));
  DFC_RETURN_IF_ERROR(CheckShape(ctx, 5, "b_c", {cell}));
  Tensor r_out = Tensor::Zeros(DType::kFloat, {batch, cell});
  Tensor u_out = Tensor::Zeros(DType::kFloat, {batch, cell});
  Tensor c_out = Tensor::Zeros(DType::kFloat, {batch, cell});
  Tensor h_out = Tensor::Zeros(DType::kFloat, {batch, cell});
  const float* xs = x.data<float>();
  const float* hs = h_prev.data<float>();
  const float* w_ru = ctx.input(2).data<float>();
  const float* w_c = ctx.input(3).data<float>();
  const float* b_ru = ctx.input(4).data<float>();
  const float* b_c = ctx.input(5).data<float>();
  float* r = r_out.mutable_data<float>();
  float* u = u_out.mutable_data<float>();
  float* c = c_out.mutable_data<float>();
  float* h = h_out.mutable_data<float>();
  for (int64_t n = 0; n < batch; ++n) {
    const float* xn = xs + n * input;
    const float* hn = hs + n * cell;
    for (int64_t j = 0; j < 2 * cell; ++j) {
      float sum = 0;
      for (int64_t k = 0; k < input; ++k) sum += xn[k] * w_ru[k * 2 * cell + j];
      for (int64_t k = 0; k < cell; ++k) sum += hn[k] * w_ru[(input + k) * 2 * cell + j];
      const float gate = Sigmoid(sum + b_ru[j]);
      if (j < cell) {
        r[n * cell + j] = gate;
      } else {
        u[n * cell + j - cell] = gate;
      }
    }
    for (int64_t j = 0; j < cell; ++j) {
      float sum = 0;
      for (int64_t k = 0; k < input; ++k) sum += xn[k] * w_c[k * cell + j];
      for (int64_t k = 0; k < cell; ++k) {
        sum += hn[k] * r[n * cell + k] * w_c[(input + k) * cell + j];
      }
      c[n * cell + j] = std::tanh(sum + b_c[j]);
    }
    for (int64_t j = 0; j < cell; ++j) {
      const int64_t at = n * cell + j;
      h[at] = u[at] * (hn[j] - c[at]) + c[at];
    }
  }
  ctx.set_output(0, std::move(r_out));
  ctx.set_output(1, std::move(u_out));
  ctx.set_output(2, std::move(c_out));
  ctx.set_output(3, std::move(h_out));
  return absl::OkStatus();
}

}  // namespace

void RegisterRnnCellKernels(KernelRegistry& registry) {
  registry.Register("LSTMBlockCell", LstmBlockCell);
  registry.Register("BlockLSTM", BlockLstm);
  registry.Register("GRUBlockCell", GruBlockCell);
}

}  // namespace dfc::reference
