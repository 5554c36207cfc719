// Reference kernels for matrix structure: diagonals and bands (MatrixDiag, MatrixSetDiag,
// MatrixDiagPart in their three versions, MatrixBandPart, Diag, DiagPart). Einsum and Cross live
// in matrix_products.cc; RegisterMatrixKernels registers both files.
//
// The diagonal ops only move elements, so they copy bytes of any dtype. Their geometry is
// TensorFlow's (kernels/linalg/matrix_diag_op.cc): diagonal d of a [rows, cols] matrix holds
// the elements (i, i + d); a band k = [lower, upper] is stored with its top diagonal (upper)
// first; a diagonal shorter than the band's longest is padded on the right when aligned LEFT,
// on the left when aligned RIGHT. V1 ops read the main diagonal only; V2 aligns LEFT_LEFT;
// V3 reads its `align` attribute (default RIGHT_LEFT: superdiagonals right, subdiagonals left).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "graph/tensor.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {

void RegisterProductKernels(KernelRegistry& registry);  // matrix_products.cc

namespace {

// --- Diagonal bands -------------------------------------------------------------------------

// The diagonals an op reads or writes, and how shorter diagonals are aligned.
struct Band {
  int64_t lower = 0;
  int64_t upper = 0;
  bool left_super = true;  // superdiagonals (d >= 0) padded on the right
  bool left_sub = true;    // subdiagonals (d <= 0) padded on the right
  int64_t num_diags() const { return upper - lower + 1; }
};

// Reads k (input `k_input`, a scalar or a vector of one or two int32) and the alignment: V2
// ops align LEFT_LEFT, V3 ops read `align`. With k_input < 0 (V1) the band is the main diagonal.
absl::StatusOr<Band> ReadBand(const KernelContext& ctx, int k_input) {
  Band band;
  if (k_input < 0) return band;
  const Tensor& k = ctx.input(k_input);
  if (k.rank() > 1) {
    return ctx.Error(absl::StrCat("k must be a scalar or a vector, got ", k.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> values, ReadIndexVector(ctx, k_input, "k"));
  if (values.empty() || values.size() > 2) {
    return ctx.Error(absl::StrCat("k must have one or two elements, got ", k.DebugType()));
  }
  band.lower = values[0];
  band.upper = values.back();
  if (band.lower > band.upper) {
    return ctx.Error(absl::StrCat("k's lower diagonal ", band.lower,
                                  " must not be larger than its upper diagonal ", band.upper));
  }
  if (ctx.node().HasAttr("align")) {
    DFC_ASSIGN_OR_RETURN(std::string align, ctx.node().GetString("align"));
    if (align != "LEFT_LEFT" && align != "LEFT_RIGHT" && align != "RIGHT_LEFT" &&
        align != "RIGHT_RIGHT") {
      return ctx.Error(
          absl::StrCat("align must be LEFT_LEFT, LEFT_RIGHT, RIGHT_LEFT or "
                       "RIGHT_RIGHT, got \"",
                       align, "\""));
    }
    band.left_super = align.starts_with("LEFT");
    band.left_sub = align.ends_with("LEFT");
  } else if (ctx.node().op.ends_with("V3")) {
    band.left_super = false;  // RIGHT_LEFT, V3's default
  }
  return band;
}

// Checks a band against a [rows, cols] matrix as TensorFlow does: each end is a diagonal of
// the matrix (or 0, which an empty matrix allows).
absl::Status CheckBandFits(const KernelContext& ctx, const Band& band, int64_t rows, int64_t cols) {
  for (int64_t d : {band.lower, band.upper}) {
    if (d != 0 && (d <= -rows || d >= cols)) {
      return ctx.Error(absl::StrCat("diagonal ", d, " is out of range for a ", rows, "x", cols,
                                    " matrix (expected (", -rows, ", ", cols, "))"));
    }
  }
  return absl::OkStatus();
}

// The longest diagonal of the band in a [rows, cols] matrix.
int64_t MaxDiagLen(const Band& band, int64_t rows, int64_t cols) {
  return std::min(rows + std::min<int64_t>(band.upper, 0), cols - std::max<int64_t>(band.lower, 0));
}

// Diagonal d's length in a [rows, cols] matrix and where its first element sits in a stored
// row of max_len elements.
struct DiagPlace {
  int64_t len;
  int64_t offset;
};
DiagPlace PlaceDiag(const Band& band, int64_t d, int64_t max_len, int64_t rows, int64_t cols) {
  const bool left = (d >= 0 && band.left_super) || (d <= 0 && band.left_sub);
  const int64_t len = std::min(rows + std::min<int64_t>(0, d), cols - std::max<int64_t>(0, d));
  return {len, left ? 0 : max_len - len};
}

// MatrixDiag(diagonal), MatrixDiagV2/V3(diagonal, k, num_rows, num_cols, padding_value).
absl::Status MatrixDiag(KernelContext& ctx) {
  const bool v1 = ctx.node().op == "MatrixDiag";
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, v1 ? 1 : 5));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  DFC_ASSIGN_OR_RETURN(Band band, ReadBand(ctx, v1 ? -1 : 1));
  const Tensor& diagonal = ctx.input(0);
  int64_t num_rows = -1;
  int64_t num_cols = -1;
  if (!v1) {
    DFC_ASSIGN_OR_RETURN(int64_t r, ReadIndexScalar(ctx, 2, "num_rows"));
    DFC_ASSIGN_OR_RETURN(int64_t c, ReadIndexScalar(ctx, 3, "num_cols"));
    num_rows = r;
    num_cols = c;
    const Tensor& pad = ctx.input(4);
    if (pad.dtype() != diagonal.dtype() || pad.num_elements() != 1) {
      return ctx.Error(absl::StrCat("padding_value must be one ", DTypeName(diagonal.dtype()),
                                    " element, got ", pad.DebugType()));
    }
  }
  const int rank = diagonal.rank();
  const int64_t num_diags = band.num_diags();
  if (rank < (num_diags > 1 ? 2 : 1)) {
    return ctx.Error(absl::StrCat("diagonal must have rank >= ", num_diags > 1 ? 2 : 1, " for ",
                                  num_diags, " diagonals, got ", diagonal.DebugType()));
  }
  if (num_diags > 1 && diagonal.dim(rank - 2) != num_diags) {
    return ctx.Error(absl::StrCat("diagonal ", diagonal.DebugType(), " must hold ", num_diags,
                                  " diagonals (k = [", band.lower, ", ", band.upper,
                                  "]) in its second-to-last dimension"));
  }
  const int64_t max_len = diagonal.dim(rank - 1);
  const int64_t min_rows = max_len - std::min<int64_t>(band.upper, 0);
  const int64_t min_cols = max_len + std::max<int64_t>(band.lower, 0);
  if (num_rows != -1 && num_rows < min_rows) {
    return ctx.Error(
        absl::StrCat("num_rows ", num_rows, " is too small: the diagonals need ", min_rows));
  }
  if (num_cols != -1 && num_cols < min_cols) {
    return ctx.Error(
        absl::StrCat("num_cols ", num_cols, " is too small: the diagonals need ", min_cols));
  }
  if (num_rows == -1 && num_cols == -1) {
    num_rows = num_cols = std::max(min_rows, min_cols);
  } else if (num_rows == -1) {
    num_rows = min_rows;
  } else if (num_cols == -1) {
    num_cols = min_cols;
  }
  if (num_rows != min_rows && num_cols != min_cols) {
    return ctx.Error(absl::StrCat("a ", num_rows, "x", num_cols,
                                  " output is inconsistent with k and the diagonals' length ",
                                  max_len, " (one of them must be ", min_rows, "x", min_cols, ")"));
  }
  const int batch_rank = num_diags > 1 ? rank - 2 : rank - 1;
  Shape out_shape(diagonal.shape().begin(), diagonal.shape().begin() + batch_rank);
  out_shape.push_back(num_rows);
  out_shape.push_back(num_cols);
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, diagonal.dtype(), out_shape));
  const size_t element = SizeOf(diagonal.dtype());
  const auto* src = static_cast<const unsigned char*>(diagonal.raw_data());
  auto* dst = static_cast<unsigned char*>(out.mutable_raw_data());
  const auto* pad = v1 ? nullptr : static_cast<const unsigned char*>(ctx.input(4).raw_data());
  const int64_t batches = Product(out_shape, 0, batch_rank);
  int64_t o = 0;
  for (int64_t b = 0; b < batches; ++b) {
    const int64_t base = b * num_diags * max_len;
    for (int64_t i = 0; i < num_rows; ++i) {
      for (int64_t j = 0; j < num_cols; ++j, ++o) {
        const int64_t d = j - i;
        if (d < band.lower || d > band.upper) {
          // The output starts zeroed: only a V2/V3 padding value needs writing.
          if (pad != nullptr) std::memcpy(dst + o * element, pad, element);
          continue;
        }
        const DiagPlace place = PlaceDiag(band, d, max_len, num_rows, num_cols);
        const int64_t index = j - std::max<int64_t>(d, 0) + place.offset;
        std::memcpy(dst + o * element, src + (base + (band.upper - d) * max_len + index) * element,
                    element);
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// MatrixDiagPart(input), MatrixDiagPartV2/V3(input, k, padding_value).
absl::Status MatrixDiagPart(KernelContext& ctx) {
  const bool v1 = ctx.node().op == "MatrixDiagPart";
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, v1 ? 1 : 3));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  const Tensor& input = ctx.input(0);
  if (input.rank() < 2) {
    return ctx.Error(absl::StrCat("input must have rank >= 2, got ", input.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(Band band, ReadBand(ctx, v1 ? -1 : 1));
  if (!v1) {
    const Tensor& pad = ctx.input(2);
    if (pad.dtype() != input.dtype() || pad.num_elements() != 1) {
      return ctx.Error(absl::StrCat("padding_value must be one ", DTypeName(input.dtype()),
                                    " element, got ", pad.DebugType()));
    }
  }
  const int rank = input.rank();
  const int64_t rows = input.dim(rank - 2);
  const int64_t cols = input.dim(rank - 1);
  DFC_RETURN_IF_ERROR(CheckBandFits(ctx, band, rows, cols));
  const int64_t num_diags = band.num_diags();
  const int64_t max_len = MaxDiagLen(band, rows, cols);
  Shape out_shape(input.shape().begin(), input.shape().end() - 2);
  if (num_diags > 1) out_shape.push_back(num_diags);
  out_shape.push_back(max_len);
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, input.dtype(), out_shape));
  const size_t element = SizeOf(input.dtype());
  const auto* src = static_cast<const unsigned char*>(input.raw_data());
  auto* dst = static_cast<unsigned char*>(out.mutable_raw_data());
  const auto* pad = v1 ? nullptr : static_cast<const unsigned char*>(ctx.input(2).raw_data());
  const int64_t batches = Product(input.shape(), 0, rank - 2);
  int64_t o = 0;
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t m = 0; m < num_diags; ++m, o += max_len) {
      const int64_t d = band.upper - m;
      const DiagPlace place = PlaceDiag(band, d, max_len, rows, cols);
      for (int64_t n = 0; n < max_len; ++n) {
        const int64_t at = n - place.offset;
        unsigned char* to = dst + (o + n) * element;
        if (at >= 0 && at < place.len) {
          const int64_t i = at + std::max<int64_t>(0, -d);
          const int64_t j = at + std::max<int64_t>(0, d);
          std::memcpy(to, src + ((b * rows + i) * cols + j) * element, element);
        } else if (pad != nullptr) {
          std::memcpy(to, pad, element);
        }
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// MatrixSetDiag(input, diagonal), MatrixSetDiagV2/V3(input, diagonal, k).
absl::Status MatrixSetDiag(KernelContext& ctx) {
  const bool v1 = ctx.node().op == "MatrixSetDiag";
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, v1 ? 2 : 3));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  const Tensor& input = ctx.input(0);
  const Tensor& diagonal = ctx.input(1);
  if (diagonal.dtype() != input.dtype()) {
    return ctx.Error(absl::StrCat("diagonal ", diagonal.DebugType(), " must have the dtype of ",
                                  "input ", input.DebugType()));
  }
  if (input.rank() < 2) {
    return ctx.Error(absl::StrCat("input must have rank >= 2, got ", input.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(Band band, ReadBand(ctx, v1 ? -1 : 2));
  const int rank = input.rank();
  const int64_t rows = input.dim(rank - 2);
  const int64_t cols = input.dim(rank - 1);
  DFC_RETURN_IF_ERROR(CheckBandFits(ctx, band, rows, cols));
  const int64_t num_diags = band.num_diags();
  const int64_t max_len = MaxDiagLen(band, rows, cols);
  Shape expected(input.shape().begin(), input.shape().end() - 2);
  if (num_diags > 1) expected.push_back(num_diags);
  expected.push_back(max_len);
  if (diagonal.shape() != expected) {
    return ctx.Error(absl::StrCat("diagonal ", diagonal.DebugType(), " must have shape ",
                                  ShapeToString(expected), " for input ", input.DebugType(),
                                  " and k = [", band.lower, ", ", band.upper, "]"));
  }
  Tensor out = input.Clone();
  const size_t element = SizeOf(input.dtype());
  const auto* src = static_cast<const unsigned char*>(diagonal.raw_data());
  auto* dst = static_cast<unsigned char*>(out.mutable_raw_data());
  const int64_t batches = Product(input.shape(), 0, rank - 2);
  for (int64_t b = 0; b < batches && out.num_elements() > 0; ++b) {
    for (int64_t m = 0; m < num_diags; ++m) {
      const int64_t d = band.upper - m;
      const DiagPlace place = PlaceDiag(band, d, max_len, rows, cols);
      const int64_t base = (b * num_diags + m) * max_len + place.offset;
      for (int64_t n = 0; n < place.len; ++n) {
        const int64_t i = n + std::max<int64_t>(0, -d);
        const int64_t j = n + std::max<int64_t>(0, d);
        std::memcpy(dst + ((b * rows + i) * cols + j) * element, src + (base + n) * element,
                    element);
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// MatrixBandPart(input, num_lower, num_upper): keeps (i, j) where (num_lower < 0 or
// i - j <= num_lower) and (num_upper < 0 or j - i <= num_upper), zeroes the rest.
absl::Status MatrixBandPart(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  const Tensor& input = ctx.input(0);
  if (input.rank() < 2) {
    return ctx.Error(absl::StrCat("input must have rank >= 2, got ", input.DebugType()));
  }
  const int rank = input.rank();
  const int64_t rows = input.dim(rank - 2);
  const int64_t cols = input.dim(rank - 1);
  int64_t limits[2];
  const char* names[2] = {"num_lower", "num_upper"};
  for (int i = 0; i < 2; ++i) {
    if (ctx.input(1 + i).rank() != 0) {
      return ctx.Error(
          absl::StrCat(names[i], " must be a scalar, got ", ctx.input(1 + i).DebugType()));
    }
    DFC_ASSIGN_OR_RETURN(int64_t v, ReadIndexScalar(ctx, 1 + i, names[i]));
    limits[i] = v;
    const int64_t bound = i == 0 ? rows : cols;
    if (limits[i] > bound) {
      return ctx.Error(absl::StrCat(names[i], " must be negative or at most ", bound,
                                    " (the number of ", i == 0 ? "rows" : "columns", "), got ",
                                    limits[i]));
    }
  }
  Tensor out = input.Clone();
  const size_t element = SizeOf(input.dtype());
  auto* dst = static_cast<unsigned char*>(out.mutable_raw_data());
  const int64_t batches = Product(input.shape(), 0, rank - 2);
  for (int64_t b = 0; b < batches && out.num_elements() > 0; ++b) {
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        const bool keep =
            (limits[0] < 0 || i - j <= limits[0]) && (limits[1] < 0 || j - i <= limits[1]);
        if (!keep) std::memset(dst + ((b * rows + i) * cols + j) * element, 0, element);
      }
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// The dtypes TensorFlow registers Diag and DiagPart for (less bfloat16 and complex).
constexpr DType kDiagDTypes[] = {DType::kHalf, DType::kFloat, DType::kDouble, DType::kInt32,
                                 DType::kInt64};

// Diag(diagonal): rank k -> rank 2k, out[i..., i...] = diagonal[i...], zero elsewhere.
absl::Status Diag(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, kDiagDTypes));
  const Tensor& diagonal = ctx.input(0);
  if (diagonal.rank() == 0) return ctx.Error("diagonal must have rank >= 1, got a scalar");
  Shape out_shape = diagonal.shape();
  out_shape.insert(out_shape.end(), diagonal.shape().begin(), diagonal.shape().end());
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, diagonal.dtype(), out_shape));
  const int64_t n = diagonal.num_elements();
  const size_t element = SizeOf(diagonal.dtype());
  const auto* src = static_cast<const unsigned char*>(diagonal.raw_data());
  auto* dst = static_cast<unsigned char*>(out.mutable_raw_data());
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(dst + (i * n + i) * element, src + i * element, element);
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// DiagPart(input): rank 2k [d..., d...] -> rank k, out[i...] = input[i..., i...].
absl::Status DiagPart(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, kDiagDTypes));
  const Tensor& input = ctx.input(0);
  const int rank = input.rank();
  if (rank == 0 || rank % 2 != 0) {
    return ctx.Error(
        absl::StrCat("input must have an even, non-zero rank, got ", input.DebugType()));
  }
  const int k = rank / 2;
  for (int i = 0; i < k; ++i) {
    if (input.dim(i) != input.dim(i + k)) {
      return ctx.Error(absl::StrCat("input ", input.DebugType(), ": dimensions ", i, " and ", i + k,
                                    " must be equal"));
    }
  }
  const Shape out_shape(input.shape().begin(), input.shape().begin() + k);
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, input.dtype(), out_shape));
  const int64_t n = out.num_elements();
  const size_t element = SizeOf(input.dtype());
  const auto* src = static_cast<const unsigned char*>(input.raw_data());
  auto* dst = static_cast<unsigned char*>(out.mutable_raw_data());
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(dst + i * element, src + (i * n + i) * element, element);
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterMatrixKernels(KernelRegistry& registry) {
  for (const char* op : {"MatrixDiag", "MatrixDiagV2", "MatrixDiagV3"}) {
    registry.Register(op, MatrixDiag);
  }
  for (const char* op : {"MatrixDiagPart", "MatrixDiagPartV2", "MatrixDiagPartV3"}) {
    registry.Register(op, MatrixDiagPart);
  }
  for (const char* op : {"MatrixSetDiag", "MatrixSetDiagV2", "MatrixSetDiagV3"}) {
    registry.Register(op, MatrixSetDiag);
  }
  registry.Register("MatrixBandPart", MatrixBandPart);
  registry.Register("Diag", Diag);
  registry.Register("DiagPart", DiagPart);
  RegisterProductKernels(registry);
}

}  // namespace dfc::reference
