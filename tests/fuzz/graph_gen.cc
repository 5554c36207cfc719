// Random valid graphs for the differential fuzzer (see graph_gen.h).
#include "tests/fuzz/graph_gen.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/op_semantics/window.h"

namespace dfc::fuzz {

int Choices::Below(int n) {
  if (n <= 1) return 0;
  // One byte for fewer than 256 options: a mutated byte changes one choice.
  uint32_t value = 0;
  const int bytes = n <= 256 ? 1 : 2;
  for (int k = 0; k < bytes && position_ < size_; ++k) value = (value << 8) | data_[position_++];
  return static_cast<int>(value % static_cast<uint32_t>(n));
}

uint64_t Choices::Seed() {
  uint64_t seed = 0;
  for (int k = 0; k < 8 && position_ < size_; ++k) seed = (seed << 8) | data_[position_++];
  return seed;
}

namespace {

// Small enough that the reference executor runs a graph in milliseconds.
constexpr int64_t kMaxElements = 4096;
// Values whose magnitude could exceed this go through Tanh first (see graph_gen.h).
constexpr double kMaxBound = 1e4;
// A convolution's filter is a constant written out in the graph's text: a few thousand floats.
constexpr int64_t kMaxFilterElements = 1024;

int64_t Elements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int Rank(const Shape& shape) { return static_cast<int>(shape.size()); }

// A value of the graph: a node's output, its static shape and a bound on its magnitude.
struct Value {
  std::string name;
  Shape shape;
  double bound = 1;
};

std::string ShapeProto(const Shape& shape, bool unknown_first) {
  std::string text = "shape {";
  for (size_t k = 0; k < shape.size(); ++k) {
    absl::StrAppend(&text, " dim { size: ", k == 0 && unknown_first ? -1 : shape[k], " }");
  }
  return absl::StrCat(text, " }");
}

std::string TensorShapeProto(const Shape& shape) {
  std::string text = "tensor_shape {";
  for (int64_t d : shape) absl::StrAppend(&text, " dim { size: ", d, " }");
  return absl::StrCat(text, " }");
}

std::string TypeAttr(const std::string& key, const std::string& type) {
  return absl::StrCat(" attr { key: \"", key, "\" value { type: ", type, " } }");
}
std::string IntAttr(const std::string& key, int64_t value) {
  return absl::StrCat(" attr { key: \"", key, "\" value { i: ", value, " } }");
}
std::string BoolAttr(const std::string& key, bool value) {
  return absl::StrCat(" attr { key: \"", key, "\" value { b: ", value ? "true" : "false", " } }");
}
std::string FloatAttr(const std::string& key, double value) {
  return absl::StrCat(" attr { key: \"", key, "\" value { f: ", value, " } }");
}
std::string StringAttr(const std::string& key, const std::string& value) {
  return absl::StrCat(" attr { key: \"", key, "\" value { s: \"", value, "\" } }");
}
std::string ListAttr(const std::string& key, const std::vector<int64_t>& values) {
  return absl::StrCat(" attr { key: \"", key,
                      "\" value { list { i: ", absl::StrJoin(values, " i: "), " } } }");
}
const std::string kFloatT = TypeAttr("T", "DT_FLOAT");

class Generator {
 public:
  explicit Generator(Choices& choices) : c_(choices), rng_(choices.Seed()) {}

  GeneratedGraph Run() {
    values_.push_back(NewPlaceholder(RandomShape()));
    const int ops = 1 + c_.Below(8);
    for (int k = 0; k < ops; ++k) {
      // Mostly a chain (each op on the last value), sometimes a branch from an earlier one.
      Value result = Op(c_.OneIn(3) ? c_.Pick(values_) : values_.back());
      if (result.bound > kMaxBound) result = Unary("Tanh", result, 1);
      values_.push_back(std::move(result));
    }
    out_.fetches.push_back(values_.back().name);
    // Sometimes an intermediate value too: a cluster must then keep it as an output.
    if (values_.size() > 2 && c_.OneIn(3)) {
      const std::string& extra = values_[1 + c_.Below(static_cast<int>(values_.size()) - 2)].name;
      out_.fetches.push_back(extra);
    }
    return std::move(out_);
  }

 private:
  std::string NewName(const std::string& op) { return absl::StrCat(op, "_", next_id_++); }

  void AddNode(const std::string& name, const std::string& op,
               const std::vector<std::string>& inputs, const std::string& attrs,
               const std::vector<std::string>& data_inputs) {
    absl::StrAppend(&out_.text, "node { name: \"", name, "\" op: \"", op, "\"");
    for (const std::string& input : inputs) absl::StrAppend(&out_.text, " input: \"", input, "\"");
    absl::StrAppend(&out_.text, attrs, " }\n");
    out_.nodes.push_back({name, data_inputs});
  }

