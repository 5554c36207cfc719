// Reference kernels: the softmax family (Softmax LogSoftmax SoftmaxCrossEntropyWithLogits
// SparseSoftmaxCrossEntropyWithLogits), all along the last axis.
//
// Each row is computed in double, shifted by its maximum as TensorFlow does (so exp never
// overflows and a row of equal large logits still sums to 1), and each output is rounded once.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "runtime/reference/broadcast.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"
#include "runtime/reference/reduction_util.h"

namespace dfc::reference {
namespace {

// One row of logits, widened to double, with the quantities every softmax output is made of.
struct SoftmaxRow {
  std::vector<double> shifted;  // x - max(x)
  double sum_exp = 0;           // sum(exp(shifted))
  double log_sum_exp = 0;       // log(sum_exp): log_softmax = shifted - log_sum_exp

  double Softmax(int64_t j) const { return std::exp(shifted[j]) / sum_exp; }
  double LogSoftmax(int64_t j) const { return shifted[j] - log_sum_exp; }
};

// `read(j)` gives element j of the row as double.
template <typename Read>
SoftmaxRow MakeRow(int64_t n, Read read) {
  SoftmaxRow row;
  row.shifted.resize(n);
  double max = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < n; ++j) {
    row.shifted[j] = read(j);
    // NaN propagates through the subtraction below whatever max is.
    max = std::max(max, row.shifted[j]);
  }
  for (int64_t j = 0; j < n; ++j) {
    row.shifted[j] -= max;
    row.sum_exp += std::exp(row.shifted[j]);
  }
  row.log_sum_exp = std::log(row.sum_exp);
  return row;
}

template <bool log>
absl::Status SoftmaxKernel(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckFloating(ctx, 0));
  const Tensor& logits = ctx.input(0);
  if (logits.rank() < 1) {
    return ctx.Error(absl::StrCat("logits must have rank >= 1, got ", logits.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, logits.dtype(), logits.shape()));
  const int64_t n = logits.dim(logits.rank() - 1);
  if (out.num_elements() > 0) {
    DispatchDType(logits.dtype(), [&]<typename T>() {
      if constexpr (IsFloatingStorage<T>) {
        const T* in = logits.data<T>();
        T* o = out.mutable_data<T>();
        for (int64_t base = 0; base < logits.num_elements(); base += n) {
          const SoftmaxRow row = MakeRow(n, [&](int64_t j) { return ToDouble(in[base + j]); });
          for (int64_t j = 0; j < n; ++j) {
            o[base + j] = FromDouble<T>(log ? row.LogSoftmax(j) : row.Softmax(j));
          }
        }
      }
    });
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// SoftmaxCrossEntropyWithLogits(features, labels) -> (loss [batch], backprop [batch, classes]):
//   loss[i] = sum_j labels[i,j] * -log_softmax(features[i])[j]
//   backprop[i,j] = softmax(features[i])[j] - labels[i,j]
// The two inputs broadcast against each other (as in TensorFlow since 1.x) to a matrix.
absl::Status SoftmaxCrossEntropy(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckFloating(ctx, 0));
  const Tensor& features = ctx.input(0);
  const Tensor& labels = ctx.input(1);
  if (labels.dtype() != features.dtype()) {
    return ctx.Error(absl::StrCat("features and labels must have the same dtype, got ",
                                  features.DebugType(), " and ", labels.DebugType()));
  }
  absl::StatusOr<Shape> shape = BroadcastShapes(features.shape(), labels.shape());
  if (!shape.ok()) {
    return ctx.Error(absl::StrCat("features ", features.DebugType(), " and labels ",
                                  labels.DebugType(),
                                  " must broadcast: ", shape.status().message()));
  }
  if (shape->size() != 2) {
    return ctx.Error(absl::StrCat("features ", features.DebugType(), " and labels ",
                                  labels.DebugType(), " must be, or broadcast to, matrices"));
  }
  const int64_t batch = (*shape)[0];
  const int64_t classes = (*shape)[1];
  DFC_ASSIGN_OR_RETURN(Tensor loss, AllocateOutput(ctx, features.dtype(), {batch}));
  DFC_ASSIGN_OR_RETURN(Tensor backprop, AllocateOutput(ctx, features.dtype(), *shape));
  const BroadcastIndexer feature_at(features.shape(), *shape);
  const BroadcastIndexer label_at(labels.shape(), *shape);
  DispatchDType(features.dtype(), [&]<typename T>() {
    if constexpr (IsFloatingStorage<T>) {
      const T* x = features.data<T>();
      const T* y = labels.data<T>();
      for (int64_t i = 0; i < batch; ++i) {
        const int64_t base = i * classes;
        const SoftmaxRow row =
            MakeRow(classes, [&](int64_t j) { return ToDouble(x[feature_at.Offset(base + j)]); });
        double sum = 0;
        for (int64_t j = 0; j < classes; ++j) {
          const double label = ToDouble(y[label_at.Offset(base + j)]);
          sum += label * -row.LogSoftmax(j);
          backprop.mutable_data<T>()[base + j] = FromDouble<T>(row.Softmax(j) - label);
        }
        loss.mutable_data<T>()[i] = FromDouble<T>(sum);
      }
    }
  });
  ctx.set_output(0, std::move(loss));
  ctx.set_output(1, std::move(backprop));
  return absl::OkStatus();
}

// SparseSoftmaxCrossEntropyWithLogits(features [batch, classes], labels [batch]):
//   loss[i] = -log_softmax(features[i])[labels[i]]
//   backprop[i,j] = softmax(features[i])[j] - (j == labels[i])
absl::Status SparseSoftmaxCrossEntropy(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckFloating(ctx, 0));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 1, {DType::kInt32, DType::kInt64}));
  const Tensor& features = ctx.input(0);
  const Tensor& labels = ctx.input(1);
  if (features.rank() != 2 || labels.rank() != 1 || labels.dim(0) != features.dim(0)) {
    return ctx.Error(absl::StrCat("expects features [batch, classes] and labels [batch], got ",
                                  features.DebugType(), " and ", labels.DebugType()));
  }
  const int64_t batch = features.dim(0);
  const int64_t classes = features.dim(1);
  for (int64_t i = 0; i < batch; ++i) {
    const int64_t label = labels.ElementAsInt64(i);
    if (label < 0 || label >= classes) {
      return ctx.Error(absl::StrCat("label ", label, " (labels[", i,
                                    "]) is outside the valid range of classes [0, ", classes, ")"));
    }
  }
  DFC_ASSIGN_OR_RETURN(Tensor loss, AllocateOutput(ctx, features.dtype(), {batch}));
  DFC_ASSIGN_OR_RETURN(Tensor backprop, AllocateOutput(ctx, features.dtype(), features.shape()));
  DispatchDType(features.dtype(), [&]<typename T>() {
    if constexpr (IsFloatingStorage<T>) {
      const T* x = features.data<T>();
      for (int64_t i = 0; i < batch; ++i) {
        const int64_t base = i * classes;
        const int64_t label = labels.ElementAsInt64(i);
        const SoftmaxRow row = MakeRow(classes, [&](int64_t j) { return ToDouble(x[base + j]); });
        for (int64_t j = 0; j < classes; ++j) {
          backprop.mutable_data<T>()[base + j] =
              FromDouble<T>(row.Softmax(j) - (j == label ? 1.0 : 0.0));
        }
        loss.mutable_data<T>()[i] = FromDouble<T>(-row.LogSoftmax(label));
      }
    }
  });
  ctx.set_output(0, std::move(loss));
  ctx.set_output(1, std::move(backprop));
  return absl::OkStatus();
}

}  // namespace

void RegisterSoftmaxKernels(KernelRegistry& registry) {
  registry.Register("Softmax", SoftmaxKernel<false>);
  registry.Register("LogSoftmax", SoftmaxKernel<true>);
  registry.Register("SoftmaxCrossEntropyWithLogits", SoftmaxCrossEntropy);
  registry.Register("SparseSoftmaxCrossEntropyWithLogits", SparseSoftmaxCrossEntropy);
}

}  // namespace dfc::reference
