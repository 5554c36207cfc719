// Reference kernels: convolutions, their gradients, and ExtractImagePatches.
//
//   forward          Conv2D  Conv3D  DepthwiseConv2dNative                       y  = x (*) filter
//   input gradient   Conv2DBackpropInput  Conv3DBackpropInputV2
//                    DepthwiseConv2dNativeBackpropInput (also conv2d_transpose)  dx from filter, dy
//   filter gradient  Conv2DBackpropFilter  Conv3DBackpropFilterV2
//                    DepthwiseConv2dNativeBackpropFilter                         df from x, dy
//
// All of them are one walk over window.h's geometry, with any number of spatial dimensions: for
// every batch n, output position o and window tap k, the input position o * stride - pad_before
// + k * dilation. Padding reads zero, so taps that land outside x add nothing and are skipped.
// The forward op sums x * filter into y[o]; the input gradient sums dy[o] * filter into dx at
// the position that was read; the filter gradient sums x * dy[o] into the tap. Each is formed
// directly (no transposed filters, no im2col), accumulated in double and rounded once per output
// element; int32 sums wrap modulo 2^32.
//
// Channels: a filter [window..., depth, out] whose depth divides the input's C channels is a
// grouped convolution of C / depth groups: output channel co reads input channels
// group(co) * depth + [0, depth). A depthwise filter [window..., C, multiplier] holds the same
// bytes as [window..., 1, C * multiplier]: C groups of depth 1, output channel c * multiplier + m.
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/dtype_class.h"
#include "graph/op_semantics/window.h"
#include "runtime/reference/elementwise_util.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"
#include "runtime/reference/reduction_util.h"

