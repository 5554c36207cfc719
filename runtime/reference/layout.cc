// Reference kernels for layout ops that move whole contiguous blocks: Reshape, ExpandDims,
// Squeeze, ConcatV2/Concat, Pack/Unpack, Split/SplitV and IdentityN. The other layout ops live
// in layout_slice.cc (per-element index maps) and layout_gather.cc (gathers and generators);
// RegisterLayoutKernels registers all three files.
//
// These ops never look at element values, so they copy bytes and work for every dtype alike.
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

void RegisterSliceKernels(KernelRegistry& registry);   // layout_slice.cc
void RegisterGatherKernels(KernelRegistry& registry);  // layout_gather.cc

namespace {

// Split and Unpack of an empty tensor could otherwise be asked for billions of outputs.
constexpr int64_t kMaxOutputs = int64_t{1} << 20;

// A count attribute (N, num, num_split) must agree with what the node actually has, when
// the attribute is present.
absl::Status CheckCountAttr(const KernelContext& ctx, absl::string_view attr, int64_t actual,
                            absl::string_view what) {
  if (!ctx.node().HasAttr(attr)) return absl::OkStatus();
  DFC_ASSIGN_OR_RETURN(int64_t n, ctx.node().GetInt(attr));
  if (n != actual) {
    return ctx.Error(
        absl::StrCat("attribute ", attr, " = ", n, " but the node has ", actual, " ", what));
  }
  return absl::OkStatus();
}

// Output = for each of `outer` rows, the row of each input in turn. Concat, Pack and (in
// reverse) Split and Unpack are all this once the tensors are viewed as [outer, chunk].
void InterleaveChunks(const std::vector<const Tensor*>& inputs,
                      const std::vector<size_t>& chunk_bytes, int64_t outer, Tensor& out) {
  auto* dst = static_cast<unsigned char*>(out.mutable_raw_data());
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (chunk_bytes[i] == 0) continue;
      const auto* src = static_cast<const unsigned char*>(inputs[i]->raw_data());
      std::memcpy(dst, src + o * chunk_bytes[i], chunk_bytes[i]);
      dst += chunk_bytes[i];
    }
  }
}

void DeinterleaveChunks(const Tensor& in, const std::vector<size_t>& chunk_bytes, int64_t outer,
                        std::vector<Tensor>& outputs) {
  const auto* src = static_cast<const unsigned char*>(in.raw_data());
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (chunk_bytes[i] == 0) continue;
      auto* dst = static_cast<unsigned char*>(outputs[i].mutable_raw_data());
      std::memcpy(dst + o * chunk_bytes[i], src, chunk_bytes[i]);
      src += chunk_bytes[i];
    }
  }
}

// a * b for non-negative values, or false on overflow.
bool CheckedMul(int64_t a, int64_t b, int64_t& out) {
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a) return false;
  out = a * b;
  return true;
}

// TensorFlow's Reshape: at most one -1, inferred from the element count. Zero dimensions are
// left out of both products when the requested shape has one, so that [2,0] -> [2,0,-1]
// still infers the -1 (as 1) instead of dividing by zero.
absl::Status Reshape(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  const Tensor& in = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ReadIndexVector(ctx, 1, "shape"));
  Shape shape = sizes;
  int unknown = -1;
  bool has_zero = false;
  int64_t product = 1;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    if (shape[d] == -1) {
      if (unknown != -1) {
        return ctx.Error(absl::StrCat("shape ", ShapeToString(shape), " has more than one -1 (",
                                      unknown, " and ", d, ")"));
      }
      unknown = d;
    } else if (shape[d] < 0) {
      return ctx.Error(
          absl::StrCat("shape ", ShapeToString(shape), " has negative size ", shape[d], " at ", d));
    } else if (shape[d] == 0) {
      has_zero = true;
    } else if (!CheckedMul(product, shape[d], product)) {
      return ctx.Error(
          absl::StrCat("shape ", ShapeToString(shape), " has more than 2^63 elements"));
    }
  }
  if (unknown != -1) {
    int64_t count = 1;
    for (int64_t d : in.shape()) {
      if (d == 0 && has_zero) continue;
      if (!CheckedMul(count, d, count)) {
        return ctx.Error(
            absl::StrCat("cannot infer -1 in ", ShapeToString(shape), " from ", in.DebugType()));
      }
    }
    const int64_t missing = count / product;
    if (missing * product != count) {
      return ctx.Error(absl::StrCat("cannot reshape ", in.DebugType(), " to ", ShapeToString(shape),
                                    ": ", count, " elements are not a multiple of ", product));
    }
    shape[unknown] = missing;
  }
  absl::StatusOr<Tensor> out = in.Reshaped(shape);
  if (!out.ok()) {
    return ctx.Error(absl::StrCat("cannot reshape ", in.DebugType(), " (", in.num_elements(),
                                  " elements) to ", ShapeToString(sizes)));
  }
  ctx.set_output(0, *std::move(out));
  return absl::OkStatus();
}

