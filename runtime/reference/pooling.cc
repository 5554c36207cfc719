// Reference kernels: pooling (MaxPool MaxPoolV2 AvgPool MaxPool3D AvgPool3D MaxPoolGrad
// MaxPoolGradV2 AvgPoolGrad MaxPoolWithArgmax), as TensorFlow's CPU kernels compute them.
//
// Every op walks the same windows (ForEachWindow): one per output element, listing the input
// offsets of the window's in-bounds elements in TensorFlow's scan order (row-major over the
// window). Padding never enters a window: a maximum ignores it, an average divides by the
// in-bounds count. Window geometry (output sizes, padding) is graph/op_semantics/window.h's.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/op_semantics/window.h"
#include "runtime/reference/elementwise_util.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"
#include "runtime/reference/reduction_util.h"

namespace dfc::reference {
namespace {

// TensorFlow's realnumbertypes (MaxPool and its gradients, MaxPoolWithArgmax).
constexpr DType kRealNumberTypes[] = {DType::kHalf,   DType::kFloat,  DType::kDouble, DType::kInt8,
                                      DType::kInt16,  DType::kInt32,  DType::kInt64,  DType::kUInt8,
                                      DType::kUInt16, DType::kUInt32, DType::kUInt64};
constexpr DType kFloatTypes[] = {DType::kHalf, DType::kFloat, DType::kDouble};  // AvgPool...
constexpr DType kMaxPool3DDTypes[] = {DType::kHalf, DType::kFloat};  // MaxPool3D

// Where one pooling's windows lie: the input's and output's shapes (same layout, the spatial
// extents replaced by window counts) and, per spatial dimension, the window, stride and the
// padding before the input.
struct PoolGeometry {
  Shape input;
  Shape output;
  int channel_dim = 0;
  std::vector<int> spatial_dims;  // the input (and output) dimension of each spatial dimension
  std::vector<int64_t> window;
  std::vector<int64_t> stride;
  std::vector<int64_t> pad_before;
};

// The geometry of `attrs`'s windows over an input of `input` shape (`what` names it in errors).
absl::StatusOr<PoolGeometry> MakeGeometry(const KernelContext& ctx, const WindowAttrs& attrs,
                                          const Shape& input, absl::string_view what) {
  const int spatial_rank = attrs.spatial_rank();
  const std::string format = DataFormatName(attrs.format, spatial_rank);
  if (static_cast<int>(input.size()) != spatial_rank + 2) {
    return ctx.Error(absl::StrCat(what, " must have rank ", spatial_rank + 2, " (", format,
                                  "), got shape ", ShapeToString(input)));
  }
  PoolGeometry g;
  g.input = input;
  g.output = input;
  g.channel_dim = attrs.channel_dim();
  for (int i = 0; i < spatial_rank; ++i) {
    const int d = attrs.spatial_dim(i);
    const WindowDim dim = attrs.Dim(i, input[d], attrs.ksize[d]);
    absl::StatusOr<WindowSize> size = ComputeWindow(dim, attrs.padding);
    if (!size.ok()) {
      return ctx.Error(absl::StrCat("dimension ", d, " (", format.substr(d, 1), ") of ", what,
                                    " shape ", ShapeToString(input), ": ",
                                    size.status().message()));
    }
    g.output[d] = size->output;
    g.spatial_dims.push_back(d);
    g.window.push_back(dim.window);
    g.stride.push_back(dim.stride);
    g.pad_before.push_back(size->pad_before);
  }
  return g;
}

// Calls visit(out, window) for each output element of `g` in C order: `out` is its offset in the
// output, `window` the input offsets of its window's in-bounds elements in row-major window
// order (empty only where EXPLICIT padding puts a whole window outside the input).
template <typename Visit>
void ForEachWindow(const PoolGeometry& g, Visit&& visit) {
  const int rank = static_cast<int>(g.output.size());
  const int n = static_cast<int>(g.spatial_dims.size());
  int64_t out_count = 1;
  for (int64_t d : g.output) out_count *= d;
  const std::vector<int64_t> in_strides = Strides(g.input);
  std::vector<int64_t> index(rank, 0);  // the current output element's
  std::vector<int64_t> lo(n), hi(n), at(n);
  std::vector<int64_t> window;
  for (int64_t out = 0; out < out_count; ++out) {
    // Batch and channel are the same in the input as in the output.
    const int64_t base =
        index[0] * in_strides[0] + index[g.channel_dim] * in_strides[g.channel_dim];
    bool empty = false;
    for (int i = 0; i < n; ++i) {
      const int d = g.spatial_dims[i];
      const int64_t start = index[d] * g.stride[i] - g.pad_before[i];
      lo[i] = std::max<int64_t>(start, 0);
      hi[i] = std::min<int64_t>(start + g.window[i], g.input[d]);
      at[i] = lo[i];
      empty = empty || lo[i] >= hi[i];
    }
    window.clear();
    while (!empty) {
      int64_t offset = base;
      for (int i = 0; i < n; ++i) offset += at[i] * in_strides[g.spatial_dims[i]];
      window.push_back(offset);
      // Odometer step over the in-bounds box, the last spatial dimension fastest.
      int i = n - 1;
      for (; i >= 0; --i) {
        if (++at[i] < hi[i]) break;
        at[i] = lo[i];
      }
      empty = i < 0;
    }
    visit(out, std::span<const int64_t>(window));
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < g.output[d]) break;
      index[d] = 0;
    }
  }
}

