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
//
// ResizeBicubic and ResizeArea, whose output values are weighted sums of taps, live in
// resize_taps.cc; RegisterResizeTranslations registers both files.
#include <algorithm>
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
#include "ir/from_tf/resize_internal.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir {
namespace {

// in/out, or (in-1)/(out-1) with align_corners when there is more than one output pixel.
float ResizeScale(int64_t in_size, int64_t out_size, bool align_corners) {
  return align_corners && out_size > 1
             ? static_cast<float>(in_size - 1) / static_cast<float>(out_size - 1)
             : static_cast<float>(in_size) / static_cast<float>(out_size);
}

}  // namespace

namespace resize {

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

int64_t Clamp(int64_t value, int64_t limit) {
  return std::min(limit - 1, std::max(int64_t{0}, value));
}
std::string ClampC(const std::string& value, int64_t limit) {
  return absl::StrCat("(int)(", value, " < 0 ? 0 : ", value, " > ", limit - 1, "L ? ", limit - 1,
                      "L : ", value, ")");
}

float ToFloat(const Scalar& s) {
  if (IsFloating(s.dtype)) return static_cast<float>(s.f);
  if (s.dtype == DType::kUInt64) return static_cast<float>(static_cast<uint64_t>(s.i));
  return static_cast<float>(s.i);
}

std::string AsDoubleC(DType dtype, const std::string& name) {
  return OpenCLType(dtype) == "float" ? absl::StrCat("(double)", name)
                                      : absl::StrCat("(double)(float)", name);
}

Scalar Double(double v) { return Scalar::Float(DType::kDouble, v); }

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

absl::StatusOr<ExprPtr> PixelAt(const ExprPtr& image, const ExprPtr& row, const ExprPtr& column) {
  DFC_ASSIGN_OR_RETURN(ExprPtr r, Call(At(), {image, row}));
  return Call(At(), {r, column});
}

}  // namespace resize

namespace {

using resize::AsDoubleC;
using resize::Axis;
using resize::ClampC;
using resize::Double;
using resize::Index;
using resize::IndexFun;
using resize::kNoContraction;
using resize::MapPixels;
using resize::Outputs;
using resize::PixelAt;
using resize::ReadGeometry;
using resize::ResizeGeometry;
using resize::ToFloat;
using resize::Weight;

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

}  // namespace

void RegisterResizeTranslations(TranslationTable& table) {
  table.push_back({"ResizeNearestNeighbor", {TranslateNearest, {1}}});
  table.push_back({"ResizeBilinear", {TranslateBilinear, {1}}});
  resize::RegisterTapTranslations(table);
}

}  // namespace dfc::ir