absl::Status ExpandDims(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  const Tensor& in = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(int64_t dim, ReadIndexScalar(ctx, 1, "dim"));
  const int rank = in.rank();
  if (dim < -rank - 1 || dim > rank) {
    return ctx.Error(absl::StrCat("dim ", dim, " is out of range for ", in.DebugType(),
                                  " (expected [", -rank - 1, ", ", rank, "])"));
  }
  const int64_t at = dim < 0 ? dim + rank + 1 : dim;
  Shape shape = in.shape();
  shape.insert(shape.begin() + at, 1);
  ctx.set_output(0, *in.Reshaped(shape));
  return absl::OkStatus();
}

absl::Status Squeeze(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  const Tensor& in = ctx.input(0);
  std::vector<int64_t> dims;
  if (ctx.node().HasAttr("squeeze_dims")) {
    DFC_ASSIGN_OR_RETURN(AttrList list, ctx.node().GetList("squeeze_dims"));
    dims = list.i;
  }
  std::vector<bool> squeeze(in.rank(), false);
  for (int64_t d : dims) {
    DFC_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, d, in.rank()));
    if (in.dim(axis) != 1) {
      return ctx.Error(absl::StrCat("cannot squeeze dim ", d, " of ", in.DebugType(),
                                    ": its size is ", in.dim(axis), ", expected 1"));
    }
    squeeze[axis] = true;
  }
  Shape shape;
  for (int i = 0; i < in.rank(); ++i) {
    const bool drop = dims.empty() ? in.dim(i) == 1 : squeeze[i];
    if (!drop) shape.push_back(in.dim(i));
  }
  ctx.set_output(0, *in.Reshaped(shape));
  return absl::OkStatus();
}

