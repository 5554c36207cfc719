// Reference kernels for scatters and gathers by index: ScatterNd; the ND scatters into a
// variable (ScatterNdAdd, ScatterNdSub, ScatterNdUpdate) or into a copy of a value
// (ScatterNdNonAliasingAdd, TensorScatterUpdate/Add/Sub/Max/Min); the row scatters into a
// variable (ScatterAdd, ScatterSub, ScatterMul, ScatterDiv, ScatterMax, ScatterMin,
// ScatterUpdate); GatherNd and SparseToDense. Updates apply one after another in index order,
// as TensorFlow's CPU kernels apply them, so duplicate indices accumulate, and for the Update
// forms the last one wins.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {
namespace {

// How an update combines with the element it lands on.
enum class Combine { kAssign, kAdd, kSub, kMul, kDiv, kMax, kMin };

// Whether TensorFlow registers the combination for bool: assignment everywhere, addition and
// subtraction only where `bool_arithmetic` (ScatterNd, ScatterNdAdd, ScatterNdSub and
// ScatterNdNonAliasingAdd: TF_CALL_bool in scatter_nd_op.cc).
bool AllowsBool(Combine combine, bool bool_arithmetic) {
  return combine == Combine::kAssign ||
         (bool_arithmetic && (combine == Combine::kAdd || combine == Combine::kSub));
}

// Integer arithmetic that wraps as the machine's does, without C++'s undefined signed
// overflow: through uint64, truncated back to T.
template <typename T>
T Wrap(uint64_t v) {
  return static_cast<T>(v);
}

// dst <- dst (combine) src. False only for an integer division by zero, which TensorFlow's
// kernels leave undefined and dfc refuses.
template <typename T>
bool CombineInto(Combine combine, T& dst, const T& src) {
  if (combine == Combine::kAssign) {
    dst = src;
    return true;
  }
  if constexpr (std::is_same_v<T, bool>) {
    // Eigen computes bool + bool and bool - bool through int and converts back.
    if (combine == Combine::kAdd) dst = dst || src;
    if (combine == Combine::kSub) dst = dst != src;
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    const uint64_t a = static_cast<uint64_t>(dst);
    const uint64_t b = static_cast<uint64_t>(src);
    switch (combine) {
      case Combine::kAdd:
        dst = Wrap<T>(a + b);
        break;
      case Combine::kSub:
        dst = Wrap<T>(a - b);
        break;
      case Combine::kMul:
        dst = Wrap<T>(a * b);
        break;
      case Combine::kDiv:
        if (src == 0) return false;
        // The one quotient that overflows, lowest / -1, wraps to lowest.
        if constexpr (std::is_signed_v<T>) {
          if (src == -1) {
            dst = Wrap<T>(uint64_t{0} - a);
            break;
          }
        }
        dst = static_cast<T>(dst / src);
        break;
      case Combine::kMax:  // std::max(dst, src)
        if (dst < src) dst = src;
        break;
      case Combine::kMin:  // std::min(dst, src)
        if (src < dst) dst = src;
        break;
      case Combine::kAssign:
        break;
    }
    return true;
  } else {
    using C = ComputeType<T>;
    const C a = static_cast<C>(dst);
    const C b = static_cast<C>(src);
    switch (combine) {
      case Combine::kAdd:
        dst = static_cast<T>(a + b);
        break;
      case Combine::kSub:
        dst = static_cast<T>(a - b);
        break;
      case Combine::kMul:
        dst = static_cast<T>(a * b);
        break;
      case Combine::kDiv:
        dst = static_cast<T>(a / b);
        break;
      // std::max and std::min, as Eigen's cwiseMax and cwiseMin: a NaN update leaves the
      // element, a NaN element stays.
      case Combine::kMax:
        if (a < b) dst = src;
        break;
      case Combine::kMin:
        if (b < a) dst = src;
        break;
      case Combine::kAssign:
        break;
    }
    return true;
  }
}

absl::Status CheckIndices(const KernelContext& ctx, int i) {
  return CheckDType(ctx, i, {DType::kInt32, DType::kInt64});
}

// Fails unless `values` (input `i`) has a dtype the combination is defined for.
absl::Status CheckValues(const KernelContext& ctx, int i, Combine combine, bool bool_arithmetic) {
  const DType d = ctx.input(i).dtype();
  if (!IsSupported(d) || (d == DType::kBool && !AllowsBool(combine, bool_arithmetic))) {
    return ctx.Error(absl::StrCat("input ", i, " has unsupported dtype ", DTypeName(d)));
  }
  return absl::OkStatus();
}

// The tensor an op with a ref input updates: the variable its input 0 refers to or, where
// input 0 is no variable (a frozen graph's constant in a variable's place, another op's
// output), input 0's value, which the op then updates a copy of, as TensorFlow's ND scatters
// do for a value that is no ref.
absl::StatusOr<Tensor> RefBase(const KernelContext& ctx) {
  if (const KernelContext::VariableSlot* slot = ctx.ref_input(0)) {
    if (!slot->initialized) {
      return ctx.Error(absl::StrCat("variable \"", ctx.node().inputs[0].node,
                                    "\" is updated before it is initialized"));
    }
    return slot->value;
  }
  return ctx.input(0);
}

// Outputs the updated tensor, and where input 0 is a variable, makes it the variable's value.
// The variable's tensor is replaced, never written in place: a value read earlier in the run
// shares its buffer.
void FinishRef(KernelContext& ctx, Tensor updated) {
  if (KernelContext::VariableSlot* slot = ctx.ref_input(0)) slot->value = updated;
  ctx.set_output(0, std::move(updated));
}

// --- ND scatters -----------------------------------------------------------------------------

// An ND scatter's indices as `count` tuples of `depth` coordinates, each addressing a slice of
// `slice` elements of the output.
struct NdLayout {
  int64_t count = 0;
  int64_t depth = 0;
  int64_t slice = 0;
  Shape batch;  // indices' shape without the tuple dimension (TensorFlow's batch_dim)
};

// TensorFlow's checks of an ND scatter of `updates` at `indices` into a tensor of `shape`:
// indices of rank 1 are one coordinate each, otherwise indices.shape[-1] coordinates, and
// updates.shape = indices.shape[:-1] + shape[indices.shape[-1]:].
absl::StatusOr<NdLayout> CheckScatterNd(const KernelContext& ctx, const Shape& shape,
                                        const Tensor& indices, const Tensor& updates) {
  if (indices.rank() < 1 || updates.rank() < 1) {
    return ctx.Error(absl::StrCat("indices and updates must have rank 1 or more, got ",
                                  indices.DebugType(), " and ", updates.DebugType()));
  }
  if (shape.empty()) return ctx.Error("the output must have rank 1 or more, got a scalar");
  const int64_t elements = Product(shape, 0, static_cast<int>(shape.size()));
  const bool none = indices.num_elements() == 0 && updates.num_elements() == 0;
  if (!none && (elements == 0 || indices.num_elements() == 0 || updates.num_elements() == 0)) {
    return ctx.Error(absl::StrCat("indices ", indices.DebugType(), " and updates ",
                                  updates.DebugType(), " must both be empty or both not, and ",
                                  "not empty for an empty output ", ShapeToString(shape)));
  }
  NdLayout l;
  const bool tuples = indices.rank() > 1;
  l.depth = tuples ? indices.dim(indices.rank() - 1) : 1;
  const int batch_rank = tuples ? indices.rank() - 1 : 1;
  l.batch.assign(indices.shape().begin(), indices.shape().begin() + batch_rank);
  const int rank = static_cast<int>(shape.size());
  if (l.depth > rank) {
    return ctx.Error(absl::StrCat("indices ", indices.DebugType(), " have ", l.depth,
                                  " coordinates, more than the output ", ShapeToString(shape),
                                  " has dimensions"));
  }
  Shape expected = l.batch;
  expected.insert(expected.end(), shape.begin() + l.depth, shape.end());
  if (updates.shape() != expected) {
    return ctx.Error(absl::StrCat("updates must have shape indices.shape[:-1] + shape[", l.depth,
                                  ":] = ", ShapeToString(expected), " for indices ",
                                  indices.DebugType(), " and output ", ShapeToString(shape),
                                  ", got ", updates.DebugType()));
  }
  l.slice = Product(shape, static_cast<int>(l.depth), rank);
  l.count = Product(l.batch, 0, batch_rank);
  return l;
}

// Applies the updates in order to `out`, which holds what they scatter into.
absl::Status ApplyScatterNd(const KernelContext& ctx, const NdLayout& l, const Tensor& indices,
                            const Tensor& updates, Combine combine, Tensor& out) {
  if (out.num_elements() == 0) return absl::OkStatus();
  if (l.depth < 1 || l.depth > 7) {
    return ctx.Error(absl::StrCat("indices.shape[-1] must be between 1 and 7, got ", l.depth));
  }
  const Shape& shape = out.shape();
  // Strides of the addressed dimensions, in slices.
  std::vector<int64_t> stride(l.depth, 1);
  for (int d = static_cast<int>(l.depth) - 2; d >= 0; --d) stride[d] = stride[d + 1] * shape[d + 1];
  std::vector<int64_t> offsets(l.count);
  for (int64_t k = 0; k < l.count; ++k) {
    int64_t offset = 0;
    for (int d = 0; d < l.depth; ++d) {
      const int64_t ix = indices.ElementAsInt64(k * l.depth + d);
      if (ix < 0 || ix >= shape[d]) {
        std::vector<int64_t> tuple(l.depth);
        for (int e = 0; e < l.depth; ++e) tuple[e] = indices.ElementAsInt64(k * l.depth + e);
        return ctx.Error(absl::StrCat("indices", Position(l.batch, k), " = [",
                                      absl::StrJoin(tuple, ", "), "] does not index into shape ",
                                      ShapeToString(shape)));
      }
      offset += ix * stride[d];
    }
    offsets[k] = offset * l.slice;
  }
  DispatchDType(out.dtype(), [&]<typename T>() {
    T* o = out.template mutable_data<T>();
    const T* u = updates.data<T>();
    for (int64_t k = 0; k < l.count; ++k) {
      for (int64_t e = 0; e < l.slice; ++e) {
        CombineInto(combine, o[offsets[k] + e], u[k * l.slice + e]);
      }
    }
  });
  return absl::OkStatus();
}

// ScatterNd(indices, updates, shape): zeros of `shape` with the updates added.
absl::Status ScatterNd(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  DFC_RETURN_IF_ERROR(CheckIndices(ctx, 0));
  DFC_RETURN_IF_ERROR(CheckValues(ctx, 1, Combine::kAdd, true));
  if (ctx.input(2).rank() != 1) {
    return ctx.Error(absl::StrCat("shape must be a vector, got ", ctx.input(2).DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadIndexVector(ctx, 2, "shape"));
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, ctx.input(1).dtype(), shape));
  DFC_ASSIGN_OR_RETURN(NdLayout l, CheckScatterNd(ctx, shape, ctx.input(0), ctx.input(1)));
  DFC_RETURN_IF_ERROR(ApplyScatterNd(ctx, l, ctx.input(0), ctx.input(1), Combine::kAdd, out));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// The ND scatters into `base`, a copy of it made here: (tensor, indices, updates).
absl::StatusOr<Tensor> ScatterNdInto(const KernelContext& ctx, const Tensor& base, Combine combine,
                                     bool bool_arithmetic) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  DFC_RETURN_IF_ERROR(CheckIndices(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckValues(ctx, 2, combine, bool_arithmetic));
  const Tensor& updates = ctx.input(2);
  if (base.dtype() != updates.dtype()) {
    return ctx.Error(absl::StrCat("updates ", updates.DebugType(), " must have the dtype of ",
                                  base.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(NdLayout l, CheckScatterNd(ctx, base.shape(), ctx.input(1), updates));
  Tensor out = base.Clone();
  DFC_RETURN_IF_ERROR(ApplyScatterNd(ctx, l, ctx.input(1), updates, combine, out));
  return out;
}

// TensorScatterUpdate and its kin, ScatterNdNonAliasingAdd: a new tensor, input 0 updated.
template <Combine kCombine, bool kBoolArithmetic>
absl::Status TensorScatter(KernelContext& ctx) {
  if (ctx.num_inputs() < 1) return CheckNumInputs(ctx, 3);
  DFC_ASSIGN_OR_RETURN(Tensor out, ScatterNdInto(ctx, ctx.input(0), kCombine, kBoolArithmetic));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// ScatterNdAdd, ScatterNdSub, ScatterNdUpdate: the variable (ref input 0) updated.
template <Combine kCombine>
absl::Status ScatterNdRef(KernelContext& ctx) {
  if (ctx.num_inputs() < 1) return CheckNumInputs(ctx, 3);
  DFC_ASSIGN_OR_RETURN(Tensor base, RefBase(ctx));
  DFC_ASSIGN_OR_RETURN(Tensor out, ScatterNdInto(ctx, base, kCombine, true));
  FinishRef(ctx, std::move(out));
  return absl::OkStatus();
}

// --- Row scatters ----------------------------------------------------------------------------

// ScatterAdd and its kin (ref, indices, updates): row indices[i] of the variable combined with
// updates[i], where updates.shape = indices.shape + ref.shape[1:], or with updates itself where
// it is a scalar.
template <Combine kCombine>
absl::Status RowScatter(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  DFC_ASSIGN_OR_RETURN(Tensor base, RefBase(ctx));
  DFC_RETURN_IF_ERROR(CheckIndices(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckValues(ctx, 2, kCombine, false));
  const Tensor& indices = ctx.input(1);
  const Tensor& updates = ctx.input(2);
  if (base.dtype() != updates.dtype()) {
    return ctx.Error(absl::StrCat("updates ", updates.DebugType(), " must have the dtype of ",
                                  base.DebugType()));
  }
  if (base.rank() < 1) {
    return ctx.Error(absl::StrCat("the variable must have rank 1 or more, got ", base.DebugType()));
  }
  Shape expected = indices.shape();
  expected.insert(expected.end(), base.shape().begin() + 1, base.shape().end());
  const bool scalar = updates.rank() == 0;
  if (!scalar && updates.shape() != expected) {
    return ctx.Error(absl::StrCat("updates must be a scalar or have shape indices.shape + ",
                                  "ref.shape[1:] = ", ShapeToString(expected), ", got ",
                                  updates.DebugType()));
  }
  const int64_t rows = base.dim(0);
  const int64_t row = Product(base.shape(), 1, base.rank());
  for (int64_t i = 0; i < indices.num_elements(); ++i) {
    const int64_t ix = indices.ElementAsInt64(i);
    if (ix < 0 || ix >= rows) {
      return ctx.Error(absl::StrCat("indices", Position(indices.shape(), i), " = ", ix,
                                    " is not in [0, ", rows, ")"));
    }
  }
  Tensor out = base.Clone();
  bool divided_by_zero = false;
  DispatchDType(out.dtype(), [&]<typename T>() {
    T* o = out.template mutable_data<T>();
    const T* u = updates.data<T>();
    for (int64_t i = 0; i < indices.num_elements(); ++i) {
      T* dst = o + indices.ElementAsInt64(i) * row;
      for (int64_t e = 0; e < row; ++e) {
        if (!CombineInto(kCombine, dst[e], scalar ? u[0] : u[i * row + e])) divided_by_zero = true;
      }
    }
  });
  if (divided_by_zero) return ctx.Error("integer division by zero");
  FinishRef(ctx, std::move(out));
  return absl::OkStatus();
}

// --- GatherNd, SparseToDense -----------------------------------------------------------------

// GatherNd(params, indices): out[i...] = params[indices[i..., :], ...], of shape
// indices.shape[:-1] + params.shape[indices.shape[-1]:].
absl::Status GatherNd(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckIndices(ctx, 1));
  const Tensor& params = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  if (!IsSupported(params.dtype())) {
    return ctx.Error(absl::StrCat("params has unsupported dtype ", DTypeName(params.dtype())));
  }
  if (params.rank() < 1 || indices.rank() < 1) {
    return ctx.Error(absl::StrCat("params and indices must have rank 1 or more, got ",
                                  params.DebugType(), " and ", indices.DebugType()));
  }
  const int64_t depth = indices.dim(indices.rank() - 1);
  if (depth > params.rank()) {
    return ctx.Error(absl::StrCat("indices ", indices.DebugType(), " have ", depth,
                                  " coordinates, more than params ", params.DebugType(),
                                  " has dimensions"));
  }
  const Shape batch(indices.shape().begin(), indices.shape().end() - 1);
  Shape shape = batch;
  shape.insert(shape.end(), params.shape().begin() + depth, params.shape().end());
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, params.dtype(), shape));
  const int64_t count = Product(batch, 0, static_cast<int>(batch.size()));
  if (count > 0) {
    if (params.num_elements() == 0) {
      return ctx.Error(
          absl::StrCat("gathers ", count, " slices from empty params ", params.DebugType()));
    }
    if (depth > 7) {
      return ctx.Error(absl::StrCat("indices.shape[-1] must be at most 7, got ", depth));
    }
    const int64_t slice = Product(params.shape(), static_cast<int>(depth), params.rank());
    std::vector<int64_t> stride(depth, 1);
    for (int d = static_cast<int>(depth) - 2; d >= 0; --d) {
      stride[d] = stride[d + 1] * params.dim(d + 1);
    }
    const size_t bytes = static_cast<size_t>(slice) * SizeOf(params.dtype());
    const auto* src = static_cast<const unsigned char*>(params.raw_data());
    auto* dst = static_cast<unsigned char*>(out.mutable_raw_data());
    for (int64_t k = 0; k < count; ++k) {
      int64_t offset = 0;
      for (int d = 0; d < depth; ++d) {
        const int64_t ix = indices.ElementAsInt64(k * depth + d);
        if (ix < 0 || ix >= params.dim(d)) {
          std::vector<int64_t> tuple(depth);
          for (int e = 0; e < depth; ++e) tuple[e] = indices.ElementAsInt64(k * depth + e);
          return ctx.Error(
              absl::StrCat("indices", Position(batch, k), " = [", absl::StrJoin(tuple, ", "),
                           "] does not index into param shape ", ShapeToString(params.shape())));
        }
        offset += ix * stride[d];
      }
      std::memcpy(dst + k * bytes, src + offset * bytes, bytes);
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// -1, 0 or 1 as index tuple a sorts before, with or after b (lexicographically).
int CompareTuples(const Tensor& indices, int64_t a, int64_t b, int64_t dims) {
  for (int64_t d = 0; d < dims; ++d) {
    const int64_t x = indices.ElementAsInt64(a * dims + d);
    const int64_t y = indices.ElementAsInt64(b * dims + d);
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

// SparseToDense(sparse_indices, output_shape, sparse_values, default_value): default_value
// everywhere but at the indices (a scalar, a vector of indices into a vector, or an [n, rank]
// matrix), which take sparse_values (a scalar for all, or one each). With validate_indices
// (the default) the indices must be sorted and distinct, as TensorFlow requires.
absl::Status SparseToDense(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 4));
  DFC_RETURN_IF_ERROR(CheckIndices(ctx, 0));
  const Tensor& indices = ctx.input(0);
  const Tensor& values = ctx.input(2);
  const Tensor& fill = ctx.input(3);
  if (indices.rank() > 2) {
    return ctx.Error(absl::StrCat("sparse_indices must be a scalar, vector or matrix, got ",
                                  indices.DebugType()));
  }
  const int64_t count = indices.rank() > 0 ? indices.dim(0) : 1;
  const int64_t dims = indices.rank() > 1 ? indices.dim(1) : 1;
  if (ctx.input(1).rank() != 1) {
    return ctx.Error(absl::StrCat("output_shape must be a vector, got ", ctx.input(1).DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadIndexVector(ctx, 1, "output_shape"));
  if (!IsSupported(values.dtype())) {
    return ctx.Error(
        absl::StrCat("sparse_values has unsupported dtype ", DTypeName(values.dtype())));
  }
  if (!(values.rank() == 0 || (values.rank() == 1 && values.dim(0) == count))) {
    return ctx.Error(absl::StrCat("sparse_values must be a scalar or have shape [", count,
                                  "], got ", values.DebugType()));
  }
  if (fill.rank() != 0 || fill.dtype() != values.dtype()) {
    return ctx.Error(absl::StrCat("default_value must be a scalar of ", DTypeName(values.dtype()),
                                  ", got ", fill.DebugType()));
  }
  if (static_cast<int64_t>(shape.size()) != dims) {
    return ctx.Error(absl::StrCat("output_shape has ", shape.size(), " elements, expected ", dims,
                                  " for sparse_indices ", indices.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, values.dtype(), shape));
  DFC_ASSIGN_OR_RETURN(bool validate, ctx.node().GetBool("validate_indices", true));
  const auto tuple = [&](int64_t n) {
    std::vector<int64_t> t(dims);
    for (int64_t d = 0; d < dims; ++d) t[d] = indices.ElementAsInt64(n * dims + d);
    return absl::StrCat("[", absl::StrJoin(t, ","), "]");
  };
  std::vector<int64_t> offsets(count);
  for (int64_t n = 0; n < count; ++n) {
    int64_t offset = 0;
    for (int64_t d = 0; d < dims; ++d) {
      const int64_t ix = indices.ElementAsInt64(n * dims + d);
      if (ix < 0 || ix >= shape[d]) {
        return ctx.Error(absl::StrCat("sparse_indices[", n, "] = ", tuple(n),
                                      " is out of bounds: need 0 <= index < ",
                                      ShapeToString(shape)));
      }
      offset = offset * shape[d] + ix;
    }
    offsets[n] = offset;
    if (validate && n > 0) {
      const int order = CompareTuples(indices, n - 1, n, dims);
      if (order > 0) {
        return ctx.Error(absl::StrCat("sparse_indices[", n, "] = ", tuple(n),
                                      " is out of order (validate_indices requires sorted ",
                                      "indices)"));
      }
      if (order == 0) {
        return ctx.Error(absl::StrCat("sparse_indices[", n, "] = ", tuple(n), " is repeated"));
      }
    }
  }
  DispatchDType(values.dtype(), [&]<typename T>() {
    T* o = out.template mutable_data<T>();
    const T* v = values.data<T>();
    std::fill_n(o, out.num_elements(), fill.data<T>()[0]);
    for (int64_t n = 0; n < count; ++n) o[offsets[n]] = v[values.rank() == 0 ? 0 : n];
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterScatterKernels(KernelRegistry& registry) {
  registry.Register("ScatterNd", ScatterNd);
  registry.Register("ScatterNdAdd", ScatterNdRef<Combine::kAdd>);
  registry.Register("ScatterNdSub", ScatterNdRef<Combine::kSub>);
  registry.Register("ScatterNdUpdate", ScatterNdRef<Combine::kAssign>);
  registry.Register("ScatterNdNonAliasingAdd", TensorScatter<Combine::kAdd, true>);
  registry.Register("TensorScatterUpdate", TensorScatter<Combine::kAssign, false>);
  registry.Register("TensorScatterAdd", TensorScatter<Combine::kAdd, false>);
  registry.Register("TensorScatterSub", TensorScatter<Combine::kSub, false>);
  registry.Register("TensorScatterMax", TensorScatter<Combine::kMax, false>);
  registry.Register("TensorScatterMin", TensorScatter<Combine::kMin, false>);
  registry.Register("ScatterAdd", RowScatter<Combine::kAdd>);
  registry.Register("ScatterSub", RowScatter<Combine::kSub>);
  registry.Register("ScatterMul", RowScatter<Combine::kMul>);
  registry.Register("ScatterDiv", RowScatter<Combine::kDiv>);
  registry.Register("ScatterMax", RowScatter<Combine::kMax>);
  registry.Register("ScatterMin", RowScatter<Combine::kMin>);
  registry.Register("ScatterUpdate", RowScatter<Combine::kAssign>);
  registry.Register("GatherNd", GatherNd);
  registry.Register("SparseToDense", SparseToDense);
}

}  // namespace dfc::reference
