// Reference kernels for shape plumbing: Shape, ShapeN, Size, Rank, BroadcastArgs,
// BroadcastGradientArgs, DynamicStitch, InvertPermutation and ConcatOffset. Gradient graphs
// lean on these, so BroadcastGradientArgs reproduces TensorFlow's BCast rules exactly.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {
namespace {

std::string VectorString(const std::vector<int64_t>& v) {
  return absl::StrCat("[", absl::StrJoin(v, ","), "]");
}

// An int32 or int64 vector holding `values`; int32 refuses values that do not fit.
absl::StatusOr<Tensor> IndexTensor(const KernelContext& ctx, DType dtype,
                                   const std::vector<int64_t>& values, Shape shape) {
  if (dtype != DType::kInt32 && dtype != DType::kInt64) {
    return ctx.Error(absl::StrCat("out_type must be int32 or int64, got ", DTypeName(dtype)));
  }
  absl::StatusOr<Tensor> out = AllocateOutput(ctx, dtype, std::move(shape));
  DFC_RETURN_IF_ERROR(out.status());
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::kInt64) {
      out->mutable_data<int64_t>()[i] = values[i];
    } else if (values[i] > std::numeric_limits<int32_t>::max()) {
      return ctx.Error(absl::StrCat("value ", values[i], " does not fit the int32 output"));
    } else {
      out->mutable_data<int32_t>()[i] = static_cast<int32_t>(values[i]);
    }
  }
  return out;
}

absl::StatusOr<DType> OutType(const KernelContext& ctx) {
  return ctx.node().GetType("out_type", DType::kInt32);
}

absl::Status ShapeOp(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_ASSIGN_OR_RETURN(DType out_type, OutType(ctx));
  const Shape& shape = ctx.input(0).shape();
  DFC_ASSIGN_OR_RETURN(Tensor out,
                       IndexTensor(ctx, out_type, shape, {static_cast<int64_t>(shape.size())}));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ShapeN(KernelContext& ctx) {
  if (ctx.node().HasAttr("N")) {
    DFC_ASSIGN_OR_RETURN(int64_t n, ctx.node().GetInt("N"));
    if (n != ctx.num_inputs()) {
      return ctx.Error(
          absl::StrCat("attribute N = ", n, " but the node has ", ctx.num_inputs(), " inputs"));
    }
  }
  DFC_ASSIGN_OR_RETURN(DType out_type, OutType(ctx));
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const Shape& shape = ctx.input(i).shape();
    DFC_ASSIGN_OR_RETURN(Tensor out,
                         IndexTensor(ctx, out_type, shape, {static_cast<int64_t>(shape.size())}));
    ctx.set_output(i, std::move(out));
  }
  return absl::OkStatus();
}

