// Shared helpers for reference kernels.
#include "runtime/reference/kernel_util.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"

namespace dfc::reference {

absl::StatusOr<std::vector<int64_t>> ReadIndexVector(const KernelContext& ctx, int i,
                                                     absl::string_view what) {
  if (i >= ctx.num_inputs()) return ctx.Error(absl::StrCat("missing input ", i, " (", what, ")"));
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64) {
    return ctx.Error(absl::StrCat(what, " must be int32 or int64, got ", t.DebugType()));
  }
  if (t.rank() > 1) {
    return ctx.Error(absl::StrCat(what, " must be a scalar or a vector, got ", t.DebugType()));
  }
  std::vector<int64_t> out(t.num_elements());
  for (int64_t k = 0; k < t.num_elements(); ++k) out[k] = t.ElementAsInt64(k);
  return out;
}

absl::StatusOr<int64_t> ReadIndexScalar(const KernelContext& ctx, int i, absl::string_view what) {
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> v, ReadIndexVector(ctx, i, what));
  if (v.size() != 1) {
    return ctx.Error(absl::StrCat(what, " must have one element, got ", ctx.input(i).DebugType()));
  }
  return v[0];
}

absl::StatusOr<int> NormalizeAxis(const KernelContext& ctx, int64_t axis, int rank) {
  if (axis < -rank || axis >= rank || (rank == 0 && axis != 0)) {
    return ctx.Error(absl::StrCat("axis ", axis, " is out of range for rank ", rank, " (expected [",
                                  -rank, ", ", rank, "))"));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

int64_t Product(const Shape& shape, int from, int to) {
  int64_t n = 1;
  for (int i = from; i < to; ++i) n *= shape[i];
  return n;
}

std::string Position(const Shape& shape, int64_t flat) {
  if (shape.empty()) return "";
  std::vector<int64_t> index(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    index[d] = shape[d] == 0 ? 0 : flat % shape[d];
    flat = shape[d] == 0 ? 0 : flat / shape[d];
  }
  return absl::StrCat("[", absl::StrJoin(index, ","), "]");
}

std::vector<int64_t> Strides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * shape[i + 1];
  }
  return strides;
}

absl::Status CheckDType(const KernelContext& ctx, int i, std::initializer_list<DType> allowed) {
  return CheckDType(ctx, i, std::span<const DType>(allowed.begin(), allowed.size()));
}

absl::Status CheckDType(const KernelContext& ctx, int i, std::span<const DType> allowed) {
  const DType d = ctx.input(i).dtype();
  for (DType a : allowed) {
    if (a == d) return absl::OkStatus();
  }
  std::string names;
  for (DType a : allowed) absl::StrAppend(&names, names.empty() ? "" : ", ", DTypeName(a));
  return ctx.Error(
      absl::StrCat("input ", i, " has dtype ", DTypeName(d), ", expected one of ", names));
}

absl::Status CheckNumInputs(const KernelContext& ctx, int n) {
  if (ctx.num_inputs() == n) return absl::OkStatus();
  return ctx.Error(absl::StrCat("expects ", n, " inputs, got ", ctx.num_inputs()));
}

absl::Status CheckSameDType(const KernelContext& ctx, int a, int b) {
  if (ctx.input(a).dtype() == ctx.input(b).dtype()) return absl::OkStatus();
  return ctx.Error(absl::StrCat("inputs ", a, " and ", b, " must have the same dtype, got ",
                                ctx.input(a).DebugType(), " and ", ctx.input(b).DebugType()));
}

absl::Status CheckMovable(const KernelContext& ctx, int i) {
  if (IsSupported(ctx.input(i).dtype())) return absl::OkStatus();
  return ctx.Error(
      absl::StrCat("input ", i, " has unsupported dtype ", DTypeName(ctx.input(i).dtype())));
}

absl::StatusOr<Tensor> AllocateOutput(const KernelContext& ctx, DType dtype, Shape shape) {
  absl::StatusOr<Tensor> t = Tensor::Create(dtype, std::move(shape));
  if (!t.ok()) return ctx.node().Annotate(t.status());
  return t;
}

}  // namespace dfc::reference
