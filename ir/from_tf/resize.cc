// Translations of the image resizes (runtime/reference/resize.cc): ResizeNearestNeighbor,
// ResizeBilinear, ResizeBicubic and ResizeArea on NHWC images. Each output pixel reads the
// input pixels its own index selects:
//
//   Map^3(λ(image, y, x) => pixel(image, y, x))
//     $ Map(λimage => Map(λy => Zip(Repeat(OW) $ image, Repeat(OW) $ y, Iota(OW))) $ Iota(OH))
//     $ images
//
// where pixel reads rows and columns with At at indices a UserFun computes from y and x in
// float exactly as TensorFlow's kernels do (a different rounding there would pick another
// pixel), and combines them with weights computed the same way. Nearest neighbour moves
// pixels only: an axis whose indices are an exact integer function of the output index (checked
// against the float computation for every index when the graph is compiled) is a Reindex view.
// Bilinear, bicubic and area output float32: the input converted to float, the coordinates
// and weights in float as TensorFlow computes them, and the weighted sum in double, rounded
// once, as the reference does. (Summing in float instead differs from it by more than the
// 1e-6 tolerance where integer images cancel out.)
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/dtype_class.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir {
namespace {

using Outputs = absl::StatusOr<std::vector<ExprPtr>>;

// Every UserFun body here starts with this: OpenCL C may fuse a * b + c into one rounding, the
// host twins and the reference round twice, and a coordinate one rounding off can pick
// another pixel.
constexpr char kNoContraction[] = "#pragma OPENCL FP_CONTRACT OFF\n  ";

// --- Geometry -------------------------------------------------------------------------------

// One axis (the rows or the columns) of a resize: sizes, scale and the coordinate convention.
struct Axis {
  int64_t in = 0;
  int64_t out = 0;
  float scale = 0;
  bool align_corners = false;
  bool half_pixel_centers = false;

  // Where output index o samples the input, as TensorFlow's bilinear and bicubic kernels
  // compute it: o·scale, or (o + ½)·scale - ½ with half-pixel centres.
  float Coordinate(int64_t o) const {
    return half_pixel_centers ? (static_cast<float>(o) + 0.5f) * scale - 0.5f
                              : static_cast<float>(o) * scale;
  }
  // The same in OpenCL C, of the int parameter `o`: a statement defining `in`.
  std::string CoordinateC() const {
    return half_pixel_centers
               ? absl::StrCat("const float in = ((float)o + 0.5f) * ", Scale(), " - 0.5f;\n  ")
               : absl::StrCat("const float in = (float)o * ", Scale(), ";\n  ");
  }
  std::string Scale() const { return FloatLiteral(DType::kFloat, scale); }
  // What the UserFun bodies depend on, for their names.
  std::string Tag() const {
    return absl::StrCat("in", in, "_s", absl::Hex(std::bit_cast<uint32_t>(scale)),
                        align_corners ? "_ac" : "", half_pixel_centers ? "_hp" : "");
  }
};

// in/out, or (in-1)/(out-1) with align_corners when there is more than one output pixel.
float ResizeScale(int64_t in_size, int64_t out_size, bool align_corners) {
  return align_corners && out_size > 1
             ? static_cast<float>(in_size - 1) / static_cast<float>(out_size - 1)
             : static_cast<float>(in_size) / static_cast<float>(out_size);
}

struct ResizeGeometry {
  ExprPtr images;  // [N][H][W][C]
  Axis rows;
  Axis columns;
};

// The images and the size, checked as the reference (TensorFlow's ImageResizerState) checks
// them. The image height and width and the size must be known when the graph is compiled.
absl::StatusOr<ResizeGeometry> ReadGeometry(const TranslateContext& ctx) {
  if (ctx.num_inputs() != 2) {
    return ctx.Error(absl::StrCat("expects 2 inputs (images, size), got ", ctx.num_inputs()));
  }
  ResizeGeometry g;
  DFC_ASSIGN_OR_RETURN(g.images, ctx.Input(0));
  const DType dtype = BaseDType(g.images->type);
  if (!DTypeInClass(dtype, kNumbers)) {
    return ctx.Error(absl::StrCat(ctx.node().op, " is not defined for dtype ", DTypeName(dtype),
                                  " (expected a number type)"));
  }
  DFC_ASSIGN_OR_RETURN(const bool align_corners, ctx.node().GetBool("align_corners", false));
  bool half_pixel_centers = false;
  // ResizeArea has no half_pixel_centers attribute.
  if (ctx.node().op != "ResizeArea") {
    DFC_ASSIGN_OR_RETURN(half_pixel_centers, ctx.node().GetBool("half_pixel_centers", false));
  }
  if (align_corners && half_pixel_centers) {
    return ctx.Error("if half_pixel_centers is true, align_corners must be false");
  }
  const SymbolicShape shape = ShapeOfExpr(g.images);
  const std::string images_type = absl::StrCat(DTypeName(dtype), ShapeToString(shape));
  if (shape.size() != 4) {
    return ctx.Error(absl::StrCat("images must have rank 4 [batch, height, width, channels], got ",
                                  images_type));
  }
  if (std::optional<int64_t> channels = shape[3].AsConstant(); channels && *channels <= 0) {
    return ctx.Error(absl::StrCat("images must have at least one channel, got ", images_type));
  }
  const std::optional<int64_t> height = shape[1].AsConstant();
  const std::optional<int64_t> width = shape[2].AsConstant();
  if (!height || !width) {
    return ctx.Error(absl::StrCat("the height and width of images ", images_type,
                                  " must be known when the graph is compiled (only the batch "
                                  "may be a size variable)"));
  }
  if (*height <= 0 || *width <= 0) {
    return ctx.Error(
        absl::StrCat("images must have a non-zero height and width, got ", images_type));
  }
  constexpr int64_t kMaxSide = std::numeric_limits<int32_t>::max();
  if (*height >= kMaxSide || *width >= kMaxSide) {
    return ctx.Error(
        absl::StrCat("image height and width must be below 2^31-1, got ", images_type));
  }
  DFC_ASSIGN_OR_RETURN(DType size_dtype, ctx.InputDType(1));
  DFC_ASSIGN_OR_RETURN(SymbolicShape size_shape, ctx.InputShape(1));
  if (size_dtype != DType::kInt32 || size_shape != ToSymbolic({2})) {
    return ctx.Error(absl::StrCat("size must be an int32 vector [2] (new_height, new_width), got ",
                                  DTypeName(size_dtype), ShapeToString(size_shape)));
  }
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> size, ctx.StaticInts(1));
  if (size[0] <= 0 || size[1] <= 0) {
    return ctx.Error(absl::StrCat("size must be positive, got [", size[0], ",", size[1], "]"));
  }
  for (auto [axis, in, out] :
       {std::tuple{&g.rows, *height, size[0]}, std::tuple{&g.columns, *width, size[1]}}) {
    *axis = Axis{.in = in,
                 .out = out,
                 .scale = ResizeScale(in, out, align_corners),
                 .align_corners = align_corners,
                 .half_pixel_centers = half_pixel_centers};
  }
  return g;
}

// --- UserFuns -------------------------------------------------------------------------------

// A function of an output index `o` (and for the multi-tap kernels a tap number `k`), both
// int32, as its body computes it in OpenCL C and `host` in C++.
FunPtr IndexFun(const std::string& name, const std::string& body, DType result, bool with_tap,
                std::function<Scalar(int64_t o, int64_t k)> host) {
  std::vector<std::string> names = {"o"};
  std::vector<DType> types = {DType::kInt32};
  if (with_tap) {
    names.push_back("k");
    types.push_back(DType::kInt32);
  }
  return MakeUserFun(name, names, absl::StrCat(kNoContraction, body), types, result,
                     [host, with_tap](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       return host(a[0].i, with_tap ? a[1].i : 0);
                     });
}

Scalar Index(int64_t i) { return Scalar::Int(DType::kInt32, i); }
Scalar Weight(float w) { return Scalar::Float(DType::kFloat, w); }

// min(limit - 1, max(0, value)), and its OpenCL C of the long `value`.
int64_t Clamp(int64_t value, int64_t limit) {
  return std::min(limit - 1, std::max(int64_t{0}, value));
}
std::string ClampC(const std::string& value, int64_t limit) {
  return absl::StrCat("(int)(", value, " < 0 ? 0 : ", value, " > ", limit - 1, "L ? ", limit - 1,
                      "L : ", value, ")");
}

// An input element as TensorFlow's kernels read it: converted to float.
float ToFloat(const Scalar& s) {
  if (IsFloating(s.dtype)) return static_cast<float>(s.f);
  if (s.dtype == DType::kUInt64) return static_cast<float>(static_cast<uint64_t>(s.i));
  return static_cast<float>(s.i);
}

// The OpenCL C of `name`, a parameter of `dtype`, converted to float and held as double.
std::string AsDoubleC(DType dtype, const std::string& name) {
  return OpenCLType(dtype) == "float" ? absl::StrCat("(double)", name)
                                      : absl::StrCat("(double)(float)", name);
}

Scalar Double(double v) { return Scalar::Float(DType::kDouble, v); }

// A double sum rounded to float32 once, after multiplying it by the float `factor` (1: none).
FunPtr RoundSumFun(float factor) {
  const bool scaled = factor != 1.0f;
  return MakeUserFun(
      scaled ? absl::StrCat("resize_round_scaled_", absl::Hex(std::bit_cast<uint32_t>(factor)))
             : "resize_round",
      {"sum"},
      scaled ? absl::StrCat("return (float)(sum * ", FloatLiteral(DType::kFloat, factor), ");")
             : "return (float)sum;",
      {DType::kDouble}, DType::kFloat,
      [factor, scaled](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        return Weight(static_cast<float>(scaled ? a[0].f * factor : a[0].f));
      });
}

// --- Reading pixels -------------------------------------------------------------------------

using PixelFn = std::function<absl::StatusOr<ExprPtr>(const ExprPtr& image, const ExprPtr& y,
                                                      const ExprPtr& x)>;

// Every output pixel of every image, pixel(image, y, x). The pixels' coordinates are first laid
// out as a view, [N][OH][OW] of (image, y, x) (Repeat and Iota zipped), and the pixels mapped
// over it one level a dimension: Map(Map(Map(pixel))) of an array, whose outer two levels the
// code generator may flatten into one set of rows (a batch of images has few).
absl::StatusOr<ExprPtr> MapPixels(const ResizeGeometry& g, const PixelFn& pixel) {
  const auto coordinates = [&](ExprPtr image) -> absl::StatusOr<ExprPtr> {
    DFC_ASSIGN_OR_RETURN(ExprPtr ys, Call(Iota(g.rows.out, DType::kInt32), {}));
    return MapOver(
        ys,
        [&](ExprPtr y) -> absl::StatusOr<ExprPtr> {
          const ArithExpr width(g.columns.out);
          DFC_ASSIGN_OR_RETURN(ExprPtr images, Call(Repeat(width), {image}));
          DFC_ASSIGN_OR_RETURN(ExprPtr row, Call(Repeat(width), {y}));
          DFC_ASSIGN_OR_RETURN(ExprPtr xs, Call(Iota(width, DType::kInt32), {}));
          return Call(Zip(3), {images, row, xs});
        },
        "y");
  };
  DFC_ASSIGN_OR_RETURN(ExprPtr grid, MapOver(g.images, coordinates, "image"));
  return MapAtDepth(grid, 3, [&](ExprPtr t) -> absl::StatusOr<ExprPtr> {
    DFC_ASSIGN_OR_RETURN(ExprPtr image, Call(Get(0), {t}));
    DFC_ASSIGN_OR_RETURN(ExprPtr y, Call(Get(1), {t}));
    DFC_ASSIGN_OR_RETURN(ExprPtr x, Call(Get(2), {t}));
    return pixel(image, y, x);
  });
}

// image[row][column], a pixel [C], the indices runtime values.
absl::StatusOr<ExprPtr> PixelAt(const ExprPtr& image, const ExprPtr& row, const ExprPtr& column) {
  DFC_ASSIGN_OR_RETURN(ExprPtr r, Call(At(), {image, row}));
  return Call(At(), {r, column});
}

// --- ResizeNearestNeighbor ------------------------------------------------------------------

// The source index of output index o: rounded with align_corners, else floored; with
// half-pixel centres floor((o + ½)·scale), clamped to the image.
int64_t NearestIndex(const Axis& a, int64_t o) {
  const float in = a.half_pixel_centers ? (static_cast<float>(o) + 0.5f) * a.scale
                                        : static_cast<float>(o) * a.scale;
  int64_t index = static_cast<int64_t>(a.align_corners ? std::round(in) : std::floor(in));
  index = std::min(index, a.in - 1);
  if (a.half_pixel_centers) index = std::max(index, int64_t{0});
  return index;
}

FunPtr NearestIndexFun(const Axis& a) {
  std::string body = a.half_pixel_centers
                         ? absl::StrCat("const float in = ((float)o + 0.5f) * ", a.Scale(), ";\n  ")
                         : absl::StrCat("const float in = (float)o * ", a.Scale(), ";\n  ");
  absl::StrAppend(&body, "const long index = (long)", a.align_corners ? "round" : "floor",
                  "(in);\n  return ", ClampC("index", a.in), ";");
  return IndexFun(absl::StrCat("resize_nearest_", a.Tag()), body, DType::kInt32, false,
                  [a](int64_t o, int64_t) { return Index(NearestIndex(a, o)); });
}

// The nearest indices as an exact integer function of the output index i, when TensorFlow's
// float computation gives exactly that for every i: floor(i·in/out), round(i·(in-1)/(out-1))
// with align_corners, floor((i + ½)·in/out) with half-pixel centres.
std::optional<ArithExpr> ExactNearest(const Axis& a) {
  if (a.in >= (int64_t{1} << 24) || a.out >= (int64_t{1} << 30)) return std::nullopt;
  int64_t mul = a.in, add = 0, div = a.out;
  if (a.align_corners && a.out > 1) {
    mul = 2 * (a.in - 1), add = a.out - 1, div = 2 * (a.out - 1);
  } else if (a.half_pixel_centers) {
    mul = 2 * a.in, add = a.in, div = 2 * a.out;
  }
  for (int64_t o = 0; o < a.out; ++o) {
    if ((o * mul + add) / div != NearestIndex(a, o)) return std::nullopt;
  }
  return (IndexVar() * ArithExpr(mul) + ArithExpr(add)) / ArithExpr(div);
}

// Dimension `depth` of `x` resampled to the nearest indices of `a`.
absl::StatusOr<ExprPtr> NearestAlong(const ExprPtr& x, int depth, const Axis& a) {
  if (std::optional<ArithExpr> index = ExactNearest(a)) {
    return MapAtDepth(x, depth, [&](ExprPtr line) { return Call(Reindex(a.out, *index), {line}); });
  }
  const FunPtr index = NearestIndexFun(a);
  return MapAtDepth(x, depth, [&](ExprPtr line) -> absl::StatusOr<ExprPtr> {
    DFC_ASSIGN_OR_RETURN(ExprPtr os, Call(Iota(a.out, DType::kInt32), {}));
    return MapOver(
        os,
        [&](ExprPtr o) -> absl::StatusOr<ExprPtr> {
          DFC_ASSIGN_OR_RETURN(ExprPtr i, Apply(index, {o}));
          return Call(At(), {line, i});
        },
        "o");
  });
}

Outputs TranslateNearest(const TranslateContext& ctx) {
  DFC_ASSIGN_OR_RETURN(ResizeGeometry g, ReadGeometry(ctx));
  if (g.rows.in >= (int64_t{1} << 24) || g.columns.in >= (int64_t{1} << 24)) {
    return ctx.Error("nearest neighbour resizing needs an image height and width below 2^24");
  }
  DFC_ASSIGN_OR_RETURN(ExprPtr out, NearestAlong(g.images, 1, g.rows));
  DFC_ASSIGN_OR_RETURN(out, NearestAlong(out, 2, g.columns));
  return std::vector<ExprPtr>{out};
}

// --- ResizeBilinear -------------------------------------------------------------------------

// The two source indices of output index o, max(floor(in), 0) and min(ceil(in), in - 1), and
// the weight of the upper one, in - floor(in).
struct LinearFuns {
  FunPtr lower, upper, lerp;
};

LinearFuns LinearFunsFor(const Axis& a) {
  const std::string coordinate = a.CoordinateC();
  const std::string tag = a.Tag();
  LinearFuns f;
  f.lower = IndexFun(
      absl::StrCat("resize_linear_lower_", tag),
      absl::StrCat(coordinate, "const long f = (long)floor(in);\n  return (int)(f > 0 ? f : 0);"),
      DType::kInt32, false, [a](int64_t o, int64_t) {
        return Index(std::max(static_cast<int64_t>(std::floor(a.Coordinate(o))), int64_t{0}));
      });
  f.upper =
      IndexFun(absl::StrCat("resize_linear_upper_", tag),
               absl::StrCat(coordinate, "const long c = (long)ceil(in);\n  return (int)(c < ",
                            a.in - 1, "L ? c : ", a.in - 1, "L);"),
               DType::kInt32, false, [a](int64_t o, int64_t) {
                 return Index(std::min(static_cast<int64_t>(std::ceil(a.Coordinate(o))), a.in - 1));
               });
  // In float, held as double for the blend.
  f.lerp = IndexFun(absl::StrCat("resize_linear_lerp_", tag),
                    absl::StrCat(coordinate, "return (double)(in - floor(in));"), DType::kDouble,
                    false, [a](int64_t o, int64_t) {
                      const float in = a.Coordinate(o);
                      return Double(in - std::floor(in));
                    });
  return f;
}

// The bilinear blend of four pixels' values, along the row then down, in double (each value
// converted to float first), rounded once.
FunPtr BilinearBlendFun(DType dtype) {
  const auto v = [&](const char* name) { return AsDoubleC(dtype, name); };
  const std::string body =
      absl::StrCat(kNoContraction, "const double top = ", v("tl"), " + (", v("tr"), " - ", v("tl"),
                   ") * x_lerp;\n  const double bottom = ", v("bl"), " + (", v("br"), " - ",
                   v("bl"), ") * x_lerp;\n  return (float)(top + (bottom - top) * y_lerp);");
  return MakeUserFun(absl::StrCat("resize_bilinear_", DTypeName(dtype)),
                     {"tl", "tr", "bl", "br", "x_lerp", "y_lerp"}, body,
                     {dtype, dtype, dtype, dtype, DType::kDouble, DType::kDouble}, DType::kFloat,
                     [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
                       const double tl = ToFloat(a[0]), tr = ToFloat(a[1]);
                       const double bl = ToFloat(a[2]), br = ToFloat(a[3]);
                       const double x_lerp = a[4].f, y_lerp = a[5].f;
                       const double top = tl + (tr - tl) * x_lerp;
                       const double bottom = bl + (br - bl) * x_lerp;
                       return Weight(static_cast<float>(top + (bottom - top) * y_lerp));
                     });
}

Outputs TranslateBilinear(const TranslateContext& ctx) {
  DFC_ASSIGN_OR_RETURN(ResizeGeometry g, ReadGeometry(ctx));
  const LinearFuns ys = LinearFunsFor(g.rows);
  const LinearFuns xs = LinearFunsFor(g.columns);
  const FunPtr blend = BilinearBlendFun(BaseDType(g.images->type));
  DFC_ASSIGN_OR_RETURN(
      ExprPtr out,
      MapPixels(
          g,
          [&](const ExprPtr& image, const ExprPtr& y, const ExprPtr& x) -> absl::StatusOr<ExprPtr> {
            DFC_ASSIGN_OR_RETURN(ExprPtr y0, Apply(ys.lower, {y}));
            DFC_ASSIGN_OR_RETURN(ExprPtr y1, Apply(ys.upper, {y}));
            DFC_ASSIGN_OR_RETURN(ExprPtr x0, Apply(xs.lower, {x}));
            DFC_ASSIGN_OR_RETURN(ExprPtr x1, Apply(xs.upper, {x}));
            DFC_ASSIGN_OR_RETURN(ExprPtr y_lerp, Apply(ys.lerp, {y}));
            DFC_ASSIGN_OR_RETURN(ExprPtr x_lerp, Apply(xs.lerp, {x}));
            DFC_ASSIGN_OR_RETURN(ExprPtr tl, PixelAt(image, y0, x0));
            DFC_ASSIGN_OR_RETURN(ExprPtr tr, PixelAt(image, y0, x1));
            DFC_ASSIGN_OR_RETURN(ExprPtr bl, PixelAt(image, y1, x0));
            DFC_ASSIGN_OR_RETURN(ExprPtr br, PixelAt(image, y1, x1));
            DFC_ASSIGN_OR_RETURN(ExprPtr corners, Call(Zip(4), {tl, tr, bl, br}));
            return MapOver(
                corners,
                [&](ExprPtr c) -> absl::StatusOr<ExprPtr> {
                  std::vector<ExprPtr> args;
                  for (int i = 0; i < 4; ++i) {
                    DFC_ASSIGN_OR_RETURN(ExprPtr v, Call(Get(i), {c}));
                    args.push_back(v);
                  }
                  args.push_back(x_lerp);
                  args.push_back(y_lerp);
                  return Apply(blend, std::move(args));
                },
                "c");
          }));
  return std::vector<ExprPtr>{out};
}

// --- Weighted sums of taps (bicubic, area) -------------------------------------------------

// The taps of one axis: `count` source indices of each output index, index(o, k), each with
// its weight(o, k).
struct Taps {
  int64_t count = 0;
  FunPtr index;
  FunPtr weight;
};

// One channel's taps [Ky][Kx] of output pixel (y, x), with Iota(Ky) and Iota(Kx) to number
// them, made into that channel's output value.
using CombineFn =
    std::function<absl::StatusOr<ExprPtr>(const ExprPtr& plane, const ExprPtr& y, const ExprPtr& x,
                                          const ExprPtr& ks, const ExprPtr& js)>;

// Each output pixel's taps read as views of the image ([Ky][Kx][C], rows then columns through
// At), each channel's combined.
absl::StatusOr<ExprPtr> CombineTaps(const ResizeGeometry& g, const Taps& ty, const Taps& tx,
                                    const CombineFn& combine) {
  return MapPixels(
      g, [&](const ExprPtr& image, const ExprPtr& y, const ExprPtr& x) -> absl::StatusOr<ExprPtr> {
        DFC_ASSIGN_OR_RETURN(ExprPtr ks, Call(Iota(ty.count, DType::kInt32), {}));
        DFC_ASSIGN_OR_RETURN(ExprPtr js, Call(Iota(tx.count, DType::kInt32), {}));
        const auto row_of_taps = [&](ExprPtr k) -> absl::StatusOr<ExprPtr> {
          DFC_ASSIGN_OR_RETURN(ExprPtr row, Apply(ty.index, {y, k}));
          const auto tap = [&](ExprPtr j) -> absl::StatusOr<ExprPtr> {
            DFC_ASSIGN_OR_RETURN(ExprPtr column, Apply(tx.index, {x, j}));
            return PixelAt(image, row, column);
          };
          return MapOver(js, tap, "j");
        };
        DFC_ASSIGN_OR_RETURN(ExprPtr taps, MapOver(ks, row_of_taps, "k"));
        // [C][Ky][Kx]
        DFC_ASSIGN_OR_RETURN(ExprPtr planes, TransposeTensor(taps, std::vector<int>{2, 0, 1}));
        return MapOver(
            planes, [&](ExprPtr plane) { return combine(plane, y, x, ks, js); }, "plane");
      });
}

// Reduce(λ(acc, (e, n)) => step(acc, e, n), init) $ Zip(array, numbers): a fold that also
// knows each element's number.
absl::StatusOr<ExprPtr> FoldNumbered(
    const ExprPtr& init, const ExprPtr& array, const ExprPtr& numbers,
    const std::function<absl::StatusOr<ExprPtr>(ExprPtr, ExprPtr, ExprPtr)>& step) {
  DFC_ASSIGN_OR_RETURN(ExprPtr numbered, Call(Zip(2), {array, numbers}));
  return ReduceOver(init, numbered, [&](ExprPtr acc, ExprPtr pair) -> absl::StatusOr<ExprPtr> {
    DFC_ASSIGN_OR_RETURN(ExprPtr e, Call(Get(0), {pair}));
    DFC_ASSIGN_OR_RETURN(ExprPtr n, Call(Get(1), {pair}));
    return step(acc, e, n);
  });
}

// --- ResizeBicubic --------------------------------------------------------------------------

// TensorFlow samples Keys' cubic kernel (a = -0.5 with half-pixel centres, its legacy -0.75
// otherwise) in a table of 1024 steps, built in double and rounded to float: entry 2t is
// W0(t/1024) = ((a+2)x - (a+3))x² + 1, entry 2t+1 is W1(1 + t/1024) = ((ax - 5a)x + 8a)x - 4a.
// With a = -p/4 both are integers over 2^32, which double holds exactly, so the table entry is
// that integer rounded once to float and scaled by 2^-32: the UserFun computes the integer in
// long arithmetic instead of reading a table, and gets the same float.
int64_t CubicW0Numerator(int64_t p, int64_t t) {
  return ((8 - p) * t - (12 - p) * 1024) * t * t + (int64_t{1} << 32);
}
int64_t CubicW1Numerator(int64_t p, int64_t t) {
  const int64_t u = 1024 + t;
  return -p * (((u - 5120) * u + (int64_t{1} << 23)) * u - (int64_t{1} << 32));
}
float CubicEntry(int64_t numerator) { return std::ldexp(static_cast<float>(numerator), -32); }

// The sum of the weights below which Keys' variant leaves them unnormalised.
float CubicNormalizeThreshold() { return 1000.0f * std::numeric_limits<float>::min(); }

// The four taps of output index o: indices floor(in) - 1 + k clamped to the image, weights
// from the table at the rounded fractional offset; Keys' variant drops the taps outside the
// image and renormalises.
struct CubicTaps {
  int64_t index[4];
  float weight[4];
};

CubicTaps CubicTapsAt(const Axis& a, int64_t o) {
  const int64_t p = a.half_pixel_centers ? 2 : 3;
  const float in = a.Coordinate(o);
  const int64_t in_floor = static_cast<int64_t>(std::floor(in));
  const float delta = in - static_cast<float>(in_floor);
  const int64_t t = std::lrint(delta * 1024.0f);
  const float kernel[4] = {CubicEntry(CubicW1Numerator(p, t)), CubicEntry(CubicW0Numerator(p, t)),
                           CubicEntry(CubicW0Numerator(p, 1024 - t)),
                           CubicEntry(CubicW1Numerator(p, 1024 - t))};
  CubicTaps taps;
  for (int k = 0; k < 4; ++k) {
    const int64_t source = in_floor - 1 + k;
    taps.index[k] = Clamp(source, a.in);
    taps.weight[k] = !a.half_pixel_centers || taps.index[k] == source ? kernel[k] : 0.0f;
  }
  if (a.half_pixel_centers) {
    const float sum = taps.weight[0] + taps.weight[1] + taps.weight[2] + taps.weight[3];
    if (std::abs(sum) >= CubicNormalizeThreshold()) {
      const float inverse = 1.0f / sum;
      for (float& w : taps.weight) w *= inverse;
    }
  }
  return taps;
}

Taps CubicTapsFor(const Axis& a) {
  const std::string coordinate = a.CoordinateC();
  const std::string tag = a.Tag();
  const int64_t p = a.half_pixel_centers ? 2 : 3;
  Taps taps{.count = 4};
  taps.index = IndexFun(
      absl::StrCat("resize_cubic_index_", tag),
      absl::StrCat(coordinate, "const long s = (long)floor(in) - 1 + k;\n  return ",
                   ClampC("s", a.in), ";"),
      DType::kInt32, true, [a](int64_t o, int64_t k) { return Index(CubicTapsAt(a, o).index[k]); });
  const auto w0 = [&](const char* t) {
    return absl::StrCat("convert_float_rte(((", 8 - p, "L * ", t, " - ", (12 - p) * 1024, "L) * ",
                        t, " * ", t, " + 4294967296L)) * 0x1p-32f");
  };
  const auto w1 = [&](const char* u) {
    return absl::StrCat("convert_float_rte(", -p, "L * (((", u, " - 5120L) * ", u,
                        " + 8388608L) * ", u, " - 4294967296L)) * 0x1p-32f");
  };
  std::string body = absl::StrCat(coordinate, "const long in_floor = (long)floor(in);\n  ",
                                  "const float delta = in - (float)in_floor;\n  ",
                                  "const long t = (long)rint(delta * 1024.0f), t1 = 1024 - t;\n  ",
                                  "const long u = 1024 + t, u1 = 1024 + t1;\n  ", "float w[4] = {",
                                  w1("u"), ",\n                ", w0("t"), ",\n                ",
                                  w0("t1"), ",\n                ", w1("u1"), "};\n  ");
  if (a.half_pixel_centers) {
    absl::StrAppend(&body, "for (int i = 0; i < 4; ++i) {\n    const long s = in_floor - 1 + i;\n",
                    "    if (s < 0 || s > ", a.in - 1, "L) w[i] = 0.0f;\n  }\n  ",
                    "const float sum = w[0] + w[1] + w[2] + w[3];\n  ",
                    "if (fabs(sum) >= ", FloatLiteral(DType::kFloat, CubicNormalizeThreshold()),
                    ") {\n    ", "const float inverse = 1.0f / sum;\n    ",
                    "for (int i = 0; i < 4; ++i) w[i] *= inverse;\n  }\n  ");
  }
  absl::StrAppend(&body, "return w[k];");
  taps.weight = IndexFun(absl::StrCat("resize_cubic_weight_", tag), body, DType::kFloat, true,
                         [a](int64_t o, int64_t k) { return Weight(CubicTapsAt(a, o).weight[k]); });
  return taps;
}

// acc + (wy·wx)·v in double, v converted to float: one term of the reference's sum.
FunPtr CubicTermFun(DType dtype) {
  return MakeUserFun(
      absl::StrCat("resize_cubic_term_", DTypeName(dtype)), {"acc", "v", "wy", "wx"},
      absl::StrCat(kNoContraction, "return acc + (double)wy * wx * ", AsDoubleC(dtype, "v"), ";"),
      {DType::kDouble, dtype, DType::kFloat, DType::kFloat}, DType::kDouble,
      [](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        const double wy = static_cast<float>(a[2].f), wx = static_cast<float>(a[3].f);
        return Double(a[0].f + wy * wx * static_cast<double>(ToFloat(a[1])));
      });
}

// The 16 taps of each output value summed in one double, row by row, rounded once.
Outputs TranslateBicubic(const TranslateContext& ctx) {
  DFC_ASSIGN_OR_RETURN(ResizeGeometry g, ReadGeometry(ctx));
  const Taps ty = CubicTapsFor(g.rows);
  const Taps tx = CubicTapsFor(g.columns);
  const FunPtr term = CubicTermFun(BaseDType(g.images->type));
  const FunPtr round = RoundSumFun(1.0f);
  const CombineFn combine = [&](const ExprPtr& plane, const ExprPtr& y, const ExprPtr& x,
                                const ExprPtr& ks, const ExprPtr& js) -> absl::StatusOr<ExprPtr> {
    const auto row_step = [&](ExprPtr acc, ExprPtr row, ExprPtr k) -> absl::StatusOr<ExprPtr> {
      DFC_ASSIGN_OR_RETURN(ExprPtr wy, Apply(ty.weight, {y, k}));
      // The row's terms continue the same sum.
      return FoldNumbered(acc, row, js,
                          [&](ExprPtr a, ExprPtr v, ExprPtr j) -> absl::StatusOr<ExprPtr> {
                            DFC_ASSIGN_OR_RETURN(ExprPtr wx, Apply(tx.weight, {x, j}));
                            return Apply(term, {a, v, wy, wx});
                          });
    };
    DFC_ASSIGN_OR_RETURN(ExprPtr sum, FoldNumbered(Lit(DType::kDouble, 0), plane, ks, row_step));
    return Apply(round, {sum});
  };
  DFC_ASSIGN_OR_RETURN(ExprPtr out, CombineTaps(g, ty, tx, combine));
  return std::vector<ExprPtr>{out};
}

// --- ResizeArea -----------------------------------------------------------------------------

// Output index o's box is [o·scale, (o+1)·scale) of the input; tap k reads input index
// floor(o·scale) + k (clamped: align_corners boxes can overhang the image), weighted by the
// part of it inside the box. Boxes may differ in their number of taps: the taps past the end of
// a box have weight 0.
float AreaWeight(const Axis& a, int64_t o, int64_t k) {
  const float in = static_cast<float>(o) * a.scale;
  const float in1 = static_cast<float>(o + 1) * a.scale;
  const int64_t v = static_cast<int64_t>(std::floor(in)) + k;
  if (v >= static_cast<int64_t>(std::ceil(in1))) return 0.0f;
  const float vf = static_cast<float>(v);
  const float next = static_cast<float>(v + 1);
  if (vf < in) return next > in1 ? a.scale : next - in;
  return next > in1 ? in1 - vf : 1.0f;
}

Taps AreaTapsFor(const Axis& a) {
  Taps taps;
  for (int64_t o = 0; o < a.out; ++o) {
    const int64_t start = static_cast<int64_t>(std::floor(static_cast<float>(o) * a.scale));
    const int64_t end = static_cast<int64_t>(std::ceil(static_cast<float>(o + 1) * a.scale));
    taps.count = std::max(taps.count, end - start);
  }
  const std::string tag = a.Tag();
  const std::string start = absl::StrCat("const float in = (float)o * ", a.Scale(), ";\n  ",
                                         "const long v = (long)floor(in) + k;\n  ");
  taps.index =
      IndexFun(absl::StrCat("resize_area_index_", tag),
               absl::StrCat(start, "return ", ClampC("v", a.in), ";"), DType::kInt32, true,
               [a](int64_t o, int64_t k) {
                 return Index(Clamp(
                     static_cast<int64_t>(std::floor(static_cast<float>(o) * a.scale)) + k, a.in));
               });
  taps.weight = IndexFun(
      absl::StrCat("resize_area_weight_", tag),
      absl::StrCat(start, "const float in1 = (float)(o + 1) * ", a.Scale(), ";\n  ",
                   "if (v >= (long)ceil(in1)) return 0.0f;\n  ",
                   "const float vf = (float)v;\n  const float next = (float)(v + 1);\n  ",
                   "if (vf < in) return next > in1 ? ", a.Scale(), " : next - in;\n  ",
                   "return next > in1 ? in1 - vf : 1.0f;"),
      DType::kFloat, true, [a](int64_t o, int64_t k) { return Weight(AreaWeight(a, o, k)); });
  return taps;
}

// acc + v·w in double, v an input element converted to float (or, for `row_sums`, a row's
// double sum); a tap of weight 0, one past the end of a shorter box, adds nothing, whatever
// the pixel it reads.
FunPtr AreaTermFun(DType dtype, bool row_sums) {
  return MakeUserFun(
      absl::StrCat("resize_area_", row_sums ? "rows" : "term_", row_sums ? "" : DTypeName(dtype)),
      {"acc", "v", "w"},
      absl::StrCat(kNoContraction, "return w == 0.0f ? acc : acc + ",
                   row_sums ? "v" : AsDoubleC(dtype, "v"), " * w;"),
      {DType::kDouble, row_sums ? DType::kDouble : dtype, DType::kFloat}, DType::kDouble,
      [row_sums](std::span<const Scalar> a) -> absl::StatusOr<Scalar> {
        const float w = static_cast<float>(a[2].f);
        if (w == 0.0f) return a[0];
        const double v = row_sums ? a[1].f : ToFloat(a[1]);
        return Double(a[0].f + v * w);
      });
}

// Each row of the box summed alone, the rows' sums weighted and summed, then scaled by the
// inverse of the box's area, in double, rounded once.
Outputs TranslateArea(const TranslateContext& ctx) {
  DFC_ASSIGN_OR_RETURN(ResizeGeometry g, ReadGeometry(ctx));
  const Taps ty = AreaTapsFor(g.rows);
  const Taps tx = AreaTapsFor(g.columns);
  const FunPtr column_term = AreaTermFun(BaseDType(g.images->type), /*row_sums=*/false);
  const FunPtr row_term = AreaTermFun(DType::kDouble, /*row_sums=*/true);
  // The box's area in input pixels, inverted once in float as TensorFlow does.
  const float inverse_area =
      static_cast<float>(1.0 / static_cast<double>(g.rows.scale * g.columns.scale));
  const FunPtr round = RoundSumFun(inverse_area);
  const CombineFn combine = [&](const ExprPtr& plane, const ExprPtr& y, const ExprPtr& x,
                                const ExprPtr& ks, const ExprPtr& js) -> absl::StatusOr<ExprPtr> {
    const auto row_step = [&](ExprPtr acc, ExprPtr row, ExprPtr k) -> absl::StatusOr<ExprPtr> {
      DFC_ASSIGN_OR_RETURN(
          ExprPtr row_sum,
          FoldNumbered(Lit(DType::kDouble, 0), row, js,
                       [&](ExprPtr a, ExprPtr v, ExprPtr j) -> absl::StatusOr<ExprPtr> {
                         DFC_ASSIGN_OR_RETURN(ExprPtr wx, Apply(tx.weight, {x, j}));
                         return Apply(column_term, {a, v, wx});
                       }));
      DFC_ASSIGN_OR_RETURN(ExprPtr wy, Apply(ty.weight, {y, k}));
      return Apply(row_term, {acc, row_sum, wy});
    };
    DFC_ASSIGN_OR_RETURN(ExprPtr sum, FoldNumbered(Lit(DType::kDouble, 0), plane, ks, row_step));
    return Apply(round, {sum});
  };
  DFC_ASSIGN_OR_RETURN(ExprPtr out, CombineTaps(g, ty, tx, combine));
  return std::vector<ExprPtr>{out};
}

}  // namespace

void RegisterResizeTranslations(TranslationTable& table) {
  table.push_back({"ResizeNearestNeighbor", {TranslateNearest, {1}}});
  table.push_back({"ResizeBilinear", {TranslateBilinear, {1}}});
  table.push_back({"ResizeBicubic", {TranslateBicubic, {1}}});
  table.push_back({"ResizeArea", {TranslateArea, {1}}});
}

}  // namespace dfc::ir