// ConcatV2 takes (values..., axis); Concat takes (concat_dim, values...).
absl::Status ConcatImpl(KernelContext& ctx, int first_value, int axis_input) {
  const int n = ctx.num_inputs() - 1;
  if (n < 1) return ctx.Error(absl::StrCat("expects at least 2 inputs, got ", ctx.num_inputs()));
  DFC_RETURN_IF_ERROR(CheckCountAttr(ctx, "N", n, "values"));
  DFC_ASSIGN_OR_RETURN(int64_t axis_value, ReadIndexScalar(ctx, axis_input, "axis"));
  std::vector<const Tensor*> values;
  for (int i = 0; i < n; ++i) {
    DFC_RETURN_IF_ERROR(CheckMovable(ctx, first_value + i));
    values.push_back(&ctx.input(first_value + i));
  }
  const Tensor& first = *values[0];
  if (first.rank() == 0) return ctx.Error("cannot concatenate scalars (use Pack)");
  DFC_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, axis_value, first.rank()));
  Shape out_shape = first.shape();
  out_shape[axis] = 0;
  for (int i = 0; i < n; ++i) {
    const Tensor& v = *values[i];
    if (v.dtype() != first.dtype()) {
      return ctx.Error(
          absl::StrCat("value ", i, " is ", v.DebugType(), " but value 0 is ", first.DebugType()));
    }
    bool match = v.rank() == first.rank();
    for (int d = 0; match && d < v.rank(); ++d) match = d == axis || v.dim(d) == first.dim(d);
    if (!match) {
      return ctx.Error(absl::StrCat("cannot concatenate ", first.DebugType(), " and ",
                                    v.DebugType(), " (value ", i, ") along axis ", axis));
    }
    if (v.dim(axis) > std::numeric_limits<int64_t>::max() - out_shape[axis]) {
      return ctx.Error(absl::StrCat("concatenated dimension ", axis, " overflows int64"));
    }
    out_shape[axis] += v.dim(axis);
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, first.dtype(), out_shape));
  if (out.num_elements() > 0) {
    const int64_t inner = Product(out_shape, axis + 1, first.rank());
    std::vector<size_t> chunk_bytes;
    for (const Tensor* v : values) {
      chunk_bytes.push_back(static_cast<size_t>(v->dim(axis) * inner) * SizeOf(v->dtype()));
    }
    InterleaveChunks(values, chunk_bytes, Product(out_shape, 0, axis), out);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

absl::Status ConcatV2(KernelContext& ctx) { return ConcatImpl(ctx, 0, ctx.num_inputs() - 1); }
absl::Status Concat(KernelContext& ctx) { return ConcatImpl(ctx, 1, 0); }

absl::Status Pack(KernelContext& ctx) {
  const int n = ctx.num_inputs();
  if (n < 1) return ctx.Error("expects at least one input");
  DFC_RETURN_IF_ERROR(CheckCountAttr(ctx, "N", n, "inputs"));
  DFC_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.node().GetInt("axis", 0));
  std::vector<const Tensor*> values;
  for (int i = 0; i < n; ++i) {
    DFC_RETURN_IF_ERROR(CheckMovable(ctx, i));
    const Tensor& v = ctx.input(i);
    if (v.dtype() != ctx.input(0).dtype() || v.shape() != ctx.input(0).shape()) {
      return ctx.Error(absl::StrCat("cannot stack ", ctx.input(0).DebugType(), " (input 0) and ",
                                    v.DebugType(), " (input ", i, "): they must match"));
    }
    values.push_back(&v);
  }
  const Tensor& first = ctx.input(0);
  const int out_rank = first.rank() + 1;
  if (axis_attr < -out_rank || axis_attr >= out_rank) {
    return ctx.Error(absl::StrCat("axis ", axis_attr, " is out of range for stacking ",
                                  first.DebugType(), " (expected [", -out_rank, ", ", out_rank,
                                  "))"));
  }
  const int axis = static_cast<int>(axis_attr < 0 ? axis_attr + out_rank : axis_attr);
  Shape out_shape = first.shape();
  out_shape.insert(out_shape.begin() + axis, n);
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, first.dtype(), out_shape));
  if (out.num_elements() > 0) {
    const size_t chunk =
        static_cast<size_t>(Product(first.shape(), axis, first.rank())) * SizeOf(first.dtype());
    InterleaveChunks(values, std::vector<size_t>(n, chunk), Product(first.shape(), 0, axis), out);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// Splits `in` along `axis` into pieces of the given sizes (which sum to the axis length).
absl::Status SplitInto(KernelContext& ctx, const Tensor& in, int axis,
                       const std::vector<int64_t>& sizes, bool keep_axis) {
  if (static_cast<int64_t>(sizes.size()) > kMaxOutputs) {
    return ctx.Error(absl::StrCat("splitting ", in.DebugType(), " into ", sizes.size(),
                                  " outputs is over dfc's limit of ", kMaxOutputs));
  }
  std::vector<Tensor> outputs;
  for (int64_t size : sizes) {
    Shape shape = in.shape();
    if (keep_axis) {
      shape[axis] = size;
    } else {
      shape.erase(shape.begin() + axis);
    }
    DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, in.dtype(), shape));
    outputs.push_back(std::move(out));
  }
  if (in.num_elements() > 0) {
    const int64_t inner = Product(in.shape(), axis + 1, in.rank());
    std::vector<size_t> chunk_bytes;
    for (int64_t size : sizes) {
      chunk_bytes.push_back(static_cast<size_t>(size * inner) * SizeOf(in.dtype()));
    }
    DeinterleaveChunks(in, chunk_bytes, Product(in.shape(), 0, axis), outputs);
  }
  for (size_t i = 0; i < outputs.size(); ++i) ctx.set_output(static_cast<int>(i), outputs[i]);
  return absl::OkStatus();
}

absl::Status Unpack(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  const Tensor& in = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.node().GetInt("axis", 0));
  if (in.rank() == 0) return ctx.Error("cannot unstack a scalar");
  DFC_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, axis_attr, in.rank()));
  absl::StatusOr<int64_t> num = ctx.node().GetInt("num", in.dim(axis));
  DFC_RETURN_IF_ERROR(num.status());
  if (*num != in.dim(axis)) {
    return ctx.Error(absl::StrCat("cannot unstack ", in.DebugType(), " along axis ", axis,
                                  " into num = ", *num, " outputs"));
  }
  if (*num > kMaxOutputs) {
    return ctx.Error(
        absl::StrCat("num = ", *num, " is over dfc's limit of ", kMaxOutputs, " outputs"));
  }
  return SplitInto(ctx, in, axis, std::vector<int64_t>(*num, 1), false);
}