  // A dimension: mostly small, sometimes 1 (to broadcast) and rarely 0.
  int64_t RandomDim() {
    static const std::vector<int64_t> kDims = {1, 2, 3, 4, 5, 7, 8, 13, 16, 1, 2, 3, 4, 6, 9, 0};
    return c_.Pick(kDims);
  }

  Shape RandomShape() {
    Shape shape(c_.Below(4));
    for (int64_t& d : shape) d = RandomDim();
    while (Elements(shape) > kMaxElements) shape.back() = 1 + shape.back() / 4;
    return shape;
  }

  Value NewPlaceholder(const Shape& shape) {
    const std::string name = NewName("input");
    const bool unknown_first = !shape.empty() && c_.OneIn(3);
    AddNode(name, "Placeholder", {},
            absl::StrCat(TypeAttr("dtype", "DT_FLOAT"), " attr { key: \"shape\" value { ",
                         ShapeProto(shape, unknown_first), " } }"),
            {});
    Tensor value = Tensor::Zeros(DType::kFloat, shape);
    std::uniform_real_distribution<float> uniform(-2, 2);
    float* data = value.mutable_data<float>();
    for (int64_t k = 0; k < value.num_elements(); ++k) data[k] = uniform(rng_);
    out_.feeds.push_back({.id = {name, 0}, .value = std::move(value)});
    return {name, shape, 2};
  }

  // A constant of values drawn from [low, high].
  Value NewFloatConst(const Shape& shape, double low, double high) {
    const std::string name = NewName("const");
    std::string values;
    std::uniform_real_distribution<float> uniform(static_cast<float>(low),
                                                  static_cast<float>(high));
    for (int64_t k = 0; k < Elements(shape); ++k) {
      absl::StrAppend(&values, " float_val: ", uniform(rng_));
    }
    AddNode(name, "Const", {},
            absl::StrCat(TypeAttr("dtype", "DT_FLOAT"), " attr { key: \"value\" value { tensor {",
                         " dtype: DT_FLOAT ", TensorShapeProto(shape), values, " } } }"),
            {});
    return {name, shape, std::max(std::fabs(low), std::fabs(high))};
  }

  // An int32 constant: axes, permutations, shapes, paddings.
  std::string NewIntConst(const std::vector<int64_t>& values, const Shape& shape) {
    const std::string name = NewName("ints");
    std::string text;
    for (int64_t v : values) absl::StrAppend(&text, " int_val: ", v);
    AddNode(name, "Const", {},
            absl::StrCat(TypeAttr("dtype", "DT_INT32"), " attr { key: \"value\" value { tensor {",
                         " dtype: DT_INT32 ", TensorShapeProto(shape), text, " } } }"),
            {});
    return name;
  }
  std::string NewIntVector(const std::vector<int64_t>& values) {
    return NewIntConst(values, {static_cast<int64_t>(values.size())});
  }

  // A new placeholder or constant of `shape` (operands that are neither exist already).
  Value NewLeaf(const Shape& shape) {
    if (c_.OneIn(3)) return NewPlaceholder(shape);
    const double bound = 1 + c_.Below(2);
    return NewFloatConst(shape, -bound, bound);
  }

  Value Unary(const std::string& op, const Value& x, double bound) {
    const std::string name = NewName(op);
    AddNode(name, op, {x.name}, kFloatT, {x.name});
    return {name, x.shape, bound};
  }

  Value Binary(const std::string& op, const Value& a, const Value& b, const Shape& shape,
               double bound) {
    const std::string name = NewName(op);
    AddNode(name, op, {a.name, b.name}, kFloatT, {a.name, b.name});
    return {name, shape, bound};
  }

  // `a` reshaped to `shape`, which has as many elements.
  Value Reshape(const Value& a, const Shape& shape) {
    std::vector<int64_t> spec = shape;
    // One dimension left for Reshape to infer, when the rest is not empty.
    if (!spec.empty() && c_.OneIn(2) && Elements(shape) > 0) spec[c_.Below(Rank(spec))] = -1;
    const std::string name = NewName("Reshape");
    AddNode(name, "Reshape", {a.name, NewIntVector(spec)},
            absl::StrCat(kFloatT, TypeAttr("Tshape", "DT_INT32")), {a.name});
    return {name, shape, a.bound};
  }

  // Abs(x) + 0.5: an operand for an op defined on positive numbers, at least 0.5.
  Value Positive(const Value& x) {
    const Value abs = Unary("Abs", x, x.bound);
    const std::string half = NewName("half");
    AddNode(half, "Const", {},
            absl::StrCat(TypeAttr("dtype", "DT_FLOAT"),
                         " attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape "
                         "{ } float_val: 0.5 } } }"),
            {});
    return Binary("AddV2", abs, {half, {}, 0.5}, x.shape, x.bound + 0.5);
  }

  // The result shape of broadcasting a with b, or false if they do not broadcast.
  static bool Broadcast(const Shape& a, const Shape& b, Shape& out) {
    const size_t rank = std::max(a.size(), b.size());
    out.assign(rank, 1);
    for (size_t k = 0; k < rank; ++k) {
      const int64_t da = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
      const int64_t db = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
      if (da != db && da != 1 && db != 1) return false;
      out[k] = da == 1 ? db : da;
    }
    return true;
  }

