// Reference kernels for segment reductions and partitions: SegmentSum, SegmentMean,
// SegmentProd, SegmentMax, SegmentMin (sorted segment ids), UnsortedSegmentSum, -Prod, -Max,
// -Min (any ids, num_segments given), DynamicPartition and ParallelConcat. Each segment is
// reduced row after row in input order, as TensorFlow's CPU kernels reduce it, and rounded to
// the dtype after each step, so float results carry the same rounding.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status.h"
#include "runtime/reference/kernel.h"
#include "runtime/reference/kernel_util.h"

namespace dfc::reference {
namespace {

enum class SegmentReduce { kSum, kMean, kProd, kMax, kMin };

// Whether `prefix` is where `shape` starts.
bool StartsWith(const Shape& shape, const Shape& prefix) {
  return prefix.size() <= shape.size() && std::equal(prefix.begin(), prefix.end(), shape.begin());
}

// The largest and the lowest finite value of T (Eigen's NumTraits<T>::highest and lowest):
// the unsorted max and min of an empty segment.
template <typename T>
T Highest() {
  if constexpr (std::is_same_v<T, Half>) {
    return Half::FromBits(0x7bff);  // 65504
  } else {
    return std::numeric_limits<T>::max();
  }
}
template <typename T>
T Lowest() {
  if constexpr (std::is_same_v<T, Half>) {
    return Half::FromBits(0xfbff);  // -65504
  } else {
    return std::numeric_limits<T>::lowest();
  }
}

// The accumulator a reduction starts from (Eigen's reducers' initialize()).
template <typename T>
T Initial(SegmentReduce r) {
  switch (r) {
    case SegmentReduce::kProd:
      return static_cast<T>(1);
    case SegmentReduce::kMax:
      return Lowest<T>();
    case SegmentReduce::kMin:
      return Highest<T>();
    default:
      return static_cast<T>(0);
  }
}

// acc <- acc (r) x, in T's own arithmetic: integers wrap, half rounds after each step. Max and
// min keep x unless acc strictly beats it (std::max(x, acc), as Eigen's reducers and TensorFlow's
// unsorted functors call it), so a NaN x is taken and a NaN acc is replaced.
template <typename T>
T Step(SegmentReduce r, T acc, T x) {
  if constexpr (std::is_integral_v<T>) {
    switch (r) {
      case SegmentReduce::kSum:
      case SegmentReduce::kMean:
        return static_cast<T>(static_cast<uint64_t>(acc) + static_cast<uint64_t>(x));
      case SegmentReduce::kProd:
        return static_cast<T>(static_cast<uint64_t>(acc) * static_cast<uint64_t>(x));
      case SegmentReduce::kMax:
        return x < acc ? acc : x;
      case SegmentReduce::kMin:
        return acc < x ? acc : x;
    }
    return acc;
  } else {
    using C = ComputeType<T>;
    const C a = static_cast<C>(acc);
    const C b = static_cast<C>(x);
    switch (r) {
      case SegmentReduce::kSum:
      case SegmentReduce::kMean:
        return static_cast<T>(a + b);
      case SegmentReduce::kProd:
        return static_cast<T>(a * b);
      case SegmentReduce::kMax:
        return b < a ? acc : x;
      case SegmentReduce::kMin:
        return a < b ? acc : x;
    }
    return acc;
  }
}

// The mean of a segment from its sum (Eigen's MeanReducer: the sum divided by the count, so
// integer means truncate). Integers divide in 64 bits, where a count that T cannot hold (which
// Eigen would convert to T) still divides.
template <typename T>
T Mean(T sum, int64_t count) {
  if constexpr (std::is_signed_v<T> && std::is_integral_v<T>) {
    return static_cast<T>(static_cast<int64_t>(sum) / count);
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<uint64_t>(sum) / static_cast<uint64_t>(count));
  } else {
    using C = ComputeType<T>;
    return static_cast<T>(static_cast<C>(sum) / static_cast<C>(static_cast<T>(count)));
  }
}

absl::Status CheckReducible(const KernelContext& ctx, int i) {
  const DType d = ctx.input(i).dtype();
  if (!IsSupported(d) || d == DType::kBool) {
    return ctx.Error(absl::StrCat("input ", i, " has unsupported dtype ", DTypeName(d)));
  }
  return absl::OkStatus();
}

// SegmentSum and its kin (data, segment_ids): out[s] = the reduction of the rows i of data with
// segment_ids[i] == s. The ids are sorted and non-negative; there are ids[-1] + 1 segments and
// those no id names are 0 (1 for the product).
template <SegmentReduce kReduce>
absl::Status SortedSegment(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckReducible(ctx, 0));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 1, {DType::kInt32, DType::kInt64}));
  const Tensor& data = ctx.input(0);
  const Tensor& ids = ctx.input(1);
  if (data.rank() < 1) {
    return ctx.Error(absl::StrCat("data must have rank 1 or more, got ", data.DebugType()));
  }
  if (ids.rank() != 1 || ids.dim(0) != data.dim(0)) {
    return ctx.Error(absl::StrCat("segment_ids must be a vector of data's first dimension ",
                                  data.dim(0), ", got ", ids.DebugType()));
  }
  const int64_t n = ids.num_elements();
  const int64_t segments = n > 0 ? ids.ElementAsInt64(n - 1) + 1 : 0;
  if (n > 0 && segments <= 0) {
    return ctx.Error(absl::StrCat("segment ids must be >= 0, the last is ", segments - 1));
  }
  Shape shape = data.shape();
  shape[0] = segments;
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, data.dtype(), shape));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t id = ids.ElementAsInt64(i);
    if (id < 0) {
      return ctx.Error(absl::StrCat("segment_ids[", i, "] = ", id, " is negative"));
    }
    if (i > 0 && id < ids.ElementAsInt64(i - 1)) {
      return ctx.Error(absl::StrCat("segment ids are not increasing: segment_ids[", i, "] = ", id,
                                    " follows ", ids.ElementAsInt64(i - 1)));
    }
  }
  const int64_t row = Product(data.shape(), 1, data.rank());
  DispatchDType(data.dtype(), [&]<typename T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      const T* in = data.data<T>();
      T* o = out.template mutable_data<T>();
      // Segments no id names, and those between named ones, hold the default value.
      const T empty = static_cast<T>(kReduce == SegmentReduce::kProd ? 1 : 0);
      std::fill_n(o, out.num_elements(), empty);
      int64_t start = 0;
      while (start < n) {
        const int64_t id = ids.ElementAsInt64(start);
        int64_t end = start + 1;
        while (end < n && ids.ElementAsInt64(end) == id) ++end;
        T* dst = o + id * row;
        if (end - start == 1) {
          // TensorFlow copies a one-row segment; a reduction could change it (max of -inf).
          std::copy_n(in + start * row, row, dst);
        } else {
          for (int64_t e = 0; e < row; ++e) {
            T acc = Initial<T>(kReduce);
            for (int64_t i = start; i < end; ++i) acc = Step(kReduce, acc, in[i * row + e]);
            dst[e] = kReduce == SegmentReduce::kMean ? Mean(acc, end - start) : acc;
          }
        }
        start = end;
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// UnsortedSegmentSum and its kin (data, segment_ids, num_segments): out[s] = the reduction of
// the slices data[i...] with segment_ids[i...] == s, where segment_ids' shape is a prefix of
// data's. Negative ids are dropped; an empty segment holds the reduction's start (0, 1, the
// dtype's lowest for max and highest for min).
template <SegmentReduce kReduce>
absl::Status UnsortedSegment(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 3));
  DFC_RETURN_IF_ERROR(CheckReducible(ctx, 0));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 1, {DType::kInt32, DType::kInt64}));
  const Tensor& data = ctx.input(0);
  const Tensor& ids = ctx.input(1);
  if (ctx.input(2).rank() != 0) {
    return ctx.Error(absl::StrCat("num_segments must be a scalar, got ", ctx.input(2).DebugType()));
  }
  DFC_ASSIGN_OR_RETURN(int64_t segments, ReadIndexScalar(ctx, 2, "num_segments"));
  if (segments < 0) {
    return ctx.Error(absl::StrCat("num_segments must not be negative, got ", segments));
  }
  if (!StartsWith(data.shape(), ids.shape())) {
    return ctx.Error(absl::StrCat("data ", data.DebugType(), " does not start with ",
                                  "segment_ids' shape ", ShapeToString(ids.shape())));
  }
  Shape shape = {segments};
  shape.insert(shape.end(), data.shape().begin() + ids.rank(), data.shape().end());
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, data.dtype(), shape));
  const int64_t row = Product(data.shape(), ids.rank(), data.rank());
  // TensorFlow reads no id when data is empty.
  if (data.num_elements() > 0) {
    for (int64_t i = 0; i < ids.num_elements(); ++i) {
      const int64_t id = ids.ElementAsInt64(i);
      if (id >= segments) {
        return ctx.Error(absl::StrCat("segment_ids", Position(ids.shape(), i), " = ", id,
                                      " is out of range [0, ", segments, ")"));
      }
    }
  }
  DispatchDType(data.dtype(), [&]<typename T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      T* o = out.template mutable_data<T>();
      std::fill_n(o, out.num_elements(), Initial<T>(kReduce));
      if (data.num_elements() == 0) return;
      const T* in = data.data<T>();
      for (int64_t i = 0; i < ids.num_elements(); ++i) {
        const int64_t id = ids.ElementAsInt64(i);
        if (id < 0) continue;
        for (int64_t e = 0; e < row; ++e) {
          o[id * row + e] = Step(kReduce, o[id * row + e], in[i * row + e]);
        }
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

// DynamicPartition(data, partitions): output k holds, in order, the slices data[i...] with
// partitions[i...] == k, where partitions' shape is a prefix of data's.
absl::Status DynamicPartition(KernelContext& ctx) {
  DFC_RETURN_IF_ERROR(CheckNumInputs(ctx, 2));
  DFC_RETURN_IF_ERROR(CheckDType(ctx, 1, {DType::kInt32}));
  const Tensor& data = ctx.input(0);
  const Tensor& partitions = ctx.input(1);
  if (!IsSupported(data.dtype())) {
    return ctx.Error(absl::StrCat("data has unsupported dtype ", DTypeName(data.dtype())));
  }
  DFC_ASSIGN_OR_RETURN(int64_t num, ctx.node().GetInt("num_partitions"));
  if (num < 1) return ctx.Error(absl::StrCat("num_partitions must be >= 1, got ", num));
  if (!StartsWith(data.shape(), partitions.shape())) {
    return ctx.Error(absl::StrCat("data ", data.DebugType(), " does not start with ",
                                  "partitions' shape ", ShapeToString(partitions.shape())));
  }
  std::vector<int64_t> counts(num, 0);
  for (int64_t i = 0; i < partitions.num_elements(); ++i) {
    const int64_t p = partitions.ElementAsInt64(i);
    if (p < 0 || p >= num) {
      return ctx.Error(absl::StrCat("partitions", Position(partitions.shape(), i), " = ", p,
                                    " is not in [0, ", num, ")"));
    }
    ++counts[p];
  }
  const Shape inner(data.shape().begin() + partitions.rank(), data.shape().end());
  const size_t bytes =
      static_cast<size_t>(Product(inner, 0, static_cast<int>(inner.size()))) * SizeOf(data.dtype());
  std::vector<Tensor> outputs;
  for (int64_t k = 0; k < num; ++k) {
    Shape shape = {counts[k]};
    shape.insert(shape.end(), inner.begin(), inner.end());
    DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, data.dtype(), shape));
    outputs.push_back(std::move(out));
  }
  std::vector<int64_t> filled(num, 0);
  const auto* src = static_cast<const unsigned char*>(data.raw_data());
  for (int64_t i = 0; i < partitions.num_elements() && bytes > 0; ++i) {
    const int64_t p = partitions.ElementAsInt64(i);
    auto* dst = static_cast<unsigned char*>(outputs[p].mutable_raw_data());
    std::memcpy(dst + filled[p]++ * bytes, src + i * bytes, bytes);
  }
  for (int64_t k = 0; k < num; ++k) ctx.set_output(static_cast<int>(k), std::move(outputs[k]));
  return absl::OkStatus();
}

