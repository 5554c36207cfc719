// Reference kernels: matrix products (MatMul BatchMatMul BatchMatMulV2).
//
// Floating dot products accumulate in double (the products of two floats are exact there) and
// each output is rounded once; integer ones wrap modulo 2^bits, computed in uint64_t.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "runtime/reference/broadcast.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"
#include "runtime/reference/reduction_util.h"

namespace dfc::reference {
namespace {

// One operand matrix as the product reads it, transposition resolved into strides:
// element (r, c) of op(x) is data[r * row_stride + c * col_stride].
struct MatrixView {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t row_stride = 0;
  int64_t col_stride = 0;
};

// The last two dimensions of `x`, transposed if `transpose`.
MatrixView ViewOf(const Tensor& x, bool transpose) {
  const int64_t r = x.dim(x.rank() - 2);
  const int64_t c = x.dim(x.rank() - 1);
  if (transpose) return {c, r, 1, c};
  return {r, c, c, 1};
}

// out[m, n] = op(a)[m, k] * op(b)[k, n] for one matrix of the batch.
template <typename T>
void MultiplyMatrix(const T* a, const MatrixView& av, const T* b, const MatrixView& bv, T* out) {
  // Offsets, not row pointers: with k = 0 the operands are empty and their data may be null,
  // where even forming a pointer past it is undefined.
  for (int64_t i = 0; i < av.rows; ++i) {
    for (int64_t j = 0; j < bv.cols; ++j) {
      const int64_t a_row = i * av.row_stride;
      const int64_t b_col = j * bv.col_stride;
      if constexpr (IsFloatingStorage<T>) {
        double sum = 0;
        for (int64_t p = 0; p < av.cols; ++p) {
          sum += ToDouble(a[a_row + p * av.col_stride]) * ToDouble(b[b_col + p * bv.row_stride]);
        }
        out[i * bv.cols + j] = FromDouble<T>(sum);
      } else {
        uint64_t sum = 0;
        for (int64_t p = 0; p < av.cols; ++p) {
          sum += static_cast<uint64_t>(a[a_row + p * av.col_stride]) *
                 static_cast<uint64_t>(b[b_col + p * bv.row_stride]);
        }
        out[i * bv.cols + j] = static_cast<T>(sum);
      }
    }
  }
}

enum class Batching { kNone, kEqual, kBroadcast };  // MatMul, BatchMatMul, BatchMatMulV2

template <Batching batching>
absl::Status MatMulKernel(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckNumeric(ctx, 0));
  constexpr bool kBatched = batching != Batching::kNone;
  const char* const name_a = kBatched ? "x" : "a";
  const char* const name_b = kBatched ? "y" : "b";
  const char* const attr_a = kBatched ? "adj_x" : "transpose_a";
  const char* const attr_b = kBatched ? "adj_y" : "transpose_b";
  DFC_ASSIGN_OR_RETURN(bool transpose_a, ctx.node().GetBool(attr_a, false));
  DFC_ASSIGN_OR_RETURN(bool transpose_b, ctx.node().GetBool(attr_b, false));
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (b.dtype() != a.dtype()) {
    return ctx.Error(absl::StrCat(name_a, " and ", name_b, " must have the same dtype, got ",
                                  a.DebugType(), " and ", b.DebugType()));
  }
  for (const Tensor* t : {&a, &b}) {
    const bool bad_rank = kBatched ? t->rank() < 2 : t->rank() != 2;
    if (bad_rank) {
      return ctx.Error(absl::StrCat(t == &a ? name_a : name_b, " must have rank ",
                                    kBatched ? ">= 2" : "2", ", got ", t->DebugType()));
    }
  }
  const MatrixView av = ViewOf(a, transpose_a);
  const MatrixView bv = ViewOf(b, transpose_b);
  if (av.cols != bv.rows) {
    return ctx.Error(absl::StrCat("inner dimensions differ: ", name_a, " ", a.DebugType(), " with ",
                                  attr_a, "=", transpose_a ? "true" : "false", " has ", av.cols,
                                  " columns, ", name_b, " ", b.DebugType(), " with ", attr_b, "=",
                                  transpose_b ? "true" : "false", " has ", bv.rows, " rows"));
  }

  const Shape a_batch(a.shape().begin(), a.shape().end() - 2);
  const Shape b_batch(b.shape().begin(), b.shape().end() - 2);
  Shape batch = a_batch;
  if constexpr (batching == Batching::kEqual) {
    if (a_batch != b_batch) {
      return ctx.Error(absl::StrCat("batch dimensions must be equal, got ", a.DebugType(), " and ",
                                    b.DebugType()));
    }
  } else if constexpr (batching == Batching::kBroadcast) {
    absl::StatusOr<Shape> broadcast = BroadcastShapes(a_batch, b_batch);
    if (!broadcast.ok()) {
      return ctx.Error(absl::StrCat("batch dimensions of ", a.DebugType(), " and ", b.DebugType(),
                                    " do not broadcast: ", broadcast.status().message()));
    }
    batch = *std::move(broadcast);
  }
  Shape out_shape = batch;
  out_shape.push_back(av.rows);
  out_shape.push_back(bv.cols);
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, a.dtype(), out_shape));

  if (out.num_elements() > 0) {
    const int64_t matrices = out.num_elements() / (av.rows * bv.cols);
    const int64_t a_size = a.dim(a.rank() - 2) * a.dim(a.rank() - 1);
    const int64_t b_size = b.dim(b.rank() - 2) * b.dim(b.rank() - 1);
    const int64_t out_size = av.rows * bv.cols;
    const BroadcastIndexer a_at(a_batch, batch);
    const BroadcastIndexer b_at(b_batch, batch);
    DispatchDType(a.dtype(), [&]<typename T>() {
      if constexpr (!std::is_same_v<T, bool>) {
        for (int64_t t = 0; t < matrices; ++t) {
          MultiplyMatrix<T>(a.data<T>() + a_at.Offset(t) * a_size, av,
                            b.data<T>() + b_at.Offset(t) * b_size, bv,
                            out.mutable_data<T>() + t * out_size);
        }
      }
    });
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterContractionKernels(KernelRegistry& registry) {
  registry.Register("MatMul", MatMulKernel<Batching::kNone>);
  registry.Register("BatchMatMul", MatMulKernel<Batching::kEqual>);
  registry.Register("BatchMatMulV2", MatMulKernel<Batching::kBroadcast>);
}

}  // namespace dfc::reference