  // A second operand for an elementwise op on `a`: an existing value that broadcasts with it,
  // or a new leaf whose shape is a's with leading dimensions dropped, some set to 1, or, where
  // a has a 1, a larger one (so that a broadcasts too).
  Value SecondOperand(const Value& a) {
    if (c_.OneIn(3)) {
      const Value& b = c_.Pick(values_);
      Shape out;
      if (Broadcast(a.shape, b.shape, out) && Elements(out) <= kMaxElements) return b;
    }
    Shape shape(a.shape.begin() + c_.Below(Rank(a.shape) + 1), a.shape.end());
    for (int64_t& d : shape) {
      if (d == 1 && c_.OneIn(3)) {
        d = 2 + c_.Below(4);
      } else if (c_.OneIn(3)) {
        d = 1;
      }
    }
    if (c_.OneIn(6)) shape.insert(shape.begin(), 1 + c_.Below(3));
    Shape out;
    if (!Broadcast(a.shape, shape, out) || Elements(out) > kMaxElements) shape = a.shape;
    return NewLeaf(shape);
  }

  // `a` as an NHWC image: itself at rank 4, else reshaped to rank 4 by inserting 1s where the
  // choices say (from a lower rank) or by merging its leading dimensions (from a higher one).
  Value Image(const Value& a) {
    if (Rank(a.shape) == 4) return a;
    Shape shape = a.shape;
    while (Rank(shape) > 4) {
      shape[1] *= shape[0];
      shape.erase(shape.begin());
    }
    while (Rank(shape) < 4) shape.insert(shape.begin() + c_.Below(Rank(shape) + 1), 1);
    return Reshape(a, shape);
  }

  // The window of a convolution or a pool over the height and width of an NHWC image.
  struct Window {
    Padding padding = Padding::kSame;
    int64_t size[2] = {1, 1};
    int64_t stride[2] = {1, 1};
    int64_t dilation[2] = {1, 1};
    int64_t output[2] = {0, 0};

    // The op's attributes (strides, padding, data_format; with `ksize` for a pool).
    std::string Attrs(bool ksize) const {
      std::string attrs =
          absl::StrCat(ListAttr("strides", {1, stride[0], stride[1], 1}),
                       StringAttr("padding", padding == Padding::kSame ? "SAME" : "VALID"),
                       StringAttr("data_format", "NHWC"));
      if (ksize) absl::StrAppend(&attrs, ListAttr("ksize", {1, size[0], size[1], 1}));
      return attrs;
    }
  };

  // Windows of 1 to 3 with strides 1 or 2, SAME or VALID; where `dilate`, sometimes dilations
  // of 1 or 2 instead of strides (TensorFlow's CPU kernels take one or the other). A VALID
  // window is never larger than its input, and an empty image is padded SAME.
  Window RandomWindow(const Shape& image, bool dilate) {
    Window w;
    if (image[1] > 0 && image[2] > 0 && c_.OneIn(2)) w.padding = Padding::kValid;
    const bool dilated = dilate && c_.OneIn(3);
    for (int i = 0; i < 2; ++i) {
      const int64_t input = image[1 + i];
      w.size[i] = 1 + c_.Below(3);
      if (dilated) {
        w.dilation[i] = 1 + c_.Below(2);
      } else {
        w.stride[i] = 1 + c_.Below(2);
      }
      if (w.padding == Padding::kValid) {
        while ((w.size[i] - 1) * w.dilation[i] + 1 > input) --w.size[i];
      }
      // dfc's one copy of TensorFlow's window arithmetic; the window fits by construction.
      w.output[i] = ComputeWindow({.input = input,
                                   .window = w.size[i],
                                   .stride = w.stride[i],
                                   .dilation = w.dilation[i]},
                                  w.padding)
                        .value()
                        .output;
    }
    return w;
  }

