// Pieces shared by the resize translations (resize.cc, resize_taps.cc): the geometry of a resize
// as the reference checks it, UserFuns of an output index, and reading pixels. Private to those
// two files.
#ifndef DFC_IR_FROM_TF_RESIZE_INTERNAL_H_
#define DFC_IR_FROM_TF_RESIZE_INTERNAL_H_

#include <bit>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "graph/dtype.h"
#include "ir/expr.h"
#include "ir/from_tf/scalar_funs.h"
#include "ir/from_tf/translate.h"

namespace dfc::ir::resize {

using Outputs = absl::StatusOr<std::vector<ExprPtr>>;

// Every UserFun body here starts with this: OpenCL C may fuse a * b + c into one rounding, the
// host twins and the reference round twice, and a coordinate one rounding off can pick
// another pixel.
inline constexpr char kNoContraction[] = "#pragma OPENCL FP_CONTRACT OFF\n  ";

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

struct ResizeGeometry {
  ExprPtr images;  // [N][H][W][C]
  Axis rows;
  Axis columns;
};

// The images and the size, checked as the reference (TensorFlow's ImageResizerState) checks
// them. The image height and width and the size must be known when the graph is compiled.
absl::StatusOr<ResizeGeometry> ReadGeometry(const TranslateContext& ctx);

// --- UserFuns -------------------------------------------------------------------------------

// A function of an output index `o` (and for the multi-tap kernels a tap number `k`), both
// int32, as its body computes it in OpenCL C and `host` in C++.
FunPtr IndexFun(const std::string& name, const std::string& body, DType result, bool with_tap,
                std::function<Scalar(int64_t o, int64_t k)> host);

// Scalars of the UserFuns' result types: an int32 index, a float32 weight, a double.
Scalar Index(int64_t i);
Scalar Weight(float w);
Scalar Double(double v);

// min(limit - 1, max(0, value)), and its OpenCL C of the long `value`.
int64_t Clamp(int64_t value, int64_t limit);
std::string ClampC(const std::string& value, int64_t limit);

// An input element as TensorFlow's kernels read it: converted to float.
float ToFloat(const Scalar& s);

// The OpenCL C of `name`, a parameter of `dtype`, converted to float and held as double.
std::string AsDoubleC(DType dtype, const std::string& name);

// --- Reading pixels -------------------------------------------------------------------------

using PixelFn = std::function<absl::StatusOr<ExprPtr>(const ExprPtr& image, const ExprPtr& y,
                                                      const ExprPtr& x)>;

// Every output pixel of every image, pixel(image, y, x). The pixels' coordinates are first laid
// out as a view, [N][OH][OW] of (image, y, x) (Repeat and Iota zipped), and the pixels mapped
// over it one level a dimension: Map(Map(Map(pixel))) of an array, whose outer two levels the
// code generator may flatten into one set of rows (a batch of images has few).
absl::StatusOr<ExprPtr> MapPixels(const ResizeGeometry& g, const PixelFn& pixel);

// image[row][column], a pixel [C], the indices runtime values.
absl::StatusOr<ExprPtr> PixelAt(const ExprPtr& image, const ExprPtr& row, const ExprPtr& column);

// ResizeBicubic and ResizeArea (resize_taps.cc), registered by RegisterResizeTranslations.
void RegisterTapTranslations(TranslationTable& table);

}  // namespace dfc::ir::resize

#endif  // DFC_IR_FROM_TF_RESIZE_INTERNAL_H_