absl::Status Split(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 1));
  const Tensor& in = ctx.input(1);
  absl::StatusOr<int64_t> num_split = ctx.node().GetInt("num_split");
  DFC_RETURN_IF_ERROR(num_split.status());
  DFC_ASSIGN_OR_RETURN(int64_t axis_value, ReadIndexScalar(ctx, 0, "split_dim"));
  DFC_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, axis_value, in.rank()));
  if (*num_split <= 0 || in.dim(axis) % *num_split != 0) {
    return ctx.Error(absl::StrCat("cannot split dimension ", axis, " of ", in.DebugType(),
                                  " into num_split = ", *num_split, " equal parts"));
  }
  if (*num_split > kMaxOutputs) {
    return ctx.Error(absl::StrCat("num_split = ", *num_split, " is over dfc's limit of ",
                                  kMaxOutputs, " outputs"));
  }
  return SplitInto(ctx, in, axis, std::vector<int64_t>(*num_split, in.dim(axis) / *num_split),
                   true);
}

absl::Status SplitV(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  const Tensor& in = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ReadIndexVector(ctx, 1, "size_splits"));
  DFC_ASSIGN_OR_RETURN(int64_t axis_value, ReadIndexScalar(ctx, 2, "axis"));
  DFC_RETURN_IF_ERROR(
      CheckCountAttr(ctx, "num_split", static_cast<int64_t>(sizes.size()), "size_splits"));
  if (sizes.empty()) return ctx.Error("size_splits is empty");
  DFC_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, axis_value, in.rank()));
  const int64_t length = in.dim(axis);
  const std::string listed = absl::StrCat("[", absl::StrJoin(sizes, ","), "]");
  int inferred = -1;
  int64_t known = 0;
  for (int i = 0; i < static_cast<int>(sizes.size()); ++i) {
    const int64_t s = sizes[i];
    if (s == -1) {
      if (inferred != -1)
        return ctx.Error(absl::StrCat("size_splits ", listed, " has more than one -1"));
      inferred = i;
    } else if (s < 0 || s > length - known) {
      // Checked one at a time so the running sum cannot overflow.
      return ctx.Error(absl::StrCat("size_splits ", listed, " does not fit dimension ", axis,
                                    " of ", in.DebugType()));
    } else {
      known += s;
    }
  }
  if (inferred != -1) {
    sizes[inferred] = length - known;
  } else if (known != length) {
    return ctx.Error(absl::StrCat("size_splits ", listed, " sums to ", known, ", but dimension ",
                                  axis, " of ", in.DebugType(), " is ", length));
  }
  return SplitInto(ctx, in, axis, sizes, true);
}

absl::Status IdentityN(KernelContext& ctx) {
  if (ctx.node().HasAttr("T")) {
    DFC_ASSIGN_OR_RETURN(AttrList types, ctx.node().GetList("T"));
    if (static_cast<int>(types.type.size()) != ctx.num_inputs()) {
      return ctx.Error(absl::StrCat("attribute T lists ", types.type.size(),
                                    " types but the node has ", ctx.num_inputs(), " inputs"));
    }
  }
  for (int i = 0; i < ctx.num_inputs(); ++i) ctx.set_output(i, ctx.input(i));
  return absl::OkStatus();
}

}  // namespace

void RegisterLayoutKernels(KernelRegistry& registry) {
  registry.Register("Reshape", Reshape);
  registry.Register("ExpandDims", ExpandDims);
  registry.Register("Squeeze", Squeeze);
  registry.Register("ConcatV2", ConcatV2);
  registry.Register("Concat", Concat);
  registry.Register("Pack", Pack);
  registry.Register("Unpack", Unpack);
  registry.Register("Split", Split);
  registry.Register("SplitV", SplitV);
  registry.Register("IdentityN", IdentityN);
  RegisterSliceKernels(registry);
  RegisterGatherKernels(registry);
}

}  // namespace dfc::reference