  // Conv2D (then, sometimes, BiasAdd) or DepthwiseConv2dNative of an NHWC image, with a filter
  // [height, width, in_channels, out_channels or multiplier] that is mostly a constant. Each
  // output sums products of an input and a filter element over the window (and, for Conv2D,
  // the channels), hence its bound. Nothing when x has no channels (TensorFlow refuses a filter
  // with none) or so many that the filter would be large.
  std::optional<Value> Convolution(const Value& x, bool depthwise) {
    const int64_t channels = x.shape[3];
    if (channels == 0) return std::nullopt;
    const Window w = RandomWindow(x.shape, /*dilate=*/!depthwise);
    const int64_t taps = w.size[0] * w.size[1] * channels;
    const int64_t pixels = x.shape[0] * w.output[0] * w.output[1];
    // Output channels (or the multiplier), fewer where the output or the filter would be large.
    int64_t out = depthwise ? 1 + c_.Below(2) : 1 + c_.Below(8);
    auto out_channels = [&](int64_t n) { return depthwise ? channels * n : n; };
    while (out > 1 &&
           (pixels * out_channels(out) > kMaxElements || taps * out > kMaxFilterElements)) {
      --out;
    }
    if (taps * out > kMaxFilterElements) return std::nullopt;
    const Shape filter_shape = {w.size[0], w.size[1], channels, out};
    const Value filter =
        c_.OneIn(4) ? NewPlaceholder(filter_shape) : NewFloatConst(filter_shape, -1, 1);
    std::string attrs = absl::StrCat(kFloatT, w.Attrs(/*ksize=*/false));
    if (w.dilation[0] > 1 || w.dilation[1] > 1 || c_.OneIn(2)) {
      absl::StrAppend(&attrs, ListAttr("dilations", {1, w.dilation[0], w.dilation[1], 1}));
    }
    const std::string op = depthwise ? "DepthwiseConv2dNative" : "Conv2D";
    const std::string name = NewName(op);
    AddNode(name, op, {x.name, filter.name}, attrs, {x.name, filter.name});
    const int64_t summed = depthwise ? w.size[0] * w.size[1] : taps;
    Value y{name,
            {x.shape[0], w.output[0], w.output[1], out_channels(out)},
            x.bound * filter.bound * static_cast<double>(summed)};
    if (!depthwise && c_.OneIn(2)) {
      const Value bias = NewLeaf({out});
      y = Binary("BiasAdd", y, bias, y.shape, y.bound + bias.bound);
    }
    return y;
  }

  // MaxPool or AvgPool of an NHWC image: the largest or the mean element of each window.
  Value Pool(const std::string& op, const Value& x) {
    const Window w = RandomWindow(x.shape, /*dilate=*/false);
    const std::string name = NewName(op);
    AddNode(name, op, {x.name}, absl::StrCat(kFloatT, w.Attrs(/*ksize=*/true)), {x.name});
    return {name, {x.shape[0], w.output[0], w.output[1], x.shape[3]}, x.bound};
  }

  // FusedBatchNormV3 in inference: y = (x - mean) scale / sqrt(variance + epsilon) + offset, per
  // channel. Its other outputs (the statistics passed through, the reserve spaces) are left
  // unread, as a model's are.
  Value BatchNorm(const Value& x) {
    const Shape channels = {x.shape[3]};
    const Value scale = NewLeaf(channels), offset = NewLeaf(channels), mean = NewLeaf(channels);
    // Positive and not small: 1 / sqrt(variance + epsilon) stays below 2.
    constexpr double kMinVariance = 0.25, kEpsilon = 0.001;
    const Value variance = NewFloatConst(channels, kMinVariance, 2);
    const std::string name = NewName("FusedBatchNormV3");
    const std::vector<std::string> inputs = {x.name, scale.name, offset.name, mean.name,
                                             variance.name};
    AddNode(name, "FusedBatchNormV3", inputs,
            absl::StrCat(kFloatT, TypeAttr("U", "DT_FLOAT"), FloatAttr("epsilon", kEpsilon),
                         StringAttr("data_format", "NHWC"), BoolAttr("is_training", false)),
            inputs);
    return {
        name, x.shape,
        (x.bound + mean.bound) * scale.bound / std::sqrt(kMinVariance + kEpsilon) + offset.bound};
  }

  // A scalar float32 constant.
  Value NewScalar(double value) {
    const std::string name = NewName("scalar");
    AddNode(name, "Const", {},
            absl::StrCat(TypeAttr("dtype", "DT_FLOAT"),
                         " attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape "
                         "{ } float_val: ",
                         value, " } } }"),
            {});
    return {name, {}, std::fabs(value)};
  }

  // A special function of the tail table where it is smooth: on operands made at least 0.5
  // (Positive), probabilities through Sigmoid, and Polygamma's order a constant 0, 1 or 2.
  Value SpecialFunction(const Value& a) {
    const Value x = Positive(a);
    switch (c_.Below(5)) {
      case 0:
        // |lgamma| on [0.5, b]: at most b log b, and 0.58 near its minimum.
        return Unary("Lgamma", x, x.bound * std::log(x.bound + 1) + 1);
      case 1:
        return Unary("Digamma", x, std::log(x.bound + 1) + 2);  // psi(0.5) = -1.96
      case 2: {
        const Value other = Positive(SecondOperand(a));
        Shape shape;
        Broadcast(x.shape, other.shape, shape);
        return Binary(c_.OneIn(2) ? "Igamma" : "Igammac", other, x, shape, 1);
      }
      case 3: {
        const Value n = NewScalar(c_.Below(3));
        // |psi^(n)(x)| for x >= 0.5 is largest at 0.5: 1.96, 4.93, 16.8.
        return Binary("Polygamma", n, x, x.shape, 17);
      }
      default: {
        // Betainc takes operands of one shape (or scalars): a and b new leaves of x's shape.
        const Value p = Unary("Sigmoid", a, 1);
        const Value alpha = Positive(NewLeaf(a.shape));
        const Value beta = Positive(NewLeaf(a.shape));
        const std::string name = NewName("Betainc");
        AddNode(name, "Betainc", {alpha.name, beta.name, p.name}, kFloatT,
                {alpha.name, beta.name, p.name});
        return {name, a.shape, 1};
      }
    }
  }