template <typename T>
bool Less(T a, T b) {
  return Up(a) < Up(b);
}

template <typename T>
T Lowest() {
  if constexpr (kIsHalf<T>) {
    return Half(-65504.0f);
  } else {
    return std::numeric_limits<T>::lowest();
  }
}

// TensorFlow's CPU MaxPool (SpatialMaxPool; Eigen's CuboidMaxPooling for 3-D): the maximum
// starts at T's lowest value and an element replaces it only when larger, so a NaN never wins
// and a window of -inf gives the lowest finite value. (TensorFlow's 3-D NaN results depend on
// Eigen's vectorisation; this is its 2-D kernel's rule.)
template <typename T>
T WindowMax(const T* in, std::span<const int64_t> window) {
  T max = Lowest<T>();
  for (int64_t k : window) {
    if (Less(max, in[k])) max = in[k];
  }
  return max;
}

// TensorFlow's SpatialMaxPoolWithArgMaxHelper (MaxPoolWithArgmax, and MaxPoolGrad, which finds
// the maxima again in orig_input): the window's first element is taken whatever it is and a
// later one only when larger, so the first of equal maxima wins. The input offset of the
// maximum, or -1 for an empty window.
template <typename T>
int64_t WindowArgmax(const T* in, std::span<const int64_t> window) {
  int64_t arg = -1;
  for (int64_t k : window) {
    if (arg < 0 || Less(in[arg], in[k])) arg = k;
  }
  return arg;
}

// Reads the window attributes of a pool. MaxPoolV2 and MaxPoolGradV2 take ksize and strides as
// int32 inputs `window_inputs` and `window_inputs + 1`: they are read as the MaxPool attributes
// they stand for, so that one reader checks them all.
absl::StatusOr<WindowAttrs> ReadPoolAttrs(const KernelContext& ctx, const WindowOpKind& kind,
                                          int window_inputs) {
  if (window_inputs < 0) return ReadWindowAttrs(ctx.node(), kind);
  Node node = ctx.node();
  const char* const keys[] = {"ksize", "strides"};
  for (int k = 0; k < 2; ++k) {
    const int i = window_inputs + k;
    DFC_RETURN_IF_ERROR(CheckDType(ctx, i, {DType::kInt32}));
    DFC_ASSIGN_OR_RETURN(std::vector<int64_t> values, ReadIndexVector(ctx, i, keys[k]));
    AttrList list;
    list.i = std::move(values);
    node.attrs[keys[k]] = list;
  }
  return ReadWindowAttrs(node, kind);
}

// A forward pool: MaxPool, MaxPoolV2, AvgPool, MaxPool3D, AvgPool3D.
struct PoolSpec {
  bool average = false;
  int spatial_rank = 2;
  bool allows_explicit = false;
  int window_inputs = -1;  // MaxPoolV2: ksize and strides are inputs 1 and 2
  std::span<const DType> dtypes;
};