namespace dfc::reference {
namespace {

enum class Pass { kForward, kInputGrad, kFilterGrad };

// What a convolution op is: which pass, over how many spatial dimensions, and what it accepts.
struct ConvOp {
  Pass pass = Pass::kForward;
  int spatial_rank = 2;
  bool depthwise = false;
  bool allows_explicit = false;     // the Conv2D and depthwise families
  bool allows_int32 = false;        // Conv2D and Conv2DBackpropInput (TensorFlow registers int32)
  bool spatial_only_sizes = false;  // Conv2DBackpropInput: input_sizes may be just [H, W]
};

// A convolution's sizes, in the forward op's terms: x [batch, spatial..., C] and y [batch,
// spatial..., out_channels] in data_format's order, filter [window..., depth, out] (depthwise:
// [window..., C, multiplier]).
struct ConvGeometry {
  WindowAttrs attrs;
  Shape x_shape;
  Shape filter_shape;
  Shape y_shape;
  std::vector<int64_t> window;      // per spatial dimension
  std::vector<int64_t> pad_before;  // per spatial dimension
  int64_t depth = 0;                // input channels each output channel reads
  int64_t out_channels = 0;
  int64_t out_per_group = 0;
};

// The walk of a window over x, with x's and y's strides in elements.
struct WindowWalk {
  int64_t batch = 0;
  std::vector<int64_t> input, output, window, stride, dilation, pad_before;  // per spatial dim
  int64_t x_batch_stride = 0;
  int64_t y_batch_stride = 0;
  std::vector<int64_t> x_strides, y_strides;  // per spatial dim
};

WindowWalk MakeWalk(const WindowAttrs& attrs, const Shape& x_shape, const Shape& y_shape,
                    const std::vector<int64_t>& window, const std::vector<int64_t>& pad_before) {
  const std::vector<int64_t> xs = Strides(x_shape);
  const std::vector<int64_t> ys = Strides(y_shape);
  WindowWalk w{.batch = x_shape[attrs.batch_dim()],
               .window = window,
               .pad_before = pad_before,
               .x_batch_stride = xs[attrs.batch_dim()],
               .y_batch_stride = ys[attrs.batch_dim()]};
  for (int i = 0; i < attrs.spatial_rank(); ++i) {
    const int d = attrs.spatial_dim(i);
    w.input.push_back(x_shape[d]);
    w.output.push_back(y_shape[d]);
    w.stride.push_back(attrs.strides[d]);
    w.dilation.push_back(attrs.dilations[d]);
    w.x_strides.push_back(xs[d]);
    w.y_strides.push_back(ys[d]);
  }
  return w;
}

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// Advances a row-major multi-index over `extents` by one.
void Step(std::vector<int64_t>& index, const std::vector<int64_t>& extents) {
  for (int d = static_cast<int>(index.size()) - 1; d >= 0; --d) {
    if (++index[d] < extents[d]) return;
    index[d] = 0;
  }
}

// Calls fn(x_base, y_base, tap) for every batch, output position and window tap (`tap` its
// row-major index in the window) whose input position lies inside x; x_base and y_base are the
// offsets of channel 0 at the input and output positions.
template <typename Fn>
void ForEachTap(const WindowWalk& w, Fn&& fn) {
  const int rank = static_cast<int>(w.input.size());
  const int64_t outputs = Product(w.output);
  const int64_t taps = Product(w.window);
  std::vector<int64_t> o(rank, 0);
  std::vector<int64_t> k(rank, 0);
  for (int64_t n = 0; n < w.batch; ++n) {
    std::fill(o.begin(), o.end(), 0);
    for (int64_t oi = 0; oi < outputs; ++oi, Step(o, w.output)) {
      int64_t y_base = n * w.y_batch_stride;
      for (int d = 0; d < rank; ++d) y_base += o[d] * w.y_strides[d];
      std::fill(k.begin(), k.end(), 0);
      for (int64_t tap = 0; tap < taps; ++tap, Step(k, w.window)) {
        int64_t x_base = n * w.x_batch_stride;
        bool inside = true;
        for (int d = 0; d < rank && inside; ++d) {
          const int64_t p = o[d] * w.stride[d] - w.pad_before[d] + k[d] * w.dilation[d];
          inside = p >= 0 && p < w.input[d];
          x_base += p * w.x_strides[d];
        }
        if (inside) fn(x_base, y_base, tap);
      }
    }
  }
}

// One pass of the convolution of `g`: reads two of x, filter and y (the forward pass reads x
// and the filter, the input gradient the filter and dy, the filter gradient x and dy) and
// writes the third to `result`, which has `size` elements.
template <Pass pass, typename T>
void Convolve(const ConvGeometry& g, const T* x, const T* filter, const T* y, T* result,
              int64_t size) {
  using Acc = std::conditional_t<IsFloatingStorage<T>, double, uint64_t>;
  const auto up = [](T v) -> Acc {
    if constexpr (IsFloatingStorage<T>) {
      return ToDouble(v);
    } else {
      return static_cast<Acc>(static_cast<int64_t>(v));  // modulo 2^64: products wrap as TF's
    }
  };
  std::vector<Acc> sum(size, Acc{0});
  const WindowAttrs& a = g.attrs;
  const int64_t x_channel_stride = Strides(g.x_shape)[a.channel_dim()];
  const int64_t y_channel_stride = Strides(g.y_shape)[a.channel_dim()];
  const int64_t out = g.out_channels;
  ForEachTap(MakeWalk(a, g.x_shape, g.y_shape, g.window, g.pad_before),
             [&](int64_t x_base, int64_t y_base, int64_t tap) {
               const int64_t filter_tap = tap * g.depth * out;
               for (int64_t co = 0; co < out; ++co) {
                 const int64_t first_in = (co / g.out_per_group) * g.depth;
                 const int64_t yo = y_base + co * y_channel_stride;
                 for (int64_t fi = 0; fi < g.depth; ++fi) {
                   const int64_t xo = x_base + (first_in + fi) * x_channel_stride;
                   const int64_t fo = filter_tap + fi * out + co;
                   if constexpr (pass == Pass::kForward) {
                     sum[yo] += up(x[xo]) * up(filter[fo]);
                   } else if constexpr (pass == Pass::kInputGrad) {
                     sum[xo] += up(y[yo]) * up(filter[fo]);
                   } else {
                     sum[fo] += up(x[xo]) * up(y[yo]);
                   }
                 }
               }
             });
  for (int64_t i = 0; i < size; ++i) {
    if constexpr (IsFloatingStorage<T>) {
      result[i] = FromDouble<T>(sum[i]);
    } else {
      result[i] = static_cast<T>(sum[i]);
    }
  }
}

std::string FormatName(const ConvOp& op, const WindowAttrs& attrs) {
  return DataFormatName(attrs.format, op.spatial_rank);
}

// Checks x's and the filter's shapes against each other and the window attributes and works
// out y's. `x_name` names x in errors ("input", or "input_sizes" for an input gradient).
absl::StatusOr<ConvGeometry> MakeGeometry(const KernelContext& ctx, const ConvOp& op,
                                          const WindowAttrs& attrs, const Shape& x_shape,
                                          absl::string_view x_name, const Shape& filter_shape,
                                          absl::string_view filter_name) {
  const int r = op.spatial_rank;
  const std::string format = FormatName(op, attrs);
  if (static_cast<int>(x_shape.size()) != r + 2) {
    return ctx.Error(absl::StrCat(x_name, " must have rank ", r + 2, " (", format, "), got ",
                                  ShapeToString(x_shape)));
  }
  if (static_cast<int>(filter_shape.size()) != r + 2) {
    return ctx.Error(absl::StrCat(
        filter_name, " must have rank ", r + 2, " ([", r == 3 ? "depth, " : "", "height, width, ",
        op.depthwise ? "in_channels, multiplier" : "in_channels, out_channels", "]), got ",
        ShapeToString(filter_shape)));
  }
  ConvGeometry g{.attrs = attrs, .x_shape = x_shape, .filter_shape = filter_shape};
  const int64_t channels = x_shape[attrs.channel_dim()];
  const int64_t filter_in = filter_shape[r];
  const int64_t filter_out = filter_shape[r + 1];
  const std::string shapes = absl::StrCat("(", x_name, " ", ShapeToString(x_shape), " in ", format,
                                          ", ", filter_name, " ", ShapeToString(filter_shape), ")");
  if (op.depthwise) {
    if (filter_in != channels) {
      return ctx.Error(absl::StrCat("the filter's in_channels (", filter_in,
                                    ") must equal the input's channels (", channels, ") ", shapes));
    }
    g.depth = 1;
    g.out_channels = channels * filter_out;
    g.out_per_group = filter_out;
  } else {
    if (filter_in <= 0 || channels < filter_in || channels % filter_in != 0) {
      return ctx.Error(absl::StrCat("the input's channels (", channels,
                                    ") must be a positive multiple of the filter's in_channels (",
                                    filter_in, ") ", shapes));
    }
    const int64_t groups = channels / filter_in;
    if (filter_out % groups != 0) {
      return ctx.Error(absl::StrCat("the filter's out_channels (", filter_out,
                                    ") must be a multiple of the number of groups (", groups,
                                    " = input channels / filter in_channels) ", shapes));
    }
    g.depth = filter_in;
    g.out_channels = filter_out;
    g.out_per_group = filter_out / groups;
  }
  g.y_shape = x_shape;
  g.y_shape[attrs.channel_dim()] = g.out_channels;
  for (int i = 0; i < r; ++i) {
    const int d = attrs.spatial_dim(i);
    absl::StatusOr<WindowSize> size =
        ComputeWindow(attrs.Dim(i, x_shape[d], filter_shape[i]), attrs.padding);
    if (!size.ok()) {
      return ctx.Error(
          absl::StrCat("spatial dimension ", i, " ", shapes, ": ", size.status().message()));
    }
    g.window.push_back(filter_shape[i]);
    g.pad_before.push_back(size->pad_before);
    g.y_shape[d] = size->output;
  }
  return g;
}

// The sizes in input `i` (input_sizes, filter_sizes): non-negative, one per dimension.
absl::StatusOr<Shape> ReadSizes(const KernelContext& ctx, int i, absl::string_view what, int rank) {
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ReadIndexVector(ctx, i, what));
  if (ctx.input(i).rank() != 1 || static_cast<int>(sizes.size()) != rank) {
    return ctx.Error(
        absl::StrCat(what, " must be a vector of ", rank, " sizes, got ", ctx.input(i).Preview()));
  }
  for (int64_t s : sizes) {
    if (s < 0) {
      return ctx.Error(absl::StrCat(what, " must not be negative, got ", ctx.input(i).Preview()));
    }
  }
  return Shape(sizes.begin(), sizes.end());
}

absl::Status CheckConvDType(const KernelContext& ctx, const ConvOp& op, int i) {
  if (op.allows_int32) {
    return CheckDType(ctx, i, {DType::kHalf, DType::kFloat, DType::kDouble, DType::kInt32});
  }
  return CheckFloating(ctx, i);
}

absl::Status CheckSameDType(const KernelContext& ctx, int i, int j, absl::string_view name_i,
                            absl::string_view name_j) {
  if (ctx.input(i).dtype() == ctx.input(j).dtype()) return absl::OkStatus();
  return ctx.Error(absl::StrCat(name_i, " and ", name_j, " must have the same dtype, got ",
                                ctx.input(i).DebugType(), " and ", ctx.input(j).DebugType()));
}

// x's shape for an input gradient: input_sizes, or for Conv2DBackpropInput's [H, W] form the
// batch of out_backprop and the channels of the filter.
absl::StatusOr<Shape> InputGradShape(const KernelContext& ctx, const ConvOp& op,
                                     const WindowAttrs& attrs) {
  const int rank = op.spatial_rank + 2;
  const Tensor& sizes = ctx.input(0);
  const Tensor& filter = ctx.input(1);
  const Tensor& dy = ctx.input(2);
  if (!op.spatial_only_sizes || sizes.num_elements() != op.spatial_rank) {
    return ReadSizes(ctx, 0, "input_sizes", rank);
  }
  DFC_ASSIGN_OR_RETURN(Shape spatial, ReadSizes(ctx, 0, "input_sizes", op.spatial_rank));
  if (dy.rank() != rank || filter.rank() != rank) {
    return ctx.Error(absl::StrCat("filter and out_backprop must have rank ", rank, ", got ",
                                  filter.DebugType(), " and ", dy.DebugType()));
  }
  Shape x_shape(rank);
  x_shape[attrs.batch_dim()] = dy.dim(attrs.batch_dim());
  x_shape[attrs.channel_dim()] = filter.dim(op.spatial_rank);
  for (int i = 0; i < op.spatial_rank; ++i) x_shape[attrs.spatial_dim(i)] = spatial[i];
  return x_shape;
}

// Fails unless out_backprop (input 2) has the shape the forward op gives y.
absl::Status CheckOutBackprop(const KernelContext& ctx, const ConvOp& op, const ConvGeometry& g) {
  const Tensor& dy = ctx.input(2);
  if (dy.shape() == g.y_shape) return absl::OkStatus();
  return ctx.Error(absl::StrCat(
      "out_backprop is ", dy.DebugType(), ", expected ", ShapeToString(g.y_shape),
      " (the output in ", FormatName(op, g.attrs), " of input ", ShapeToString(g.x_shape),
      " and filter ", ShapeToString(g.filter_shape), " under these strides and padding)"));
}

absl::Status RunConv(KernelContext& ctx, const ConvOp& op) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3 - (op.pass == Pass::kForward)));
  DFC_ASSIGN_OR_RETURN(WindowAttrs attrs,
                       ReadWindowAttrs(ctx.node(), {.spatial_rank = op.spatial_rank,
                                                    .allows_explicit = op.allows_explicit}));

  // The inputs each pass reads, by name, and the shapes of x and the filter.
  const Tensor* x = nullptr;
  const Tensor* filter = nullptr;
  const Tensor* dy = nullptr;
  absl::StatusOr<ConvGeometry> g;
  switch (op.pass) {
    case Pass::kForward: {
      DFC_RETURN_IF_ERROR(CheckConvDType(ctx, op, 0));
      DFC_RETURN_IF_ERROR(CheckSameDType(ctx, 0, 1, "input", "filter"));
      x = &ctx.input(0);
      filter = &ctx.input(1);
      g = MakeGeometry(ctx, op, attrs, x->shape(), "input", filter->shape(), "filter");
      break;
    }
    case Pass::kInputGrad: {
      DFC_RETURN_IF_ERROR(CheckConvDType(ctx, op, 1));
      DFC_RETURN_IF_ERROR(CheckSameDType(ctx, 1, 2, "filter", "out_backprop"));
      filter = &ctx.input(1);
      dy = &ctx.input(2);
      DFC_ASSIGN_OR_RETURN(Shape x_shape, InputGradShape(ctx, op, attrs));
      g = MakeGeometry(ctx, op, attrs, x_shape, "input_sizes", filter->shape(), "filter");
      break;
    }
    case Pass::kFilterGrad: {
      DFC_RETURN_IF_ERROR(CheckConvDType(ctx, op, 0));
      DFC_RETURN_IF_ERROR(CheckSameDType(ctx, 0, 2, "input", "out_backprop"));
      x = &ctx.input(0);
      dy = &ctx.input(2);
      DFC_ASSIGN_OR_RETURN(Shape filter_shape,
                           ReadSizes(ctx, 1, "filter_sizes", op.spatial_rank + 2));
      g = MakeGeometry(ctx, op, attrs, x->shape(), "input", filter_shape, "filter_sizes");
      break;
    }
  }
  DFC_RETURN_IF_ERROR(g.status());
  if (dy != nullptr) {
    DFC_RETURN_IF_ERROR(CheckOutBackprop(ctx, op, *g));
  }

  const DType dtype = (x != nullptr ? x : filter)->dtype();
  const Shape& out_shape = op.pass == Pass::kForward     ? g->y_shape
                           : op.pass == Pass::kInputGrad ? g->x_shape
                                                         : g->filter_shape;
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, dtype, out_shape));
  if (out.num_elements() > 0) {
    DispatchDType(dtype, [&]<typename T>() {
      if constexpr (IsFloatingStorage<T> || std::is_same_v<T, int32_t>) {
        const T* xd = x != nullptr ? x->data<T>() : nullptr;
        const T* fd = filter != nullptr ? filter->data<T>() : nullptr;
        const T* yd = dy != nullptr ? dy->data<T>() : nullptr;
        T* od = out.mutable_data<T>();
        const int64_t n = out.num_elements();
        switch (op.pass) {
          case Pass::kForward:
            Convolve<Pass::kForward, T>(*g, xd, fd, yd, od, n);
            break;
          case Pass::kInputGrad:
            Convolve<Pass::kInputGrad, T>(*g, xd, fd, yd, od, n);
            break;
          case Pass::kFilterGrad:
            Convolve<Pass::kFilterGrad, T>(*g, xd, fd, yd, od, n);
            break;
        }
      }
    });
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

KernelFn ConvKernel(ConvOp op) {
  return [op](KernelContext& ctx) { return RunConv(ctx, op); };
}

// ExtractImagePatches: y[n, o..., (k, c)] = x[n, o * stride - pad + k * rate, c], or zero where
// that position is padding; the depth of y runs over the window's taps row-major, then channels.
// A copy, so any dtype.
absl::Status ExtractImagePatchesKernel(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckClass(ctx, 0, kAll));
  for (const char* required : {"ksizes", "rates"}) {
    if (!ctx.node().attrs.contains(required)) {
      return ctx.Error(absl::StrCat("missing attribute \"", required, "\""));
    }
  }
  DFC_ASSIGN_OR_RETURN(WindowAttrs attrs,
                       ReadWindowAttrs(ctx.node(), {.has_ksize = true,
                                                    .allows_channels_first = false,
                                                    .ksize_attr = "ksizes",
                                                    .dilations_attr = "rates"}));
  const Tensor& x = ctx.input(0);
  const int r = attrs.spatial_rank();
  if (x.rank() != r + 2) {
    return ctx.Error(absl::StrCat("images must have rank ", r + 2, " (",
                                  DataFormatName(attrs.format, r), "), got ", x.DebugType()));
  }
  const int64_t channels = x.dim(attrs.channel_dim());
  std::vector<int64_t> window;
  std::vector<int64_t> pad_before;
  Shape y_shape = x.shape();
  for (int i = 0; i < r; ++i) {
    const int d = attrs.spatial_dim(i);
    absl::StatusOr<WindowSize> size =
        ComputeWindow(attrs.Dim(i, x.dim(d), attrs.ksize[d]), attrs.padding);
    if (!size.ok()) {
      return ctx.Error(absl::StrCat("spatial dimension ", i, " of images ", x.DebugType(), ": ",
                                    size.status().message()));
    }
    window.push_back(attrs.ksize[d]);
    pad_before.push_back(size->pad_before);
    y_shape[d] = size->output;
  }
  y_shape[attrs.channel_dim()] = Product(window) * channels;
  DFC_ASSIGN_OR_RETURN(Tensor y, AllocateOutput(ctx, x.dtype(), y_shape));
  if (y.num_elements() > 0 && channels > 0) {
    // Channels are last and contiguous in both x and y: one copy of C elements per tap.
    const size_t element = SizeOf(x.dtype());
    const auto* from = static_cast<const unsigned char*>(x.raw_data());
    auto* to = static_cast<unsigned char*>(y.mutable_raw_data());
    ForEachTap(MakeWalk(attrs, x.shape(), y_shape, window, pad_before),
               [&](int64_t x_base, int64_t y_base, int64_t tap) {
                 std::memcpy(to + (y_base + tap * channels) * element, from + x_base * element,
                             channels * element);
               });
  }
  ctx.set_output(0, std::move(y));
  return absl::OkStatus();
}

}  // namespace