  // Xdivy, Xlogy, Xlog1py (y made positive, so each is smooth, 0 where x is) or ClipByValue
  // between two scalar constants.
  Value GuardedOrClipped(const Value& a) {
    if (c_.OneIn(4)) {
      const double low = -0.5 * (1 + c_.Below(4));
      const Value lo = NewScalar(low);
      const Value hi = NewScalar(low + 0.25 * (1 + c_.Below(8)));
      const std::string name = NewName("ClipByValue");
      AddNode(name, "ClipByValue", {a.name, lo.name, hi.name}, kFloatT, {a.name});
      return {name, a.shape, std::max(lo.bound, hi.bound)};
    }
    const Value y = Positive(SecondOperand(a));
    Shape shape;
    Broadcast(a.shape, y.shape, shape);
    switch (c_.Below(3)) {
      case 0:
        return Binary("Xdivy", a, y, shape, 2 * a.bound);
      case 1:
        return Binary("Xlogy", a, y, shape, a.bound * (std::log(y.bound) + 1));
      default:
        return Binary("Xlog1py", a, y, shape, a.bound * (std::log1p(y.bound) + 1));
    }
  }

  // An integer placeholder of `shape` and dtype `type`, its values any bit pattern.
  Value NewIntPlaceholder(const Shape& shape, const std::string& type, DType dtype) {
    const std::string name = NewName("int_input");
    const bool unknown_first = !shape.empty() && c_.OneIn(3);
    AddNode(name, "Placeholder", {},
            absl::StrCat(TypeAttr("dtype", type), " attr { key: \"shape\" value { ",
                         ShapeProto(shape, unknown_first), " } }"),
            {});
    Tensor value = Tensor::Zeros(dtype, shape);
    uint8_t* bytes = static_cast<uint8_t*>(value.mutable_raw_data());
    const int64_t size = value.num_elements() * static_cast<int64_t>(SizeOf(dtype));
    for (int64_t k = 0; k < size; ++k) bytes[k] = static_cast<uint8_t>(rng_());
    out_.feeds.push_back({.id = {name, 0}, .value = std::move(value)});
    return {name, shape, 0};
  }

  // An integer constant of dtype `type` (a scalar or of `shape`), each value in [low, high].
  std::string NewTypedConst(const Shape& shape, const std::string& type, int64_t low,
                            int64_t high) {
    const std::string name = NewName("int_const");
    const bool wide = type == "DT_INT64" || type == "DT_UINT64";
    const bool uint = type == "DT_UINT32" || type == "DT_UINT64";
    std::string values;
    std::uniform_int_distribution<int64_t> uniform(low, high);
    for (int64_t k = 0; k < Elements(shape); ++k) {
      absl::StrAppend(&values,
                      wide ? (uint ? " uint64_val: " : " int64_val: ")
                           : (uint ? " uint32_val: " : " int_val: "),
                      uniform(rng_));
    }
    AddNode(name, "Const", {},
            absl::StrCat(TypeAttr("dtype", type), " attr { key: \"value\" value { tensor {",
                         " dtype: ", type, " ", TensorShapeProto(shape), values, " } } }"),
            {});
    return name;
  }