absl::Status Size(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_ASSIGN_OR_RETURN(DType out_type, OutType(ctx));
  DFC_ASSIGN_OR_RETURN(Tensor out, IndexTensor(ctx, out_type, {ctx.input(0).num_elements()}, {}));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status Rank(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  ctx.set_output(0, Tensor::Scalar<int32_t>(ctx.input(0).rank()));
  return absl::OkStatus();
}

// TensorFlow's BCast for two shapes: the broadcast shape and, for each side, the output
// dimensions its gradient must be summed over. Identical shapes need no reduction at all
// (even over their size-1 dimensions); otherwise a side reduces every dimension where it is
// 1 (or missing), including those where both sides are 1.
struct Broadcast {
  bool valid = true;
  Shape shape;
  std::vector<int64_t> reduce[2];
};

Broadcast BroadcastWithReductions(const Shape& x, const Shape& y) {
  Broadcast b;
  if (x == y) {
    b.shape = x;
    return b;
  }
  const int rank = static_cast<int>(std::max(x.size(), y.size()));
  for (int j = 0; j < rank; ++j) {  // from the innermost dimension outwards
    const int64_t xd = j < static_cast<int>(x.size()) ? x[x.size() - 1 - j] : 1;
    const int64_t yd = j < static_cast<int>(y.size()) ? y[y.size() - 1 - j] : 1;
    const int64_t out_dim = rank - 1 - j;
    if (xd == 1) b.reduce[0].push_back(out_dim);
    if (yd == 1) b.reduce[1].push_back(out_dim);
    if (xd != 1 && yd != 1 && xd != yd) b.valid = false;
    b.shape.push_back(xd == 1 ? yd : xd);
  }
  std::reverse(b.shape.begin(), b.shape.end());
  std::reverse(b.reduce[0].begin(), b.reduce[0].end());
  std::reverse(b.reduce[1].begin(), b.reduce[1].end());
  return b;
}

// Reads the two shape vectors of BroadcastArgs / BroadcastGradientArgs and broadcasts them.
absl::StatusOr<Broadcast> ReadAndBroadcast(const KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  std::vector<int64_t> shapes[2];
  for (int i = 0; i < 2; ++i) {
    DFC_ASSIGN_OR_RETURN(std::vector<int64_t> v, ReadIndexVector(ctx, i, "shape"));
    if (ctx.input(i).rank() != 1 || ctx.input(i).dtype() != ctx.input(0).dtype()) {
      return ctx.Error(absl::StrCat("inputs must be two int32 or two int64 vectors, got ",
                                    ctx.input(0).DebugType(), " and ", ctx.input(1).DebugType()));
    }
    for (int64_t d : v) {
      if (d < 0) return ctx.Error(absl::StrCat("shape ", VectorString(v), " is negative"));
    }
    shapes[i] = std::move(v);
  }
  Broadcast b = BroadcastWithReductions(shapes[0], shapes[1]);
  if (!b.valid) {
    return ctx.Error(absl::StrCat("incompatible shapes ", VectorString(shapes[0]), " and ",
                                  VectorString(shapes[1])));
  }
  return b;
}

absl::Status BroadcastArgs(KernelContext& ctx) {
  DFC_ASSIGN_OR_RETURN(Broadcast b, ReadAndBroadcast(ctx));
  DFC_ASSIGN_OR_RETURN(Tensor out, IndexTensor(ctx, ctx.input(0).dtype(), b.shape,
                                               {static_cast<int64_t>(b.shape.size())}));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status BroadcastGradientArgs(KernelContext& ctx) {
  DFC_ASSIGN_OR_RETURN(Broadcast b, ReadAndBroadcast(ctx));
  for (int i = 0; i < 2; ++i) {
    DFC_ASSIGN_OR_RETURN(Tensor out, IndexTensor(ctx, ctx.input(0).dtype(), b.reduce[i],
                                                 {static_cast<int64_t>(b.reduce[i].size())}));
    ctx.set_output(i, std::move(out));
  }
  return absl::OkStatus();
}

// merged[indices[i][j...], ...] = data[i][j..., ...]; later entries win, and rows no index
// names stay zero.
absl::Status DynamicStitch(KernelContext& ctx) {
  if (ctx.num_inputs() < 2 || ctx.num_inputs() % 2 != 0) {
    return ctx.Error(absl::StrCat("expects 2N inputs (N indices, N data), got ", ctx.num_inputs()));
  }
  const int n = ctx.num_inputs() / 2;
  if (ctx.node().HasAttr("N")) {
    DFC_ASSIGN_OR_RETURN(int64_t attr_n, ctx.node().GetInt("N"));
    if (attr_n != n) {
      return ctx.Error(absl::StrCat("attribute N = ", attr_n, " but the node has ",
                                    ctx.num_inputs(), " inputs"));
    }
  }
  const Tensor& data0 = ctx.input(n);
  if (!IsSupported(data0.dtype())) {
    return ctx.Error(absl::StrCat("data has unsupported dtype ", DTypeName(data0.dtype())));
  }
  const Shape suffix(data0.shape().begin() + std::min(ctx.input(0).rank(), data0.rank()),
                     data0.shape().end());
  int64_t max_index = -1;
  for (int i = 0; i < n; ++i) {
    DFC_RETURN_IF_ERROR(CheckDType(ctx, i, {DType::kInt32, DType::kInt64}));
    const Tensor& indices = ctx.input(i);
    const Tensor& data = ctx.input(n + i);
    const int k = indices.rank();
    if (data.dtype() != data0.dtype() || data.rank() < k ||
        !std::equal(indices.shape().begin(), indices.shape().end(), data.shape().begin()) ||
        !std::equal(suffix.begin(), suffix.end(), data.shape().begin() + k, data.shape().end())) {
      return ctx.Error(absl::StrCat("data ", i, " (", data.DebugType(), ") must be indices ", i,
                                    "'s shape ", ShapeToString(indices.shape()), " followed by ",
                                    ShapeToString(suffix), " in ", DTypeName(data0.dtype())));
    }
    for (int64_t j = 0; j < indices.num_elements(); ++j) {
      const int64_t index = indices.ElementAsInt64(j);
      if (index < 0 || index == std::numeric_limits<int64_t>::max()) {
        return ctx.Error(absl::StrCat("indices ", i, " holds ", index, ", out of range"));
      }
      max_index = std::max(max_index, index);
    }
  }
  Shape shape = suffix;
  shape.insert(shape.begin(), max_index + 1);
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, data0.dtype(), shape));
  if (out.num_elements() > 0) {
    int64_t row_elements = 1;
    for (int64_t d : suffix) row_elements *= d;
    const size_t row = static_cast<size_t>(row_elements) * SizeOf(data0.dtype());
    auto* dst = static_cast<unsigned char*>(out.mutable_raw_data());
    for (int i = 0; i < n; ++i) {
      const Tensor& indices = ctx.input(i);
      const auto* src = static_cast<const unsigned char*>(ctx.input(n + i).raw_data());
      for (int64_t j = 0; j < indices.num_elements(); ++j) {
        std::memcpy(dst + indices.ElementAsInt64(j) * row, src + j * row, row);
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// y[x[i]] = i for a permutation x of 0..n-1 (the permutation a Transpose's gradient undoes).
absl::Status InvertPermutation(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, {DType::kInt32, DType::kInt64}));
  const Tensor& x = ctx.input(0);
  if (x.rank() != 1) {
    return ctx.Error(absl::StrCat("x must be a vector, got ", x.DebugType()));
  }
  const int64_t n = x.num_elements();
  if (n > std::numeric_limits<int32_t>::max()) {
    return ctx.Error(absl::StrCat("x has ", n, " elements, more than int32 can index"));
  }
  std::vector<int64_t> inverse(n, -1);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = x.ElementAsInt64(i);
    if (v < 0 || v >= n) {
      return ctx.Error(absl::StrCat("x is not a permutation: x[", i, "] = ", v,
                                    " is out of range [0, ", n, ")"));
    }
    if (inverse[v] != -1) {
      return ctx.Error(absl::StrCat("x is not a permutation: ", v, " appears at x[", inverse[v],
                                    "] and x[", i, "]"));
    }
    inverse[v] = i;
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, IndexTensor(ctx, x.dtype(), inverse, {n}));
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// ConcatOffset(concat_dim, shape_0..shape_{N-1}): where each of N concatenated inputs starts
// in the result, as N vectors that are 0 except at concat_dim, where they hold the running sum
// of the inputs' sizes along it. The shapes must agree everywhere else.
absl::Status ConcatOffset(KernelContext& ctx) {
  if (ctx.num_inputs() < 3) {
    return ctx.Error(absl::StrCat("expects concat_dim and at least 2 shapes, got ",
                                  ctx.num_inputs(), " inputs"));
  }
  const int n = ctx.num_inputs() - 1;
  if (ctx.node().HasAttr("N")) {
    DFC_ASSIGN_OR_RETURN(int64_t attr_n, ctx.node().GetInt("N"));
    if (attr_n != n) {
      return ctx.Error(
          absl::StrCat("attribute N = ", attr_n, " but the node has ", n, " shape inputs"));
    }
  }
  const Tensor& concat_dim = ctx.input(0);
  if (concat_dim.dtype() != DType::kInt32 || concat_dim.rank() != 0) {
    return ctx.Error(
        absl::StrCat("concat_dim must be an int32 scalar, got ", concat_dim.DebugType()));
  }
  const DType dtype = ctx.input(1).dtype();
  for (int i = 1; i <= n; ++i) {
    const Tensor& shape = ctx.input(i);
    if ((shape.dtype() != DType::kInt32 && shape.dtype() != DType::kInt64) ||
        shape.dtype() != dtype || shape.rank() != 1) {
      return ctx.Error(absl::StrCat("shapes must be int32 or int64 vectors of one dtype, shape ",
                                    i - 1, " is ", shape.DebugType(), " and shape 0 is ",
                                    ctx.input(1).DebugType()));
    }
  }
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> first, ReadIndexVector(ctx, 1, "shape"));
  const int64_t rank = static_cast<int64_t>(first.size());
  const int64_t dim = concat_dim.ElementAsInt64(0);
  const int64_t axis = dim < 0 ? dim + rank : dim;
  if (axis < 0 || axis >= rank) {
    return ctx.Error(
        absl::StrCat("concat_dim ", dim, " is out of range for shapes of rank ", rank));
  }
  int64_t offset = 0;
  for (int i = 0; i < n; ++i) {
    DFC_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadIndexVector(ctx, 1 + i, "shape"));
    if (static_cast<int64_t>(shape.size()) != rank) {
      return ctx.Error(absl::StrCat("shape ", i, " ", VectorString(shape), " has ", shape.size(),
                                    " elements, shape 0 has ", rank));
    }
    std::vector<int64_t> offsets(rank, 0);
    for (int64_t j = 0; j < rank; ++j) {
      if (j == axis) {
        offsets[j] = offset;
        if (__builtin_add_overflow(offset, shape[j], &offset)) {
          return ctx.Error(
              absl::StrCat("the offsets along concat_dim overflow int64 at shape ", i));
        }
      } else if (shape[j] != first[j]) {
        return ctx.Error(absl::StrCat("all dimensions except ", axis, " must match: shape ", i,
                                      " is ", VectorString(shape), " and shape 0 is ",
                                      VectorString(first)));
      }
    }
    DFC_ASSIGN_OR_RETURN(Tensor out, IndexTensor(ctx, dtype, offsets, {rank}));
    ctx.set_output(i, std::move(out));
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterShapeKernels(KernelRegistry& registry) {
  registry.Register("Shape", ShapeOp);
  registry.Register("ShapeN", ShapeN);
  registry.Register("Size", Size);
  registry.Register("Rank", Rank);
  registry.Register("BroadcastArgs", BroadcastArgs);
  registry.Register("BroadcastGradientArgs", BroadcastGradientArgs);
  registry.Register("DynamicStitch", DynamicStitch);
  registry.Register("InvertPermutation", InvertPermutation);
  registry.Register("ConcatOffset", ConcatOffset);
}

}  // namespace dfc::reference
