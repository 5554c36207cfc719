// Reference kernels for products along axes: Einsum (sums of products of its operands' elements,
// over the labels its equation sums) and Cross (the cross products of 3-vectors). Registered by
// RegisterMatrixKernels (matrix.cc).
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "graph/dtype_class.h"
#include "runtime/reference/broadcast.h"
#include "runtime/reference/elementwise_util.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {
namespace {

// --- Cross ----------------------------------------------------------------------------------

// Cross(a, b): the cross products of the 3-vectors along the last axis.
absl::Status Cross(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kNumbers));
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (b.dtype() != a.dtype() || b.shape() != a.shape()) {
    return ctx.Error(absl::StrCat("a ", a.DebugType(), " and b ", b.DebugType(),
                                  " must have the same dtype and shape"));
  }
  if (a.rank() < 1 || a.dim(a.rank() - 1) != 3) {
    return ctx.Error(
        absl::StrCat("a and b must have 3 in their last dimension, got ", a.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, a.dtype(), a.shape()));
  DispatchDType(a.dtype(), [&]<typename T>() {
    if constexpr (!kIsBool<T>) {
      const T* x = a.data<T>();
      const T* y = b.data<T>();
      T* z = out.mutable_data<T>();
      // Integers wrap as TensorFlow's two's-complement arithmetic does; floats are computed in
      // their compute type (float for half) and rounded once per product difference.
      using C = std::conditional_t<kIsInt<T>, uint64_t, ComputeType<T>>;
      const auto sub_mul = [](C p, C q, C r, C s) -> T {
        return Down<T>(static_cast<ComputeType<T>>(static_cast<C>(p * q - r * s)));
      };
      for (int64_t v = 0; v < a.num_elements(); v += 3) {
        const C x0 = static_cast<C>(Up(x[v])), x1 = static_cast<C>(Up(x[v + 1])),
                x2 = static_cast<C>(Up(x[v + 2]));
        const C y0 = static_cast<C>(Up(y[v])), y1 = static_cast<C>(Up(y[v + 1])),
                y2 = static_cast<C>(Up(y[v + 2]));
        z[v] = sub_mul(x1, y2, x2, y1);
        z[v + 1] = sub_mul(x2, y0, x0, y2);
        z[v + 2] = sub_mul(x0, y1, x1, y0);
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- Einsum ---------------------------------------------------------------------------------

// An einsum equation parsed: each operand's subscripts as label ids (0-51 for letters,
// kEllipsis for "..."), and the output's.
constexpr int kEllipsis = -1;
struct Equation {
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;
};

absl::StatusOr<std::vector<int>> ParseSubscripts(const KernelContext& ctx, absl::string_view text) {
  std::vector<int> labels;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.') {
      if (text.substr(i, 3) != "...") {
        return ctx.Error(absl::StrCat("einsum subscripts \"", text, "\" have a stray '.'"));
      }
      if (std::find(labels.begin(), labels.end(), kEllipsis) != labels.end()) {
        return ctx.Error(absl::StrCat("einsum subscripts \"", text, "\" have two ellipses"));
      }
      labels.push_back(kEllipsis);
      i += 2;
    } else if (c >= 'a' && c <= 'z') {
      labels.push_back(c - 'a');
    } else if (c >= 'A' && c <= 'Z') {
      labels.push_back(26 + c - 'A');
    } else if (c != ' ') {
      return ctx.Error(absl::StrCat("einsum subscripts \"", text, "\" have an invalid label '",
                                    std::string(1, c), "'"));
    }
  }
  return labels;
}

// "ab,bc->ac". Without "->" the output is NumPy's implicit one: the ellipsis, then the labels
// that appear once, in alphabetical order.
absl::StatusOr<Equation> ParseEquation(const KernelContext& ctx, absl::string_view text) {
  Equation eq;
  const size_t arrow = text.find("->");
  const absl::string_view lhs = text.substr(0, arrow);
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    DFC_ASSIGN_OR_RETURN(std::vector<int> labels,
                         ParseSubscripts(ctx, lhs.substr(start, comma == absl::string_view::npos
                                                                    ? absl::string_view::npos
                                                                    : comma - start)));
    eq.inputs.push_back(std::move(labels));
    if (comma == absl::string_view::npos) break;
    start = comma + 1;
  }
  if (arrow != absl::string_view::npos) {
    if (text.find("->", arrow + 2) != absl::string_view::npos) {
      return ctx.Error(absl::StrCat("einsum equation \"", text, "\" has more than one \"->\""));
    }
    DFC_ASSIGN_OR_RETURN(std::vector<int> labels, ParseSubscripts(ctx, text.substr(arrow + 2)));
    eq.output = std::move(labels);
  } else {
    std::vector<int> counts(52, 0);
    bool ellipsis = false;
    for (const auto& in : eq.inputs) {
      for (int l : in) {
        if (l == kEllipsis) {
          ellipsis = true;
        } else {
          ++counts[l];
        }
      }
    }
    if (ellipsis) eq.output.push_back(kEllipsis);
    // ASCII order: uppercase (ids 26-51) before lowercase (0-25).
    for (int l = 26; l < 52; ++l) {
      if (counts[l] == 1) eq.output.push_back(l);
    }
    for (int l = 0; l < 26; ++l) {
      if (counts[l] == 1) eq.output.push_back(l);
    }
  }
  return eq;
}

// Einsum(inputs...; equation): one or two operands. Every label gets one size; "..." stands
// for dimensions broadcast across the operands as NumPy does. An element of the output is the
// sum, over the labels absent from the output, of the product of the operands' elements;
// a label repeated in an operand reads its diagonal, one repeated in the output writes one.
absl::Status Einsum(KernelContext& ctx) {
  DFC_ASSIGN_OR_RETURN(std::string text, ctx.node().GetString("equation"));
  DFC_ASSIGN_OR_RETURN(Equation eq, ParseEquation(ctx, text));
  const int n = ctx.num_inputs();
  if (n < 1 || n > 2 || static_cast<int>(eq.inputs.size()) != n) {
    return ctx.Error(absl::StrCat("einsum equation \"", text, "\" has ", eq.inputs.size(),
                                  " operands for ", n, " inputs (1 or 2 are supported)"));
  }
  const DType dtype = ctx.input(0).dtype();
  DFC_RETURN_IF_ERROR(CheckDType(
      ctx, 0, {DType::kHalf, DType::kFloat, DType::kDouble, DType::kInt32, DType::kInt64}));
  for (int i = 1; i < n; ++i) {
    if (ctx.input(i).dtype() != dtype) {
      return ctx.Error(absl::StrCat("input ", i, " ", ctx.input(i).DebugType(),
                                    " must have input 0's dtype ", DTypeName(dtype)));
    }
  }
  // Label sizes, and each operand's ellipsis dimensions.
  std::vector<int64_t> size(52, -1);
  std::vector<Shape> ellipsis_shapes(n);
  Shape broadcast;
  for (int i = 0; i < n; ++i) {
    const Tensor& in = ctx.input(i);
    const std::vector<int>& labels = eq.inputs[i];
    const bool has_ellipsis = std::find(labels.begin(), labels.end(), kEllipsis) != labels.end();
    const int named = static_cast<int>(labels.size()) - (has_ellipsis ? 1 : 0);
    if (has_ellipsis ? in.rank() < named : in.rank() != named) {
      return ctx.Error(absl::StrCat("input ", i, " ", in.DebugType(), " must have rank ",
                                    has_ellipsis ? "at least " : "", named, " for its ",
                                    "subscripts in \"", text, "\""));
    }
    const int ellipsis_rank = in.rank() - named;
    int axis = 0;
    for (int l : labels) {
      if (l == kEllipsis) {
        ellipsis_shapes[i].assign(in.shape().begin() + axis,
                                  in.shape().begin() + axis + ellipsis_rank);
        axis += ellipsis_rank;
        continue;
      }
      if (size[l] != -1 && size[l] != in.dim(axis)) {
        return ctx.Error(absl::StrCat("label '", std::string(1, l < 26 ? 'a' + l : 'A' + l - 26),
                                      "' has size ", size[l], " and ", in.dim(axis), " (input ", i,
                                      " ", in.DebugType(), ", axis ", axis, ")"));
      }
      size[l] = in.dim(axis++);
    }
    absl::StatusOr<Shape> b = BroadcastShapes(broadcast, ellipsis_shapes[i]);
    if (!b.ok()) return ctx.node().Annotate(b.status());
    broadcast = *std::move(b);
  }
  // The output: its labels (broadcast dimensions get ids 52...) and shape.
  const int num_b = static_cast<int>(broadcast.size());
  for (int64_t d : broadcast) size.push_back(d);
  std::vector<int> out_labels;
  bool out_ellipsis = false;
  for (int l : eq.output) {
    if (l == kEllipsis) {
      out_ellipsis = true;
      for (int d = 0; d < num_b; ++d) out_labels.push_back(52 + d);
      continue;
    }
    if (size[l] == -1) {
      return ctx.Error(absl::StrCat("output label '",
                                    std::string(1, l < 26 ? 'a' + l : 'A' + l - 26),
                                    "' appears in no input of \"", text, "\""));
    }
    out_labels.push_back(l);
  }
  if (!out_ellipsis && num_b > 0) {
    return ctx.Error(absl::StrCat("the inputs have ", num_b, " broadcast dimension(s) but \"", text,
                                  "\"'s output has no ellipsis"));
  }
  Shape out_shape;
  for (int l : out_labels) out_shape.push_back(size[l]);
  // Loop labels: the output's distinct labels, then the summed ones.
  std::vector<int> loop;
  std::vector<bool> seen(size.size(), false);
  for (int l : out_labels) {
    if (!seen[l]) loop.push_back(l), seen[l] = true;
  }
  const int num_free = static_cast<int>(loop.size());
  for (int l = 0; l < 52; ++l) {
    if (size[l] != -1 && !seen[l]) loop.push_back(l), seen[l] = true;
  }
  std::vector<int> position(size.size(), -1);
  for (size_t p = 0; p < loop.size(); ++p) position[loop[p]] = static_cast<int>(p);
  // Each operand's stride per loop label (repeated labels add up: a diagonal; a broadcast
  // dimension of size 1 gets 0).
  std::vector<std::vector<int64_t>> strides(n, std::vector<int64_t>(loop.size(), 0));
  for (int i = 0; i < n; ++i) {
    const Tensor& in = ctx.input(i);
    const std::vector<int64_t> in_strides = Strides(in.shape());
    int axis = 0;
    for (int l : eq.inputs[i]) {
      if (l == kEllipsis) {
        const int r = static_cast<int>(ellipsis_shapes[i].size());
        for (int d = 0; d < r; ++d, ++axis) {
          if (in.dim(axis) != 1) strides[i][position[52 + num_b - r + d]] += in_strides[axis];
        }
        continue;
      }
      strides[i][position[l]] += in_strides[axis++];
    }
  }
  // The output's strides per free label; a repeated output label is written on its diagonal.
  const std::vector<int64_t> out_strides = Strides(out_shape);
  std::vector<int64_t> free_stride(num_free, 0);
  for (size_t a = 0; a < out_labels.size(); ++a) {
    free_stride[position[out_labels[a]]] += out_strides[a];
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, dtype, out_shape));
  int64_t free_count = 1;
  int64_t sum_count = 1;
  for (int p = 0; p < static_cast<int>(loop.size()); ++p) {
    (p < num_free ? free_count : sum_count) *= size[loop[p]];
  }
  DispatchDType(dtype, [&]<typename T>() {
    if constexpr (!kIsBool<T>) {
      // Floats accumulate in double, integers in uint64 (wrapping as int64 arithmetic does).
      using Acc = std::conditional_t<kIsInt<T>, uint64_t, double>;
      std::vector<const T*> data(n);
      for (int i = 0; i < n; ++i) data[i] = ctx.input(i).data<T>();
      T* dst = out.mutable_data<T>();
      std::vector<int64_t> index(loop.size(), 0);
      for (int64_t f = 0; f < free_count; ++f) {
        // Decompose f over the free labels (last fastest).
        int64_t rest = f;
        int64_t out_offset = 0;
        for (int p = num_free - 1; p >= 0; --p) {
          index[p] = rest % size[loop[p]];
          rest /= size[loop[p]];
          out_offset += index[p] * free_stride[p];
        }
        Acc acc = 0;
        for (int64_t s = 0; s < sum_count; ++s) {
          rest = s;
          for (int p = static_cast<int>(loop.size()) - 1; p >= num_free; --p) {
            index[p] = rest % size[loop[p]];
            rest /= size[loop[p]];
          }
          Acc product = 1;
          for (int i = 0; i < n; ++i) {
            int64_t offset = 0;
            for (size_t p = 0; p < loop.size(); ++p) offset += index[p] * strides[i][p];
            product *= static_cast<Acc>(Up(data[i][offset]));
          }
          acc += product;
        }
        dst[out_offset] = Down<T>(static_cast<ComputeType<T>>(acc));
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterProductKernels(KernelRegistry& registry) {
  registry.Register("Cross", Cross);
  registry.Register("Einsum", Einsum);
}

}  // namespace dfc::reference
