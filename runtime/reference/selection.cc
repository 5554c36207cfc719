// Reference kernels: sorting and data-dependent selection (TopK TopKV2 NthElement Unique
// UniqueWithCounts Where ListDiff), element moves (Roll ReverseSequence), and
// HistogramFixedWidth and LinSpace.
//
// Where a TensorFlow kernel's output order is an accident of its algorithm (unsorted TopK
// takes it from a heap), the same algorithm is used here, so the order matches.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status.h"
#include "graph/dtype.h"
#include "graph/dtype_class.h"
#include "runtime/reference/elementwise_util.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"
#include "runtime/reference/reduction_util.h"

namespace dfc::reference {
namespace {

// Writes `value` as element i of an int32 or int64 tensor.
void SetIndex(Tensor& t, int64_t i, int64_t value) {
  if (t.dtype() == DType::kInt32) {
    t.mutable_data<int32_t>()[i] = static_cast<int32_t>(value);
  } else {
    t.mutable_data<int64_t>()[i] = value;
  }
}

// An int32 or int64 dtype attribute (out_idx, index_type, dtype), `fallback` when absent.
absl::StatusOr<DType> IndexTypeAttr(const KernelContext& ctx, absl::string_view name,
                                    DType fallback) {
  DFC_ASSIGN_OR_RETURN(DType d, ctx.node().GetType(name, fallback));
  if (d != DType::kInt32 && d != DType::kInt64) {
    return ctx.Error(absl::StrCat(name, " must be int32 or int64, got ", DTypeName(d)));
  }
  return d;
}

// --- TopK / TopKV2 --------------------------------------------------------------------------

// The k largest entries of each row of the last dimension, ties to the lower index first.
// Sorted (or k == 1, or k == the row length), they come in descending order; unsorted, in
// the order gtl::TopN's heap leaves them, as TensorFlow's CPU kernel returns them.
absl::Status TopK(KernelContext& ctx, bool v2) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, v2 ? 2 : 1));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, kNumericDTypes));
  const Tensor& input = ctx.input(0);
  int64_t k = 0;
  if (v2) {
    DFC_ASSIGN_OR_RETURN(int64_t value, ReadIndexScalar(ctx, 1, "k"));
    if (ctx.input(1).rank() != 0) {
      return ctx.Error(absl::StrCat("k must be a scalar, got ", ctx.input(1).DebugType()));
    }
    k = value;
  } else {
    DFC_ASSIGN_OR_RETURN(int64_t value, ctx.node().GetInt("k"));
    k = value;
  }
  if (k < 0) return ctx.Error(absl::StrCat("Need k >= 0, got ", k));
  if (input.rank() < 1) {
    return ctx.Error(absl::StrCat("input must be at least 1-D, got ", input.DebugType()));
  }
  const int64_t cols = input.dim(input.rank() - 1);
  if (cols < k) {
    return ctx.Error(
        absl::StrCat("input must have at least k columns. Had ", cols, ", needed ", k));
  }
  DFC_ASSIGN_OR_RETURN(bool sorted, ctx.node().GetBool("sorted", true));
  DFC_ASSIGN_OR_RETURN(DType index_type, IndexTypeAttr(ctx, "index_type", DType::kInt32));
  Shape shape = input.shape();
  shape.back() = k;
  DFC_ASSIGN_OR_RETURN(Tensor values, AllocateOutput(ctx, input.dtype(), shape));
  DFC_ASSIGN_OR_RETURN(Tensor indices, AllocateOutput(ctx, index_type, shape));
  const int64_t rows = cols == 0 ? 0 : input.num_elements() / cols;
  DispatchDType(input.dtype(), [&]<typename T>() {
    if constexpr (!kIsBool<T>) {
      T* out = values.mutable_data<T>();
      std::vector<int64_t> order;
      for (int64_t r = 0; r < rows && k > 0; ++r) {
        const T* row = input.data<T>() + r * cols;
        // a comes before b: a larger value, or an equal one at a lower index.
        const auto greater = [row](int64_t a, int64_t b) {
          if (Up(row[b]) < Up(row[a])) return true;
          if (Up(row[b]) > Up(row[a])) return false;
          return a < b;
        };
        order.clear();
        if (k == 1) {
          // The first position of the maximum.
          int64_t best = 0;
          for (int64_t c = 1; c < cols; ++c) {
            if (Up(row[c]) > Up(row[best])) best = c;
          }
          order.push_back(best);
        } else if (k == cols || sorted) {
          order.resize(cols);
          std::iota(order.begin(), order.end(), 0);
          std::partial_sort(order.begin(), order.begin() + k, order.end(), greater);
          order.resize(k);
        } else {
          // gtl::TopN: the first k + 1 pushes fill a vector that then becomes a heap under
          // `greater` (its front the smallest kept) with one spare slot at the back; each
          // later element that beats the front goes through that slot.
          for (int64_t c = 0; c < cols; ++c) {
            if (order.size() <= static_cast<size_t>(k)) {
              order.push_back(c);
              if (order.size() == static_cast<size_t>(k) + 1) {
                std::make_heap(order.begin(), order.end(), greater);
                std::pop_heap(order.begin(), order.end(), greater);
              }
            } else if (greater(c, order.front())) {
              order.back() = c;
              std::push_heap(order.begin(), order.end(), greater);
              std::pop_heap(order.begin(), order.end(), greater);
            }
          }
          order.resize(k);
        }
        for (int64_t i = 0; i < k; ++i) {
          out[r * k + i] = row[order[i]];
          SetIndex(indices, r * k + i, order[i]);
        }
      }
    }
  });
  ctx.set_output(0, std::move(values));
  ctx.set_output(1, std::move(indices));
  return absl::OkStatus();
}