// ParallelConcat(values...): the N values, each of shape [1, ...], stacked along dimension 0
// into the attribute `shape`, [N, ...].
absl::Status ParallelConcat(KernelContext& ctx) {
  const int n = ctx.num_inputs();
  if (n < 1) return ctx.Error("expects at least one input");
  const Tensor& first = ctx.input(0);
  if (!IsSupported(first.dtype())) {
    return ctx.Error(absl::StrCat("values have unsupported dtype ", DTypeName(first.dtype())));
  }
  for (int i = 0; i < n; ++i) {
    const Tensor& v = ctx.input(i);
    if (v.dtype() != first.dtype() || v.rank() < 1 || v.dim(0) != 1 ||
        !std::equal(v.shape().begin() + 1, v.shape().end(), first.shape().begin() + 1,
                    first.shape().end())) {
      return ctx.Error(absl::StrCat("value ", i, " is ", v.DebugType(),
                                    ", expected the shape [1, ...] and dtype of value 0, ",
                                    first.DebugType()));
    }
  }
  Shape shape = first.shape();
  shape[0] = n;
  if (ctx.node().HasAttr("shape")) {
    DFC_ASSIGN_OR_RETURN(PartialShape declared, ctx.node().GetShape("shape"));
    bool agrees = declared.unknown_rank || declared.dims.size() == shape.size();
    for (size_t d = 0; agrees && !declared.unknown_rank && d < shape.size(); ++d) {
      agrees = declared.dims[d] < 0 || declared.dims[d] == shape[d];
    }
    if (!agrees) {
      return ctx.Error(absl::StrCat("attribute shape ", declared.ToString(), " is not ",
                                    ShapeToString(shape), ", the ", n, " values stacked"));
    }
  }
  DFC_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, first.dtype(), shape));
  auto* dst = static_cast<unsigned char*>(out.mutable_raw_data());
  for (int i = 0; i < n; ++i) {
    if (ctx.input(i).byte_size() == 0) continue;
    std::memcpy(dst + i * ctx.input(i).byte_size(), ctx.input(i).raw_data(),
                ctx.input(i).byte_size());
  }
  ctx.set_output(0, std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterSegmentKernels(KernelRegistry& registry) {
  registry.Register("SegmentSum", SortedSegment<SegmentReduce::kSum>);
  registry.Register("SegmentMean", SortedSegment<SegmentReduce::kMean>);
  registry.Register("SegmentProd", SortedSegment<SegmentReduce::kProd>);
  registry.Register("SegmentMax", SortedSegment<SegmentReduce::kMax>);
  registry.Register("SegmentMin", SortedSegment<SegmentReduce::kMin>);
  registry.Register("UnsortedSegmentSum", UnsortedSegment<SegmentReduce::kSum>);
  registry.Register("UnsortedSegmentProd", UnsortedSegment<SegmentReduce::kProd>);
  registry.Register("UnsortedSegmentMax", UnsortedSegment<SegmentReduce::kMax>);
  registry.Register("UnsortedSegmentMin", UnsortedSegment<SegmentReduce::kMin>);
  registry.Register("DynamicPartition", DynamicPartition);
  registry.Register("ParallelConcat", ParallelConcat);
}

}  // namespace dfc::reference
