// Translations of the resizes whose output values are weighted sums of taps
// (runtime/reference/resize.cc): ResizeBicubic and ResizeArea. Each output value folds the input
// pixels of its taps, read through At at indices a UserFun computes, with weights computed in
// float as TensorFlow computes them, the sum in double and rounded once (see resize.cc).
// Registered by RegisterResizeTranslations (resize.cc).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "ir/expr.h"
#include "ir/from_tf/resize_internal.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/translate.h"
#include "ir/from_tf/translate_util.h"

namespace dfc::ir::resize {
namespace {

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

void RegisterTapTranslations(TranslationTable& table) {
  table.push_back({"ResizeBicubic", {TranslateBicubic, {1}}});
  table.push_back({"ResizeArea", {TranslateArea, {1}}});
}

}  // namespace dfc::ir::resize