  // The tail's bitwise ops, which are exact on every executor: an integer placeholder of a's
  // shape through one to three of them, masked to a byte, cast to float32 and added to `a`.
  Value IntegerBranch(const Value& a) {
    static const std::vector<std::pair<std::string, DType>> kTypes = {
        {"DT_INT8", DType::kInt8},     {"DT_INT16", DType::kInt16},  {"DT_INT32", DType::kInt32},
        {"DT_INT64", DType::kInt64},   {"DT_UINT8", DType::kUInt8},  {"DT_UINT16", DType::kUInt16},
        {"DT_UINT32", DType::kUInt32}, {"DT_UINT64", DType::kUInt64}};
    const auto& [type, dtype] = c_.Pick(kTypes);
    const int bits = static_cast<int>(SizeOf(dtype)) * 8;
    const std::string t = TypeAttr("T", type);
    std::string x = NewIntPlaceholder(a.shape, type, dtype).name;
    std::string x_type = type;
    const int steps = 1 + c_.Below(3);
    for (int k = 0; k < steps && x_type == type; ++k) {
      const int op = c_.Below(7);
      const std::string name = NewName("bitwise");
      if (op <= 2) {
        static const std::vector<std::string> kOps = {"BitwiseAnd", "BitwiseOr", "BitwiseXor"};
        const Shape shape = c_.OneIn(2) ? Shape{} : a.shape;
        const std::string y = c_.OneIn(2) ? NewTypedConst(shape, type, 0, 127)
                                          : NewIntPlaceholder(shape, type, dtype).name;
        AddNode(name, kOps[op], {x, y}, t, {x, y});
      } else if (op <= 4) {
        // Shifts past the width (and, for signed types, negative ones) are clamped.
        const std::string shift =
            NewTypedConst({}, type, type.find("UINT") == std::string::npos ? -2 : 0, bits + 2);
        AddNode(name, op == 3 ? "LeftShift" : "RightShift", {x, shift}, t, {x});
      } else if (op == 5) {
        AddNode(name, "Invert", {x}, t, {x});
      } else {
        AddNode(name, "PopulationCount", {x}, t, {x});
        x_type = "DT_UINT8";
      }
      x = name;
    }
    if (x_type == type) {
      const std::string mask = NewTypedConst({}, type, 255, 255);
      const std::string masked = NewName("BitwiseAnd");
      AddNode(masked, "BitwiseAnd", {x, mask}, t, {x, mask});
      x = masked;
    }
    const std::string cast = NewName("Cast");
    AddNode(cast, "Cast", {x}, absl::StrCat(TypeAttr("SrcT", x_type), TypeAttr("DstT", "DT_FLOAT")),
            {x});
    return Binary("AddV2", a, {cast, a.shape, 255}, a.shape, a.bound + 255);
  }