absl::Status PoolKernel(KernelContext& ctx, const PoolSpec& spec) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, spec.window_inputs < 0 ? 1 : 3));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, spec.dtypes));
  const WindowOpKind kind{.spatial_rank = spec.spatial_rank,
                          .has_ksize = true,
                          .has_dilations = false,
                          .allows_explicit = spec.allows_explicit};
  DFC_ASSIGN_OR_RETURN(WindowAttrs attrs, ReadPoolAttrs(ctx, kind, spec.window_inputs));
  const Tensor& x = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(PoolGeometry g, MakeGeometry(ctx, attrs, x.shape(), "input"));
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, x.dtype(), g.output));
  DispatchDType(x.dtype(), [&]<typename T>() {
    if constexpr (!kIsBool<T>) {
      const T* in = x.data<T>();
      T* o = out.mutable_data<T>();
      ForEachWindow(g, [&](int64_t k, std::span<const int64_t> window) {
        if constexpr (IsFloatingStorage<T>) {
          if (spec.average) {
            // SAME and VALID windows always hold an input element; the sum is rounded once.
            double sum = 0;
            for (int64_t i : window) sum += ToDouble(in[i]);
            o[k] = FromDouble<T>(sum / static_cast<double>(window.size()));
            return;
          }
        }
        o[k] = WindowMax(in, window);
      });
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// A gradient being summed into an input-shaped tensor of T: floats in double, rounded once per
// element by Store; integers modulo 2^bits, as TensorFlow's += wraps.
template <typename T>
class GradientSum {
 public:
  using Sum = std::conditional_t<IsFloatingStorage<T>, double, uint64_t>;

  explicit GradientSum(int64_t n) : sum_(n, Sum{0}) {}
  static Sum Widen(T v) {
    if constexpr (IsFloatingStorage<T>) {
      return ToDouble(v);
    } else {
      return static_cast<uint64_t>(v);
    }
  }
  void Add(int64_t i, Sum v) { sum_[i] += v; }
  void Store(T* out) const {
    for (size_t i = 0; i < sum_.size(); ++i) {
      if constexpr (IsFloatingStorage<T>) {
        out[i] = FromDouble<T>(sum_[i]);
      } else {
        out[i] = static_cast<T>(sum_[i]);
      }
    }
  }

 private:
  std::vector<Sum> sum_;
};

// MaxPoolGrad(orig_input, orig_output, grad) and MaxPoolGradV2(..., ksize, strides): each
// grad element goes to the first maximal element of its window in orig_input (TensorFlow's CPU
// kernel finds the maxima again and reads orig_output only for its shape).
absl::Status MaxPoolGradKernel(KernelContext& ctx, int window_inputs) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, window_inputs < 0 ? 3 : 5));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, kRealNumberTypes));
  const Tensor& x = ctx.input(0);
  for (int i : {1, 2}) {
    if (ctx.input(i).dtype() != x.dtype()) {
      return ctx.Error(absl::StrCat(i == 1 ? "orig_output" : "grad",
                                    " must have orig_input's dtype ", DTypeName(x.dtype()),
                                    ", got ", ctx.input(i).DebugType()));
    }
  }
  // MaxPoolGradV2, like MaxPoolV2, has no EXPLICIT padding.
  const WindowOpKind kind{.spatial_rank = 2,
                          .has_ksize = true,
                          .has_dilations = false,
                          .allows_explicit = window_inputs < 0};
  DFC_ASSIGN_OR_RETURN(WindowAttrs attrs, ReadPoolAttrs(ctx, kind, window_inputs));
  DFC_ASSIGN_OR_RETURN(PoolGeometry g, MakeGeometry(ctx, attrs, x.shape(), "orig_input"));
  for (int i : {1, 2}) {
    if (ctx.input(i).shape() != g.output) {
      return ctx.Error(absl::StrCat(i == 1 ? "orig_output" : "grad",
                                    " must have the pool's output shape ", ShapeToString(g.output),
                                    " (from orig_input ", x.DebugType(), "), got ",
                                    ctx.input(i).DebugType()));
    }
  }
  const Tensor& grad = ctx.input(2);
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, x.dtype(), x.shape()));
  DispatchDType(x.dtype(), [&]<typename T>() {
    if constexpr (!kIsBool<T>) {
      const T* in = x.data<T>();
      const T* dy = grad.data<T>();
      GradientSum<T> dx(x.num_elements());
      ForEachWindow(g, [&](int64_t k, std::span<const int64_t> window) {
        const int64_t arg = WindowArgmax(in, window);
        if (arg >= 0) dx.Add(arg, GradientSum<T>::Widen(dy[k]));
      });
      dx.Store(out.mutable_data<T>());
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// AvgPoolGrad(orig_input_shape, grad): each grad element, divided by its window's in-bounds
// count, is added to every in-bounds element of the window.
absl::Status AvgPoolGradKernel(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, {DType::kInt32}));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 1, kFloatTypes));
  const WindowOpKind kind{.spatial_rank = 2, .has_ksize = true, .has_dilations = false};
  DFC_ASSIGN_OR_RETURN(WindowAttrs attrs, ReadWindowAttrs(ctx.node(), kind));
  if (ctx.input(0).rank() != 1) {
    return ctx.Error(
        absl::StrCat("orig_input_shape must be a vector, got ", ctx.input(0).DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ReadIndexVector(ctx, 0, "orig_input_shape"));
  const Shape shape(dims.begin(), dims.end());
  for (int64_t d : shape) {
    if (d < 0) {
      return ctx.Error(
          absl::StrCat("orig_input_shape ", ShapeToString(shape), " has a negative dimension"));
    }
  }
  DFC_ASSIGN_OR_RETURN(PoolGeometry g, MakeGeometry(ctx, attrs, shape, "orig_input_shape"));
  const Tensor& grad = ctx.input(1);
  if (grad.shape() != g.output) {
    return ctx.Error(absl::StrCat("grad must have the pool's output shape ",
                                  ShapeToString(g.output), " (from orig_input_shape ",
                                  ShapeToString(shape), "), got ", grad.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, grad.dtype(), shape));
  DispatchDType(grad.dtype(), [&]<typename T>() {
    if constexpr (IsFloatingStorage<T>) {
      const T* dy = grad.data<T>();
      GradientSum<T> dx(out.num_elements());
      ForEachWindow(g, [&](int64_t k, std::span<const int64_t> window) {
        const double share = ToDouble(dy[k]) / static_cast<double>(window.size());
        for (int64_t i : window) dx.Add(i, share);
      });
      dx.Store(out.mutable_data<T>());
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// MaxPoolWithArgmax(input) -> (output, argmax), NHWC only: argmax is the flat NHWC offset of
// the window's first maximum, ((b * H + y) * W + x) * C + c with include_batch_in_index, else
// (y * W + x) * C + c.
absl::Status MaxPoolWithArgmaxKernel(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, kRealNumberTypes));
  const WindowOpKind kind{
      .spatial_rank = 2, .has_ksize = true, .has_dilations = false, .allows_channels_first = false};
  DFC_ASSIGN_OR_RETURN(WindowAttrs attrs, ReadWindowAttrs(ctx.node(), kind));
  DFC_ASSIGN_OR_RETURN(DType targmax, ctx.node().GetType("Targmax", DType::kInt64));
  if (targmax != DType::kInt32 && targmax != DType::kInt64) {
    return ctx.Error(absl::StrCat("Targmax must be int32 or int64, got ", DTypeName(targmax)));
  }
  DFC_ASSIGN_OR_RETURN(bool include_batch, ctx.node().GetBool("include_batch_in_index", false));
  const Tensor& x = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(PoolGeometry g, MakeGeometry(ctx, attrs, x.shape(), "input"));
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, x.dtype(), g.output));
  DFC_ASSIGN_OR_RETURN(Tensor argmax, AllocateOutput(ctx, targmax, g.output));
  const int64_t image_size = x.dim(1) * x.dim(2) * x.dim(3);  // H W C: rank 4 was checked
  DispatchDType(x.dtype(), [&]<typename T>() {
    if constexpr (!kIsBool<T>) {
      const T* in = x.data<T>();
      T* o = out.mutable_data<T>();
      ForEachWindow(g, [&](int64_t k, std::span<const int64_t> window) {
        // SAME and VALID windows are never empty.
        const int64_t arg = WindowArgmax(in, window);
        o[k] = in[arg];
        const int64_t index = include_batch ? arg : arg % image_size;
        if (targmax == DType::kInt64) {
          argmax.mutable_data<int64_t>()[k] = index;
        } else {
          argmax.mutable_data<int32_t>()[k] = static_cast<int32_t>(index);
        }
      });
    }
  });
  ctx.set_output(0, std::move(out));
  ctx.set_output(1, std::move(argmax));
  return absl::OkStatus();
}

}  // namespace

void RegisterPoolingKernels(KernelRegistry& registry) {
  const auto pool = [&registry](absl::string_view op, PoolSpec spec) {
    registry.Register(op, [spec](KernelContext& ctx) { return PoolKernel(ctx, spec); });
  };
  pool("MaxPool", {.allows_explicit = true, .dtypes = kRealNumberTypes});
  pool("MaxPoolV2", {.window_inputs = 1, .dtypes = kRealNumberTypes});
  pool("AvgPool", {.average = true, .dtypes = kFloatTypes});
  pool("MaxPool3D", {.spatial_rank = 3, .dtypes = kMaxPool3DDTypes});
  pool("AvgPool3D", {.average = true, .spatial_rank = 3, .dtypes = kFloatTypes});
  registry.Register("MaxPoolGrad", [](KernelContext& ctx) { return MaxPoolGradKernel(ctx, -1); });
  registry.Register("MaxPoolGradV2", [](KernelContext& ctx) { return MaxPoolGradKernel(ctx, 3); });
  registry.Register("AvgPoolGrad", AvgPoolGradKernel);
  registry.Register("MaxPoolWithArgmax", MaxPoolWithArgmaxKernel);
}

}  // namespace dfc::reference