void RegisterConvolutionKernels(KernelRegistry& registry) {
  constexpr ConvOp k2D{.spatial_rank = 2, .allows_explicit = true};
  constexpr ConvOp kDepthwise{.spatial_rank = 2, .depthwise = true, .allows_explicit = true};
  constexpr ConvOp k3D{.spatial_rank = 3};
  const auto with = [](ConvOp op, Pass pass) {
    op.pass = pass;
    return op;
  };
  ConvOp conv2d = with(k2D, Pass::kForward);
  conv2d.allows_int32 = true;
  ConvOp conv2d_input = with(k2D, Pass::kInputGrad);
  conv2d_input.allows_int32 = true;
  conv2d_input.spatial_only_sizes = true;
  registry.Register("Conv2D", ConvKernel(conv2d));
  registry.Register("Conv2DBackpropInput", ConvKernel(conv2d_input));
  registry.Register("Conv2DBackpropFilter", ConvKernel(with(k2D, Pass::kFilterGrad)));
  registry.Register("DepthwiseConv2dNative", ConvKernel(with(kDepthwise, Pass::kForward)));
  registry.Register("DepthwiseConv2dNativeBackpropInput",
                    ConvKernel(with(kDepthwise, Pass::kInputGrad)));
  registry.Register("DepthwiseConv2dNativeBackpropFilter",
                    ConvKernel(with(kDepthwise, Pass::kFilterGrad)));
  registry.Register("Conv3D", ConvKernel(with(k3D, Pass::kForward)));
  registry.Register("Conv3DBackpropInputV2", ConvKernel(with(k3D, Pass::kInputGrad)));
  registry.Register("Conv3DBackpropFilterV2", ConvKernel(with(k3D, Pass::kFilterGrad)));
  registry.Register("ExtractImagePatches", ExtractImagePatchesKernel);
}

}  // namespace dfc::reference