  // One op on `a` (and whatever other operands it needs).
  Value Op(const Value& a) {
    const int rank = Rank(a.shape);
    switch (c_.Below(16)) {
      case 0:
      case 1: {  // unary, continuous on its whole domain
        static const std::vector<std::pair<std::string, double>> kOps = {
            {"Abs", 0},      {"Neg", 0},   {"Square", -2}, {"Tanh", 1},    {"Sigmoid", 1},
            {"Relu", 0},     {"Relu6", 6}, {"Elu", 0},     {"Selu", 1.76}, {"Softplus", 0},
            {"Softsign", 1}, {"Sin", 1},   {"Cos", 1},     {"Atan", 1.6},  {"Erf", 1},
            {"Identity", 0}, {"Sinh", -1}};
        const auto& [op, bound] = c_.Pick(kOps);
        // 0: the operand's bound (or one more for Softplus, Elu); -2: squared; -1: Sinh.
        double b = bound > 0 ? bound : a.bound + 1;
        if (bound == -2) b = a.bound * a.bound;
        if (op == "Sinh") {
          const Value t = Unary("Tanh", a, 1);
          return Unary("Sinh", t, 1.2);
        }
        return Unary(op, a, b);
      }
      case 2: {  // unary, on a restricted domain: the operand is made valid first
        switch (c_.Below(6)) {
          case 0:
            return Unary("Exp", Unary("Tanh", a, 1), 2.72);
          case 1:
            return Unary("Expm1", Unary("Tanh", a, 1), 1.72);
          case 2:
            return Unary("Log", Positive(a), std::log(a.bound + 0.5) + 1);
          case 3:
            return Unary("Sqrt", Positive(a), std::sqrt(a.bound + 0.5));
          case 4:
            return Unary("Rsqrt", Positive(a), 1.42);
          default:
            return Unary("Reciprocal", Positive(a), 2);
        }
      }
      case 3:
      case 4:
      case 5: {  // binary, with broadcasting
        const Value b = SecondOperand(a);
        Shape shape;
        Broadcast(a.shape, b.shape, shape);
        const bool swap = c_.OneIn(2);
        const Value& x = swap ? b : a;
        const Value& y = swap ? a : b;
        switch (c_.Below(8)) {
          case 0:
            return Binary("Add", x, y, shape, a.bound + b.bound);
          case 1:
            return Binary("AddV2", x, y, shape, a.bound + b.bound);
          case 2:
            return Binary("Sub", x, y, shape, a.bound + b.bound);
          case 3:
            return Binary("Mul", x, y, shape, a.bound * b.bound);
          case 4:
            return Binary("Maximum", x, y, shape, std::max(a.bound, b.bound));
          case 5:
            return Binary("Minimum", x, y, shape, std::max(a.bound, b.bound));
          case 6:
            return Binary("SquaredDifference", x, y, shape,
                          (a.bound + b.bound) * (a.bound + b.bound));
          default: {
            const Value d = Positive(y);
            return Binary("RealDiv", x, d, shape, 2 * x.bound);
          }
        }
      }
      case 6: {  // a reduction over some axes
        static const std::vector<std::string> kOps = {"Sum", "Mean", "Max", "Min"};
        const std::string& op = c_.Pick(kOps);
        std::vector<int64_t> axes;
        for (int k = 0; k < rank; ++k) {
          if (c_.OneIn(2)) axes.push_back(c_.OneIn(4) ? k - rank : k);
        }
        const bool keep_dims = c_.OneIn(3);
        Shape shape;
        double count = 1;
        for (int k = 0; k < rank; ++k) {
          const bool reduced = std::find(axes.begin(), axes.end(), k) != axes.end() ||
                               std::find(axes.begin(), axes.end(), k - rank) != axes.end();
          if (reduced) count *= static_cast<double>(a.shape[k]);
          if (!reduced) {
            shape.push_back(a.shape[k]);
          } else if (keep_dims) {
            shape.push_back(1);
          }
        }
        const std::string axes_name = rank > 0 && axes.size() == 1 && c_.OneIn(2)
                                          ? NewIntConst(axes, {})
                                          : NewIntVector(axes);
        const std::string name = NewName(op);
        AddNode(
            name, op, {a.name, axes_name},
            absl::StrCat(kFloatT, TypeAttr("Tidx", "DT_INT32"), BoolAttr("keep_dims", keep_dims)),
            {a.name});
        // Max and Min of nothing are the type's lowest and highest: no value is kept.
        if ((op == "Max" || op == "Min") && Elements(a.shape) == 0) {
          return Unary("Tanh", {name, shape, 0}, 1);
        }
        return {name, shape, op == "Sum" ? a.bound * std::max(1.0, count) : a.bound};
      }
      case 7: {  // MatMul, with either operand transposed
        if (rank != 2) break;
        const bool transpose_a = c_.OneIn(2), transpose_b = c_.OneIn(2);
        const int64_t rows = transpose_a ? a.shape[1] : a.shape[0];
        const int64_t k = transpose_a ? a.shape[0] : a.shape[1];
        const int64_t m = RandomDim() + 1;
        if (rows * m > kMaxElements) break;
        const Value b = NewLeaf(transpose_b ? Shape{m, k} : Shape{k, m});
        const std::string name = NewName("MatMul");
        AddNode(name, "MatMul", {a.name, b.name},
                absl::StrCat(kFloatT, BoolAttr("transpose_a", transpose_a),
                             BoolAttr("transpose_b", transpose_b)),
                {a.name, b.name});
        return {name, {rows, m}, a.bound * b.bound * std::max<double>(1, k)};
      }
      case 8: {  // Softmax or LogSoftmax over the last axis
        if (rank == 0) break;
        if (c_.OneIn(2)) return Unary("Softmax", a, 1);
        return Unary("LogSoftmax", a, 2 * a.bound + std::log(std::max<double>(2, a.shape.back())));
      }
      case 9: {  // Transpose
        if (rank < 2) break;
        std::vector<int64_t> perm(rank);
        std::iota(perm.begin(), perm.end(), 0);
        for (int k = rank - 1; k > 0; --k) std::swap(perm[k], perm[c_.Below(k + 1)]);
        Shape shape(rank);
        for (int k = 0; k < rank; ++k) shape[k] = a.shape[perm[k]];
        const std::string name = NewName("Transpose");
        AddNode(name, "Transpose", {a.name, NewIntVector(perm)},
                absl::StrCat(kFloatT, TypeAttr("Tperm", "DT_INT32")), {a.name});
        return {name, shape, a.bound};
      }
      case 10: {  // Reshape: flatten, merge two dimensions, split one, or add a 1
        Shape shape = a.shape;
        switch (c_.Below(4)) {
          case 0:
            shape = {Elements(a.shape)};
            break;
          case 1:
            if (rank >= 2) {
              const int k = c_.Below(rank - 1);
              shape[k] *= shape[k + 1];
              shape.erase(shape.begin() + k + 1);
            }
            break;
          case 2:
            if (rank >= 1) {
              const int k = c_.Below(rank);
              for (int64_t f : {2, 3, 4}) {
                if (shape[k] % f == 0 && shape[k] > f) {
                  shape[k] /= f;
                  shape.insert(shape.begin() + k, f);
                  break;
                }
              }
            }
            break;
          default:
            shape.insert(shape.begin() + c_.Below(rank + 1), 1);
            break;
        }
        return Reshape(a, shape);
      }
      case 11: {  // ConcatV2 with a leaf of another size along the axis
        if (rank == 0) break;
        const int axis = c_.Below(rank);
        Shape other = a.shape;
        other[axis] = 1 + c_.Below(3);
        Shape shape = a.shape;
        shape[axis] += other[axis];
        if (Elements(shape) > kMaxElements) break;
        const Value b = NewLeaf(other);
        const bool first = c_.OneIn(2);
        const std::string name = NewName("ConcatV2");
        AddNode(name, "ConcatV2",
                {first ? a.name : b.name, first ? b.name : a.name,
                 NewIntConst({c_.OneIn(3) ? axis - rank : axis}, {})},
                absl::StrCat(kFloatT, IntAttr("N", 2), TypeAttr("Tidx", "DT_INT32")),
                {a.name, b.name});
        return {name, shape, std::max(a.bound, b.bound)};
      }
      case 12: {  // Slice, Pad, Tile or ReverseV2: data movement by index arithmetic
        if (rank == 0) break;
        switch (c_.Below(4)) {
          case 0: {
            std::vector<int64_t> begin(rank), size(rank);
            Shape shape(rank);
            for (int k = 0; k < rank; ++k) {
              begin[k] = c_.Below(static_cast<int>(a.shape[k]) + 1);
              shape[k] = c_.Below(static_cast<int>(a.shape[k] - begin[k]) + 1);
              size[k] = c_.OneIn(4) ? -1 : shape[k];
              if (size[k] == -1) shape[k] = a.shape[k] - begin[k];
            }
            const std::string name = NewName("Slice");
            AddNode(name, "Slice", {a.name, NewIntVector(begin), NewIntVector(size)},
                    absl::StrCat(kFloatT, TypeAttr("Index", "DT_INT32")), {a.name});
            return {name, shape, a.bound};
          }
          case 1: {
            std::vector<int64_t> paddings;
            Shape shape = a.shape;
            for (int k = 0; k < rank; ++k) {
              const int64_t before = c_.Below(3), after = c_.Below(3);
              paddings.push_back(before);
              paddings.push_back(after);
              shape[k] += before + after;
            }
            if (Elements(shape) > kMaxElements) break;
            const std::string name = NewName("Pad");
            AddNode(name, "Pad", {a.name, NewIntConst(paddings, {rank, 2})},
                    absl::StrCat(kFloatT, TypeAttr("Tpaddings", "DT_INT32")), {a.name});
            return {name, shape, a.bound};
          }
          case 2: {
            std::vector<int64_t> multiples(rank);
            Shape shape = a.shape;
            for (int k = 0; k < rank; ++k) {
              multiples[k] = 1 + c_.Below(3);
              shape[k] *= multiples[k];
            }
            if (Elements(shape) > kMaxElements) break;
            const std::string name = NewName("Tile");
            AddNode(name, "Tile", {a.name, NewIntVector(multiples)},
                    absl::StrCat(kFloatT, TypeAttr("Tmultiples", "DT_INT32")), {a.name});
            return {name, shape, a.bound};
          }
          default: {
            std::vector<int64_t> axes;
            for (int k = 0; k < rank; ++k) {
              if (c_.OneIn(2)) axes.push_back(k);
            }
            const std::string name = NewName("ReverseV2");
            AddNode(name, "ReverseV2", {a.name, NewIntVector(axes)},
                    absl::StrCat(kFloatT, TypeAttr("Tidx", "DT_INT32")), {a.name});
            return {name, a.shape, a.bound};
          }
        }
        break;
      }
      case 13:
      case 14: {  // a convolution, a pool or a batch norm, of `a` as an NHWC image
        const Value x = Image(a);
        switch (c_.Below(5)) {
          case 0:
          case 1:
            if (std::optional<Value> y = Convolution(x, /*depthwise=*/c_.OneIn(3))) return *y;
            break;
          case 2:
            return Pool("MaxPool", x);
          case 3:
            return Pool("AvgPool", x);
          default:
            return BatchNorm(x);
        }
        return Pool("MaxPool", x);  // no filter fits x
      }
      default: {  // BiasAdd, AddN, ExpandDims, the tail's math or an integer side chain
        switch (c_.Below(6)) {
          case 3:
            return SpecialFunction(a);
          case 4:
            return GuardedOrClipped(a);
          case 5:
            return IntegerBranch(a);
          case 0: {
            if (rank < 2) break;
            const Value bias = NewLeaf({a.shape.back()});
            return Binary("BiasAdd", a, bias, a.shape, a.bound + bias.bound);
          }
          case 1: {
            const Value b = NewLeaf(a.shape);
            const std::string name = NewName("AddN");
            AddNode(name, "AddN", {a.name, b.name, a.name}, absl::StrCat(kFloatT, IntAttr("N", 3)),
                    {a.name, b.name});
            return {name, a.shape, 2 * a.bound + b.bound};
          }
          default: {
            const int axis = c_.Below(rank + 1);
            Shape shape = a.shape;
            shape.insert(shape.begin() + axis, 1);
            const std::string name = NewName("ExpandDims");
            AddNode(name, "ExpandDims",
                    {a.name, NewIntConst({c_.OneIn(3) ? axis - rank - 1 : axis}, {})},
                    absl::StrCat(kFloatT, TypeAttr("Tdim", "DT_INT32")), {a.name});
            return {name, shape, a.bound};
          }
        }
        break;
      }
    }
    // The op chosen does not apply to `a`: a unary one that always does.
    return Unary("Sigmoid", a, 1);
  }

  Choices& c_;
  std::mt19937_64 rng_;
  std::vector<Value> values_;
  GeneratedGraph out_;
  int next_id_ = 0;
};

}  // namespace

GeneratedGraph GenerateGraph(Choices& choices) { return Generator(choices).Run(); }

}  // namespace dfc::fuzz