// --- NthElement -----------------------------------------------------------------------------

// The n-th smallest (or with `reverse` the n-th largest) entry of each row of the last
// dimension.
absl::Status NthElement(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, kNumericDTypes));
  const Tensor& input = ctx.input(0);
  if (ctx.input(1).rank() != 0) {
    return ctx.Error(absl::StrCat("n must be a scalar, got ", ctx.input(1).DebugType()));
  }
  absl::StatusOr<int64_t> n = ReadIndexScalar(ctx, 1, "n");
  DFC_RETURN_IF_ERROR(n.status());
  if (*n < 0) return ctx.Error(absl::StrCat("Need n >= 0, got ", *n));
  if (input.rank() < 1) {
    return ctx.Error(absl::StrCat("Input must be >= 1-D, got ", input.DebugType()));
  }
  const int64_t cols = input.dim(input.rank() - 1);
  if (cols <= *n) {
    return ctx.Error(
        absl::StrCat("Input must have at least n+1 columns, got ", cols, " columns and n = ", *n));
  }
  DFC_ASSIGN_OR_RETURN(bool reverse, ctx.node().GetBool("reverse", false));
  const int64_t nth = reverse ? cols - 1 - *n : *n;
  Shape shape(input.shape().begin(), input.shape().end() - 1);
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, input.dtype(), shape));
  DispatchDType(input.dtype(), [&]<typename T>() {
    if constexpr (!kIsBool<T>) {
      std::vector<ComputeType<T>> row(cols);
      for (int64_t r = 0; r < out.num_elements(); ++r) {
        for (int64_t c = 0; c < cols; ++c) row[c] = Up(input.data<T>()[r * cols + c]);
        std::nth_element(row.begin(), row.begin() + nth, row.end());
        out.mutable_data<T>()[r] = Down<T>(row[nth]);
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- Unique, UniqueWithCounts, ListDiff -----------------------------------------------------

// A hashable key with TensorFlow's equality: floats compare as numbers (0 == -0, and a NaN
// equals nothing, so each NaN is its own value), integers and bools as themselves.
template <typename T>
using KeyOf = std::conditional_t<kIsFloat<T>, double,
                                 std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

template <typename T>
KeyOf<T> Key(T value) {
  if constexpr (kIsFloat<T>) {
    return ToDouble(value);
  } else {
    return static_cast<KeyOf<T>>(value);
  }
}

// Fails unless input i is a vector of a supported dtype.
absl::Status CheckVector(const KernelContext& ctx, int i, absl::string_view what) {
  const Tensor& t = ctx.input(i);
  if (!IsSupported(t.dtype())) {
    return ctx.Error(absl::StrCat(what, " has unsupported dtype ", DTypeName(t.dtype())));
  }
  if (t.rank() != 1) return ctx.Error(absl::StrCat(what, " must be 1-D, got ", t.DebugType()));
  return absl::OkStatus();
}

// The distinct values of a vector in order of first occurrence, the index of each element's
// value among them, and with `counts` how often each occurs.
absl::Status Unique(KernelContext& ctx, bool counts) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  DFC_RETURN_IF_ERROR(CheckVector(ctx, 0, "x"));
  const Tensor& x = ctx.input(0);
  DFC_ASSIGN_OR_RETURN(DType out_idx, IndexTypeAttr(ctx, "out_idx", DType::kInt32));
  const int64_t n = x.num_elements();
  if (out_idx == DType::kInt32 && n > std::numeric_limits<int32_t>::max()) {
    return ctx.Error(absl::StrCat("x has ", n, " elements, too many for int32 indices"));
  }
  DFC_ASSIGN_OR_RETURN(Tensor idx, AllocateOutput(ctx, out_idx, {n}));
  std::vector<int64_t> first;  // the position of each distinct value's first occurrence
  std::vector<int64_t> count;
  DispatchDType(x.dtype(), [&]<typename T>() {
    std::unordered_map<KeyOf<T>, int64_t> seen;
    for (int64_t i = 0; i < n; ++i) {
      auto [it, inserted] = seen.try_emplace(Key(x.data<T>()[i]), first.size());
      if (inserted) {
        first.push_back(i);
        count.push_back(0);
      }
      ++count[it->second];
      SetIndex(idx, i, it->second);
    }
  });
  const int64_t m = static_cast<int64_t>(first.size());
  DFC_ASSIGN_OR_RETURN(Tensor y, AllocateOutput(ctx, x.dtype(), {m}));
  const size_t size = SizeOf(x.dtype());
  for (int64_t j = 0; j < m; ++j) {
    std::memcpy(static_cast<char*>(y.mutable_raw_data()) + j * size,
                static_cast<const char*>(x.raw_data()) + first[j] * size, size);
  }
  ctx.set_output(0, std::move(y));
  ctx.set_output(1, std::move(idx));
  if (counts) {
    DFC_ASSIGN_OR_RETURN(Tensor c, AllocateOutput(ctx, out_idx, {m}));
    for (int64_t j = 0; j < m; ++j) SetIndex(c, j, count[j]);
    ctx.set_output(2, std::move(c));
  }
  return absl::OkStatus();
}

// The elements of x that are not in y, in x's order with repeats, and their positions in x.
absl::Status ListDiff(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckVector(ctx, 0, "x"));
  DFC_RETURN_IF_ERROR(CheckVector(ctx, 1, "y"));
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  if (x.dtype() != y.dtype()) {
    return ctx.Error(absl::StrCat("x and y must have the same dtype, got ", x.DebugType(), " and ",
                                  y.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(DType out_idx, IndexTypeAttr(ctx, "out_idx", DType::kInt32));
  std::vector<int64_t> kept;
  DispatchDType(x.dtype(), [&]<typename T>() {
    std::unordered_set<KeyOf<T>> in_y;
    for (int64_t i = 0; i < y.num_elements(); ++i) in_y.insert(Key(y.data<T>()[i]));
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      if (!in_y.contains(Key(x.data<T>()[i]))) kept.push_back(i);
    }
  });
  const int64_t m = static_cast<int64_t>(kept.size());
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, x.dtype(), {m}));
  DFC_ASSIGN_OR_RETURN(Tensor idx, AllocateOutput(ctx, out_idx, {m}));
  const size_t size = SizeOf(x.dtype());
  for (int64_t j = 0; j < m; ++j) {
    std::memcpy(static_cast<char*>(out.mutable_raw_data()) + j * size,
                static_cast<const char*>(x.raw_data()) + kept[j] * size, size);
    SetIndex(idx, j, kept[j]);
  }
  ctx.set_output(0, std::move(out));
  ctx.set_output(1, std::move(idx));
  return absl::OkStatus();
}

// --- Where ----------------------------------------------------------------------------------

// The coordinates, in row-major order, of the true (nonzero) elements: int64 [count, rank].
absl::Status Where(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 1));
  const Tensor& cond = ctx.input(0);
  if (!IsSupported(cond.dtype())) {
    return ctx.Error(absl::StrCat("condition has unsupported dtype ", DTypeName(cond.dtype())));
  }
  std::vector<int64_t> hits;
  DispatchDType(cond.dtype(), [&]<typename T>() {
    for (int64_t i = 0; i < cond.num_elements(); ++i) {
      // A NaN is nonzero, so true.
      if (Up(cond.data<T>()[i]) != ComputeType<T>(0)) hits.push_back(i);
    }
  });
  const int rank = cond.rank();
  const int64_t count = static_cast<int64_t>(hits.size());
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, DType::kInt64, {count, rank}));
  int64_t* o = out.mutable_data<int64_t>();
  for (int64_t j = 0; j < count; ++j) {
    int64_t rest = hits[j];
    for (int d = rank - 1; d >= 0; --d) {
      o[j * rank + d] = rest % cond.dim(d);
      rest /= cond.dim(d);
    }
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- Roll, ReverseSequence ------------------------------------------------------------------

// Copies element `from` of `in` to element `to` of `out` (same dtype, any element size).
void CopyElement(const Tensor& in, int64_t from, Tensor& out, int64_t to) {
  const size_t size = SizeOf(in.dtype());
  std::memcpy(static_cast<char*>(out.mutable_raw_data()) + to * size,
              static_cast<const char*>(in.raw_data()) + from * size, size);
}

// output[(i + shift) mod n along each axis] = input[i]; shifts of the same axis add up.
absl::Status Roll(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  const Tensor& input = ctx.input(0);
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  if (input.rank() < 1) {
    return ctx.Error(absl::StrCat("input must be 1-D or higher, got ", input.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> shift, ReadIndexVector(ctx, 1, "shift"));
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> axis, ReadIndexVector(ctx, 2, "axis"));
  if (ctx.input(1).shape() != ctx.input(2).shape()) {
    return ctx.Error(absl::StrCat("shift and axis must have the same size, got ",
                                  ctx.input(1).DebugType(), " and ", ctx.input(2).DebugType()));
  }
  const int rank = input.rank();
  std::vector<int64_t> total(rank, 0);
  for (size_t i = 0; i < axis.size(); ++i) {
    DFC_ASSIGN_OR_RETURN(int d, NormalizeAxis(ctx, axis[i], rank));
    const int64_t n = input.dim(d);
    if (n == 0) continue;
    // Reduce each shift mod n first, so that the sum cannot overflow.
    total[d] = (total[d] + (shift[i] % n + n) % n) % n;
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, input.dtype(), input.shape()));
  const std::vector<int64_t> strides = Strides(input.shape());
  for (int64_t i = 0; i < input.num_elements(); ++i) {
    int64_t rest = i;
    int64_t to = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t c = rest % input.dim(d);
      rest /= input.dim(d);
      to += ((c + total[d]) % input.dim(d)) * strides[d];
    }
    CopyElement(input, i, out, to);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// For each batch entry b (along batch_dim), reverses its first seq_lengths[b] elements along
// seq_dim; the rest are copied unchanged.
absl::Status ReverseSequence(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  const Tensor& input = ctx.input(0);
  DFC_RETURN_IF_ERROR(CheckMovable(ctx, 0));
  DFC_ASSIGN_OR_RETURN(int64_t seq_dim, ctx.node().GetInt("seq_dim"));
  DFC_ASSIGN_OR_RETURN(int64_t batch_dim, ctx.node().GetInt("batch_dim", 0));
  const int rank = input.rank();
  if (seq_dim < 0 || seq_dim >= rank || batch_dim < 0 || batch_dim >= rank ||
      seq_dim == batch_dim) {
    return ctx.Error(absl::StrCat("seq_dim ", seq_dim, " and batch_dim ", batch_dim,
                                  " must be different dimensions in [0, ", rank, ") of ",
                                  input.DebugType()));
  }
  const Tensor& lengths_tensor = ctx.input(1);
  if (lengths_tensor.rank() != 1 || lengths_tensor.dim(0) != input.dim(batch_dim)) {
    return ctx.Error(absl::StrCat("seq_lengths must be a vector of ", input.dim(batch_dim),
                                  " (input's batch_dim size), got ", lengths_tensor.DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(std::vector<int64_t> lengths, ReadIndexVector(ctx, 1, "seq_lengths"));
  for (size_t b = 0; b < lengths.size(); ++b) {
    if (lengths[b] < 0 || lengths[b] > input.dim(seq_dim)) {
      return ctx.Error(absl::StrCat("seq_lengths[", b, "] = ", lengths[b], " must be in [0, ",
                                    input.dim(seq_dim), "]"));
    }
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, input.dtype(), input.shape()));
  const std::vector<int64_t> strides = Strides(input.shape());
  for (int64_t i = 0; i < input.num_elements(); ++i) {
    int64_t rest = i;
    int64_t b = 0;
    int64_t s = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t c = rest % input.dim(d);
      rest /= input.dim(d);
      if (d == batch_dim) b = c;
      if (d == seq_dim) s = c;
    }
    const int64_t length = lengths[b];
    const int64_t from = s < length ? i + (length - 1 - 2 * s) * strides[seq_dim] : i;
    CopyElement(input, from, out, i);
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// --- HistogramFixedWidth, LinSpace ----------------------------------------------------------

// Counts of values in nbins equal-width bins over value_range; values below the range count
// in the first bin and values above it in the last.
absl::Status HistogramFixedWidth(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  DFC_RETURN_IF_ERROR(CheckNumeric(ctx, 0));
  const Tensor& values = ctx.input(0);
  const Tensor& range = ctx.input(1);
  if (range.dtype() != values.dtype() || range.shape() != Shape{2}) {
    return ctx.Error(absl::StrCat("value_range must be a vector of 2 ", DTypeName(values.dtype()),
                                  ", got ", range.DebugType()));
  }
  if (ctx.input(2).rank() != 0) {
    return ctx.Error(absl::StrCat("nbins must be a scalar, got ", ctx.input(2).DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(int64_t nbins, ReadIndexScalar(ctx, 2, "nbins"));
  if (nbins <= 0) return ctx.Error(absl::StrCat("nbins should be a positive number, got ", nbins));
  DFC_ASSIGN_OR_RETURN(DType dtype, IndexTypeAttr(ctx, "dtype", DType::kInt32));
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, dtype, {nbins}));
  std::vector<int64_t> counts(nbins, 0);
  absl::Status status = absl::OkStatus();
  DispatchDType(values.dtype(), [&]<typename T>() {
    if constexpr (!kIsBool<T>) {
      // value - lo as TensorFlow takes it, in T (float16 rounded back to float16), then in
      // double; integers are widened so that the difference cannot overflow.
      const auto difference = [](T a, T b) -> double {
        if constexpr (kIsFloat<T>) {
          return ToDouble(Down<T>(Up(a) - Up(b)));
        } else {
          return static_cast<double>(static_cast<int64_t>(a) - static_cast<int64_t>(b));
        }
      };
      const T lo = range.data<T>()[0];
      const T hi = range.data<T>()[1];
      if (!(Up(lo) < Up(hi))) {
        status = ctx.Error(absl::StrCat(
            "value_range should satisfy value_range[0] < value_range[1], got ", range.Preview()));
        return;
      }
      const double step = difference(hi, lo) / static_cast<double>(nbins);
      const double last = static_cast<double>(nbins - 1);
      for (int64_t i = 0; i < values.num_elements(); ++i) {
        const T v = values.data<T>()[i];
        if constexpr (kIsFloat<T>) {
          if (std::isnan(Up(v))) {
            status = ctx.Error("Histogram values must not contain NaN");
            return;
          }
        }
        const double position = difference(Up(v) < Up(lo) ? lo : v, lo) / step;
        if (std::isnan(position)) {
          // inf / inf: a difference that overflows T, or an infinite range.
          status = ctx.Error(absl::StrCat("element ", i, " of values has no bin in value_range ",
                                          range.Preview(),
                                          ": its distance from the range's "
                                          "start is not finite in ",
                                          DTypeName(values.dtype())));
          return;
        }
        ++counts[static_cast<int64_t>(std::min(position, last))];
      }
    }
  });
  if (!status.ok()) return status;
  for (int64_t j = 0; j < nbins; ++j) SetIndex(out, j, counts[j]);
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// num evenly spaced values from start to stop, both included (start alone for num == 1).
absl::Status LinSpace(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 0, {DType::kHalf, DType::kFloat, DType::kDouble}));
  const Tensor& start = ctx.input(0);
  const Tensor& stop = ctx.input(1);
  if (start.rank() != 0 || stop.rank() != 0 || stop.dtype() != start.dtype() ||
      ctx.input(2).rank() != 0) {
    return ctx.Error(
        absl::StrCat("start, stop and num must be scalars, start and stop of one "
                     "dtype, got ",
                     start.DebugType(), ", ", stop.DebugType(), " and ", ctx.input(2).DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(int64_t num, ReadIndexScalar(ctx, 2, "num"));
  if (num <= 0) return ctx.Error(absl::StrCat("Requires num > 0: ", num));
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, start.dtype(), {num}));
  DispatchDType(start.dtype(), [&]<typename T>() {
    if constexpr (kIsFloat<T>) {
      using C = ComputeType<T>;
      T* o = out.mutable_data<T>();
      const C a = Up(start.data<T>()[0]);
      const C b = Up(stop.data<T>()[0]);
      if (num == 1) {
        o[0] = Down<T>(a);
        return;
      }
      const C step = (b - a) / static_cast<C>(num - 1);
      for (int64_t i = 0; i < num - 1; ++i) o[i] = Down<T>(a + step * static_cast<C>(i));
      o[num - 1] = Down<T>(b);
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterSelectionKernels(KernelRegistry& registry) {
  registry.Register("TopK", [](KernelContext& ctx) { return TopK(ctx, /*v2=*/false); });
  registry.Register("TopKV2", [](KernelContext& ctx) { return TopK(ctx, /*v2=*/true); });
  registry.Register("NthElement", NthElement);
  registry.Register("Unique", [](KernelContext& ctx) { return Unique(ctx, /*counts=*/false); });
  registry.Register("UniqueWithCounts",
                    [](KernelContext& ctx) { return Unique(ctx, /*counts=*/true); });
  registry.Register("ListDiff", ListDiff);
  registry.Register("Where", Where);
  registry.Register("Roll", Roll);
  registry.Register("ReverseSequence", ReverseSequence);
  registry.Register("HistogramFixedWidth", HistogramFixedWidth);
  registry.Register("LinSpace", LinSpace);
}

}  // namespace dfc::reference
